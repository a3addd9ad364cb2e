"""MindSpore's ``mindspore.ops.function.grad`` package: the gradient functions
(``grad_func``), as ``mycel.ops`` has them."""
from mycel.ops.function.grad import grad_func
from mycel.ops.function.grad.grad_func import *  # noqa: F401,F403

__all__ = list(grad_func.__all__)
