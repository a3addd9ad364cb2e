"""``mindspore.dataset.debug``: hooks that debug mode runs around the operations of each map.

With ``config.set_debug_mode(True, debug_hook_list=[hook, ...])`` every map of a pipeline
started afterwards calls each hook on the map's input columns (before its first operation)
and on the output of each of its operations, so a breakpoint or a print in ``compute`` sees
the data between transforms. A hook may also be put among a map's operations by hand. A hook
gets the columns as one tuple (``compute(args)``, MindSpore's convention) and passes them on
unchanged. Debug mode runs every op on one thread, so hooks see the rows in order.
"""
import copy
from abc import ABC, abstractmethod


class DebugHook(ABC):
    """Base of the debug hooks: subclasses define ``compute(self, *args)``, which receives the
    columns (a tuple) as its one argument. prev_op_name names the operation before the hook
    (set by debug mode; a hook placed by hand has none and prints no header)."""

    def __init__(self, prev_op_name=None):
        self.prev_op_name = prev_op_name
        self.is_first_op = None

    def __call__(self, *args):
        if self.prev_op_name:
            which = "INPUT" if self.is_first_op else "OUTPUT"
            print(f"[Dataset debugger] Print the [{which}] of the operation "
                  f"[{self.prev_op_name}].", flush=True)
        self.compute(args)
        return args

    @abstractmethod
    def compute(self, *args):
        """The hook's work on the columns (args[0] is their tuple)."""

    def set_previous_op_name(self, prev_op_name):
        """Name the operation this hook follows (or precedes, for the first)."""
        self.prev_op_name = prev_op_name

    def set_is_first(self, is_first_op):
        """Whether the hook sees the map's input (before its first operation)."""
        self.is_first_op = is_first_op


def _columns(args):
    return args[0] if len(args) == 1 and isinstance(args[0], tuple) else args


class PrintMetaDataHook(DebugHook):
    """Prints each column's dtype and shape (or type and size)."""

    def compute(self, *args):
        for i, col in enumerate(_columns(args)):
            if hasattr(col, "dtype") and hasattr(col, "shape"):
                what = f"The dtype is [{col.dtype}]. The shape is [{col.shape}]."
            else:
                what = f"The type is [{type(col)}]. The size is [{len(col)}]." \
                    if hasattr(col, "__len__") else f"The type is [{type(col)}]."
            print(f"Column {i}. {what}", flush=True)
        return args


class PrintDataHook(DebugHook):
    """Prints each column's data."""

    def compute(self, *args):
        for i, col in enumerate(_columns(args)):
            print(f"Column {i}. The data is [{col}].", flush=True)
        return args


def with_hooks(operations, hooks, name_of):
    """A map's operations with copies of the debug hooks before the first and after each."""
    if not hooks:
        return list(operations)

    def placed(prev, first):
        out = []
        for h in hooks:
            h = copy.copy(h)
            h.set_previous_op_name(prev)
            h.set_is_first(first)
            out.append(h)
        return out

    ops = placed(name_of(operations[0]), True)
    for op in operations:
        ops.append(op)
        ops.extend(placed(name_of(op), False))
    return ops


__all__ = ["DebugHook", "PrintMetaDataHook", "PrintDataHook"]
