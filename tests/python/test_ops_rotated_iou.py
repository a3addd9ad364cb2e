"""ops.rotated_iou (ops/function/rotated_iou_func.py) against analytic overlaps and an
independent oracle (Sutherland-Hodgman clipping of one rectangle by the other, in numpy):
cross and one-to-one, xywht and xyxyt, IoU and IoF, PYNATIVE and GRAPH mode; errors."""
import math

import numpy as np
import pytest

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(53)


def _corners(x, y, w, h, t):
    r = math.radians(t)
    u, v = np.array([math.cos(r), math.sin(r)]), np.array([-math.sin(r), math.cos(r)])
    c = np.array([x, y])
    return [c + sx * w / 2 * u + sy * h / 2 * v for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


def _clip(subject, clipper):
    out = subject
    for i in range(len(clipper)):
        a, b = clipper[i], clipper[(i + 1) % len(clipper)]
        inp, out = out, []
        if not inp:
            break

        def side(p):
            return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        for j in range(len(inp)):
            p, q = inp[j], inp[(j + 1) % len(inp)]
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                out.append(p + (q - p) * (sp / (sp - sq)))
    return out


def _area(poly):
    if len(poly) < 3:
        return 0.0
    return 0.5 * abs(sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(poly, poly[1:] + poly[:1])))


def _oracle(a, b, mode):
    pa, pb = _corners(*a), _corners(*b)
    inter = _area(_clip(pa, pb))
    area_a, area_b = a[2] * a[3], b[2] * b[3]
    return inter / area_a if mode == 1 else inter / (area_a + area_b - inter)


def _boxes(b, n):
    xy = RNG.uniform(0, 6, (b, n, 2))
    wh = RNG.uniform(0.5, 4, (b, n, 2))
    t = RNG.uniform(-180, 180, (b, n, 1))
    return np.concatenate([xy, wh, t], -1)


@pytest.mark.parametrize("mode_", [0, 1])
def test_rotated_iou_cross_matches_clipping(mode, mode_):
    a, q = _boxes(2, 5), _boxes(2, 4)
    got = run(lambda x, y: ops.rotated_iou(x, y, mode=mode_), a, q)
    assert got.shape == (2, 5, 4)
    want = np.array([[[_oracle(a[i, n], q[i, k], mode_) for k in range(4)] for n in range(5)]
                     for i in range(2)])
    np.testing.assert_allclose(got, want, atol=1e-9)
    assert np.count_nonzero(want) > 5  # the random boxes do overlap


def test_rotated_iou_one_to_one_xyxyt_and_float32(mode):
    a, q = _boxes(1, 6), _boxes(1, 6)
    got = run(lambda x, y: ops.rotated_iou(x, y, is_cross=False), a.astype(np.float32),
              q.astype(np.float32))
    assert got.shape == (1, 6) and got.dtype == np.float32
    want = [_oracle(a[0, n], q[0, n], 0) for n in range(6)]
    np.testing.assert_allclose(got[0], want, atol=2e-5)
    # xyxyt: the same boxes given by their corners before the rotation
    def to_xyxy(x):
        return np.concatenate([x[..., :2] - x[..., 2:4] / 2, x[..., :2] + x[..., 2:4] / 2,
                               x[..., 4:]], -1)
    got2 = run(lambda x, y: ops.rotated_iou(x, y, trans=True, is_cross=False), to_xyxy(a),
               to_xyxy(q))
    np.testing.assert_allclose(got2[0], want, atol=1e-9)


def test_rotated_iou_analytic_cases(mode):
    boxes = np.array([[[0, 0, 2, 2, 0], [0, 0, 2, 2, 45], [1, 0, 2, 2, 0], [5, 5, 1, 1, 30],
                       [0, 0, 2, 2, 90]]], np.float64)
    got = run(lambda x: ops.rotated_iou(x, x), boxes)
    np.testing.assert_allclose(np.diagonal(got[0]), 1.0, atol=1e-12)
    assert got[0, 0, 1] == pytest.approx(math.sqrt(2) / 2)  # a square and itself at 45 degrees
    assert got[0, 0, 2] == pytest.approx(1 / 3)
    assert got[0, 0, 3] == 0.0
    assert got[0, 0, 4] == pytest.approx(1.0)


def test_rotated_iou_errors():
    x = ms.Tensor(np.zeros((1, 2, 5), np.float32))
    with pytest.raises(ValueError, match="rotated_iou"):
        ops.rotated_iou(x, ms.Tensor(np.zeros((2, 2, 5), np.float32)))
    with pytest.raises(ValueError, match="rotated_iou"):
        ops.rotated_iou(x, ms.Tensor(np.zeros((1, 2, 4), np.float32)))
    with pytest.raises(ValueError, match="mode"):
        ops.rotated_iou(x, x, mode=2)
    with pytest.raises(TypeError, match="rotated_iou"):
        ops.rotated_iou(ms.Tensor(np.zeros((1, 2, 5), np.int32)), x)
    with pytest.raises(ValueError, match="is_cross"):
        ops.rotated_iou(x, ms.Tensor(np.zeros((1, 3, 5), np.float32)), is_cross=False)
