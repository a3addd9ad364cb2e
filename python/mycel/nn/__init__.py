"""mycel.nn: cells: layers, losses, wrappers (optimizers grow here)."""
from mycel.nn.cell import Cell  # noqa: F401
from mycel.nn.layer import *  # noqa: F401,F403
from mycel.nn.layer import __all__ as _layers
from mycel.nn.loss import *  # noqa: F401,F403
from mycel.nn.loss import __all__ as _losses
from mycel.nn.wrap import WithLossCell  # noqa: F401

__all__ = ["Cell", "WithLossCell"] + _layers + _losses
