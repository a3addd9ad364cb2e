"""MindSpore's PadV3 forward (``nn_ops.PadV3``): pads (or, with negative paddings, crops) the
last len(paddings) / 2 dimensions of x, the pairs given from the last dimension backward
(torch's F.pad order; with paddings_contiguous=False all begins, then all ends). A negative
padding first crops that side; then output position o of a padded dimension of (cropped)
size n reads input coordinate o - left mapped by the mode
(pad_grad_func._source: 'constant' reads constant_value outside [0, n), 'reflect' mirrors
without repeating the edge, 'edge' clamps, 'circular' wraps), so each padded dimension is one
Gather with an index table made from the static shape (and, for 'constant', one Select with
the constant); gradients come from Gather's rule (the same sums as PadV3Grad). The paddings
must be known when the op is traced: a tuple or list, or a tensor in PYNATIVE mode.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, host_bytes
from mycel.ops.function.pad_grad_func import MODES, _pad_pairs, _source
from mycel.ops.primitive import constexpr


@constexpr
def _pad_plan(shape, paddings, mode, contiguous):
    """[(axis, index Tensor [out], valid mask as a numpy bool array [out] or None)]."""
    op = "PadV3"
    _, pairs = _pad_pairs(op, shape, paddings, contiguous, ints_only=True)
    plan = []
    for j, (left, right) in enumerate(pairs):
        axis = len(shape) - 1 - j
        n = shape[axis]
        out = n + left + right
        if n <= 0 or out <= 0:
            raise ValueError(f"For '{op}', dimension {axis} of size {n} padded by ({left}, "
                             f"{right}) must stay positive.")
        # a negative padding crops first; the mode then pads the cropped dimension
        start, kept = max(-left, 0), n - max(-left, 0) - max(-right, 0)
        lo, hi = max(left, 0), max(right, 0)
        if mode == "reflect" and (lo >= kept or hi >= kept):
            raise ValueError(f"For '{op}', 'reflect' paddings ({left}, {right}) must be less "
                             f"than the input dimension {kept}.")
        host_bytes(op, 128 * out)  # the Python lists of out source indices
        src = [_source(o, lo, kept, mode) for o in range(out)]
        src = [None if v is None else start + v for v in src]
        valid = np.array([s is not None for s in src])
        idx = np.array([0 if s is None else s for s in src], np.int64)
        plan.append((axis, _C.Tensor(idx), None if valid.all() else
                     _C.Tensor(valid.reshape((out,) + (1,) * (len(shape) - 1 - axis)))))
    return tuple(plan)


def pad_v3(x, paddings, constant_value=None, mode="constant", paddings_contiguous=True):
    """x padded as PadV3(mode, paddings_contiguous)(x, paddings, constant_value) (module
    docstring)."""
    x = as_tensor(x)
    if mode not in MODES:
        raise ValueError(f"For 'PadV3', 'mode' must be one of {MODES}, but got {mode!r}.")
    if mode != "constant" and constant_value is not None:
        raise ValueError(f"For 'PadV3', 'constant_value' is only for mode 'constant', but the "
                         f"mode is {mode!r}.")
    value = 0 if constant_value is None else constant_value
    if isinstance(value, _C.Tensor):
        value = value.item()
    y = x
    for axis, idx, valid in _pad_plan(x.shape, paddings, mode, paddings_contiguous):
        y = prim("Gather")(y, idx, axis)
        if valid is not None:
            fill = prim("Fill")(y.dtype, y.shape, float(value))
            y = prim("Select")(prim("BroadcastTo", shape=y.shape)(valid), y, fill)
    return y
