"""Jacobian products as Cells (MindSpore's ``mindspore.nn.grad``): ``Vjp(fn)(*inputs, v)`` gives
``(fn(*inputs), v^T J)`` and ``Jvp(fn)(*inputs, v)`` gives ``(fn(*inputs), J v)``, where v is
one Tensor for a single output (Vjp) or input (Jvp), else a tuple of them. Both are built on
ops.vjp and ops.jvp, so fn runs once per call (its effects happen once) and they compile in
GRAPH mode like any Cell."""
from mycel.nn.cell import Cell
from mycel.ops.composite import jvp, vjp


class Vjp(Cell):
    """Vjp(fn)(*inputs, v) -> (fn(*inputs), the gradient of <fn(*inputs), v> with respect to
    the inputs: one Tensor for one input, else a tuple). v must match fn's outputs (a Tensor,
    or a tuple for several outputs): a TypeError otherwise."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs = args[:-1]
        out, pull = vjp(self.fn, *inputs)
        grads = pull(args[-1])
        if len(inputs) == 1:
            return out, grads[0]
        return out, grads


class Jvp(Cell):
    """Jvp(fn)(*inputs, v) -> (fn(*inputs), J v: one Tensor for one output, else a tuple), v
    one tangent per input (a Tensor for one input, else a tuple): a TypeError otherwise."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs = args[:-1]
        v = args[-1]
        tangents = v if isinstance(v, tuple) else (v,)
        # MindSpore's structure: a Tensor for one input, a tuple of one per input for several
        if len(tangents) != len(inputs) or isinstance(v, tuple) != (len(inputs) > 1):
            given = f"a tuple of {len(v)}" if isinstance(v, tuple) else "a Tensor"
            raise TypeError(f"For 'Jvp', v must be a Tensor for one input, or a tuple of one "
                            f"tangent per input for several, but there are {len(inputs)} "
                            f"inputs and v is {given}.")
        return jvp(self.fn, inputs, tangents)
