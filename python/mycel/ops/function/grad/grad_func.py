"""MindSpore's ``mindspore.ops.function.grad.grad_func``: the gradient functions of
``mycel.ops`` (``ops/composite/__init__.py``), and ``custom_vjp``, a function with its own backward.

``custom_vjp(fn)`` returns a Cell whose construct calls fn and whose ``bprop`` is the
function given to ``defbwd``: ``bprop(*inputs, out, dout)`` returns one gradient per input.
Cells with a bprop are how mycel's two modes take a custom gradient rule (the compiler's
custom_vjp in graph code, the recording's custom bprop in PYNATIVE mode: nn/cell.py), so
the decorated function differentiates by its rule in both, called from Python, from graph
code, or inside other networks.
"""
from mycel.nn.cell import Cell
from mycel.ops.composite import (grad, value_and_grad, vjp, jvp, jacfwd, jacrev, linearize,
                                 stop_gradient, get_grad)

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "linearize",
           "stop_gradient", "get_grad", "custom_vjp"]


class _CustomVjp(Cell):
    """fn with the backward given to defbwd (see custom_vjp)."""

    def __init__(self, fn):
        super().__init__()
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_bwd", None)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)

    def defbwd(self, bwd):
        """Sets the backward: ``bwd(*inputs, out, dout)`` returns one gradient per input (a
        tuple). Returns bwd, so it may be used as a decorator."""
        if not callable(bwd):
            raise TypeError(f"For 'custom_vjp', defbwd takes a function, but got "
                            f"{type(bwd).__name__}.")
        object.__setattr__(self, "_bwd", bwd)
        return bwd

    def construct(self, *inputs):
        return self._fn(*inputs)

    def bprop(self, *inputs_out_dout):
        return _backward(self._bwd, self.__name__)(*inputs_out_dout)


def _backward(bwd, name):
    if bwd is None:
        raise RuntimeError(f"For 'custom_vjp', the function '{name}' has no backward: call "
                           f"{name}.defbwd(bprop) before taking its gradient.")
    return bwd


def custom_vjp(fn=None):
    """Decorator: ``fn`` with a custom backward set by ``fn.defbwd(bprop)``, where
    ``bprop(*inputs, out, dout)`` returns one gradient per input (MindSpore's
    ``custom_vjp``). The result is a Cell (see the module's docstring)."""
    if fn is None:
        return custom_vjp
    if not callable(fn):
        raise TypeError(f"For 'custom_vjp', the input must be a function, but got "
                        f"{type(fn).__name__}.")
    return _CustomVjp(fn)
