"""Metrics of a defence (MindArmour's ``DefenseEvaluate``): the raw and the defended model's
outputs on the same (adversarial) inputs."""
import numpy as np

from mycel.armour.adv_robustness._util import jensen_shannon
from mycel.armour.adv_robustness.evaluations.attack_evaluation import class_indices


class DefenseEvaluate:
    """DefenseEvaluate(raw_preds, def_preds, true_labels): probabilities [N, C] of the raw
    and the defended model, true labels [N] (indices or one-hot rows).

    ``cav`` (classification accuracy variance): defended accuracy minus raw accuracy;
    ``crr`` (rectify ratio): share of samples wrong before and right after; ``csr``
    (sacrifice ratio): right before and wrong after; ``ccv`` (confidence variance): mean
    |max def_preds - max raw_preds| over the samples both classify right; ``cos`` (output
    stability): mean Jensen-Shannon divergence of the two outputs over those samples. ccv and
    cos are -1 when no sample is right for both."""

    def __init__(self, raw_preds, def_preds, true_labels):
        who = "DefenseEvaluate"
        self._raw = np.asarray(raw_preds, np.float64)
        self._def = np.asarray(def_preds, np.float64)
        if self._raw.ndim != 2 or self._raw.shape != self._def.shape:
            raise ValueError(f"For '{who}', 'raw_preds' and 'def_preds' must be [N, C] of one "
                             f"shape, but got {self._raw.shape} and {self._def.shape}.")
        self._y = class_indices(who, "true_labels", true_labels, len(self._raw))
        self._raw_ok = self._raw.argmax(axis=1) == self._y
        self._def_ok = self._def.argmax(axis=1) == self._y

    def cav(self):
        """Defended accuracy minus raw accuracy (higher: better defence)."""
        return float(self._def_ok.mean() - self._raw_ok.mean())

    def crr(self):
        """Share of samples the defence corrects (higher: better)."""
        return float((self._def_ok & ~self._raw_ok).mean())

    def csr(self):
        """Share of samples the defence breaks (lower: better)."""
        return float((~self._def_ok & self._raw_ok).mean())

    def ccv(self):
        """Mean change of the top probability on samples right for both (lower: better)."""
        both = self._def_ok & self._raw_ok
        if not both.any():
            return -1.0
        return float(np.abs(self._def[both].max(axis=1) - self._raw[both].max(axis=1)).mean())

    def cos(self):
        """Mean Jensen-Shannon divergence of the outputs on samples right for both."""
        both = self._def_ok & self._raw_ok
        if not both.any():
            return -1.0
        return float(jensen_shannon(self._def[both], self._raw[both]).mean())
