"""`y = xs.pop(i)` on a local list in GRAPH mode: the parser rebinds xs to the list without
the item and binds y to the item (graph_list.pop_item), as Python does; with plain and
annotated assignment, after insert/append, of tensors and numbers, in a Cell and under jit,
the same results as PYNATIVE mode (graph_harness); an index out of range is Python's
IndexError. (It was "'list' object has no attribute 'pop' in graph mode".)"""
import numpy as np
import pytest

import mycel
from mycel import Tensor, nn

from graph_harness import check_all_modes


def pop_then_insert(index):
    x = [1, 3, 4]
    y = x.pop(index)
    x.insert(0, y)
    return x, y


def pops_and_appends(a, b, c):
    x = [a, b, c]
    x.insert(-5, 2)
    x.insert(-2, 9)
    y = x.pop()
    x.append(10)
    z: int = x.pop(-2)
    x.append(5)
    return x, y, z


class PopTensors(nn.Cell):
    def construct(self, t):
        xs = [t, t * 2, t * 3]
        a = xs.pop(1)
        b = xs.pop()
        return a + b, xs[0], len(xs)


@pytest.mark.parametrize("index", [-2, 0, 2])
def test_pop_then_insert(index):
    want = pop_then_insert(index)  # plain Python
    assert check_all_modes(pop_then_insert, index) == want


def test_pops_and_appends_of_tensors():
    a, b, c = (Tensor(np.array([v], np.float32)) for v in (1.0, 3.0, 5.0))
    x, y, z = check_all_modes(pops_and_appends, a, b, c)
    assert [float(v) if isinstance(v, Tensor) else v for v in x] == [2, 1.0, 9, 10, 5]
    assert float(y) == 5.0 and z == 3


def test_pop_in_a_cell():
    t = np.array([1.0, -2.0], np.float32)
    s, first, n = check_all_modes(PopTensors, Tensor(t))
    np.testing.assert_array_equal(s.asnumpy(), 2 * t + 3 * t)
    np.testing.assert_array_equal(first.asnumpy(), t)
    assert n == 1


def test_pop_out_of_range_is_index_error():
    @mycel.jit
    def bad():
        x = [1, 2]
        y = x.pop(5)
        return y

    with pytest.raises(IndexError, match="pop index out of range"):
        bad()
