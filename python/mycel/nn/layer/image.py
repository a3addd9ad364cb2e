"""Image and regularisation layers of MindSpore's ``mindspore.nn``: CentralCrop (the central
part of an image batch) and L1Regularizer (scale * sum |w|). Both compile in GRAPH mode: the
crop box comes from the static shape at compile time."""
import math
import numbers

from mycel.nn.cell import Cell
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


@constexpr
def _crop_box(shape, fraction):
    """(top, bottom, left, right) of the central crop of an image [C, H, W] or [N, C, H, W]:
    MindSpore's box, start = int((size - size * fraction) / 2) and size - 2 * start kept."""
    if len(shape) not in (3, 4):
        raise ValueError(f"For 'CentralCrop', the image must be [C, H, W] or [N, C, H, W], but "
                         f"got rank {len(shape)} (shape {list(shape)}).")
    h, w = shape[-2], shape[-1]
    top = int((float(h) - float(h) * fraction) / 2)
    left = int((float(w) - float(w) * fraction) / 2)
    return top, h - top, left, w - left


class CentralCrop(Cell):
    """CentralCrop(central_fraction): keeps the central fraction (in (0, 1]) of each image's
    height and width; images [C, H, W] or [N, C, H, W]."""

    def __init__(self, central_fraction):
        super().__init__()
        if isinstance(central_fraction, bool) or not isinstance(central_fraction,
                                                                numbers.Real):
            raise TypeError(f"For 'CentralCrop', the 'central_fraction' must be a float, but got "
                            f"{type(central_fraction).__name__}.")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' must be in (0, 1], but "
                             f"got {central_fraction}.")
        self.central_fraction = float(central_fraction)

    def construct(self, image):
        top, bottom, left, right = _crop_box(image.shape, self.central_fraction)
        return image[..., top:bottom, left:right]


class L1Regularizer(Cell):
    """L1Regularizer(scale): scale * sum(|weights|), a scalar of the weights' dtype; scale a
    finite number > 0."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
            raise TypeError(f"For 'L1Regularizer', the 'scale' must be an int or float, but got "
                            f"{type(scale).__name__}.")
        if not math.isfinite(scale) or scale <= 0:
            raise ValueError(f"For 'L1Regularizer', the 'scale' must be a finite number > 0, but "
                             f"got {scale}.")
        self.scale = float(scale)
        self.abs = prim("Abs")
        self.sum = prim("ReduceSum", keep_dims=False)

    def construct(self, weights):
        return self.sum(self.abs(weights), ()) * self.scale
