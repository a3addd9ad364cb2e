"""Distributions whose densities need the log-gamma function: Gamma, Beta, StudentT
(MindSpore 2.x's classes of those names).

log-gamma and digamma are composed from elementwise ops (``_utils/custom_ops.py``). Their
cdfs need the regularized incomplete gamma and beta functions, and sampling Gamma and Beta
needs a gamma-variate generator; the op table has neither kernel (Igamma, Betainc,
RandomGamma), so those methods raise NotImplementedError naming the missing op rather than
approximating them.
"""
import math

from mycel import ops
from mycel.common import dtype as mstype
from mycel.nn.probability.distribution.continuous import _Continuous
from mycel.nn.probability.distribution._utils.utils import (
    check_distribution_name, raise_not_implemented_util)
from mycel.nn.probability.distribution._utils.custom_ops import lgamma, digamma, lbeta


def _check_scalars(values, owner):
    """Gamma/Beta: the two parameters are both Python numbers or both arrays, as
    MindSpore requires (a number with a list is a TypeError)."""
    kinds = {isinstance(v, (int, float)) and not isinstance(v, bool)
             for v in values if v is not None}
    if len(kinds) > 1:
        raise TypeError(f"For '{owner}', the parameters should be all scalars or all "
                        "tensors/arrays/lists.")


class Gamma(_Continuous):
    """The gamma distribution with shape `concentration` and `rate` (both > 0):
    pdf rate^c x^(c-1) exp(-rate x) / Gamma(c)."""
    _names = ("concentration", "rate")
    _positive = ("concentration", "rate")
    _family = "Gamma"

    def __init__(self, concentration=None, rate=None, seed=None, dtype=mstype.float32,
                 name="Gamma"):
        _check_scalars((concentration, rate), name)
        super().__init__((concentration, rate), seed, dtype, name, dict(locals()))

    def _get_dist_args(self, concentration=None, rate=None):
        return super()._get_dist_args(concentration, rate)

    def _mean(self, concentration=None, rate=None):
        c, r = self._check_param_type(concentration, rate)
        return c / r

    def _var(self, concentration=None, rate=None):
        c, r = self._check_param_type(concentration, rate)
        return c / (r * r)

    def _mode(self, concentration=None, rate=None):
        c, r = self._check_param_type(concentration, rate)
        out = (c - 1.0) / r
        return ops.select(c >= 1.0, out, ops.zeros_like(out) + float("nan"))

    def _entropy(self, concentration=None, rate=None):
        c, r = self._check_param_type(concentration, rate)
        return c - ops.log(r) + lgamma(c) + (1.0 - c) * digamma(c)

    def _log_prob(self, value, concentration=None, rate=None):
        value = self._value(value)
        c, r = self._check_param_type(concentration, rate)
        out = ops.xlogy(c, r) + ops.xlogy(c - 1.0, value) - r * value - lgamma(c)
        return ops.select(value < 0.0, ops.zeros_like(out) - float("inf"), out)

    def _cdf(self, value, *args, **kwargs):
        return raise_not_implemented_util("cdf (needs an Igamma kernel)", self._name)

    def _kl_loss(self, dist, concentration_b, rate_b, concentration=None, rate=None):
        check_distribution_name(dist, "Gamma")
        cb, rb = self._other(concentration_b, "concentration_b"), self._other(rate_b, "rate_b")
        ca, ra = self._check_param_type(concentration, rate)
        return ((ca - cb) * digamma(ca) + lgamma(cb) - lgamma(ca)
                + cb * (ops.log(ra) - ops.log(rb)) + ca * (rb - ra) / ra)

    def _cross_entropy(self, dist, concentration_b, rate_b, concentration=None, rate=None):
        check_distribution_name(dist, "Gamma")
        return (self._entropy(concentration, rate)
                + self._kl_loss(dist, concentration_b, rate_b, concentration, rate))

    def _sample(self, *args, **kwargs):
        return raise_not_implemented_util("sample (needs a RandomGamma kernel)", self._name)


class Beta(_Continuous):
    """The beta distribution on (0, 1) with `concentration1` (alpha) and `concentration0`
    (beta), both > 0: pdf x^(a-1) (1-x)^(b-1) / B(a, b)."""
    _names = ("concentration1", "concentration0")
    _positive = ("concentration1", "concentration0")
    _family = "Beta"

    def __init__(self, concentration1=None, concentration0=None, seed=None,
                 dtype=mstype.float32, name="Beta"):
        _check_scalars((concentration1, concentration0), name)
        super().__init__((concentration1, concentration0), seed, dtype, name, dict(locals()))

    def _get_dist_args(self, concentration1=None, concentration0=None):
        return super()._get_dist_args(concentration1, concentration0)

    def _mean(self, concentration1=None, concentration0=None):
        a, b = self._check_param_type(concentration1, concentration0)
        return a / (a + b)

    def _var(self, concentration1=None, concentration0=None):
        a, b = self._check_param_type(concentration1, concentration0)
        s = a + b
        return a * b / (s * s * (s + 1.0))

    def _mode(self, concentration1=None, concentration0=None):
        a, b = self._check_param_type(concentration1, concentration0)
        out = (a - 1.0) / (a + b - 2.0)
        ok = ops.logical_and(a > 1.0, b > 1.0)
        return ops.select(ok, out, ops.zeros_like(out) + float("nan"))

    def _entropy(self, concentration1=None, concentration0=None):
        a, b = self._check_param_type(concentration1, concentration0)
        return (lbeta(a, b) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b)
                + (a + b - 2.0) * digamma(a + b))

    def _log_prob(self, value, concentration1=None, concentration0=None):
        value = self._value(value)
        a, b = self._check_param_type(concentration1, concentration0)
        out = ops.xlogy(a - 1.0, value) + ops.xlogy(b - 1.0, 1.0 - value) - lbeta(a, b)
        inside = ops.logical_and(value >= 0.0, value <= 1.0)
        return ops.select(inside, out, ops.zeros_like(out) - float("inf"))

    def _cdf(self, value, *args, **kwargs):
        return raise_not_implemented_util("cdf (needs a Betainc kernel)", self._name)

    def _kl_loss(self, dist, concentration1_b, concentration0_b, concentration1=None,
                 concentration0=None):
        check_distribution_name(dist, "Beta")
        ab = self._other(concentration1_b, "concentration1_b")
        bb = self._other(concentration0_b, "concentration0_b")
        a, b = self._check_param_type(concentration1, concentration0)
        return (lbeta(ab, bb) - lbeta(a, b) + (a - ab) * digamma(a) + (b - bb) * digamma(b)
                + (ab - a + bb - b) * digamma(a + b))

    def _cross_entropy(self, dist, concentration1_b, concentration0_b, concentration1=None,
                       concentration0=None):
        check_distribution_name(dist, "Beta")
        return (self._entropy(concentration1, concentration0)
                + self._kl_loss(dist, concentration1_b, concentration0_b, concentration1,
                                concentration0))

    def _sample(self, *args, **kwargs):
        return raise_not_implemented_util("sample (needs a RandomGamma kernel)", self._name)


class StudentT(_Continuous):
    """Student's t distribution with `df` > 0 degrees of freedom, `loc` and `scale` > 0."""
    _names = ("df", "loc", "scale")
    _positive = ("df", "scale")
    _family = "StudentT"

    def __init__(self, df=None, loc=None, scale=None, seed=None, dtype=mstype.float32,
                 name="StudentT"):
        super().__init__((df, loc, scale), seed, dtype, name, dict(locals()))

    def _get_dist_args(self, df=None, loc=None, scale=None):
        return super()._get_dist_args(df, loc, scale)

    def _mean(self, df=None, loc=None, scale=None):
        df, loc, scale = self._check_param_type(df, loc, scale)
        return ops.select(df > 1.0, loc, ops.zeros_like(loc) + float("nan"))

    def _mode(self, df=None, loc=None, scale=None):
        df, loc, scale = self._check_param_type(df, loc, scale)
        return loc

    def _var(self, df=None, loc=None, scale=None):
        df, loc, scale = self._check_param_type(df, loc, scale)
        out = scale * scale * df / (df - 2.0)
        inf = ops.zeros_like(out) + float("inf")
        nan = ops.zeros_like(out) + float("nan")
        return ops.select(df > 2.0, out, ops.select(df > 1.0, inf, nan))

    def _entropy(self, df=None, loc=None, scale=None):
        df, loc, scale = self._check_param_type(df, loc, scale)
        h = 0.5 * df
        return ((df + 1.0) * 0.5 * (digamma(h + 0.5) - digamma(h)) + 0.5 * ops.log(df)
                + lbeta(h, ops.zeros_like(h) + 0.5) + ops.log(scale))

    def _log_prob(self, value, df=None, loc=None, scale=None):
        value = self._value(value)
        df, loc, scale = self._check_param_type(df, loc, scale)
        z = (value - loc) / scale
        return (lgamma(0.5 * (df + 1.0)) - lgamma(0.5 * df) - 0.5 * ops.log(df * math.pi)
                - ops.log(scale) - 0.5 * (df + 1.0) * ops.log1p(z * z / df))

    def _cdf(self, value, *args, **kwargs):
        return raise_not_implemented_util("cdf (needs a Betainc kernel)", self._name)

    def _sample(self, *args, **kwargs):
        return raise_not_implemented_util("sample (needs a RandomGamma kernel)", self._name)
