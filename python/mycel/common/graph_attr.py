"""Graph mode's attribute assignment (``self.p = v``, ``self.p += v``, ``obj.a.b = v``).

In a compiled graph the objects a function reads are constants, so the parser rewrites the
statement ``obj.name = v`` into a call of ``assign(obj, "name", v)`` (src/frontend/
parse_stmt.cc), as MindSpore 2.x's graph mode (JIT syntax level LAX) supports it:

- a Parameter attribute takes the new value in place (an Assign, ordered with the graph's
  other reads and writes of it, cast to the Parameter's dtype);
- any other attribute takes the value as in Python: the statement writes it to the object
  when the graph runs (``_set_attr``, a host effect: compiler/specialize_host.cc), and the
  function's later reads of ``obj.name`` give the value assigned. The parser tracks each
  assigned ``name.attr`` / ``name.a.b`` chain as a variable of the function (its value at
  entry is ``initial``; reads are ``read``), so branches and loops join it as any variable.

A graph reads attributes as constants of its compilation, so one that a graph assigns is part
of the key of later calls: compiling the assignment records the (object, name) pair
(``_ATTR_WRITES``), and ``common/api.py``'s ``_JitFunction`` keys each later call by the
attribute's value then (the next call after ``self.n = self.n + 1`` compiles for the new value,
as Python would read it). Reads of such an attribute by other functions the graph calls (a
helper method) still see its value at the start of the call.

Only an attribute chain that starts at a name (a parameter such as ``self``, a global, a
closure variable) is tracked; assigning to a non-Parameter attribute of anything else
(``self.cells[0].x = v``) is a RuntimeError with the statement's place, since its later reads
could not see the value. PYNATIVE mode runs the statement itself, where ``Cell.__setattr__``
gives a Tensor assigned to a Parameter attribute to that Parameter (``set_data``): both modes
leave the objects holding the same values.
"""
from mycel.common.api import _ATTR_WRITES
from mycel.common.parameter import Parameter
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_assign = prim("Assign")


class _Missing:
    """The value of a tracked attribute the object does not have (yet)."""

    def __repr__(self):
        return "<missing attribute>"


_MISSING = _Missing()


@constexpr
def _is_parameter(obj, name):
    return isinstance(getattr(obj, name, None), Parameter)


@constexpr
def _has_attr(obj, name):
    return hasattr(obj, name)


@constexpr
def _note_written(obj, name):
    """At compile time: records the assignment (the next calls are keyed by its value)."""
    if not any(o is obj and n == name for o, n in _ATTR_WRITES):
        _ATTR_WRITES.append((obj, name))
    return True


@constexpr
def _refuse_untracked(obj, name):
    raise RuntimeError(
        f"In graph mode, only attribute and name of class members can be assigned: '{name}' "
        f"of a {type(obj).__name__} reached through an index or a call is not a Parameter, and "
        "the graph could not see its new value (assign it through an attribute chain from a "
        "name, as self.a.b = v, or use PYNATIVE mode)")


class _SetAttr:
    """``setattr(obj, name, value)`` when the graph runs: an object, not a function, so graph
    mode calls it in the interpreter each time (its class's ``__mycel_host_effect__``)."""

    __mycel_host_effect__ = True

    def __call__(self, obj, name, value):
        setattr(obj, name, value)


_set_attr = _SetAttr()


def assign(obj, name, value):
    """``obj.name = value`` in graph code: an Assign to a Parameter attribute, else the value
    written to the object when the graph runs. Returns what the function's later reads of
    ``obj.name`` give (see ``bound``)."""
    if _is_parameter(obj, name):
        return _assign(getattr(obj, name), value)
    _note_written(obj, name)
    _set_attr(obj, name, value)
    return value


def assign_untracked(obj, name, value):
    """``x.name = value`` where x is no attribute chain from a name (``self.cells[0].x``):
    a Parameter attribute is assigned, anything else refused (its later reads could not see
    the value)."""
    if _is_parameter(obj, name):
        return _assign(getattr(obj, name), value)
    return _refuse_untracked(obj, name)


def bound(obj, name, assigned):
    """What the tracked variable of ``obj.name`` holds after an assignment: the value for a
    plain attribute; nothing for a Parameter, whose reads take the Parameter itself."""
    if _is_parameter(obj, name):
        return _MISSING
    return assigned


def initial(obj, name):
    """The tracked variable's value at the function's entry: the attribute as the call began
    (a constant of the compilation), or the missing marker."""
    if _is_parameter(obj, name):
        return _MISSING
    if _has_attr(obj, name):
        return getattr(obj, name)
    return _MISSING


def read(obj, name, current):
    """``obj.name`` read after the function may have assigned it: the Parameter itself, the
    value last assigned, or the attribute (an AttributeError when there is none)."""
    if _is_parameter(obj, name):
        return getattr(obj, name)
    if isinstance(current, _Missing):
        return getattr(obj, name)
    return current
