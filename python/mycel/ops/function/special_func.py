"""Special functions composed from elementwise ops: lgamma, digamma, i0 (ops.* and Tensor
methods). Each computes in float64 and returns the input's float dtype (float32 for an
integer input), so float32 results are correctly rounded to about 1e-7; gradients come from
the ops they are made of (lgamma's is digamma to the same accuracy).

- lgamma: the Lanczos approximation (g = 7, 9 terms; Numerical Recipes' form) for x >= 0.5,
  the reflection log(pi / |sin(pi x)|) - lgamma(1 - x) below; +inf at the poles (0, -1, ...).
- digamma: the recurrence psi(x) = psi(x + 6) - sum 1/(x + k) and the asymptotic series in
  1/y^2 for x >= 0.5, the reflection psi(1 - x) - pi / tan(pi x) below; -inf at 0 and nan
  at -1, -2, ... (as torch and scipy).
- i0 (modified Bessel function of order 0): its power series sum ((x/2)^k / k!)^2 for
  |x| <= 20, the asymptotic series e^|x| / sqrt(2 pi |x|) * sum c_k / |x|^k above.
"""
import math

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m
from mycel.ops.function._util import as_tensor
from mycel.ops.primitive import constexpr

_LANCZOS_G = 7.0
# Lanczos coefficients for g = 7, n = 9 (the widely published values).
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)


@constexpr
def _out_dtype(dtype, op):
    """The result dtype of a special function (float inputs keep theirs, integers and bool give
    float32), or a TypeError naming the op."""
    if dtype in (_C.float16, _C.float32, _C.float64):
        return dtype
    if dtype in (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8, _C.uint16, _C.uint32,
                 _C.uint64, _C.bool):
        return _C.float32
    raise TypeError(f"For '{op}', the input must be a real tensor, but got {dtype}.")


def _f64(x, op):
    x = as_tensor(x)
    return x.astype(_C.float64), _out_dtype(x.dtype, op)


def _lgamma_pos(z):
    # lgamma(z) for z >= 0.5 (Lanczos)
    zm = _m.sub(z, 1.0)
    acc = _m.add(_m.mul(zm, 0.0), _LANCZOS[0])
    for k in range(1, 9):
        acc = _m.add(acc, _m.div(_LANCZOS[k], _m.add(zm, float(k))))
    t = _m.add(zm, _LANCZOS_G + 0.5)
    return _m.add(_m.add(0.5 * math.log(2 * math.pi), _m.mul(_m.add(zm, 0.5), _m.log(t))),
                  _m.sub(_m.log(acc), t))


def lgamma(input):  # noqa: A002 (MindSpore's argument name)
    """log |Gamma(x)|, elementwise."""
    x, dt = _f64(input, "lgamma")
    low = _m.less(x, 0.5)
    pos = _lgamma_pos(_m.where(low, _m.sub(1.0, x), x))  # 1 - x >= 0.5 below 0.5
    s = _m.abs(_m.sin(_m.mul(x, math.pi)))
    reflected = _m.sub(_m.log(_m.div(math.pi, s)), pos)
    out = _m.where(low, reflected, pos)
    pole = _m.logical_and(low, _m.equal(_m.floor(x), x))  # 0, -1, -2, ...: +inf
    return _m.where(pole, _m.add(_m.mul(x, 0.0), float("inf")), out).astype(dt)


def _digamma_pos(z):
    # psi(z) for z >= 0.5: up to z + 6, then the asymptotic series
    shift = _m.mul(z, 0.0)
    for k in range(6):
        shift = _m.add(shift, _m.div(1.0, _m.add(z, float(k))))
    y = _m.add(z, 6.0)
    r = _m.div(1.0, _m.mul(y, y))
    # 1/12 - r/120 + r^2/252 - r^3/240 + r^4/132 (Bernoulli numbers B_2k / (2k))
    series = _m.mul(r, _m.sub(1.0 / 12, _m.mul(r, _m.sub(1.0 / 120, _m.mul(r, _m.sub(
        1.0 / 252, _m.mul(r, _m.sub(1.0 / 240, _m.mul(r, 1.0 / 132)))))))))
    return _m.sub(_m.sub(_m.sub(_m.log(y), _m.div(0.5, y)), series), shift)


def digamma(input):  # noqa: A002
    """psi(x) = d/dx log Gamma(x), elementwise (nan at 0, -1, -2, ...)."""
    x, dt = _f64(input, "digamma")
    low = _m.less(x, 0.5)
    pos = _digamma_pos(_m.where(low, _m.sub(1.0, x), x))
    reflected = _m.sub(pos, _m.div(math.pi, _m.tan(_m.mul(x, math.pi))))
    pole = _m.logical_and(low, _m.equal(_m.floor(x), x))
    out = _m.where(low, reflected, pos)
    out = _m.where(pole, _m.add(_m.mul(x, 0.0), float("nan")), out)
    return _m.where(_m.equal(x, 0.0), _m.add(_m.mul(x, 0.0), float("-inf")), out).astype(dt)


_I0_TERMS = 60  # the series' terms for |x| <= 20 (the last is below 1e-25 of the sum)
# asymptotic coefficients: c_k = ((2k - 1)!!)^2 / (k! 8^k)
_I0_ASYM = tuple(math.prod(range(1, 2 * k, 2)) ** 2 / (math.factorial(k) * 8 ** k)
                 for k in range(12))


def i0(input):  # noqa: A002
    """The modified Bessel function of the first kind, order 0, elementwise."""
    x, dt = _f64(input, "i0")
    a = _m.abs(x)
    small = _m.less_equal(a, 20.0)
    xs = _m.where(small, a, _m.mul(a, 0.0))
    q = _m.mul(_m.mul(xs, xs), 0.25)
    term = _m.add(_m.mul(xs, 0.0), 1.0)
    total = term
    for k in range(1, _I0_TERMS):
        term = _m.div(_m.mul(term, q), float(k * k))
        total = _m.add(total, term)
    xl = _m.where(small, _m.add(_m.mul(a, 0.0), 21.0), a)
    inv = _m.div(1.0, xl)
    poly = _m.add(_m.mul(xl, 0.0), _I0_ASYM[-1])
    for c in reversed(_I0_ASYM[:-1]):
        poly = _m.add(_m.mul(poly, inv), c)
    large = _m.mul(_m.div(_m.exp(xl), _m.sqrt(_m.mul(xl, 2 * math.pi))), poly)
    return _m.where(small, total, large).astype(dt)


__all__ = ["lgamma", "digamma", "i0"]
