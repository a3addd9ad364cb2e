"""Random tensors. With no seed they draw from the global generator (mycel.set_seed);
a seed makes the call deterministic on its own, as MindSpore's op-level seeds."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, shape_arg
from mycel.ops.function import math_func as _m


def _seeds(seed):
    return (0, 0) if seed is None else (int(seed), 1)


def standard_normal(shape, seed=None):
    """Samples of N(0, 1), float32."""
    s, s2 = _seeds(seed)
    return prim("StandardNormal", seed=s, seed2=s2)(shape_arg(shape, "standard_normal"))


def randn(*size, dtype=None, seed=None):
    """Samples of N(0, 1) of the given size."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed)
    return prim("StandardNormal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "randn"))


def rand(*size, dtype=None, seed=None):
    """Samples of U[0, 1) of the given size."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed)
    return prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "rand"))


def uniform(shape, minval, maxval, seed=None, dtype=None):
    """Samples of U[minval, maxval)."""
    s, s2 = _seeds(seed)
    u = prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(shape_arg(shape,
                                                                                "uniform"))
    return _m.add(_m.mul(u, _m.sub(maxval, minval)), minval)


def normal(shape, mean, stddev, seed=None):
    """Samples of N(mean, stddev^2)."""
    return _m.add(_m.mul(standard_normal(shape, seed), stddev), mean)
