"""``nn.Tril`` and ``nn.Triu`` (MindSpore 1.x cells, still imported by 2.x programs): the lower
(upper) triangle of a tensor's last two axes from diagonal `k` on, the rest zeros."""
from mycel.nn.cell import Cell
from mycel.ops.function import layout_func as _a

__all__ = ["Tril", "Triu"]


class Tril(Cell):
    """``Tril()(x, k=0)``: ops.tril(x, k)."""

    def construct(self, x, k=0):
        return _a.tril(x, k)


class Triu(Cell):
    """``Triu()(x, k=0)``: ops.triu(x, k)."""

    def construct(self, x, k=0):
        return _a.triu(x, k)
