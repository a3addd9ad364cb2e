"""A compiled function or GRAPH-mode Cell with **kwargs takes keyword arguments beyond its
named parameters (MindSpore's top-level kwargs): the dict is passed to the graph, tensors in
it as run-time values. Oracle: numpy; jit and GRAPH mode agree with PYNATIVE."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Mixed(nn.Cell):
    def construct(self, a, *args, **kwargs):
        return a + args[0] * kwargs["d"] - kwargs["e"]


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_cell_with_kwargs(mode):
    ms.set_context(mode=mode)
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([3.0, -1.0], np.float32)
    net = Mixed()
    for d in (np.float32(2.0), np.float32(-0.5)):  # tensors in kwargs change between calls
        got = net(Tensor(a), Tensor(b), d=Tensor(d), e=1)
        np.testing.assert_allclose(got.asnumpy(), a + b * d - 1, rtol=1e-6)


def test_jit_function_with_kwargs_and_grad():
    @ms.jit
    def f(x, **kwargs):
        return ops.sum(x * kwargs["w"]) + kwargs["c"]

    x = np.array([1.0, -2.0, 3.0], np.float32)
    w = np.array([0.5, 1.5, -1.0], np.float32)
    got = f(Tensor(x), w=Tensor(w), c=2.0)
    assert float(got.asnumpy()) == pytest.approx(float((x * w).sum() + 2.0))
    g = ms.grad(lambda x, w: f(x, w=w, c=0.0))(Tensor(x), Tensor(w))
    np.testing.assert_allclose(g.asnumpy(), w)
