"""Cell: the base class of networks, as MindSpore's nn.Cell. Subclasses define
``construct``; calling the cell runs it. In PYNATIVE mode every op inside runs eagerly.
Sub-cells assigned as attributes are tracked, in assignment order."""
from collections import OrderedDict


class Cell:
    """Base class of layers and networks: subclasses implement construct(*inputs)."""

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "training", False)
        self._auto_prefix = auto_prefix

    def __setattr__(self, name, value):
        cells = self.__dict__.get("_cells")
        if isinstance(value, Cell):
            if cells is None:
                raise AttributeError(f"cannot assign sub-cell '{name}' before "
                                     f"Cell.__init__() is called")
            cells[name] = value
        elif cells is not None and name in cells:
            del cells[name]
        object.__setattr__(self, name, value)

    def construct(self, *inputs, **kwargs):
        """The computation; subclasses override it."""
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *inputs, **kwargs):
        return self.construct(*inputs, **kwargs)

    def name_cells(self):
        """The direct sub-cells by attribute name."""
        return OrderedDict(self._cells)

    def cells(self):
        """The direct sub-cells."""
        return list(self._cells.values())

    def cells_and_names(self, cells=None, name_prefix=""):
        """(name, cell) for this cell and every sub-cell, depth first."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            prefix = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, prefix)

    def set_train(self, mode=True):
        """Sets the training flag on this cell and all sub-cells."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", mode)
        return self
