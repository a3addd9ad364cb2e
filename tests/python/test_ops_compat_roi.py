"""PSROIPooling and PSROIPoolingGrad (composed primitives, ops/function/roi_func.py) against
a direct loop over ROIs and bins written here from the definition, in PYNATIVE and GRAPH
mode; the gradient of PSROIPooling against finite differences; argument errors."""
import math

import numpy as np
import pytest

import mycel as ms
from mycel.ops.operations import _grad_ops as G
from mycel.ops.operations import nn_ops as N
from ms_cell import Fn

RNG = np.random.default_rng(24)


def _c_round(v):
    return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)


def _bins(rois, scale, g, limit_h, limit_w):
    """Yields (n, batch index, i, j, h0, h1, w0, w1) for every ROI and bin."""
    nb, _, nr = rois.shape
    for b in range(nb):
        for r in range(nr):
            bi, x1, y1, x2, y2 = rois[b, :, r]
            x1, y1, x2, y2 = (_c_round(float(v) * scale) for v in (x1, y1, x2, y2))
            bw, bh = max(x2 - x1, 0.1) / g, max(y2 - y1, 0.1) / g
            for i in range(g):
                for j in range(g):
                    h0 = min(max(math.floor(i * bh) + y1, 0), limit_h)
                    h1 = min(max(math.ceil((i + 1) * bh) + y1, 0), limit_h)
                    w0 = min(max(math.floor(j * bw) + x1, 0), limit_w)
                    w1 = min(max(math.ceil((j + 1) * bw) + x1, 0), limit_w)
                    yield b * nr + r, int(bi), i, j, h0, h1, w0, w1


def _pool_loop(x, rois, scale, g, od):
    _, _, h, w = x.shape
    out = np.zeros((rois.shape[0] * rois.shape[2], od, g, g))
    for n, bi, i, j, h0, h1, w0, w1 in _bins(rois, scale, g, h - 1, w - 1):
        for c in range(od):
            if h1 > h0 and w1 > w0:
                out[n, c, i, j] = x[bi, (c * g + i) * g + j, h0:h1, w0:w1].mean()
    return out


def _grad_loop(dy, rois, size, scale, g, od):
    dx = np.zeros((rois.shape[0], od * g * g) + size)
    for n, bi, i, j, h0, h1, w0, w1 in _bins(rois, scale, g, size[0], size[1]):
        area = (h1 - h0) * (w1 - w0)
        for c in range(od):
            if area > 0:
                dx[bi, (c * g + i) * g + j, h0:h1, w0:w1] += dy[n, c, i, j] / area
    return dx


def _rois(nb, nr, h, w, scale):
    rois = np.zeros((nb, 5, nr))
    rois[:, 0, :] = RNG.integers(0, nb, (nb, nr))
    xs = np.sort(RNG.uniform(-1, w + 1, (nb, 2, nr)), axis=1) / scale
    ys = np.sort(RNG.uniform(-1, h + 1, (nb, 2, nr)), axis=1) / scale
    rois[:, 1], rois[:, 3] = xs[:, 0], xs[:, 1]
    rois[:, 2], rois[:, 4] = ys[:, 0], ys[:, 1]
    return rois


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ps_roi_pooling_matches_loop(mode, dtype):
    g, od, h, w, scale = 3, 2, 11, 9, 0.25
    rois = _rois(2, 4, h, w, scale).astype(dtype)
    x = RNG.standard_normal((2, od * g * g, h, w)).astype(dtype)
    got = Fn(N.PSROIPooling(scale, g, od))(ms.Tensor(x), ms.Tensor(rois)).asnumpy()
    assert got.dtype == dtype and got.shape == (8, od, g, g)
    np.testing.assert_allclose(got, _pool_loop(x, rois, scale, g, od), rtol=1e-5, atol=1e-6)


def test_ps_roi_pooling_grad_matches_loop(mode):
    g, od, size, scale = 2, 3, (7, 6), 0.5
    rois = _rois(3, 2, *size, scale).astype(np.float32)
    dy = RNG.standard_normal((6, od, g, g)).astype(np.float32)
    got = Fn(G.PSROIPoolingGrad(size, scale, g, od))(ms.Tensor(dy), ms.Tensor(rois)).asnumpy()
    np.testing.assert_allclose(got, _grad_loop(dy, rois, size, scale, g, od), rtol=1e-5,
                               atol=1e-6)


def test_ps_roi_pooling_gradient_matches_finite_differences(mode):
    g, od, h, w, scale = 2, 1, 6, 5, 1.0
    rois = _rois(1, 3, h, w, scale)
    x = RNG.standard_normal((1, od * g * g, h, w))
    wts = RNG.standard_normal((3, od, g, g))
    op = N.PSROIPooling(scale, g, od)

    def loss(t):
        return (op(t, ms.Tensor(rois)) * ms.Tensor(wts)).sum()

    got = ms.grad(loss)(ms.Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    eps = 1e-6
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        want[idx] = ((_pool_loop(x + d, rois, scale, g, od) * wts).sum() -
                     (_pool_loop(x - d, rois, scale, g, od) * wts).sum()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kwargs, exc", [
    ({"input_size": [2, 2]}, TypeError), ({"input_size": 1.5}, TypeError),
    ({"input_size": (3, 0)}, ValueError), ({"spatial_scale": -0.5}, ValueError),
    ({"spatial_scale": "x"}, TypeError), ({"group_size": 2.0}, TypeError),
    ({"output_dim": 0}, ValueError)])
def test_ps_roi_pooling_grad_attribute_errors(kwargs, exc):
    args = dict(input_size=5, spatial_scale=0.5, group_size=2, output_dim=1)
    args.update(kwargs)
    with pytest.raises(exc):
        G.PSROIPoolingGrad(**args)


def test_ps_roi_pooling_input_errors(mode):
    rois = ms.Tensor(_rois(1, 2, 4, 4, 1.0).astype(np.float32))
    with pytest.raises(RuntimeError, match="PSROIPoolingGrad"):
        Fn(G.PSROIPoolingGrad(4, 1.0, 2, 1))(ms.Tensor(np.ones((3, 1, 2, 2), np.float32)), rois)
    with pytest.raises(TypeError, match="PSROIPoolingGrad"):
        Fn(G.PSROIPoolingGrad(4, 1.0, 2, 1))(ms.Tensor(np.ones((2, 1, 2, 2))), rois)
    with pytest.raises(RuntimeError, match="PSROIPooling"):
        Fn(N.PSROIPooling(1.0, 2, 1))(ms.Tensor(np.ones((1, 5, 4, 4), np.float32)), rois)
