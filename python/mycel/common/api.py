"""jit: compile a function or a Cell method into a graph (MindSpore's ``mindspore.jit``).

``@jit`` works with and without arguments, on plain functions and on Cell methods, in both
PYNATIVE and GRAPH mode: the decorated function runs as one compiled graph per call
signature (tensor dtypes and shapes, values of other arguments). In GRAPH mode, calling a
Cell compiles its ``construct`` the same way (see nn.Cell.__call__).

Each function keeps at most ``set_context(jit_cache_limit=n)`` graphs (default 8, or the
``MYCEL_JIT_CACHE_LIMIT`` environment variable), least recently used dropped first, with a
warning naming the argument that changed. A Python float argument that takes 3 different
values becomes a run-time scalar (with a warning); ``mutable(x)`` makes a number one from
the first call.
"""
import functools
import inspect

from mycel import _mycel as _C
from mycel.common import tensor_hooks as _tensor_hooks


def _positional(sig, args, kwargs, kw_dict=False):
    """args and kwargs bound to the signature as positional arguments (defaults filled).
    Keyword-only parameters come last, after the positional ones and the *args items, then,
    with `kw_dict` (a Python function, whose source the compiler binds), a **kwargs
    parameter's dict (always, empty when no extra keyword was given); the compiler binds the
    entry's trailing arguments to them."""
    if not kwargs and not any(p.kind == p.KEYWORD_ONLY or (kw_dict and p.kind == p.VAR_KEYWORD)
                              for p in sig.parameters.values()):
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    out = []
    extra = None
    for name, p in sig.parameters.items():
        if p.kind == p.VAR_POSITIONAL:
            out.extend(bound.arguments.get(name, ()))
        elif p.kind == p.VAR_KEYWORD:
            extra = dict(bound.arguments.get(name, {}))
            if not kw_dict:
                if extra:
                    raise TypeError("jit: **kwargs beyond the named parameters are supported "
                                    "for Python functions and Cells, not for this callable")
                extra = None
        else:
            out.append(bound.arguments[name])
    if extra is not None:
        out.append(extra)
    return tuple(out)


# (object, name): the non-Parameter attributes that graph code compiled since the calling
# _JitFunction last looked assigns (common/graph_attr.py records them at compile time).
_ATTR_WRITES = []


def _attr_missing():
    return _attr_missing  # a marker no attribute holds


def _written_key(written, key):
    """`key` with the values now of the attributes `written` ((object, name) pairs) a graph
    assigns: it reads them as constants, so a new value compiles again."""
    if not written:
        return key
    return (key, tuple(getattr(o, n, _attr_missing) for o, n in written))


def _take_written(written):
    """`written` with the pairs _ATTR_WRITES recorded since (which is then emptied)."""
    new = [w for w in _ATTR_WRITES if not any(o is w[0] and n == w[1] for o, n in written)]
    _ATTR_WRITES.clear()
    return written + tuple(new) if new else written


class _JitFunction:
    """A function compiled per call signature. ``_mycel_fn`` is the Python function: when a
    graph calls a jit function, the compiler inlines that function's source."""

    def __init__(self, fn, instance=None):
        # @jit on a Cell's construct: the Cell compiles the function itself.
        if isinstance(fn, _JitFunction):
            fn = fn._mycel_fn
        self._mycel_fn = fn
        self._instance = instance
        target = fn if instance is None else fn.__get__(instance)
        self._graph = _C.GraphFunction(target)
        self._target = target
        self._sig = inspect.signature(target)
        # Extra keywords reach a Python function's **kwargs as a dict (see _positional).
        self._kw_dict = inspect.isfunction(fn)
        # A callable object (grad(f)'s _GradFunction) keeps its state: only a function's
        # __dict__ is copied onto the wrapper.
        functools.update_wrapper(self, fn, updated=functools.WRAPPER_UPDATES
                                 if inspect.isfunction(fn) else ())

    _phase_version = -1
    _phase = None
    _input_signature = None

    _check_symbols = None  # common/symbol.py's input_checker of the input signature, if any

    # The attributes this function's graphs assign (graph_attr.py): the graph reads them as
    # constants, so their values now join the cache key; a call after one assigned a new
    # value compiles for it, as Python would read it.
    _written = ()

    def _key(self, key):
        return _written_key(self._written, key)

    def _take_written(self):
        self._written = _take_written(self._written)

    def __call__(self, *args, **kwargs):
        pos = _positional(self._sig, args, kwargs, self._kw_dict)
        # Inside a PYNATIVE gradient's recording, a graph with a custom gradient rule (a
        # Cell's bprop, a register_hook) or a stop_gradient runs eagerly: the optimised graph
        # no longer has the rule (compiler/compile.h, CompileResult::custom_grads), so the
        # recording of its ops would differentiate them automatically (through the
        # stop_gradient: a silently wrong gradient).
        if _C._recording() and self._graph.custom_grads(*pos):
            return self._target(*args, **kwargs)
        if self._check_symbols is not None:
            self._check_symbols(pos)
        if _tensor_hooks.has_hooks():
            self._refuse_hooks(None, pos)
        if not self._written:
            try:
                return self._graph(*pos)
            finally:
                if _ATTR_WRITES:
                    self._take_written()
        try:
            return self._graph.call_keyed(self._key(None), *pos)
        finally:
            if _ATTR_WRITES:
                self._take_written()

    def _refuse_hooks(self, key, pos):
        """A gradient taken inside this graph does not run the Tensor.register_hook hooks of
        its arguments and weights (they act where a gradient function is called from Python,
        common/tensor_hooks.py): a TypeError rather than a gradient that leaves them out."""
        weights = self._graph.grad_weights(key, *pos)
        if weights is None:
            return
        t = _tensor_hooks.hooked_in(list(pos) + list(weights))
        if t is not None:
            what = f"Parameter '{t.name}'" if hasattr(t, "name") and \
                any(t is w for w in weights) else "a Tensor argument"
            name = getattr(self._mycel_fn, '__name__', type(self._mycel_fn).__name__)
            if self._instance is not None:
                name = f"{type(self._instance).__name__}.{name}"
            raise TypeError(
                f"For '{name}', "
                f"{what} has a hook (Tensor.register_hook), but the gradient this graph takes "
                f"(GRAPH mode, @jit) does not run hooks of its inputs and weights: take the "
                f"gradient outside graph code (ops.grad(...) called from Python applies them), "
                f"or remove the hook.")

    def _set_input_signature(self, inputs, specs=None):
        """Compiles with these inputs' shapes, None (-1) dimensions dynamic (Cell.set_inputs,
        jit(input_signature=...)); `specs` are their _input_spec, computed when not given."""
        if specs is None:
            from mycel.common.tensor import _input_spec
            specs = [_input_spec(t) for t in inputs]
        from mycel.common.symbol import input_checker
        self._input_signature = inputs
        if self._kw_dict and any(p.kind == p.VAR_KEYWORD for p in self._sig.parameters.values()):
            # a **kwargs parameter's dict comes last among the graph's arguments
            # (_positional): the signature leaves it free
            specs = list(specs) + [None]
        self._graph.set_input_signature(specs)
        self._check_symbols = input_checker(inputs)

    def call_keyed(self, key, args, kwargs):
        """Calls with `key` (a Cell tree's training flags) added to the cache key."""
        pos = _positional(self._sig, args, kwargs, self._kw_dict)
        if self._check_symbols is not None:
            self._check_symbols(pos)
        if _tensor_hooks.has_hooks():
            self._refuse_hooks(key, pos)
        try:
            return self._graph.call_keyed(self._key(key), *pos)
        finally:
            if _ATTR_WRITES:
                self._take_written()

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        # One compiled function per instance, kept on the instance.
        cache = instance.__dict__.setdefault("_mycel_jit_methods", {})
        bound = cache.get(id(self))
        if bound is None:
            bound = _JitFunction(self._mycel_fn, instance)
            bound._graph.jit_level = self._graph.jit_level
            if self._input_signature is not None:  # jit(input_signature=...) on a method
                bound._set_input_signature(tuple(self._input_signature))
            cache[id(self)] = bound
        return bound

    def ir(self, *args):
        """The optimised IR text for these arguments (for inspection and tests)."""
        return self._graph.ir(*args)


def jit(function=None, *, capture_mode="ast", jit_level="", dynamic=0, fullgraph=False,
        backend="", input_signature=None, hash_args=None, jit_config=None, **options):
    """Compiles `function` (or, used as ``@jit(...)``, the decorated one) into a graph.

    Only ``capture_mode="ast"`` (MindSpore's default: the Python source is parsed) is
    supported. ``input_signature`` (a Tensor or a tuple of them, one per positional input,
    placeholders such as ``Tensor(shape=[None, 3], dtype=ms.float32)`` for dynamic
    dimensions) compiles once for every size of those dimensions, as ``Cell.set_inputs``
    does. Keyword arguments beyond the named parameters reach the function's ``**kwargs`` as
    a dict (its keys and values' types are part of the call signature).

    ``jit_level`` ("" follows ``set_context(jit_level=...)``; a ``jit_config``'s overrides
    it): "O2" is MindSpore's whole-graph sink. On a GPU each input signature's step then runs
    op by op once (warm-up), is captured once as a CUDA Graph and is replayed from then on:
    one launch per step instead of one per kernel, memory planned once. Replays read the
    arguments' current values and return fresh tensors; a step that cannot be captured (it
    prints, calls Python, reads a tensor's value, draws random numbers, has dynamic shapes
    or an op without a GPU kernel) runs op by op, with one line on stderr saying why
    (docs/architecture.md, "Devices (GPU)"). On the CPU "O2" is "O1". "O0" and "O1" run the
    compiled step op by op. The other options are accepted for MindSpore compatibility."""
    if capture_mode != "ast":
        raise ValueError(f"For 'jit', capture_mode must be 'ast', but got {capture_mode!r}.")
    if jit_config is not None:
        jit_level = _config_level(jit_config, "jit") or jit_level
    if jit_level not in ("", "O0", "O1", "O2"):
        raise ValueError(f"For 'jit', jit_level must be 'O0', 'O1' or 'O2', but got "
                         f"{jit_level!r}.")

    def wrap(fn):
        if isinstance(fn, _JitFunction):
            return fn
        out = _JitFunction(fn)
        out._graph.jit_level = jit_level
        if input_signature is not None:
            sig = input_signature if isinstance(input_signature, (tuple, list)) \
                else (input_signature,)
            out._set_input_signature(tuple(sig))
        return out

    if function is None:
        return wrap
    return wrap(function)


class _MutableFloat(float):
    """A float that jit passes to the graph as a run-time scalar (see mutable)."""
    __ms_mutable__ = True
    __slots__ = ()


class _MutableInt(int):
    """An int that jit passes to the graph as a run-time scalar (see mutable)."""
    __ms_mutable__ = True
    __slots__ = ()


class _MutableTuple(tuple):
    """A tuple marked by mutable: its numbers are run-time scalars (see mutable)."""
    __ms_mutable__ = True


class _MutableList(list):
    """A list marked by mutable: its numbers are run-time scalars (see mutable)."""
    __ms_mutable__ = True


class _MutableDict(dict):
    """A dict marked by mutable: its numbers are run-time scalars (see mutable)."""
    __ms_mutable__ = True


def _mutable_item(x):
    if isinstance(x, (_C.Tensor, bool)) or getattr(x, "__ms_mutable__", False):
        return x
    if isinstance(x, bool):
        return x  # a bool cannot carry the mark (see mutable)
    if not isinstance(x, (int, float, tuple, list, dict)):
        raise TypeError(f"For 'mutable', the input must be a bool, an int, a float, a Tensor, "
                        f"or a tuple, list or dict of them, but got {type(x).__name__}.")
    return mutable(x)


def mutable(input_data, dynamic_len=False):
    """Marks `input_data` as a value that changes between calls of a compiled function
    (MindSpore's ``mindspore.mutable``): a Python int or float is then passed to the graph
    as a run-time scalar instead of being compiled in as a constant, so new values do not
    recompile. A Tensor is returned as it is (tensors are always run-time values). A tuple,
    list or dict comes back as one of the same kind (a subclass marked ``__ms_mutable__``,
    the original as ``__ms_origin_object__``) whose numbers, at any depth, are marked so.

    dynamic_len=True (a tuple or list only) is MindSpore's variable-length sequence: mycel
    accepts it with the same results, but specialises a graph per length, so a new length
    compiles again. Supported: bool, int, float, Tensor, and tuples, lists and dicts of them."""
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when dynamic_len is True, the input must be a tuple or "
                        f"a list, but got {type(input_data).__name__}.")
    if isinstance(input_data, (_C.Tensor, bool)):
        return input_data
    if isinstance(input_data, (tuple, list, dict)):
        if isinstance(input_data, dict):
            out = _MutableDict((k, _mutable_item(v)) for k, v in input_data.items())
        elif isinstance(input_data, list):
            out = _MutableList(_mutable_item(v) for v in input_data)
        else:
            out = _MutableTuple(_mutable_item(v) for v in input_data)
        out.__ms_origin_object__ = input_data
        out.__ms_dynamic_len__ = bool(dynamic_len)
        return out
    if isinstance(input_data, bool):
        # Python's bool cannot be subclassed to carry the mark: a bool passed to a compiled
        # function stays a compile-time constant (one graph per value, same results); given
        # to mutable() in graph code it is a run-time value.
        return input_data
    if not isinstance(input_data, (int, float)):
        raise TypeError(f"For 'mutable', the input must be a bool, an int, a float, a Tensor, "
                        f"or a tuple, list or dict of them, but got {type(input_data).__name__}.")
    if isinstance(input_data, float):
        return _MutableFloat(input_data)
    return _MutableInt(input_data)


def _config_level(config, where):
    """The jit_level of a JitConfig or a dict of its options ("" when it names none)."""
    opts = config.jit_config_dict if isinstance(config, JitConfig) else config
    if not isinstance(opts, dict):
        raise TypeError(f"For '{where}', jit_config must be a JitConfig or a dict, but got "
                        f"{type(config).__name__}.")
    level = opts.get("jit_level", "")
    if level not in ("", "O0", "O1", "O2"):
        raise ValueError(f"For '{where}', jit_level must be 'O0', 'O1' or 'O2', but got "
                         f"{level!r}.")
    return level


class JitConfig:
    """JitConfig(jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
    infer_boost="off", **kwargs): the compile options of MindSpore's ``mindspore.JitConfig``,
    given to ``jit`` or ``data_sink``. Passing one asks for compiled execution; the options
    are kept (``jit_config_dict``). ``jit_level="O2"`` captures the compiled step as a CUDA
    Graph on a GPU and replays it (see ``jit``); "" follows ``set_context``. The other
    options have no effect: mycel has one compile pipeline. exc_mode "auto", "sink" and
    "no_sink" are accepted."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="",
                 debug_level="RELEASE", infer_boost="off", **kwargs):
        if jit_level not in ("", "O0", "O1", "O2"):
            raise ValueError(f"For 'JitConfig', jit_level must be 'O0', 'O1' or 'O2', but got "
                             f"{jit_level!r}.")
        if exc_mode not in ("auto", "sink", "no_sink"):
            raise ValueError(f"For 'JitConfig', exc_mode must be 'auto', 'sink' or 'no_sink', "
                             f"but got {exc_mode!r}.")
        self.jit_config_dict = dict(kwargs, jit_level=jit_level, exc_mode=exc_mode,
                                    jit_syntax_level=jit_syntax_level, debug_level=debug_level,
                                    infer_boost=infer_boost)


class _PyNativeExecutor:
    """The eager executor's handle, as MindSpore programs and tests reach it
    (``mindspore.common.api._pynative_executor``): ``sync()`` waits until the work queued on
    the current device is done (eager ops run as they are called; on a GPU their kernels are
    queued on its stream)."""

    def sync(self):
        _C._synchronize()


_pynative_executor = _PyNativeExecutor()


def jit_class(cls):
    """Marks a plain Python class as usable inside compiled code (MindSpore's ``jit_class``).
    mycel's GRAPH mode already compiles attribute reads and method calls on instances of any
    class (and makes instances inside a graph), so this only checks the argument, marks the
    class with ``__ms_class__ = True`` as MindSpore does, and returns it unchanged. TypeError
    for a non-class or a Cell (a Cell compiles as a Cell)."""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls!r}.")
    if any(c.__name__ == "Cell" and c.__module__.startswith("mycel.nn") for c in cls.__mro__):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be "
                        f"used for nn.Cell: {cls.__name__}.")
    cls.__ms_class__ = True
    return cls


class _CellGraphExecutor:
    """The graph executor's handle, as MindSpore's tests reach it
    (``mindspore.common.api._cell_graph_executor``): ``compile(cell, *args)`` compiles the
    Cell's construct for these arguments as GRAPH mode does (specialisation and the passes,
    whose errors it raises) without running it, and returns the phase name; calling it runs
    the Cell."""

    def compile(self, obj, *args, phase="predict", **kwargs):
        """Compiles obj (a Cell) for args without running it."""
        obj._compiled_construct().ir(*args)
        return phase

    def __call__(self, obj, *args, phase="predict"):
        return obj(*args)


_cell_graph_executor = _CellGraphExecutor()
