"""An identity whose gradient passes through a Python function in a PYNATIVE grad: what
``ops.HookBackward`` (ops/hooks.py) and ``Cell.register_backward_hook`` (nn/cell.py) are made
of. One recorded call whose gradient rule is the function (``_C._call_custom_bprop``, as a
Cell's own bprop); outside a recording, x itself."""
from mycel import _mycel as _C

__all__ = ["pass_gradient"]


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
