"""MindSpore's DeformableOffsets (the sampling step of deformable convolution v2) and its
DeformableOffsetsGrad, composed from op-table primitives (NCHW; NHWC is transposed).

offsets [N, 3 * G * kh * kw, OH, OW] holds, per deformable group G and kernel point, the x
offsets, then the y offsets, then the masks (MindSpore's layout). Kernel point (i, j) of output
pixel (p, q) samples channel c of x at (q * stride_w + j * dilation_w - pad_left + dx,
p * stride_h + i * dilation_h - pad_top + dy) bilinearly (a neighbour outside the image
counts 0; a position at or beyond -1 / the size gives 0) and multiplies by the mask; the
output [N, C, OH * kh, OW * kw] places it at (p * kh + i, q * kw + j). Channel c uses group
c // (C / G). The four neighbours are GatherD reads of the flattened image; the gradient is
the composition's own (with respect to x and to the offsets and masks), which is what
DeformableOffsetsGrad returns.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.composite import GradOperation
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


@constexpr
def _grid(kh, kw, oh, ow, strides, dilations, pads, dtype):
    """(x, y) base positions [kh, kw, OH, OW] of every kernel point of every output pixel."""
    i = np.arange(kh).reshape(kh, 1, 1, 1)
    j = np.arange(kw).reshape(1, kw, 1, 1)
    p = np.arange(oh).reshape(1, 1, oh, 1)
    q = np.arange(ow).reshape(1, 1, 1, ow)
    x = q * strides[1] + j * dilations[1] - pads[2] + 0 * (i + p)
    y = p * strides[0] + i * dilations[0] - pads[0] + 0 * (j + q)
    np_dt = np.float64 if dtype == _C.float64 else np.float32
    return (_C.Tensor(x.astype(np_dt)).astype(dtype), _C.Tensor(y.astype(np_dt)).astype(dtype))


@constexpr
def _group_index(c, groups):
    return _C.Tensor(np.arange(c, dtype=np.int64) // (c // groups))


def _corner(flat, row, col, height, width, valid):
    """flat [N, C, H * W] read at (row, col) (int64 [N, C, K]) where valid, else 0."""
    inside = prim("LogicalAnd")(
        prim("LogicalAnd")(prim("GreaterEqual")(row, 0), prim("LessEqual")(row, height - 1)),
        prim("LogicalAnd")(prim("GreaterEqual")(col, 0), prim("LessEqual")(col, width - 1)))
    inside = prim("LogicalAnd")(inside, valid)
    idx = prim("Select")(inside, row * width + col, prim("ZerosLike")(row))
    vals = prim("GatherD")(flat, idx, 2)
    return vals * prim("Cast")(inside, flat.dtype)


def deformable_offsets(x, offsets, ksize, strides, pads, dilations, groups):
    """[N, C, OH * kh, OW * kw] from NCHW x and offsets [N, 3 G kh kw, OH, OW] (module text)."""
    n, c, height, width = x.shape
    kh, kw = ksize
    oh, ow = offsets.shape[2], offsets.shape[3]
    k = kh * kw * oh * ow
    off = prim("Reshape")(offsets, (n, 3, groups, kh * kw * oh * ow))
    by_channel = _group_index(c, groups)
    dxs = prim("Gather")(off[:, 0], by_channel, 1)  # [N, C, K]
    dys = prim("Gather")(off[:, 1], by_channel, 1)
    mask = prim("Gather")(off[:, 2], by_channel, 1)
    gx, gy = _grid(kh, kw, oh, ow, strides, dilations, pads, x.dtype)
    px = prim("Reshape")(gx, (1, 1, k)) + dxs
    py = prim("Reshape")(gy, (1, 1, k)) + dys
    valid = prim("LogicalAnd")(
        prim("LogicalAnd")(prim("Greater")(py, -1.0), prim("Less")(py, float(height))),
        prim("LogicalAnd")(prim("Greater")(px, -1.0), prim("Less")(px, float(width))))
    left_f, top_f = prim("Floor")(px), prim("Floor")(py)
    lw, tw = px - left_f, py - top_f
    left, top = prim("Cast")(left_f, _C.int64), prim("Cast")(top_f, _C.int64)
    flat = prim("Reshape")(x, (n, c, height * width))
    lt = _corner(flat, top, left, height, width, valid)
    rt = _corner(flat, top, left + 1, height, width, valid)
    lb = _corner(flat, top + 1, left, height, width, valid)
    rb = _corner(flat, top + 1, left + 1, height, width, valid)
    val = ((1.0 - lw) * (1.0 - tw) * lt + lw * (1.0 - tw) * rt + (1.0 - lw) * tw * lb +
           lw * tw * rb)
    out = prim("Reshape")(val * mask, (n, c, kh, kw, oh, ow))
    out = prim("Transpose")(out, (0, 1, 4, 2, 5, 3))
    return prim("Reshape")(out, (n, c, oh * kh, ow * kw))


_GRAD_ALL = GradOperation(get_all=True, sens_param=True)


def deformable_offsets_grad(dout, x, offsets, ksize, strides, pads, dilations, groups):
    """(dx, doffsets): the gradient of deformable_offsets at (x, offsets) for dout."""
    def fwd(a, b):
        return deformable_offsets(a, b, ksize, strides, pads, dilations, groups)
    return _GRAD_ALL(fwd)(x, offsets, dout)


def _four(name, v):
    if not isinstance(v, (tuple, list)) or len(v) != 4 or any(
            isinstance(e, bool) or not isinstance(e, int) for e in v):
        raise TypeError(f"For 'deformable_conv2d', '{name}' must be a tuple of 4 ints, but got "
                        f"{v!r}.")
    return tuple(v)


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
                      dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    """MindSpore's ops.deformable_conv2d (NCHW): DeformableOffsets' samples [N, C, OH * kh,
    OW * kw], then a Conv2D with the kernel as stride (and groups), plus bias."""
    st, pd, dl = _four("strides", strides), _four("padding", padding), _four("dilations",
                                                                           dilations)
    if st[0] != 1 or st[1] != 1 or dl[0] != 1 or dl[1] != 1:
        raise ValueError("For 'deformable_conv2d', strides and dilations must be 1 for N and C, "
                         f"but got {strides!r} and {dilations!r}.")
    if not modulated:
        raise ValueError("For 'deformable_conv2d', only modulated=True is supported.")
    kh, kw = kernel_size
    if len(x.shape) != 4 or len(weight.shape) != 4 or tuple(weight.shape[2:]) != (kh, kw):
        raise ValueError(f"For 'deformable_conv2d', x must be NCHW and weight [out, in / groups, "
                         f"{kh}, {kw}], but got {tuple(x.shape)} and {tuple(weight.shape)}.")
    if offsets.shape[1] != 3 * deformable_groups * kh * kw:
        raise ValueError(f"For 'deformable_conv2d', offsets must have 3 * deformable_groups * "
                         f"kh * kw = {3 * deformable_groups * kh * kw} channels, but got shape "
                         f"{tuple(offsets.shape)}.")
    dt = x.dtype
    work = _C.float32 if dt == _C.float16 else dt
    samples = deformable_offsets(prim("Cast")(x, work), prim("Cast")(offsets, work), (kh, kw),
                                 (st[2], st[3]), pd, (dl[2], dl[3]), deformable_groups)
    conv = prim("Conv2D", out_channel=weight.shape[0], kernel_size=(kh, kw), pad_mode="valid",
                stride=(kh, kw), group=groups)
    out = conv(samples, prim("Cast")(weight, work))
    if bias is not None:
        out = prim("BiasAdd")(out, prim("Cast")(bias, work))
    return prim("Cast")(out, dt)


__all__ = ["deformable_conv2d"]
