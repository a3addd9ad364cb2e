"""EarlyStopping and ReduceLROnPlateau driven from epoch ends alone (MindSpore's tests call
on_train_epoch_end without on_train_begin): the best value starts at the worst one, so the
first epoch improves it; patience and the learning-rate factor then act as in a full run."""
import numpy as np

from mycel import Parameter, Tensor, nn
from mycel.train.callback import (EarlyStopping, ReduceLROnPlateau, RunContext,
                                  _InternalCallbackParam)


def run(cb, losses, optimizer=None):
    p = _InternalCallbackParam()
    p.optimizer = optimizer
    ctx = RunContext(p)
    for epoch, loss in enumerate(losses, 1):
        p.cur_epoch_num = epoch
        p.eval_results = {"eval_loss": loss}
        cb.on_train_epoch_end(ctx)
        if ctx.get_stop_requested():
            return epoch
    return None


def test_early_stopping_without_train_begin():
    stop = EarlyStopping(monitor="eval_loss", patience=2, min_delta=0.1)
    # 1.0 improves on +inf; 0.95 and 0.92 are within min_delta: the second makes it stop
    assert run(stop, [1.0, 0.95, 0.92, 0.5]) == 3
    assert stop.best == 1.0 and stop.stopped_epoch == 3
    stop = EarlyStopping(monitor="eval_acc", patience=1)
    assert stop.best == -np.inf  # "acc": higher is better


def test_reduce_lr_on_plateau_without_train_begin():
    w = Parameter(Tensor(np.ones(2, np.float32)), "w")
    opt = nn.Momentum([w], 0.4, 0.9)
    cb = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=1, min_delta=0.0)
    run(cb, [1.0, 1.0, 0.5, 0.7], opt)
    # epoch 2 and epoch 4 did not improve: the rate halves twice
    np.testing.assert_allclose(opt.learning_rate.asnumpy(), 0.1, rtol=1e-6)
    assert cb.best == 0.5
