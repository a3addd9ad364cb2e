"""index_add / inplace_index_add (MindSpore's ops.index_add, F.inplace_index_add): adds the
slices of `updates` to `x` at positions `indices` along `axis`, repeated indices accumulating.
The sums per position are one UnsortedSegmentSum over `axis` moved to the front; the result
is written into x with Assign (x a Parameter or a tensor) and returned. repeat_interleave
(ops.repeat_interleave, Tensor.repeat_interleave) is a Gather along the axis through a
constant index table."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, host_bytes, tensor_arg
from mycel.ops.primitive import constexpr


@constexpr
def _index_add_axes(x_shape, idx_shape, upd_shape, axis, op):
    nd = len(x_shape)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -nd <= axis < nd:
        raise ValueError(f"For '{op}', the 'axis' must be an int in [{-nd}, {nd}), but got "
                         f"{axis!r}.")
    axis = axis % nd
    if len(idx_shape) != 1:
        raise ValueError(f"For '{op}', the 'indices' must be 1-D, but got shape "
                         f"{tuple(idx_shape)}.")
    want = tuple(x_shape[:axis]) + (idx_shape[0],) + tuple(x_shape[axis + 1:])
    if tuple(upd_shape) != want:
        raise ValueError(f"For '{op}', the 'updates' must have shape {want} (x's with axis "
                         f"{axis} the length of indices), but got {tuple(upd_shape)}.")
    perm = (axis,) + tuple(d for d in range(nd) if d != axis)
    inv = tuple(perm.index(d) for d in range(nd))
    return axis, perm, inv


def index_add(x, indices, updates, axis, use_lock=True, check_index_bound=True):
    """x[..., indices[i], ...] += updates[..., i, ...] along axis, in place; returns x."""
    return _index_add(x, indices, updates, axis, "index_add")


def inplace_index_add(var, indices, updates, axis):  # noqa: D103 (the same, MindSpore's name)
    return _index_add(var, indices, updates, axis, "inplace_index_add")


def _index_add(x, indices, updates, axis, op):
    idx = as_tensor(indices)
    upd = prim("Cast", dtype=x.dtype)(as_tensor(updates))
    axis, perm, inv = _index_add_axes(x.shape, idx.shape, upd.shape, axis, op)
    sums = prim("UnsortedSegmentSum")(prim("Transpose")(upd, perm), idx, x.shape[axis])
    prim("Assign")(x, prim("Add")(x, prim("Transpose")(sums, inv)))
    return x


__all__ = ["index_add", "inplace_index_add"]


@constexpr
def _repeat_plan(shape, repeats, dim, op):
    """(the axis, the Gather index table) of repeat_interleave; repeats an int or a sequence
    (or constant tensor) of one count per element of the axis."""
    nd = len(shape)
    if not isinstance(dim, int) or isinstance(dim, bool) or not -nd <= dim < nd:
        raise ValueError(f"For '{op}', the 'dim' must be an int in [{-nd}, {nd}), but got "
                         f"{dim!r}.")
    dim %= nd
    if isinstance(repeats, _C.Tensor):
        repeats = repeats.asnumpy().reshape(-1).tolist()
    counts = np.broadcast_to(np.asarray(repeats, np.int64).reshape(-1), (shape[dim],)) \
        if np.size(repeats) == 1 else np.asarray(repeats, np.int64)
    if counts.shape != (shape[dim],) or (counts < 0).any():
        raise ValueError(f"For '{op}', the 'repeats' must be a non-negative int or one count per "
                         f"element of dim {dim} ({shape[dim]}), but got {repeats!r}.")
    host_bytes(op, 8 * sum(int(c) for c in counts))  # Python ints: no int64 wrap-around
    return dim, _C.Tensor(np.repeat(np.arange(shape[dim], dtype=np.int64), counts))


def repeat_interleave(input, repeats, dim=None, *, output_size=None):  # noqa: A002
    """Each element of `dim` repeated `repeats` times in place (the flattened input when dim
    is None): one Gather through a constant index table."""
    x = as_tensor(input)
    if dim is None:
        x = prim("Reshape")(x, (-1,))
        dim = 0
    axis, index = _repeat_plan(x.shape, repeats, dim, "repeat_interleave")
    return prim("Gather")(x, index, axis)


__all__ += ["repeat_interleave"]


@constexpr
def _scatter_plan(x_shape, idx_shape, src_shape, axis, op):
    """(axis, the other coordinates [*idx_shape, ndim] with the axis's column 0, the one-hot
    column selecting it, src's slice bounds)."""
    nd = len(x_shape)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -nd <= axis < nd:
        raise ValueError(f"For '{op}', the 'axis' must be an int in [{-nd}, {nd}), but got "
                         f"{axis!r}.")
    axis %= nd
    if len(idx_shape) != nd or len(src_shape) != nd or any(
            i > s for i, s in zip(idx_shape, src_shape)) or any(
            i > s for d, (i, s) in enumerate(zip(idx_shape, x_shape)) if d != axis):
        raise ValueError(f"For '{op}', the index {tuple(idx_shape)} must have the rank of the "
                         f"input {tuple(x_shape)} and of src {tuple(src_shape)}, and fit in "
                         f"both (but along the axis in the input).")
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in idx_shape], indexing="ij")
    coords = np.stack(grids, -1) if grids else np.zeros((0,), np.int64)
    coords[..., axis] = 0
    onehot = np.zeros(nd, np.int64)
    onehot[axis] = 1
    return axis, _C.Tensor(coords), _C.Tensor(onehot), tuple(idx_shape)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """input_x with input_x[..., indices[i, j], ...] (indices along `axis`) set to
    updates[i, j] (reduction 'none') or added ('add'); the other coordinates are the
    elements' own. A position named twice takes one of its updates."""
    if reduction not in ("none", "add"):
        raise ValueError(f"For 'tensor_scatter_elements', the 'reduction' must be 'none' or "
                         f"'add', but got {reduction!r}.")
    x = as_tensor(input_x)
    idx = prim("Cast", dtype=_C.int64)(as_tensor(indices))
    src = prim("Cast", dtype=x.dtype)(as_tensor(updates))
    axis, coords, onehot, bounds = _scatter_plan(x.shape, idx.shape, src.shape, axis,
                                                 "tensor_scatter_elements")
    full = prim("Add")(coords, prim("Mul")(prim("ExpandDims")(idx, -1), onehot))
    if src.shape != bounds:
        src = prim("StridedSlice")(src, (0,) * len(bounds), bounds, (1,) * len(bounds))
    if reduction == "add":
        return prim("Add")(x, prim("ScatterNd")(full, src, x.shape))
    return prim("TensorScatterUpdate")(x, full, src)


def scatter(input, axis, index, src):  # noqa: A002 (MindSpore's argument names)
    """ops.scatter / Tensor.scatter: tensor_scatter_elements with reduction 'none' (src a
    tensor or a number)."""
    x = as_tensor(input)
    index = tensor_arg(index, "scatter", "index")
    if not isinstance(src, _C.Tensor):
        if isinstance(src, bool) or not isinstance(src, (int, float)):
            raise TypeError(f"For 'scatter', src must be a Tensor or a number, but got "
                            f"{type(src).__name__}.")
        src = prim("Fill")(x.dtype, index.shape, float(src))
    return tensor_scatter_elements(x, index, src, axis)


__all__ += ["tensor_scatter_elements", "scatter"]
