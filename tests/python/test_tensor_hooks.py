"""Tensor.register_hook / Parameter.register_hook (common/tensor_hooks.py), against torch's
Tensor.register_hook: hooks on a gradient function's inputs and weights (both modes), on a
tensor made inside a construct (PYNATIVE: the recording; GRAPH: the front end's
parse_register_hook), hooks that return None, the handles' remove(), and the errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Parameter, Tensor

RNG = np.random.default_rng(11)
W0 = RNG.standard_normal(3).astype(np.float32)
W1 = RNG.standard_normal(3).astype(np.float32)
X = RNG.standard_normal(3).astype(np.float32)
Y = RNG.standard_normal(3).astype(np.float32)


class Net(nn.Cell):
    """(x * w0 + y) * sin(x * w1): x is read twice, so its gradient has two parts."""

    def __init__(self):
        super().__init__()
        self.w0 = Parameter(Tensor(W0), name="w0")
        self.w1 = Parameter(Tensor(W1), name="w1")

    def construct(self, x, y):
        return (x * self.w0 + y) * ops.sin(x * self.w1)


def torch_grads(x_hooks=(), y_hooks=(), w0_hooks=(), w1_hooks=()):
    """Gradients of Net's output (sensitivity ones) in torch, with the hooks registered."""
    x, y = torch.tensor(X, requires_grad=True), torch.tensor(Y, requires_grad=True)
    w0, w1 = torch.tensor(W0, requires_grad=True), torch.tensor(W1, requires_grad=True)
    for t, hooks in ((x, x_hooks), (y, y_hooks), (w0, w0_hooks), (w1, w1_hooks)):
        for h in hooks:
            t.register_hook(h)
    ((x * w0 + y) * torch.sin(x * w1)).sum().backward()
    return [t.grad.numpy() for t in (x, y, w0, w1)]


def flat(out):
    (gx, gy), (g0, g1) = out
    return [g.asnumpy() for g in (gx, gy, g0, g1)]


def check(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_hooks_on_inputs_and_weights_run_in_order_and_can_be_removed(mode):
    net = Net()
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    x, y = Tensor(X), Tensor(Y)
    hx1 = x.register_hook(lambda g: g * 2)
    x.register_hook(lambda g: g + 1)  # after the first: (g * 2) + 1
    hw = net.w1.register_hook(lambda g: g * 3)
    check(flat(grad_fn(x, y)), torch_grads(x_hooks=[lambda g: g * 2, lambda g: g + 1],
                                           w1_hooks=[lambda g: g * 3]))
    # a second call gives the same (the hooks stay)
    check(flat(grad_fn(x, y)), torch_grads(x_hooks=[lambda g: g * 2, lambda g: g + 1],
                                           w1_hooks=[lambda g: g * 3]))
    hx1.remove()
    hw.remove()
    hw.remove()  # a second remove does nothing
    check(flat(grad_fn(x, y)), torch_grads(x_hooks=[lambda g: g + 1]))
    # a tensor without hooks passed at the same position is not affected
    check(flat(grad_fn(Tensor(X), y)), torch_grads())


def test_input_hooks_with_grad_and_value_and_grad(mode):
    def f(x, y):
        return (x * y).sum() * 2

    x, y = Tensor(X), Tensor(Y)
    x.register_hook(lambda g: g * 10)
    gx = ops.grad(f)(x, y)
    np.testing.assert_allclose(gx.asnumpy(), Y * 20, rtol=1e-6)
    v, (gx, gy) = ops.value_and_grad(f, grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(v.asnumpy(), (X * Y).sum() * 2, rtol=1e-5)
    np.testing.assert_allclose(gx.asnumpy(), Y * 20, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), X * 2, rtol=1e-6)


def test_hook_returning_none_sees_the_gradient_and_keeps_it(mode):
    seen = []
    net = Net()
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    x = Tensor(X)
    x.register_hook(lambda g: seen.append(g.asnumpy().copy()))
    want = torch_grads()
    check(flat(grad_fn(x, Tensor(Y))), want)
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], want[0], rtol=1e-5)


class InsideNet(nn.Cell):
    """x is read before and after its hook is registered: the hook sees the whole gradient."""

    def __init__(self, hook):
        super().__init__()
        self.w0 = Parameter(Tensor(W0), name="w0")
        self.w1 = Parameter(Tensor(W1), name="w1")
        self.hook = hook

    def construct(self, x):
        h = x * self.w0
        a = h * h
        h.register_hook(self.hook)
        return a + ops.sin(h) * self.w1


def double(g):
    return g * 2


def torch_inside():
    x = torch.tensor(X, requires_grad=True)
    w0, w1 = torch.tensor(W0, requires_grad=True), torch.tensor(W1, requires_grad=True)
    h = x * w0
    a = h * h
    h.register_hook(lambda g: g * 2)
    (a + torch.sin(h) * w1).sum().backward()
    return [t.grad.numpy() for t in (x, w0, w1)]


def test_hook_inside_construct_sees_the_whole_gradient(mode):
    net = InsideNet(double)
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    (gx,), (g0, g1) = grad_fn(Tensor(X))
    check([gx.asnumpy(), g0.asnumpy(), g1.asnumpy()], torch_inside())
    # the forward value is unchanged
    h = X * W0
    np.testing.assert_allclose(net(Tensor(X)).asnumpy(), h * h + np.sin(h) * W1, rtol=1e-5)


def test_hook_inside_construct_with_control_flow_in_the_hook(mode):
    def hook(g):
        if g.sum() > 1e9:
            return g * 3
        return g * 2

    net = InsideNet(hook)
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    (gx,), (g0, g1) = grad_fn(Tensor(X))
    check([gx.asnumpy(), g0.asnumpy(), g1.asnumpy()], torch_inside())


def test_two_hooks_on_one_tensor_inside_graph_is_an_error():
    class Two(nn.Cell):
        def construct(self, x):
            y = x * 2
            y.register_hook(double)
            y.register_hook(double)
            return y

    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(RuntimeError, match="multiple hooks for a Tensor"):
            ops.grad(Two())(Tensor(X))
    finally:
        ms.set_context(mode=old)


def test_parameter_hook_inside_graph_is_an_error():
    class P(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W0), name="w")

        def construct(self, x):
            self.w.register_hook(double)
            return x * self.w

    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="Register hook for Parameter inside graph"):
            ops.grad(P())(Tensor(X))
    finally:
        ms.set_context(mode=old)


def test_a_hook_must_return_a_gradient_like_the_one_it_got(mode):
    x = Tensor(X)
    x.register_hook(lambda g: g.sum())
    with pytest.raises(TypeError, match="register_hook"):
        ops.grad(lambda t: (t * t).sum())(x)


def test_register_hook_checks_its_argument():
    with pytest.raises(TypeError, match="hook_fn"):
        Tensor(X).register_hook(3)


def test_a_cells_input_given_by_keyword_keeps_its_hook(mode):
    net = Net()
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    x, y = Tensor(X), Tensor(Y)
    y.register_hook(lambda g: g * 3)
    check(flat(grad_fn(x, y=y)), torch_grads(y_hooks=[lambda g: g * 3]))


class JitNet(Net):
    @ms.jit
    def construct(self, x, y):
        return (x * self.w0 + y) * ops.sin(x * self.w1)


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = JitNet()

    def construct(self, x, y):
        return self.inner(x, y) * 2


def test_gradient_through_a_jit_decorated_construct(mode):
    # GRAPH mode compiled such a Cell through the run-time fallback, whose gradient was zero
    net = JitNet()
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    x = Tensor(X)
    x.register_hook(lambda g: g * 2)
    check(flat(grad_fn(x, Tensor(Y))), torch_grads(x_hooks=[lambda g: g * 2]))
    outer = Outer()
    gx = ops.grad(outer)(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), 2 * torch_grads()[0], rtol=1e-5, atol=1e-6)
