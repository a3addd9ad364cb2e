"""Gradients that nest through closures in graph code, compiled with the IR verifier after
every pass (MYCEL_VERIFY_IR=1): nested jvp chains whose body sits in a helper, a gradient
through a function that calls ops.vjp and uses its pullback (the pullback's captured
residuals are differentiated too), forward over reverse, four levels, closures over loop
variables. Values against analytic derivatives and torch.func; GRAPH and PYNATIVE agree."""
import math

import numpy as np
import pytest
import torch
import functorch as tf  # torch.func in later versions (Debian ships torch 1.13)

import mycel as ms
from mycel import nn, ops, Tensor
from mycel.ops.composite import GradOperation

X = np.array([0.3, 2.0], np.float32)
S = np.array([1.5, -0.7], np.float32)


@pytest.fixture(autouse=True)
def _verify(monkeypatch):
    monkeypatch.setenv("MYCEL_VERIFY_IR", "1")


def _run(mode, fn, *args):
    """fn(*args) in `mode`: compiled with ms.jit in GRAPH mode, called as is in PYNATIVE."""
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        return (ms.jit(fn) if mode == ms.GRAPH_MODE else fn)(*args)
    finally:
        ms.set_context(mode=old)


MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


# ---- nested jvp chains, the jvp one helper call deeper -------------------------------------

def _helper(fn, inputs, v):
    """jvp as the vjp of the vjp, written with GradOperation (as MindSpore's docs do)."""
    outputs = fn(*inputs)
    pull = GradOperation(get_all=True, sens_param=True)(fn)

    def pullback(*xs_and_u):
        return pull(*xs_and_u)

    push = GradOperation(get_all=True, sens_param=True)(pullback)
    return outputs, push(*inputs, ops.zeros_like(outputs), v)[-1]


def _myjvp(fn, inputs, v):
    return _helper(fn, inputs, v)


def _nth_helper(f, n):
    if n == 0:
        return f
    lower = _nth_helper(f, n - 1)

    def d(t):
        return _myjvp(lower, (t,), (ops.ones_like(t),))[1]
    return d


def _nth_ops(f, n):
    if n == 0:
        return f
    lower = _nth_ops(f, n - 1)

    def d(t):
        return ops.jvp(lower, (t,), (ops.ones_like(t),))[1]
    return d


def _orders_cell(orders, helper):
    class Orders(nn.Cell):
        def construct(self, x, s):
            def g(t):
                return ops.sin(x + s * t)
            t0 = ops.zeros((), ms.float32)
            out = ()
            for k in orders:
                out = out + ((_nth_helper(g, k) if helper else _nth_ops(g, k))(t0),)
            return out
    return Orders()


def _sin_derivative(k):
    # d^k/dt^k sin(x + s t) at t = 0
    return S ** k * np.sin(X + k * math.pi / 2)


@pytest.mark.parametrize("orders", [(1, 2, 3), (3, 1, 2)])
def test_nested_jvp_chains_through_a_helper(orders):
    # The inliner copied the level returning the closure `d` without the closure (reached
    # only through parameters of helpers moved into it): the entry enclosed itself.
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _orders_cell(orders, True)(Tensor(X), Tensor(S))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for k, v in zip(orders, got):
        np.testing.assert_allclose(v.asnumpy(), _sin_derivative(k), rtol=1e-5, atol=1e-6)
    # order 2 against torch.func's nested jvp
    x, s = torch.tensor(X), torch.tensor(S)

    def g(t):
        return torch.sin(x + s * t)

    def d1(t):
        return tf.jvp(g, (t,), (torch.ones_like(t),))[1]

    t0 = torch.zeros(())
    want = tf.jvp(d1, (t0,), (torch.ones_like(t0),))[1]
    np.testing.assert_allclose(got[orders.index(2)].asnumpy(), want.numpy(), rtol=1e-5,
                               atol=1e-6)


def test_four_levels_of_nested_jvp():
    # The fourth level differentiates a cot_pad (a bprop's bprop's rule): its len of a tuple
    # known at run time.
    orders = (1, 2, 3, 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _orders_cell(orders, False)(Tensor(X), Tensor(S))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for k, v in zip(orders, got):
        np.testing.assert_allclose(v.asnumpy(), _sin_derivative(k), rtol=1e-4, atol=1e-5)


# ---- a gradient through a function that uses a pullback ------------------------------------

def _f(x):
    return ops.sin(x) * x


def _f_t(x):
    return torch.sin(x) * x


def _uses_pullback(y, s):
    out, pull = ops.vjp(_f, y)
    return (pull(s)[0] * out).sum()


def _uses_pullback_t(y, s):
    out, pull = tf.vjp(_f_t, y)
    return (pull(s)[0] * out).sum()


@pytest.mark.parametrize("mode", MODES)
def test_grad_through_a_pullback(mode):
    # The pullback's call was taken for a call of a capture-free graph (its abstract names
    # the specialised vjp_fn): the gradient through its residuals was dropped, silently.
    got = _run(mode, lambda x, s: ms.grad(_uses_pullback)(x, s), Tensor(X), Tensor(S))
    want = tf.grad(_uses_pullback_t)(torch.tensor(X), torch.tensor(S))
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_grad_of_grad_through_a_pullback(mode):
    def outer(y, s):
        return (ms.grad(_uses_pullback)(y, s) ** 2).sum()

    def outer_t(y, s):
        return (tf.grad(_uses_pullback_t)(y, s) ** 2).sum()

    got = _run(mode, lambda x, s: ms.grad(outer)(x, s), Tensor(X), Tensor(S))
    want = tf.grad(outer_t)(torch.tensor(X), torch.tensor(S))
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_jvp_of_a_vjp(mode):
    # forward over reverse: the jvp of y -> J(y)^T s along s is H s s
    def k(x, s):
        def h(y):
            return ops.vjp(_f, y)[1](s)[0]
        return ops.jvp(h, (x,), (s,))

    out, tangent = _run(mode, k, Tensor(X), Tensor(S))
    x, s = torch.tensor(X), torch.tensor(S)
    want_out, want_tangent = tf.jvp(lambda y: tf.vjp(_f_t, y)[1](s)[0], (x,), (s,))
    np.testing.assert_allclose(out.asnumpy(), want_out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tangent.asnumpy(), want_tangent.numpy(), rtol=1e-5, atol=1e-6)


# ---- closures over loop variables ----------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_jvp_and_grad_of_grad_of_closures_over_a_loop_variable(mode):
    def k(x, s):
        out = ()
        for i in range(3):
            def h(t):
                return ops.sin(x * i + s * t)

            def hs(t):
                return (ops.sin(x * i + s * t) * t).sum()
            t0 = ops.zeros((), ms.float32)
            out = out + (ops.jvp(h, (t0,), (ops.ones_like(t0),))[1],
                         ms.grad(ms.grad(hs))(ops.ones_like(t0)))
        return out

    got = _run(mode, k, Tensor(X), Tensor(S))
    x, s = torch.tensor(X), torch.tensor(S)
    for i in range(3):
        t0 = torch.zeros(())
        want_jvp = tf.jvp(lambda t: torch.sin(x * i + s * t), (t0,), (torch.ones(()),))[1]
        want_gg = tf.grad(tf.grad(lambda t: (torch.sin(x * i + s * t) * t).sum()))(
            torch.ones(()))
        np.testing.assert_allclose(got[2 * i].asnumpy(), want_jvp.numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(got[2 * i + 1].asnumpy(), want_gg.numpy(), rtol=1e-5,
                                   atol=1e-5)


# ---- a pullback made outside a gradient, used inside it ------------------------------------

def _pull_cases(mode):
    """(mycel results, torch results) of gradients that receive a pullback made outside."""
    def k(x, s):
        out, pull = ops.vjp(_f, x)
        u0 = ops.ones_like(out)
        # grad in the cotangent (the pullback is linear in it)
        g1 = ms.grad(lambda u: (pull(u)[0] * s).sum())(u0)
        # a function taking the pullback as a closure, differentiated in another argument
        g2 = ms.grad(lambda y: (pull(y * s)[0] * y).sum())(s + 1)
        # double backward through the pullback
        g3 = ms.grad(lambda u: (ms.grad(lambda w: (pull(w)[0] ** 3).sum())(u) * s).sum())(u0)
        # forward mode through it
        j = ops.jvp(lambda u: pull(u)[0], (s,), (s * 2,))
        return g1, g2, g3, j[0], j[1]

    got = _run(mode, k, Tensor(X), Tensor(S))
    x, s = torch.tensor(X), torch.tensor(S)
    out, pull = tf.vjp(_f_t, x)
    u0 = torch.ones_like(out)
    want = (tf.grad(lambda u: (pull(u)[0] * s).sum())(u0),
            tf.grad(lambda y: (pull(y * s)[0] * y).sum())(s + 1),
            tf.grad(lambda u: (tf.grad(lambda w: (pull(w)[0] ** 3).sum())(u) * s).sum())(u0))
    want = want + tuple(tf.jvp(lambda u: pull(u)[0], (s,), (s * 2,)))
    return got, want


@pytest.mark.parametrize("mode", MODES)
def test_gradients_through_a_pullback_made_outside(mode):
    # A gradient received the pullback uncompiled by K (its call returned the cotangents,
    # not (out, bprop)): "tuple index out of range"; now its K is passed in.
    got, want = _pull_cases(mode)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.detach().numpy(), rtol=1e-5, atol=1e-5)


def _pick(pull, n):
    if n > 0:
        return _pick(pull, n - 1)
    return pull


def test_a_pullback_returned_by_a_recursive_call_is_a_clear_error_in_graph_code():
    # The limit: a function value a run-time recursion returns cannot be rebuilt as its K
    # (PYNATIVE records what ran and differentiates it).
    def k(x, n):
        out, pull = ops.vjp(_f, x)
        p = _pick(pull, n)
        return ms.grad(lambda u: p(u)[0].sum())(ops.ones_like(out))

    args = (Tensor(X), Tensor(np.array(2, np.int64)))
    got = _run(ms.PYNATIVE_MODE, k, *args)
    want = tf.vjp(_f_t, torch.tensor(X))[1](torch.ones(2))[0]  # linear in u: J^T ones
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="function value that a differentiated function "
                                        "receives from outside \\(the result of a call\\)"):
        _run(ms.GRAPH_MODE, k, *args)
