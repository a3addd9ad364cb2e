"""Discrete distributions: Bernoulli, Geometric, Categorical, Poisson (MindSpore 2.x's
classes of those names).

Their samples have the distribution's `dtype` (int32 by default; an int or float type);
probabilities are computed in float32. Bernoulli and Geometric sample by inverting the
cdf of a uniform draw, Categorical by counting the cumulative probabilities below a uniform
draw (exact inverse-cdf sampling), Poisson with the op table's RandomPoisson kernel.
"""
import numpy as np

from mycel import ops
from mycel.common.tensor import Tensor
from mycel.ops.primitive import constexpr
from mycel.common import dtype as mstype
from mycel.nn.probability.distribution.distribution import Distribution
from mycel.nn.probability.distribution._utils.utils import (
    check_prob, check_greater_zero, check_dtype, check_distribution_name, check_tensor,
    check_sum_equal_one, check_rank, raise_probs_logits_error)
from mycel.nn.probability.distribution._utils.custom_ops import lgamma

_TINY = 1e-7


@constexpr
def _shape_tensor(shape):
    return Tensor(np.array(shape, np.int64).reshape(-1))


class _Discrete(Distribution):
    """Construction and helpers the discrete families share."""

    def __init__(self, pname, value, seed, dtype, name, param):
        param["param_dict"] = {pname: value}
        check_dtype(dtype, "number", name)
        super().__init__(seed, dtype, name, param)
        t = self._add_parameter(value, pname)
        self._check_default(t)
        setattr(self, "_" + pname + "_value", t)

    def _check_default(self, t):
        if t is not None:
            check_prob(t)

    def _value(self, value):
        return ops.cast(check_tensor(value, "value"), self.parameter_type)

    def _other(self, x, name):
        return ops.cast(check_tensor(x, name), self.parameter_type)

    def _uniform(self, shape, like):
        u = ops.uniform(shape + like.shape, _TINY, 1.0 - _TINY, seed=self._sample_seed())
        return ops.cast(u, self.parameter_type)

    def _get_dist_args(self, p=None):
        return (self.default_parameters[0] if p is None
                else check_tensor(p, self.parameter_names[0]),)

    def _get_dist_type(self):
        return self._family


class Bernoulli(_Discrete):
    """The Bernoulli distribution: 1 with probability `probs` (0 < probs < 1), else 0."""
    _family = "Bernoulli"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Bernoulli"):
        super().__init__("probs", probs, seed, dtype, name, dict(locals()))

    def _mean(self, probs1=None):
        return self._check_param_type(probs1)

    def _mode(self, probs1=None):
        p = self._check_param_type(probs1)
        return ops.cast(p > 0.5, self.dtype)

    def _var(self, probs1=None):
        p = self._check_param_type(probs1)
        return p * (1.0 - p)

    def _entropy(self, probs1=None):
        p = self._check_param_type(probs1)
        return -(p * ops.log(p) + (1.0 - p) * ops.log1p(-p))

    def _log_prob(self, value, probs1=None):
        value = self._value(value)
        p = self._check_param_type(probs1)
        out = value * ops.log(p) + (1.0 - value) * ops.log1p(-p)
        valid = ops.logical_or(value == 0.0, value == 1.0)
        return ops.select(valid, out, ops.zeros_like(out) - float("inf"))

    def _cdf(self, value, probs1=None):
        value = self._value(value)
        p = self._check_param_type(probs1)
        zero = ops.zeros_like(value + p)
        out = ops.select(value < 1.0, zero + (1.0 - p), zero + 1.0)
        return ops.select(value < 0.0, zero, out)

    def _kl_loss(self, dist, probs1_b, probs1=None):
        check_distribution_name(dist, "Bernoulli")
        pb = self._other(probs1_b, "probs1_b")
        pa = self._check_param_type(probs1)
        return (pa * (ops.log(pa) - ops.log(pb))
                + (1.0 - pa) * (ops.log1p(-pa) - ops.log1p(-pb)))

    def _cross_entropy(self, dist, probs1_b, probs1=None):
        check_distribution_name(dist, "Bernoulli")
        return self._entropy(probs1) + self._kl_loss(dist, probs1_b, probs1)

    def _sample(self, shape=(), probs1=None):
        shape = self.checktuple(shape, "shape")
        p = self._check_param_type(probs1)
        return ops.cast(self._uniform(shape, p) < p, self.dtype)


class Geometric(_Discrete):
    """The number of failures before the first success of Bernoulli(`probs`) trials:
    P(k) = probs (1 - probs)^k, k = 0, 1, ..."""
    _family = "Geometric"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Geometric"):
        super().__init__("probs", probs, seed, dtype, name, dict(locals()))

    def _mean(self, probs1=None):
        p = self._check_param_type(probs1)
        return (1.0 - p) / p

    def _mode(self, probs1=None):
        p = self._check_param_type(probs1)
        return ops.zeros_like(p)

    def _var(self, probs1=None):
        p = self._check_param_type(probs1)
        return (1.0 - p) / (p * p)

    def _entropy(self, probs1=None):
        p = self._check_param_type(probs1)
        return -((1.0 - p) * ops.log1p(-p) + p * ops.log(p)) / p

    def _log_prob(self, value, probs1=None):
        value = self._value(value)
        p = self._check_param_type(probs1)
        k = ops.floor(value)
        out = k * ops.log1p(-p) + ops.log(p)
        return ops.select(value < 0.0, ops.zeros_like(out) - float("inf"), out)

    def _cdf(self, value, probs1=None):
        value = self._value(value)
        p = self._check_param_type(probs1)
        k = ops.floor(value)
        out = -ops.expm1((k + 1.0) * ops.log1p(-p))
        return ops.select(value < 0.0, ops.zeros_like(out), out)

    def _kl_loss(self, dist, probs1_b, probs1=None):
        check_distribution_name(dist, "Geometric")
        pb = self._other(probs1_b, "probs1_b")
        pa = self._check_param_type(probs1)
        return ops.log(pa) - ops.log(pb) + (1.0 - pa) / pa * (ops.log1p(-pa) - ops.log1p(-pb))

    def _cross_entropy(self, dist, probs1_b, probs1=None):
        check_distribution_name(dist, "Geometric")
        return self._entropy(probs1) + self._kl_loss(dist, probs1_b, probs1)

    def _sample(self, shape=(), probs1=None):
        shape = self.checktuple(shape, "shape")
        p = self._check_param_type(probs1)
        u = self._uniform(shape, p)
        return ops.cast(ops.floor(ops.log(u) / ops.log1p(-p)), self.dtype)


class Poisson(_Discrete):
    """The Poisson distribution of rate `rate` (> 0): P(k) = rate^k exp(-rate) / k!."""
    _family = "Poisson"

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Poisson"):
        super().__init__("rate", rate, seed, dtype, name, dict(locals()))

    def _check_default(self, t):
        if t is not None:
            check_greater_zero(t, "rate")

    def _mean(self, rate=None):
        return self._check_param_type(rate)

    def _mode(self, rate=None):
        return ops.floor(self._check_param_type(rate))

    def _var(self, rate=None):
        return self._check_param_type(rate)

    def _log_prob(self, value, rate=None):
        value = self._value(value)
        rate = self._check_param_type(rate)
        safe = ops.relu(value)
        out = ops.xlogy(safe, rate) - rate - lgamma(safe + 1.0)
        valid = ops.logical_and(value >= 0.0, ops.floor(value) == value)
        return ops.select(valid, out, ops.zeros_like(out) - float("inf"))

    def _sample(self, shape=(), rate=None):
        shape = self.checktuple(shape, "shape")
        rate = self._check_param_type(rate)
        out = ops.random_poisson(_shape_tensor(shape), rate, seed=self._sample_seed(),
                                 dtype=mstype.float32)
        return ops.cast(out, self.dtype)


class Categorical(_Discrete):
    """A distribution over the categories 0 .. K-1 with probabilities `probs` (the last
    axis, summing to one) or `logits` (normalised by log-softmax); not both."""
    _family = "Categorical"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Categorical",
                 logits=None):
        if probs is not None and logits is not None:
            raise_probs_logits_error()
        if logits is not None:
            lg = logits.asnumpy() if isinstance(logits, Tensor) else np.asarray(logits)
            lg = lg - lg.max(axis=-1, keepdims=True)
            probs = np.exp(lg) / np.exp(lg).sum(axis=-1, keepdims=True)
        super().__init__("probs", probs, seed, dtype, name, dict(locals()))

    def _check_default(self, t):
        if t is not None:
            check_rank(t)
            check_prob(t)
            check_sum_equal_one(t)

    def _check_param_type(self, probs):
        if probs is None:
            return self.default_parameters[0] if self.default_parameters[0] is not None \
                else super()._check_param_type(probs)
        return ops.cast(check_tensor(probs, "probs"), self.parameter_type)

    def _mean(self, probs=None):
        p = self._check_param_type(probs)
        k = ops.cast(ops.arange(p.shape[-1]), self.parameter_type)
        return ops.sum(p * k, -1)

    def _mode(self, probs=None):
        p = self._check_param_type(probs)
        return ops.cast(ops.argmax(p, -1), self.dtype)

    def _var(self, probs=None):
        p = self._check_param_type(probs)
        k = ops.cast(ops.arange(p.shape[-1]), self.parameter_type)
        m = ops.sum(p * k, -1, keepdim=True)
        return ops.sum(p * (k - m) * (k - m), -1)

    def _entropy(self, probs=None):
        p = self._check_param_type(probs)
        return -ops.sum(ops.xlogy(p, p), -1)

    def _onehot(self, value, p):
        k = ops.cast(ops.arange(p.shape[-1]), self.parameter_type)
        v = ops.expand_dims(value, -1)
        return ops.cast(v == k, self.parameter_type), v

    def _log_prob(self, value, probs=None):
        value = self._value(value)
        p = self._check_param_type(probs)
        onehot, _ = self._onehot(value, p)
        hit = ops.sum(onehot + ops.zeros_like(p), -1)
        out = ops.sum(onehot * ops.log(p), -1)
        return ops.select(hit > 0.0, out, ops.zeros_like(out) - float("inf"))

    def _cdf(self, value, probs=None):
        value = self._value(value)
        p = self._check_param_type(probs)
        k = ops.cast(ops.arange(p.shape[-1]), self.parameter_type)
        below = ops.cast(k <= ops.expand_dims(ops.floor(value), -1), self.parameter_type)
        return ops.sum(below * p, -1)

    def _kl_loss(self, dist, probs_b, probs=None):
        check_distribution_name(dist, "Categorical")
        pb = self._other(probs_b, "probs_b")
        pa = self._check_param_type(probs)
        return ops.sum(pa * (ops.log(pa) - ops.log(pb)), -1)

    def _cross_entropy(self, dist, probs_b, probs=None):
        check_distribution_name(dist, "Categorical")
        return self._entropy(probs) + self._kl_loss(dist, probs_b, probs)

    def _sample(self, shape=(), probs=None):
        shape = self.checktuple(shape, "shape")
        p = self._check_param_type(probs)
        batch = p.shape[:-1]
        u = ops.uniform(shape + batch + (1,), _TINY, 1.0 - _TINY, seed=self._sample_seed())
        c = ops.cumsum(p, -1)
        count = ops.sum(ops.cast(c < ops.cast(u, self.parameter_type),
                                        self.parameter_type), -1)
        last = p.shape[-1] - 1
        return ops.cast(ops.clamp(count, 0.0, float(last)), self.dtype)
