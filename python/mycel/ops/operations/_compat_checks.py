"""Argument checks shared by the primitive classes of MindSpore's CPU op tests
(compat_cpu_ops.py, compat_optim_ops.py): a wrong type is a TypeError, a value out of range
a ValueError, naming the op and the argument, as MindSpore's validator."""
import numbers

from mycel import _mycel as _C

_F16_32 = (_C.float16, _C.float32)
_INDEX = (_C.int32, _C.int64)


def _check_int(op, name, v, positive=True):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(v).__name__}.")
    if positive and v <= 0:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {v}.")
    return int(v)


def _check_float(op, name, v, positive=False, non_negative=False):
    if isinstance(v, bool) or not isinstance(v, (float, numbers.Integral)):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(v).__name__}.")
    if positive and not v > 0:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {v}.")
    if non_negative and not v >= 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {v}.")
    return float(v)


def _check_bool(op, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


def _check_tensor(op, name, x, dtypes):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in dtypes:
        raise TypeError(f"For '{op}', '{name}' must have dtype in "
                        f"{[str(d) for d in dtypes]}, but got {x.dtype}.")


def _check_rank(op, name, x, rank):
    if len(x.shape) != rank:
        raise ValueError(f"For '{op}', the rank of '{name}' must be {rank}, but got shape "
                         f"{tuple(x.shape)}.")


def _check_tensors(op, *named):
    """A TypeError naming op and the argument unless each (name, value) pair's value is a
    Tensor."""
    for name, v in named:
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
