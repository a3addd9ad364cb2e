"""``vmap`` of a CellList (ops/_vmap.py hands it here): MindSpore's model ensembling, cell i
run on example i of the batched arguments (each cell with its own Parameters and side
effects), the outputs stacked along out_axes. A loop over the cells, which both modes run."""
from mycel.nn.cell import Cell
from mycel.ops.function.array_func import gather as _gather, stack as _stack
from mycel.ops.primitive import constexpr

__all__ = ["CellListVmap"]


def _stack_outputs(outs, axis):
    if isinstance(outs[0], tuple):
        return tuple(_stack(tuple(o[k] for o in outs), axis) for k in range(len(outs[0])))
    return _stack(outs, axis)


def _ensemble_axes(in_axes, out_axes, n_cells):
    if not isinstance(out_axes, int) or isinstance(out_axes, bool):
        raise NotImplementedError(f"vmap of a CellList: mycel supports an int out_axes, but got "
                                  f"{out_axes!r}.")
    ok = lambda a: a is None or (isinstance(a, int) and not isinstance(a, bool))  # noqa: E731
    if not (ok(in_axes) or (isinstance(in_axes, (tuple, list)) and all(map(ok, in_axes)))):
        raise NotImplementedError(f"vmap of a CellList: mycel supports in_axes of ints and None "
                                  f"(one per argument), but got {in_axes!r}.")
    if n_cells == 0:
        raise ValueError("vmap of a CellList: the CellList is empty.")


@constexpr
def _check_batch(shape, axis, n_cells):
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"vmap of a CellList: in_axes {axis} is out of range for an argument "
                         f"of shape {shape}.")
    if shape[axis] != n_cells:
        raise ValueError(f"vmap of a CellList: the batch size {shape[axis]} along axis {axis} "
                         f"must be the number of cells, {n_cells}.")
    return axis


def _example(args, axes, i):
    return tuple(a if ax is None else _gather(a, i, ax) for a, ax in zip(args, axes))


def _checked(args, axes, n_cells):
    return tuple(None if ax is None else _check_batch(a.shape, ax, n_cells)
                 for a, ax in zip(args, axes))


class CellListVmap(Cell):
    """vmap over a CellList (MindSpore's model ensembling): cell i runs on example i of the
    batched arguments (each with its own Parameters, side effects included), the outputs
    stacked along out_axes. A loop over the cells, in both modes."""

    def __init__(self, cells, in_axes, out_axes):
        super().__init__()
        _ensemble_axes(in_axes, out_axes, len(cells))
        if isinstance(in_axes, (tuple, list)) and all(a is None for a in in_axes):
            raise ValueError("vmap of a CellList: no argument is batched (in_axes are all "
                             "None).")
        self.cells = cells
        self.in_axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else in_axes
        self.per_arg = isinstance(in_axes, (tuple, list))
        self.out_axes = out_axes

    def construct(self, *args):
        if self.per_arg:
            axes = self.in_axes
        else:
            axes = (self.in_axes,) * len(args)
        axes = _checked(args, axes, len(self.cells))
        outs = ()
        i = 0
        for cell in self.cells:
            outs = outs + (cell(*_example(args, axes, i)),)
            i = i + 1
        return _stack_outputs(outs, self.out_axes)
