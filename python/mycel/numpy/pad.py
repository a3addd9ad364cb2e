"""mindspore.numpy.pad with numpy.pad's modes and semantics. Axes are padded one after the
other, each over the array the earlier axes already padded (numpy's order, which decides the
corners): 'constant' (constant_values per side), 'edge', 'wrap', 'reflect' / 'symmetric'
(reflect_type 'even' or 'odd'; widths past the array reflect the padded array again, as
numpy), the statistics 'maximum' / 'minimum' / 'mean' / 'median' over stat_length elements
next to each side, 'linear_ramp' (from end_values to the edge) and 'empty' (zeros here)."""
import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy.creations import asarray as _asarray
from mycel.ops.primitive import constexpr as _constexpr

_MODES = ("constant", "edge", "wrap", "reflect", "symmetric", "maximum", "minimum", "mean",
          "median", "linear_ramp", "empty")


@_constexpr
def _pairs(value, ndim, name, as_index):
    """value (a scalar, a pair or one pair per axis) as ndim (before, after) pairs."""
    if value is None:
        return ((None, None),) * ndim
    arr = _np.asarray(value, dtype=_np.int64 if as_index else _np.float64)
    try:
        arr = _np.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise ValueError(f"For 'pad', {name} must be a scalar, a (before, after) pair or one "
                         f"pair per axis ({ndim}), but got {value!r}.") from None
    if as_index and (arr < 0).any():
        raise ValueError(f"For 'pad', {name} must be non-negative, but got {value!r}.")
    return tuple((int(b), int(a)) if as_index else (float(b), float(a)) for b, a in arr)


def _slab(y, ax, width, value):
    shape = list(y.shape)
    shape[ax] = width
    return _ops.zeros(tuple(shape), y.dtype) + _C.Tensor(value).astype(y.dtype)


def _index_mode(y, ax, before, after, mode):
    n = y.shape[ax]
    i = _np.arange(-before, n + after)
    idx = _np.clip(i, 0, n - 1) if mode == "edge" else _np.mod(i, n)
    return _ops.gather(y, _C.Tensor(idx.astype(_np.int64)), ax)


def _reflect(y, ax, before, after, symmetric, odd):
    """numpy's chained reflection: each round mirrors at most the already padded length."""
    if y.shape[ax] == 1 and not symmetric:  # numpy's legacy rule: a singleton pads its edge
        return _index_mode(y, ax, before, after, "edge")
    e = 0 if symmetric else 1
    while before > 0 or after > 0:
        n = y.shape[ax]
        span = n - e
        parts = []
        if before > 0:
            k = min(span, before)
            chunk = _ops.flip(_ops.narrow(y, ax, e, k), (ax,))
            if odd:
                chunk = 2 * _ops.narrow(y, ax, 0, 1) - chunk
            parts.append(chunk)
            before -= k
        parts.append(y)
        if after > 0:
            k = min(span, after)
            chunk = _ops.flip(_ops.narrow(y, ax, n - e - k, k), (ax,))
            if odd:
                chunk = 2 * _ops.narrow(y, ax, n - 1, 1) - chunk
            parts.append(chunk)
            after -= k
        y = _ops.cat(tuple(parts), ax)
    return y


def _stat(part, ax, mode):
    if mode == "maximum":
        return _ops.amax(part, ax, True)
    if mode == "minimum":
        return _ops.amin(part, ax, True)
    pf = part if part.dtype.is_floating_point else part.astype(_C.float32)
    v = _ops.mean(pf, ax, True) if mode == "mean" else _ops.quantile(
        pf, 0.5, ax, True)
    return v if part.dtype.is_floating_point else _ops.rint(v).astype(part.dtype)


def _stat_mode(y, ax, before, after, mode, lengths):
    n = y.shape[ax]
    parts = []
    for side, width, length in ((0, before, lengths[0]), (1, after, lengths[1])):
        if width == 0:
            continue
        k = n if length is None else max(1, min(int(length), n))
        ref = _ops.narrow(y, ax, 0, k) if side == 0 else _ops.narrow(y, ax, n - k, k)
        shape = list(y.shape)
        shape[ax] = width
        parts.append((side, _ops.broadcast_to(_stat(ref, ax, mode), tuple(shape))))
    out = [p for s, p in parts if s == 0] + [y] + [p for s, p in parts if s == 1]
    return _ops.cat(tuple(out), ax)


def _ramp(edge, end, width, ax, dtype):
    """width values from end towards edge (excluded) along ax, numpy.linspace's arithmetic."""
    e64 = edge.astype(_C.float64)
    steps = _C.Tensor((_np.arange(width, dtype=_np.float64) / width))
    shape = [1] * edge.ndim
    shape[ax] = width
    y = end + _ops.reshape(steps, tuple(shape)) * (e64 - end)
    if not dtype.is_floating_point:
        y = _ops.floor(y)
    return y.astype(dtype)


def _linear_ramp(y, ax, before, after, ends):
    n = y.shape[ax]
    parts = []
    if before:
        parts.append(_ramp(_ops.narrow(y, ax, 0, 1), ends[0], before, ax, y.dtype))
    parts.append(y)
    if after:
        parts.append(_ops.flip(_ramp(_ops.narrow(y, ax, n - 1, 1), ends[1], after, ax,
                                     y.dtype), (ax,)))
    return _ops.cat(tuple(parts), ax)


def _pad_axis(y, ax, width, mode, opts):
    before, after = width
    if mode in ("constant", "empty"):
        values = opts["constant_values"][ax] if mode == "constant" else (0, 0)
        parts = ([_slab(y, ax, before, values[0])] if before else []) + [y] + (
            [_slab(y, ax, after, values[1])] if after else [])
        return _ops.cat(tuple(parts), ax) if len(parts) > 1 else y
    if y.shape[ax] == 0:
        raise ValueError(f"For 'pad', mode {mode!r} cannot pad axis {ax} of size 0 "
                         f"(shape {tuple(y.shape)}).")
    if mode in ("edge", "wrap"):
        return _index_mode(y, ax, before, after, mode)
    if mode in ("reflect", "symmetric"):
        return _reflect(y, ax, before, after, mode == "symmetric",
                        opts["reflect_type"] == "odd")
    if mode == "linear_ramp":
        return _linear_ramp(y, ax, before, after, opts["end_values"][ax])
    return _stat_mode(y, ax, before, after, mode, opts["stat_length"][ax])


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even"):
    """arr padded by pad_width ((before, after) per axis, one pair, or one int) as numpy.pad
    does in mode (see the module docstring)."""
    a = _asarray(arr)
    if callable(mode) or mode not in _MODES:
        raise ValueError(f"For 'pad', mode must be one of {', '.join(_MODES)}, but got "
                         f"{mode!r}.")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"For 'pad', reflect_type must be 'even' or 'odd', but got "
                         f"{reflect_type!r}.")
    widths = _pairs(pad_width, a.ndim, "pad_width", True)
    opts = {"reflect_type": reflect_type}
    if mode == "constant":
        opts["constant_values"] = _pairs(constant_values, a.ndim, "constant_values", False)
    if mode == "linear_ramp":
        opts["end_values"] = _pairs(end_values, a.ndim, "end_values", False)
    if mode in ("maximum", "minimum", "mean", "median"):
        opts["stat_length"] = _pairs(stat_length, a.ndim, "stat_length", True)
    y = a
    for ax in range(a.ndim):
        if widths[ax][0] or widths[ax][1]:
            y = _pad_axis(y, ax, widths[ax], mode, opts)
    return y
