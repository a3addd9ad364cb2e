"""custom_vjp (mindspore.ops.function.grad.grad_func): a function whose gradient is the
backward given to defbwd, in both modes, called directly, from graph code and inside a Cell;
the expected gradients are the backward's own formulas (not the forward's derivative, so a
gradient taken through the forward instead would fail)."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn, ops
from mycel.ops.function.grad.grad_func import custom_vjp

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@custom_vjp
def mul_add(x, y):
    return 2 * x * y + y


def mul_add_bwd(x, y, out, dout):
    return 3 * dout * y, dout * x + out * 0


mul_add.defbwd(mul_add_bwd)

X = np.array([[0.5, -1.0], [2.0, 1.5]], np.float32)
Y = np.array([[1.0, 2.0], [-0.5, 3.0]], np.float32)


def test_forward_and_custom_gradient(mode):
    x, y = Tensor(X), Tensor(Y)
    np.testing.assert_allclose(mul_add(x, y).asnumpy(), 2 * X * Y + Y, rtol=1e-6)
    dx, dy = ops.GradOperation(get_all=True)(mul_add)(x, y)
    np.testing.assert_allclose(dx.asnumpy(), 3 * Y, rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), X, rtol=1e-6)


class UsesIt(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0], np.float32)), name="w")

    def construct(self, x, y):
        return mul_add(x * self.w, y) * 2


def test_inside_a_network(mode):
    x, y = Tensor(X), Tensor(Y)
    dx, dy = ops.GradOperation(get_all=True)(UsesIt())(x, y)
    # d/dx = 2 * (3 * y) * w, d/dy = 2 * (x * w)
    np.testing.assert_allclose(dx.asnumpy(), 2 * 3 * Y * 2, rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), 2 * X * 2, rtol=1e-6)


def test_without_backward_is_an_error(mode):
    @custom_vjp
    def f(x):
        return x * 2

    with pytest.raises(RuntimeError, match="defbwd"):
        ops.GradOperation()(f)(Tensor(X))
