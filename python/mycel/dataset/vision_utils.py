"""``mindspore.dataset.vision.utils`` (importable as ``mycel.dataset.vision.utils``): the Inter
and Border enums of the vision transforms, and image queries: get_image_size and
get_image_num_channels of a numpy HWC/HW image or a PIL image."""
import numpy as np

from mycel.dataset.vision import Border, Inter  # noqa: F401

__all__ = ["Inter", "Border", "get_image_size", "get_image_num_channels"]


def _image_shape(func, image):
    """(H, W, C) of a numpy <H, W[, C]> array or a PIL image (C = 1 for 2-D arrays)."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover (PIL is a test dependency only)
        Image = None
    if Image is not None and isinstance(image, Image.Image):
        return image.height, image.width, len(image.getbands())
    if not isinstance(image, np.ndarray):
        raise TypeError("Input image is not of type <class 'numpy.ndarray'> or "
                        f"<class 'PIL.Image.Image'>, but got: {type(image)}.")
    if image.ndim < 2:
        raise RuntimeError(f"{func}: invalid parameter, image should have at least two "
                           f"dimensions, but got: {image.ndim}")
    return image.shape[0], image.shape[1], image.shape[2] if image.ndim > 2 else 1


def get_image_size(image):
    """[height, width] of an image (a numpy <H, W[, C]> array or a PIL image). TypeError for
    other types, RuntimeError for an array of fewer than two dimensions."""
    h, w, _ = _image_shape("GetImageSize", image)
    return [h, w]


def get_image_num_channels(image):
    """The channels of an image: C of a numpy <H, W, C> array (1 for <H, W>), the bands of a
    PIL image. TypeError for other types, RuntimeError for fewer than two dimensions."""
    return _image_shape("GetImageNumChannels", image)[2]


from mycel.dataset.vision_misc import SliceMode  # noqa: E402,F401  (SlicePatches' enum)

__all__.append("SliceMode")
