"""MindSpore's ``mindspore.ops.operations._grad_ops``: the backward primitives programs and
tests call directly (``G.SqrtGrad()(y, dy)``). mycel's own gradients come from the bprop
rules (compiler/ad), not from these; each class here is composed from op-table primitives
and gives the cotangent of its forward op's input from the forward's output (or input) and
the output's cotangent ``dy``, in both modes:

- ``SqrtGrad(y, dy) = dy / (2 y)``, ``RsqrtGrad(y, dy) = -dy y^3 / 2``,
  ``SigmoidGrad(y, dy) = dy y (1 - y)``, ``TanhGrad(y, dy) = dy (1 - y^2)``,
  ``AcoshGrad(y, dy) = dy / sinh(y)``, ``AsinhGrad(y, dy) = dy / cosh(y)`` (y the forward
  output; cosh(y) = (e^y + e^-y) / 2 and sinh(y) = tanh(y) cosh(y), which keeps full
  relative precision near 0 where e^y - e^-y would cancel);
- ``DropoutGrad(keep_prob)(dy, mask) = dy * mask / keep_prob``;
- ``KLDivLossGrad(reduction)(dy, x, target) = -target * dy``, divided by the number of
  elements ('mean') or the batch size ('batchmean'); as MindSpore's kernel, it does not
  zero the entries whose target is <= 0;
- ``LayerNormGrad(begin_norm_axis, begin_params_axis, epsilon=1e-12)(x, dy, variance, mean,
  gamma) -> (dx, dgamma, dbeta)`` from the forward's saved mean and variance;
- ``BiasAddGrad(data_format='NCHW')(dout)``: BiasAdd's bias cotangent, dout summed over every
  axis but the channel axis (1 for NCHW / NCDHW, the last for NHWC), in dout's dtype;
- further down: PadV3Grad, IgammaGradA, PReLUGrad, LRNGrad and the elementwise ReluGrad,
  SoftplusGrad, EluGrad, AsinGrad, ACosGrad, AtanGrad, HShrinkGrad, SoftShrinkGrad,
  LogSoftmaxGrad.
"""
from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function._util import prim as _prim
from mycel.ops.primitive import constexpr
from mycel.ops.function import pad_grad_func as _pg
from mycel.ops.function import pad_v3_func as _pv3

__all__ = ["SqrtGrad", "RsqrtGrad", "SigmoidGrad", "TanhGrad", "AcoshGrad", "AsinhGrad",
           "DropoutGrad", "KLDivLossGrad", "LayerNormGrad"]


class _UnaryGrad(_Composed):
    def __init__(self):
        super().__init__()


class SqrtGrad(_UnaryGrad):
    """SqrtGrad()(y, dy): dy / (2 y), y = sqrt(x)."""

    def __call__(self, y, dy):
        return _prim("Div")(dy, _prim("Mul")(y, 2.0))


class RsqrtGrad(_UnaryGrad):
    """RsqrtGrad()(y, dy): -dy y^3 / 2, y = 1 / sqrt(x)."""

    def __call__(self, y, dy):
        return _prim("Mul")(dy, _prim("Mul")(_prim("Pow")(y, 3.0), -0.5))


class SigmoidGrad(_UnaryGrad):
    """SigmoidGrad()(y, dy): dy y (1 - y), y = sigmoid(x)."""

    def __call__(self, y, dy):
        return _prim("Mul")(dy, _prim("Mul")(y, _prim("Sub")(1.0, y)))


class TanhGrad(_UnaryGrad):
    """TanhGrad()(y, dy): dy (1 - y^2), y = tanh(x)."""

    def __call__(self, y, dy):
        return _prim("Mul")(dy, _prim("Sub")(1.0, _prim("Square")(y)))


def _cosh(y):
    return _prim("Mul")(_prim("Add")(_prim("Exp")(y), _prim("Exp")(_prim("Neg")(y))), 0.5)


class AcoshGrad(_UnaryGrad):
    """AcoshGrad()(y, dy): dy / sinh(y), y = acosh(x)."""

    def __call__(self, y, dy):
        return _prim("Div")(dy, _prim("Mul")(_prim("Tanh")(y), _cosh(y)))


class AsinhGrad(_UnaryGrad):
    """AsinhGrad()(y, dy): dy / cosh(y), y = asinh(x)."""

    def __call__(self, y, dy):
        return _prim("Div")(dy, _cosh(y))


class DropoutGrad(_Composed):
    """DropoutGrad(keep_prob=0.5)(dy, mask): dy * mask / keep_prob."""

    def __init__(self, keep_prob=0.5):
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)) or \
                not 0 < keep_prob <= 1:
            raise ValueError(f"For 'DropoutGrad', 'keep_prob' must be a number in (0, 1], but "
                             f"got {keep_prob!r}.")
        super().__init__(keep_prob=keep_prob)
        self.keep_prob = float(keep_prob)

    def __call__(self, dy, mask):
        return _prim("Div")(_prim("Mul")(dy, _prim("Cast")(mask, dy.dtype)), self.keep_prob)


@constexpr
def _kl_scale(reduction, shape):
    """The divisor of the reduction: 1, the element count or the batch size."""
    if reduction == "mean":
        n = 1
        for d in shape:
            n *= d
        return float(n)
    if reduction == "batchmean":
        return float(shape[0]) if shape else 1.0
    return 1.0


class KLDivLossGrad(_Composed):
    """KLDivLossGrad(reduction='mean')(dy, x, target): the cotangent of KLDivLoss's logits,
    -target * dy (scaled by the reduction; module docstring)."""

    def __init__(self, reduction="mean"):
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"For 'KLDivLossGrad', 'reduction' must be 'none', 'mean', 'sum' or "
                             f"'batchmean', but got {reduction!r}.")
        super().__init__(reduction=reduction)
        self.reduction = reduction

    def __call__(self, dy, x, target):
        g = _prim("Neg")(_prim("Mul")(target, _prim("BroadcastTo", shape=x.shape)(dy)))
        return _prim("Div")(g, _kl_scale(self.reduction, x.shape))


@constexpr
def _ln_axes(ndim, begin_norm_axis, begin_params_axis):
    """(normalised axes, the axes dgamma and dbeta sum over)."""
    bn, bp = begin_norm_axis % ndim, begin_params_axis % ndim
    return tuple(range(bn, ndim)), tuple(range(bp))


class LayerNormGrad(_Composed):
    """LayerNormGrad(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-12)(x, dy, variance,
    mean, gamma) -> (dx, dgamma, dbeta): with r = (variance + epsilon)^(-1/2),
    xhat = (x - mean) r and g = dy gamma, dx = r (g - mean(g) - xhat mean(g xhat)) over the
    normalised axes; dgamma = sum(dy xhat) and dbeta = sum(dy) over the axes before
    begin_params_axis, shaped like gamma."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-12):
        for name, v in (("begin_norm_axis", begin_norm_axis),
                        ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNormGrad', '{name}' must be an int, but got {v!r}.")
        super().__init__(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis,
                         epsilon=epsilon)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = float(epsilon)

    def __call__(self, x, dy, variance, mean, gamma):
        norm_axes, param_axes = _ln_axes(x.ndim, self.begin_norm_axis,
                                            self.begin_params_axis)
        r = _prim("Rsqrt")(_prim("Add")(variance, self.epsilon))
        xhat = _prim("Mul")(_prim("Sub")(x, mean), r)
        g = _prim("Mul")(dy, gamma)
        mean_g = _prim("ReduceMean", keep_dims=True)(g, norm_axes)
        mean_gx = _prim("ReduceMean", keep_dims=True)(_prim("Mul")(g, xhat), norm_axes)
        dx = _prim("Mul")(r, _prim("Sub")(_prim("Sub")(g, mean_g), _prim("Mul")(xhat, mean_gx)))
        dgamma = _prim("Mul")(dy, xhat)
        dbeta = dy
        if param_axes:  # () would mean every axis to ReduceSum
            dgamma = _prim("ReduceSum")(dgamma, param_axes)
            dbeta = _prim("ReduceSum")(dbeta, param_axes)
        return dx, _prim("Reshape")(dgamma, gamma.shape), _prim("Reshape")(dbeta, gamma.shape)

from mycel.ops.operations.compat_cpu_ops import PSROIPoolingGrad  # noqa: E402
__all__ += ["PSROIPoolingGrad"]
from mycel.ops.operations.compat_cpu_ops import MaxPoolGradGradWithArgmax  # noqa: E402
__all__ += ["MaxPoolGradGradWithArgmax"]
from mycel.ops.operations.compat_cpu_ops import FractionalMaxPoolGrad  # noqa: E402
__all__ += ["FractionalMaxPoolGrad"]
from mycel.ops.operations.compat_cpu_ops import DeformableOffsetsGrad  # noqa: E402
__all__ += ["DeformableOffsetsGrad"]
from mycel.ops.operations.compat_cpu_ops import FractionalAvgPoolGrad  # noqa: E402
__all__ += ["FractionalAvgPoolGrad"]
from mycel.ops.operations.compat_cpu_ops import (MaxPoolGradWithArgmax,  # noqa: E402
                                                 MaxPoolGradWithArgmaxV2)
__all__ += ["MaxPoolGradWithArgmax", "MaxPoolGradWithArgmaxV2"]


class PadV3Grad(_Composed):
    """PadV3Grad(mode='reflect', paddings_contiguous=True)(dy, paddings): the cotangent of
    PadV3's input from its output's cotangent dy; paddings (a 1-D int tensor, tuple or list,
    pairs from the last dimension backward; with paddings_contiguous=False all begins, then
    all ends) as PadV3's; mode 'constant', 'reflect', 'edge' or 'circular'
    (ops/function/pad_grad_func.py)."""

    def __init__(self, mode="reflect", paddings_contiguous=True):
        _pg.check_pad_attrs("PadV3Grad", mode, paddings_contiguous)
        super().__init__(mode=mode, paddings_contiguous=paddings_contiguous)
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def __call__(self, dy, paddings):
        return _pg.pad_v3_grad(dy, paddings, self.mode, self.paddings_contiguous)


__all__ += ["PadV3Grad"]


class PadV3(_Composed):
    """PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value=None): x
    padded (negative paddings crop) on its last len(paddings) / 2 dimensions, pairs from the
    last dimension backward (ops/function/pad_v3_func.py)."""

    def __init__(self, mode="constant", paddings_contiguous=True):
        _pg.check_pad_attrs("PadV3", mode, paddings_contiguous)
        super().__init__(mode=mode, paddings_contiguous=paddings_contiguous)
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def __call__(self, x, paddings, constant_value=None):
        return _pv3.pad_v3(x, paddings, constant_value, self.mode, self.paddings_contiguous)

from mycel.ops.operations.list_ops import ConcatOffset  # noqa: E402
__all__ += ["ConcatOffset"]


@constexpr
def _bias_grad_axes(ndim, data_format):
    if ndim < 2:
        raise ValueError(f"For 'BiasAddGrad', dout must have rank at least 2, but got rank "
                         f"{ndim}.")
    channel = ndim - 1 if data_format == "NHWC" else 1
    return tuple(d for d in range(ndim) if d != channel)


class BiasAddGrad(_Composed):
    """BiasAddGrad(data_format='NCHW')(dout): dout summed over all axes but the channel."""

    def __init__(self, data_format="NCHW"):
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAddGrad', 'data_format' must be 'NCHW', 'NHWC' or "
                             f"'NCDHW', but got {data_format!r}.")
        super().__init__(data_format=data_format)
        self.data_format = data_format

    def __call__(self, dout):
        return _prim("ReduceSum")(dout, _bias_grad_axes(dout.ndim, self.data_format))


__all__ += ["BiasAddGrad"]


# IgammaGradA: d igamma(a, x) / da (ops/function/special_func.py's series).
from mycel.ops.function import special_func as _spf  # noqa: E402


class IgammaGradA(_Composed):
    """IgammaGradA()(a, x): the derivative of the regularized lower incomplete gamma P(a, x)
    in a, elementwise (a > 0, x >= 0; NaN elsewhere), a's float dtype."""

    def __init__(self):
        super().__init__()

    def __call__(self, a, x):
        return _spf._igamma_grad_a(a, x)


__all__ += ["IgammaGradA"]


# PReLUGrad and LRNGrad (MindSpore's auto_generate.PReLUGrad and _grad_ops.LRNGrad).
from mycel.ops.function import compat_func as _cf  # noqa: E402
from mycel.ops.composite import grad as _grad  # noqa: E402
from mycel.ops.operations._compat_checks import _check_tensors  # noqa: E402


@constexpr
def _prelu_grad_plan(x_shape, w_shape):
    c = x_shape[1] if len(x_shape) >= 2 else 1
    if len(w_shape) != 1 or w_shape[0] not in (1, c):
        raise ValueError(f"For 'PReLUGrad', 'w' must be 1-D of 1 or the channel count {c} "
                         f"(dim 1 of x), but got shape {tuple(w_shape)} for x of shape "
                         f"{tuple(x_shape)}.")
    per_channel = w_shape[0] == c and len(x_shape) >= 2
    axes = tuple(i for i in range(len(x_shape)) if not (per_channel and i == 1))
    bshape = (1, c) + (1,) * (len(x_shape) - 2) if per_channel else (1,) * len(x_shape)
    return axes, bshape


class PReLUGrad(_Composed):
    """PReLUGrad()(dy, x, w): the gradients (dx, dw) of PReLU y = x (x > 0), w x (x <= 0),
    w per channel (dim 1 of x) or one shared value: dx = dy (1 or w), dw = the sum of dy x where
    x <= 0 over all dims but the channel's."""

    def __init__(self):
        super().__init__()

    def __call__(self, dy, x, w):
        _check_tensors("PReLUGrad", ("dy", dy), ("x", x), ("w", w))
        if dy.shape != x.shape or not x.dtype.is_floating_point or w.dtype != x.dtype:
            raise TypeError(f"For 'PReLUGrad', 'dy' and 'x' must be float tensors of one shape "
                            f"and 'w' of their dtype, but got {dy.shape} {dy.dtype}, {x.shape} "
                            f"{x.dtype} and {w.dtype}.")
        axes, bshape = _prelu_grad_plan(x.shape, w.shape)
        wb = _prim("Reshape")(w, bshape)
        neg = _prim("LessEqual")(x, 0.0)
        dx = _prim("Select")(neg, dy * wb, dy)
        dw = _prim("ReduceSum")(_prim("Select")(neg, dy * x, _prim("ZerosLike")(x)), axes)
        return dx, _prim("Reshape")(dw, w.shape)


class LRNGrad(_Composed):
    """LRNGrad(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5)(grads, x, y): the gradient of
    LRN (P.LRN's TensorFlow rule across channels) at x, by the vector-Jacobian product of the
    composed LRN with grads (y, LRN's output, is not needed)."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        super().__init__(depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta)
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta

    def __call__(self, grads, x, y):
        _check_tensors("LRNGrad", ("grads", grads), ("x", x), ("y", y))
        if grads.shape != x.shape:
            raise ValueError(f"For 'LRNGrad', 'grads' must have x's shape {x.shape}, but got "
                             f"{grads.shape}.")
        return _grad(self._weighted)(x, grads)

    def _weighted(self, x, grads):
        out = _cf.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta)
        return _prim("ReduceSum")(out * grads, ())


__all__ += ["PReLUGrad", "LRNGrad"]


# ---- elementwise gradient primitives of MindSpore's ops test table (their closed forms) ------

class _ElementwiseGrad(_Composed):
    """A gradient primitive computed elementwise from its two tensor inputs (named in _names)
    by _rule(a, b)."""
    _names = ("dout", "x")

    def __init__(self):
        super().__init__()

    def __call__(self, a, b):
        _check_tensors(self.name, (self._names[0], a), (self._names[1], b))
        if a.shape != b.shape or not a.dtype.is_floating_point or a.dtype != b.dtype:
            raise TypeError(f"For '{self.name}', '{self._names[0]}' and '{self._names[1]}' must "
                            f"be float tensors of one shape and dtype, but got {a.shape} "
                            f"{a.dtype} and {b.shape} {b.dtype}.")
        return self._rule(a, b)


class ReluGrad(_ElementwiseGrad):
    """ReluGrad()(y_backprop, x): y_backprop where x (ReLU's output) > 0, else 0 (the op
    table's ReluGrad, which ReLU's bprop uses)."""
    _names = ("y_backprop", "x")

    def _rule(self, dy, y):
        return _prim("ReluGrad")(dy, y)


class SoftplusGrad(_ElementwiseGrad):
    """SoftplusGrad()(dout, x): dout * sigmoid(x), softplus's derivative at x."""

    def _rule(self, dout, x):
        return dout * _prim("Sigmoid")(x)


class EluGrad(_ElementwiseGrad):
    """EluGrad()(y_grad, x): ELU's (alpha 1) gradient from its output x: y_grad where x > 0,
    y_grad * (x + 1) elsewhere."""
    _names = ("y_grad", "x")

    def _rule(self, dy, y):
        return _prim("Select")(_prim("Greater")(y, 0.0), dy, dy * (y + 1.0))


class AsinGrad(_ElementwiseGrad):
    """AsinGrad()(x, dout): dout / sqrt(1 - x^2)."""
    _names = ("x", "dout")

    def _rule(self, x, dout):
        return dout * _prim("Rsqrt")(1.0 - x * x)


class ACosGrad(_ElementwiseGrad):
    """ACosGrad()(x, dout): -dout / sqrt(1 - x^2)."""
    _names = ("x", "dout")

    def _rule(self, x, dout):
        return -(dout * _prim("Rsqrt")(1.0 - x * x))


class AtanGrad(_ElementwiseGrad):
    """AtanGrad()(x, dout): dout / (1 + x^2)."""
    _names = ("x", "dout")

    def _rule(self, x, dout):
        return dout / (1.0 + x * x)


class _ShrinkGrad(_ElementwiseGrad):
    def __init__(self, lambd=0.5):
        if isinstance(lambd, bool) or not isinstance(lambd, (int, float)) or lambd < 0:
            raise ValueError(f"For '{type(self).__name__}', 'lambd' must be a float >= 0, but "
                             f"got {lambd!r}.")
        _Composed.__init__(self, lambd=lambd)
        self.lambd = float(lambd)

    def _rule(self, dy, x):
        return _prim("Select")(_prim("Greater")(_prim("Abs")(x), self.lambd), dy,
                               _prim("ZerosLike")(dy))


class HShrinkGrad(_ShrinkGrad):
    """HShrinkGrad(lambd=0.5)(gradients, features): gradients where |features| > lambd."""
    _names = ("gradients", "features")


class SoftShrinkGrad(_ShrinkGrad):
    """SoftShrinkGrad(lambd=0.5)(input_grad, input_x): input_grad where |input_x| > lambd."""
    _names = ("input_grad", "input_x")


class LogSoftmaxGrad(_ElementwiseGrad):
    """LogSoftmaxGrad(axis=-1)(logits, grad): LogSoftmax's gradient from its output logits:
    grad - exp(logits) * sum(grad, axis)."""
    _names = ("logits", "grad")

    def __init__(self, axis=-1):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'LogSoftmaxGrad', 'axis' must be an int, but got {axis!r}.")
        _Composed.__init__(self, axis=axis)
        self.axis = axis

    def _rule(self, out, grad):
        total = _prim("ReduceSum", keep_dims=True)(grad, (self.axis,))
        return grad - _prim("Exp")(out) * total


__all__ += ["ReluGrad", "SoftplusGrad", "EluGrad", "AsinGrad", "ACosGrad", "AtanGrad",
            "HShrinkGrad", "SoftShrinkGrad", "LogSoftmaxGrad"]

# MedianGrad, LogitGrad, MinimumGradGrad, MaximumGradGrad, CholeskyGrad, PdistGrad
# (_grad_ext_ops.py)
from mycel.ops.operations._grad_ext_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations import _grad_ext_ops as _gx  # noqa: E402
__all__ += _gx.__all__
# ---- pooling, resizing and normalisation gradients (pool_compat_ops.py) ----------------------
from mycel.ops.operations.pool_compat_ops import (MaxPoolGradV1, AvgPoolGradV1,  # noqa: E402
                                                  FractionalMaxPoolGradWithFixedKsize,
                                                  FractionalMaxPool3DGradWithFixedKsize,
                                                  InstanceNormV2Grad, UpsampleNearest3DGrad,
                                                  UpsampleTrilinear3DGrad, ResizeBicubicGrad,
                                                  ResizeNearestNeighborV2Grad,
                                                  ResizeNearestNeighborGrad)
__all__ += ["MaxPoolGradV1", "AvgPoolGradV1", "FractionalMaxPoolGradWithFixedKsize",
            "FractionalMaxPool3DGradWithFixedKsize", "InstanceNormV2Grad",
            "UpsampleNearest3DGrad", "UpsampleTrilinear3DGrad", "ResizeBicubicGrad",
            "ResizeNearestNeighborV2Grad", "ResizeNearestNeighborGrad"]
# MaxPoolGradGrad: the op-table primitive (x, out, grad) -> the gradient of MaxPoolGrad in grad
from mycel.ops.primitive import make_primitive_class as _mpc  # noqa: E402
MaxPoolGradGrad = _mpc("MaxPoolGradGrad")
__all__ += ["MaxPoolGradGrad"]
# SparseSliceGrad (sparse_compat_ops.py, beside SparseSlice)
from mycel.ops.operations.sparse_compat_ops import SparseSliceGrad  # noqa: E402
__all__ += ["SparseSliceGrad"]
