"""More layers of MindSpore 2.x's ``mindspore.nn``, each composed from op-table prims (so
both modes and gradients come from theirs): Softmin, Softmax2d, RReLU, ClipByNorm, Norm,
ChannelShuffle, Dropout1d and HingeEmbeddingLoss."""
import numbers

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


def _check_axis_int(name, axis):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For '{name}', 'axis' must be an int, but got {type(axis).__name__}.")
    return axis


class Softmin(Cell):
    """softmax(-x) along `axis` (default -1): the smallest entries get the largest weights."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, (tuple, list)):
            axis = tuple(_check_axis_int("Softmin", a) for a in axis)
        else:
            axis = (_check_axis_int("Softmin", axis),)
        self.softmax = prim("Softmax", axis=axis)

    def construct(self, x):
        return self.softmax(-x)


@constexpr
def _check_rank(name, ndim, ranks):
    if ndim not in ranks:
        raise ValueError(f"For '{name}', the input must have rank {' or '.join(map(str, ranks))}"
                         f", but got rank {ndim}.")


class Softmax2d(Cell):
    """softmax over the channels of [C, H, W] or [N, C, H, W] inputs (axis -3)."""

    def __init__(self):
        super().__init__()
        self.softmax = prim("Softmax", axis=(-3,))

    def construct(self, x):
        _check_rank("Softmax2d", x.ndim, (3, 4))
        return self.softmax(x)


class RReLU(Cell):
    """Randomized leaky ReLU: x for x >= 0, a * x below, with a drawn from U(lower, upper)
    per element in training and (lower + upper) / 2 in evaluation."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for arg, v in (("lower", lower), ("upper", upper)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"For 'RReLU', '{arg}' must be an int or float, but got "
                                f"{type(v).__name__}.")
        if lower > upper:
            raise ValueError(f"For 'RReLU', 'lower' must be <= 'upper', but got {lower} > "
                             f"{upper}.")
        self.lower, self.upper = float(lower), float(upper)
        self.uniform = prim("UniformReal")

    def construct(self, x):
        if self.training:
            u = prim("Cast", dtype=x.dtype)(self.uniform(x.shape))
            slope = self.lower + (self.upper - self.lower) * u
            return prim("Select")(x >= 0, x, x * slope)
        return prim("Select")(x >= 0, x, x * ((self.lower + self.upper) / 2))


def _axes(name, axis):
    if axis is None:
        return ()
    if isinstance(axis, int) and not isinstance(axis, bool):
        return (axis,)
    if isinstance(axis, (tuple, list)) and all(isinstance(a, int) and not isinstance(a, bool)
                                               for a in axis):
        return tuple(axis)
    raise TypeError(f"For '{name}', 'axis' must be None, an int or a tuple of ints, but got "
                    f"{axis!r}.")


class ClipByNorm(Cell):
    """ClipByNorm(axis=None)(x, clip_norm): x scaled down so its L2 norm over `axis` (all
    axes by default) is at most clip_norm: x * clip_norm / max(||x||, clip_norm)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = _axes("ClipByNorm", axis)

    def construct(self, x, clip_norm):
        xf = prim("Cast", dtype=_C.float32)(x)
        l2 = prim("Sqrt")(prim("ReduceSum", keep_dims=True)(xf * xf, self.axis))
        c = prim("Cast", dtype=_C.float32)(clip_norm)
        return prim("Cast", dtype=x.dtype)(xf * c / prim("Maximum")(l2, c))


class Norm(Cell):
    """Norm(axis=(), keep_dims=False)(x): the L2 norm sqrt(sum(x^2)) over `axis` (() is all
    axes)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.axis = _axes("Norm", axis)
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'Norm', 'keep_dims' must be bool, but got "
                            f"{type(keep_dims).__name__}.")
        self.keep_dims = keep_dims

    def construct(self, x):
        return prim("Sqrt")(prim("ReduceSum", keep_dims=self.keep_dims)(x * x, self.axis))


@constexpr
def _shuffle_shapes(shape, groups):
    if len(shape) < 3:
        raise ValueError(f"For 'ChannelShuffle', the input must have rank >= 3 ([N, C, ...]), "
                         f"but got shape {tuple(shape)}.")
    n, c = shape[0], shape[1]
    if c % groups:
        raise ValueError(f"For 'ChannelShuffle', the channels ({c}) must divide by groups "
                         f"({groups}).")
    rest = tuple(shape[2:])
    perm = (0, 2, 1) + tuple(range(3, 3 + len(rest)))
    return (n, groups, c // groups) + rest, perm, tuple(shape)


class ChannelShuffle(Cell):
    """Interleaves the channels of `groups` groups ([N, C, ...]: channel g * (C/groups) + k
    moves to k * groups + g), as ShuffleNet does."""

    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int):
            raise TypeError(f"For 'ChannelShuffle', 'groups' must be an int, but got "
                            f"{type(groups).__name__}.")
        if groups <= 0:
            raise ValueError(f"For 'ChannelShuffle', 'groups' must be positive, but got "
                             f"{groups}.")
        self.groups = groups

    def construct(self, x):
        split, perm, back = _shuffle_shapes(x.shape, self.groups)
        y = prim("Transpose")(prim("Reshape")(x, split), perm)
        return prim("Reshape")(y, back)


class Dropout1d(Cell):
    """In training, zeroes whole channels of [N, C, L] or [C, L] inputs with probability p
    and scales the rest by 1 / (1 - p); the identity in evaluation."""

    def __init__(self, p=0.5):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, numbers.Real):
            raise TypeError(f"For 'Dropout1d', 'p' must be a float, but got "
                            f"{type(p).__name__}.")
        if not 0 <= p <= 1:
            raise ValueError(f"For 'Dropout1d', 'p' must be in [0, 1], but got {p}.")
        self.p = float(p)
        self.uniform = prim("UniformReal")

    def construct(self, x):
        _check_rank("Dropout1d", x.ndim, (2, 3))
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * 0.0
        keep = self.uniform(x.shape[:-1] + (1,)) >= self.p
        return x * prim("Cast", dtype=x.dtype)(keep) * (1.0 / (1.0 - self.p))


class HingeEmbeddingLoss(Cell):
    """HingeEmbeddingLoss(margin=1.0, reduction='mean')(logits, labels): x where the label is
    1 and max(0, margin - x) where it is -1, then the mean, sum or none of it. labels must
    broadcast to logits' shape."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__()
        if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
            raise TypeError(f"For 'HingeEmbeddingLoss', 'margin' must be a float, but got "
                            f"{type(margin).__name__}.")
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For 'HingeEmbeddingLoss', 'reduction' must be 'mean', 'sum' or "
                             f"'none', but got {reduction!r}.")
        self.margin, self.reduction = float(margin), reduction

    def construct(self, logits, labels):
        _check_broadcast(logits.shape, labels.shape)
        labels = prim("Cast", dtype=logits.dtype)(labels)
        zero = prim("ZerosLike")(logits)
        pos = prim("Select")(labels + zero == 1.0, logits, zero)
        neg = prim("Select")(labels + zero == -1.0, prim("ReLU")(self.margin - logits), zero)
        loss = pos + neg
        if self.reduction == "mean":
            return prim("ReduceMean", keep_dims=False)(loss, ())
        if self.reduction == "sum":
            return prim("ReduceSum", keep_dims=False)(loss, ())
        return loss


@constexpr
def _check_broadcast(shape, label_shape):
    a, b = tuple(shape), tuple(label_shape)
    for i in range(1, min(len(a), len(b)) + 1):
        if b[-i] not in (1, a[-i]):
            raise ValueError(f"For 'HingeEmbeddingLoss', the labels' shape {b} must broadcast "
                             f"to the logits' shape {a}.")
    if len(b) > len(a):
        raise ValueError(f"For 'HingeEmbeddingLoss', the labels' shape {b} must broadcast to "
                         f"the logits' shape {a}.")


__all__ = ["Softmin", "Softmax2d", "RReLU", "ClipByNorm", "Norm", "ChannelShuffle", "Dropout1d",
           "HingeEmbeddingLoss"]
