"""``mycel.shard(fn, in_strategy, out_strategy, parameter_plan)`` and ``Cell.shard``
(MindSpore 2.x's): the layouts of a function's or a Cell's inputs and outputs; the strategy
search (auto_parallel, sharding_propagation) or the rewrite's propagation
(semi_auto_parallel) lays out the ops inside from them.

How: each layout is a *hint*, a Reshape to the tensor's own shape whose primitive carries the
strategy (``Primitive.shard``). The simplifier keeps an op with a strategy, the rewrite
redistributes the tensor to the strategy's layout there, and the ops that read it take that
layout (src/parallel/spmd.h); the search treats the hint as an op the user sharded. Outside
semi_auto_parallel and auto_parallel a hint is a Reshape to the same shape: the values are
the function's, in both modes.

``parameter_plan`` ({name: slice counts per dimension}) sets a parameter's own layout: the
Parameter records it (``_spmd_plan``) and the rewrite lays the weight out so before any
reader asks (``SpmdOptions::planned``), each reader then redistributing from there (or
propagating it, as for a split input). Names are the Cell's parameter paths ("self." in
front allowed) or the Parameters' names; an unknown name, a plan that does not fit the
parameter, or one for a parameter already sliced by a compiled program is a ValueError
naming the shard call's line (MindSpore ignores such entries, silently in effect).

``Cell.shard`` gives the Cell's instance a subclass whose ``construct`` applies the hints
around the class's own, so that every call of the Cell, from Python or inside a network in
GRAPH mode, is sharded; ``mycel.shard`` on a Cell does the same, and on a function returns a
Cell that calls it.
"""
import os
import sys

from mycel.nn import cell as _cell
from mycel.nn.cell import Cell
from mycel.ops import operations as _P
from mycel.ops.primitive import constexpr


def _where():
    """file:line of the user's call (the first frame outside this file and nn/cell.py)."""
    skip = {os.path.abspath(__file__), os.path.abspath(sys.modules[Cell.__module__].__file__)}
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename) in skip:
        f = f.f_back
    return "" if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"


def _check_row(row, what, where):
    if row is None:
        return None
    if not isinstance(row, tuple) or not row or any(
            isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in row):
        raise ValueError(f"For 'shard' ({where}), each entry of '{what}' must be a tuple of "
                         f"positive ints (slices per dimension) or None, but got {row!r}.")
    return row


def _check(in_strategy, out_strategy, parameter_plan, device, level, where):
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"For 'shard' ({where}), 'in_strategy' must be a tuple (one entry per "
                        f"input), but got {type(in_strategy).__name__}.")
    ins = tuple(_check_row(r, "in_strategy", where) for r in in_strategy)
    outs = None
    if out_strategy is not None:
        if not isinstance(out_strategy, tuple):
            raise TypeError(f"For 'shard' ({where}), 'out_strategy' must be a tuple or None, "
                            f"but got {type(out_strategy).__name__}.")
        outs = tuple(_check_row(r, "out_strategy", where) for r in out_strategy)
    if parameter_plan is not None and not isinstance(parameter_plan, dict):
        raise TypeError(f"For 'shard' ({where}), 'parameter_plan' must be a dict or None, but "
                        f"got {type(parameter_plan).__name__}.")
    if not isinstance(device, str) or not isinstance(level, int):
        raise TypeError(f"For 'shard' ({where}), 'device' must be a str and 'level' an int.")
    return ins, outs


def _plan_parameters(cell, parameter_plan, where):
    """Records each parameter_plan entry on its Parameter of `cell` (``_spmd_plan``: the
    slice counts and the shard call's line), checked first (the module docstring)."""
    params = dict(cell.parameters_and_names())
    by_name = {p.name: p for p in params.values()}
    planned = []
    for name, row in parameter_plan.items():
        if not isinstance(name, str):
            raise TypeError(f"For 'shard' ({where}), the keys of 'parameter_plan' must be "
                            f"parameter names (str), but got {type(name).__name__}.")
        p = params.get(name[len("self."):] if name.startswith("self.") else name,
                       by_name.get(name))
        if p is None:
            raise ValueError(f"For 'shard' ({where}), 'parameter_plan' names {name!r}, which "
                             f"is not a parameter of the {type(cell).__name__} (it has "
                             f"{sorted(params)}).")
        if _check_row(row, "parameter_plan", where) is None:
            raise ValueError(f"For 'shard' ({where}), the parameter_plan of {name!r} must be "
                             "a tuple of positive ints, but got None.")
        _fits(p.shape, row, f"the parameter_plan of {name!r}", where)
        if getattr(p, "_spmd_layout", None) is not None:
            raise ValueError(f"For 'shard' ({where}), {name!r} already holds its slice of a "
                             "compiled sharded program: a parameter_plan must come before "
                             "the first compile.")
        planned.append((p, row))
    for p, row in planned:
        p._spmd_plan = (row, where)


def _hints(rows):
    """A Reshape carrying each row's strategy (None where the row is None)."""
    return tuple(None if r is None else _P.Reshape().shard((r,)) for r in rows)


@constexpr
def _fits(shape, row, what, where):
    """Checks at compile time (GRAPH mode) or call time that `row` fits `shape`."""
    if len(row) != len(shape):
        raise ValueError(f"For 'shard' ({where}), {what} {row} has {len(row)} entries but the "
                         f"tensor has shape {tuple(shape)}.")
    for k, n in zip(row, shape):
        if n % k != 0:
            raise ValueError(f"For 'shard' ({where}), {what} {row} does not divide the "
                             f"tensor's shape {tuple(shape)}.")
    return True


def _laid_out(x, hint, row, what, where):
    if hint is None:
        return x
    _fits(x.shape, row, what, where)
    return hint(x, x.shape)


def _lay_out_all(values, hints, rows, what, where):
    """Each value laid out by its row's hint (rows past the values ignored, values past the
    rows as they are)."""
    out = ()
    for i in range(len(values)):
        if i < len(rows):
            out = out + (_laid_out(values[i], hints[i], rows[i], what, where),)
        else:
            out = out + (values[i],)
    return out


def _sharded_construct(self, *args):
    """The hints around the Cell's own construct (Cell.shard's subclasses)."""
    spec = self._shard_spec
    out = spec.base.construct(self, *_lay_out_all(args, spec.in_hints, spec.ins,
                                                  "in_strategy", spec.where))
    if spec.outs is None:
        return out
    if isinstance(out, tuple):
        return _lay_out_all(out, spec.out_hints, spec.outs, "out_strategy", spec.where)
    return _laid_out(out, spec.out_hints[0], spec.outs[0], "out_strategy", spec.where)


class _Spec:
    """What a sharded Cell's construct reads: the strategies and their hint primitives."""

    def __init__(self, base, ins, outs, where):
        self.base, self.where = base, where
        self.ins, self.in_hints = ins, _hints(ins)
        self.outs = outs
        self.out_hints = None if outs is None else _hints(outs)


_SUBCLASSES = {}  # base class -> its sharded subclass


def shard_cell(cell, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
               level=0, where=None):
    """Cell.shard's work (module docstring); returns the Cell."""
    where = where or _where()
    ins, outs = _check(in_strategy, out_strategy, parameter_plan, device, level, where)
    if parameter_plan:
        _plan_parameters(cell, parameter_plan, where)
    base = type(cell)._shard_base if hasattr(type(cell), "_shard_base") else type(cell)
    sub = _SUBCLASSES.get(base)
    if sub is None:
        sub = type(base.__name__, (base,), {"construct": _sharded_construct,
                                            "_shard_base": base,
                                            "__module__": base.__module__})
        _SUBCLASSES[base] = sub
    object.__setattr__(cell, "_shard_spec", _Spec(base, ins, outs, where))
    cell.__dict__.pop("_mycel_graph", None)  # compiled again, with the hints
    cell.__class__ = sub
    return cell


_cell._SHARD_CELL[0] = shard_cell  # Cell.shard's work (nn/cell.py)


class _Function(Cell):
    """A function as a Cell, for ``mycel.shard(fn, ...)`` on a function."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def construct(self, *args):
        return self._fn(*args)


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """Shards ``fn`` (a Cell or a function) by the layouts of its inputs (MindSpore 2.x's
    ``mindspore.shard``): ``in_strategy`` has one entry per input, the slices of each of its
    dimensions (a tuple of ints) or None (left as it arrives); ``out_strategy`` the same for
    its outputs (None: as the ops inside leave them); ``parameter_plan`` ({parameter name:
    slices of each of its dimensions}, names as in ``fn.parameters_and_names()``, "self."
    allowed) sets the layouts of ``fn``'s parameters. In
    ``parallel_mode="auto_parallel"`` with ``search_mode="sharding_propagation"`` the search
    propagates from these layouts to the ops inside; in ``semi_auto_parallel`` the rewrite
    propagates them through the ops that have no strategy of their own. Elsewhere (stand-alone,
    data parallel) ``fn``'s values are unchanged. ``device`` and ``level`` are MindSpore's and
    ignored (one device kind). A Cell is sharded in place (every later call of it, also
    inside other networks) and returned; a function is returned wrapped in a Cell.
    Strategies that do not fit the tensors' shapes are a ValueError naming this call's
    line."""
    where = _where()
    if isinstance(fn, Cell):
        return shard_cell(fn, in_strategy, out_strategy, parameter_plan, device, level, where)
    if not callable(fn):
        raise TypeError(f"For 'shard' ({where}), 'fn' must be a Cell or a function, but got "
                        f"{type(fn).__name__}.")
    return shard_cell(_Function(fn), in_strategy, out_strategy, parameter_plan, device, level,
                      where)
