"""nn.ConstantPad1d/2d/3d, ZeroPad*d and ReflectionPad*d against torch.nn's layers of the
same names (forward, crops by negative padding, gradients), and nn.PSNR against numpy, in
PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, Tensor

X = np.random.RandomState(0).randn(2, 3, 4, 5, 6).astype(np.float32)


def _both(ms_layer, torch_layer, x):
    out = ms_layer(Tensor(x)).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    ty = torch_layer(tx)
    np.testing.assert_allclose(out, ty.detach().numpy(), rtol=1e-6)
    w = np.random.RandomState(1).randn(*ty.shape).astype(np.float32)
    (ty * torch.tensor(w)).sum().backward()
    g = ms.grad(lambda a: (ms_layer(a) * Tensor(w)).sum())(Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("padding", [1, (0, 2), (2, 1)])
def test_constant_pad_1d(mode, padding):
    _both(nn.ConstantPad1d(padding, 0.5), torch.nn.ConstantPad1d(padding, 0.5), X[0, 0])


@pytest.mark.parametrize("padding", [2, (1, 0, 2, 3), (-1, 2, 1, -2)])
def test_constant_and_zero_pad_2d(mode, padding):
    _both(nn.ConstantPad2d(padding, -1.5), torch.nn.ConstantPad2d(padding, -1.5), X[0])
    _both(nn.ZeroPad2d(padding), torch.nn.ZeroPad2d(padding), X[0])


def test_constant_pad_3d_and_a_short_tuple(mode):
    _both(nn.ConstantPad3d((1, 0, 2, 1, 0, 3), 2.0),
          torch.nn.ConstantPad3d((1, 0, 2, 1, 0, 3), 2.0), X)
    # a 2-tuple pads the last dimension only
    out = nn.ConstantPad2d((0, 1), 0.5)(Tensor(X[0, 0])).asnumpy()
    np.testing.assert_array_equal(out, np.pad(X[0, 0], ((0, 0), (0, 0), (0, 1)),
                                              constant_values=0.5))


@pytest.mark.parametrize("cls,torch_cls,padding,x", [
    (nn.ReflectionPad1d, torch.nn.ReflectionPad1d, (2, 1), X[0, 0, 0]),
    (nn.ReflectionPad2d, torch.nn.ReflectionPad2d, (1, 3, 2, 0), X[0, 0]),
    (nn.ReflectionPad3d, torch.nn.ReflectionPad3d, 1, X[0]),
])
def test_reflection_pad(mode, cls, torch_cls, padding, x):
    _both(cls(padding), torch_cls(padding), x)


def test_padding_errors():
    with pytest.raises(ValueError):
        nn.ConstantPad1d((1, 2, 3), 0.0)
    with pytest.raises(TypeError):
        nn.ConstantPad2d(1.5, 0.0)
    with pytest.raises(TypeError):
        nn.ConstantPad1d(1, "a")
    with pytest.raises(ValueError):
        nn.ReflectionPad1d(6)(Tensor(X[0, 0]))  # more than size - 1 on a side of size 6


def test_psnr_matches_numpy(mode):
    rng = np.random.RandomState(0)
    a = rng.randint(0, 256, (4, 3, 8, 8)).astype(np.uint8)
    b = np.clip(a.astype(np.int32) + rng.randint(-9, 10, a.shape), 0, 255).astype(np.uint8)
    mse = ((a.astype(np.float64) - b) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(nn.PSNR(255)(Tensor(a), Tensor(b)).asnumpy(),
                               10 * np.log10(255.0 ** 2 / mse), rtol=1e-5)
    x, y = a.astype(np.float32) / 255, b.astype(np.float32) / 255
    np.testing.assert_allclose(nn.PSNR()(Tensor(x), Tensor(y)).asnumpy(),
                               10 * np.log10(1.0 / mse * 255.0 ** 2), rtol=1e-4)
    with pytest.raises(ValueError):
        nn.PSNR()(Tensor(x), Tensor(x[:, :, :4]))
    with pytest.raises(TypeError):
        nn.PSNR()(Tensor(x), Tensor(x.astype(np.float16)))
    with pytest.raises(TypeError):
        nn.PSNR(True)
    with pytest.raises(ValueError):
        nn.PSNR(0)
