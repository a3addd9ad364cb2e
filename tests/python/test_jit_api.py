"""mycel.jit and GRAPH-mode Cells called with **kwargs beyond the named parameters: the
extra keywords reach the function's **kwargs as a dict (api.py passes it last; the compiler
binds it), as in MindSpore's top graph."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor


@ms.jit
def _mixed(x, *args, scale=1, **kwargs):
    y = x * scale
    for a in args:
        y = y + a
    if "shift" in kwargs:
        y = y + kwargs["shift"]
    return y, len(kwargs)


class _KwCell(nn.Cell):
    def construct(self, x, **kw):
        return x * kw["a"] - kw["b"]


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_jit_function_with_var_keywords(mode):
    ms.set_context(mode=mode)
    try:
        one = np.ones(2, np.float32)
        y, n = _mixed(Tensor(one), 3, scale=2, shift=Tensor(one * 10), other=5)
        np.testing.assert_allclose(y.asnumpy(), one * 2 + 3 + 10)
        assert n == 2
        y, n = _mixed(Tensor(one))
        np.testing.assert_allclose(y.asnumpy(), one)
        assert n == 0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_cell_construct_with_var_keywords(mode):
    ms.set_context(mode=mode)
    try:
        x = np.array([1.0, -2.0], np.float32)
        got = _KwCell()(Tensor(x), a=Tensor(np.float32(3.0)), b=Tensor(np.float32(0.5)))
        np.testing.assert_allclose(got.asnumpy(), x * 3 - 0.5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
