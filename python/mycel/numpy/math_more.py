"""mindspore.numpy's math functions beyond the basic ones in __init__: elementwise
trigonometric, rounding, exponential and bitwise functions, numpy's reductions (std, var,
the nan-ignoring ones, average, ptp, cumsum/cumprod over the flattened array), differences,
trapz, gcd/lcm, polynomials, convolutions, interp, unwrap and gradient. Each is composed from
mycel.ops (so GRAPH mode and gradients follow) with numpy's defaults and axis rules."""
import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy._dtypes import to_dtype as _to_dtype
from mycel.ops.primitive import constexpr as _constexpr


def _t(a):
    return a if isinstance(a, _C.Tensor) else _C.Tensor(a)


def _float(a):
    a = _t(a)
    return a if a.dtype.is_floating_point else a.astype(_C.float32)


# ---- elementwise ----------------------------------------------------------------------------
def _unary(fn, floating=True, doc=""):
    def f(x, dtype=None):
        y = fn(_float(x) if floating else _t(x))
        return y if dtype is None else y.astype(dtype)
    f.__doc__ = doc
    return f


arccos = _unary(_ops.acos, doc="Inverse cosine, elementwise.")
arccosh = _unary(_ops.acosh, doc="Inverse hyperbolic cosine, elementwise.")
arcsin = _unary(_ops.asin, doc="Inverse sine, elementwise.")
arcsinh = _unary(_ops.asinh, doc="Inverse hyperbolic sine, elementwise.")
arctan = _unary(_ops.atan, doc="Inverse tangent, elementwise.")
arctanh = _unary(_ops.atanh, doc="Inverse hyperbolic tangent, elementwise.")
cosh = _unary(_ops.cosh, doc="Hyperbolic cosine, elementwise.")
sinh = _unary(_ops.sinh, doc="Hyperbolic sine, elementwise.")
tan = _unary(_ops.tan, doc="Tangent, elementwise.")
exp2 = _unary(_ops.exp2, doc="2 ** x, elementwise.")
expm1 = _unary(_ops.expm1, doc="exp(x) - 1, elementwise (accurate near 0).")
log2 = _unary(_ops.log2, doc="Base-2 logarithm, elementwise.")
log10 = _unary(_ops.log10, doc="Base-10 logarithm, elementwise.")
deg2rad = _unary(_ops.deg2rad, doc="Degrees to radians.")
rad2deg = _unary(_ops.rad2deg, doc="Radians to degrees.")
ceil = _unary(_ops.ceil, doc="Ceiling, elementwise.")
floor = _unary(_ops.floor, doc="Floor, elementwise.")
trunc = _unary(_ops.trunc, doc="Truncation toward zero, elementwise.")
fix = _unary(_ops.trunc, doc="Rounding toward zero, elementwise (numpy.fix).")
rint = _unary(_ops.rint, doc="Rounding to the nearest integer, halves to even.")


def arctan2(x1, x2, dtype=None):
    """atan(x1 / x2) in the right quadrant, elementwise."""
    y = _ops.atan2(_float(x1), _float(x2))
    return y if dtype is None else y.astype(dtype)


def around(a, decimals=0):
    """Rounding to `decimals` places, halves to even (numpy.around)."""
    a = _float(a)
    if decimals == 0:
        return _ops.rint(a)
    scale = 10.0 ** decimals
    return _ops.rint(a * scale) / scale


def _binary(fn, floating=True, doc=""):
    def f(x1, x2, dtype=None):
        y = fn(_float(x1) if floating else _t(x1), _float(x2) if floating else _t(x2))
        return y if dtype is None else y.astype(dtype)
    f.__doc__ = doc
    return f


hypot = _binary(_ops.hypot, doc="sqrt(x1 ** 2 + x2 ** 2), elementwise.")
logaddexp = _binary(_ops.logaddexp, doc="log(exp(x1) + exp(x2)), without overflow.")
logaddexp2 = _binary(_ops.logaddexp2, doc="log2(2 ** x1 + 2 ** x2), without overflow.")
copysign = _binary(_ops.copysign, doc="|x1| with the sign of x2, elementwise.")
heaviside = _binary(_ops.heaviside, doc="0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0.")
float_power = _binary(lambda a, b: _ops.pow(a.astype(_C.float64), b.astype(_C.float64)),
                      doc="x1 ** x2 computed in float64 (numpy.float_power).")
fmod = _binary(_ops.fmod, floating=False, doc="The remainder of C's fmod: the sign of x1.")
bitwise_and = _binary(_ops.bitwise_and, floating=False, doc="x1 & x2, elementwise.")
bitwise_or = _binary(_ops.bitwise_or, floating=False, doc="x1 | x2, elementwise.")
bitwise_xor = _binary(_ops.bitwise_xor, floating=False, doc="x1 ^ x2, elementwise.")
logical_xor = _binary(_ops.logical_xor, floating=False, doc="x1 xor x2 (as booleans).")


def signbit(x, dtype=None):
    """True where the sign bit is set (negative numbers and -0.0)."""
    y = _ops.signbit(_t(x))
    return y if dtype is None else y.astype(dtype)


def invert(x, dtype=None):
    """Bitwise not (logical not for bool), elementwise."""
    y = _ops.invert(_t(x))
    return y if dtype is None else y.astype(dtype)


def positive(a, dtype=None):
    """+a (a copy)."""
    a = _t(a)
    return (a + 0) if dtype is None else (a + 0).astype(dtype)


isfinite = _unary(_ops.isfinite, floating=False, doc="True where x is neither inf nor NaN.")
isinf = _unary(_ops.isinf, floating=False, doc="True where x is +inf or -inf.")
isneginf = _unary(_ops.isneginf, floating=False, doc="True where x is -inf.")
isposinf = _unary(_ops.isposinf, floating=False, doc="True where x is +inf.")


def _int_args(x1, x2):
    """x1, x2 as integer tensors (floats holding integers convert, as mindspore.numpy's gcd
    and lcm take them) and the dtype of the result."""
    a, b = _t(x1), _t(x2)
    out = _C.promote_types(a.dtype, b.dtype)
    if a.dtype.is_floating_point:
        a = a.astype(_C.int64)
    if b.dtype.is_floating_point:
        b = b.astype(_C.int64)
    return a, b, out


def gcd(x1, x2, dtype=None):
    """Greatest common divisor of integers, elementwise (gcd(0, 0) = 0): ops.gcd."""
    a, b, out = _int_args(x1, x2)
    y = _ops.gcd(a, b).astype(out)
    return y if dtype is None else y.astype(dtype)


def lcm(x1, x2, dtype=None):
    """Least common multiple of integers, elementwise (0 when either is 0): ops.lcm."""
    a, b, out = _int_args(x1, x2)
    y = _ops.lcm(a, b).astype(out)
    return y if dtype is None else y.astype(dtype)


# ---- reductions -----------------------------------------------------------------------------
@_constexpr
def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (axis % ndim,) if ndim else ()
    return tuple(a % ndim for a in axis)


def var(x, axis=None, ddof=0, keepdims=False):
    """Variance over axis with ddof delta degrees of freedom (numpy's default 0)."""
    return _ops.var(_float(x), axis, ddof, keepdims)


def std(x, axis=None, ddof=0, keepdims=False):
    """Standard deviation over axis (numpy's default ddof 0)."""
    return _ops.std(_float(x), axis, ddof, keepdims)


def ptp(x, axis=None, keepdims=False):
    """max - min over axis."""
    x = _t(x)
    return _ops.amax(x, axis, keepdims) - _ops.amin(x, axis, keepdims)


def average(x, axis=None, weights=None, returned=False):
    """The weighted mean over axis (weights broadcast along it, or of x's shape); with
    returned, also the sum of the weights."""
    x = _float(x)
    if weights is None:
        avg = _ops.mean(x, axis)
        total = _ops.ones_like(avg) * (x.size if axis is None else _np.prod(
            [x.shape[a] for a in _axes(axis, x.ndim)]))
    else:
        w = _float(weights)
        if w.shape != x.shape:
            if axis is None or w.ndim != 1 or not isinstance(axis, int):
                raise TypeError("average: weights of another shape than x need an int axis "
                                "and must be 1-d.")
            shape = [1] * x.ndim
            shape[axis % x.ndim] = w.shape[0]
            w = _ops.reshape(w, tuple(shape))
        total = _ops.sum(w * _ops.ones_like(x), axis)
        avg = _ops.sum(x * w, axis) / total
    return (avg, total) if returned else avg


def count_nonzero(x, axis=None, keepdims=False):
    """The number of non-zero entries over axis."""
    x = _t(x)
    return _ops.sum(_ops.not_equal(x, 0).astype(_C.int64), axis, keepdims)


def _flat_axis(x, axis):
    x = _t(x)
    return (_ops.reshape(x, (-1,)), 0) if axis is None else (x, axis)


def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along axis (of the flattened array when axis is None). Integers narrower
    than int32 and bools sum in int32 (mindspore.numpy's default int, where numpy uses the
    platform int); dtype bool gives whether any element so far is nonzero."""
    x, ax = _flat_axis(a, axis)
    if dtype is not None and _to_dtype(dtype) == _C.bool:
        return _ops.cumsum(_ops.not_equal(x, 0).astype(_C.int32), ax) > 0
    if dtype is not None:
        x = x.astype(_to_dtype(dtype))
    elif x.dtype in (_C.bool, _C.int8, _C.int16, _C.uint8, _C.uint16):
        x = x.astype(_C.int32)
    return _ops.cumsum(x, ax)


def cumprod(a, axis=None, dtype=None):
    """Cumulative product along axis (of the flattened array when axis is None)."""
    x, ax = _flat_axis(a, axis)
    return _ops.cumprod(x if dtype is None else x.astype(dtype), ax)


def _nan_to(x, value):
    x = _float(x)
    return _ops.where(_ops.isnan(x), _ops.ones_like(x) * value, x)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum over axis, NaNs counted as 0."""
    y = _ops.sum(_nan_to(a, 0.0), axis, keepdims)
    return y if dtype is None else y.astype(dtype)


def nancumsum(a, axis=None, dtype=None):
    """Cumulative sum, NaNs counted as 0."""
    return cumsum(_nan_to(a, 0.0), axis, dtype)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean over axis of the non-NaN entries (NaN where there are none)."""
    x = _float(a)
    ok = _ops.logical_not(_ops.isnan(x)).astype(x.dtype)
    y = _ops.sum(_nan_to(x, 0.0), axis, keepdims) / _ops.sum(ok, axis, keepdims)
    return y if dtype is None else y.astype(dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Variance over axis of the non-NaN entries."""
    x = _float(a)
    ok = _ops.logical_not(_ops.isnan(x)).astype(x.dtype)
    n = _ops.sum(ok, axis, True)
    mu = _ops.sum(_nan_to(x, 0.0), axis, True) / n
    dev = _ops.where(_ops.isnan(x), _ops.zeros_like(x), x - mu)
    y = _ops.sum(dev * dev, axis, keepdims) / (_ops.sum(ok, axis, keepdims) - ddof)
    return y if dtype is None else y.astype(dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Standard deviation over axis of the non-NaN entries."""
    return _ops.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


def nanmax(a, axis=None, keepdims=False):
    """Maximum over axis ignoring NaNs."""
    return _ops.amax(_nan_to(a, -_np.inf), axis, keepdims)


def nanmin(a, axis=None, keepdims=False):
    """Minimum over axis ignoring NaNs."""
    return _ops.amin(_nan_to(a, _np.inf), axis, keepdims)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along axis (prepend/append values first; n = 0 returns a
    unchanged, as numpy)."""
    x = _t(a)
    if n == 0:
        return x
    if n < 0:
        raise ValueError(f"For 'diff', n must be non-negative, but got {n}.")
    parts = []
    for extra in (prepend,):
        if extra is not None:
            parts.append(_edge(extra, x, axis))
    parts.append(x)
    if append is not None:
        parts.append(_edge(append, x, axis))
    if len(parts) > 1:
        x = _ops.cat(tuple(p.astype(x.dtype) for p in parts), axis)
    for _ in range(n):
        m = x.shape[axis]
        x = _ops.narrow(x, axis, 1, m - 1) - _ops.narrow(x, axis, 0, m - 1)
    return x


def _edge(v, x, axis):
    v = _t(v)
    if v.ndim == 0:
        shape = list(x.shape)
        shape[axis] = 1
        return _ops.broadcast_to(v.astype(x.dtype), tuple(shape))
    return v


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional ends."""
    x = _ops.reshape(_t(ary), (-1,))
    d = diff(x)
    parts = ([_ops.reshape(_t(to_begin).astype(d.dtype), (-1,))] if to_begin is not None
             else []) + [d] + ([_ops.reshape(_t(to_end).astype(d.dtype), (-1,))]
                               if to_end is not None else [])
    return _ops.cat(tuple(parts), 0) if len(parts) > 1 else d


def trapz(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal-rule integral of y along axis (samples at x, or spaced dx): ops.trapz."""
    return _ops.trapz(_float(y), None if x is None else _t(x), dx=dx, dim=axis)


# ---- polynomials (coefficients highest power first, as numpy.poly1d) -------------------------
def _poly(p):
    """p as 1-d coefficients (a scalar is a constant polynomial, as numpy's atleast_1d)."""
    p = _t(p)
    return _ops.reshape(p, (1,)) if p.ndim == 0 else p


def _pad_front(p, n):
    p = _poly(p)
    k = p.shape[0]
    return p if k == n else _ops.cat((_ops.zeros((n - k,), p.dtype), p), 0)


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a1, a2 = _poly(a1), _poly(a2)
    n = max(a1.shape[0], a2.shape[0])
    return _pad_front(a1, n) + _pad_front(a2, n)


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = _poly(a1), _poly(a2)
    n = max(a1.shape[0], a2.shape[0])
    return _pad_front(a1, n) - _pad_front(a2, n)


def polymul(a1, a2):
    """The product of two polynomials (the full convolution of the coefficients)."""
    return convolve(_poly(a1), _poly(a2), "full")


def polyval(p, x):
    """p evaluated at x by Horner's rule."""
    p, x = _t(p), _t(x)
    y = _ops.zeros_like(x.astype(_C.promote_types(p.dtype, x.dtype)))
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def polyder(p, m=1):
    """The m-th derivative of p."""
    p = _t(p)
    for _ in range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return _ops.zeros((1,), p.dtype)
        powers = _C.Tensor(_np.arange(n, 0, -1)).astype(p.dtype)
        p = _ops.narrow(p, 0, 0, n) * powers
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative of p with integration constants k (0 by default)."""
    p = _float(p)
    ks = [0.0] * m if k is None else ([k] * m if _np.ndim(k) == 0 else list(k))
    for i in range(m):
        n = p.shape[0]
        powers = _C.Tensor(_np.arange(n, 0, -1, dtype=_np.float64)).astype(p.dtype)
        p = _ops.cat((p / powers, _C.Tensor([float(ks[i])]).astype(p.dtype)), 0)
    return p


# ---- convolution, interpolation, phase -------------------------------------------------------
def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-d arrays ('full', 'same' or 'valid')."""
    a, v = _t(a), _t(v)
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    n, k = a.shape[0], v.shape[0]
    dt = _C.promote_types(a.dtype, v.dtype)  # numpy's result dtype
    exact = not dt.is_floating_point and dt not in (_C.complex64, _C.complex128)
    work = _C.int64 if exact else dt  # integer (bool) sums exactly in int64
    full = _ops.cat((_ops.zeros((k - 1,), work), a.astype(work), _ops.zeros((k - 1,), work)), 0)
    idx = _C.Tensor(_np.arange(n + k - 1)[:, None] + _np.arange(k)[None, :])
    windows = _ops.gather(full, idx, 0)  # [n + k - 1, k]
    out = _ops.sum(windows * _ops.flip(v.astype(work), (0,)), 1)
    if mode == "full":
        res = out
    elif mode == "same":
        start = (k - 1) // 2
        res = _ops.narrow(out, 0, start, n)
    elif mode == "valid":
        res = _ops.narrow(out, 0, k - 1, n - k + 1)
    else:
        raise ValueError(f"convolve: mode must be 'full', 'same' or 'valid', but got {mode!r}.")
    return res.astype(dt) if exact else res


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-d arrays, c[k] = sum_n a[n + k] conj(v[n]) (numpy's):
    convolve(a, conj(v) reversed), for either array the longer (convolution commutes)."""
    a, v = _t(a), _t(v)
    if v.dtype in (_C.complex64, _C.complex128):
        v = _ops.conj(v)
    return convolve(a, _ops.flip(v, (0,)), mode)


def interp(x, xp, fp, left=None, right=None):
    """Linear interpolation of the points (xp, fp) (xp increasing) at x; left/right (default
    fp's ends) outside [xp[0], xp[-1]]."""
    x, xp, fp = _float(x), _float(xp), _float(fp)
    n = xp.shape[0]
    # the interval of each x: how many xp are <= x, less one, kept inside [0, n - 2]
    below = _ops.sum(_ops.less_equal(xp, _ops.expand_dims(x, -1)).astype(_C.int64), -1)
    i = _ops.clamp(below - 1, 0, n - 2)
    x0, x1 = _ops.gather(xp, i, 0), _ops.gather(xp, i + 1, 0)
    f0, f1 = _ops.gather(fp, i, 0), _ops.gather(fp, i + 1, 0)
    den = x1 - x0
    t = (x - x0) / _ops.where(_ops.equal(den, 0), _ops.ones_like(den), den)
    y = f0 + t * (f1 - f0)
    lo = fp[0] if left is None else left
    hi = fp[n - 1] if right is None else right
    y = _ops.where(_ops.less(x, xp[0]), _ops.ones_like(y) * lo, y)
    return _ops.where(_ops.greater(x, xp[n - 1]), _ops.ones_like(y) * hi, y)


def unwrap(p, discont=_np.pi, axis=-1):
    """p with jumps larger than discont along axis replaced by their 2 pi complements."""
    p = _float(p)
    m = p.shape[axis]
    dd = _ops.narrow(p, axis, 1, m - 1) - _ops.narrow(p, axis, 0, m - 1)
    ddmod = _ops.remainder(dd + _np.pi, 2 * _np.pi) - _np.pi
    ddmod = _ops.where(_ops.logical_and(_ops.equal(ddmod, -_np.pi), _ops.greater(dd, 0)),
                       _ops.ones_like(ddmod) * _np.pi, ddmod)
    correction = _ops.where(_ops.less(_ops.abs(dd), discont), _ops.zeros_like(dd), ddmod - dd)
    shape = list(p.shape)
    shape[axis] = 1
    return p + _ops.cat((_ops.zeros(tuple(shape), p.dtype), _ops.cumsum(correction, axis)),
                        axis)


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of f by central differences inside and one-sided ones at the edges
    (edge_order 1), along each axis (or `axis`); spacing varargs: scalars per axis."""
    f = _float(f)
    axes = _axes(axis, f.ndim)
    spacing = list(varargs) if varargs else [1.0] * len(axes)
    if len(spacing) == 1 and len(axes) > 1:
        spacing = spacing * len(axes)
    outs = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < 2:
            raise ValueError("gradient: each differentiated axis needs at least 2 points.")
        first = (_ops.narrow(f, ax, 1, 1) - _ops.narrow(f, ax, 0, 1)) / h
        last = (_ops.narrow(f, ax, n - 1, 1) - _ops.narrow(f, ax, n - 2, 1)) / h
        parts = [first]
        if n > 2:
            parts.append((_ops.narrow(f, ax, 2, n - 2) - _ops.narrow(f, ax, 0, n - 2)) / (2 * h))
        parts.append(last)
        outs.append(_ops.cat(tuple(parts), ax))
    return outs[0] if len(outs) == 1 else outs
