"""Primitive: the Python face of one op of the C++ op table.

A primitive is built with the op's init-time attributes and called with tensors (plus any
call-time attributes, in the order the op declares them), exactly like MindSpore's
``P.Conv2D(out_channel=6, kernel_size=5)(x, w)`` or ``P.ReduceSum(keep_dims=True)(x, (1,))``.
The call goes straight to the C++ eager dispatcher through an OpHandle that caches the
validated attributes.
"""
from mycel import _mycel as _C

_SCHEMA = {op["name"]: op for op in _C.op_schema()}


def op_schema(name):
    """The table entry of op `name`: inputs, outputs, attributes (with kinds and defaults)."""
    return _SCHEMA[name]


class Primitive:
    """Base class of all primitives. Subclasses set ``_op`` to the table name."""

    _op = None

    def __init__(self, *args, **kwargs):
        schema = _SCHEMA[self._op]
        init = [a for a in schema["attrs"] if not a["call"]]
        if len(args) > len(init):
            raise TypeError(f"For '{self._op}', __init__ takes at most {len(init)} positional "
                            f"arguments ({', '.join(a['name'] for a in init)}), "
                            f"but {len(args)} were given.")
        attrs = {a["name"]: v for a, v in zip(init, args)}
        for k, v in kwargs.items():
            if k in attrs:
                raise TypeError(f"For '{self._op}', got multiple values for '{k}'.")
            attrs[k] = v
        self.name = self._op
        self._handle = _C.OpHandle(self._op, attrs)

    def __call__(self, *args, **kwargs):
        return self._handle(*args, **kwargs)

    @property
    def attrs(self):
        return self._handle.attrs()

    def __repr__(self):
        return f"Prim[{self.name}]"


def make_primitive_class(name, doc=None):
    """A Primitive subclass for the op `name` of the table."""
    schema = _SCHEMA[name]
    init = ", ".join(f"{a['name']}" + ("" if a["required"] else f"={a['default']!r}")
                     for a in schema["attrs"] if not a["call"])
    call = ", ".join([f"x{i}" for i in range(max(schema["num_inputs"], 0))] or ["inputs"]) + \
        "".join(f", {a['name']}" for a in schema["attrs"] if a["call"])
    text = doc or f"The {name} primitive: {name}({init})({call})."
    return type(name, (Primitive,), {"_op": name, "__doc__": text, "__module__":
                                     "mycel.ops.operations"})


def constexpr(fn):
    """Marks a helper that graph mode runs in Python at compile time, on constant arguments
    (MindSpore's ``ops.constexpr``): argument normalisation, attribute building, shape math.
    In PYNATIVE mode it is an ordinary function."""
    fn.__mycel_constexpr__ = True
    return fn
