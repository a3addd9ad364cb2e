"""Image and volume primitives of MindSpore 2.x composed from table ops: ResizeBicubic
(TensorFlow's bicubic resize), ExtractVolumePatches (TensorFlow's extract_volume_patches on
NCDHW) and FractionalMaxPool3DWithFixedKsize (with the random samples as an input). Both
modes and gradients come from the ops they are built of.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import array_func as _a
from mycel.ops.function import fractional_fixed_func as _ff
from mycel.ops.function._util import prim
from mycel.ops.operations._compat_checks import _check_bool, _check_tensor
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.primitive import constexpr

__all__ = ["ResizeBicubic", "ExtractVolumePatches", "FractionalMaxPool3DWithFixedKsize"]

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


# ------------------------------------------------------------------ ExtractVolumePatches
def _triple(op, name, v):
    """kernel_size / strides: an int, 3 ints (d, h, w) or 5 ints (1, 1, d, h, w)."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v, v, v)
    if not isinstance(v, (tuple, list)) or len(v) not in (3, 5) or \
            any(isinstance(e, bool) or not isinstance(e, int) for e in v):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple/list of 3 or 5 ints, "
                        f"but got {v!r}.")
    if len(v) == 5:
        if v[0] != 1 or v[1] != 1:
            raise ValueError(f"For '{op}', the first two entries of '{name}' must be 1, but got "
                             f"{tuple(v)}.")
        v = v[2:]
    if min(v) < 1:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {tuple(v)}.")
    return tuple(v)


@constexpr
def _volume_plan(shape, ks, st, padding):
    if len(shape) != 5:
        raise ValueError(f"For 'ExtractVolumePatches', the input must be 5-D (N, C, D, H, W), "
                         f"but got shape {tuple(shape)}.")
    spatial = tuple(shape[2:])
    if padding == "VALID":
        out = tuple((n - k) // s + 1 if n >= k else 0 for n, k, s in zip(spatial, ks, st))
        pads = ((0, 0),) * 3
    else:
        out = tuple(-(-n // s) for n, s in zip(spatial, st))
        total = tuple(max((o - 1) * s + k - n, 0) for o, s, k, n in zip(out, st, ks, spatial))
        pads = tuple((t // 2, t - t // 2) for t in total)
    if min(out) < 1:
        raise ValueError(f"For 'ExtractVolumePatches', the kernel {ks} does not fit the input "
                         f"of shape {tuple(shape)} with padding 'VALID'.")
    return out, pads


class ExtractVolumePatches(_Composed):
    """ExtractVolumePatches(kernel_size, strides, padding='VALID')(input_x): the kd x kh x kw
    patches of input_x (N, C, D, H, W) at the given strides as (N, kd * kh * kw * C, oD, oH,
    oW): channel ((i * kh + j) * kw + l) * C + c holds input[n, c, d * sd + i, h * sh + j,
    w * sw + l] (TensorFlow's extract_volume_patches order, the channel fastest). padding
    'VALID' takes whole patches; 'SAME' gives ceil(n / s) positions per axis, zero-padded
    with the smaller half of the padding before. kernel_size and strides are an int, 3 ints
    or 5 ints (1, 1, d, h, w)."""

    def __init__(self, kernel_size, strides, padding="VALID"):
        op = "ExtractVolumePatches"
        self.kernel_size = _triple(op, "kernel_size", kernel_size)
        self.strides = _triple(op, "strides", strides)
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"For '{op}', 'padding' must be 'VALID' or 'SAME', but got "
                             f"{padding!r}.")
        self.padding = padding.upper()
        super().__init__(kernel_size=self.kernel_size, strides=self.strides,
                         padding=self.padding)

    def __call__(self, input_x):
        ks, st = self.kernel_size, self.strides
        out, pads = _volume_plan(input_x.shape, ks, st, self.padding)
        x = input_x
        if self.padding == "SAME":
            x = _a.pad(x, (pads[2][0], pads[2][1], pads[1][0], pads[1][1], pads[0][0],
                           pads[0][1]))
        n, c = x.shape[0], x.shape[1]
        pieces = ()
        for i in range(ks[0]):
            for j in range(ks[1]):
                for k in range(ks[2]):
                    begin = (0, 0, i, j, k)
                    end = (n, c, i + (out[0] - 1) * st[0] + 1, j + (out[1] - 1) * st[1] + 1,
                           k + (out[2] - 1) * st[2] + 1)
                    pieces = pieces + (_a.strided_slice(x, begin, end, (1, 1) + st),)
        y = _a.stack(pieces, 1)  # (N, K, C, oD, oH, oW)
        return _a.reshape(y, (n, len(pieces) * c) + out)


# ------------------------------------------------------------------ FractionalMaxPool3D
def _three(op, name, v):
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v, v, v)
    if not isinstance(v, (tuple, list)) or len(v) != 3 or \
            any(isinstance(e, bool) or not isinstance(e, int) or e < 1 for e in v):
        raise ValueError(f"For '{op}', '{name}' must be a positive int or 3 positive ints, but "
                         f"got {v!r}.")
    return tuple(v)


@constexpr
def _fmp3_plan(shape, dtype, s_shape, s_dtype, channels_last):
    op = "FractionalMaxPool3DWithFixedKsize"
    if len(shape) not in (4, 5):
        raise ValueError(f"For '{op}', 'x' must be 4-D or 5-D, but got shape {tuple(shape)}.")
    if dtype not in _FLOATS + (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', 'x' must be float16, float32, float64, int32 or int64, "
                        f"but got {dtype}.")
    if s_dtype not in _FLOATS:
        raise TypeError(f"For '{op}', 'random_samples' must be float16, float32 or float64, "
                        f"but got {s_dtype}.")
    n = shape[0] if len(shape) == 5 else 1
    c = shape[-1] if channels_last else shape[-4]
    if tuple(s_shape) != (n, c, 3):
        raise ValueError(f"For '{op}', 'random_samples' must be [N, C, 3] = [{n}, {c}, 3], but "
                         f"got {tuple(s_shape)}.")
    return True


class FractionalMaxPool3DWithFixedKsize(_Composed):
    """FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format='NCDHW')(x,
    random_samples) -> (y, argmax int64): 3-d fractional max pooling of x (N, C, D, H, W) or
    (C, D, H, W) (channels last with 'NDHWC') with the window ksize and output size
    output_shape (each an int or (d, h, w)); random_samples [N, C, 3] in [0, 1) place each
    plane's windows (their columns drive d, h, w), Graham's sequence as in
    ops.fractional_max_pool3d (ops/function/fractional_fixed_func.py); argmax is the flat
    position d * H * W + h * W + w of each window's maximum within its plane."""

    def __init__(self, ksize, output_shape, data_format="NCDHW"):
        op = "FractionalMaxPool3DWithFixedKsize"
        self.ksize = _three(op, "ksize", ksize)
        self.output_shape = _three(op, "output_shape", output_shape)
        if data_format not in ("NCDHW", "NDHWC"):
            raise ValueError(f"For '{op}', 'data_format' must be 'NCDHW' or 'NDHWC', but got "
                             f"{data_format!r}.")
        self.data_format = data_format
        super().__init__(ksize=self.ksize, output_shape=self.output_shape,
                         data_format=data_format)

    def __call__(self, x, random_samples):
        op = "FractionalMaxPool3DWithFixedKsize"
        _check_tensor(op, "x", x, _FLOATS + (_C.int32, _C.int64))
        if not isinstance(random_samples, _C.Tensor):  # (random_samples.shape: AttributeError)
            raise TypeError(f"For '{op}', random_samples must be a Tensor, but got "
                            f"{type(random_samples).__name__}.")
        last = self.data_format == "NDHWC"
        _fmp3_plan(x.shape, x.dtype, random_samples.shape, random_samples.dtype, last)
        if last:
            perm = (0, 4, 1, 2, 3) if x.ndim == 5 else (3, 0, 1, 2)
            x = prim("Transpose")(x, perm)
        y, idx = _ff.fractional_max_pool_nd(op, x, 3, self.ksize, self.output_shape, None, True,
                                            random_samples)
        if last:
            back = (0, 2, 3, 4, 1) if x.ndim == 5 else (1, 2, 3, 0)
            y, idx = prim("Transpose")(y, back), prim("Transpose")(idx, back)
        return y, idx
