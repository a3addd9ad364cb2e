"""Primitives that programs declare in Python: MindSpore's ``PrimitiveWithInfer``,
``PrimitiveWithCheck`` and the ``prim_attr_register`` decorator of their ``__init__``.

In MindSpore such a class names a backend kernel: ``class Rolling(PrimitiveWithInfer)``
with ``@prim_attr_register def __init__(self, window, ...)`` records the ``__init__``
arguments as the primitive's attributes, and calling it runs the kernel of the class's name
with them; the class's ``infer_shape`` / ``infer_dtype`` / ``__infer__`` tell MindSpore's
compiler the output. mycel does the same with its own kernels, found by name:

- an op of the op table (``Add``, ``ReduceSum``, ...): its OpHandle, built from the
  attributes the op declares (the others are kept but unused);
- a kernel MindSpore has without a public class, composed here (``KERNELS``): ``Rolling``
  and ``Shift`` (mycel.ops.function.window_func).

A name with neither is a TypeError when called. mycel infers shapes and dtypes from the
kernel itself: the class's infer methods are kept but not called. In GRAPH mode the call is
parsed like any primitive with its own ``__call__``, so the kernel joins the graph.
"""
import functools
import inspect

from mycel import _mycel as _C
from mycel.ops.primitive import Primitive, op_schema, _SCHEMA
from mycel.ops.function import window_func as _w


def _rolling(window, min_periods, center, axis, closed, method, x):
    return _w.rolling(x, window, min_periods, center, axis, closed, method)


def _shift(periods, axis, x, fill_value):
    return _w.shift(x, fill_value, periods, axis)


# name -> (function taking the attributes, in this order, then the call's inputs; defaults)
KERNELS = {
    "Rolling": (_rolling, ("window", "min_periods", "center", "axis", "closed", "method"),
                {"min_periods": None, "center": False, "axis": 0, "closed": "right",
                 "method": "mean"}),
    "Shift": (_shift, ("periods", "axis"), {"periods": 1, "axis": -1}),
}


def _no_kernel(name, *args):
    raise TypeError(f"For '{name}', mycel has no kernel of that name: a PrimitiveWithInfer "
                    "runs the op-table op (or the composed kernel: "
                    f"{', '.join(sorted(KERNELS))}) its class name names.")


def _bind(name, attrs):
    """The callable that runs primitive `name` with `attrs` (module docstring)."""
    if name in KERNELS:
        fn, order, defaults = KERNELS[name]
        values = []
        for k in order:
            if k not in attrs and k not in defaults:
                raise TypeError(f"For '{name}', the attribute '{k}' is required.")
            v = attrs.get(k, defaults.get(k))
            values.append(attrs.get("window") if v is None and k == "min_periods" else v)
        return functools.partial(fn, *values)
    if name in _SCHEMA:
        declared = {a["name"] for a in op_schema(name)["attrs"] if not a["call"]}
        return _C.OpHandle(name, {k: v for k, v in attrs.items() if k in declared})
    return functools.partial(_no_kernel, name)


class PrimitiveWithInfer(Primitive):
    """A primitive declared in Python (MindSpore 2.x's ``ops.PrimitiveWithInfer``):
    subclass it, decorate ``__init__`` with ``prim_attr_register`` and call the instance
    with tensors. The class name picks the kernel (module docstring); ``infer_shape``,
    ``infer_dtype`` and ``__infer__`` may be defined but mycel infers from the kernel."""

    def __init__(self, name):  # noqa: D107 (no op-table handle: bound on first call)
        self.name = name
        self._prim_attrs = {}
        self.init_attrs = {}
        self.input_names = self.output_names = None
        self._bound = None

    def add_prim_attr(self, name, value):
        """Sets attribute `name` (the kernel is bound again on the next call)."""
        self._prim_attrs[name] = value
        self._bound = None
        return self

    def del_prim_attr(self, name):
        """Removes attribute `name`."""
        self._prim_attrs.pop(name, None)
        self._bound = None
        return self

    def init_prim_io_names(self, inputs, outputs):
        """Records the names of the inputs and outputs (MindSpore's io names)."""
        self.input_names, self.output_names = list(inputs), list(outputs)
        self.add_prim_attr("input_names", self.input_names)
        self.add_prim_attr("output_names", self.output_names)

    @property
    def attrs(self):
        return dict(self._prim_attrs)

    @property
    def kernel(self):
        """The callable the primitive runs: an op-table OpHandle or a composed kernel."""
        if self._bound is None:
            self._bound = _bind(self.name, self._prim_attrs)
        return self._bound

    def __call__(self, *args):
        return self.kernel(*args)

    def __repr__(self):
        return f"Prim[{self.name}]"


class PrimitiveWithCheck(PrimitiveWithInfer):
    """A primitive declared in Python whose class checks its inputs (``check_shape``,
    ``check_dtype``; MindSpore 2.x's ``ops.PrimitiveWithCheck``); it runs as
    PrimitiveWithInfer does."""


def prim_attr_register(fn):
    """Decorator of a Python primitive's ``__init__`` (MindSpore 2.x's
    ``ops.prim_attr_register``): names the primitive after its class and records every
    argument of ``__init__`` (defaults included) as an attribute before ``__init__`` runs."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        PrimitiveWithInfer.__init__(self, type(self).__name__)
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        params = sig.parameters
        for k, v in list(bound.arguments.items())[1:]:
            if params[k].kind == inspect.Parameter.VAR_KEYWORD:
                for kk, vv in v.items():
                    self.add_prim_attr(kk, vv)
                    self.init_attrs[kk] = vv
            elif params[k].kind != inspect.Parameter.VAR_POSITIONAL:
                self.add_prim_attr(k, v)
                self.init_attrs[k] = v
        fn(self, *args, **kwargs)

    return deco


# MindSpore's ops.primitive module holds these too (``from mindspore.ops.primitive import
# PrimitiveWithInfer``). primitive.py cannot import this module (this module imports it), so
# the names are set on it here, when mycel.ops loads.
from mycel.ops import primitive as _primitive_module  # noqa: E402

for _name in ("PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register"):
    setattr(_primitive_module, _name, globals()[_name])
