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
uint = uint32
pi = 3.141592653589793
e = 2.718281828459045
inf = PINF = float("inf")
NINF = float("-inf")
nan = float("nan")
numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
                 "uint64", "float_", "float16", "float32", "float64", "bool_"]


equal, not_equal, less, less_equal = _m.equal, _m.not_equal, _m.less, _m.less_equal
greater, greater_equal = _m.greater, _m.greater_equal
logical_and, logical_or, logical_not = _m.logical_and, _m.logical_or, _m.logical_not
matmul = _m.matmul
reshape, transpose, squeeze = _a.reshape, lambda a, axes=None: _a.transpose(
    a, axes if axes is not None else tuple(reversed(range(asarray(a).ndim)))), _a.squeeze
expand_dims, stack = _a.expand_dims, _a.stack
broadcast_to = _a.broadcast_to


def mean(a, axis=None, keepdims=False, dtype=None):
    """Mean over axis."""
    out = _m.mean(asarray(a), axis, keepdims)
    return out if dtype is None else out.astype(dtype)


def prod(a, axis=None, keepdims=False):
    """Product over axis."""
    return _m.prod(asarray(a), axis, keepdims)


def argmax(a, axis=None):
    """Index of the maximum (of the flattened array when axis is None)."""
    return _m.argmax(asarray(a), axis)


def argmin(a, axis=None):
    """Index of the minimum (of the flattened array when axis is None)."""
    return _m.argmin(asarray(a), axis)


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


# The rest of mindspore.numpy; later modules replace earlier names with numpy's semantics
# (creations, pad, manipulation, math_np).
from mycel.numpy.math_more import *  # noqa: F401,F403,E402
from mycel.numpy.array_more import *  # noqa: F401,F403,E402
from mycel.numpy.linalg_more import *  # noqa: F401,F403,E402
from mycel.numpy.creations import *  # noqa: F401,F403,E402
from mycel.numpy.pad import pad  # noqa: F401,E402
from mycel.numpy.manipulation import *  # noqa: F401,F403,E402
from mycel.numpy.math_np import *  # noqa: F401,F403,E402
from mycel.numpy.math_more import around as round, invert as bitwise_not  # noqa: E402,A004
from mycel.numpy import fft  # noqa: F401,E402
