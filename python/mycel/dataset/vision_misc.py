"""More deterministic transforms of ``mindspore.dataset.vision`` (part of
``mycel.dataset.vision``): ToType, NormalizePad, SlicePatches (and the SliceMode enum),
ResizedCrop, Erase, LinearTransformation, RgbToHsv and HsvToRgb.

NormalizePad and ResizedCrop run the C++ Normalize / Resize kernels; the others are exact index
or element operations written with numpy (run under the GIL in a pipeline).
"""
import inspect
from enum import IntEnum

import numpy as np

from mycel import _mycel
from mycel.dataset import _vision_checks as chk
from mycel.dataset.transforms import TensorOperation, TypeCast, _as_array
from mycel.dataset.vision import _INTERP_NAMES, Inter, _check_interpolation

_data = _mycel._data


class ToType(TypeCast):
    """ToType(data_type): cast to a mycel dtype or a numpy type (as TypeCast)."""

    def __init__(self, *args, **kwargs):
        try:
            bound = inspect.signature(lambda data_type: None).bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"ToType: {err}") from None
        data_type = bound.arguments["data_type"]
        import mycel
        if not isinstance(data_type, (mycel.DType, type, np.dtype)):
            raise TypeError(f"Argument data_type with value {data_type} is not of type "
                            f"[<class 'mindspore.dtype'>, <class 'type'>], but got "
                            f"{type(data_type)}.")
        super().__init__(data_type)


class SliceMode(IntEnum):
    """SlicePatches' handling of a size that does not divide: PAD the right and bottom, or
    DROP the remainder."""

    PAD = 0
    DROP = 1


class NormalizePad(TensorOperation):
    """NormalizePad(mean, std, dtype="float32", is_hwc=True): Normalize, then a channel of
    zeros appended (HWC: <H, W, C + 1>; CHW: <C + 1, H, W>), in float32 or float16."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        from mycel.dataset.vision import Normalize
        for name, values in (("mean", mean), ("std", std)):
            chk.type_check(values, (list, tuple), name)
            chk.type_check_list(values, (int, float), name)
        if len(mean) != len(std):
            raise ValueError("Length of mean and std must be equal.")
        if not isinstance(dtype, str):
            raise TypeError("dtype should be string.")
        if dtype not in ("float32", "float16"):
            raise ValueError("dtype only supports float32 or float16.")
        self.mean, self.std, self.dtype = list(mean), list(std), dtype
        self.is_hwc = chk.type_check(is_hwc, (bool,), "is_hwc")
        self._normalize = Normalize(mean, std, is_hwc)

    def __call__(self, img):
        out = self._normalize(img)
        axis = -1 if self.is_hwc else 0
        if out.ndim == 2:
            out, axis = out[..., None] if self.is_hwc else out[None], axis
        zeros_shape = list(out.shape)
        zeros_shape[axis] = 1
        out = np.concatenate([out, np.zeros(zeros_shape, out.dtype)], axis=axis)
        return out.astype(self.dtype)


class SlicePatches(TensorOperation):
    """SlicePatches(num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0): cut an
    <H, W[, C]> image into num_height x num_width patches (row by row), returned as a tuple.
    PAD pads the right and bottom with fill_value to whole patches; DROP drops the rest."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        for name, v in (("num_height", num_height), ("num_width", num_width)):
            chk.type_check(v, (int,), name)
            chk.check_value(v, 1, 2**31 - 1, name)
        chk.type_check(slice_mode, (SliceMode,), "slice_mode")
        chk.type_check(fill_value, (int,), "fill_value")
        chk.check_value(fill_value, 0, 255, "fill_value")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode, self.fill_value = slice_mode, fill_value

    def __call__(self, img):
        a = _as_array(img)
        if a.ndim not in (2, 3):
            raise RuntimeError(f"SlicePatches: input tensor is not in shape of <H,W> or <H,W,C>, "
                               f"but got shape {list(a.shape)}.")
        h, w = a.shape[:2]
        nh, nw = self.num_height, self.num_width
        if nh > h or nw > w:
            raise RuntimeError(f"SlicePatches: the number of patches ({nh}, {nw}) exceeds the "
                               f"image's size ({h}, {w}).")
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-h // nh), -(-w // nw)
            padded = np.full((ph * nh, pw * nw) + a.shape[2:], self.fill_value, a.dtype)
            padded[:h, :w] = a
            a = padded
        else:
            ph, pw = h // nh, w // nw
        return tuple(np.ascontiguousarray(a[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(nh) for j in range(nw))


class ResizedCrop(TensorOperation):
    """ResizedCrop(top, left, height, width, size, interpolation=Inter.BILINEAR): the window
    of height x width at (top, left), resized to size (an int: a square)."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        from mycel.dataset.vision import _check_size
        for name, v, low in (("top", top, 0), ("left", left, 0), ("height", height, 1),
                             ("width", width, 1)):
            chk.type_check(v, (int,), name)
            chk.check_value(v, low, 2**31 - 1, name)
        self.top, self.left, self.height, self.width = top, left, height, width
        self.size = _check_size("ResizedCrop", size)
        self.interpolation = interpolation
        self._op = _data.Resize(self.size[0], self.size[1],
                                _check_interpolation("ResizedCrop", interpolation))
        self._interp_name = _INTERP_NAMES[interpolation]  # for messages

    def _c_ops(self):
        return None  # the crop is in Python; the pipeline calls __call__

    def __call__(self, img):
        a = _as_array(img)
        if a.ndim not in (2, 3):
            raise RuntimeError(f"ResizedCrop: the image must be <H, W> or <H, W, C>, but got "
                               f"shape {list(a.shape)}.")
        h, w = a.shape[:2]
        if self.top + self.height > h or self.left + self.width > w:
            raise RuntimeError(f"ResizedCrop: the crop window (top {self.top}, left {self.left}, "
                               f"height {self.height}, width {self.width}) exceeds the image "
                               f"({h}, {w}).")
        window = np.ascontiguousarray(a[self.top:self.top + self.height,
                                        self.left:self.left + self.width])
        return self._op.apply([window], 0, 0)[0]


class Erase(TensorOperation):
    """Erase(top, left, height, width, value=0, inplace=False): set the height x width window at
    (top, left) of an <H, W, C> image to value (an int or an (R, G, B) tuple)."""

    def __init__(self, top, left, height, width, value=0, inplace=False):
        for name, v, low in (("top", top, 0), ("left", left, 0), ("height", height, 1),
                             ("width", width, 1)):
            chk.type_check(v, (int,), name)
            chk.check_value(v, low, 2**31 - 1, name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            chk.check_value(value, 0, 255, "value")
            value = (value,) * 3
        else:
            chk.type_check(value, (tuple,), "value")
            if len(value) != 3:
                raise TypeError("value should be a single number or a 3-tuple.")
            for v in value:
                chk.type_check(v, (int, float), "value")
                chk.check_value(v, 0, 255, "value")
        self.top, self.left, self.height, self.width = top, left, height, width
        self.value = value
        self.inplace = chk.type_check(inplace, (bool,), "inplace")

    def __call__(self, img):
        a = _as_array(img)
        if a.ndim != 3 or a.shape[2] != 3:
            raise RuntimeError(f"Erase: the image must be <H, W, 3>, but got shape "
                               f"{list(a.shape)}.")
        out = a if (self.inplace and a.flags.writeable) else a.copy()
        window = out[self.top:self.top + self.height, self.left:self.left + self.width]
        window[...] = np.asarray(self.value, np.float64).astype(a.dtype)
        return out


class LinearTransformation(TensorOperation):
    """LinearTransformation(transformation_matrix, mean_vector): the flattened image minus
    mean_vector, times the D x D matrix (D = the image's size), reshaped back."""

    def __init__(self, transformation_matrix, mean_vector):
        chk.type_check(transformation_matrix, (np.ndarray,), "transformation_matrix")
        chk.type_check(mean_vector, (np.ndarray,), "mean_vector")
        m = transformation_matrix
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValueError(f"transformation_matrix should be a square matrix. Got shape "
                             f"{m.shape[0]} x {m.shape[1] if m.ndim > 1 else ''} matrix.")
        if mean_vector.shape[0] != m.shape[0]:
            raise ValueError(f"mean_vector length {mean_vector.shape[0]} should match either "
                             f"one dimension of the square transformation_matrix {m.shape}.")
        self.transformation_matrix, self.mean_vector = m, mean_vector

    def __call__(self, img):
        a = _as_array(img)
        d = self.transformation_matrix.shape[0]
        if a.size != d:
            raise ValueError(f"LinearTransformation: the image's size {a.size} (shape "
                             f"{list(a.shape)}) should match the matrix's {d}.")
        flat = (a.reshape(1, -1) - self.mean_vector).dot(self.transformation_matrix)
        return flat.reshape(a.shape)


def _hsv_convert(func, img, is_hwc, forward):
    a = _as_array(img)
    if a.ndim != 3 or (a.shape[-1] if is_hwc else a.shape[0]) != 3:
        raise TypeError(f"{func}: the image must be {'<H, W, 3>' if is_hwc else '<3, H, W>'}, "
                        f"but got shape {list(a.shape)}.")
    x = a if is_hwc else np.moveaxis(a, 0, -1)
    x = x.astype(np.float64)
    out = _rgb_to_hsv(x) if forward else _hsv_to_rgb(x)
    out = out if is_hwc else np.moveaxis(out, -1, 0)
    return np.ascontiguousarray(out).astype(a.dtype if a.dtype.kind == "f" else np.float64)


def _rgb_to_hsv(x):
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    maxc, minc = x.max(-1), x.min(-1)
    v = maxc
    delta = maxc - minc
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0.0)
        safe = np.where(delta > 0, delta, 1)
        rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], -1)


def _hsv_to_rgb(x):
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = i.astype(np.int64) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = np.zeros(x.shape)
    for k, (rr, gg, bb) in enumerate(choices):
        m = i == k
        out[..., 0] = np.where(m, rr, out[..., 0])
        out[..., 1] = np.where(m, gg, out[..., 1])
        out[..., 2] = np.where(m, bb, out[..., 2])
    return np.where((s == 0)[..., None], v[..., None], out)


class RgbToHsv(TensorOperation):
    """RgbToHsv(is_hwc=False): RGB values in [0, 1] to HSV (colorsys's convention, h in
    [0, 1)), on <3, H, W> images (<H, W, 3> with is_hwc)."""

    def __init__(self, is_hwc=False):
        self.is_hwc = chk.type_check(is_hwc, (bool,), "is_hwc")

    def __call__(self, img):
        return _hsv_convert("RgbToHsv", img, self.is_hwc, True)


class HsvToRgb(TensorOperation):
    """HsvToRgb(is_hwc=False): the inverse of RgbToHsv."""

    def __init__(self, is_hwc=False):
        self.is_hwc = chk.type_check(is_hwc, (bool,), "is_hwc")

    def __call__(self, img):
        return _hsv_convert("HsvToRgb", img, self.is_hwc, False)


__all__ = ["ToType", "SliceMode", "NormalizePad", "SlicePatches", "ResizedCrop", "Erase",
           "LinearTransformation", "RgbToHsv", "HsvToRgb"]
