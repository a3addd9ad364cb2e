"""Image and regularisation layers of MindSpore's ``mindspore.nn``: SSIM, CentralCrop (the central
part of an image batch) and L1Regularizer (scale * sum |w|). All compile in GRAPH mode (the
crop box comes from the static shape at compile time)."""
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


@constexpr
def _ssim_check(shape1, shape2, dtype1, dtype2):
    if len(shape1) != 4:
        raise ValueError(f"For 'SSIM', the images must be [N, C, H, W], but got rank "
                         f"{len(shape1)} (shape {list(shape1)}).")
    if tuple(shape1) != tuple(shape2):
        raise TypeError(f"For 'SSIM', the two images must have one shape, but got "
                        f"{list(shape1)} and {list(shape2)}.")
    if dtype1 != dtype2:
        raise TypeError(f"For 'SSIM', the two images must have one dtype, but got {dtype1} and "
                        f"{dtype2}.")
    return shape1[0] * shape1[1], shape1[2], shape1[3]


def _gaussian_window(size, sigma):
    """The normalised size x size Gaussian window, as a [1, 1, size, size] float32 array."""
    import numpy as np
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-(x * x) / (2.0 * sigma * sigma))
    g /= g.sum()
    return np.outer(g, g).astype(np.float32).reshape(1, 1, size, size)


class SSIM(Cell):
    """SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2): the
    structural similarity of two image batches [N, C, H, W] (one shape and dtype), one value
    per image: the mean over channels and positions of
    (2 mu1 mu2 + c1)(2 s12 + c2) / ((mu1^2 + mu2^2 + c1)(s1 + s2 + c2)), the means and
    (co)variances taken under a Gaussian window (filter_size, filter_sigma) at every position
    where it fits ('valid'), c1 = (k1 max_val)^2, c2 = (k2 max_val)^2."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        for name, v in (("max_val", max_val), ("filter_sigma", filter_sigma), ("k1", k1),
                        ("k2", k2)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"For 'SSIM', the '{name}' must be a number, but got "
                                f"{type(v).__name__}.")
            if not v > 0:
                raise ValueError(f"For 'SSIM', the '{name}' must be positive, but got {v}.")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int):
            raise TypeError(f"For 'SSIM', the 'filter_size' must be an int, but got "
                            f"{type(filter_size).__name__}.")
        if filter_size < 1:
            raise ValueError(f"For 'SSIM', the 'filter_size' must be >= 1, but got "
                             f"{filter_size}.")
        from mycel import _mycel as _C
        self.c1 = float((k1 * max_val) ** 2)
        self.c2 = float((k2 * max_val) ** 2)
        self.window = _C.Tensor(_gaussian_window(filter_size, float(filter_sigma)))
        self.conv = prim("Conv2D", out_channel=1, kernel_size=(filter_size, filter_size),
                         pad_mode="valid")
        self.cast = prim("Cast", dtype=_C.float32)
        self.reshape = prim("Reshape")
        self.mean = prim("ReduceMean", keep_dims=False)

    def construct(self, img1, img2):
        nc, h, w = _ssim_check(img1.shape, img2.shape, img1.dtype, img2.dtype)
        n = img1.shape[0]
        x = self.reshape(self.cast(img1), (nc, 1, h, w))
        y = self.reshape(self.cast(img2), (nc, 1, h, w))
        mu1, mu2 = self.conv(x, self.window), self.conv(y, self.window)
        s1 = self.conv(x * x, self.window) - mu1 * mu1
        s2 = self.conv(y * y, self.window) - mu2 * mu2
        s12 = self.conv(x * y, self.window) - mu1 * mu2
        lum = (2.0 * mu1 * mu2 + self.c1) / (mu1 * mu1 + mu2 * mu2 + self.c1)
        cs = (2.0 * s12 + self.c2) / (s1 + s2 + self.c2)
        per = self.reshape(lum * cs, (n, -1))
        return self.mean(per, (1,))
