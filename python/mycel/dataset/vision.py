"""Image transforms, MindSpore's ``mindspore.dataset.vision``: Rescale, Normalize, HWC2CHW.

Images are numpy arrays, HWC (<H, W, C>) or <H, W>. Like the transforms in transforms.py they
run on one image or, inside the pipeline, on a whole batch at once with identical results.
Rescale and Normalize compute in float32 and return float32, as MindSpore.
"""
import numpy as np

from mycel.dataset._validate import check_bool, check_number
from mycel.dataset.transforms import TensorOperation


def _check_image(func, x, lead, ranks=(2, 3)):
    """The image's shape (without batch axes); ValueError when its rank is not in ranks."""
    sample = x.shape[lead:]
    if len(sample) not in ranks:
        raise ValueError(f"{func}: the image must be <H, W> or <H, W, C>, but got shape "
                         f"{list(sample)}.")
    return sample


class Rescale(TensorOperation):
    """Rescale(rescale, shift): ``image * rescale + shift`` in float32."""

    def __init__(self, rescale, shift):
        self.rescale = check_number("Rescale", "rescale", rescale)
        self.shift = check_number("Rescale", "shift", shift)

    def _compute(self, x, lead):
        if x.dtype.kind not in "biuf":
            raise TypeError(f"Rescale: the image must be numeric, but got {x.dtype}.")
        out = np.multiply(x, np.float32(self.rescale), dtype=np.float32)
        out += np.float32(self.shift)
        return out


class Normalize(TensorOperation):
    """Normalize(mean, std, is_hwc=True): ``(image - mean) / std`` per channel, in float32.

    mean and std are sequences with one value per channel (or one value for all channels);
    is_hwc=False takes <C, H, W> images. As MindSpore, mean must be in [0, 255] and std in
    (0, 255]."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = self._values("mean", mean, 0.0)
        self.std = self._values("std", std, None)
        if len(self.mean) != len(self.std):
            raise ValueError(f"Normalize: mean and std must have the same length, but got "
                             f"{len(self.mean)} and {len(self.std)}.")
        self.is_hwc = check_bool("Normalize", "is_hwc", is_hwc)

    @staticmethod
    def _values(name, values, low):
        if not isinstance(values, (list, tuple)) or not values:
            raise TypeError(f"Normalize: {name} must be a non-empty list or tuple of numbers, "
                            f"but got {values!r}.")
        out = [check_number("Normalize", name, v) for v in values]
        for v in out:
            if not ((v >= low) if low is not None else (v > 0)) or v > 255:
                bounds = "[0, 255]" if low is not None else "(0, 255]"
                raise ValueError(f"Normalize: {name} values must be in {bounds}, but got {v}.")
        return out

    def _compute(self, x, lead):
        sample = _check_image("Normalize", x, lead)
        channels = 1 if len(sample) == 2 else sample[-1 if self.is_hwc else 0]
        if len(self.mean) not in (1, channels):
            raise ValueError(f"Normalize: the image has {channels} channels but mean and std "
                             f"have {len(self.mean)} values (shape {list(sample)}).")
        shape = (-1,) if self.is_hwc or len(sample) == 2 else (-1, 1, 1)
        mean = np.asarray(self.mean, np.float32).reshape(shape)
        std = np.asarray(self.std, np.float32).reshape(shape)
        out = np.subtract(x, mean, dtype=np.float32)
        out /= std
        return out


class HWC2CHW(TensorOperation):
    """HWC2CHW(): transpose an <H, W, C> image to <C, H, W> (<H, W> images stay as they are)."""

    def _compute(self, x, lead):
        sample = _check_image("HWC2CHW", x, lead)
        if len(sample) == 2:
            return x
        return x.transpose(tuple(range(lead)) + (lead + 2, lead, lead + 1))
