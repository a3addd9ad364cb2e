"""unique_with_pad: the unique values of each row in first-occurrence order, padded to the
row's length, and each element's index into them (MindSpore's P.UniqueWithPad). The output
shapes are the input's, so it composes from op-table primitives in both modes, dynamic
shapes included: with eq[i, j] = (x[i] == x[j]), element i is the first of its value when no
j < i has eq; its slot is the count of firsts up to it, minus one; idx[i] is the slot of the
first j with eq[i, j] (argmax of the row); y[p] is the first whose slot is p, else pad_num.
O(n^2) work and memory per row of n (MindSpore's kernel sorts); NaN equals nothing, so each
NaN is its own value."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr


@constexpr
def _check_unique_with_pad(ndim, dtype):
    if ndim not in (1, 2):
        raise ValueError(f"For 'UniqueWithPad', the input must be 1-D or 2-D (a batch of rows), "
                         f"but got {ndim} dimensions.")
    if dtype == _C.bool:
        raise TypeError("For 'UniqueWithPad', the input must be a number tensor, but got Bool.")
    return dtype if dtype in (_C.int32, _C.int64) else _C.int32


def unique_with_pad(x, pad_num):
    """(y, idx) for x of shape (n,) or (b, n): y holds each row's unique values in order of
    first occurrence, then pad_num; idx[i] is x[i]'s position in y (int32, or x's dtype when
    that is int32/int64)."""
    x = as_tensor(x)
    idx_dtype = _check_unique_with_pad(x.ndim, x.dtype)
    i32 = _C.int32
    pos = prim("Sub")(prim("CumSum")(prim("OnesLike")(prim("Cast", dtype=i32)(x)), -1), 1)
    eq = prim("Equal")(prim("ExpandDims")(x, -1), prim("ExpandDims")(x, -2))  # [.., i, j]
    before = prim("Less")(prim("ExpandDims")(pos, -2), prim("ExpandDims")(pos, -1))  # j < i
    dup = prim("ReduceMax", keep_dims=False)(
        prim("Cast", dtype=i32)(prim("LogicalAnd")(eq, before)), (-1,))
    first = prim("Equal")(dup, 0)
    slot = prim("Sub")(prim("CumSum")(prim("Cast", dtype=i32)(first), -1), 1)
    same = prim("Equal")(prim("ExpandDims")(pos, -2), prim("ExpandDims")(pos, -1))  # j == i
    first_j = prim("Argmax", axis=-1, output_type=i32)(
        prim("Cast", dtype=i32)(prim("LogicalOr")(eq, same)))  # a NaN finds itself
    idx = prim("GatherD")(slot, first_j, -1)
    # m[.., p, i]: element i is the first of the value in slot p.
    m = prim("LogicalAnd")(prim("ExpandDims")(first, -2),
                           prim("Equal")(prim("ExpandDims")(slot, -2), prim("ExpandDims")(pos, -1)))
    val = prim("ReduceSum", keep_dims=False)(
        prim("Select")(m, prim("ExpandDims")(x, -2), prim("ZerosLike")(prim("ExpandDims")(x, -2))),
        (-1,))
    has = prim("Greater")(prim("ReduceMax", keep_dims=False)(prim("Cast", dtype=i32)(m), (-1,)), 0)
    pad = prim("Cast", dtype=x.dtype)(as_tensor(pad_num))
    y = prim("Select")(has, prim("Cast", dtype=x.dtype)(val), pad)
    return y, prim("Cast", dtype=idx_dtype)(idx)


__all__ = ["unique_with_pad"]
