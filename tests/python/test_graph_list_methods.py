"""list.append and friends as statements on a local list in GRAPH mode (the parser rebinds
the name to the list the method leaves: mycel/common/graph_list.py) give what PYNATIVE
(plain Python) gives."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Tensor


class Methods(nn.Cell):
    def __init__(self, how):
        super().__init__()
        self.how = how

    def construct(self, xs):
        out = []
        for i in range(4):
            out.append(xs[i] * (i + 1))
        if self.how == "extend":
            out.extend((xs[0], xs[1] - 1))
        elif self.how == "insert":
            out.insert(1, xs[3] + 100)
            out.insert(-1, xs[0] - 100)
            out.insert(50, xs[2])
        elif self.how == "pop":
            out.pop()
            out.pop(0)
            out.pop(-2)
        elif self.how == "reverse":
            out.reverse()
        elif self.how == "clear":
            out.clear()
            out.append(xs[1])
        return ops.stack(out)


def _python(how, xs):
    out = [xs[i] * (i + 1) for i in range(4)]
    if how == "extend":
        out.extend((xs[0], xs[1] - 1))
    elif how == "insert":
        out.insert(1, xs[3] + 100)
        out.insert(-1, xs[0] - 100)
        out.insert(50, xs[2])
    elif how == "pop":
        out.pop()
        out.pop(0)
        out.pop(-2)
    elif how == "reverse":
        out.reverse()
    elif how == "clear":
        out.clear()
        out.append(xs[1])
    return np.stack(out)


@pytest.mark.parametrize("how", ["append", "extend", "insert", "pop", "reverse", "clear"])
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_list_methods_as_statements(mode, how):
    ms.set_context(mode=mode)
    try:
        xs = np.arange(12, dtype=np.float32).reshape(4, 3)
        got = Methods(how)(Tensor(xs)).asnumpy()
        np.testing.assert_array_equal(got, _python(how, xs))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_append_in_a_jit_function_over_a_shape_loop():
    @ms.jit
    def outer_rows(a, b):
        rows = []
        for i in range(a.shape[0]):
            rows.append(a[i] * b)
        return ops.stack(rows)

    a = np.array([1.0, -2.0, 3.0], np.float32)
    b = np.array([0.5, 4.0], np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(outer_rows(Tensor(a), Tensor(b)).asnumpy(), np.outer(a, b))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_pop_out_of_range_is_an_index_error_in_graph_mode():
    class PopEmpty(nn.Cell):
        def construct(self, x):
            out = [x]
            out.pop()
            out.pop()
            return x

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(IndexError, match="pop index out of range"):
            PopEmpty()(Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
