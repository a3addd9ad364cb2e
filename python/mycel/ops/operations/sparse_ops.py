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
  one batch: a dense shape of 2 entries);
- ``DenseToDenseSetOperation`` / ``DenseToSparseSetOperation(set_operation, validate_indices)``:
  the set operation of the last-dimension values of two tensors (the second sparse), a sparse
  result computed on the host (its size depends on the values: PYNATIVE mode).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import sparse_cwise_func as _sp, math_func as _m
from mycel.ops.function import sparse_func as _sf
from mycel.common.sparse_tensor import CSRTensor as _CSR
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations._compat_checks import _check_tensors

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


# ---- set operations over the last dimension (TensorFlow's, as MindSpore's sparse_ops) ------
# The result's size depends on the values, so they are computed on the host from the inputs'
# values (PYNATIVE mode; integer sets have no gradient).

_SET_OPS = ("a-b", "b-a", "intersection", "union")
_SET_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16")


def _set_rows(op, a_rows, b_rows, kind):
    """The sorted result set of each pair of rows."""
    f = {"a-b": lambda a, b: np.setdiff1d(a, b), "b-a": lambda a, b: np.setdiff1d(b, a),
         "intersection": np.intersect1d, "union": np.union1d}[kind]
    return [f(np.asarray(a), np.asarray(b)) for a, b in zip(a_rows, b_rows)]


def _set_result(results, lead, dtype):
    """(y_indices [N, rank] int64, y_values [N], y_shape [rank] int64) of the row results."""
    width = max((len(r) for r in results), default=0)
    idx, vals = [], []
    for flat, r in enumerate(results):
        pos = np.unravel_index(flat, lead) if lead else ()
        for j, v in enumerate(r):
            idx.append(tuple(int(p) for p in pos) + (j,))
            vals.append(v)
    rank = len(lead) + 1
    y_idx = np.array(idx, np.int64).reshape(-1, rank)
    y_val = np.array(vals, dtype).reshape(-1)
    return (_C.Tensor(y_idx), _C.Tensor(y_val),
            _C.Tensor(np.array(tuple(lead) + (width,), np.int64)))


class _SetOperation(_Composed):
    def __init__(self, set_operation="a-b", validate_indices=True):
        op = type(self).__name__
        if not isinstance(set_operation, str) or set_operation.lower() not in _SET_OPS:
            raise ValueError(f"For '{op}', 'set_operation' must be one of {list(_SET_OPS)}, "
                             f"but got {set_operation!r}.")
        if not isinstance(validate_indices, bool):
            raise TypeError(f"For '{op}', 'validate_indices' must be a bool, but got "
                            f"{validate_indices!r}.")
        super().__init__(set_operation=set_operation, validate_indices=validate_indices)
        self.set_operation = set_operation.lower()
        self.validate_indices = validate_indices

    def _dense(self, name, x):
        op = type(self).__name__
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got "
                            f"{type(x).__name__}.")
        a = x.asnumpy()
        if a.dtype.name not in _SET_DTYPES:
            raise TypeError(f"For '{op}', '{name}' must be an integer tensor "
                            f"({', '.join(_SET_DTYPES)}), but got {x.dtype}.")
        if a.ndim < 2:
            raise ValueError(f"For '{op}', '{name}' must have rank >= 2, but got shape "
                             f"{a.shape}.")
        return a


class DenseToDenseSetOperation(_SetOperation):
    """DenseToDenseSetOperation(set_operation='a-b', validate_indices=True)(x1, x2): for each
    index of the leading dimensions, the set operation ('a-b', 'b-a', 'intersection' or
    'union') of the last-dimension values of x1 and x2, as a sparse tensor (y_indices,
    y_values, y_shape): each row's result sorted, y_shape the leading dims and the largest
    result. Computed on the host (the size depends on the values)."""

    def __call__(self, x1, x2):
        op = type(self).__name__
        a, b = self._dense("x1", x1), self._dense("x2", x2)
        if a.dtype != b.dtype or a.shape[:-1] != b.shape[:-1]:
            raise ValueError(f"For '{op}', 'x1' and 'x2' must have one dtype and the same "
                             f"leading dimensions, but got {x1.dtype} {a.shape} and {x2.dtype} "
                             f"{b.shape}.")
        lead = a.shape[:-1]
        rows = _set_rows(op, a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1]),
                         self.set_operation)
        return _set_result(rows, lead, a.dtype)


class DenseToSparseSetOperation(_SetOperation):
    """DenseToSparseSetOperation(set_operation='a-b', validate_indices=True)(x1, x2_indices,
    x2_values, x2_shape): DenseToDenseSetOperation with x2 a sparse tensor (its rows are the
    values stored in each leading index); validate_indices checks x2's indices are in
    row-major order, within x2_shape, without repeats."""

    def __call__(self, x1, x2_indices, x2_values, x2_shape):
        op = type(self).__name__
        a = self._dense("x1", x1)
        _check_tensors(op, ("x2_indices", x2_indices), ("x2_values", x2_values),
                       ("x2_shape", x2_shape))
        idx, vals = x2_indices.asnumpy(), x2_values.asnumpy()
        shape = tuple(int(s) for s in x2_shape.asnumpy().reshape(-1))
        if vals.dtype != a.dtype:
            raise TypeError(f"For '{op}', 'x2_values' must have x1's dtype {x1.dtype}, but got "
                            f"{x2_values.dtype}.")
        if idx.ndim != 2 or idx.shape != (vals.shape[0], len(shape)) or \
                shape[:-1] != a.shape[:-1]:
            raise ValueError(f"For '{op}', x2 must be indices [N, {a.ndim}], values [N] and a "
                             f"shape with x1's leading dimensions {a.shape[:-1]}, but got "
                             f"{idx.shape}, {vals.shape} and {shape}.")
        if self.validate_indices and len(idx):
            flat = np.ravel_multi_index(tuple(idx.T), shape) if np.all(
                (idx >= 0) & (idx < np.array(shape))) else None
            if flat is None or np.any(np.diff(flat) <= 0):
                raise ValueError(f"For '{op}', x2_indices must lie within x2_shape {shape}, in "
                                 f"row-major order without repeats, but got {idx.tolist()}.")
        lead = a.shape[:-1]
        owner = np.ravel_multi_index(tuple(idx[:, :-1].T), lead) if len(idx) else idx[:, 0]
        b_rows = [vals[owner == r] for r in range(int(np.prod(lead)))]
        rows = _set_rows(op, a.reshape(-1, a.shape[-1]), b_rows, self.set_operation)
        return _set_result(rows, lead, a.dtype)


__all__ += ["DenseToDenseSetOperation", "DenseToSparseSetOperation"]

# The batched CSR sparse matrix, COO, segment and ragged primitives (sparse_compat_ops.py)
from mycel.ops.operations import sparse_compat_ops as _sco  # noqa: E402
from mycel.ops.operations.sparse_compat_ops import *  # noqa: E402,F401,F403
__all__ += _sco.__all__
