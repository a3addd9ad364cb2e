"""More of MindSpore's ``ops.operations.sparse_ops`` primitives (re-exported by sparse_ops.py),
composed from table ops in ops/function/sparse_compat_func.py (both modes; gradients reach the
values through the ops they are built of):

- the batched CSR sparse matrix of five tensors (dense_shape, batch_pointers, row_pointers,
  col_indices, values): CSRSparseMatrixToDense, CSRSparseMatrixToSparseTensor,
  SparseTensorToCSRSparseMatrix, DenseToCSRSparseMatrix, SparseMatrixNNZ, SparseMatrixMatMul
  (through the fused COOMM op for float32/float64), SparseMatrixTranspose;
- COO parts (indices [N, R], values [N], shape): SparseTensorDenseAdd, SparseAddmm, Sspaddmm,
  SparseToDenseV2, SparseSoftmax, SparseReorder, SparseConcat, SparseSparseMaximum/Minimum,
  SparseSlice (+ _grad_ops.SparseSliceGrad), SparseFillEmptyRows, SetSize;
- SparseSegmentSum/SqrtN (+ WithNumSegments) and SparseSegmentMeanWithNumSegments;
- ragged tensors: RaggedTensorToTensor, RaggedTensorToSparse.

Shapes that fix an output's shape (dense shapes, num_segments, the row partitions of a ragged
tensor with a -1 in its shape) must be known when the program compiles (constants in GRAPH
mode), as the table's ops need static output shapes where the values decide them otherwise.
"""
from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import sparse_compat_func as _f
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations._compat_checks import _check_bool

__all__ = ["CSRSparseMatrixToDense", "CSRSparseMatrixToSparseTensor",
           "SparseTensorToCSRSparseMatrix", "DenseToCSRSparseMatrix", "SparseMatrixNNZ",
           "SparseMatrixMatMul", "SparseMatrixTranspose", "SparseTensorDenseAdd",
           "SparseAddmm", "Sspaddmm", "SparseToDenseV2", "SparseSoftmax", "SparseReorder",
           "SparseConcat", "SparseSparseMaximum", "SparseSparseMinimum", "SparseSlice",
           "SparseFillEmptyRows", "SetSize", "SparseSegmentSum",
           "SparseSegmentSumWithNumSegments", "SparseSegmentSqrtN",
           "SparseSegmentSqrtNWithNumSegments", "SparseSegmentMeanWithNumSegments",
           "RaggedTensorToTensor", "RaggedTensorToSparse"]


class _NoAttr(_Composed):
    def __init__(self):
        super().__init__()


class CSRSparseMatrixToDense(_NoAttr):
    """CSRSparseMatrixToDense()(x_dense_shape, x_batch_pointers, x_row_pointers,
    x_col_indices, x_values): the dense [rows, cols] or [batch, rows, cols] tensor (values at
    one position add up)."""

    def __call__(self, x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
                 x_values):
        return _f.csr_matrix_to_dense(x_dense_shape, x_batch_pointers, x_row_pointers,
                                      x_col_indices, x_values)


class CSRSparseMatrixToSparseTensor(_NoAttr):
    """CSRSparseMatrixToSparseTensor()(x_dense_shape, x_batch_pointers, x_row_pointers,
    x_col_indices, x_values) -> (indices [nnz, rank], values, dense_shape): the COO form, in
    the matrix's order (indices in dense_shape's dtype)."""

    def __call__(self, x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
                 x_values):
        return _f.csr_matrix_to_sparse_tensor(x_dense_shape, x_batch_pointers, x_row_pointers,
                                              x_col_indices, x_values)


class SparseTensorToCSRSparseMatrix(_NoAttr):
    """SparseTensorToCSRSparseMatrix()(x_indices [N, 2 or 3], x_values, x_dense_shape) ->
    (dense_shape, batch_pointers, row_pointers, col_indices, values): the sparse matrix, its
    entries sorted by (batch, row, column) (pointers and columns in x_indices' dtype)."""

    def __call__(self, x_indices, x_values, x_dense_shape):
        return _f.coo_to_csr_matrix("SparseTensorToCSRSparseMatrix", x_indices, x_values,
                                    x_dense_shape)


class DenseToCSRSparseMatrix(_NoAttr):
    """DenseToCSRSparseMatrix()(dense_input, indices [N, rank]) -> the 5 parts of the sparse
    matrix holding dense_input's values at indices (rank 2 or 3)."""

    def __call__(self, dense_input, indices):
        return _f.dense_to_csr_matrix(dense_input, indices)


class SparseMatrixNNZ(_NoAttr):
    """SparseMatrixNNZ()(x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
    x_values): the number of stored values of each batch (int32 [batch])."""

    def __call__(self, x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
                 x_values):
        return _f.csr_matrix_nnz(x_batch_pointers)


class SparseMatrixMatMul(_Composed):
    """SparseMatrixMatMul(transpose_x1=False, transpose_x2=False, adjoint_x1=False,
    adjoint_x2=False, transpose_output=False, conjugate_output=False)(x1_dense_shape,
    x1_batch_pointers, x1_row_pointers, x1_col_indices, x1_values, x2_dense): op(x1) @ op(x2)
    per batch (op: transpose or conjugate-transpose), then the output transposed and/or
    conjugated; float32/float64 through the fused COOMM op (the batches as one
    block-diagonal matrix), other dtypes by gather and segment sum."""

    def __init__(self, transpose_x1=False, transpose_x2=False, adjoint_x1=False,
                 adjoint_x2=False, transpose_output=False, conjugate_output=False):
        names = ("transpose_x1", "transpose_x2", "adjoint_x1", "adjoint_x2",
                 "transpose_output", "conjugate_output")
        vals = (transpose_x1, transpose_x2, adjoint_x1, adjoint_x2, transpose_output,
                conjugate_output)
        for n, v in zip(names, vals):
            _check_bool("SparseMatrixMatMul", n, v)
        super().__init__(**dict(zip(names, vals)))
        self.flags = vals

    def __call__(self, x1_dense_shape, x1_batch_pointers, x1_row_pointers, x1_col_indices,
                 x1_values, x2_dense):
        parts = (x1_dense_shape, x1_batch_pointers, x1_row_pointers, x1_col_indices, x1_values)
        return _f.csr_matrix_matmul(parts, x2_dense, *self.flags)


class SparseMatrixTranspose(_Composed):
    """SparseMatrixTranspose(conjugate=False)(x_dense_shape, x_batch_pointers, x_row_pointers,
    x_col_indices, x_values) -> the 5 parts of each batch's transpose (conjugated values with
    conjugate)."""

    def __init__(self, conjugate=False):
        self.conjugate = _check_bool("SparseMatrixTranspose", "conjugate", conjugate)
        super().__init__(conjugate=conjugate)

    def __call__(self, x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
                 x_values):
        return _f.csr_matrix_transpose((x_dense_shape, x_batch_pointers, x_row_pointers,
                                        x_col_indices, x_values), self.conjugate)


class SparseTensorDenseAdd(_NoAttr):
    """SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2): x2 plus the sparse x1
    (a dense tensor of x1_shape; values at one index add up)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        return _f.sparse_tensor_dense_add(x1_indices, x1_values, x1_shape, x2)


class SparseAddmm(_NoAttr):
    """SparseAddmm()(x1_indices, x1_values, x1_shape, x2_dense, x3_dense, alpha, beta): alpha
    * (x1 @ x2_dense) + beta * x3_dense for the 2-D sparse x1."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2_dense, x3_dense, alpha, beta):
        return _f.sparse_addmm(x1_indices, x1_values, x1_shape, x2_dense, x3_dense, alpha, beta)


class Sspaddmm(_NoAttr):
    """Sspaddmm()(x1_indices [2, n1], x1_values, x1_shape, x2_indices [2, n2], x2_values,
    x2_shape, x3_dense, alpha, beta) -> (y_indices [2, N], y_values, y_shape): beta * x1 +
    alpha * (x2 @ x3_dense) as a sparse tensor: x1's entries, then for each entry of x2 one
    full row of the product (N = n1 + n2 * columns; positions may repeat, adding up)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape,
                 x3_dense, alpha, beta):
        return _f.sspaddmm(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape,
                           x3_dense, alpha, beta)


class SparseToDenseV2(_Composed):
    """SparseToDenseV2(validate_indices=True)(indices, output_shape, values, default_value):
    the dense tensor of output_shape with values (or one scalar) at indices and default_value
    elsewhere; validate_indices: indices in lexicographic order without repeats (else a
    ValueError)."""

    def __init__(self, validate_indices=True):
        self.validate_indices = _check_bool("SparseToDenseV2", "validate_indices",
                                            validate_indices)
        super().__init__(validate_indices=validate_indices)

    def __call__(self, indices, output_shape, values, default_value):
        return _f.sparse_to_dense_v2(indices, output_shape, values, default_value,
                                     self.validate_indices)


class SparseSoftmax(_NoAttr):
    """SparseSoftmax()(indices, values, shape): the softmax of the values of each group of
    entries sharing all but their last index (float32/float64)."""

    def __call__(self, indices, values, shape):
        return _f.sparse_softmax(indices, values, shape)


class SparseReorder(_NoAttr):
    """SparseReorder()(indices, values, shape) -> (y_indices, y_values): the entries in
    row-major order (stable for repeated positions)."""

    def __call__(self, indices, values, shape):
        return _f.sparse_reorder(indices, values, shape)


class SparseConcat(_Composed):
    """SparseConcat(concat_dim=0)(sp_input_indices, sp_input_values, sp_input_shapes) ->
    (indices, values, shape): the sparse tensors (tuples of their parts) joined along
    concat_dim, the result in row-major order (int64 indices and shape)."""

    def __init__(self, concat_dim=0):
        if isinstance(concat_dim, bool) or not isinstance(concat_dim, int):
            raise TypeError(f"For 'SparseConcat', 'concat_dim' must be an int, but got "
                            f"{type(concat_dim).__name__}.")
        super().__init__(concat_dim=concat_dim)
        self.concat_dim = concat_dim

    def __call__(self, sp_input_indices, sp_input_values, sp_input_shapes):
        return _f.sparse_concat(tuple(sp_input_indices), tuple(sp_input_values),
                                tuple(sp_input_shapes), self.concat_dim)


class SparseSparseMaximum(_NoAttr):
    """SparseSparseMaximum()(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape)
    -> (y_indices, y_values): the elementwise maximum over the union of the positions
    (row-major order), a position stored in one input only compared with 0."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape):
        return _f.sparse_sparse_extreme("SparseSparseMaximum", _prim("Maximum"), x1_indices,
                                        x1_values, x1_shape, x2_indices, x2_values, x2_shape)


class SparseSparseMinimum(_NoAttr):
    """SparseSparseMinimum()(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape)
    -> (y_indices, y_values): as SparseSparseMaximum with the minimum."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape):
        return _f.sparse_sparse_extreme("SparseSparseMinimum", _prim("Minimum"), x1_indices,
                                        x1_values, x1_shape, x2_indices, x2_values, x2_shape)


class SparseSlice(_NoAttr):
    """SparseSlice()(indices, values, shape, start, size) -> (y_indices, y_values, y_shape):
    the entries inside [start, start + size) (clipped to shape), indices relative to start."""

    def __call__(self, indices, values, shape, start, size):
        return _f.sparse_slice(indices, values, shape, start, size)


class SparseFillEmptyRows(_NoAttr):
    """SparseFillEmptyRows()(indices, values, dense_shape, default_value) -> (output_indices,
    output_values, empty_row_indicator, reverse_index_map): default_value added at (r, 0) of
    every empty row r, the entries ordered by row; reverse_index_map maps each input entry to
    its output position."""

    def __call__(self, indices, values, dense_shape, default_value):
        return _f.sparse_fill_empty_rows(indices, values, dense_shape, default_value)


class SetSize(_Composed):
    """SetSize(validate_indices=True)(set_indices, set_values, set_shape): the number of
    distinct values in each set (the entries sharing their leading indices), int32 of shape
    set_shape[:-1]; validate_indices: row-major order without repeats (else a ValueError)."""

    def __init__(self, validate_indices=True):
        self.validate_indices = _check_bool("SetSize", "validate_indices", validate_indices)
        super().__init__(validate_indices=validate_indices)

    def __call__(self, set_indices, set_values, set_shape):
        return _f.set_size(set_indices, set_values, set_shape, self.validate_indices)


class _SparseSegment(_NoAttr):
    _kind = "sum"

    def __call__(self, x, indices, segment_ids):
        return _f.sparse_segment_reduce(type(self).__name__, self._kind, x, indices,
                                        segment_ids)


class _SparseSegmentN(_NoAttr):
    _kind = "sum"

    def __call__(self, x, indices, segment_ids, num_segments):
        return _f.sparse_segment_reduce(type(self).__name__, self._kind, x, indices,
                                        segment_ids, num_segments)


class SparseSegmentSum(_SparseSegment):
    """SparseSegmentSum()(x, indices, segment_ids): out[s] = the sum of x[indices[j]] over
    the j with segment_ids[j] == s (sorted ids; segment_ids[-1] + 1 rows)."""


class SparseSegmentSqrtN(_SparseSegment):
    """SparseSegmentSqrtN()(x, indices, segment_ids): SparseSegmentSum divided by the square
    root of each segment's count (empty segments 0)."""
    _kind = "sqrtn"


class SparseSegmentSumWithNumSegments(_SparseSegmentN):
    """SparseSegmentSumWithNumSegments()(x, indices, segment_ids, num_segments):
    SparseSegmentSum with num_segments rows."""


class SparseSegmentSqrtNWithNumSegments(_SparseSegmentN):
    """SparseSegmentSqrtNWithNumSegments()(x, indices, segment_ids, num_segments):
    SparseSegmentSqrtN with num_segments rows."""
    _kind = "sqrtn"


class SparseSegmentMeanWithNumSegments(_SparseSegmentN):
    """SparseSegmentMeanWithNumSegments()(x, indices, segment_ids, num_segments): the mean of
    each segment's rows, num_segments rows (empty segments 0)."""
    _kind = "mean"


class RaggedTensorToTensor(_Composed):
    """RaggedTensorToTensor(row_partition_types)(shape, values, default_value,
    row_partition_tensors): the dense tensor of the ragged tensor given by its flat values and
    row partitions (all "ROW_SPLITS", or "FIRST_DIM_SIZE" then "VALUE_ROWIDS"), padded with
    default_value and truncated to shape (a -1 entry: the largest row)."""

    def __init__(self, row_partition_types):
        if not isinstance(row_partition_types, (list, tuple)) or not all(
                isinstance(t, str) for t in row_partition_types):
            raise TypeError(f"For 'RaggedTensorToTensor', 'row_partition_types' must be a list "
                            f"of str, but got {row_partition_types!r}.")
        super().__init__(row_partition_types=list(row_partition_types))
        self.row_partition_types = tuple(row_partition_types)

    def __call__(self, shape, values, default_value, row_partition_tensors):
        return _f.ragged_tensor_to_tensor(shape, values, default_value,
                                          tuple(row_partition_tensors),
                                          self.row_partition_types)


class RaggedTensorToSparse(_Composed):
    """RaggedTensorToSparse(Tsplits=int64)(rt_nested_splits, rt_dense_values) ->
    (sparse_indices, sparse_values, sparse_dense_shape): the COO form of the ragged tensor
    (int64 indices; the dense shape the row count, each level's widest row and the values'
    inner shape)."""

    def __init__(self, Tsplits=_C.int64):  # noqa: N803 (MindSpore's argument name)
        if Tsplits not in (_C.int32, _C.int64):
            raise TypeError(f"For 'RaggedTensorToSparse', 'Tsplits' must be int32 or int64, but "
                            f"got {Tsplits}.")
        super().__init__(Tsplits=Tsplits)
        self.Tsplits = Tsplits

    def __call__(self, rt_nested_splits, rt_dense_values):
        return _f.ragged_tensor_to_sparse(tuple(rt_nested_splits), rt_dense_values)


class SparseSliceGrad(_NoAttr):
    """SparseSliceGrad()(backprop_val_grad [M], indices [N, R], start [R], new_indices [M, R]):
    the gradient of SparseSlice's output values by its input values (0 for entries the slice
    dropped)."""

    def __call__(self, backprop_val_grad, indices, start, new_indices):
        return _f.sparse_slice_grad(backprop_val_grad, indices, start, new_indices)
