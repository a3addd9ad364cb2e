"""A differentiated input that fn also reads otherwise (a closure, a Cell's Tensor attribute,
a weight, another input): the gradient is with respect to the argument, the other reads being
a separate value that happens to be equal (as GRAPH mode, torch.func and jax give it).
PYNATIVE gradients record tensors by identity, so each input runs as an alias
(ops/composite/__init__.py, _alias); before that, PYNATIVE gave 2s for
grad(lambda y: (y * s).sum())(s). Each case runs in both modes, with the input aliased (the
captured tensor itself) and not (an equal copy), against torch.func."""
import numpy as np
import pytest
import torch
import functorch as tf  # torch.func in later versions (Debian ships torch 1.13)

import mycel as ms
from mycel import nn, ops, Tensor, Parameter
from mycel.ops.composite import GradOperation

S = np.array([0.5, -1.5, 2.0], np.float32)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
ALIASED = [True, False]


def _run(mode, fn, *args):
    """fn(*args) in `mode`: compiled with ms.jit in GRAPH mode, called as is in PYNATIVE."""
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        return (ms.jit(fn) if mode == ms.GRAPH_MODE else fn)(*args)
    finally:
        ms.set_context(mode=old)


def _in_mode(mode, fn, *args):
    """fn(*args) called from Python with the context in `mode` (a GRAPH Cell compiles)."""
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=old)


def _pair(aliased):
    """(captured tensor, input): the same object, or an equal copy."""
    s = Tensor(S)
    return s, (s if aliased else Tensor(S.copy()))


def _close(a, b, tol=1e-5):
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    a = a.asnumpy() if isinstance(a, Tensor) else np.asarray(a)
    np.testing.assert_allclose(a, b.detach().numpy(), rtol=tol, atol=tol)


T = torch.tensor(S)


def _f_torch(y):
    return (y * y * T).sum()


# ---- grad, value_and_grad ----------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_grad_of_a_captured_input(mode, aliased):
    s, x = _pair(aliased)

    def f(y):
        return (y * y * s).sum()

    def g(y):
        return ms.grad(f)(y)

    _close(_run(mode, g, x), tf.grad(_f_torch)(T))  # 2 y s, not 3 y^2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_linear_case_of_the_report(mode, aliased):
    s, x = _pair(aliased)

    def g(y):
        return ms.grad(lambda v: (v * s).sum())(y)

    _close(_run(mode, g, x), tf.grad(lambda v: (v * T).sum())(T))  # s, not 2 s


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_value_and_grad_of_a_captured_input(mode, aliased):
    s, x = _pair(aliased)

    def g(y):
        return ms.value_and_grad(lambda v: (v * v * s).sum())(y)

    value, grad = _run(mode, g, x)
    tg, tv = tf.grad_and_value(_f_torch)(T)
    _close(value, tv)
    _close(grad, tg)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_the_same_tensor_as_two_inputs(mode, aliased):
    s, x = _pair(aliased)

    def g(a, b):
        return ms.grad(lambda u, v: (u * v * v).sum(), grad_position=(0, 1))(a, b)

    got = _run(mode, g, s, x)
    _close(got, tf.grad(lambda u, v: (u * v * v).sum(), argnums=(0, 1))(T, T))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_an_input_inside_a_tuple(mode, aliased):
    s, x = _pair(aliased)

    def g(pair):
        return ms.grad(lambda p: (p[0] * p[1] * s).sum())(pair)

    got = _run(mode, g, (x, x))
    want = tf.grad(lambda p: (p[0] * p[1] * T).sum())((T, T))
    _close(got, want)


# ---- GradOperation, Cells ----------------------------------------------------------------

class _AttrNet(nn.Cell):
    """Reads a Tensor attribute that the test also passes as the input."""

    def __init__(self, t):
        super().__init__()
        self.t = t

    def construct(self, x):
        return (x * x * self.t).sum()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_cell_attribute_passed_as_the_input(mode, aliased):
    s, x = _pair(aliased)
    net = _AttrNet(s)
    got = _in_mode(mode, GradOperation(get_all=True)(net), x)
    _close(got, (tf.grad(_f_torch)(T),))
    got = _in_mode(mode, ms.grad(net), x)
    _close(got, tf.grad(_f_torch)(T))


class _WeightNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(S), name="w")

    def construct(self, x):
        return (x * self.w * self.w).sum()


def _w_torch(x, w):
    return (x * w * w).sum()


@pytest.mark.parametrize("mode", MODES)
def test_a_weight_passed_as_the_input(mode):
    """An input that is also one of the weights: the input's gradient comes from the input's
    uses, the weight's from the weight's (a Parameter is a weight by identity, the input a
    value)."""
    net = _WeightNet()
    grad_fn = GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    gin, gw = _in_mode(mode, grad_fn, net.w)
    tx, tw = tf.grad(_w_torch, argnums=(0, 1))(T, T)
    _close(gin, (tx,))
    _close(gw, (tw,))
    gin, gw = _in_mode(mode, ms.grad(net, 0, net.trainable_params()), net.w)
    _close(gin, tx)
    _close(gw, (tw,))


@pytest.mark.parametrize("mode", MODES)
def test_weights_only_are_unchanged(mode):
    """Without input gradients the weight's gradient is its own uses' (nothing aliased)."""
    net = _WeightNet()
    x = Tensor(S * 2)
    gw = _in_mode(mode, ms.grad(net, None, net.trainable_params()), x)
    _close(gw, (tf.grad(_w_torch, argnums=1)(T * 2, T),))


# ---- vjp, jvp, jacobians, vmap -----------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_vjp_of_a_captured_input(mode, aliased):
    s, x = _pair(aliased)
    u = Tensor(np.array([1.0, 2.0, -1.0], np.float32))

    def g(y, v):
        out, pull = ops.vjp(lambda z: z * z * s, y)
        return out, pull(v)

    out, grads = _run(mode, g, x, u)
    tout, tpull = tf.vjp(lambda z: z * z * T, T)
    _close(out, tout)
    _close(grads, tpull(torch.tensor(u.asnumpy())))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_jvp_of_a_captured_input(mode, aliased):
    s, x = _pair(aliased)
    v = Tensor(np.array([1.0, 2.0, -1.0], np.float32))

    def g(y, t):
        return ops.jvp(lambda z: z * z * s, y, t)

    out, tangent = _run(mode, g, x, v)
    tout, ttan = tf.jvp(lambda z: z * z * T, (T,), (torch.tensor(v.asnumpy()),))
    _close(out, tout)
    _close(tangent, ttan)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_of_a_captured_input(mode, aliased, jac):
    s, x = _pair(aliased)
    ms_jac, t_jac = getattr(ops, jac), getattr(tf, jac)

    def g(y):
        return ms_jac(lambda z: z * z * s)(y)

    _close(_run(mode, g, x), t_jac(lambda z: z * z * T)(T))


@pytest.mark.parametrize("mode", MODES)
def test_vmap_of_grad_at_the_captured_example(mode):
    """Per example, the gradient in y at y = x of (y * y * x).sum(): 2 x x."""
    xs = np.stack([S, S * 3, -S]).astype(np.float32)

    def per_example(x):
        return ms.grad(lambda y: (y * y * x).sum())(x)

    def g(b):
        return ops.vmap(per_example)(b)

    got = _run(mode, g, Tensor(xs))
    want = tf.vmap(lambda x: tf.grad(lambda y: (y * y * x).sum())(x))(torch.tensor(xs))
    _close(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_vmap_of_grad_at_an_unbatched_input(mode):
    """x unbatched (in_axes None), captured and passed as the input of the inner grad."""
    bs = np.stack([S, S * 3, -S]).astype(np.float32)
    x = Tensor(S)

    def per_example(b, x):
        return ms.grad(lambda y: (y * y * x * b).sum())(x)

    def g(b, x):
        return ops.vmap(per_example, in_axes=(0, None))(b, x)

    got = _run(mode, g, Tensor(bs), x)
    want = tf.vmap(lambda b, x: tf.grad(lambda y: (y * y * x * b).sum())(x),
                   in_dims=(0, None))(torch.tensor(bs), T)
    _close(got, want)


# ---- higher order: the inner capture IS the outer input ----------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_nested_grad_of_the_report(mode):
    """grad(lambda x: grad(lambda y: (x*y).sum())(x).sum())(x): the inner gradient is x (the
    captured x is the outer variable, y is the inner one), so the outer one is ones."""
    x = Tensor(S)

    def g(a):
        return ms.grad(lambda x: ms.grad(lambda y: (x * y).sum())(x).sum())(a)

    want = tf.grad(lambda x: tf.grad(lambda y: (x * y).sum())(x).sum())(T)
    _close(_run(mode, g, x), want)


@pytest.mark.parametrize("mode", MODES)
def test_nested_grad_through_both_paths(mode):
    """Inner 2xy at y = x; the outer gradient goes through the capture (2y) and through the
    inner input (2x): 4x. Dropping either path gives 2x."""
    x = Tensor(S)

    def g(a):
        return ms.grad(lambda x: ms.grad(lambda y: (x * y * y).sum())(x).sum())(a)

    want = tf.grad(lambda x: tf.grad(lambda y: (x * y * y).sum())(x).sum())(T)
    _close(_run(mode, g, x), want)
    _close(_run(mode, g, x), torch.tensor(4 * S))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("aliased", ALIASED)
def test_nested_grad_with_an_outer_capture(mode, aliased):
    """Third level of identity: a constant s captured by both, equal to the outer input."""
    s, x = _pair(aliased)

    def g(a):
        return ms.grad(lambda x: ms.grad(lambda y: (x * y * y * s).sum())(x).sum())(a)

    want = tf.grad(lambda x: tf.grad(lambda y: (x * y * y * T).sum())(x).sum())(T)
    _close(_run(mode, g, x), want)


# ---- what the alias keeps ----------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_an_in_place_write_into_the_input_reaches_the_caller(mode):
    """The alias shares the input's storage: a write fn makes into it (not differentiated:
    its value feeds nothing after) is seen by the caller, as without the alias."""
    x = Tensor(S.copy())

    def f(y):
        out = (y * y).sum()
        ops.assign(y, ops.zeros_like(y))
        return out

    got = _in_mode(mode, ms.grad(f), x)
    np.testing.assert_allclose(got.asnumpy(), 2 * S, rtol=1e-6)
    np.testing.assert_array_equal(x.asnumpy(), np.zeros_like(S))


@pytest.mark.parametrize("mode", MODES)
def test_hooks_on_the_input_still_apply(mode):
    """A hook registered on the input before the call, and one registered inside fn on the
    tensor fn receives, both act once on the input's gradient: s * 2 * 3 (the input taken
    twice, as before the alias in PYNATIVE: 12 s)."""
    s = Tensor(S)

    def f(y):
        y.register_hook(lambda g: g * 3)
        return (y * s).sum()

    h = s.register_hook(lambda g: g * 2)
    try:
        got = _in_mode(mode, ms.grad(f), s)
    finally:
        h.remove()
    np.testing.assert_allclose(got.asnumpy(), 6 * S, rtol=1e-6)


def test_pynative_hooks_on_the_input_run_in_registration_order():
    """PYNATIVE: the hook registered before the call first, then the one registered inside fn
    on the alias fn receives: (s * 2) + 1."""
    s = Tensor(S)

    def f(y):
        y.register_hook(lambda g: g + 1)
        return (y * s).sum()

    h = s.register_hook(lambda g: g * 2)
    try:
        got = _in_mode(ms.PYNATIVE_MODE, ms.grad(f), s)
    finally:
        h.remove()
    np.testing.assert_allclose(got.asnumpy(), 2 * S + 1, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_a_hook_registered_inside_fn_acts_on_that_call_only(mode):
    """fn registers a hook on the tensor it receives: it acts on that call's gradient (10 * 2y,
    then through a gradient of a gradient: d/dx sum(20 x) = 20), and is not left on the
    caller's tensor (a second call gives the same; before the alias, PYNATIVE hooks piled
    up on x call after call, as GRAPH code's never do)."""
    x = Tensor(np.array([1.0, 2.0], np.float32))

    def f(y):
        y.register_hook(lambda g: g * 10)
        return (y * y).sum()

    def outer(a):
        return ms.grad(f)(a).sum()

    for _ in range(2):
        np.testing.assert_allclose(_in_mode(mode, ms.grad(f), x).asnumpy(), [20.0, 40.0])
        np.testing.assert_allclose(_in_mode(mode, ms.grad(outer), x).asnumpy(), [20.0, 20.0])
