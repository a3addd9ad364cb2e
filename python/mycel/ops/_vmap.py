"""``vmap`` with MindSpore 2.x's signature (``mycel.vmap``, ``mycel.ops.vmap``).

``vmap(fn, in_axes=0, out_axes=0)`` returns a function that runs ``fn`` over a batch: it is
compiled through the graph front end and batched by a transformation of the IR
(src/compiler/vmap), one batching rule per op of the op table, not by a loop in Python.
PYNATIVE mode compiles it the same way (as ``jit`` does), so both modes batch alike; it
composes with ``grad`` in both orders and with itself.
"""
from mycel import _mycel as _C
from mycel.ops.composite import _name_after, _train_key


class _VmapFunction:
    """The function ``vmap(fn, ...)`` returns. ``_mycel_vmap`` tells the compiler what it is:
    ``(fn, (in_axes, out_axes))``."""

    def __init__(self, fn, in_axes, out_axes):
        self._fn = fn
        # The axes are checked by the compiler (src/compiler/specialize_vmap.cc), for this
        # API and for vmap called in graph code alike.
        self._mycel_vmap = (fn, (in_axes, out_axes))
        self._graph = None
        _name_after(self, "vmap_", fn)

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{self.__name__}: vmap takes positional arguments only (in_axes "
                            f"counts them), but got keyword arguments {sorted(kwargs)}")
        if self._graph is None:
            self._graph = _C.GraphFunction(self)
        return self._graph.call_keyed(_train_key(self._fn), *args)


def vmap(fn, in_axes=0, out_axes=0):
    """Vectorizing map: ``fn`` applied to each example of a batch at once.

    Args:
        fn (Union[Cell, Function, CellList]): the function of one example. It may call
            ``grad`` (for per-example gradients), ``vmap`` (nested batches) and control flow;
            an ``if`` whose condition depends on the batched inputs runs both branches and
            selects per example. A CellList is MindSpore's model ensembling: cell i runs on
            example i (the batch size must be the number of cells), its outputs (a Tensor or
            a tuple of them) stacked along an int out_axes; in_axes are ints or None.
        in_axes (Union[int, None, tuple, list]): for each positional argument, the axis that
            holds the batch, or None when the argument is the same for every example. An int
            or None applies to every argument (and every Tensor inside a tuple or list
            argument); a tuple or list has one entry per argument, nested like the argument.
            Negative axes count from the end. Default: 0.
        out_axes (Union[int, None, tuple, list]): where the batch goes in each output, in the
            same form; None returns an output that does not depend on the batch as it is.
            Default: 0.

    Returns:
        Function, which takes the batched arguments and returns the batched outputs.

    Raises:
        TypeError: (when called) an axis is not None, an int, or a tuple or list of those.
        ValueError: an axis is out of range, the batch sizes of the arguments differ, an axis
            is given for something that is not a Tensor, no argument is batched, or out_axes is
            None for an output that depends on the batch.

    Examples:
        >>> import mycel as ms
        >>> f = ms.vmap(lambda x, y: x * y, in_axes=(0, None))
        >>> f(ms.ops.ones((3, 2)), ms.Tensor([1.0, 2.0])).shape
        (3, 2)
    """
    from mycel.nn.layer.container import CellList
    if isinstance(fn, CellList):
        from mycel.nn._vmap_ensemble import CellListVmap
        return CellListVmap(fn, in_axes, out_axes)
    if not callable(fn):
        raise TypeError(f"vmap: 'fn' must be a function or a Cell, but got {type(fn).__name__}")
    return _VmapFunction(fn, in_axes, out_axes)
