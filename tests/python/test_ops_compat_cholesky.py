"""ops.cholesky / cholesky_inverse / cholesky_solve / geqrf and their Tensor methods
(composed, ops/function/cholesky_func.py) against numpy and torch, in both modes; gradients
against finite differences; errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor

RNG = np.random.default_rng(11)


def _spd(batch, m, dtype):
    a = RNG.standard_normal(batch + (m, m))
    return (a @ np.swapaxes(a, -1, -2) + m * np.eye(m)).astype(dtype)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 1e-4)])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_cholesky_matches_numpy(mode, dtype, tol, batch):
    a = _spd(batch, 4, dtype)
    low = _Fn(lambda x: ops.cholesky(x))(Tensor(a)).asnumpy()
    np.testing.assert_allclose(low, np.linalg.cholesky(a.astype(np.float64)), rtol=tol,
                               atol=tol)
    up = _Fn(lambda x: x.cholesky(upper=True))(Tensor(a)).asnumpy()
    np.testing.assert_allclose(up, np.swapaxes(np.linalg.cholesky(a.astype(np.float64)), -1, -2),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_and_solve_match_torch(mode, upper):
    a = _spd((2,), 3, np.float64)
    f = torch.linalg.cholesky(torch.tensor(a), upper=upper)
    b = RNG.standard_normal((2, 3, 2))
    got = _Fn(lambda x: ops.cholesky_inverse(x, upper))(Tensor(f.numpy())).asnumpy()
    np.testing.assert_allclose(got, torch.cholesky_inverse(f, upper=upper).numpy(), rtol=1e-10)
    np.testing.assert_allclose(got, np.linalg.inv(a), rtol=1e-10)
    got = _Fn(lambda y, x: y.cholesky_solve(x, upper))(Tensor(b), Tensor(f.numpy())).asnumpy()
    np.testing.assert_allclose(got, torch.cholesky_solve(torch.tensor(b), f, upper=upper).numpy(),
                               rtol=1e-10)
    m = Tensor(np.array([[2., 0, 0], [4, 1, 0], [-1, 1, 2]], np.float32))
    np.testing.assert_allclose(m.cholesky_inverse().asnumpy(),
                               [[5.8125, -2.625, 0.625], [-2.625, 1.25, -0.25],
                                [0.625, -0.25, 0.25]], rtol=1e-5)


def _householder_q(y, tau):
    """Q from LAPACK's form: H_0 H_1 ... H_{k-1}."""
    m = y.shape[0]
    q = np.eye(m)
    for k in range(len(tau)):
        v = np.zeros(m)
        v[k] = 1
        v[k + 1:] = y[k + 1:, k]
        q = q @ (np.eye(m) - tau[k] * np.outer(v, v))
    return q


@pytest.mark.parametrize("shape", [(3, 2), (4, 4), (2, 5), (2, 3, 3)])
def test_geqrf_matches_torch(mode, shape):
    x = RNG.standard_normal(shape)
    y, tau = _Fn(lambda t: t.geqrf())(Tensor(x))
    ty, ttau = torch.geqrf(torch.tensor(x))
    np.testing.assert_allclose(y.asnumpy(), ty.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tau.asnumpy(), ttau.numpy(), rtol=1e-9, atol=1e-12)
    if len(shape) == 2:  # Q R reproduces x
        k = min(shape)
        r = np.triu(y.asnumpy())[:k]
        q = _householder_q(y.asnumpy(), tau.asnumpy())[:, :k]
        np.testing.assert_allclose(q @ r, x, atol=1e-12)


def test_geqrf_zero_column_gets_tau_zero():
    x = np.array([[1.0, 2.0], [0.0, 3.0], [0.0, 4.0]])
    y, tau = ops.geqrf(Tensor(x))
    ty, ttau = torch.geqrf(torch.tensor(x))
    np.testing.assert_allclose(y.asnumpy(), ty.numpy(), atol=1e-12)
    np.testing.assert_allclose(tau.asnumpy(), ttau.numpy(), atol=1e-12)
    assert tau.asnumpy()[0] == 0


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_cholesky_gradients_match_finite_differences(mode):
    a = _spd((), 3, np.float64)
    w = RNG.standard_normal((3, 3))

    def loss_ms(x):
        x = (x + ops.transpose(x, (1, 0))) / 2
        return (ops.cholesky(x) * Tensor(w)).sum() + (ops.cholesky_inverse(ops.cholesky(x))
                                                      * Tensor(w)).sum()

    def loss_np(x):
        x = (x + x.T) / 2
        low = np.linalg.cholesky(x)
        return (low * w).sum() + (np.linalg.inv(x) * w).sum()

    got = ms.grad(loss_ms)(Tensor(a)).asnumpy()
    np.testing.assert_allclose(got, _fd(loss_np, a), rtol=1e-5, atol=1e-7)


def test_geqrf_gradient_matches_finite_differences(mode):
    x = RNG.standard_normal((3, 2))
    w = RNG.standard_normal((3, 2))

    def loss_ms(t):
        y, tau = ops.geqrf(t)
        return (y * Tensor(w)).sum() + tau.sum()

    def loss_np(t):
        y, tau = torch.geqrf(torch.tensor(t))
        return float((y.numpy() * w).sum() + tau.numpy().sum())

    got = ms.grad(loss_ms)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _fd(loss_np, x), rtol=1e-5, atol=1e-7)


def test_errors_name_the_op():
    with pytest.raises(ValueError, match="cholesky"):
        ops.cholesky(Tensor(np.ones((2, 3))))
    with pytest.raises(TypeError, match="cholesky"):
        ops.cholesky(Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(TypeError, match="upper"):
        ops.cholesky_inverse(Tensor(np.eye(2)), upper=1)
    with pytest.raises(ValueError, match="cholesky_solve"):
        ops.cholesky_solve(Tensor(np.ones((3, 1))), Tensor(np.eye(2)))
    with pytest.raises(TypeError, match="cholesky_solve"):
        ops.cholesky_solve(Tensor(np.ones((2, 1), np.float32)), Tensor(np.eye(2)))
    with pytest.raises(ValueError, match="geqrf"):
        ops.geqrf(Tensor(np.ones(3)))
    with pytest.raises(TypeError, match="geqrf"):
        ops.geqrf(Tensor(np.ones((2, 2), np.int64)))
