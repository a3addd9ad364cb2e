"""Random tensors. With no seed they draw from the global generator (mycel.set_seed) or, given
``generator=``, from that Generator's stream (common/generator.py); a seed makes the call
deterministic on its own, as MindSpore's op-level seeds."""
import numbers

from mycel import _mycel as _C
from mycel.common import generator as _gen
from mycel.ops.function._util import prim, shape_arg, one_int
from mycel.ops.function import math_func as _m
from mycel.ops.primitive import constexpr


def _seeds(seed, op):
    if seed is None:
        return 0, 0
    # (int() of NaN or 'abc' raised naming no op)
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, _C.Tensor)):
        raise TypeError(f"For '{op}', the seed must be None or an int, but got "
                        f"{type(seed).__name__}.")
    return int(one_int(seed, op, "seed")), 1


def standard_normal(shape, seed=None, *, generator=None):
    """Samples of N(0, 1), float32."""
    if _gen.uses_generator(generator, "standard_normal"):
        return _gen.draw(generator, standard_normal, shape, seed)
    s, s2 = _seeds(seed, "standard_normal")
    return prim("StandardNormal", seed=s, seed2=s2)(shape_arg(shape, "standard_normal"))


def randn(*size, dtype=None, seed=None, generator=None):
    """Samples of N(0, 1) of the given size."""
    if _gen.uses_generator(generator, "randn"):
        return _gen.draw(generator, randn, *size, dtype=dtype, seed=seed)
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed, "randn")
    return prim("StandardNormal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "randn"))


def rand(*size, dtype=None, seed=None, generator=None):
    """Samples of U[0, 1) of the given size."""
    if _gen.uses_generator(generator, "rand"):
        return _gen.draw(generator, rand, *size, dtype=dtype, seed=seed)
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed, "rand")
    return prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "rand"))


def uniform(shape, minval, maxval, seed=None, dtype=None, *, generator=None):
    """Samples of U[minval, maxval)."""
    if _gen.uses_generator(generator, "uniform"):
        return _gen.draw(generator, uniform, shape, minval, maxval, seed, dtype)
    s, s2 = _seeds(seed, "uniform")
    u = prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(shape_arg(shape,
                                                                                "uniform"))
    return _m.add(_m.mul(u, _m.sub(maxval, minval)), minval)


def normal(shape, mean, stddev, seed=None, *, generator=None):
    """Samples of N(mean, stddev^2)."""
    if _gen.uses_generator(generator, "normal"):
        return _gen.draw(generator, normal, shape, mean, stddev, seed)
    return _m.add(_m.mul(standard_normal(shape, seed), stddev), mean)


_POISSON_DTYPES = (_C.float16, _C.float32, _C.float64, _C.int32, _C.int64)


@constexpr
def _poisson_shape(shape, op):
    """MindSpore's rule: `shape` is a 1-D int32/int64 tensor (its values known here)."""
    if not isinstance(shape, _C.Tensor):
        raise TypeError(f"For '{op}', the 'shape' must be a Tensor, but got "
                        f"{type(shape).__name__}.")
    if shape.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', the 'shape' must be an int32 or int64 tensor, but got "
                        f"{shape.dtype}.")
    if shape.ndim != 1:
        raise ValueError(f"For '{op}', the 'shape' must be a 1-D tensor, but got "
                         f"{shape.ndim} dimensions.")
    dims = tuple(int(d) for d in shape.asnumpy())
    if any(d < 0 for d in dims):
        raise ValueError(f"For '{op}', the 'shape' must have non-negative dimensions, but got "
                         f"{dims}.")
    return dims


@constexpr
def _poisson_args(rate_is_tensor, seed, dtype, op):
    if not rate_is_tensor:
        raise TypeError(f"For '{op}', the 'rate' must be a Tensor.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"For '{op}', the 'seed' must be an int, but got "
                        f"{type(seed).__name__}.")
    if dtype not in _POISSON_DTYPES:
        raise TypeError(f"For '{op}', the 'dtype' must be one of float16, float32, float64, "
                        f"int32 or int64, but got {dtype}.")
    return _seeds(seed, op)


def random_poisson(shape, rate, seed=None, dtype=_C.float32):
    """Poisson counts: the output has shape `shape` + rate.shape, `shape` draws of every rate
    (MindSpore's ops.random_poisson; `shape` is a 1-D int32/int64 tensor). The table's
    RandomPoisson: rates below 10 by Knuth's method, larger ones by Hoermann's transformed
    rejection (PTRS; kernels/cpu/random_format.h). A rate that is negative, NaN or infinite
    has no count: NaN in float dtypes, -1 in integer ones."""
    s, s2 = _poisson_args(isinstance(rate, _C.Tensor), seed, dtype, "random_poisson")
    return _poisson(shape, rate, prim("RandomPoisson", seed=s, seed2=s2, dtype=dtype),
                    "random_poisson")


def _poisson(shape, rate, handle, op):
    """random_poisson's body; `handle` is the RandomPoisson op it draws from."""
    if not isinstance(rate, _C.Tensor):
        raise TypeError(f"For '{op}', the 'rate' must be a Tensor.")
    _poisson_rate_dtype(rate.dtype, op)
    return handle(rate, _poisson_shape(shape, op))


@constexpr
def _poisson_rate_dtype(dtype, op):
    if dtype == _C.bool:
        raise TypeError(f"For '{op}', the 'rate' must be a number tensor, but got {dtype}.")
