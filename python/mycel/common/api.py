"""jit: compile a function or a Cell method into a graph (MindSpore's ``mindspore.jit``).

``@jit`` works with and without arguments, on plain functions and on Cell methods, in both
PYNATIVE and GRAPH mode: the decorated function runs as one compiled graph per call
signature (tensor dtypes and shapes, values of other arguments). In GRAPH mode, calling a
Cell compiles its ``construct`` the same way (see nn.Cell.__call__).
"""
import functools
import inspect

from mycel import _mycel as _C


def _positional(sig, args, kwargs):
    """args and kwargs bound to the signature as positional arguments (defaults filled).
    Keyword-only parameters come last, after the positional ones and the *args items; the
    compiler binds the entry's trailing arguments to them."""
    if not kwargs and not any(p.kind == p.KEYWORD_ONLY for p in sig.parameters.values()):
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    out = []
    for name, p in sig.parameters.items():
        if p.kind == p.VAR_POSITIONAL:
            out.extend(bound.arguments.get(name, ()))
        elif p.kind == p.VAR_KEYWORD:
            if bound.arguments.get(name):
                raise TypeError("jit: **kwargs beyond the named parameters are not supported")
        else:
            out.append(bound.arguments[name])
    return tuple(out)


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
        self._sig = inspect.signature(target)
        # A callable object (grad(f)'s _GradFunction) keeps its state: only a function's
        # __dict__ is copied onto the wrapper.
        functools.update_wrapper(self, fn, updated=functools.WRAPPER_UPDATES
                                 if inspect.isfunction(fn) else ())

    _phase_version = -1
    _phase = None

    def __call__(self, *args, **kwargs):
        return self._graph(*_positional(self._sig, args, kwargs))

    def call_keyed(self, key, args, kwargs):
        """Calls with `key` (a Cell tree's training flags) added to the cache key."""
        return self._graph.call_keyed(key, *_positional(self._sig, args, kwargs))

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        # One compiled function per instance, kept on the instance.
        cache = instance.__dict__.setdefault("_mycel_jit_methods", {})
        bound = cache.get(id(self))
        if bound is None:
            bound = _JitFunction(self._mycel_fn, instance)
            cache[id(self)] = bound
        return bound

    def ir(self, *args):
        """The optimised IR text for these arguments (for inspection and tests)."""
        return self._graph.ir(*args)


def jit(function=None, *, capture_mode="ast", jit_level="O1", dynamic=0, fullgraph=False,
        backend="", input_signature=None, hash_args=None, jit_config=None, **options):
    """Compiles `function` (or, used as ``@jit(...)``, the decorated one) into a graph.

    Only ``capture_mode="ast"`` (MindSpore's default: the Python source is parsed) is
    supported; the other options are accepted for MindSpore compatibility."""
    if capture_mode != "ast":
        raise ValueError(f"For 'jit', capture_mode must be 'ast', but got {capture_mode!r}.")

    def wrap(fn):
        if isinstance(fn, _JitFunction):
            return fn
        return _JitFunction(fn)

    if function is None:
        return wrap
    return wrap(function)
