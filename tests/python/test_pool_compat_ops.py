"""MindSpore's pooling / resizing / normalisation primitives composed in
ops/operations/pool_compat_ops.py, against torch (pools, interpolate, instance norm, cross
entropy and their autograd gradients) and numpy, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel.ops.operations import nn_ops, _grad_ops, array_ops
from ms_cell import Fn

RNG = np.random.default_rng(31)


def _t(a):
    return ms.Tensor(a)


def test_pool_v1_match_torch(mode):
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    y = Fn(nn_ops.MaxPoolV1((2, 2), (2, 2), "VALID"))(_t(x)).asnumpy()
    ty = F.max_pool2d(tx, 2, 2)
    np.testing.assert_allclose(y, ty.detach().numpy())
    dy = RNG.standard_normal(ty.shape).astype(np.float32)
    ty.backward(torch.tensor(dy))
    g = Fn(_grad_ops.MaxPoolGradV1((2, 2), (2, 2), "VALID"))(_t(x), _t(y), _t(dy)).asnumpy()
    np.testing.assert_allclose(g, tx.grad.numpy())
    tx.grad = None
    ta = F.avg_pool2d(tx, 2, 2)
    np.testing.assert_allclose(Fn(nn_ops.AvgPoolV1(2, 2))(_t(x)).asnumpy(),
                               ta.detach().numpy(), rtol=1e-6)
    ta.backward(torch.tensor(dy))
    g = Fn(_grad_ops.AvgPoolGradV1(2, 2, "VALID"))((2, 3, 6, 6), _t(dy)).asnumpy()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-6)


def test_adaptive_max_pool3d_matches_torch(mode):
    x = RNG.standard_normal((2, 4, 5, 6, 7)).astype(np.float32)
    # (a tensor output_size is a constant of the graph: it decides the output's shape)
    size = _t(np.array([2, 3, 2], np.int32))
    y, idx = Fn(lambda v: nn_ops.AdaptiveMaxPool3D()(v, size))(_t(x))
    ty, tidx = F.adaptive_max_pool3d(torch.tensor(x), (2, 3, 2), return_indices=True)
    np.testing.assert_allclose(y.asnumpy(), ty.numpy())
    assert idx.dtype == ms.int32
    np.testing.assert_array_equal(idx.asnumpy(), tidx.numpy())
    with pytest.raises(ValueError, match="AdaptiveMaxPool3D.*output_size"):
        Fn(nn_ops.AdaptiveMaxPool3D())(_t(x), (2, 0, 2))


def test_fractional_max_pool_fixed_ksize_and_its_gradient(mode):
    x = RNG.standard_normal((2, 3, 9, 8)).astype(np.float32)
    u = RNG.uniform(0, 1, (2, 3, 2)).astype(np.float32)
    y, arg = Fn(nn_ops.FractionalMaxPoolWithFixedKsize((3, 2), (4, 5)))(_t(x), _t(u))
    # the same samples place the same windows as torch's
    ty, targ = F.fractional_max_pool2d(torch.tensor(x), (3, 2), output_size=(4, 5),
                                       return_indices=True,
                                       _random_samples=torch.tensor(u))
    np.testing.assert_allclose(y.asnumpy(), ty.numpy())
    assert arg.dtype == ms.int64
    np.testing.assert_array_equal(arg.asnumpy(), targ.numpy())
    dy = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    g = Fn(_grad_ops.FractionalMaxPoolGradWithFixedKsize())(_t(x), _t(dy), arg).asnumpy()
    want = np.zeros((6, 72), np.float32)
    np.add.at(want, (np.arange(6)[:, None], targ.numpy().reshape(6, -1)), dy.reshape(6, -1))
    np.testing.assert_allclose(g, want.reshape(x.shape), rtol=1e-6)
    x3 = RNG.standard_normal((1, 2, 4, 4, 5)).astype(np.float32)
    d3 = RNG.standard_normal((1, 2, 2, 2, 3)).astype(np.float32)
    a3 = RNG.integers(0, 80, (1, 2, 2, 2, 3)).astype(np.int64)
    g3 = Fn(_grad_ops.FractionalMaxPool3DGradWithFixedKsize())(_t(x3), _t(d3), _t(a3))
    want = np.zeros((2, 80), np.float32)
    np.add.at(want, (np.arange(2)[:, None], a3.reshape(2, -1)), d3.reshape(2, -1))
    np.testing.assert_allclose(g3.asnumpy(), want.reshape(x3.shape), rtol=1e-6)
    with pytest.raises(ValueError, match="FractionalMaxPoolWithFixedKsize.*random_samples"):
        Fn(nn_ops.FractionalMaxPoolWithFixedKsize(2, 2))(_t(x), _t(u[:, :, :1]))


@pytest.mark.parametrize("five_d", [False, True])
def test_instance_norm_v2_and_grad_match_torch(mode, five_d):
    shape = (2, 3, 4, 5, 2) if five_d else (2, 3, 4, 5)
    sshape = (2, 3, 1, 1, 2) if five_d else (2, 3, 1, 1)
    x = RNG.standard_normal(shape)
    gamma, beta = RNG.standard_normal(sshape), RNG.standard_normal(sshape)
    mean, var = np.zeros(sshape), np.ones(sshape)
    y, bm, bv = Fn(nn_ops.InstanceNormV2())(*map(_t, (x, gamma, beta, mean, var)))
    tx, tg, tb = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    m = tx.mean((2, 3), keepdim=True)
    v = tx.var((2, 3), unbiased=False, keepdim=True)
    ty = (tx - m) / torch.sqrt(v + 1e-5) * tg + tb
    if not five_d:  # the torch op itself on NCHW
        ref = F.instance_norm(torch.tensor(x), eps=1e-5) * torch.tensor(gamma) + \
            torch.tensor(beta)
        np.testing.assert_allclose(ty.detach().numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.asnumpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(bm.asnumpy(), m.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(bv.asnumpy(), v.detach().numpy(), rtol=1e-12)
    dy = RNG.standard_normal(shape)
    ty.backward(torch.tensor(dy))
    dx, dg, db = Fn(_grad_ops.InstanceNormV2Grad())(*map(_t, (dy, x, gamma, mean, var,
                                                               bm.asnumpy(), bv.asnumpy())))
    for got, want in ((dx, tx.grad), (dg, tg.grad), (db, tb.grad)):
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-9, atol=1e-10)
    ey = Fn(nn_ops.InstanceNormV2(is_training=False))(*map(_t, (x, gamma, beta, mean + 0.5,
                                                                  var * 2)))[0]
    np.testing.assert_allclose(ey.asnumpy(), (x - 0.5) / np.sqrt(var * 2 + 1e-5) * gamma +
                               beta, rtol=1e-10)
    with pytest.raises(ValueError, match="InstanceNormV2.*gamma"):
        Fn(nn_ops.InstanceNormV2())(*map(_t, (x, gamma[:1], beta, mean, var)))


def test_sparse_softmax_cross_entropy_v2_matches_torch(mode):
    f = RNG.standard_normal((4, 5)).astype(np.float32)
    lab = np.array([0, 4, 2, 2], np.int32)
    loss, back = Fn(nn_ops.SparseSoftmaxCrossEntropyWithLogitsV2())(_t(f), _t(lab))
    tf_ = torch.tensor(f, requires_grad=True)
    tl = F.cross_entropy(tf_, torch.tensor(lab, dtype=torch.long), reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), tl.detach().numpy(), rtol=1e-5)
    tl.sum().backward()
    np.testing.assert_allclose(back.asnumpy(), tf_.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="SparseSoftmaxCrossEntropyWithLogitsV2.*labels"):
        Fn(nn_ops.SparseSoftmaxCrossEntropyWithLogitsV2())(_t(f), _t(lab[:2]))


@pytest.mark.parametrize("align", [False, True])
def test_upsample3d_grads_match_torch(mode, align):
    x = torch.tensor(RNG.standard_normal((1, 2, 3, 4, 5)), requires_grad=True)
    dy = RNG.standard_normal((1, 2, 5, 6, 7))
    F.interpolate(x, (5, 6, 7), mode="trilinear", align_corners=align).backward(
        torch.tensor(dy))
    g = Fn(_grad_ops.UpsampleTrilinear3DGrad(align))(_t(dy), (1, 2, 3, 4, 5), (5, 6, 7))
    np.testing.assert_allclose(g.asnumpy(), x.grad.numpy(), rtol=1e-10, atol=1e-12)
    x.grad = None
    F.interpolate(x, (5, 6, 7), mode="nearest").backward(torch.tensor(dy))
    g = Fn(_grad_ops.UpsampleNearest3DGrad())(_t(dy), (1, 2, 3, 4, 5), (5, 6, 7))
    np.testing.assert_allclose(g.asnumpy(), x.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_resize_bicubic_grad_matches_torch_align_corners(mode):
    img = RNG.standard_normal((1, 2, 4, 5))
    dy = RNG.standard_normal((1, 2, 7, 3))
    ti = torch.tensor(img, requires_grad=True)
    F.interpolate(ti, (7, 3), mode="bicubic", align_corners=True).backward(torch.tensor(dy))
    g = Fn(_grad_ops.ResizeBicubicGrad(align_corners=True))(_t(dy), _t(img))
    np.testing.assert_allclose(g.asnumpy(), ti.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_resize_nearest_neighbor_v2_and_grad(mode):
    x = RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    size = _t(np.array([8, 4], np.int32))
    y = Fn(lambda v: array_ops.ResizeNearestNeighborV2()(v, size))(_t(x))
    ty = F.interpolate(tx, (8, 4), mode="nearest")  # floor(i * in / out)
    np.testing.assert_allclose(y.asnumpy(), ty.detach().numpy())
    yh = Fn(array_ops.ResizeNearestNeighborV2(half_pixel_centers=True))(_t(x), (8, 4))
    np.testing.assert_allclose(yh.asnumpy(), F.interpolate(torch.tensor(x), (8, 4),
                                                           mode="nearest-exact").numpy())
    ya = Fn(array_ops.ResizeNearestNeighborV2(align_corners=True))(_t(x), (9, 13)).asnumpy()
    rows = np.round(np.arange(9) * 4 / 8).astype(int)
    cols = np.round(np.arange(13) * 6 / 12).astype(int)
    np.testing.assert_allclose(ya, x[:, :, rows][:, :, :, cols])
    dy = RNG.standard_normal((2, 3, 8, 4)).astype(np.float32)
    ty.backward(torch.tensor(dy))
    g = Fn(_grad_ops.ResizeNearestNeighborV2Grad())(_t(dy), (5, 7))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="ResizeNearestNeighborV2.*size"):
        Fn(array_ops.ResizeNearestNeighborV2())(_t(x), (8,))


def test_max_pool_grad_grad_gathers_at_the_argmax(mode):
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    ddx = RNG.standard_normal(x.shape).astype(np.float32)
    y, idx = F.max_pool2d(torch.tensor(x), 2, 2, return_indices=True)
    want = np.take_along_axis(ddx.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), 2)
    got = Fn(_grad_ops.MaxPoolGradGrad(2, 2, "VALID"))(_t(x), _t(y.numpy()), _t(ddx))
    np.testing.assert_allclose(got.asnumpy(), want.reshape(y.shape))


@pytest.mark.parametrize("align", [False, True])
def test_resize_nearest_neighbor_grad_matches_the_forwards_vjp(mode, align):
    from mycel.ops import operations as P
    x = RNG.standard_normal((1, 2, 3, 5)).astype(np.float32)
    dy = RNG.standard_normal((1, 2, 7, 4)).astype(np.float32)
    y = P.ResizeNearestNeighbor((7, 4), align)(_t(x)).asnumpy()
    # each output pixel copies one input pixel: find it by value (x's values are distinct)
    want = np.zeros_like(x)
    for idx in np.ndindex(y.shape):
        src = np.argwhere(x[idx[0], idx[1]] == y[idx])[0]
        want[idx[0], idx[1], src[0], src[1]] += dy[idx]
    got = Fn(_grad_ops.ResizeNearestNeighborGrad(align))(_t(dy), (3, 5))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
