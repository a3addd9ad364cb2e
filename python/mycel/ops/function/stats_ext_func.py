"""MindSpore 2.x functions composed from table ops: ``ops.mvlgamma`` (the multivariate
log-gamma) and the work of the ``ops.Median`` primitive (``median_values``: lower medians with NaN handling and the indices
where they sit). Both modes and gradients come from the ops they are built of.
"""
import math
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.function import sort_scan_func as _s, math_ext_func as _x
from mycel.ops.function import special_func as _sp
from mycel.ops.function._util import as_tensor, host_bytes
from mycel.ops.primitive import constexpr

__all__ = ["mvlgamma", "median", "nanmedian"]

_FLOATS = (_C.float16, _C.float32, _C.float64)


@constexpr
def _check_p(p, dtype):
    if isinstance(p, bool) or not isinstance(p, numbers.Integral):
        raise TypeError(f"For 'mvlgamma', 'p' must be an int, but got {type(p).__name__}.")
    if p < 1:
        raise ValueError(f"For 'mvlgamma', 'p' must be at least 1, but got {p}.")
    if dtype not in (_C.float32, _C.float64):
        raise TypeError(f"For 'mvlgamma', the input must be float32 or float64, but got "
                        f"{dtype}.")
    return int(p)


@constexpr
def _half_steps(p, dtype):
    """(1 - j) / 2 for j = 1..p, of dtype."""
    host_bytes("mvlgamma", 8 * p)
    return _C.Tensor(-0.5 * np.arange(p, dtype=np.float64)).astype(dtype)


def mvlgamma(input, p):  # noqa: A002 (MindSpore's argument name)
    """The multivariate log-gamma of dimension p, elementwise:
    p (p - 1) / 4 log(pi) + sum_{j=1..p} lgamma(x + (1 - j) / 2). It is defined for
    x > (p - 1) / 2; elsewhere the result is NaN."""
    x = as_tensor(input)
    p = _check_p(p, x.dtype)
    # one lgamma over x[..., None] + (1 - j) / 2 for j = 1..p, summed: a loop of p ops hung
    # for p = 2**62 (now a ValueError naming the op: the shape has too many elements)
    terms = _sp.lgamma(_m.add(_a.expand_dims(x, -1), _half_steps(p, x.dtype)))
    out = _m.add(_m.sum(terms, -1), p * (p - 1) / 4 * math.log(math.pi))
    ok = _m.greater(x, (p - 1) / 2)
    return _m.where(ok, out, _m.add(_m.mul(out, 0.0), float("nan")))


@constexpr
def _median_plan(shape, dtype, global_median, axis, op="Median"):
    if dtype not in _FLOATS + (_C.int16, _C.int32, _C.int64):
        raise TypeError(f"For '{op}', the input must be int16, int32, int64, float16, "
                        f"float32 or float64, but got {dtype}.")
    if global_median:
        return 0
    n = max(len(shape), 1)
    if not -n <= axis < n:
        raise ValueError(f"For '{op}', 'axis' must be in [{-n}, {n}), but got {axis}.")
    if shape and shape[axis % n] == 0:
        raise ValueError(f"For '{op}', the median along an empty axis is not defined (shape "
                         f"{tuple(shape)}, axis {axis}).")
    return axis % n


def _median_along(x, ax, ignore_nan):
    """(values, int64 indices) keeping axis ax: the lower median of the elements along ax;
    a NaN in a slice makes its median NaN unless ignore_nan (then the median of the rest)."""
    values, indices = _s.sort(x, ax)  # NaN sorts last
    n = x.shape[ax]
    if x.dtype in _FLOATS:
        nan = _x.isnan(x)
        count = _m.sum(_m.logical_not(nan).astype(_C.int64), ax, True)
        if ignore_nan:
            k = _m.floor_divide(_m.maximum(_m.sub(count, 1), _a.zeros_like(count)), 2)
        else:  # a NaN present: the last sorted element (a NaN); else the lower median
            k = _m.where(_m.less(count, n), _m.add(_m.mul(count, 0), n - 1),
                         _m.add(_m.mul(count, 0), (n - 1) // 2))
    else:
        k = _a.zeros(tuple(x.shape[:ax]) + (1,) + tuple(x.shape[ax + 1:]), _C.int64)
        k = _m.add(k, (n - 1) // 2)
    return _a.gather_elements(values, ax, k), _a.gather_elements(indices.astype(_C.int64),
                                                                 ax, k)


def median_values(x, global_median=False, axis=0, keep_dims=False, ignore_nan=False,
                  op="Median"):
    """The work of ops.Median (operations/compat_cpuops2.py): (values of x's dtype, int64
    indices). global_median: over all elements, 0-d outputs (an empty input gives NaN for
    floats, 0 for integers, index 0); otherwise along axis (an empty axis is a ValueError; other
    empty dimensions give empty outputs)."""
    x = as_tensor(x)
    ax = _median_plan(x.shape, x.dtype, global_median, axis, op)
    if global_median:
        flat = _a.reshape(x, (-1,))
        if flat.shape[0] == 0:
            fill = float("nan") if x.dtype in _FLOATS else 0
            return _a.full((), fill, dtype=x.dtype), _a.zeros((), _C.int64)
        v, i = _median_along(flat, 0, ignore_nan)
        return _a.reshape(v, ()), _a.reshape(i, ())
    if x.ndim == 0:
        return x, _a.zeros((), _C.int64)
    v, i = _median_along(x, ax, ignore_nan)
    if not keep_dims:
        v, i = _a.squeeze(v, ax), _a.squeeze(i, ax)
    return v, i


_MEDIAN_DTYPES = (_C.int16, _C.int32, _C.int64, _C.float32, _C.float64)


@constexpr
def _median_args(op, dtype, axis, keepdims):
    if dtype not in _MEDIAN_DTYPES:
        raise TypeError(f"For '{op}', the input must be int16, int32, int64, float32 or "
                        f"float64, but got {dtype}.")
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {type(axis).__name__}.")
    if not isinstance(keepdims, bool):
        raise TypeError(f"For '{op}', 'keepdims' must be a bool, but got "
                        f"{type(keepdims).__name__}.")
    return int(axis)


def median(input, axis=-1, keepdims=False):  # noqa: A002 (MindSpore's argument name)
    """(values, int64 indices): the lower median along axis (of an even count, the smaller of
    the two middle values) and where it sits in input (the element at that rank of a stable
    sort, so among equal values the one MindSpore's CPU kernel may not pick: MindSpore leaves
    the index of a repeated median unspecified). A NaN in a slice makes its median NaN (the
    index of a NaN)."""
    x = as_tensor(input)
    ax = _median_args("median", x.dtype, axis, keepdims)
    return median_values(x, False, ax, keepdims, False, "median")


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002 (MindSpore's argument name)
    """(values, int64 indices): the lower median along axis of the elements that are not NaN
    and where it sits in input; a slice of NaNs only gives NaN and the index of its first."""
    x = as_tensor(input)
    ax = _median_args("nanmedian", x.dtype, axis, keepdims)
    return median_values(x, False, ax, keepdims, True, "nanmedian")
