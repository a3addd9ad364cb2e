"""Sparse-tensor computations on their index and value tensors, composed from table ops
(the work of ``ops.operations.sparse_ops``' SparseDenseCwiseAdd/Mul/Div, SparseReshape and
SparseMatrixSoftmax, and of ``ops.function.csr_softmax``). The number of stored values may
be a dynamic dimension (``Cell.set_inputs``); nothing here reads a value on the host, so
both modes give the same results and gradients flow to the values.

- sparse_dense_cwise(op, indices [N, R], values [N], dense [...]): values op dense[index],
  dense broadcast to the sparse tensor's trailing dimensions (numpy's rules: a dimension of 1
  repeats), read with one Gather on its flat form.
- sparse_reshape(indices [N, R], shape [R], new_shape [R']): each row's linear position in
  shape, re-split by new_shape (one -1 in new_shape takes the rest); a new_shape whose size
  differs, or with more than one -1, is a ValueError when it runs.
- csr_softmax_values(dense_shape, batch_pointers, row_pointers, values): the softmax of each
  row's stored values (a batched CSR matrix of dense shape [batch, rows, cols]: row_pointers
  holds batch * (rows + 1) entries, local to each batch's values, batch_pointers where each
  batch's values start; a 2-D dense shape is one batch, its batch_pointers not read).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import segment_func as _seg
from mycel.ops.primitive import constexpr

__all__ = ["csr_softmax"]


@constexpr
def _cwise_plan(op, idx_shape, idx_dtype, val_shape, dense_shape, val_dtype, dense_dtype):
    """(R, the trailing index columns' start, flat strides of dense (0 where it broadcasts))."""
    if idx_dtype != _C.int64:
        raise TypeError(f"For '{op}', x1_indices must be int64, but got {idx_dtype}.")
    if len(idx_shape) != 2 or len(val_shape) != 1:
        raise ValueError(f"For '{op}', x1_indices must be 2-D and x1_values 1-D, but got "
                         f"shapes {tuple(idx_shape)} and {tuple(val_shape)}.")
    if val_dtype != dense_dtype:
        raise TypeError(f"For '{op}', x1_values and x2 must have one dtype, but got "
                        f"{val_dtype} and {dense_dtype}.")
    r = idx_shape[1]
    if r >= 0 and len(dense_shape) > r:
        raise ValueError(f"For '{op}', x2's rank ({len(dense_shape)}) must not exceed the "
                         f"sparse tensor's ({r}).")
    strides, s = [], 1
    for d in reversed(dense_shape):
        strides.append(0 if d == 1 else s)
        s = s * d if d > 0 else s
    strides = strides[::-1]
    if any(d < 0 for d in dense_shape[1:]):
        raise ValueError(f"For '{op}', only x2's first dimension may be dynamic, but got shape "
                         f"{tuple(dense_shape)}.")
    return r, np.array(strides, np.int64).reshape(-1, 1) if strides else None


@constexpr
def _check_shape_arg(op, dtype):
    if dtype != _C.int64:
        raise TypeError(f"For '{op}', x1_shape must be int64, but got {dtype}.")


def _check_indices(op, name, shape_name, indices, shape):
    """A ValueError, when it runs, for an index outside [0, shape) (both modes)."""
    bad = prim("LogicalOr")(prim("Less")(indices, 0),
                            prim("GreaterEqual")(indices, prim("ExpandDims")(shape, 0)))
    if bad.any():
        raise ValueError(f"For '{op}', every row of '{name}' must lie in [0, '{shape_name}').")


def sparse_dense_cwise(op, combine, x1_indices, x1_values, x1_shape, x2):
    """combine(values, x2 at each value's index) (module docstring); x1_shape is the dense
    shape of the sparse tensor (its values are not read: x2 must broadcast to it)."""
    indices, values, dense = as_tensor(x1_indices), as_tensor(x1_values), as_tensor(x2)
    _check_shape_arg(op, as_tensor(x1_shape).dtype)
    r, strides = _cwise_plan(op, indices.shape, indices.dtype, values.shape, dense.shape,
                             values.dtype, dense.dtype)
    _check_indices(op, "x1_indices", "x1_shape", indices, as_tensor(x1_shape))
    if dense.ndim == 0:
        return combine(values, dense)
    cols = prim("Gather")(indices, _C.Tensor(np.arange(r - dense.ndim, r, dtype=np.int64)), 1)
    flat = prim("Reshape")(prim("MatMul")(cols, _C.Tensor(strides)), (-1,))
    picked = prim("Gather")(prim("Reshape")(dense, (-1,)), flat, 0)
    return combine(values, picked)


def _suffix_products(shape):
    """strides[i] = prod(shape[i+1:]) of a 1-D int64 shape tensor."""
    return prim("CumProd", exclusive=True, reverse=True)(shape, 0)


@constexpr
def _reshape_plan(idx_shape, idx_dtype, shape_shape, shape_dtype, new_dtype):
    for name, d in (("indices", idx_dtype), ("shape", shape_dtype), ("new_shape", new_dtype)):
        if d != _C.int64:
            raise TypeError(f"For 'SparseReshape', '{name}' must be int64, but got {d}.")
    if len(idx_shape) != 2 or len(shape_shape) != 1:
        raise ValueError(f"For 'SparseReshape', indices must be 2-D and shape 1-D, but got "
                         f"shapes {tuple(idx_shape)} and {tuple(shape_shape)}.")


def sparse_reshape(indices, shape, new_shape):
    """(y_indices [N, R'], y_shape [R']) (module docstring)."""
    indices, shape, new_shape = as_tensor(indices), as_tensor(shape), as_tensor(new_shape)
    _reshape_plan(indices.shape, indices.dtype, shape.shape, shape.dtype, new_shape.dtype)
    _check_indices("SparseReshape", "indices", "shape", indices, shape)
    total = prim("ReduceProd", keep_dims=False)(shape, (0,))
    unknown = prim("Equal")(new_shape, -1)
    n_unknown = prim("ReduceSum", keep_dims=False)(prim("Cast", dtype=_C.int64)(unknown), (0,))
    if n_unknown > 1:
        raise ValueError("For 'SparseReshape', new_shape may hold at most one -1.")
    known = prim("ReduceProd", keep_dims=False)(
        prim("Select")(unknown, prim("OnesLike")(new_shape), new_shape), (0,))
    missing = prim("FloorDiv")(total, prim("Maximum")(known, 1))
    y_shape = prim("Select")(unknown, prim("Add")(prim("ZerosLike")(new_shape), missing),
                             new_shape)
    if prim("ReduceProd", keep_dims=False)(y_shape, (0,)) != total:
        raise ValueError("For 'SparseReshape', new_shape must keep the number of elements of "
                         "shape.")
    linear = prim("ReduceSum", keep_dims=True)(
        prim("Mul")(indices, prim("ExpandDims")(_suffix_products(shape), 0)), (1,))  # [N, 1]
    y_strides = prim("ExpandDims")(_suffix_products(y_shape), 0)
    y_indices = prim("FloorMod")(prim("FloorDiv")(linear, y_strides),
                                 prim("ExpandDims")(y_shape, 0))
    return y_indices, y_shape


@constexpr
def _softmax_plan(rank, bp_shape, rp_shape, val_shape, val_dtype, dtype):
    if val_dtype not in (_C.float32, _C.float64):
        raise TypeError(f"For 'SparseMatrixSoftmax', the values must be float32 or float64, "
                        f"but got {val_dtype}.")
    if dtype is not None and dtype != val_dtype:
        raise TypeError(f"For 'SparseMatrixSoftmax', 'dtype' ({dtype}) must be the values' "
                        f"dtype ({val_dtype}).")
    if rank not in (2, 3):
        raise ValueError(f"For 'SparseMatrixSoftmax', the dense shape must have 2 or 3 "
                         f"entries, but got {rank}.")
    # a 2-D matrix is one batch whatever batch_pointers holds (MindSpore accepts its count)
    batch = 1 if rank == 2 else (bp_shape[0] - 1 if len(bp_shape) == 1 else 0)
    if batch < 1 or rp_shape[0] % batch:
        raise ValueError(f"For 'SparseMatrixSoftmax', row_pointers ({rp_shape[0]} entries) "
                         f"must hold batch * (rows + 1) entries, batch = {batch}.")
    return batch, rp_shape[0] // batch - 1, val_shape[0]


def _batch_counts(bp, batch, nnz):
    """The number of values of each batch: nnz for one batch, else batch_pointers' steps."""
    if batch == 1:
        return _C.Tensor(np.array([nnz], np.int64))
    b = prim("Cast")(bp, _C.int64)
    return prim("Sub")(b[1:batch + 1], b[:batch])


def csr_softmax_values(dense_shape, batch_pointers, row_pointers, values, dtype=None):
    """The softmax of each stored row's values (module docstring)."""
    bp, rp, v = as_tensor(batch_pointers), as_tensor(row_pointers), as_tensor(values)
    batch, rows, nnz = _softmax_plan(as_tensor(dense_shape).shape[0], bp.shape, rp.shape,
                                     v.shape, v.dtype, dtype)
    local = prim("Reshape")(prim("Cast")(rp, _C.int64), (batch, rows + 1))
    steps = prim("Sub")(local[:, 1:], local[:, :rows])
    if prim("Less")(steps, 0).any() or (local[:, 0] != 0).any() or \
            (local[:, rows] != _batch_counts(bp, batch, nnz)).any():
        raise ValueError("For 'SparseMatrixSoftmax', the row pointers must rise from 0 to each "
                         "batch's number of values.")
    if batch > 1:
        starts = prim("Reshape")(prim("Cast")(bp, _C.int64)[:batch], (batch, 1))
        local = prim("Add")(local, starts)
    ends = prim("Reshape")(local[:, 1:], (1, batch * rows))
    pos = _C.Tensor(np.arange(nnz, dtype=np.int64).reshape(nnz, 1))
    row = prim("ReduceSum", keep_dims=False)(
        prim("Cast", dtype=_C.int64)(prim("LessEqual")(ends, pos)), (1,))  # [nnz]
    segments = batch * rows + 1
    top = _seg.unsorted_segment_max(v, row, segments)
    e = prim("Exp")(prim("Sub")(v, prim("Gather")(top, row, 0)))
    total = prim("UnsortedSegmentSum")(e, row, segments)
    return prim("Div")(e, prim("Gather")(total, row, 0))


def csr_softmax(logits, dtype):
    """The softmax of each row of the CSRTensor logits over its stored values: a CSRTensor of
    the same structure (ops.function.csr_softmax)."""
    from mycel.common.sparse_tensor import CSRTensor
    if not isinstance(logits, CSRTensor):
        raise TypeError(f"For 'csr_softmax', logits must be a CSRTensor, but got "
                        f"{type(logits).__name__}.")
    nnz = logits.values.shape[0]
    bp = _C.Tensor(np.array([0, nnz], np.int64))
    values = csr_softmax_values(_C.Tensor(np.array(logits.shape, np.int64)), bp, logits.indptr,
                                logits.values, dtype)
    return CSRTensor(logits.indptr, logits.indices, values, logits.shape)
