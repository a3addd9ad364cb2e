"""Constant arguments of graph-code builtins checked as Python does.

enumerate(seq, start) in GRAPH mode: start given by position or keyword (an int or a
bool, as Python takes), the same values as PYNATIVE mode; a float start or a number as the
sequence is a TypeError in MindSpore's words (mycel once failed a float start with an
internal error, and took a positional start for a second sequence). A float slice bound
(`t[0:1.5]`, `xs.insert(1.0, v)`, which slices) is Python's TypeError (it was an internal
error too)."""
import numpy as np
import pytest

import mycel
from mycel import Tensor, nn

from graph_harness import check_all_modes, run_mode


class PositionalStart(nn.Cell):
    def construct(self, x):
        s = x * 0
        for i, v in enumerate((x, x * 2), 3):
            s = s + i * v
        return s


class KeywordStarts(nn.Cell):
    def construct(self, x):
        a = tuple(enumerate([x, x], start=True))
        return a[1][0], tuple(enumerate((1, 2), start=-2))


def test_start_by_position_and_keyword():
    x = np.array([1.0, -2.0], np.float32)
    out = check_all_modes(PositionalStart, Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), 3 * x + 4 * 2 * x)
    assert check_all_modes(KeywordStarts, Tensor(x)) == (2, ((-2, 1), (-1, 2)))


class FloatStart(nn.Cell):
    def construct(self, x):
        return enumerate((x, x), start=1.2)


class NumberSequence(nn.Cell):
    def __init__(self):
        super().__init__()
        self.num = 2023

    def construct(self, x):
        s = 0
        for i, _ in enumerate(self.num):
            s += i
        return s


@pytest.mark.parametrize("net,words", [
    (FloatStart, "For 'enumerate', the 'start' should be a const int number, but got 1.2."),
    (NumberSequence, "For 'enumerate', the 'first input' should be tuple or list or tensor, "
                     "but got <class 'int'>."),
])
def test_bad_arguments_are_type_errors(net, words):
    x = Tensor(np.ones((2,), np.float32))
    with pytest.raises(TypeError):  # Python's own words in PYNATIVE mode
        run_mode(net, "pynative", x)
    with pytest.raises(TypeError) as e:
        run_mode(net, "graph", x)
    assert words in str(e.value)


def test_float_slice_bounds_are_type_errors():
    @mycel.jit
    def insert_at_float():
        x = [1, 2, 3]
        x.insert(1.0, 9)
        return x

    @mycel.jit
    def slice_by_float(t):
        return t[0:1.5]

    with pytest.raises(TypeError, match="slice indices must be integers"):
        insert_at_float()
    with pytest.raises(TypeError, match="slice indices must be integers"):
        slice_by_float(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError):  # PYNATIVE: Python's and the Tensor's own
        Tensor(np.ones(3, np.float32))[0:1.5]


class FloatSliceInCell(nn.Cell):
    def construct(self, x):
        return x[1.2:]


def test_float_slice_error_names_the_line():
    with pytest.raises(TypeError) as e:
        run_mode(FloatSliceInCell, "graph", Tensor(np.ones(3, np.float32)))
    assert "return x[1.2:]" in str(e.value)


class _TensorBoundSlices(mycel.nn.Cell):
    """A list sliced by constant one-element int and bool tensors (MindSpore's xs[:Tensor(3)]):
    each is its integer value, as Python's __index__."""

    def __init__(self):
        super().__init__()
        self.three, self.five, self.true = (mycel.Tensor(3), mycel.Tensor([5]),
                                            mycel.Tensor([True]))
        self.neg = mycel.Tensor(np.array([-1], np.int64))

    def construct(self, xs):
        a = xs[:self.three]
        b = xs[self.true:]
        c = xs[2:self.five:True]
        d = xs[::self.neg]
        return len(a) * 1000 + len(b) * 100 + len(c) * 10 + len(d), d[0]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_constant_tensor_slice_bounds_are_their_integers(mode):
    xs = [mycel.Tensor(np.full(2, float(i), np.float32)) for i in range(7)]
    n, first = run_mode(_TensorBoundSlices, mode, xs)
    want = [xs[:3], xs[1:], xs[2:5:1], xs[::-1]]
    assert int(n) == sum(len(w) * k for w, k in zip(want, (1000, 100, 10, 1)))
    np.testing.assert_array_equal(first.asnumpy(), [6.0, 6.0])


def test_float_or_long_tensor_slice_bounds_are_type_errors():
    class Bad(mycel.nn.Cell):
        def __init__(self, bound):
            super().__init__()
            self.bound = bound

        def construct(self, xs):
            return xs[:self.bound]

    xs = [mycel.Tensor(np.ones(2, np.float32)) for _ in range(3)]
    for bound in (mycel.Tensor(1.5), mycel.Tensor(np.array([1, 2], np.int32))):
        with pytest.raises(TypeError, match="slice indices must be integers"):
            run_mode(Bad(bound), "graph", xs)
        with pytest.raises((TypeError, ValueError)):   # Tensor.__index__ in PYNATIVE mode
            run_mode(Bad(bound), "pynative", xs)
