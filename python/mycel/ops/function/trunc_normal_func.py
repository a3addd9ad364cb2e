"""Samples of a normal distribution truncated to [min, max] (the work of MindSpore's
``random_ops.ParameterizedTruncatedNormal``), by inverting the normal CDF, composed from table
ops in float64:

- standardise the bounds, a = (min - mean) / std and b = (max - mean) / std; an interval on
  the positive side is mirrored to [-b, -a] (and the sample negated back), so both CDF values
  are small numbers with full relative precision, never 1 - tiny;
- u ~ U[0, 1) from the caller's UniformReal primitive (its own seeded stream or the global
  generator), p = Phi(a) + u (Phi(b) - Phi(a)) with Phi(x) = erfc(-x / sqrt 2) / 2;
- z = Phi^-1(p): Abramowitz & Stegun 26.2.23 as the start, then three Newton steps on
  log Phi(z) = log p (the log keeps the far tails, p down to 1e-300, exact to rounding);
- the sample mean + std * z, clamped into [min, max] against rounding, in the input dtype.

No rejection loop, so the cost is fixed and both modes run the same ops.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.function._util import as_tensor, shape_arg
from mycel.ops.primitive import constexpr

_OP = "ParameterizedTruncatedNormal"


@constexpr
def _plan(shape, shape_dtype, dtypes, sizes):
    """The output shape (a tuple of ints, from the shape tensor's values) and the batch."""
    if shape_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{_OP}', 'shape' must be an int32 or int64 tensor, but got "
                        f"{shape_dtype}.")
    if dtypes[0] not in (_C.float16, _C.float32, _C.float64) or len(set(dtypes)) != 1:
        raise TypeError(f"For '{_OP}', mean, stdevs, min and max must have one dtype among "
                        f"float16, float32 and float64, but got {[str(d) for d in dtypes]}.")
    out = shape_arg(shape, _OP)
    if not out or any(d <= 0 for d in out):
        raise ValueError(f"For '{_OP}', 'shape' must be non-empty with positive entries, "
                         f"but got {out}.")
    batch = out[0]
    for name, n in zip(("mean", "stdevs", "min", "max"), sizes):
        if len(n) != 1 or n[0] not in (1, batch):
            raise ValueError(f"For '{_OP}', '{name}' must be 1-D with 1 or batch ({batch}) "
                             f"entries, but got shape {tuple(n)}.")
    return out, (-1,) + (1,) * (len(out) - 1)


def _phi(x):
    """The standard normal CDF, accurate in the lower tail."""
    return _m.mul(_C.Tensor(np.float64(0.5)), _m.erfc(_m.mul(x, -1.0 / math.sqrt(2.0))))


def _ndtri(p):
    """Phi^-1(p) for p in (0, 1), float64 (module docstring)."""
    low = _m.less_equal(p, 0.5)
    q = _m.where(low, p, _m.sub(1.0, p))
    t = _m.sqrt(_m.mul(_m.log(q), -2.0))
    num = _m.add(_m.mul(_m.add(_m.mul(t, 0.010328), 0.802853), t), 2.515517)
    den = _m.add(_m.mul(_m.add(_m.mul(_m.add(_m.mul(t, 0.001308), 0.189269), t), 1.432788),
                        t), 1.0)
    z = _m.sub(t, _m.div(num, den))
    z = _m.where(low, _m.neg(z), z)
    log_p = _m.log(p)
    for _ in range(3):
        cdf = _phi(z)
        pdf = _m.mul(_m.exp(_m.mul(_m.square(z), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
        z = _m.sub(z, _m.div(_m.mul(_m.sub(_m.log(cdf), log_p), cdf), pdf))
    return z


def parameterized_truncated_normal(uniform, shape, mean, stdevs, minvals, maxvals):
    """Samples of N(mean, stdevs^2) truncated to [minvals, maxvals] (module docstring);
    uniform is a UniformReal primitive (float64) that draws u."""
    shape, mean, std = as_tensor(shape), as_tensor(mean), as_tensor(stdevs)
    lo, hi = as_tensor(minvals), as_tensor(maxvals)
    out_shape, col = _plan(shape, shape.dtype, (mean.dtype, std.dtype, lo.dtype, hi.dtype),
                           (mean.shape, std.shape, lo.shape, hi.shape))
    dtype = mean.dtype
    mean, std = _a.reshape(mean.astype(_C.float64), col), _a.reshape(std.astype(_C.float64), col)
    lo, hi = _a.reshape(lo.astype(_C.float64), col), _a.reshape(hi.astype(_C.float64), col)
    bad = _m.logical_or(_m.less_equal(std, 0.0), _m.greater_equal(lo, hi))
    if bad.any():
        raise ValueError(f"For '{_OP}', stdevs must be positive and min less than max.")
    a = _m.div(_m.sub(lo, mean), std)
    b = _m.div(_m.sub(hi, mean), std)
    flip = _m.greater_equal(a, 0.0)
    a, b = _m.where(flip, _m.neg(b), a), _m.where(flip, _m.neg(a), b)
    pa, pb = _phi(a), _phi(b)
    u = uniform(out_shape)
    p = _m.maximum(_m.add(pa, _m.mul(u, _m.sub(pb, pa))), 1e-300)
    z = _m.minimum(_m.maximum(_ndtri(p), a), b)
    z = _m.where(flip, _m.neg(z), z)
    x = _m.add(mean, _m.mul(std, z))
    return _m.minimum(_m.maximum(x, lo), hi).astype(dtype)
