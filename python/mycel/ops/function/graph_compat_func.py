"""MindSpore functions that programs call on whole tensors or tuples of them, composed from
mycel's ops: addn (the sum of a tuple of tensors), all / any (reductions to bool), dtype
(a tensor's dtype). Both modes compile them (graph mode parses them as any function)."""
from mycel.ops.function import math_func as _m

__all__ = ["addn", "all", "any", "dtype"]


def addn(x):
    """The elementwise sum of the tensors of the tuple or list x (same shape and dtype)."""
    if not isinstance(x, (tuple, list)) or len(x) == 0:
        raise TypeError("For 'addn', the input must be a non-empty tuple or list of tensors.")
    out = x[0]
    for t in x[1:]:
        out = _m.add(out, t)
    return out


def all(input, axis=None, keep_dims=False):  # noqa: A001,A002 (MindSpore's names)
    """True where every element of input along axis is nonzero (ops.all)."""
    return input.all(axis, keep_dims)


def any(input, axis=None, keep_dims=False):  # noqa: A001,A002
    """True where some element of input along axis is nonzero (ops.any)."""
    return input.any(axis, keep_dims)


def dtype(input):  # noqa: A002
    """The dtype of the tensor input (ops.dtype)."""
    return input.dtype
