"""The base class of bijectors (MindSpore 2.x's ``nn.probability.bijector.Bijector``):
an invertible, differentiable map y = f(x) with the log-determinants of its Jacobians.

A bijector is a Cell. Subclasses implement ``_forward``, ``_inverse``,
``_forward_log_jacobian`` and ``_inverse_log_jacobian``; the public methods check the value
(a float Tensor; of the bijector's dtype when one was given) and dispatch. ``construct(name,
*args)`` calls the method `name`, so ``bijector('forward', x)`` works. A method a subclass
leaves out raises NotImplementedError. Parameters registered with ``_add_parameter`` are
float32 Tensors (or the given dtype), cast to the value's dtype at use
(``cast_param_by_value``).
"""
import numpy as np

from mycel import ops
from mycel.common import dtype as mstype
from mycel.common.tensor import Tensor
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.ops.primitive import constexpr
from mycel.nn.probability.distribution._utils.utils import (
    cast_to_tensor, check_dtype, raise_not_implemented_util)


@constexpr
def _raise_value_error(msg):
    raise TypeError(msg)


@constexpr
def _float_name(t):
    n = str(t)
    return n.startswith("Float") or n == "BFloat16"


def check_number_or_tensor(value, name, owner):
    """TypeError unless `value` is an int, a float, a list, an array or a Tensor."""
    if isinstance(value, bool) or not isinstance(value, (int, float, list, np.ndarray, Tensor)):
        raise TypeError(f"For '{owner}', '{name}' should be a number or a Tensor, but got "
                        f"{type(value).__name__}.")


class Bijector(Cell):
    """Base class of bijectors (module docstring).

    Args:
        is_constant_jacobian (bool): whether the Jacobian is constant. Default: False.
        is_injective (bool): whether the map is one to one. Default: True.
        name (str): the bijector's name. Default: None (the class's name).
        dtype (mycel.dtype): the dtype of the values it takes, a float type. Default: None
            (any float type).
        param (dict): the subclass's constructor arguments, with 'param_dict'.
    """

    def __init__(self, is_constant_jacobian=False, is_injective=True, name=None, dtype=None,
                 param=None):
        super().__init__()
        if name is None:
            name = type(self).__name__
        if not isinstance(name, str):
            raise TypeError(f"For '{type(self).__name__}', the 'name' should be str, but got "
                            f"{type(name).__name__}.")
        if not isinstance(is_constant_jacobian, bool) or not isinstance(is_injective, bool):
            raise TypeError(f"For '{name}', is_constant_jacobian and is_injective should be "
                            "bool.")
        if dtype is not None:
            check_dtype(dtype, "float", name)
        self._name = name
        self._dtype = dtype
        self._is_constant_jacobian = is_constant_jacobian
        self._is_injective = is_injective
        self._bij_params = {} if param is None else {
            k: v for k, v in param.items() if not (k == "self" or k.startswith("_"))}
        self.default_parameters = []
        self.parameter_names = []
        self.common_dtype = None

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def parameters(self):
        return self._bij_params

    @property
    def is_constant_jacobian(self):
        return self._is_constant_jacobian

    @property
    def is_injective(self):
        return self._is_injective

    def _add_parameter(self, value, name):
        """`value` as a Tensor (a Parameter stays as it is): of the bijector's dtype, else
        of the dtype the parameters share (float32 for numbers)."""
        if value is None:
            raise ValueError(f"For '{self._name}', the parameter '{name}' cannot be None.")
        if isinstance(value, Parameter):
            value_t = value
        elif isinstance(value, (Tensor, np.ndarray)):
            src = value.dtype if isinstance(value, Tensor) else mstype.pytype_to_dtype(value.dtype)
            value_t = cast_to_tensor(value, self._dtype or (src if _float_name(src)
                                                             else mstype.float32))
        else:
            value_t = cast_to_tensor(value, self._dtype or mstype.float32)
        if self.common_dtype is None:
            self.common_dtype = value_t.dtype
        elif value_t.dtype != self.common_dtype:
            raise TypeError(f"For '{self._name}', the parameters should have the same dtype.")
        self.default_parameters = self.default_parameters + [value_t]
        self.parameter_names = self.parameter_names + [name]
        return value_t

    def _check_value_dtype(self, value):
        """`value` when it is a float Tensor (of the bijector's dtype when one was given),
        else a TypeError."""
        if not isinstance(value, Tensor):
            return _raise_value_error(f"For '{self._name}', the value should be a Tensor.")
        if not _float_name(value.dtype):
            return _raise_value_error(f"For '{self._name}', the value should be a float "
                                      f"Tensor, but got {value.dtype}.")
        if self._dtype is not None and value.dtype != self._dtype:
            return _raise_value_error(f"For '{self._name}', the value should be of dtype "
                                      f"{self._dtype}, but got {value.dtype}.")
        return value

    def cast_param_by_value(self, value, para):
        """`para` cast to the dtype of `value`."""
        return ops.cast(para, value.dtype)

    def _forward(self, value, *args, **kwargs):
        return raise_not_implemented_util("forward", self._name)

    def _inverse(self, value, *args, **kwargs):
        return raise_not_implemented_util("inverse", self._name)

    def _forward_log_jacobian(self, value, *args, **kwargs):
        return raise_not_implemented_util("forward_log_jacobian", self._name)

    def _inverse_log_jacobian(self, value, *args, **kwargs):
        return raise_not_implemented_util("inverse_log_jacobian", self._name)

    def forward(self, value, *args, **kwargs):
        """y = f(value)."""
        return self._forward(value, *args, **kwargs)

    def inverse(self, value, *args, **kwargs):
        """x = f^-1(value)."""
        return self._inverse(value, *args, **kwargs)

    def forward_log_jacobian(self, value, *args, **kwargs):
        """log |det df/dx| at x = value."""
        return self._forward_log_jacobian(value, *args, **kwargs)

    def inverse_log_jacobian(self, value, *args, **kwargs):
        """log |det df^-1/dy| at y = value."""
        return self._inverse_log_jacobian(value, *args, **kwargs)

    def construct(self, name, *args, **kwargs):
        """Calls the method `name`: 'forward', 'inverse', 'forward_log_jacobian' or
        'inverse_log_jacobian'."""
        if name == "forward":
            return self.forward(*args, **kwargs)
        if name == "inverse":
            return self.inverse(*args, **kwargs)
        if name == "forward_log_jacobian":
            return self.forward_log_jacobian(*args, **kwargs)
        if name == "inverse_log_jacobian":
            return self.inverse_log_jacobian(*args, **kwargs)
        return raise_not_implemented_util(name, self._name)
