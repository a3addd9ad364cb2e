"""Window kernels along one axis: ``rolling`` (pandas-style moving max, min, sum, mean, var,
std) and ``shift`` (move the elements by ``periods`` places, filling the vacated ones).

MindSpore has CPU kernels named ``Rolling`` and ``Shift`` without a public Python class:
programs declare one themselves (a ``PrimitiveWithInfer`` subclass of that name, see
mycel.ops.custom_prim), and the name picks the kernel. Here both are compositions of
op-table primitives whose index tables come from the static shape at trace time (constexpr
helpers), so they run in both modes, fold into one graph and are differentiable through the
ops' own backward rules.

rolling: output position i reduces the window [start_i, end_i) of the axis, with
``end_i = i + 1 + offset`` (``offset = (window - 1) // 2`` when centred, else 0) and
``start_i = end_i - window``; ``closed`` moves the bounds: 'left' and 'both' take one more
element on the left, 'left' and 'neither' one fewer on the right ('right' is the default
bound). Bounds are clipped to [0, n]. A window with fewer than ``min_periods`` elements gives
NaN (0 for integer tensors). var and std divide by count - 1 (ddof 1). Integer tensors
average in float64 and truncate back to their dtype.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

ROLLING_METHODS = ("max", "min", "mean", "sum", "std", "var")
ROLLING_CLOSED = ("left", "both", "right", "neither")


@constexpr
def _rolling_table(n, window, min_periods, center, closed):
    """(flat gather indices [n * width], valid [n, width] bool, count [n] float64,
    enough [n] bool, width) for windows over an axis of length n. Slots past a window's end
    repeat its first element (or the last one of the axis where the window is empty), so
    max and min need no mask."""
    offset = (window - 1) // 2 if center else 0
    end = np.arange(1 + offset, n + 1 + offset, dtype=np.int64)
    start = end - window
    if closed in ("left", "both"):
        start -= 1
    if closed in ("left", "neither"):
        end -= 1
    start, end = np.clip(start, 0, n), np.clip(end, 0, n)
    count = np.maximum(end - start, 0)
    width = max(int(count.max()), 1)
    idx = start[:, None] + np.arange(width, dtype=np.int64)[None, :]
    valid = idx < end[:, None]
    idx = np.where(valid, idx, np.minimum(start, n - 1)[:, None])
    return (_C.Tensor(np.ascontiguousarray(idx.reshape(-1))), _C.Tensor(valid),
            _C.Tensor(count.astype(np.float64)), _C.Tensor(count >= min_periods), width)


@constexpr
def _check_rolling(shape, dtype, window, min_periods, axis, closed, method):
    """The axis made non-negative; ValueError / TypeError naming Rolling otherwise."""
    if dtype not in (_C.float32, _C.float64, _C.int32, _C.int64):
        raise TypeError(f"For 'Rolling', the input must be float32, float64, int32 or int64, "
                        f"but got {dtype}.")
    for name, v in (("window", window), ("min_periods", min_periods), ("axis", axis)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For 'Rolling', '{name}' must be an int, but got {v!r}.")
    if window <= 0 or not 0 < min_periods <= window:
        raise ValueError(f"For 'Rolling', need window > 0 and 0 < min_periods <= window, but "
                         f"got window={window}, min_periods={min_periods}.")
    if closed not in ROLLING_CLOSED or method not in ROLLING_METHODS:
        raise ValueError(f"For 'Rolling', 'closed' must be one of {ROLLING_CLOSED} and "
                         f"'method' one of {ROLLING_METHODS}, but got {closed!r}, {method!r}.")
    nd = len(shape)
    if not -nd <= axis < nd or shape[axis] == 0:
        raise ValueError(f"For 'Rolling', 'axis' {axis} is out of range for the shape {shape} "
                         "(or the axis is empty).")
    return axis % nd


@constexpr
def _last_axis_shape(shape, axis, width):
    """The shape with `axis` moved last, then split into (n, width)."""
    rest = tuple(d for i, d in enumerate(shape) if i != axis)
    return rest + (shape[axis], width)


def _to_last(x, axis):
    return x if axis == x.ndim - 1 else prim("Transpose")(x, _move_perm(x.ndim, axis))


def _from_last(x, axis):
    return x if axis == x.ndim - 1 else prim("Transpose")(x, _unmove_perm(x.ndim, axis))


@constexpr
def _move_perm(nd, axis):
    return tuple(i for i in range(nd) if i != axis) + (axis,)


@constexpr
def _unmove_perm(nd, axis):
    perm = _move_perm(nd, axis)
    return tuple(perm.index(i) for i in range(nd))


def rolling(x, window, min_periods, center, axis, closed, method):
    """The Rolling kernel: each position of `axis` replaced by `method` ('max', 'min',
    'mean', 'sum', 'std', 'var') over its window (module docstring: bounds, min_periods,
    integer dtypes). Same shape and dtype as x."""
    ax = _check_rolling(x.shape, x.dtype, window, min_periods, axis, closed, method)
    idx, valid, count, enough, width = _rolling_table(x.shape[ax], window, min_periods, center,
                                                      closed)
    xt = _to_last(x, ax)
    g = prim("Reshape")(prim("Gather")(xt, idx, -1), _last_axis_shape(x.shape, ax, width))
    if method == "max":
        r = prim("ReduceMax")(g, (-1,))
    elif method == "min":
        r = prim("ReduceMin")(g, (-1,))
    else:
        floating = x.dtype in (_C.float32, _C.float64)
        work = x.dtype if floating or method == "sum" else _C.float64
        g = prim("Cast")(g, work)
        zero = prim("ZerosLike")(g)
        s = prim("ReduceSum")(prim("Select")(valid, g, zero), (-1,))
        cnt = prim("Cast")(count, work)
        if method == "sum":
            r = s
        elif method == "mean":
            r = prim("Div")(s, cnt)
        else:
            dev = prim("Sub")(g, prim("ExpandDims")(prim("Div")(s, cnt), -1))
            sq = prim("ReduceSum")(prim("Select")(valid, prim("Square")(dev), zero), (-1,))
            r = prim("Div")(sq, prim("Sub")(cnt, prim("OnesLike")(cnt)))
            if method == "std":
                r = prim("Sqrt")(r)
        r = prim("Cast")(r, x.dtype)
    missing = prim("Fill")(x.dtype, r.shape, float("nan") if x.dtype in (
        _C.float32, _C.float64) else 0.0)
    return _from_last(prim("Select")(enough, r, missing), ax)


@constexpr
def _shift_table(n, periods):
    """(gather indices [n] with out-of-range sources clamped, kept [n] bool)."""
    src = np.arange(n, dtype=np.int64) - periods
    kept = (src >= 0) & (src < n)
    return _C.Tensor(np.clip(src, 0, n - 1)), _C.Tensor(kept)


@constexpr
def _check_shift(shape, periods, axis):
    for name, v in (("periods", periods), ("axis", axis)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For 'Shift', '{name}' must be an int, but got {v!r}.")
    nd = len(shape)
    if not -nd <= axis < nd or shape[axis] == 0:
        raise ValueError(f"For 'Shift', 'axis' {axis} is out of range for the shape {shape} "
                         "(or the axis is empty).")
    return axis % nd


def _fill_value(fill_value, dtype, shape):
    if isinstance(fill_value, _C.Tensor):
        return prim("BroadcastTo", shape=shape)(prim("Cast")(fill_value, dtype))
    return prim("Fill")(dtype, shape, float(fill_value))


def shift(x, fill_value, periods, axis):
    """The Shift kernel: out[i] = x[i - periods] along `axis` where that index exists, else
    fill_value (a number or a 0-d tensor, cast to x's dtype). periods may be negative (shift
    towards the start) or exceed the axis (all filled). Same shape and dtype as x."""
    ax = _check_shift(x.shape, periods, axis)
    idx, kept = _shift_table(x.shape[ax], periods)
    xt = _to_last(x, ax)
    moved = prim("Gather")(xt, idx, -1)
    return _from_last(prim("Select")(kept, moved, _fill_value(fill_value, x.dtype, xt.shape)),
                      ax)
