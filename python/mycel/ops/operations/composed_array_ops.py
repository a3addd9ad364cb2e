"""Array primitives of MindSpore 2.x composed from the functional forms (ops/function):
constructors (Ones, Zeros, Eye, FillV2, TrilIndices, TriuIndices, Meshgrid, Diag), gathers
and the scatter family (GatherNd, TensorScatter*, Scatter*, Inplace*, IndexAdd, IndexFill,
IndexPut), conversions (ScalarToTensor, TupleToArray, TensorShape, ScalarCast), block
rearrangements (SpaceToBatchND, BatchToSpaceND), Cummax / Cummin, UniqueConsecutive,
EditDistance (TensorFlow's, of sparse sequences), ExtractVolumePatches (TensorFlow's
extract_volume_patches on NCDHW); and the functions that live beside their primitives
(scalar_to_tensor, tuple_to_array, diagonal_scatter).

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import numpy as np
from mycel import _mycel as _C
from mycel.common import _tensor_overloads as _ov
from mycel.ops.function import array_ext_func as _ax
from mycel.ops.function import array_func as _a
from mycel.ops.function import index_add_func as _ia
from mycel.ops.function import scatter_func as _scf
from mycel.ops.function import unique_func as _uq
from mycel.ops.function import segment_func as _seg
from mycel.ops.function._util import prim, holds_dynamic_dim
from mycel.ops.function._util import prim as _prim
from mycel.ops.function._util import shape_arg
from mycel.ops.function.scatter_func import scatter_nd_add
from mycel.ops.operations._compat_checks import _check_bool
from mycel.ops.operations._compat_checks import _check_tensor
from mycel.ops.operations.composed_ops import _Composed, _exporter, _simple_maker
from mycel.ops.operations.composed_ops import _ScatterNdInPlace
from mycel.ops.primitive import constexpr

__all__ = ["EditDistance", "ExtractVolumePatches"]


_export = _exporter(__all__, globals())
_simple = _simple_maker(_export, __name__)


@constexpr
def _shape_tuple(shape, op):
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    if isinstance(shape, (tuple, list)):
        return tuple(int(s) for s in shape)
    raise TypeError(f"For '{op}', shape must be an int or a tuple of ints, but got "
                    f"{type(shape).__name__}.")


@_export
class Ones(_Composed):
    """Ones()(shape, type): a tensor of ones."""

    def __init__(self):
        super().__init__()

    def __call__(self, size, type=None):  # noqa: A002 (MindSpore's argument name)
        return _a.ones(_shape_tuple(size, "Ones"), type)


@_export
class Zeros(_Composed):
    """Zeros()(shape, type): a tensor of zeros."""

    def __init__(self):
        super().__init__()

    def __call__(self, size, type=None):  # noqa: A002
        return _a.zeros(_shape_tuple(size, "Zeros"), type)


@_export
class Eye(_Composed):
    """Eye()(n, m, t): the n x m identity matrix of dtype t."""

    def __init__(self):
        super().__init__()

    def __call__(self, n, m, t):
        return _a.eye(n, m, t)


@_export
class FillV2(_Composed):
    """FillV2()(shape, value): a tensor of shape (a tuple or a 1-D int tensor) filled with
    value (a 0-d tensor, whose dtype the result takes)."""

    def __init__(self):
        super().__init__()

    def __call__(self, shape, value):
        v = value if isinstance(value, _C.Tensor) else _C.Tensor(value)
        return _prim("BroadcastTo", shape=shape_arg(shape, "FillV2"))(v)


@_export
class TrilIndices(_Composed):
    """TrilIndices(row, col, offset=0, dtype=int32)(): the lower-triangle coordinates."""

    def __init__(self, row, col, offset=0, dtype=_C.int32):
        super().__init__(row=row, col=col, offset=offset, dtype=dtype)
        self.row, self.col, self.offset, self.dtype = row, col, offset, dtype

    def __call__(self):
        return _a.tril_indices(self.row, self.col, self.offset, dtype=self.dtype)


@_export
class TriuIndices(TrilIndices):
    """TriuIndices(row, col, offset=0, dtype=int32)(): the upper-triangle coordinates."""

    def __call__(self):
        return _a.triu_indices(self.row, self.col, self.offset, dtype=self.dtype)


@_export
class Meshgrid(_Composed):
    """Meshgrid(indexing='xy')(inputs): coordinate grids of a tuple of 1-D tensors."""

    def __init__(self, indexing="xy"):
        super().__init__(indexing=indexing)
        self.indexing = indexing

    def __call__(self, inputs):
        return _a.meshgrid(*inputs, indexing=self.indexing)


_simple("Diag", _a.diag, "Diag()(input_x): the rank-2k tensor with input_x on its diagonal.")


_simple("GatherNd", _a.gather_nd, "GatherNd()(input_x, indices): gather by N-d indices.")


class _CumExtreme(_Composed):
    _max = True

    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For '{type(self).__name__}', axis must be an int, but got "
                            f"{type(axis).__name__}.")
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return _a.cummax(x, self.axis) if self._max else _a.cummin(x, self.axis)


@_export
class Cummax(_CumExtreme):
    """Cummax(axis)(input): (running maximum, its indices)."""
    _max = True


@_export
class Cummin(_CumExtreme):
    """Cummin(axis)(input): (running minimum, its indices)."""
    _max = False


@_export
class InvertPermutation(_Composed):
    """InvertPermutation()(input_x): the inverse of a permutation given as a tuple/list of
    ints (a constant), as a tuple."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return _invert_perm(input_x)


@constexpr
def _invert_perm(p):
    if not isinstance(p, (tuple, list)):
        raise TypeError(f"For 'InvertPermutation', input_x must be a tuple or list of ints, but "
                        f"got {type(p).__name__}.")
    n = len(p)
    if sorted(p) != list(range(n)):
        raise ValueError(f"For 'InvertPermutation', input_x must be a permutation of 0..{n - 1}, "
                         f"but got {tuple(p)}.")
    out = [0] * n
    for i, v in enumerate(p):
        out[v] = i
    return tuple(out)


@_export
class ScalarToTensor(_Composed):
    """ScalarToTensor()(input_x, dtype=float32): a 0-d tensor of a Python number."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, dtype=_C.float32):
        return scalar_to_tensor(input_x, dtype)


def scalar_to_tensor(input_x, dtype=_C.float32):
    """A 0-d tensor of a Python number (bool, int or float) of dtype; in graph mode a
    dimension known only at run time (x.shape[0] under set_inputs) gives its run-time value."""
    r = _scalar_to_tensor(input_x, dtype)  # (checks the argument; -1 for such a dimension)
    if holds_dynamic_dim(input_x):
        return prim("Cast")(input_x, dtype)
    return r


@constexpr
def _scalar_to_tensor(input_x, dtype):
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"For 'scalar_to_tensor', input_x must be a number, but got "
                        f"{type(input_x).__name__}.")
    return _C.Tensor(np.array(input_x, np.float64 if isinstance(input_x, float) else
                              np.int64)).astype(dtype)


@_export
class TupleToArray(_Composed):
    """TupleToArray()(input_x): a 1-D tensor of a tuple of numbers (float32 when any is a
    float, else int64)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return tuple_to_array(input_x)


def tuple_to_array(input_x):
    """A 1-D tensor of a tuple or list of numbers (float32 if any is a float, else int64); in
    graph mode dimensions known only at run time (from x.shape) give their run-time values."""
    r = _tuple_to_array(input_x)  # (checks the argument; -1 for such a dimension)
    if holds_dynamic_dim(input_x):
        return prim("Cast")(tuple(input_x), r.dtype)
    return r


@constexpr
def _tuple_to_array(input_x):
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError(f"For 'tuple_to_array', input_x must be a non-empty tuple of numbers, "
                        f"but got {input_x!r}.")
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in input_x):
        raise TypeError(f"For 'tuple_to_array', each element must be an int or a float, but got "
                        f"{tuple(input_x)!r}.")
    if any(isinstance(v, float) for v in input_x):
        return _C.Tensor(np.array(input_x, np.float32))
    return _C.Tensor(np.array(input_x, np.int64))


@_export
class TensorShape(_Composed):
    """TensorShape()(input_x): the shape as a 1-D int64 tensor (ops.dyn_shape: a dimension
    unknown at compile time is read at run time)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return _ax.dyn_shape(input_x)


@_export
class ScalarCast(_Composed):
    """ScalarCast()(input_x, input_t): a Python number converted to the dtype's Python type."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, input_t):
        return _scalar_cast(input_x, input_t)


@constexpr
def _scalar_cast(x, t):
    if t == _C.bool:
        return bool(x)
    if t in (_C.float16, _C.float32, _C.float64, _C.bfloat16):
        return float(x)
    return int(x)


@_export
class ReverseSequence(_Composed):
    """ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths)."""

    def __init__(self, seq_dim, batch_dim=0):
        super().__init__(seq_dim=seq_dim, batch_dim=batch_dim)
        self.seq_dim, self.batch_dim = seq_dim, batch_dim

    def __call__(self, x, seq_lengths):
        return _a.reverse_sequence(x, seq_lengths, self.seq_dim, self.batch_dim)


@_export
class FillDiagonal(_Composed):
    """FillDiagonal(fill_value, wrap=False)(input_x): the main diagonal (all indices equal)
    set to fill_value; wrap continues it below a tall matrix every N + 1 rows."""

    def __init__(self, fill_value, wrap=False):
        super().__init__(fill_value=fill_value, wrap=wrap)
        self.fill_value, self.wrap = float(fill_value), wrap

    def __call__(self, input_x):
        mask = _fill_diag_mask(tuple(input_x.shape), self.wrap)
        return _prim("Select")(mask, _prim("ZerosLike")(input_x) + self.fill_value, input_x)


@constexpr
def _fill_diag_mask(shape, wrap):
    if len(shape) < 2:
        raise ValueError(f"For 'FillDiagonal', the input must be at least 2-D, but got "
                         f"{shape}.")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"For 'FillDiagonal', all dimensions must be equal above 2-D, but "
                         f"got {shape}.")
    m = np.zeros(shape, bool)
    if len(shape) == 2:
        rows, cols = shape
        flat = m.reshape(-1)
        end = rows * cols if wrap else min(rows, cols) * cols
        flat[:end:cols + 1] = True
    else:
        idx = np.arange(shape[0])
        m[tuple([idx] * len(shape))] = True
    return _C.Tensor(m)


@_export
class MatrixSetDiagV3(_Composed):
    """MatrixSetDiagV3(align='RIGHT_LEFT')(x, diagonal, k): ops.matrix_set_diag."""

    def __init__(self, align="RIGHT_LEFT"):
        super().__init__(align=align)
        self.align = align

    def __call__(self, x, diagonal, k):
        return _ax.matrix_set_diag(x, diagonal, k, self.align)


def _scatter_class(name, fn, doc, default=False):
    def __init__(self, use_locking=default):
        _ScatterNdInPlace.__init__(self, use_locking)
    return _export(type(name, (_ScatterNdInPlace,), {"__doc__": doc, "__module__": __name__,
                                                     "__init__": __init__,
                                                     "_fn": staticmethod(fn)}))


for _n, _f in (("Add", _scf.scatter_add), ("Sub", _scf.scatter_sub), ("Mul", _scf.scatter_mul),
               ("Div", _scf.scatter_div), ("Max", _scf.scatter_max), ("Min", _scf.scatter_min)):
    _scatter_class("Scatter" + _n, _f, f"Scatter{_n}(use_locking=False)(input_x, indices, "
                   f"updates): in place along the first axis of the Parameter input_x.")


_scatter_class("ScatterUpdate", _scf.scatter_update, "ScatterUpdate(use_locking=True)(input_x, "
               "indices, updates): rows replaced in place.", True)


@_export
class ScatterNonAliasingAdd(_Composed):
    """ScatterNonAliasingAdd()(input_x, indices, updates): ops.scatter_nd_add."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, indices, updates):
        return scatter_nd_add(input_x, indices, updates)


for _n in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
    _simple("TensorScatter" + _n, getattr(_scf, "tensor_scatter_" + _n.lower()),
            f"TensorScatter{_n}()(input_x, indices, updates): ops.tensor_scatter_"
            f"{_n.lower()}.")


class _InplaceRows(_Composed):
    _fn = None

    def __init__(self, indices):
        super().__init__(indices=indices)
        self.indices = tuple(indices) if isinstance(indices, list) else indices

    def __call__(self, x, v):
        return type(self)._fn(x, v, self.indices)


@_export
class InplaceAdd(_InplaceRows):
    """InplaceAdd(indices)(x, v): x with v added to the rows indices."""
    _fn = staticmethod(_scf.inplace_add)


@_export
class InplaceSub(_InplaceRows):
    """InplaceSub(indices)(x, v): x with v subtracted from the rows indices."""
    _fn = staticmethod(_scf.inplace_sub)


@_export
class InplaceUpdate(_InplaceRows):
    """InplaceUpdate(indices)(x, v): x with the rows indices replaced by v."""
    _fn = staticmethod(_scf.inplace_update)


@_export
class InplaceUpdateV2(_Composed):
    """InplaceUpdateV2()(x, indices, v): x with the rows indices replaced by v."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, indices, v):
        return _scf.inplace_update(x, v, indices)


@_export
class IndexAdd(_Composed):
    """IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, y):
    input_x[..., indices[i], ...] += y[..., i, ...] along axis, in place."""

    def __init__(self, axis, use_lock=True, check_index_bound=True):
        super().__init__(axis=axis, use_lock=use_lock, check_index_bound=check_index_bound)
        self.axis = axis

    def __call__(self, input_x, indices, y):
        return _ia.index_add(input_x, indices, y, self.axis)


@_export
class InplaceIndexAdd(_Composed):
    """InplaceIndexAdd(axis)(var, indices, updates): ops.inplace_index_add."""

    def __init__(self, axis):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, var, indices, updates):
        return _ia.inplace_index_add(var, indices, updates, self.axis)


@_export
class IndexFill(_Composed):
    """IndexFill()(x, dim, index, value): ops.index_fill."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, dim, index, value):
        return _scf.index_fill(x, dim, index, value)


@_export
class SpaceToBatchND(_Composed):
    """SpaceToBatchND(block_shape, paddings)(input_x): ops.space_to_batch_nd."""

    def __init__(self, block_shape, paddings):
        super().__init__(block_shape=block_shape, paddings=paddings)
        self.block_shape, self.paddings = block_shape, paddings

    def __call__(self, input_x):
        return _ax.space_to_batch_nd(input_x, self.block_shape, self.paddings)


@_export
class BatchToSpaceND(_Composed):
    """BatchToSpaceND(block_shape, crops)(input_x): ops.batch_to_space_nd."""

    def __init__(self, block_shape, crops):
        super().__init__(block_shape=block_shape, crops=crops)
        self.block_shape, self.crops = block_shape, crops

    def __call__(self, input_x):
        return _ax.batch_to_space_nd(input_x, self.block_shape, self.crops)


@_export
class BatchToSpace(BatchToSpaceND):
    """BatchToSpace(block_size, crops)(x): BatchToSpaceND with one block size for H and W."""

    def __init__(self, block_size, crops):
        super().__init__((block_size, block_size), crops)


@_export
class SpaceToBatch(SpaceToBatchND):
    """SpaceToBatch(block_size, paddings)(x): SpaceToBatchND with one block size for H and W
    (x [N, C, H, W], paddings [[top, bottom], [left, right]])."""

    def __init__(self, block_size, paddings):
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise ValueError(f"For 'SpaceToBatch', 'block_size' must be a positive int, but got "
                             f"{block_size!r}.")
        super().__init__((block_size, block_size), paddings)


@_export
class ParallelConcat(_Composed):
    """ParallelConcat()(values): the tensors (each with first dimension 1) joined along
    axis 0."""

    def __init__(self):
        super().__init__()

    def __call__(self, values):
        return _a.concat(tuple(values), 0)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """input with its diagonal (offset, over dims dim1 and dim2) replaced by src, whose shape
    is input's other dims then the diagonal's length (Tensor.diagonal_scatter)."""
    return _ov.diagonal_scatter(input, src, offset, dim1, dim2)


@_export
class UniqueConsecutive(_Composed):
    """UniqueConsecutive(return_idx=False, return_counts=False, axis=None)(x): (output,
    idx, counts) as ops.unique_consecutive (idx and counts empty when not asked)."""

    def __init__(self, return_idx=False, return_counts=False, axis=None):
        super().__init__(return_idx=return_idx, return_counts=return_counts, axis=axis)
        self.return_idx, self.return_counts, self.axis = return_idx, return_counts, axis

    def __call__(self, x):
        out, idx, cnt = _uq.unique_consecutive(x, True, True, self.axis)
        empty = _C.Tensor(np.zeros(0, np.int64))
        return (out, idx if self.return_idx else empty, cnt if self.return_counts else empty)


@_export
class IndexPut(_Composed):
    """IndexPut(accumulate=0)(x1, x2, indices): x1 with x2 written at the positions the 1-D
    int tensors of indices name (added when accumulate is 1)."""

    def __init__(self, accumulate=0):
        if accumulate not in (0, 1):
            raise ValueError(f"For 'IndexPut', accumulate must be 0 or 1, but got {accumulate}.")
        super().__init__(accumulate=accumulate)
        self.accumulate = accumulate

    def __call__(self, x1, x2, indices):
        if not isinstance(indices, (tuple, list)):  # (tuple() of it named no op)
            raise TypeError(f"For 'IndexPut', indices must be a tuple of Tensors, but got "
                            f"{type(indices).__name__}.")
        return _ov.index_put(x1, tuple(indices), x2, bool(self.accumulate))


@constexpr
def _range(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


# ------------------------------------------------------------------ EditDistance
@constexpr
def _edit_plan(h_idx, h_val, h_shape, t_idx, t_val, t_shape):
    op = "EditDistance"
    shapes = []
    for name, v in (("hypothesis_shape", h_shape), ("truth_shape", t_shape)):
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor (a constant), but got "
                            f"{type(v).__name__}.")
        shapes.append(tuple(int(e) for e in v.asnumpy().reshape(-1)))
    hs, ts = shapes
    if len(hs) != len(ts) or len(hs) < 1 or min(hs + ts) < 0:
        raise ValueError(f"For '{op}', hypothesis_shape and truth_shape must have the same "
                         f"rank (at least 1) and no negative entry, but got {hs} and {ts}.")
    for name, idx, val, shp in (("hypothesis", h_idx, h_val, hs), ("truth", t_idx, t_val, ts)):
        if len(idx) != 2 or idx[1] != len(shp) or tuple(val) != (idx[0],):
            raise ValueError(f"For '{op}', {name}_indices must be [n, {len(shp)}] and "
                             f"{name}_values [n], but got {tuple(idx)} and {tuple(val)}.")
    out = tuple(max(a, b) for a, b in zip(hs[:-1], ts[:-1]))
    rows = 1
    for e in out:
        rows *= e
    strides = []
    acc = 1
    for e in reversed(out):
        strides.insert(0, acc)
        acc *= e
    width_h = max(1, min(h_idx[0], hs[-1]))
    width_t = max(1, min(t_idx[0], ts[-1]))
    return out, rows, tuple(strides), width_h, width_t


def _edit_dense(indices, values, strides, rows, width):
    """(sequences [rows, width] as float64, lengths [rows] int64): the values of each row
    (the leading indices), in the order of their last index."""
    idx = prim("Cast")(indices, _C.int64)
    n = idx.shape[0]
    rank = idx.shape[1]
    row = prim("ZerosLike")(idx[:, 0])
    for k in range(rank - 1):
        row = prim("Add")(row, prim("Mul")(idx[:, k], strides[k]))
    last = idx[:, rank - 1]
    same = prim("Equal")(prim("ExpandDims")(row, 1), prim("ExpandDims")(row, 0))
    before = prim("Less")(prim("ExpandDims")(last, 0), prim("ExpandDims")(last, 1))
    pos = prim("ReduceSum", keep_dims=False)(
        prim("Cast")(prim("LogicalAnd")(same, before), _C.int64), (1,))  # rank in its row
    at_row = prim("Equal")(prim("ExpandDims")(row, 0), prim("ExpandDims")(_range(rows), 1))
    lengths = prim("ReduceSum", keep_dims=False)(prim("Cast")(at_row, _C.int64), (1,))
    hit = prim("LogicalAnd")(prim("Reshape")(at_row, (rows, 1, n)),
                             prim("Equal")(prim("Reshape")(pos, (1, 1, n)),
                                           prim("Reshape")(_range(width), (1, width, 1))))
    val = prim("Reshape")(prim("Cast")(values, _C.float64), (1, 1, n))
    dense = prim("ReduceSum", keep_dims=False)(
        prim("Mul")(prim("Cast")(hit, _C.float64), val), (2,))
    return dense, lengths


@constexpr
def _upper_mask(n):
    """[n, n] float64: 0 where k <= j (column j, row k), a large number elsewhere."""
    return _C.Tensor(np.where(np.arange(n)[:, None] <= np.arange(n)[None, :], 0.0, 1e18))


@constexpr
def _col_index(n):
    return _C.Tensor(np.arange(n, dtype=np.float64))


def _levenshtein(a, la, b, lb):
    """The edit distance of each row's a[:la] and b[:lb] (float64 [rows]). Row i of the table
    is D_i[j] = j + min_{k <= j}(E[k] - k) with E[0] = D_{i-1}[0] + 1 and E[j] =
    min(D_{i-1}[j] + 1, D_{i-1}[j - 1] + (a_i != b_j)): a vector step per row of a."""
    rows, width_a = a.shape
    cols = b.shape[1] + 1
    j = _col_index(cols)
    mask = _upper_mask(cols)
    d = prim("BroadcastTo", shape=(rows, cols))(j)
    table = (d,)
    for i in range(width_a):
        cost = prim("Cast")(prim("NotEqual")(a[:, i:i + 1], b), _C.float64)  # [rows, B]
        diag = prim("Add")(d[:, :cols - 1], cost)
        up = prim("Add")(d, 1.0)
        e = prim("Concat", axis=1)((up[:, :1], prim("Minimum")(up[:, 1:], diag)))
        shifted = prim("Sub")(e, j)
        windows = prim("Add")(prim("ExpandDims")(shifted, 2), mask)  # [rows, k, j]
        d = prim("Add")(prim("ReduceMin", keep_dims=False)(windows, (1,)), j)
        table = table + (d,)
    full = prim("Stack", axis=1)(table)  # [rows, A + 1, B + 1]
    at_a = prim("GatherD")(full, prim("BroadcastTo", shape=(rows, 1, cols))(
        prim("Reshape")(la, (rows, 1, 1))), 1)
    return prim("Reshape")(prim("GatherD")(prim("Reshape")(at_a, (rows, cols)),
                                           prim("Reshape")(lb, (rows, 1)), 1), (rows,))


class EditDistance(_Composed):
    """EditDistance(normalize=True)(hypothesis_indices, hypothesis_values, hypothesis_shape,
    truth_indices, truth_values, truth_shape) -> float32 distances of shape
    max(hypothesis_shape[:-1], truth_shape[:-1]): TensorFlow's Levenshtein distance between
    the sparse sequences of each position of the leading dims (a sequence is the values of
    the entries sharing those leading indices, in the order of their last index). With
    normalize the distance is divided by the truth's length: a missing truth gives inf (0 when
    the hypothesis is missing too). The shapes must be constant int64 tensors (they set the
    output shape)."""

    def __init__(self, normalize=True):
        self.normalize = _check_bool("EditDistance", "normalize", normalize)
        super().__init__(normalize=normalize)

    def __call__(self, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                 truth_values, truth_shape):
        op = "EditDistance"
        _check_tensor(op, "hypothesis_indices", hypothesis_indices, (_C.int64,))
        _check_tensor(op, "truth_indices", truth_indices, (_C.int64,))
        out, rows, strides, wh, wt = _edit_plan(
            hypothesis_indices.shape, hypothesis_values.shape, hypothesis_shape,
            truth_indices.shape, truth_values.shape, truth_shape)
        a, la = _edit_dense(hypothesis_indices, hypothesis_values, strides, rows, wh)
        b, lb = _edit_dense(truth_indices, truth_values, strides, rows, wt)
        dist = _levenshtein(a, la, b, lb)
        if self.normalize:
            lbf = prim("Cast")(lb, _C.float64)
            both_empty = prim("LogicalAnd")(prim("Equal")(la, 0), prim("Equal")(lb, 0))
            dist = prim("Select")(both_empty, prim("ZerosLike")(dist), prim("Div")(dist, lbf))
        return prim("Reshape")(prim("Cast")(dist, _C.float32), out)


# ------------------------------------------------------------------ ExtractVolumePatches
def _triple(op, name, v):
    """kernel_size / strides: an int, 3 ints (d, h, w) or 5 ints (1, 1, d, h, w)."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v, v, v)
    if not isinstance(v, (tuple, list)) or len(v) not in (3, 5) or \
            any(isinstance(e, bool) or not isinstance(e, int) for e in v):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple/list of 3 or 5 ints, "
                        f"but got {v!r}.")
    if len(v) == 5:
        if v[0] != 1 or v[1] != 1:
            raise ValueError(f"For '{op}', the first two entries of '{name}' must be 1, but got "
                             f"{tuple(v)}.")
        v = v[2:]
    if min(v) < 1:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {tuple(v)}.")
    return tuple(v)


@constexpr
def _volume_plan(shape, ks, st, padding):
    if len(shape) != 5:
        raise ValueError(f"For 'ExtractVolumePatches', the input must be 5-D (N, C, D, H, W), "
                         f"but got shape {tuple(shape)}.")
    spatial = tuple(shape[2:])
    if padding == "VALID":
        out = tuple((n - k) // s + 1 if n >= k else 0 for n, k, s in zip(spatial, ks, st))
        pads = ((0, 0),) * 3
    else:
        out = tuple(-(-n // s) for n, s in zip(spatial, st))
        total = tuple(max((o - 1) * s + k - n, 0) for o, s, k, n in zip(out, st, ks, spatial))
        pads = tuple((t // 2, t - t // 2) for t in total)
    if min(out) < 1:
        raise ValueError(f"For 'ExtractVolumePatches', the kernel {ks} does not fit the input "
                         f"of shape {tuple(shape)} with padding 'VALID'.")
    return out, pads


class ExtractVolumePatches(_Composed):
    """ExtractVolumePatches(kernel_size, strides, padding='VALID')(input_x): the kd x kh x kw
    patches of input_x (N, C, D, H, W) at the given strides as (N, kd * kh * kw * C, oD, oH,
    oW): channel ((i * kh + j) * kw + l) * C + c holds input[n, c, d * sd + i, h * sh + j,
    w * sw + l] (TensorFlow's extract_volume_patches order, the channel fastest). padding
    'VALID' takes whole patches; 'SAME' gives ceil(n / s) positions per axis, zero-padded
    with the smaller half of the padding before. kernel_size and strides are an int, 3 ints
    or 5 ints (1, 1, d, h, w)."""

    def __init__(self, kernel_size, strides, padding="VALID"):
        op = "ExtractVolumePatches"
        self.kernel_size = _triple(op, "kernel_size", kernel_size)
        self.strides = _triple(op, "strides", strides)
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"For '{op}', 'padding' must be 'VALID' or 'SAME', but got "
                             f"{padding!r}.")
        self.padding = padding.upper()
        super().__init__(kernel_size=self.kernel_size, strides=self.strides,
                         padding=self.padding)

    def __call__(self, input_x):
        ks, st = self.kernel_size, self.strides
        out, pads = _volume_plan(input_x.shape, ks, st, self.padding)
        x = input_x
        if self.padding == "SAME":
            x = _a.pad(x, (pads[2][0], pads[2][1], pads[1][0], pads[1][1], pads[0][0],
                           pads[0][1]))
        n, c = x.shape[0], x.shape[1]
        pieces = ()
        for i in range(ks[0]):
            for j in range(ks[1]):
                for k in range(ks[2]):
                    begin = (0, 0, i, j, k)
                    end = (n, c, i + (out[0] - 1) * st[0] + 1, j + (out[1] - 1) * st[1] + 1,
                           k + (out[2] - 1) * st[2] + 1)
                    pieces = pieces + (_a.strided_slice(x, begin, end, (1, 1) + st),)
        y = _a.stack(pieces, 1)  # (N, K, C, oD, oH, oW)
        return _a.reshape(y, (n, len(pieces) * c) + out)


# ---- MindSpore's array_ops classes of its ops test table (ut/python/ops/test_ops.py) ------

@constexpr
def _segment_check(op, x_shape, ids_shape, ids_dtype):
    if ids_dtype not in (_C.int32, _C.int64) or len(ids_shape) != 1:
        raise TypeError(f"For '{op}', 'segment_ids' must be a 1-D int32 or int64 tensor, but got "
                        f"shape {tuple(ids_shape)} and {ids_dtype}.")
    if len(x_shape) < 1 or x_shape[0] != ids_shape[0]:
        raise ValueError(f"For '{op}', 'segment_ids' must have input_x's first dimension "
                         f"({x_shape[0] if x_shape else None}), but got shape "
                         f"{tuple(ids_shape)}.")


def _segment_count(op, segment_ids):
    """The number of segments, segment_ids[-1] + 1 after checking the ids are sorted and
    non-negative: the output's length depends on the ids' values (PYNATIVE only; GRAPH mode
    refuses reading them)."""
    ids = segment_ids.asnumpy()
    if ids.size and (ids[0] < 0 or np.any(ids[1:] < ids[:-1])):
        raise ValueError(f"For '{op}', 'segment_ids' must be sorted and non-negative, but got "
                         f"{ids.tolist()}.")
    return int(ids[-1]) + 1 if ids.size else 0


class _Segment(_Composed):
    """Segment reductions over sorted segment_ids along the first dimension (TensorFlow's
    segment_* ops): output[i] reduces the rows whose id is i; a segment no row belongs to gives
    0 (1 for the product)."""
    _reduce = None
    _empty = 0.0

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, segment_ids):
        op = self.name
        _check_tensor(op, "input_x", input_x, (_C.float16, _C.float32, _C.float64, _C.int32,
                                                 _C.int64))
        _check_tensor(op, "segment_ids", segment_ids, (_C.int32, _C.int64))
        _segment_check(op, input_x.shape, segment_ids.shape, segment_ids.dtype)
        n = _segment_count(op, segment_ids)
        ids = _a.cast(segment_ids, _C.int32)
        count = _seg.unsorted_segment_sum(_a.ones((input_x.shape[0],), _C.float32), ids, n)
        out = self._combine(input_x, ids, n, count)
        empty = _a.reshape(count == 0, (n,) + (1,) * (input_x.ndim - 1))
        fill = _a.full_like(out, self._empty)
        return _prim("Select")(_a.broadcast_to(empty, out.shape), fill, out)


@_export
class SegmentSum(_Segment):
    """SegmentSum()(input_x, segment_ids): the sums of the segments of sorted segment_ids."""

    def _combine(self, x, ids, n, count):
        return _seg.unsorted_segment_sum(x, ids, n)


@_export
class SegmentMax(_Segment):
    """SegmentMax()(input_x, segment_ids): the maxima of the segments (0 where empty)."""

    def _combine(self, x, ids, n, count):
        return _seg.unsorted_segment_max(x, ids, n)


@_export
class SegmentMin(_Segment):
    """SegmentMin()(input_x, segment_ids): the minima of the segments (0 where empty)."""

    def _combine(self, x, ids, n, count):
        return _seg.unsorted_segment_min(x, ids, n)


@_export
class SegmentProd(_Segment):
    """SegmentProd()(input_x, segment_ids): the products of the segments (1 where empty)."""
    _empty = 1.0

    def _combine(self, x, ids, n, count):
        return _seg.unsorted_segment_prod(x, ids, n)


@_export
class SegmentMean(_Segment):
    """SegmentMean()(input_x, segment_ids): the means of the segments (0 where empty; an int
    input's mean is truncated as its dtype's division)."""

    def _combine(self, x, ids, n, count):
        total = _seg.unsorted_segment_sum(x, ids, n)
        c = _a.reshape(_prim("Maximum")(count, 1.0), (n,) + (1,) * (x.ndim - 1))
        if x.dtype in (_C.int32, _C.int64):
            return _prim("FloorDiv")(total, _a.cast(c, x.dtype))
        return total / _a.cast(c, x.dtype)


@_export
class IdentityN(_Composed):
    """IdentityN()(x): the list or tuple of tensors x itself."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        if not isinstance(x, (list, tuple)) or not all(isinstance(t, _C.Tensor) for t in x):
            raise TypeError(f"For 'IdentityN', 'x' must be a list or tuple of Tensors, but got "
                            f"{type(x).__name__}.")
        return x


@_export
class RangeV2(_Composed):
    """RangeV2(maxlen=1000000)(start, limit, delta): [start, limit) by delta in the inputs'
    dtype (0-D tensors of one dtype); the length depends on the values (PYNATIVE mode) and must
    not exceed maxlen."""

    def __init__(self, maxlen=1000000):
        if isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen <= 0:
            raise ValueError(f"For 'RangeV2', 'maxlen' must be a positive int, but got "
                             f"{maxlen!r}.")
        super().__init__(maxlen=maxlen)
        self.maxlen = maxlen

    def __call__(self, start, limit, delta):
        vals = []
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            if not isinstance(v, _C.Tensor) or v.ndim != 0 or v.dtype != start.dtype:
                raise TypeError(f"For 'RangeV2', '{name}' must be a 0-D tensor of start's dtype, "
                                f"but got {getattr(v, 'dtype', type(v).__name__)}.")
            vals.append(v.asnumpy().item())
        lo, hi, step = vals
        if step == 0 or (hi - lo) * step < 0:
            raise ValueError(f"For 'RangeV2', delta must be non-zero and point from start to "
                             f"limit, but got start {lo}, limit {hi}, delta {step}.")
        n = int(np.ceil((hi - lo) / step))
        if n > self.maxlen:
            raise ValueError(f"For 'RangeV2', the output length {n} exceeds maxlen "
                             f"{self.maxlen}.")
        return _C.Tensor(np.arange(lo, hi, step)[:n].astype(start.asnumpy().dtype))


@_export
class Expand(_Composed):
    """Expand()(x, shape): x broadcast to shape (a 1-D int tensor, or a tuple), as
    ops.broadcast_to; a tensor shape is read when the op runs."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, shape):
        _check_tensor("Expand", "x", x, (_C.float16, _C.float32, _C.float64, _C.int8,
                                         _C.int16, _C.int32, _C.int64, _C.uint8, _C.bool))
        return _a.broadcast_to(x, shape_arg(shape, "Expand"))


@_export
class CheckNumerics(_Composed):
    """CheckNumerics()(x): x itself, after checking it holds no NaN or Inf (a RuntimeError
    naming the op if it does); the check reads the values (PYNATIVE mode)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        _check_tensor("CheckNumerics", "x", x, (_C.float16, _C.float32, _C.float64))
        v = x.asnumpy()
        if not np.isfinite(v).all():
            raise RuntimeError(f"For 'CheckNumerics', the input holds NaN or Inf values "
                               f"({int(np.isnan(v).sum())} NaN, {int(np.isinf(v).sum())} "
                               f"Inf).")
        return x


@_export
class UnravelIndex(_Composed):
    """UnravelIndex()(indices, dims): the coordinates in an array of shape dims of each flat
    index (TensorFlow's layout: [len(dims)] for a 0-D indices, [len(dims), N] for 1-D);
    int32 or int64. dims must be positive and every index in [0, prod(dims)) (a ValueError):
    the check reads the values, so the op runs in PYNATIVE mode."""

    def __init__(self):
        super().__init__()

    def __call__(self, indices, dims):
        _check_tensor("UnravelIndex", "indices", indices, (_C.int32, _C.int64))
        _check_tensor("UnravelIndex", "dims", dims, (indices.dtype,))
        _unravel_check(indices.shape, dims.shape)
        iv, dv = indices.asnumpy(), dims.asnumpy()
        if (dv <= 0).any() or (iv < 0).any() or (iv >= np.prod(dv.astype(np.float64))).any():
            raise ValueError(f"For 'UnravelIndex', 'dims' must be positive and 'indices' in "
                             f"[0, prod(dims)), but got dims {dv.tolist()} and indices "
                             f"{iv.tolist()}.")
        n = dims.shape[0]
        d = _a.cast(dims, _C.int64)
        strides = []
        acc = None
        for k in range(n - 1, -1, -1):
            strides.insert(0, acc)
            dk = _prim("Gather")(d, _int_tensor(k), 0)
            acc = dk if acc is None else acc * dk
        idx = _a.cast(indices, _C.int64)
        coords = []
        for k in range(n):
            dk = _prim("Gather")(d, _int_tensor(k), 0)
            q = idx if strides[k] is None else _prim("FloorDiv")(idx, strides[k])
            coords.append(_prim("FloorMod")(q, dk))
        return _a.cast(_prim("Stack", axis=0)(tuple(coords)), indices.dtype)


@constexpr
def _unravel_check(i_shape, d_shape):
    if len(i_shape) > 1 or len(d_shape) != 1 or d_shape[0] < 1:
        raise ValueError(f"For 'UnravelIndex', 'indices' must be 0-D or 1-D and 'dims' a "
                         f"non-empty 1-D tensor, but got shapes {tuple(i_shape)} and "
                         f"{tuple(d_shape)}.")


@constexpr
def _int_tensor(k):
    return _C.Tensor(np.array(k, np.int32))
