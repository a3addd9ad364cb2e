"""jit_level "O2" (whole-step capture, runtime/vm_capture.h) on the CPU: there is nothing to
capture on the host, so O2 runs exactly as O1 (tests/cpp/runtime/test_capture.cc runs the
capture logic on a fake device; tests/gpu/test_gpu_capture.py on a GPU). Oracle: the same
function at O1, and numpy."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops


def _step(x, w):
    y = ops.matmul(x, w)
    return ops.tanh(y) * 2 + 1


@pytest.fixture(autouse=True)
def _reset():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_level="O1")


def test_o2_equals_o1_on_the_cpu():
    rng = np.random.RandomState(0)
    w = Tensor(rng.randn(4, 3).astype(np.float32))
    f1 = ms.jit(_step, jit_level="O1")
    f2 = ms.jit(_step, jit_level="O2")
    assert f2._graph.jit_level == "O2"
    for _ in range(4):
        x = Tensor(rng.randn(2, 4).astype(np.float32))
        a, b = f2(x, w).asnumpy(), f1(x, w).asnumpy()
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, np.tanh(x.asnumpy() @ w.asnumpy()) * 2 + 1, rtol=1e-5)
    s = f2._graph.capture_stats()
    assert s["captures"] == 0 and s["fallbacks"] == 0 and s["op_by_op"] == 0, s


def test_jit_level_comes_from_the_context_jit_config_or_the_function():
    assert ms.jit(_step)._graph.jit_level == ""  # follows set_context
    assert ms.jit(_step, jit_config=ms.JitConfig(jit_level="O2"))._graph.jit_level == "O2"
    assert ms.jit(_step, jit_config={"jit_level": "O0"})._graph.jit_level == "O0"
    with pytest.raises(ValueError, match="jit_level"):
        ms.jit(_step, jit_level="O3")
    with pytest.raises(ValueError, match="jit_level"):
        ms.set_context(jit_config={"jit_level": "fast"})


def test_graph_mode_training_at_o2_equals_o1_on_the_cpu():
    def train(level):
        ms.set_context(mode=ms.GRAPH_MODE, jit_level=level)
        ms.set_seed(2)
        net = nn.Dense(5, 3)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9))
        rng = np.random.RandomState(1)
        losses = [float(step(Tensor(rng.randn(4, 5).astype(np.float32)),
                             Tensor(rng.randn(4, 3).astype(np.float32)))) for _ in range(4)]
        return losses, [p.asnumpy() for p in net.trainable_params()]
    l1, w1 = train("O1")
    l2, w2 = train("O2")
    assert l1 == l2
    for a, b in zip(w1, w2):
        np.testing.assert_array_equal(a, b)


def test_data_sink_with_an_o2_config_equals_o1_on_the_cpu():
    import mycel.dataset as ds
    rng = np.random.RandomState(3)
    x = rng.randn(12, 4).astype(np.float32)
    w = Tensor(rng.randn(4, 3).astype(np.float32))

    def f(xb):
        return _step(xb, w)
    out = {}
    for level in ("O1", "O2"):
        data = ds.NumpySlicesDataset((x,), ["x"], shuffle=False).batch(4)
        sink = ms.data_sink(f, data, sink_size=3, jit_config=ms.JitConfig(jit_level=level))
        out[level] = sink().asnumpy()
    np.testing.assert_array_equal(out["O2"], out["O1"])
    np.testing.assert_allclose(out["O2"], np.tanh(x[8:] @ w.asnumpy()) * 2 + 1, rtol=1e-5)
