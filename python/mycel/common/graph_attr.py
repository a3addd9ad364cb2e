"""Graph mode's attribute assignment (``self.p = v``, ``self.p += v`` in ``construct``).

In a compiled graph the objects a function reads are constants, so the parser rewrites the
statement ``obj.name = v`` into a call of ``assign(obj, "name", v)`` (src/frontend/
parse_stmt.cc). As in MindSpore's graph mode, a Parameter attribute takes the new value in
place (an Assign, ordered with the graph's other reads and writes of it, cast to the
Parameter's dtype); assigning to any other attribute is refused. PYNATIVE mode runs the
statement itself, where ``Cell.__setattr__`` gives a Tensor assigned to a Parameter attribute
to that Parameter (``set_data``): both modes leave the same Parameter holding the new value.
"""
from mycel.common.parameter import Parameter
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_assign = prim("Assign")


@constexpr
def _check_parameter(obj, name):
    """At compile time (obj is a constant of the graph): the attribute must be a Parameter."""
    target = getattr(obj, name, None)
    if not isinstance(target, Parameter):
        raise TypeError(f"graph mode can assign only to Parameter attributes: '{name}' of "
                        f"{type(obj).__name__} is {type(target).__name__}; objects are "
                        "constants of the compiled graph (return the new value instead, or use "
                        "PYNATIVE mode)")
    return True


def assign(obj, name, value):
    _check_parameter(obj, name)
    return _assign(getattr(obj, name), value)
