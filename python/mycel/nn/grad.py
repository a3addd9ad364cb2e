"""Jacobian products as Cells (MindSpore's ``mindspore.nn.grad``): ``Vjp(fn)(*inputs, v)`` gives
``(fn(*inputs), v^T J)`` and ``Jvp(fn)(*inputs, v)`` gives ``(fn(*inputs), J v)``, where v is
one Tensor for a single output (Vjp) or input (Jvp), else a tuple of them. Both are built on
GradOperation, so they compile in GRAPH mode like any Cell: Vjp is the gradient with the
sensitivity v; Jvp is the gradient of that pullback with respect to its cotangent u (the
pullback is linear in u, so its own pullback along v is J v, the same at every u)."""
from mycel.nn.cell import Cell
from mycel.ops.composite import GradOperation
from mycel.ops.primitive import constexpr


@constexpr
def _check_tangents(n_inputs, v_is_tuple, v_len):
    """Jvp's v has the inputs' structure: one Tensor for one input, a tuple of one per input
    for several (a TypeError otherwise, at compile time in graphs, as MindSpore's)."""
    if n_inputs == 1 and v_is_tuple:
        raise TypeError(f"For 'Jvp', v must be a Tensor for a function of one input, but got "
                        f"a tuple of {v_len}.")
    if n_inputs > 1 and (not v_is_tuple or v_len != n_inputs):
        got = f"a tuple of {v_len}" if v_is_tuple else "one Tensor"
        raise TypeError(f"For 'Jvp', v must be a tuple of {n_inputs} Tensors (one per input), "
                        f"but got {got}.")


class Vjp(Cell):
    """Vjp(fn)(*inputs, v) -> (fn(*inputs), the gradient of <fn(*inputs), v> with respect to
    the inputs: one Tensor for one input, else a tuple). v must match fn's outputs (a Tensor,
    or a tuple for several outputs): a TypeError otherwise."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self._grad_all = GradOperation(get_all=True, sens_param=True)
        self._grad_one = GradOperation(sens_param=True)

    def construct(self, *args):
        inputs = args[:-1]
        out = self.fn(*inputs)
        if len(inputs) == 1:
            return out, self._grad_one(self.fn)(*args)
        return out, self._grad_all(self.fn)(*args)


class _Pullback(Cell):
    """(*inputs, u) -> u^T J, the tuple of input gradients (linear in u)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self._grad_all = GradOperation(get_all=True, sens_param=True)

    def construct(self, *args):
        return self._grad_all(self.fn)(*args)


class Jvp(Cell):
    """Jvp(fn)(*inputs, v) -> (fn(*inputs), J v: one Tensor for one output, else a tuple), v
    one tangent per input (a Tensor for one input, else a tuple of one per input: a TypeError
    otherwise)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self._pull = _Pullback(fn)
        self._push = GradOperation(get_all=True, sens_param=True)

    def construct(self, *args):
        inputs = args[:-1]
        v = args[-1]
        v_is_tuple = isinstance(v, tuple)
        _check_tangents(len(inputs), v_is_tuple, len(v) if v_is_tuple else 1)
        out = self.fn(*inputs)
        tangents = v if isinstance(v, tuple) else (v,)
        # the pullback is linear in u, so its gradient in u is the same at every u: the
        # output itself serves as u (it has the outputs' structure and dtypes)
        grads = self._push(self._pull)(*inputs, out, tangents)
        return out, grads[-1]
