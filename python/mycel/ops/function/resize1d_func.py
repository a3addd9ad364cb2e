"""MindSpore's ResizeLinear1D: linear interpolation along the last axis of [N, C, W], composed
as a matmul with a [W, new_w] interpolation matrix made from the static width and the size
(so gradients are the matmul's: the matrix transposed). Output position i maps to source
position s: 'align_corners' s = i (W - 1) / (new_w - 1) (0 for new_w 1), 'half_pixel' s =
(i + 0.5) W / new_w - 0.5, 'asymmetric' s = i W / new_w; s is clamped to [0, W - 1] and the
result is x[floor(s)] (1 - t) + x[floor(s) + 1] t, t = s - floor(s) (the upper index clamped
to W - 1). float16 is computed in float32. The size must be known when the op is traced (any
value in PYNATIVE mode, a constant in GRAPH mode)."""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, host_bytes
from mycel.ops.primitive import constexpr

MODES = ("align_corners", "half_pixel", "asymmetric")


@constexpr
def _new_width(size):
    if isinstance(size, _C.Tensor):
        if size.dtype not in (_C.int32, _C.int64):
            raise TypeError(f"For 'ResizeLinear1D', 'size' must be int32 or int64, but got "
                            f"{size.dtype}.")
        if len(size.shape) != 1 or size.shape[0] != 1:
            raise ValueError(f"For 'ResizeLinear1D', 'size' must be 1-D with one element, but "
                             f"got shape {tuple(size.shape)}.")
        w = int(size.asnumpy()[0])
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        w = int(size[0])
    else:
        raise TypeError(f"For 'ResizeLinear1D', 'size' must be a 1-D tensor of one int, but "
                        f"got {size!r}.")
    if w <= 0:
        raise ValueError(f"For 'ResizeLinear1D', the size must be positive, but got {w}.")
    return w


@constexpr
def _matrix(width, out, mode, dtype):
    host_bytes("ResizeLinear1D", 8 * width * out + 64 * out)  # the matrix, the loop over out
    m = np.zeros((width, out))
    for i in range(out):
        if mode == "align_corners":
            src = i * (width - 1) / (out - 1) if out > 1 else 0.0
        elif mode == "half_pixel":
            src = (i + 0.5) * width / out - 0.5
        else:
            src = i * width / out
        src = min(max(src, 0.0), width - 1.0)
        lo = int(math.floor(src))
        hi = min(lo + 1, width - 1)
        t = src - lo
        m[lo, i] += 1.0 - t
        m[hi, i] += t
    return _C.Tensor(m.astype(np.float64 if dtype == _C.float64 else np.float32))


def resize_linear_1d(x, size, mode="align_corners"):
    """[N, C, W] -> [N, C, size[0]] by linear interpolation (module text)."""
    n, c, width = x.shape
    out = _new_width(size)
    work = _C.float64 if x.dtype == _C.float64 else _C.float32
    flat = prim("Reshape")(prim("Cast")(x, work), (n * c, width))
    y = prim("MatMul")(flat, _matrix(width, out, mode, work))
    return prim("Cast")(prim("Reshape")(y, (n, c, out)), x.dtype)
