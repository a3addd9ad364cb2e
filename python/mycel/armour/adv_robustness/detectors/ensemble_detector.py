"""A combination of detectors (MindArmour's ``EnsembleDetector``)."""
import numpy as np

from mycel.armour.adv_robustness._util import check_type
from mycel.armour.adv_robustness.detectors.detector import Detector

_POLICIES = ("vote", "all", "any")


class EnsembleDetector(Detector):
    """EnsembleDetector(detectors, policy='vote'): ``detect`` flags an input when more than
    half of the detectors do ('vote'), all of them ('all') or any ('any'); ``detect_diff``
    is the share of detectors that flag each input; ``fit`` fits each detector.
    ``transform`` is not defined for an ensemble (the detectors' transforms do not compose
    into one input) and raises NotImplementedError, as MindArmour's."""

    def __init__(self, detectors, policy="vote"):
        who = "EnsembleDetector"
        check_type(who, "detectors", detectors, (list, tuple))
        if not detectors:
            raise ValueError(f"For '{who}', 'detectors' must not be empty.")
        for d in detectors:
            check_type(who, "detectors", d, Detector)
        if policy not in _POLICIES:
            raise ValueError(f"For '{who}', 'policy' must be one of {_POLICIES}, but got "
                             f"{policy!r}.")
        self._detectors = list(detectors)
        self._policy = policy

    def fit(self, inputs, labels=None):
        """Fits every detector on the benign inputs."""
        for d in self._detectors:
            d.fit(inputs, labels)

    def _flags(self, inputs):
        return np.stack([np.asarray(d.detect(inputs)) for d in self._detectors])

    def detect_diff(self, inputs):
        """Share of the detectors that flag each input."""
        return self._flags(inputs).mean(axis=0)

    def detect(self, inputs):
        """1 for the inputs the policy flags."""
        flags = self._flags(inputs)
        if self._policy == "vote":
            hit = flags.sum(axis=0) * 2 > len(self._detectors)
        elif self._policy == "all":
            hit = flags.all(axis=0)
        else:
            hit = flags.any(axis=0)
        return hit.astype(np.int32)

    def transform(self, inputs):
        """Not defined for an ensemble."""
        raise NotImplementedError("EnsembleDetector.transform is not defined: transform "
                                  "with one of its detectors.")
