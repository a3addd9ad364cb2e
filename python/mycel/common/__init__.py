"""Core objects: Tensor and dtypes (``mindspore.common.Tensor``, ``mindspore.common.dtype``)."""
from mycel._mycel import Tensor  # noqa: F401
from mycel.common.parameter import Parameter, ParameterTuple  # noqa: F401,E402
