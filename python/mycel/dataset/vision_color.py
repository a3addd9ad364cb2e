"""Colour transforms of ``mindspore.dataset.vision`` (part of ``mycel.dataset.vision``):
AdjustBrightness, AdjustContrast, AdjustSaturation, AdjustHue, AdjustSharpness, AdjustGamma,
AutoContrast, Equalize, Posterize, Solarize, and the random flavours RandomColorAdjust,
RandomColor, RandomSharpness, RandomAdjustSharpness, RandomAutoContrast, RandomEqualize,
RandomInvert, RandomPosterize, RandomSolarize.

They run in C++ (src/data/transforms_vision_color.cc) on uint8 RGB images <H, W, 3> (some take
<H, W> or one channel, and brightness / contrast / saturation also uint16 and float32), with the
OpenCV arithmetic MindSpore uses; sharpness is PIL's ImageEnhance.Sharpness. Random ones draw
from the pipeline's per-row stream (``ds.config.set_seed``). A PIL image is processed as its
array and given back as a PIL image.
"""
from mycel import _mycel
from mycel.dataset import _vision_checks as chk

_data = _mycel._data


class _Adjust(chk.ArrayOp):
    _kind = ""
    _arg = ""

    _unnamed = False  # MindSpore's message names the argument for some (its tests look)

    def _setup(self, factor):
        value = chk.number(factor, self._arg)
        chk.check_value(value, 0, chk.FLOAT_MAX_INTEGER, "" if self._unnamed else self._arg)
        setattr(self, self._arg, value)
        self._op = _data.AdjustColor(self._kind, getattr(self, self._arg))


class AdjustBrightness(_Adjust):
    """AdjustBrightness(brightness_factor): multiply every value by the factor (>= 0)."""
    _kind, _arg = "brightness", "brightness_factor"

    def __init__(self, brightness_factor):
        self._setup(brightness_factor)


class AdjustContrast(_Adjust):
    """AdjustContrast(contrast_factor): blend with the mean gray level (0: flat gray, 1: the
    image)."""
    _kind, _arg = "contrast", "contrast_factor"

    def __init__(self, contrast_factor):
        self._setup(contrast_factor)


class AdjustSaturation(_Adjust):
    """AdjustSaturation(saturation_factor): blend with the gray image (0: gray, 1: the image)."""
    _kind, _arg, _unnamed = "saturation", "saturation_factor", True

    def __init__(self, saturation_factor):
        self._setup(saturation_factor)


class AdjustSharpness(_Adjust):
    """AdjustSharpness(sharpness_factor): blend with a smoothed image (0: smoothed, 1: the
    image, 2: sharpened), as PIL's ImageEnhance.Sharpness."""
    _kind, _arg, _unnamed = "sharpness", "sharpness_factor", True

    def __init__(self, sharpness_factor):
        self._setup(sharpness_factor)


class AdjustHue(chk.ArrayOp):
    """AdjustHue(hue_factor): shift the hue by hue_factor (in [-0.5, 0.5]) of a full turn."""

    def __init__(self, hue_factor):
        self.hue_factor = chk.check_value(chk.number(hue_factor, "hue_factor"), -0.5, 0.5,
                                          "hue_factor")
        self._op = _data.AdjustColor("hue", self.hue_factor)


class AdjustGamma(chk.ArrayOp):
    """AdjustGamma(gamma, gain=1): ``gain * x ** gamma`` on values scaled to [0, 1] (uint8
    through MindSpore's table; float32 clipped to [0, 1]); <..., H, W, C> or <H, W>."""

    def __init__(self, gamma, gain=1):
        chk.type_check(gamma, (float, int), "gamma")
        chk.check_value(gamma, 0, chk.FLOAT_MAX_INTEGER)
        chk.type_check(gain, (float, int), "gain")
        self.gamma, self.gain = float(gamma), float(gain)
        self._op = _data.AdjustGamma(self.gamma, self.gain)


def _check_ignore(ignore):
    if ignore is None:
        return []
    chk.type_check(ignore, (list, tuple, int), "ignore")
    values = [ignore] if isinstance(ignore, int) else list(ignore)
    for v in values:
        chk.type_check(v, (int,), "item")
        chk.check_value(v, 0, 255, "ignore")
    return values


def _check_cutoff(cutoff):
    chk.type_check(cutoff, (int, float), "cutoff")
    return chk.check_value(float(cutoff), 0, 50, "cutoff", right_open=True)


class AutoContrast(chk.ArrayOp):
    """AutoContrast(cutoff=0.0, ignore=None): per channel, drop cutoff percent (in [0, 50)) of
    the pixels at each end of the histogram (values in ignore not counted) and stretch the rest
    to [0, 255]."""

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff = _check_cutoff(cutoff)
        self.ignore = _check_ignore(ignore)
        self._op = _data.AutoContrast(self.cutoff, self.ignore)


class Equalize(chk.ArrayOp):
    """Equalize(): equalize each channel's histogram (OpenCV's equalizeHist)."""

    def __init__(self):
        self._op = _data.Equalize()


def _check_bits(bits, low=0, name="bits"):
    chk.type_check(bits, (int,), "bits")
    return chk.check_value(bits, low, 8, name)


class Posterize(chk.ArrayOp):
    """Posterize(bits): keep the top bits (0 to 8) of each uint8 value."""

    _pil_out = False  # no PIL version in MindSpore: arrays come back

    def __init__(self, bits):
        self.bits = _check_bits(bits)
        self._op = _data.Posterize(self.bits)


def _check_threshold(threshold):
    chk.type_check(threshold, (float, int, list, tuple), "threshold")
    if isinstance(threshold, (float, int)):
        threshold = (threshold, threshold)
    chk.type_check_list(threshold, (float, int), "threshold")
    if len(threshold) != 2:
        raise TypeError("threshold must be a single number or sequence of two numbers.")
    for i, v in enumerate(threshold):
        chk.check_value(v, 0, 255, f"threshold[{i}]")
    if threshold[1] < threshold[0]:
        raise ValueError("threshold must be in order of (min, max).")
    return [float(threshold[0]), float(threshold[1])]


class Solarize(chk.ArrayOp):
    """Solarize(threshold): values in [min, max] (one number t: values >= t) become 255 - v."""

    _pil_out = False  # no PIL version in MindSpore: arrays come back

    def __init__(self, threshold):
        self.threshold = _check_threshold(threshold)
        self._op = _data.Solarize(self.threshold)


def _check_range(value, name, center=1.0, bound=(0, chk.FLOAT_MAX_INTEGER), non_negative=True):
    """MindSpore's RandomColorAdjust parameter: a number v (the range center +- v) or (min,
    max) within bound."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"The input value of {name} cannot be negative.")
        lo, hi = center - value, center + value
        return [max(0.0, lo) if non_negative else lo, hi]
    if isinstance(value, (list, tuple)) and len(value) == 2:
        chk.type_check_list(value, (int, float), name)
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"Please check your value range of {name} is valid and within the "
                             f"bound {bound}.")
        return [float(value[0]), float(value[1])]
    raise TypeError(f"Input of {name} should be either a single value, or a list/tuple of "
                    "length 2.")


class RandomColorAdjust(chk.ArrayOp):
    """RandomColorAdjust(brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
    brightness, contrast, saturation and hue adjusted in a random order, each by a factor
    uniform in its range (b: (max(0, 1 - b), 1 + b); hue h in [0, 0.5]: (-h, h))."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _check_range(brightness, "brightness")
        self.contrast = _check_range(contrast, "contrast")
        self.saturation = _check_range(saturation, "saturation")
        self.hue = _check_range(hue, "hue", 0.0, (-0.5, 0.5), False)
        self._op = _data.RandomColorAdjust(self.brightness, self.contrast, self.saturation,
                                           self.hue)


class RandomColor(chk.ArrayOp):
    """RandomColor(degrees=(0.1, 1.9)): AdjustSaturation by a factor uniform in degrees."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = chk.check_positive_degrees(degrees)
        self._op = _data.RandomAdjust("saturation", list(self.degrees), "RandomColor")


class RandomSharpness(chk.ArrayOp):
    """RandomSharpness(degrees=(0.1, 1.9)): AdjustSharpness by a factor uniform in degrees."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = chk.check_positive_degrees(degrees)
        self._op = _data.RandomAdjust("sharpness", list(self.degrees), "RandomSharpness")


class RandomAdjustSharpness(chk.ArrayOp):
    """RandomAdjustSharpness(degree, prob=0.5): AdjustSharpness(degree) with probability prob."""

    def __init__(self, degree, prob=0.5):
        self.degree = chk.non_negative(degree, "degree")
        self.prob = chk.check_prob(prob)
        self._op = _data.RandomApply(_data.AdjustColor("sharpness", self.degree), self.prob,
                                     "RandomAdjustSharpness")


class RandomAutoContrast(chk.ArrayOp):
    """RandomAutoContrast(cutoff=0.0, ignore=None, prob=0.5): AutoContrast with probability
    prob."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self.cutoff = _check_cutoff(cutoff)
        self.ignore = _check_ignore(ignore)
        self.prob = chk.check_prob(prob)
        self._op = _data.RandomApply(_data.AutoContrast(self.cutoff, self.ignore), self.prob,
                                     "RandomAutoContrast")


class RandomEqualize(chk.ArrayOp):
    """RandomEqualize(prob=0.5): Equalize with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = chk.check_prob(prob)
        self._op = _data.RandomApply(_data.Equalize(), self.prob, "RandomEqualize")


class RandomInvert(chk.ArrayOp):
    """RandomInvert(prob=0.5): Invert (255 - v) with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = chk.check_prob(prob)
        self._op = _data.RandomApply(_data.Invert(), self.prob, "RandomInvert")


class RandomPosterize(chk.ArrayOp):
    """RandomPosterize(bits=(8, 8)): Posterize with bits a uniform integer in the range (an int
    b: (b, b)); bits in [1, 8]."""

    _pil_out = False  # no PIL version in MindSpore: arrays come back

    def __init__(self, bits=(8, 8)):
        if isinstance(bits, int) and not isinstance(bits, bool):
            bits = (bits, bits)
        chk.type_check(bits, (list, tuple), "bits")
        if len(bits) != 2:
            raise TypeError("Size of bits should be a single integer or a list/tuple (min, max) "
                            "of length 2.")
        for b in bits:
            _check_bits(b, 1, "")
        if bits[0] > bits[1]:
            raise ValueError("Input is not within the required interval of [1, 8].")
        self.bits = [int(bits[0]), int(bits[1])]
        self._op = _data.RandomPosterize(self.bits)


class RandomSolarize(chk.ArrayOp):
    """RandomSolarize(threshold=(0, 255)): Solarize with (min, max) two uniform integers in
    threshold, sorted."""

    _pil_out = False  # no PIL version in MindSpore: arrays come back

    def __init__(self, threshold=(0, 255)):
        chk.type_check(threshold, (list, tuple), "threshold")
        if len(threshold) == 2 and all(isinstance(t, (int, float)) for t in threshold) and \
                threshold[0] > threshold[1]:
            raise ValueError("threshold must be in min max format numbers.")
        for i, t in enumerate(threshold):
            chk.type_check(t, (int,), f"threshold[{i}]")
            chk.check_value(t, 0, 255)
        self.threshold = _check_threshold(threshold)
        self._op = _data.RandomSolarize(self.threshold)


__all__ = ["AdjustBrightness", "AdjustContrast", "AdjustSaturation", "AdjustSharpness",
           "AdjustHue", "AdjustGamma", "AutoContrast", "Equalize", "Posterize", "Solarize",
           "RandomColorAdjust", "RandomColor", "RandomSharpness", "RandomAdjustSharpness",
           "RandomAutoContrast", "RandomEqualize", "RandomInvert", "RandomPosterize",
           "RandomSolarize"]
