"""Cell containers (MindSpore 2.x ``mindspore.nn``): SequentialCell and CellList.

Both register their cells under the names "0", "1", ... (so parameters are named
"0.weight", and "features.0.weight" inside a cell's `features`), as MindSpore does; a
SequentialCell built from an OrderedDict uses its keys instead. SequentialCell.construct
iterates over ``self.cell_list`` (a Python list of cells), which GRAPH mode unrolls."""
from collections import OrderedDict

from mycel import _mycel as _C
from mycel.nn.cell import Cell


def _check_cell(cell, cls):
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{cls}', each cell must be a Cell, but got "
                        f"{type(cell).__name__}.")
    return cell


class _CellSequence(Cell):
    """The list behaviour shared by SequentialCell and CellList."""

    def _rebuild(self, cells):
        """Re-registers `cells` (name, cell) pairs in order; positional names are renumbered."""
        for name in list(self._cells):
            delattr(self, name)
        for name, cell in cells:
            setattr(self, name, cell)
        object.__setattr__(self, "cell_list", list(self._cells.values()))

    def _items(self):
        return list(self._cells.items())

    def _index(self, index):
        if isinstance(index, _C.Tensor) and index.ndim == 0 and \
                index.dtype in (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8):
            index = int(index)  # a 0-d integer tensor, as graph code's run-time index
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"For '{type(self).__name__}', the index must be an int or a "
                            f"slice, but got {type(index).__name__}.")
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"For '{type(self).__name__}', index {index} is out of range for "
                             f"{n} cells.")
        return index % n

    def _renumbered(self, cells):
        return [(str(i), c) for i, c in enumerate(cells)]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._cells.values())[index])
        return list(self._cells.values())[self._index(index)]

    def __setitem__(self, index, cell):
        _check_cell(cell, type(self).__name__)
        items = self._items()
        i = self._index(index)
        items[i] = (items[i][0], cell)
        self._rebuild(items)

    def __delitem__(self, index):
        items = self._items()
        if isinstance(index, slice):
            del items[index]
        else:
            del items[self._index(index)]
        self._rebuild(self._renumbered([c for _, c in items]) if self._positional else items)

    def append(self, cell):
        """Adds a cell at the end."""
        _check_cell(cell, type(self).__name__)
        self._rebuild(self._items() + [(str(len(self._cells)), cell)])
        return self

    def extend(self, cells):
        """Adds the cells of an iterable at the end."""
        for cell in cells:
            self.append(cell)
        return self

    def __iadd__(self, cells):
        """cell_list += [cells]: extend."""
        self.extend(cells)
        return self

    def insert(self, index, cell):
        """Inserts a cell before position index."""
        _check_cell(cell, type(self).__name__)
        cells = [c for _, c in self._items()]
        cells.insert(index, cell)
        self._rebuild(self._renumbered(cells))


class SequentialCell(_CellSequence):
    """Runs its cells one after another: SequentialCell(c1, c2, ...), SequentialCell([c1,
    c2, ...]) or SequentialCell(OrderedDict(name=cell, ...))."""

    def __init__(self, *args):
        super().__init__()
        object.__setattr__(self, "_positional", True)
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            items = list(args[0].items())
            for name, cell in items:
                _check_cell(cell, "SequentialCell")
            object.__setattr__(self, "_positional", False)
        elif len(args) == 1 and isinstance(args[0], list):
            items = self._renumbered([_check_cell(c, "SequentialCell") for c in args[0]])
        else:
            items = self._renumbered([_check_cell(c, "SequentialCell") for c in args])
        self._rebuild(items)

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data


class CellList(_CellSequence):
    """A list of cells, registered as sub-cells (their parameters belong to the owner).
    Indexable, iterable and sized; has no construct of its own."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        object.__setattr__(self, "_positional", True)
        if len(args) > 1 or kwargs:
            raise TypeError("For 'CellList', give at most one argument: a list of cells.")
        cells = list(args[0]) if args and args[0] is not None else []
        self._rebuild(self._renumbered([_check_cell(c, "CellList") for c in cells]))

    def construct(self, *inputs, **kwargs):
        raise NotImplementedError("CellList has no construct; iterate over it or index it.")


__all__ = ["SequentialCell", "CellList"]
