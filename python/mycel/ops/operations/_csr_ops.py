"""MindSpore's internal ``mindspore.ops.operations._csr_ops``: primitives over the parts
(indptr, indices, values, dense shape) of a 2-D CSR matrix, composed from table ops by
ops/function/sparse_func.py (both modes, gradients to the values and dense operands):

- ``CSRReduceSum()(indptr, indices, values, shape, axis)``: the sum along axis, kept ([M, 1]
  or [1, N]);
- ``CSRMV()(indptr, indices, values, shape, dense)``: the matrix times a [N, 1] vector;
- ``CSRMM()(indptr, indices, values, shape, dense)``: the matrix times a dense [N, K] matrix
  (float32/float64: the op table's fused CSRMM, ``P.CSRMM(dense_shape, transpose_a)(indptr,
  indices, values, dense)``);
- ``CSRMul()`` / ``CSRDiv()(indptr, indices, values, shape, dense)``: the values times /
  divided by the dense tensor (broadcast to shape) at each stored position;
- ``CSRGather()(indptr, indices, dense, shape)``: the dense tensor at each stored position;
- ``CSR2COO()(indptr, nnz)``: the row of each stored value; ``COO2CSR()(row_indices,
  height)``: the indptr of sorted rows.

MindSpore's batched CSR (a dense shape of rank 3) is not supported: a ValueError."""
from mycel.common.sparse_tensor import CSRTensor
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import sparse_func as _sf
from mycel.ops.function._util import prim as _prim, as_tensor as _t

__all__ = ["CSRReduceSum", "CSRMV", "CSRMM", "CSRMul", "CSRDiv", "CSRGather", "CSR2COO", "COO2CSR"]


class CSRReduceSum(_Composed):
    """CSRReduceSum()(indptr, indices, values, shape, axis): the kept sum along axis."""

    def __call__(self, indptr, indices, values, shape, axis):
        return _sf.csr_reduce_sum(CSRTensor(indptr, indices, values, shape), axis)


class CSRMV(_Composed):
    """CSRMV()(indptr, indices, values, shape, dense): the matrix times the [N, 1] dense."""

    def __call__(self, indptr, indices, values, shape, dense):
        return _sf.csr_mv(CSRTensor(indptr, indices, values, shape), dense)


class CSRMM(_Composed):
    """CSRMM()(indptr, indices, values, shape, dense): the matrix times the dense matrix."""

    def __call__(self, indptr, indices, values, shape, dense):
        return _sf.csr_mm(CSRTensor(indptr, indices, values, shape), dense)


class CSRMul(_Composed):
    """CSRMul()(indptr, indices, values, shape, dense): values * dense at each position."""

    def __call__(self, indptr, indices, values, shape, dense):
        return (CSRTensor(indptr, indices, values, shape) * _t(dense)).values


class CSRDiv(_Composed):
    """CSRDiv()(indptr, indices, values, shape, dense): values / dense at each position."""

    def __call__(self, indptr, indices, values, shape, dense):
        return (CSRTensor(indptr, indices, values, shape) / _t(dense)).values


class CSRGather(_Composed):
    """CSRGather()(indptr, indices, dense, shape): dense (broadcast to shape) at each stored
    position, in the CSR's order."""

    def __call__(self, indptr, indices, dense, shape):
        dense = _t(dense)
        ones = _prim("OnesLike")(_prim("Cast", dtype=dense.dtype)(indices))
        return (CSRTensor(indptr, indices, ones, shape) * dense).values


class CSR2COO(_Composed):
    """CSR2COO()(indptr, nnz): the row (indptr's dtype) of each of the nnz stored values."""

    def __call__(self, indptr, nnz):
        return _sf.csr_rows_of(indptr, nnz)


class COO2CSR(_Composed):
    """COO2CSR()(row_indices, height): the indptr (height + 1 entries) of sorted rows."""

    def __call__(self, row_indices, height):
        rows = _t(row_indices)
        return _sf.indptr_of(rows, height)
