"""More of MindSpore 2.x's shape and selection functions, composed from table ops:
index_select, narrow, slice, moveaxis/movedim, swapdims, fliplr, flipud, unbind, diagonal."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import array_func as _a, layout_func as _l, compat_func as _c
from mycel.ops.primitive import constexpr

__all__ = ["index_select", "narrow", "moveaxis", "movedim", "swapdims", "fliplr", "flipud",
           "unbind", "diagonal", "slice"]


def index_select(input, axis, index):  # noqa: A002 (MindSpore's argument names)
    """The entries of input at the 1-d integer tensor index along axis."""
    x, idx = as_tensor(input), as_tensor(index)
    if idx.ndim != 1 or idx.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For 'index_select', index must be a 1-d int32 or int64 tensor, but "
                        f"got shape {list(idx.shape)} and dtype {idx.dtype}.")
    return prim("Gather")(x, idx, _a._check_axis(axis, x.ndim, "index_select"))


@constexpr
def _narrow_bounds(shape, axis, start, length):
    n = shape[axis]
    if not (isinstance(start, int) and isinstance(length, int)) or isinstance(start, bool):
        raise TypeError("For 'narrow', start and length must be ints.")
    if start < 0:
        start += n
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise ValueError(f"For 'narrow', start {start} and length {length} must lie in "
                         f"dimension {axis} of size {n}.")
    begin = [0] * len(shape)
    end = list(shape)
    begin[axis], end[axis] = start, start + length
    return tuple(begin), tuple(end), (1,) * len(shape)


def narrow(input, axis, start, length):  # noqa: A002
    """The slice [start, start + length) of input along axis."""
    x = as_tensor(input)
    b, e, s = _narrow_bounds(x.shape, _a._check_axis(axis, x.ndim, "narrow"), start, length)
    return prim("StridedSlice")(x, b, e, s)


@constexpr
def _move_perm(ndim, source, destination):
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"For 'moveaxis', source {src} and destination {dst} must have the "
                         f"same number of axes.")
    for a in src + dst:  # (a 0-d input divided by zero below: a bare ZeroDivisionError)
        if isinstance(a, bool) or not isinstance(a, int) or not -ndim <= a < ndim:
            raise ValueError(f"For 'moveaxis', each axis must be an int in "
                             f"[{-ndim}, {ndim}), but got {a!r}.")
    src = tuple(a % ndim for a in src)
    dst = tuple(a % ndim for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"For 'moveaxis', the axes must be distinct, but got {src} and {dst}.")
    rest = [a for a in range(ndim) if a not in src]
    perm = [None] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    return tuple(p if p is not None else next(it) for p in perm)


def moveaxis(x, source, destination):
    """x with the axes source moved to the positions destination (ints or tuples)."""
    x = as_tensor(x)
    return prim("Transpose")(x, _move_perm(x.ndim, source, destination))


movedim = moveaxis


def swapdims(input, dim0, dim1):  # noqa: A002
    """input with dims dim0 and dim1 exchanged (ops.swapaxes)."""
    return _a.swapaxes(input, dim0, dim1)


def fliplr(input):  # noqa: A002
    """input reversed along dimension 1."""
    return _l.flip(input, (1,))


def flipud(input):  # noqa: A002
    """input reversed along dimension 0."""
    return _l.flip(input, (0,))


def unbind(input, dim=0):  # noqa: A002
    """The slices of input along dim, as a tuple (ops.unstack)."""
    return _c.unstack(input, dim)


@constexpr
def _diagonal_plan(shape, offset, dim1, dim2):
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"For 'diagonal', the input must have at least 2 dimensions, but got "
                         f"shape {list(shape)}.")
    for name, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
        # (a float tensor offset was truncated silently in PYNATIVE; dims out of range wrapped)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For 'diagonal', '{name}' must be an int, but got "
                            f"{type(v).__name__}.")
    for name, v in (("dim1", dim1), ("dim2", dim2)):
        if not -nd <= v < nd:
            raise ValueError(f"For 'diagonal', '{name}' {v} is out of range for a tensor of "
                             f"rank {nd}.")
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise ValueError(f"For 'diagonal', dim1 and dim2 must differ, but both are {d1}.")
    perm = tuple(a for a in range(nd) if a not in (d1, d2)) + (d1, d2)
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        pos = np.arange(length, dtype=np.int64) * n2 + np.arange(length) + offset
    else:
        length = max(0, min(n1 + offset, n2))
        pos = (np.arange(length, dtype=np.int64) - offset) * n2 + np.arange(length)
    flat = tuple(shape[a] for a in perm[:-2]) + (n1 * n2,)
    return perm, flat, _C.Tensor(pos.astype(np.int64))


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """The diagonal of input over dims dim1 and dim2 (offset above the main one when
    positive, below when negative), as its last dimension."""
    x = as_tensor(input)
    perm, flat, pos = _diagonal_plan(x.shape, offset, dim1, dim2)
    rows = prim("Reshape")(prim("Transpose")(x, perm), flat)
    return prim("Gather")(rows, pos, len(flat) - 1)


@constexpr
def _slice_bounds(shape, begin, size):
    begin, size = tuple(begin), tuple(size)
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ValueError(f"For 'slice', begin {begin} and size {size} must have one entry per "
                         f"dimension of the input of shape {tuple(shape)}.")
    end = []
    for d, (b, n, s) in enumerate(zip(begin, shape, size)):
        e = n if s == -1 else b + s
        if not 0 <= b <= n or s < -1 or e > n:
            raise ValueError(f"For 'slice', begin {b} and size {s} do not fit dimension {d} of "
                             f"size {n}.")
        end.append(e)
    return begin, tuple(end), (1,) * len(shape)


def slice(input_x, begin, size):  # noqa: A001 (MindSpore's name)
    """The block of input_x starting at begin (a tuple) of size size (-1: to the end)."""
    x = as_tensor(input_x)
    b, e, s = _slice_bounds(x.shape, begin, size)
    return prim("StridedSlice")(x, b, e, s)
