"""MindSpore's ``mindspore.ops.operations.other_ops``: SampleDistortedBoundingBoxV2, run on the
host (a PrimitiveWithInfer with a numpy ``__call__``, ops/custom_prim.py: an ordinary call in
PYNATIVE mode, a host callback typed by its inference in GRAPH mode).

The draws are mycel's own (numpy's generator seeded from seed and seed2; both 0: seeds
drawn per instance from mycel's global generator, so mycel.set_seed fixes them), not
TensorFlow's Philox stream: the same seeds give the same boxes in mycel, not TensorFlow's.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.custom_prim import PrimitiveWithInfer, prim_attr_register

__all__ = ["SampleDistortedBoundingBoxV2"]


def _pair(op, name, v):
    v = tuple(float(e) for e in v)
    if len(v) != 2 or not 0 < v[0] <= v[1]:
        raise ValueError(f"For '{op}', '{name}' must be two positive floats, the first not "
                         f"above the second, but got {v}.")
    return v


def _coverage(box, crop):
    """The fraction of box (y1, x1, y2, x2) inside crop."""
    ih = max(min(box[2], crop[2]) - max(box[0], crop[0]), 0.0)
    iw = max(min(box[3], crop[3]) - max(box[1], crop[1]), 0.0)
    area = (box[2] - box[0]) * (box[3] - box[1])
    return ih * iw / area if area > 0 else 0.0


class SampleDistortedBoundingBoxV2(PrimitiveWithInfer):
    """SampleDistortedBoundingBoxV2(seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33),
    area_range=(0.05, 1.0), max_attempts=100, use_image_if_no_bounding_boxes=False)(
    image_size, bounding_boxes, min_object_covered) -> (begin, size, bboxes): a random crop of
    an image of shape image_size (height, width, channels): each attempt draws an aspect ratio
    (width / height) and an area fraction from the ranges and a position, and the first crop
    that covers at least min_object_covered of one of bounding_boxes ([batch, N, 4] of
    normalised (y1, x1, y2, x2)) is taken; after max_attempts, the whole image. begin =
    (y, x, 0) and size = (h, w, -1) (int32, for ops.slice), bboxes the crop normalised
    [1, 1, 4] float32. No boxes with use_image_if_no_bounding_boxes: the whole image is the
    box to cover; no boxes otherwise: a ValueError."""

    @prim_attr_register
    def __init__(self, seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 max_attempts=100, use_image_if_no_bounding_boxes=False):
        op = "SampleDistortedBoundingBoxV2"
        for name, v in (("seed", seed), ("seed2", seed2), ("max_attempts", max_attempts)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For '{op}', '{name}' must be an int, but got {v!r}.")
        if max_attempts < 1:
            raise ValueError(f"For '{op}', 'max_attempts' must be positive, but got "
                             f"{max_attempts}.")
        self._ratio = _pair(op, "aspect_ratio_range", aspect_ratio_range)
        self._area = _pair(op, "area_range", area_range)
        if self._area[1] > 1:
            raise ValueError(f"For '{op}', 'area_range' must lie in (0, 1], but got "
                             f"{self._area}.")
        if not isinstance(use_image_if_no_bounding_boxes, bool):
            raise TypeError(f"For '{op}', 'use_image_if_no_bounding_boxes' must be a bool.")
        if seed == 0 and seed2 == 0:  # from mycel's global generator (mycel.set_seed)
            from mycel.ops.function.random_func import randint
            seed, seed2 = (int(v) for v in randint(0, 2 ** 31 - 1, (2,)).asnumpy())
        self._rng = np.random.default_rng([seed, seed2])

    def __infer__(self, image_size, bounding_boxes, min_object_covered):
        op = "SampleDistortedBoundingBoxV2"
        if list(image_size["shape"]) != [3] or image_size["dtype"] not in (
                _C.int8, _C.uint8, _C.int16, _C.int32, _C.int64):
            raise ValueError(f"For '{op}', image_size must be an integer tensor of shape (3,), "
                             f"but got {tuple(image_size['shape'])} {image_size['dtype']}.")
        if len(bounding_boxes["shape"]) != 3 or bounding_boxes["shape"][-1] != 4:
            raise ValueError(f"For '{op}', bounding_boxes must be [batch, N, 4], but got "
                             f"{tuple(bounding_boxes['shape'])}.")
        return {"shape": ([3], [3], [1, 1, 4]), "dtype": (_C.int32, _C.int32, _C.float32),
                "value": None}

    def __call__(self, image_size, bounding_boxes, min_object_covered):
        op = "SampleDistortedBoundingBoxV2"
        size = np.asarray(image_size.asnumpy()).reshape(-1)
        boxes = np.asarray(bounding_boxes.asnumpy(), np.float64).reshape(-1, 4)
        cover = float(np.asarray(min_object_covered.asnumpy() if isinstance(
            min_object_covered, _C.Tensor) else min_object_covered).reshape(-1)[0])
        if size.shape != (3,) or size[0] < 1 or size[1] < 1:
            raise ValueError(f"For '{op}', image_size must be (height, width, channels) with "
                             f"positive height and width, but got {size.tolist()}.")
        if boxes.size == 0:
            if not self.use_image_if_no_bounding_boxes:
                raise ValueError(f"For '{op}', no bounding boxes given and "
                                 "use_image_if_no_bounding_boxes is False.")
            boxes = np.array([[0.0, 0.0, 1.0, 1.0]])
        if ((boxes < 0) | (boxes > 1)).any() or (boxes[:, 2] < boxes[:, 0]).any() or \
                (boxes[:, 3] < boxes[:, 1]).any():
            raise ValueError(f"For '{op}', bounding_boxes must be normalised (y1, x1, y2, x2) "
                             f"with y1 <= y2 and x1 <= x2 in [0, 1].")
        hgt, wid = int(size[0]), int(size[1])
        y, x, h, w = 0, 0, hgt, wid
        for _ in range(self.max_attempts):
            ratio = self._rng.uniform(*self._ratio)
            area = self._rng.uniform(*self._area) * hgt * wid
            ch = int(round(np.sqrt(area / ratio)))
            cw = int(round(ch * ratio))
            if not (1 <= ch <= hgt and 1 <= cw <= wid):
                continue
            cy = int(self._rng.integers(0, hgt - ch + 1))
            cx = int(self._rng.integers(0, wid - cw + 1))
            crop = (cy / hgt, cx / wid, (cy + ch) / hgt, (cx + cw) / wid)
            if any(_coverage(b, crop) >= cover for b in boxes):
                y, x, h, w = cy, cx, ch, cw
                break
        begin = np.array([y, x, 0], np.int32)
        extent = np.array([h, w, -1], np.int32)
        bbox = np.array([[[y / hgt, x / wid, (y + h) / hgt, (x + w) / wid]]], np.float32)
        return _C.Tensor(begin), _C.Tensor(extent), _C.Tensor(bbox)
