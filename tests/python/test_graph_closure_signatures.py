"""Function values called with several signatures in GRAPH mode.

A closure (a lambda or a nested def capturing local values) handed to a function defined
elsewhere and called there with arguments of different types or shapes: the specialiser
makes one specialisation per call signature (MindSpore accepts these programs; mycel once
failed them with "one signature per function value"). Each program runs in PYNATIVE mode,
under jit and in GRAPH mode with identical results (graph_harness), is checked against
numpy, and its gradients against PyTorch, in both modes.
"""
import numpy as np
import pytest
import torch

import mycel
from mycel import Tensor, ops

from graph_harness import check_all_modes, run_mode


def T(a):
    return Tensor(np.asarray(a, dtype=np.float32))


RNG = np.random.default_rng(21)
X = RNG.standard_normal((2,)).astype(np.float32)
Y = RNG.standard_normal((3, 2)).astype(np.float32)


# ------------------------------------------------------------------------------------------
# a lambda mapped over a tuple of tensors of different shapes by a recursive helper


def map_tuple(f, xs):
    """f over each item of a tuple, by recursion (a helper outside the closure's frame)."""
    if len(xs) == 0:
        return ()
    return (f(xs[0]),) + map_tuple(f, xs[1:])


def lambda_over_shapes(x, y):
    k = x.sum()
    outs = map_tuple(lambda v: v * k + 1.0, (x, y, x * 2.0, y[0]))
    return outs


def numpy_lambda_over_shapes(x, y):
    k = x.sum()
    return tuple(v * k + np.float32(1.0) for v in (x, y, x * np.float32(2.0), y[0]))


def test_lambda_mapped_over_mixed_shapes_by_a_recursive_helper():
    out = check_all_modes(lambda_over_shapes, T(X), T(Y))
    want = numpy_lambda_over_shapes(X, Y)
    assert len(out) == len(want)
    for o, w in zip(out, want):
        assert o.shape == w.shape
        np.testing.assert_allclose(o.asnumpy(), w, rtol=1e-6)


def lambda_over_shapes_loss(x, y):
    a, b, c, d = lambda_over_shapes(x, y)
    return a.sum() + b.sum() + c.sum() + d.sum()


def torch_grads(fn, *arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(*ts).backward()
    return [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gradients_through_the_mapped_lambda(mode):
    def torch_loss(x, y):
        k = x.sum()
        return sum((v * k + 1.0).sum() for v in (x, y, x * 2.0, y[0]))

    gx, gy = run_mode(mycel.grad(lambda_over_shapes_loss, grad_position=(0, 1)), mode,
                      T(X), T(Y))
    wx, wy = torch_grads(torch_loss, X, Y)
    np.testing.assert_allclose(gx.asnumpy(), wx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), wy, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------
# a nested def passed to a helper and called there with an int and with a tensor


def apply_int_and_tensor(f, t):
    return f(2), f(t)


def nested_def_int_and_tensor(x, y):
    def scale(v):
        return v * x + y

    a, b = apply_int_and_tensor(scale, x * 3.0)
    return a + b


def test_nested_def_called_with_an_int_and_a_tensor():
    out = check_all_modes(nested_def_int_and_tensor, T(X), T(Y))
    want = (2 * X + Y) + ((X * 3.0) * X + Y)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gradients_through_the_nested_def(mode):
    def loss(x, y):
        return nested_def_int_and_tensor(x, y).sum()

    def torch_loss(x, y):
        return ((2 * x + y) + ((x * 3.0) * x + y)).sum()

    gx, gy = run_mode(mycel.grad(loss, grad_position=(0, 1)), mode, T(X), T(Y))
    wx, wy = torch_grads(torch_loss, X, Y)
    np.testing.assert_allclose(gx.asnumpy(), wx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), wy, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------
# passed on through two helpers, called with a scalar, a tensor and a tuple; the closure is
# also called by its maker with yet another signature


def call_three_ways(f, x):
    return f(1.5), f(x), f((x, x))


def pass_on(f, x):
    return call_three_ways(f, x)


def closure_through_two_helpers(x):
    c = x.max()

    def g(v):
        if isinstance(v, tuple):
            return v[0] + v[1] * c
        return v * c

    a, b, t = pass_on(g, x)
    return a, b, t, g(x.reshape((2, 1)))


def test_closure_passed_through_two_helpers_and_called_by_its_maker():
    out = check_all_modes(closure_through_two_helpers, T(X))
    c = X.max()
    want = (np.float32(1.5) * c, X * c, X + X * c, X.reshape(2, 1) * c)
    for o, w in zip(out, want):
        np.testing.assert_allclose(o.asnumpy(), w, rtol=1e-6)
    assert out[3].shape == (2, 1)


# ------------------------------------------------------------------------------------------
# what stays an error: a closure chosen at run time between two, called with two signatures


def choose_and_call(x, flag):
    f = (lambda v: v * 2.0) if flag.sum() > 0 else (lambda v: v - 1.0)
    return f(x), f(x.reshape((2, 1)))


def test_a_closure_chosen_at_run_time_still_needs_one_signature():
    with pytest.raises(TypeError, match="chosen at run time"):
        run_mode(choose_and_call, "graph", T(X), T(1.0))


# ------------------------------------------------------------------------------------------
# a closure returned from its frame and then passed to a helper: its run-time value


def make_affine(k):
    return lambda v: v * k + 1.0


def use_helper(f, x):
    return f(x) * 2.0


def escaped_then_passed_down(x, y):
    f = make_affine(x.sum())
    return use_helper(f, y) + use_helper(f, y * 0.5)


def test_escaped_closure_passed_to_a_helper():
    out = check_all_modes(escaped_then_passed_down, T(X), T(Y))
    k = X.sum()
    want = (Y * k + 1.0) * 2.0 + ((Y * 0.5) * k + 1.0) * 2.0
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)


def same_closure_helper_reused_after_escape(x):
    def inner(v):
        return v + x

    a = use_helper(inner, x)
    return a, inner


def helper_reused_after_the_frame_returned(x):
    a, f = same_closure_helper_reused_after_escape(x)
    return a + use_helper(f, x)


def test_helper_specialised_for_a_live_closure_is_not_reused_once_it_escaped():
    """use_helper is first specialised while inner's frame is live (calling inner's graph
    directly); the same signature after that frame returned must not reuse that graph."""
    out = check_all_modes(helper_reused_after_the_frame_returned, T(X))
    np.testing.assert_allclose(out.asnumpy(), (X + X) * 2.0 + (X + X) * 2.0, rtol=1e-6)
