"""The metrics of mindspore.train beyond accuracy/loss (Precision, Recall, Fbeta, ConfusionMatrix,
ConfusionMatrixMetric, ROC/auc, Perplexity, Dice, BleuScore, CosineSimilarity, the surface
distances, OcclusionSensitivity, get_metric_fn, set_indexes): each checked against a plain
Python/numpy reference written here (loops over samples and point pairs), hand-computed values
or torch."""
import itertools
import math

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn
from mycel.train import (Accuracy, BleuScore, ConfusionMatrix, ConfusionMatrixMetric,
                         CosineSimilarity, Dice, F1, Fbeta, HausdorffDistance,
                         MeanSurfaceDistance, OcclusionSensitivity, Perplexity, Precision, ROC,
                         Recall, RootMeanSquareDistance, auc, get_metric_fn, rearrange_inputs)


def _counts(logits, labels, c):
    tp, pos, act = np.zeros(c), np.zeros(c), np.zeros(c)
    for row, lab in zip(logits, labels):
        p = int(np.argmax(row))
        pos[p] += 1
        act[lab] += 1
        tp[p] += p == lab
    return tp, pos, act


def test_precision_recall_fbeta_against_loops():
    rng = np.random.default_rng(0)
    logits, labels = rng.standard_normal((40, 5)), rng.integers(0, 5, 40)
    tp, pos, act = _counts(logits, labels, 5)
    prec = np.where(pos > 0, tp / np.maximum(pos, 1), 0)
    rec = np.where(act > 0, tp / np.maximum(act, 1), 0)
    p, r, f = Precision(), Recall(), Fbeta(2.0)
    for m in (p, r, f):  # two updates, the second with one-hot labels as a Tensor
        m.update(logits[:25], labels[:25])
        m.update(Tensor(logits[25:]), Tensor(np.eye(5)[labels[25:]]))
    np.testing.assert_allclose(p.eval(), prec)
    np.testing.assert_allclose(r.eval(), rec)
    assert p.eval(average=True) == pytest.approx(prec.mean())
    want_f = np.where(4 * prec + rec > 0, 5 * prec * rec / np.maximum(4 * prec + rec, 1e-300), 0)
    np.testing.assert_allclose(f.eval(), want_f, atol=1e-12)
    f1 = F1()
    f1.update(logits, labels)
    np.testing.assert_allclose(
        f1.eval(), np.where(prec + rec > 0, 2 * prec * rec / np.maximum(prec + rec, 1e-300), 0),
        atol=1e-12)


def test_multilabel_precision_recall_are_per_sample():
    y_pred = np.array([[0, 1, 0, 1], [1, 0, 1, 1], [0, 0, 0, 1]])
    y = np.array([[0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 0, 1]])
    want_p = [(a * b).sum() / a.sum() for a, b in zip(y_pred, y)]
    want_r = [(a * b).sum() / b.sum() for a, b in zip(y_pred, y)]
    assert np.allclose(Precision("multilabel")(Tensor(y_pred), Tensor(y)), want_p)
    assert np.allclose(Recall("multilabel")(y_pred, y), want_r)
    acc = Accuracy("multilabel")
    acc.update(y_pred, y)
    assert acc.eval() == pytest.approx(np.mean([np.all(a == b) for a, b in zip(y_pred, y)]))


def test_class_count_errors():
    with pytest.raises(TypeError, match="eval_type"):
        Precision("binary")
    with pytest.raises(ValueError, match="beta"):
        Fbeta(0)
    m = Recall()
    with pytest.raises(RuntimeError, match="update"):
        m.eval()
    with pytest.raises(ValueError, match=r"\[N\]"):
        m.update(np.zeros((3, 2)), np.array([1, 0]))
    m.update(np.zeros((3, 2)), np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="number of classes"):
        m.update(np.zeros((3, 3)), np.array([1, 0, 1]))


def test_set_indexes_and_rearrange_inputs():
    x = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])
    acc = Accuracy().set_indexes([0, 2])
    acc.update(x, np.array([1, 0, 1]), np.array([0, 0, 0]))  # uses x and the third input
    assert acc.eval() == pytest.approx(2 / 3)
    for bad in (0, [0.0, 1], ["1"], [True]):
        with pytest.raises(ValueError, match="must be a list"):
            Accuracy().set_indexes(bad)

    class Echo:
        indexes = [2, 0]

        @rearrange_inputs
        def update(self, *inputs):
            return inputs
    assert Echo().update("a", "b", "c") == ("c", "a")


def test_confusion_matrix_against_loops():
    rng = np.random.default_rng(1)
    logits, labels = rng.standard_normal((30, 4)), rng.integers(0, 4, 30)
    want = np.zeros((4, 4))
    for row, lab in zip(logits, labels):
        want[lab, np.argmax(row)] += 1
    for norm, ref in (("no_norm", want), ("target", want / want.sum(1, keepdims=True)),
                      ("prediction", want / want.sum(0, keepdims=True)), ("all", want / 30)):
        m = ConfusionMatrix(4, normalize=norm)
        m.update(Tensor(logits[:10]), labels[:10])
        m.update(logits[10:], labels[10:])
        np.testing.assert_allclose(m.eval(), ref)
    m = ConfusionMatrix(2, threshold=0.3)  # floating labels of y's shape are thresholded
    m.update(np.array([0.2, 0.4, 0.9]), np.array([0, 0, 1]))
    np.testing.assert_allclose(m.eval(), [[1, 1], [0, 1]])
    with pytest.raises(TypeError):
        ConfusionMatrix("2")
    with pytest.raises(ValueError, match="normalize"):
        ConfusionMatrix(2, normalize="rows")
    with pytest.raises(TypeError, match="threshold"):
        ConfusionMatrix(2, threshold=1)
    with pytest.raises(ValueError, match="shape"):
        ConfusionMatrix(2).update(logits[:3], labels[:2])


def test_confusion_matrix_metric_against_counts():
    rng = np.random.default_rng(2)
    p = rng.integers(0, 2, (3, 2, 4, 4))
    t = rng.integers(0, 2, (3, 2, 4, 4))
    tp = ((p == 1) & (t == 1)).sum()
    fp = ((p == 1) & (t == 0)).sum()
    tn = ((p == 0) & (t == 0)).sum()
    fn = ((p == 0) & (t == 1)).sum()
    for name, want in (("sensitivity", tp / (tp + fn)), ("specificity", tn / (tn + fp)),
                       ("precision", tp / (tp + fp)), ("f1 score", 2 * tp / (2 * tp + fp + fn)),
                       ("accuracy", (tp + tn) / p.size),
                       ("mcc", (tp * tn - fp * fn) /
                        math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))):
        m = ConfusionMatrixMetric(metric_name=name)
        m.update(Tensor(p[:1]), Tensor(t[:1]))
        m.update(p[1:], t[1:])
        np.testing.assert_allclose(m.eval(), [want])
    # per sample and channel, then the mean over them
    m = ConfusionMatrixMetric(metric_name="tpr", calculation_method=True, decrease="mean")
    m.update(p, t)
    per = [((p[b, c] == 1) & (t[b, c] == 1)).sum() / (t[b, c] == 1).sum()
           for b in range(3) for c in range(2)]
    assert m.eval() == pytest.approx(np.mean(per))
    # skip_channel=False leaves out channel 0
    m = ConfusionMatrixMetric(skip_channel=False, metric_name="tpr")
    m.update(p, t)
    c1 = ((p[:, 1] == 1) & (t[:, 1] == 1)).sum() / (t[:, 1] == 1).sum()
    np.testing.assert_allclose(m.eval(), [c1])
    with pytest.raises(NotImplementedError):
        ConfusionMatrixMetric(metric_name="nonsense")
    with pytest.raises(TypeError):
        ConfusionMatrixMetric(skip_channel=1)
    with pytest.raises(RuntimeError):
        ConfusionMatrixMetric().eval()


def _roc_reference(scores, positive):
    """One point per distinct threshold, from the highest; counts by brute force."""
    ths = sorted(set(scores.tolist()), reverse=True)
    fpr, tpr = [0.0], [0.0]
    for th in ths:
        sel = scores >= th
        tpr.append((sel & positive).sum() / positive.sum())
        fpr.append((sel & ~positive).sum() / (~positive).sum())
    return np.array(fpr), np.array(tpr), np.array([ths[0] + 1] + ths)


def test_roc_and_auc_against_brute_force_and_torch():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 6, 50).astype(np.float64)  # ties on purpose
    labels = rng.integers(0, 2, 50)
    m = ROC(pos_label=1)
    m.update(Tensor(scores[:20]), labels[:20])
    m.update(scores[20:], labels[20:])
    fpr, tpr, th = m.eval()
    rf, rt, rth = _roc_reference(scores, labels == 1)
    np.testing.assert_allclose(fpr, rf)
    np.testing.assert_allclose(tpr, rt)
    np.testing.assert_allclose(th, rth)
    want = torch.trapezoid(torch.tensor(rt), torch.tensor(rf)).item()
    assert auc(fpr, tpr) == pytest.approx(want)
    assert auc(fpr[::-1], tpr[::-1]) == pytest.approx(want)  # decreasing x
    with pytest.raises(ValueError, match="monotonic"):
        auc([0, 1, 0.5], [0, 1, 1])
    assert auc([0, 1, 0.5], [0, 1, 0.5], reorder=True) == pytest.approx(0.5)
    # multi-class: one curve per class
    logits, y = rng.random((20, 3)), rng.integers(0, 3, 20)
    mc = ROC(class_num=3)
    mc.update(logits, y)
    fprs, tprs, ths = mc.eval()
    for c in range(3):
        rf, rt, rth = _roc_reference(logits[:, c], y == c)
        np.testing.assert_allclose(fprs[c], rf)
        np.testing.assert_allclose(tprs[c], rt)
        np.testing.assert_allclose(ths[c], rth)
    with pytest.raises(TypeError):
        ROC(pos_label=1.5)
    with pytest.raises(ValueError):
        ROC().update(logits, y[:3])
    with pytest.raises(RuntimeError):
        ROC().eval()


def test_perplexity_dice():
    rng = np.random.default_rng(4)
    probs = rng.random((10, 4))
    labels = rng.integers(0, 4, 10)
    labels[3] = 2
    m = Perplexity(ignore_label=2)
    m.update(Tensor(probs), Tensor(labels))
    keep = labels != 2
    want = math.exp(-np.log(probs[np.arange(10), labels][keep]).mean())
    assert m.eval() == pytest.approx(want)
    with pytest.raises(RuntimeError):
        Perplexity().update(probs, labels[:4])
    with pytest.raises(TypeError):
        Perplexity(ignore_label="a")
    p, t = rng.random((3, 5)), rng.integers(0, 2, (3, 5)).astype(np.float64)
    d = Dice(smooth=1e-5)
    d.update(p, t)
    coeff = 2 * (p * t).sum() / ((p * p).sum() + (t * t).sum() + 1e-5)
    assert d.eval() == pytest.approx(coeff / 3)  # one coefficient per batch, per sample
    with pytest.raises(ValueError):
        d.update(p, t[:2])


def _bleu_reference(cand, refs, n_max):
    logs, c_len = [], len(cand)
    for n in range(1, n_max + 1):
        grams = [tuple(cand[i:i + n]) for i in range(len(cand) - n + 1)]
        hit = 0
        for g in set(grams):
            best = max(sum(1 for i in range(len(r) - n + 1) if tuple(r[i:i + n]) == g)
                       for r in refs)
            hit += min(grams.count(g), best)
        logs.append(math.log(hit / len(grams)))
    r_len = min((len(r) for r in refs), key=lambda L: (abs(L - c_len), L))
    bp = 1.0 if c_len > r_len else math.exp(1 - r_len / c_len)
    return bp * math.exp(sum(logs) / n_max)


def test_bleu_score():
    cand = "the quick brown fox jumps over the lazy dog".split()
    refs = ["a quick brown fox jumps over a lazy dog today".split(),
            "the fast brown fox leaps over the lazy dog".split()]
    for n in (1, 2, 3):
        m = BleuScore(n_gram=n)
        m.update([cand], [refs])
        assert m.eval() == pytest.approx(_bleu_reference(cand, refs, n))
    m = BleuScore(n_gram=4)
    m.update([["a", "b"]], [[["c", "d"]]])
    assert m.eval() == 0.0  # no matching n-gram and no smoothing
    with pytest.raises(ValueError):
        m.update([cand, cand], [refs])
    with pytest.raises(TypeError):
        BleuScore(smooth=1)


def test_cosine_similarity_against_torch():
    x = np.random.default_rng(5).standard_normal((4, 6))
    t = torch.tensor(x)
    cos = torch.nn.functional.cosine_similarity(t[:, None, :], t[None, :, :], dim=-1).numpy()
    m = CosineSimilarity(zero_diagonal=False)
    m.update(x)
    np.testing.assert_allclose(m.eval(), cos, rtol=1e-12)
    m = CosineSimilarity(similarity="dot", reduction="mean")
    m.update(x)
    dot = x @ x.T
    np.fill_diagonal(dot, 0)
    np.testing.assert_allclose(m.eval(), dot.mean(-1))
    with pytest.raises(ValueError):
        CosineSimilarity(similarity="l2")
    with pytest.raises(TypeError):
        CosineSimilarity(zero_diagonal=1)


def _surface_ref(mask):
    pts = []
    for idx in itertools.product(*(range(n) for n in mask.shape)):
        if not mask[idx]:
            continue
        for ax in range(mask.ndim):
            for s in (-1, 1):
                j = list(idx)
                j[ax] += s
                if not 0 <= j[ax] < mask.shape[ax] or not mask[tuple(j)]:
                    pts.append(idx)
                    break
            else:
                continue
            break
    return np.array(pts, dtype=np.float64)


def _dists_ref(a, b, metric):
    out = []
    for p in a:
        d = np.abs(b - p)
        out.append(min({"euclidean": np.sqrt((d * d).sum(1)), "chessboard": d.max(1),
                        "taxicab": d.sum(1)}[metric]))
    return np.array(out)


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
def test_surface_distances_against_point_loops(metric):
    rng = np.random.default_rng(6)
    y_pred = (rng.random((7, 8)) > 0.5).astype(np.int64) * 3
    y = (rng.random((7, 8)) > 0.6).astype(np.int64) * 3
    a, b = _surface_ref(y_pred == 3), _surface_ref(y == 3)
    ab, ba = _dists_ref(a, b, metric), _dists_ref(b, a, metric)
    h = HausdorffDistance(distance_metric=metric, crop=False)
    h.update(Tensor(y_pred), Tensor(y), 3)
    assert h.eval() == pytest.approx(max(ab.max(), ba.max()))
    h = HausdorffDistance(distance_metric=metric, percentile=80, directed=True, crop=False)
    h.update(y_pred, y, 3)
    assert h.eval() == pytest.approx(np.percentile(ab, 80))
    m = MeanSurfaceDistance(distance_metric=metric)
    m.update(y_pred, y, 3)
    assert m.eval() == pytest.approx(ab.mean())
    m = MeanSurfaceDistance(distance_metric=metric, symmetric=True)
    m.update(y_pred, y, 3)
    assert m.eval() == pytest.approx((ab.mean() + ba.mean()) / 2)
    r = RootMeanSquareDistance(distance_metric=metric)
    r.update(y_pred, y, 3)
    assert r.eval() == pytest.approx((ab ** 2).mean())  # MindSpore takes no root one way
    r = RootMeanSquareDistance(distance_metric=metric, symmetric=True)
    r.update(y_pred, y, 3)
    assert r.eval() == pytest.approx(math.sqrt(((ab ** 2).mean() + (ba ** 2).mean()) / 2))


def test_surface_distance_errors_and_empty():
    with pytest.raises(ValueError, match="distance_metric"):
        HausdorffDistance(distance_metric="l3")
    with pytest.raises(TypeError):
        MeanSurfaceDistance(symmetric=1)
    m = RootMeanSquareDistance()
    with pytest.raises(RuntimeError):
        m.eval()
    with pytest.raises(ValueError):
        m.update(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        m.update(np.zeros((3, 3)), np.zeros(2), 0)
    m.update(np.zeros((3, 3)), np.ones((3, 3)), 0)  # no true voxel of label 0
    assert m.eval() == np.inf


def _occlusion_net():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)
            self.dense = nn.Dense(4, 2, weight_init=Tensor(w),
                                  bias_init=Tensor(np.array([0.3, 0.6], np.float32)))

        def construct(self, x):
            return self.dense(x)
    return Net()


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_occlusion_sensitivity(mode):
    ms.set_context(mode=mode)
    net = _occlusion_net()
    x = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]])
    want = []
    for i in range(4):  # block [i - 2, i + 2) set to 0, score of label 1
        occ = x[0].astype(np.float64).copy()
        occ[max(0, i - 2):min(4, i + 2)] = 0
        want.append((w[1] @ x[0]) - (w[1] @ occ))
    m = OcclusionSensitivity(n_batch=3)  # two model calls: 3 images, then 1
    m.update(net, x, np.array(1))
    np.testing.assert_allclose(m.eval(), want, rtol=1e-5)
    with pytest.raises(TypeError):
        OcclusionSensitivity(pad_val=False)
    with pytest.raises(TypeError):
        OcclusionSensitivity(margin=True)
    with pytest.raises(ValueError):
        OcclusionSensitivity().update(x)
    with pytest.raises(RuntimeError):
        OcclusionSensitivity().update(net, np.zeros((2, 4), np.float32), 1)


def test_get_metric_fn():
    x, y = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1])
    assert get_metric_fn("acc")(x, y) == pytest.approx(2 / 3)
    np.testing.assert_allclose(get_metric_fn("precision", eval_type="classification")(x, y),
                               [0.5, 1.0])
    assert isinstance(get_metric_fn("F1"), Fbeta)
    assert isinstance(get_metric_fn("hausdorff_distance"), HausdorffDistance)
    with pytest.raises(KeyError, match="unknown metric"):
        get_metric_fn("nonsense")


def test_one_hot_labels_may_have_fewer_columns():
    x = np.array([[0.15, 0.4, 0.1, 0.05, 0.0, 0.2, 0.1], [0.1, 0.35, 0.25, 0.2, 0.1, 0.0, 0.0]])
    from mycel.train import Top5CategoricalAccuracy
    a, b = Top5CategoricalAccuracy(), Top5CategoricalAccuracy()
    a.update(x, np.array([2, 4]))
    b.update(x, np.eye(5)[[2, 4]])  # 5 columns for 7 classes
    assert a.eval() == b.eval() == pytest.approx(1.0)
