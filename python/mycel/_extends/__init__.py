"""``mindspore._extends``: the helpers MindSpore programs import from it, and where they reach
its compiler's Python side (``mindspore._extends.parse.compile_config``).

``cell_attr_register``: a decorator for a Cell's ``__init__`` that records the arguments it was
called with on the instance as ``cell_init_args`` (MindSpore uses that string to tell cells
built alike apart); the Cell itself behaves as without it."""
import functools
import inspect

__all__ = ["cell_attr_register"]


def _init_args_text(cls_name, bound, attrs):
    items = [(k, v) for k, v in bound.arguments.items() if k != "self"]
    if attrs is not None:
        items = [(k, v) for k, v in items if k in attrs]
    return cls_name + "(" + ", ".join(f"{k}={v!r}" for k, v in items) + ")"


def cell_attr_register(fn=None, attrs=None):
    """``@cell_attr_register`` or ``@cell_attr_register(attrs=[names])`` on a Cell's
    ``__init__``: after it runs, ``self.cell_init_args`` is the class name with the arguments
    (only those named in `attrs`, when given)."""
    if attrs is not None and not isinstance(attrs, (list, tuple)):
        raise TypeError(f"For 'cell_attr_register', 'attrs' must be a list or tuple of names, "
                        f"but got {type(attrs).__name__}.")

    def wrap(init):
        sig = inspect.signature(init)

        @functools.wraps(init)
        def deco(self, *args, **kwargs):
            bound = sig.bind(self, *args, **kwargs)
            bound.apply_defaults()
            init(self, *args, **kwargs)
            object.__setattr__(self, "cell_init_args",
                               _init_args_text(type(self).__name__, bound, attrs))
        return deco

    if fn is not None:
        return wrap(fn)
    return wrap
