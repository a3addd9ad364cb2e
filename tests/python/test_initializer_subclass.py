"""Initializer subclasses written as MindSpore's: ``_initialize(self, arr)`` fills the numpy
array of the target shape and dtype in place (``_assignment`` helps), and initializer(),
Parameter and the layers' weight_init use them as mycel's own initializers."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel.common import initializer as init


class Twos(init.Initializer):
    def _initialize(self, arr):
        init._assignment(arr, 2)


class Arange(init.Initializer):
    """Writes 0, 1, 2, ... over the array (a fill that depends on the array it gets)."""

    def _initialize(self, arr):
        arr[...] = np.arange(arr.size).reshape(arr.shape)


def test_assignment_fills_in_place():
    a = np.zeros((2, 3), np.float32)
    assert init._assignment(a, 1.5) is a
    np.testing.assert_array_equal(a, np.full((2, 3), 1.5, np.float32))
    init._assignment(a, np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
    s = np.zeros((), np.int32)
    init._assignment(s, 7)
    assert int(s) == 7


@pytest.mark.parametrize("dtype, np_dtype", [(ms.int32, np.int32), (ms.float32, np.float32),
                                             (ms.float16, np.float16)])
def test_ms_style_subclass_through_initializer(dtype, np_dtype):
    t = init.initializer(Twos(), [2, 2], dtype)
    assert t.dtype == dtype and t.shape == (2, 2)
    np.testing.assert_array_equal(t.asnumpy(), np.full((2, 2), 2, np_dtype))
    t = init.initializer(Arange(), (3, 2), dtype)
    np.testing.assert_array_equal(t.asnumpy(), np.arange(6).reshape(3, 2).astype(np_dtype))


def test_ms_style_subclass_call_and_layers(mode):
    a = np.zeros((2, 2), np.int64)
    Twos()(a)  # Initializer.__call__(arr) fills arr
    np.testing.assert_array_equal(a, np.full((2, 2), 2))
    p = ms.Parameter(init.initializer(Arange(), [4], ms.float32), name="p")
    np.testing.assert_array_equal(p.asnumpy(), np.arange(4, dtype=np.float32))
    dense = nn.Dense(3, 2, weight_init=Arange(), bias_init=Twos())
    x = np.ones((1, 3), np.float32)
    want = x @ np.arange(6, dtype=np.float32).reshape(2, 3).T + 2
    np.testing.assert_allclose(dense(ms.Tensor(x)).asnumpy(), want)


def test_builtin_initializers_keep_their_values():
    np.testing.assert_array_equal(init.initializer("ones", [2], ms.int32).asnumpy(), [1, 1])
    a = np.zeros(3, np.float32)
    init.Constant(0.5)(a)
    np.testing.assert_array_equal(a, [0.5, 0.5, 0.5])
