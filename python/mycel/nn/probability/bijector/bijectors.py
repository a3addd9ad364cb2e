"""The bijectors of MindSpore 2.x's ``nn.probability.bijector``: PowerTransform, Exp,
ScalarAffine, Softplus, GumbelCDF and Invert.

Each forward/inverse and log-Jacobian is its closed form in elementwise ops; the log
Jacobians are elementwise (the maps act on each element), as in MindSpore.
"""
from mycel import ops
from mycel.nn.probability.bijector.bijector import Bijector, check_number_or_tensor
from mycel.nn.probability.distribution._utils.utils import check_greater_zero


class PowerTransform(Bijector):
    """y = (1 + power * x)^(1 / power) (power != 0), y = exp(x) (power = 0): the Box-Cox
    transform's inverse.

    Args:
        power (float, list, numpy.ndarray, Tensor): Default: 0.
        name (str): Default: 'PowerTransform'.
    """

    def __init__(self, power=0., name="PowerTransform"):
        param = dict(locals())
        param["param_dict"] = {"power": power}
        check_number_or_tensor(power, "power", name)
        super().__init__(name=name, param=param)
        self._power = self._add_parameter(power, "power")

    @property
    def power(self):
        return self._power

    def _zero(self, value):
        p = self.cast_param_by_value(value, self._power)
        return p, p == 0.0, ops.select(p == 0.0, ops.ones_like(p), p)

    def _forward(self, x):
        x = self._check_value_dtype(x)
        p, zero, safe = self._zero(x)
        powered = ops.exp(ops.log1p(x * safe) / safe)
        return ops.select(zero + ops.zeros_like(x) > 0, ops.exp(x), powered)

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        p, zero, safe = self._zero(y)
        out = ops.expm1(ops.log(y) * safe) / safe
        return ops.select(zero + ops.zeros_like(y) > 0, ops.log(y), out)

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        p, zero, safe = self._zero(x)
        out = (1.0 / safe - 1.0) * ops.log1p(x * safe)
        return ops.select(zero + ops.zeros_like(x) > 0, x, out)

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        p = self.cast_param_by_value(y, self._power)
        return (p - 1.0) * ops.log(y)


class Exp(PowerTransform):
    """y = exp(x) (PowerTransform with power 0)."""

    def __init__(self, name="Exp"):
        super().__init__(0., name)


class ScalarAffine(Bijector):
    """y = scale * x + shift.

    Args:
        scale (float, list, numpy.ndarray, Tensor): Default: 1.0.
        shift (float, list, numpy.ndarray, Tensor): Default: 0.0.
        name (str): Default: 'ScalarAffine'.
    """

    def __init__(self, scale=1.0, shift=0.0, name="ScalarAffine"):
        param = dict(locals())
        param["param_dict"] = {"scale": scale, "shift": shift}
        check_number_or_tensor(scale, "scale", name)
        check_number_or_tensor(shift, "shift", name)
        super().__init__(is_constant_jacobian=True, name=name, param=param)
        self._scale = self._add_parameter(scale, "scale")
        self._shift = self._add_parameter(shift, "shift")

    @property
    def scale(self):
        return self._scale

    @property
    def shift(self):
        return self._shift

    def _forward(self, x):
        x = self._check_value_dtype(x)
        return (self.cast_param_by_value(x, self._scale) * x
                + self.cast_param_by_value(x, self._shift))

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        return ((y - self.cast_param_by_value(y, self._shift))
                / self.cast_param_by_value(y, self._scale))

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        return ops.log(ops.abs(self.cast_param_by_value(x, self._scale))) + ops.zeros_like(x)

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        return -ops.log(ops.abs(self.cast_param_by_value(y, self._scale))) + ops.zeros_like(y)


class Softplus(Bijector):
    """y = log(1 + exp(sharpness * x)) / sharpness.

    Args:
        sharpness (float, list, numpy.ndarray, Tensor): Default: 1.0.
        name (str): Default: 'Softplus'.
    """

    def __init__(self, sharpness=1.0, name="Softplus"):
        param = dict(locals())
        param["param_dict"] = {"sharpness": sharpness}
        check_number_or_tensor(sharpness, "sharpness", name)
        super().__init__(name=name, param=param)
        self._sharpness = self._add_parameter(sharpness, "sharpness")

    @property
    def sharpness(self):
        return self._sharpness

    def _forward(self, x):
        x = self._check_value_dtype(x)
        k = self.cast_param_by_value(x, self._sharpness)
        return ops.softplus(k * x) / k

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        k = self.cast_param_by_value(y, self._sharpness)
        ky = k * y
        # log(expm1(ky)) = ky + log(-expm1(-ky)), stable for large ky
        return (ky + ops.log(-ops.expm1(-ky))) / k

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        k = self.cast_param_by_value(x, self._sharpness)
        return -ops.softplus(-k * x)

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        k = self.cast_param_by_value(y, self._sharpness)
        return -ops.log(-ops.expm1(-k * y))


class GumbelCDF(Bijector):
    """y = exp(-exp(-(x - loc) / scale)), the Gumbel distribution's cdf (scale > 0).

    Args:
        loc (float, list, numpy.ndarray, Tensor): Default: 0.0.
        scale (float, list, numpy.ndarray, Tensor): Default: 1.0.
        name (str): Default: 'GumbelCDF'.
    """

    def __init__(self, loc=0.0, scale=1.0, name="GumbelCDF"):
        param = dict(locals())
        param["param_dict"] = {"loc": loc, "scale": scale}
        check_number_or_tensor(loc, "loc", name)
        check_number_or_tensor(scale, "scale", name)
        super().__init__(name=name, param=param)
        self._loc = self._add_parameter(loc, "loc")
        self._scale = self._add_parameter(scale, "scale")
        check_greater_zero(self._scale, "scale")

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _z(self, x):
        return ((x - self.cast_param_by_value(x, self._loc))
                / self.cast_param_by_value(x, self._scale))

    def _forward(self, x):
        x = self._check_value_dtype(x)
        return ops.exp(-ops.exp(-self._z(x)))

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        return (self.cast_param_by_value(y, self._loc)
                - self.cast_param_by_value(y, self._scale) * ops.log(-ops.log(y)))

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        z = self._z(x)
        return -z - ops.exp(-z) - ops.log(self.cast_param_by_value(x, self._scale))

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        return (ops.log(self.cast_param_by_value(y, self._scale)) - ops.log(-ops.log(y))
                - ops.log(y))


class Invert(Bijector):
    """The inverse of `bijector`: forward is its inverse and the reverse.

    Args:
        bijector (Bijector): the bijector to invert.
        name (str): Default: 'Invert' + bijector.name.
    """

    def __init__(self, bijector, name=""):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'Invert', 'bijector' should be a Bijector, but got "
                            f"{type(bijector).__name__}.")
        if not isinstance(name, str):
            raise TypeError(f"For 'Invert', the 'name' should be str, but got "
                            f"{type(name).__name__}.")
        param = dict(locals())
        param["param_dict"] = {}
        super().__init__(is_constant_jacobian=bijector.is_constant_jacobian,
                         is_injective=bijector.is_injective,
                         name=name or "Invert" + bijector.name, dtype=bijector.dtype,
                         param=param)
        self._bijector = bijector

    @property
    def bijector(self):
        return self._bijector

    def _forward(self, x):
        return self._bijector.inverse(x)

    def _inverse(self, y):
        return self._bijector.forward(y)

    def _forward_log_jacobian(self, x):
        return self._bijector.inverse_log_jacobian(x)

    def _inverse_log_jacobian(self, y):
        return self._bijector.forward_log_jacobian(y)

