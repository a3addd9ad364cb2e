"""Loss cells (MindSpore's ``mindspore.nn`` losses): each is a Cell whose ``construct(logits,
labels)`` calls the matching function of ``mycel.ops`` (where the math and its checks live),
so they run eagerly in PYNATIVE mode and compile in GRAPH mode.

reduction: 'mean' (default; SmoothL1Loss's is 'none' as in MindSpore), 'sum' or 'none'
(KLDivLoss also 'batchmean'). The losses beyond the first six call ``ops/function/
loss_func.py``.
"""
import numbers

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.ops.function import nn_func as _F
from mycel.ops.function import array_func as _a
from mycel.ops.function import loss_func as _L
from mycel.ops.function import math_func as _m
from mycel.ops.function import nn_func as _nnf

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(name, reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"For '{name}', 'reduction' must be one of {allowed}, but got "
                         f"{reduction!r}.")
    return reduction


def _check_float(name, arg, value, positive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{name}', '{arg}' must be a float, but got "
                        f"{type(value).__name__}.")
    if positive and value <= 0:
        raise ValueError(f"For '{name}', '{arg}' must be positive, but got {value}.")
    return float(value)


def _check_int(name, arg, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise TypeError(f"For '{name}', '{arg}' must be a non-negative int, but got "
                        f"{value!r}.")
    return int(value)


class _Loss(Cell):
    """A loss cell holding its reduction (one of the class's `_reductions`)."""

    _reductions = _REDUCTIONS

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction, self._reductions)


class L1Loss(_Loss):
    """mean |logits - labels| (or sum / none)."""

    def construct(self, logits, labels):
        return _F.l1_loss(logits, labels, self.reduction)


class MSELoss(_Loss):
    """mean (logits - labels)^2 (or sum / none)."""

    def construct(self, logits, labels):
        return _F.mse_loss(logits, labels, self.reduction)


class NLLLoss(Cell):
    """Negative log-likelihood of class indices under log-probabilities [N, C]; `weight`
    [C] weighs the classes, labels equal to `ignore_index` do not count."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__()
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = _check_reduction("NLLLoss", reduction)

    def construct(self, logits, labels):
        return _F.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class CrossEntropyLoss(Cell):
    """Cross entropy of logits [N, C] against class indices [N] or class probabilities
    [N, C], with optional class weights, ignore_index and label smoothing."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', 'label_smoothing' must be in [0, 1], "
                             f"but got {label_smoothing}.")
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = _check_reduction("CrossEntropyLoss", reduction)
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        return _F.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                self.label_smoothing)


class BCEWithLogitsLoss(Cell):
    """Sigmoid cross entropy of logits against labels in [0, 1], computed stably; optional
    element `weight` and positive-class `pos_weight`."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__()
        self.reduction = _check_reduction("BCEWithLogitsLoss", reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        return _F.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                   self.reduction)


class SoftmaxCrossEntropyWithLogits(Cell):
    """MindSpore's classic loss: per-sample cross entropy of logits [N, C] against one-hot
    (or probability) labels, or class indices with ``sparse=True``; reduction 'none' by
    default."""

    def __init__(self, sparse=False, reduction="none"):
        super().__init__()
        self.sparse = sparse
        self.reduction = _check_reduction("SoftmaxCrossEntropyWithLogits", reduction)

    def construct(self, logits, labels):
        if self.sparse:
            return _F.cross_entropy(logits, labels, None, -100, self.reduction)
        return _F.cross_entropy(logits, _a.cast(labels, logits.dtype), None, -100,
                                self.reduction)


class MAELoss(L1Loss):
    """mean |logits - labels| (or sum / none): L1Loss under MindSpore's other name."""


class RMSELoss(Cell):
    """sqrt(mean((logits - labels)^2))."""

    def construct(self, logits, labels):
        return _m.sqrt(_F.mse_loss(logits, labels, "mean"))


class SmoothL1Loss(_Loss):
    """0.5 * d^2 / beta where |d| < beta, else |d| - 0.5 * beta (d = logits - labels);
    reduction 'none' by default."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = _check_float("SmoothL1Loss", "beta", beta, positive=True)

    def construct(self, logits, labels):
        return _L.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(_Loss):
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = _check_float("HuberLoss", "delta", delta, positive=True)

    def construct(self, logits, labels):
        return _L.huber_loss(logits, labels, self.reduction, self.delta)


class KLDivLoss(_Loss):
    """labels * (log(labels) - logits), logits being log-probabilities; reduction 'mean' (of
    all elements), 'batchmean' (the KL divergence per sample), 'sum' or 'none'."""

    _reductions = _REDUCTIONS + ("batchmean",)

    def construct(self, logits, labels):
        return _L.kl_div(logits, labels, self.reduction)


class _WeightedLoss(_Loss):
    """A loss of (logits, labels) with optional element or class weights; `_fn` is its
    function in ops/function/loss_func.py."""

    _fn = None

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return self._fn(logits, labels, self.weight, self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities `logits` against labels in [0, 1] (logs clamped
    at -100); optional element `weight`."""

    _fn = staticmethod(_L.binary_cross_entropy)


class MarginRankingLoss(_Loss):
    """max(0, -target * (input1 - input2) + margin)."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _check_float("MarginRankingLoss", "margin", margin)

    def construct(self, input1, input2, target):
        return _L.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) where labels is 1, max(0, cos(x1, x2) - margin) where it is -1."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = _check_float("CosineEmbeddingLoss", "margin", margin)
        if not -1.0 <= self.margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', 'margin' must be in [-1, 1], but "
                             f"got {margin}.")

    def construct(self, logits_x1, logits_x2, labels):
        return _L.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin,
                                        self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-labels * logits)), labels holding 1 or -1."""

    def construct(self, logits, labels):
        return _L.soft_margin_loss(logits, labels, self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per sample, the mean over classes of the (class-`weight`ed) sigmoid cross entropy;
    logits and labels [N, C]."""

    _fn = staticmethod(_L.multilabel_soft_margin_loss)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss of x [N, C] against class indices [N]: per sample, sum over i
    != y of max(0, margin - x[y] + x[i])^p / C, times weight[y] (given here or to
    construct)."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        if isinstance(p, bool) or p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', 'p' must be 1 or 2, but got {p!r}.")
        self.p = p
        self.margin = _check_float("MultiMarginLoss", "margin", margin)
        self.weight = weight

    def construct(self, x, target, weight=None):
        if weight is None:
            weight = self.weight
        return _L.multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


class TripletMarginLoss(_Loss):
    """max(d(x, positive) - d(x, negative) + margin, 0) with d the p-norm distance (plus eps)
    over the last dimension; swap: the negative distance is min(d(x, negative), d(positive,
    negative)). construct's margin (a float or 0-d tensor) overrides the one given here."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if isinstance(p, bool) or not isinstance(p, int) or p <= 0:
            raise ValueError(f"For 'TripletMarginLoss', 'p' must be a positive int, but got "
                             f"{p!r}.")
        if not isinstance(swap, bool):
            raise TypeError(f"For 'TripletMarginLoss', 'swap' must be a bool, but got "
                            f"{type(swap).__name__}.")
        self.p, self.swap = p, swap
        self.eps = _check_float("TripletMarginLoss", "eps", eps)
        self.margin = margin

    def construct(self, x, positive, negative, margin=None):
        if margin is None:
            margin = self.margin
        return _L.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps,
                                      self.swap, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """max(d(x, positive) - d(x, negative) + margin, 0) with d = distance_function(a, b) (None:
    the 2-norm ||a - b + 1e-6|| over the last dimension, as ops.pairwise_distance); swap: the
    negative distance is min(d(x, negative), d(positive, negative))."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', 'distance_function' must be "
                            f"callable or None, but got {type(distance_function).__name__}.")
        if not isinstance(swap, bool):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', 'swap' must be a bool, but got "
                            f"{type(swap).__name__}.")
        if isinstance(margin, bool) or not isinstance(margin, numbers.Real) or margin < 0:
            raise ValueError(f"For 'TripletMarginWithDistanceLoss', 'margin' must be a "
                             f"non-negative float, but got {margin!r}.")
        self.distance_function = distance_function
        self.swap, self.margin = swap, float(margin)

    def _distance(self, a, b):
        if self.distance_function is None:
            return _L._pairwise_distance(a, b, 2, 1e-6)
        return self.distance_function(a, b)

    def construct(self, x, positive, negative):
        d_pos = self._distance(x, positive)
        d_neg = self._distance(x, negative)
        if self.swap:
            d_neg = _m.minimum(d_neg, self._distance(positive, negative))
        loss = _nnf.relu(d_pos - d_neg + self.margin)
        return _nnf._reduce(loss, self.reduction, "TripletMarginWithDistanceLoss")


class PoissonNLLLoss(_Loss):
    """exp(x) - target * x (log_input) or x - target * log(x + eps); full adds Stirling's
    approximation of log(target!)."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full = bool(log_input), bool(full)
        self.eps = _check_float("PoissonNLLLoss", "eps", eps, positive=True)

    def construct(self, input, target):  # noqa: A002
        return _L.poisson_nll_loss(input, target, self.log_input, self.full, self.eps,
                                   self.reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss. construct(log_probs [T, N, C], targets [N,
    S] padded class indices, input_lengths [N], target_lengths [N]); blank is the blank
    class; impossible targets give inf, or 0 with zero_infinity; reduction 'mean' divides
    each loss by its target length before averaging over the batch."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        self.blank = _check_int("CTCLoss", "blank", blank)
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"For 'CTCLoss', 'zero_infinity' must be a bool, but got "
                            f"{type(zero_infinity).__name__}.")
        self.zero_infinity = zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        return _L._ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                            self.reduction, self.zero_infinity)


class GaussianNLLLoss(_Loss):
    """0.5 * (log(max(var, eps)) + (logits - labels)^2 / max(var, eps)) (+ 0.5 * log(2 pi)
    with full); var may lack the last dimension."""

    def __init__(self, *, full=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.full = bool(full)
        self.eps = _check_float("GaussianNLLLoss", "eps", eps, positive=True)

    def construct(self, logits, labels, var):
        return _L.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


__all__ = ["L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCEWithLogitsLoss",
           "SoftmaxCrossEntropyWithLogits", "MAELoss", "RMSELoss", "SmoothL1Loss", "HuberLoss",
           "KLDivLoss", "BCELoss", "MarginRankingLoss", "CosineEmbeddingLoss",
           "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CTCLoss"]


class LossBase(Cell):
    """The base class of user-defined losses (MindSpore's ``nn.LossBase``): a subclass computes
    its elementwise loss in construct and returns ``self.get_loss(x, weights)``, which weights
    it and reduces it by `reduction` ('mean', 'sum' or 'none'), computing in float32 and
    returning the input's dtype."""

    def __init__(self, reduction="mean", dtype=None):
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_axis(self, x):
        """All the axes of x (what the reduction reduces over)."""
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        """x * weights reduced by the cell's reduction, in x's dtype (module docstring)."""
        dtype = x.dtype
        y = _a.cast(x, _C.float32) * (weights if not hasattr(weights, "dtype")
                                       else _a.cast(weights, _C.float32))
        if self.reduce and self.average:
            y = _m.mean(y, self.get_axis(y))
        elif self.reduce:
            y = _m.sum(y, self.get_axis(y))
        return _a.cast(y, dtype)

    def construct(self, logits, labels):
        raise NotImplementedError(f"For '{type(self).__name__}', a LossBase subclass must "
                                  f"define construct.")

__all__ += ["LossBase"]


def _positive_int(name, arg, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise TypeError(f"For '{name}', '{arg}' must be a positive int, but got {value!r}.")
    return int(value)


class SampledSoftmaxLoss(LossBase):
    """The sampled softmax loss (TensorFlow's sampled_softmax_loss, MindSpore's
    ``nn.SampledSoftmaxLoss``): the softmax cross entropy over each row's num_true label
    classes and num_sampled sampled classes instead of all num_classes.

    construct(weights [num_classes, dim], biases [num_classes], labels [N, num_true],
    logits [N, dim]): the logits of class c are logits @ weights[c] + biases[c], less
    log(expected count of c) (the sampler's correction); sampled classes equal to one of the
    row's labels are removed (their logit lowered by the float32 maximum) with
    remove_accidental_hits; the targets are 1 / num_true on the label classes. The classes come
    from UniformCandidateSampler(num_true, num_sampled, True, num_classes, seed) unless
    sampled_values = (sampled, true_expected_count,
    sampled_expected_count) is given. Returns [N] losses (reduction 'none') or their mean/sum."""

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None,
                 remove_accidental_hits=True, seed=0, reduction="none"):
        super().__init__(reduction)
        name = "SampledSoftmaxLoss"
        self.num_sampled = _positive_int(name, "num_sampled", num_sampled)
        self.num_classes = _positive_int(name, "num_classes", num_classes)
        self.num_true = _positive_int(name, "num_true", num_true)
        if self.num_sampled > self.num_classes:
            raise ValueError(f"For '{name}', 'num_sampled' ({num_sampled}) must not exceed "
                             f"'num_classes' ({num_classes}).")
        if not isinstance(remove_accidental_hits, bool):
            raise TypeError(f"For '{name}', 'remove_accidental_hits' must be a bool, but got "
                            f"{type(remove_accidental_hits).__name__}.")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"For '{name}', 'seed' must be a non-negative int, but got "
                             f"{seed!r}.")
        if sampled_values is not None and (not isinstance(sampled_values, (tuple, list)) or
                                           len(sampled_values) != 3):
            raise TypeError(f"For '{name}', 'sampled_values' must be None or a tuple of 3 "
                            f"tensors, but got {type(sampled_values).__name__}.")
        self.sampled_values = sampled_values
        self.remove_accidental_hits = remove_accidental_hits
        from mycel.ops.operations.compat_cpu_ops import UniformCandidateSampler
        # The sampler keeps the label classes (their expected counts are then the sampler's
        # inclusion probability, which log-q needs); accidental hits are masked below, as
        # TensorFlow's sampled_softmax_loss does.
        self.sampler = UniformCandidateSampler(self.num_true, self.num_sampled, True,
                                               self.num_classes, int(seed), False)

    def construct(self, weights, biases, labels, logits):
        num_true = self.num_true
        labels = _a.reshape(_a.cast(labels, _C.int64), (-1, num_true))
        if self.sampled_values is None:
            sampled, true_expected, sampled_expected = self.sampler(labels)
        else:
            sampled, true_expected, sampled_expected = self.sampled_values
        sampled = _a.cast(sampled, _C.int64)
        true_w = _a.reshape(_a.gather(weights, _a.reshape(labels, (-1,)), 0),
                            (-1, num_true, weights.shape[1]))
        true_logits = _m.sum(_a.expand_dims(logits, 1) * true_w, -1) + \
            _a.gather(biases, labels, 0)
        sampled_logits = _m.matmul(logits, _a.transpose(_a.gather(weights, sampled, 0),
                                                        (1, 0))) + _a.gather(biases, sampled, 0)
        if self.remove_accidental_hits:
            hits = _m.sum(_a.cast(_m.equal(_a.expand_dims(labels, 2),
                                           _a.reshape(sampled, (1, 1, -1))), logits.dtype), 1)
            sampled_logits = sampled_logits - _m.minimum(hits, 1.0) * 3.4028234663852886e38
        true_logits = true_logits - _m.log(_a.cast(true_expected, logits.dtype))
        sampled_logits = sampled_logits - _m.log(_a.cast(sampled_expected, logits.dtype))
        out = _a.concat((true_logits, sampled_logits), 1)
        targets = _a.concat((_a.ones_like(true_logits) / num_true,
                             _a.zeros_like(sampled_logits)), 1)
        x = -_m.sum(_F.log_softmax(out, 1) * targets, 1)
        return self.get_loss(x)


__all__ += ["SampledSoftmaxLoss"]


class MultilabelMarginLoss(_Loss):
    """The multi-label margin loss of [N, C] or [C] logits and int target class lists (each
    row's classes up to the first -1): sum over its classes j and the others i of
    max(0, 1 - (x[j] - x[i])) / C, then the mean, sum or none (ops.multilabel_margin_loss)."""

    def construct(self, x, target):
        return _nnf.multilabel_margin_loss(x, target, self.reduction)


__all__ += ["MultilabelMarginLoss"]
