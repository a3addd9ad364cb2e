"""MindSpore's in-place Tensor methods (``x.add_(y)``, ``x.copy_(src)``, ``x.fill_(v)``, ...):
each computes the out-of-place result, cast to x's dtype and broadcast to x's shape, writes
it into x with the Assign primitive (so views of x, and later reads in a graph, see it) and
returns x. Assign has no gradient: gradients do not flow through an in-place method.

The augmented operators (``x += y``) keep Python's rebinding semantics (a new tensor); only
these named methods write in place."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import math_func as _m, compat_func as _c
from mycel.ops.primitive import constexpr


@constexpr
def _same_shape(target, got, op):
    if tuple(target) != tuple(got):
        raise ValueError(f"For 'Tensor.{op}', the result of shape {tuple(got)} does not fit the "
                         f"tensor's shape {tuple(target)}: an in-place result must keep it.")


def _write(self, value, op):
    v = prim("Cast", dtype=self.dtype)(as_tensor(value))
    if v.shape != self.shape:
        _same_shape(self.shape, prim("BroadcastTo", shape=self.shape)(v).shape, op)
        v = prim("BroadcastTo", shape=self.shape)(v)
    prim("Assign")(self, v)
    return self


def _scaled(other, alpha):
    return other if alpha == 1 else _m.mul(other, alpha)


def add_(self, other, *, alpha=1):
    """self += alpha * other, in place."""
    return _write(self, _m.add(self, _scaled(other, alpha)), "add_")


def sub_(self, other, *, alpha=1):
    """self -= alpha * other, in place."""
    return _write(self, _m.sub(self, _scaled(other, alpha)), "sub_")


def mul_(self, other):
    """self *= other, in place."""
    return _write(self, _m.mul(self, other), "mul_")


def div_(self, other, *, rounding_mode=None):
    """self /= other (rounding_mode None, 'floor' or 'trunc'), in place."""
    return _write(self, _m.div(self, other, rounding_mode=rounding_mode), "div_")


def floor_divide_(self, other):
    """self //= other, in place."""
    return _write(self, _m.floor_divide(self, other), "floor_divide_")


def copy_(self, src, non_blocking=False):
    """Writes src (cast to self's dtype, broadcast to its shape) into self."""
    return _write(self, src, "copy_")


def fill_(self, value):
    """Every element of self set to value (a number or a one-element tensor)."""
    return _write(self, value, "fill_")


def zero_(self):
    """Every element of self set to 0."""
    return _write(self, prim("ZerosLike")(self), "zero_")


def clamp_(self, min=None, max=None):  # noqa: A002 (MindSpore's argument names)
    """self clamped to [min, max], in place."""
    return _write(self, _m.clamp(self, min, max), "clamp_")


def masked_fill_(self, mask, value):
    """value where mask is True, in place."""
    return _write(self, _c.masked_fill(self, mask, value), "masked_fill_")


def exp_(self):
    """exp(self), in place."""
    return _write(self, _m.exp(self), "exp_")


def log_(self):
    """log(self), in place."""
    return _write(self, _m.log(self), "log_")


def tanh_(self):
    """tanh(self), in place."""
    return _write(self, _m.tanh(self), "tanh_")


def floor_(self):
    """floor(self), in place."""
    return _write(self, _m.floor(self), "floor_")


__all__ = ["add_", "sub_", "mul_", "div_", "floor_divide_", "copy_", "fill_", "zero_", "clamp_",
           "masked_fill_", "exp_", "log_", "tanh_", "floor_"]
