"""Region-based classification (Cao and Gong 2017), MindArmour's ``RegionBasedDetector``:
an input's label is the majority label of random points in a hypercube around it;
adversarial examples lie close to a boundary, so their region label often differs from
their point label."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_inputs, check_inputs_labels, check_positive,
                                               label_indices)
from mycel.armour.adv_robustness.detectors.detector import Detector, check_model, run_model
from mycel.nn.layer._check import bool_, positive_int


class RegionBasedDetector(Detector):
    """RegionBasedDetector(model, number_points=10, initial_radius=0.0, max_radius=1.0,
    search_step=0.01, degrade_limit=0.0, sparse=False).

    ``fit(inputs, labels)`` grows the radius from initial_radius by search_step up to
    max_radius while the region-based accuracy on the benign inputs stays at least the
    model's accuracy minus degrade_limit, and keeps (and returns) the last such radius.
    ``transform``: the region labels (majority over number_points points drawn uniformly in
    [x - r, x + r] and clipped to [0, 1]); ``detect_diff``: the share of those points whose
    label differs from the input's own prediction; ``detect``: 1 where the region label
    differs from the prediction. Random draws come from numpy's global generator."""

    def __init__(self, model, number_points=10, initial_radius=0.0, max_radius=1.0,
                 search_step=0.01, degrade_limit=0.0, sparse=False):
        who = "RegionBasedDetector"
        self._model = check_model(who, "model", model)
        self._number_points = positive_int(number_points, "number_points", who)
        self._radius = check_positive(who, "initial_radius", initial_radius, allow_zero=True)
        self._initial_radius = self._radius
        self._max_radius = check_positive(who, "max_radius", max_radius)
        self._search_step = check_positive(who, "search_step", search_step)
        self._degrade_limit = check_positive(who, "degrade_limit", degrade_limit,
                                             allow_zero=True)
        self._sparse = bool_(sparse, "sparse", who)

    def set_radius(self, radius):
        """Sets the hypercube's half-width."""
        self._radius = check_positive(type(self).__name__, "radius", radius, allow_zero=True)

    def _votes(self, inputs, radius):
        """[N, C] counts of the labels of number_points random points around each input."""
        n = len(inputs)
        noise = np.random.uniform(-radius, radius,
                                  (self._number_points,) + inputs.shape).astype(inputs.dtype)
        points = np.clip(inputs[None] + noise, 0.0, 1.0).reshape((-1,) + inputs.shape[1:])
        scores = run_model(self._model, points)
        labels = scores.argmax(axis=1).reshape(self._number_points, n)
        votes = np.zeros((n, scores.shape[1]), np.int64)
        for row in labels:
            votes[np.arange(n), row] += 1
        return votes

    def fit(self, inputs, labels=None):
        """The largest radius (in search_step steps) that keeps the region-based accuracy
        within degrade_limit of the model's."""
        who = type(self).__name__
        if labels is None:
            raise ValueError(f"For '{who}', 'fit' needs the labels of the inputs.")
        inputs, labels = check_inputs_labels(who, inputs, labels)
        y = label_indices(who, labels, self._sparse)
        base = (run_model(self._model, inputs).argmax(axis=1) == y).mean()
        radius, best = self._initial_radius, self._initial_radius
        while radius <= self._max_radius + 1e-12:
            acc = (self._votes(inputs, radius).argmax(axis=1) == y).mean()
            if acc < base - self._degrade_limit:
                break
            best = radius
            radius += self._search_step
        self._radius = best
        return best

    def transform(self, inputs):
        """Region-based labels [N]."""
        inputs = check_inputs(type(self).__name__, inputs)
        return self._votes(inputs, self._radius).argmax(axis=1)

    def detect_diff(self, inputs):
        """Share of the region's points labelled differently from the input."""
        inputs = check_inputs(type(self).__name__, inputs)
        pred = run_model(self._model, inputs).argmax(axis=1)
        votes = self._votes(inputs, self._radius)
        return 1.0 - votes[np.arange(len(inputs)), pred] / self._number_points

    def detect(self, inputs):
        """1 where the region label differs from the input's prediction."""
        inputs = check_inputs(type(self).__name__, inputs)
        pred = run_model(self._model, inputs).argmax(axis=1)
        return (self._votes(inputs, self._radius).argmax(axis=1) != pred).astype(np.int32)
