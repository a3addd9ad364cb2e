"""Elementwise functions MindSpore 2.x programs use that compose from op-table primitives:
bitwise not (invert), inv (the reciprocal) and softsign."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

_INT_OR_BOOL = (_C.bool, _C.int8, _C.uint8, _C.int16, _C.int32, _C.int64, _C.uint16, _C.uint32,
                _C.uint64)


@constexpr
def _check_int_or_bool(dtype, op):
    if dtype not in _INT_OR_BOOL:
        raise TypeError(f"For '{op}', the input must be a bool or integer tensor, but got "
                        f"{dtype}.")
    return dtype == _C.bool


def invert(x):
    """Bitwise not: ~x for integer tensors (two's complement: -1 - x, exact in every width,
    unsigned included), logical not for bool tensors."""
    x = as_tensor(x)
    if _check_int_or_bool(x.dtype, "invert"):
        return prim("LogicalNot")(x)
    return prim("Sub")(-1, x)


bitwise_not = invert


@constexpr
def _is_int(dtype):
    return dtype in _INT_OR_BOOL and dtype != _C.bool


def inv(x):
    """1 / x, elementwise. Floats as ops.reciprocal; integers stay integers, as MindSpore's
    Inv: 1 / x rounded toward zero (x for x = +-1, else 0; 1 / 0 is not defined)."""
    x = as_tensor(x)
    if _is_int(x.dtype):
        return prim("Select")(prim("Equal")(prim("Abs")(x), 1), x, prim("ZerosLike")(x))
    return prim("Reciprocal")(x)


def softsign(x):
    """x / (1 + |x|), elementwise."""
    x = as_tensor(x)
    return prim("Div")(x, prim("Add")(prim("Abs")(x), 1.0))


__all__ = ["invert", "bitwise_not", "inv", "softsign"]
