"""vmap of a CellList (MindSpore's model ensembling): cell i runs on example i, each with its
own Parameters, outputs stacked along out_axes; both modes, and gradients through it.
Oracle: numpy, cell by cell."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn

RNG = np.random.default_rng(11)
WS = [RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(3)]
BS = [RNG.standard_normal(4).astype(np.float32) for _ in range(3)]


def ensemble():
    return nn.CellList([nn.Dense(3, 4, weight_init=Tensor(w), bias_init=Tensor(b))
                        for w, b in zip(WS, BS)])


def numpy_ensemble(x, axis):
    return np.stack([np.take(x, i, axis) @ WS[i].T + BS[i] for i in range(3)], 0)


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=old)


def test_each_cell_maps_its_example(mode):
    x = RNG.standard_normal((3, 5, 3)).astype(np.float32)
    out = ms.vmap(ensemble(), in_axes=0, out_axes=0)(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), numpy_ensemble(x, 0), rtol=1e-5, atol=1e-5)
    # the batch along axis 1, results stacked along axis 1
    x1 = np.ascontiguousarray(np.swapaxes(x, 0, 1))
    out1 = ms.vmap(ensemble(), in_axes=(1,), out_axes=1)(Tensor(x1))
    np.testing.assert_allclose(out1.asnumpy(), np.swapaxes(numpy_ensemble(x1, 1), 0, 1),
                               rtol=1e-5, atol=1e-5)


def test_gradient_through_the_ensemble(mode):
    x = RNG.standard_normal((3, 2, 3)).astype(np.float32)
    net = ms.vmap(ensemble())

    def loss(t):
        return (net(t) ** 2).sum()

    g = ms.grad(loss)(Tensor(x)).asnumpy()
    # d/dx_i sum((x_i W_i^T + b_i)^2) = 2 (x_i W_i^T + b_i) W_i
    want = np.stack([2 * (x[i] @ WS[i].T + BS[i]) @ WS[i] for i in range(3)], 0)
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)


def test_batch_size_must_be_the_number_of_cells(mode):
    with pytest.raises(ValueError, match="must be the number of cells, 3"):
        ms.vmap(ensemble())(Tensor(np.zeros((4, 3), np.float32)))
    with pytest.raises(NotImplementedError, match="int out_axes"):
        ms.vmap(ensemble(), out_axes=(0,))
