"""SparseToDense and SparseTensorDenseMatmul (MindSpore's sparse primitives over index and
value tensors), composed from table ops: static shapes, so both modes and gradients (to the
values and the dense operand) come from the ops they are built of."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.operations._compat_checks import _check_bool, _check_tensor
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.primitive import constexpr

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]

_INDEX = (_C.int32, _C.int64)


@constexpr
def _sparse_plan(op, idx_shape, val_shape, sparse_shape, rank=None):
    if isinstance(sparse_shape, _C.Tensor):
        sparse_shape = sparse_shape.asnumpy().reshape(-1).tolist()
    if not isinstance(sparse_shape, (tuple, list)) or \
            any(isinstance(d, bool) or int(d) != d or d < 0 for d in sparse_shape):
        raise ValueError(f"For '{op}', 'sparse_shape' must be a tuple of non-negative ints, but "
                         f"got {sparse_shape!r}.")
    shape = tuple(int(d) for d in sparse_shape)
    if rank is not None and len(shape) != rank:
        raise ValueError(f"For '{op}', 'sparse_shape' must have {rank} entries, but got "
                         f"{shape}.")
    if len(idx_shape) != 2 or idx_shape[1] != len(shape) or tuple(val_shape) != (idx_shape[0],):
        raise ValueError(f"For '{op}', indices must be [N, {len(shape)}] and values [N], but got "
                         f"{tuple(idx_shape)} and {tuple(val_shape)}.")
    return shape


class SparseToDense(_Composed):
    """SparseToDense()(indices [N, R], values [N], sparse_shape): the dense tensor of
    sparse_shape (a tuple or a constant tensor) holding values at indices and zeros elsewhere
    (a repeated index keeps one of its values)."""

    def __call__(self, indices, values, sparse_shape):
        _check_tensor("SparseToDense", "indices", indices, _INDEX)
        shape = _sparse_plan("SparseToDense", indices.shape, values.shape, sparse_shape)
        zeros = prim("Fill")(values.dtype, shape, 0.0)
        return prim("TensorScatterUpdate")(zeros, prim("Cast")(indices, _C.int64), values)


@constexpr
def _cols(k):
    return _C.Tensor(np.array([k], np.int64))


class SparseTensorDenseMatmul(_Composed):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices [N, 2], values [N],
    sparse_shape (rows, cols), dense): op(A) op(dense) with A the sparse matrix (values at
    indices, repeated indices adding up) and op the transpose when adjoint_st / adjoint_dt
    (for real values the adjoint): each stored a[i, j] adds a[i, j] dense[j, :] to row i."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        self.adjoint_st = _check_bool("SparseTensorDenseMatmul", "adjoint_st", adjoint_st)
        self.adjoint_dt = _check_bool("SparseTensorDenseMatmul", "adjoint_dt", adjoint_dt)
        super().__init__(adjoint_st=adjoint_st, adjoint_dt=adjoint_dt)

    def __call__(self, indices, values, sparse_shape, dense):
        op = "SparseTensorDenseMatmul"
        _check_tensor(op, "indices", indices, _INDEX)
        shape = _sparse_plan(op, indices.shape, values.shape, sparse_shape, 2)
        idx = prim("Cast")(indices, _C.int64)
        rows = prim("Reshape")(prim("Gather")(idx, _cols(0), 1), (-1,))
        cols = prim("Reshape")(prim("Gather")(idx, _cols(1), 1), (-1,))
        n_out = shape[0]
        if self.adjoint_st:
            rows, cols, n_out = cols, rows, shape[1]
        d = prim("Transpose")(dense, (1, 0)) if self.adjoint_dt else dense
        _chain(op, shape, self.adjoint_st, tuple(d.shape))
        terms = prim("Mul")(prim("Gather")(d, cols, 0),
                            prim("ExpandDims")(prim("Cast")(values, d.dtype), 1))
        return prim("UnsortedSegmentSum")(terms, rows, n_out)


@constexpr
def _chain(op, shape, adjoint_st, d_shape):
    inner = shape[0] if adjoint_st else shape[1]
    if len(d_shape) != 2 or d_shape[0] != inner:
        raise ValueError(f"For '{op}', the sparse matrix {shape} (adjoint_st={adjoint_st}) and "
                         f"the dense operand {d_shape} do not chain.")
    return True
