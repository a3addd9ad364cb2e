"""index_add / inplace_index_add (MindSpore's ops.index_add, F.inplace_index_add): adds the
slices of `updates` to `x` at positions `indices` along `axis`, repeated indices accumulating.
The sums per position are one UnsortedSegmentSum over `axis` moved to the front; the result
is written into x with Assign (x a Parameter or a tensor) and returned. repeat_interleave
(ops.repeat_interleave, Tensor.repeat_interleave) is a Gather along the axis through a
constant index table."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
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
