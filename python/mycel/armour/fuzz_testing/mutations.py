"""The input mutations of the fuzzer, on one image [C, H, W] or [H, W] (float, numpy):
pixel-value transforms (Contrast, Brightness, GaussianBlur, GaussianNoise, UniformNoise,
SaltAndPepperNoise), affine transforms (Translate, Scale, Shear, Rotate; bilinear resampling,
zero outside the image) and adversarial steps (FGSM, PGD) through mycel's grad of the loss
with respect to the input. Each takes a numpy random generator and its parameters by name,
as an entry of MindArmour's mutate_config gives them."""
import math

import numpy as np

PIXEL = ("Contrast", "Brightness", "GaussianBlur", "GaussianNoise", "UniformNoise",
         "SaltAndPepperNoise")
AFFINE = ("Translate", "Scale", "Shear", "Rotate")
ADVERSARIAL = ("FGSM", "PGD")


def _planes(img):
    """img as [C, H, W] and a function giving the result back in img's layout."""
    if img.ndim == 2:
        return img[None], lambda x: x[0]
    return img, lambda x: x


def contrast(img, rng, alpha=1.0, beta=0.0):
    """alpha * img + beta."""
    return img * alpha + beta


def brightness(img, rng, factor=0.0):
    """img + factor * (max - min) of the image."""
    return img + factor * float(img.max() - img.min())


def gaussian_blur(img, rng, ksize=3):
    """A separable Gaussian blur with a ksize x ksize kernel (sigma = ksize / 6, edges
    replicated)."""
    ksize = int(ksize)
    if ksize <= 1:
        return img.copy()
    planes, back = _planes(img)
    r = ksize // 2
    t = np.arange(-r, r + 1, dtype=np.float64)
    k = np.exp(-t * t / (2 * (ksize / 6.0) ** 2))
    k /= k.sum()
    pad = np.pad(planes, ((0, 0), (r, r), (r, r)), mode="edge")
    h, w = planes.shape[1:]
    rows = sum(k[i] * pad[:, i:i + h, :] for i in range(2 * r + 1))
    out = sum(k[i] * rows[:, :, i:i + w] for i in range(2 * r + 1))
    return back(out.astype(img.dtype))


def gaussian_noise(img, rng, factor=0.1):
    """img + N(0, (factor * (max - min))^2) per pixel."""
    return img + rng.normal(0.0, factor * float(img.max() - img.min()), img.shape)


def uniform_noise(img, rng, factor=0.1):
    """img + U(-a, a) per pixel with a = factor * (max - min)."""
    a = factor * float(img.max() - img.min())
    return img + rng.uniform(-a, a, img.shape)


def salt_and_pepper_noise(img, rng, factor=0.05):
    """A fraction `factor` of the pixels (all channels) set to the image's min or max."""
    planes, back = _planes(img.copy())
    mask = rng.random_sample(planes.shape[1:]) < factor
    salt = rng.random_sample(planes.shape[1:]) < 0.5
    lo, hi = planes.min(), planes.max()
    planes[:, mask & salt] = hi
    planes[:, mask & ~salt] = lo
    return back(planes)


def _affine(img, matrix):
    """img resampled at matrix @ (x, y, 1) of each output pixel (bilinear, 0 outside), with
    coordinates centred on the image."""
    planes, back = _planes(img)
    c, h, w = planes.shape
    ys, xs = np.meshgrid(np.arange(h) - (h - 1) / 2.0, np.arange(w) - (w - 1) / 2.0,
                         indexing="ij")
    src = np.tensordot(matrix, np.stack([xs, ys, np.ones_like(xs)]), axes=1)
    sx, sy = src[0] + (w - 1) / 2.0, src[1] + (h - 1) / 2.0
    x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    fx, fy = sx - x0, sy - y0
    out = np.zeros_like(planes, dtype=np.float64)
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            vals = planes[:, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
            out += vals * (wy * wx * ok)
    return back(out.astype(img.dtype))


def translate(img, rng, x_bias=0.0, y_bias=0.0):
    """Shifted by x_bias * width and y_bias * height pixels."""
    h, w = img.shape[-2:]
    return _affine(img, np.array([[1.0, 0.0, -x_bias * w], [0.0, 1.0, -y_bias * h]]))


def scale(img, rng, factor_x=1.0, factor_y=1.0):
    """Scaled about the centre."""
    return _affine(img, np.array([[1.0 / factor_x, 0.0, 0.0], [0.0, 1.0 / factor_y, 0.0]]))


def shear(img, rng, factor=0.0, direction="horizontal"):
    """Sheared about the centre (x += factor * y, or y += factor * x)."""
    m = [[1.0, -factor, 0.0], [0.0, 1.0, 0.0]] if direction == "horizontal" else \
        [[1.0, 0.0, 0.0], [-factor, 1.0, 0.0]]
    return _affine(img, np.array(m))


def rotate(img, rng, angle=0.0):
    """Rotated by `angle` degrees about the centre, counter-clockwise as displayed (rows
    down)."""
    a = math.radians(angle)
    return _affine(img, np.array([[math.cos(a), -math.sin(a), 0.0],
                                  [math.sin(a), math.cos(a), 0.0]]))


TRANSFORMS = {"Contrast": contrast, "Brightness": brightness, "GaussianBlur": gaussian_blur,
              "GaussianNoise": gaussian_noise, "UniformNoise": uniform_noise,
              "SaltAndPepperNoise": salt_and_pepper_noise, "Translate": translate,
              "Scale": scale, "Shear": shear, "Rotate": rotate}

PARAMS = {"Contrast": {"alpha", "beta"}, "Brightness": {"factor"}, "GaussianBlur": {"ksize"},
          "GaussianNoise": {"factor"}, "UniformNoise": {"factor"},
          "SaltAndPepperNoise": {"factor"}, "Translate": {"x_bias", "y_bias"},
          "Scale": {"factor_x", "factor_y"}, "Shear": {"factor", "direction"},
          "Rotate": {"angle"}, "FGSM": {"eps", "bounds"},
          "PGD": {"eps", "eps_iter", "nb_iter", "bounds"}}
