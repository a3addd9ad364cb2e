"""Gradient hooks of PYNATIVE mode (MindSpore's ``ops.HookBackward``, ``ops.InsertGradientOf``
and, through ``mycel.common.grad_hooks.pass_gradient``, ``Cell.register_backward_hook``).

Each is an identity in the forward; in a PYNATIVE grad the gradient reaching its output passes
through a Python function on its way back (one recorded call whose gradient rule is that
function: ``_C._call_custom_bprop``). Outside a recording they do nothing. As in MindSpore,
HookBackward is refused in GRAPH mode and under jit (MindSpore's TypeError; the graph's backward
cannot call back into Python), and so is a Cell with backward hooks called in graph code (a
TypeError where MindSpore skips the hooks: a different gradient); InsertGradientOf is a Cell with
its own bprop, so GRAPH mode compiles its function into the backward.
"""
from mycel.common.grad_hooks import pass_gradient
from mycel.nn.cell import Cell

__all__ = ["HookBackward", "InsertGradientOf"]


class HookBackward:
    """``HookBackward(hook_fn)(x)``: x unchanged; in a PYNATIVE grad, ``hook_fn(grad)`` sees the
    gradient reaching x and may return a new one (None keeps it). PYNATIVE mode only, as in
    MindSpore (called in graph code: a TypeError)."""

    __mycel_graph_unsupported__ = ("The Primitive 'HookBackward' is not supported in graph mode, "
                                   "which is only supported in pynative mode.")

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"For 'HookBackward', the 'hook_fn' must be a Python function, "
                            f"but got {type(hook_fn).__name__}.")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, x):
        return pass_gradient(x, self.hook_fn, "HookBackward")


class InsertGradientOf(Cell):
    """``InsertGradientOf(f)(x)``: x unchanged; the gradient reaching x becomes ``f(grad)``, in
    both modes (a Cell with its own bprop: GRAPH mode compiles f into the backward)."""

    def __init__(self, f):
        super().__init__()
        if not callable(f):
            raise TypeError(f"For 'InsertGradientOf', the 'f' must be callable, but got "
                            f"{type(f).__name__}.")
        self.f = f

    def construct(self, x):
        return x * 1

    def bprop(self, x, out, dout):
        return (self.f(dout),)
