"""lazy_inline / no_inline (compile hints: the results are those of the undecorated code, in
both modes and under grad) and ops.functional.linearize (jax.linearize over jvp) against
PyTorch's torch.func.jvp, in both modes and inside jit."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor, lazy_inline, no_inline
from mycel.ops.functional import linearize

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(autouse=True)
def _restore_mode():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Block(nn.Cell):
    def __init__(self, scale):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.full((4,), scale, np.float32)), "w")

    def construct(self, x):
        return ops.tanh(x * self.w) + x


class LazyBlock(Block):
    @lazy_inline
    def __init__(self, scale):
        super().__init__(scale)


class FrontBlock(Block):
    @lazy_inline(policy="front", attrs=["w"])
    def __init__(self, scale):
        super().__init__(scale)


class Net(nn.Cell):
    def __init__(self, block):
        super().__init__()
        self.blocks = nn.CellList([block(0.5 + i) for i in range(3)])

    def construct(self, x):
        for b in self.blocks:
            x = b(x)
        return x.sum()


@pytest.mark.parametrize("mode", MODES)
def test_lazy_inline_gives_the_same_results_and_gradients(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.linspace(-1, 1, 4).astype(np.float32))
    plain, lazy, front = Net(Block), Net(LazyBlock), Net(FrontBlock)
    assert all(b._lazy_inline for b in lazy.blocks)
    assert front.blocks[0]._lazy_inline_policy == "front"
    want = plain(x).asnumpy()
    np.testing.assert_allclose(lazy(x).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(front(x).asnumpy(), want, rtol=1e-6)
    g_plain = ms.grad(plain)(x).asnumpy()
    np.testing.assert_allclose(ms.grad(lazy)(x).asnumpy(), g_plain, rtol=1e-6)
    # against PyTorch
    t = torch.tensor(x.asnumpy(), requires_grad=True)
    y = t
    for i in range(3):
        y = torch.tanh(y * (0.5 + i)) + y
    y.sum().backward()
    np.testing.assert_allclose(want, y.sum().item(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g_plain, t.grad.numpy(), rtol=1e-5)


@no_inline
def _twice_sin(v):
    return ops.sin(v) * 2


def _call_no_inline(v):
    for _ in range(3):
        v = _twice_sin(v)
    return v


@pytest.mark.parametrize("mode", MODES)
def test_no_inline_function_same_result(mode):
    ms.set_context(mode=mode)
    assert _twice_sin._no_inline
    x = np.array([0.1, 0.7, -0.4], np.float32)
    got = ms.jit(_call_no_inline)(Tensor(x)).asnumpy()
    want = x
    for _ in range(3):
        want = np.sin(want) * 2
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_lazy_inline_bad_arguments():
    with pytest.raises(ValueError, match="policy"):
        lazy_inline(policy="back")
    with pytest.raises(TypeError, match="attrs"):
        lazy_inline(attrs=[1])
    with pytest.raises(TypeError, match="no_inline"):
        no_inline(3)


class Poly(nn.Cell):
    def construct(self, x, y):
        return x ** 3 * y, ops.sin(y) + 2 * x


def _torch_poly(x, y):
    return x ** 3 * y, torch.sin(y) + 2 * x


X = np.array([[1.0, 2.0], [-0.5, 0.3]], np.float32)
Y = np.array([[0.2, -1.0], [0.7, 1.5]], np.float32)
V = [(np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)),
     (np.arange(4, dtype=np.float32).reshape(2, 2), np.full((2, 2), -0.5, np.float32))]


def _torch_jvp(vx, vy):
    _, tangents = torch.autograd.functional.jvp(_torch_poly, (torch.tensor(X), torch.tensor(Y)),
                                                (torch.tensor(vx), torch.tensor(vy)))
    return [t.numpy() for t in tangents]


@pytest.mark.parametrize("mode", MODES)
def test_linearize_matches_torch_jvp(mode):
    ms.set_context(mode=mode)
    out, jvp_fn = linearize(Poly(), (Tensor(X), Tensor(Y)))
    for o, w in zip(out, _torch_poly(torch.tensor(X), torch.tensor(Y))):
        np.testing.assert_allclose(o.asnumpy(), w.numpy(), rtol=1e-5)
    for vx, vy in V:
        got = jvp_fn((Tensor(vx), Tensor(vy)))
        for g, w in zip(got, _torch_jvp(vx, vy)):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def _cube(x):
    return x ** 3


def _lin_in_jit(x, v0, v1):
    out, f = linearize(_cube, x)
    return out, f(v0), f(v1)


@pytest.mark.parametrize("mode", MODES)
def test_linearize_single_input_inside_jit(mode):
    ms.set_context(mode=mode)
    v0, v1 = V[1][0], V[1][1]
    out, t0, t1 = ms.jit(_lin_in_jit)(Tensor(X), Tensor(v0), Tensor(v1))
    np.testing.assert_allclose(out.asnumpy(), X ** 3, rtol=1e-6)
    np.testing.assert_allclose(t0.asnumpy(), 3 * X ** 2 * v0, rtol=1e-5)
    np.testing.assert_allclose(t1.asnumpy(), 3 * X ** 2 * v1, rtol=1e-5)


def test_linearize_wrong_tangent_count():
    _, f = linearize(Poly(), (Tensor(X), Tensor(Y)))
    with pytest.raises(ValueError, match="tangents"):
        f(Tensor(X))
