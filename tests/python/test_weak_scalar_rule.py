"""The weak-scalar rule of primitive calls (ops/weak_scalar.h), the same in both modes: a
Python number takes the dtype of the primitive's first tensor input, joined with its kind,
except at an index input, where an int is int64 (P.Gather()(float_x, 1, 0) gathers row 1,
as numpy's take; it was a float32 index, a TypeError). Oracle: numpy."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor
from mycel.ops import operations as P

XF = np.arange(6, dtype=np.float32).reshape(2, 3)
XI = np.arange(6, dtype=np.int32).reshape(2, 3)


def run(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)


@pytest.mark.parametrize("x", [XF, XI, XF.astype(np.float16)], ids=["f32", "i32", "f16"])
def test_an_int_index_stays_an_integer(mode, x):
    got = run(mode, lambda t: P.Gather()(t, 1, 0), Tensor(x))
    assert got.dtype == Tensor(x).dtype
    np.testing.assert_array_equal(got.asnumpy(), np.take(x, 1, axis=0))
    got = run(mode, lambda t: P.Gather()(t, 2, 1), Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), np.take(x, 2, axis=1))


def test_other_inputs_follow_the_first_tensor(mode):
    half = Tensor(XF.astype(np.float16))
    got = run(mode, lambda t: P.Add()(t, 1), half)
    assert got.dtype == ms.float16
    np.testing.assert_allclose(got.asnumpy(), XF + 1)
    got = run(mode, lambda t: P.Mul()(t, 1.5), Tensor(XI))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), XI * 1.5)
