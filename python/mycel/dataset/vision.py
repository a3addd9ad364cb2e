"""Image transforms, MindSpore's ``mindspore.dataset.vision``: Decode, Resize, crops, flips,
RandomResizedCrop, Pad, Normalize, HWC2CHW, Rescale, ToTensor, and the Inter / Border enums.

Images are numpy arrays, HWC (<H, W, C>) or <H, W>. Each class checks its arguments here and
runs in C++ (src/data/transforms_vision.cc, src/data/image_codec.cc), so a pipeline applies it
on worker threads without the GIL. Geometric ops keep the image's dtype (uint8 in, uint8
out); Normalize and Rescale compute in float32 and return float32, as MindSpore. Random ops draw
from the pipeline's per-row random stream, so results depend on the seed and the row, not on
the number of workers.
"""
from enum import Enum, IntEnum

import numpy as np

from mycel import _mycel
from mycel.dataset._validate import check_bool, check_int, check_number
from mycel.dataset.transforms import (TensorOperation, _check_image_inputs, _is_pil,
                                      _numpy_dtype)

_data = _mycel._data
_INT32_MAX = 2**31 - 1


class Inter(IntEnum):
    """Interpolation modes. NEAREST, LINEAR (= BILINEAR), CUBIC (= BICUBIC, a = -0.75) and AREA
    as OpenCV computes them; ANTIALIAS (Lanczos, a = 3) and PILCUBIC (bicubic, a = -0.5) as PIL
    resamples: antialiased when shrinking (the filter widens with the scale)."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = LINEAR = 2
    BICUBIC = CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, Enum):
    """Padding modes: CONSTANT (fill_value), EDGE (repeat the edge pixel), REFLECT (mirror
    without the edge pixel), SYMMETRIC (mirror with it)."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


_INTERP_NAMES = {Inter.NEAREST: "nearest", Inter.LINEAR: "bilinear", Inter.CUBIC: "bicubic",
                 Inter.AREA: "area", Inter.ANTIALIAS: "antialias", Inter.PILCUBIC: "pilcubic"}


def _check_interpolation(func, interpolation):
    """The C++ name of an Inter value; TypeError / ValueError naming func otherwise."""
    if not isinstance(interpolation, Inter):
        raise TypeError(f"{func}: interpolation must be a vision.Inter, but got "
                        f"{type(interpolation).__name__} {interpolation!r}.")
    return _INTERP_NAMES[interpolation]


def _check_size(func, size, name="size"):
    """size as (height, width): an int gives a square, a sequence of 2 is (height, width).
    TypeErrors carry MindSpore's sentences (its tests look for them)."""
    ms_words = "Size should be a single integer or a list/tuple (h, w) of length 2."
    if isinstance(size, (list, tuple)):
        if len(size) != 2:
            raise TypeError(f"{func}: {name} must be an int or a sequence of 2 ints, but got "
                            f"{size!r}. {ms_words}")
        for i, v in enumerate(size):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{func}: Argument {name} at dim {i} with value {v} is not of "
                                f"type [<class 'int'>], but got {type(v)}.")
        return tuple(check_int(func, name, v, 1, _INT32_MAX) for v in size)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"{func}: {name} must be an int or a sequence of 2 ints, but got "
                        f"{type(size).__name__} {size!r}. {ms_words}")
    value = check_int(func, name, size, 1, _INT32_MAX)
    return value, value


def _check_pair(func, name, value, positive):
    """(min, max) numbers with min <= max, both >= 0 (or > 0 when positive)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise TypeError(f"{func}: {name} must be a sequence of 2 numbers, but got {value!r}.")
    lo, hi = (check_number(func, name, v) for v in value)
    if lo > hi:  # MindSpore's message
        raise ValueError(f"{func}: {name} should be in (min,max) format. Got (max,min).")
    if lo <= 0 if positive else lo < 0:
        raise ValueError(f"{func}: {name} must be (min, max) with {'0 <' if positive else '0 <='} "
                         f"min <= max, but got {tuple(value)}.")
    return lo, hi


def _check_prob(func, prob):
    """A probability in [0, 1]."""
    value = check_number(func, "prob", prob)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{func}: prob must be in [0.0, 1.0], but got {prob}. Input prob is "
                         "not within the required interval of [0.0, 1.0].")
    return value


def _pil_through_array(self, img):
    """A PIL image through the C++ transform as an array, given back as a PIL image (MindSpore's
    PIL version of the transform: a PIL image in, a PIL image out)."""
    from PIL import Image
    return Image.fromarray(self._run((np.asarray(img),), 0))


class Decode(TensorOperation):
    """Decode(to_pil=False): JPEG or PNG bytes (a 1-D uint8 array, or bytes when called
    directly) to an RGB uint8 image <H, W, 3>. Gray images become RGB, alpha is dropped.
    Corrupt or truncated data raises RuntimeError. to_pil=True decodes with PIL into an RGB
    PIL image instead (module note on PIL images)."""

    def __init__(self, to_pil=False):
        self.to_pil = check_bool("Decode", "to_pil", to_pil)
        self._makes_pil = self.to_pil
        self._op = None if self.to_pil else _data.Decode()

    def __call__(self, *inputs):
        """Decode one image given as bytes or a 1-D uint8 array."""
        inputs = [np.frombuffer(x, np.uint8) if isinstance(x, (bytes, bytearray, memoryview))
                  else x for x in inputs]
        # a bytes column (a numpy bytes array of one element, as a pipeline hands it out)
        inputs = [np.frombuffer(x.reshape(-1)[0], np.uint8) if isinstance(x, np.ndarray) and
                  x.dtype.kind == "S" and x.size == 1 else x for x in inputs]
        for x in inputs:  # MindSpore's checks and messages
            if not isinstance(x, np.ndarray):
                raise TypeError(f"The type of the encoded image should be {np.ndarray}, but got "
                                f"{type(x)}.")
            if x.dtype.type is np.str_:
                raise TypeError(f"The data type of the encoded image can not be {x.dtype.type}.")
            if x.ndim != 1:
                raise TypeError(f"The number of array dimensions of the encoded image should be "
                                f"1, but got {x.ndim}.")
        if not self.to_pil:
            return super().__call__(*inputs)
        if len(inputs) != 1:
            raise TypeError(f"Decode: expected one image, but got {len(inputs)} inputs.")
        data = inputs[0]
        if _is_pil(data):
            raise TypeError("Decode: the input is already a decoded PIL image.")
        data = np.asarray(data)
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError(f"Decode: the input must be the encoded bytes (a 1-D uint8 array), "
                            f"but got {data.dtype} with shape {list(data.shape)}.")
        import io
        from PIL import Image, UnidentifiedImageError
        try:
            return Image.open(io.BytesIO(data.tobytes())).convert("RGB")
        except (UnidentifiedImageError, OSError) as err:
            raise RuntimeError(f"Decode: the data is not a decodable image: {err}") from None


class Resize(TensorOperation):
    """Resize(size, interpolation=Inter.LINEAR): resize to size = (height, width); an int size
    resizes the shorter side to it and keeps the aspect ratio, the other side rounded down
    (MindSpore 2.x: 300x500 to 256 gives 256x426)."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, (list, tuple)):
            self.size = _check_size("Resize", size)
            h, w = self.size
        else:
            self.size = h = _check_size("Resize", size)[0]
            w = 0
        self.interpolation = interpolation
        self._op = _data.Resize(h, w, _check_interpolation("Resize", interpolation))

    def _apply_pil(self, img):
        """PIL's resize (MindSpore's transform for PIL images): an int size scales the shorter
        side to it, the other rounded down, as for arrays."""
        from PIL import Image
        if isinstance(self.size, int):
            w, h = img.size
            short, long_ = (w, h) if w <= h else (h, w)
            other = int(long_ * self.size / short)
            size = (self.size, other) if w <= h else (other, self.size)
        else:
            size = (self.size[1], self.size[0])
        resample = {Inter.NEAREST: Image.NEAREST, Inter.LINEAR: Image.BILINEAR,
                    Inter.CUBIC: Image.BICUBIC, Inter.ANTIALIAS: Image.LANCZOS,
                    Inter.AREA: Image.BOX, Inter.PILCUBIC: Image.BICUBIC}[Inter(self.interpolation)]
        return img.resize(size, resample)


class CenterCrop(TensorOperation):
    """CenterCrop(size): the central window of size (an int: a square); a smaller image is
    padded with zeros first, as MindSpore."""

    def __init__(self, size):
        self.size = _check_size("CenterCrop", size)
        self._op = _data.CenterCrop(*self.size)

    def _apply_pil(self, img):
        """PIL's crop of the central window (zeros outside the image), for PIL images."""
        h, w = self.size
        left, top = int(round((img.width - w) / 2.0)), int(round((img.height - h) / 2.0))
        return img.crop((left, top, left + w, top + h))


def _padding(func, padding):
    """(left, top, right, bottom) from an int (every side), 2 values (left and right, top and
    bottom) or 4 values; None is no padding."""
    if padding is None:
        return 0, 0, 0, 0
    values = padding if isinstance(padding, (list, tuple)) else [padding]
    if len(values) not in (1, 2, 4):
        raise TypeError(f"{func}: padding must be an int or a sequence of 2 or 4 ints, but got "
                        f"{padding!r}.")
    values = [check_int(func, "padding", v, 0, _INT32_MAX) for v in values]
    if len(values) == 1:
        return tuple(values * 4)
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    return tuple(values)


def _fill(func, fill_value):
    """fill_value as 1 value (every channel) or 3 (R, G, B), each in [0, 255]."""
    values = list(fill_value) if isinstance(fill_value, tuple) else [fill_value]
    if len(values) not in (1, 3):
        raise TypeError(f"{func}: fill_value must be an int or a tuple of 3 ints, but got "
                        f"{fill_value!r}.")
    return [check_int(func, "fill_value", v, 0, 255) for v in values]


def _check_border(func, padding_mode):
    if not isinstance(padding_mode, Border):
        raise TypeError(f"{func}: padding_mode must be a vision.Border, but got "
                        f"{type(padding_mode).__name__} {padding_mode!r}.")


class RandomCrop(TensorOperation):
    """RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0,
    padding_mode=Border.CONSTANT): a window of size at a random place.

    padding pads first: an int pads every side, 2 values pad (left and right, top and bottom),
    4 values pad (left, top, right, bottom). pad_if_needed pads both sides of a too-small axis
    by the shortfall. fill_value (an int, or 3 for R, G, B) fills Border.CONSTANT padding."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _check_size("RandomCrop", size)
        self.padding = padding
        self.pad_if_needed = check_bool("RandomCrop", "pad_if_needed", pad_if_needed)
        self.fill_value = fill_value
        self.padding_mode = padding_mode
        _check_border("RandomCrop", padding_mode)
        self._op = _data.RandomCrop(*self.size, _padding("RandomCrop", padding),
                                    self.pad_if_needed, _fill("RandomCrop", fill_value),
                                    padding_mode.value)

    _apply_pil = _pil_through_array


class RandomHorizontalFlip(TensorOperation):
    """RandomHorizontalFlip(prob=0.5): mirror left-right with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = _check_prob("RandomHorizontalFlip", prob)
        self._op = _data.RandomHorizontalFlip(self.prob)

    _apply_pil = _pil_through_array


class RandomVerticalFlip(TensorOperation):
    """RandomVerticalFlip(prob=0.5): mirror top-bottom with probability prob."""

    def __init__(self, prob=0.5):
        self.prob = _check_prob("RandomVerticalFlip", prob)
        self._op = _data.RandomVerticalFlip(self.prob)

    _apply_pil = _pil_through_array


class RandomResizedCrop(TensorOperation):
    """RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3),
    interpolation=Inter.BILINEAR, max_attempts=10): crop a random window (area fraction in
    scale, aspect ratio w/h log-uniform in ratio; after max_attempts failed draws the centred
    whole image clipped to ratio) and resize it to size (an int: a square)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        func = "RandomResizedCrop"
        self.size = _check_size(func, size)
        self.scale = _check_pair(func, "scale", scale, False)
        self.ratio = _check_pair(func, "ratio", ratio, True)
        self.interpolation = interpolation
        self.max_attempts = check_int(func, "max_attempts", max_attempts, 1, _INT32_MAX)
        self._op = _data.RandomResizedCrop(*self.size, self.scale, self.ratio,
                                           _check_interpolation(func, interpolation),
                                           self.max_attempts)

    _apply_pil = _pil_through_array


class Rescale(TensorOperation):
    """Rescale(rescale, shift): ``image * rescale + shift`` in float32."""

    def __init__(self, rescale, shift):
        self.rescale = check_number("Rescale", "rescale", rescale)
        self.shift = check_number("Rescale", "shift", shift)
        self._op = _data.Rescale(self.rescale, self.shift)


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
        self._op = _data.Normalize(self.mean, self.std, self.is_hwc)

    @staticmethod
    def _values(name, values, low):
        if not isinstance(values, (list, tuple)) or not values:
            raise TypeError(f"Normalize: {name} must be a non-empty list or tuple of numbers, "
                            f"but got {values!r}.")
        out = [check_number("Normalize", name, v) for v in values]
        for v in out:
            if not ((v >= low) if low is not None else (v > 0)) or v > 255:
                bounds = "[0, 255]" if low is not None else "(0, 255]"
                raise ValueError(f"Normalize: {name} values must be in {bounds}, but got {v}. "
                                 f"Input {name}_value is not within the required interval of "
                                 f"{bounds}.")
        return out


class HWC2CHW(TensorOperation):
    """HWC2CHW(): transpose an <H, W, C> image to <C, H, W> (<H, W> images stay as they are)."""

    def __init__(self):
        self._op = _data.HWC2CHW()


class ToTensor(TensorOperation):
    """ToTensor(output_type=numpy.float32): an <H, W, C> (or <H, W>) image to <C, H, W> (or
    <1, H, W>) with every value divided by 255 in float32, then cast to output_type (a numpy or
    mycel dtype; integer types truncate, as TypeCast), as MindSpore's ToTensor. uint32, int64
    and uint64 images are a RuntimeError, as MindSpore."""

    def __init__(self, output_type=np.float32):
        self.output_type = _numpy_dtype("ToTensor", output_type)
        self._op = _data.ToTensor(self.output_type.name)


class Pad(TensorOperation):
    """Pad(padding, fill_value=0, padding_mode=Border.CONSTANT): add pixels around an image.

    padding: an int pads every side, 2 values pad (left and right, top and bottom), 4 values
    pad (left, top, right, bottom). fill_value (an int, or 3 for R, G, B) fills Border.CONSTANT
    padding; Border.EDGE repeats the last pixel, REFLECT mirrors without it, SYMMETRIC with
    it."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        if padding is None:
            raise TypeError("Pad: padding must be an int or a sequence of 2 or 4 ints, but got "
                            "None.")
        self.padding = padding
        self.fill_value = fill_value
        self.padding_mode = padding_mode
        _check_border("Pad", padding_mode)
        self._op = _data.Pad(_padding("Pad", padding), _fill("Pad", fill_value),
                             padding_mode.value)

    _apply_pil = _pil_through_array


class ToPIL(TensorOperation):
    """ToPIL(): a numpy image to a PIL image; a PIL image passes unchanged. <H, W> images may be
    uint8, uint16, int32 or float32 (PIL's L, I;16, I and F modes), <H, W, C> images uint8
    with C <= 4 (C = 1 is read as <H, W>)."""

    _makes_pil = True

    def __call__(self, img):
        if _is_pil(img):
            return img
        if not isinstance(img, np.ndarray):
            raise TypeError(f"ToPIL: the image should be of type numpy.ndarray or "
                            f"PIL.Image.Image, but got {type(img)}.")
        from PIL import Image
        arr = img
        if arr.ndim not in (2, 3):
            raise ValueError(f"ToPIL: the dimension of input image should be 2 or 3, but got "
                             f"shape {list(arr.shape)}.")
        if arr.ndim == 3 and arr.shape[2] > 4:
            raise ValueError(f"ToPIL: the channel of input image should not exceed 4, but got "
                             f"{arr.shape[2]}.")
        if arr.ndim == 3 and arr.shape[2] == 1:
            arr = arr[:, :, 0]
        allowed = (np.uint8, np.uint16, np.int32, np.float32) if arr.ndim == 2 else (np.uint8,)
        if arr.dtype.type not in allowed:
            raise TypeError(f"ToPIL: image type {arr.dtype} is not supported for shape "
                            f"{list(img.shape)} (PIL holds "
                            f"{', '.join(np.dtype(t).name for t in allowed)}).")
        if arr.ndim == 3 and arr.shape[2] == 2:
            return Image.fromarray(np.ascontiguousarray(arr), "LA")
        return Image.fromarray(np.ascontiguousarray(arr))


class ToNumpy(TensorOperation):
    """ToNumpy(): a PIL image to a numpy array (as numpy.array does); arrays pass unchanged."""

    def __call__(self, img):
        return np.array(img) if _is_pil(img) else np.asarray(img)


# ----- transforms written in Python (numpy, under the GIL; exact index operations) -----

def _image_array(func, img):
    _check_image_inputs([img])
    a = np.asarray(img)
    if a.ndim < 2 or a.dtype == object:
        raise ValueError(f"{func}: the image must be <H, W> or <..., H, W, C>, but got shape "
                         f"{list(a.shape)}.")
    return a


class HorizontalFlip(TensorOperation):
    """HorizontalFlip(): mirror an image left to right (<H, W>, <H, W, C>, or images under
    leading axes <..., H, W, C>)."""

    def __call__(self, img):
        a = _image_array("HorizontalFlip", img)
        return np.ascontiguousarray(np.flip(a, axis=1 if a.ndim == 2 else -2))


class VerticalFlip(TensorOperation):
    """VerticalFlip(): mirror an image top to bottom (shapes as HorizontalFlip)."""

    def __call__(self, img):
        a = _image_array("VerticalFlip", img)
        return np.ascontiguousarray(np.flip(a, axis=0 if a.ndim == 2 else -3))


class Crop(TensorOperation):
    """Crop(coordinates, size): the window of size (an int: a square; or (height, width))
    whose top-left pixel is coordinates = (top, left); it must lie inside the image."""

    def __init__(self, coordinates, size):
        if not isinstance(coordinates, (list, tuple)) or len(coordinates) != 2:
            raise TypeError(f"Crop: Coordinates should be a list/tuple (y, x) of length 2. Got "
                            f"{coordinates!r}.")
        self.coordinates = tuple(check_int("Crop", "coordinates", v, 0, _INT32_MAX)
                                 for v in coordinates)
        self.size = _check_size("Crop", size)

    def __call__(self, img):
        a = _image_array("Crop", img)
        hw_axis = 0 if a.ndim == 2 else a.ndim - 3
        (top, left), (h, w) = self.coordinates, self.size
        H, W = a.shape[hw_axis], a.shape[hw_axis + 1]
        if top + h > H:
            raise RuntimeError(f"Crop: Crop height dimension: {top + h} exceeds image height: {H}"
                               f" (top {top} + height {h}).")
        if left + w > W:
            raise RuntimeError(f"Crop: Crop width dimension: {left + w} exceeds image width: {W}"
                               f" (left {left} + width {w}).")
        index = (slice(None),) * hw_axis + (slice(top, top + h), slice(left, left + w))
        return np.ascontiguousarray(a[index])


class Invert(TensorOperation):
    """Invert(): 255 - every value of a uint8 image (<H, W> or <..., H, W, C>), as PIL's
    ImageOps.invert; a PIL image gives a PIL image."""

    def __call__(self, img):
        if _is_pil(img):
            from PIL import ImageOps
            return ImageOps.invert(img)
        a = _image_array("Invert", img)
        if a.dtype != np.uint8:
            raise TypeError(f"Invert: the image must be uint8, but got {a.dtype}.")
        return 255 - a


class Grayscale(TensorOperation):
    """Grayscale(num_output_channels=1): PIL's conversion to luminance ("L": 0.299 R + 0.587 G
    + 0.114 B in PIL's integer arithmetic), with 1 or 3 equal channels. A PIL image gives a PIL
    image; a uint8 numpy RGB image gives <H, W, num_output_channels>."""

    def __init__(self, num_output_channels=1):
        self.num_output_channels = check_int("Grayscale", "num_output_channels",
                                             num_output_channels)
        if self.num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, but got "
                             f"{num_output_channels}.")

    def _apply_pil(self, img):
        from PIL import Image
        gray = img.convert("L")
        return gray if self.num_output_channels == 1 else Image.merge("RGB", [gray] * 3)

    def __call__(self, img):
        if _is_pil(img):
            return self._apply_pil(img)
        a = _image_array("Grayscale", img)
        if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3:
            raise TypeError(f"Grayscale: the image must be a uint8 RGB <H, W, 3> array or a PIL "
                            f"image, but got {a.dtype} with shape {list(a.shape)}.")
        from PIL import Image
        out = np.asarray(self._apply_pil(Image.fromarray(np.ascontiguousarray(a))))
        return out[:, :, None] if out.ndim == 2 else out


__all__ = ["Inter", "Border", "Decode", "ToPIL", "ToNumpy", "HorizontalFlip", "VerticalFlip",
           "Crop", "Invert", "Grayscale", "Resize", "CenterCrop", "RandomCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "RandomResizedCrop", "Rescale",
           "Normalize", "HWC2CHW", "ToTensor", "Pad"]

# The geometric warps, colour transforms and small ops live in their own modules (C++ in
# src/data/transforms_vision_geometry.cc and transforms_vision_color.cc), which import this
# one: mycel.dataset attaches their names here (dataset/__init__.py), so no import cycle.
