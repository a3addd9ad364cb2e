"""Metrics of an attack's result (MindArmour's ``AttackEvaluate``)."""
import numpy as np

from mycel.armour.adv_robustness._util import check_inputs
from mycel.nn.layer._check import bool_


def class_indices(who, name, labels, n):
    """Class indices [n] of labels given as indices [n] or one-hot/score rows [n, C]."""
    labels = np.asarray(labels)
    if labels.shape[:1] != (n,) or labels.ndim not in (1, 2):
        raise ValueError(f"For '{who}', '{name}' must be [N] indices or [N, C] rows with "
                         f"N = {n}, but got shape {labels.shape}.")
    return labels.argmax(axis=1) if labels.ndim == 2 else labels.astype(np.int64)


class AttackEvaluate:
    """AttackEvaluate(inputs, labels, adv_inputs, adv_preds, targeted=False,
    target_label=None): inputs and adv_inputs [N, ...], labels the true classes (one-hot
    rows or indices), adv_preds the model's probabilities [N, C] on adv_inputs, and for a
    targeted attack target_label [N]. A sample is a success when its adversarial prediction
    differs from the true class (untargeted) or equals its target (targeted).

    Metrics: ``mis_classification_rate`` (share of successes); ``avg_conf_adv_class`` and
    ``avg_conf_true_class`` (mean probability of the adversarial (or target) class and of the
    true class over the successes; 0 without any); ``avg_lp_distance`` (mean over the
    successes of the l0, l2 and l-inf norms of the perturbation relative to those of the
    input: changed elements / nonzero input elements, ||d||_2 / ||x||_2, max|d| / max|x|;
    (-1, -1, -1) without any); ``nte`` (noise tolerance estimation: mean gap between the top
    two probabilities of the successes). MindArmour's SSIM metric is not provided."""

    def __init__(self, inputs, labels, adv_inputs, adv_preds, targeted=False,
                 target_label=None):
        who = "AttackEvaluate"
        self._inputs = check_inputs(who, inputs)
        self._adv_inputs = check_inputs(who, adv_inputs, "adv_inputs")
        n = len(inputs)
        if adv_inputs.shape != inputs.shape:
            raise ValueError(f"For '{who}', 'adv_inputs' must have the shape of 'inputs' "
                             f"{inputs.shape}, but got {adv_inputs.shape}.")
        self._adv_preds = np.asarray(adv_preds, np.float64)
        if self._adv_preds.ndim != 2 or len(self._adv_preds) != n:
            raise ValueError(f"For '{who}', 'adv_preds' must be [N, C] with N = {n}, but got "
                             f"shape {self._adv_preds.shape}.")
        self._true = class_indices(who, "labels", labels, n)
        self._targeted = bool_(targeted, "targeted", who)
        self._adv_label = self._adv_preds.argmax(axis=1)
        if targeted:
            if target_label is None:
                raise ValueError(f"For '{who}', a targeted attack needs 'target_label'.")
            self._target = class_indices(who, "target_label", target_label, n)
            self._success = np.flatnonzero(self._adv_label == self._target)
        else:
            self._target = None
            self._success = np.flatnonzero(self._adv_label != self._true)

    def mis_classification_rate(self):
        """Share of successful samples (higher: stronger attack)."""
        return len(self._success) / len(self._inputs)

    def avg_conf_adv_class(self):
        """Mean probability of the adversarial (targeted: target) class over the successes."""
        idx = self._success
        if not idx.size:
            return 0.0
        cls = self._target[idx] if self._targeted else self._adv_label[idx]
        return float(self._adv_preds[idx, cls].mean())

    def avg_conf_true_class(self):
        """Mean probability of the true class over the successes (lower: stronger)."""
        idx = self._success
        if not idx.size:
            return 0.0
        return float(self._adv_preds[idx, self._true[idx]].mean())

    def avg_lp_distance(self):
        """(l0, l2, linf) relative perturbation sizes averaged over the successes."""
        idx = self._success
        if not idx.size:
            return -1.0, -1.0, -1.0
        x = self._inputs[idx].reshape(len(idx), -1).astype(np.float64)
        d = self._adv_inputs[idx].reshape(len(idx), -1).astype(np.float64) - x
        l0 = np.count_nonzero(d, axis=1) / np.maximum(np.count_nonzero(x, axis=1), 1)
        l2 = np.linalg.norm(d, axis=1) / np.maximum(np.linalg.norm(x, axis=1), 1e-12)
        linf = np.abs(d).max(axis=1) / np.maximum(np.abs(x).max(axis=1), 1e-12)
        return float(l0.mean()), float(l2.mean()), float(linf.mean())

    def nte(self):
        """Noise tolerance estimation: mean gap between the two largest probabilities of the
        successes (higher: a more robust adversarial example)."""
        idx = self._success
        if not idx.size:
            return 0.0
        top2 = np.sort(self._adv_preds[idx], axis=1)[:, -2:]
        return float((top2[:, 1] - top2[:, 0]).mean())
