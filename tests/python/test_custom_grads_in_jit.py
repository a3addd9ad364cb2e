"""Custom gradient rules inside graph code give the same gradient in every mode: a Cell's own
bprop and Tensor.register_hook inside a @jit function or a @jit construct, differentiated in
PYNATIVE mode (the recording runs such a graph eagerly: common/api.py, _JitFunction), in
GRAPH mode, and plain PYNATIVE; Cell backward hooks, which graph code cannot honour, are a
TypeError there rather than a gradient that leaves them out. Oracles: the analytic custom
gradient and torch's Tensor.register_hook."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor

X = np.array([0.5, -1.0, 2.0], np.float32)


class TenTimes(nn.Cell):
    """x * x with the custom gradient 10 * dout (not the automatic 2 * x * dout)."""

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * 10,)


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = TenTimes()

    def construct(self, x):
        return self.b(x) * 2


class JitOuter(Outer):
    @ms.jit
    def construct(self, x):
        return self.b(x) * 2


INNER = TenTimes()


@ms.jit
def jit_fn(x):
    return INNER(x) * 3


def plain_fn(x):
    return INNER(x) * 3


@pytest.mark.parametrize("which", ["outer", "jit_outer", "jit_fn", "plain_fn"])
def test_custom_bprop_of_a_sub_cell_is_honoured_everywhere(mode, which):
    fn, scale = {"outer": (Outer(), 2), "jit_outer": (JitOuter(), 2), "jit_fn": (jit_fn, 3),
                 "plain_fn": (plain_fn, 3)}[which]
    want = np.full(3, 10.0 * scale, np.float32)
    np.testing.assert_allclose(ops.grad(fn)(Tensor(X)).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ops.GradOperation()(fn)(Tensor(X)).asnumpy(), want, rtol=1e-6)
    # and the forward value is the construct's
    np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), X * X * scale, rtol=1e-6)


def test_custom_bprop_under_jit_of_a_grad(mode):
    got = ms.jit(ops.grad(JitOuter()))(Tensor(X))
    np.testing.assert_allclose(got.asnumpy(), np.full(3, 20.0), rtol=1e-6)


def hooked(x):
    y = x * 2
    y.register_hook(lambda g: g * 3)
    return (y * y).sum()


def torch_hooked():
    x = torch.tensor(X, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 3)
    (y * y).sum().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("how", ["plain", "jit_inside", "jit_outside"])
def test_register_hook_in_a_jit_function(mode, how):
    if how == "plain":
        fn = ops.grad(hooked)
    elif how == "jit_inside":
        fn = ops.grad(ms.jit(hooked))
    else:
        fn = ms.jit(ops.grad(hooked))
    np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), torch_hooked(), rtol=1e-6)


class Sub(nn.Cell):
    def construct(self, x):
        return x * 2


class HookHost(nn.Cell):
    def __init__(self):
        super().__init__()
        self.s = Sub()

    def construct(self, x):
        return (self.s(x) ** 2).sum()


class JitHookHost(HookHost):
    @ms.jit
    def construct(self, x):
        return (self.s(x) ** 2).sum()


def triple(cell, gin, gout):
    return (gin[0] * 3,)


def test_backward_hook_in_pynative_scales_the_gradient():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        net = HookHost()
        net.s.register_backward_hook(triple)
        np.testing.assert_allclose(ops.grad(net)(Tensor(X)).asnumpy(), 8 * X * 3, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_backward_hook_inside_graph_code_is_a_type_error(mode):
    # GRAPH mode: the sub-cell's hook; either mode: a @jit construct calling a hooked cell
    nets = [JitHookHost()]
    if mode == ms.GRAPH_MODE:
        nets.append(HookHost())
    for net in nets:
        handle = net.s.register_backward_hook(triple)
        with pytest.raises(TypeError, match="'Sub' has backward hooks"):
            ops.grad(net)(Tensor(X))
        # without the hook, the automatic gradient
        handle.remove()
        np.testing.assert_allclose(ops.grad(net)(Tensor(X)).asnumpy(), 8 * X, rtol=1e-6)


def test_backward_hook_on_the_differentiated_cell_in_graph_mode_is_a_type_error():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = HookHost()
        net.register_backward_hook(triple)
        with pytest.raises(TypeError, match="'HookHost' has backward hooks"):
            ops.grad(net)(Tensor(X))
    finally:
        ms.set_context(mode=old)


def square_sum(x):
    return (x * x).sum()


class GradInside(nn.Cell):
    def construct(self, x):
        return ops.grad(square_sum)(x)


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(X), name="w")

    def construct(self, x):
        return (x * self.w).sum()


class WeightGradInside(nn.Cell):
    """MindSpore's training-cell pattern: the weights' gradient taken inside construct."""

    def __init__(self):
        super().__init__()
        self.net = Linear()
        self.weights = ms.ParameterTuple(self.net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, x):
        return self.grad(self.net, self.weights)(x)


def test_input_hooks_of_a_gradient_taken_inside_graph_code(mode):
    x = Tensor(X)
    handle = x.register_hook(lambda g: g * 10)
    try:
        if mode == ms.PYNATIVE_MODE:
            # the construct runs eagerly: its ops.grad applies the hook
            np.testing.assert_allclose(GradInside()(x).asnumpy(), 20 * X, rtol=1e-6)
        else:
            with pytest.raises(TypeError, match="has a hook"):
                GradInside()(x)
        with pytest.raises(TypeError, match="does not run hooks of its inputs"):
            ms.jit(ops.grad(square_sum))(x)
        # a graph that takes no gradient is called as usual
        np.testing.assert_allclose(ms.jit(square_sum)(x).asnumpy(), (X * X).sum(), rtol=1e-6)
    finally:
        handle.remove()
    # without the hook, the plain gradient
    np.testing.assert_allclose(GradInside()(Tensor(X)).asnumpy(), 2 * X, rtol=1e-6)


def test_weight_hooks_of_a_gradient_taken_inside_graph_code():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = WeightGradInside()
        handle = net.net.w.register_hook(lambda g: g * 10)
        with pytest.raises(TypeError, match="For 'WeightGradInside.construct', Parameter 'net.w' has a hook"):
            net(Tensor(X))
        handle.remove()
        (gw,) = net(Tensor(X))
        np.testing.assert_allclose(gw.asnumpy(), X, rtol=1e-6)
    finally:
        ms.set_context(mode=old)
