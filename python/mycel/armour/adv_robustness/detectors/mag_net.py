"""MagNet's detectors (Meng and Chen 2017), MindArmour's ``ErrorBasedDetector`` and
``DivergenceBasedDetector``: an autoencoder trained on benign data reconstructs benign inputs
well and adversarial ones badly; the reconstruction error (or the divergence of the
classifier's outputs on the input and its reconstruction) is the score."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_bounds, check_inputs, check_positive,
                                               check_rate, jensen_shannon, softmax)
from mycel.armour.adv_robustness.detectors.detector import Detector, check_model, run_model
from mycel.nn.layer._check import positive_int


class ErrorBasedDetector(Detector):
    """ErrorBasedDetector(auto_encoder, false_positive_rate=0.01, bounds=(0.0, 1.0)).

    ``detect_diff``: the mean squared reconstruction error of each input,
    mean((x - ae(x))^2); ``fit(inputs)`` sets the threshold so that a share
    false_positive_rate of the benign inputs lies above it (the
    int(N * false_positive_rate)-th largest error; the largest when that is 0) and returns
    it; ``detect``: 1 where the error exceeds the threshold; ``transform``: the
    reconstruction clipped to bounds (MagNet's reformer)."""

    def __init__(self, auto_encoder, false_positive_rate=0.01, bounds=(0.0, 1.0)):
        who = "ErrorBasedDetector"
        self._auto_encoder = check_model(who, "auto_encoder", auto_encoder)
        self._fpr = check_rate(who, "false_positive_rate", false_positive_rate)
        self._bounds = check_bounds(who, bounds)
        self._threshold = 0.0

    def fit(self, inputs, labels=None):
        """The threshold for the benign inputs (also kept)."""
        marks = np.sort(self.detect_diff(inputs))
        num = int(len(marks) * self._fpr)
        self._threshold = float(marks[-max(num, 1)])
        return self._threshold

    def detect(self, inputs):
        """1 for each input whose reconstruction error exceeds the threshold."""
        return (self.detect_diff(inputs) > self._threshold).astype(np.int32)

    def detect_diff(self, inputs):
        """Mean squared reconstruction error per input."""
        inputs = check_inputs(type(self).__name__, inputs)
        diff = inputs - run_model(self._auto_encoder, inputs)
        return np.mean(diff.reshape(len(inputs), -1) ** 2, axis=1)

    def transform(self, inputs):
        """The autoencoder's reconstruction, clipped to bounds."""
        inputs = check_inputs(type(self).__name__, inputs)
        out = run_model(self._auto_encoder, inputs)
        return out if self._bounds is None else np.clip(out, *self._bounds)

    def set_threshold(self, threshold):
        """Sets the detection threshold."""
        self._threshold = float(check_positive(type(self).__name__, "threshold", threshold,
                                               allow_zero=True))


class DivergenceBasedDetector(ErrorBasedDetector):
    """DivergenceBasedDetector(auto_encoder, model, option='jsd', t=1, bounds=(0.0, 1.0)):
    MagNet's probability-divergence detector: the score is the Jensen-Shannon divergence of
    softmax(model(x) / t) and softmax(model(ae(x)) / t); fit, detect and transform as
    ErrorBasedDetector's."""

    def __init__(self, auto_encoder, model, option="jsd", t=1, bounds=(0.0, 1.0)):
        super().__init__(auto_encoder, bounds=bounds)
        who = "DivergenceBasedDetector"
        self._model = check_model(who, "model", model)
        if option != "jsd":
            raise ValueError(f"For '{who}', 'option' must be 'jsd', but got {option!r}.")
        self._t = positive_int(t, "t", who)

    def detect_diff(self, inputs):
        """Jensen-Shannon divergence of the model's outputs on inputs and reconstructions."""
        inputs = check_inputs(type(self).__name__, inputs)
        recon = run_model(self._auto_encoder, inputs)
        p = softmax(run_model(self._model, inputs).astype(np.float64) / self._t)
        q = softmax(run_model(self._model, recon.astype(inputs.dtype)).astype(np.float64)
                    / self._t)
        return jensen_shannon(p, q)
