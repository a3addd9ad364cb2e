"""MindSpore's top-level helpers (tensor, the random-state functions, dtype aliases and
queries, run_check) and the monitoring callbacks (EarlyStopping, ReduceLROnPlateau,
LearningRateScheduler) driven by Model.fit / Model.train."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.train import (Model, EarlyStopping, ReduceLROnPlateau, LearningRateScheduler,
                         Callback)


def test_tensor_function():
    t = ms.tensor([[1, 2], [3, 4]], ms.float32)
    assert t.dtype == ms.float32 and t.shape == (2, 2)
    assert ms.tensor(np.arange(3)).dtype == ms.int64
    u = ms.tensor(t, ms.int32)
    assert u.dtype == ms.int32
    np.testing.assert_array_equal(ms.tensor(t).asnumpy(), t.asnumpy())


def test_manual_seed_and_initial_seed_reproduce():
    ms.manual_seed(7)
    a = ops.uniform((5,), Tensor(0.0), Tensor(1.0)).asnumpy()
    assert ms.initial_seed() == 7
    ms.manual_seed(7)
    b = ops.uniform((5,), Tensor(0.0), Tensor(1.0)).asnumpy()
    np.testing.assert_array_equal(a, b)
    s = ms.seed()
    assert isinstance(s, int) and s >= 0 and ms.initial_seed() == s
    with pytest.raises(TypeError, match="manual_seed"):
        ms.manual_seed(1.5)


def test_rng_state_replays_the_draws():
    ms.set_seed(11)
    ops.standard_normal((3,))
    state = ms.get_rng_state()
    assert state.dtype == ms.uint64 and state.ndim == 1
    first = ops.standard_normal((4,)).asnumpy()
    ops.standard_normal((4,))
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ops.standard_normal((4,)).asnumpy(), first)
    with pytest.raises(ValueError, match="set_rng_state"):
        ms.set_rng_state(Tensor(np.zeros(2, np.uint64)))
    with pytest.raises(TypeError, match="set_rng_state"):
        ms.set_rng_state([1, 2, 3])


def test_dtype_aliases_and_queries():
    assert (ms.half, ms.single, ms.double) == (ms.float16, ms.float32, ms.float64)
    assert (ms.byte, ms.short, ms.intc, ms.intp) == (ms.int8, ms.int16, ms.int32, ms.int64)
    assert (ms.ubyte, ms.ushort, ms.uintc, ms.uintp) == (ms.uint8, ms.uint16, ms.uint32,
                                                         ms.uint64)
    assert ms.dtype_to_pytype(ms.float16) is float
    assert ms.dtype_to_pytype(ms.int8) is int
    assert ms.dtype_to_pytype(ms.bool_) is bool
    assert ms.get_py_obj_dtype(Tensor(np.zeros(2, np.int16))) == ms.int16
    assert ms.get_py_obj_dtype(1.5) == ms.float32
    assert ms.get_py_obj_dtype(True) == ms.bool_
    assert ms.get_py_obj_dtype(int) == ms.int64
    with pytest.raises(TypeError, match="get_py_obj_dtype"):
        ms.get_py_obj_dtype("x")
    assert ms.tensor_type is ms.TensorType
    assert ms.constexpr is ops.constexpr and ms.get_grad is ops.get_grad


def test_run_check_prints_the_result(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert "version" in out and "correct" in out


class _Recorder(Callback):
    def __init__(self):
        self.epochs, self.lrs = [], []

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        self.epochs.append(p.cur_epoch_num)
        self.lrs.append(float(p.optimizer.learning_rate.asnumpy()))


def _data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32)).astype(np.float32)
    return [(Tensor(x[i:i + 8]), Tensor(y[i:i + 8])) for i in range(0, n, 8)]


class _FixedMetrics(Callback):
    """Gives the epoch's eval_results from a fixed list (the value a metric would give)."""

    def __init__(self, values, name="eval_loss"):
        self.values, self.name = values, name

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        p.eval_results = {self.name: self.values[p.cur_epoch_num - 1]}


def test_early_stopping_stops_after_patience():
    net = nn.Dense(4, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    rec = _Recorder()
    stop = EarlyStopping(monitor="eval_loss", patience=2)
    # improves for 3 epochs, then stalls: stops at the end of epoch 5
    values = [5.0, 4.0, 3.0, 3.0, 3.5, 2.0, 1.0, 0.5]
    model.train(8, _data(), callbacks=[_FixedMetrics(values), stop, rec])
    assert rec.epochs == [1, 2, 3, 4, 5] and stop.stopped_epoch == 5 and stop.best == 3.0


def test_early_stopping_mode_max_baseline_and_restore():
    net = nn.Dense(4, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    saved = {}

    class Snapshot(Callback):
        def on_train_epoch_end(self, run_context):
            p = run_context.original_args()
            saved[p.cur_epoch_num] = net.weight.asnumpy().copy()

    stop = EarlyStopping(monitor="acc", patience=1, restore_best_weights=True)
    values = [0.5, 0.9, 0.8, 0.95]
    model.train(4, _data(), callbacks=[_FixedMetrics(values, "acc"), Snapshot(), stop])
    assert stop.stopped_epoch == 3
    np.testing.assert_array_equal(net.weight.asnumpy(), saved[2])
    with pytest.raises(ValueError, match="EarlyStopping"):
        EarlyStopping(mode="up")
    with pytest.raises(ValueError, match="EarlyStopping"):
        EarlyStopping(patience=-1)


def test_early_stopping_warns_for_a_missing_monitor():
    net = nn.Dense(4, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    rec = _Recorder()
    with pytest.warns(UserWarning, match="not available"):
        model.train(2, _data(), callbacks=[EarlyStopping(monitor="eval_loss"), rec])
    assert rec.epochs == [1, 2]


def test_reduce_lr_on_plateau_and_cooldown():
    net = nn.Dense(4, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    rec = _Recorder()
    values = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5]
    cb = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=2, cooldown=1,
                           min_lr=0.02)
    model.train(7, _data(), callbacks=[_FixedMetrics(values), cb, rec])
    # epoch 1 sets best; 2, 3 stall -> 0.05 at 3; epoch 4 ends the cooldown and counts (as
    # Keras, which MindSpore follows); 5 -> 0.025; then min_lr 0.02 would be next
    np.testing.assert_allclose(rec.lrs, [0.1, 0.1, 0.05, 0.05, 0.025, 0.025, 0.025], rtol=1e-6)
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        ReduceLROnPlateau(factor=1.0)


def test_reduce_lr_refuses_a_schedule():
    net = nn.Dense(4, 1)
    lr = nn.ExponentialDecayLR(0.1, 0.9, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), lr))
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        model.train(1, _data(), callbacks=[_FixedMetrics([1.0]), ReduceLROnPlateau()])


def test_learning_rate_scheduler_sets_the_rate_each_step():
    net = nn.Dense(4, 1)
    opt = nn.SGD(net.trainable_params(), 0.1)
    model = Model(net, nn.MSELoss(), opt)
    steps = []

    def halve_every_two(lr, step):
        steps.append(step)
        return lr * 0.5 if step % 2 == 0 else lr

    model.train(1, _data(), callbacks=[LearningRateScheduler(halve_every_two)])
    assert steps == [1, 2, 3, 4]
    np.testing.assert_allclose(float(opt.learning_rate.asnumpy()), 0.025, rtol=1e-6)
    with pytest.raises(TypeError, match="LearningRateScheduler"):
        LearningRateScheduler(3)


def test_memory_recycle_returns_cached_blocks():
    from mycel import runtime
    x = Tensor(np.ones((1024, 1024), np.float32)) * 2.0
    del x
    before = runtime.memory_reserved()
    ms.ms_memory_recycle()
    after = runtime.memory_reserved()
    assert after < before and after >= runtime.memory_allocated()
    y = Tensor(np.ones((4,), np.float32)) + 1.0  # still allocates after the recycle
    np.testing.assert_array_equal(y.asnumpy(), np.full(4, 2.0, np.float32))


def test_connect_network_with_dataset_runs_the_helpers_batches():
    import mycel.dataset as ds
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    data = ds.NumpySlicesDataset((x,), column_names=["x"], shuffle=False).batch(2)
    helper = ms.DatasetHelper(data, dataset_sink_mode=True)
    net = nn.Dense(4, 1)
    connected = ms.connect_network_with_dataset(net, helper)
    outs = [connected(*inputs).asnumpy() for inputs in helper]
    want = [net(Tensor(x[i:i + 2])).asnumpy() for i in range(0, 6, 2)]
    for o, w in zip(outs, want):
        np.testing.assert_allclose(o, w, rtol=1e-6)
    assert len(outs) == 3
    with pytest.raises(TypeError, match="connect_network_with_dataset"):
        ms.connect_network_with_dataset(net, data)
