"""Triangles, flips and rolls (MindSpore 2.x names), composed from op-table primitives so that
both modes and gradients come from theirs: tril/triu select with a constant mask, flip is a
StridedSlice with stride -1, roll a Concat of two slices per rolled axis."""
from functools import lru_cache

import numpy as _np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr


@lru_cache(maxsize=256)
def _diagonals_mask(m, n, lo, hi):
    """[m, n] bool: True where lo <= j - i <= hi (None: no bound on that side)."""
    i, j = _np.ogrid[:m, :n]
    keep = _np.ones((m, n), bool)
    if lo is not None:
        keep &= j - i >= lo
    if hi is not None:
        keep &= j - i <= hi
    return _C.Tensor(keep)


def _check_matrix_arg(shape, op, **ints):
    if len(shape) < 2:
        raise ValueError(f"For '{op}', the input must have at least 2 dimensions, but got "
                         f"shape {tuple(shape)}.")
    for name, v in ints.items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For '{op}', the '{name}' must be an int, but got {v!r}.")


@constexpr
def _tri_mask(shape, diagonal, op):
    _check_matrix_arg(shape, op, diagonal=diagonal)
    lower = op == "tril"
    return _diagonals_mask(shape[-2], shape[-1], None if lower else diagonal,
                           diagonal if lower else None)


def tril(input, diagonal=0):  # noqa: A002 (MindSpore's argument names)
    """The lower triangle of the last two dims (batched): input[..., i, j] where
    j - i <= diagonal, else 0."""
    x = as_tensor(input)
    return prim("Select")(_tri_mask(x.shape, diagonal, "tril"), x, prim("ZerosLike")(x))


def triu(input, diagonal=0):  # noqa: A002
    """The upper triangle of the last two dims (batched): input[..., i, j] where
    j - i >= diagonal, else 0."""
    x = as_tensor(input)
    return prim("Select")(_tri_mask(x.shape, diagonal, "triu"), x, prim("ZerosLike")(x))


@constexpr
def _band_mask(shape, lower, upper):
    _check_matrix_arg(shape, "matrix_band_part", lower=lower, upper=upper)
    return _diagonals_mask(shape[-2], shape[-1], -lower if lower >= 0 else None,
                           upper if upper >= 0 else None)


def matrix_band_part(x, lower, upper):
    """The band of the last two dims (batched): x[..., i, j] where i - j <= lower and
    j - i <= upper, else 0; a negative bound keeps that whole triangle (lower=-1, upper=0
    is tril, lower=0, upper=-1 is triu)."""
    x = as_tensor(x)
    return prim("Select")(_band_mask(x.shape, lower, upper), x, prim("ZerosLike")(x))


@constexpr
def _padding_widths(shape, pad_dim_size):
    if isinstance(pad_dim_size, bool) or not isinstance(pad_dim_size, int):
        raise TypeError(f"For 'padding', the 'pad_dim_size' must be an int, but got "
                        f"{pad_dim_size!r}.")
    if len(shape) < 1 or shape[-1] != 1:
        raise ValueError(f"For 'padding', the last dimension of the input must be 1, but got "
                         f"shape {tuple(shape)}.")
    if pad_dim_size < 1:
        raise ValueError(f"For 'padding', the 'pad_dim_size' must be at least 1, but got "
                         f"{pad_dim_size}.")
    return (0, 0) * (len(shape) - 1) + (0, pad_dim_size - 1)


def padding(x, pad_dim_size=8):
    """Extends the last dim of x (which must be 1) to pad_dim_size with zeros after the
    element (MindSpore's ops.padding)."""
    x = as_tensor(x)
    return prim("Pad", paddings=_padding_widths(x.shape, pad_dim_size), value=0.0)(x)


@constexpr
def _norm_dims(ndim, dims, op, name):
    """dims (an int or a sequence of ints) as a tuple of distinct axes in [0, ndim)."""
    seq = (dims,) if isinstance(dims, int) else tuple(dims)
    out = []
    for d in seq:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"For '{op}', the '{name}' must hold ints, but got {dims!r}.")
        lo, hi = (-ndim, ndim) if ndim > 0 else (-1, 1)
        if not lo <= d < hi:
            raise ValueError(f"For '{op}', each of '{name}' must be in range [{lo}, {hi}), but "
                             f"got {d}.")
        d = d % max(ndim, 1)
        if d in out:
            raise ValueError(f"For '{op}', the '{name}' must not repeat an axis, but got "
                             f"{dims!r}.")
        out.append(d)
    return tuple(out)


@constexpr
def _flip_attrs(ndim, axes):
    strides = tuple(-1 if d in axes else 1 for d in range(ndim))
    return (0,) * ndim, (0,) * ndim, strides, (1 << ndim) - 1


def flip(input, dims):  # noqa: A002
    """input with the order of the elements reversed along each axis in dims."""
    x = as_tensor(input)
    axes = _norm_dims(x.ndim, dims, "flip", "dims")
    if x.ndim == 0 or not axes:
        return x
    begin, end, strides, mask = _flip_attrs(x.ndim, axes)
    return prim("StridedSlice", begin_mask=mask, end_mask=mask)(x, begin, end, strides)


@constexpr
def _roll_plan(shape, shifts, dims):
    """The (axis, split point) pairs of a roll: each rolled axis is cut at n - shift % n and
    its two pieces swapped; axes whose shift is a multiple of their size are left out."""
    ndim = len(shape)
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    for s in sh:
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(f"For 'roll', the 'shifts' must hold ints, but got {shifts!r}.")
    if dims is None:
        if len(sh) != 1:
            raise ValueError(f"For 'roll', without 'dims' the 'shifts' must be one int, but got "
                             f"{shifts!r}.")
        n = 1
        for v in shape:
            n *= v
        return ((0, n - sh[0] % n),) if n and sh[0] % n else ()
    ds = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(ds) != len(sh):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have the same length, but got "
                         f"{shifts!r} and {dims!r}.")
    plan = []
    for s, d in zip(sh, ds):
        a = _norm_dims(ndim, d, "roll", "dims")[0]
        n = shape[a]
        if n and s % n:
            plan.append((a, n - s % n))
    return tuple(plan)


@constexpr
def _piece(ndim, axis, start, stop):
    """StridedSlice's begin, end, strides and masks for [start:stop] along axis."""
    begin = tuple(start if d == axis else 0 for d in range(ndim))
    end = tuple(stop if d == axis else 0 for d in range(ndim))
    mask = ((1 << ndim) - 1) & ~(1 << axis)
    return begin, end, (1,) * ndim, mask


def _slice(x, axis, start, stop):
    begin, end, strides, mask = _piece(x.ndim, axis, start, stop)
    return prim("StridedSlice", begin_mask=mask, end_mask=mask)(x, begin, end, strides)


def roll(input, shifts, dims=None):  # noqa: A002
    """input with its elements shifted by shifts[i] positions along dims[i] (wrapping
    around); dims None: along the flattened tensor, keeping its shape."""
    x = as_tensor(input)
    if x.ndim == 0:
        _roll_plan((1,), shifts, None if dims is None else 0)
        return x
    shape = x.shape
    plan = _roll_plan(shape, shifts, dims)
    y = prim("Reshape")(x, (-1,)) if dims is None else x
    for axis, cut in plan:
        n = y.shape[axis]
        y = prim("Concat", axis=axis)((_slice(y, axis, cut, n), _slice(y, axis, 0, cut)))
    return prim("Reshape")(y, shape) if dims is None else y


__all__ = ["tril", "triu", "flip", "roll", "matrix_band_part", "padding"]
