"""nn.CentralCrop and nn.L1Regularizer against numpy slicing and torch, both modes; argument
errors as MindSpore raises them."""
import math

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_central_crop_against_numpy(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    for shape, frac in (((3, 16, 16), 0.2), ((2, 3, 15, 10), 0.5), ((1, 7, 9), 1.0)):
        img = rng.standard_normal(shape).astype(np.float32)
        h, w = shape[-2:]
        top, left = int((h - h * frac) / 2), int((w - w * frac) / 2)
        want = img[..., top:h - top, left:w - left]
        got = nn.CentralCrop(frac)(Tensor(img)).asnumpy()
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="rank 5"):
        nn.CentralCrop(0.5)(Tensor(np.zeros((1, 1, 1, 4, 4), np.float32)))


def test_central_crop_arguments():
    with pytest.raises(TypeError):
        nn.CentralCrop(True)
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(ValueError):
            nn.CentralCrop(bad)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_l1_regularizer_value_and_grad_against_torch(mode):
    ms.set_context(mode=mode)
    w = np.array([[1.0, -2.0], [-3.0, 0.25]], np.float32)
    reg = nn.L1Regularizer(0.5)
    got = reg(Tensor(w))
    tw = torch.tensor(w, requires_grad=True)
    want = 0.5 * tw.abs().sum()
    want.backward()
    assert float(got.asnumpy()) == pytest.approx(want.item())
    g = ms.grad(reg)(Tensor(w))
    np.testing.assert_allclose(g.asnumpy(), tw.grad.numpy())
    for bad in (0.0, -0.5, math.inf, math.nan):
        with pytest.raises(ValueError):
            nn.L1Regularizer(bad)
    with pytest.raises(TypeError):
        nn.L1Regularizer("0.5")


def _ssim_torch(a, b, size=11, sigma=1.5, max_val=1.0, k1=0.01, k2=0.03):
    x = torch.arange(size, dtype=torch.float64) - (size - 1) / 2
    g = torch.exp(-x * x / (2 * sigma * sigma))
    g = g / g.sum()
    win = torch.outer(g, g)[None, None]
    n, c, h, w = a.shape
    a, b = a.reshape(n * c, 1, h, w), b.reshape(n * c, 1, h, w)

    def f(t):
        return torch.nn.functional.conv2d(t, win)
    mu1, mu2 = f(a), f(b)
    s1, s2, s12 = f(a * a) - mu1 ** 2, f(b * b) - mu2 ** 2, f(a * b) - mu1 * mu2
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    m = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))
    return m.reshape(n, -1).mean(1)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_ssim_against_torch(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(2)
    a = rng.random((2, 3, 16, 16)).astype(np.float32)
    b = np.clip(a + 0.1 * rng.standard_normal(a.shape), 0, 1).astype(np.float32)
    got = nn.SSIM()(Tensor(a), Tensor(b)).asnumpy()
    want = _ssim_torch(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
    got = nn.SSIM(max_val=2.0, filter_size=5, filter_sigma=0.8)(Tensor(a), Tensor(b)).asnumpy()
    want = _ssim_torch(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64),
                       5, 0.8, 2.0)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nn.SSIM()(Tensor(a), Tensor(a)).asnumpy(), [1.0, 1.0], rtol=1e-5)
    # MindSpore's order: img1's dtype, img1's rank, then SameTypeShape (shapes: ValueError).
    with pytest.raises(ValueError, match="one shape"):
        nn.SSIM()(Tensor(a), Tensor(a[:, :, :8, :8]))
    with pytest.raises(TypeError, match="dtype must be one of"):
        nn.SSIM()(Tensor(a[..., None].astype(np.float64)), Tensor(a))
    with pytest.raises(TypeError, match="one dtype"):
        nn.SSIM()(Tensor(a), Tensor(a.astype(np.float16)))
    with pytest.raises(ValueError, match="rank 5"):
        nn.SSIM()(Tensor(a[..., None]), Tensor(a[..., None]))


def test_ssim_arguments():
    for kw, err in (({"max_val": -1}, ValueError), ({"max_val": True}, TypeError),
                    ({"max_val": 0}, ValueError), ({"filter_size": 1.1}, TypeError),
                    ({"filter_size": 0}, ValueError), ({"filter_sigma": 0.0}, ValueError),
                    ({"filter_sigma": -0.1}, ValueError)):
        with pytest.raises(err):
            nn.SSIM(**kw)


def _msssim_torch(a, b, weights, size=11, sigma=1.5, max_val=1.0, k1=0.01, k2=0.03):
    x = torch.arange(-size // 2 + 1, size // 2 + 1, dtype=torch.float64)
    g = torch.exp(-(x[:, None] ** 2 + x[None, :] ** 2) / (2 * sigma * sigma))
    win = (g / g.sum())[None, None]
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    out = 1.0
    for j, wj in enumerate(weights):
        n, c, h, w = a.shape
        p, q = a.reshape(n * c, 1, h, w), b.reshape(n * c, 1, h, w)

        def f(t):
            return torch.nn.functional.conv2d(t, win)
        mu1, mu2 = f(p), f(q)
        s1, s2, s12 = f(p * p) - mu1 ** 2, f(q * q) - mu2 ** 2, f(p * q) - mu1 * mu2
        cs = (2 * s12 + c2) / (s1 + s2 + c2)
        ssim = (2 * mu1 * mu2 + c1) / (mu1 ** 2 + mu2 ** 2 + c1) * cs
        term = (ssim if j == len(weights) - 1 else cs).reshape(n, c, -1).mean(-1)
        out = out * torch.relu(term) ** wj
        a = torch.nn.functional.avg_pool2d(a, 2)
        b = torch.nn.functional.avg_pool2d(b, 2)
    return out.mean(1)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_msssim_against_torch(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(4)
    a = rng.random((2, 2, 48, 48)).astype(np.float32)
    b = np.clip(a + 0.05 * rng.standard_normal(a.shape), 0, 1).astype(np.float32)
    w = (0.2, 0.3, 0.5)
    got = nn.MSSSIM(power_factors=w)(Tensor(a), Tensor(b)).asnumpy()
    want = _msssim_torch(torch.tensor(a, dtype=torch.float64),
                         torch.tensor(b, dtype=torch.float64), w)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4)
    # uint8 images and max_val are scaled by 1/255
    ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    got = nn.MSSSIM(max_val=255, power_factors=w)(Tensor(ua), Tensor(ub)).asnumpy()
    want = _msssim_torch(torch.tensor(ua / 255.0), torch.tensor(ub / 255.0), w)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4)
    with pytest.raises(TypeError):
        nn.MSSSIM(power_factors=0.5)
    with pytest.raises(TypeError):
        nn.SSIM()(Tensor(ua), Tensor(ub))  # SSIM takes float16/float32 images only


def test_ssim_checks_both_ranks_before_the_shapes():
    ms.set_context(mode=ms.GRAPH_MODE)
    a = Tensor(np.zeros((1, 1, 16, 16), np.float32))
    b = Tensor(np.zeros((1, 1, 8, 8, 1), np.float32))
    for net in (nn.SSIM(), nn.MSSSIM(power_factors=(0.5, 0.5))):
        with pytest.raises(ValueError, match="rank 5"):
            net(a, b)
