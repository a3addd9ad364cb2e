"""mindspore.numpy's array manipulation with numpy's semantics where mycel.ops differs:
concatenate (axis=None joins the flattened arrays; mixed dtypes promote), where and select
(any condition counts by truth value; where(condition) alone is nonzero), roll (shifts and
axes broadcast against each other, repeated axes add up), tile (fewer repetitions than
dimensions prepend ones), apply_along_axis (the function's output dimensions replace the
axis), unravel_index (an int shape), argwhere (a 0-d input is an error), intersect1d
(flattened, return_indices) and unique (numpy's return_index / return_inverse /
return_counts). unique, argwhere and intersect1d run eagerly (their size depends on the
data)."""
import numbers as _numbers

import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy.creations import asarray as _asarray
from mycel.ops.primitive import constexpr as _constexpr


def _truth(c):
    """c as a bool tensor (numpy's truth value: nonzero)."""
    c = _asarray(c)
    return c if c.dtype == getattr(_C, "bool") else _ops.not_equal(c, 0)


@_constexpr
def _promoted(dtypes):
    out = dtypes[0]
    for d in dtypes[1:]:
        out = _C.promote_types(out, d)
    return out


def concatenate(arrays, axis=0):
    """arrays joined along axis (axis None: the flattened arrays); dtypes promote."""
    if isinstance(arrays, _C.Tensor):
        arrays = tuple(arrays[i] for i in range(arrays.shape[0]))
    ts = tuple(_asarray(a) for a in arrays)
    dtype = _promoted(tuple(t.dtype for t in ts))
    if axis is None:
        ts = tuple(_ops.reshape(t, (-1,)) for t in ts)
        axis = 0
    return _ops.cat(tuple(t.astype(dtype) for t in ts), axis)


def where(condition, x=None, y=None):
    """x where condition holds (its truth value), else y; condition alone: nonzero's
    indices."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("For 'where', give both x and y, or neither.")
    x, y = _asarray(x), _asarray(y)
    dtype = _promoted((x.dtype, y.dtype))
    return _ops.where(_truth(condition), x.astype(dtype), y.astype(dtype))


def nonzero(a):
    """The indices of a's nonzero elements, one tensor per dimension (eager)."""
    a = _asarray(a)
    if a.ndim == 0:
        raise ValueError("For 'nonzero', the input must have at least one dimension.")
    idx = _ops.argwhere(_truth(a))
    return tuple(idx[:, i] for i in range(a.ndim))


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds (by truth value), else
    default."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"For 'select', condlist and choicelist must have the same length, "
                         f"but got {len(condlist)} and {len(choicelist)}.")
    if not len(condlist):
        raise ValueError("For 'select', condlist must not be empty.")
    choices = [_asarray(c) for c in choicelist]
    dtype = _promoted(tuple(c.dtype for c in choices))
    out = _asarray(default).astype(dtype)
    for i in range(len(choices) - 1, -1, -1):
        out = _ops.where(_truth(condlist[i]), choices[i].astype(dtype), out)
    return out


@_constexpr
def _roll_plan(shift, axis, ndim):
    """{axis: total shift} from numpy's broadcast of shift against axis."""
    shifts = _np.atleast_1d(_np.asarray(shift))
    axes = _np.atleast_1d(_np.asarray(axis))
    try:
        shifts, axes = _np.broadcast_arrays(shifts, axes)
    except ValueError:
        raise ValueError(f"For 'roll', shift {shift!r} and axis {axis!r} must broadcast "
                         f"against each other.") from None
    total = {}
    for s, ax in zip(shifts.tolist(), axes.tolist()):
        if not -ndim <= ax < ndim:
            raise ValueError(f"For 'roll', axis {ax} is out of range for {ndim} dimensions.")
        total[ax % ndim] = total.get(ax % ndim, 0) + int(s)
    return tuple(sorted(total.items()))


def roll(a, shift, axis=None):
    """Elements shifted along axis (of the flattened array when None), wrapping around;
    shift and axis may be sequences broadcast against each other (numpy.roll)."""
    a = _asarray(a)
    if axis is None:
        flat = _ops.reshape(a, (-1,))
        plan = _roll_plan(shift, 0, 1)
        return _ops.reshape(_ops.roll(flat, plan[0][1], 0), tuple(a.shape))
    for ax, s in _roll_plan(shift, axis, a.ndim):
        n = a.shape[ax]
        if n and s % n:
            a = _ops.roll(a, s % n, ax)
    return a


def tile(A, reps):  # noqa: N803 (numpy's name)
    """A repeated reps times per axis; reps shorter than A's rank repeat the last axes, longer
    ones give A leading dimensions of 1 (numpy.tile)."""
    a = _asarray(A)
    reps = (reps,) if isinstance(reps, _numbers.Integral) else tuple(reps)
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    elif len(reps) > a.ndim:
        a = _ops.reshape(a, (1,) * (len(reps) - a.ndim) + tuple(a.shape))
    return _ops.tile(a, reps)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to the 1-d slices of arr along axis; its output's dimensions take the
    axis's place (numpy.apply_along_axis)."""
    arr = _asarray(arr)
    nd = arr.ndim
    axis = axis % nd
    moved = _ops.moveaxis(arr, axis, -1)
    lead = tuple(moved.shape[:-1])
    flat = _ops.reshape(moved, (-1, moved.shape[-1]))
    res = [_asarray(func1d(flat[i], *args, **kwargs)) for i in range(flat.shape[0])]
    out = _ops.stack(tuple(res), 0)
    k = out.ndim - 1  # the function's output dimensions
    out = _ops.reshape(out, lead + tuple(out.shape[1:]))
    if k == 0:
        return out
    perm = tuple(range(axis)) + tuple(range(nd - 1, nd - 1 + k)) + tuple(range(axis, nd - 1))
    return _ops.transpose(out, perm)


def unravel_index(indices, shape, order="C"):
    """The coordinates of flat indices in an array of shape (an int or a tuple), a tuple of
    tensors (numpy.unravel_index)."""
    if order not in ("C", "F"):
        raise ValueError(f"For 'unravel_index', order must be 'C' or 'F', but got {order!r}.")
    dims = (shape,) if isinstance(shape, _numbers.Integral) else tuple(shape)
    idx = _asarray(indices).astype(_C.int64)
    n = len(dims)
    order_dims = dims if order == "C" else dims[::-1]
    coords = [None] * n
    for j in range(n - 1, -1, -1):
        coords[j] = _ops.remainder(idx, order_dims[j])
        idx = _ops.floor_divide(idx, order_dims[j])
    return tuple(coords) if order == "C" else tuple(coords[::-1])


def argwhere(a):
    """The indices of the non-zero elements, one row each (a must have a dimension)."""
    if a is None or isinstance(a, (str, bytes)):
        raise TypeError(f"For 'argwhere', the input must be a Tensor, but got "
                        f"{type(a).__name__}.")
    a = _asarray(a)
    if a.ndim == 0:
        raise ValueError("For 'argwhere', the input must have at least one dimension, but got "
                         "a 0-d tensor.")
    return _ops.argwhere(_truth(a))


def _check_bool(value, arg, name):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', {arg} must be a bool, but got {value!r}.")


def _np_1d(a, name):
    if not isinstance(a, (_C.Tensor, list, tuple, _np.ndarray, _numbers.Number)):
        raise TypeError(f"For '{name}', the inputs must be Tensors, but got "
                        f"{type(a).__name__}.")
    return _asarray(a).asnumpy().reshape(-1)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values in both arrays (flattened), with their first indices in each
    when return_indices (eager)."""
    _check_bool(assume_unique, "assume_unique", "intersect1d")
    _check_bool(return_indices, "return_indices", "intersect1d")
    a, b = _np_1d(ar1, "intersect1d"), _np_1d(ar2, "intersect1d")
    dtype = _promoted((_asarray(ar1).dtype, _asarray(ar2).dtype))
    ua, ia = _np.unique(a, return_index=True) if not assume_unique else (a, _np.arange(a.size))
    ub, ib = _np.unique(b, return_index=True) if not assume_unique else (b, _np.arange(b.size))
    both = _np.concatenate((ua, ub))
    order = _np.argsort(both, kind="mergesort")
    s = both[order]
    hit = s[1:] == s[:-1]
    values = s[:-1][hit]
    out = _C.Tensor(values).astype(dtype)
    if not return_indices:
        return out
    i1 = ia[order[:-1][hit]]
    i2 = ib[order[1:][hit] - ua.size]
    return out, _C.Tensor(i1.astype(_np.int32)), _C.Tensor(i2.astype(_np.int32))


def unique(x, return_index=False, return_inverse=False, return_counts=False):
    """The sorted unique elements of the flattened x, with the first indices, the inverse
    indices and the counts as asked (numpy.unique; eager)."""
    t = _asarray(x)
    res = _np.unique(t.asnumpy().reshape(-1), return_index=return_index,
                     return_inverse=return_inverse, return_counts=return_counts)
    if not isinstance(res, tuple):
        return _C.Tensor(res).astype(t.dtype)
    out = [_C.Tensor(res[0]).astype(t.dtype)]
    out += [_C.Tensor(r.astype(_np.int32)) for r in res[1:]]
    return tuple(out)
