"""Position-sensitive ROI pooling (MindSpore's PSROIPooling and PSROIPoolingGrad), composed from
op-table primitives.

rois has shape [batch, 5, rois_num]: for ROI r of image b the column rois[b, :, r] holds
(batch_index, x1, y1, x2, y2) in input coordinates; ROI n = b * rois_num + r is row n of the
pooled output [batch * rois_num, output_dim, group_size, group_size]. Each ROI is scaled by
spatial_scale and rounded (half away from zero); its width and height (at least 0.1) are split
into group_size x group_size bins, bin (i, j) covering rows [floor(i * bh) + y1, ceil((i + 1) *
bh) + y1) and columns likewise, clipped to the feature map. Bin (i, j) of output channel c
averages input channel (c * group_size + i) * group_size + j over the bin (0 for an empty bin).

As MindSpore's CPU kernels: the forward clips bins to [0, H - 1] x [0, W - 1] (the last row and
column never enter an average), PSROIPoolingGrad clips them to [0, H] x [0, W] and spreads each
dy value evenly over its bin of the input of shape [batch, C, input_size...]. The gradient of
PSROIPooling itself is autodiff's, exact for the forward as defined here.

The bins depend on the ROI values, so they are masks built from the ROIs at run time: one
[n, group_size, H] mask of rows and one [n, group_size, W] of columns per ROI; the pooling is a
masked sum over a gather of each ROI's image (memory n x C x H x W), the gradient a masked
broadcast summed into the images by a one-hot matmul.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, tensor_arg
from mycel.ops.primitive import constexpr
from mycel.ops.function import array_func as _a

__all__ = ["ps_roi_pooling", "ps_roi_pooling_grad", "roi_align"]


@constexpr
def _arange(n, dtype):
    return _C.Tensor(np.arange(n, dtype=np.float64)).astype(dtype)


def _round_half_away(x):
    """C's round(): halves go away from zero."""
    a = prim("Floor")(prim("Abs")(x) + 0.5)
    return prim("Select")(prim("Less")(x, 0.0), prim("Neg")(a), a)


def _bins(start, extent, group_size, limit, dtype):
    """[n, g] bin starts and ends along one axis, clipped to [0, limit]."""
    p = _arange(group_size, dtype)
    size = prim("Reshape")(extent / float(group_size), (-1, 1))
    start = prim("Reshape")(start, (-1, 1))
    lo = prim("Floor")(p * size) + start
    hi = prim("Ceil")((p + 1.0) * size) + start
    lo = prim("Minimum")(prim("Maximum")(lo, 0.0), float(limit))
    hi = prim("Minimum")(prim("Maximum")(hi, 0.0), float(limit))
    return lo, hi


def _mask(lo, hi, length, dtype):
    """[n, g, length]: 1 where lo <= index < hi."""
    idx = _arange(length, dtype)
    lo3 = prim("ExpandDims")(lo, 2)
    hi3 = prim("ExpandDims")(hi, 2)
    inside = prim("LogicalAnd")(prim("GreaterEqual")(idx, lo3), prim("Less")(idx, hi3))
    return prim("Cast")(inside, dtype)


def _roi_geometry(rois, spatial_scale, group_size, height, width, limit_h, limit_w):
    """(batch index [n] int32, row mask [n,g,H], column mask [n,g,W], bin area [n,g,g])."""
    dtype = rois.dtype
    r = prim("Reshape")(prim("Transpose")(rois, (0, 2, 1)), (-1, 5))
    bidx = prim("Cast")(r[:, 0], _C.int32)
    box = _round_half_away(r[:, 1:5] * spatial_scale)
    x1, y1, x2, y2 = box[:, 0], box[:, 1], box[:, 2], box[:, 3]
    roi_w = prim("Maximum")(x2 - x1, 0.1)
    roi_h = prim("Maximum")(y2 - y1, 0.1)
    h_lo, h_hi = _bins(y1, roi_h, group_size, limit_h, dtype)
    w_lo, w_hi = _bins(x1, roi_w, group_size, limit_w, dtype)
    area = prim("ExpandDims")(h_hi - h_lo, 2) * prim("ExpandDims")(w_hi - w_lo, 1)
    return (bidx, _mask(h_lo, h_hi, height, dtype), _mask(w_lo, w_hi, width, dtype), area)


def ps_roi_pooling(features, rois, spatial_scale, group_size, output_dim):
    """[batch * rois_num, output_dim, g, g]: each bin's average of its input channel."""
    _, _, height, width = features.shape
    g = group_size
    bidx, mh, mw, area = _roi_geometry(rois, spatial_scale, g, height, width, height - 1,
                                       width - 1)
    x = prim("Reshape")(prim("Gather")(features, bidx, 0), (-1, output_dim, g, g, height, width))
    mh6 = prim("Reshape")(mh, (-1, 1, g, 1, height, 1))
    mw6 = prim("Reshape")(mw, (-1, 1, 1, g, 1, width))
    total = prim("ReduceSum", keep_dims=False)(x * mh6 * mw6, (4, 5))
    area4 = prim("ExpandDims")(area, 1)
    empty = prim("LessEqual")(area4, 0.0)
    safe = prim("Select")(empty, prim("OnesLike")(area4), area4)
    out = total / safe
    return prim("Select")(prim("BroadcastTo", shape=out.shape)(empty), prim("ZerosLike")(out),
                          out)


def ps_roi_pooling_grad(dy, rois, input_size, spatial_scale, group_size, output_dim):
    """[batch, output_dim * g * g, H, W]: each dy value spread evenly over its bin."""
    height, width = input_size
    g = group_size
    batch = rois.shape[0]
    bidx, mh, mw, area = _roi_geometry(rois, spatial_scale, g, height, width, height, width)
    n = mh.shape[0]
    area4 = prim("ExpandDims")(area, 1)
    empty = prim("LessEqual")(area4, 0.0)
    safe = prim("Select")(empty, prim("OnesLike")(area4), area4)
    share = prim("Select")(prim("BroadcastTo", shape=dy.shape)(empty), prim("ZerosLike")(dy),
                           dy / safe)
    spread = (prim("Reshape")(share, (n, output_dim, g, g, 1, 1)) *
              prim("Reshape")(mh, (n, 1, g, 1, height, 1)) *
              prim("Reshape")(mw, (n, 1, 1, g, 1, width)))
    onehot = prim("OneHot", axis=-1, dtype=dy.dtype)(bidx, batch, 1.0, 0.0)
    flat = prim("Reshape")(spread, (n, output_dim * g * g * height * width))
    dx = prim("MatMul", transpose_a=True)(onehot, flat)
    return prim("Reshape")(dx, (batch, output_dim * g * g, height, width))


_FLOAT_DTYPES = (_C.float16, _C.float32, _C.float64)


@constexpr
def _roi_check(fs, rs, fdt, rdt, ph, pw, sample_num):
    if len(fs) != 4 or len(rs) != 2 or rs[1] != 5:
        raise ValueError(f"For 'ROIAlign', features must be (N, C, H, W) and rois (R, 5), but "
                         f"got {tuple(fs)} and {tuple(rs)}.")
    if fdt not in _FLOAT_DTYPES or rdt != fdt:
        raise TypeError(f"For 'ROIAlign', features and rois must have the same float dtype, but "
                        f"got {fdt} and {rdt}.")
    for name, v in (("pooled_height", ph), ("pooled_width", pw), ("sample_num", sample_num)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For 'ROIAlign', {name} must be a positive int here (an adaptive "
                             f"sample_num <= 0 needs a grid per ROI), but got {v!r}.")
    return True


@constexpr
def _sample_offsets(pooled, s):
    """[pooled * s] float64: ph + (iy + 0.5) / s, the sample points in bin units."""
    p = np.arange(pooled)[:, None] + (np.arange(s)[None, :] + 0.5) / s
    return _C.Tensor(p.reshape(-1))


def _axis_weights(pos, size):
    """Caffe2's bilinear rule along one axis: (low, high) int64 indices, (w_low, w_high)
    weights with points outside [-1, size] weighted 0."""
    valid = prim("LogicalAnd")(prim("GreaterEqual")(pos, -1.0), prim("LessEqual")(pos,
                                                                                   float(size)))
    p = prim("Maximum")(pos, 0.0)
    low = prim("Floor")(p)
    at_end = prim("GreaterEqual")(low, float(size - 1))
    low = prim("Select")(at_end, prim("ZerosLike")(low) + float(size - 1), low)
    p = prim("Select")(at_end, low, p)
    high = prim("Select")(at_end, low, low + 1.0)
    lw = p - low
    vf = prim("Cast")(valid, pos.dtype)
    return (prim("Cast")(low, _C.int64), prim("Cast")(high, _C.int64), (1.0 - lw) * vf, lw * vf)


def _interp_axis(t, pos, size, axis):
    """t [R, C, ..] interpolated at pos [R, P] along axis (2 or 3)."""
    lo, hi, wl, wh = _axis_weights(pos, size)
    r, c = t.shape[0], t.shape[1]
    if axis == 2:
        shape = (r, c, pos.shape[1], t.shape[3])
        idx = lambda i: prim("BroadcastTo", shape=shape)(prim("Reshape")(i, (r, 1, -1, 1)))  # noqa
        wv = lambda w: prim("Reshape")(w, (r, 1, -1, 1))  # noqa: E731
    else:
        shape = (r, c, t.shape[2], pos.shape[1])
        idx = lambda i: prim("BroadcastTo", shape=shape)(prim("Reshape")(i, (r, 1, 1, -1)))  # noqa
        wv = lambda w: prim("Reshape")(w, (r, 1, 1, -1))  # noqa: E731
    return (_a.gather_d(t, axis, idx(lo)) * wv(wl) + _a.gather_d(t, axis, idx(hi)) * wv(wh))


def roi_align(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
              roi_end_mode=1):
    """MindSpore's ROIAlign on CPU: each ROI (batch index, x1, y1, x2, y2) scaled by
    spatial_scale (the end + roi_end_mode), split into pooled_height x pooled_width bins,
    each the mean of sample_num x sample_num bilinear samples: (R, C, ph, pw)."""
    f, r = tensor_arg(features, "roi_align", "features"), tensor_arg(rois, "roi_align", "rois")
    _roi_check(f.shape, r.shape, f.dtype, r.dtype, pooled_height, pooled_width, sample_num)
    dt = f.dtype
    r64 = prim("Cast")(r, _C.float64)
    col = lambda i: prim("Reshape")(prim("StridedSlice")(r64, (0, i), (r.shape[0], i + 1),  # noqa
                                                         (1, 1)), (-1, 1))
    b = prim("Cast")(prim("Round")(col(0) + 0.00007), _C.int64)
    sw, sh = col(1) * spatial_scale, col(2) * spatial_scale
    ew = (col(3) + float(roi_end_mode)) * spatial_scale
    eh = (col(4) + float(roi_end_mode)) * spatial_scale
    rw, rh = ew - sw, eh - sh
    if roi_end_mode == 0:
        rw, rh = prim("Maximum")(rw, 1.0), prim("Maximum")(rh, 1.0)
    ys = sh + rh * (1.0 / pooled_height) * _sample_offsets(pooled_height, sample_num)
    xs = sw + rw * (1.0 / pooled_width) * _sample_offsets(pooled_width, sample_num)
    img = prim("Cast")(prim("Gather")(f, prim("Reshape")(b, (-1,)), 0), _C.float64)
    h, w = f.shape[2], f.shape[3]
    t = _interp_axis(img, ys, h, 2)
    t = _interp_axis(t, xs, w, 3)  # [R, C, ph * s, pw * s]
    rr, c = t.shape[0], t.shape[1]
    t = prim("Reshape")(t, (rr, c, pooled_height, sample_num, pooled_width, sample_num))
    return prim("Cast")(prim("ReduceMean")(t, (3, 5)), dt)
