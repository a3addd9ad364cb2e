"""Crops of image boxes resized to one size (MindSpore's ``ops.CropAndResize`` /
``ops.crop_and_resize``, TensorFlow's crop_and_resize), composed from table ops.

image [N, H, W, C] (channels last), boxes [B, 4] of normalised (y1, x1, y2, x2) (y2 < y1 flips
the crop), box_index [B] naming each box's image, crop_size (h, w). Output position (i, j) of
box b samples the image at
    y = y1 (H - 1) + i (y2 - y1) (H - 1) / (h - 1)   (h > 1; else the box's centre row)
    x = x1 (W - 1) + j (x2 - x1) (W - 1) / (w - 1)   (likewise),
bilinearly from the four neighbours (floor and ceil in each axis), or from the nearest one
with method 'nearest'; a position whose y or x falls outside [0, H - 1] / [0, W - 1] takes
extrapolation_value. The output is float32 [B, h, w, C]. Rows and columns are read with
GatherElements, so gradients flow to the image and (bilinear) to the boxes.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

METHODS = ("bilinear", "nearest")


@constexpr
def _plan(op, img_shape, img_dtype, box_shape, box_dtype, idx_shape, idx_dtype, crop_size):
    if len(img_shape) != 4:
        raise ValueError(f"For '{op}', the image must be 4-D [N, H, W, C], but got shape "
                         f"{tuple(img_shape)}.")
    if img_dtype not in (_C.float16, _C.float32, _C.float64, _C.int8, _C.uint8, _C.int16,
                         _C.int32, _C.int64):
        raise TypeError(f"For '{op}', the image must be a real number dtype, but got "
                        f"{img_dtype}.")
    if box_dtype != _C.float32 or len(box_shape) != 2 or box_shape[1] != 4:
        raise ValueError(f"For '{op}', boxes must be float32 [num_boxes, 4], but got "
                         f"{box_dtype} of shape {tuple(box_shape)}.")
    if idx_dtype != _C.int32 or tuple(idx_shape) != (box_shape[0],):
        raise ValueError(f"For '{op}', box_index must be int32 [num_boxes] = "
                         f"[{box_shape[0]}], but got {idx_dtype} of shape {tuple(idx_shape)}.")
    if not isinstance(crop_size, (tuple, list)) or len(crop_size) != 2 or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                    for v in crop_size):
        raise ValueError(f"For '{op}', crop_size must be a tuple of two positive ints, but got "
                         f"{crop_size!r}.")
    return tuple(crop_size)


@constexpr
def _col(k):
    return _C.Tensor(np.array([k], np.int64))


@constexpr
def _grid(n):
    return _C.Tensor(np.arange(n, dtype=np.float32))


def _coords(lo, hi, size, out):
    """[B, out] sample coordinates along one axis from the box edges lo, hi [B, 1]."""
    if out > 1:
        step = prim("Mul")(prim("Sub")(hi, lo), (size - 1) / (out - 1))
        return prim("Add")(prim("Mul")(lo, float(size - 1)), prim("Mul")(_grid(out), step))
    return prim("Mul")(prim("Add")(lo, hi), 0.5 * (size - 1))  # [B, 1]


def _take(img, rows, cols):
    """img [B, H, W, C] at integer rows [B, h] and cols [B, w] -> [B, h, w, C]."""
    b, h_in, w_in, c = img.shape
    h, w = rows.shape[1], cols.shape[1]
    r = prim("BroadcastTo", shape=(b, h, w_in, c))(prim("Reshape")(rows, (b, h, 1, 1)))
    picked = prim("GatherD")(img, r, 1)  # [B, h, W, C]
    cl = prim("BroadcastTo", shape=(b, h, w, c))(prim("Reshape")(cols, (b, 1, w, 1)))
    return prim("GatherD")(picked, cl, 2)


def _index(v, size, how):
    i = prim(how)(v)
    i = prim("Minimum")(prim("Maximum")(i, 0.0), float(size - 1))
    return prim("Cast")(i, _C.int64)


def crop_and_resize(image, boxes, box_index, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """The crops (module docstring): float32 [num_boxes, crop_h, crop_w, C]."""
    img, bx, bi = as_tensor(image), as_tensor(boxes), as_tensor(box_index)
    h, w = _plan("CropAndResize", img.shape, img.dtype, bx.shape, bx.dtype, bi.shape, bi.dtype,
                 crop_size)
    _, size_h, size_w, _ = img.shape
    img = prim("Gather")(prim("Cast")(img, _C.float32), prim("Cast")(bi, _C.int64), 0)
    y1, x1 = prim("Gather")(bx, _col(0), 1), prim("Gather")(bx, _col(1), 1)  # [B, 1]
    y2, x2 = prim("Gather")(bx, _col(2), 1), prim("Gather")(bx, _col(3), 1)
    ys, xs = _coords(y1, y2, size_h, h), _coords(x1, x2, size_w, w)  # [B, h], [B, w]
    inside = prim("LogicalAnd")(
        prim("Reshape")(prim("LogicalAnd")(prim("GreaterEqual")(ys, 0.0),
                                           prim("LessEqual")(ys, float(size_h - 1))),
                        (-1, h, 1, 1)),
        prim("Reshape")(prim("LogicalAnd")(prim("GreaterEqual")(xs, 0.0),
                                           prim("LessEqual")(xs, float(size_w - 1))),
                        (-1, 1, w, 1)))
    if method == "nearest":
        # the nearest neighbour, halves away from zero (C's roundf; the coordinates are >= 0
        # where they are used)
        out = _take(img, _index(prim("Add")(ys, 0.5), size_h, "Floor"),
                    _index(prim("Add")(xs, 0.5), size_w, "Floor"))
    else:
        top, bottom = _index(ys, size_h, "Floor"), _index(ys, size_h, "Ceil")
        left, right = _index(xs, size_w, "Floor"), _index(xs, size_w, "Ceil")
        dy = prim("Reshape")(prim("Sub")(ys, prim("Floor")(ys)), (-1, h, 1, 1))
        dx = prim("Reshape")(prim("Sub")(xs, prim("Floor")(xs)), (-1, 1, w, 1))
        tl, tr = _take(img, top, left), _take(img, top, right)
        bl, br = _take(img, bottom, left), _take(img, bottom, right)
        upper = prim("Add")(tl, prim("Mul")(prim("Sub")(tr, tl), dx))
        lower = prim("Add")(bl, prim("Mul")(prim("Sub")(br, bl), dx))
        out = prim("Add")(upper, prim("Mul")(prim("Sub")(lower, upper), dy))
    fill = prim("Fill")(_C.float32, tuple(out.shape), float(extrapolation_value))
    return prim("Select")(prim("BroadcastTo", shape=tuple(out.shape))(inside), out, fill)
