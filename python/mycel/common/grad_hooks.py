"""An identity whose gradient passes through a Python function in a PYNATIVE grad: what
``ops.HookBackward`` (ops/hooks.py) and ``Cell.register_backward_hook`` (nn/cell.py) are made
of. One recorded call whose gradient rule is the function (``_C._call_custom_bprop``, as a
Cell's own bprop); outside a recording, x itself."""
from mycel import _mycel as _C

__all__ = ["pass_gradient", "pass_gradients"]


def _check_grad(new, old, who):
    if not isinstance(new, _C.Tensor) or tuple(new.shape) != tuple(old.shape) or \
            new.dtype != old.dtype:
        desc = f"{new.dtype}{list(new.shape)}" if isinstance(new, _C.Tensor) else \
            type(new).__name__
        raise TypeError(f"For '{who}', the gradient returned must be a Tensor like the one "
                        f"received ({old.dtype}{list(old.shape)}), but got {desc}.")
    return new


def pass_gradient(x, on_grad, who):
    """x unchanged; in a PYNATIVE grad, the gradient reaching it is on_grad(grad) when that is
    not None (a Tensor of grad's shape and dtype), else grad itself."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{who}', the input must be a Tensor, but got "
                        f"{type(x).__name__}.")
    if not _C._recording():
        return x

    def rule(_x, _out, dout):
        new = on_grad(dout)
        return (dout if new is None else _check_grad(new, dout, who),)

    return _C._call_custom_bprop(lambda: _C._detached(x), rule, [x])


def pass_gradients(xs, on_grads, who):
    """The Tensors xs unchanged (one: itself; several: a tuple); in a PYNATIVE grad,
    on_grads(grads) sees the tuple of the gradients reaching them and may return new ones:
    None keeps them, else a tuple/list of one Tensor per input (or one Tensor for one input),
    each of its gradient's shape and dtype (MindSpore's ``HookBackward`` convention)."""
    for x in xs:
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"For '{who}', the inputs must be Tensors, but got "
                            f"{type(x).__name__}.")
    xs = tuple(xs)
    if not _C._recording():
        return xs[0] if len(xs) == 1 else xs

    def rule(*values):
        douts = (values[-1],)
        new = on_grads(tuple(douts))
        if new is None:
            return tuple(douts)
        new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        if len(new) != len(douts):
            raise TypeError(f"For '{who}', the hook must return None or {len(douts)} "
                            f"gradient(s) (one per input), but it returned {len(new)}.")
        return tuple(_check_grad(n, d, who) for n, d in zip(new, douts))

    if len(xs) != 1:
        # a recorded call with its own gradient rule has one Tensor output (_call_custom_bprop)
        raise NotImplementedError(f"For '{who}', mycel's PYNATIVE grad supports one Tensor "
                                  f"input, but got {len(xs)}.")
    return _C._call_custom_bprop(lambda: _C._detached(xs[0]), rule, list(xs))
