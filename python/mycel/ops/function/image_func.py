"""Image functions of MindSpore 2.x (its ops/function/image_func.py), composed from op-table
primitives (both modes): the boxes (iou, bounding_box_encode, bounding_box_decode,
check_valid) and nms_with_mask.

The box functions follow MindSpore's CPU kernels: coordinates are pixel indices, so a box
(x0, y0, x1, y1) is x1 - x0 + 1 wide.
"""
import numpy as np
from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.function import array_func as _a
from mycel.ops.primitive import constexpr
from mycel.ops.function import crop_resize_func as _cr


__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "nms_with_mask",
           "crop_and_resize"]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


@constexpr
def _boxes_check(shape, op, name):
    if len(shape) != 2 or shape[1] != 4:
        raise ValueError(f"For '{op}', {name} must have shape (N, 4), but got {tuple(shape)}.")
    return True


def _cols(b):
    """The four coordinate columns of boxes (N, 4), each (N, 1)."""
    n = b.shape[0]
    return (prim("StridedSlice")(b, (0, 0), (n, 1), (1, 1)),
            prim("StridedSlice")(b, (0, 1), (n, 2), (1, 1)),
            prim("StridedSlice")(b, (0, 2), (n, 3), (1, 1)),
            prim("StridedSlice")(b, (0, 3), (n, 4), (1, 1)))


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """The overlap of each gt box (M) with each anchor box (N) over their union ('iou') or
    over the gt box's area ('iof'): (M, N)."""
    a, g = _t(anchor_boxes, "iou", "anchor_boxes"), _t(gt_boxes, "iou", "gt_boxes")
    _boxes_check(a.shape, "iou", "anchor_boxes")
    _boxes_check(g.shape, "iou", "gt_boxes")
    if mode not in ("iou", "iof"):
        raise ValueError(f"For 'iou', mode must be 'iou' or 'iof', but got {mode!r}.")
    ax0, ay0, ax1, ay1 = _cols(a)
    ax0, ay0 = prim("Reshape")(ax0, (1, -1)), prim("Reshape")(ay0, (1, -1))
    ax1, ay1 = prim("Reshape")(ax1, (1, -1)), prim("Reshape")(ay1, (1, -1))
    gx0, gy0, gx1, gy1 = _cols(g)  # (M, 1)
    w = prim("Maximum")(prim("Minimum")(ax1, gx1) - prim("Maximum")(ax0, gx0) + 1.0, 0.0)
    h = prim("Maximum")(prim("Minimum")(ay1, gy1) - prim("Maximum")(ay0, gy0) + 1.0, 0.0)
    inter = w * h
    area_a = (ax1 - ax0 + 1.0) * (ay1 - ay0 + 1.0)
    area_g = (gx1 - gx0 + 1.0) * (gy1 - gy0 + 1.0)
    if mode == "iou":
        return inter / (area_a + area_g - inter + 1e-10)
    return inter / (area_g + 1e-10)


@constexpr
def _four(v, op, name):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (float(v),) * 4
    if not isinstance(v, (tuple, list)) or len(v) < 4:
        raise TypeError(f"For '{op}', {name} must be a tuple of 4 floats, but got {v!r}.")
    return tuple(float(e) for e in v[:4])


def _center(b):
    x0, y0, x1, y1 = _cols(b)
    return (x0 + x1) * 0.5, (y0 + y1) * 0.5, x1 - x0 + 1.0, y1 - y0 + 1.0


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas (dx, dy, dw, dh) from each anchor box to its ground-truth box, normalised
    by means and stds: dx = (gx - px) / pw, dw = log(gw / pw)."""
    a = _t(anchor_box, "bounding_box_encode", "anchor_box")
    g = _t(groundtruth_box, "bounding_box_encode", "groundtruth_box")
    _boxes_check(a.shape, "bounding_box_encode", "anchor_box")
    _boxes_check(g.shape, "bounding_box_encode", "groundtruth_box")
    m, s = _four(means, "bounding_box_encode", "means"), _four(stds, "bounding_box_encode",
                                                              "stds")
    px, py, pw, ph = _center(a)
    gx, gy, gw, gh = _center(g)
    d = ((gx - px) / pw, (gy - py) / ph, prim("Log")(gw / pw), prim("Log")(gh / ph))
    return _a.concat(((d[0] - m[0]) / s[0], (d[1] - m[1]) / s[1], (d[2] - m[2]) / s[2],
                      (d[3] - m[3]) / s[3]), 1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """The boxes the deltas move the anchor boxes to (the inverse of bounding_box_encode),
    dw and dh clipped to |log(wh_ratio_clip)|, the corners clipped to [0, max_shape]
    ((height, width))."""
    a = _t(anchor_box, "bounding_box_decode", "anchor_box")
    d = _t(deltas, "bounding_box_decode", "deltas")
    _boxes_check(a.shape, "bounding_box_decode", "anchor_box")
    _boxes_check(d.shape, "bounding_box_decode", "deltas")
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
        raise TypeError(f"For 'bounding_box_decode', max_shape must be a tuple (h, w), but got "
                        f"{max_shape!r}.")
    m, s = _four(means, "bounding_box_decode", "means"), _four(stds, "bounding_box_decode",
                                                              "stds")
    dx, dy, dw, dh = _cols(d)
    dx, dy, dw, dh = dx * s[0] + m[0], dy * s[1] + m[1], dw * s[2] + m[2], dh * s[3] + m[3]
    r = abs(float(np.log(wh_ratio_clip)))
    dw = prim("Minimum")(prim("Maximum")(dw, -r), r)
    dh = prim("Minimum")(prim("Maximum")(dh, -r), r)
    px, py, pw, ph = _center(a)
    gx, gy = px + pw * dx, py + ph * dy
    gw, gh = pw * prim("Exp")(dw), ph * prim("Exp")(dh)
    hmax, wmax = float(max_shape[0]), float(max_shape[1])

    def clip(v, hi):
        return prim("Minimum")(prim("Maximum")(v, 0.0), hi)
    return _a.concat((clip(gx - gw * 0.5 + 0.5, wmax), clip(gy - gh * 0.5 + 0.5, hmax),
                      clip(gx + gw * 0.5 - 0.5, wmax), clip(gy + gh * 0.5 - 0.5, hmax)), 1)


def check_valid(bboxes, img_metas):
    """Whether each box (x0, y0, x1, y1) lies inside the image (height, width, ratio):
    x0, y0 >= 0, x1 <= width * ratio - 1, y1 <= height * ratio - 1."""
    b = _t(bboxes, "check_valid", "bboxes")
    m = _t(img_metas, "check_valid", "img_metas")
    _boxes_check(b.shape, "check_valid", "bboxes")
    x0, y0, x1, y1 = _cols(b)
    mh = prim("Cast")(prim("StridedSlice")(m, (0,), (1,), (1,)), b.dtype)
    mw = prim("Cast")(prim("StridedSlice")(m, (1,), (2,), (1,)), b.dtype)
    ratio = prim("Cast")(prim("StridedSlice")(m, (2,), (3,), (1,)), b.dtype)
    ok = prim("LogicalAnd")(prim("GreaterEqual")(x0, 0.0), prim("GreaterEqual")(y0, 0.0))
    ok = prim("LogicalAnd")(ok, prim("LessEqual")(x1, mw * ratio - 1.0))
    ok = prim("LogicalAnd")(ok, prim("LessEqual")(y1, mh * ratio - 1.0))
    return prim("Reshape")(ok, (-1,))


def nms_with_mask(bboxes, iou_threshold=0.5):
    """MindSpore's NMSWithMask on CPU: (the boxes (N, 5) sorted by score, highest first;
    arange(N) int32, the positions in that order; the kept mask). Box j is dropped when a
    kept box before it overlaps it with IoU > iou_threshold (areas (x1 - x0) (y1 - y0)); the
    greedy pass is unrolled over the static N."""
    b = _t(bboxes, "NMSWithMask", "bboxes")
    _nms_check(b.shape, b.dtype)
    n = b.shape[0]
    score = prim("Reshape")(prim("StridedSlice")(b, (0, 4), (n, 5), (1, 1)), (n,))
    _, order = prim("TopK", sorted=True)(score, n)
    s = prim("Gather")(b, order, 0)
    x0, y0, x1, y1 = _cols(prim("StridedSlice")(s, (0, 0), (n, 4), (1, 1)))
    tx0, ty0 = prim("Reshape")(x0, (1, n)), prim("Reshape")(y0, (1, n))
    tx1, ty1 = prim("Reshape")(x1, (1, n)), prim("Reshape")(y1, (1, n))
    w = prim("Maximum")(prim("Minimum")(x1, tx1) - prim("Maximum")(x0, tx0), 0.0)
    h = prim("Maximum")(prim("Minimum")(y1, ty1) - prim("Maximum")(y0, ty0), 0.0)
    inter = w * h
    area = (x1 - x0) * (y1 - y0)
    iou_m = inter / (area + prim("Reshape")(area, (1, n)) - inter)
    drop = prim("LogicalAnd")(prim("Greater")(iou_m, float(iou_threshold)), _upper(n))
    keep = prim("OnesLike")(prim("Cast")(score, _C.int32))
    keep = prim("Cast")(keep, _C.bool)
    for i in range(n - 1):
        row = prim("Reshape")(prim("StridedSlice")(drop, (i, 0), (i + 1, n), (1, 1)), (n,))
        ki = prim("StridedSlice")(keep, (i,), (i + 1,), (1,))
        keep = prim("LogicalAnd")(keep, prim("LogicalNot")(prim("LogicalAnd")(row, ki)))
    return s, _arange_i32(n), keep


@constexpr
def _nms_check(shape, dtype):
    if len(shape) != 2 or shape[1] != 5:
        raise ValueError(f"For 'NMSWithMask', bboxes must have shape (N, 5), but got "
                         f"{tuple(shape)}.")
    if dtype not in (_C.float16, _C.float32):
        raise TypeError(f"For 'NMSWithMask', bboxes must be float16 or float32, but got "
                        f"{dtype}.")
    return True


@constexpr
def _upper(n):
    return _C.Tensor(np.triu(np.ones((n, n), bool), 1))


@constexpr
def _arange_i32(n):
    return _C.Tensor(np.arange(n, dtype=np.int32))


@constexpr
def _crop_method(method):
    if not isinstance(method, str) or method not in _cr.METHODS:
        raise ValueError(f"For 'crop_and_resize', 'method' must be one of {_cr.METHODS}, but "
                         f"got {method!r}.")
    return method


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crops of image [N, H, W, C] at the normalised boxes [B, 4] (y1, x1, y2, x2) of images
    box_indices [B] (int32), each resized to crop_size (h, w) by 'bilinear' or 'nearest'
    sampling; positions outside the image take extrapolation_value. Float32 [B, h, w, C]
    (TensorFlow's crop_and_resize; ops/function/crop_resize_func.py, as ops.CropAndResize)."""
    method = _crop_method(method)
    return _cr.crop_and_resize(image, boxes, box_indices, crop_size, method,
                               float(extrapolation_value))
