"""Core objects: Tensor and dtypes (``mindspore.common.Tensor``, ``mindspore.common.dtype``)."""
from mycel._mycel import Tensor  # noqa: F401
