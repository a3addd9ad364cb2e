"""Bitwise functions on bool and integer tensors: and / or / xor are the table's BitwiseAnd,
BitwiseOr and BitwiseXor (two's complement; bool with bool is the logical op); the shifts are
composed through Pow, Mul and FloorDiv.

Operands are promoted to a common dtype (a Python int takes the tensor's); floats are a
TypeError naming the function."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

_BITS = {_C.int8: 8, _C.uint8: 8, _C.int16: 16, _C.int32: 32, _C.int64: 64,
         _C.uint16: 16, _C.uint32: 32, _C.uint64: 64}
_UNSIGNED = (_C.uint8, _C.uint16, _C.uint32, _C.uint64)


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


def _bitwise(input, other, op, table_op):  # noqa: A002
    x, y = _operands(input, other)
    _common_dtype(x.dtype, y.dtype, op)  # the table op promotes; this names the function
    return prim(table_op)(x, y)


def bitwise_and(input, other):  # noqa: A002 (MindSpore's argument name)
    """input & other, elementwise, on bool or integer tensors (a Python int other takes the
    tensor's dtype). Float inputs are a TypeError."""
    return _bitwise(input, other, "bitwise_and", "BitwiseAnd")


def bitwise_or(input, other):  # noqa: A002
    """input | other, elementwise, on bool or integer tensors."""
    return _bitwise(input, other, "bitwise_or", "BitwiseOr")


def bitwise_xor(input, other):  # noqa: A002
    """input ^ other, elementwise, on bool or integer tensors."""
    return _bitwise(input, other, "bitwise_xor", "BitwiseXor")


@constexpr
def _shift_bits(dtype, op):
    if dtype not in _BITS:
        raise TypeError(f"For '{op}', the input must be an integer tensor, but got {dtype}.")
    return _BITS[dtype], dtype in _UNSIGNED


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
    # 2**k stays positive in the dtype for k <= bits - 2 (bits - 1 when unsigned).
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
