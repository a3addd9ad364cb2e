"""MindSpore's image primitives of its ops test table that mycel composes from its own ops:
ResizeArea, ResizeV2, ScaleAndTranslate and the gradients of CropAndResize
(CropAndResizeGradImage, CropAndResizeGradBoxes). image_ops lists them where MindSpore defines them.

Attributes in ``__init__``, inputs in ``__call__``; each is a _Composed primitive whose
``__call__`` graph mode parses, so both modes agree. The CropAndResize gradients are the
vector-Jacobian products of the composed CropAndResize (ops/function/crop_resize_func.py):
TensorFlow's rules, the interpolation weights' derivatives in the box corners where a sample
falls inside the image.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.composite import grad as _grad
from mycel.ops.function import crop_resize_func as _cr
from mycel.ops.function._util import prim, tensor_arg
from mycel.ops.operations.composed_image_ops import ResizeBilinearV2
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.operations.pool_compat_ops import ResizeNearestNeighborV2
from mycel.ops.primitive import constexpr

__all__ = ["ResizeArea", "ResizeV2", "CropAndResizeGradImage", "CropAndResizeGradBoxes",
           "ScaleAndTranslate"]

_REALS = (_C.int8, _C.uint8, _C.int16, _C.uint16, _C.int32, _C.int64, _C.float16, _C.float32,
          _C.float64)


def _tensor(op, name, x):
    return tensor_arg(x, op, name)


@constexpr
def _ints(op, name, v, n):
    if isinstance(v, _C.Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    v = tuple(int(e) for e in v)
    if len(v) != n or any(e < 1 for e in v):
        raise ValueError(f"For '{op}', '{name}' must hold {n} positive ints, but got {v}.")
    return v


# ---- ResizeArea ------------------------------------------------------------------------------

@constexpr
def _area_matrix(n_in, n_out, align_corners):
    """[n_out, n_in] float32 weights of TensorFlow's area resizing along one axis: output i
    averages the input span [i * s, (i + 1) * s) (s = n_in / n_out, or (n_in - 1) /
    (n_out - 1) with align_corners), each input cell weighted by the part of it covered."""
    s = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    m = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        lo, hi = i * s, (i + 1) * s
        for j in range(int(np.floor(lo)), int(np.ceil(hi))):
            m[i, min(j, n_in - 1)] += min(j + 1, hi) - max(j, lo)
    return _C.Tensor((m / s).astype(np.float32))


@constexpr
def _area_plan(shape, dtype, op="ResizeArea"):
    if len(shape) != 4 or dtype not in _REALS:
        raise TypeError(f"For '{op}', images must be a 4-D (N, H, W, C) real tensor, but "
                        f"got shape {tuple(shape)} and dtype {dtype}.")


class ResizeArea(_Composed):
    """ResizeArea(align_corners=False)(images, size): images (N, H, W, C) resized to size =
    (new_height, new_width) (a tuple or a constant int32 tensor) by area averaging
    (TensorFlow's resize_area: each output pixel the mean of the input area it covers, partial
    pixels by their covered fraction); float32 output."""

    def __init__(self, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'ResizeArea', 'align_corners' must be a bool, but got "
                            f"{type(align_corners).__name__}.")
        super().__init__(align_corners=align_corners)
        self.align_corners = align_corners

    def __call__(self, images, size):
        _tensor("ResizeArea", "images", images)
        _area_plan(images.shape, images.dtype)
        h, w = _ints("ResizeArea", "size", size, 2)
        n, hi, wi, c = images.shape
        x = prim("Cast")(images, _C.float32)
        rows = _area_matrix(hi, h, self.align_corners)  # [h, H]
        cols = _area_matrix(wi, w, self.align_corners)  # [w, W]
        # rows: [h, H] x [H, N*W*C]
        x = prim("Reshape")(prim("Transpose")(x, (1, 0, 2, 3)), (hi, n * wi * c))
        x = prim("Reshape")(prim("MatMul")(rows, x), (h, n, wi, c))
        # cols: [w, W] x [W, h*N*C]
        x = prim("Reshape")(prim("Transpose")(x, (2, 0, 1, 3)), (wi, h * n * c))
        x = prim("Reshape")(prim("MatMul")(cols, x), (w, h, n, c))
        return prim("Transpose")(x, (2, 1, 0, 3))


# ---- ResizeV2 -------------------------------------------------------------------------------

class ResizeV2(_Composed):
    """ResizeV2(coordinate_transformation_mode='half_pixel', mode='nearest')(x, roi, scales,
    sizes): x (N, C, H, W) resized to sizes = (N, C, new_h, new_w) (int64; N and C kept; a
    constant in GRAPH mode); roi and scales are unused, as in MindSpore. 'nearest' takes
    source pixel floor(i * in / out) ('asymmetric'), floor((i + 0.5) * in / out)
    ('half_pixel') or round(i * (in - 1) / (out - 1)) ('align_corners'), as
    ResizeNearestNeighborV2; 'linear' samples bilinearly at the same coordinates (half_pixel:
    (i + 0.5) * in / out - 0.5), as ResizeBilinearV2. mode 'cubic' is not supported in mycel
    (ValueError)."""

    def __init__(self, coordinate_transformation_mode="half_pixel", mode="nearest"):
        op = "ResizeV2"
        if coordinate_transformation_mode not in ("align_corners", "half_pixel", "asymmetric"):
            raise ValueError(f"For '{op}', coordinate_transformation_mode must be "
                             f"'align_corners', 'half_pixel' or 'asymmetric', but got "
                             f"{coordinate_transformation_mode!r}.")
        if mode not in ("nearest", "linear"):
            raise ValueError(f"For '{op}', mode must be 'nearest' or 'linear' in mycel ('cubic' "
                             f"is not supported), but got {mode!r}.")
        super().__init__(coordinate_transformation_mode=coordinate_transformation_mode,
                         mode=mode)
        self.coordinate_transformation_mode, self.mode = coordinate_transformation_mode, mode

    def __call__(self, x, roi, scales, sizes):
        op = "ResizeV2"
        _tensor(op, "x", x)
        out = _ints(op, "sizes", sizes, 4)
        _resize_v2_plan(x.shape, out)
        align = self.coordinate_transformation_mode == "align_corners"
        half = self.coordinate_transformation_mode == "half_pixel"
        if self.mode == "nearest":
            return ResizeNearestNeighborV2(align, half)(x, out[2:])
        return ResizeBilinearV2(align, half)(x, out[2:])


@constexpr
def _resize_v2_plan(shape, sizes):
    if len(shape) != 4 or tuple(sizes[:2]) != tuple(shape[:2]):
        raise ValueError(f"For 'ResizeV2', x must be 4-D and sizes keep its N and C, but got x "
                         f"of shape {tuple(shape)} and sizes {sizes}.")


# ---- CropAndResize gradients -----------------------------------------------------------------

@constexpr
def _grad_plan(op, g_shape, g_dtype, b_shape, bi_shape):
    if len(g_shape) != 4 or g_dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For '{op}', grads must be a 4-D (num_boxes, crop_h, crop_w, C) float "
                        f"tensor, but got shape {tuple(g_shape)} and dtype {g_dtype}.")
    if tuple(b_shape) != (g_shape[0], 4) or tuple(bi_shape) != (g_shape[0],):
        raise ValueError(f"For '{op}', boxes must be ({g_shape[0]}, 4) and box_index "
                         f"({g_shape[0]},), but got {tuple(b_shape)} and {tuple(bi_shape)}.")


def _weighted(image, boxes, box_index, grads, crop, method):
    out = _cr.crop_and_resize(image, boxes, box_index, crop, method)
    return prim("ReduceSum")(out * grads, ())


class CropAndResizeGradImage(_Composed):
    """CropAndResizeGradImage(T, method='bilinear')(grads, boxes, box_index, image_size): the
    gradient of CropAndResize at an image of shape image_size (N, H, W, C: a tuple or a
    constant int32 tensor) for grads (num_boxes, crop_h, crop_w, C), in dtype T (float16,
    float32 or float64); method 'bilinear' or 'nearest'."""

    def __init__(self, T, method="bilinear"):  # noqa: N803 (MindSpore's name)
        if T not in (_C.float16, _C.float32, _C.float64):
            raise TypeError(f"For 'CropAndResizeGradImage', 'T' must be float16, float32 or "
                            f"float64, but got {T!r}.")
        if method not in ("bilinear", "nearest", "bilinear_v2"):
            raise ValueError(f"For 'CropAndResizeGradImage', 'method' must be 'bilinear', "
                             f"'nearest' or 'bilinear_v2', but got {method!r}.")
        super().__init__(T=T, method=method)
        self.T, self.method = T, method

    def __call__(self, grads, boxes, box_index, image_size):
        op = "CropAndResizeGradImage"
        for name, t in (("grads", grads), ("boxes", boxes), ("box_index", box_index)):
            _tensor(op, name, t)
        _grad_plan(op, grads.shape, grads.dtype, boxes.shape, box_index.shape)
        size = _ints(op, "image_size", image_size, 4)
        image = prim("Fill")(_C.float32, size, 0.0)
        method = "bilinear" if self.method == "bilinear_v2" else self.method
        g = _grad(_weighted)(image, boxes, box_index, prim("Cast")(grads, _C.float32),
                             tuple(grads.shape[1:3]), method)
        return prim("Cast")(g, self.T)


class CropAndResizeGradBoxes(_Composed):
    """CropAndResizeGradBoxes(method='bilinear')(grads, images, boxes, box_index): the
    gradient of CropAndResize in the boxes (num_boxes, 4) for grads (num_boxes, crop_h,
    crop_w, C) and images (N, H, W, C); float32."""

    def __init__(self, method="bilinear"):
        if method != "bilinear":
            raise ValueError(f"For 'CropAndResizeGradBoxes', 'method' must be 'bilinear', but "
                             f"got {method!r}.")
        super().__init__(method=method)
        self.method = method

    def __call__(self, grads, images, boxes, box_index):
        op = "CropAndResizeGradBoxes"
        for name, t in (("grads", grads), ("images", images), ("boxes", boxes),
                        ("box_index", box_index)):
            _tensor(op, name, t)
        _grad_plan(op, grads.shape, grads.dtype, boxes.shape, box_index.shape)
        fn = _grad(_weighted, grad_position=1)
        return fn(prim("Cast")(images, _C.float32), prim("Cast")(boxes, _C.float32), box_index,
                  prim("Cast")(grads, _C.float32), tuple(grads.shape[1:3]), "bilinear")


# ---- ScaleAndTranslate -----------------------------------------------------------------------

def _lanczos(r):
    def k(x):
        x = np.abs(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = r * np.sin(np.pi * x) * np.sin(np.pi * x / r) / (np.pi ** 2 * x * x)
        return np.where(x > r, 0.0, np.where(x <= 1e-3, 1.0, v))
    return k, float(r)


def _cubic(b_or_a, mitchell):
    def keys(x):  # Keys' cubic, a = -0.5
        x = np.abs(x)
        return np.where(x >= 2, 0.0, np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4) * x + 2,
                                              (1.5 * x - 2.5) * x * x + 1))

    def mitchell_k(x):  # Mitchell-Netravali, B = C = 1/3
        x = np.abs(x)
        return np.where(x >= 2, 0.0,
                        np.where(x >= 1, ((-7 / 18 * x + 2) * x - 10 / 3) * x + 16 / 9,
                                 (7 / 6 * x - 2) * x * x + 8 / 9))
    return (mitchell_k if mitchell else keys), 2.0


_KERNELS = {
    "lanczos1": lambda: _lanczos(1), "lanczos3": lambda: _lanczos(3),
    "lanczos5": lambda: _lanczos(5),
    "gaussian": lambda: (lambda x: np.where(np.abs(x) >= 2.0, 0.0,
                                            np.exp(-x * x / (2 * 0.5 ** 2))), 2.0),
    "box": lambda: (lambda x: np.where(np.abs(x) < 0.5, 1.0,
                                       np.where(np.abs(x) == 0.5, 0.5, 0.0)), 1.0),
    "triangle": lambda: (lambda x: np.maximum(1.0 - np.abs(x), 0.0), 1.0),
    "keyscubic": lambda: _cubic(-0.5, False),
    "mitchellcubic": lambda: _cubic(1 / 3, True),
}


@constexpr
def _scale_translate_matrix(kernel_type, antialias, n_in, n_out, scale, translate):
    """[n_out, n_in] float32 weights of TensorFlow's scale_and_translate along one axis:
    output x samples the input at s = (x + 0.5) / scale - translate / scale; sources j within
    the kernel's radius (stretched by 1 / scale when antialiasing a downscale) weigh
    kernel((j + 0.5 - s) / kernel_scale), normalised to sum 1; a sample outside [0, n_in] is
    0."""
    kernel, radius = _KERNELS[kernel_type]()
    inv = 1.0 / scale
    ks = max(inv, 1.0) if antialias else 1.0
    m = np.zeros((n_out, n_in), np.float64)
    for x in range(n_out):
        s = (x + 0.5) * inv - inv * translate
        if s < 0 or s > n_in:
            continue
        lo = min(max(int(np.ceil(s - radius * ks - 0.5)), 0), n_in - 1)
        hi = min(max(int(np.floor(s + radius * ks - 0.5)), 0), n_in - 1) + 1
        src = np.arange(lo, hi)
        w = kernel(np.abs((src + 0.5 - s) / ks))
        total = w.sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            w = w / total
        m[x, lo:hi] = w
    return _C.Tensor(m.astype(np.float32))


@constexpr
def _floats2(op, name, v):
    if isinstance(v, _C.Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    v = tuple(float(e) for e in v)
    if len(v) != 2:
        raise ValueError(f"For '{op}', '{name}' must hold 2 floats, but got {v}.")
    return v


class ScaleAndTranslate(_Composed):
    """ScaleAndTranslate(kernel_type='lanczos3', antialias=True)(images, size, scale,
    translation): images (N, H, W, C) resampled to size (new_h, new_w) with the map
    output = input * scale + translation per axis (scale, translation: (y, x)), TensorFlow's
    scale_and_translate: separable, one weight matrix per axis from the kernel ('lanczos1',
    'lanczos3', 'lanczos5', 'gaussian', 'box', 'triangle', 'keyscubic', 'mitchellcubic'),
    stretched when antialiasing a downscale; float32 output. size, scale and translation are
    constants in GRAPH mode (they decide the weights)."""

    def __init__(self, kernel_type="lanczos3", antialias=True):
        if kernel_type not in _KERNELS:
            raise ValueError(f"For 'ScaleAndTranslate', kernel_type must be one of "
                             f"{sorted(_KERNELS)}, but got {kernel_type!r}.")
        if not isinstance(antialias, bool):
            raise TypeError(f"For 'ScaleAndTranslate', antialias must be a bool, but got "
                            f"{type(antialias).__name__}.")
        super().__init__(kernel_type=kernel_type, antialias=antialias)
        self.kernel_type, self.antialias = kernel_type, antialias

    def __call__(self, images, size, scale, translation):
        op = "ScaleAndTranslate"
        _tensor(op, "images", images)
        _area_plan(images.shape, images.dtype, op)
        h, w = _ints(op, "size", size, 2)
        sy, sx = _floats2(op, "scale", scale)
        ty, tx = _floats2(op, "translation", translation)
        if sy <= 0 or sx <= 0:
            raise ValueError(f"For '{op}', scale must be positive, but got {(sy, sx)}.")
        n, hi, wi, c = images.shape
        rows = _scale_translate_matrix(self.kernel_type, self.antialias, hi, h, sy, ty)
        cols = _scale_translate_matrix(self.kernel_type, self.antialias, wi, w, sx, tx)
        x = prim("Cast")(images, _C.float32)
        x = prim("Reshape")(prim("Transpose")(x, (1, 0, 2, 3)), (hi, n * wi * c))
        x = prim("Reshape")(prim("MatMul")(rows, x), (h, n, wi, c))
        x = prim("Reshape")(prim("Transpose")(x, (2, 0, 1, 3)), (wi, h * n * c))
        x = prim("Reshape")(prim("MatMul")(cols, x), (w, h, n, c))
        return prim("Transpose")(x, (2, 1, 0, 3))
