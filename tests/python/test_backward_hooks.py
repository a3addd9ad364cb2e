"""Gradient hooks: Cell.register_backward_hook (against torch's register_full_backward_hook),
ops.HookBackward (MindSpore's documented example, torch's Tensor.register_hook) and
ops.InsertGradientOf (both modes). As in MindSpore, backward hooks and HookBackward run in
PYNATIVE mode only (in graph code: a TypeError, not a gradient that leaves them out);
InsertGradientOf is compiled into GRAPH mode's backward."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3)).astype(np.float32)
W1, B1 = RNG.standard_normal((4, 3)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
W2, B2 = RNG.standard_normal((2, 4)).astype(np.float32), RNG.standard_normal(2).astype(np.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4, weight_init=ms.Tensor(W1), bias_init=ms.Tensor(B1))
        self.fc2 = nn.Dense(4, 2, weight_init=ms.Tensor(W2), bias_init=ms.Tensor(B2))

    def construct(self, x):
        return (self.fc2(self.fc1(x) * 1.5) ** 2).sum()


def torch_run(scale):
    fc1, fc2 = torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)
    with torch.no_grad():
        for m, w, b in ((fc1, W1, B1), (fc2, W2, B2)):
            m.weight.copy_(torch.tensor(w))
            m.bias.copy_(torch.tensor(b))
    seen = []

    def hook(mod, gin, gout):
        seen.append((gin[0].detach().numpy().copy(), gout[0].detach().numpy().copy()))
        return (gin[0] * scale,) if scale is not None else None

    fc2.register_full_backward_hook(hook)
    x = torch.tensor(X, requires_grad=True)
    (fc2(fc1(x) * 1.5) ** 2).sum().backward()
    grads = [x.grad.numpy()] + [p.grad.numpy() for p in
                                (fc1.weight, fc1.bias, fc2.weight, fc2.bias)]
    return seen, grads


@pytest.mark.parametrize("scale", [None, 2.0])
def test_backward_hook_matches_torch_full_backward_hook(scale):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    seen = []

    def hook(cell, gin, gout):
        assert cell is net.fc2 and len(gin) == 1 and len(gout) == 1
        seen.append((gin[0].asnumpy(), gout[0].asnumpy()))
        return (gin[0] * scale,) if scale is not None else None

    handle = net.fc2.register_backward_hook(hook)
    params = net.trainable_params()  # fc1.weight, fc1.bias, fc2.weight, fc2.bias
    gx, gw = ms.grad(net, grad_position=0, weights=params)(ms.Tensor(X))
    want_seen, want = torch_run(scale)
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0][0], want_seen[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seen[0][1], want_seen[0][1], rtol=1e-5, atol=1e-6)
    for got, w in zip([gx] + list(gw), want):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-5)
    # Removed: gradients as without the hook, and it no longer runs.
    handle.remove()
    gx2, _ = ms.grad(net, grad_position=0, weights=params)(ms.Tensor(X))
    np.testing.assert_allclose(gx2.asnumpy(), torch_run(None)[1][0], rtol=1e-5, atol=1e-5)
    assert len(seen) == 1


class TwoInputs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mul = nn.MatMul()

    def construct(self, x, y):
        return self.mul(x, y) * 2


@pytest.mark.parametrize("scale", [None, 3.0])
def test_backward_pre_hook_matches_torch_output_hook(scale):
    """The pre-hook sees the gradient of the Cell's output (a tuple of it) before the Cell's
    inputs get theirs, and what it returns replaces it; a Cell of two inputs is fine."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    net = TwoInputs()
    seen = []

    def hook(cell, gout):
        assert cell is net.mul and isinstance(gout, tuple) and len(gout) == 1
        seen.append(gout[0].asnumpy())
        return gout[0] * scale if scale is not None else None

    handle = net.mul.register_backward_pre_hook(hook)
    ga, gb = ms.grad(lambda x, y: (net(x, y) ** 2).sum(), grad_position=(0, 1))(
        ms.Tensor(a), ms.Tensor(b))

    # torch 1.13 (Debian's) has no register_full_backward_pre_hook: the same rule as a hook on
    # the module's output tensor, which sees and may replace the output's gradient
    tseen = []

    def thook(g):
        tseen.append(g.detach().numpy().copy())
        return g * scale if scale is not None else None

    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    tout = ta @ tb
    tout.register_hook(thook)
    ((tout * 2) ** 2).sum().backward()
    assert len(seen) == len(tseen) == 1
    np.testing.assert_allclose(seen[0], tseen[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ga.asnumpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-5)
    handle.remove()
    ms.grad(lambda x, y: (net(x, y) ** 2).sum())(ms.Tensor(a), ms.Tensor(b))
    assert len(seen) == 1


def test_backward_pre_hook_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = TwoInputs()
    net.mul.register_backward_pre_hook(lambda c, g: (g[0], g[0]))
    x, y = ms.Tensor(np.ones((2, 2), np.float32)), ms.Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="register_backward_pre_hook.*1 gradient"):
        ms.grad(lambda a, b: net(a, b).sum())(x, y)
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(TypeError, match="'MatMul' has backward hooks"):
            ms.grad(net)(x, y)
    finally:
        ms.set_context(mode=old)


def test_backward_hook_runs_on_every_step_with_that_step_s_gradients():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    seen = []
    net.fc2.register_backward_hook(lambda c, gin, gout: seen.append(gout[0].asnumpy()))
    g = ms.grad(net)
    for k in (1.0, 3.0):
        g(ms.Tensor(X * k))
    assert len(seen) == 2 and not np.allclose(seen[0], seen[1])


def test_backward_hook_in_graph_mode_is_a_type_error():
    """MindSpore skips backward hooks in GRAPH mode (a different gradient than PYNATIVE's);
    mycel refuses them there, naming the Cell and the line that calls it."""
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        seen = []
        handle = net.fc2.register_backward_hook(
            lambda c, gin, gout: seen.append(1) or (gin[0] * 0,))
        with pytest.raises(TypeError, match="'Dense' has backward hooks") as info:
            ms.grad(net)(ms.Tensor(X))
        assert "self.fc2(self.fc1(x) * 1.5)" in str(info.value)
        assert seen == []
        handle.remove()  # without it, the gradient
        gx = ms.grad(net)(ms.Tensor(X))
        np.testing.assert_allclose(gx.asnumpy(), torch_run(None)[1][0], rtol=1e-5, atol=1e-5)
    finally:
        ms.set_context(mode=old)


def test_backward_hook_bad_results_are_type_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.fc2.register_backward_hook(lambda c, gin, gout: (gin[0], gin[0]))
    with pytest.raises(TypeError, match="register_backward_hook"):
        ms.grad(net)(ms.Tensor(X))
    with pytest.raises(TypeError, match="'hook_fn' must be callable"):
        Net().register_backward_hook(None)


def test_hook_backward_follows_the_documented_example():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    seen = []
    # MindSpore's documented example prints the hook's argument as a tuple: (Tensor(2),)
    hook = ops.HookBackward(lambda g: seen.append((type(g), g[0].asnumpy())))

    def f(x, y):
        z = hook(x * y)
        return z * y

    gx, gy = ms.grad(f, grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))
    assert (float(gx), float(gy)) == (4.0, 4.0) and seen == [(tuple, 2.0)]

    double = ops.HookBackward(lambda g: (g[0] * 2,))

    def h(x, y):
        z = double(x * y)
        return z * y

    tx, ty = torch.tensor(1.0, requires_grad=True), torch.tensor(2.0, requires_grad=True)
    tz = tx * ty
    tz.register_hook(lambda g: g * 2)
    (tz * ty).backward()
    gx, gy = ms.grad(h, grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))
    assert (float(gx), float(gy)) == (tx.grad.item(), ty.grad.item()) == (8.0, 6.0)
    # a hook may also return the one gradient as a Tensor
    double1 = ops.HookBackward(lambda g: g[0] * 2)
    gx1, _ = ms.grad(lambda x, y: double1(x * y) * y,
                     grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))
    assert float(gx1) == 8.0
    with pytest.raises(TypeError, match="HookBackward"):
        ops.HookBackward(3)
    bad = ops.HookBackward(lambda g: (g[0], g[0]))
    with pytest.raises(TypeError, match="HookBackward.*1 gradient"):
        ms.grad(lambda x: bad(x * 2) * 3)(ms.Tensor(1.0))
    two = ops.HookBackward(lambda g: None)
    assert [float(t) for t in two(ms.Tensor(1.0), ms.Tensor(2.0))] == [1.0, 2.0]
    with pytest.raises(NotImplementedError, match="HookBackward"):
        ms.grad(lambda x: two(x, x * 2)[0])(ms.Tensor(1.0))


CLIP = ops.InsertGradientOf(lambda g: ops.clamp(g, -1.0, 1.0))


def clipped(x):
    return (CLIP(x * x) * 3.0).sum()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_insert_gradient_of_in_both_modes(mode):
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        x = np.array([0.25, -2.0, 1.0], np.float32)
        fn = ms.grad(clipped)
        got = (ms.jit(fn) if mode == ms.GRAPH_MODE else fn)(ms.Tensor(x)).asnumpy()
        # d/dx of (x*x): 2x times the clipped incoming gradient 3 -> 1.
        np.testing.assert_allclose(got, 2 * x * 1.0, rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_hook_backward_is_refused_in_graph_code():
    """MindSpore: HookBackward is a PYNATIVE primitive; graph code raises rather than skip it."""
    from mycel.ops import operations as P
    hook = P.HookBackward(lambda g: g * 2)

    @ms.jit
    def f(x):
        return hook(x) * 3

    with pytest.raises(TypeError, match="'HookBackward' is not supported in graph mode"):
        f(ms.Tensor(X))
