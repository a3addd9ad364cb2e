"""Segmentation and attribution metrics of MindSpore's ``mindspore.train``: HausdorffDistance,
MeanSurfaceDistance, RootMeanSquareDistance (distances between the surfaces of two label
masks) and OcclusionSensitivity (how much a model's score for a label drops when a patch of
the input is blanked out). Numpy, outside the compiled graphs.

A mask's surface is its voxels with a face neighbour (along one axis) outside the mask or
outside the array: the mask minus its erosion by the cross-shaped structuring element. The
distance from a voxel to a surface is the smallest distance to any of its voxels, computed
exactly in chunks of point pairs (euclidean, chessboard: the largest coordinate difference,
taxicab: their sum)."""
import numpy as np

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.train.metrics import Metric, rearrange_inputs
from mycel.train.metrics_classify import _check_choice, _check_type, _n_inputs

_METRICS = ("euclidean", "chessboard", "taxicab")


def _surface(mask):
    """The mask's voxels having a face neighbour outside it (the array's outside counts)."""
    inner = mask.copy()
    padded = np.pad(mask, 1, constant_values=False)
    for axis in range(mask.ndim):
        for step in (-1, 1):
            inner &= np.roll(padded, step, axis=axis)[tuple(slice(1, -1)
                                                            for _ in range(mask.ndim))]
    return mask & ~inner


def _distances(src, dst, metric):
    """For each voxel of the mask src, its distance to the nearest voxel of the mask dst
    (inf when dst is empty); an empty array when src is."""
    a = np.argwhere(src).astype(np.float64)
    b = np.argwhere(dst).astype(np.float64)
    if a.shape[0] == 0:
        return np.zeros(0)
    if b.shape[0] == 0:
        return np.full(a.shape[0], np.inf)
    out = np.empty(a.shape[0])
    step = max(1, 4_000_000 // max(1, b.shape[0] * a.shape[1]))
    for i in range(0, a.shape[0], step):
        d = np.abs(a[i:i + step, None, :] - b[None, :, :])
        if metric == "euclidean":
            m = np.sqrt((d * d).sum(-1))
        elif metric == "chessboard":
            m = d.max(-1)
        else:
            m = d.sum(-1)
        out[i:i + step] = m.min(axis=1)
    return out


def _bounding_crop(a, b):
    """a and b cut to the bounding box of a | b (both kept whole when it is empty)."""
    both = a | b
    if not both.any():
        return a, b
    box = tuple(slice(idx.min(), idx.max() + 1) for idx in np.nonzero(both))
    return a[box], b[box]


class _SurfaceMetric(Metric):
    """update(y_pred, y, label_idx): the masks y_pred == label_idx and y == label_idx (boolean
    inputs are the masks themselves), of one shape; keeps their surfaces for eval()."""

    _crop = False

    def clear(self):
        self._pred_edges = None
        self._edges = None

    @rearrange_inputs
    def update(self, *inputs):
        name = type(self).__name__
        _n_inputs(name, inputs, 3, "predictions, labels, label index")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label = inputs[2]
        if isinstance(label, bool) or not isinstance(label, (int, float)):
            raise TypeError(f"For '{name}.update', the label index must be an int or float, "
                            f"but got {type(label).__name__}.")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{name}.update', predictions and labels must have one "
                             f"non-empty shape, but got {list(y_pred.shape)} and "
                             f"{list(y.shape)}.")
        if label not in y_pred and label not in y:
            raise ValueError(f"For '{name}.update', the label index {label} is in neither the "
                             f"predictions nor the labels.")
        a = y_pred if y_pred.dtype == bool else y_pred == label
        b = y if y.dtype == bool else y == label
        if self._crop:
            a, b = _bounding_crop(a, b)
        self._pred_edges, self._edges = _surface(a), _surface(b)

    def _both(self):
        if self._pred_edges is None:
            raise RuntimeError(f"For '{type(self).__name__}.eval', call update() first.")
        return self._pred_edges, self._edges


class HausdorffDistance(_SurfaceMetric):
    """HausdorffDistance(distance_metric='euclidean', percentile=None, directed=False,
    crop=True): the largest distance (or the given percentile of the distances) from the
    predicted surface to the true one, and, unless directed, the larger of that and the
    reverse. crop cuts both masks to the bounding box of their union first. inf when a surface
    is empty."""

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        owner = "HausdorffDistance"
        self.distance_metric = _check_choice(owner, "distance_metric", distance_metric, _METRICS)
        self.percentile = _check_type(owner, "percentile", percentile, [int, float],
                                      allow_none=True)
        if percentile is not None and not 0 <= percentile <= 100:
            raise ValueError(f"For '{owner}', the 'percentile' must be in [0, 100], but got "
                             f"{percentile}.")
        self.directed = _check_type(owner, "directed", directed, [bool])
        self.crop = _check_type(owner, "crop", crop, [bool])
        self._crop = crop
        super().__init__()

    def _one_way(self, src, dst):
        d = _distances(src, dst, self.distance_metric)
        if d.size == 0:
            return np.inf
        return float(d.max() if self.percentile is None else np.percentile(d, self.percentile))

    def eval(self):
        a, b = self._both()
        hd = self._one_way(a, b)
        return hd if self.directed else max(hd, self._one_way(b, a))


class MeanSurfaceDistance(_SurfaceMetric):
    """MeanSurfaceDistance(symmetric=False, distance_metric='euclidean'): the mean distance
    from the predicted surface's voxels to the true surface; symmetric: the mean of that and
    the reverse mean. inf when a surface is empty."""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        owner = type(self).__name__
        self.distance_metric = _check_choice(owner, "distance_metric", distance_metric, _METRICS)
        self.symmetric = _check_type(owner, "symmetric", symmetric, [bool])
        super().__init__()

    def _one_way(self, src, dst):
        d = _distances(src, dst, self.distance_metric)
        return np.inf if d.size == 0 else float(d.mean())

    def eval(self):
        a, b = self._both()
        m = self._one_way(a, b)
        return m if not self.symmetric else (m + self._one_way(b, a)) / 2.0


class RootMeanSquareDistance(MeanSurfaceDistance):
    """RootMeanSquareDistance(symmetric=False, distance_metric='euclidean'): as MindSpore
    computes it, the mean of the squared distances from the predicted surface to the true one
    (no root is taken in the one-way case); symmetric: the root of the mean of the two one-way
    means. inf when a surface is empty."""

    def _one_way(self, src, dst):
        d = _distances(src, dst, self.distance_metric)
        return np.inf if d.size == 0 else float((d * d).mean())

    def eval(self):
        a, b = self._both()
        m = self._one_way(a, b)
        return m if not self.symmetric else float(np.sqrt((m + self._one_way(b, a)) / 2.0))


class OcclusionSensitivity(Metric):
    """OcclusionSensitivity(pad_val=0.0, margin=2, n_batch=128, b_box=None).
    update(model, image [1, ...], label): for each position p of the image (or of the bounding
    box b_box = [min0, max0, min1, max1, ...] over the dimensions after the batch), the block
    from p - margin (inclusive) to p + margin (exclusive) along every dimension is set to
    pad_val and the model run on it (n_batch images per call); eval() gives the model's score
    for the label on the whole image minus the score on each occluded one, in the image's (or
    box's) shape."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        owner = "OcclusionSensitivity"
        self.pad_val = _check_type(owner, "pad_val", pad_val, [float])
        self.margin = _check_type(owner, "margin", margin, [int, list])
        self.n_batch = _check_type(owner, "n_batch", n_batch, [int])
        self.b_box = _check_type(owner, "b_box", b_box, [list], allow_none=True)
        if self.n_batch < 1:
            raise ValueError(f"For '{owner}', the 'n_batch' must be positive, but got {n_batch}.")
        super().__init__()

    def clear(self):
        self._baseline = None
        self._scores = None

    def _box(self, shape):
        if self.b_box is None:
            return np.zeros(len(shape), np.int64), np.array(shape) - 1
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"For 'OcclusionSensitivity', the 'b_box' needs a min and max for "
                             f"each of the {len(shape)} dimensions after the batch, but has "
                             f"{len(self.b_box)} values.")
        lo, hi = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        lo[lo < 0] = 0
        hi = np.where(hi < 0, np.array(shape) - 1, hi)
        if np.any(hi >= np.array(shape)) or np.any(lo > hi):
            raise ValueError(f"For 'OcclusionSensitivity', the 'b_box' {self.b_box} does not fit "
                             f"the image shape {list(shape)}.")
        return lo, hi

    @rearrange_inputs
    def update(self, *inputs):
        _n_inputs("OcclusionSensitivity", inputs, 3, "model, image, label")
        model, image = inputs[0], self._convert_data(inputs[1])
        if not isinstance(model, Cell):
            raise TypeError(f"For 'OcclusionSensitivity.update', the model must be a Cell, but "
                            f"got {type(model).__name__}.")
        label = inputs[2]
        label = int(label) if isinstance(label, int) else self._convert_data(label)
        if image.ndim < 1 or image.shape[0] != 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the image must be a batch of "
                               f"one [1, ...], but got shape {list(image.shape)}.")
        if np.size(label) != 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', there must be one label, "
                               f"but got {np.size(label)}.")
        label = int(np.reshape(label, ()))
        shape = image.shape[1:]
        lo, hi = self._box(shape)
        out_shape = tuple(hi - lo + 1)
        margins = self.margin if isinstance(self.margin, list) else [self.margin] * len(shape)
        self._baseline = float(model(_C.Tensor(image)).asnumpy()[0, label])
        scores, batch = [], []
        total = int(np.prod(out_shape))
        for i in range(total):
            pos = np.array(np.unravel_index(i, out_shape)) + lo
            img = image.copy()
            img[(slice(None),) + tuple(slice(max(0, p - m), min(n, p + m))
                                       for p, m, n in zip(pos, margins, shape))] = self.pad_val
            batch.append(img)
            if len(batch) == self.n_batch or i == total - 1:
                out = model(_C.Tensor(np.concatenate(batch))).asnumpy()
                scores.append(out[:, label])
                batch = []
        self._scores = np.concatenate(scores).reshape(out_shape)

    def eval(self):
        if self._scores is None:
            raise RuntimeError("For 'OcclusionSensitivity.eval', call update() first.")
        return self._baseline - np.squeeze(self._scores)
