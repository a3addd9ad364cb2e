"""MindSpore's pooling, resizing and normalisation primitives of its ops test table that mycel
composes from its own ops: MaxPoolV1 / AvgPoolV1 and their gradients, AdaptiveMaxPool3D,
FractionalMaxPoolWithFixedKsize and the fixed-ksize gradients, InstanceNormV2 (+Grad),
SparseSoftmaxCrossEntropyWithLogitsV2, UpsampleNearest3DGrad / UpsampleTrilinear3DGrad,
ResizeBicubicGrad and ResizeNearestNeighborV2 (+Grad).

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's; each is a _Composed
primitive whose ``__call__`` graph mode parses, so both modes agree and gradients come from the
ops it is built of. A gradient primitive is the vector-Jacobian product of its forward's
composition (``ops.grad``), exact for these piecewise-linear / linear forwards. The family
modules (nn_ops, _grad_ops, array_ops) list the classes where MindSpore defines them.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.composite import grad as _grad
from mycel.ops.function import fractional_fixed_func as _ff
from mycel.ops.function import resample_func as _rs
from mycel.ops.function._util import prim, tensor_arg
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.operations.composed_image_ops import ResizeBicubic
from mycel.ops.operations.composed_nn_ops import UpsampleNearest3D, UpsampleTrilinear3D
from mycel.ops.primitive import constexpr, make_primitive_class

# the op-table classes (ops.operations makes the same ones; importing it here would be a cycle)
_MaxPool, _AvgPool = make_primitive_class("MaxPool"), make_primitive_class("AvgPool")
_MaxPoolGrad = make_primitive_class("MaxPoolGrad")

__all__ = ["MaxPoolV1", "AvgPoolV1", "MaxPoolGradV1", "AvgPoolGradV1", "AdaptiveMaxPool3D",
           "FractionalMaxPoolWithFixedKsize", "FractionalMaxPoolGradWithFixedKsize",
           "FractionalMaxPool3DGradWithFixedKsize", "InstanceNormV2", "InstanceNormV2Grad",
           "SparseSoftmaxCrossEntropyWithLogitsV2", "UpsampleNearest3DGrad",
           "UpsampleTrilinear3DGrad", "ResizeBicubicGrad", "ResizeNearestNeighborV2",
           "ResizeNearestNeighborV2Grad", "ResizeNearestNeighborGrad"]

_FLOATS = (_C.float16, _C.float32, _C.float64)


def _tensor(op, name, x):
    return tensor_arg(x, op, name)


@constexpr
def _values(op, name, v, n):
    """A tuple of n ints from a tuple/list or a constant 1-D tensor."""
    if isinstance(v, _C.Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,) * n
    v = tuple(int(e) for e in v)
    if len(v) != n or any(e < 1 for e in v):
        raise ValueError(f"For '{op}', '{name}' must be {n} positive ints, but got {v}.")
    return v


# ---- MaxPoolV1 / AvgPoolV1 -------------------------------------------------------------------

class MaxPoolV1(_MaxPool):
    """MaxPoolV1(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x): the max
    pooling of P.MaxPool (MindSpore's older kernel of the same computation)."""


class AvgPoolV1(_AvgPool):
    """AvgPoolV1(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x): the
    average pooling of P.AvgPool."""


class MaxPoolGradV1(_MaxPoolGrad):
    """MaxPoolGradV1(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(
    orig_input, orig_output, grad): MaxPool's gradient, grad routed to each window's first
    maximum (P.MaxPoolGrad)."""


class AvgPoolGradV1(_Composed):
    """AvgPoolGradV1(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(
    orig_input_shape, grad): AvgPool's gradient for an input of shape orig_input_shape (a tuple
    or a constant 1-D tensor), each window's grad spread evenly over it."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        super().__init__(kernel_size=kernel_size, strides=strides, pad_mode=pad_mode,
                         data_format=data_format)
        self._pool = _AvgPool(kernel_size, strides, pad_mode, data_format)

    def __call__(self, orig_input_shape, grad):
        _tensor("AvgPoolGradV1", "grad", grad)
        shape = _values("AvgPoolGradV1", "orig_input_shape", orig_input_shape, 4)
        x = prim("Fill")(grad.dtype, shape, 0.0)
        return _grad(self._weighted)(x, grad)

    def _weighted(self, x, grad):
        return prim("ReduceSum")(self._pool(x) * grad, ())


# ---- AdaptiveMaxPool3D -----------------------------------------------------------------------

class AdaptiveMaxPool3D(_Composed):
    """AdaptiveMaxPool3D()(x, output_size) -> (y, argmax int32): the maximum over adaptive bins
    of the last three axes of x (N, C, D, H, W) or (C, D, H, W); output_size three positive
    ints (a tuple or a constant int32 tensor); argmax the flat index d * H * W + h * W + w of
    each maximum within its plane (ops.adaptive_max_pool3d)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, output_size):
        _tensor("AdaptiveMaxPool3D", "x", x)
        size = _values("AdaptiveMaxPool3D", "output_size", output_size, 3)
        y, idx = _rs.adaptive_max_pool3d(x, size, True)
        return y, prim("Cast")(idx, _C.int32)


# ---- fractional max pooling with a fixed window ----------------------------------------------

@constexpr
def _fmp2_plan(op, x_shape, s_shape, s_dtype):
    if len(x_shape) != 4:
        raise ValueError(f"For '{op}', input_x must be 4-D (N, C, H, W), but got shape "
                         f"{tuple(x_shape)}.")
    if tuple(s_shape) != (x_shape[0], x_shape[1], 2) or s_dtype not in _FLOATS:
        raise ValueError(f"For '{op}', random_samples must be a float tensor of shape "
                         f"{(x_shape[0], x_shape[1], 2)}, but got {tuple(s_shape)} {s_dtype}.")


class FractionalMaxPoolWithFixedKsize(_Composed):
    """FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format='NCHW')(input_x,
    random_samples) -> (y, argmax int64): 2-d fractional max pooling of input_x (N, C, H, W)
    with window ksize and output size output_shape (each an int or (h, w)); random_samples
    [N, C, 2] in [0, 1) place each plane's windows (Graham's sequence,
    ops.fractional_max_pool2d); argmax is the flat position h * W + w of each window's maximum
    within its plane."""

    def __init__(self, ksize, output_shape, data_format="NCHW"):
        op = "FractionalMaxPoolWithFixedKsize"
        self.ksize = _values(op, "ksize", ksize, 2)
        self.output_shape = _values(op, "output_shape", output_shape, 2)
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', 'data_format' must be 'NCHW', but got "
                             f"{data_format!r}.")
        self.data_format = data_format
        super().__init__(ksize=self.ksize, output_shape=self.output_shape,
                         data_format=data_format)

    def __call__(self, input_x, random_samples):
        op = "FractionalMaxPoolWithFixedKsize"
        _tensor(op, "input_x", input_x)
        _tensor(op, "random_samples", random_samples)
        _fmp2_plan(op, input_x.shape, random_samples.shape, random_samples.dtype)
        return _ff.fractional_max_pool_nd(op, input_x, 2, self.ksize, self.output_shape, None,
                                          True, random_samples)


@constexpr
def _argmax_grad_plan(op, x_shape, g_shape, a_shape, a_dtype, dims):
    if len(x_shape) != dims + 2 or tuple(g_shape[:2]) != tuple(x_shape[:2]) or \
            len(g_shape) != dims + 2 or tuple(a_shape) != tuple(g_shape):
        raise ValueError(f"For '{op}', origin_input must be {dims + 2}-D and out_backprop and "
                         f"argmax of one shape with origin_input's first two dims, but got "
                         f"{tuple(x_shape)}, {tuple(g_shape)} and {tuple(a_shape)}.")
    if a_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', argmax must be int32 or int64, but got {a_dtype}.")
    plane = int(np.prod(x_shape[2:]))
    rows = int(x_shape[0] * x_shape[1])
    return rows, plane, int(np.prod(g_shape[2:]))


def _argmax_grad(op, origin_input, out_backprop, argmax, dims):
    """out_backprop added at argmax (flat positions within each plane) into zeros shaped like
    origin_input, in out_backprop's dtype."""
    _tensor(op, "origin_input", origin_input)
    _tensor(op, "out_backprop", out_backprop)
    _tensor(op, "argmax", argmax)
    rows, plane, per = _argmax_grad_plan(op, origin_input.shape, out_backprop.shape,
                                         argmax.shape, argmax.dtype, dims)
    base = _C.Tensor((np.arange(rows, dtype=np.int64) * plane).reshape(rows, 1))
    flat = prim("Add")(prim("Reshape")(prim("Cast")(argmax, _C.int64), (rows, per)), base)
    flat = prim("Reshape")(flat, (rows * per, 1))
    upd = prim("Reshape")(out_backprop, (rows * per,))
    out = prim("ScatterNd")(flat, upd, (rows * plane,))
    return prim("Reshape")(out, origin_input.shape)


class FractionalMaxPoolGradWithFixedKsize(_Composed):
    """FractionalMaxPoolGradWithFixedKsize(data_format='NCHW')(origin_input, out_backprop,
    argmax): FractionalMaxPoolWithFixedKsize's gradient, out_backprop added at each window's
    argmax into zeros of origin_input's shape (out_backprop's dtype)."""

    def __init__(self, data_format="NCHW"):
        if data_format != "NCHW":
            raise ValueError(f"For 'FractionalMaxPoolGradWithFixedKsize', 'data_format' must be "
                             f"'NCHW', but got {data_format!r}.")
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, origin_input, out_backprop, argmax):
        return _argmax_grad("FractionalMaxPoolGradWithFixedKsize", origin_input,
                            out_backprop, argmax, 2)


class FractionalMaxPool3DGradWithFixedKsize(_Composed):
    """FractionalMaxPool3DGradWithFixedKsize(data_format='NCDHW')(origin_input, out_backprop,
    argmax): FractionalMaxPool3DWithFixedKsize's gradient (as the 2-d one, planes D * H * W)."""

    def __init__(self, data_format="NCDHW"):
        if data_format != "NCDHW":
            raise ValueError(f"For 'FractionalMaxPool3DGradWithFixedKsize', 'data_format' must "
                             f"be 'NCDHW', but got {data_format!r}.")
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, origin_input, out_backprop, argmax):
        return _argmax_grad("FractionalMaxPool3DGradWithFixedKsize", origin_input,
                            out_backprop, argmax, 3)


# ---- InstanceNormV2 --------------------------------------------------------------------------

@constexpr
def _inv2_plan(op, x_shape, x_dtype, stat_shapes):
    if len(x_shape) not in (4, 5) or x_dtype not in _FLOATS:
        raise TypeError(f"For '{op}', x must be a 4-D (N, C, H, W) or 5-D (N, C1, H, W, C0) "
                        f"float tensor, but got shape {tuple(x_shape)} and dtype {x_dtype}.")
    want = tuple(x_shape[:2]) + (1, 1) + tuple(x_shape[4:])
    for name, s in stat_shapes:
        if tuple(s) != want:
            raise ValueError(f"For '{op}', '{name}' must have shape {want} (x's with H and W "
                             f"1), but got {tuple(s)}.")


def _instance_norm(x, gamma, beta, mean, variance, training, epsilon):
    """(y, mean, variance): x normalised over H and W (axes 2, 3) per instance and channel
    with the batch statistics (training) or the given ones, then gamma * . + beta."""
    if training:
        mean = prim("ReduceMean", keep_dims=True)(x, (2, 3))
        variance = prim("ReduceMean", keep_dims=True)(prim("Square")(x - mean), (2, 3))
    y = (x - mean) * prim("Rsqrt")(variance + epsilon) * gamma + beta
    return y, mean, variance


class InstanceNormV2(_Composed):
    """InstanceNormV2(is_training=True, momentum=0.1, epsilon=1e-5)(x, gamma, beta, mean,
    variance) -> (y, batch_mean, batch_variance): instance normalisation of x (N, C, H, W) or
    (N, C1, H, W, C0) over H and W; gamma, beta, mean and variance have x's shape with H and W
    1 (one value per instance and channel). Training normalises with each instance's mean and
    biased variance and returns them; otherwise it uses the given mean and variance and returns
    them. ``momentum`` is kept as an attribute (the running averages are the caller's)."""

    def __init__(self, is_training=True, momentum=0.1, epsilon=1e-5):
        op = "InstanceNormV2"
        if not isinstance(is_training, bool):
            raise TypeError(f"For '{op}', 'is_training' must be a bool, but got "
                            f"{type(is_training).__name__}.")
        for name, v in (("momentum", momentum), ("epsilon", epsilon)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise ValueError(f"For '{op}', '{name}' must be a float in [0, 1], but got "
                                 f"{v!r}.")
        super().__init__(is_training=is_training, momentum=momentum, epsilon=epsilon)
        self.is_training, self.momentum, self.epsilon = is_training, float(momentum), \
            float(epsilon)

    def __call__(self, x, gamma, beta, mean, variance):
        op = "InstanceNormV2"
        for name, t in (("x", x), ("gamma", gamma), ("beta", beta), ("mean", mean),
                        ("variance", variance)):
            _tensor(op, name, t)
        _inv2_plan(op, x.shape, x.dtype, (("gamma", gamma.shape), ("beta", beta.shape),
                                          ("mean", mean.shape), ("variance", variance.shape)))
        return _instance_norm(x, gamma, beta, mean, variance, self.is_training, self.epsilon)


class InstanceNormV2Grad(_Composed):
    """InstanceNormV2Grad(is_training=True, epsilon=1e-5)(dy, x, gamma, mean, variance,
    save_mean, save_variance) -> (pd_x, pd_gamma, pd_beta): InstanceNormV2's gradients at x,
    gamma and beta (training: through the batch statistics, which save_mean/save_variance
    hold; otherwise with mean and variance fixed)."""

    def __init__(self, is_training=True, epsilon=1e-5):
        if not isinstance(is_training, bool):
            raise TypeError(f"For 'InstanceNormV2Grad', 'is_training' must be a bool, but got "
                            f"{type(is_training).__name__}.")
        super().__init__(is_training=is_training, epsilon=epsilon)
        self.is_training, self.epsilon = is_training, float(epsilon)

    def __call__(self, dy, x, gamma, mean, variance, save_mean, save_variance):
        op = "InstanceNormV2Grad"
        for name, t in (("dy", dy), ("x", x), ("gamma", gamma), ("mean", mean),
                        ("variance", variance), ("save_mean", save_mean),
                        ("save_variance", save_variance)):
            _tensor(op, name, t)
        _inv2_plan(op, x.shape, x.dtype, (("gamma", gamma.shape), ("mean", mean.shape),
                                          ("variance", variance.shape)))
        if dy.shape != x.shape:
            raise ValueError(f"For '{op}', dy must have x's shape {x.shape}, but got "
                             f"{dy.shape}.")
        beta = prim("ZerosLike")(gamma)
        return _grad(self._weighted, grad_position=(0, 1, 2))(x, gamma, beta, mean, variance,
                                                              dy)

    def _weighted(self, x, gamma, beta, mean, variance, dy):
        y = _instance_norm(x, gamma, beta, mean, variance, self.is_training, self.epsilon)[0]
        return prim("ReduceSum")(y * dy, ())


# ---- SparseSoftmaxCrossEntropyWithLogitsV2 ---------------------------------------------------

@constexpr
def _ssce_plan(f_shape, f_dtype, l_shape, l_dtype):
    op = "SparseSoftmaxCrossEntropyWithLogitsV2"
    if len(f_shape) != 2 or f_dtype not in (_C.float16, _C.float32):
        raise TypeError(f"For '{op}', features must be a 2-D float16/float32 tensor, but got "
                        f"shape {tuple(f_shape)} and dtype {f_dtype}.")
    if tuple(l_shape) != (f_shape[0],) or l_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', labels must be an int32/int64 tensor of shape "
                        f"({f_shape[0]},), but got {tuple(l_shape)} {l_dtype}.")


class SparseSoftmaxCrossEntropyWithLogitsV2(_Composed):
    """SparseSoftmaxCrossEntropyWithLogitsV2()(features, labels) -> (loss, backprop): for
    features [N, C] and class labels [N], loss[i] = -log softmax(features[i])[labels[i]] and
    backprop = softmax(features) - one_hot(labels), the loss's gradient."""

    def __init__(self):
        super().__init__()

    def __call__(self, features, labels):
        _tensor("SparseSoftmaxCrossEntropyWithLogitsV2", "features", features)
        _tensor("SparseSoftmaxCrossEntropyWithLogitsV2", "labels", labels)
        _ssce_plan(features.shape, features.dtype, labels.shape, labels.dtype)
        logp = prim("LogSoftmax", axis=-1)(features)
        onehot = prim("OneHot", axis=-1, dtype=features.dtype)(labels, features.shape[1], 1.0,
                                                                0.0)
        loss = prim("Neg")(prim("ReduceSum")(logp * onehot, (1,)))
        return loss, prim("Exp")(logp) - onehot


# ---- gradients of the 3-d upsamplings and of ResizeBicubic -----------------------------------

class _ResizeGrad(_Composed):
    """The gradient of a linear resizing: the vector-Jacobian product of _forward at zeros of
    the input's shape with the incoming gradient."""

    def _vjp(self, shape, dy, ctx):
        x = prim("Fill")(dy.dtype, tuple(shape), 0.0)
        return _grad(self._weighted)(x, dy, ctx)

    def _weighted(self, x, dy, ctx):
        return prim("ReduceSum")(self._forward(x, ctx) * dy, ())


class UpsampleNearest3DGrad(_ResizeGrad):
    """UpsampleNearest3DGrad()(dy, input_size, output_size=None, scales=None): the gradient of
    UpsampleNearest3D for an input of shape input_size (5 ints): each input voxel gathers dy
    of the output voxels copied from it."""

    def __init__(self):
        super().__init__()

    def __call__(self, dy, input_size, output_size=None, scales=None):
        _tensor("UpsampleNearest3DGrad", "dy", dy)
        return self._vjp(_values("UpsampleNearest3DGrad", "input_size", input_size, 5), dy,
                         (output_size, scales))

    def _forward(self, x, ctx):
        return UpsampleNearest3D()(x, ctx[0], ctx[1])


class UpsampleTrilinear3DGrad(_ResizeGrad):
    """UpsampleTrilinear3DGrad(align_corners=False)(dy, input_size, output_size=None,
    scales=None): the gradient of UpsampleTrilinear3D for an input of shape input_size."""

    def __init__(self, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'UpsampleTrilinear3DGrad', align_corners must be a bool, but "
                            f"got {align_corners!r}.")
        super().__init__(align_corners=align_corners)
        self.align_corners = align_corners

    def __call__(self, dy, input_size, output_size=None, scales=None):
        _tensor("UpsampleTrilinear3DGrad", "dy", dy)
        return self._vjp(_values("UpsampleTrilinear3DGrad", "input_size", input_size, 5), dy,
                         (output_size, scales))

    def _forward(self, x, ctx):
        return UpsampleTrilinear3D(self.align_corners)(x, ctx[0], ctx[1])


class ResizeBicubicGrad(_ResizeGrad):
    """ResizeBicubicGrad(align_corners=False, half_pixel_centers=False)(grads,
    original_image): the gradient of ResizeBicubic at original_image (N, C, H, W) for grads
    (N, C, new_height, new_width), in original_image's dtype."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        self._resize = ResizeBicubic(align_corners, half_pixel_centers)
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, grads, original_image):
        _tensor("ResizeBicubicGrad", "grads", grads)
        _tensor("ResizeBicubicGrad", "original_image", original_image)
        g = prim("Cast")(grads, _C.float32) if grads.dtype == _C.float16 else grads
        dx = self._vjp(original_image.shape, g, tuple(grads.shape[2:]))
        return prim("Cast")(dx, original_image.dtype)

    def _forward(self, x, ctx):
        return self._resize(x, ctx)


# ---- ResizeNearestNeighborV2 -----------------------------------------------------------------

@constexpr
def _nearest_index(n_in, n_out, align_corners, half_pixel_centers):
    """[n_out] int64 source rows of TensorFlow's nearest resizing."""
    i = np.arange(n_out, dtype=np.float64)
    if align_corners and n_out > 1:
        src = np.round(i * (n_in - 1) / (n_out - 1))
    elif half_pixel_centers:
        src = np.floor((i + 0.5) * (n_in / n_out))
    else:
        src = np.floor(i * (n_in / n_out))
    return _C.Tensor(np.minimum(src, n_in - 1).astype(np.int64))


def _nearest_v2(x, size, align_corners, half_pixel_centers):
    h, w = size
    x = prim("Gather")(x, _nearest_index(x.shape[2], h, align_corners, half_pixel_centers), 2)
    return prim("Gather")(x, _nearest_index(x.shape[3], w, align_corners, half_pixel_centers),
                          3)


def _check_flags(op, align_corners, half_pixel_centers):
    for name, v in (("align_corners", align_corners), ("half_pixel_centers",
                                                       half_pixel_centers)):
        if not isinstance(v, bool):
            raise TypeError(f"For '{op}', '{name}' must be a bool, but got {type(v).__name__}.")
    if align_corners and half_pixel_centers:
        raise ValueError(f"For '{op}', align_corners and half_pixel_centers cannot both be "
                         "True.")


class ResizeNearestNeighborV2(_Composed):
    """ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(x, size): x
    (N, C, H, W) resized to size = (new_height, new_width) (a tuple or a constant int32
    tensor), each output pixel a copy of input pixel floor(i * H / new_height) (align_corners:
    round(i * (H - 1) / (new_height - 1)); half_pixel_centers: floor((i + 0.5) * H /
    new_height)), TensorFlow's rule."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        _check_flags("ResizeNearestNeighborV2", align_corners, half_pixel_centers)
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, x, size):
        _tensor("ResizeNearestNeighborV2", "x", x)
        _rank4("ResizeNearestNeighborV2", "x", x.shape)
        size = _values("ResizeNearestNeighborV2", "size", size, 2)
        return _nearest_v2(x, size, self.align_corners, self.half_pixel_centers)


@constexpr
def _rank4(op, name, shape):
    if len(shape) != 4:
        raise ValueError(f"For '{op}', '{name}' must be 4-D (N, C, H, W), but got shape "
                         f"{tuple(shape)}.")


class ResizeNearestNeighborV2Grad(_ResizeGrad):
    """ResizeNearestNeighborV2Grad(align_corners=False, half_pixel_centers=False)(grads,
    size): ResizeNearestNeighborV2's gradient for an input of spatial size `size` (H, W): each
    input pixel sums grads of the output pixels copied from it."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        _check_flags("ResizeNearestNeighborV2Grad", align_corners, half_pixel_centers)
        super().__init__(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, grads, size):
        _tensor("ResizeNearestNeighborV2Grad", "grads", grads)
        _rank4("ResizeNearestNeighborV2Grad", "grads", grads.shape)
        h, w = _values("ResizeNearestNeighborV2Grad", "size", size, 2)
        return self._vjp((grads.shape[0], grads.shape[1], h, w), grads, tuple(grads.shape[2:]))

    def _forward(self, x, ctx):
        return _nearest_v2(x, ctx, self.align_corners, self.half_pixel_centers)


class ResizeNearestNeighborGrad(_ResizeGrad):
    """ResizeNearestNeighborGrad(align_corners=False)(grads, size): the gradient of
    P.ResizeNearestNeighbor for an input of spatial size `size` (H, W): each input pixel sums
    grads of the output pixels copied from it (grads' dtype)."""

    def __init__(self, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'ResizeNearestNeighborGrad', 'align_corners' must be a bool, "
                            f"but got {type(align_corners).__name__}.")
        super().__init__(align_corners=align_corners)
        self.align_corners = align_corners

    def __call__(self, grads, size):
        _tensor("ResizeNearestNeighborGrad", "grads", grads)
        _rank4("ResizeNearestNeighborGrad", "grads", grads.shape)
        h, w = _values("ResizeNearestNeighborGrad", "size", size, 2)
        return self._vjp((grads.shape[0], grads.shape[1], h, w), grads, tuple(grads.shape[2:]))

    def _forward(self, x, ctx):
        return _rs.resize_nearest_neighbor(x, ctx, self.align_corners)
