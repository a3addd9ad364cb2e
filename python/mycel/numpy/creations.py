"""mindspore.numpy's array creation with numpy's semantics: array/asarray/copy (nested lists
may hold Tensors; ragged data is a ValueError), full and the *_like functions (a fill value or
a shape broadcast, a dtype), linspace/geomspace over array start and stop (broadcast, placed
on axis, retstep), the windows (empty for M < 1) and mgrid/ogrid. Graph mode runs them on
Tensors; plain Python data is converted at compile time."""
import numbers as _numbers

import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy._dtypes import to_dtype as _to_dtype, default_narrow as _default_narrow
from mycel.ops.primitive import constexpr as _constexpr


def _nested_numpy(obj):
    """obj (a number, a Tensor, an ndarray or nested lists/tuples of them) as numpy data."""
    if isinstance(obj, _C.Tensor):
        return obj.asnumpy()
    if isinstance(obj, (list, tuple)):
        return [_nested_numpy(v) for v in obj]
    if isinstance(obj, (_np.ndarray, _np.generic, _numbers.Number)):
        return obj
    raise TypeError(f"mindspore.numpy: cannot convert an object of type {type(obj).__name__} "
                    f"to a Tensor (expected numbers, Tensors or lists/tuples of them).")


@_constexpr
def _const_tensor(obj, dtype):
    """Constant data (no Tensor at its top level) as a Tensor of dtype, or of mindspore.numpy's
    default type for it (float32, int32, bool)."""
    data = _nested_numpy(obj)
    try:
        arr = _np.asarray(data)
    except ValueError as e:
        raise ValueError(f"mindspore.numpy: the data is ragged (its nested sequences differ in "
                         f"length): {e}") from None
    if arr.dtype == object:
        raise TypeError(f"mindspore.numpy: cannot convert {obj!r} to a Tensor.")
    if dtype is not None:
        return _C.Tensor(arr.astype(_np.dtype(dtype.name if dtype.name != "bfloat16"
                                              else "float32"))).astype(dtype)
    return _default_narrow(_C.Tensor(arr))


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor from array-like data (float64 and int64 data become float32 and int32 without
    a dtype, mindspore.numpy's defaults; a Tensor keeps its dtype). A Tensor is copied unless
    copy is False (then it is returned itself when dtype does not change it)."""
    dtype = _to_dtype(dtype)
    if isinstance(obj, _C.Tensor):
        if dtype is not None and dtype != obj.dtype:
            t = obj.astype(dtype)
        else:
            t = obj.copy() if copy else obj
    else:
        t = _const_tensor(obj, dtype)
    while t.ndim < ndmin:
        t = _ops.expand_dims(t, 0)
    return t


def asarray(a, dtype=None):
    """a as a Tensor: a itself when it is a Tensor of that dtype (or dtype is None)."""
    return array(a, dtype, copy=False)


def copy(a):
    """A copy of a as a new Tensor."""
    return array(a, copy=True)


def _shape_tuple(shape, name):
    if isinstance(shape, _numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, _numbers.Integral) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"For '{name}', shape must be an int or a tuple of ints, but got "
                        f"{shape!r}.")
    if any(d < 0 for d in shape):
        raise ValueError(f"For '{name}', shape must not hold negative dimensions, but got "
                         f"{tuple(shape)}.")
    return tuple(int(d) for d in shape)


def _fill_dtype(value):
    if isinstance(value, _C.Tensor):
        return value.dtype
    if isinstance(value, bool):
        return getattr(_C, "bool")
    if isinstance(value, _numbers.Integral):
        return _C.int32
    if isinstance(value, _numbers.Real):
        return _C.float32
    return _const_tensor(value, None).dtype


def full(shape, fill_value, dtype=None):
    """A Tensor of shape filled with fill_value (a scalar or an array broadcast to shape)."""
    shape = _shape_tuple(shape, "full")
    dtype = _to_dtype(dtype) or _fill_dtype(fill_value)
    value = asarray(fill_value).astype(dtype)
    return _ops.broadcast_to(value, shape) + _ops.zeros(shape, dtype)


def _like(name, a, dtype, shape):
    a = asarray(a)
    dtype = _to_dtype(dtype) or a.dtype
    shape = tuple(a.shape) if shape is None else _shape_tuple(shape, name)
    return dtype, shape


def zeros_like(a, dtype=None, shape=None):
    """Zeros of a's shape and dtype (or those given)."""
    dtype, shape = _like("zeros_like", a, dtype, shape)
    return _ops.zeros(shape, dtype)


def ones_like(a, dtype=None, shape=None):
    """Ones of a's shape and dtype (or those given)."""
    dtype, shape = _like("ones_like", a, dtype, shape)
    return _ops.ones(shape, dtype)


def empty_like(prototype, dtype=None, shape=None):
    """A Tensor of prototype's shape and dtype (or those given); mycel fills it with zeros."""
    dtype, shape = _like("empty_like", prototype, dtype, shape)
    return _ops.zeros(shape, dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    """A Tensor of a's shape and dtype (or those given) filled with fill_value (a scalar or
    an array broadcast to the shape)."""
    dtype, shape = _like("full_like", a, dtype, shape)
    return full(shape, fill_value, dtype)


# ---- evenly spaced values --------------------------------------------------------------------
def _as_float64(x):
    return asarray(x).astype(_C.float64)


def _check_num(num, name):
    if not isinstance(num, _numbers.Integral) or isinstance(num, bool):
        raise TypeError(f"For '{name}', num must be an int, but got {num!r}.")
    if num < 0:
        raise ValueError(f"For '{name}', num must be non-negative, but got {num}.")
    return int(num)


def _spaced(start, stop, num, endpoint):
    """(values [num, *broadcast shape] in float64, step): numpy.linspace's arithmetic."""
    s, e = _as_float64(start), _as_float64(stop)
    shape = tuple(_np.broadcast_shapes(tuple(s.shape), tuple(e.shape)))
    s, e = _ops.broadcast_to(s, shape), _ops.broadcast_to(e, shape)
    div = num - 1 if endpoint else num
    steps = _ops.reshape(_ops.arange(0, num, 1).astype(_C.float64), (num,) + (1,) * len(shape))
    delta = e - s
    if div > 0:
        step = delta / div
        y = steps * _ops.expand_dims(step, 0) + _ops.expand_dims(s, 0)
    else:
        step = delta * float("nan")
        y = steps * _ops.expand_dims(delta, 0) + _ops.expand_dims(s, 0)
    if endpoint and num > 1:
        y = _ops.cat((_ops.narrow(y, 0, 0, num - 1), _ops.expand_dims(e, 0)), 0)
    return y, step


def _finish(y, dtype, axis):
    """y [num, ...] (float64) moved to axis and cast to dtype (float32 by default; integer
    dtypes floor first, as numpy)."""
    axis = axis % y.ndim if y.ndim else 0
    if axis:
        y = _ops.moveaxis(y, 0, axis)
    dtype = _to_dtype(dtype) or _C.float32
    if not dtype.is_floating_point and dtype not in (getattr(_C, "bool"), _C.complex64,
                                                     _C.complex128):
        y = _ops.floor(y)
    return y.astype(dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """num evenly spaced values from start to stop (arrays broadcast; the new axis at axis),
    with the step too when retstep."""
    num = _check_num(num, "linspace")
    y, step = _spaced(start, stop, num, endpoint)
    y = _finish(y, dtype, axis)
    if retstep:
        return y, step.astype(_C.float32)
    return y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num): num values evenly spaced on a log scale."""
    num = _check_num(num, "logspace")
    y, _ = _spaced(start, stop, num, endpoint)
    y = _ops.pow(_as_float64(base), y)
    return _finish(y, dtype, axis)


@_constexpr
def _check_nonzero(value, name):
    if _np.any(_np.asarray(_nested_numpy(value)) == 0):
        raise ValueError(f"For '{name}', start and stop must not be zero (a geometric "
                         f"sequence cannot hold 0), but got {value!r}.")


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """num values from start to stop spaced evenly on a log scale (a geometric progression;
    start and stop of the same sign, arrays broadcast, the new axis at axis)."""
    num = _check_num(num, "geomspace")
    for v in (start, stop):
        if not isinstance(v, _C.Tensor):
            _check_nonzero(v, "geomspace")
    s, e = _as_float64(start), _as_float64(stop)
    sign = _ops.sign(s)
    y, _ = _spaced(_ops.log10(_ops.abs(s)), _ops.log10(_ops.abs(e)), num, endpoint)
    y = _ops.pow(_C.Tensor(10.0, _C.float64), y) * _ops.expand_dims(sign, 0)
    shape = tuple(y.shape[1:])
    if num > 0:  # the ends exactly
        ends = [_ops.expand_dims(_ops.broadcast_to(s, shape), 0)]
        middle = num - 1
        if endpoint and num > 1:
            middle = num - 2
        parts = ends + [_ops.narrow(y, 0, 1, middle)] if middle > 0 else ends
        if endpoint and num > 1:
            parts = parts + [_ops.expand_dims(_ops.broadcast_to(e, shape), 0)]
        y = _ops.cat(tuple(parts), 0) if len(parts) > 1 else parts[0]
    return _finish(y, dtype, axis)


# ---- windows ---------------------------------------------------------------------------------
def _window(M, fn, name):  # noqa: N803
    if not isinstance(M, _numbers.Integral) or isinstance(M, bool):
        raise TypeError(f"For '{name}', M must be an int, but got {M!r}.")
    if M < 1:
        return _C.Tensor(_np.zeros(0, _np.float32))
    if M == 1:
        return _C.Tensor(_np.ones(1, _np.float32))
    n = _np.arange(M, dtype=_np.float64)
    return _C.Tensor(_np.asarray(fn(n, M - 1), dtype=_np.float32))


def bartlett(M):  # noqa: N803
    """The Bartlett (triangular) window of M points (empty for M < 1)."""
    return _window(M, lambda n, d: 1 - _np.abs(2 * n / d - 1), "bartlett")


def blackman(M):  # noqa: N803
    """The Blackman window of M points (empty for M < 1)."""
    return _window(M, lambda n, d: 0.42 - 0.5 * _np.cos(2 * _np.pi * n / d) +
                   0.08 * _np.cos(4 * _np.pi * n / d), "blackman")


def hamming(M):  # noqa: N803
    """The Hamming window of M points (empty for M < 1)."""
    return _window(M, lambda n, d: 0.54 - 0.46 * _np.cos(2 * _np.pi * n / d), "hamming")


def hanning(M):  # noqa: N803
    """The Hann window of M points (empty for M < 1)."""
    return _window(M, lambda n, d: 0.5 - 0.5 * _np.cos(2 * _np.pi * n / d), "hanning")


# ---- grids -----------------------------------------------------------------------------------
class _Grid:
    """mgrid / ogrid: grid[a:b:c, ...] is numpy's dense (mgrid) or open (ogrid) mesh of the
    ranges; an imaginary step (5j) asks for that many points, end included."""

    def __init__(self, sparse):
        self._sparse = sparse

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            if not isinstance(k, slice):
                raise TypeError(f"For '{'ogrid' if self._sparse else 'mgrid'}', the index "
                                f"must hold slices, but got {k!r}.")
        grid = (_np.ogrid if self._sparse else _np.mgrid)[key]
        if isinstance(grid, (list, tuple)):
            return [_default_narrow(_C.Tensor(_np.asarray(g))) for g in grid]
        return _default_narrow(_C.Tensor(_np.asarray(grid)))


mgrid = _Grid(False)
ogrid = _Grid(True)
