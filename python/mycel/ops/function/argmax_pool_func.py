"""Max pooling with the argmax (MindSpore's MaxPoolWithArgmax) and its MaxPoolGradGradWithArgmax,
composed from op-table primitives.

Each [H, W] plane is flattened with one -inf sentinel appended; a constant table (from the
static shape, kernel, strides and padding) lists each window's flat positions, the sentinel
standing for padding. The windows are gathered ([N, C, OH * OW, kh * kw]), Argmax picks each
window's first maximum, and the output and the argmax (as MindSpore's: the flat index
c * H * W + h * W + w in the example's [C, H, W]) are read at it, so the gradient goes to that one element, as MindSpore's backward of
the op routes it. 'same' padding is TensorFlow's: out = ceil(H / stride), the odd padding at
the bottom/right.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


def _pads(size, k, s, mode):
    if mode == "VALID":
        return (size - k) // s + 1, 0
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2


def _positions(h, w, oh, ow, kernel, strides, before, dilation):
    """[OH * OW, kh * kw] int64: window (i, j)'s element (a, b) at input row
    i * stride - before + a * dilation (columns alike) as its flat position r * w + c, or
    h * w (the sentinel) where that falls in the padding."""
    kh, kw = kernel
    table = np.full((oh * ow, kh * kw), h * w, np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r = i * strides[0] - before[0] + a * dilation[0]
                    c = j * strides[1] - before[1] + b * dilation[1]
                    if 0 <= r < h and 0 <= c < w:
                        table[i * ow + j, a * kw + b] = r * w + c
    return table


@constexpr
def _window_table(h, w, kh, kw, sh, sw, mode):
    """([OH * OW, kh * kw] int64 flat positions, h * w for padding), OH, OW."""
    oh, top = _pads(h, kh, sh, mode)
    ow, left = _pads(w, kw, sw, mode)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"For 'MaxPoolWithArgmax', the kernel ({kh}, {kw}) is larger than "
                         f"the input ({h}, {w}).")
    return _C.Tensor(_positions(h, w, oh, ow, (kh, kw), (sh, sw), (top, left), (1, 1))), oh, ow


@constexpr
def _neg_inf(dtype):
    return _C.Tensor(np.array(-math.inf, np.float32)).astype(dtype)


def max_pool_with_argmax(x, kernel, strides, mode, argmax_dtype=_C.int32):
    """(output [N, C, OH, OW], argmax of argmax_dtype) of max pooling over NCHW x; the argmax
    is c * H * W + h * W + w, the position in the example's [C, H, W] (MindSpore's)."""
    _, c, h, w = x.shape
    kk = kernel[0] * kernel[1]
    table, oh, ow = _window_table(h, w, kernel[0], kernel[1], strides[0], strides[1], mode)
    flat = prim("Reshape")(x, (-1, c, h * w))
    sentinel = prim("ZerosLike")(flat[:, :, 0:1]) + _neg_inf(x.dtype)
    flat = prim("Concat", axis=-1)((flat, sentinel))
    windows = prim("Reshape")(prim("Gather")(flat, prim("Reshape")(table, (-1,)), 2),
                              (-1, c, oh * ow, kk))
    pick = prim("Argmax", axis=-1, output_type=_C.int64)(windows)
    out = prim("GatherD")(windows, prim("ExpandDims")(pick, -1), 3)
    where = prim("Gather")(prim("Reshape")(table, (-1,)), pick + _row_starts(oh * ow, kk), 0)
    where = where + _plane_starts(c, h * w)
    out = prim("Reshape")(out, (-1, c, oh, ow))
    return out, prim("Cast")(prim("Reshape")(where, (-1, c, oh, ow)), argmax_dtype)


@constexpr
def _row_starts(rows, width):
    return _C.Tensor(np.arange(rows, dtype=np.int64) * width)


@constexpr
def _plane_starts(c, size):
    return _C.Tensor((np.arange(c, dtype=np.int64) * size).reshape(c, 1))


def max_pool_grad_grad_with_argmax(grad, argmax):
    """grad (of the pooling input's shape) read at each argmax position (c * H * W + h * W + w
    in the example): [N, C, OH, OW]."""
    _, c, h, w = grad.shape
    flat = prim("Reshape")(grad, (-1, c * h * w))
    idx = prim("Reshape")(prim("Cast")(argmax, _C.int64), (-1, argmax.shape[1] *
                                                          argmax.shape[2] * argmax.shape[3]))
    return prim("Reshape")(prim("GatherD")(flat, idx, 1), (-1,) + tuple(argmax.shape[1:]))


def _torch_out(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


@constexpr
def _window_table_v2(h, w, kernel, strides, pads, dilation, ceil_mode):
    """As _window_table, with symmetric padding, dilation and ceil_mode (PyTorch's sizes)."""
    kh, kw = kernel
    oh = _torch_out(h, kh, strides[0], pads[0], dilation[0], ceil_mode)
    ow = _torch_out(w, kw, strides[1], pads[1], dilation[1], ceil_mode)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"For 'MaxPoolWithArgmaxV2', the output would be empty for input "
                         f"({h}, {w}).")
    return _C.Tensor(_positions(h, w, oh, ow, kernel, strides, pads, dilation)), oh, ow


def max_pool_with_argmax_v2(x, kernel, strides, pads, dilation, ceil_mode, argmax_dtype):
    """(output, argmax h * W + w within each plane, PyTorch's) of max pooling over NCHW x."""
    _, c, h, w = x.shape
    kk = kernel[0] * kernel[1]
    table, oh, ow = _window_table_v2(h, w, kernel, strides, pads, dilation, ceil_mode)
    flat = prim("Reshape")(x, (-1, c, h * w))
    sentinel = prim("ZerosLike")(flat[:, :, 0:1]) + _neg_inf(x.dtype)
    flat = prim("Concat", axis=-1)((flat, sentinel))
    windows = prim("Reshape")(prim("Gather")(flat, prim("Reshape")(table, (-1,)), 2),
                              (-1, c, oh * ow, kk))
    pick = prim("Argmax", axis=-1, output_type=_C.int64)(windows)
    out = prim("GatherD")(windows, prim("ExpandDims")(pick, -1), 3)
    where = prim("Gather")(prim("Reshape")(table, (-1,)), pick + _row_starts(oh * ow, kk), 0)
    out = prim("Reshape")(out, (-1, c, oh, ow))
    return out, prim("Cast")(prim("Reshape")(where, (-1, c, oh, ow)), argmax_dtype)


@constexpr
def _rows(n, per):
    return _C.Tensor(np.repeat(np.arange(n, dtype=np.int64), per).reshape(-1, 1))


def max_pool_grad_with_argmax(x_shape, grad, argmax, per_plane):
    """The pooling input's gradient: each grad value added at its argmax position (in the
    example's [C, H, W], or with per_plane in its [H, W]); repeated positions sum."""
    n, c, h, w = x_shape
    rows, size = (n * c, h * w) if per_plane else (n, c * h * w)
    per = grad.shape[1] * grad.shape[2] * grad.shape[3] // (c if per_plane else 1)
    idx = prim("Reshape")(prim("Cast")(argmax, _C.int64), (-1, 1))
    where = prim("Concat", axis=1)((_rows(rows, per), idx))
    dx = prim("ScatterNd")(where, prim("Reshape")(grad, (-1,)), (rows, size))
    return prim("Reshape")(dx, (n, c, h, w))
