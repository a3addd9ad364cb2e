"""Constructor arguments kept for serialize (serialize.py): datasets, samplers and transforms
remember how they were made, so a pipeline can be written as JSON and rebuilt by calling the
same constructors with the same arguments.

``record_init(cls)`` (called from ``__init_subclass__`` of Dataset, Sampler and
TensorOperation) wraps a class's own ``__init__``: the outermost call of an object's
construction (its most derived class) stores the bound arguments, defaults filled in, as
``_serdes_args`` before running the constructor; the base classes' ``__init__`` calls inside
it record nothing. A leaf module: it imports nothing of the package.
"""
import functools
import inspect


def record_init(cls):
    """Wrap cls.__init__ (when cls defines one) to record its arguments (module doc)."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_serdes_wrapped", False):
        return
    sig = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        if "_serdes_args" not in self.__dict__:
            try:
                bound = sig.bind(self, *args, **kwargs)
                bound.apply_defaults()
                self._serdes_args = dict(list(bound.arguments.items())[1:])  # without self
            except TypeError:  # a wrong call: the constructor raises its own error
                pass
        init(self, *args, **kwargs)

    __init__._serdes_wrapped = True
    cls.__init__ = __init__


def call_args(cls, params):
    """(args, kwargs) that call cls with the recorded params (the inverse of the binding)."""
    sig = inspect.signature(cls.__init__)
    names = list(sig.parameters.values())[1:]
    has_var = any(p.kind is p.VAR_POSITIONAL for p in names)
    args, kwargs = [], {}
    for p in names:
        if p.name not in params:
            continue
        value = params[p.name]
        if p.kind is p.VAR_POSITIONAL:
            args.extend(value)
            has_var = False  # parameters after *args are keyword-only
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(value)
        elif has_var or p.kind is p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[p.name] = value
    return args, kwargs
