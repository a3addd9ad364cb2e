"""Segmentation losses of MindSpore's ``mindspore.nn``: DiceLoss, MultiClassDiceLoss and
FocalLoss, composed of table ops (so both modes and gradients come from the ops), with
MindSpore's definitions:

- DiceLoss(smooth): 1 - 2 sum(p y) / (sum(p^2) + sum(y^2) + smooth) over the whole batch;
- MultiClassDiceLoss: the activation (softmax over the last axis, or sigmoid) of the logits,
  then the DiceLoss of each class column [:, i] (times weights[i]; ignore_indiex left out),
  summed and divided by the number of classes;
- FocalLoss(weight, gamma): logits [N, C, ...] as [N, C, S]; with labels of one channel
  ([N, 1, ...] or [N, ...]: class indices) -(1 - p_y)^gamma log p_y averaged over S, else
  (one-hot or soft labels [N, C, ...]) -(1 - p)^gamma y log p averaged over S; p the softmax
  over C, log p times weight[c] when given; then the reduction."""
import numbers

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.nn.loss import _check_reduction
from mycel.ops.function._util import prim
from mycel.ops.function import math_func as _m
from mycel.ops.function.nn_func import _reduce
from mycel.ops.primitive import constexpr


@constexpr
def _same_shape(name, a, b):
    if tuple(a) != tuple(b):
        raise ValueError(f"For '{name}', the logits and labels must have one shape, but got "
                         f"{list(a)} and {list(b)}.")
    return True


class DiceLoss(Cell):
    """DiceLoss(smooth=1e-5)(logits, labels): 1 - the Dice coefficient of the two (one
    shape) over the whole batch."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, numbers.Real):
            raise TypeError(f"For 'DiceLoss', the 'smooth' must be a float, but got "
                            f"{type(smooth).__name__}.")
        if smooth <= 0:
            raise ValueError(f"For 'DiceLoss', the 'smooth' must be positive, but got {smooth}.")
        self.smooth = float(smooth)

    def construct(self, logits, label):
        _same_shape("DiceLoss", logits.shape, label.shape)
        inter = _m.sum(logits * label)
        union = _m.sum(logits * logits) + _m.sum(label * label)
        return 1.0 - (2.0 * inter) / (union + self.smooth)


@constexpr
def _columns(name, shape, label_shape, ignore):
    if tuple(shape) != tuple(label_shape):
        raise ValueError(f"For '{name}', the logits and labels must have one shape, but got "
                         f"{list(shape)} and {list(label_shape)}.")
    if len(shape) < 2:
        raise ValueError(f"For '{name}', the logits must have at least 2 dimensions [N, C, "
                         f"...], but got {list(shape)}.")
    return tuple(i for i in range(shape[1]) if i != ignore), shape[1]


class MultiClassDiceLoss(Cell):
    """MultiClassDiceLoss(weights=None, ignore_indiex=None, activation='softmax'): the mean over
    the classes (axis 1) of each class column's DiceLoss, after the activation ('softmax' over
    the last axis, 'sigmoid', or None); weights (a Tensor [C]) scale the classes' losses and
    class ignore_indiex is left out of the sum (the division stays by C, as in MindSpore)."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        if weights is not None and not isinstance(weights, _C.Tensor):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'weights' must be a Tensor or None, "
                            f"but got {type(weights).__name__}.")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or
                                          not isinstance(ignore_indiex, int)):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'ignore_indiex' must be an int or "
                            f"None, but got {type(ignore_indiex).__name__}.")
        if activation is not None and not isinstance(activation, str):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'activation' must be a str or None, "
                            f"but got {type(activation).__name__}.")
        if activation not in ("softmax", "sigmoid", None):
            raise ValueError(f"For 'MultiClassDiceLoss', the 'activation' must be 'softmax', "
                             f"'sigmoid' or None, but got {activation!r}.")
        self.weights = weights
        self.ignore_indiex = ignore_indiex
        self.activation = activation
        self.dice = DiceLoss(1e-5)

    def construct(self, logits, label):
        cols, n = _columns("MultiClassDiceLoss", logits.shape, label.shape, self.ignore_indiex)
        if self.activation == "softmax":
            logits = prim("Softmax", axis=-1)(logits)
        elif self.activation == "sigmoid":
            logits = prim("Sigmoid")(logits)
        total = 0.0
        for i in cols:
            loss = self.dice(logits[:, i], label[:, i])
            if self.weights is not None:
                loss = loss * self.weights[i]
            total = total + loss
        return total / n


@constexpr
def _focal_plan(shape, label_shape):
    """(logits [N, C, S], labels [N, C or 1, S], whether the labels are class indices)."""
    if len(shape) < 2:
        raise ValueError(f"For 'FocalLoss', the logits must be [N, C, ...], but got "
                         f"{list(shape)}.")
    lab = tuple(label_shape)
    if len(lab) == len(shape) - 1:
        lab = lab[:1] + (1,) + lab[1:]
    if len(lab) != len(shape):
        raise ValueError(f"For 'FocalLoss', the labels must be [N, C, ...] or [N, ...] for "
                         f"logits {list(shape)}, but got {list(label_shape)}.")
    s = 1
    for d in shape[2:]:
        s *= d
    ls = 1
    for d in lab[2:]:
        ls *= d
    return (shape[0], shape[1], s), (lab[0], lab[1], ls), lab[1] == 1


class FocalLoss(Cell):
    """FocalLoss(weight=None, gamma=2.0, reduction='mean')(logits, labels): the focal loss of
    logits [N, C, ...] against class indices ([N, 1, ...] or [N, ...]) or one-hot/soft labels
    [N, C, ...] (the module docstring has the formula)."""

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__()
        if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
            raise TypeError(f"For 'FocalLoss', the 'gamma' must be a float, but got "
                            f"{type(gamma).__name__}.")
        if weight is not None and not isinstance(weight, _C.Tensor):
            raise TypeError(f"For 'FocalLoss', the 'weight' must be a Tensor or None, but got "
                            f"{type(weight).__name__}.")
        if weight is not None and len(weight.shape) != 1:
            raise ValueError(f"For 'FocalLoss', the 'weight' must be 1-d [C], but got shape "
                             f"{list(weight.shape)}.")
        self.gamma = float(gamma)
        self.weight = weight
        self.reduction = _check_reduction("FocalLoss", reduction)

    def construct(self, logits, labels):
        lshape, yshape, index = _focal_plan(logits.shape, labels.shape)
        x = prim("Reshape")(logits, lshape)
        y = prim("Reshape")(labels, yshape)
        logp = prim("LogSoftmax", axis=1)(x)
        idx = prim("Cast", dtype=_C.int32)(y)  # the class indices (used when `index`)
        if index:
            logp = prim("Squeeze", axis=(1,))(prim("GatherD", dim=1)(logp, idx))
        p = prim("Exp")(logp)
        if self.weight is not None:
            w = prim("Reshape")(self.weight, (1, lshape[1], 1)) + x * 0.0
            if index:
                w = prim("Squeeze", axis=(1,))(prim("GatherD", dim=1)(w, idx))
            logp = logp * w
        focal = prim("Pow")(1.0 - p, p * 0.0 + self.gamma)
        if index:
            loss = _m.mean(-1.0 * focal * logp, axis=1)
        else:
            loss = _m.mean(-1.0 * focal * y * logp, axis=-1)
        return _reduce(loss, self.reduction, "FocalLoss")
