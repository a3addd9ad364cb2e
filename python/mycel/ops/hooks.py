"""Gradient hooks of PYNATIVE mode (MindSpore's ``ops.HookBackward``, ``ops.InsertGradientOf``
and, through ``mycel.common.grad_hooks``, ``Cell.register_backward_hook``).

Each is an identity in the forward; in a PYNATIVE grad the gradient reaching its output passes
through a Python function on its way back (one recorded call whose gradient rule is that
function: ``_C._call_custom_bprop``). Outside a recording they do nothing. As in MindSpore,
HookBackward is refused in GRAPH mode and under jit (MindSpore's TypeError; the graph's backward
cannot call back into Python), and so is a Cell with backward hooks called in graph code (a
TypeError where MindSpore skips the hooks: a different gradient); InsertGradientOf is a Cell with
its own bprop, so GRAPH mode compiles its function into the backward.
"""
from mycel.common.grad_hooks import pass_gradients
from mycel.nn.cell import Cell

__all__ = ["HookBackward", "InsertGradientOf"]


class HookBackward:
    """``HookBackward(hook_fn)(*inputs)``: the inputs unchanged (one input: itself; several: a
    tuple of them); in a PYNATIVE grad, ``hook_fn(grads)`` sees the tuple of the gradients
    reaching them (one per input, as MindSpore passes them) and may return new ones (a tuple
    of as many Tensors, or one Tensor when there is one input; None keeps them). PYNATIVE mode
    only, as in MindSpore (called in graph code: a TypeError). Within a PYNATIVE grad mycel
    supports one input (several: a NotImplementedError)."""

    __mycel_graph_unsupported__ = ("The Primitive 'HookBackward' is not supported in graph mode, "
                                   "which is only supported in pynative mode.")

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"For 'HookBackward', the 'hook_fn' must be a Python function, "
                            f"but got {type(hook_fn).__name__}.")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs):
        if not inputs:
            raise TypeError("For 'HookBackward', it needs at least one Tensor input, but got "
                            "none.")
        return pass_gradients(inputs, self.hook_fn, "HookBackward")


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
