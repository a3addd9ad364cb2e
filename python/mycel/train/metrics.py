"""Metrics (MindSpore's ``mindspore.train.Accuracy``, ``Loss`` ...): accumulate over batches
with ``update(...)``, read with ``eval()``, reset with ``clear()``. They work on numpy copies
of the network outputs, outside the compiled graphs."""
import functools

import numpy as np

from mycel import _mycel as _C


def _numpy(x):
    if isinstance(x, _C.Tensor):
        return x.asnumpy()
    if isinstance(x, (list, tuple)):
        return np.asarray([_numpy(e) for e in x])
    return np.asarray(x)


def rearrange_inputs(func):
    """Decorates a Metric's update(*inputs): when set_indexes(indexes) was called, update sees
    only the inputs at those positions, in that order (MindSpore's ``rearrange_inputs``)."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = getattr(self, "indexes", None)
        if indexes is not None:
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)
    return wrapper


class Metric:
    """Base class: subclasses implement clear(), update(*inputs) and eval(). Calling a metric,
    metric(*inputs), clears it, updates it once and returns eval(). set_indexes([i, j, ...])
    picks which of update's inputs it uses (for updates decorated by rearrange_inputs)."""

    def __init__(self):
        self._indexes = None
        self.clear()

    @property
    def indexes(self):
        """The input positions set by set_indexes, or None."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Makes update(*inputs) use inputs[indexes[0]], inputs[indexes[1]], ...; returns self."""
        if not isinstance(indexes, list) or \
                not all(isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all its "
                             "elements must be int, please check whether it is correct.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    @staticmethod
    def _convert_data(data):
        """A numpy array of a Tensor, list or array."""
        return _numpy(data)

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError


def _pair(name, inputs):
    if len(inputs) != 2:
        raise ValueError(f"For '{name}.update', it needs 2 inputs (predictions, labels), but "
                         f"got {len(inputs)}.")
    return _numpy(inputs[0]), _numpy(inputs[1])


def _class_labels(name, y_pred, y, one_hot_only=False):
    """The labels [N] of logits [N, C], given as [N] or one-hot [N, K] (K <= C: a one-hot
    encoding may stop at the largest class it uses). With one_hot_only (Accuracy, as
    MindSpore's), labels of the logits' rank that are not one-hot (each row 0s and a single
    1) are a ValueError; otherwise their argmax is the class."""
    if y.ndim == 2 == y_pred.ndim and y.shape[0] == y_pred.shape[0] and \
            y.shape[1] <= y_pred.shape[1]:
        if one_hot_only and not (np.all((y == 0) | (y == 1)) and np.all(y.sum(-1) == 1)):
            raise ValueError(f"For '{name}.update', labels of shape {list(y.shape)} (the rank "
                             f"of the logits) must be one-hot, one 1 per row.")
        y = y.argmax(-1)  # one-hot labels
    if y_pred.ndim != 2 or y.shape != y_pred.shape[:1]:
        raise ValueError(f"For '{name}.update', the logits must be [N, C] and the labels [N], "
                         f"but got {list(y_pred.shape)} and {list(y.shape)}.")
    return y


class _HitRate(Metric):
    """The fraction of samples that update() counts as hits."""

    def clear(self):
        self._correct = 0
        self._total = 0

    def _count(self, hit):
        self._correct += int(hit.sum())
        self._total += hit.shape[0]

    def eval(self):
        if self._total == 0:
            raise RuntimeError(f"For '{type(self).__name__}.eval', there is no sample: call "
                               "update() first.")
        return self._correct / self._total


class Accuracy(_HitRate):
    """Accuracy(eval_type='classification'): the fraction of samples whose predicted class
    (argmax of the logits) is the label. update(logits [N, C], labels [N] or one-hot [N, C]).
    eval_type 'multilabel': logits are thresholded at 0.5 and a sample counts when all its
    labels match."""

    def __init__(self, eval_type="classification"):
        if eval_type not in ("classification", "multilabel"):
            raise TypeError(f"For 'Accuracy', the 'eval_type' must be 'classification' or "
                             f"'multilabel', but got {eval_type!r}.")
        self._type = eval_type
        super().__init__()

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _pair("Accuracy", inputs)
        if self._type == "multilabel":
            if y_pred.shape != y.shape:
                raise ValueError(f"For 'Accuracy.update', multilabel predictions and labels must "
                                 f"have one shape, but got {y_pred.shape} and {y.shape}.")
            self._count(np.all((y_pred > 0.5) == (y > 0.5), axis=tuple(range(1, y.ndim))))
        else:
            labels = _class_labels("Accuracy", y_pred, y, one_hot_only=True)
            self._count(y_pred.argmax(-1) == labels)


class Loss(Metric):
    """The mean of the losses given to update(loss): each a scalar (one batch's mean loss) or,
    as MindSpore's, a 1-d tensor of per-sample losses (a loss with reduction 'none'), which
    counts as its mean."""

    def clear(self):
        self._sum = 0.0
        self._n = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update'', it needs 1 input (the loss), but got "
                             f"{len(inputs)}.")
        v = _numpy(inputs[0])
        if v.ndim > 1 and v.size != 1 or v.size == 0:
            raise ValueError(f"For 'Loss.update', the loss must be a scalar or a non-empty 1-d "
                             f"tensor of per-sample losses, but got shape {list(v.shape)}.")
        self._sum += float(v.mean())
        self._n += 1

    def eval(self):
        if self._n == 0:
            raise RuntimeError("For 'Loss.eval', there is no loss: call update() first.")
        return self._sum / self._n


class _ErrorSum(Metric):
    """The sum over samples of a per-element error of predictions against labels, divided by
    the number of samples (MindSpore's MAE and MSE: the error summed over each sample's
    elements, averaged over samples)."""

    def clear(self):
        self._sum = 0.0
        self._n = 0

    def _error(self, d):
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        name = type(self).__name__
        y_pred, y = _pair(name, inputs)
        if y.size != y_pred.size:
            raise ValueError(f"For '{name}.update', the labels must have as many elements as "
                             f"the predictions, but got {list(y.shape)} and "
                             f"{list(y_pred.shape)}.")
        d = y.reshape(y_pred.shape).astype(np.float64) - y_pred.astype(np.float64)
        self._sum += float(self._error(d).sum())
        self._n += y_pred.shape[0] if y_pred.ndim else 1

    def eval(self):
        if self._n == 0:
            raise RuntimeError(f"For '{type(self).__name__}.eval', there is no sample: call "
                               "update() first.")
        return self._sum / self._n


class MAE(_ErrorSum):
    """Mean absolute error: sum |y - y_pred| over each sample's elements, averaged over the
    samples. update(y_pred, y)."""

    def _error(self, d):
        return np.abs(d)


class MSE(_ErrorSum):
    """Mean squared error: sum (y - y_pred)^2 over each sample's elements, averaged over the
    samples. update(y_pred, y)."""

    def _error(self, d):
        return d * d


class TopKCategoricalAccuracy(_HitRate):
    """TopKCategoricalAccuracy(k): the fraction of samples whose label is among the k largest
    logits. update(logits [N, C], labels [N] or one-hot [N, C]); ties go to the lower class."""

    def __init__(self, k):
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the 'k' must be an int, but got "
                            f"{type(k).__name__}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the 'k' must be a positive int, "
                             f"but got {k!r}.")
        self.k = k
        super().__init__()

    @rearrange_inputs
    def update(self, *inputs):
        name = type(self).__name__
        y_pred, y = _pair(name, inputs)
        y = _class_labels(name, y_pred, y)
        top = np.argsort(-y_pred, axis=-1, kind="stable")[:, :self.k]
        self._count((top == y.reshape(-1, 1)).any(axis=1))


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """TopKCategoricalAccuracy(1)."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """TopKCategoricalAccuracy(5)."""

    def __init__(self):
        super().__init__(5)
