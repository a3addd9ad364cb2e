"""Data sink (issue #20): mycel.data_sink and Model.train(dataset_sink_mode=True) give the
same weights and losses as step-by-step training over the same batches, in GRAPH mode (the
steps loop in C++ over the data engine's batches) and PYNATIVE mode (a Python loop, as
MindSpore falls back to); sinks that cross the dataset's epoch boundary, a sink_size that
does not divide the epoch, a last smaller batch (a new signature mid-sink), a dataset ending
mid-sink, one callback step per sink, and errors for bad arguments."""
import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel import nn, Tensor
from mycel.train import Model, Callback
from test_grad_accumulation import _Mlp  # (6 -> 16 -> 5)

N, B = 44, 8  # 6 batches per epoch, the last one of 4 rows


def _arrays():
    rng = np.random.default_rng(11)
    return rng.standard_normal((N, 6)).astype(np.float32), rng.integers(0, 5, N).astype(np.int32)


def _dataset(drop_remainder=False):
    x, y = _arrays()
    return ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False).batch(
        B, drop_remainder=drop_remainder)


def _step():
    ms.set_seed(3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    net = _Mlp()
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(
        net.trainable_params(), 0.1, 0.9))


def _batches(drop_remainder=False):
    x, y = _arrays()
    stop = N - N % B if drop_remainder else N
    return [(Tensor(x[i:min(i + B, stop)]), Tensor(y[i:min(i + B, stop)]))
            for i in range(0, stop, B)]


def _step_by_step(steps, drop_remainder=False):
    """Weights and per-step losses of `steps` steps over the repeated batches, one Python call
    each: the oracle."""
    net, step = _step()
    batches = _batches(drop_remainder)
    losses = [float(step(*batches[i % len(batches)]).asnumpy()) for i in range(steps)]
    return [p.asnumpy() for p in net.trainable_params()], losses


def _assert_weights(net, want):
    for p, w in zip(net.trainable_params(), want):
        np.testing.assert_array_equal(p.asnumpy(), w, err_msg=p.name)


@pytest.mark.parametrize("sink_size", [1, 4, 6, 7])
def test_data_sink_equals_step_by_step(mode, sink_size):
    # 4 and 7 do not divide the 6-batch epoch: sinks cross the epoch boundary (and the last
    # batch, of 4 rows, is a new signature in the middle of a sink).
    calls = 3
    want_w, want_losses = _step_by_step(calls * sink_size)
    net, step = _step()
    sink = ms.data_sink(step, _dataset(), sink_size=sink_size)
    for c in range(calls):
        loss = sink()
        assert float(loss.asnumpy()) == want_losses[(c + 1) * sink_size - 1]
    _assert_weights(net, want_w)


def test_data_sink_of_a_function(mode):
    # A plain function of the columns: compiled in GRAPH mode or with a jit_config, a Python
    # loop in PYNATIVE mode without one. Each gives the per-step sums of the last batch.
    def total(x, y):
        return x.sum() + y.astype(ms.float32).sum()

    x, y = _arrays()
    for cfg in (None, ms.JitConfig()):
        sink = ms.data_sink(total, _dataset(), sink_size=5, jit_config=cfg)
        got = [float(sink().asnumpy()) for _ in range(3)]
        # steps 5, 10, 15 over 6 batches: batches 4, 3 (of the second pass), 2 (of the third)
        want = [x[i * B:(i + 1) * B].sum() + y[i * B:(i + 1) * B].sum() for i in (4, 3, 2)]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_data_sink_loops_in_cpp_in_graph_mode():
    # In GRAPH mode the step runs without Python between steps: a Cell's Python __call__ (and
    # construct, only parsed once) is never entered while the sink runs.
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, step = _step()
        sink = ms.data_sink(step, _dataset(True), sink_size=5)
        sink()  # compiles
        calls = []
        orig = type(step).__call__
        type(step).__call__ = lambda self, *a: calls.append(1) or orig(self, *a)
        try:
            sink()
        finally:
            type(step).__call__ = orig
        assert calls == []
        want_w, _ = _step_by_step(10, drop_remainder=True)
        _assert_weights(net, want_w)
    finally:
        ms.set_context(mode=old)


class _Record(Callback):
    def __init__(self):
        self.steps, self.losses, self.epochs = [], [], []

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        self.steps.append((p.cur_epoch_num, p.cur_step_num, p.cur_step_in_epoch))
        self.losses.append(float(p.net_outputs.asnumpy()))
        assert p.dataset_sink_mode

    def on_train_epoch_end(self, run_context):
        self.epochs.append(run_context.original_args().cur_epoch_num)


def _model():
    net, _ = _step()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))


def test_model_sink_whole_epochs(mode):
    # sink_size=-1: each epoch is one sink over the dataset's 6 batches (the last smaller).
    want_w, want_losses = _step_by_step(18)
    net, model = _model()
    rec = _Record()
    model.train(3, _dataset(), callbacks=[rec], dataset_sink_mode=True)
    assert rec.steps == [(1, 6, 6), (2, 12, 6), (3, 18, 6)]
    assert rec.epochs == [1, 2, 3]
    assert rec.losses == [want_losses[5], want_losses[11], want_losses[17]]
    _assert_weights(net, want_w)


def test_model_sink_size_not_dividing_the_epoch(mode):
    # sink_size=4 over 6 batches: each epoch 4 steps, the dataset repeated; 5 epochs read 20
    # batches (3 and a third passes), as step-by-step training over the repeated batches.
    want_w, want_losses = _step_by_step(20)
    net, model = _model()
    rec = _Record()
    model.train(5, _dataset(), callbacks=[rec], dataset_sink_mode=True, sink_size=4)
    assert [s[1] for s in rec.steps] == [4, 8, 12, 16, 20]
    assert rec.losses == [want_losses[i] for i in (3, 7, 11, 15, 19)]
    _assert_weights(net, want_w)


def test_model_sink_equals_model_step_by_step(mode):
    net1, model1 = _model()
    model1.train(2, _dataset(), dataset_sink_mode=False)
    net2, model2 = _model()
    model2.train(2, _dataset(), dataset_sink_mode=True)
    _assert_weights(net2, [p.asnumpy() for p in net1.trainable_params()])


def test_dataset_ending_mid_sink(mode):
    # A dataset of 2 epochs (repeat) inside an iterator of one pass: data_sink's iterator
    # repeats the dataset's 12 batches, so a sink of 5 crosses the end of each pass; and a
    # Model sink larger than a finite dataset's epoch stops at the dataset's end.
    want_w, want_losses = _step_by_step(15)
    net, step = _step()
    sink = ms.data_sink(step, _dataset().repeat(2), sink_size=5)
    for c in range(3):
        assert float(sink().asnumpy()) == want_losses[5 * c + 4]
    _assert_weights(net, want_w)
    # Model: sink_size=-1 with initial_epoch: the iterator has the epochs left only.
    want_w, _ = _step_by_step(12)
    net, model = _model()
    rec = _Record()
    model.train(3, _dataset(), callbacks=[rec], dataset_sink_mode=True, initial_epoch=1)
    assert rec.steps == [(2, 12, 6), (3, 18, 6)]
    _assert_weights(net, want_w)


def test_sink_stops_when_the_iterator_ends(mode):
    # The pipeline's last epoch ends in the middle of a sink: the sink returns what ran.
    from mycel.train.data_sink import _Sink
    want_w, want_losses = _step_by_step(6)
    net, step = _step()
    sink = _Sink(step, _dataset(), 1, ms.get_context("mode") == ms.GRAPH_MODE)
    out, n = sink.run(4, cross_epochs=True)
    assert n == 4 and not sink.ended
    out, n = sink.run(4, cross_epochs=True)
    assert n == 2 and sink.ended and float(out.asnumpy()) == want_losses[5]
    assert sink.run(4, cross_epochs=True) == (None, 0)
    _assert_weights(net, want_w)


def test_sink_errors(mode):
    _, step = _step()
    with pytest.raises(ValueError, match="'sink_size' must be a positive int"):
        ms.data_sink(step, _dataset(), sink_size=0)
    with pytest.raises(ValueError, match="'sink_size' must be a positive int"):
        ms.data_sink(step, _dataset(), sink_size=True)
    with pytest.raises(TypeError, match="must be a mycel.dataset Dataset"):
        ms.data_sink(step, [(1, 2)], sink_size=2)
    with pytest.raises(TypeError, match="'fn' must be callable"):
        ms.data_sink(3, _dataset())
    with pytest.raises(TypeError, match="'jit_config' must be a JitConfig"):
        ms.data_sink(step, _dataset(), jit_config={"jit_level": "O1"})
    with pytest.raises(ValueError, match="the dataset has no batches"):
        x, y = _arrays()
        ms.data_sink(step, ds.NumpySlicesDataset((x[:3], y[:3]), ["x", "y"]).batch(
            B, drop_remainder=True))
    with pytest.raises(ValueError, match="column 0 of the dataset is float32"):
        ms.data_sink(step, _dataset(), input_signature=(Tensor(np.zeros((4, 6), np.float32)),
                                                        Tensor(np.zeros(8, np.int32))))
    ms.data_sink(step, _dataset(), input_signature=(Tensor(np.zeros((8, 6), np.float32)),
                                                    Tensor(np.zeros(8, np.int32))))
    _, model = _model()
    with pytest.raises(ValueError, match="'sink_size' must be -1 or a positive int"):
        model.train(1, _dataset(), dataset_sink_mode=True, sink_size=0)
    with pytest.raises(TypeError, match="'dataset_sink_mode' must be a bool"):
        model.train(1, _dataset(), dataset_sink_mode="yes")
    # (Model.train sinks an iterable of batches in a Python loop, test_train_model.py; what
    # is neither is the TypeError)
    with pytest.raises(TypeError, match="must be a mycel.dataset Dataset"):
        model.train(1, 3, dataset_sink_mode=True)
    # A column the step cannot take fails inside the sink with the step's own error.
    bad = ds.NumpySlicesDataset((np.zeros((8, 6), np.float32),), ["x"], shuffle=False).batch(4)
    with pytest.raises((TypeError, ValueError)):
        ms.data_sink(step, bad, sink_size=2)()
