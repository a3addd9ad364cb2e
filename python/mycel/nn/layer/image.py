"""Image and regularisation layers of MindSpore's ``mindspore.nn``: SSIM, MSSSIM, PSNR,
CentralCrop (the central
part of an image batch) and L1Regularizer (scale * sum |w|). All compile in GRAPH mode (the
crop box comes from the static shape at compile time)."""
import math
import numbers

from mycel import _mycel as _C
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
def _ssim_check(name, shape1, shape2, dtype1, dtype2, allowed, dtype_first=False):
    """(N, C, H, W) of two image batches of one shape and dtype, and the dtype's scale: 1 for
    floats, 1 / 255 for uint8 (images and max_val are divided by the dtype's largest value,
    as MindSpore does). Two shapes that differ are a ValueError, two dtypes a TypeError (as
    SameTypeShape); dtype_first checks img1's dtype before the ranks (SSIM's order)."""
    if dtype_first and str(dtype1) not in allowed:
        raise TypeError(f"For '{name}', the images' dtype must be one of {list(allowed)}, but got "
                        f"{dtype1}.")
    for shape in (shape1, shape2):
        if len(shape) != 4:
            raise ValueError(f"For '{name}', the images must be [N, C, H, W], but got rank "
                             f"{len(shape)} (shape {list(shape)}).")
    if tuple(shape1) != tuple(shape2):
        raise ValueError(f"For '{name}', the two images must have one shape, but got "
                       f"{list(shape1)} and {list(shape2)}.")
    if dtype1 != dtype2:
        raise TypeError(f"For '{name}', the two images must have one dtype, but got {dtype1} and "
                        f"{dtype2}.")
    if str(dtype1) not in allowed:
        raise TypeError(f"For '{name}', the images' dtype must be one of {list(allowed)}, but got "
                        f"{dtype1}.")
    return tuple(shape1), (1.0 / 255.0 if str(dtype1) == "UInt8" else 1.0)


def _gaussian_window(size, sigma):
    """The normalised Gaussian window as a [1, 1, size, size] float32 array, over MindSpore's
    offsets -size//2 + 1 ... size//2 (centred for odd sizes)."""
    import numpy as np
    x = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float64)
    g = np.exp(-(x[:, None] ** 2 + x[None, :] ** 2) / (2.0 * sigma * sigma))
    return (g / g.sum()).astype(np.float32).reshape(1, 1, size, size)


def _check_ssim_args(name, max_val, filter_size, filter_sigma, k1, k2):
    if isinstance(max_val, bool) or not isinstance(max_val, numbers.Real):
        raise TypeError(f"For '{name}', the 'max_val' must be an int or float, but got "
                        f"{type(max_val).__name__}.")
    if not max_val > 0:
        raise ValueError(f"For '{name}', the 'max_val' must be positive, but got {max_val}.")
    if isinstance(filter_size, bool) or not isinstance(filter_size, int):
        raise TypeError(f"For '{name}', the 'filter_size' must be an int, but got "
                        f"{type(filter_size).__name__}.")
    if filter_size < 1:
        raise ValueError(f"For '{name}', the 'filter_size' must be >= 1, but got {filter_size}.")
    for arg, v in (("filter_sigma", filter_sigma), ("k1", k1), ("k2", k2)):
        if not isinstance(v, float):
            raise TypeError(f"For '{name}', the '{arg}' must be a float, but got "
                            f"{type(v).__name__}.")
    if not filter_sigma > 0:
        raise ValueError(f"For '{name}', the 'filter_sigma' must be positive, but got "
                         f"{filter_sigma}.")


class _SSIMBase(Cell):
    """The Gaussian-window statistics both SSIM cells use: ``_ssim_cs(x, y, c1, c2)`` of
    float32 images [N, C, H, W] gives the per-image, per-channel means over the positions
    where the window fits ('valid') of the SSIM map and of its contrast-structure factor cs:
    ssim = (2 mu1 mu2 + c1)(2 s12 + c2) / ((mu1^2 + mu2^2 + c1)(s1 + s2 + c2)),
    cs = (2 s12 + c2) / (s1 + s2 + c2), each [N, C]."""

    def __init__(self, name, max_val, filter_size, filter_sigma, k1, k2):
        super().__init__()
        _check_ssim_args(name, max_val, filter_size, filter_sigma, k1, k2)
        from mycel import _mycel as _C
        self.max_val, self.k1, self.k2 = float(max_val), float(k1), float(k2)
        self.window = _C.Tensor(_gaussian_window(filter_size, float(filter_sigma)))
        self.conv = prim("Conv2D", out_channel=1, kernel_size=(filter_size, filter_size),
                         pad_mode="valid")
        self.cast = prim("Cast", dtype=_C.float32)
        self.reshape = prim("Reshape")
        self.mean = prim("ReduceMean", keep_dims=False)

    def _ssim_cs(self, x, y, c1, c2):
        n, c, h, w = x.shape
        x = self.reshape(x, (n * c, 1, h, w))
        y = self.reshape(y, (n * c, 1, h, w))
        mu1, mu2 = self.conv(x, self.window), self.conv(y, self.window)
        s1 = self.conv(x * x, self.window) - mu1 * mu1
        s2 = self.conv(y * y, self.window) - mu2 * mu2
        s12 = self.conv(x * y, self.window) - mu1 * mu2
        v1, v2 = 2.0 * s12 + c2, s1 + s2 + c2
        ssim = (2.0 * mu1 * mu2 + c1) * v1 / ((mu1 * mu1 + mu2 * mu2 + c1) * v2)
        return (self.mean(self.reshape(ssim, (n, c, -1)), (2,)),
                self.mean(self.reshape(v1 / v2, (n, c, -1)), (2,)))


class SSIM(_SSIMBase):
    """SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2): the
    structural similarity of two float16/float32 image batches [N, C, H, W] (one shape and
    dtype), one value per image: the mean over channels and positions of the SSIM map under a
    Gaussian window (filter_size, filter_sigma; 'valid' positions), with c1 = (k1 max_val)^2
    and c2 = (k2 max_val)^2 (``_SSIMBase`` has the formula)."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__("SSIM", max_val, filter_size, filter_sigma, k1, k2)

    def construct(self, img1, img2):
        _ssim_check("SSIM", img1.shape, img2.shape, img1.dtype, img2.dtype,
                    ("Float16", "Float32"), True)
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        ssim, _ = self._ssim_cs(self.cast(img1), self.cast(img2), c1, c2)
        return self.mean(ssim, (1,))


class MSSSIM(_SSIMBase):
    """MSSSIM(max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
    filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2): multi-scale SSIM (Wang,
    Simoncelli and Bovik, 2003) as MindSpore computes it. At each of len(power_factors)
    scales (the images halved by a 2x2 average pool between scales) the per-channel cs of
    ``_SSIMBase``; the result per image and channel is prod_j relu(cs_j)^w_j over all but the
    last scale times relu(ssim_last)^w_last, then the mean over channels: [N]. Images float16,
    float32, float64 or uint8 (uint8 images and max_val are divided by 255)."""

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__("MSSSIM", max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)) or not power_factors:
            raise TypeError(f"For 'MSSSIM', the 'power_factors' must be a non-empty tuple or "
                            f"list, but got {power_factors!r}.")
        self.power_factors = tuple(float(p) for p in power_factors)
        self.pool = prim("AvgPool", kernel_size=(2, 2), strides=(2, 2), pad_mode="valid")
        self.relu = prim("ReLU")

    def construct(self, img1, img2):
        _, scale = _ssim_check("MSSSIM", img1.shape, img2.shape, img1.dtype, img2.dtype,
                               ("Float16", "Float32", "Float64", "UInt8"))
        mv = self.max_val * scale
        c1, c2 = (self.k1 * mv) ** 2, (self.k2 * mv) ** 2
        x, y = self.cast(img1) * scale, self.cast(img2) * scale
        out = 1.0
        last = len(self.power_factors) - 1
        for j, wj in enumerate(self.power_factors):
            ssim, cs = self._ssim_cs(x, y, c1, c2)
            term = ssim if j == last else cs
            out = out * prim("Pow")(self.relu(term), term * 0.0 + wj)
            if j != last:
                x, y = self.pool(x), self.pool(y)
        return self.mean(out, (1,))


class PSNR(Cell):
    """PSNR(max_val=1.0)(img1, img2): the peak signal-to-noise ratio of each image pair of two
    [N, C, H, W] batches, 10 log10(max_val^2 / mean((img1 - img2)^2)) over C, H, W (shape
    [N], float32; inf for identical images). max_val is the largest pixel value (255 for
    uint8 images in [0, 255])."""

    def __init__(self, max_val=1.0):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, numbers.Real):
            raise TypeError(f"For 'PSNR', the 'max_val' must be an int or float, but got "
                            f"{type(max_val).__name__}.")
        if not max_val > 0:
            raise ValueError(f"For 'PSNR', the 'max_val' must be positive, but got {max_val}.")
        self.max_val = float(max_val)

    def construct(self, img1, img2):
        _ssim_check("PSNR", img1.shape, img2.shape, img1.dtype, img2.dtype,
                    ("Float16", "Float32", "Float64", "UInt8"))
        a = prim("Cast", dtype=_C.float32)(img1)
        b = prim("Cast", dtype=_C.float32)(img2)
        d = a - b
        mse = prim("ReduceMean", keep_dims=False)(d * d, (1, 2, 3))
        return 10.0 * prim("Log")(self.max_val * self.max_val / mse) / math.log(10.0)
