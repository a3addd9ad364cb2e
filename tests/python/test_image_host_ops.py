"""The host-run NMS primitives (ops/operations/image_host_ops.py) against torchvision's nms /
batched_nms: PYNATIVE directly, GRAPH as host callbacks typed by their inference."""
import numpy as np
import pytest
import torch
import torchvision

import mycel as ms
from mycel.ops.operations import image_ops
from ms_cell import Fn

RNG = np.random.default_rng(43)


def _boxes(n):
    yx = RNG.uniform(0, 0.7, (n, 2))
    hw = RNG.uniform(0.1, 0.3, (n, 2))
    return np.concatenate([yx, yx + hw], 1).astype(np.float32)  # (y1, x1, y2, x2)


def _iou_matrix(b):
    t = torch.tensor(b[:, [1, 0, 3, 2]])  # torchvision's (x1, y1, x2, y2)
    return torchvision.ops.box_iou(t, t).numpy()


def test_nms_with_overlaps_matches_torchvision(mode):
    b = _boxes(30)
    s = RNG.uniform(0, 1, 30).astype(np.float32)
    ov = _iou_matrix(b)
    want = torchvision.ops.nms(torch.tensor(b[:, [1, 0, 3, 2]]), torch.tensor(s), 0.3).numpy()
    got = Fn(image_ops.NonMaxSuppressionWithOverlaps())(
        ms.Tensor(ov), ms.Tensor(s), ms.Tensor(np.int32(8)), ms.Tensor(np.float32(0.3)),
        ms.Tensor(np.float32(-1.0)))
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), want[:8])
    # the score threshold drops candidates before suppression
    got = Fn(image_ops.NonMaxSuppressionWithOverlaps())(
        ms.Tensor(ov), ms.Tensor(s), ms.Tensor(np.int32(30)), ms.Tensor(np.float32(0.3)),
        ms.Tensor(np.float32(0.5)))
    keep = s > 0.5
    idx = np.nonzero(keep)[0]
    sub = torchvision.ops.nms(torch.tensor(b[keep][:, [1, 0, 3, 2]]), torch.tensor(s[keep]), 0.3)
    np.testing.assert_array_equal(got.asnumpy(), idx[sub.numpy()])
    with pytest.raises(ValueError, match="NonMaxSuppressionWithOverlaps.*overlaps"):
        Fn(image_ops.NonMaxSuppressionWithOverlaps())(
            ms.Tensor(ov[:3]), ms.Tensor(s), ms.Tensor(np.int32(8)),
            ms.Tensor(np.float32(0.3)), ms.Tensor(np.float32(0.0)))


@pytest.mark.parametrize("shared", [True, False])
def test_combined_nms_matches_torchvision(mode, shared):
    batch, n, classes = 2, 12, 3
    boxes = np.stack([np.stack([_boxes(n)] * (1 if shared else classes), 1)
                      for _ in range(batch)])
    scores = RNG.uniform(0, 1, (batch, n, classes)).astype(np.float32)
    per_class, total, iou_t, score_t = 4, 9, 0.4, 0.2
    op = image_ops.CombinedNonMaxSuppression()
    got = Fn(lambda b, s: op(b, s, ms.Tensor(np.int32(per_class)), ms.Tensor(np.int32(total)),
                             ms.Tensor(np.float32(iou_t)), ms.Tensor(np.float32(score_t))))(
        ms.Tensor(boxes), ms.Tensor(scores))
    nb, ns, nc, valid = (g.asnumpy() for g in got)
    assert nb.shape == (batch, total, 4) and valid.dtype == np.int32
    for i in range(batch):
        cand = []
        for c in range(classes):
            cb = boxes[i, :, 0 if shared else c]
            keep = scores[i, :, c] > score_t
            idx = np.nonzero(keep)[0]
            sel = torchvision.ops.nms(torch.tensor(cb[keep][:, [1, 0, 3, 2]]),
                                      torch.tensor(scores[i, keep, c]), iou_t).numpy()
            cand += [(scores[i, j, c], c, cb[j]) for j in idx[sel][:per_class]]
        cand = sorted(cand, key=lambda e: -e[0])[:total]
        assert valid[i] == len(cand)
        np.testing.assert_allclose(ns[i, :len(cand)], [e[0] for e in cand])
        np.testing.assert_array_equal(nc[i, :len(cand)], [e[1] for e in cand])
        np.testing.assert_allclose(nb[i, :len(cand)], np.clip([e[2] for e in cand], 0, 1))
        assert not ns[i, len(cand):].any()


def _glimpse_zero(img, size, offsets, centered, normalized):
    """TensorFlow's windows written out (zero outside)."""
    b, h, w, c = img.shape
    out = np.zeros((b, size[0], size[1], c), np.float32)
    for i in range(b):
        y, x = offsets[i]
        if normalized:
            y, x = y * h, x * w
        if centered:
            y, x = y / 2 + h / 2, x / 2 + w / 2
        top, left = int(y - size[0] / 2), int(x - size[1] / 2)
        for r in range(size[0]):
            for q in range(size[1]):
                if 0 <= top + r < h and 0 <= left + q < w:
                    out[i, r, q] = img[i, top + r, left + q]
    return out


@pytest.mark.parametrize("centered,normalized,offsets", [
    (True, True, [[0.0, 0.0], [-0.8, 0.9]]), (False, True, [[0.5, 0.25], [0.95, 0.05]]),
    (False, False, [[3.0, 4.0], [0.0, 9.5]]), (True, False, [[-2.0, 1.0], [4.0, -6.0]])])
def test_extract_glimpse(mode, centered, normalized, offsets):
    img = RNG.uniform(-1, 2, (2, 8, 10, 3)).astype(np.float32)
    off = np.array(offsets, np.float32)
    size = ms.Tensor(np.array([4, 5], np.int32))
    got = Fn(lambda x, o: image_ops.ExtractGlimpse(centered, normalized, False, "zero")(
        x, size, o))(ms.Tensor(img), ms.Tensor(off)).asnumpy()
    want = _glimpse_zero(img, (4, 5), off, centered, normalized)
    np.testing.assert_array_equal(got, want)
    noisy = Fn(lambda x, o: image_ops.ExtractGlimpse(centered, normalized)(x, size, o))(
        ms.Tensor(img), ms.Tensor(off)).asnumpy()
    inside = _glimpse_zero(np.ones_like(img), (4, 5), off, centered, normalized) > 0
    np.testing.assert_array_equal(noisy[inside], want[inside])
    for i in range(2):  # uniform noise within the image's range
        out = noisy[i][~inside[i]]
        assert (out >= img[i].min()).all() and (out <= img[i].max()).all()


def test_extract_glimpse_bad_arguments():
    with pytest.raises(ValueError, match="ExtractGlimpse.*uniform_noise"):
        image_ops.ExtractGlimpse(True, True, True, "zero")
    with pytest.raises(ValueError, match="ExtractGlimpse.*offsets"):
        image_ops.ExtractGlimpse()(ms.Tensor(np.ones((2, 4, 4, 1), np.float32)),
                                   ms.Tensor(np.array([2, 2], np.int32)),
                                   ms.Tensor(np.zeros((1, 2), np.float32)))


def test_sizes_given_at_run_time_give_dynamic_dims(mode):
    boxes = np.stack([_boxes(6)])[:, :, None]
    scores = RNG.uniform(0, 1, (1, 6, 2)).astype(np.float32)
    args = [ms.Tensor(boxes), ms.Tensor(scores), ms.Tensor(np.int32(2)), ms.Tensor(np.int32(3)),
            ms.Tensor(np.float32(0.5)), ms.Tensor(np.float32(0.0))]
    out = Fn(image_ops.CombinedNonMaxSuppression())(*args)  # sizes as graph inputs
    assert [tuple(o.shape) for o in out] == [(1, 3, 4), (1, 3), (1, 3), (1,)]
    img = RNG.uniform(0, 1, (1, 6, 6, 1)).astype(np.float32)
    g = Fn(image_ops.ExtractGlimpse(False, False, False, "zero"))(
        ms.Tensor(img), ms.Tensor(np.array([2, 3], np.int32)),
        ms.Tensor(np.array([[3.0, 3.0]], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), img[:, 2:4, 1:4])
