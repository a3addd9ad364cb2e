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

Special functions of MindSpore 2.x composed from elementwise ops (both modes; gradients
from the ops they are made of): the Bessel functions bessel_j0, j1, y0, y1, i0, i0e, i1, i1e,
k0, k0e, k1, k1e; the Hurwitz zeta function zeta(x, q) and polygamma(n, x); the regularized
incomplete gamma functions igamma (P) and igammac (Q).

Each computes in float64 and returns the input's float dtype (float32 for integers).

- Bessel: the power series below a crossover and the Hankel asymptotic expansions above it
  (J, Y: |x| <= 12; I: |x| <= 20; K: x <= 8), both selected elementwise with guarded
  operands, so no NaN reaches a gradient through the branch not taken. Y and K use the
  series with harmonic numbers (Y0 = 2/pi (ln(x/2) + gamma) J0 + ..., K0 = -(ln(x/2) +
  gamma) I0 + ...). Accuracy in float64: J, Y about 1e-11 absolute near the crossover (the
  series' cancellation and the asymptotic truncation meet there), I, I-e about 1e-14
  relative, K, K-e about 1e-8 relative near x = 8; float32 results are correctly rounded.
  Y and K are NaN for x < 0 and -inf / +inf at 0, as scipy's.
- zeta(x, q) = sum_k (q + k)^-x by Euler-Maclaurin: 12 terms summed, the tail as the
  integral, the midpoint term and 8 Bernoulli corrections (about 1e-15 relative for x > 1,
  q > -2); +inf at x = 1, NaN for x < 1. polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for
  n >= 1, digamma for n = 0.
- igamma(a, x) = P(a, x): the series x^a e^-x / Gamma(a + 1) sum x^n / ((a+1)...(a+n))
  (120 terms) for x < a + 1, else 1 - Q from Legendre's continued fraction (80 steps of the
  modified Lentz recurrence). igammac = 1 - igamma computed the other way round. Good to
  about 1e-13 for a, x up to a few hundred.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m
from mycel.ops.function._util import as_tensor
from mycel.ops.primitive import constexpr
from mycel.ops.function._util import prim, one_int

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


__all__ = ["lgamma", "digamma", "i0", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_k0", "bessel_k0e",
           "bessel_k1", "bessel_k1e", "zeta", "polygamma", "igamma", "igammac"]


_EULER = 0.5772156649015329


_TERMS = 45  # series terms: (x/2)^2k / (k!)^2 < 1e-20 of the largest for |x| <= 20


def _as_f64(x, op):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    return prim("Cast")(x, _C.float64), _out_dtype(x.dtype, op)


def _where(c, a, b):
    return prim("Select")(c, a, b)


def _series(x, n, alternating):
    """sum_k (+-1)^k (x/2)^(2k+n) / (k! (k+n)!) for n = 0, 1 (J_n when alternating, I_n)."""
    h = x * 0.5
    q = h * h
    term = h if n == 1 else prim("OnesLike")(x)
    total = term
    for k in range(1, _TERMS):
        term = term * q * (1.0 / (k * (k + n)))
        if alternating:
            term = -term
        total = total + term
    return total


def _harmonic_series(x, n, alternating):
    """sum_k (+-1)^k c_k (x/2)^(2k+n) / (k! (k+n)!), c_k = H_k for n = 0 (k >= 1) and
    psi(k+1) + psi(k+2) + 2 gamma = H_k + H_(k+1) for n = 1."""
    h = x * 0.5
    q = h * h
    term = h if n == 1 else prim("OnesLike")(x)
    total = term * (1.0 if n == 1 else 0.0)  # c_0: H_0 + H_1 = 1 for n = 1, H_0 = 0 for n = 0
    hk = 0.0
    for k in range(1, _TERMS):
        term = term * q * (1.0 / (k * (k + n)))
        if alternating:
            term = -term
        hk += 1.0 / k
        c = hk if n == 0 else hk + (hk + 1.0 / (k + 1))
        total = total + term * c
    return total


def _hankel(x, n, terms):
    """(P, Q) of the Hankel expansion of order n at x > 0 (x large)."""
    mu = 4.0 * n * n
    p = prim("OnesLike")(x)
    q = prim("ZerosLike")(x)
    coef = 1.0
    inv = 1.0 / x
    power = prim("OnesLike")(x)
    for k in range(1, terms):
        coef = coef * (mu - (2 * k - 1) ** 2) / (k * 8.0)
        power = power * inv
        sign = (-1.0) ** (k // 2)
        if k % 2:
            q = q + power * (coef * sign)
        else:
            p = p + power * (coef * sign)
    return p, q


def _asym_jy(x, n, want_y):
    p, q = _hankel(x, n, 24)
    chi = x - (0.5 * n + 0.25) * math.pi
    amp = prim("Sqrt")(2.0 / (math.pi * x))
    if want_y:
        return amp * (p * prim("Sin")(chi) + q * prim("Cos")(chi))
    return amp * (p * prim("Cos")(chi) - q * prim("Sin")(chi))


def _asym_ik(x, n, kind, terms):
    """e^-x sqrt(2 pi x) I_n(x) (kind 'i') or e^x sqrt(2x/pi) K_n(x) (kind 'k') series,
    truncated after `terms` (before the terms start growing, about 2x)."""
    mu = 4.0 * n * n
    total = prim("OnesLike")(x)
    coef = 1.0
    power = prim("OnesLike")(x)
    inv = 1.0 / x
    for k in range(1, terms):
        coef = coef * (mu - (2 * k - 1) ** 2) / (k * 8.0)
        power = power * inv
        total = total + power * (coef * ((-1.0) ** k if kind == "i" else 1.0))
    return total


_J_CUT, _I_CUT, _K_CUT = 12.0, 20.0, 8.0


def _bessel_j(input, n, op):  # noqa: A002
    x, dt = _as_f64(input, op)
    a = prim("Abs")(x)
    small = prim("LessEqual")(a, _J_CUT)
    xs = _where(small, a, prim("ZerosLike")(a))
    xl = _where(small, prim("ZerosLike")(a) + 2 * _J_CUT, a)
    out = _where(small, _series(xs, n, True), _asym_jy(xl, n, False))
    if n == 1:
        out = out * prim("Sign")(x)
    return prim("Cast")(out, dt)


def _bessel_y(input, n, op):  # noqa: A002
    x, dt = _as_f64(input, op)
    pos = prim("Greater")(x, 0.0)
    small = prim("LogicalAnd")(pos, prim("LessEqual")(x, _J_CUT))
    xs = _where(small, x, prim("OnesLike")(x))
    xl = _where(prim("Greater")(x, _J_CUT), x, prim("ZerosLike")(x) + 2 * _J_CUT)
    log = prim("Log")(xs * 0.5)
    if n == 0:
        ser = (2.0 / math.pi) * ((log + _EULER) * _series(xs, 0, True) -
                                 _harmonic_series(xs, 0, True))
    else:
        ser = ((2.0 / math.pi) * log * _series(xs, 1, True) - 2.0 / (math.pi * xs) -
               (1.0 / math.pi) * (_harmonic_series(xs, 1, True) - 2.0 * _EULER *
                                  _series(xs, 1, True)))
    out = _where(small, ser, _asym_jy(xl, n, True))
    zero = prim("ZerosLike")(x)
    out = _where(prim("Equal")(x, 0.0), zero - math.inf, out)
    out = _where(prim("Less")(x, 0.0), zero + math.nan, out)
    return prim("Cast")(out, dt)


def _bessel_i(input, n, scaled, op):  # noqa: A002
    x, dt = _as_f64(input, op)
    a = prim("Abs")(x)
    small = prim("LessEqual")(a, _I_CUT)
    xs = _where(small, a, prim("ZerosLike")(a))
    xl = _where(small, prim("ZerosLike")(a) + 2 * _I_CUT, a)
    ser = _series(xs, n, False)
    asym = _asym_ik(xl, n, "i", 36) / prim("Sqrt")(xl * (2.0 * math.pi))
    if scaled:
        out = _where(small, ser * prim("Exp")(-xs), asym)
    else:
        out = _where(small, ser, asym * prim("Exp")(xl))
    if n == 1:
        out = out * prim("Sign")(x)
    return prim("Cast")(out, dt)


def _bessel_k(input, n, scaled, op):  # noqa: A002
    x, dt = _as_f64(input, op)
    pos = prim("Greater")(x, 0.0)
    small = prim("LogicalAnd")(pos, prim("LessEqual")(x, _K_CUT))
    xs = _where(small, x, prim("OnesLike")(x))
    xl = _where(prim("Greater")(x, _K_CUT), x, prim("ZerosLike")(x) + 2 * _K_CUT)
    log = prim("Log")(xs * 0.5)
    if n == 0:
        ser = -(log + _EULER) * _series(xs, 0, False) + _harmonic_series(xs, 0, False)
    else:
        ser = (1.0 / xs + log * _series(xs, 1, False) -
               0.5 * (_harmonic_series(xs, 1, False) - 2.0 * _EULER * _series(xs, 1, False)))
    asym = _asym_ik(xl, n, "k", 16) * prim("Sqrt")(math.pi / (2.0 * xl))
    if scaled:
        out = _where(small, ser * prim("Exp")(xs), asym)
    else:
        out = _where(small, ser, asym * prim("Exp")(-xl))
    zero = prim("ZerosLike")(x)
    out = _where(prim("Equal")(x, 0.0), zero + math.inf, out)
    out = _where(prim("Less")(x, 0.0), zero + math.nan, out)
    return prim("Cast")(out, dt)


def bessel_j0(x):
    """The Bessel function of the first kind of order 0."""
    return _bessel_j(x, 0, "bessel_j0")


def bessel_j1(x):
    """The Bessel function of the first kind of order 1."""
    return _bessel_j(x, 1, "bessel_j1")


def bessel_y0(x):
    """The Bessel function of the second kind of order 0 (NaN for x < 0)."""
    return _bessel_y(x, 0, "bessel_y0")


def bessel_y1(x):
    """The Bessel function of the second kind of order 1 (NaN for x < 0)."""
    return _bessel_y(x, 1, "bessel_y1")


def bessel_i0(x):
    """The modified Bessel function of the first kind of order 0."""
    return _bessel_i(x, 0, False, "bessel_i0")


def bessel_i0e(x):
    """exp(-|x|) I0(x)."""
    return _bessel_i(x, 0, True, "bessel_i0e")


def bessel_i1(x):
    """The modified Bessel function of the first kind of order 1."""
    return _bessel_i(x, 1, False, "bessel_i1")


def bessel_i1e(x):
    """exp(-|x|) I1(x)."""
    return _bessel_i(x, 1, True, "bessel_i1e")


def bessel_k0(x):
    """The modified Bessel function of the second kind of order 0 (NaN for x < 0)."""
    return _bessel_k(x, 0, False, "bessel_k0")


def bessel_k0e(x):
    """exp(x) K0(x)."""
    return _bessel_k(x, 0, True, "bessel_k0e")


def bessel_k1(x):
    """The modified Bessel function of the second kind of order 1 (NaN for x < 0)."""
    return _bessel_k(x, 1, False, "bessel_k1")


def bessel_k1e(x):
    """exp(x) K1(x)."""
    return _bessel_k(x, 1, True, "bessel_k1e")


_ZETA_N = 12


# B_2j / (2j)! for j = 1..8
_BERNOULLI = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6,
              -3617.0 / 510)


_B_OVER_FACT = tuple(b / math.factorial(2 * (j + 1)) for j, b in enumerate(_BERNOULLI))


def _zeta64(s, q):
    total = prim("ZerosLike")(s + q)
    for k in range(_ZETA_N):
        total = total + prim("Pow")(q + float(k), -s)
    a = q + float(_ZETA_N)
    total = total + prim("Pow")(a, 1.0 - s) / (s - 1.0) + 0.5 * prim("Pow")(a, -s)
    fac = s  # s (s + 1) ... (s + 2j - 2)
    power = prim("Pow")(a, -s - 1.0)
    inv2 = 1.0 / (a * a)
    for j, c in enumerate(_B_OVER_FACT):
        total = total + fac * power * c
        fac = fac * (s + (2 * j + 1)) * (s + (2 * j + 2))
        power = power * inv2
    return total


def zeta(input, other):  # noqa: A002
    """The Hurwitz zeta function sum_k (other + k)^-input (module docstring)."""
    s, dt = _as_f64(input, "zeta")
    q, _ = _as_f64(other, "zeta")
    ok = prim("Greater")(s, 1.0)
    s_safe = _where(ok, s, prim("OnesLike")(s) * 2.0)
    out = _zeta64(s_safe, q)
    zero = prim("ZerosLike")(out)
    out = _where(prim("BroadcastTo", shape=out.shape)(ok), out,
                 _where(prim("BroadcastTo", shape=out.shape)(prim("Equal")(s, 1.0)),
                        zero + math.inf, zero + math.nan))
    return prim("Cast")(out, dt)


def polygamma(n, input):  # noqa: A002
    """The n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x) (n >= 1), digamma for 0.
    n is an int or an integer tensor of one value."""
    k = _order(n)
    if k == 0:
        return digamma(input)
    x, dt = _as_f64(input, "polygamma")
    z = _zeta64(prim("ZerosLike")(x) + float(k + 1), x)
    return prim("Cast")(z * (((-1.0) ** (k + 1)) * math.factorial(k)), dt)


@constexpr
def _order(n):
    n = one_int(n, "polygamma", "n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For 'polygamma', n must be a non-negative int, but got {n!r}.")
    return n


_IG_SERIES, _IG_CF = 120, 80


def _igamma_parts(a, x):
    """(P by the series, Q by the continued fraction, use_series) in float64; guarded
    operands where each is not used."""
    use_series = prim("Less")(x, a + 1.0)
    xs = _where(use_series, x, prim("ZerosLike")(x))
    # series: P = exp(a ln x - x - lgamma(a + 1)) * sum x^n / ((a+1)...(a+n))
    term = prim("OnesLike")(x)
    total = term
    for k in range(1, _IG_SERIES):
        term = term * xs / (a + float(k))
        total = total + term
    logx = prim("Log")(_where(prim("Greater")(xs, 0.0), xs, prim("OnesLike")(xs)))
    pre = prim("Exp")(a * logx - xs - lgamma(a + 1.0))
    p = _where(prim("Equal")(xs, 0.0), prim("ZerosLike")(x), pre * total)
    # continued fraction for Q (modified Lentz)
    xc = _where(use_series, a + 2.0, x)
    tiny = 1e-300
    b = xc + 1.0 - a
    c = prim("OnesLike")(x) / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _IG_CF):
        an = -float(i) * (float(i) - a)
        b = b + 2.0
        d = an * d + b
        d = _where(prim("Less")(prim("Abs")(d), tiny), prim("ZerosLike")(d) + tiny, d)
        c = b + an / c
        c = _where(prim("Less")(prim("Abs")(c), tiny), prim("ZerosLike")(c) + tiny, c)
        d = 1.0 / d
        h = h * d * c
    q = prim("Exp")(a * prim("Log")(xc) - xc - lgamma(a)) * h
    return p, q, use_series


def _igamma(a_in, x_in, upper, op):
    a, dt = _as_f64(a_in, op)
    x, _ = _as_f64(x_in, op)
    a, x = a + prim("ZerosLike")(x), x + prim("ZerosLike")(a)
    bad = prim("LogicalOr")(prim("LessEqual")(a, 0.0), prim("Less")(x, 0.0))
    a_s = _where(bad, prim("OnesLike")(a), a)
    x_s = _where(bad, prim("OnesLike")(x), x)
    p, q, use_series = _igamma_parts(a_s, x_s)
    lower = _where(use_series, p, 1.0 - q)
    out = _where(use_series, 1.0 - p, q) if upper else lower
    out = _where(bad, prim("ZerosLike")(out) + math.nan, out)
    return prim("Cast")(out, dt)


def igamma(input, other):  # noqa: A002
    """The regularized lower incomplete gamma function P(input, other) (a > 0, x >= 0)."""
    return _igamma(input, other, False, "igamma")


def igammac(input, other):  # noqa: A002
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P."""
    return _igamma(input, other, True, "igammac")


# ---- the derivative of igamma in a (MindSpore's _grad_ops.IgammaGradA) --------------------

_IGA_TERMS = 1000  # the series' terms: its peak is near n = x - a, so x up to ~800 is summed


def _igamma_grad_a(a, x):
    """dP(a, x)/da, elementwise (a > 0, x >= 0; NaN elsewhere): the series of P,
    x^a e^-x sum_n x^n / Gamma(a + n + 1), differentiated term by term, each term times
    (log x - digamma(a + n + 1)); summed in float64 over 1000 terms (about 1e-12 absolute for
    x below ~800). The result has a's float dtype (float32 for integers)."""
    a64, dt = _as_f64(a, "IgammaGradA")
    x64, _ = _as_f64(x, "IgammaGradA")
    a64, x64 = a64 + _m.mul(x64, 0.0), x64 + _m.mul(a64, 0.0)
    n = _iga_terms(len(a64.shape))
    aa, xx = prim("ExpandDims")(a64, -1), prim("ExpandDims")(x64, -1)
    pos = _m.greater(xx, 0.0)
    logx = _m.log(_m.where(pos, xx, _m.add(_m.mul(xx, 0.0), 1.0)))
    ap = aa + n + 1.0
    term = _m.exp((aa + n) * logx - xx - lgamma(ap))
    d = prim("ReduceSum")(term * (logx - digamma(ap)), (-1,))
    d = _m.where(_m.equal(x64, 0.0), _m.mul(x64, 0.0), d)
    bad = _m.logical_or(_m.less_equal(a64, 0.0), _m.less(x64, 0.0))
    return _m.where(bad, _m.add(_m.mul(x64, 0.0), float("nan")), d).astype(dt)


@constexpr
def _iga_terms(ndim):
    return _C.Tensor(np.arange(_IGA_TERMS, dtype=np.float64).reshape((1,) * ndim + (-1,)))
