"""Image primitives of MindSpore 2.x composed from table ops: ResizeBicubic (TensorFlow's
bicubic resize) and ResizeBilinearV2.

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import math
import numpy as np
from mycel import _mycel as _C
from mycel.ops.function import resample_func as _rs
from mycel.ops.function._util import prim
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations._compat_checks import _check_bool
from mycel.ops.operations.composed_ops import _Composed, _exporter
from mycel.ops.primitive import constexpr

__all__ = ["ResizeBicubic"]


_export = _exporter(__all__, globals())


@_export
class ResizeBilinearV2(_Composed):
    """ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size): bilinear
    resizing of NCHW x to size (h, w). half_pixel_centers samples at (i + 0.5) * scale - 0.5
    (interpolate's default); without it, at i * scale (the older convention)."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        if align_corners and half_pixel_centers:
            raise ValueError("For 'ResizeBilinearV2', align_corners and half_pixel_centers "
                             "cannot both be True.")
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, x, size):
        h, w = _size2(size)
        if self.align_corners or self.half_pixel_centers:
            return _rs.interpolate(x, (h, w), None, "bilinear", self.align_corners)
        rows = _resize_matrix(x.shape[2], h, x.dtype)
        cols = _resize_matrix(x.shape[3], w, x.dtype)
        y = _prim("MatMul")(_prim("Reshape")(x, (-1, x.shape[3])), cols)  # [N*C*H, w]
        y = _prim("Reshape")(y, (x.shape[0], x.shape[1], x.shape[2], w))
        y = _prim("Transpose")(y, (0, 1, 3, 2))
        y = _prim("MatMul")(_prim("Reshape")(y, (-1, x.shape[2])), rows)
        return _prim("Transpose")(_prim("Reshape")(y, (x.shape[0], x.shape[1], w, h)),
                                  (0, 1, 3, 2))


@constexpr
def _size2(size):
    if isinstance(size, _C.Tensor):
        size = size.asnumpy().reshape(-1).tolist()
    size = tuple(int(v) for v in size)
    if len(size) != 2:
        raise ValueError(f"For 'ResizeBilinearV2', size must have 2 elements, but got {size}.")
    return size


@constexpr
def _resize_matrix(n_in, n_out, dtype):
    """[n_in, n_out]: output j samples input position j * n_in / n_out (legacy alignment),
    linear between its two neighbours, clamped at the border."""
    m = np.zeros((n_in, n_out))
    for j in range(n_out):
        p = j * n_in / n_out
        i0 = min(int(np.floor(p)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        f = p - i0
        m[i0, j] += 1 - f
        m[i1, j] += f
    return _C.Tensor(m).astype(dtype)


_FLOATS = (_C.float16, _C.float32, _C.float64)


# ------------------------------------------------------------------ ResizeBicubic
def _cubic(t, a):
    """The cubic convolution kernel's weights of the taps at -1, 0, 1, 2 for offset t."""
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return (far(t + 1), near(t), near(1 - t), far(2 - t))


@constexpr
def _bicubic_matrix(n_in, n_out, align_corners, half_pixel):
    """[n_out, n_in] float64: output j as a weighted sum of input samples (TensorFlow's
    resize_bicubic). scale = (n_in - 1) / (n_out - 1) with align_corners, else n_in / n_out;
    the source position is (j + 0.5) scale - 0.5 with half_pixel_centers, else j scale. Taps
    floor(x) - 1 .. floor(x) + 2 with the cubic kernel: a = -0.75 and indices clamped to the
    border (legacy), or with half pixel centres a = -0.5 (Keys) and taps outside the input
    dropped, the rest renormalised to sum 1."""
    if align_corners and n_out > 1:
        scale = (n_in - 1) / (n_out - 1)
    else:
        scale = n_in / n_out
    m = np.zeros((n_out, n_in))
    for j in range(n_out):
        x = (j + 0.5) * scale - 0.5 if half_pixel else j * scale
        base = math.floor(x)
        t = x - base
        w = _cubic(t, -0.5 if half_pixel else -0.75)
        taps = [base - 1 + k for k in range(4)]
        if half_pixel:
            inside = [0 <= i < n_in for i in taps]
            total = sum(wk for wk, ok in zip(w, inside) if ok)
            for wk, i, ok in zip(w, taps, inside):
                if ok:
                    m[j, i] += wk / total
        else:
            for wk, i in zip(w, taps):
                m[j, min(max(i, 0), n_in - 1)] += wk
    return m


@constexpr
def _bicubic_plan(shape, dtype, size):
    if isinstance(size, _C.Tensor):
        if size.dtype != _C.int32:
            raise TypeError(f"For 'ResizeBicubic', 'size' must be an int32 tensor, but got "
                            f"{size.dtype}.")
        size = size.asnumpy().reshape(-1).tolist()
    if not isinstance(size, (tuple, list)) or len(size) != 2 or \
            any(isinstance(v, bool) or int(v) != v or v <= 0 for v in size):
        raise ValueError(f"For 'ResizeBicubic', 'size' must hold two positive ints (new_height, "
                         f"new_width), but got {size!r}.")
    if dtype not in _FLOATS + (_C.int8, _C.uint8, _C.int16, _C.int32, _C.int64):
        raise TypeError(f"For 'ResizeBicubic', 'images' must be a real number tensor, but got "
                        f"{dtype}.")
    if len(shape) != 4 or min(shape[2:]) < 1:
        raise ValueError(f"For 'ResizeBicubic', 'images' must be 4-D (N, C, H, W) with H, W > 0, "
                         f"but got shape {tuple(shape)}.")
    return int(size[0]), int(size[1])


class ResizeBicubic(_Composed):
    """ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size): images
    (N, C, H, W) resized to size = (new_height, new_width) (an int32 tensor or a tuple) by
    TensorFlow's bicubic interpolation (_bicubic_matrix): separable, one [new, old] matrix per
    axis. Float images keep their dtype (float16 computed in float32); integer images give
    float32. align_corners=True is PyTorch's bicubic with align_corners=True. The output
    shape needs size's values: in graph mode size is a tuple or a tensor constant (not a
    graph input)."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        self.align_corners = _check_bool("ResizeBicubic", "align_corners", align_corners)
        self.half_pixel_centers = _check_bool("ResizeBicubic", "half_pixel_centers",
                                              half_pixel_centers)
        if align_corners and half_pixel_centers:
            raise ValueError("For 'ResizeBicubic', align_corners and half_pixel_centers cannot "
                             "both be True.")
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)

    def __call__(self, images, size):
        h, w = _bicubic_plan(images.shape, images.dtype, size)
        out_dtype = images.dtype if images.dtype in _FLOATS else _C.float32
        work = _C.float64 if images.dtype == _C.float64 else _C.float32
        x = prim("Cast")(images, work)
        n, c, old_h, old_w = images.shape
        rows = _C.Tensor(_bicubic_matrix(old_h, h, self.align_corners,
                                         self.half_pixel_centers)).astype(work)
        cols = _C.Tensor(_bicubic_matrix(old_w, w, self.align_corners,
                                         self.half_pixel_centers)).astype(work)
        y = prim("MatMul", transpose_b=True)(prim("Reshape")(x, (-1, old_w)), cols)
        y = prim("Transpose")(prim("Reshape")(y, (n * c, old_h, w)), (0, 2, 1))
        y = prim("MatMul", transpose_b=True)(prim("Reshape")(y, (-1, old_h)), rows)
        y = prim("Transpose")(prim("Reshape")(y, (n, c, w, h)), (0, 1, 3, 2))
        return prim("Cast")(y, out_dtype)


# ---- colour: RGB <-> HSV and the adjustments (TensorFlow's image ops, channels last) -------

def _channels(images, op):
    if not isinstance(images, _C.Tensor) or images.dtype not in (_C.float16, _C.float32,
                                                                 _C.float64):
        raise TypeError(f"For '{op}', 'images' must be a float16, float32 or float64 tensor, "
                        f"but got {getattr(images, 'dtype', type(images).__name__)}.")
    _last_is_3(images.shape, op)
    parts = _prim("Split", axis=-1, output_num=3)(images)
    return parts[0], parts[1], parts[2]


@constexpr
def _last_is_3(shape, op):
    if len(shape) < 1 or shape[-1] != 3:
        raise ValueError(f"For '{op}', the last dimension of 'images' must be 3 (R, G, B), but "
                         f"got shape {tuple(shape)}.")


def _rgb_to_hsv(r, g, b):
    v = _prim("Maximum")(_prim("Maximum")(r, g), b)
    delta = v - _prim("Minimum")(_prim("Minimum")(r, g), b)
    zero = _prim("ZerosLike")(v)
    s = _prim("Select")(v > 0, delta / _prim("Select")(v > 0, v, zero + 1), zero)
    safe = _prim("Select")(delta > 0, delta, zero + 1)
    h = _prim("Select")(_prim("Equal")(v, r), (g - b) / safe,
                        _prim("Select")(_prim("Equal")(v, g), (b - r) / safe + 2.0,
                                        (r - g) / safe + 4.0))
    h = _prim("Select")(delta > 0, h / 6.0, zero)
    return h - _prim("Floor")(h), s, v      # h in [0, 1)


def _hsv_to_rgb(h, s, v):
    """f(n) = v - v s max(0, min(k, 4 - k, 1)), k = (n + 6 h) mod 6, for n = 5, 3, 1."""
    out = []
    for n in (5.0, 3.0, 1.0):
        k = n + 6.0 * h
        k = k - 6.0 * _prim("Floor")(k / 6.0)
        w = _prim("Maximum")(_prim("Minimum")(_prim("Minimum")(k, 4.0 - k), 1.0), 0.0)
        out.append(v - v * s * w)
    return _prim("Concat", axis=-1)(tuple(out))


@_export
class RGBToHSV(_Composed):
    """RGBToHSV()(images): [..., 3] RGB values in [0, 1] to HSV (hue in [0, 1))."""

    def __init__(self):
        super().__init__()

    def __call__(self, images):
        h, s, v = _rgb_to_hsv(*_channels(images, "RGBToHSV"))
        return _prim("Concat", axis=-1)((h, s, v))


def _scalar_tensor(x, name, op):
    if not isinstance(x, _C.Tensor) or x.ndim != 0 or not x.dtype.is_floating_point:
        raise TypeError(f"For '{op}', '{name}' must be a 0-D float tensor, but got "
                        f"{getattr(x, 'shape', type(x).__name__)}.")
    return x


@_export
class AdjustHue(_Composed):
    """AdjustHue()(images, delta): images [..., 3] (RGB) with delta added to the hue (mod 1)."""

    def __init__(self):
        super().__init__()

    def __call__(self, images, delta):
        d = _prim("Cast")(_scalar_tensor(delta, "delta", "AdjustHue"), images.dtype)
        h, s, v = _rgb_to_hsv(*_channels(images, "AdjustHue"))
        h = h + d
        return _hsv_to_rgb(h - _prim("Floor")(h), s, v)


@_export
class AdjustSaturation(_Composed):
    """AdjustSaturation()(images, scale): images [..., 3] (RGB) with the saturation multiplied
    by scale (clamped to [0, 1])."""

    def __init__(self):
        super().__init__()

    def __call__(self, images, scale):
        k = _prim("Cast")(_scalar_tensor(scale, "scale", "AdjustSaturation"), images.dtype)
        h, s, v = _rgb_to_hsv(*_channels(images, "AdjustSaturation"))
        s = _prim("Maximum")(_prim("Minimum")(s * k, 1.0), 0.0)
        return _hsv_to_rgb(h, s, v)


@_export
class AdjustContrastv2(_Composed):
    """AdjustContrastv2()(images, contrast_factor): images [..., H, W, C] moved away from (or
    towards) each channel's mean over H and W: (x - mean) * contrast_factor + mean."""

    def __init__(self):
        super().__init__()

    def __call__(self, images, contrast_factor):
        if not isinstance(images, _C.Tensor) or images.dtype not in (_C.float16, _C.float32) \
                or images.ndim < 3:
            raise TypeError(f"For 'AdjustContrastv2', 'images' must be a float16 or float32 "
                            f"tensor [..., H, W, C], but got "
                            f"{getattr(images, 'shape', type(images).__name__)}.")
        f = _prim("Cast")(_scalar_tensor(contrast_factor, "contrast_factor",
                                         "AdjustContrastv2"), images.dtype)
        mean = _prim("ReduceMean", keep_dims=True)(images, (-3, -2))
        return (images - mean) * f + mean
