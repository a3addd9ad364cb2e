"""mindspore.numpy's dtype arguments: a mycel dtype, a name ('int32', 'bool'), a numpy type or
Python's int/float/bool (int32, float32, bool: mindspore.numpy's defaults, which it also gives
float64/int64 data converted without a dtype)."""
import numpy as _np

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr as _constexpr

_PY = {int: _C.int32, float: _C.float32, bool: getattr(_C, "bool")}


@_constexpr
def to_dtype(d):
    """The mycel dtype d names (None stays None); a TypeError for anything else (graph mode
    resolves it at compile time)."""
    if d is None or isinstance(d, _C.DType):
        return d
    if d in _PY:
        return _PY[d]
    try:
        name = _np.dtype(d).name
    except TypeError:
        raise TypeError(f"mindspore.numpy: {d!r} is not a dtype.") from None
    return _C.dtype_from_name(name)


def default_narrow(t):
    """Data converted without a dtype: float64 -> float32, int64 -> int32 (mindspore.numpy's
    default types)."""
    if t.dtype == _C.float64:
        return t.astype(_C.float32)
    if t.dtype == _C.int64:
        return t.astype(_C.int32)
    return t
