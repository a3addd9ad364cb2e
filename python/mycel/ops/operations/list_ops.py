"""MindSpore primitives over index lists, composed from op-table primitives (both modes):

- ``ListDiff(out_idx=int32)(x, y) -> (out, idx)``: the values of the 1-D tensor x that are not
  in the 1-D tensor y, in x's order (repeats kept), and their positions in x (dtype out_idx,
  int32 or int64). Each x[i] is compared with every y[j] (an [n, m] Equal, then ReduceAny
  over j of the
  matches, zero meaning kept), the kept positions come from MaskedSelect, so the output length is known only at
  run time (GRAPH mode too, with dynamic input shapes from set_inputs).
- ``ConcatOffset(N=2, axis=0)(input_x) -> Tensor[N, rank] int64``: where each of the N
  tensors of input_x starts inside their concatenation along axis: row i is zero except
  column axis, which is the sum of the sizes of the tensors before i along axis (Concat's
  backward uses it to slice the cotangent). Computed from the static shapes; a shape known
  only at run time is a TypeError naming the op.
"""
from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function._util import prim as _prim
from mycel.ops.primitive import constexpr

import numpy as np

__all__ = ["ListDiff", "ConcatOffset"]

_INT_DTYPES = ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64")


@constexpr
def _check_list_diff(xd, yd, xs, ys):
    if len(xs) != 1 or len(ys) != 1:
        raise ValueError(f"For 'ListDiff', 'x' and 'y' must be 1-D, but got shapes {tuple(xs)} "
                         f"and {tuple(ys)}.")
    if xd != yd:
        raise TypeError(f"For 'ListDiff', 'x' and 'y' must have the same dtype, but got {xd} "
                        f"and {yd}.")
    if str(xd) not in _INT_DTYPES and str(xd) not in ("Float16", "Float32", "Float64"):
        raise TypeError(f"For 'ListDiff', 'x' must be an integer or floating-point tensor, but "
                        f"got {xd}.")


class ListDiff(_Composed):
    """ListDiff(out_idx=int32)(x, y): (values of x not in y, their indices in x)."""

    def __init__(self, out_idx=_C.int32):
        if out_idx not in (_C.int32, _C.int64):
            raise TypeError(f"For 'ListDiff', 'out_idx' must be int32 or int64, but got "
                            f"{out_idx}.")
        super().__init__(out_idx=out_idx)
        self.out_idx = out_idx

    def __call__(self, x, y):
        if not isinstance(x, _C.Tensor) or not isinstance(y, _C.Tensor):
            raise TypeError(f"For 'ListDiff', 'x' and 'y' must be Tensors, but got "
                            f"{type(x).__name__} and {type(y).__name__}.")
        _check_list_diff(x.dtype, y.dtype, x.shape, y.shape)
        eq = _prim("Equal")(_prim("ExpandDims")(x, 1), _prim("ExpandDims")(y, 0))
        hits = _prim("ReduceSum")(_prim("Cast")(eq, _C.int32), (1,))  # 0 when y is empty
        keep = _prim("Equal")(hits, 0)
        ones = _prim("OnesLike")(_prim("Cast")(x, self.out_idx))
        pos = _prim("CumSum", exclusive=True)(ones, 0)
        return _prim("MaskedSelect")(x, keep), _prim("MaskedSelect")(pos, keep)


@constexpr
def _concat_offsets(shapes, axis, n):
    if len(shapes) != n:
        raise ValueError(f"For 'ConcatOffset', 'input_x' must hold N = {n} tensors, but got "
                         f"{len(shapes)}.")
    rank = len(shapes[0])
    if not -rank <= axis < rank:
        raise ValueError(f"For 'ConcatOffset', 'axis' must be in [{-rank}, {rank}), but got "
                         f"{axis}.")
    axis = axis % rank
    out = np.zeros((n, rank), np.int64)
    start = 0
    for i, s in enumerate(shapes):
        s = tuple(s)
        if len(s) != rank:
            raise ValueError(f"For 'ConcatOffset', every tensor must have rank {rank}, but "
                             f"tensor {i} has shape {s}.")
        if any(d is None or d < 0 for d in s):
            raise TypeError(f"For 'ConcatOffset', the shapes must be known at compile time, but "
                            f"tensor {i} has shape {s} (a size known only at run time).")
        out[i, axis] = start
        start += s[axis]
    return _C.Tensor(out)


class ConcatOffset(_Composed):
    """ConcatOffset(N=2, axis=0)(input_x): the start of each tensor in their concatenation."""

    def __init__(self, N=2, axis=0):  # noqa: N803 (MindSpore's argument name)
        if isinstance(N, bool) or not isinstance(N, int) or N < 1:
            raise ValueError(f"For 'ConcatOffset', 'N' must be a positive int, but got {N!r}.")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'ConcatOffset', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        super().__init__(N=N, axis=axis)
        self.N, self.axis = N, axis

    def __call__(self, input_x):
        return _concat_offsets(tuple(t.shape for t in input_x), self.axis, self.N)
