"""The base of the detectors (MindArmour's ``Detector``) and how they call a model: a mycel
Cell, or anything with ``predict`` (``mycel.train.Model``), on numpy batches."""
import numpy as np

from mycel.armour.adv_robustness._util import tensor
from mycel.nn.cell import Cell


class Detector:
    """An adversarial-example detector: ``fit`` on benign data sets its threshold,
    ``detect`` returns 1 for each input judged adversarial and 0 otherwise, ``detect_diff``
    the score the decision thresholds (higher: more suspicious), ``transform`` the input as
    the detector would pass it on."""

    def fit(self, inputs, labels=None):
        """Sets the detector's parameters from benign inputs."""
        raise NotImplementedError(f"{type(self).__name__}.fit is not implemented.")

    def detect(self, inputs):
        """1 for each input judged adversarial, 0 otherwise."""
        raise NotImplementedError(f"{type(self).__name__}.detect is not implemented.")

    def detect_diff(self, inputs):
        """The score of each input that detect thresholds."""
        raise NotImplementedError(f"{type(self).__name__}.detect_diff is not implemented.")

    def transform(self, inputs):
        """The inputs as the detector passes them on."""
        raise NotImplementedError(f"{type(self).__name__}.transform is not implemented.")


def check_model(who, name, model):
    """model if it is a Cell or has predict, else a TypeError."""
    if isinstance(model, Cell) or callable(getattr(model, "predict", None)):
        return model
    raise TypeError(f"For '{who}', '{name}' must be a Cell or a Model (with predict), but "
                    f"got {type(model).__name__}.")


def run_model(model, inputs):
    """model's output for the numpy batch, as numpy."""
    out = model.predict(tensor(inputs)) if not isinstance(model, Cell) else model(
        tensor(inputs))
    return out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)
