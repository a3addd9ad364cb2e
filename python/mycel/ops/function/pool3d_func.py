"""3-D max pooling (MindSpore 2.x's ``ops.max_pool3d``, used by ``nn.MaxPool3d``), composed of
existing primitives: a constant window table (computed at compile time from the shapes) maps
every output position and kernel tap to a flat input position, a Gather reads the windows, and
ReduceMax / Argmax give the values and the indices (flat positions within each (n, c) volume,
as MindSpore and PyTorch return them). Taps in the padding read -inf. Its gradient is the
Gather's and ReduceMax's; memory is the gathered windows (output size x kernel volume).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr


@constexpr
def _triple(v, arg, op):
    if isinstance(v, bool) or not isinstance(v, (int, tuple, list)):
        raise TypeError(f"For '{op}', '{arg}' must be an int or a tuple of 3 ints, but got "
                        f"{type(v).__name__}.")
    t = (v,) * 3 if isinstance(v, int) else tuple(v)
    if len(t) == 1:
        t = t * 3
    if len(t) != 3 or any(isinstance(i, bool) or not isinstance(i, int) for i in t):
        raise ValueError(f"For '{op}', '{arg}' must be an int or a tuple of 3 ints, but got {v!r}.")
    return t


@constexpr
def _geometry(op, spatial, ks, st, dil, pad_mode, pad, ceil_mode):
    """(pad_before, out_sizes) per axis for MindSpore's pad modes ('valid', 'same', 'pad')."""
    if any(k <= 0 for k in ks) or any(s <= 0 for s in st) or any(d <= 0 for d in dil):
        raise ValueError(f"For '{op}', kernel_size, stride and dilation must be positive, but got "
                         f"{ks}, {st}, {dil}.")
    before, out = [], []
    for n, k, s, d, p in zip(spatial, ks, st, dil, pad):
        span = d * (k - 1) + 1
        if pad_mode == "same":
            o = -(-n // s)
            total = max((o - 1) * s + span - n, 0)
            before.append(total // 2)
            out.append(o)
            continue
        p = p if pad_mode == "pad" else 0
        if p < 0 or 2 * p > span:
            raise ValueError(f"For '{op}', padding must be in [0, kernel_size / 2], but got {p}.")
        size = n + 2 * p - span
        o = (-(-size // s) if ceil_mode else size // s) + 1
        if ceil_mode and (o - 1) * s >= n + p:  # the last window must start inside
            o -= 1
        if o <= 0:
            raise ValueError(f"For '{op}', the input {tuple(spatial)} is smaller than the window "
                             f"(kernel {ks}, dilation {dil}, padding {tuple(pad)}).")
        before.append(p)
        out.append(o)
    return tuple(before), tuple(out)


@constexpr
def _window_table(spatial, ks, st, dil, before, out):
    """[positions, taps] flat input indices; a tap in the padding gives prod(spatial)."""
    axes = []
    for n, k, s, d, b, o in zip(spatial, ks, st, dil, before, out):
        pos = np.arange(o)[:, None] * s + np.arange(k)[None, :] * d - b  # [o, k]
        axes.append(np.where((pos >= 0) & (pos < n), pos, -1))
    D, H, W = spatial
    idx = (axes[0][:, None, None, :, None, None] * H * W + axes[1][None, :, None, None, :, None] * W
           + axes[2][None, None, :, None, None, :])
    bad = ((axes[0][:, None, None, :, None, None] < 0) | (axes[1][None, :, None, None, :, None] < 0)
           | (axes[2][None, None, :, None, None, :] < 0))
    idx = np.where(bad, D * H * W, idx)
    return idx.reshape(int(np.prod(out)), int(np.prod(ks))).astype(np.int64)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False, pad_mode="pad"):
    """Max pooling over [N, C, D, H, W] or [C, D, H, W] input (stride defaults to
    kernel_size); with return_indices, also each maximum's flat index in its D*H*W volume."""
    op = "max_pool3d"
    x = as_tensor(x)
    if x.dtype not in (_C.float16, _C.float32, _C.float64, _C.bfloat16):
        raise TypeError(f"For '{op}', the input must be a floating tensor, but got {x.dtype}.")
    rank = len(x.shape)
    if rank not in (4, 5):
        raise ValueError(f"For '{op}', the input must be 4-d or 5-d, but got shape "
                         f"{tuple(x.shape)}.")
    ks = _triple(kernel_size, "kernel_size", op)
    st = ks if stride is None or stride == 0 else _triple(stride, "stride", op)
    dil = _triple(dilation, "dilation", op)
    pad = _triple(padding, "padding", op)
    lead = tuple(x.shape)[:rank - 3]
    spatial = tuple(x.shape)[rank - 3:]
    before, out = _geometry(op, spatial, ks, st, dil, pad_mode, pad, ceil_mode)
    table = _window_table(spatial, ks, st, dil, before, out)
    flat = prim("Reshape")(x, lead + (-1,))
    fill = prim("Fill")(x.dtype, lead + (1,), float("-inf"))
    flat = prim("Concat", axis=len(lead))((flat, fill))
    windows = prim("Gather")(flat, _C.Tensor(table.reshape(-1)), len(lead))
    windows = prim("Reshape")(windows, lead + table.shape)
    values = prim("ReduceMax", keep_dims=False)(windows, -1)
    values = prim("Reshape")(values, lead + out)
    if not return_indices:
        return values
    arg = prim("Argmax", axis=-1, output_type=_C.int64)(windows)
    positions = prim("GatherD")(prim("BroadcastTo", shape=lead + table.shape)(
        _C.Tensor(table)), prim("ExpandDims")(arg, -1), len(lead) + 1)
    return values, prim("Reshape")(positions, lead + out)


__all__ = ["max_pool3d"]
