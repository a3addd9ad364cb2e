"""Whole-step capture on the GPU (jit_level "O2", runtime/vm_capture.h): a compiled step is
captured once as a CUDA graph and replayed. Oracle: the same step run op by op (O0) on the
GPU, from the same state and seed. Each test also checks the step was captured (or, for the
fallback case, that it was not), so a silent fallback cannot pass for a replay."""
import numpy as np

import mycel as ms
from mycel import Tensor, nn, ops
from mycel import _mycel
from lenet import LeNet5


def _chain(v, w):
    for i in range(30):
        if i % 3 == 0:
            v = v * w
        elif i % 3 == 1:
            v = v + 0.25
        else:
            v = ops.tanh(v)
    return v


def test_elementwise_chain_replays_equal_op_by_op():
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
    eager = ms.jit(_chain, jit_level="O0")
    graph = ms.jit(_chain, jit_level="O2")
    rng = np.random.RandomState(0)
    w = Tensor(rng.rand(257).astype(np.float32))
    kept = []
    for _ in range(6):
        v = Tensor(rng.randn(257).astype(np.float32))  # a new input every call
        got = graph(v, w)
        np.testing.assert_array_equal(got.asnumpy(), eager(v, w).asnumpy())
        kept.append((got, got.asnumpy().copy()))
    for t, was in kept:  # a later replay never overwrites an earlier result
        np.testing.assert_array_equal(t.asnumpy(), was)
    s = graph._graph.capture_stats()
    assert s["captures"] == 1 and s["replays"] == 5 and s["fallbacks"] == 0, s


def _lenet_steps(level, steps=5):
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE, jit_level=level)
    ms.set_seed(3)
    net = LeNet5()
    rng = np.random.RandomState(5)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    losses = []
    for _ in range(steps):
        x = Tensor(rng.randn(16, 1, 28, 28).astype(np.float32))
        y = Tensor(rng.randint(0, 10, 16).astype(np.int32))
        losses.append(float(step(x, y)))
    weights = [p.asnumpy() for p in net.trainable_params()]
    stats = step._compiled_construct()._graph.capture_stats()
    ms.set_context(jit_level="O1")
    return np.array(losses), weights, stats


def test_lenet_training_steps_replay_equal_op_by_op():
    l0, w0, _ = _lenet_steps("O0")
    l2, w2, stats = _lenet_steps("O2")
    assert stats["captures"] == 1 and stats["replays"] == 4, stats
    np.testing.assert_allclose(l2, l0, rtol=1e-6, atol=1e-7)
    for a, b in zip(w2, w0):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


_normal = ops.StandardNormal()
_uniform = ops.UniformReal()


def _noisy(x):
    return _normal((4, 33)) * x + _uniform((4, 33)) + ops.dropout(x, p=0.5)


def test_random_ops_draw_as_op_by_op_with_the_same_seed():
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
    x = Tensor(np.ones((4, 33), np.float32))
    runs = {}
    for level in ("O0", "O2"):
        ms.set_seed(21)
        f = ms.jit(_noisy, jit_level=level)
        runs[level] = [f(x).asnumpy() for _ in range(5)]
        if level == "O2":
            s = f._graph.capture_stats()
            assert s["captures"] == 1, s
    for a, b in zip(runs["O2"], runs["O0"]):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(runs["O2"][3], runs["O2"][4])  # replays draw new numbers


def test_device_memory_is_flat_across_replays():
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
    f = ms.jit(_chain, jit_level="O2")
    v = Tensor(np.linspace(-1, 1, 4096).astype(np.float32))
    w = Tensor(np.full(4096, 0.5, np.float32))
    for _ in range(3):
        f(v, w)
    ms.hal.synchronize()
    before = _mycel._device_memory_stats("GPU", 0)["in_use"]
    for _ in range(20):
        f(v, w)
    ms.hal.synchronize()
    assert _mycel._device_memory_stats("GPU", 0)["in_use"] == before
    assert f._graph.capture_stats()["replays"] == 22  # 2 in the first loop, then 20


def test_a_step_that_prints_runs_op_by_op(capfd):
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)

    def f(x):
        y = x * 2
        print("step")
        return y + 1
    g = ms.jit(f, jit_level="O2")
    x = Tensor(np.arange(5, dtype=np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(g(x).asnumpy(), np.arange(5) * 2 + 1)
    s = g._graph.capture_stats()
    assert s["captures"] == 0 and s["fallbacks"] == 1 and "print" in s["last_reason"], s
    assert "runs op by op" in capfd.readouterr().err
