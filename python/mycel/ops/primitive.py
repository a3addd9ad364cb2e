"""Primitive: the Python face of one op of the C++ op table.

A primitive is built with the op's init-time attributes and called with tensors (plus any
call-time attributes, in the order the op declares them), exactly like MindSpore's
``P.Conv2D(out_channel=6, kernel_size=5)(x, w)`` or ``P.ReduceSum(keep_dims=True)(x, (1,))``.
The call goes straight to the C++ eager dispatcher through an OpHandle that caches the
validated attributes.
"""
import functools

from mycel import _mycel as _C
from mycel.ops import _caller, _input_names

_SCHEMA = {op["name"]: op for op in _C.op_schema()}


def op_schema(name):
    """The table entry of op `name`: inputs, outputs, attributes (with kinds and defaults)."""
    return _SCHEMA[name]


# MindSpore's positional order of __init__ where it differs from the table's attribute order
# (P.AvgPool(2, 2, "same", "NHWC")). "pad_list" is MindSpore's explicit padding of the
# convolution backprops, which mycel derives from pad_mode/pad: accepted when None or all
# zero, and a ValueError otherwise (it is no attribute of the op).
_POOL_ORDER = ("kernel_size", "strides", "pad_mode", "data_format")
_CONV_BACKPROP_ORDER = ("out_channel", "kernel_size", "pad_mode", "pad", "pad_list", "mode",
                        "stride", "dilation", "group", "data_format")
_INIT_ORDER = {"AvgPool": _POOL_ORDER, "MaxPool": _POOL_ORDER, "AvgPoolGrad": _POOL_ORDER,
               "MaxPoolGrad": _POOL_ORDER, "MaxPoolGradGrad": _POOL_ORDER,
               "Conv2DBackpropInput": _CONV_BACKPROP_ORDER,
               "Conv2DBackpropFilter": _CONV_BACKPROP_ORDER}


def _drop_pad_list(op, attrs):
    v = attrs.pop("pad_list", None)
    if v is not None and any(int(p) != 0 for p in (v if isinstance(v, (tuple, list)) else (v,))):
        raise ValueError(f"For '{op}', 'pad_list' {v!r} is not supported: mycel derives the "
                         "padding from 'pad_mode' and 'pad' (give pad_mode='pad' and pad).")


class Primitive:
    """Base class of all primitives. Subclasses set ``_op`` to the table name."""

    _op = None

    def __init__(self, *args, **kwargs):
        if self._op not in _SCHEMA:
            raise TypeError(f"For 'Primitive', {type(self).__name__} names no op of the op "
                            f"table (_op is {self._op!r}); use a primitive such as P.Add.")
        schema = _SCHEMA[self._op]
        init = _INIT_ORDER.get(self._op) or [a["name"] for a in schema["attrs"] if not a["call"]]
        if len(args) > len(init):
            raise TypeError(f"For '{self._op}', __init__ takes at most {len(init)} positional "
                            f"arguments ({', '.join(init)}), but {len(args)} were given.")
        attrs = dict(zip(init, args))
        for k, v in kwargs.items():
            if k in attrs:
                raise TypeError(f"For '{self._op}', got multiple values for '{k}'.")
            attrs[k] = v
        if "pad_list" in init:
            _drop_pad_list(self._op, attrs)
        self.name = self._op
        self._handle = _C.OpHandle(self._op, attrs)

    def __call__(self, *args, **kwargs):
        if kwargs:  # inputs by MindSpore's names (ops/_input_names.py)
            schema = _SCHEMA[self._op]
            args, kwargs = _input_names.bind(
                self._op, schema["num_inputs"], [a["name"] for a in schema["attrs"] if a["call"]],
                args, kwargs)
        return self._handle(*args, **kwargs)

    def shard(self, in_strategy=None, out_strategy=None):
        """Sets the sharding strategy of this primitive for semi-automatic parallelism
        (MindSpore 2.x's ``Primitive.shard``): ``in_strategy`` has one tuple per tensor input
        giving the number of slices of each of its dimensions, e.g. ``ops.MatMul().shard(((1,
        1), (1, 4)))`` cuts the weight's columns over 4 devices. It takes effect in
        ``parallel_mode="semi_auto_parallel"`` under GRAPH mode (ignored in stand-alone mode,
        as in MindSpore); whether it fits the shapes is checked when the network compiles.
        ``out_strategy`` (one tuple for the output) lays the output out as it says: a
        MatMul split on its reduced dimension ``((1, 4), (4, 1))`` with
        ``out_strategy=((4, 1),)`` reduce-scatters its partial sums by rows instead of
        all-reducing them. Returns the primitive."""
        if in_strategy is None:
            if out_strategy is not None:
                raise ValueError(f"For '{self.name}.shard', an 'out_strategy' needs an "
                                 "'in_strategy'.")
            self._in_strategy = self._out_strategy = None
            return self
        for name, s in (("in_strategy", in_strategy), ("out_strategy", out_strategy)):
            if s is None:
                continue
            if not isinstance(s, tuple) or not all(isinstance(r, tuple) for r in s):
                raise TypeError(f"For '{self.name}.shard', '{name}' must be a tuple of tuples "
                                f"of ints, but got {s!r}.")
            for row in s:
                for v in row:
                    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                        raise ValueError(f"For '{self.name}.shard', the slice counts of "
                                         f"'{name}' must be positive ints, but got {s!r}.")
        self._in_strategy, self._out_strategy = in_strategy, out_strategy
        return self

    def recompute(self, mode=True):
        """Marks this primitive recomputed (MindSpore 2.x's ``Primitive.recompute``): where a
        gradient needs its output, GRAPH mode computes it again in the backward from its
        inputs instead of keeping it from the forward. ``mode=False`` keeps its output even
        inside a Cell under ``recompute()``. The values are the same. PYNATIVE mode keeps
        every activation (the mark has no effect there). A primitive that draws random
        numbers, writes its inputs or communicates cannot be recomputed (ValueError): its
        recomputation would not give the same values. Returns the primitive."""
        if not isinstance(mode, bool):
            raise TypeError(f"For '{self.name}.recompute', 'mode' must be a bool, but got "
                            f"{type(mode).__name__}.")
        if mode and _SCHEMA[self._op]["effects"]:
            raise ValueError(f"For '{self.name}.recompute', the primitive draws random "
                             "numbers, writes its inputs or communicates: recomputing it "
                             "would not give the forward's values, so its output is kept.")
        self._recompute = mode
        return self

    def set_device(self, device_target):
        """Records the device this primitive should run on (MindSpore 2.x's
        ``Primitive.set_device``, e.g. "CPU" for a host-side lookup). mycel runs a primitive
        where its inputs are; the value is kept as ``primitive_target``. Returns the
        primitive."""
        if not isinstance(device_target, str):
            raise TypeError(f"For '{self.name}.set_device', 'device_target' must be a str, but "
                            f"got {type(device_target).__name__}.")
        self.primitive_target = device_target
        return self

    @property
    def in_strategy(self):
        """The strategy set by ``shard`` (None: not sharded)."""
        return getattr(self, "_in_strategy", None)

    @property
    def out_strategy(self):
        """The output strategy set by ``shard`` (None: the rule's layout)."""
        return getattr(self, "_out_strategy", None)

    @property
    def attrs(self):
        return self._handle.attrs()

    def __repr__(self):
        return f"Prim[{self.name}]"


def make_primitive_class(name, doc=None):
    """A Primitive subclass for the op `name` of the table."""
    schema = _SCHEMA[name]
    defaults = {a["name"]: a for a in schema["attrs"]}
    init = ", ".join(f"{n}" + ("=None" if n not in defaults else "" if defaults[n]["required"]
                               else f"={defaults[n]['default']!r}")
                     for n in _INIT_ORDER.get(name) or
                     [a["name"] for a in schema["attrs"] if not a["call"]])
    call = ", ".join([f"x{i}" for i in range(max(schema["num_inputs"], 0))] or ["inputs"]) + \
        "".join(f", {a['name']}" for a in schema["attrs"] if a["call"])
    text = doc or f"The {name} primitive: {name}({init})({call})."
    return type(name, (Primitive,), {"_op": name, "__doc__": text, "__module__":
                                     "mycel.ops.operations"})


def constexpr(fn):
    """Marks a helper that graph mode runs in Python at compile time, on constant arguments
    (MindSpore's ``ops.constexpr``): argument normalisation, attribute building, shape math.
    In PYNATIVE mode it is an ordinary function."""
    if not callable(fn):
        raise TypeError(f"For 'constexpr', the argument must be a function, but got "
                        f"{type(fn).__name__}.")

    @functools.wraps(fn)
    def helper(*args, **kwargs):
        # a bare error of the helper ("'float' object is not iterable") names the op that
        # called it (mycel.ops._caller; only when ops code called it)
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, IndexError) as e:
            raise _caller.name_error(e, 2)
    helper.__mycel_constexpr__ = True
    return helper


def _primexpr(fn):
    """MindSpore's ``ops.primitive._primexpr`` (its internal helpers and tests import it): as
    constexpr, graph mode runs the helper in Python at compile time on constant arguments; on
    arguments known only at run time it runs in Python then (the JIT fallback, with its
    warning), where MindSpore would compile the helper's body."""
    return constexpr(fn)
