"""MindSpore's ``mindspore.ops.composite.base``: where its composite classes are defined
(``GradOperation``, ``HyperMap``, ``Map``, ``MultitypeFuncGraph``) and the ``core``
decorator. mycel's classes are those of ops.composite; this module lists them under
MindSpore's path."""
from mycel.ops.composite import GradOperation, HyperMap, Map, MultitypeFuncGraph

__all__ = ["GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "core"]


def core(fn=None, **flags):
    """MindSpore's ``@core`` / ``@core(loop_can_uroll=True)``: marks a function as a core
    graph for its compiler's inliner. mycel's compiler needs no such mark (it specialises every
    call), so the function is returned unchanged; the flags (keyword arguments) are accepted as
    MindSpore's and recorded on it as ``__core_flags__``."""
    def mark(f):
        if not callable(f):
            raise TypeError(f"For 'core', the decorated object must be callable, but got "
                            f"{type(f).__name__}.")
        try:
            f.__core_flags__ = dict(flags)
        except AttributeError:
            pass
        return f
    return mark if fn is None else mark(fn)
