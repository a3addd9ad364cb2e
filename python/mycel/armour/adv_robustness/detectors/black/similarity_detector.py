"""Detection of query-based black-box attacks (Chen, Carlini and Wagner 2019, "Stateful
detection of black-box adversarial attacks"), MindArmour's ``SimilarityDetector``: an attack
queries many near-identical inputs, so the mean distance from a query to its k nearest
recent queries (in an encoder's feature space) is unusually small."""
import numpy as np

from mycel.armour.adv_robustness._util import check_inputs, check_positive, check_rate
from mycel.armour.adv_robustness.detectors.detector import Detector, check_model, run_model
from mycel.nn.layer._check import bool_, positive_int


def _pairwise_distances(a, b):
    """Euclidean distances [len(a), len(b)] of the rows of a and b."""
    sq = (a ** 2).sum(1)[:, None] + (b ** 2).sum(1)[None, :] - 2.0 * a @ b.T
    return np.sqrt(np.maximum(sq, 0.0))


class SimilarityDetector(Detector):
    """SimilarityDetector(trans_model, max_k_neighbor=1000, chunk_size=1000,
    max_buffer_size=10000, tuning=False, fpr=0.001).

    ``fit(inputs)`` encodes benign data with trans_model and, for k = max_k_neighbor (every
    k from 1 with tuning), takes the mean distance of each sample to its k nearest other
    samples; the threshold is the fpr-quantile of those means (so a share fpr of benign
    samples would be flagged). It returns (the list of k, the list of thresholds) and keeps
    the last. ``detect(queries)`` processes a query stream in order: a query is compared
    with the buffer of recent queries once it holds k; when the mean distance to its k
    nearest is below the threshold an attack is detected (the query's 1-based number is
    recorded and the buffer cleared); the buffer is cleared when it reaches
    max_buffer_size. It returns 1 for the queries that raised a detection.
    ``detect_diff(queries)``: each query's k-nearest mean distance to the current buffer
    (inf while the buffer holds fewer than k), without changing the state. ``transform`` is
    not defined for a stream detector (NotImplementedError, as MindArmour's)."""

    def __init__(self, trans_model, max_k_neighbor=1000, chunk_size=1000,
                 max_buffer_size=10000, tuning=False, fpr=0.001):
        who = "SimilarityDetector"
        self._trans_model = check_model(who, "trans_model", trans_model)
        self._max_k = positive_int(max_k_neighbor, "max_k_neighbor", who)
        self._chunk_size = positive_int(chunk_size, "chunk_size", who)
        self._max_buffer_size = positive_int(max_buffer_size, "max_buffer_size", who)
        self._tuning = bool_(tuning, "tuning", who)
        self._fpr = check_rate(who, "fpr", fpr)
        self._k = None
        self._threshold = None
        self._num_queries = 0
        self._buffer = []
        self._detected = []

    def _encode(self, inputs):
        inputs = check_inputs(type(self).__name__, inputs)
        out = run_model(self._trans_model, inputs)
        return out.reshape(len(inputs), -1).astype(np.float64)

    def fit(self, inputs, labels=None):
        """([k...], [threshold...]) from benign inputs; the last pair is kept."""
        data = self._encode(inputs)
        n = len(data)
        if n <= self._max_k:
            raise ValueError(f"For 'SimilarityDetector', 'fit' needs more than max_k_neighbor="
                             f"{self._max_k} inputs, but got {n}.")
        nearest = []
        for i in range(0, n, self._chunk_size):
            d = _pairwise_distances(data[i:i + self._chunk_size], data)
            d[np.arange(d.shape[0]), np.arange(i, i + d.shape[0])] = np.inf   # not itself
            nearest.append(np.sort(d, axis=1)[:, :self._max_k])
        nearest = np.concatenate(nearest)
        ks = list(range(1 if self._tuning else self._max_k, self._max_k + 1))
        thresholds = [float(np.sort(nearest[:, :k].mean(axis=1))[int(n * self._fpr)])
                      for k in ks]
        self._k, self._threshold = ks[-1], thresholds[-1]
        return ks, thresholds

    def set_threshold(self, num_of_neighbors, threshold):
        """Sets k and the threshold."""
        who = type(self).__name__
        self._k = positive_int(num_of_neighbors, "num_of_neighbors", who)
        self._threshold = float(check_positive(who, "threshold", threshold))

    def _check_ready(self):
        if self._threshold is None or self._k is None:
            raise ValueError("For 'SimilarityDetector', call fit() or set_threshold() before "
                             "detecting.")

    def _k_mean(self, query):
        dists = np.sqrt(((np.stack(self._buffer) - query) ** 2).sum(axis=1))
        return float(np.partition(dists, self._k - 1)[:self._k].mean())

    def detect(self, inputs):
        """Processes the queries in order; 1 for each query that raised a detection."""
        self._check_ready()
        flags = np.zeros(len(inputs), np.int32)
        for i, query in enumerate(self._encode(inputs)):
            self._num_queries += 1
            if len(self._buffer) < self._k:
                self._buffer.append(query)
                continue
            close = self._k_mean(query) < self._threshold
            self._buffer.append(query)
            if len(self._buffer) >= self._max_buffer_size:
                self.clear_buffer()
            if close:
                self._detected.append(self._num_queries)
                flags[i] = 1
                self.clear_buffer()
        return flags

    def detect_diff(self, inputs):
        """Each query's mean distance to its k nearest buffered queries (state unchanged)."""
        self._check_ready()
        queries = self._encode(inputs)
        if len(self._buffer) < self._k:
            return np.full(len(queries), np.inf)
        return np.array([self._k_mean(q) for q in queries])

    def transform(self, inputs):
        """Not defined for a stream detector."""
        raise NotImplementedError("SimilarityDetector.transform is not defined: it detects "
                                  "query streams and does not change inputs.")

    def clear_buffer(self):
        """Forgets the buffered queries."""
        self._buffer = []

    def get_detected_queries(self):
        """1-based numbers of the queries that raised a detection."""
        return list(self._detected)

    def get_detection_interval(self):
        """Numbers of queries between consecutive detections."""
        return list(np.diff(self._detected).tolist())
