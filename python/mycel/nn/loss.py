"""Loss cells (MindSpore's ``mindspore.nn`` losses): each is a Cell whose ``construct(logits,
labels)`` calls the matching function of ``mycel.ops`` (where the math and its checks live),
so they run eagerly in PYNATIVE mode and compile in GRAPH mode.

reduction: 'mean' (default), 'sum' or 'none'.
"""
from mycel.nn.cell import Cell
from mycel.ops.function import nn_func as _F
from mycel.ops.function import array_func as _a

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(name, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For '{name}', 'reduction' must be one of {_REDUCTIONS}, but got "
                         f"{reduction!r}.")
    return reduction


class L1Loss(Cell):
    """mean |logits - labels| (or sum / none)."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction("L1Loss", reduction)

    def construct(self, logits, labels):
        return _F.l1_loss(logits, labels, self.reduction)


class MSELoss(Cell):
    """mean (logits - labels)^2 (or sum / none)."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction("MSELoss", reduction)

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


__all__ = ["L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss", "BCEWithLogitsLoss",
           "SoftmaxCrossEntropyWithLogits"]
