"""ops._primitive_cache._get_cache_prim: one primitive instance per class and constructor
arguments, usable inside jit functions and construct in both modes."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, jit, nn
from mycel.ops import operations as P
from mycel.ops._primitive_cache import _get_cache_prim


def test_one_instance_per_class_and_arguments():
    assert _get_cache_prim(P.Pow)() is _get_cache_prim(P.Pow)()
    a = _get_cache_prim(P.ReduceSum)(keep_dims=True)
    assert a is _get_cache_prim(P.ReduceSum)(keep_dims=True)
    assert a is not _get_cache_prim(P.ReduceSum)(keep_dims=False)


class _Sum(nn.Cell):
    def construct(self, x):
        return _get_cache_prim(P.ReduceSum)(keep_dims=True)(x, 0)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_cached_primitives_in_jit_and_construct(mode):
    ms.set_context(mode=mode)
    try:
        @jit
        def power(x, y):
            return _get_cache_prim(P.Pow)()(x, y)

        x = np.array([1.0, 2.0, 4.0], np.float32)
        np.testing.assert_array_equal(power(Tensor(x), 3).asnumpy(), x ** 3)
        np.testing.assert_array_equal(_Sum()(Tensor(x)).asnumpy(), [x.sum()])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
