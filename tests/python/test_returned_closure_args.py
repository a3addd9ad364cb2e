"""Calling a closure that another graph returned (made in that graph's frame): its arguments
bind to its signature as in any call (*args packed into a tuple, defaults, keywords). It used
to pass them unpacked, so *args took the first argument alone (a silent wrong answer, or an
IndexError). Also a Cell made in graph code from a Python function (Net(fn)): a compile-time
call on constants. Oracle: the same functions run by Python (PYNATIVE)."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, jit, ops


def _sum3(x, y, z):
    return x + y * z


def make_star(fn):
    def inner(*inputs):
        return fn(*inputs)
    return inner


def make_first_and_rest(fn):
    def inner(p, *inputs):
        return fn(p, *inputs)
    return inner


def make_indexing(k):
    def inner(*inputs):
        return inputs[0] + inputs[1] * inputs[2] + k
    return inner


def make_defaults(k):
    def inner(a, b=2.0, *, scale=1.0):
        return (a + b + k) * scale
    return inner


def star(x, y, z):
    return make_star(_sum3)(x, y, z)


def first_and_rest(x, y, z):
    return make_first_and_rest(_sum3)(x, y, z)


def indexing(x, y, z):
    return make_indexing(1.0)(x, y, z)


def defaults(x, y, z):
    # (one call: graph mode returns a closure's result for one signature of it)
    return make_defaults(3.0)(x, scale=2.0)


def jacobian(x, y, z):
    return ops.jacfwd(_sum3, grad_position=(0, 2))(x, y, z)


@pytest.mark.parametrize("fn", [star, first_and_rest, indexing, defaults, jacobian])
def test_graph_matches_python(fn):
    rng = np.random.default_rng(3)
    args = [Tensor(rng.standard_normal(2).astype(np.float32)) for _ in range(3)]
    want = fn(*args)
    got = jit(fn)(*args)
    flat_w = want if isinstance(want, tuple) else (want,)
    flat_g = got if isinstance(got, tuple) else (got,)
    assert len(flat_w) == len(flat_g)
    for w, g in zip(flat_w, flat_g):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


class _Wrap(ms.nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *inputs):
        return self.fn(*inputs)


def _double_plus(x):
    return x.double() * 3 + x.double()


def _wrapped(x):
    return _Wrap(_double_plus)(x)  # a Cell made in graph code from a function


def test_cell_made_in_graph_code_from_a_function():
    # Net(fn) with fn a Python function runs at compile time, as a call on constants: the
    # Cell is a constant of the graph (it was a run-time fallback whose result was opaque)
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            out = _Wrap(_wrapped)(x)
            assert out.dtype == ms.float64
            np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * 4)
            g = _Wrap(lambda t: ms.grad(_wrapped)(t))(x)
            np.testing.assert_allclose(g.asnumpy(), np.full((2, 2), 4.0))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
