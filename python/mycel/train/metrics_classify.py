"""Classification and similarity metrics of MindSpore's ``mindspore.train``: Precision, Recall,
Fbeta/F1, ConfusionMatrix, ConfusionMatrixMetric, ROC with auc, Perplexity, Dice, BleuScore,
CosineSimilarity. Like the metrics of ``metrics.py`` they work on numpy copies of the network
outputs, outside the compiled graphs, and follow MindSpore's definitions where those are
unusual (each class says where)."""
import collections
import math
import sys

import numpy as np

from mycel.train.metrics import Metric, rearrange_inputs

_EPS = sys.float_info.min  # keeps 0/0 at 0 without changing any other quotient


def _check_type(owner, name, value, types, allow_none=False):
    """value itself, or a TypeError naming the metric and the argument (bool is no int)."""
    if value is None and allow_none:
        return value
    if isinstance(value, bool) and bool not in types:
        ok = False
    else:
        ok = isinstance(value, tuple(types))
    if not ok:
        raise TypeError(f"For '{owner}', the '{name}' must be "
                        f"{' or '.join(t.__name__ for t in types)}, but got "
                        f"{type(value).__name__}.")
    return value


def _check_choice(owner, name, value, choices):
    _check_type(owner, name, value, [str])
    if value not in choices:
        raise ValueError(f"For '{owner}', the '{name}' must be one of {list(choices)}, but got "
                         f"{value!r}.")
    return value


def _n_inputs(owner, inputs, n, what):
    if len(inputs) != n:
        raise ValueError(f"For '{owner}.update', it needs {n} inputs ({what}), but got "
                         f"{len(inputs)}.")


class _ClassCounts(Metric):
    """Per-class counts behind Precision, Recall and Fbeta. 'classification': update(logits
    [N, C], labels [N] or one-hot [N, C]); the prediction is the argmax; counts are summed per
    class over updates. 'multilabel': update(predictions [N, C], labels [N, C]) of 0/1; counts
    are per sample, summed position-wise over updates as MindSpore does (so every batch must
    have the same size)."""

    def __init__(self, eval_type="classification"):
        if eval_type not in ("classification", "multilabel"):
            raise TypeError(f"For '{type(self).__name__}', the 'eval_type' must be "
                            f"'classification' or 'multilabel', but got {eval_type!r}.")
        self._type = eval_type
        super().__init__()

    def clear(self):
        self._class_num = 0
        self._tp = 0  # true positives
        self._pos = 0  # predicted positives
        self._act = 0  # actual positives
        self._updated = False

    @rearrange_inputs
    def update(self, *inputs):
        name = type(self).__name__
        _n_inputs(name, inputs, 2, "predictions, labels")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim != 2:
            raise ValueError(f"For '{name}.update', the predictions must be [N, C], but got "
                             f"shape {list(y_pred.shape)}.")
        c = y_pred.shape[1]
        if self._class_num and c != self._class_num:
            raise ValueError(f"For '{name}.update', the number of classes changed from "
                             f"{self._class_num} to {c}.")
        if self._type == "classification":
            if y.shape == y_pred.shape:
                y = y.argmax(-1)  # one-hot labels
            if y.shape != y_pred.shape[:1]:
                raise ValueError(f"For '{name}.update', the labels must be [N] or one-hot "
                                 f"[N, C] for predictions {list(y_pred.shape)}, but got "
                                 f"{list(y.shape)}.")
            y = y.astype(np.int64)
            if y.size and (y.min() < 0 or y.max() >= c):
                raise ValueError(f"For '{name}.update', the labels must be in [0, {c}), but got "
                                 f"values from {y.min()} to {y.max()}.")
            eye = np.eye(c)
            pred, act, axis = eye[y_pred.argmax(-1)], eye[y], 0
        else:
            if y.shape != y_pred.shape:
                raise ValueError(f"For '{name}.update', multilabel predictions and labels must "
                                 f"have one shape, but got {list(y_pred.shape)} and "
                                 f"{list(y.shape)}.")
            pred, act, axis = y_pred.astype(np.float64), y.astype(np.float64), 1
            if self._updated and np.shape(self._tp) != (y.shape[0],):
                raise ValueError(f"For '{name}.update', multilabel batches must have one size "
                                 f"(counts are per sample), but got {y.shape[0]} after "
                                 f"{np.shape(self._tp)[0]}.")
        self._class_num = c
        self._tp = self._tp + (pred * act).sum(axis)
        self._pos = self._pos + pred.sum(axis)
        self._act = self._act + act.sum(axis)
        self._updated = True

    def _require(self):
        if not self._updated:
            raise RuntimeError(f"For '{type(self).__name__}.eval', there is no sample: call "
                               "update() first.")


class Precision(_ClassCounts):
    """Precision(eval_type='classification'): true positives / predicted positives, per class
    (per sample for 'multilabel'); eval(average=True) gives their mean."""

    def eval(self, average=False):
        self._require()
        p = self._tp / (self._pos + _EPS)
        return float(p.mean()) if average else p


class Recall(_ClassCounts):
    """Recall(eval_type='classification'): true positives / actual positives, per class (per
    sample for 'multilabel'); eval(average=True) gives their mean."""

    def eval(self, average=False):
        self._require()
        r = self._tp / (self._act + _EPS)
        return float(r.mean()) if average else r


class Fbeta(_ClassCounts):
    """Fbeta(beta): (1 + beta^2) p r / (beta^2 p + r) per class of precision p and recall r
    (classification: logits [N, C], labels [N] or one-hot); eval(average=True) the mean."""

    def __init__(self, beta):
        _check_type("Fbeta", "beta", beta, [int, float])
        if beta <= 0:
            raise ValueError(f"For 'Fbeta', the 'beta' must be positive, but got {beta}.")
        self.beta = beta
        super().__init__("classification")

    def eval(self, average=False):
        self._require()
        p = self._tp / (self._pos + _EPS)
        r = self._tp / (self._act + _EPS)
        b2 = self.beta * self.beta
        f = (1.0 + b2) * p * r / (b2 * p + r + _EPS)
        return float(f.mean()) if average else f


class F1(Fbeta):
    """Fbeta(1)."""

    def __init__(self):
        super().__init__(1.0)


class ConfusionMatrix(Metric):
    """ConfusionMatrix(num_classes, normalize='no_norm', threshold=0.5): rows are the true
    classes, columns the predicted ones. update(y_pred, y): y_pred logits [N, C, ...] (argmax over
    axis 1), or labels of y's shape (floating labels are thresholded to 0/1). normalize:
    'target' divides each row by its sum, 'prediction' each column, 'all' by the total (0/0 is
    0)."""

    _NORMS = ("no_norm", "target", "prediction", "all")

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        self.num_classes = _check_type("ConfusionMatrix", "num_classes", num_classes, [int])
        self.normalize = _check_choice("ConfusionMatrix", "normalize", normalize, self._NORMS)
        self.threshold = _check_type("ConfusionMatrix", "threshold", threshold, [float])
        super().__init__()

    def clear(self):
        self._matrix = np.zeros((self.num_classes, self.num_classes))
        self._updated = False

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("ConfusionMatrix", inputs, 2, "predictions, labels")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim == y.ndim and y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'ConfusionMatrix.update', the predictions (after argmax) must "
                             f"have the labels' shape {list(y.shape)}, but got "
                             f"{list(y_pred.shape)}.")
        k = self.num_classes
        t, p = y.reshape(-1).astype(np.int64), y_pred.reshape(-1).astype(np.int64)
        if t.size and (min(t.min(), p.min()) < 0 or max(t.max(), p.max()) >= k):
            raise ValueError(f"For 'ConfusionMatrix.update', classes must be in [0, {k}).")
        self._matrix += np.bincount(t * k + p, minlength=k * k).reshape(k, k)
        self._updated = True

    def eval(self):
        if not self._updated:
            raise RuntimeError("For 'ConfusionMatrix.eval', there is no sample: call update() "
                               "first.")
        m = self._matrix.copy()
        if self.normalize == "no_norm":
            return m
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.normalize == "target":
                m = m / m.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                m = m / m.sum(axis=0, keepdims=True)
            else:
                m = m / m.sum()
        return np.nan_to_num(m, nan=0.0)


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


def _rates(tp, fp, tn, fn):
    p, n = tp + fn, fp + tn
    return _ratio(tp, p), _ratio(tn, n), _ratio(tp, tp + fp), _ratio(tn, tn + fn)


# metric name -> its value from the counts (tp, fp, tn, fn), each an array
_CM_METRICS = {
    "tpr": lambda tp, fp, tn, fn: _ratio(tp, tp + fn),
    "tnr": lambda tp, fp, tn, fn: _ratio(tn, tn + fp),
    "ppv": lambda tp, fp, tn, fn: _ratio(tp, tp + fp),
    "npv": lambda tp, fp, tn, fn: _ratio(tn, tn + fn),
    "fnr": lambda tp, fp, tn, fn: _ratio(fn, tp + fn),
    "fpr": lambda tp, fp, tn, fn: _ratio(fp, fp + tn),
    "fdr": lambda tp, fp, tn, fn: _ratio(fp, fp + tp),
    "for": lambda tp, fp, tn, fn: _ratio(fn, fn + tn),
    "pt": lambda *c: (lambda r: _ratio(np.sqrt(r[0] * (1 - r[1])) + r[1] - 1,
                                       r[0] + r[1] - 1))(_rates(*c)),
    "ts": lambda tp, fp, tn, fn: _ratio(tp, tp + fn + fp),
    "acc": lambda tp, fp, tn, fn: _ratio(tp + tn, tp + fp + tn + fn),
    "ba": lambda *c: (lambda r: (r[0] + r[1]) / 2.0)(_rates(*c)),
    "f1": lambda tp, fp, tn, fn: _ratio(2.0 * tp, 2.0 * tp + fn + fp),
    "mcc": lambda tp, fp, tn, fn: _ratio(tp * tn - fp * fn,
                                         np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
    "fm": lambda *c: (lambda r: np.sqrt(r[2] * r[0]))(_rates(*c)),
    "bm": lambda *c: (lambda r: r[0] + r[1] - 1.0)(_rates(*c)),
    "mk": lambda *c: (lambda r: r[2] + r[3] - 1.0)(_rates(*c)),
}
_CM_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate"),
    "tnr": ("specificity", "selectivity", "true_negative_rate"),
    "ppv": ("precision", "positive_predictive_value"),
    "npv": ("negative_predictive_value",),
    "fnr": ("miss_rate", "false_negative_rate"),
    "fpr": ("fall_out", "false_positive_rate"),
    "fdr": ("false_discovery_rate",), "for": ("false_omission_rate",),
    "pt": ("prevalence_threshold",), "ts": ("threat_score", "critical_success_index", "csi"),
    "acc": ("accuracy",), "ba": ("balanced_accuracy",), "f1": ("f1_score",),
    "mcc": ("matthews_correlation_coefficient",), "fm": ("fowlkes_mallows_index",),
    "bm": ("informedness", "bookmaker_informedness"), "mk": ("markedness", "deltap"),
}
_CM_NAMES = {a: k for k, names in _CM_ALIASES.items() for a in names + (k,)}


def _cm_metric(name):
    key = name.strip().lower().replace(" ", "_")
    if key not in _CM_NAMES:
        raise NotImplementedError(f"For 'ConfusionMatrixMetric', the metric {name!r} is not "
                                  f"implemented; known: {sorted(_CM_NAMES)}.")
    return _CM_METRICS[_CM_NAMES[key]]


def _reduce(chart, decrease):
    """(reduced values, count of non-NaN entries) of a [B, C] chart, NaNs left out."""
    ok = ~np.isnan(chart)
    vals = np.where(ok, chart, 0.0)
    cnt = ok.astype(np.float64)
    if decrease == "none":
        return vals, cnt
    axes = {"sum": (0, 1), "mean": (0, 1), "sum_batch": 0, "mean_batch": 0,
            "sum_channel": 1, "mean_channel": 1}[decrease]
    if decrease == "mean":  # mean over channels, then over the samples that had one
        per_b = _ratio(vals.sum(1), cnt.sum(1))
        has = cnt.sum(1) > 0
        return (np.where(has, per_b, 0.0).sum() / max(has.sum(), 1)), float(has.sum())
    s, c = vals.sum(axis=axes), cnt.sum(axis=axes)
    if decrease.startswith("mean"):
        s = np.where(c > 0, s / np.where(c > 0, c, 1.0), 0.0)
    return s, c


class ConfusionMatrixMetric(Metric):
    """ConfusionMatrixMetric(skip_channel=True, metric_name='sensitivity',
    calculation_method=False, decrease='mean'): a confusion-matrix measure (sensitivity,
    specificity, precision, f1 score, mcc, ... with their usual aliases) of binarised
    one-hot predictions and labels [B, C, ...]. calculation_method False sums tp/fp/tn/fn over
    every sample, channel and update and computes the measure once (the result is a
    1-element array); True computes it per sample and channel, reduces by 'decrease' and
    averages over updates. As in MindSpore, skip_channel=True keeps every channel and False
    drops the first (the background)."""

    _DECREASE = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel",
                 "sum_channel")

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False,
                 decrease="mean"):
        owner = "ConfusionMatrixMetric"
        self.skip_channel = _check_type(owner, "skip_channel", skip_channel, [bool])
        self.metric_name = _check_type(owner, "metric_name", metric_name, [str])
        self.calculation_method = _check_type(owner, "calculation_method", calculation_method,
                                              [bool])
        self.decrease = _check_choice(owner, "decrease", decrease, self._DECREASE)
        self._fn = _cm_metric(metric_name)
        super().__init__()

    def clear(self):
        self._counts = np.zeros(4)
        self._score = 0.0
        self._n = 0.0
        self._updated = False

    def _counts_of(self, y_pred, y):
        if y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', the predictions must have at "
                             f"least 2 dimensions [B, C, ...], but got {y_pred.ndim}.")
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrixMetric.update', the labels must be binary "
                             "(one-hot).")
        if not self.skip_channel:
            y = y[:, 1:] if y.shape[1] > 1 else y
            y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
        if y.shape != y_pred.shape:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', predictions and labels must "
                             f"have one shape, but got {list(y_pred.shape)} and "
                             f"{list(y.shape)}.")
        b, c = y_pred.shape[:2]
        p = y_pred.reshape(b, c, -1).astype(np.float64)
        t = y.reshape(b, c, -1).astype(np.float64)
        tp = ((p + t) == 2).sum(-1).astype(np.float64)
        tn = ((p + t) == 0).sum(-1).astype(np.float64)
        pos = t.sum(-1)
        return tp, (t.shape[-1] - pos) - tn, tn, pos - tp  # tp, fp, tn, fn: [B, C] each

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("ConfusionMatrixMetric", inputs, 2, "predictions, labels")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        counts = self._counts_of(y_pred, y)
        # a classification batch ([B, C] or [B, C, 1]) has no per-sample measure
        per_sample = self.calculation_method and not (
            y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        if per_sample:
            score, n = _reduce(self._fn(*counts), self.decrease)
            n = float(np.sum(n))
            self._score += float(np.sum(score)) * n
            self._n += n
        else:
            self._counts += np.array([c.sum() for c in counts])
        self._updated = True

    def eval(self):
        if not self._updated:
            raise RuntimeError("For 'ConfusionMatrixMetric.eval', there is no sample: call "
                               "update() first.")
        if self.calculation_method and self._n > 0:
            return self._score / self._n
        return self._fn(*(np.array([v]) for v in self._counts))


def _binary_roc(scores, positive):
    """(fpr, tpr, thresholds) of scores against a 0/1 positive mask, one point per distinct
    score (highest first) after a start point at thresholds[1] + 1."""
    order = np.argsort(-scores, kind="mergesort")
    s, pos = scores[order], positive[order].astype(np.float64)
    last = np.r_[np.nonzero(np.diff(s))[0], s.size - 1]  # last index of each distinct score
    tps = np.cumsum(pos)[last]
    fps = (last + 1) - tps
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    thresholds = np.r_[s[last][0] + 1, s[last]]
    with np.errstate(divide="ignore", invalid="ignore"):
        return fps / fps[-1], tps / tps[-1], thresholds


class ROC(Metric):
    """ROC(class_num=None, pos_label=None): the receiver operating characteristic. Binary:
    update(scores, labels) of one shape, positives where labels == pos_label (default 1);
    eval() gives (fpr, tpr, thresholds), a point per distinct score from the highest, after a
    start point (0, 0) at the highest score + 1. Multi-class: update(scores [N, C], labels
    [N]); eval() gives three lists, one entry per class (class c against the rest). Updates
    accumulate their samples."""

    def __init__(self, class_num=None, pos_label=None):
        self.class_num = _check_type("ROC", "class_num", class_num, [int], allow_none=True)
        self.pos_label = _check_type("ROC", "pos_label", pos_label, [int], allow_none=True)
        super().__init__()

    def clear(self):
        self._preds, self._labels = [], []
        self._multi = None

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("ROC", inputs, 2, "predictions, labels")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and y_pred.shape == y.shape:
            multi = False
        elif y_pred.ndim == y.ndim + 1 and y_pred.shape[:1] + y_pred.shape[2:] == y.shape:
            multi = True
            if self.class_num is not None and y_pred.shape[1] != self.class_num:
                raise ValueError(f"For 'ROC.update', the predictions have {y_pred.shape[1]} "
                                 f"classes, but 'class_num' is {self.class_num}.")
        else:
            raise ValueError(f"For 'ROC.update', the predictions must have the labels' shape, "
                             f"or [N, C, ...] for labels [N, ...], but got "
                             f"{list(y_pred.shape)} and {list(y.shape)}.")
        if self._multi is not None and multi != self._multi:
            raise ValueError("For 'ROC.update', binary and multi-class updates cannot mix.")
        self._multi = multi
        if multi:  # [N, C, ...] -> [M, C]
            y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, y_pred.shape[1])
        self._preds.append(y_pred.reshape(-1, y_pred.shape[-1]) if multi else y_pred.ravel())
        self._labels.append(y.ravel())

    def eval(self):
        if not self._preds:
            raise RuntimeError("For 'ROC.eval', there is no sample: call update() first.")
        preds, labels = np.concatenate(self._preds), np.concatenate(self._labels)
        if not self._multi:
            pos = 1 if self.pos_label is None else self.pos_label
            return _binary_roc(preds.astype(np.float64), labels == pos)
        out = ([], [], [])
        for c in range(preds.shape[1]):
            for lst, v in zip(out, _binary_roc(preds[:, c].astype(np.float64), labels == c)):
                lst.append(v)
        return out


def auc(x, y, reorder=False):
    """The area under the curve through the points (x, y) by the trapezoidal rule; x must be
    monotonic (either way) unless reorder=True, which sorts the points by x first."""
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"For 'auc', x and y must have one shape with at least 2 points, but "
                         f"got {x.shape} and {y.shape}.")
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    d = np.diff(x)
    if np.all(d <= 0):
        sign = -1.0
    elif np.all(d >= 0):
        sign = 1.0
    else:
        raise ValueError("For 'auc', x must be monotonic (or pass reorder=True).")
    return sign * float(np.sum(d * (y[1:] + y[:-1]) / 2.0))


class Perplexity(Metric):
    """Perplexity(ignore_label=None): exp of the mean negative log of the probability each
    prediction row gives its label (probabilities as given, clipped below at 1e-10), leaving
    out the samples whose label is ignore_label. update(probs [N, C], labels [N])."""

    def __init__(self, ignore_label=None):
        self.ignore_label = _check_type("Perplexity", "ignore_label", ignore_label, [int],
                                        allow_none=True)
        super().__init__()

    def clear(self):
        self._nll = 0.0
        self._n = 0

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("Perplexity", inputs, 2, "predictions, labels")
        preds = self._convert_data(inputs[0]).astype(np.float64)
        labels = self._convert_data(inputs[1]).reshape(-1).astype(np.int64)
        preds = preds.reshape(-1, preds.shape[-1])
        if preds.shape[0] != labels.size:
            raise RuntimeError(f"For 'Perplexity.update', the predictions have {preds.shape[0]} "
                               f"rows but there are {labels.size} labels.")
        keep = np.ones(labels.size, bool) if self.ignore_label is None else \
            labels != self.ignore_label
        rows, lab = np.nonzero(keep)[0], labels[keep]
        if lab.size and (lab.min() < 0 or lab.max() >= preds.shape[1]):
            raise ValueError(f"For 'Perplexity.update', the labels must be in "
                             f"[0, {preds.shape[1]}).")
        prob = np.maximum(preds[rows, lab], 1e-10)
        self._nll -= float(np.log(prob).sum())
        self._n += int(lab.size)

    def eval(self):
        if self._n == 0:
            raise RuntimeError("For 'Perplexity.eval', there is no sample: call update() first.")
        return math.exp(self._nll / self._n)


class Dice(Metric):
    """Dice(smooth=1e-5): each update adds 2 |y_pred . y| / (|y_pred|^2 + |y|^2 + smooth) over
    the whole batch; eval() divides the sum by the number of samples seen (MindSpore's
    definition: one coefficient per batch, averaged per sample)."""

    def __init__(self, smooth=1e-5):
        self.smooth = float(_check_type("Dice", "smooth", smooth, [int, float]))
        if self.smooth <= 0:
            raise ValueError(f"For 'Dice', the 'smooth' must be positive, but got {smooth}.")
        super().__init__()

    def clear(self):
        self._sum = 0.0
        self._n = 0

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("Dice", inputs, 2, "predictions, labels")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', predictions and labels must have one shape, "
                             f"but got {list(y_pred.shape)} and {list(y.shape)}.")
        p, t = y_pred.astype(np.float64).ravel(), y.astype(np.float64).ravel()
        self._sum += 2.0 * float(p @ t) / (float(p @ p) + float(t @ t) + self.smooth)
        self._n += y.shape[0] if y.ndim else 1

    def eval(self):
        if self._n == 0:
            raise RuntimeError("For 'Dice.eval', there is no sample: call update() first.")
        return self._sum / self._n


def _ngrams(words, n):
    return collections.Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


class BleuScore(Metric):
    """BleuScore(n_gram=4, smooth=False): corpus BLEU. update(candidates, references): a list of
    token lists and, per candidate, a list of reference token lists. n-gram counts are clipped
    by their largest count in any reference; the brevity penalty uses, per candidate, the
    reference length closest to its own (the shorter on a tie). smooth adds 1 to every
    n-gram precision's numerator and denominator."""

    def __init__(self, n_gram=4, smooth=False):
        self.n_gram = _check_type("BleuScore", "n_gram", n_gram, [int])
        if not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the 'n_gram' must be in [1, 4], but got {n_gram}.")
        self.smooth = _check_type("BleuScore", "smooth", smooth, [bool])
        super().__init__()

    def clear(self):
        self._num = np.zeros(self.n_gram)
        self._den = np.zeros(self.n_gram)
        self._cand_len = 0
        self._ref_len = 0
        self._updated = False

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("BleuScore", inputs, 2, "candidate corpus, reference corpus")
        cands, refs = inputs
        if len(cands) != len(refs):
            raise ValueError(f"For 'BleuScore.update', the candidate corpus has {len(cands)} "
                             f"entries but the reference corpus {len(refs)}.")
        for cand, ref_list in zip(cands, refs):
            cand = list(cand)
            self._cand_len += len(cand)
            lens = [len(r) for r in ref_list]
            self._ref_len += min(lens, key=lambda n: (abs(n - len(cand)), n))
            for n in range(1, self.n_gram + 1):
                have = _ngrams(cand, n)
                best = collections.Counter()
                for r in ref_list:
                    best |= _ngrams(list(r), n)
                self._num[n - 1] += sum(min(c, best[g]) for g, c in have.items())
                self._den[n - 1] += sum(have.values())
        self._updated = True

    def eval(self):
        if not self._updated:
            raise RuntimeError("For 'BleuScore.eval', there is no sample: call update() first.")
        if self._cand_len == 0 or (not self.smooth and self._num.min() == 0):
            return 0.0
        if self.smooth:
            prec = (self._num + 1.0) / (self._den + 1.0)
        else:
            prec = self._num / self._den
        geo = math.exp(np.log(prec).sum() / self.n_gram)
        c, r = self._cand_len, self._ref_len
        return geo if c > r else geo * math.exp(1.0 - r / c)


class CosineSimilarity(Metric):
    """CosineSimilarity(similarity='cosine', reduction='none', zero_diagonal=True): the matrix
    of pairwise similarities of the rows of the inputs given to update (each [N, D]; updates
    stack their rows): 'cosine' or 'dot'; the diagonal zeroed when zero_diagonal; reduction
    'sum' or 'mean' over the last axis."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        owner = "CosineSimilarity"
        self.similarity = _check_choice(owner, "similarity", similarity, ("cosine", "dot"))
        self.reduction = _check_choice(owner, "reduction", reduction, ("none", "sum", "mean"))
        self.zero_diagonal = _check_type(owner, "zero_diagonal", zero_diagonal, [bool])
        super().__init__()

    def clear(self):
        self._rows = []

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("CosineSimilarity", inputs, 1, "the data")
        x = self._convert_data(inputs[0]).astype(np.float64)
        self._rows.append(x.reshape(x.shape[0], -1) if x.ndim else x.reshape(1, 1))

    def eval(self):
        if not self._rows:
            raise RuntimeError("For 'CosineSimilarity.eval', there is no sample: call update() "
                               "first.")
        x = np.concatenate(self._rows)
        if self.similarity == "cosine":
            norm = np.linalg.norm(x, axis=1, keepdims=True)
            x = x / np.where(norm > 0, norm, 1.0)
        m = x @ x.T
        if self.zero_diagonal:
            np.fill_diagonal(m, 0.0)
        if self.reduction == "mean":
            return m.mean(axis=-1)
        if self.reduction == "sum":
            return m.sum(axis=-1)
        return m
