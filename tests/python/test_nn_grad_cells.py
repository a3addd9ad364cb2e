"""nn.grad.Jvp and nn.grad.Vjp (MindSpore's Jacobian-product Cells) against
torch.autograd.functional.jvp/vjp, one and several inputs and outputs, in both modes."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn
from mycel.nn.grad import Jvp, Vjp


class Cube(nn.Cell):
    def construct(self, x):
        return x ** 3


class TwoOut(nn.Cell):
    def construct(self, x, y):
        return 2 * x * y, ms.ops.sin(y)


def _t(a):
    return torch.tensor(a, dtype=torch.float64)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_vjp_and_jvp_against_torch(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    x, y, v, w = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(4))
    X, Y, V, W = (Tensor(a) for a in (x, y, v, w))

    out, g = Vjp(Cube())(X, V)
    _, tg = torch.autograd.functional.vjp(lambda a: a ** 3, _t(x), _t(v))
    np.testing.assert_allclose(out.asnumpy(), x ** 3, rtol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), tg.numpy(), rtol=1e-5)

    def two(a, b):
        return 2 * a * b, torch.sin(b)
    out, g = Vjp(TwoOut())(X, Y, (V, W))
    _, tg = torch.autograd.functional.vjp(two, (_t(x), _t(y)), (_t(v), _t(w)))
    for a, b in zip(g, tg):
        np.testing.assert_allclose(a.asnumpy(), b.numpy(), rtol=1e-5, atol=1e-6)

    out, j = Jvp(Cube())(X, V)
    _, tj = torch.autograd.functional.jvp(lambda a: a ** 3, _t(x), _t(v))
    np.testing.assert_allclose(j.asnumpy(), tj.numpy(), rtol=1e-5)
    out, j = Jvp(TwoOut())(X, Y, (V, W))
    _, tj = torch.autograd.functional.jvp(two, (_t(x), _t(y)), (_t(v), _t(w)))
    np.testing.assert_allclose(out[1].asnumpy(), np.sin(y), rtol=1e-6)
    for a, b in zip(j, tj):
        np.testing.assert_allclose(a.asnumpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_vjp_cotangent_must_match_the_output(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError):
        Vjp(Cube())(x, (x, x))
    with pytest.raises(TypeError):
        Vjp(Cube())(x, x, x)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_jvp_tangents_must_match_the_inputs(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.ones((2, 2), np.float32))
    for args in ((x, (x,)), (x, (x, x)), (x, x, x), (x, x, (x,))):
        with pytest.raises(TypeError, match="Jvp"):
            Jvp(TwoOut() if len(args) == 3 else Cube())(*args)


class Counted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(Tensor(np.zeros((), np.float32)), name="count")

    def construct(self, x):
        ms.ops.assign_add(self.count, Tensor(1.0, ms.float32))
        return x ** 3


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_cells_run_the_forward_once(mode):
    ms.set_context(mode=mode)
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    for cell in (Vjp, Jvp):
        net = Counted()
        out, g = cell(net)(Tensor(x), Tensor(np.ones((2, 2), np.float32)))
        assert float(net.count.asnumpy()) == 1.0
        np.testing.assert_allclose(out.asnumpy(), x ** 3, rtol=1e-6)
        np.testing.assert_allclose(g.asnumpy(), 3 * x ** 2, rtol=1e-5)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_functional_jvp_vjp_inside_jit_and_construct(mode):
    # ops.jvp / ops.vjp called from graph code (a jit function, a construct): has_aux's branch
    # must leave `aux` defined on the other path too
    ms.set_context(mode=mode)
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    v = np.array([[0.5, 1.0], [2.0, 1.0]], np.float32)
    cube = Cube()

    @ms.jit
    def f(a, t):
        return ms.ops.jvp(cube, a, t)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Cube()

        def construct(self, a, t):
            out, pull = ms.ops.vjp(self.net, a)
            return out, pull(t)[0]  # vjp_fn gives one gradient per input, as a tuple
    _, tj = torch.autograd.functional.jvp(lambda a: a ** 3, _t(x), _t(v))
    _, tv = torch.autograd.functional.vjp(lambda a: a ** 3, _t(x), _t(v))
    np.testing.assert_allclose(f(Tensor(x), Tensor(v))[1].asnumpy(), tj.numpy(), rtol=1e-5)
    np.testing.assert_allclose(Outer()(Tensor(x), Tensor(v))[1].asnumpy(), tv.numpy(), rtol=1e-5)


@pytest.mark.parametrize("forward", [True, False], ids=["jacfwd", "jacrev"])
def test_jacobians_of_several_outputs_against_torch(forward):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal((2, 2)).astype(np.float32) for _ in range(2))

    def f(a, b):
        return a * a * b, ms.ops.sin(b) - a

    def tf(a, b):
        return a * a * b, torch.sin(b) - a
    jac = (ms.ops.jacfwd if forward else ms.ops.jacrev)(f, grad_position=(0, 1))(Tensor(x),
                                                                               Tensor(y))
    want = torch.autograd.functional.jacobian(tf, (_t(x), _t(y)))
    for k in range(2):  # outputs outside, positions inside, as MindSpore
        for p in range(2):
            np.testing.assert_allclose(jac[k][p].asnumpy(), want[k][p].numpy(), rtol=1e-5,
                                       atol=1e-6)
    one = (ms.ops.jacfwd if forward else ms.ops.jacrev)(f)(Tensor(x), Tensor(y))
    np.testing.assert_allclose(one[1].asnumpy(), want[1][0].numpy(), rtol=1e-5, atol=1e-6)


def test_functional_vjp_fn_returns_a_tuple_for_one_input():
    # MindSpore's vjp_fn returns one gradient per input as a tuple, for a single input too
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out, vjp_fn = ms.ops.vjp(Cube(), Tensor(x))
    g = vjp_fn(Tensor(np.ones_like(x)))
    assert isinstance(g, tuple) and len(g) == 1
    np.testing.assert_allclose(g[0].asnumpy(), 3 * x ** 2)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_functional_vjp_with_weights_against_torch(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(5)
    net = nn.Dense(4, 2)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    v = rng.standard_normal((3, 2)).astype(np.float32)
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    out, vjp_fn = ms.ops.vjp(net, Tensor(x), weights=net.trainable_params())
    gin, gw = vjp_fn(Tensor(v))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    (torch.nn.functional.linear(tx, tw, tb) * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(gin[0].asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw[0].asnumpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw[1].asnumpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-6)
