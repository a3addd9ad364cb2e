"""MindSpore's data-dependent image primitives, run on the host: NonMaxSuppressionWithOverlaps
and CombinedNonMaxSuppression (greedy suppression, TensorFlow's rules) and ExtractGlimpse
(windows at run-time offsets, noise outside the image).

Their work is a sequential greedy selection over sorted scores, which mycel's tensor ops
cannot express without a loop per box; like MindSpore's CPU kernels, they run on the host.
Each is a PrimitiveWithInfer with a numpy ``__call__`` and an inference (ops/custom_prim.py):
an ordinary call in PYNATIVE mode, a host callback typed by the inference in GRAPH mode. The
output sizes that depend on a size argument (max_total_size, ExtractGlimpse's size) are
static when it is a constant and dynamic (-1) when it is a graph input, as is
NonMaxSuppressionWithOverlaps's selection length. No gradients (MindSpore defines none).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.custom_prim import PrimitiveWithInfer, prim_attr_register

__all__ = ["NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression", "ExtractGlimpse"]


def _host(x):
    return x.asnumpy() if isinstance(x, _C.Tensor) else np.asarray(x)


def _scalar(op, name, v, kind):
    a = _host(v)
    if a.size != 1:
        raise ValueError(f"For '{op}', '{name}' must be a scalar, but got shape {a.shape}.")
    return kind(a.reshape(-1)[0])


def _greedy(scores, overlaps, max_out, overlap_threshold, score_threshold):
    """The indices TensorFlow's greedy NMS selects: candidates above score_threshold in order
    of decreasing score (ties by index), each kept unless its overlap with a kept one exceeds
    overlap_threshold, at most max_out. overlaps(i, j) gives the overlap of two candidates."""
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > score_threshold]
    kept = []
    for i in order:
        if len(kept) >= max_out:
            break
        if all(overlaps(k, i) <= overlap_threshold for k in kept):
            kept.append(int(i))
    return kept


class NonMaxSuppressionWithOverlaps(PrimitiveWithInfer):
    """NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold,
    score_threshold) -> selected_indices int32: greedy suppression over an [N, N] overlap
    matrix (overlaps[i, j] of boxes i and j) and [N] scores: boxes above score_threshold by
    decreasing score, each kept unless it overlaps a kept box by more than overlap_threshold,
    at most max_output_size."""

    @prim_attr_register
    def __init__(self):
        self.init_prim_io_names(inputs=["overlaps", "scores", "max_output_size",
                                        "overlap_threshold", "score_threshold"],
                                outputs=["selected_indices"])

    def __infer__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        op = "NonMaxSuppressionWithOverlaps"
        n = scores["shape"]
        if len(overlaps["shape"]) != 2 or len(n) != 1 or \
                list(overlaps["shape"]) != [n[0], n[0]]:
            raise ValueError(f"For '{op}', overlaps must be [N, N] and scores [N], but got "
                             f"{tuple(overlaps['shape'])} and {tuple(n)}.")
        for name, d in (("overlaps", overlaps), ("scores", scores)):
            if d["dtype"] not in (_C.float16, _C.float32, _C.float64):
                raise TypeError(f"For '{op}', '{name}' must be a float tensor, but got "
                                f"{d['dtype']}.")
        return {"shape": [-1], "dtype": _C.int32, "value": None}

    def __call__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        op = "NonMaxSuppressionWithOverlaps"
        ov, sc = _host(overlaps).astype(np.float64), _host(scores).astype(np.float64)
        if ov.ndim != 2 or sc.ndim != 1 or ov.shape != (sc.shape[0],) * 2:
            raise ValueError(f"For '{op}', overlaps must be [N, N] and scores [N], but got "
                             f"{ov.shape} and {sc.shape}.")
        max_out = _scalar(op, "max_output_size", max_output_size, int)
        if max_out < 0:
            raise ValueError(f"For '{op}', max_output_size must be >= 0, but got {max_out}.")
        kept = _greedy(sc, lambda i, j: ov[i, j], max_out,
                       _scalar(op, "overlap_threshold", overlap_threshold, float),
                       _scalar(op, "score_threshold", score_threshold, float))
        return _C.Tensor(np.array(kept, np.int32))


def _iou(a, b):
    """IoU of two boxes (y1, x1, y2, x2), corners in either order (TensorFlow's rule)."""
    ay1, ay2 = min(a[0], a[2]), max(a[0], a[2])
    ax1, ax2 = min(a[1], a[3]), max(a[1], a[3])
    by1, by2 = min(b[0], b[2]), max(b[0], b[2])
    bx1, bx2 = min(b[1], b[3]), max(b[1], b[3])
    area_a, area_b = (ay2 - ay1) * (ax2 - ax1), (by2 - by1) * (bx2 - bx1)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    ih = max(min(ay2, by2) - max(ay1, by1), 0.0)
    iw = max(min(ax2, bx2) - max(ax1, bx1), 0.0)
    inter = ih * iw
    return inter / (area_a + area_b - inter)


def _value(d):
    """The int a size argument holds, or None when known only at run time (the output's size
    along it is then -1, a dynamic dimension)."""
    v = d["value"]
    if v is None:
        return None
    return int(np.asarray(v.asnumpy() if isinstance(v, _C.Tensor) else v).reshape(-1)[0])


class CombinedNonMaxSuppression(PrimitiveWithInfer):
    """CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores,
    max_output_size_per_class, max_total_size, iou_threshold, score_threshold) ->
    (nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections): per batch and class, greedy
    NMS of the boxes ([B, N, q, 4], q = 1 shared by all classes or one per class) above
    score_threshold with IoU over iou_threshold suppressed, at most max_output_size_per_class;
    then the best max_total_size over all classes (T = min(max_total_size,
    max_output_size_per_class * classes) with pad_per_class). Outputs [B, T, 4], [B, T],
    [B, T] (float32 class ids), [B] int32 valid counts, zero padded; clip_boxes clips the
    boxes to [0, 1]."""

    @prim_attr_register
    def __init__(self, pad_per_class=False, clip_boxes=True):
        for name, v in (("pad_per_class", pad_per_class), ("clip_boxes", clip_boxes)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'CombinedNonMaxSuppression', '{name}' must be a bool, but "
                                f"got {type(v).__name__}.")

    def _total(self, per_class, total, classes):
        return min(total, per_class * classes) if self.pad_per_class else total

    def __infer__(self, boxes, scores, max_output_size_per_class, max_total_size,
                  iou_threshold, score_threshold):
        op = "CombinedNonMaxSuppression"
        b, s = list(boxes["shape"]), list(scores["shape"])
        if len(b) != 4 or b[3] != 4 or len(s) != 3 or b[:2] != s[:2] or b[2] not in (1, s[2]):
            raise ValueError(f"For '{op}', boxes must be [B, N, q, 4] (q 1 or the classes) and "
                             f"scores [B, N, classes], but got {tuple(b)} and {tuple(s)}.")
        per_class, total = _value(max_output_size_per_class), _value(max_total_size)
        if total is None or (self.pad_per_class and per_class is None):
            t = -1
        else:
            t = self._total(per_class, total, s[2])
        return {"shape": ([s[0], t, 4], [s[0], t], [s[0], t], [s[0]]),
                "dtype": (_C.float32, _C.float32, _C.float32, _C.int32), "value": None}

    def __call__(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                 score_threshold):
        op = "CombinedNonMaxSuppression"
        bx, sc = _host(boxes).astype(np.float64), _host(scores).astype(np.float64)
        per_class = _scalar(op, "max_output_size_per_class", max_output_size_per_class, int)
        total = _scalar(op, "max_total_size", max_total_size, int)
        iou_t = _scalar(op, "iou_threshold", iou_threshold, float)
        score_t = _scalar(op, "score_threshold", score_threshold, float)
        if bx.ndim != 4 or sc.ndim != 3 or bx.shape[:2] != sc.shape[:2]:
            raise ValueError(f"For '{op}', boxes must be [B, N, q, 4] and scores [B, N, "
                             f"classes], but got {bx.shape} and {sc.shape}.")
        if per_class <= 0 or total <= 0 or not 0 <= iou_t <= 1:
            raise ValueError(f"For '{op}', the size limits must be positive and iou_threshold "
                             f"in [0, 1], but got {per_class}, {total} and {iou_t}.")
        batch, _, q, _ = bx.shape
        classes = sc.shape[2]
        t = self._total(per_class, total, classes)
        out_b = np.zeros((batch, t, 4), np.float32)
        out_s = np.zeros((batch, t), np.float32)
        out_c = np.zeros((batch, t), np.float32)
        valid = np.zeros(batch, np.int32)
        for n in range(batch):
            found = []  # (score, class, box)
            for c in range(classes):
                cb = bx[n, :, 0 if q == 1 else c]
                kept = _greedy(sc[n, :, c], lambda i, j: _iou(cb[i], cb[j]), per_class, iou_t,
                               score_t)
                found += [(sc[n, i, c], c, cb[i]) for i in kept]
            # best first; ties keep the per-class order (a stable sort)
            found = sorted(found, key=lambda e: -e[0])[:t]
            for k, (s_, c, box) in enumerate(found):
                out_b[n, k] = np.clip(box, 0.0, 1.0) if self.clip_boxes else box
                out_s[n, k], out_c[n, k] = s_, c
            valid[n] = len(found)
        return (_C.Tensor(out_b), _C.Tensor(out_s), _C.Tensor(out_c), _C.Tensor(valid))


class ExtractGlimpse(PrimitiveWithInfer):
    """ExtractGlimpse(centered=True, normalized=True, uniform_noise=True, noise='uniform')(x,
    size, offsets): windows of size (glimpse_h, glimpse_w) cut from x (batch, H, W, C) float32,
    centred at offsets (batch, 2) of (y, x): normalized offsets scale by the image's height and
    width, centered ones are relative to the image centre (normalized and centered: -1 .. 1
    across the image); the window's top-left pixel is int(centre - size / 2) (truncated, as
    TensorFlow's kernel). Pixels outside the image are noise: 'uniform' in [min, max] of that
    batch's image, 'gaussian' with its mean and standard deviation, 'zero' 0 (noise 'zero'
    needs uniform_noise False; uniform_noise True needs noise 'uniform'). The draws use numpy's
    generator. (In GRAPH mode a size known only at run time gives dynamic dims.)"""

    @prim_attr_register
    def __init__(self, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
        op = "ExtractGlimpse"
        for name, v in (("centered", centered), ("normalized", normalized),
                        ("uniform_noise", uniform_noise)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{op}', '{name}' must be a bool, but got "
                                f"{type(v).__name__}.")
        if noise not in ("uniform", "gaussian", "zero"):
            raise ValueError(f"For '{op}', 'noise' must be 'uniform', 'gaussian' or 'zero', but "
                             f"got {noise!r}.")
        if uniform_noise and noise != "uniform":
            raise ValueError(f"For '{op}', uniform_noise True needs noise 'uniform', but got "
                             f"{noise!r}.")
        self._rng = np.random.default_rng()

    def __infer__(self, x, size, offsets):
        op = "ExtractGlimpse"
        xs, os_ = list(x["shape"]), list(offsets["shape"])
        if len(xs) != 4 or x["dtype"] != _C.float32:
            raise TypeError(f"For '{op}', x must be a 4-D float32 tensor, but got shape "
                            f"{tuple(xs)} and dtype {x['dtype']}.")
        if len(os_) != 2 or os_[1] != 2 or os_[0] != xs[0]:
            raise ValueError(f"For '{op}', offsets must be [{xs[0]}, 2], but got {tuple(os_)}.")
        h, w = (-1, -1) if size["value"] is None else _size2(_value_of(size), op)
        return {"shape": [xs[0], h, w, xs[3]], "dtype": _C.float32, "value": None}

    def __call__(self, x, size, offsets):
        op = "ExtractGlimpse"
        img = _host(x)
        off = _host(offsets).astype(np.float64)
        if img.ndim != 4 or off.shape != (img.shape[0], 2):
            raise ValueError(f"For '{op}', x must be 4-D and offsets [batch, 2], but got "
                             f"{img.shape} and {off.shape}.")
        gh, gw = _size2(_host(size), op)
        batch, hgt, wid, ch = img.shape
        out = np.empty((batch, gh, gw, ch), np.float32)
        for i in range(batch):
            y, xx = off[i]
            if self.normalized:
                y, xx = y * hgt, xx * wid
            if self.centered:
                y, xx = y / 2 + hgt / 2, xx / 2 + wid / 2
            top, left = int(y - gh / 2), int(xx - gw / 2)
            if self.noise == "uniform":
                lo, hi = img[i].min(), img[i].max()
                out[i] = lo + (hi - lo) * self._rng.uniform(size=(gh, gw, ch))
            elif self.noise == "gaussian":
                out[i] = img[i].mean() + img[i].std() * self._rng.standard_normal((gh, gw, ch))
            else:
                out[i] = 0.0
            r0, r1 = max(top, 0), min(top + gh, hgt)
            c0, c1 = max(left, 0), min(left + gw, wid)
            if r0 < r1 and c0 < c1:
                out[i, r0 - top:r1 - top, c0 - left:c1 - left] = img[i, r0:r1, c0:c1]
        return _C.Tensor(out)


def _value_of(d):
    v = d["value"]
    return np.asarray(v.asnumpy() if isinstance(v, _C.Tensor) else v)


def _size2(v, op):
    v = np.asarray(v).reshape(-1)
    if v.shape != (2,) or (v <= 0).any():
        raise ValueError(f"For '{op}', size must hold 2 positive ints, but got {v.tolist()}.")
    return int(v[0]), int(v[1])
