"""Segment reductions (MindSpore 2.x's ``ops.unsorted_segment_sum``, ``unsorted_segment_max``,
``unsorted_segment_min``, ``unsorted_segment_prod`` and the P.UnsortedSegment* primitives).

``segment_ids`` (int32/int64) has a prefix of ``input_x``'s shape; the output is
``[num_segments] + input_x.shape[segment_ids.ndim:]``: row s combines every slice of input_x
whose id is s. Ids outside [0, num_segments) are ignored. A segment without rows holds the
operation's identity: 0 (sum), the dtype's lowest / largest finite value (max / min, as
numpy's finfo/iinfo), 1 (prod).

Sum is the table op UnsortedSegmentSum. Max, min and prod are composed from table ops, so both
modes, gradients and vmap come from the ops they are built of:

1. the rows are ordered by id (a stable Sort of the ids and a Gather), so each segment is
   one run of consecutive rows;
2. a segmented inclusive scan by doubling: at step k (1, 2, 4, ... < rows) each row combines
   the row k above it when that row has the same id (runs are contiguous, so the whole window
   is in the run); after ceil(log2(rows)) steps the last row of each run holds the run's
   result. Cost: O(rows * columns * log rows), exact for max and min (products multiply in a
   different order than row order, so floats may differ in the last bits);
3. the last rows of the runs are summed into their segments (UnsortedSegmentSum: one row per
   segment, the others masked to 0, so the sum is exact) and segments without rows get the
   identity.

The gradient of max/min reaches the element that the scan's Maximum/Minimum kept (on ties,
as Maximum's gradient: MindSpore shares it among equal elements instead).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
           "unsorted_segment_prod"]

def _is_float(dtype):
    return dtype in (_C.float16, _C.bfloat16, _C.float32, _C.float64)


@constexpr
def _num_segments(num_segments, op):
    """num_segments as an int: an int or a one-element integer tensor."""
    n = num_segments
    if isinstance(n, _C.Tensor):
        if n.dtype not in (_C.int32, _C.int64) or n.size != 1:
            raise TypeError(f"For '{op}', num_segments given as a tensor must hold one int32 or "
                            f"int64 value, but got dtype {n.dtype} and shape {n.shape}.")
        n = int(n.asnumpy().reshape(-1)[0])
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"For '{op}', num_segments must be an int, but got "
                        f"{type(num_segments).__name__}.")
    if n < 0:
        raise ValueError(f"For '{op}', num_segments must not be negative, but got {n}.")
    return int(n)


@constexpr
def _segment_plan(op, x_shape, x_dtype, ids_shape, ids_dtype, n):
    """(rows, columns (-1 when dynamic), output shape, scan steps, identity), checked."""
    if ids_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', segment_ids must be int32 or int64, but got {ids_dtype}.")
    if x_dtype == getattr(_C, "bool"):
        raise TypeError(f"For '{op}', input_x must be a numeric tensor, but got {x_dtype}.")
    k = len(ids_shape)
    prefix = k <= len(x_shape) and all(a == b or a < 0 or b < 0
                                       for a, b in zip(ids_shape, x_shape))
    if not prefix:
        raise ValueError(f"For '{op}', the shape of segment_ids {tuple(ids_shape)} must be a "
                         f"prefix of the shape of input_x {tuple(x_shape)}.")
    if any(d < 0 for d in ids_shape):
        raise ValueError(f"For '{op}', the shape of segment_ids {tuple(ids_shape)} must be "
                         f"static.")
    rows = int(np.prod(ids_shape, dtype=np.int64)) if k else 1
    inner = tuple(x_shape[k:])
    cols = -1 if any(d < 0 for d in inner) else int(np.prod(inner, dtype=np.int64))
    steps, s = [], 1
    while s < rows:
        steps.append(s)
        s *= 2
    if op == "unsorted_segment_prod":
        ident = 1
    elif _is_float(x_dtype):
        # the largest finite value of the format: (2 - 2^-mantissa) * 2^max_exponent
        mant, emax = {_C.float16: (10, 15), _C.bfloat16: (7, 127), _C.float32: (23, 127),
                      _C.float64: (52, 1023)}[x_dtype]
        big = float(np.ldexp(2.0 - np.ldexp(1.0, -mant), emax))
        ident = -big if op == "unsorted_segment_max" else big
    else:
        info = np.iinfo(np.dtype(x_dtype.name))
        ident = int(info.min if op == "unsorted_segment_max" else info.max)
    return rows, cols, (n,) + inner, tuple(steps), ident


@constexpr
def _identity(ident, dtype):
    """The identity as a 0-d tensor of dtype (built exactly: float64 or int64, then cast)."""
    t = _C.Tensor(np.array(ident, np.float64 if _is_float(dtype) else np.int64))
    return t.astype(dtype)


@constexpr
def _true():
    """[True]: the last row ends its run."""
    return _C.Tensor(np.array([True]))


def _segment_reduce(op, combine, input_x, segment_ids, num_segments):
    x, ids = as_tensor(input_x), as_tensor(segment_ids)
    n = _num_segments(num_segments, op)
    rows, cols, out_shape, steps, ident = _segment_plan(op, x.shape, x.dtype, ids.shape,
                                                        ids.dtype, n)
    fill = _identity(ident, x.dtype)
    if rows == 0 or n == 0:
        return prim("BroadcastTo", shape=out_shape)(fill)
    flat_ids = prim("Reshape")(ids, (rows,))
    sorted_ids, order = prim("Sort", axis=0, descending=False)(flat_ids)
    acc = prim("Gather")(prim("Reshape")(x, (rows, cols)), order, 0)
    for k in steps:
        same = prim("Reshape")(prim("Equal")(sorted_ids[k:], sorted_ids[:rows - k]),
                               (rows - k, 1))
        tail = acc[k:]
        tail = prim("Select")(same, combine(tail, acc[:rows - k]), tail)
        acc = prim("Concat", axis=0)((acc[:k], tail))
    last = prim("Concat", axis=0)((prim("NotEqual")(sorted_ids[1:], sorted_ids[:rows - 1]),
                                   _true()))
    kept = prim("Select")(prim("Reshape")(last, (rows, 1)), acc, prim("ZerosLike")(acc))
    total = prim("UnsortedSegmentSum")(kept, sorted_ids, n)
    present = prim("UnsortedSegmentSum")(prim("Cast")(last, _C.int32), sorted_ids, n)
    present = prim("Greater")(prim("Reshape")(present, (n, 1)), 0)
    return prim("Reshape")(prim("Select")(present, total, fill), out_shape)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """The sum of the slices of input_x in each segment: out[s] = sum of input_x[i...] over
    the ids segment_ids[i...] == s; empty segments are 0."""
    x = as_tensor(input_x)
    n = _num_segments(num_segments, "unsorted_segment_sum")
    return prim("UnsortedSegmentSum")(x, as_tensor(segment_ids), n)


def unsorted_segment_max(x, segment_ids, num_segments):
    """The maximum of the slices of x in each segment (NaN propagates); empty segments hold
    the dtype's lowest finite value."""
    return _segment_reduce("unsorted_segment_max", prim("Maximum"), x, segment_ids,
                           num_segments)


def unsorted_segment_min(x, segment_ids, num_segments):
    """The minimum of the slices of x in each segment (NaN propagates); empty segments hold
    the dtype's largest finite value."""
    return _segment_reduce("unsorted_segment_min", prim("Minimum"), x, segment_ids,
                           num_segments)


def unsorted_segment_prod(x, segment_ids, num_segments):
    """The product of the slices of x in each segment (integers wrap); empty segments are 1."""
    return _segment_reduce("unsorted_segment_prod", prim("Mul"), x, segment_ids, num_segments)
