"""Neural-network primitives of MindSpore 2.x composed from the functional forms
(ops/function): activations (FastGeLU, PReLU, GLU), channel dropout, distances (Cdist,
Pdist), Dense and Conv2DTranspose, the boxes (IOU, BoundingBoxEncode/Decode, CheckValid,
NMSWithMask, ROIAlign), pooling and resampling (AdaptiveAvgPool2D/3D, MaxPool3D,
MaxUnpool2D/3D, MaxPool3DWithArgmax, GridSampler2D/3D, AffineGrid, Upsample*3D,
FractionalMaxPool3DWithFixedKsize with the random samples as an input), Im2Col / Col2Im,
MirrorPad, InTopK and NoRepeatNGram.

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import numpy as np
from mycel import _mycel as _C
from mycel.ops.function import fractional_fixed_func as _ff
from mycel.ops.function import image_func as _img
from mycel.ops.function import math_func as _mf
from mycel.ops.function import nn_func as _nnf
from mycel.ops.function import pool3d_func as _p3
from mycel.ops.function import random_func as _r
from mycel.ops.function import resample_func as _rs
from mycel.ops.function import roi_func as _roi
from mycel.ops.function import unpool_func as _up
from mycel.ops.function._util import as_tensor
from mycel.ops.function._util import prim
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations._compat_checks import _check_int
from mycel.ops.operations._compat_checks import _check_tensor
from mycel.ops.operations.composed_ops import _Composed, _exporter, _simple_maker
from mycel.ops.primitive import constexpr
from mycel.ops.primitive import make_primitive_class

__all__ = ["Im2Col", "NoRepeatNGram", "FractionalMaxPool3DWithFixedKsize"]


_export = _exporter(__all__, globals())
_simple = _simple_maker(_export, __name__)


@_export
class Cdist(_Composed):
    """Cdist(p=2.0)(input_x, input_y): pairwise p-norm distances of rows."""

    def __init__(self, p=2.0):
        super().__init__(p=p)
        self.p = p

    def __call__(self, input_x, input_y):
        return _mf.cdist(input_x, input_y, self.p)


@_export
class Pdist(_Composed):
    """Pdist(p=2.0)(x): p-norm distances between each pair of rows."""

    def __init__(self, p=2.0):
        super().__init__(p=p)
        self.p = p

    def __call__(self, x):
        return _mf.pdist(x, self.p)


@_export
class L2Normalize(_Composed):
    """L2Normalize(axis=0, epsilon=1e-4)(x): x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__(axis=axis, epsilon=epsilon)
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.epsilon = epsilon

    def __call__(self, x):
        s = _prim("ReduceSum", keep_dims=True)(_prim("Square")(x), self.axis)
        return x * _prim("Rsqrt")(_prim("Maximum")(s, float(self.epsilon)))


@_export
class Dense(_Composed):
    """Dense(has_bias=True)(x, w, b): x @ w.T + b."""

    def __init__(self, has_bias=True):
        super().__init__(has_bias=has_bias)
        self.has_bias = has_bias

    def __call__(self, x, w, b=None):
        return _mf.dense(x, w, b if self.has_bias else None)


@_export
class Conv2DTranspose(_Composed):
    """Conv2DTranspose(...)(dout, weight, input_size): Conv2DBackpropInput under
    MindSpore's other name (the same attributes)."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None,
                 mode=1, stride=1, dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel=out_channel, kernel_size=kernel_size)
        kw = dict(pad_mode=pad_mode, pad=pad, mode=mode, stride=stride, dilation=dilation,
                  group=group, data_format=data_format)
        if pad_list is not None:
            kw["pad_list"] = pad_list
        self._inner = make_primitive_class("Conv2DBackpropInput")(out_channel, kernel_size,
                                                                   **kw)

    def __call__(self, dout, weight, input_size):
        return self._inner(dout, weight, input_size)


@_export
class DataFormatDimMap(_Composed):
    """DataFormatDimMap(src_format='NHWC', dst_format='NCHW')(input_x): each dimension index
    of src_format mapped to its position in dst_format."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        if sorted(src_format) != sorted(dst_format) or len(src_format) != 4:
            raise ValueError(f"For 'DataFormatDimMap', src_format and dst_format must be "
                             f"permutations of 4 letters, but got {src_format!r}, "
                             f"{dst_format!r}.")
        super().__init__(src_format=src_format, dst_format=dst_format)
        self._table = _C.Tensor(np.array([dst_format.index(c) for c in src_format], np.int64))

    def __call__(self, input_x):
        i = _prim("Cast")(input_x, _C.int64)
        i = _prim("FloorMod")(i, _prim("OnesLike")(i) * 4)
        return _prim("Cast")(_prim("Gather")(self._table, i, 0), input_x.dtype)


_simple("FastGeLU", _nnf.fast_gelu, "FastGeLU()(x): x / (1 + exp(-1.702|x|)) exp(0.851(x - |x|)).")


_simple("PReLU", _nnf.prelu, "PReLU()(x, weight): x where x > 0, weight * x otherwise.")


@_export
class GLU(_Composed):
    """GLU(axis=-1)(x): a * sigmoid(b), the halves of x along axis."""

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return _nnf.glu(x, self.axis)


class _DropoutND(_Composed):
    _nd = 2

    def __init__(self, keep_prob=0.5):
        if not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"For '{type(self).__name__}', keep_prob must be in (0, 1], but "
                             f"got {keep_prob}.")
        super().__init__(keep_prob=keep_prob)
        self.keep_prob = keep_prob

    def __call__(self, input_x):
        """(output, mask): whole channels zeroed with probability 1 - keep_prob, the rest
        scaled by 1 / keep_prob; mask is the kept channels (bool)."""
        p = 1.0 - self.keep_prob
        mshape = _nnf._channel_mask_shape(input_x.shape, self._nd, type(self).__name__)
        keep = _prim("GreaterEqual")(_r.rand(*mshape), p)
        out = input_x * _prim("Cast")(keep, input_x.dtype) * (1.0 / self.keep_prob)
        return out, _prim("BroadcastTo", shape=input_x.shape)(keep)


@_export
class Dropout2D(_DropoutND):
    """Dropout2D(keep_prob=0.5)(x): channel dropout of (N, C, H, W), (output, mask)."""
    _nd = 2


@_export
class Dropout3D(_DropoutND):
    """Dropout3D(keep_prob=0.5)(x): channel dropout of (N, C, D, H, W), (output, mask)."""
    _nd = 3


@_export
class ChannelShuffle(_Composed):
    """ChannelShuffle(group)(x)."""

    def __init__(self, group):
        super().__init__(group=group)
        self.group = group

    def __call__(self, x):
        return _nnf.channel_shuffle(x, self.group)


@_export
class IOU(_Composed):
    """IOU(mode='iou')(anchor_boxes, gt_boxes): ops.iou."""

    def __init__(self, mode="iou"):
        super().__init__(mode=mode)
        self.mode = mode

    def __call__(self, anchor_boxes, gt_boxes):
        return _img.iou(anchor_boxes, gt_boxes, self.mode)


@_export
class BoundingBoxEncode(_Composed):
    """BoundingBoxEncode(means=(0,0,0,0), stds=(1,1,1,1))(anchor_box, groundtruth_box)."""

    def __init__(self, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
        super().__init__(means=means, stds=stds)
        self.means, self.stds = means, stds

    def __call__(self, anchor_box, groundtruth_box):
        return _img.bounding_box_encode(anchor_box, groundtruth_box, self.means, self.stds)


@_export
class BoundingBoxDecode(_Composed):
    """BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip=0.016)(anchor_box, deltas)."""

    def __init__(self, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                 wh_ratio_clip=0.016):
        super().__init__(max_shape=max_shape, means=means, stds=stds,
                         wh_ratio_clip=wh_ratio_clip)
        self.max_shape, self.means, self.stds = max_shape, means, stds
        self.wh_ratio_clip = wh_ratio_clip

    def __call__(self, anchor_box, deltas):
        return _img.bounding_box_decode(anchor_box, deltas, self.max_shape, self.means,
                                          self.stds, self.wh_ratio_clip)


_simple("CheckValid", _img.check_valid, "CheckValid()(bboxes, img_metas): ops.check_valid.")


@_export
class InTopK(_Composed):
    """InTopK(k)(x1, x2): whether each target x2[i] is among the k largest of x1[i]."""

    def __init__(self, k):
        super().__init__(k=k)
        self.k = k

    def __call__(self, x1, x2):
        return _nnf.intopk(x1, x2, self.k)


@_export
class MirrorPad(_Composed):
    """MirrorPad(mode='REFLECT')(x, paddings): ops.pad with mode 'reflect'/'symmetric'."""

    def __init__(self, mode="REFLECT"):
        super().__init__(mode=mode)
        self.mode = mode

    def __call__(self, x, paddings):
        return _nnf.mirror_pad(x, paddings, self.mode)


class _SizeOp(_Composed):
    _fn = None

    def __init__(self, output_size):
        super().__init__(output_size=output_size)
        self.output_size = output_size

    def __call__(self, x):
        return type(self)._fn(x, self.output_size)


@_export
class AdaptiveAvgPool2D(_SizeOp):
    """AdaptiveAvgPool2D(output_size)(input_x): ops.adaptive_avg_pool2d."""
    _fn = staticmethod(_rs.adaptive_avg_pool2d)


@_export
class AdaptiveAvgPool3D(_SizeOp):
    """AdaptiveAvgPool3D(output_size)(input_x): ops.adaptive_avg_pool3d."""
    _fn = staticmethod(_rs.adaptive_avg_pool3d)


@_export
class MaxPool3D(_Composed):
    """MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None,
    data_format='NCDHW')(x): 3-d max pooling (ops.max_pool3d)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                 data_format="NCDHW"):
        if data_format != "NCDHW":
            raise ValueError(f"For 'MaxPool3D', data_format must be 'NCDHW', but got "
                             f"{data_format!r}.")
        super().__init__(kernel_size=kernel_size, strides=strides, pad_mode=pad_mode,
                         pad_list=pad_list, ceil_mode=ceil_mode)
        self.kernel_size, self.strides = kernel_size, strides
        self.pad_mode = pad_mode.lower()
        self.pad_list = pad_list
        self.ceil_mode = bool(ceil_mode)

    def __call__(self, x):
        pads = _sym_pads(self.pad_list)
        return _p3.max_pool3d(x, self.kernel_size, self.strides, pads, 1, self.ceil_mode,
                              False, self.pad_mode)


@constexpr
def _sym_pads(pad_list):
    if isinstance(pad_list, int):
        return pad_list
    p = tuple(pad_list)
    if len(p) == 6:
        if p[0::2] != p[1::2]:
            raise ValueError(f"For 'MaxPool3D', mycel supports equal padding before and after "
                             f"each axis, but got {p}.")
        return p[0::2]
    return p


class _Unpool(_Composed):
    _nd = 2

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
        super().__init__(ksize=ksize, strides=strides, pads=pads, output_shape=output_shape,
                         data_format=data_format)
        self.ksize, self.pads = ksize, pads
        self.strides = ksize if strides in (0, (0,) * self._nd) else strides
        self.output_shape = tuple(output_shape)

    def __call__(self, x, argmax):
        out = self.output_shape[-self._nd:] if self.output_shape else None
        fn = _up.max_unpool2d if self._nd == 2 else _up.max_unpool3d
        return fn(x, argmax, self.ksize, self.strides, self.pads, out)


@_export
class MaxUnpool2D(_Unpool):
    """MaxUnpool2D(ksize, strides=0, pads=0, output_shape=(), data_format='NCHW')(x,
    argmax): the inverse of max pooling with indices (strides 0: ksize)."""
    _nd = 2


@_export
class MaxUnpool3D(_Unpool):
    """MaxUnpool3D(ksize, strides=0, pads=0, output_shape=(), data_format='NCDHW')(x,
    argmax)."""
    _nd = 3


@_export
class AffineGrid(_Composed):
    """AffineGrid(align_corners=False)(theta, output_size): ops.affine_grid."""

    def __init__(self, align_corners=False):
        super().__init__(align_corners=align_corners)
        self.align_corners = align_corners

    def __call__(self, theta, output_size):
        return _nnf.affine_grid(theta, output_size, self.align_corners)


@_export
class Col2Im(_Composed):
    """Col2Im(kernel_size, dilation=1, padding=0, stride=1)(x, output_size): ops.col2im."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size=kernel_size, dilation=dilation, padding=padding,
                         stride=stride)
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def __call__(self, x, output_size):
        return _nnf.col2im(x, output_size, self.kernel_size, self.dilation, self.padding,
                          self.stride)


@_export
class GridSampler2D(_Composed):
    """GridSampler2D(interpolation_mode='bilinear', padding_mode='zeros',
    align_corners=False)(input_x, grid): ops.grid_sample of 4-d input."""

    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros",
                 align_corners=False):
        super().__init__(interpolation_mode=interpolation_mode, padding_mode=padding_mode,
                         align_corners=align_corners)
        self.mode, self.padding_mode = interpolation_mode, padding_mode
        self.align_corners = align_corners

    def __call__(self, input_x, grid):
        return _rs.grid_sample(input_x, grid, self.mode, self.padding_mode,
                                self.align_corners)


@_export
class NMSWithMask(_Composed):
    """NMSWithMask(iou_threshold=0.5)(bboxes): (sorted boxes, their positions, kept mask)
    (ops/function/image_func.py nms_with_mask)."""

    def __init__(self, iou_threshold=0.5):
        if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, (int, float)):
            raise TypeError(f"For 'NMSWithMask', iou_threshold must be a float, but got "
                            f"{iou_threshold!r}.")
        super().__init__(iou_threshold=iou_threshold)
        self.iou_threshold = float(iou_threshold)

    def __call__(self, bboxes):
        return _img.nms_with_mask(bboxes, self.iou_threshold)


@_export
class ROIAlign(_Composed):
    """ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2,
    roi_end_mode=1)(features, rois) (ops/function/roi_func.py roi_align)."""

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2,
                 roi_end_mode=1):
        if roi_end_mode not in (0, 1):
            raise ValueError(f"For 'ROIAlign', roi_end_mode must be 0 or 1, but got "
                             f"{roi_end_mode!r}.")
        super().__init__(pooled_height=pooled_height, pooled_width=pooled_width,
                         spatial_scale=spatial_scale, sample_num=sample_num,
                         roi_end_mode=roi_end_mode)
        self.pooled_height, self.pooled_width = pooled_height, pooled_width
        self.spatial_scale, self.sample_num = float(spatial_scale), sample_num
        self.roi_end_mode = roi_end_mode

    def __call__(self, features, rois):
        return _roi.roi_align(features, rois, self.pooled_height, self.pooled_width,
                              self.spatial_scale, self.sample_num, self.roi_end_mode)


@_export
class MaxPool3DWithArgmax(_Composed):
    """MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
    data_format='NCDHW', argmax_type=int64)(x): (output, argmax), argmax the flat D*H*W
    index of each maximum (ops.max_pool3d with return_indices)."""

    def __init__(self, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                 data_format="NCDHW", argmax_type=_C.int64):
        if argmax_type not in (_C.int32, _C.int64):
            raise TypeError(f"For 'MaxPool3DWithArgmax', argmax_type must be int32 or int64, "
                            f"but got {argmax_type}.")
        super().__init__(ksize=ksize, strides=strides, pads=pads, dilation=dilation,
                         ceil_mode=ceil_mode, argmax_type=argmax_type)
        self.ksize, self.strides, self.pads = ksize, strides, pads
        self.dilation, self.ceil_mode, self.argmax_type = dilation, ceil_mode, argmax_type

    def __call__(self, x):
        out, arg = _p3.max_pool3d(x, self.ksize, self.strides, self.pads, self.dilation,
                                  self.ceil_mode, True)
        return out, _prim("Cast")(arg, self.argmax_type)


@constexpr
def _up3d_plan(shape, dtype, output_size, scales, op):
    if len(shape) != 5:
        raise ValueError(f"For '{op}', x must be 5-D (N, C, D, H, W), but got {tuple(shape)}.")
    if dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For '{op}', x must be float16, float32 or float64, but got {dtype}.")
    if (output_size is None) == (scales is None):
        raise ValueError(f"For '{op}', give exactly one of output_size and scales.")
    spatial = tuple(shape[2:])
    if output_size is not None:
        out = tuple(int(v) for v in output_size)
        if len(out) != 3 or min(out) <= 0:
            raise ValueError(f"For '{op}', output_size must be 3 positive ints, but got "
                             f"{output_size!r}.")
        ratios = tuple(i / o for i, o in zip(spatial, out))
    else:
        sc = tuple(float(v) for v in scales)
        if len(sc) != 3 or min(sc) <= 0:
            raise ValueError(f"For '{op}', scales must be 3 positive numbers, but got "
                             f"{scales!r}.")
        out = tuple(int(np.floor(i * s)) for i, s in zip(spatial, sc))
        ratios = tuple(1.0 / s for s in sc)
    return spatial, out, ratios


@constexpr
def _resample_matrix(n_in, n_out, ratio, linear, align_corners, dtype):
    m = np.zeros((n_in, n_out))
    for j in range(n_out):
        if not linear:
            m[min(int(np.floor(j * ratio)), n_in - 1), j] = 1.0
            continue
        if align_corners:
            p = j * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            p = max((j + 0.5) * ratio - 0.5, 0.0)
        i0 = min(int(np.floor(p)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        f = p - i0
        m[i0, j] += 1.0 - f
        m[i1, j] += f
    return _C.Tensor(m).astype(dtype)


@constexpr
def _last_perm(axis):
    """(perm moving axis of a 5-d tensor last, its inverse)."""
    perm = tuple(i for i in range(5) if i != axis) + (axis,)
    return perm, tuple(perm.index(i) for i in range(5))


def _along(y, axis, mat):
    """y resampled along axis by mat [n_in, n_out]."""
    perm, inv = _last_perm(axis)
    t = _prim("Transpose")(y, perm)
    lead = tuple(t.shape[:-1])
    t = _prim("MatMul")(_prim("Reshape")(t, (-1, t.shape[-1])), mat)
    return _prim("Transpose")(_prim("Reshape")(t, lead + (mat.shape[1],)), inv)


def _upsample3d(x, output_size, scales, linear, align_corners, op):
    spatial, out, ratios = _up3d_plan(tuple(x.shape), x.dtype, output_size, scales, op)
    y = x
    for ax in range(3):
        mat = _resample_matrix(spatial[ax], out[ax], ratios[ax], linear, align_corners,
                               x.dtype)
        y = _along(y, ax + 2, mat)
    return y


@_export
class UpsampleNearest3D(_Composed):
    """UpsampleNearest3D()(x, output_size=None, scales=None): nearest-neighbour resizing of
    (N, C, D, H, W); source index floor(dst * in / out) (or dst / scale)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, output_size=None, scales=None):
        return _upsample3d(x, output_size, scales, False, False, "UpsampleNearest3D")


@_export
class UpsampleTrilinear3D(_Composed):
    """UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None): trilinear
    resizing of (N, C, D, H, W) (half-pixel centres unless align_corners)."""

    def __init__(self, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'UpsampleTrilinear3D', align_corners must be a bool, but got "
                            f"{align_corners!r}.")
        super().__init__(align_corners=align_corners)
        self.align_corners = align_corners

    def __call__(self, x, output_size=None, scales=None):
        return _upsample3d(x, output_size, scales, True, self.align_corners,
                           "UpsampleTrilinear3D")


@_export
class GridSampler3D(GridSampler2D):
    """GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros',
    align_corners=False)(input_x, grid): ops.grid_sample of 5-d input (trilinear)."""


_FLT_MAX = float(np.finfo(np.float32).max)


def _ints(op, name, v, counts):
    """An int or a tuple/list of ints whose length is in counts, as a tuple."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,)
    if not isinstance(v, (tuple, list)) or len(v) not in counts or \
            any(isinstance(e, bool) or not isinstance(e, int) for e in v):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple/list of "
                        f"{' or '.join(str(c) for c in counts)} ints, but got {v!r}.")
    return tuple(v) * 2 if len(v) == 1 else tuple(v)


class Im2Col(_Composed):
    """Im2Col(ksizes, strides=1, dilations=1, pads=0)(x): the sliding ksizes blocks of a 4-D
    x (N, C, H, W) as (N, C, kh * kw, L), L the number of block positions (row-major), each
    of ksizes, strides, dilations and pads one int or (height, width); pads are zeros
    (ops.unfold with the channel and kernel axes apart)."""

    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        op = "Im2Col"
        self.ksizes = _ints(op, "ksizes", ksizes, (1, 2))
        self.strides = _ints(op, "strides", strides, (1, 2))
        self.dilations = _ints(op, "dilations", dilations, (1, 2))
        self.pads = _ints(op, "pads", pads, (1, 2))
        super().__init__(ksizes=self.ksizes, strides=self.strides, dilations=self.dilations,
                         pads=self.pads)

    def __call__(self, x):
        return _nnf.unfold_blocks("Im2Col", as_tensor(x), self.ksizes, self.dilations,
                                 self.pads, self.strides)


@constexpr
def _range(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


# ------------------------------------------------------------------ NoRepeatNGram
class NoRepeatNGram(_Composed):
    """NoRepeatNGram(ngram_size=1)(state_seq [batch, beam, L] int32, log_probs [batch, beam,
    vocab]) -> log_probs with -FLT_MAX (float32's lowest) at every token that would repeat an
    n-gram of state_seq: for each window state_seq[i : i + n - 1] (i + n - 1 < L) equal to the
    last n - 1 tokens, the token state_seq[i + n - 1] that followed it."""

    def __init__(self, ngram_size=1):
        self.ngram_size = _check_int("NoRepeatNGram", "ngram_size", ngram_size)
        super().__init__(ngram_size=ngram_size)

    def __call__(self, state_seq, log_probs):
        op = "NoRepeatNGram"
        _check_tensor(op, "state_seq", state_seq, (_C.int32,))
        _check_tensor(op, "log_probs", log_probs, (_C.float16, _C.float32, _C.float64))
        _ngram_plan(state_seq.shape, log_probs.shape)
        n = self.ngram_size
        steps = state_seq.shape[2]
        vocab = log_probs.shape[2]
        seq = prim("Cast")(state_seq, _C.int64)
        tokens = prim("Reshape")(_range(vocab), (1, 1, vocab))
        banned = prim("ZerosLike")(prim("Cast")(log_probs, _C.bool))
        tail = seq[:, :, steps - n + 1:]
        for i in range(steps - n + 1):
            differ = prim("Cast")(prim("NotEqual")(seq[:, :, i:i + n - 1], tail), _C.int64)
            match = prim("Equal")(prim("ReduceSum", keep_dims=True)(differ, (2,)), 0)
            nxt = seq[:, :, i + n - 1:i + n]
            banned = prim("LogicalOr")(banned, prim("LogicalAnd")(match,
                                                                  prim("Equal")(tokens, nxt)))
        low = prim("Sub")(prim("ZerosLike")(log_probs), _FLT_MAX)
        return prim("Select")(banned, low, log_probs)


@constexpr
def _ngram_plan(seq_shape, lp_shape):
    if len(seq_shape) != 3 or len(lp_shape) != 3 or tuple(seq_shape[:2]) != tuple(lp_shape[:2]):
        raise ValueError(f"For 'NoRepeatNGram', state_seq must be [batch, beam, L] and log_probs "
                         f"[batch, beam, vocab], but got {tuple(seq_shape)} and "
                         f"{tuple(lp_shape)}.")
    return True


_FLOATS = (_C.float16, _C.float32, _C.float64)


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


# ---- MindSpore's nn_ops classes of its ops test table (ut/python/ops/test_ops.py) ---------

@_export
class ReLUV3(_Composed):
    """ReLUV3()(input_x): max(input_x, 0) (ops.relu)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return _nnf.relu(input_x)


@constexpr
def _nth_check(shape, dtype, n):
    if len(shape) < 1:
        raise ValueError(f"For 'NthElement', 'input' must have at least 1 dimension, but got "
                         f"shape {tuple(shape)}.")
    if isinstance(n, int) and not isinstance(n, bool) and not 0 <= n < shape[-1]:
        raise ValueError(f"For 'NthElement', 'n' must be in [0, {shape[-1]}), but got {n}.")


@_export
class NthElement(_Composed):
    """NthElement(reverse=False)(input, n): the n-th smallest value along the last dimension
    (the n-th largest when reverse); n an int or a 0-D int32 tensor."""

    def __init__(self, reverse=False):
        if not isinstance(reverse, bool):
            raise TypeError(f"For 'NthElement', 'reverse' must be a bool, but got {reverse!r}.")
        super().__init__(reverse=reverse)
        self.reverse = reverse

    def __call__(self, input, n):  # noqa: A002 (MindSpore's argument name)
        _check_tensor("NthElement", "input", input, (_C.float16, _C.float32, _C.float64,
                                                     _C.int8, _C.int16, _C.int32, _C.int64,
                                                     _C.uint8))
        if isinstance(n, _C.Tensor):
            if n.dtype != _C.int32 or n.ndim != 0:
                raise TypeError(f"For 'NthElement', 'n' must be an int or a 0-D int32 tensor, "
                                f"but got shape {n.shape} and {n.dtype}.")
        elif isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"For 'NthElement', 'n' must be an int or a 0-D int32 tensor, but "
                            f"got {type(n).__name__}.")
        _nth_check(input.shape, input.dtype, None if isinstance(n, _C.Tensor) else n)
        s = _prim("Sort", axis=-1, descending=self.reverse)(input)[0]
        idx = n if isinstance(n, _C.Tensor) else _int_tensor(n)
        return _prim("Gather")(s, idx, input.ndim - 1)


@constexpr
def _int_tensor(n):
    return _C.Tensor(np.array(n, np.int32))


@constexpr
def _vec_perm(src, dst, shape, dtype):
    for name, f in (("src_format", src), ("dst_format", dst)):
        if f not in ("NHWC", "NCHW"):
            raise ValueError(f"For 'DataFormatVecPermute', '{name}' must be 'NHWC' or 'NCHW', "
                             f"but got {f!r}.")
    if dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For 'DataFormatVecPermute', 'x' must be int32 or int64, but got "
                        f"{dtype}.")
    if tuple(shape) not in ((4,), (4, 2)):
        raise ValueError(f"For 'DataFormatVecPermute', 'x' must have shape (4,) or (4, 2), but "
                         f"got {tuple(shape)}.")
    return tuple(src.index(c) for c in dst)


@_export
class DataFormatVecPermute(_Composed):
    """DataFormatVecPermute(src_format='NHWC', dst_format='NCHW')(x): the entries of a vector
    (4,) or pairs (4, 2) indexed by the dims of src_format, reordered to dst_format's."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        super().__init__(src_format=src_format, dst_format=dst_format)
        self.src_format, self.dst_format = src_format, dst_format

    def __call__(self, x):
        _check_tensor("DataFormatVecPermute", "x", x, (_C.int32, _C.int64))
        perm = _vec_perm(self.src_format, self.dst_format, x.shape, x.dtype)
        return _prim("Gather")(x, _C.Tensor(np.array(perm, np.int32)), 0)


@constexpr
def _depthwise_plan(x_shape, w_shape, x_dtype, w_dtype, k, ksize):
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"For 'DepthwiseConv2dNative', 'x' and 'w' must be 4-D, but got shapes "
                         f"{tuple(x_shape)} and {tuple(w_shape)}.")
    if tuple(w_shape) != (k, x_shape[1]) + tuple(ksize):
        raise ValueError(f"For 'DepthwiseConv2dNative', 'w' must be (channel_multiplier, C_in, "
                         f"kh, kw) = {(k, x_shape[1]) + tuple(ksize)}, but got "
                         f"{tuple(w_shape)}.")
    if x_dtype != w_dtype or not x_dtype.is_floating_point:
        raise TypeError(f"For 'DepthwiseConv2dNative', 'x' and 'w' must be float tensors of one "
                        f"dtype, but got {x_dtype} and {w_dtype}.")
    return x_shape[1]


@_export
class DepthwiseConv2dNative(_Composed):
    """DepthwiseConv2dNative(channel_multiplier, kernel_size, mode=3, pad_mode='valid', pad=0,
    stride=1, dilation=1, group=1)(x, w): each input channel c of x [N, C, H, W] convolved with
    its channel_multiplier filters w[:, c] (w [K, C, kh, kw]); output channel c * K + k (as
    TensorFlow's depthwise_conv2d): a Conv2D with C groups."""

    def __init__(self, channel_multiplier, kernel_size, mode=3, pad_mode="valid", pad=0,
                 stride=1, dilation=1, group=1):
        _check_int("DepthwiseConv2dNative", "channel_multiplier", channel_multiplier)
        if not isinstance(kernel_size, (int, tuple, list)):  # (tuple() of it named no op)
            raise TypeError(f"For 'DepthwiseConv2dNative', 'kernel_size' must be an int or a "
                            f"pair of ints, but got {type(kernel_size).__name__}.")
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                                   for s in ks):
            raise ValueError(f"For 'DepthwiseConv2dNative', 'kernel_size' must be a positive "
                             f"int or a pair of them, but got {kernel_size!r}.")
        super().__init__(channel_multiplier=channel_multiplier, kernel_size=ks, mode=mode,
                         pad_mode=pad_mode, pad=pad, stride=stride, dilation=dilation,
                         group=group)
        self.channel_multiplier, self.kernel_size = channel_multiplier, ks
        self.pad_mode, self.pad, self.stride, self.dilation = pad_mode, pad, stride, dilation

    def __call__(self, x, w):
        _check_tensor("DepthwiseConv2dNative", "x", x, (_C.float16, _C.float32, _C.float64))
        _check_tensor("DepthwiseConv2dNative", "w", w, (_C.float16, _C.float32, _C.float64))
        k = self.channel_multiplier
        c = _depthwise_plan(x.shape, w.shape, x.dtype, w.dtype, k, self.kernel_size)
        filt = _prim("Reshape")(_prim("Transpose")(w, (1, 0, 2, 3)),
                                (c * k, 1) + self.kernel_size)
        conv = prim("Conv2D", out_channel=c * k, kernel_size=self.kernel_size,
                    pad_mode=self.pad_mode, pad=self.pad, stride=self.stride,
                    dilation=self.dilation, group=c)
        return conv(x, filt)
