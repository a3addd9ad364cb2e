"""MindSpore's backward primitives (mycel.ops.operations._grad_ops) against torch autograd,
and P.ResizeNearestNeighbor against torch's nearest interpolation and the align_corners rule,
in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel.ops import operations as P
from mycel.ops.operations import _grad_ops as G
from ms_cell import run

RNG = np.random.default_rng(8)


def torch_vjp(fn, x, dy):
    xt = torch.tensor(x, requires_grad=True)
    fn(xt).backward(torch.tensor(dy))
    return xt.grad.numpy()


@pytest.mark.parametrize("name, fwd, low", [
    ("SqrtGrad", torch.sqrt, 0.1), ("RsqrtGrad", torch.rsqrt, 0.1),
    ("SigmoidGrad", torch.sigmoid, -3.0), ("TanhGrad", torch.tanh, -3.0),
    ("AcoshGrad", torch.acosh, 1.1), ("AsinhGrad", torch.asinh, -3.0)])
def test_unary_grads_match_torch(mode, name, fwd, low):
    x = RNG.uniform(low, low + 4, (3, 5))
    dy = RNG.standard_normal((3, 5))
    y = fwd(torch.tensor(x)).numpy()
    np.testing.assert_allclose(run(getattr(G, name)(), y, dy), torch_vjp(fwd, x, dy),
                               rtol=1e-10, atol=1e-12)


def test_dropout_grad(mode):
    dy = RNG.standard_normal((4, 6)).astype(np.float32)
    mask = (RNG.uniform(size=(4, 6)) < 0.7).astype(np.float32)
    np.testing.assert_allclose(run(G.DropoutGrad(0.7), dy, mask), dy * mask / np.float32(0.7),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="DropoutGrad.*keep_prob"):
        G.DropoutGrad(0.0)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
def test_kl_div_loss_grad_matches_torch(mode, reduction):
    x = np.log(RNG.uniform(0.1, 1.0, (3, 4)))
    target = RNG.uniform(0.1, 1.0, (3, 4))
    dy = RNG.standard_normal((3, 4)) if reduction == "none" else np.array(RNG.standard_normal())
    want = torch_vjp(lambda t: torch.nn.functional.kl_div(t, torch.tensor(target),
                                                          reduction=reduction), x, dy)
    got = run(G.KLDivLossGrad(reduction), dy.reshape(-1) if dy.ndim == 0 else dy, x, target)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="KLDivLossGrad.*reduction"):
        G.KLDivLossGrad("avg")


@pytest.mark.parametrize("shape, begin_norm, begin_params", [((6, 8), 1, 1), ((2, 3, 5), 1, 1),
                                                              ((2, 3, 5), -1, -1),
                                                              ((4, 5), 1, 0)])
def test_layer_norm_grad_matches_torch(mode, shape, begin_norm, begin_params):
    x = RNG.standard_normal(shape)
    dy = RNG.standard_normal(shape)
    bn, bp = begin_norm % len(shape), begin_params % len(shape)
    gamma = RNG.standard_normal(shape[bp:])
    beta = RNG.standard_normal(shape[bp:])
    axes = tuple(range(bn, len(shape)))
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    eps = 1e-7
    xt = torch.tensor(x, requires_grad=True)
    gt = torch.tensor(gamma, requires_grad=True)
    btt = torch.tensor(beta, requires_grad=True)
    norm = (xt - xt.mean(axes, keepdim=True)) / torch.sqrt(xt.var(axes, unbiased=False,
                                                                   keepdim=True) + eps)
    (norm * gt + btt).backward(torch.tensor(dy))
    dx, dg, db = run(G.LayerNormGrad(begin_norm, begin_params, eps), x, dy, var, mean, gamma)
    np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(dg, gt.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(db, btt.grad.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("size", [(9, 9), (1, 1), (2, 7), (5, 3), (4, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_resize_nearest_neighbor_matches_torch(mode, size, dtype):
    x = (RNG.standard_normal((2, 3, 4, 5)) * 10).astype(dtype)
    got = run(P.ResizeNearestNeighbor(size), x)
    want = torch.nn.functional.interpolate(torch.tensor(x.astype(np.float64)), size=size,
                                           mode="nearest").numpy().astype(dtype)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("size", [(3, 7), (7, 2), (1, 4)])
def test_resize_nearest_neighbor_align_corners(mode, size):
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)

    def rows(n_in, n_out):  # nearest source of i * (n_in - 1) / (n_out - 1), halves up
        if n_out == 1:
            return np.zeros(1, np.int64)
        return np.floor(np.arange(n_out) * (n_in - 1) / (n_out - 1) + 0.5).astype(np.int64)

    want = x[:, :, rows(4, size[0])][:, :, :, rows(5, size[1])]
    np.testing.assert_array_equal(run(P.ResizeNearestNeighbor(size, True), x), want)
    with pytest.raises(ValueError, match="ResizeNearestNeighbor.*size"):
        P.ResizeNearestNeighbor((0, 3))(ms.Tensor(x))
    with pytest.raises(ValueError, match="ResizeNearestNeighbor.*4-d"):
        P.ResizeNearestNeighbor((2, 3))(ms.Tensor(x[0]))
