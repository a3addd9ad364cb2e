"""A sequence indexed by a value known only at run time in graph code: a 0-d integer tensor
index into a tuple of tensors, and MindSpore's switch_layer (a tuple or CellList of cells of
different kinds called by a run-time index). GRAPH and PYNATIVE give the same answers,
checked against numpy; an index out of range is an IndexError when it runs."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Double(nn.Cell):
    def construct(self, x):
        return x * 2


class Relu(nn.Cell):
    def construct(self, x):
        return ops.relu(x)


class Shift(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x + self.k


class SwitchLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.funcs = (Double(), Relu())
        self.layers = nn.CellList([Shift(1.0), Double()])

    def construct(self, i, x):
        chosen = (self.funcs + (Shift(-3.0),))[i](x)
        return chosen, self.layers[i % 2](x)


X = np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)


@pytest.mark.parametrize("i", [0, 1, 2, -1])
def test_cells_chosen_by_a_run_time_index(mode, i):
    net = SwitchLayer()
    a, b = net(Tensor(i, ms.int32), Tensor(X))
    want_a = [X * 2, np.maximum(X, 0), X - 3.0][i]
    want_b = [X + 1.0, X * 2][i % 2]
    np.testing.assert_allclose(a.asnumpy(), want_a)
    np.testing.assert_allclose(b.asnumpy(), want_b)


def pick(xs0, xs1, xs2, i):
    xs = (xs0, xs1, xs2)
    return xs[i] * 10


@pytest.mark.parametrize("i", [0, 2, -2])
def test_tuple_of_tensors_indexed_by_a_tensor(mode, i):
    vals = [np.full((2,), k, np.float32) for k in (1.0, 2.0, 3.0)]
    out = ms.jit(pick)(*[Tensor(v) for v in vals], Tensor(i, ms.int32))
    np.testing.assert_allclose(out.asnumpy(), vals[i] * 10)


def test_index_out_of_range_is_an_index_error_when_it_runs():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = SwitchLayer()
        with pytest.raises(IndexError, match="out of range"):
            net(Tensor(3, ms.int32), Tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class LoopWithIf(nn.Cell):
    """A loop over a CellList whose body has a run-time `if`: graph mode re-enters the loop
    through the condition, so the cell is chosen by a run-time index."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(3)])

    def construct(self, x):
        for layer in self.layers:
            y = layer(x)
            if ops.sum(y) > 0:
                x = x + ops.tanh(y)
            else:
                x = x - ops.sin(y)
        return x


def test_cell_list_loop_with_a_run_time_if(mode):
    net = LoopWithIf()
    x = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    want = x.copy()
    for layer in net.layers:
        y = want @ layer.weight.asnumpy().T + layer.bias.asnumpy()
        want = want + np.tanh(y) if y.sum() > 0 else want - np.sin(y)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
