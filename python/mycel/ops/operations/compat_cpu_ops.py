"""Primitive classes of MindSpore 2.x that its CPU op tests use, composed from op-table
primitives (no kernel of their own; the functions in mycel.ops.function do the work, so both
modes and gradients come from the ops they are built of):

- PSROIPooling, PSROIPoolingGrad (ops/function/roi_func.py);
- the others below (the optimizer updates are in compat_optim_ops.py).

Arguments are validated as MindSpore's classes do: a wrong type is a TypeError, a value out of
range a ValueError, naming the op and the argument.
"""
import numbers

from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import roi_func as _roi
from mycel.ops.operations._compat_checks import (_check_int, _check_float, _check_bool,
                                                 _check_tensor, _check_rank, _F16_32, _INDEX)


class _PSROIBase(_Composed):
    def _check_common(self, spatial_scale, group_size, output_dim):
        op = type(self).__name__
        self.spatial_scale = _check_float(op, "spatial_scale", spatial_scale, positive=True)
        self.group_size = _check_int(op, "group_size", group_size)
        self.output_dim = _check_int(op, "output_dim", output_dim)

    def _check_rois(self, rois, dtype):
        op = type(self).__name__
        _check_rank(op, "rois", rois, 3)
        if rois.dtype != dtype:
            raise TypeError(f"For '{op}', 'rois' must have the dtype of the first input "
                            f"({dtype}), but got {rois.dtype}.")
        if rois.shape[1] != 5:
            raise RuntimeError(f"For '{op}', rois.shape[1] must be 5, but got shape "
                               f"{tuple(rois.shape)}.")


class PSROIPooling(_PSROIBase):
    """PSROIPooling(spatial_scale, group_size, output_dim)(features, rois): position-sensitive
    ROI average pooling. features [N, output_dim * group_size^2, H, W] (float16/32/64), rois
    [batch, 5, rois_num] of (batch_index, x1, y1, x2, y2) -> [batch * rois_num, output_dim,
    group_size, group_size] (ops/function/roi_func.py)."""

    def __init__(self, spatial_scale, group_size, output_dim):
        self._check_common(spatial_scale, group_size, output_dim)
        super().__init__(spatial_scale=self.spatial_scale, group_size=self.group_size,
                         output_dim=self.output_dim)

    def __call__(self, features, rois):
        _check_tensor("PSROIPooling", "features", features, (_C.float16, _C.float32,
                                                             _C.float64))
        _check_tensor("PSROIPooling", "rois", rois, (_C.float16, _C.float32, _C.float64))
        _check_rank("PSROIPooling", "features", features, 4)
        self._check_rois(rois, features.dtype)
        g = self.group_size
        if features.shape[1] != self.output_dim * g * g:
            raise RuntimeError(f"For 'PSROIPooling', features.shape[1] ({features.shape[1]}) "
                               f"must be output_dim * group_size^2 = "
                               f"{self.output_dim * g * g}.")
        return _roi.ps_roi_pooling(features, rois, self.spatial_scale, g, self.output_dim)


class PSROIPoolingGrad(_PSROIBase):
    """PSROIPoolingGrad(input_size, spatial_scale, group_size, output_dim)(dy, rois): the
    backward of PSROIPooling. dy [batch * rois_num, output_dim, group_size, group_size]
    (float16/32), rois [batch, 5, rois_num] -> [batch, output_dim * group_size^2,
    input_size[0], input_size[1]]; input_size is a positive int (square) or a tuple of two."""

    def __init__(self, input_size, spatial_scale, group_size, output_dim):
        op = "PSROIPoolingGrad"
        if isinstance(input_size, tuple):
            if len(input_size) != 2:
                raise ValueError(f"For '{op}', 'input_size' must have 2 elements, but got "
                                 f"{input_size}.")
            sizes = tuple(_check_int(op, "input_size", v) for v in input_size)
        elif isinstance(input_size, bool) or not isinstance(input_size, numbers.Integral):
            raise TypeError(f"For '{op}', 'input_size' must be an int or a tuple, but got "
                            f"{type(input_size).__name__}.")
        else:
            sizes = (_check_int(op, "input_size", input_size),) * 2
        self.input_size = sizes
        self._check_common(spatial_scale, group_size, output_dim)
        super().__init__(input_size=sizes, spatial_scale=self.spatial_scale,
                         group_size=self.group_size, output_dim=self.output_dim)

    def __call__(self, *args):
        op = "PSROIPoolingGrad"
        if len(args) != 2:
            raise ValueError(f"For '{op}', the number of inputs must be 2, but got "
                             f"{len(args)}.")
        dy, rois = args
        _check_tensor(op, "dy", dy, (_C.float16, _C.float32))
        _check_tensor(op, "rois", rois, (_C.float16, _C.float32))
        _check_rank(op, "dy", dy, 4)
        self._check_rois(rois, dy.dtype)
        g = self.group_size
        want = (rois.shape[0] * rois.shape[2], self.output_dim, g, g)
        if tuple(dy.shape) != want:
            raise RuntimeError(f"For '{op}', dy's shape must be (rois.shape[0] * "
                               f"rois.shape[2], output_dim, group_size, group_size) = {want}, "
                               f"but got {tuple(dy.shape)}.")
        return _roi.ps_roi_pooling_grad(dy, rois, self.input_size, self.spatial_scale, g,
                                        self.output_dim)


__all__ = ["PSROIPooling", "PSROIPoolingGrad"]


# NLLLoss, ApplyPowerSign, Uniform.
from mycel.ops.function._util import prim as _prim, three_ints as _three_ints  # noqa: E402


class NLLLoss(_Composed):
    """NLLLoss(reduction="mean", ignore_index=-100)(logits, labels, weight) -> (loss,
    total_weight): loss_n = -weight[labels_n] * logits[n, labels_n] (0 where labels_n ==
    ignore_index), total_weight = the sum of those weights; reduction 'none' returns the
    per-sample losses, 'sum' their sum, 'mean' their sum / total_weight. logits [N, C] or [C]
    float16/float32, labels int32/int64, weight [C] of logits' dtype. Gradients by autodiff."""

    def __init__(self, reduction="mean", ignore_index=-100):
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For 'NLLLoss', 'reduction' must be 'none', 'mean' or 'sum', but "
                             f"got {reduction!r}.")
        self.reduction = reduction
        self.ignore_index = _check_int("NLLLoss", "ignore_index", ignore_index, positive=False)
        super().__init__(reduction=reduction, ignore_index=self.ignore_index)

    def __call__(self, logits, labels, weight):
        op = "NLLLoss"
        _check_tensor(op, "logits", logits, _F16_32)
        _check_tensor(op, "labels", labels, _INDEX)
        _check_tensor(op, "weight", weight, (logits.dtype,))
        if len(logits.shape) not in (1, 2) or len(labels.shape) != len(logits.shape) - 1:
            raise ValueError(f"For '{op}', logits must be [N, C] with labels [N] (or [C] with "
                             f"a scalar label), but got {tuple(logits.shape)} and "
                             f"{tuple(labels.shape)}.")
        if tuple(weight.shape) != (logits.shape[-1],):
            raise ValueError(f"For '{op}', weight must have shape ({logits.shape[-1]},), but "
                             f"got {tuple(weight.shape)}.")
        x = logits if len(logits.shape) == 2 else _prim("ExpandDims")(logits, 0)
        t = labels if len(labels.shape) == 1 else _prim("Reshape")(labels, (1,))
        keep = _prim("NotEqual")(t, self.ignore_index)
        safe = _prim("Select")(keep, t, _prim("ZerosLike")(t))
        w = _prim("Gather")(weight, safe, 0) * _prim("Cast")(keep, x.dtype)
        picked = _prim("Squeeze", axis=(1,))(_prim("GatherD")(x, _prim("ExpandDims")(safe, 1),
                                                                1))
        loss = -(picked * w)
        total = _prim("ReduceSum", keep_dims=False)(w, ())
        if self.reduction == "sum":
            return _prim("ReduceSum", keep_dims=False)(loss, ()), total
        if self.reduction == "mean":
            return _prim("ReduceSum", keep_dims=False)(loss, ()) / total, total
        if len(logits.shape) == 1:
            loss = _prim("Reshape")(loss, ())
        return loss, total


class Uniform(_Composed):
    """random_ops.Uniform(minval=0.0, maxval=1.0, seed=0, seed2=0)(x): a tensor of x's shape
    and dtype (float16/32/64) drawn uniformly from [minval, maxval) (UniformReal, scaled)."""

    def __init__(self, minval=0.0, maxval=1.0, seed=0, seed2=0):
        op = "Uniform"
        self.minval = _check_float(op, "minval", minval)
        self.maxval = _check_float(op, "maxval", maxval)
        if not self.minval < self.maxval:
            raise ValueError(f"For '{op}', 'minval' must be less than 'maxval', but got "
                             f"{minval} and {maxval}.")
        self.seed = _check_int(op, "seed", seed, positive=False)
        self.seed2 = _check_int(op, "seed2", seed2, positive=False)
        super().__init__(minval=self.minval, maxval=self.maxval, seed=self.seed,
                         seed2=self.seed2)
        # The instance's own generators (a seeded op's stream belongs to the instance).
        self._h16, self._h32, self._h64 = (
            _C.OpHandle("UniformReal", {"seed": self.seed, "seed2": self.seed2, "dtype": d})
            for d in (_C.float16, _C.float32, _C.float64))

    def __call__(self, x):
        _check_tensor("Uniform", "x", x, (_C.float16, _C.float32, _C.float64))
        if x.dtype == _C.float16:
            u = self._h16(tuple(x.shape))
        elif x.dtype == _C.float64:
            u = self._h64(tuple(x.shape))
        else:
            u = self._h32(tuple(x.shape))
        return u * (self.maxval - self.minval) + self.minval


class UniformInt(_Composed):
    """UniformInt(seed=0, seed2=0)(shape, minval, maxval): an int32 tensor of `shape` drawn
    uniformly from [minval, maxval) (0-d int32 tensors); the instance's own generator when
    seeded (UniformReal, scaled and floored)."""

    def __init__(self, seed=0, seed2=0):
        self.seed = _check_int("UniformInt", "seed", seed, positive=False)
        self.seed2 = _check_int("UniformInt", "seed2", seed2, positive=False)
        super().__init__(seed=self.seed, seed2=self.seed2)
        self._uniform = _C.OpHandle("UniformReal", {"seed": self.seed, "seed2": self.seed2,
                                                    "dtype": _C.float64})

    def __call__(self, shape, minval, maxval):
        op = "UniformInt"
        _check_tensor(op, "minval", minval, (_C.int32,))
        _check_tensor(op, "maxval", maxval, (_C.int32,))
        lo = _prim("Cast")(minval, _C.float64)
        span = _prim("Cast")(maxval, _C.float64) - lo
        u = self._uniform(tuple(shape))
        return _prim("Cast")(_prim("Floor")(u * span + lo), _C.int32)


__all__ += ["NLLLoss", "Uniform", "UniformInt"]


# MatrixDiagPartV3 (ops/function/diag_func.py).
from mycel.ops.function import diag_func as _diag  # noqa: E402


class _AlignedDiag(_Composed):
    def __init__(self, align="RIGHT_LEFT"):
        if not isinstance(align, str):
            raise TypeError(f"For '{type(self).__name__}', 'align' must be a str, but got "
                            f"{type(align).__name__}.")
        if align not in _diag._ALIGNS:
            raise ValueError(f"For '{type(self).__name__}', 'align' must be one of "
                             f"{_diag._ALIGNS}, but got {align!r}.")
        self.align = align
        super().__init__(align=align)


class MatrixDiagPartV3(_AlignedDiag):
    """array_ops.MatrixDiagPartV3(align="RIGHT_LEFT")(x, k, padding_value): the diagonals k
    (an int or a pair, as a tensor) of x's last two dims, padded with the 0-d padding_value
    as align says (ops.matrix_diag_part; k must be known when traced: a constant in GRAPH
    mode)."""

    def __call__(self, x, k, padding_value):
        return _diag.matrix_diag_part(x, k, padding_value, self.align)


class MatrixDiagV3(_AlignedDiag):
    """array_ops.MatrixDiagV3(align="RIGHT_LEFT")(x, k, num_rows, num_cols, padding_value):
    matrices with the diagonals k of x (MatrixDiagPartV3's inverse) and padding_value
    elsewhere (ops.matrix_diag; k and the sizes must be known when traced)."""

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        if isinstance(padding_value, _C.Tensor) and len(padding_value.shape) != 0:
            raise ValueError(f"For 'MatrixDiagV3', 'padding_value' must be a scalar, but got "
                             f"shape {tuple(padding_value.shape)}.")
        return _diag.matrix_diag(x, k, num_rows, num_cols, padding_value, self.align)


__all__ += ["MatrixDiagPartV3", "MatrixDiagV3"]


# ResizeLinear1D (ops/function/resize1d_func.py).
from mycel.ops.function import resize1d_func as _r1d  # noqa: E402


class ResizeLinear1D(_Composed):
    """ResizeLinear1D(coordinate_transformation_mode="align_corners")(x, size): x [N, C, W]
    (float16/32/64) resized along W to size[0] (a 1-D int tensor of one element) by linear
    interpolation; the modes 'align_corners', 'half_pixel', 'asymmetric' map output positions
    to source positions (ops/function/resize1d_func.py). Differentiable in x."""

    def __init__(self, coordinate_transformation_mode="align_corners"):
        mode = coordinate_transformation_mode
        if not isinstance(mode, str):
            raise TypeError(f"For 'ResizeLinear1D', 'coordinate_transformation_mode' must be a "
                            f"str, but got {type(mode).__name__}.")
        if mode not in _r1d.MODES:
            raise ValueError(f"For 'ResizeLinear1D', 'coordinate_transformation_mode' must be "
                             f"one of {_r1d.MODES}, but got {mode!r}.")
        self.coordinate_transformation_mode = mode
        super().__init__(coordinate_transformation_mode=mode)

    def __call__(self, x, size):
        _check_tensor("ResizeLinear1D", "x", x, (_C.float16, _C.float32, _C.float64))
        _check_rank("ResizeLinear1D", "x", x, 3)
        return _r1d.resize_linear_1d(x, size, self.coordinate_transformation_mode)


__all__ += ["ResizeLinear1D"]


# MaxPoolWithArgmax and MaxPoolGradGradWithArgmax (ops/function/argmax_pool_func.py).
from mycel.ops.function import argmax_pool_func as _amp  # noqa: E402


def _pool_pair(op, name, v):
    """kernel_size/strides: an int, or a tuple of 2 (H, W) or 4 (1, H, W, 1 / 1, 1, H, W)."""
    if isinstance(v, bool) or not isinstance(v, (int, tuple, list)):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple, but got "
                        f"{type(v).__name__}.")
    vals = (v, v) if isinstance(v, int) else tuple(v)
    if len(vals) == 4:  # (1, 1, H, W) as NCHW, else (1, H, W, 1)
        vals = vals[2:] if tuple(vals[:2]) == (1, 1) else vals[1:3]
    if len(vals) != 2 or any(isinstance(e, bool) or not isinstance(e, int) or e <= 0
                             for e in vals):
        raise ValueError(f"For '{op}', '{name}' must be a positive int or 2 positive ints, but "
                         f"got {v!r}.")
    return vals


def _pad_mode(op, mode):
    if not isinstance(mode, str) or mode.upper() not in ("VALID", "SAME"):
        raise ValueError(f"For '{op}', 'pad_mode' must be 'valid' or 'same', but got {mode!r}.")
    return mode.upper()


class MaxPoolWithArgmax(_Composed):
    """MaxPoolWithArgmax(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW")(x) ->
    (output, argmax): max pooling of NCHW x (float16/32/64) and each window's first maximum as
    the flat index c * H * W + h * W + w in the example (int32); the gradient goes to that
    element."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        op = "MaxPoolWithArgmax"
        self.kernel_size = _pool_pair(op, "kernel_size", kernel_size)
        self.strides = _pool_pair(op, "strides", strides)
        self.pad_mode = _pad_mode(op, pad_mode)
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only data_format 'NCHW' is supported, but got "
                             f"{data_format!r}.")
        super().__init__(kernel_size=self.kernel_size, strides=self.strides,
                         pad_mode=self.pad_mode, data_format=data_format)

    def __call__(self, x):
        _check_tensor("MaxPoolWithArgmax", "x", x, (_C.float16, _C.float32, _C.float64))
        _check_rank("MaxPoolWithArgmax", "x", x, 4)
        return _amp.max_pool_with_argmax(x, self.kernel_size, self.strides, self.pad_mode)


class MaxPoolGradGradWithArgmax(_Composed):
    """_grad_ops.MaxPoolGradGradWithArgmax(pad_mode="VALID", kernel_size=1, strides=1)(x, grad,
    argmax): the second-order backward of MaxPoolWithArgmax, grad (x's shape) read at each
    argmax position (the shape of argmax, int32/int64)."""

    def __init__(self, pad_mode="VALID", kernel_size=1, strides=1):
        op = "MaxPoolGradGradWithArgmax"
        self.kernel_size = _pool_pair(op, "kernel_size", kernel_size)
        self.strides = _pool_pair(op, "strides", strides)
        self.pad_mode = _pad_mode(op, pad_mode)
        super().__init__(pad_mode=self.pad_mode, kernel_size=self.kernel_size,
                         strides=self.strides)

    def __call__(self, x, grad, argmax):
        op = "MaxPoolGradGradWithArgmax"
        _check_tensor(op, "x", x, (_C.float16, _C.float32, _C.float64))
        _check_tensor(op, "grad", grad, (x.dtype,))
        _check_tensor(op, "argmax", argmax, _INDEX)
        _check_rank(op, "x", x, 4)
        if tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"For '{op}', 'grad' must have x's shape {tuple(x.shape)}, but "
                             f"got {tuple(grad.shape)}.")
        _check_rank(op, "argmax", argmax, 4)
        return _amp.max_pool_grad_grad_with_argmax(grad, argmax)


class MaxPoolWithArgmaxV2(_Composed):
    """MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=mycel.int64)(x) -> (output, argmax): max pooling of NCHW x
    with PyTorch's sizes (symmetric pads, dilation, ceil_mode) and each window's first
    maximum as h * W + w within its plane (int32/int64)."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=_C.int64):
        op = "MaxPoolWithArgmaxV2"
        self.kernel_size = _pool_pair(op, "kernel_size", kernel_size)
        self.strides = self.kernel_size if strides is None else _pool_pair(op, "strides",
                                                                            strides)
        self.pads = _pool_pair(op, "pads", pads) if pads not in (0, (0, 0)) else (0, 0)
        self.dilation = _pool_pair(op, "dilation", dilation)
        if any(2 * p > k for p, k in zip(self.pads, self.kernel_size)):
            raise ValueError(f"For '{op}', 'pads' must be at most half of 'kernel_size', but "
                             f"got {pads!r} and {kernel_size!r}.")
        self.ceil_mode = _check_bool(op, "ceil_mode", ceil_mode)
        if argmax_type not in (_C.int32, _C.int64):
            raise TypeError(f"For '{op}', 'argmax_type' must be int32 or int64, but got "
                            f"{argmax_type}.")
        self.argmax_type = argmax_type
        super().__init__(kernel_size=self.kernel_size, strides=self.strides, pads=self.pads,
                         dilation=self.dilation, ceil_mode=ceil_mode, argmax_type=argmax_type)

    def __call__(self, x):
        _check_tensor("MaxPoolWithArgmaxV2", "x", x, (_C.float16, _C.float32, _C.float64))
        _check_rank("MaxPoolWithArgmaxV2", "x", x, 4)
        return _amp.max_pool_with_argmax_v2(x, self.kernel_size, self.strides, self.pads,
                                            self.dilation, self.ceil_mode, self.argmax_type)


class MaxPoolGradWithArgmax(_Composed):
    """_grad_ops.MaxPoolGradWithArgmax(kernel_size=1, strides=1, pad_mode="VALID")(x, grad,
    argmax): MaxPoolWithArgmax's input gradient, each grad value added at its argmax position
    (c * H * W + h * W + w in the example)."""
    _per_plane = False

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW"):
        op = type(self).__name__
        self.kernel_size = _pool_pair(op, "kernel_size", kernel_size)
        self.strides = _pool_pair(op, "strides", strides)
        self.pad_mode = _pad_mode(op, pad_mode)
        super().__init__(kernel_size=self.kernel_size, strides=self.strides,
                         pad_mode=self.pad_mode, data_format=data_format)

    def __call__(self, x, grad, argmax):
        op = type(self).__name__
        _check_tensor(op, "x", x, (_C.float16, _C.float32, _C.float64))
        _check_tensor(op, "grad", grad, (x.dtype,))
        _check_tensor(op, "argmax", argmax, _INDEX)
        _check_rank(op, "x", x, 4)
        _check_rank(op, "grad", grad, 4)
        if tuple(argmax.shape) != tuple(grad.shape):
            raise ValueError(f"For '{op}', 'argmax' must have grad's shape "
                             f"{tuple(grad.shape)}, but got {tuple(argmax.shape)}.")
        return _amp.max_pool_grad_with_argmax(tuple(x.shape), grad, argmax, self._per_plane)


class MaxPoolGradWithArgmaxV2(MaxPoolGradWithArgmax):
    """_grad_ops.MaxPoolGradWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=mycel.int64)(x, grad, argmax): MaxPoolWithArgmaxV2's input
    gradient (argmax counted within each plane)."""
    _per_plane = True

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=_C.int64):
        fwd = MaxPoolWithArgmaxV2(kernel_size, strides, pads, dilation, ceil_mode, argmax_type)
        _Composed.__init__(self, **fwd.attrs)
        self.kernel_size, self.strides = fwd.kernel_size, fwd.strides


__all__ += ["MaxPoolWithArgmax", "MaxPoolGradGradWithArgmax", "MaxPoolWithArgmaxV2",
            "MaxPoolGradWithArgmax", "MaxPoolGradWithArgmaxV2"]


# AvgPool3D (ops/function/pool_nd_func.py).
from mycel.ops.function import pool_nd_func as _pnd  # noqa: E402


class AvgPool3D(_Composed):
    """AvgPool3D(kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0, data_format="NCDHW")(x): average pooling of
    [N, C, D, H, W] (float16/32/64) over D, H, W. pad_mode 'valid', 'same' (TensorFlow's) or
    'pad' (pad: an int or (front, back, top, bottom, left, right)); the divisor counts the
    padding with count_include_pad, or is divisor_override when non-zero."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=0, data_format="NCDHW"):
        op = "AvgPool3D"
        self.kernel_size = _three_ints(kernel_size, "kernel_size", op)
        self.strides = _three_ints(strides, "strides", op)
        if not isinstance(pad_mode, str) or pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{op}', 'pad_mode' must be 'valid', 'same' or 'pad', but "
                             f"got {pad_mode!r}.")
        self.pad_mode = pad_mode.upper()
        pads = (pad,) * 6 if isinstance(pad, int) and not isinstance(pad, bool) else tuple(pad)
        if len(pads) != 6 or any(isinstance(v, bool) or not isinstance(v, int) or v < 0
                                 for v in pads):
            raise ValueError(f"For '{op}', 'pad' must be a non-negative int or 6 of them, but "
                             f"got {pad!r}.")
        if self.pad_mode != "PAD" and any(pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 unless pad_mode is 'pad', but got "
                             f"{pad!r}.")
        self.pad = pads
        self.ceil_mode = _check_bool(op, "ceil_mode", ceil_mode)
        self.count_include_pad = _check_bool(op, "count_include_pad", count_include_pad)
        self.divisor_override = _check_int(op, "divisor_override", divisor_override,
                                           positive=False)
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format 'NCDHW' is supported, but got "
                             f"{data_format!r}.")
        super().__init__(kernel_size=self.kernel_size, strides=self.strides,
                         pad_mode=self.pad_mode, pad=pads, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override,
                         data_format=data_format)

    def __call__(self, x):
        _check_tensor("AvgPool3D", "x", x, (_C.float16, _C.float32, _C.float64))
        _check_rank("AvgPool3D", "x", x, 5)
        if self.pad_mode == "SAME":
            pads = _pnd.same_pads(tuple(x.shape), self.kernel_size, self.strides)
        else:
            p = self.pad
            pads = ((p[0], p[1]), (p[2], p[3]), (p[4], p[5]))
        return _pnd.avg_pool_nd(x, self.kernel_size, self.strides, pads, self.ceil_mode,
                                self.count_include_pad, self.divisor_override)


__all__ += ["AvgPool3D"]


# RandomCategorical (ops/function/categorical_func.py).
from mycel.ops.function import categorical_func as _cat  # noqa: E402


class RandomCategorical(_Composed):
    """RandomCategorical(dtype=mycel.int64)(logits, num_sample, seed=0): [batch, num_sample]
    class indices (int16/int32/int64) drawn from softmax of each row of logits [batch,
    classes] (float16/32/64), with MindSpore's random stream for the seed (so a seed gives
    MindSpore's samples); the instance keeps its stream between calls and restarts it when
    the seed changes (ops/function/categorical_func.py)."""

    def __init__(self, dtype=_C.int64):
        if dtype not in (_C.int16, _C.int32, _C.int64):
            raise TypeError(f"For 'RandomCategorical', 'dtype' must be int16, int32 or int64, "
                            f"but got {dtype}.")
        self.dtype = dtype
        super().__init__(dtype=dtype)
        import numpy as np
        from mycel.common.parameter import Parameter
        self._fresh = Parameter(_C.Tensor(np.array(1, np.int64)), name="random_categorical_fresh",
                                requires_grad=False)
        self._last_seed = Parameter(_C.Tensor(np.array(0, np.int64)),
                                    name="random_categorical_seed", requires_grad=False)
        self._engine = Parameter(_C.Tensor(np.array(1, np.int64)),
                                 name="random_categorical_engine", requires_grad=False)

    def __call__(self, logits, num_sample, seed=0):
        _check_tensor("RandomCategorical", "logits", logits, (_C.float16, _C.float32,
                                                              _C.float64))
        _check_rank("RandomCategorical", "logits", logits, 2)
        return _cat.random_categorical(logits, num_sample, seed, self.dtype,
                                       (self._fresh, self._last_seed, self._engine))


__all__ += ["RandomCategorical"]


# CTCLossV2 (ops/function/ctc_func.py).
from mycel.ops.function import ctc_func as _ctc  # noqa: E402


class CTCLossV2(_Composed):
    """CTCLossV2(blank=0, reduction="mean", zero_infinity=False)(log_probs, targets,
    input_lengths, target_lengths) -> (neg_log_likelihood, log_alpha): the CTC loss of
    log_probs [T, N, C] (float32/64, log-softmax outputs) for padded targets [N, S] with
    per-example lengths; log_alpha [N, T, 2S + 1]. The gradient follows MindSpore's (and
    PyTorch's) convention, with respect to the logits under log_softmax
    (ops/function/ctc_func.py)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        op = "CTCLossV2"
        self.blank = _check_int(op, "blank", blank, positive=False)
        if self.blank < 0:
            raise ValueError(f"For '{op}', 'blank' must be non-negative, but got {blank}.")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For '{op}', 'reduction' must be 'none', 'mean' or 'sum', but "
                             f"got {reduction!r}.")
        self.reduction = reduction
        self.zero_infinity = _check_bool(op, "zero_infinity", zero_infinity)
        super().__init__(blank=self.blank, reduction=reduction, zero_infinity=zero_infinity)

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        return _ctc.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                             self.reduction, self.zero_infinity)


__all__ += ["CTCLossV2"]


# FractionalMaxPool and FractionalMaxPoolGrad (ops/function/fractional_pool_func.py).
from mycel.ops.function import fractional_pool_func as _frac  # noqa: E402

_FRAC_TYPES = (_C.float32, _C.float64, _C.int32, _C.int64)


class FractionalMaxPool(_Composed):
    """nn_ops.FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False,
    deterministic=False, seed=0, seed2=0)(x) -> (y, row_pooling_sequence,
    col_pooling_sequence): fractional max pooling of NHWC x (float32/64, int32/64) with
    pooling_ratio (1.0, rh, rw, 1.0), rh, rw >= 1; the sequences are int64 region bounds
    (ops/function/fractional_pool_func.py: mycel's random numbers, not MindSpore's)."""

    def __init__(self, pooling_ratio, pseudo_random=False, overlapping=False,
                 deterministic=False, seed=0, seed2=0):
        op = "FractionalMaxPool"
        if not isinstance(pooling_ratio, (list, tuple)) or len(pooling_ratio) != 4:
            raise ValueError(f"For '{op}', 'pooling_ratio' must be a list or tuple of 4 floats, "
                             f"but got {pooling_ratio!r}.")
        ratio = tuple(_check_float(op, "pooling_ratio", r) for r in pooling_ratio)
        if ratio[0] != 1.0 or ratio[3] != 1.0 or ratio[1] < 1.0 or ratio[2] < 1.0:
            raise ValueError(f"For '{op}', 'pooling_ratio' must be (1.0, >= 1.0, >= 1.0, 1.0), "
                             f"but got {pooling_ratio!r}.")
        self.pooling_ratio = ratio
        self.pseudo_random = _check_bool(op, "pseudo_random", pseudo_random)
        self.overlapping = _check_bool(op, "overlapping", overlapping)
        self.deterministic = _check_bool(op, "deterministic", deterministic)
        self.seed = _check_int(op, "seed", seed, positive=False)
        self.seed2 = _check_int(op, "seed2", seed2, positive=False)
        super().__init__(pooling_ratio=ratio, pseudo_random=pseudo_random,
                         overlapping=overlapping, deterministic=deterministic, seed=seed,
                         seed2=seed2)
        self._uniform = _C.OpHandle("UniformReal", {"seed": self.seed, "seed2": self.seed2,
                                                    "dtype": _C.float64})

    def _sequence(self, length, out):
        if self.deterministic:
            return _frac._fixed_sequence(length, out, self.pseudo_random, self.seed, self.seed2)
        return _frac._random_sequence(length, out, self.pseudo_random, self._uniform)

    def _regions(self, op, x):
        """The output size and the row and column pooling sequences of x, checked."""
        _check_tensor(op, "x", x, _FRAC_TYPES)
        _check_rank(op, "x", x, 4)
        _, h, w, _ = x.shape
        out_h, out_w = int(h / self.pooling_ratio[1]), int(w / self.pooling_ratio[2])
        if out_h <= 0 or out_w <= 0:
            raise ValueError(f"For '{op}', the input {tuple(x.shape)} is too small for "
                             f"pooling_ratio {self.pooling_ratio}.")
        rows = self._sequence(h, out_h)
        cols = self._sequence(w, out_w)
        return out_h, out_w, rows, cols

    def __call__(self, x):
        out_h, out_w, rows, cols = self._regions("FractionalMaxPool", x)
        return _frac.fractional_max_pool(x, out_h, out_w, rows, cols, self.overlapping), rows, \
            cols


class FractionalMaxPoolGrad(_Composed):
    """_grad_ops.FractionalMaxPoolGrad(overlapping=False)(orig_input, orig_output,
    out_backprop, row_pooling_sequence, col_pooling_sequence): orig_input's gradient, each
    out_backprop value at its region's first maximum."""

    def __init__(self, overlapping=False):
        self.overlapping = _check_bool("FractionalMaxPoolGrad", "overlapping", overlapping)
        super().__init__(overlapping=overlapping)

    def __call__(self, orig_input, orig_output, out_backprop, row_pooling_sequence,
                 col_pooling_sequence):
        op = "FractionalMaxPoolGrad"
        _check_tensor(op, "orig_input", orig_input, _FRAC_TYPES)
        _check_tensor(op, "out_backprop", out_backprop, (orig_input.dtype,))
        _check_tensor(op, "row_pooling_sequence", row_pooling_sequence, (_C.int64,))
        _check_tensor(op, "col_pooling_sequence", col_pooling_sequence, (_C.int64,))
        _check_rank(op, "orig_input", orig_input, 4)
        _check_rank(op, "out_backprop", out_backprop, 4)
        return _frac.fractional_max_pool_grad(orig_input, out_backprop, row_pooling_sequence,
                                              col_pooling_sequence, self.overlapping)


class FractionalAvgPool(FractionalMaxPool):
    """nn_ops.FractionalAvgPool(pooling_ratio, pseudo_random=False, overlapping=False,
    deterministic=False, seed=0, seed2=0)(x) -> (y, row_pooling_sequence,
    col_pooling_sequence): FractionalMaxPool's regions averaged (integers: truncated)."""

    def __call__(self, x):
        out_h, out_w, rows, cols = self._regions("FractionalAvgPool", x)
        return _frac.fractional_avg_pool(x, out_h, out_w, rows, cols, self.overlapping), rows, \
            cols


class FractionalAvgPoolGrad(_Composed):
    """_grad_ops.FractionalAvgPoolGrad(overlapping=False)(orig_input_tensor_shape,
    out_backprop, row_pooling_sequence, col_pooling_sequence): the input's gradient of the
    given shape (a 1-D int64 tensor, known when traced), each out_backprop value spread evenly
    over its region."""

    def __init__(self, overlapping=False):
        self.overlapping = _check_bool("FractionalAvgPoolGrad", "overlapping", overlapping)
        super().__init__(overlapping=overlapping)

    def __call__(self, orig_input_tensor_shape, out_backprop, row_pooling_sequence,
                 col_pooling_sequence):
        op = "FractionalAvgPoolGrad"
        _check_tensor(op, "out_backprop", out_backprop, _FRAC_TYPES)
        _check_rank(op, "out_backprop", out_backprop, 4)
        _check_tensor(op, "row_pooling_sequence", row_pooling_sequence, (_C.int64,))
        _check_tensor(op, "col_pooling_sequence", col_pooling_sequence, (_C.int64,))
        shape = _frac.shape_value(orig_input_tensor_shape)
        return _frac.fractional_avg_pool_grad(shape, out_backprop, row_pooling_sequence,
                                              col_pooling_sequence, self.overlapping)


__all__ += ["FractionalMaxPool", "FractionalMaxPoolGrad", "FractionalAvgPool",
            "FractionalAvgPoolGrad"]


# DeformableOffsets and DeformableOffsetsGrad (ops/function/deformable_func.py).
from mycel.ops.function import deformable_func as _dfm  # noqa: E402


class _DeformableBase(_Composed):
    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW",
                 deformable_groups=1, modulated=True):
        op = type(self).__name__
        fmt = data_format
        if fmt not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{op}', 'data_format' must be 'NCHW' or 'NHWC', but got "
                             f"{data_format!r}.")
        hw = (2, 3) if fmt == "NCHW" else (1, 2)

        def four(name, v):
            if not isinstance(v, (tuple, list)) or len(v) != 4 or any(
                    isinstance(e, bool) or not isinstance(e, int) for e in v):
                raise TypeError(f"For '{op}', '{name}' must be a tuple of 4 ints, but got {v!r}.")
            return tuple(v)
        st, dl = four("strides", strides), four("dilations", dilations)
        if any(st[a] != 1 for a in range(4) if a not in hw) or min(st) <= 0:
            raise ValueError(f"For '{op}', 'strides' must be positive and 1 for N and C, but "
                             f"got {strides!r}.")
        if any(dl[a] != 1 for a in range(4) if a not in hw) or min(dl) <= 0:
            raise ValueError(f"For '{op}', 'dilations' must be positive and 1 for N and C, but "
                             f"got {dilations!r}.")
        self.strides = (st[hw[0]], st[hw[1]])
        self.dilations = (dl[hw[0]], dl[hw[1]])
        self.pads = four("pads", pads)
        if min(self.pads) < 0:
            raise ValueError(f"For '{op}', 'pads' must be non-negative, but got {pads!r}.")
        if not isinstance(ksize, (tuple, list)) or len(ksize) != 2 or any(
                isinstance(e, bool) or not isinstance(e, int) or e <= 0 for e in ksize):
            raise ValueError(f"For '{op}', 'ksize' must be 2 positive ints, but got {ksize!r}.")
        self.ksize = tuple(ksize)
        self.deformable_groups = _check_int(op, "deformable_groups", deformable_groups)
        if _check_bool(op, "modulated", modulated) is not True:
            raise ValueError(f"For '{op}', only modulated=True is supported, as MindSpore's.")
        self.data_format = fmt
        super().__init__(strides=st, pads=self.pads, ksize=self.ksize, dilations=dl,
                         data_format=fmt, deformable_groups=self.deformable_groups,
                         modulated=modulated)

    def _nchw(self, *ts):
        if self.data_format == "NCHW":
            return ts
        out = ()
        for t in ts:
            out = out + (_prim("Transpose")(t, (0, 3, 1, 2)),)
        return out

    def _back(self, t):
        return t if self.data_format == "NCHW" else _prim("Transpose")(t, (0, 2, 3, 1))

    def _check(self, x, offsets):
        op = type(self).__name__
        _check_tensor(op, "x", x, _F16_32)
        _check_tensor(op, "offsets", offsets, (x.dtype,))
        _check_rank(op, "x", x, 4)
        _check_rank(op, "offsets", offsets, 4)
        c = x.shape[1] if self.data_format == "NCHW" else x.shape[3]
        oc = offsets.shape[1] if self.data_format == "NCHW" else offsets.shape[3]
        g = self.deformable_groups
        if c % g or oc != 3 * g * self.ksize[0] * self.ksize[1]:
            raise ValueError(f"For '{op}', the channels of x ({c}) must divide into "
                             f"deformable_groups ({g}) and offsets must have 3 * groups * "
                             f"kh * kw = {3 * g * self.ksize[0] * self.ksize[1]} channels, but "
                             f"got {oc}.")

    def _args(self):
        return self.ksize, self.strides, self.pads, self.dilations, self.deformable_groups


class DeformableOffsets(_DeformableBase):
    """nn_ops.DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1),
    data_format="NCHW", deformable_groups=1, modulated=True)(x, offsets): the bilinear samples
    of deformable convolution v2, [N, C, OH * kh, OW * kw] (ops/function/deformable_func.py);
    float16/float32 (float16 computed in float32)."""

    def __call__(self, x, offsets):
        self._check(x, offsets)
        dt = x.dtype
        x, offsets = self._nchw(_prim("Cast")(x, _C.float32), _prim("Cast")(offsets, _C.float32))
        out = _dfm.deformable_offsets(x, offsets, *self._args())
        return _prim("Cast")(self._back(out), dt)


class DeformableOffsetsGrad(_DeformableBase):
    """_grad_ops.DeformableOffsetsGrad(strides, pads, ksize, dilations=(1, 1, 1, 1),
    data_format="NCHW", deformable_groups=1, modulated=True)(dout, x, offsets) -> (dx,
    doffsets): DeformableOffsets' gradients for dout."""

    def __call__(self, dout, x, offsets):
        self._check(x, offsets)
        _check_tensor(type(self).__name__, "dout", dout, (x.dtype,))
        dt = x.dtype
        dout, x, offsets = self._nchw(_prim("Cast")(dout, _C.float32),
                                      _prim("Cast")(x, _C.float32),
                                      _prim("Cast")(offsets, _C.float32))
        dx, doff = _dfm.deformable_offsets_grad(dout, x, offsets, *self._args())
        return _prim("Cast")(self._back(dx), dt), _prim("Cast")(self._back(doff), dt)


__all__ += ["DeformableOffsets", "DeformableOffsetsGrad"]


# Conv3DTranspose (ops/function/conv_transpose_nd_func.py).
from mycel.ops.function import conv_transpose_nd_func as _ctn  # noqa: E402


class Conv3DTranspose(_Composed):
    """Conv3DTranspose(in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0,
    stride=1, dilation=1, group=1, output_padding=0, data_format="NCDHW")(dout, weight): the
    3-D transposed convolution of dout [N, in_channel, D, H, W] with weight [in_channel,
    out_channel / group, kd, kh, kw] (float16/32; ops/function/conv_transpose_nd_func.py).
    pad_mode 'valid' (no padding), 'same' (output = input * stride) or 'pad' (pad: an int or
    (head, tail, top, bottom, left, right))."""

    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0,
                 stride=1, dilation=1, group=1, output_padding=0, data_format="NCDHW"):
        op = "Conv3DTranspose"
        self.in_channel = _check_int(op, "in_channel", in_channel)
        self.out_channel = _check_int(op, "out_channel", out_channel)
        self.kernel_size = _three_ints(kernel_size, "kernel_size", op, 1)
        if mode != 1:
            raise ValueError(f"For '{op}', 'mode' must be 1, but got {mode!r}.")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"For '{op}', 'pad_mode' must be 'valid', 'same' or 'pad', but "
                             f"got {pad_mode!r}.")
        self.pad_mode = pad_mode.lower()
        pads = (pad,) * 6 if isinstance(pad, int) and not isinstance(pad, bool) else tuple(pad)
        if len(pads) != 6 or any(isinstance(v, bool) or not isinstance(v, int) or v < 0
                                 for v in pads):
            raise ValueError(f"For '{op}', 'pad' must be a non-negative int or 6 of them, but "
                             f"got {pad!r}.")
        if self.pad_mode != "pad" and any(pads):
            raise ValueError(f"For '{op}', 'pad' must be 0 unless pad_mode is 'pad', but got "
                             f"{pad!r}.")
        self.pad = pads
        self.stride = _three_ints(stride, "stride", op, 1)
        self.dilation = _three_ints(dilation, "dilation", op, 1)
        self.group = _check_int(op, "group", group)
        if in_channel % self.group or out_channel % self.group:
            raise ValueError(f"For '{op}', 'group' ({group}) must divide in_channel and "
                             f"out_channel.")
        self.output_padding = _three_ints(output_padding, "output_padding", op, 0)
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format 'NCDHW' is supported, but got "
                             f"{data_format!r}.")
        super().__init__(in_channel=in_channel, out_channel=out_channel,
                         kernel_size=self.kernel_size, mode=mode, pad_mode=self.pad_mode,
                         pad=pads, stride=self.stride, dilation=self.dilation, group=group,
                         output_padding=self.output_padding, data_format=data_format)

    def _pads(self, spatial):
        if self.pad_mode == "pad":
            p = self.pad
            return ((p[0], p[1]), (p[2], p[3]), (p[4], p[5]))
        if self.pad_mode == "valid":
            return ((0, 0),) * 3
        pads = ()
        for length, k, s, d in zip(spatial, self.kernel_size, self.stride, self.dilation):
            total = max(0, (length - 1) * s + d * (k - 1) + 1 - length * s)
            pads = pads + ((total // 2, total - total // 2),)
        return pads

    def __call__(self, dout, weight):
        op = "Conv3DTranspose"
        _check_tensor(op, "dout", dout, _F16_32)
        _check_tensor(op, "weight", weight, (dout.dtype,))
        _check_rank(op, "dout", dout, 5)
        _check_rank(op, "weight", weight, 5)
        want = (self.in_channel, self.out_channel // self.group) + self.kernel_size
        if dout.shape[1] != self.in_channel or tuple(weight.shape) != want:
            raise ValueError(f"For '{op}', dout must have {self.in_channel} channels and weight "
                             f"the shape {want}, but got {tuple(dout.shape)} and "
                             f"{tuple(weight.shape)}.")
        return _ctn.conv_transpose_nd(dout, weight, self.stride,
                                      self._pads(tuple(dout.shape[2:])), self.dilation,
                                      self.group, self.output_padding)


__all__ += ["Conv3DTranspose"]


# UniformCandidateSampler (ops/function/candidate_sampler_func.py).
from mycel.ops.function import candidate_sampler_func as _ucs  # noqa: E402


class UniformCandidateSampler(_Composed):
    """UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0,
    remove_accidental_hits=False)(true_classes) -> (sampled_candidates,
    true_expected_count, sampled_expected_count): num_sampled classes drawn uniformly from
    [0, range_max) (without replacement when unique), and the expected counts of the true
    and the sampled classes (ops/function/candidate_sampler_func.py; mycel's random numbers)."""

    def __init__(self, num_true, num_sampled, unique, range_max, seed=0,
                 remove_accidental_hits=False):
        op = "UniformCandidateSampler"
        self.num_true = _check_int(op, "num_true", num_true)
        self.num_sampled = _check_int(op, "num_sampled", num_sampled)
        self.unique = _check_bool(op, "unique", unique)
        self.range_max = _check_int(op, "range_max", range_max)
        self.seed = _check_int(op, "seed", seed, positive=False)
        if self.seed < 0:
            raise ValueError(f"For '{op}', 'seed' must be non-negative, but got {seed}.")
        self.remove_accidental_hits = _check_bool(op, "remove_accidental_hits",
                                                  remove_accidental_hits)
        if unique and num_sampled > range_max:
            raise ValueError(f"For '{op}', 'num_sampled' ({num_sampled}) must not exceed "
                             f"'range_max' ({range_max}) when unique.")
        super().__init__(num_true=num_true, num_sampled=num_sampled, unique=unique,
                         range_max=range_max, seed=seed,
                         remove_accidental_hits=remove_accidental_hits)
        self._uniform = _C.OpHandle("UniformReal", {"seed": self.seed, "seed2": 0,
                                                    "dtype": _C.float64})

    def __call__(self, true_classes):
        op = "UniformCandidateSampler"
        _check_tensor(op, "true_classes", true_classes, _INDEX)
        _check_rank(op, "true_classes", true_classes, 2)
        if true_classes.shape[1] != self.num_true:
            raise ValueError(f"For '{op}', true_classes must have num_true ({self.num_true}) "
                             f"columns, but got shape {tuple(true_classes.shape)}.")
        return _ucs.uniform_candidate_sampler(true_classes, self.num_sampled, self.unique,
                                              self.range_max, self.remove_accidental_hits,
                                              self._uniform)


__all__ += ["UniformCandidateSampler"]
