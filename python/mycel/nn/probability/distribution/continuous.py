"""Continuous distributions with closed forms from elementwise ops: Normal, Exponential,
Uniform, Logistic, Cauchy, Gumbel, Laplace, HalfNormal (MindSpore 2.x's classes of those
names in ``nn.probability.distribution``).

Each takes its parameters at construction (numbers, lists, arrays or Tensors; None leaves
one to be passed to every call) and again, optionally, in every method after the value
(``prob(value, loc, scale)``). Values and parameters are computed in the parameter type
(float32 unless the parameters are float16). Sampling draws from the uniform or standard
normal generator and transforms it (the inverse cdf), so every family samples in both
modes; `sample(shape)` returns `shape + batch_shape`.
"""
import math

from mycel import ops
from mycel.common import dtype as mstype
from mycel.nn.probability.distribution.distribution import Distribution
from mycel.nn.probability.distribution._utils.utils import (
    check_greater_zero, check_greater, check_dtype, check_distribution_name, check_tensor,
    raise_not_defined)
from mycel.nn.probability.distribution._utils.custom_ops import EULER_GAMMA, lgamma

_LOG_2PI = math.log(2.0 * math.pi)
_TINY = 1e-7


class _Continuous(Distribution):
    """What the continuous families share: construction checks, value casts, sampling
    helpers. `_names` lists the parameters in order; `_positive` those that must be > 0."""
    _names = ()
    _positive = ()

    def __init__(self, values, seed, dtype, name, param):
        param["param_dict"] = dict(zip(self._names, values))
        check_dtype(dtype, "float", name)
        super().__init__(seed, dtype, name, param)
        for n, v in zip(self._names, values):
            t = self._add_parameter(v, n)
            if t is not None and n in self._positive:
                check_greater_zero(t, n)
            setattr(self, "_" + n + "_value", t)

    def _value(self, value):
        return ops.cast(check_tensor(value, "value"), self.parameter_type)

    def _other(self, x, name):
        return ops.cast(check_tensor(x, name), self.parameter_type)

    def _uniform(self, shape, like):
        """Uniform(0, 1) samples of `shape + like.shape`, clear of 0 and 1."""
        u = ops.uniform(shape + like.shape, _TINY, 1.0 - _TINY,
                        seed=self._sample_seed())
        return ops.cast(u, self.parameter_type)

    def _normal01(self, shape, like):
        z = ops.standard_normal(shape + like.shape, seed=self._sample_seed())
        return ops.cast(z, self.parameter_type)

    def _get_dist_args(self, *args):
        out = ()
        for a, n, d in zip(args, self.parameter_names, self.default_parameters):
            out = out + ((d if a is None else check_tensor(a, n)),)
        return out

    def _get_dist_type(self):
        return self._family


class Normal(_Continuous):
    """The normal distribution N(mean, sd^2).

    Args:
        mean (int, float, list, numpy.ndarray, Tensor): the mean. Default: None.
        sd (int, float, list, numpy.ndarray, Tensor): the standard deviation (> 0).
            Default: None.
        seed (int): the sampling seed. Default: None.
        dtype (mycel.dtype): a float type. Default: float32.
        name (str): Default: "Normal".
    """
    _names = ("mean", "sd")
    _positive = ("sd",)
    _family = "Normal"

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Normal"):
        super().__init__((mean, sd), seed, dtype, name, dict(locals()))

    def _get_dist_args(self, mean=None, sd=None):
        return super()._get_dist_args(mean, sd)

    def _mean(self, mean=None, sd=None):
        mean, sd = self._check_param_type(mean, sd)
        return mean

    def _mode(self, mean=None, sd=None):
        mean, sd = self._check_param_type(mean, sd)
        return mean

    def _sd(self, mean=None, sd=None):
        mean, sd = self._check_param_type(mean, sd)
        return sd

    def _entropy(self, mean=None, sd=None):
        mean, sd = self._check_param_type(mean, sd)
        return ops.log(sd) + 0.5 * (_LOG_2PI + 1.0)

    def _log_prob(self, value, mean=None, sd=None):
        value = self._value(value)
        mean, sd = self._check_param_type(mean, sd)
        z = (value - mean) / sd
        return -0.5 * z * z - ops.log(sd) - 0.5 * _LOG_2PI

    def _cdf(self, value, mean=None, sd=None):
        value = self._value(value)
        mean, sd = self._check_param_type(mean, sd)
        return 0.5 * ops.erfc((mean - value) / (sd * math.sqrt(2.0)))

    def _survival_function(self, value, mean=None, sd=None):
        value = self._value(value)
        mean, sd = self._check_param_type(mean, sd)
        return 0.5 * ops.erfc((value - mean) / (sd * math.sqrt(2.0)))

    def _kl_loss(self, dist, mean_b, sd_b, mean=None, sd=None):
        check_distribution_name(dist, "Normal")
        mean_b, sd_b = self._other(mean_b, "mean_b"), self._other(sd_b, "sd_b")
        mean, sd = self._check_param_type(mean, sd)
        diff = (mean - mean_b) / sd_b
        ratio = sd / sd_b
        return 0.5 * (ratio * ratio + diff * diff - 1.0) - ops.log(ratio)

    def _cross_entropy(self, dist, mean_b, sd_b, mean=None, sd=None):
        check_distribution_name(dist, "Normal")
        return self._entropy(mean, sd) + self._kl_loss(dist, mean_b, sd_b, mean, sd)

    def _sample(self, shape=(), mean=None, sd=None):
        shape = self.checktuple(shape, "shape")
        mean, sd = self._check_param_type(mean, sd)
        return ops.cast(mean + sd * self._normal01(shape, mean), self.dtype)


class Exponential(_Continuous):
    """The exponential distribution of rate `rate` (> 0): pdf rate * exp(-rate * x), x >= 0."""
    _names = ("rate",)
    _positive = ("rate",)
    _family = "Exponential"

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Exponential"):
        super().__init__((rate,), seed, dtype, name, dict(locals()))

    def _get_dist_args(self, rate=None):
        return super()._get_dist_args(rate)

    def _mean(self, rate=None):
        return 1.0 / self._check_param_type(rate)

    def _mode(self, rate=None):
        return ops.zeros_like(self._check_param_type(rate))

    def _sd(self, rate=None):
        return 1.0 / self._check_param_type(rate)

    def _entropy(self, rate=None):
        return 1.0 - ops.log(self._check_param_type(rate))

    def _log_prob(self, value, rate=None):
        value = self._value(value)
        rate = self._check_param_type(rate)
        out = ops.log(rate) - rate * value
        return ops.select(value < 0.0, ops.zeros_like(out) - float("inf"), out)

    def _cdf(self, value, rate=None):
        value = self._value(value)
        rate = self._check_param_type(rate)
        out = -ops.expm1(-rate * value)
        return ops.select(value < 0.0, ops.zeros_like(out), out)

    def _log_survival(self, value, rate=None):
        value = self._value(value)
        rate = self._check_param_type(rate)
        out = -rate * value
        return ops.select(value < 0.0, ops.zeros_like(out), out)

    def _kl_loss(self, dist, rate_b, rate=None):
        check_distribution_name(dist, "Exponential")
        rate_b = self._other(rate_b, "rate_b")
        rate = self._check_param_type(rate)
        return ops.log(rate) - ops.log(rate_b) + rate_b / rate - 1.0

    def _cross_entropy(self, dist, rate_b, rate=None):
        check_distribution_name(dist, "Exponential")
        return self._entropy(rate) + self._kl_loss(dist, rate_b, rate)

    def _sample(self, shape=(), rate=None):
        shape = self.checktuple(shape, "shape")
        rate = self._check_param_type(rate)
        return ops.cast(-ops.log(self._uniform(shape, rate)) / rate, self.dtype)


class Uniform(_Continuous):
    """The uniform distribution on [low, high) (low < high)."""
    _names = ("low", "high")
    _family = "Uniform"

    def __init__(self, low=None, high=None, seed=None, dtype=mstype.float32, name="Uniform"):
        super().__init__((low, high), seed, dtype, name, dict(locals()))
        if self._low_value is not None and self._high_value is not None:
            check_greater(self._low_value, self._high_value, "low bound", "high bound")

    def _get_dist_args(self, low=None, high=None):
        return super()._get_dist_args(low, high)

    def _mean(self, low=None, high=None):
        low, high = self._check_param_type(low, high)
        return 0.5 * (low + high)

    def _var(self, low=None, high=None):
        low, high = self._check_param_type(low, high)
        return (high - low) * (high - low) / 12.0

    def _entropy(self, low=None, high=None):
        low, high = self._check_param_type(low, high)
        return ops.log(high - low)

    def _prob(self, value, low=None, high=None):
        value = self._value(value)
        low, high = self._check_param_type(low, high)
        inside = ops.logical_and(value >= low, value <= high)
        out = 1.0 / (high - low) + ops.zeros_like(value)
        return ops.select(inside, out, ops.zeros_like(out))

    def _cdf(self, value, low=None, high=None):
        value = self._value(value)
        low, high = self._check_param_type(low, high)
        out = (value - low) / (high - low)
        return ops.clamp(out, 0.0, 1.0)

    def _kl_loss(self, dist, low_b, high_b, low=None, high=None):
        check_distribution_name(dist, "Uniform")
        low_b, high_b = self._other(low_b, "low_b"), self._other(high_b, "high_b")
        low, high = self._check_param_type(low, high)
        out = ops.log(high_b - low_b) - ops.log(high - low)
        inside = ops.logical_and(low_b <= low, high <= high_b)
        return ops.select(inside, out, ops.zeros_like(out) + float("inf"))

    def _cross_entropy(self, dist, low_b, high_b, low=None, high=None):
        check_distribution_name(dist, "Uniform")
        return self._entropy(low, high) + self._kl_loss(dist, low_b, high_b, low, high)

    def _sample(self, shape=(), low=None, high=None):
        shape = self.checktuple(shape, "shape")
        low, high = self._check_param_type(low, high)
        return ops.cast(low + (high - low) * self._uniform(shape, low), self.dtype)


class _LocScale(_Continuous):
    """Location-scale families: `loc`, `scale` > 0, z = (x - loc) / scale."""
    _names = ("loc", "scale")
    _positive = ("scale",)

    def _get_dist_args(self, loc=None, scale=None):
        return super()._get_dist_args(loc, scale)

    def _z(self, value, loc, scale):
        value = self._value(value)
        loc, scale = self._check_param_type(loc, scale)
        return (value - loc) / scale, scale

    def _mode(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return loc

    def _sample(self, shape=(), loc=None, scale=None):
        shape = self.checktuple(shape, "shape")
        loc, scale = self._check_param_type(loc, scale)
        return ops.cast(loc + scale * self._standard(self._uniform(shape, loc)), self.dtype)


class Logistic(_LocScale):
    """The logistic distribution: cdf sigmoid((x - loc) / scale)."""
    _family = "Logistic"

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Logistic"):
        super().__init__((loc, scale), seed, dtype, name, dict(locals()))

    _mean = _LocScale._mode  # symmetric about loc

    def _sd(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return scale * (math.pi / math.sqrt(3.0))

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.log(scale) + 2.0

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -z - 2.0 * ops.softplus(-z) - ops.log(scale)

    def _cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return ops.sigmoid(z)

    def _log_cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return -ops.softplus(-z)

    def _log_survival(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return -ops.softplus(z)

    def _standard(self, u):
        return ops.log(u) - ops.log1p(-u)


class Cauchy(_LocScale):
    """The Cauchy distribution: pdf 1 / (pi scale (1 + z^2)); mean and variance undefined."""
    _family = "Cauchy"

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Cauchy"):
        super().__init__((loc, scale), seed, dtype, name, dict(locals()))

    def _mean(self, *args, **kwargs):
        return raise_not_defined("mean", "Cauchy", *args, **kwargs)

    def _sd(self, *args, **kwargs):
        return raise_not_defined("standard deviation", "Cauchy", *args, **kwargs)

    def _var(self, *args, **kwargs):
        return raise_not_defined("variance", "Cauchy", *args, **kwargs)

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.log(4.0 * math.pi * scale)

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -ops.log1p(z * z) - ops.log(scale) - math.log(math.pi)

    def _cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return 0.5 + ops.atan(z) / math.pi

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "Cauchy")
        loc_b, scale_b = self._other(loc_b, "loc_b"), self._other(scale_b, "scale_b")
        loc, scale = self._check_param_type(loc, scale)
        s = scale + scale_b
        d = loc - loc_b
        return ops.log(s * s + d * d) - ops.log(4.0 * scale * scale_b)

    def _cross_entropy(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "Cauchy")
        return self._entropy(loc, scale) + self._kl_loss(dist, loc_b, scale_b, loc, scale)

    def _standard(self, u):
        return ops.tan(math.pi * (u - 0.5))


class Gumbel(_LocScale):
    """The Gumbel (maximum) distribution: cdf exp(-exp(-(x - loc) / scale))."""
    _family = "Gumbel"

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="Gumbel"):
        super().__init__((loc, scale), seed, dtype, name, dict(locals()))

    def _mean(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return loc + scale * EULER_GAMMA

    def _sd(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return scale * (math.pi / math.sqrt(6.0))

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.log(scale) + (EULER_GAMMA + 1.0)

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -(z + ops.exp(-z)) - ops.log(scale)

    def _cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return ops.exp(-ops.exp(-z))

    def _log_cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return -ops.exp(-z)

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "Gumbel")
        loc_b, scale_b = self._other(loc_b, "loc_b"), self._other(scale_b, "scale_b")
        loc, scale = self._check_param_type(loc, scale)
        # KL(a || b) = log(sb/sa) + g(sa/sb - 1) + (la - lb)/sb
        #              + exp((lb - la)/sb) Gamma(sa/sb + 1) - 1
        r = scale / scale_b
        return (ops.log(scale_b) - ops.log(scale) + EULER_GAMMA * (r - 1.0)
                + (loc - loc_b) / scale_b
                + ops.exp((loc_b - loc) / scale_b + lgamma(r + 1.0)) - 1.0)

    def _cross_entropy(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "Gumbel")
        return self._entropy(loc, scale) + self._kl_loss(dist, loc_b, scale_b, loc, scale)

    def _standard(self, u):
        return -ops.log(-ops.log(u))


class Laplace(_LocScale):
    """The Laplace distribution: pdf exp(-|x - loc| / scale) / (2 scale)."""
    _family = "Laplace"

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Laplace"):
        super().__init__((loc, scale), seed, dtype, name, dict(locals()))

    _mean = _LocScale._mode  # symmetric about loc

    def _sd(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return scale * math.sqrt(2.0)

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.log(2.0 * scale) + 1.0

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        return -ops.abs(z) - ops.log(2.0 * scale)

    def _cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return 0.5 - 0.5 * ops.sign(z) * ops.expm1(-ops.abs(z))

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "Laplace")
        loc_b, scale_b = self._other(loc_b, "loc_b"), self._other(scale_b, "scale_b")
        loc, scale = self._check_param_type(loc, scale)
        d = ops.abs(loc - loc_b)
        return (ops.log(scale_b) - ops.log(scale) + d / scale_b
                + scale / scale_b * ops.exp(-d / scale) - 1.0)

    def _cross_entropy(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "Laplace")
        return self._entropy(loc, scale) + self._kl_loss(dist, loc_b, scale_b, loc, scale)

    def _standard(self, u):
        v = u - 0.5
        return -ops.sign(v) * ops.log1p(-2.0 * ops.abs(v))


class HalfNormal(_LocScale):
    """The half-normal distribution: |N(0, scale^2)| shifted by `loc` (x >= loc)."""
    _family = "HalfNormal"

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32,
                 name="HalfNormal"):
        super().__init__((loc, scale), seed, dtype, name, dict(locals()))

    def _mean(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return loc + scale * math.sqrt(2.0 / math.pi)

    def _var(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return scale * scale * (1.0 - 2.0 / math.pi)

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._check_param_type(loc, scale)
        return ops.log(scale) + 0.5 * math.log(0.5 * math.pi * math.e)

    def _log_prob(self, value, loc=None, scale=None):
        z, scale = self._z(value, loc, scale)
        out = 0.5 * math.log(2.0 / math.pi) - ops.log(scale) - 0.5 * z * z
        return ops.select(z < 0.0, ops.zeros_like(out) - float("inf"), out)

    def _cdf(self, value, loc=None, scale=None):
        z, _ = self._z(value, loc, scale)
        return ops.erf(ops.relu(z) / math.sqrt(2.0))

    def _sample(self, shape=(), loc=None, scale=None):
        shape = self.checktuple(shape, "shape")
        loc, scale = self._check_param_type(loc, scale)
        return ops.cast(loc + scale * ops.abs(self._normal01(shape, loc)), self.dtype)
