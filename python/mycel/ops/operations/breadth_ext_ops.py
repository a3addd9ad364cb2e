"""Primitive classes of MindSpore 2.x's ``mindspore.ops`` composed in mycel, third part:
pooling and resampling forms (AdaptiveAvgPool2D/3D, MaxPool3D, MaxUnpool2D/3D, AffineGrid,
Col2Im), UniqueConsecutive, random choices (RandpermV2,
MultinomialWithReplacement, RandomChoiceWithMask), Partial, the loop primitives (ForiLoop,
WhileLoop, Scan), IndexPut, HistogramFixedWidth and ResizeBilinearV2; and the functions that
wrap primitives (diagonal_scatter, random_categorical, uniform_candidate_sampler).
"""
import functools

import numpy as np

from mycel import _mycel as _C
from mycel.common import _tensor_overloads as _ov
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.operations.compat_cpu_ops import RandomCategorical, UniformCandidateSampler
from mycel.ops.function import (breadth_ext_func as _be, breadth_misc_func as _bmisc,
                                breadth_nn_func as _bn, breadth_random_func as _br,
                                resample_func as _rs, pool3d_func as _p3, unpool_func as _up)
from mycel.ops.function._util import prim as _prim
from mycel.ops.function import breadth_svd_func as _svd
from mycel.ops.primitive import constexpr

__all__ = []


def _export(cls):
    __all__.append(cls.__name__)
    globals()[cls.__name__] = cls
    return cls


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """input with its diagonal (offset, over dims dim1 and dim2) replaced by src, whose shape
    is input's other dims then the diagonal's length (Tensor.diagonal_scatter)."""
    return _ov.diagonal_scatter(input, src, offset, dim1, dim2)


def random_categorical(logits, num_sample, seed=0, dtype=_C.int64):
    """[batch, num_sample] class indices drawn from softmax of each row of logits
    (P.RandomCategorical's stream for the seed)."""
    return RandomCategorical(dtype)(logits, num_sample, seed)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled_candidates, true_expected_count, sampled_expected_count), as
    P.UniformCandidateSampler draws them."""
    return UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed,
                                   remove_accidental_hits)(true_classes)


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
        return _bn.affine_grid(theta, output_size, self.align_corners)


@_export
class Col2Im(_Composed):
    """Col2Im(kernel_size, dilation=1, padding=0, stride=1)(x, output_size): ops.col2im."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size=kernel_size, dilation=dilation, padding=padding,
                         stride=stride)
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def __call__(self, x, output_size):
        return _be.col2im(x, output_size, self.kernel_size, self.dilation, self.padding,
                          self.stride)


@_export
class UniqueConsecutive(_Composed):
    """UniqueConsecutive(return_idx=False, return_counts=False, axis=None)(x): (output,
    idx, counts) as ops.unique_consecutive (idx and counts empty when not asked)."""

    def __init__(self, return_idx=False, return_counts=False, axis=None):
        super().__init__(return_idx=return_idx, return_counts=return_counts, axis=axis)
        self.return_idx, self.return_counts, self.axis = return_idx, return_counts, axis

    def __call__(self, x):
        out, idx, cnt = _bmisc.unique_consecutive(x, True, True, self.axis)
        empty = _C.Tensor(np.zeros(0, np.int64))
        return (out, idx if self.return_idx else empty, cnt if self.return_counts else empty)


@_export
class RandpermV2(_Composed):
    """RandpermV2(seed=0, offset=0, dtype=int64)(n): a permutation of 0..n-1."""

    def __init__(self, seed=0, offset=0, dtype=_C.int64):
        super().__init__(seed=seed, offset=offset, dtype=dtype)
        self.seed, self.offset, self.dtype = seed, offset, dtype

    def __call__(self, n):
        return _br.randperm(n, self.seed, self.offset, self.dtype)


@_export
class MultinomialWithReplacement(_Composed):
    """MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)."""

    def __init__(self, numsamples, replacement=False):
        super().__init__(numsamples=numsamples, replacement=replacement)
        self.numsamples, self.replacement = numsamples, replacement

    def __call__(self, x, seed, offset):
        return _be.multinomial_with_replacement(x, seed, offset, self.numsamples,
                                                self.replacement)


@_export
class RandomChoiceWithMask(_Composed):
    """RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x): ops.choice_with_mask."""

    def __init__(self, count=256, seed=0, seed2=0):
        super().__init__(count=count, seed=seed, seed2=seed2)
        self.count, self.seed, self.seed2 = count, seed, seed2

    def __call__(self, input_x):
        return _be.choice_with_mask(input_x, self.count, self.seed, self.seed2)


@_export
class Partial(_Composed):
    """Partial()(func, *args): func with its first arguments bound."""

    def __init__(self):
        super().__init__()

    def __call__(self, func, *args):
        return functools.partial(func, *args)


@_export
class ForiLoop(_Composed):
    """ForiLoop()(lower, upper, loop_func, init_val, unroll=True): val = loop_func(i, val)
    for i in [lower, upper). The bounds are Python ints (the loop runs in Python, or unrolls
    in graph mode)."""

    def __init__(self):
        super().__init__()

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        val = init_val
        for i in range(int(lower), int(upper)):
            val = loop_func(i, val)
        return val


@_export
class WhileLoop(_Composed):
    """WhileLoop()(cond_func, loop_func, init_val): val = loop_func(val) while
    cond_func(val) (PYNATIVE: the condition is read each time)."""

    def __init__(self):
        super().__init__()

    def __call__(self, cond_func, loop_func, init_val):
        val = init_val
        while bool(_truth(cond_func(val))):
            val = loop_func(val)
        return val


def _truth(c):
    return c.asnumpy().all() if isinstance(c, _C.Tensor) else c


@_export
class Scan(_Composed):
    """Scan()(loop_func, init, xs, length=None, unroll=True): (carry, ys) with carry, y =
    loop_func(carry, x) for each x of xs (or length steps of None); ys stacked when they
    are tensors."""

    def __init__(self):
        super().__init__()

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        n = length if xs is None else (xs.shape[0] if isinstance(xs, _C.Tensor) else len(xs))
        carry, ys = init, []
        for i in range(n):
            carry, y = loop_func(carry, None if xs is None else xs[i])
            ys.append(y)
        if ys and all(isinstance(y, _C.Tensor) for y in ys):
            return carry, _prim("Stack", axis=0)(tuple(ys))
        return carry, ys


@_export
class IndexPut(_Composed):
    """IndexPut(accumulate=0)(x1, x2, indices): x1 with x2 written at the positions the 1-D
    int tensors of indices name (added when accumulate is 1)."""

    def __init__(self, accumulate=0):
        if accumulate not in (0, 1):
            raise ValueError(f"For 'IndexPut', accumulate must be 0 or 1, but got {accumulate}.")
        super().__init__(accumulate=accumulate)
        self.accumulate = accumulate

    def __call__(self, x1, x2, indices):
        if not isinstance(indices, (tuple, list)):  # (tuple() of it named no op)
            raise TypeError(f"For 'IndexPut', indices must be a tuple of Tensors, but got "
                            f"{type(indices).__name__}.")
        return _ov.index_put(x1, tuple(indices), x2, bool(self.accumulate))


@_export
class HistogramFixedWidth(_Composed):
    """HistogramFixedWidth(nbins, dtype='int32')(x, range): counts of x in nbins equal
    bins over [range[0], range[1]), values below in the first bin and above in the last."""

    def __init__(self, nbins, dtype="int32"):
        if not isinstance(nbins, int) or isinstance(nbins, bool) or nbins < 1:
            raise ValueError(f"For 'HistogramFixedWidth', nbins must be a positive int, but got "
                             f"{nbins!r}.")
        super().__init__(nbins=nbins, dtype=dtype)
        self.nbins = nbins

    def __call__(self, x, range):  # noqa: A002 (MindSpore's argument name)
        v = _prim("Cast")(_prim("Reshape")(x, (-1,)), _C.float64)
        r = _prim("Cast")(range, _C.float64)
        lo = _prim("StridedSlice")(r, (0,), (1,), (1,))
        hi = _prim("StridedSlice")(r, (1,), (2,), (1,))
        b = _prim("Floor")((v - lo) / (hi - lo) * float(self.nbins))
        b = _prim("Minimum")(_prim("Maximum")(b, 0.0), float(self.nbins - 1))
        ones = _prim("OnesLike")(_prim("Cast")(b, _C.int32))
        return _prim("UnsortedSegmentSum")(ones, _prim("Cast")(b, _C.int32), self.nbins)


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


# ---- special functions (ops/function/breadth_special_func.py) -----------------------------

from mycel.ops.function import breadth_special_func as _sf  # noqa: E402


def _unary_class(name, fn):
    def __init__(self):
        _Composed.__init__(self)

    def __call__(self, x):
        return fn(x)
    return _export(type(name, (_Composed,), {
        "__doc__": f"{name}()(x): ops.{fn.__name__}.", "__module__": __name__,
        "__init__": __init__, "__call__": __call__}))


for _fn_name in ("j0", "j1", "y0", "y1", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e"):
    _unary_class("Bessel" + _fn_name[0].upper() + _fn_name[1:],
                 getattr(_sf, "bessel_" + _fn_name))


def _binary_class(name, fn, doc):
    def __init__(self):
        _Composed.__init__(self)

    def __call__(self, x, y):
        return fn(x, y)
    return _export(type(name, (_Composed,), {"__doc__": doc, "__module__": __name__,
                                             "__init__": __init__, "__call__": __call__}))


_binary_class("Zeta", _sf.zeta, "Zeta()(x, q): the Hurwitz zeta function (ops.zeta).")
_binary_class("Polygamma", _sf.polygamma, "Polygamma()(a, x): ops.polygamma(a, x).")
_binary_class("Igamma", _sf.igamma, "Igamma()(a, x): the regularized lower incomplete gamma.")
_binary_class("Igammac", _sf.igammac, "Igammac()(a, x): the regularized upper incomplete "
              "gamma.")


# ---- sampling and LU (ops/function/breadth_sample_func.py) --------------------------------

from mycel.ops.function import breadth_sample_func as _bsm  # noqa: E402


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
        return _bsm.grid_sample(input_x, grid, self.mode, self.padding_mode,
                                self.align_corners)


@_export
class LuUnpack(_Composed):
    """LuUnpack(unpack_data=True, unpack_pivots=True)(LU_data, LU_pivots): (P, L, U)."""

    def __init__(self, unpack_data=True, unpack_pivots=True):
        super().__init__(unpack_data=unpack_data, unpack_pivots=unpack_pivots)
        self.unpack_data, self.unpack_pivots = unpack_data, unpack_pivots

    def __call__(self, LU_data, LU_pivots):  # noqa: N803
        return _bsm.lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


# ---- optimizer steps (written into the Parameters with Assign) -----------------------------

from mycel.ops.operations.compat_optim_ops import FusedSparseProximalAdagrad  # noqa: E402
from mycel.ops.operations._compat_checks import _check_bool, _check_tensor  # noqa: E402
from mycel.ops.function import sparse_optim_func as _so  # noqa: E402

_OPT_FLOATS = (_C.float16, _C.float32, _C.float64)


@_export
class ApplyAddSign(_Composed):
    """ApplyAddSign(use_locking=False)(var, m, lr, alpha, sign_decay, beta, grad) -> (var,
    m): m = beta m + (1 - beta) grad, var -= lr (alpha + sign_decay sign(grad) sign(m)) grad;
    var and m updated in place."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyAddSign", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, m, lr, alpha, sign_decay, beta, grad):
        op = "ApplyAddSign"
        for name, t in (("var", var), ("m", m), ("grad", grad)):
            _check_tensor(op, name, t, _OPT_FLOATS)
        if tuple(m.shape) != tuple(var.shape) or tuple(grad.shape) != tuple(var.shape):
            raise ValueError(f"For '{op}', var, m and grad must have the same shape, but got "
                             f"{tuple(var.shape)}, {tuple(m.shape)} and {tuple(grad.shape)}.")
        dt = var.dtype
        lr, alpha = _so.scalar(lr, dt), _so.scalar(alpha, dt)
        decay, beta = _so.scalar(sign_decay, dt), _so.scalar(beta, dt)
        g = _prim("Cast")(grad, dt)
        m_new = beta * m + (1.0 - beta) * g
        update = (alpha + decay * _prim("Sign")(g) * _prim("Sign")(m_new)) * g
        return _prim("Assign")(var, var - lr * update), _prim("Assign")(m, m_new)


@_export
class ApplyAdamWithAmsgradV2(_Composed):
    """ApplyAdamWithAmsgradV2(use_locking=False)(var, m, v, vhat, beta1_power, beta2_power,
    lr, beta1, beta2, epsilon, grad) -> (var, m, v, vhat): ApplyAdamWithAmsgrad's step with
    beta1, beta2 and epsilon given as inputs."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyAdamWithAmsgradV2", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                 grad):
        dt = var.dtype
        b1, b2, eps = _so.scalar(beta1, dt), _so.scalar(beta2, dt), _so.scalar(epsilon, dt)
        b1p, b2p, lr = _so.scalar(beta1_power, dt), _so.scalar(beta2_power, dt), \
            _so.scalar(lr, dt)
        g = _prim("Cast")(grad, dt)
        m_new = b1 * m + (1.0 - b1) * g
        v_new = b2 * v + (1.0 - b2) * g * g
        vhat_new = _prim("Maximum")(vhat, v_new)
        lr_t = lr * _prim("Sqrt")(1.0 - b2p) / (1.0 - b1p)
        var_new = var - lr_t * m_new / (_prim("Sqrt")(vhat_new) + eps)
        return (_prim("Assign")(var, var_new), _prim("Assign")(m, m_new),
                _prim("Assign")(v, v_new), _prim("Assign")(vhat, vhat_new))


@_export
class SparseApplyProximalAdagrad(FusedSparseProximalAdagrad):
    """SparseApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices)
    -> (var, accum): FusedSparseProximalAdagrad's update (float16 or float32)."""

    def __call__(self, var, accum, lr, l1, l2, grad, indices):
        return _so.sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices)


@_export
class NMSWithMask(_Composed):
    """NMSWithMask(iou_threshold=0.5)(bboxes): (sorted boxes, their positions, kept mask)
    (ops/function/breadth_misc_func.py nms_with_mask)."""

    def __init__(self, iou_threshold=0.5):
        if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, (int, float)):
            raise TypeError(f"For 'NMSWithMask', iou_threshold must be a float, but got "
                            f"{iou_threshold!r}.")
        super().__init__(iou_threshold=iou_threshold)
        self.iou_threshold = float(iou_threshold)

    def __call__(self, bboxes):
        return _bmisc.nms_with_mask(bboxes, self.iou_threshold)


@_export
class Orgqr(_Composed):
    """Orgqr()(x, tau): ops.orgqr."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, tau):
        return _bsm.orgqr(x, tau)


@_export
class Ormqr(_Composed):
    """Ormqr(left=True, transpose=False)(x, tau, other): ops.ormqr."""

    def __init__(self, left=True, transpose=False):
        super().__init__(left=left, transpose=transpose)
        self.left, self.transpose = left, transpose

    def __call__(self, x, tau, other):
        return _bsm.ormqr(x, tau, other, self.left, self.transpose)


@_export
class ROIAlign(_Composed):
    """ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2,
    roi_end_mode=1)(features, rois) (ops/function/breadth_sample_func.py roi_align)."""

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
        return _bsm.roi_align(features, rois, self.pooled_height, self.pooled_width,
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


@_export
class FloatStatus(_Composed):
    """FloatStatus()(x): [1] float32, 1 when x holds an inf or NaN, else 0."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        bad = _prim("LogicalNot")(_prim("Less")(_prim("Abs")(x), float("inf")))
        return _prim("Reshape")(_prim("Cast")(_prim("ReduceMax")(_prim("Cast")(bad, _C.int32),
                                                                 ()), _C.float32), (1,))


@_export
class TensorDump(_Composed):
    """TensorDump(input_output='out')()(file, input_x): saves input_x as file.npy."""

    def __init__(self, input_output="out"):
        super().__init__(input_output=input_output)
        self.input_output = input_output

    def __call__(self, file, input_x):
        _be.tensordump(file, input_x, self.input_output)


# ---- 3-d upsampling: one [in, out] resampling matrix per axis ---------------------------------

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
class Svd(_Composed):
    """Svd(full_matrices=False, compute_uv=True)(a): (s, u, v) (ops.svd: one-sided Jacobi,
    ops/function/breadth_svd_func.py)."""

    def __init__(self, full_matrices=False, compute_uv=True):
        super().__init__(full_matrices=full_matrices, compute_uv=compute_uv)
        self.full_matrices, self.compute_uv = full_matrices, compute_uv

    def __call__(self, a):
        from_svd = _svd.svd(a, self.full_matrices, self.compute_uv)
        return from_svd


@_export
class MatrixExp(_Composed):
    """MatrixExp()(x): exp of each square matrix of x [..., n, n] (ops.matrix_exp: scaling
    and squaring with a Taylor polynomial; both modes, differentiable)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return _be.matrix_exp(x)


@_export
class CTCGreedyDecoder(_Composed):
    """CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length): ops.ctc_greedy_decoder
    (PYNATIVE mode: the number of decoded labels depends on the values)."""

    def __init__(self, merge_repeated=True):
        if not isinstance(merge_repeated, bool):
            raise TypeError(f"For 'CTCGreedyDecoder', merge_repeated must be a bool, but got "
                            f"{merge_repeated!r}.")
        super().__init__(merge_repeated=merge_repeated)
        self.merge_repeated = merge_repeated

    def __call__(self, inputs, sequence_length):
        return _bmisc.ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


@_export
class GridSampler3D(GridSampler2D):
    """GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros',
    align_corners=False)(input_x, grid): ops.grid_sample of 5-d input (trilinear)."""


@_export
class SparseApplyFtrlV2(_Composed):
    """SparseApplyFtrlV2(lr, l1, l2, l2_shrinkage, lr_power, use_locking=False)(var, accum,
    linear, grad, indices) -> (var, accum, linear): FTRL-proximal with L2 shrinkage on the
    rows in indices (repeated rows' grads summed): g_s = grad + 2 l2_shrinkage var,
    accum' = accum + grad^2, linear += g_s - (accum'^-p - accum^-p) / lr var,
    var = (sign(linear) l1 - linear) / (accum'^-p / lr + 2 l2) where |linear| > l1, else 0."""

    def __init__(self, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
        for name, v in (("lr", lr), ("l1", l1), ("l2", l2), ("l2_shrinkage", l2_shrinkage),
                        ("lr_power", lr_power)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'SparseApplyFtrlV2', '{name}' must be a float, but got "
                                f"{v!r}.")
        if lr <= 0 or l1 < 0 or l2 < 0 or l2_shrinkage < 0 or lr_power > 0:
            raise ValueError("For 'SparseApplyFtrlV2', need lr > 0, l1, l2, l2_shrinkage >= 0 "
                             "and lr_power <= 0.")
        super().__init__(lr=lr, l1=l1, l2=l2, l2_shrinkage=l2_shrinkage, lr_power=lr_power,
                         use_locking=use_locking)
        self.lr, self.l1, self.l2 = float(lr), float(l1), float(l2)
        self.l2_shrinkage, self.lr_power = float(l2_shrinkage), float(lr_power)

    def __call__(self, var, accum, linear, grad, indices):
        dt = var.dtype
        g, mask = _so.summed_grad(var, grad, indices)
        g_s = g + 2.0 * self.l2_shrinkage * var
        accum_new = accum + g * g
        p = -self.lr_power
        y, y_old = _prim("Pow")(accum_new, p), _prim("Pow")(accum, p)
        linear_new = linear + g_s - (y - y_old) / self.lr * var
        l1 = _so.scalar(self.l1, dt)
        x = _prim("Sign")(linear_new) * l1 - linear_new
        var_new = _prim("Select")(_prim("Greater")(_prim("Abs")(linear_new), l1),
                                  x / (y / self.lr + 2.0 * self.l2), _prim("ZerosLike")(x))
        return (_prim("Assign")(var, _prim("Select")(mask, var_new, var)),
                _prim("Assign")(accum, _prim("Select")(mask, accum_new, accum)),
                _prim("Assign")(linear, _prim("Select")(mask, linear_new, linear)))


@_export
class ComputeAccidentalHits(_Composed):
    """ComputeAccidentalHits(num_true=1)(true_labels [B, num_true], sampled_candidates [S]):
    (indices, ids, weights) for each sampled candidate s equal to a true label of row b, in
    row-major order: b (int32), s (int32) and -FLT_MAX (float32), the values to add to
    those logits. Their number depends on the values: PYNATIVE mode."""

    def __init__(self, num_true=1):
        if isinstance(num_true, bool) or not isinstance(num_true, int) or num_true < 1:
            raise ValueError(f"For 'ComputeAccidentalHits', num_true must be a positive int, "
                             f"but got {num_true!r}.")
        super().__init__(num_true=num_true)
        self.num_true = num_true

    def __call__(self, true_labels, sampled_candidates):
        t, s = true_labels, sampled_candidates
        if not isinstance(t, _C.Tensor) or not isinstance(s, _C.Tensor):
            raise TypeError(f"For 'ComputeAccidentalHits', true_labels and sampled_candidates "
                            f"must be Tensors, but got {type(t).__name__} and "
                            f"{type(s).__name__}.")
        if t.ndim != 2 or t.shape[1] != self.num_true or s.ndim != 1:
            raise ValueError(f"For 'ComputeAccidentalHits', true_labels must be (B, "
                             f"{self.num_true}) and sampled_candidates 1-D, but got {t.shape} "
                             f"and {s.shape}.")
        b, n = t.shape[0], s.shape[0]
        hit = _prim("Equal")(_prim("ExpandDims")(_prim("Cast")(t, _C.int64), -1),
                             _prim("Reshape")(_prim("Cast")(s, _C.int64), (1, 1, n)))
        hit = _any_axis1(hit)  # [B, S]
        rows = _prim("BroadcastTo", shape=(b, n))(_prim("Reshape")(_ar(b), (b, 1)))
        cols = _prim("BroadcastTo", shape=(b, n))(_prim("Reshape")(_ar(n), (1, n)))
        idx = _prim("Cast")(_prim("MaskedSelect")(rows, hit), _C.int32)
        ids = _prim("Cast")(_prim("MaskedSelect")(cols, hit), _C.int32)
        w = _prim("Cast")(idx, _C.float32) * 0.0 - float(np.finfo(np.float32).max)
        return idx, ids, w


def _any_axis1(b):
    return _prim("Greater")(_prim("ReduceMax")(_prim("Cast")(b, _C.int32), (1,)), 0)


@constexpr
def _ar(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))
