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

A name with neither is a TypeError when called, in both modes. mycel infers shapes and
dtypes from the kernel itself: the class's infer methods are kept but not called. In GRAPH
mode the call is parsed like any primitive with its own ``__call__``, so the kernel joins the
graph.

A class that defines its own ``__call__`` (a Python implementation: numpy, host code) and an
inference (``__infer__``, or ``infer_shape`` and ``infer_dtype``) runs that ``__call__``. In
PYNATIVE mode it is an ordinary call. In GRAPH mode it is a host callback, as MindSpore runs
a Python primitive on CPU: the compiler types the call by the inference, asked with
MindSpore's arguments (shapes and dtypes for ``infer_shape``/``infer_dtype``; ``{'shape',
'dtype', 'value'}`` dicts for ``__infer__``, 'value' a tensor or number known at compile time,
else None; a dimension known only at run time is -1), and the step calls ``__call__`` in the
interpreter with the tensors' values each time it reaches it; a result whose shape or dtype
differs from the inference is a TypeError naming the class. No gradient flows through such a
call unless the class defines ``bprop(self, *inputs, out, dout)``, MindSpore's custom backward:
then PYNATIVE records the call with that backward (as a Cell with bprop) and GRAPH mode calls it
through CustomVjp (frontend/py_host.cc). The class gets the marker ``__mycel_host_infer__`` (read by frontend/py_host.cc and
compiler/specialize_host.cc) when it is defined.
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


# (a string, not read from KERNELS: graph code raising it formats only constants)
_KERNEL_NAMES = ", ".join(sorted(KERNELS))


def _no_kernel(name, *args):
    raise TypeError(f"For '{name}', mycel has no kernel of that name: a PrimitiveWithInfer "
                    f"runs the op-table op (or the composed kernel: {_KERNEL_NAMES}) its class "
                    "name names, or its own __call__ when the class defines one with "
                    "infer_shape/infer_dtype or __infer__.")


def _own(cls, name):
    """Whether a user class (not this module's bases) defines attribute `name`."""
    return any(name in k.__dict__ for k in cls.__mro__
               if k.__module__ != __name__ and k not in (Primitive, object))


def _as_shape(s):
    return tuple(int(d) for d in s)


def _infer_outputs(prim, descs):
    """(is_tuple, ((shape, dtype), ...)): the class's inference of a call with arguments
    `descs` (("tensor", shape, dtype, value or None) or ("value", v)), in MindSpore's
    conventions."""
    who = type(prim).__name__
    shapes, dtypes, values = [], [], []
    for d in descs:
        if d[0] == "tensor":
            shapes.append(list(d[1]))
            dtypes.append(d[2])
            values.append(d[3] if len(d) > 3 else None)
        else:
            v = d[1]
            shapes.append([])
            dtypes.append(_C.int64 if isinstance(v, int) else _C.float32)
            values.append(v)
    if _own(type(prim), "__infer__"):
        out = prim.__infer__(*[{"shape": s, "dtype": t, "value": v}
                               for s, t, v in zip(shapes, dtypes, values)])
        shape, dtype = out["shape"], out["dtype"]
    else:
        shape, dtype = prim.infer_shape(*shapes), prim.infer_dtype(*dtypes)
    many = isinstance(dtype, (tuple, list))
    if many:
        if len(shape) != len(dtype):
            raise TypeError(f"For '{who}', infer_shape gave {len(shape)} shapes but "
                            f"infer_dtype {len(dtype)} dtypes.")
        pairs = tuple((_as_shape(s), t) for s, t in zip(shape, dtype))
    else:
        pairs = ((_as_shape(shape), dtype),)
    for _, t in pairs:
        if not isinstance(t, _C.DType):
            raise TypeError(f"For '{who}', the inferred dtype must be a mycel dtype, but got "
                            f"{t!r}.")
    return many, pairs


class _HostCall:
    """The host call of a primitive with a bprop (graph code calls it inside the primitive's
    CustomVjp: _host_forward), typed by the primitive's inference like the primitive itself."""

    def __init__(self, prim):
        self.prim = prim

    def __repr__(self):
        return f"HostCall[{type(self.prim).__name__}]"


def _unwrap(p):
    return p.prim if isinstance(p, _HostCall) else p


def _host_infer(prim, *descs):
    return _infer_outputs(_unwrap(prim), descs)


def _host_forward(self, *args):
    """The forward of a host-callback primitive with a bprop, as graph code (frontend/
    py_host.cc makes its call CustomVjp(this, bprop))."""
    return self._mycel_host_call(*args)


def _bprop_call(self, *args):
    """__call__ of a host-callback primitive with its own bprop(self, *inputs, out, dout): in a
    PYNATIVE grad the forward runs unrecorded and the recording gets one call whose gradient is
    bprop (as a Cell with bprop, nn/cell.py); otherwise the class's own __call__."""
    user_call = type(self)._mycel_user_call
    if not _C._recording():
        return user_call(self, *args)
    pos = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
    name = type(self).__name__

    def rule(*gargs):
        tensors, out, dout = gargs[:-2], gargs[-2], gargs[-1]
        full = list(args)
        for i, t in zip(pos, tensors):
            full[i] = t
        grads = self.bprop(*full, out, dout)
        if not isinstance(grads, (tuple, list)) or len(grads) < len(args):
            raise TypeError(f"the bprop of Primitive '{name}' must return a tuple of "
                            f"{len(args)} gradients (one per input, first).")
        return tuple(grads[i] for i in pos)

    return _C._call_custom_bprop(lambda: user_call(self, *args), rule, [args[i] for i in pos])


def _host_run(prim, *args):
    """Runs the primitive's own __call__ in the interpreter (a GRAPH-mode host callback) and
    checks its result against the inference of the same call."""
    prim = _unwrap(prim)
    who = type(prim).__name__
    out = type(prim)._mycel_user_call(prim, *args)
    descs = [("tensor", tuple(a.shape), a.dtype, a) if isinstance(a, _C.Tensor)
             else ("value", a) for a in args]
    many, pairs = _infer_outputs(prim, descs)
    outs = tuple(out) if many and isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(pairs):
        raise TypeError(f"For '{who}', __call__ returned {len(outs)} outputs but the inference "
                        f"gives {len(pairs)}.")
    for i, (o, (shape, dtype)) in enumerate(zip(outs, pairs)):
        ok = isinstance(o, _C.Tensor) and o.dtype == dtype and len(o.shape) == len(shape) and \
            all(w < 0 or w == g for w, g in zip(shape, o.shape))
        if not ok:
            got = (f"a Tensor of shape {tuple(o.shape)} and dtype {o.dtype}"
                   if isinstance(o, _C.Tensor) else type(o).__name__)
            raise TypeError(f"For '{who}', output {i} of __call__ must be a Tensor of shape "
                            f"{shape} and dtype {dtype} (its inference), but got {got}.")
    return tuple(outs) if many else outs[0]


# graph code calls them at compile time / run time as host functions (not parsed)
_host_infer.__mycel_constexpr__ = True
_host_run.__mycel_constexpr__ = True
_HostCall.__mycel_host_infer__ = staticmethod(_host_infer)
_HostCall._mycel_host_run = staticmethod(_host_run)


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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # A Python implementation with an inference: a host callback in GRAPH mode.
        if _own(cls, "__call__") and (_own(cls, "__infer__") or (
                _own(cls, "infer_shape") and _own(cls, "infer_dtype"))):
            cls.__mycel_host_infer__ = staticmethod(_host_infer)
            cls._mycel_host_run = staticmethod(_host_run)
            own = cls.__dict__.get("__call__")
            cls._mycel_user_call = own if own is not None and own is not _bprop_call else \
                getattr(cls, "_mycel_user_call", cls.__call__)
            cls._mycel_host_forward = _host_forward
            if _own(cls, "bprop"):  # its gradient (PYNATIVE here, GRAPH via CustomVjp)
                cls.__call__ = _bprop_call

    @property
    def _mycel_host_call(self):
        return _HostCall(self)

    def __init__(self, name):  # noqa: D107 (no op-table handle: bound on first call)
        self.name = name
        self._prim_attrs = {}
        self.init_attrs = {}
        self.input_names = self.output_names = None
        self._bound = None

    def add_prim_attr(self, name, value):
        """Sets attribute `name`, also readable as ``self.<name>`` as in MindSpore (the kernel
        is bound again on the next call)."""
        self._prim_attrs[name] = value
        self.__dict__[name] = value
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
