"""A Cell's bound method (`self._draw`) used as a value in GRAPH mode.

A bound method is a constant closure over the parsed graph of its function and `self`. It
once reached the compiled program as that constant, holding a graph of the parser's module:
with IR verification on (conftest sets MYCEL_VERIFY_IR) every program below failed with the
internal error "graph @_draw belongs to another module (please report)", and without it a
method returned by a helper failed in the executor ("builtin getattr in @_draw should have
been removed by specialisation"). Each program passes the method to a helper (positionally,
as a keyword, to a sub-Cell, to a @jit function), stores it in a tuple, list or dict, gets it
back from a helper, chooses between two methods at run time, and differentiates through
it; each runs in PYNATIVE mode, under jit and in GRAPH mode with identical results
(graph_harness) and is checked against numpy; gradients are checked against the analytic
values in both modes. Returning a bound method from construct is a clear TypeError in
GRAPH mode (graph mode cannot return functions to Python).
"""
from functools import partial

import numpy as np
import pytest

import mycel
from mycel import Parameter, Tensor, context, nn, ops

from graph_harness import check_all_modes, run_mode

W = np.array([2.0, -1.0, 0.5], np.float32)
X = np.array([[1.0, 2.0, 3.0], [-4.0, 0.5, 1.5]], np.float32)


def T(a):
    return Tensor(np.asarray(a, dtype=np.float32))


def call_plus_one(f, x):
    return f(x) + 1


def call_twice_shapes(f, x):
    """Calls f with two signatures (a matrix and one of its rows)."""
    return f(x) + f(x[0])


def call_kw(x, fn=None):
    return fn(x) * 3


def identity(f):
    return f


def repeat(f, x, n):
    for _ in range(n):
        x = f(x)
    return x


@mycel.jit
def jit_minus_one(f, x):
    return f(x) - 1


class Base(nn.Cell):
    """_draw(x) = x * w + k: reads a Parameter and a Python attribute of self."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(T(W), name="w")
        self.k = 0.25

    def _draw(self, x):
        return x * self.w + self.k

    def _shift(self, x):
        return x - 1.0


def draw_np(x):
    return x * W + np.float32(0.25)


class Positional(Base):
    def construct(self, x):
        return call_plus_one(self._draw, x)


class TwoSignatures(Base):
    def construct(self, x):
        return call_twice_shapes(self._draw, x)


class Keyword(Base):
    def construct(self, x):
        return call_kw(x, fn=self._draw)


class Returned(Base):
    def construct(self, x):
        return identity(self._draw)(x)


class ReturnedThenPassed(Base):
    def construct(self, x):
        f = identity(self._draw)
        return call_plus_one(f, x)


class InTuple(Base):
    def construct(self, x):
        t = (self._draw, self._shift)
        return t[0](x) + t[1](x)


class InListAndDict(Base):
    def construct(self, x):
        fs = [self._shift, self._draw]
        d = {"f": self._draw}
        return fs[1](x) * d["f"](x)


class Loop(Base):
    def construct(self, x):
        return repeat(self._draw, x, 2)


class Sub(nn.Cell):
    def construct(self, f, x):
        return f(x) * 2


class ToSubCell(Base):
    def __init__(self):
        super().__init__()
        self.sub = Sub()

    def construct(self, x):
        return self.sub(self._draw, x)


class ToJit(Base):
    def construct(self, x):
        return jit_minus_one(self._draw, x)


class RunTimeChoice(Base):
    def construct(self, x):
        f = self._draw if x.sum() > 0 else self._shift
        return call_plus_one(f, x)


CASES = [
    (Positional, lambda x: draw_np(x) + 1),
    (TwoSignatures, lambda x: draw_np(x) + draw_np(x[0])),
    (Keyword, lambda x: draw_np(x) * 3),
    (Returned, draw_np),
    (ReturnedThenPassed, lambda x: draw_np(x) + 1),
    (InTuple, lambda x: draw_np(x) + (x - 1)),
    (InListAndDict, lambda x: draw_np(x) * draw_np(x)),
    (Loop, lambda x: draw_np(draw_np(x))),
    (ToSubCell, lambda x: draw_np(x) * 2),
    (ToJit, lambda x: draw_np(x) - 1),
]


@pytest.mark.parametrize("net,oracle", CASES, ids=[c[0].__name__ for c in CASES])
def test_bound_method_value_all_modes(net, oracle):
    out = check_all_modes(net, T(X), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), oracle(X), rtol=1e-6)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_bound_method_chosen_at_run_time(sign):
    x = X if sign > 0 else -np.abs(X)
    expected = (draw_np(x) if x.sum() > 0 else x - 1) + 1
    for mode in ("pynative", "graph"):
        out = run_mode(RunTimeChoice, mode, T(x))
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6, err_msg=mode)


def _grads(net_cls, mode):
    saved = context._context["mode"]
    try:
        context.set_context(mode=mode)
        net = net_cls()
        g = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
        (gx,), (gw,) = g(T(X))
        return gx.asnumpy(), gw.asnumpy()
    finally:
        context.set_context(mode=saved)


@pytest.mark.parametrize(
    "net,dx,dw",
    [
        # d/dx sum(x*w + k + 1) = w per row; d/dw = column sums of x
        (Positional, np.broadcast_to(W, X.shape), X.sum(0)),
        (Keyword, 3 * np.broadcast_to(W, X.shape), 3 * X.sum(0)),
        (Returned, np.broadcast_to(W, X.shape), X.sum(0)),
        (ToSubCell, 2 * np.broadcast_to(W, X.shape), 2 * X.sum(0)),
        # sum(w*(x*w + k)): dx = w*w, dw = sum over rows of (2*x*w + k)
        (Loop, np.broadcast_to(W * W, X.shape), (2 * X * W + 0.25).sum(0)),
    ],
    ids=["Positional", "Keyword", "Returned", "ToSubCell", "Loop"],
)
def test_bound_method_value_gradients(net, dx, dw):
    for mode in (context.PYNATIVE_MODE, context.GRAPH_MODE):
        gx, gw = _grads(net, mode)
        np.testing.assert_allclose(gx, dx, rtol=1e-6, err_msg=str(mode))
        np.testing.assert_allclose(gw, dw, rtol=1e-6, err_msg=str(mode))


def test_bound_method_passed_into_grad_of_a_helper():
    class GradOfHelper(Base):
        def construct(self, x):
            return ops.grad(call_plus_one, grad_position=1)(self._draw, x)

    for mode in ("pynative", "graph"):
        out = run_mode(GradOfHelper, mode, T(X))
        np.testing.assert_allclose(out.asnumpy(), np.broadcast_to(W, X.shape), err_msg=mode)


def test_returning_a_bound_method_from_construct_is_a_type_error():
    class ReturnsMethod(Base):
        def construct(self, x):
            return self._draw

    assert callable(run_mode(ReturnsMethod, "pynative", T(X)))
    with pytest.raises(TypeError, match="'_draw'.*cannot return functions"):
        run_mode(ReturnsMethod, "graph", T(X))


# ------------------------------------------------------------------------------------------
# functools.partial in graph code: positional partial application of a bound method, a
# function attribute, a module-level function and a primitive (MindSpore's graph syntax
# supports partial; mycel once passed the bound method to Python and failed with "has no
# Python form").


def scaled_sum(a, b, c):
    return a + b * c


class PartialOfMethod(Base):
    def construct(self, x):
        f = partial(self._draw)
        g = partial(scaled_sum, x, 2.0)
        h = partial(ops.Mul(), x)
        return call_plus_one(f, x) + g(x) + h(x)


class PartialOfTwoArgMethod(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lam = lambda a, b, c: a * b - c

    def pair(self, a, b):
        return a - 2 * b

    def construct(self, x, y):
        return partial(self.pair, x)(y), partial(self.lam, x, y)(x)


def test_functools_partial_all_modes():
    out = check_all_modes(PartialOfMethod, T(X), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), draw_np(X) + 1 + (X + 2 * X) + X * X, rtol=1e-6)
    y = X[::-1].copy()
    a, b = check_all_modes(PartialOfTwoArgMethod, T(X), T(y), rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), X - 2 * y, rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), X * y - X, rtol=1e-6)


def test_functools_partial_with_run_time_keywords_is_a_type_error():
    class KeywordPartial(Base):
        def construct(self, x):
            return partial(call_kw, fn=self._draw)(x)

    class RunTimeKeyword(nn.Cell):
        def pair(self, a, b):
            return a - b

        def construct(self, x):
            return partial(self.pair, b=x)(x)

    # keywords on constants: the host's partial (here a JIT fallback call at run time, as
    # for any host callable given a tensor); on run-time values: a TypeError
    np.testing.assert_allclose(run_mode(KeywordPartial, "pynative", T(X)).asnumpy(),
                               draw_np(X) * 3, rtol=1e-6)
    with pytest.warns(UserWarning, match="JIT fallback"):
        out = run_mode(KeywordPartial, "graph", T(X))
    np.testing.assert_allclose(out.asnumpy(), draw_np(X) * 3, rtol=1e-6)
    with pytest.raises(TypeError, match="partial.*keyword arguments"):
        run_mode(RunTimeKeyword, "graph", T(X))


class ConstKeywordPartial(nn.Cell):
    """MindSpore's graph-syntax case: keywords bound to constants, of a method and of a
    function attribute."""

    def __init__(self):
        super().__init__()
        self.lam = lambda x, y, z: (x, y, z)

    def show(self, x, y, z):
        return x, y, z

    def construct(self):
        return partial(self.show, x=1)(y=2, z=3), partial(self.lam, 1, z=3)(2)


def test_functools_partial_keywords_on_constants():
    for mode in ("pynative", "graph"):
        assert run_mode(ConstKeywordPartial, mode) == ((1, 2, 3), (1, 2, 3)), mode
