"""lgamma, digamma and i0 (ops/function/special_func.py) as ops and Tensor methods, in both
modes, against torch's (values, poles, dtypes) and their gradients against torch.autograd."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops

MODES = (ms.GRAPH_MODE, ms.PYNATIVE_MODE)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class _Call(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


X = np.concatenate([np.linspace(-9.7, 30, 200), [-0.5, 0.5, 10, 1.5, 1.0, 2.0, 1e-3, 100.5]])
POLES = np.array([0.0, -1.0, -3.0])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_gamma_functions(mode, name):
    ms.set_context(mode=mode)
    for dtype, rtol in ((np.float64, 1e-10), (np.float32, 2e-6)):
        x = X.astype(dtype)
        got = _Call(lambda t: getattr(t, name)())(Tensor(x))
        assert got.dtype == (ms.float64 if dtype == np.float64 else ms.float32)
        want = getattr(torch, name)(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=rtol)
    got = _Call(getattr(ops, name))(Tensor(POLES))
    np.testing.assert_array_equal(got.asnumpy(), getattr(torch, name)(torch.from_numpy(POLES)))


@pytest.mark.parametrize("mode", MODES)
def test_i0(mode):
    ms.set_context(mode=mode)
    x = np.concatenate([np.linspace(-40, 40, 161), [0, 19.99, 20.01, 100]])
    got = _Call(lambda t: t.i0())(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), torch.special.i0(torch.from_numpy(x)).numpy(),
                               rtol=1e-10)
    got = _Call(ops.i0)(Tensor(np.array([0, 1, 2, 3], np.int32)))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), np.i0([0, 1, 2, 3]), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_gradients(mode):
    ms.set_context(mode=mode)
    x = np.array([0.3, 2.5, 7.0, -1.5, 25.0], np.float64)
    for name in ("lgamma", "digamma", "i0"):
        fn = getattr(ops, name)
        got = ms.grad(_Call(lambda t: fn(t).sum()))(Tensor(x))
        t = torch.from_numpy(x).requires_grad_()
        tfn = torch.special.i0 if name == "i0" else getattr(torch, name)
        tfn(t).sum().backward()
        np.testing.assert_allclose(got.asnumpy(), t.grad.numpy(), rtol=1e-8)

