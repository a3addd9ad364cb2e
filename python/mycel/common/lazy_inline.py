"""MindSpore's ``lazy_inline`` and ``no_inline`` decorators.

In MindSpore, ``@lazy_inline`` on a Cell's ``__init__`` asks the compiler to compile the
cell's ``construct`` once as a subgraph that every instance calls (reused, not copied into
the caller) and to inline it only late, which shortens compilation of networks that repeat a
block many times; ``@no_inline`` asks the same of a function, never inlined. Results are the
same either way: the decorators only steer compilation.

mycel's compiler has no non-inlined call path for cells: it always inlines (compiler/passes:
inline), and compiles a network of repeated blocks as one graph. So here the decorators record
the request (``cell._lazy_inline = True`` with the policy and attrs, ``fn._no_inline = True``)
and change nothing else: programs that use them run, with the same results, but without
MindSpore's compile-time saving.
"""
import functools

__all__ = ["lazy_inline", "no_inline"]

_POLICIES = (None, "front")


def lazy_inline(fn=None, attrs=None, policy=None):
    """Decorator of a Cell's ``__init__`` (``@lazy_inline`` or ``@lazy_inline(policy="front",
    attrs=...)``): marks each instance as a block to be compiled once and called (module
    docstring: mycel records the mark and keeps inlining). policy is None or "front"; attrs
    a str or a list/tuple of str (names of the cell's attributes MindSpore folds into the
    subgraph); other values are a TypeError / ValueError."""
    if policy not in _POLICIES:
        raise ValueError(f"For 'lazy_inline', the policy must be None or 'front', but got "
                         f"{policy!r}.")
    if attrs is not None and not isinstance(attrs, str) and not (
            isinstance(attrs, (list, tuple)) and all(isinstance(a, str) for a in attrs)):
        raise TypeError(f"For 'lazy_inline', the attrs must be a str or a list of str, but got "
                        f"{attrs!r}.")

    def wrap(init):
        if not callable(init):
            raise TypeError(f"For 'lazy_inline', it decorates a Cell's __init__, but got "
                            f"{type(init).__name__}.")

        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
            object.__setattr__(self, "_lazy_inline", True)
            object.__setattr__(self, "_lazy_inline_policy", policy)
            object.__setattr__(self, "_lazy_inline_attrs", attrs)
        return __init__

    return wrap if fn is None else wrap(fn)


def no_inline(fn=None):
    """Decorator of a function called from compiled code: MindSpore compiles it as a subgraph
    that is called, never inlined; mycel records the mark (``fn._no_inline``) and inlines it
    (module docstring). Results are the same."""
    def wrap(f):
        if not callable(f):
            raise TypeError(f"For 'no_inline', it decorates a function, but got "
                            f"{type(f).__name__}.")
        f._no_inline = True
        return f
    return wrap if fn is None else wrap(fn)
