"""Random erasers, mixers and bounding-box transforms of ``mindspore.dataset.vision`` (part of
``mycel.dataset.vision``): CutOut, RandomErasing, RandomLighting, MixUpBatch, CutMixBatch (and
the ImageBatchFormat enum), UniformAugment, PadToSize, RandomResize, BoundingBoxAugment,
RandomCropWithBBox, Random{Horizontal,Vertical}FlipWithBBox, ResizeWithBBox,
RandomResizeWithBBox and RandomResizedCropWithBBox.

Each class checks its arguments with MindSpore's messages and runs in C++
(src/data/transforms_vision_aug.cc, transforms_vision_bbox.cc), drawing from the row's random
stream (``ds.config.set_seed``), except RandomErasing (numpy, on <C, H, W> float images after
ToTensor, as MindSpore's Python transform) and a UniformAugment over Python callables. The
bounding-box transforms take two columns, the image and float32 boxes <N, >= 4> of (x, y,
width, height, ...), and give both back.
"""
from enum import IntEnum

import numpy as np

from mycel import _mycel
from mycel.dataset import _vision_checks as chk
from mycel.dataset.transforms import TensorOperation, _as_array, _is_pil
from mycel.dataset.transforms_random import _RandomComposition, _chain, _py_seed
from mycel.dataset.vision import (Border, Inter, _check_interpolation, _check_size, _fill,
                                  _padding)

_data = _mycel._data
_FLOAT_MAX = 16777216


def _positive(value, name):
    if value <= 0:
        raise ValueError(f"Input {name} must be greater than 0.")
    return value


class ConvertMode(IntEnum):
    """MindSpore's colour-conversion codes (OpenCV's cvtColor names; RGB and BGR variants of the
    same conversion share a value), the mode argument of ConvertColor (vision_policy.py)."""

    COLOR_BGR2BGRA = COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ImageBatchFormat(IntEnum):
    """The layout of a batch of images: NHWC or NCHW (CutMixBatch)."""

    NHWC = 0
    NCHW = 1


class CutOut(TensorOperation):
    """CutOut(length, num_patches=1, is_hwc=True): zero num_patches squares of side length at
    random places (each may reach over the border and is clipped). <H, W, C> images (or
    <C, H, W> with is_hwc=False), any numeric dtype."""

    def __init__(self, length, num_patches=1, is_hwc=True):
        chk.type_check(length, (int,), "length")
        chk.type_check(num_patches, (int,), "num_patches")
        chk.type_check(is_hwc, (bool,), "is_hwc")
        chk.check_value(length, 1, _FLOAT_MAX)
        chk.check_value(num_patches, 1, _FLOAT_MAX)
        self.length, self.num_patches, self.is_hwc = length, num_patches, is_hwc
        self._op = _data.CutOut(length, num_patches, is_hwc)


class RandomLighting(chk.ArrayOp):
    """RandomLighting(alpha=0.05): AlexNet's PCA lighting noise: three N(0, alpha) draws weight
    ImageNet's RGB eigenvectors, and the offset is added to every pixel (saturated). <H, W, 3>
    images; a PIL image gives a PIL image."""

    def __init__(self, alpha=0.05):
        chk.type_check(alpha, (float, int), "alpha")
        chk.check_value(alpha, 0, _FLOAT_MAX, "alpha")
        self.alpha = alpha
        self._op = _data.RandomLighting(float(alpha))

    def __call__(self, *inputs):
        if len(inputs) == 1 and _is_pil(inputs[0]) and inputs[0].mode != "RGB":
            inputs = (inputs[0].convert("RGB"),)
        return super().__call__(*inputs)


class MixUpBatch(TensorOperation):
    """MixUpBatch(alpha=1.0): on a batch of images <N, H, W, C> or <N, C, H, W> and one-hot
    labels <N, K> or <N, L, K>: lambda ~ Beta(alpha, alpha) (x1 / (x1 + x2), x ~ Gamma(alpha))
    and a random pairing; each image and label become lambda * own + (1 - lambda) * partner's
    (labels in float32)."""

    def __init__(self, alpha=1.0):
        chk.type_check(alpha, (int, float), "alpha")
        _positive(alpha, "alpha")
        self.alpha = alpha
        self._op = _data.MixUpBatch(float(alpha))


class CutMixBatch(TensorOperation):
    """CutMixBatch(image_batch_format, alpha=1.0, prob=1.0): on a batch of images and one-hot
    labels: with probability prob each image gets a box (sides sqrt(1 - lambda) of the image's,
    lambda ~ Beta(alpha, alpha)) pasted from a random partner, and its label mixed by the box's
    area (float32)."""

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        chk.type_check(image_batch_format, (ImageBatchFormat,), "image_batch_format")
        chk.type_check(alpha, (int, float), "alpha")
        chk.type_check(prob, (int, float), "prob")
        _positive(alpha, "alpha")
        chk.check_value(prob, 0, 1, "prob")
        self.image_batch_format, self.alpha, self.prob = image_batch_format, alpha, prob
        self._op = _data.CutMixBatch(image_batch_format == ImageBatchFormat.NCHW, float(alpha),
                                     float(prob))


def _check_transform(op, name):
    if not callable(op):
        raise TypeError(f"{name} is neither a transforms op (TensorOperation) nor a callable "
                        f"pyfunc. Got {type(op)}.")


class UniformAugment(_RandomComposition):
    """UniformAugment(transforms, num_ops=2): num_ops of transforms chosen at random (kept in
    list order), each then applied with probability 1/2. Built-in transforms run in C++; with a
    Python callable among them the choice is made in Python from the same dataset seed."""

    def __init__(self, transforms, num_ops=2):
        chk.type_check(num_ops, (int,), "num_ops")
        _positive(num_ops, "num_ops")
        if num_ops > len(transforms):
            raise ValueError("num_ops is greater than transforms list size.")
        chk.type_check(transforms, (list, tuple), "transforms list")
        if not transforms:
            raise ValueError("transforms list can not be empty.")
        for i, op in enumerate(transforms):
            _check_transform(op, f"transforms[{i}]")
        self.transforms, self.num_ops = list(transforms), num_ops
        chains = [_chain(op) for op in self.transforms]
        self._op = None if any(c is None for c in chains) else _data.UniformAugment(chains,
                                                                                    num_ops)
        self._makes_pil = any(getattr(op, "_makes_pil", False) for op in self.transforms)

    def _py_apply(self, rng, inputs):
        chosen = sorted(rng.choice(len(self.transforms), self.num_ops, replace=False))
        out = inputs
        for i in chosen:
            if rng.integers(0, 2):
                continue
            res = self.transforms[i](*out)
            out = res if isinstance(res, tuple) else (res,)
        return out[0] if len(out) == 1 else tuple(out)


class RandomErasing(TensorOperation):
    """RandomErasing(prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
    max_attempts=10): with probability prob, erase a random window (area fraction in scale,
    aspect ratio in ratio) of a <C, H, W> numpy image with value (a number, an (R, G, B) tuple,
    or 'random' for N(0, 1) noise). Runs in numpy, as MindSpore's Python transform."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        chk.check_prob(prob)
        for name, pair in (("scale", scale), ("ratio", ratio)):
            chk.type_check(pair, (tuple, list), name)
            if len(pair) != 2:
                raise TypeError(f"{name} should be a list or tuple of length 2.")
            chk.type_check_list(pair, (int, float), name)
            if pair[0] > pair[1]:
                raise ValueError(f"{name} should be in (min,max) format. Got (max,min).")
            chk.check_value(pair[0], 0, _FLOAT_MAX, name)
        if ratio[0] <= 0:
            raise ValueError("Input ratio[0] must be greater than 0.")
        if isinstance(value, str):
            if value != "random":
                raise ValueError("value should be 'random' or a number or a tuple of 3 numbers.")
        elif isinstance(value, (tuple, list)):
            if len(value) != 3:
                raise TypeError("value should be a single number or a 3-tuple.")
            chk.type_check_list(value, (int, float), "value")
        else:
            chk.type_check(value, (int, float), "value")
        chk.type_check(inplace, (bool,), "inplace")
        chk.type_check(max_attempts, (int,), "max_attempts")
        chk.check_value(max_attempts, 1, _FLOAT_MAX, "max_attempts")
        self.prob, self.scale, self.ratio = prob, tuple(scale), tuple(ratio)
        self.value, self.inplace, self.max_attempts = value, inplace, max_attempts

    @property
    def _random(self):
        return True

    def __call__(self, img):
        a = _as_array(img)
        if a.ndim != 3:
            raise TypeError(f"RandomErasing: the image must be a <C, H, W> numpy array, but got "
                            f"shape {list(a.shape)}.")
        rng = np.random.default_rng(_py_seed(self))
        if rng.random() >= self.prob:
            return a
        c, h, w = a.shape
        for _ in range(self.max_attempts):
            area = rng.uniform(*self.scale) * h * w
            aspect = rng.uniform(*self.ratio)
            ew = int(round(np.sqrt(area * aspect)))
            eh = int(round(ew / aspect))
            if eh < h and ew < w:
                top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
                if isinstance(self.value, str):
                    fill = rng.standard_normal((c, eh, ew))
                elif isinstance(self.value, (tuple, list)):
                    fill = np.asarray(self.value, np.float64)[:, None, None]
                else:
                    fill = self.value
                out = a if (self.inplace and a.flags.writeable) else a.copy()
                out[:, top:top + eh, left:left + ew] = fill
                return out
        return a


# ----- bounding boxes -----

class RandomCropWithBBox(TensorOperation):
    """RandomCropWithBBox(size, padding=None, pad_if_needed=False, fill_value=0,
    padding_mode=Border.CONSTANT): RandomCrop (same arguments) of the image; the boxes are
    shifted by the padding, cut to the window, and those outside it dropped."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        if (not isinstance(size, (int, list, tuple)) or isinstance(size, bool) or
                (isinstance(size, (list, tuple)) and len(size) != 2)):
            raise TypeError("Size should be a single integer or a list/tuple (h, w) of length 2.")
        self.size = _check_size("RandomCropWithBBox", size)
        if padding is not None:
            for v in padding if isinstance(padding, (list, tuple)) else [padding]:
                chk.type_check(v, (int,), "padding")
                chk.check_value(v, 0, 2147483647, "padding")
        self.padding, self.fill_value, self.padding_mode = padding, fill_value, padding_mode
        chk.type_check(pad_if_needed, (bool,), "pad_if_needed")
        chk.type_check(padding_mode, (Border,), "padding_mode")
        self.pad_if_needed = pad_if_needed
        self._op = _data.RandomCropWithBBox(*self.size, _padding("RandomCropWithBBox", padding),
                                            pad_if_needed, _fill("RandomCropWithBBox", fill_value),
                                            padding_mode.value)


class RandomHorizontalFlipWithBBox(TensorOperation):
    """RandomHorizontalFlipWithBBox(prob=0.5): mirror the image left-right with probability
    prob, and the boxes with it."""

    def __init__(self, prob=0.5):
        self.prob = chk.check_prob(prob)
        self._op = _data.RandomFlipWithBBox(self.prob, True)


class RandomVerticalFlipWithBBox(TensorOperation):
    """RandomVerticalFlipWithBBox(prob=0.5): mirror the image top-bottom with probability
    prob, and the boxes with it."""

    def __init__(self, prob=0.5):
        self.prob = chk.check_prob(prob)
        self._op = _data.RandomFlipWithBBox(self.prob, False)


def _bbox_size(func, size):
    """(h, w) of a Resize-style size; w = 0 keeps the aspect ratio (an int size)."""
    if isinstance(size, bool) or not isinstance(size, (int, list, tuple)):
        raise TypeError("Size should be a single integer or a list/tuple (h, w) of length 2.")
    if isinstance(size, int):
        chk.check_value(size, 1, _FLOAT_MAX)
        return size, 0
    if len(size) != 2:
        raise TypeError("Size should be a single integer or a list/tuple (h, w) of length 2.")
    for i, v in enumerate(size):
        chk.type_check(v, (int,), f"size at dim {i}")
        chk.check_value(v, 1, 2147483647, f"size at dim {i}")
    return tuple(size)


class ResizeWithBBox(TensorOperation):
    """ResizeWithBBox(size, interpolation=Inter.LINEAR): Resize (an int size scales the shorter
    side) with the boxes scaled alike."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        self.size, self.interpolation = size, interpolation
        h, w = _bbox_size("ResizeWithBBox", size)
        self._op = _data.ResizeWithBBox(h, w, _check_interpolation("ResizeWithBBox",
                                                                   interpolation))


class RandomResizeWithBBox(TensorOperation):
    """RandomResizeWithBBox(size): ResizeWithBBox with an interpolation drawn from LINEAR,
    NEAREST, CUBIC and AREA."""

    def __init__(self, size):
        self.size = size
        self._op = _data.RandomResizeWithBBox(*_bbox_size("RandomResizeWithBBox", size))


class RandomResizedCropWithBBox(TensorOperation):
    """RandomResizedCropWithBBox(size, scale=(0.08, 1.0), ratio=(3/4, 4/3),
    interpolation=Inter.BILINEAR, max_attempts=10): RandomResizedCrop's window, with the boxes
    cut to it and scaled to size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        from mycel.dataset.vision import RandomResizedCrop
        plain = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self.size, self.scale, self.ratio = plain.size, plain.scale, plain.ratio
        self.interpolation, self.max_attempts = interpolation, plain.max_attempts
        self._op = _data.RandomResizedCropWithBBox(
            *self.size, self.scale, self.ratio,
            _check_interpolation("RandomResizedCropWithBBox", interpolation), self.max_attempts)


class PadToSize(TensorOperation):
    """PadToSize(size, offset=None, fill_value=0, padding_mode=Border.CONSTANT): pad an <H, W>
    or <H, W, C> image (C 1 or 3) to size (an int: a square; or (height, width)). offset is
    (top, left), an int for both, or None / () to centre the image (the odd pixel at the bottom
    or right); fill_value and padding_mode as Pad."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        chk.type_check(size, (int, list, tuple), "size")
        if isinstance(size, int):
            chk.check_value(size, 1, 2147483647, "size")
            size = [size, size]
        else:
            if len(size) != 2:
                raise ValueError("The size must be a sequence of length 2.")
            for i, v in enumerate(size):
                chk.type_check(v, (int,), f"size{i}")
                chk.check_value(v, 1, 2147483647, f"size{i}")
        offsets = []
        if offset is not None:
            chk.type_check(offset, (int, list, tuple), "offset")
            if isinstance(offset, int):
                chk.check_value(offset, 0, 2147483647, "offset")
                offsets = [offset]
            else:
                if len(offset) not in (0, 2):
                    raise ValueError("The offset must be empty or a sequence of length 2.")
                for i, v in enumerate(offset):
                    chk.type_check(v, (int,), f"offset{i}")
                    chk.check_value(v, 0, 2147483647, f"offset{i}")
                offsets = list(offset)
        if isinstance(fill_value, tuple) and len(fill_value) == 3:
            for i, v in enumerate(fill_value):
                chk.type_check(v, (int,), f"fill_value[{i}]")
                chk.check_value(v, 0, 255, "fill_value")
            fill = list(fill_value)
        else:
            fill = chk.check_fill_value(fill_value)
        chk.type_check(padding_mode, (Border,), "padding_mode")
        self.size, self.offset, self.fill_value = list(size), offset, fill_value
        self.padding_mode = padding_mode
        self._op = _data.PadToSize(self.size, offsets, [float(v) for v in fill],
                                   padding_mode.value)


class RandomResize(TensorOperation):
    """RandomResize(size): Resize with an interpolation drawn from LINEAR, NEAREST, CUBIC and
    AREA (an int size scales the shorter side, as Resize)."""

    def __init__(self, size):
        self.size = size
        self._op = _data.RandomResize(*_bbox_size("RandomResize", size))


class BoundingBoxAugment(TensorOperation):
    """BoundingBoxAugment(transform, ratio=0.3): each box, with probability ratio, has its
    window of the image replaced by transform applied to it (resized back when the transform
    changes the size). transform is a built-in (C++) image transform."""

    def __init__(self, transform, ratio=0.3):
        chk.type_check(ratio, (float, int), "ratio")
        chk.check_value(ratio, 0., 1., "ratio")
        chain = _chain(transform)
        if chain is None:
            raise TypeError(f"Argument transform with value {transform} is not of type "
                            f"[<class 'TensorOperation'>], but got {type(transform)}.")
        self.transform, self.ratio = transform, ratio
        self._op = _data.BoundingBoxAugment(chain, float(ratio))


__all__ = ["ConvertMode", "ImageBatchFormat", "CutOut", "RandomLighting", "MixUpBatch", "CutMixBatch",
           "UniformAugment", "RandomErasing", "RandomCropWithBBox",
           "RandomHorizontalFlipWithBBox", "RandomVerticalFlipWithBBox", "ResizeWithBBox",
           "RandomResizeWithBBox", "RandomResizedCropWithBBox", "BoundingBoxAugment", "PadToSize",
           "RandomResize"]
