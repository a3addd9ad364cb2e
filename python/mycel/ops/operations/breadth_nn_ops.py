"""Primitive classes of MindSpore 2.x's ``mindspore.ops`` composed in mycel, second part
(breadth_ops.py has the constructors, math and array ones): activations, losses, channel
dropout, the scatter family, random draws and windows, boxes, block rearrangements and
mirror padding. Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's; each is a
_Composed primitive whose __call__ graph mode parses like any function.
"""
from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import (breadth_nn_func as _bn, breadth_random_func as _br,
                                breadth_scatter_func as _bs, breadth_misc_func as _bmisc,
                                loss_func as _loss, array_func as _a, index_add_func as _ia,
                                nn_func as _nn, random_func as _r)
from mycel.ops.function._util import prim as _prim, shape_arg, one_int as _one_int
from mycel.ops.function.scatter_func import scatter_nd_add

__all__ = []


def _export(cls):
    __all__.append(cls.__name__)
    globals()[cls.__name__] = cls
    return cls


def _simple(name, fn, doc):
    """A primitive without attributes whose call is fn(*inputs)."""
    def __init__(self):
        _Composed.__init__(self)

    def __call__(self, *args):
        return fn(*args)
    return _export(type(name, (_Composed,), {"__doc__": doc, "__module__": __name__,
                                             "__init__": __init__, "__call__": __call__}))


def _seed_of(seed, seed2):
    return None if seed == 0 and seed2 == 0 else int(seed) * 65536 + int(seed2)


# ---- nn ----------------------------------------------------------------------------------

_simple("FastGeLU", _bn.fast_gelu, "FastGeLU()(x): x / (1 + exp(-1.702|x|)) exp(0.851(x - |x|)).")
_simple("PReLU", _bn.prelu, "PReLU()(x, weight): x where x > 0, weight * x otherwise.")


@_export
class GLU(_Composed):
    """GLU(axis=-1)(x): a * sigmoid(b), the halves of x along axis."""

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return _bn.glu(x, self.axis)


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
        mshape = _bn._channel_mask_shape(input_x.shape, self._nd, type(self).__name__)
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
        return _bn.channel_shuffle(x, self.group)


class _Reduction(_Composed):
    def __init__(self, reduction="mean"):
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', reduction must be 'mean', 'sum' or "
                             f"'none', but got {reduction!r}.")
        super().__init__(reduction=reduction)
        self.reduction = reduction


@_export
class SmoothL1Loss(_Reduction):
    """SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if beta <= 0:
            raise ValueError(f"For 'SmoothL1Loss', beta must be positive, but got {beta}.")
        self.beta = beta

    def __call__(self, logits, labels):
        return _loss.smooth_l1_loss(logits, labels, self.beta, self.reduction)


@_export
class SoftMarginLoss(_Reduction):
    """SoftMarginLoss(reduction='mean')(logits, labels): mean(log(1 + exp(-y x)))."""

    def __call__(self, logits, labels):
        return _loss.soft_margin_loss(logits, labels, self.reduction)


@_export
class MultilabelMarginLoss(_Reduction):
    """MultilabelMarginLoss(reduction='mean')(x, target): (loss, is_target)."""

    def __call__(self, x, target):
        loss = _bn.multilabel_margin_loss(x, target, self.reduction)
        return loss, _is_target(x, target)


def _is_target(x, target):
    y = _prim("Cast")(target, _C.int64)
    if y.ndim == 1:
        y = _prim("ExpandDims")(y, 0)
    c = y.shape[-1]
    valid = _prim("Equal")(_prim("CumSum")(_prim("Cast")(_prim("Less")(y, 0), _C.int64), 1), 0)
    ys = _prim("Select")(valid, y, _prim("ZerosLike")(y))
    hit = _prim("LogicalAnd")(_prim("ExpandDims")(valid, -1), _prim("Equal")(
        _prim("ExpandDims")(ys, -1), _bn._classes(c)))
    out = _prim("Cast")(_prim("ReduceMax")(_prim("Cast")(hit, _C.int32), (1,)), target.dtype)
    return _prim("Reshape")(out, target.shape)


@_export
class MultiMarginLoss(_Reduction):
    """MultiMarginLoss(p=1, margin=1.0, reduction='mean')(inputs, target, weight=None)."""

    def __init__(self, p=1, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.p, self.margin = p, margin

    def __call__(self, inputs, target, weight=None):
        return _loss.multi_margin_loss(inputs, target, self.p, self.margin, weight,
                                       self.reduction)


@_export
class TripletMarginLoss(_Reduction):
    """TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean')(x, positive,
    negative, margin)."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.p, self.swap, self.eps = p, swap, eps

    def __call__(self, x, positive, negative, margin):
        m = float(margin)  # a tensor's float() names this op when it holds more than one value
        return _loss.triplet_margin_loss(x, positive, negative, m, self.p, self.eps,
                                         self.swap, self.reduction)


@_export
class BCEWithLogitsLoss(_Reduction):
    """BCEWithLogitsLoss(reduction='mean')(logits, label, weight, pos_weight)."""

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return _nn.binary_cross_entropy_with_logits(logits, label, weight, pos_weight,
                                                    self.reduction)


@_export
class SigmoidCrossEntropyWithLogits(_Composed):
    """SigmoidCrossEntropyWithLogits()(logits, label): the elementwise
    max(x, 0) - x * y + log(1 + exp(-|x|))."""

    def __init__(self):
        super().__init__()

    def __call__(self, logits, label):
        for name, v in (("logits", logits), ("label", label)):
            if not isinstance(v, _C.Tensor):
                raise TypeError(f"For 'SigmoidCrossEntropyWithLogits', {name} must be a "
                                f"Tensor, but got {type(v).__name__}.")
        x = logits
        return (_prim("Maximum")(x, 0.0) - x * label +
                _prim("Log1p")(_prim("Exp")(-_prim("Abs")(x))))


# ---- scatter -----------------------------------------------------------------------------

class _ScatterInPlace(_Composed):
    _fn = None

    def __init__(self, use_locking=False):
        if not isinstance(use_locking, bool):
            raise TypeError(f"For '{type(self).__name__}', 'use_locking' must be a bool, but "
                            f"got {type(use_locking).__name__}.")
        super().__init__(use_locking=use_locking)
        self.use_locking = use_locking

    def __call__(self, input_x, indices, updates):
        return type(self)._fn(input_x, indices, updates)


def _scatter_class(name, fn, doc, default=False):
    def __init__(self, use_locking=default):
        _ScatterInPlace.__init__(self, use_locking)
    return _export(type(name, (_ScatterInPlace,), {"__doc__": doc, "__module__": __name__,
                                                   "__init__": __init__,
                                                   "_fn": staticmethod(fn)}))


for _n, _f in (("Add", _bs.scatter_add), ("Sub", _bs.scatter_sub), ("Mul", _bs.scatter_mul),
               ("Div", _bs.scatter_div), ("Max", _bs.scatter_max), ("Min", _bs.scatter_min)):
    _scatter_class("Scatter" + _n, _f, f"Scatter{_n}(use_locking=False)(input_x, indices, "
                   f"updates): in place along the first axis of the Parameter input_x.")
_scatter_class("ScatterUpdate", _bs.scatter_update, "ScatterUpdate(use_locking=True)(input_x, "
               "indices, updates): rows replaced in place.", True)


@_export
class ScatterNonAliasingAdd(_Composed):
    """ScatterNonAliasingAdd()(input_x, indices, updates): ops.scatter_nd_add."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, indices, updates):
        return scatter_nd_add(input_x, indices, updates)


for _n in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
    _simple("TensorScatter" + _n, getattr(_bs, "tensor_scatter_" + _n.lower()),
            f"TensorScatter{_n}()(input_x, indices, updates): ops.tensor_scatter_"
            f"{_n.lower()}.")


class _InplaceRows(_Composed):
    _fn = None

    def __init__(self, indices):
        super().__init__(indices=indices)
        self.indices = tuple(indices) if isinstance(indices, list) else indices

    def __call__(self, x, v):
        return type(self)._fn(x, v, self.indices)


@_export
class InplaceAdd(_InplaceRows):
    """InplaceAdd(indices)(x, v): x with v added to the rows indices."""
    _fn = staticmethod(_bs.inplace_add)


@_export
class InplaceSub(_InplaceRows):
    """InplaceSub(indices)(x, v): x with v subtracted from the rows indices."""
    _fn = staticmethod(_bs.inplace_sub)


@_export
class InplaceUpdate(_InplaceRows):
    """InplaceUpdate(indices)(x, v): x with the rows indices replaced by v."""
    _fn = staticmethod(_bs.inplace_update)


@_export
class InplaceUpdateV2(_Composed):
    """InplaceUpdateV2()(x, indices, v): x with the rows indices replaced by v."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, indices, v):
        return _bs.inplace_update(x, v, indices)


@_export
class IndexAdd(_Composed):
    """IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, y):
    input_x[..., indices[i], ...] += y[..., i, ...] along axis, in place."""

    def __init__(self, axis, use_lock=True, check_index_bound=True):
        super().__init__(axis=axis, use_lock=use_lock, check_index_bound=check_index_bound)
        self.axis = axis

    def __call__(self, input_x, indices, y):
        return _ia.index_add(input_x, indices, y, self.axis)


@_export
class InplaceIndexAdd(_Composed):
    """InplaceIndexAdd(axis)(var, indices, updates): ops.inplace_index_add."""

    def __init__(self, axis):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, var, indices, updates):
        return _ia.inplace_index_add(var, indices, updates, self.axis)


@_export
class IndexFill(_Composed):
    """IndexFill()(x, dim, index, value): ops.index_fill."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, dim, index, value):
        return _bs.index_fill(x, dim, index, value)


# ---- random ------------------------------------------------------------------------------

@_export
class Multinomial(_Composed):
    """Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples): draws with replacement."""

    def __init__(self, seed=0, seed2=0, dtype=_C.int32):
        super().__init__(seed=seed, seed2=seed2, dtype=dtype)
        self.seed, self.dtype = _seed_of(seed, seed2), dtype

    def __call__(self, x, num_samples):
        n = _one_int(num_samples, "Multinomial", "num_samples")
        return _prim("Cast")(_br.multinomial(x, n, True, self.seed), self.dtype)


@_export
class Randperm(_Composed):
    """Randperm(max_length=1, pad=-1, dtype=int32)(n): a permutation of 0..n-1 (n a [1]
    tensor) padded with pad to max_length."""

    def __init__(self, max_length=1, pad=-1, dtype=_C.int32):
        super().__init__(max_length=max_length, pad=pad, dtype=dtype)
        self.max_length, self.pad, self.dtype = max_length, pad, dtype

    def __call__(self, n):
        k = _one_int(n, "Randperm", "n")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise TypeError(f"For 'Randperm', n must be a non-negative int, but got {k!r}.")
        if k > self.max_length:
            raise ValueError(f"For 'Randperm', n ({k}) must not exceed max_length "
                             f"({self.max_length}).")
        p = _br.randperm(k, dtype=_C.int64)
        if self.max_length > k:
            pad = _a.full((self.max_length - k,), self.pad, dtype=_C.int64)
            p = _a.concat((p, pad), 0)
        return _prim("Cast")(p, self.dtype)


@_export
class Bernoulli(_Composed):
    """Bernoulli(seed=-1, offset=0)(x, p): 1 with probability p in x's shape and dtype."""

    def __init__(self, seed=-1, offset=0):
        super().__init__(seed=seed, offset=offset)
        self.seed = None if seed == -1 else int(seed) * 65536 + int(offset)

    def __call__(self, x, p):
        return _br.bernoulli(x, p, self.seed)


@_export
class Gamma(_Composed):
    """Gamma(seed=0, seed2=0)(shape, alpha, beta)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, shape, alpha, beta):
        return _br.gamma(shape, alpha, beta, self.seed)


@_export
class RandomGamma(_Composed):
    """RandomGamma(seed=0, seed2=0)(shape, alpha): Gamma(alpha, 1) of shape + alpha.shape."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, shape, alpha):
        return _br.gamma(shape, alpha, 1.0, self.seed)


@_export
class StandardLaplace(_Composed):
    """StandardLaplace(seed=0, seed2=0)(shape): Laplace(0, 1) samples, float32."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, shape):
        return _br.laplace(shape_arg(shape, "StandardLaplace"), 0.0, 1.0, self.seed)


@_export
class RandomShuffle(_Composed):
    """RandomShuffle(seed=0, seed2=0)(x): x with its first dimension permuted."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, x):
        return _br.shuffle(x, self.seed)


class _Window(_Composed):
    _fn = None

    def __init__(self, periodic=True, dtype=_C.float32):
        super().__init__(periodic=periodic, dtype=dtype)
        self.periodic, self.dtype = periodic, dtype

    def __call__(self, window_length):
        return type(self)._fn(window_length, self.periodic, dtype=self.dtype)


@_export
class BartlettWindow(_Window):
    """BartlettWindow(periodic=True, dtype=float32)(window_length)."""
    _fn = staticmethod(_br.bartlett_window)


@_export
class BlackmanWindow(_Window):
    """BlackmanWindow(periodic=True, dtype=float32)(window_length)."""
    _fn = staticmethod(_br.blackman_window)


@_export
class HammingWindow(_Composed):
    """HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=float32)(length)."""

    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=_C.float32):
        super().__init__(periodic=periodic, alpha=alpha, beta=beta, dtype=dtype)
        self.periodic, self.alpha, self.beta, self.dtype = periodic, alpha, beta, dtype

    def __call__(self, length):
        return _br.hamming_window(length, self.periodic, self.alpha, self.beta,
                                  dtype=self.dtype)


# ---- boxes, blocks, padding --------------------------------------------------------------



@_export
class IOU(_Composed):
    """IOU(mode='iou')(anchor_boxes, gt_boxes): ops.iou."""

    def __init__(self, mode="iou"):
        super().__init__(mode=mode)
        self.mode = mode

    def __call__(self, anchor_boxes, gt_boxes):
        return _bmisc.iou(anchor_boxes, gt_boxes, self.mode)


@_export
class BoundingBoxEncode(_Composed):
    """BoundingBoxEncode(means=(0,0,0,0), stds=(1,1,1,1))(anchor_box, groundtruth_box)."""

    def __init__(self, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
        super().__init__(means=means, stds=stds)
        self.means, self.stds = means, stds

    def __call__(self, anchor_box, groundtruth_box):
        return _bmisc.bounding_box_encode(anchor_box, groundtruth_box, self.means, self.stds)


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
        return _bmisc.bounding_box_decode(anchor_box, deltas, self.max_shape, self.means,
                                          self.stds, self.wh_ratio_clip)


_simple("CheckValid", _bmisc.check_valid, "CheckValid()(bboxes, img_metas): ops.check_valid.")


@_export
class InTopK(_Composed):
    """InTopK(k)(x1, x2): whether each target x2[i] is among the k largest of x1[i]."""

    def __init__(self, k):
        super().__init__(k=k)
        self.k = k

    def __call__(self, x1, x2):
        return _bmisc.intopk(x1, x2, self.k)


@_export
class SpaceToBatchND(_Composed):
    """SpaceToBatchND(block_shape, paddings)(input_x): ops.space_to_batch_nd."""

    def __init__(self, block_shape, paddings):
        super().__init__(block_shape=block_shape, paddings=paddings)
        self.block_shape, self.paddings = block_shape, paddings

    def __call__(self, input_x):
        return _bmisc.space_to_batch_nd(input_x, self.block_shape, self.paddings)


@_export
class BatchToSpaceND(_Composed):
    """BatchToSpaceND(block_shape, crops)(input_x): ops.batch_to_space_nd."""

    def __init__(self, block_shape, crops):
        super().__init__(block_shape=block_shape, crops=crops)
        self.block_shape, self.crops = block_shape, crops

    def __call__(self, input_x):
        return _bmisc.batch_to_space_nd(input_x, self.block_shape, self.crops)


@_export
class BatchToSpace(BatchToSpaceND):
    """BatchToSpace(block_size, crops)(x): BatchToSpaceND with one block size for H and W."""

    def __init__(self, block_size, crops):
        super().__init__((block_size, block_size), crops)


@_export
class MirrorPad(_Composed):
    """MirrorPad(mode='REFLECT')(x, paddings): ops.pad with mode 'reflect'/'symmetric'."""

    def __init__(self, mode="REFLECT"):
        super().__init__(mode=mode)
        self.mode = mode

    def __call__(self, x, paddings):
        return _bmisc.mirror_pad(x, paddings, self.mode)


@_export
class ParallelConcat(_Composed):
    """ParallelConcat()(values): the tensors (each with first dimension 1) joined along
    axis 0."""

    def __init__(self):
        super().__init__()

    def __call__(self, values):
        return _a.concat(tuple(values), 0)
