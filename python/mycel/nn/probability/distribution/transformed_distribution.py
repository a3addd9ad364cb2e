"""TransformedDistribution: the distribution of y = f(x), x from `distribution`, f an
injective `bijector`; and LogNormal = exp(Normal) (MindSpore 2.x's classes of those names).

log p_Y(y) = log p_X(f^-1(y)) + log |d f^-1 / dy|; cdf_Y(y) = cdf_X(f^-1(y)) (for an
increasing f, as every bijector here is for its parameters' usual signs); samples are f of
the base distribution's samples. The base distribution's parameters (`dist_spec_args`)
may be given to every method as for the base distribution itself.
"""
import math

from mycel import ops
from mycel.common import dtype as mstype
from mycel.nn.probability.distribution.distribution import Distribution
from mycel.nn.probability.distribution.continuous import Normal
from mycel.nn.probability.distribution._utils.utils import (
    check_distribution_name, check_dtype, check_tensor)
from mycel.nn.probability.bijector.bijector import Bijector
from mycel.nn.probability.bijector.bijectors import Exp


class TransformedDistribution(Distribution):
    """The distribution of `bijector` applied to samples of `distribution`.

    Args:
        bijector (Bijector): the transformation.
        distribution (Distribution): the base distribution (a float one).
        seed (int): the sampling seed. Default: None.
        name (str): Default: "transformed_distribution".
    """

    def __init__(self, bijector, distribution, seed=None, name="transformed_distribution"):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For '{name}', 'bijector' should be a Bijector, but got "
                            f"{type(bijector).__name__}.")
        if not isinstance(distribution, Distribution):
            raise TypeError(f"For '{name}', 'distribution' should be a Distribution, but got "
                            f"{type(distribution).__name__}.")
        if not bijector.is_injective:
            raise ValueError(f"For '{name}', the bijector should be injective.")
        param = dict(locals())
        param["param_dict"] = {}
        super().__init__(seed, distribution.dtype, name, param)
        self._bijector = bijector
        self._distribution = distribution
        self.parameter_type = distribution.parameter_type
        self._batch_shape = distribution.batch_shape
        self._is_scalar_batch = distribution.is_scalar_batch
        self._broadcast_shape = distribution.broadcast_shape
        self.default_parameters = distribution.default_parameters
        self.parameter_names = distribution.parameter_names

    @property
    def bijector(self):
        return self._bijector

    @property
    def distribution(self):
        return self._distribution

    def _value(self, value):
        return ops.cast(check_tensor(value, "value"), self.parameter_type)

    def _log_prob(self, value, *args, **kwargs):
        value = self._value(value)
        x = self._bijector.inverse(value)
        return (self._distribution.log_prob(x, *args, **kwargs)
                + self._bijector.inverse_log_jacobian(value))

    def _cdf(self, value, *args, **kwargs):
        value = self._value(value)
        return self._distribution.cdf(self._bijector.inverse(value), *args, **kwargs)

    def _log_cdf(self, value, *args, **kwargs):
        value = self._value(value)
        return self._distribution.log_cdf(self._bijector.inverse(value), *args, **kwargs)

    def _survival_function(self, value, *args, **kwargs):
        value = self._value(value)
        return self._distribution.survival_function(self._bijector.inverse(value), *args,
                                                    **kwargs)

    def _log_survival(self, value, *args, **kwargs):
        value = self._value(value)
        return self._distribution.log_survival(self._bijector.inverse(value), *args, **kwargs)

    def _sample(self, *args, **kwargs):
        return self._bijector.forward(self._distribution.sample(*args, **kwargs))

    def _get_dist_args(self, *args, **kwargs):
        return self._distribution.get_dist_args(*args, **kwargs)

    def _get_dist_type(self):
        return self._distribution.get_dist_type()


class LogNormal(TransformedDistribution):
    """The log-normal distribution: exp(N(loc, scale^2)), scale > 0.

    Args:
        loc (int, float, list, numpy.ndarray, Tensor): the mean of the log. Default: None.
        scale (int, float, list, numpy.ndarray, Tensor): the sd of the log. Default: None.
        seed (int): Default: 0.
        dtype (mycel.dtype): a float type. Default: float32.
        name (str): Default: "LogNormal".
    """

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="LogNormal"):
        check_dtype(dtype, "float", name)
        super().__init__(Exp(), Normal(loc, scale, seed, dtype), seed, name)
        self._loc = self.default_parameters[0]
        self._scale = self.default_parameters[1]

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _get_dist_type(self):
        return "LogNormal"

    def _mean(self, loc=None, scale=None):
        loc, scale = self._distribution._check_param_type(loc, scale)
        return ops.exp(loc + 0.5 * scale * scale)

    def _mode(self, loc=None, scale=None):
        loc, scale = self._distribution._check_param_type(loc, scale)
        return ops.exp(loc - scale * scale)

    def _var(self, loc=None, scale=None):
        loc, scale = self._distribution._check_param_type(loc, scale)
        s2 = scale * scale
        return ops.expm1(s2) * ops.exp(2.0 * loc + s2)

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._distribution._check_param_type(loc, scale)
        return loc + 0.5 + ops.log(scale) + 0.5 * math.log(2.0 * math.pi)

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "LogNormal")
        return self._distribution.kl_loss("Normal", loc_b, scale_b, loc, scale)

    def _cross_entropy(self, dist, loc_b, scale_b, loc=None, scale=None):
        check_distribution_name(dist, "LogNormal")
        return self._entropy(loc, scale) + self._kl_loss(dist, loc_b, scale_b, loc, scale)
