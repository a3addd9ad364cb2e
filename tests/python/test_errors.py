"""Bad input raises a typed Python exception naming the op and the shapes or dtypes; the
process survives every one of them (each case runs in this process, then a normal op runs)."""
import numpy as np
import pytest

import mycel as ms
from mycel import ops
from mycel.ops import operations as P


def t(shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


CASES = [
    # (callable, exception type, regex the message must match)
    (lambda: t((2, 3)) + t((4, 5)), ValueError, r"For 'Add'.*\[2, 3\].*\[4, 5\]"),
    (lambda: ops.matmul(t((2, 3)), t((4, 5))), ValueError, r"MatMul.*\[2, 3\].*\[4, 5\]"),
    (lambda: P.MatMul()(t((2, 3)), t((4, 5))), ValueError, r"For 'MatMul'"),
    (lambda: ops.sum(t((2, 3)), 5), ValueError, r"For 'ReduceSum'.*axis.*5"),
    (lambda: P.Softmax(axis=3)(t((2, 3))), ValueError, r"Softmax"),
    (lambda: t((3,))[5], IndexError, r"index 5 is out of bounds for dimension 0 with size 3"),
    (lambda: ops.gather(t((3, 2)), ms.Tensor(np.array([0, 7], np.int32)), 0), IndexError,
     r"Gather.*7"),
    (lambda: ops.reshape(t((2, 3)), (4, 2)), ValueError, r"Reshape.*\[2, 3\].*\[4, 2\]"),
    (lambda: ops.transpose(t((2, 3, 4)), (0, 1, 1)), ValueError, r"Transpose.*repeat"),
    (lambda: P.MatMul()(ms.Tensor(np.ones((2, 2), bool)), ms.Tensor(np.ones((2, 2), bool))),
     TypeError, r"MatMul.*Bool"),
    (lambda: ops.logical_and(t((2,)), t((2,))), TypeError, r"LogicalAnd.*Float32"),
    (lambda: ops.exp("abc"), TypeError, r"For 'Exp', input 0: cannot convert .*<U3"),
    (lambda: P.ReduceSum(keep_dims="yes"), TypeError, r"For 'ReduceSum'.*keep_dims.*bool"),
    (lambda: P.Add(no_such=1), TypeError, r"For 'Add', unknown attribute 'no_such'"),
    # Reshape's shape comes at call time: its other attributes are still checked at once.
    (lambda: P.Reshape(shape="x"), TypeError, r"For 'Reshape'.*'shape' must be a tuple of int"),
    (lambda: ms.Tensor([1, 2], dtype="complex32"), TypeError, r"unknown dtype 'complex32'"),
    (lambda: ops.sigmoid(ms.Tensor([1j])), TypeError, r"Sigmoid.*complex.*Complex128"),
    (lambda: P.Conv2D(6, 5)(t((1, 3, 8, 8)), t((6, 2, 5, 5))), ValueError, r"Conv2D"),
    (lambda: ops.concat((t((2, 3)), t((3, 4))), 0), ValueError, r"Concat.*\[2, 3\].*\[3, 4\]"),
    (lambda: ops.floor_divide(ms.Tensor([1, 2]), ms.Tensor([0, 1])), ValueError,
     r"FloorDiv.*zero"),
    (lambda: bool(t((2, 2))), ValueError, r"ambiguous"),
]


@pytest.mark.parametrize("fn,exc,pattern", CASES, ids=[str(i) for i in range(len(CASES))])
def test_bad_input_raises_typed_error(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn()
    # The process and the library still work afterwards.
    np.testing.assert_array_equal((t((2,)) + t((2,))).asnumpy(), [2, 2])
