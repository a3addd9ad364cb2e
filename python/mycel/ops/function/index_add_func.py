"""index_add / inplace_index_add (MindSpore's ops.index_add, F.inplace_index_add): adds the
slices of `updates` to `x` at positions `indices` along `axis`, repeated indices accumulating.
The sums per position are one UnsortedSegmentSum over `axis` moved to the front; the result
is written into x with Assign (x a Parameter or a tensor) and returned."""
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
