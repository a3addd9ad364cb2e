"""Geometric transforms of ``mindspore.dataset.vision`` (part of ``mycel.dataset.vision``):
Affine, RandomAffine, Rotate, RandomRotation, Perspective, RandomPerspective and
RandomCropDecodeResize.

The warps run in C++ (src/data/transforms_vision_geometry.cc) with OpenCV's arithmetic, which
MindSpore uses, on uint8, float32 or float64 images <H, W> or <H, W, C>. Random ones draw from
the pipeline's per-row stream (``ds.config.set_seed``). A PIL image is warped as its array and
given back as a PIL image.
"""
import numbers

from mycel import _mycel
from mycel.dataset import _vision_checks as chk
from mycel.dataset.transforms import _is_pil
from mycel.dataset.vision import (Decode, Inter, RandomResizedCrop, _INTERP_NAMES,
                                  _check_interpolation)

_data = _mycel._data


def _interp(func, value, name):
    chk.check_inter(value, name)
    return _INTERP_NAMES[value]


class _Warp(chk.ArrayOp):
    """A warp whose interpolation may be one the warps lack (Inter.ANTIALIAS, PILCUBIC): then,
    as MindSpore, the error comes when an image is given (a pipeline raises it on its first
    row). PIL images take NEAREST, BILINEAR and BICUBIC only."""

    _bad_interp = None

    def _make(self, func, interp, build):
        chk.check_inter(interp, "resample")
        if interp in (Inter.ANTIALIAS, Inter.PILCUBIC):
            self._bad_interp = interp
            self._op = None
        else:
            self._op = build(_INTERP_NAMES[interp])

    def _refuse(self, img):
        """The error for an interpolation this input cannot take, or None."""
        func = type(self).__name__
        if _is_pil(img) and self._interp not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC,
                                                 Inter.ANTIALIAS):
            return TypeError("Current Interpolation is not supported with PIL input.")
        if self._bad_interp is None:
            return None
        if self._bad_interp == Inter.ANTIALIAS:
            if _is_pil(img):
                return self._antialias_error()
            return ValueError(f"{func}: Inter.ANTIALIAS needs a PIL image: Input image should be "
                              "a Pillow image.")
        return RuntimeError(f"{func}: Invalid InterpolationMode, only NEAREST, BILINEAR, BICUBIC "
                            "and AREA are supported on arrays.")

    def _antialias_error(self):
        return ValueError(f"{type(self).__name__}: Inter.ANTIALIAS (PIL's LANCZOS) cannot be "
                          "used.")

    def __call__(self, *inputs):
        if len(inputs) == 1:
            err = self._refuse(inputs[0])
            if err is not None:
                raise err
        return super().__call__(*inputs)


class Affine(chk.ArrayOp):
    """Affine(degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0): rotate
    by degrees (in [-180, 180], clockwise), translate by (tx, ty) fractions of the width and
    height (each in [-1, 1]), scale (> 0) and shear (degrees in [-180, 180]: one value shears x,
    two shear x and y) about the image centre. Pixels from outside are fill_value (an int or
    (R, G, B))."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        chk.type_check(degrees, (int, float), "degrees")
        chk.check_value(degrees, -180, 180, "degrees")
        chk.type_check(translate, (list, tuple), "translate")
        if len(translate) != 2:
            raise TypeError("The length of translate should be 2.")
        for i, t in enumerate(translate):
            chk.check_value(chk.number(t, f"translate[{i}]"), -1.0, 1.0, f"translate[{i}]")
        scale = chk.number(scale, "scale")
        if scale <= 0:
            raise ValueError("Input scale must be greater than 0.")
        chk.type_check(shear, (numbers.Number, tuple, list), "shear")
        if isinstance(shear, (list, tuple)):
            if len(shear) != 2:
                raise TypeError("The length of shear should be 2.")
            shear = [chk.check_value(chk.number(s, f"shear[{i}]"), -180, 180, f"shear[{i}]")
                     for i, s in enumerate(shear)]
        else:
            shear = [chk.check_value(chk.number(shear, "shear"), -180, 180, "shear"), 0.0]
        self.degrees, self.translate, self.scale, self.shear = degrees, translate, scale, shear
        self.resample = resample
        self.fill_value = chk.check_fill_value(fill_value)
        self._op = _data.Affine(float(degrees), [float(t) for t in translate], scale, shear,
                                _interp("Affine", resample, "resample"),
                                [float(v) for v in self.fill_value])


class RandomAffine(_Warp):
    """RandomAffine(degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
    fill_value=0): Affine with random parameters: degrees (d: (-d, d), or (min, max)),
    translate ((x_min, x_max) or (x_min, x_max, y_min, y_max) fractions in [-1, 1]), scale
    ((min, max), default 1), shear (s: (-s, s) on x; (x_min, x_max); or 4 values with y)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
                 fill_value=0):
        self.degrees = chk.check_degrees(degrees)
        if translate is None:
            translate = [0.0, 0.0, 0.0, 0.0]
        else:
            chk.type_check(translate, (list, tuple), "translate")
            chk.type_check_list(translate, (int, float), "translate")
            if len(translate) not in (2, 4):
                raise TypeError("translate should be a list or tuple of length 2 or 4.")
            for i, t in enumerate(translate):
                chk.check_value(t, -1.0, 1.0, f"translate at {i}")
            translate = [float(t) for t in translate] + ([0.0, 0.0] if len(translate) == 2 else [])
        if scale is None:
            scale = [1.0, 1.0]
        else:
            chk.type_check(scale, (tuple, list), "scale")
            chk.type_check_list(scale, (int, float), "scale")
            if len(scale) != 2:
                raise TypeError("scale should be a list or tuple of length 2.")
            if scale[0] > scale[1]:
                raise ValueError("Input scale[1] must be equal to or greater than scale[0].")
            for s in scale:
                chk.check_value(s, 0, chk.FLOAT_MAX_INTEGER, "scale")
            if scale[1] <= 0:
                raise ValueError("Input scale[1] must be greater than 0.")
            if scale[0] <= 0:
                raise ValueError("Input scale[0] must be greater than 0.")
            scale = [float(s) for s in scale]
        if shear is None:
            shear = [0.0, 0.0, 0.0, 0.0]
        elif isinstance(shear, numbers.Number) and not isinstance(shear, bool):
            if shear <= 0:
                raise ValueError("Input shear must be greater than 0.")
            s = chk.check_value(float(shear), 0, chk.FLOAT_MAX_INTEGER, "shear")
            shear = [-s, s, 0.0, 0.0]
        else:
            chk.type_check(shear, (tuple, list), "shear")
            chk.type_check_list(shear, (int, float), "shear")
            if len(shear) not in (2, 4):
                raise TypeError("shear must be of length 2 or 4.")
            if len(shear) == 2 and shear[0] > shear[1]:
                raise ValueError("Input shear[1] must be equal to or greater than shear[0]")
            if shear[0] > shear[1] or (len(shear) == 4 and shear[2] > shear[3]):
                raise ValueError("Input shear[1] must be equal to or greater than shear[0] and "
                                 "shear[3] must be equal to or greater than shear[2].")
            shear = [float(s) for s in shear] + ([0.0, 0.0] if len(shear) == 2 else [])
        self.translate, self.scale, self.shear = translate, scale, shear
        self.resample = resample
        self.fill_value = chk.check_fill_value(fill_value)
        self._interp = resample
        fill = [float(v) for v in self.fill_value]
        self._make("RandomAffine", resample,
                   lambda i: _data.RandomAffine(list(self.degrees), translate, scale, shear, i,
                                                fill))


class Rotate(_Warp):
    """Rotate(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0): rotate
    counter-clockwise by degrees about center ((x, y); None: the image centre). expand makes the
    output hold the whole rotated image. As MindSpore's kernel, a 3-value fill_value reaches the
    channels in reverse order (OpenCV's Scalar(b, g, r))."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        self.degrees = chk.check_value(chk.number(degrees, "degrees"), -chk.FLOAT_MAX_INTEGER,
                                       chk.FLOAT_MAX_INTEGER, "degrees")
        self.resample = resample
        self.expand = chk.type_check(expand, (bool,), "expand")
        self.center = chk.check_center(center)
        self.fill_value = chk.check_fill_value(fill_value)
        self._interp = resample
        fill = [float(v) for v in self.fill_value]
        self._make("Rotate", resample,
                   lambda i: _data.Rotate(self.degrees, i, expand, self.center, fill))
        self._range = (self.degrees, self.degrees)

    def _antialias_error(self):
        """ANTIALIAS on a PIL image: only whole quarter turns about the centre (PIL's
        transpose), which are pixel permutations: the nearest warp gives them exactly."""
        lo, hi = self._range
        if not self.center and lo == hi and lo % 90 == 0:
            self._op = _data.Rotate(lo, "nearest", self.expand, [],
                                    [float(v) for v in self.fill_value])
            self._bad_interp = None
            return None
        return ValueError("When using Inter.ANTIALIAS, center needs to be None and angle needs to "
                          "be an integer multiple of 90.")


class RandomRotation(_Warp):
    """RandomRotation(degrees, resample=Inter.NEAREST, expand=False, center=None,
    fill_value=0): Rotate by an angle uniform in degrees (d: (-d, d); or (min, max))."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        self.degrees = chk.check_degrees(degrees)
        self.resample = resample
        self.expand = chk.type_check(expand, (bool,), "expand")
        self.center = chk.check_center(center)
        self.fill_value = chk.check_fill_value(fill_value)
        self._interp = resample
        fill = [float(v) for v in self.fill_value]
        self._make("RandomRotation", resample,
                   lambda i: _data.RandomRotation(list(self.degrees), i, expand, self.center,
                                                  fill))
        self._range = self.degrees

    _antialias_error = Rotate._antialias_error


def _points(name, points):
    chk.type_check(points, (list, tuple), name)
    chk.type_check_list(points, (list, tuple), name)
    if len(points) != 4:
        raise TypeError(f"{name} should be a list or tuple of length 4.")
    out = []
    for i, p in enumerate(points):
        if len(p) != 2:
            raise TypeError(f"{name}[{i}] should be a list or tuple of length 2.")
        for j, v in enumerate(p):
            chk.type_check(v, (int,), f"{name}[{i}][{j}]")
            chk.check_value(v, chk.INT32_MIN, chk.INT32_MAX, f"{name}[{i}][{j}]")
        out.append([float(p[0]), float(p[1])])
    return out


class Perspective(chk.ArrayOp):
    """Perspective(start_points, end_points, interpolation=Inter.BILINEAR): the perspective
    transform taking start_points to end_points (each four (x, y) int points: top-left,
    top-right, bottom-right, bottom-left); the output keeps the size, outside pixels are 0."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points = _points("start_points", start_points)
        self.end_points = _points("end_points", end_points)
        self.interpolation = interpolation
        self._op = _data.Perspective(self.start_points, self.end_points,
                                     _interp("Perspective", interpolation, "interpolation"))


class RandomPerspective(chk.ArrayOp):
    """RandomPerspective(distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC): with
    probability prob, a perspective transform moving each corner inwards by a random amount up
    to distortion_scale (in [0, 1]) times half the image's size."""

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        self.distortion_scale = chk.check_value(chk.number(distortion_scale, "distortion_scale"),
                                                0.0, 1.0, "distortion_scale")
        self.prob = chk.check_prob(prob)
        self.interpolation = interpolation
        self._op = _data.RandomPerspective(
            self.distortion_scale, self.prob,
            _interp("RandomPerspective", interpolation, "interpolation"))


class RandomCropDecodeResize(RandomResizedCrop):
    """RandomCropDecodeResize(size, scale=(0.08, 1.0), ratio=(3/4, 4/3),
    interpolation=Inter.BILINEAR, max_attempts=10): Decode, then RandomResizedCrop with these
    arguments (MindSpore decodes only the crop; the result is the same)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        _check_interpolation("RandomCropDecodeResize", interpolation)
        if not isinstance(max_attempts, int) or isinstance(max_attempts, bool):
            raise TypeError(f"Argument max_attempts with value {max_attempts} is not of type "
                            f"(<class 'int'>,), but got {type(max_attempts)}.")
        if isinstance(ratio, (list, tuple)):
            for i, r in enumerate(ratio):
                chk.check_value(chk.number(r, f"ratio[{i}]"), 0, chk.FLOAT_MAX_INTEGER,
                                f"ratio[{i}]", left_open=True)
        super().__init__(size, scale, ratio, interpolation, max_attempts)
        self._decode = Decode()

    def _c_ops(self):
        """Decode, then the crop and resize."""
        return [self._decode._op, self._op]

    def __call__(self, *inputs):
        """Decode the encoded image (bytes or a 1-D uint8 array), then crop and resize it."""
        if any(_is_pil(x) for x in inputs):
            raise TypeError("RandomCropDecodeResize: the input must be the encoded image bytes, "
                            "not a decoded PIL image.")
        return super().__call__(self._decode(*inputs))


__all__ = ["Affine", "RandomAffine", "Rotate", "RandomRotation", "Perspective",
           "RandomPerspective", "RandomCropDecodeResize"]
