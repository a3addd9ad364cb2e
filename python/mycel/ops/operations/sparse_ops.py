"""MindSpore's ``mindspore.ops.operations.sparse_ops``: primitives over the index and value
tensors of sparse tensors, composed from table ops (ops/function/sparse_cwise_func.py does
the work; both modes and gradients come from the ops it is built of):

- ``SparseDenseCwiseAdd/Mul/Div()(x1_indices, x1_values, x1_shape, x2)``: the stored values
  combined with the dense x2 (broadcast to x1_shape) at their indices;
- ``SparseReshape()(indices, shape, new_shape) -> (y_indices, y_shape)``;
- ``SparseMatrixSoftmax(dtype)(x_dense_shape, x_batch_pointers, x_row_pointers,
  x_col_indices, x_values)``: the CSR matrix (batched) with each row's values softmaxed;
- ``SparseToDense()(indices, values, sparse_shape)``: the dense tensor (ops/function/
  sparse_func.py);
- ``SparseTensorDenseMatmul(adjoint_st, adjoint_dt)(indices, values, sparse_shape, dense)``:
  the 2-D sparse matrix times the dense one (gradients to values and dense);
- ``SparseMatrixAdd()(a_shape, a_batch_pointers, a_indptr, a_indices, a_values, b_shape, ...,
  alpha, beta)``: alpha * a + beta * b of two CSR matrices given by their parts (``csr_add``;
  one batch: a dense shape of 2 entries).
"""
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import sparse_cwise_func as _sp, math_func as _m
from mycel.ops.function import sparse_func as _sf
from mycel.common.sparse_tensor import CSRTensor as _CSR
from mycel.ops.function._util import prim as _prim

__all__ = ["SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv",
           "SparseReshape", "SparseMatrixSoftmax", "SparseToDense", "SparseTensorDenseMatmul", "SparseMatrixAdd"]


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


class SparseToDense(_Composed):
    """SparseToDense()(indices [N, R] int32/int64, values [N], sparse_shape): the dense
    tensor of shape sparse_shape (a tuple, or a constant int Tensor) holding values at
    indices, zeros elsewhere; values at one index add up."""

    def __init__(self):
        super().__init__()

    def __call__(self, indices, values, sparse_shape):
        return _sf.sparse_to_dense(indices, values, sparse_shape)


class SparseTensorDenseMatmul(_Composed):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices [N, 2], values [N],
    sparse_shape, dense): op(A) @ op(dense) of the 2-D sparse A; op conjugate-transposes
    when adjoint_* is set."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        for name, v in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'SparseTensorDenseMatmul', '{name}' must be a bool, but "
                                f"got {type(v).__name__}.")
        super().__init__(adjoint_st=adjoint_st, adjoint_dt=adjoint_dt)
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def __call__(self, indices, values, sparse_shape, dense):
        return _sf.sparse_tensor_dense_matmul(indices, values, sparse_shape, dense,
                                              self.adjoint_st, self.adjoint_dt)


class SparseMatrixAdd(_Composed):
    """SparseMatrixAdd()(a_shape, a_batch_pointers, a_indptr, a_indices, a_values, b_shape,
    b_batch_pointers, b_indptr, b_indices, b_values, alpha, beta) -> (c_shape,
    c_batch_pointers, c_indptr, c_indices, c_values): alpha * a + beta * b (the union of the
    patterns). The dense shapes are int Tensors known when it compiles, of 2 entries (a
    batched shape of 3 is a ValueError), and must be equal (a ValueError)."""

    def __init__(self):
        super().__init__()

    def __call__(self, a_shape, a_batch_pointers, a_indptr, a_indices, a_values, b_shape,
                 b_batch_pointers, b_indptr, b_indices, b_values, alpha, beta):
        sa = _sf.matrix_add_shape(a_shape, b_shape)
        a = _CSR(a_indptr, a_indices, a_values, sa)
        b = _CSR(b_indptr, b_indices, b_values, sa)
        c = _sf.csr_add(a, b, alpha, beta)
        return (a_shape, _sf.batch_pointers_of(c.indptr, sa[0]), c.indptr, c.indices,
                c.values)
