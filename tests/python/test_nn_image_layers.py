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
