"""mycel.nn: cells (layers, losses, optimizers grow here)."""
from mycel.nn.cell import Cell  # noqa: F401
