"""Bitwise functions on bool and integer tensors, composed exactly from op-table primitives:
and / or / xor through the bits of the operands (below), and the shifts through Pow, Mul and
FloorDiv. The op table has no bitwise primitives yet (a table entry rebuilds most of the
library; see docs/compatibility.md): these are the reference semantics such ops must keep.

and / or / xor: both operands are promoted to a common dtype (a Python int takes the
tensor's), bool with bool is the logical op, floats are a TypeError. Integers are widened to
int64 (sign-extended: the low bits are the dtype's, the high ones copies of its sign) and split
into their 63 low bits, floor_mod(floor_div(x, 2**k), 2), which two's complement gives for
negatives too, plus the sign bit, x < 0; the bits combine (and: product, or: maximum, xor:
|difference|) and sum back with their weights, the sign bit weighing -2**63; the int64 result
wraps back to the dtype. Exact in every width; memory 63 times the broadcast operands."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

_BITS = {_C.int8: 8, _C.uint8: 8, _C.int16: 16, _C.int32: 32, _C.int64: 64}
_INT64_MIN = -2 ** 63


@constexpr
def _weights():
    import numpy as np
    return _C.Tensor(np.left_shift(np.int64(1), np.arange(63, dtype=np.int64)))


@constexpr
def _common_dtype(a, b, op):
    t = _C.promote_types(a, b)
    if t != _C.bool and t not in _BITS:
        raise TypeError(f"For '{op}', the inputs must be bool or integer tensors, but got "
                        f"{a} and {b}.")
    return t


def _operands(input, other):  # noqa: A002
    x = as_tensor(input)
    if isinstance(other, _C.Tensor):
        return x, other
    if isinstance(other, bool) and x.dtype == _C.bool:
        return x, _C.Tensor(other)
    return x, prim("Cast", dtype=x.dtype)(as_tensor(other))


def _bits(x):
    w = _weights()
    return prim("FloorMod")(prim("FloorDiv")(prim("ExpandDims")(x, -1), w), 2), w


def _bitwise(input, other, kind, op):  # noqa: A002
    x, y = _operands(input, other)
    t = _common_dtype(x.dtype, y.dtype, op)
    if t == _C.bool:
        if kind == "and":
            return prim("LogicalAnd")(x, y)
        if kind == "or":
            return prim("LogicalOr")(x, y)
        return prim("NotEqual")(x, y)
    a = prim("Cast", dtype=_C.int64)(x)
    b = prim("Cast", dtype=_C.int64)(y)
    (ab, w), (bb, _) = _bits(a), _bits(b)
    sa, sb = prim("Less")(a, 0), prim("Less")(b, 0)
    if kind == "and":
        c, s = prim("Mul")(ab, bb), prim("LogicalAnd")(sa, sb)
    elif kind == "or":
        c, s = prim("Maximum")(ab, bb), prim("LogicalOr")(sa, sb)
    else:
        c, s = prim("Abs")(prim("Sub")(ab, bb)), prim("NotEqual")(sa, sb)
    r = prim("ReduceSum", keep_dims=False)(prim("Mul")(c, w), (-1,))
    r = prim("Select")(s, prim("Add")(r, _INT64_MIN), r)
    return prim("Cast", dtype=t)(r)


def bitwise_and(input, other):  # noqa: A002 (MindSpore's argument name)
    """input & other, elementwise, on bool or integer tensors (a Python int other takes the
    tensor's dtype). Float inputs are a TypeError."""
    return _bitwise(input, other, "and", "bitwise_and")


def bitwise_or(input, other):  # noqa: A002
    """input | other, elementwise, on bool or integer tensors."""
    return _bitwise(input, other, "or", "bitwise_or")


def bitwise_xor(input, other):  # noqa: A002
    """input ^ other, elementwise, on bool or integer tensors."""
    return _bitwise(input, other, "xor", "bitwise_xor")


@constexpr
def _shift_bits(dtype, op):
    if dtype not in _BITS:
        raise TypeError(f"For '{op}', the input must be an integer tensor, but got {dtype}.")
    return _BITS[dtype], dtype == _C.uint8


def bitwise_left_shift(input, other):  # noqa: A002
    """input << other, elementwise on integer tensors, wrapping in the dtype (bits shifted past
    the top are lost; an amount of the width or more gives 0). Negative amounts are a
    ValueError."""
    x = as_tensor(input)
    _shift_bits(x.dtype, "bitwise_left_shift")
    n = prim("Cast", dtype=x.dtype)(as_tensor(other))
    return prim("Mul")(x, prim("Pow")(prim("OnesLike")(n) + 1, n))


def bitwise_right_shift(input, other):  # noqa: A002
    """input >> other, elementwise on integer tensors: arithmetic shift (floor division by
    2**other; an amount of the width or more gives -1 for negative inputs and 0 otherwise).
    Negative amounts are a ValueError."""
    x = as_tensor(input)
    bits, unsigned = _shift_bits(x.dtype, "bitwise_right_shift")
    n = prim("Cast", dtype=x.dtype)(as_tensor(other))
    # 2**k stays positive in the dtype for k <= bits - 2 (bits - 1 for uint8).
    top = bits - 1 if unsigned else bits - 2
    k = prim("Minimum")(n, top)
    q = prim("FloorDiv")(x, prim("Pow")(prim("OnesLike")(k) + 1, k))
    if unsigned:
        return prim("Select")(prim("Greater")(n, top), prim("ZerosLike")(q), q)
    # The one amount beyond `top` below the width, and all above it: the sign, spread.
    sign = prim("Select")(prim("Less")(x, 0), prim("OnesLike")(q) * -1, prim("ZerosLike")(q))
    return prim("Select")(prim("Greater")(n, top), sign, q)


__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift"]
