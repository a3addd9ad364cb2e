"""MindSpore's ``mindspore.ops.operations.sparse_ops``: primitives over the index and value
tensors of sparse tensors, composed from table ops (ops/function/sparse_cwise_func.py does
the work; both modes and gradients come from the ops it is built of):

- ``SparseDenseCwiseAdd/Mul/Div()(x1_indices, x1_values, x1_shape, x2)``: the stored values
  combined with the dense x2 (broadcast to x1_shape) at their indices;
- ``SparseReshape()(indices, shape, new_shape) -> (y_indices, y_shape)``;
- ``SparseMatrixSoftmax(dtype)(x_dense_shape, x_batch_pointers, x_row_pointers,
  x_col_indices, x_values)``: the CSR matrix (batched) with each row's values softmaxed.
"""
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import sparse_cwise_func as _sp, math_func as _m
from mycel.ops.function._util import prim as _prim

__all__ = ["SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv",
           "SparseReshape", "SparseMatrixSoftmax"]


class SparseDenseCwiseAdd(_Composed):
    """SparseDenseCwiseAdd()(x1_indices, x1_values, x1_shape, x2): x1_values + x2 at each
    stored index (x2 broadcast to x1_shape)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        return _sp.sparse_dense_cwise("SparseDenseCwiseAdd", _m.add, x1_indices, x1_values,
                                      x1_shape, x2)


class SparseDenseCwiseMul(_Composed):
    """SparseDenseCwiseMul()(x1_indices, x1_values, x1_shape, x2): x1_values * x2 at each
    stored index (x2 broadcast to x1_shape)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        return _sp.sparse_dense_cwise("SparseDenseCwiseMul", _m.mul, x1_indices, x1_values,
                                      x1_shape, x2)


class SparseDenseCwiseDiv(_Composed):
    """SparseDenseCwiseDiv()(x1_indices, x1_values, x1_shape, x2): x1_values / x2 at each
    stored index (x2 broadcast to x1_shape; integer values divide as the table's Div)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        return _sp.sparse_dense_cwise("SparseDenseCwiseDiv", _prim("Div"), x1_indices,
                                      x1_values, x1_shape, x2)


class SparseReshape(_Composed):
    """SparseReshape()(indices [N, R], shape [R], new_shape [R']) -> (y_indices [N, R'],
    y_shape [R']): the sparse tensor's indices in the new dense shape (one -1 takes the rest);
    all int64."""

    def __call__(self, indices, shape, new_shape):
        return _sp.sparse_reshape(indices, shape, new_shape)


class SparseMatrixSoftmax(_Composed):
    """SparseMatrixSoftmax(dtype)(x_dense_shape, x_batch_pointers, x_row_pointers,
    x_col_indices, x_values): the same CSR matrix with each row's stored values replaced by
    their softmax (dtype: the values' dtype, float32 or float64)."""

    def __init__(self, dtype):
        super().__init__(dtype=dtype)
        self.dtype = dtype

    def __call__(self, x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
                 x_values):
        y = _sp.csr_softmax_values(x_dense_shape, x_batch_pointers, x_row_pointers, x_values,
                                   self.dtype)
        return x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices, y
# SparseToDense and SparseTensorDenseMatmul (breadth_sparse_ops.py)
from mycel.ops.operations.breadth_sparse_ops import (SparseToDense,  # noqa: E402,F401
                                                     SparseTensorDenseMatmul)
__all__ += ["SparseToDense", "SparseTensorDenseMatmul"]
