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
import numpy as np
from mycel.ops.function import array_func as _a
from mycel.ops.function.graph_compat_func import any as _any
from mycel.ops.function.array_ext_func import moveaxis


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


__all__ = ["unique_with_pad", "unique_consecutive"]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def unique_consecutive(input, return_idx=False, return_counts=False, axis=None):  # noqa: A002
    """The elements with each run of consecutive equal values collapsed to one (flattened
    when axis is None; along axis otherwise), with the run index of each element
    (return_idx) and the run lengths (return_counts). The output length depends on the
    values (PYNATIVE mode)."""
    x = _t(input, "unique_consecutive")
    if axis is None:
        flat = prim("Reshape")(x, (-1,))
        n = flat.shape[0]
        if n == 0:
            out, idx, cnt = flat, prim("Cast")(flat, _C.int64), prim("Cast")(flat, _C.int64)
        else:
            head = _a.concat((_true1(), prim("NotEqual")(flat[1:], flat[:n - 1])), 0)
            out = prim("MaskedSelect")(flat, head)
            idx = prim("CumSum")(prim("Cast")(head, _C.int64), 0) - 1
            cnt = _counts(idx, out.shape[0])
            idx = prim("Reshape")(idx, x.shape)
    else:
        ax = axis % max(x.ndim, 1)
        xt = moveaxis(x, ax, 0)
        n = xt.shape[0]
        rows = prim("Reshape")(xt, (n, -1))
        diff = _any(prim("NotEqual")(rows[1:], rows[:n - 1]), 1) if n > 1 else None
        head = _true1() if diff is None else _a.concat((_true1(), diff), 0)
        keep = prim("MaskedSelect")(_arange(n), head)
        out = moveaxis(prim("Gather")(xt, keep, 0), 0, ax)
        idx = prim("CumSum")(prim("Cast")(head, _C.int64), 0) - 1
        cnt = _counts(idx, keep.shape[0])
    res = (out,)
    if return_idx:
        res += (idx,)
    if return_counts:
        res += (cnt,)
    return res[0] if len(res) == 1 else res


@constexpr
def _true1():
    return _C.Tensor(np.array([True]))


@constexpr
def _arange(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


def _counts(idx, runs):
    ones = prim("OnesLike")(prim("Reshape")(idx, (-1,)))
    return prim("UnsortedSegmentSum")(ones, prim("Reshape")(idx, (-1,)), runs)
