"""The backward of MindSpore's PadV3 (``_grad_ops.PadV3Grad``): the cotangent of the padded
output folded back onto the input, composed from table ops.

PadV3 pads the last len(paddings) / 2 dimensions, the pairs given from the last dimension
backward (torch's F.pad order): output position o of a padded dimension reads input
coordinate i = o - left, mapped into [0, n) by the mode: 'constant' (nothing: a pad
position reads the constant), 'reflect' (mirrored without repeating the edge), 'edge'
(clamped) or 'circular' (i mod n). Each padded dimension's map is a 0/1 matrix M [out, in]
(M[o, src(o)] = 1), made on the host from the static shapes and the padding values; the
gradient contracts the cotangent with M along each padded dimension in turn (a MatMul over
that dimension moved last), so every output position adds its cotangent into the input
element it read. Integer cotangents are summed in float64 (exact below 2^53).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, host_bytes
from mycel.ops.primitive import constexpr

MODES = ("constant", "reflect", "edge", "circular")


def check_pad_attrs(op, mode, paddings_contiguous):
    """PadV3's and PadV3Grad's attributes: mode one of MODES (a ValueError naming op), and
    paddings_contiguous a bool (a TypeError)."""
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"For '{op}', 'mode' must be one of {MODES}, but got {mode!r}.")
    if not isinstance(paddings_contiguous, bool):
        raise TypeError(f"For '{op}', 'paddings_contiguous' must be a bool, but got "
                        f"{type(paddings_contiguous).__name__}.")


def _source(o, left, n, mode):
    i = o - left
    if mode == "constant":
        return i if 0 <= i < n else None
    if mode == "edge":
        return min(max(i, 0), n - 1)
    if mode == "circular":
        return i % n
    period = 2 * (n - 1)  # reflect
    if period == 0:
        return 0
    i = abs(i) % period
    return period - i if i >= n else i


def _pad_list(op, paddings, ints_only):
    """PadV3's paddings as a list of ints: a 1-D int32/int64 tensor (its values), or a tuple or
    list (of ints when ints_only, else of values int() takes); else a TypeError naming op."""
    if isinstance(paddings, _C.Tensor):
        if paddings.dtype not in (_C.int32, _C.int64) or len(paddings.shape) != 1:
            raise TypeError(f"For '{op}', 'paddings' must be a 1-D int32 or int64 tensor, but "
                            f"got {paddings.dtype} of shape {tuple(paddings.shape)}.")
        return [int(v) for v in paddings.asnumpy().tolist()]
    if ints_only:
        if isinstance(paddings, (tuple, list)) and all(
                isinstance(v, int) and not isinstance(v, bool) for v in paddings):
            return list(paddings)
        raise TypeError(f"For '{op}', 'paddings' must be a tensor, tuple or list of ints, but "
                        f"got {paddings!r}.")
    if isinstance(paddings, (tuple, list)):
        return [int(v) for v in paddings]
    raise TypeError(f"For '{op}', 'paddings' must be a tensor, tuple or list, but got "
                    f"{type(paddings).__name__}.")


def _pad_pairs(op, shape, paddings, contiguous, ints_only):
    """(pads, pairs): the paddings read by _pad_list, and the (left, right) paddings of each
    padded dimension, the last dimension first (torch's F.pad order; with contiguous=False,
    paddings holds all the lefts, then all the rights); a ValueError naming op when they do
    not fit the rank."""
    pads = _pad_list(op, paddings, ints_only)
    if len(pads) % 2 or len(pads) > 2 * len(shape):
        raise ValueError(f"For '{op}', 'paddings' must hold an even number of values, at most "
                         f"twice the rank {len(shape)}, but got {pads}.")
    k = len(pads) // 2
    return pads, ([(pads[2 * j], pads[2 * j + 1]) for j in range(k)] if contiguous else
                  [(pads[j], pads[k + j]) for j in range(k)])


@constexpr
def _pad_grad_plan(shape, dtype, paddings, mode, contiguous):
    """[(axis, M as a Tensor [out, in])] for each padded dimension, and the work dtype."""
    op = "PadV3Grad"
    pads, pairs = _pad_pairs(op, shape, paddings, contiguous, ints_only=False)
    work = _C.float32 if dtype in (_C.float16, _C.float32) else _C.float64
    np_work = np.float64 if work == _C.float64 else np.float32
    plan = []
    for j, (left, right) in enumerate(pairs):
        axis = len(shape) - 1 - j
        out = shape[axis]
        n = out - left - right
        if n <= 0:
            raise ValueError(f"For '{op}', dimension {axis} of the gradient ({out}) is not "
                             f"larger than its paddings ({left}, {right}).")
        if mode != "constant" and (left < 0 or right < 0):
            raise ValueError(f"For '{op}', mode '{mode}' takes no negative paddings, but got "
                             f"{pads}.")
        if mode == "reflect" and (left >= n or right >= n):
            raise ValueError(f"For '{op}', 'reflect' paddings ({left}, {right}) must be less "
                             f"than the input dimension {n}.")
        host_bytes(op, 8 * out * n + 64 * out)  # the matrix, the loop over out
        m = np.zeros((out, n), np_work)
        for o in range(out):
            src = _source(o, left, n, mode)
            if src is not None:
                m[o, src] = 1
        plan.append((axis, _C.Tensor(m)))
    return tuple(plan), work


@constexpr
def _to_last(ndim, axis):
    perm = tuple(a for a in range(ndim) if a != axis) + (axis,)
    back = tuple(int(v) for v in np.argsort(perm))
    return perm, back


def pad_v3_grad(dy, paddings, mode="reflect", paddings_contiguous=True):
    """The gradient of the input of PadV3(mode) from the output's cotangent dy (module
    docstring)."""
    dy = as_tensor(dy)
    if mode not in MODES:
        raise ValueError(f"For 'PadV3Grad', 'mode' must be one of {MODES}, but got {mode!r}.")
    plan, work = _pad_grad_plan(dy.shape, dy.dtype, paddings, mode, paddings_contiguous)
    g = prim("Cast")(dy, work)
    for axis, m in plan:
        perm, back = _to_last(g.ndim, axis)
        moved = prim("Transpose")(g, perm)
        lead = moved.shape[:-1]
        flat = prim("Reshape")(moved, (-1, moved.shape[-1]))
        folded = prim("MatMul")(flat, m)
        g = prim("Transpose")(prim("Reshape")(folded, tuple(lead) + (m.shape[1],)), back)
    return prim("Cast")(g, dy.dtype)
