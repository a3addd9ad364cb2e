"""mycel.nn: cells (layers, losses, optimizers grow here)."""
from mycel.nn.cell import Cell  # noqa: F401
from mycel.nn.layer import *  # noqa: F401,F403
from mycel.nn.layer import __all__ as _layers

__all__ = ["Cell"] + _layers
