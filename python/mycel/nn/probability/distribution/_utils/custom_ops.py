"""Elementwise special functions the distributions need, composed from the op table's
elementwise ops, so they run (and differentiate) in both modes like any other ops.

- ``lgamma(x)`` for x > 0: Lanczos' approximation (g = 7, 9 coefficients), after shifting
  x < 1 up by one (lgamma(x) = lgamma(x + 1) - log(x)); about 1e-7 relative in float32;
- ``digamma(x)`` for x > 0: the recurrence psi(x) = psi(x + 6) - sum 1/(x + k) and the
  asymptotic series at x + 6 >= 6 (error below 1e-9);
- ``lbeta(a, b)`` = lgamma(a) + lgamma(b) - lgamma(a + b).

The op table has no Lgamma/Digamma/Igamma kernels yet; these compositions are exact to the
dtype's precision on the positive reals, which is where distributions evaluate them.
"""
import math

from mycel import ops

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
EULER_GAMMA = 0.5772156649015329


def exp_generic(x):
    """exp(x)."""
    return ops.exp(x)


def log_generic(x):
    """log(x) (-inf at 0, nan below)."""
    return ops.log(x)


def log1p_generic(x):
    """log(1 + x)."""
    return ops.log1p(x)


def broadcast_to(x, target):
    """`x` broadcast to the shape of tensor `target`."""
    return x + ops.zeros_like(target)


def lgamma(x):
    """log|Gamma(x)| for x > 0 (module docstring)."""
    small = x < 1.0
    z = ops.select(small, x + 1.0, x) - 1.0
    a = ops.zeros_like(z) + _LANCZOS[0]
    for i in range(1, 9):
        a = a + _LANCZOS[i] / (z + float(i))
    t = z + (_LANCZOS_G + 0.5)
    out = _HALF_LOG_2PI + (z + 0.5) * ops.log(t) - t + ops.log(a)
    return ops.select(small, out - ops.log(x), out)


def digamma(x):
    """The digamma function psi(x) = d/dx lgamma(x) for x > 0 (module docstring)."""
    shift = ops.zeros_like(x)
    y = x
    for _ in range(6):
        shift = shift + 1.0 / y
        y = y + 1.0
    r = 1.0 / (y * y)
    series = r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r / 132))))
    return ops.log(y) - 0.5 / y - series - shift


def lbeta(a, b):
    """log B(a, b) for a, b > 0."""
    return lgamma(a) + lgamma(b) - lgamma(a + b)
