"""mycel.numpy: numpy-style functions on mycel Tensors (MindSpore's mindspore.numpy)."""
from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.numpy._dtypes import to_dtype as _to_dtype
from mycel.numpy.creations import asarray

from mycel._mycel import (int8, uint8, int16, int32, int64, float16, float32,  # noqa: F401
                          float64, bfloat16)
from mycel._mycel import uint16, uint32, uint64  # noqa: F401
from mycel._mycel import complex64, complex128  # noqa: F401

bool_ = getattr(_C, "bool")
float_ = float32
int_ = int32
pi = 3.141592653589793
e = 2.718281828459045


add, subtract, multiply, divide, true_divide = _m.add, _m.sub, _m.mul, _m.div, _m.div
power, maximum, minimum, remainder, mod = _m.pow, _m.maximum, _m.minimum, _m.remainder, \
    _m.remainder
floor_divide, negative, absolute, abs = _m.floor_divide, _m.neg, _m.abs, _m.abs  # noqa: A001
exp, log, log1p, sqrt, square = _m.exp, _m.log, _m.log1p, _m.sqrt, _m.square
sin, cos, tanh, sign, reciprocal = _m.sin, _m.cos, _m.tanh, _m.sign, _m.reciprocal
equal, not_equal, less, less_equal = _m.equal, _m.not_equal, _m.less, _m.less_equal
greater, greater_equal = _m.greater, _m.greater_equal
logical_and, logical_or, logical_not = _m.logical_and, _m.logical_or, _m.logical_not
matmul, clip = _m.matmul, _m.clamp
reshape, transpose, squeeze = _a.reshape, lambda a, axes=None: _a.transpose(
    a, axes if axes is not None else tuple(reversed(range(asarray(a).ndim)))), _a.squeeze
expand_dims, stack = _a.expand_dims, _a.stack
broadcast_to = _a.broadcast_to


def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001
    """Sum over axis."""
    return _m.sum(asarray(a), axis, keepdims, dtype=dtype)


def mean(a, axis=None, keepdims=False, dtype=None):
    """Mean over axis."""
    out = _m.mean(asarray(a), axis, keepdims)
    return out if dtype is None else out.astype(dtype)


def amax(a, axis=None, keepdims=False):
    """Maximum over axis."""
    return _m.amax(asarray(a), axis, keepdims)


def amin(a, axis=None, keepdims=False):
    """Minimum over axis."""
    return _m.amin(asarray(a), axis, keepdims)


max, min = amax, amin  # noqa: A001


def prod(a, axis=None, keepdims=False):
    """Product over axis."""
    return _m.prod(asarray(a), axis, keepdims)


def argmax(a, axis=None):
    """Index of the maximum (of the flattened array when axis is None)."""
    return _m.argmax(asarray(a), axis)


def argmin(a, axis=None):
    """Index of the minimum (of the flattened array when axis is None)."""
    return _m.argmin(asarray(a), axis)


def dot(a, b):
    """numpy.dot for 1-d and 2-d operands."""
    return _m.matmul(asarray(a), asarray(b))


def zeros(shape, dtype=float32):
    """Zeros of shape."""
    return _a.zeros(shape, _to_dtype(dtype))


def ones(shape, dtype=float32):
    """Ones of shape."""
    return _a.ones(shape, _to_dtype(dtype))


def arange(start, stop=None, step=1, dtype=None):
    """numpy.arange."""
    return _a.arange(start, stop, step, dtype=_to_dtype(dtype))



def isnan(x):
    """True where x is NaN."""
    return _m.not_equal(x, x)


# The rest of mindspore.numpy (math_more.py, array_more.py, linalg_more.py).
from mycel.numpy.math_more import *  # noqa: F401,F403,E402
from mycel.numpy.array_more import *  # noqa: F401,F403,E402
from mycel.numpy.linalg_more import *  # noqa: F401,F403,E402
from mycel.numpy.creations import *  # noqa: F401,F403,E402
from mycel.numpy.pad import pad  # noqa: F401,E402
from mycel.numpy.manipulation import *  # noqa: F401,F403,E402
