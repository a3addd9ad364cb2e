"""Augmentation policies, blurs and multi-crops of ``mindspore.dataset.vision`` (part of
``mycel.dataset.vision``): AutoAugment (with AutoAugmentPolicy), RandAugment,
TrivialAugmentWide, RandomSelectSubpolicy, GaussianBlur, ConvertColor, RandomGrayscale, FiveCrop,
TenCrop and MixUp.

AutoAugment, RandAugment, TrivialAugmentWide, RandomSelectSubpolicy and GaussianBlur check
their arguments with MindSpore's messages and run in C++
(src/data/transforms_vision_policy.cc, transforms_vision_blur.cc), drawing from the row's
random stream (``ds.config.set_seed``). The policies take uint8 RGB <H, W, 3> images and apply
MindSpore's ops and magnitude tables (which follow torchvision's); GaussianBlur equals OpenCV's
cv2.GaussianBlur on uint8 images. RandomGrayscale, FiveCrop and TenCrop are MindSpore's Python
transforms: they take PIL images (numpy images too here) and give PIL images (arrays for
arrays); FiveCrop and TenCrop give a tuple of 5 or 10 images.
"""
from enum import Enum

import numpy as np

from mycel import _mycel
from mycel.dataset import _vision_checks as chk
from mycel.dataset.transforms import TensorOperation, _is_pil
from mycel.dataset.transforms_random import _RandomComposition, _chain, _py_seed
from mycel.dataset.vision import Inter, _check_interpolation

_data = _mycel._data


class AutoAugmentPolicy(str, Enum):
    """The policies AutoAugment learned on ImageNet, CIFAR-10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


_POLICY_INTERPOLATIONS = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)


def _policy_args(func, interpolation, fill_value):
    """The C++ name of the interpolation (NEAREST, BILINEAR, BICUBIC or AREA) and the fill as
    three values."""
    chk.check_inter(interpolation, "interpolation")
    if interpolation not in _POLICY_INTERPOLATIONS:
        raise ValueError(f"{func}: interpolation must be Inter.NEAREST, Inter.BILINEAR, "
                         f"Inter.BICUBIC or Inter.AREA, but got {interpolation!r}.")
    return _check_interpolation(func, interpolation), [float(v) for v in
                                                       chk.check_fill_value(fill_value)]


class AutoAugment(chk.ArrayOp):
    """AutoAugment(policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
    fill_value=0): one of the policy's 25 sub-policies at random, each of its two ops applied
    with its probability (a signed magnitude negated with probability 1/2). fill_value (an
    int, or an (R, G, B) tuple) fills what the shears, translations and rotations bring in."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        chk.type_check(policy, (AutoAugmentPolicy,), "policy")
        self.policy, self.interpolation, self.fill_value = policy, interpolation, fill_value
        interp, fill = _policy_args("AutoAugment", interpolation, fill_value)
        self._op = _data.AutoAugment(policy.value, interp, fill)


def _count(value, name, lo, hi=chk.FLOAT_MAX_INTEGER, right_open=False):
    chk.type_check(value, (int,), name)
    return chk.check_value(value, lo, hi, name, right_open=right_open)


class RandAugment(chk.ArrayOp):
    """RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST,
    fill_value=0): num_ops ops drawn uniformly (with replacement) from Identity, ShearX/Y,
    TranslateX/Y, Rotate, Brightness, Color, Contrast, Sharpness, Posterize, Solarize,
    AutoContrast and Equalize, each at bin `magnitude` of num_magnitude_bins (signed ones
    negated with probability 1/2)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=Inter.NEAREST, fill_value=0):
        self.num_ops = _count(num_ops, "num_ops", 0)
        self.num_magnitude_bins = _count(num_magnitude_bins, "num_magnitude_bins", 2)
        self.magnitude = _count(magnitude, "magnitude", 0, num_magnitude_bins, right_open=True)
        self.interpolation, self.fill_value = interpolation, fill_value
        interp, fill = _policy_args("RandAugment", interpolation, fill_value)
        self._op = _data.RandAugment(num_ops, magnitude, num_magnitude_bins, interp, fill)


class TrivialAugmentWide(chk.ArrayOp):
    """TrivialAugmentWide(num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
    one op drawn uniformly from RandAugment's, at a uniformly drawn bin, with TrivialAugment's
    wide ranges (shears to 0.99, translations to 32 pixels, rotations to 135 degrees)."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = _count(num_magnitude_bins, "num_magnitude_bins", 2)
        self.interpolation, self.fill_value = interpolation, fill_value
        interp, fill = _policy_args("TrivialAugmentWide", interpolation, fill_value)
        self._op = _data.TrivialAugmentWide(num_magnitude_bins, interp, fill)


class RandomSelectSubpolicy(_RandomComposition):
    """RandomSelectSubpolicy(policy): policy is a list of sub-policies, each a list of
    (transform, prob) pairs; one sub-policy is chosen uniformly and its transforms applied in
    order, each with its probability. Built-in transforms run in C++; with a Python callable
    among them the choice is made in Python from the same dataset seed."""

    def __init__(self, policy):
        chk.type_check(policy, (list,), "policy")
        if not policy:
            raise ValueError("policy can not be empty.")
        for i, sub in enumerate(policy):
            chk.type_check(sub, (list,), f"policy[{i}]")
            if not sub:
                raise ValueError(f"policy[{i}] can not be empty.")
            for j, step in enumerate(sub):
                if not isinstance(step, (list, tuple)) or len(step) != 2:
                    raise TypeError(f"policy[{i}][{j}] must be an (op, prob) pair, but got "
                                    f"{step!r}.")
                op, prob = step
                if not callable(op):
                    raise TypeError(f"op of (op, prob) in policy[{i}][{j}] is neither a "
                                    "c_transform op (TensorOperation) nor a callable pyfunc.")
                chk.type_check(prob, (float, int), f"prob of (op, prob) policy[{i}][{j}]")
                if not 0 <= prob <= 1:
                    raise ValueError(f"prob of (op, prob) policy[{i}][{j}] is not within the "
                                     "required interval of [0, 1].")
        self.policy = [[(op, float(p)) for op, p in sub] for sub in policy]
        chains = [[(_chain(op), p) for op, p in sub] for sub in self.policy]
        builtin = all(c is not None for sub in chains for c, _ in sub)
        self._op = _data.RandomSelectSubpolicy(chains) if builtin else None
        self._makes_pil = any(getattr(op, "_makes_pil", False)
                              for sub in self.policy for op, _ in sub)

    def _py_apply(self, rng, inputs):
        out = tuple(inputs)
        for op, prob in self.policy[int(rng.integers(len(self.policy)))]:
            if rng.random() < prob:
                res = op(*out)
                out = res if isinstance(res, tuple) else (res,)
        return out[0] if len(out) == 1 else out


def _kernel_pair(kernel_size):
    chk.type_check(kernel_size, (int, list, tuple), "kernel_size")
    sizes = [kernel_size] * 2 if isinstance(kernel_size, int) else list(kernel_size)
    if len(sizes) != 2:
        raise TypeError("Kernel size should be a single integer or a list/tuple (kernel_width, "
                        "kernel_height) of length 2.")
    for v in sizes:
        chk.type_check(v, (int,), "kernel_size")
        chk.check_value(v, 1, chk.FLOAT_MAX_INTEGER, "kernel_size")
        if v % 2 == 0:
            raise ValueError("Input kernel_size is not an odd value.")
    return sizes


class GaussianBlur(chk.ArrayOp):
    """GaussianBlur(kernel_size, sigma=None): blur with a Gaussian kernel of kernel_size (an
    odd int, or (width, height)) and standard deviation sigma (a positive number, or (sigma_x,
    sigma_y)); None takes ((k - 1) * 0.5 - 1) * 0.3 + 0.8 for each side k. Borders mirror
    without the edge pixel, as OpenCV; uint8 results equal cv2.GaussianBlur's."""

    def __init__(self, kernel_size, sigma=None):
        self.kernel_size, self.sigma = kernel_size, sigma
        kx, ky = _kernel_pair(kernel_size)
        if sigma is None:
            sx, sy = (((k - 1) * 0.5 - 1) * 0.3 + 0.8 for k in (kx, ky))
        else:
            chk.type_check(sigma, (int, float, list, tuple), "sigma")
            pair = [sigma] * 2 if isinstance(sigma, (int, float)) else list(sigma)
            if len(pair) != 2:
                raise TypeError("Sigma should be a single number or a list/tuple of length 2.")
            for v in pair:
                chk.type_check(v, (int, float), "sigma")
                chk.check_value(v, 0, chk.FLOAT_MAX_INTEGER, "sigma", left_open=True)
            sx, sy = (float(v) for v in pair)
        self._op = _data.GaussianBlur(kx, ky, sx, sy)


class ConvertColor(chk.ArrayOp):
    """ConvertColor(convert_mode): OpenCV's cvtColor for a vision.ConvertMode (channel
    reorders between RGB and BGR, alpha added or dropped, gray by RGB2GRAY's weights, given as
    <H, W>) on uint8, uint16 or float32 images."""

    def __init__(self, convert_mode):
        from mycel.dataset.vision_aug import ConvertMode
        self.convert_mode = chk.type_check(convert_mode, (ConvertMode,), "convert_mode")
        self._op = _data.ConvertColor(int(convert_mode))


# ----- MindSpore's Python (PIL) transforms -----

def _to_pil(func, img):
    """A PIL image, or a uint8 numpy image (<H, W> or <H, W, 1|3>) read as one; the flag says
    whether the result goes back to numpy."""
    from PIL import Image
    if _is_pil(img):
        return img, False
    if not isinstance(img, np.ndarray):
        raise TypeError(f"{func}: img should be PIL image or a numpy array. Got {type(img)}. "
                        "Use Decode() for encoded data or ToPIL() for decoded data.")
    a = img[:, :, 0] if img.ndim == 3 and img.shape[2] == 1 else img
    if a.dtype != np.uint8 or not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] == 3)):
        raise TypeError(f"{func}: a numpy image must be uint8 <H, W> or <H, W, 1|3>, but got "
                        f"{img.dtype} with shape {list(img.shape)}.")
    return Image.fromarray(np.ascontiguousarray(a)), True


def _back(img, to_numpy):
    return np.asarray(img) if to_numpy else img


class RandomGrayscale(TensorOperation):
    """RandomGrayscale(prob=0.1): with probability prob, PIL's grayscale conversion ("L"),
    with 3 equal channels for a colour image and 1 for a one-channel one."""

    def __init__(self, prob=0.1):
        chk.type_check(prob, (float, int), "prob")
        self.prob = chk.check_value(float(prob), 0.0, 1.0, "prob")
        self._makes_pil = True

    @property
    def _random(self):
        return True

    def __call__(self, img):
        from PIL import Image
        pil, to_numpy = _to_pil("RandomGrayscale", img)
        rng = np.random.default_rng(_py_seed(self))
        if not rng.random() < self.prob:
            return img
        gray = pil.convert("L")
        if pil.mode != "L":
            gray = Image.merge("RGB", [gray] * 3)
        return _back(gray, to_numpy)


def _crop_size(size):
    """(height, width): MindSpore's checks and messages."""
    if isinstance(size, int) and not isinstance(size, bool):
        chk.check_value(size, 1, chk.FLOAT_MAX_INTEGER)
        return size, size
    if isinstance(size, (list, tuple)) and len(size) == 2:
        for v in size:
            chk.type_check(v, (int,), "size")
            chk.check_value(v, 1, chk.FLOAT_MAX_INTEGER)
        return tuple(size)
    raise TypeError("Size should be a single integer or a list/tuple (h, w) of length 2.")


def _five(img, h, w):
    """(top_left, top_right, bottom_left, bottom_right, center) crops of a PIL image."""
    width, height = img.size
    if h > height or w > width:
        raise ValueError(f"Crop size {(h, w)} is larger than input image size "
                         f"{(height, width)}.")
    top, left = int(round((height - h) / 2.0)), int(round((width - w) / 2.0))
    return (img.crop((0, 0, w, h)), img.crop((width - w, 0, width, h)),
            img.crop((0, height - h, w, height)), img.crop((width - w, height - h, width, height)),
            img.crop((left, top, left + w, top + h)))


class FiveCrop(TensorOperation):
    """FiveCrop(size): the four corner crops and the central crop of size (an int: a square),
    as a tuple (top left, top right, bottom left, bottom right, centre)."""

    def __init__(self, size):
        self.size = size
        self._hw = _crop_size(size)
        self._makes_pil = True

    def __call__(self, img):
        pil, to_numpy = _to_pil("FiveCrop", img)
        return tuple(_back(c, to_numpy) for c in _five(pil, *self._hw))


class TenCrop(TensorOperation):
    """TenCrop(size, use_vertical_flip=False): FiveCrop's five crops, then the five of the image
    flipped left-right (top-bottom with use_vertical_flip), as a tuple of 10."""

    def __init__(self, size, use_vertical_flip=False):
        self.size = size
        self._hw = _crop_size(size)
        self.use_vertical_flip = chk.type_check(use_vertical_flip, (bool,), "use_vertical_flip")
        self._makes_pil = True

    def __call__(self, img):
        from PIL import Image
        pil, to_numpy = _to_pil("TenCrop", img)
        flipped = pil.transpose(Image.FLIP_TOP_BOTTOM if self.use_vertical_flip
                                else Image.FLIP_LEFT_RIGHT)
        crops = _five(pil, *self._hw) + _five(flipped, *self._hw)
        return tuple(_back(c, to_numpy) for c in crops)


class MixUp(TensorOperation):
    """MixUp(batch_size, alpha, is_single=True): MindSpore's Python MixUp of a batch of images
    <N, ...> and one-hot labels <N, K> (after ``batch``): lambda_i ~ Beta(alpha, alpha) per
    sample; with is_single, image i becomes lambda_i * image i + (1 - lambda_i) * image i+1
    (the batch shifted circularly), else it is mixed with the previous batch's result (the
    first batch passes unchanged). Labels mix alike; results are float64, as numpy computes."""

    def __init__(self, batch_size, alpha, is_single=True):
        chk.type_check(batch_size, (int,), "batch_size")
        if batch_size <= 0:
            raise ValueError(f"Input batch_size must be greater than 0, but got {batch_size}.")
        chk.type_check(alpha, (int, float), "alpha")
        if alpha <= 0:
            raise ValueError(f"Input alpha must be greater than 0, but got {alpha}.")
        self.batch_size, self.alpha = batch_size, float(alpha)
        self.is_single = chk.type_check(is_single, (bool,), "is_single")
        self._prev = None

    @property
    def _random(self):
        return True

    def __call__(self, image, label):
        img, lab = np.asarray(image), np.asarray(label)
        n = self.batch_size
        if img.ndim < 1 or img.shape[0] != n or lab.ndim < 1 or lab.shape[0] != n:
            raise ValueError(f"MixUp: the image and label batches must have batch_size = {n} "
                             f"rows, but got shapes {list(img.shape)} and {list(lab.shape)}.")
        lam = np.random.default_rng(_py_seed(self)).beta(self.alpha, self.alpha, n)
        if self.is_single:
            other_img, other_lab = np.roll(img, -1, axis=0), np.roll(lab, -1, axis=0)
        elif self._prev is None:
            lam, other_img, other_lab = np.ones(n), 0.0, 0.0
        else:
            other_img, other_lab = self._prev
        li = lam.reshape((n,) + (1,) * (img.ndim - 1))
        ll = lam.reshape((n,) + (1,) * (lab.ndim - 1))
        out = li * img + (1 - li) * other_img, ll * lab + (1 - ll) * other_lab
        if not self.is_single:
            self._prev = out
        return out


__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide",
           "RandomSelectSubpolicy", "GaussianBlur", "RandomGrayscale", "FiveCrop", "TenCrop",
           "MixUp", "ConvertColor"]
