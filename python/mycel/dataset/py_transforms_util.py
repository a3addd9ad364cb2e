"""Image helper functions of MindSpore's ``mindspore.dataset.vision.py_transforms_util`` (the
module is also reachable under that name, as ``mycel.dataset.vision.py_transforms_util``).

The colour conversions work on numpy images, one (<H, W, 3> or <3, H, W>) or a batch
(<N, H, W, 3> or <N, 3, H, W>), with colorsys's conventions (values in [0, 1], hue in
[0, 1)), vectorised in numpy. The geometric helpers take PIL images, as MindSpore's.
"""
import numpy as np

from mycel.dataset.transforms import _is_pil
from mycel.dataset.vision_misc import _hsv_to_rgb, _rgb_to_hsv

augment_error_message = ("img should be PIL image. Got {}. Use Decode() for encoded data or "
                         "ToPIL() for decoded data.")


def is_pil(img):
    """Whether img is a PIL image."""
    return _is_pil(img)


def is_numpy(img):
    """Whether img is a numpy array."""
    return isinstance(img, np.ndarray)


def _check_batch(imgs, is_hwc):
    """The channel count check of the batched conversions; whether imgs is a batch."""
    if not isinstance(imgs, np.ndarray):
        raise TypeError(f"img should be NumPy image. Got {type(imgs)}.")
    if not isinstance(is_hwc, bool):
        raise TypeError(f"is_hwc should be bool type. Got {type(is_hwc)}.")
    if imgs.ndim not in (3, 4):
        raise TypeError(f"img shape should be (H, W, C)/(N, H, W, C)/(C ,H, W)/(N, C, H, W). "
                        f"Got {imgs.shape}.")
    channels = imgs.shape[-1] if is_hwc else imgs.shape[-3]
    if channels != 3:
        raise TypeError(f"img should be 3 channels RGB img. Got {channels} channels.")
    return imgs.ndim == 4


def _convert(img, is_hwc, fn):
    x = np.asarray(img, np.float64)
    x = x if is_hwc else np.moveaxis(x, -3, -1)
    out = fn(x)
    return out if is_hwc else np.moveaxis(out, -1, -3)


def rgb_to_hsv(np_rgb_img, is_hwc):
    """One RGB image to HSV (float64)."""
    return _convert(np_rgb_img, is_hwc, _rgb_to_hsv)


def hsv_to_rgb(np_hsv_img, is_hwc):
    """One HSV image to RGB (float64)."""
    return _convert(np_hsv_img, is_hwc, _hsv_to_rgb)


def rgb_to_hsvs(np_rgb_imgs, is_hwc):
    """RGB image(s), <H, W, 3> / <N, H, W, 3> (is_hwc) or <3, H, W> / <N, 3, H, W>, to HSV."""
    _check_batch(np_rgb_imgs, is_hwc)
    return rgb_to_hsv(np_rgb_imgs, is_hwc)


def hsv_to_rgbs(np_hsv_imgs, is_hwc):
    """HSV image(s) to RGB, shapes as rgb_to_hsvs."""
    _check_batch(np_hsv_imgs, is_hwc)
    return hsv_to_rgb(np_hsv_imgs, is_hwc)


def rgb_to_bgr(np_rgb_img, is_hwc):
    """One RGB image to BGR (the channel order reversed)."""
    return np_rgb_img[..., ::-1] if is_hwc else np_rgb_img[..., ::-1, :, :]


def rgb_to_bgrs(np_rgb_imgs, is_hwc):
    """RGB image(s) to BGR, shapes as rgb_to_hsvs."""
    _check_batch(np_rgb_imgs, is_hwc)
    return np.ascontiguousarray(rgb_to_bgr(np_rgb_imgs, is_hwc))


def _pil(img):
    if not _is_pil(img):
        raise TypeError(augment_error_message.format(type(img)))
    return img


def crop(img, top, left, height, width):
    """The window of a PIL image with top-left corner (top, left)."""
    return _pil(img).crop((left, top, left + width, top + height))


def center_crop(img, size):
    """The central window of size (an int, or (height, width)) of a PIL image."""
    h, w = (size, size) if isinstance(size, int) else size
    width, height = _pil(img).size
    return crop(img, int(round((height - h) / 2.0)), int(round((width - w) / 2.0)), h, w)


def horizontal_flip(img):
    """A PIL image mirrored left to right."""
    from PIL import Image
    return _pil(img).transpose(Image.FLIP_LEFT_RIGHT)


def vertical_flip(img):
    """A PIL image mirrored top to bottom."""
    from PIL import Image
    return _pil(img).transpose(Image.FLIP_TOP_BOTTOM)


def five_crop(img, size):
    """The (top left, top right, bottom left, bottom right, centre) crops of a PIL image."""
    from mycel.dataset.vision_policy import FiveCrop
    return FiveCrop(size)(_pil(img))


def ten_crop(img, size, use_vertical_flip=False):
    """five_crop of the image, then of the image flipped (vertically with use_vertical_flip)."""
    from mycel.dataset.vision_policy import TenCrop
    return TenCrop(size, use_vertical_flip)(_pil(img))


def grayscale(img, num_output_channels):
    """PIL's "L" conversion of a PIL image, with 1 or 3 equal channels."""
    from mycel.dataset.vision import Grayscale
    return Grayscale(num_output_channels)(_pil(img))


__all__ = ["is_pil", "is_numpy", "rgb_to_hsv", "hsv_to_rgb", "rgb_to_hsvs", "hsv_to_rgbs",
           "rgb_to_bgr", "rgb_to_bgrs", "crop", "center_crop", "horizontal_flip",
           "vertical_flip", "five_crop", "ten_crop", "grayscale"]
