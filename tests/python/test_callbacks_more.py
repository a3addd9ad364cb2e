"""Callbacks and internals MindSpore programs use beyond test_train_model.py: LambdaCallback,
History, OnRequestExit, _CallbackManager, _InternalCallbackParam, ModelCheckpoint with
function prefixes/folders, the checkpoint helpers; and the initializers Identity, Dirac,
Sparse, Orthogonal and VarianceScaling against their definitions."""
import os
import signal

import numpy as np
import pytest
from scipy import stats

import mycel as ms
import mycel.dataset as ds
from mycel import nn
from mycel.common.initializer import (initializer, Identity, Dirac, Sparse, Orthogonal,
                                      VarianceScaling)
from mycel.train import (Callback, History, LambdaCallback, Model, ModelCheckpoint,
                         CheckpointConfig, OnRequestExit, RunContext, TrainFaultTolerance,
                         load_checkpoint)
from mycel.train.callback import (_CallbackManager, _InternalCallbackParam,
                                  _checkpoint_cb_for_save_op, _set_cur_net)
from mycel.train.callback._checkpoint import _chg_ckpt_file_name_if_same_exist


def _model_and_data(n=64, batch=16):
    rng = np.random.RandomState(0)
    x = rng.randn(n, 4).astype(np.float32)
    y = (np.arange(n) % 3).astype(np.int32)
    data = ds.NumpySlicesDataset((x, y), ["data", "label"], shuffle=False).batch(batch)
    net = nn.Dense(4, 3)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9))
    return net, model, data


def test_lambda_callback_and_history_in_a_run():
    net, model, data = _model_and_data()
    seen = []
    cb = LambdaCallback(on_train_begin=lambda rc: seen.append("begin"),
                        on_train_epoch_end=lambda rc: seen.append(
                            ("epoch", rc.original_args().cur_epoch_num)),
                        on_train_end=lambda rc: seen.append("end"))
    hist = History()
    model.train(3, data, callbacks=[cb, hist])
    assert seen == ["begin", ("epoch", 1), ("epoch", 2), ("epoch", 3), "end"]
    assert hist.epoch == [1, 2, 3]
    assert len(hist.history["net_output"]) == 3
    assert all(np.isfinite(hist.history["net_output"]))
    with pytest.raises(TypeError):
        LambdaCallback(on_train_end=3)


def test_callback_manager_enters_and_exits_every_callback():
    events = []

    class Rec(Callback):
        def __init__(self, tag):
            self.tag = tag

        def __enter__(self):
            events.append(("enter", self.tag))
            return self

        def __exit__(self, *err):
            events.append(("exit", self.tag, err[0]))

        def on_train_step_end(self, rc):
            events.append(("step", self.tag, rc.original_args().cur_step_num))

    p = _InternalCallbackParam()
    p.cur_step_num = 7
    assert p["cur_step_num"] == 7
    with pytest.raises(ValueError):
        with _CallbackManager([Rec("a"), Rec("b")]) as cm:
            cm.on_train_step_end(RunContext(p))
            raise ValueError("boom")
    assert events[:4] == [("enter", "a"), ("enter", "b"), ("step", "a", 7), ("step", "b", 7)]
    assert {e[1] for e in events[4:]} == {"a", "b"} and all(e[2] is ValueError
                                                            for e in events[4:])
    for bad in ([None], ["x"], [Rec("c"), None]):
        with pytest.raises(TypeError):
            _CallbackManager(bad)
    with pytest.raises(TypeError):
        RunContext(666)


def test_model_checkpoint_with_function_prefix_and_folder(tmp_path):
    net, model, data = _model_and_data()
    cfg = CheckpointConfig(save_checkpoint_steps=4, save_checkpoint_seconds=100,
                           keep_checkpoint_max=10)
    ck = ModelCheckpoint(prefix=lambda p: f"step{p.cur_step_num}",
                         directory=lambda p: str(tmp_path / f"e{p.cur_epoch_num}"), config=cfg)
    model.train(2, data, callbacks=[ck])
    assert sorted(os.listdir(tmp_path)) == ["e1", "e2"]
    assert os.listdir(tmp_path / "e1") == ["step4.ckpt"]
    assert os.listdir(tmp_path / "e2") == ["step8.ckpt"]
    saved = load_checkpoint(str(tmp_path / "e2" / "step8.ckpt"))
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())


def test_chg_ckpt_file_name_and_save_op_callback(tmp_path):
    d = str(tmp_path)
    assert _chg_ckpt_file_name_if_same_exist(d, "ck") == "ck"
    open(os.path.join(d, "ck-1_4.ckpt"), "w").close()
    assert _chg_ckpt_file_name_if_same_exist(d, "ck") == "ck_1"
    open(os.path.join(d, "ck_3-1_4.ckpt"), "w").close()
    assert _chg_ckpt_file_name_if_same_exist(d, "ck") == "ck_4"
    net = nn.Dense(2, 2)
    _set_cur_net(net)
    try:
        _checkpoint_cb_for_save_op([{"name": "weight",
                                     "data": ms.Tensor(np.full((2, 2), 3.0, np.float32))}])
    finally:
        _set_cur_net(None)
    np.testing.assert_array_equal(net.weight.asnumpy(), np.full((2, 2), 3.0))


def test_on_request_exit_stops_training_on_its_signal(tmp_path):
    net, model, data = _model_and_data()
    steps = []
    cb = OnRequestExit(save_ckpt=True, save_mindir=False, directory=str(tmp_path),
                       file_name="exit", sig=signal.SIGUSR1)
    count = LambdaCallback(on_train_step_end=lambda rc: steps.append(1))
    kill = LambdaCallback(on_train_step_begin=lambda rc: (
        os.kill(os.getpid(), signal.SIGUSR1) if rc.original_args().cur_step_num == 2 else None))
    old = signal.getsignal(signal.SIGUSR1)
    model.train(5, data, callbacks=[cb, kill, count])
    assert len(steps) == 2  # stopped after the step during which the signal came
    assert os.path.exists(tmp_path / "exit.ckpt")
    assert signal.getsignal(signal.SIGUSR1) == old  # the handler was restored
    with pytest.raises(RuntimeError, match="MindIO"):
        TrainFaultTolerance(ckpt_save_path=str(tmp_path))


def test_identity_dirac_orthogonal():
    np.testing.assert_array_equal(initializer(Identity(), [3, 4]).asnumpy(), np.eye(3, 4))
    np.testing.assert_array_equal(initializer("identity", [4, 3]).asnumpy(), np.eye(4, 3))
    with pytest.raises(ValueError):
        initializer(Identity(), [2, 3, 4])
    w = initializer(Dirac(groups=2), [4, 3, 3, 3]).asnumpy()
    # a convolution with this weight copies input channels 0, 1 to outputs 0, 1 and 2, 3
    expect = np.zeros((4, 3, 3, 3))
    for o, i in ((0, 0), (1, 1), (2, 0), (3, 1)):
        expect[o, i, 1, 1] = 1.0
    np.testing.assert_array_equal(w, expect)
    with pytest.raises(ValueError):
        initializer(Dirac(groups=3), [4, 3, 3])
    q = initializer(Orthogonal(gain=2.0), [3, 5]).asnumpy().astype(np.float64)
    np.testing.assert_allclose(q @ q.T, 4.0 * np.eye(3), atol=1e-5)
    with pytest.raises(ValueError):
        initializer(Orthogonal(), [5])


def test_sparse_and_variance_scaling_distributions():
    w = initializer(Sparse(sparsity=0.25, sigma=0.5), [40, 6]).asnumpy()
    assert (np.count_nonzero(w, axis=0) == 30).all()
    with pytest.raises(ValueError):
        initializer(Sparse(0.1), [2, 3, 4])
    ms.set_seed(1)
    fan_in, fan_out = 200, 300
    u = initializer(VarianceScaling(3.0, "fan_avg", "uniform"), [fan_out, fan_in]).asnumpy()
    limit = np.sqrt(3 * 3.0 / ((fan_in + fan_out) / 2))
    assert stats.kstest(u.ravel() / limit, stats.uniform(-1, 2).cdf).pvalue > 1e-3
    n = initializer(VarianceScaling(2.0, "fan_in", "untruncated_normal"),
                    [fan_out, fan_in]).asnumpy()
    assert stats.kstest(n.ravel() / np.sqrt(2.0 / fan_in), "norm").pvalue > 1e-3
    t = initializer(VarianceScaling(1.0, "fan_out"), [fan_out, fan_in]).asnumpy()
    # truncated at two (pre-truncation) standard deviations, variance scale / fan_out
    np.testing.assert_allclose(t.var(), 1.0 / fan_out, rtol=0.05)
    assert np.abs(t).max() <= 2 * np.sqrt(1.0 / fan_out) / .87962566103423978 + 1e-6
    for bad in (dict(scale=-1.0), dict(mode="fans"), dict(distribution="uniformal")):
        with pytest.raises(ValueError):
            VarianceScaling(**bad)


def test_backup_and_restore_resumes_where_the_run_stopped(tmp_path, mode):
    from mycel.train import BackupAndRestore
    ms.set_seed(3)
    net_a, model_a, data = _model_and_data()
    w0 = net_a.weight.asnumpy().copy(), net_a.bias.asnumpy().copy()
    model_a.train(3, data)  # uninterrupted
    # the same start, stopped after epoch 2, then resumed by a new run
    net_b, model_b, _ = _model_and_data()
    net_b.weight.set_data(ms.Tensor(w0[0]))
    net_b.bias.set_data(ms.Tensor(w0[1]))
    backup = str(tmp_path / "bk")
    stop = LambdaCallback(on_train_epoch_end=lambda rc: rc.request_stop()
                          if rc.original_args().cur_epoch_num == 2 else None)
    model_b.train(3, data, callbacks=[BackupAndRestore(backup, delete_checkpoint=False), stop])
    assert os.path.exists(os.path.join(backup, "backup.ckpt"))
    net_b.weight.set_data(ms.Tensor(np.zeros_like(w0[0])))  # the restore must bring it back
    epochs = []
    seen = LambdaCallback(on_train_epoch_begin=lambda rc: epochs.append(
        rc.original_args().cur_epoch_num))
    model_b.train(3, data, callbacks=[BackupAndRestore(backup), seen])
    assert epochs == [3]
    assert not os.path.exists(os.path.join(backup, "backup.ckpt"))  # deleted at the end
    np.testing.assert_allclose(net_b.weight.asnumpy(), net_a.weight.asnumpy(), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError):
        BackupAndRestore(backup, save_freq=0)


def test_dataset_helper_iterates_epochs_and_sink_steps():
    from mycel.train.dataset_helper import DatasetHelper
    x = np.arange(10, dtype=np.float32).reshape(10, 1)
    data = ds.NumpySlicesDataset((x,), ["x"], shuffle=False).batch(4)  # 3 batches
    helper = DatasetHelper(data, dataset_sink_mode=False, epoch_num=2)
    assert helper.sink_size() == 3
    for _ in range(2):
        got = [b[0].asnumpy().ravel().tolist() for b in helper]
        assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    sink = DatasetHelper(data, dataset_sink_mode=True, sink_size=2, epoch_num=1)
    assert sink.sink_size() == 2 and len(list(sink)) == 2
    for bad, err in ((dict(dataset_sink_mode="True"), TypeError), (dict(sink_size=True), TypeError),
                     (dict(sink_size=1.0), TypeError), (dict(sink_size=-2), ValueError)):
        with pytest.raises(err):
            DatasetHelper(data, **bad)


def test_module_paths_mindspore_programs_import():
    from mycel.context import ParallelMode
    from mycel.common import set_seed, get_seed
    from mycel.communication._comm_helper import GlobalComm
    from mycel.communication import GlobalComm as G
    assert ParallelMode is ms.ParallelMode and GlobalComm is G
    set_seed(11)
    assert get_seed() == 11
