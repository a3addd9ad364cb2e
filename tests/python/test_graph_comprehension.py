"""List comprehensions and generator expressions in graph code are the nested function Python
makes of them, unrolled like any loop (they used to run in the interpreter, giving values of
unknown length that graph code could not unpack): GRAPH equals PYNATIVE over tensors,
conditions, nested generators, cells, closures and Python's scoping rules."""
import itertools

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops

X = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
Y = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))


def stack_rows(a, b):
    return ops.stack([ops.expand_dims(v, 0) * 2 for v in (a, b)], 0)


def with_condition(a, b):
    ks = [k * 10 for k in range(6) if k % 2 == 1]
    return sum([a * k for k in ks]) + b


def nested_generators(a, b):
    return tuple(v * w for v in (a, b) for w in (1.0, -2.0))


def generator_in_calls(a, b):
    total = sum(v.sum() for v in (a, b))
    return total, ops.concat(tuple(v + 1 for v in [a, b]), 1)


def shadowing(a, b):
    a = (a, b)
    return [a * 3 for a in a]  # the iterable is the outer `a`


def closure_and_scope(a, b):
    scale = 2.0

    def f(v):
        return v * scale
    out = [f(v) + b for v in [a, a]]
    v = 7  # the comprehension's variable did not leak
    return out[0] + out[1] * v


def over_tensor_rows(a, b):
    return [r.sum() for r in a]


class Layers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4) for _ in range(3)])

    def construct(self, x):
        return ops.stack([layer(x) for layer in self.layers], 0).sum(0)


def _flat(v):
    if isinstance(v, (list, tuple)):
        return [_flat(x) for x in v]
    return v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)


def _check(fn, *args):
    want = _flat(fn(*args))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _flat(ms.jit(fn)(*args))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _same(got, want)


def _same(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("fn", [stack_rows, with_condition, nested_generators,
                                generator_in_calls, shadowing, closure_and_scope,
                                over_tensor_rows])
def test_graph_comprehension_equals_pynative(fn):
    _check(fn, X, Y)


def test_comprehension_over_a_cell_list():
    net = Layers()
    x = Tensor(np.ones((2, 4), np.float32))
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_gradient_through_a_comprehension():
    def loss(a):
        return sum([(a * k).sum() for k in (1.0, 2.0, 3.0)])
    g_py = ms.grad(loss)(X).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        g_graph = ms.grad(ms.jit(loss))(X).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(g_graph, np.full((3, 4), 6.0, np.float32))
    np.testing.assert_allclose(g_py, g_graph)


def _over_iterators(a, b):
    pairs = [p for p in itertools.product((1, 2), (4, 5))]
    vs = (a, b, a * 2)
    total = a * 0
    for i, j in itertools.combinations(range(3), 2):
        total = total + vs[i] * vs[j]
    return pairs, total


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_iterators_made_at_compile_time(mode):
    """itertools.product / combinations of constants run on the host while compiling; the
    loop (and the comprehension) takes their items, as Python consumes them."""
    ms.set_context(mode=mode)
    try:
        pairs, total = ms.jit(_over_iterators)(X, Y)
        assert pairs == [(1, 4), (1, 5), (2, 4), (2, 5)]
        x, y = X.asnumpy(), Y.asnumpy()
        np.testing.assert_allclose(total.asnumpy(), x * y + x * 2 * x + y * 2 * x, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_endless_iterator_is_a_clear_error():
    def endless(a):
        for k in itertools.count():
            a = a + k
        return a

    with pytest.raises(ValueError, match="more than 100000 items"):
        ms.jit(endless)(X)
