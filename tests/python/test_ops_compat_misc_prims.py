"""P.NLLLoss (against torch's nll_loss, with gradients), P.ApplyPowerSign (against numpy),
random_ops.Uniform (range, shape, dtype, seeds), composed primitives, in PYNATIVE and GRAPH
mode; their argument errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn
from mycel.ops import operations as P
from mycel.ops.operations import random_ops
from ms_cell import Fn

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_matches_torch(mode, reduction):
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    t = np.array([1, 0, 3, -100, 3], np.int32)
    w = RNG.uniform(0.1, 1.0, 4).astype(np.float32)
    op = P.NLLLoss(reduction=reduction)
    loss, total = Fn(op)(ms.Tensor(x), ms.Tensor(t), ms.Tensor(w))
    tx = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.nll_loss(tx, torch.tensor(t, dtype=torch.long),
                                        torch.tensor(w), reduction=reduction)
    np.testing.assert_allclose(loss.asnumpy(), want.detach().numpy(), rtol=1e-5)
    keep = t != -100
    np.testing.assert_allclose(total.asnumpy(), w[t[keep]].sum(), rtol=1e-6)
    sens = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(sens))

    def f(a):
        return (op(a, ms.Tensor(t), ms.Tensor(w))[0] * ms.Tensor(sens)).sum()
    got = ms.grad(f)(ms.Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_nll_loss_errors():
    x, w = ms.Tensor(np.zeros((2, 3), np.float32)), ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="NLLLoss"):
        P.NLLLoss(reduction="avg")
    with pytest.raises(TypeError, match="NLLLoss"):
        P.NLLLoss()(x, ms.Tensor(np.zeros(2, np.float32)), w)
    with pytest.raises(ValueError, match="NLLLoss"):
        P.NLLLoss()(x, ms.Tensor(np.zeros(2, np.int32)), ms.Tensor(np.ones(4, np.float32)))


class PowerSign(nn.Cell):
    def __init__(self, var, m):
        super().__init__()
        self.op = P.ApplyPowerSign()
        self.var, self.m = ms.Parameter(ms.Tensor(var), "var"), ms.Parameter(ms.Tensor(m), "m")

    def construct(self, lr, logbase, decay, beta, grad):
        return self.op(self.var, self.m, lr, logbase, decay, beta, grad)


def test_apply_power_sign_matches_numpy(mode):
    var = RNG.standard_normal((3, 4)).astype(np.float32)
    m = RNG.standard_normal((3, 4)).astype(np.float32)
    grad = RNG.standard_normal((3, 4)).astype(np.float32)
    lr, logbase, decay, beta = 0.01, 0.7, 0.9, 0.8
    net = PowerSign(var, m)
    out_var, out_m = net(ms.Tensor(np.float32(lr)), logbase, decay, beta, ms.Tensor(grad))
    m2 = beta * m + (1 - beta) * grad
    var2 = var - lr * np.exp(logbase * decay * np.sign(grad) * np.sign(m2)) * grad
    np.testing.assert_allclose(net.var.asnumpy(), var2, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(net.m.asnumpy(), m2, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out_var.asnumpy(), var2, rtol=1e-5, atol=1e-7)


def test_apply_power_sign_shape_error():
    net = PowerSign(np.zeros((2, 2), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="ApplyPowerSign"):
        net(0.1, 1.0, 0.9, 0.9, ms.Tensor(np.zeros((2, 2), np.float32)))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_uniform_range_shape_and_dtype(mode, dtype):
    x = ms.Tensor(np.zeros((50, 40), dtype))
    y = Fn(random_ops.Uniform(minval=-2.0, maxval=3.0))(x).asnumpy()
    assert y.shape == (50, 40) and y.dtype == dtype
    assert y.min() >= -2.0 and y.max() <= 3.0
    assert abs(y.mean() - 0.5) < 0.2 and y.std() > 1.2  # U(-2, 3): mean 0.5, sd 1.44
    a = Fn(random_ops.Uniform(seed=3, seed2=4))(x).asnumpy()
    b = Fn(random_ops.Uniform(seed=3, seed2=4))(x).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_uniform_errors():
    with pytest.raises(TypeError, match="Uniform"):
        random_ops.Uniform()(ms.Tensor(np.zeros(3, np.int32)))
    with pytest.raises(ValueError, match="Uniform"):
        random_ops.Uniform(minval=2.0, maxval=1.0)


@pytest.mark.parametrize("mode_name, align", [("align_corners", True), ("half_pixel", False)])
@pytest.mark.parametrize("new_w", [1, 4, 7, 13])
def test_resize_linear_1d_matches_torch(mode_name, align, new_w):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    op = P.ResizeLinear1D(mode_name)
    got = op(ms.Tensor(x), ms.Tensor(np.array([new_w], np.int64))).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.interpolate(tx, size=new_w, mode="linear", align_corners=align)
    if not (align and new_w == 1):  # torch's align_corners at one output takes position 0 too
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-6)
    sens = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(sens))
    grad = ms.grad(lambda a: (op(a, ms.Tensor(np.array([new_w], np.int32))) *
                              ms.Tensor(sens)).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(grad, tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_resize_linear_1d_asymmetric_and_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.standard_normal((1, 2, 4))
    got = P.ResizeLinear1D("asymmetric")(ms.Tensor(x), ms.Tensor(np.array([6]))).asnumpy()
    src = np.minimum(np.arange(6) * 4 / 6, 3.0)
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, 3)
    want = x[..., lo] * (1 - (src - lo)) + x[..., hi] * (src - lo)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="ResizeLinear1D"):
        P.ResizeLinear1D("nearest")
    with pytest.raises(ValueError, match="ResizeLinear1D"):
        P.ResizeLinear1D()(ms.Tensor(x), ms.Tensor(np.array([0])))
    with pytest.raises(ValueError, match="ResizeLinear1D"):
        P.ResizeLinear1D()(ms.Tensor(x[0]), ms.Tensor(np.array([3])))


@pytest.mark.parametrize("kernel, stride", [(2, 2), (3, 1), ((2, 3), (1, 2))])
def test_max_pool_with_argmax_matches_torch(mode, kernel, stride):
    x = RNG.standard_normal((2, 3, 7, 8)).astype(np.float32)
    op = P.MaxPoolWithArgmax(kernel_size=kernel, strides=stride, pad_mode="valid")
    out, arg = Fn(op)(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    want, idx = torch.nn.functional.max_pool2d(tx, kernel, stride, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy(), want.detach().numpy())
    plane = np.arange(3).reshape(1, 3, 1, 1) * 7 * 8  # MindSpore counts over [C, H, W]
    np.testing.assert_array_equal(arg.asnumpy(), idx.numpy() + plane)
    assert arg.dtype == ms.int32
    sens = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(sens))
    got = ms.grad(lambda a: (op(a)[0] * ms.Tensor(sens)).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, tx.grad.numpy(), rtol=1e-6)


def test_max_pool_with_argmax_same_padding(mode):
    x = RNG.standard_normal((1, 2, 5, 6)).astype(np.float32)
    out, arg = Fn(P.MaxPoolWithArgmax(kernel_size=3, strides=2, pad_mode="same"))(ms.Tensor(x))
    # TensorFlow's SAME: out = ceil(size / stride), padding (total // 2) before.
    for c in range(2):
        for i in range(3):
            for j in range(3):
                r0, c0 = i * 2 - 1, j * 2 - 0
                win = [(r, q) for r in range(r0, r0 + 3) for q in range(c0, c0 + 3)
                       if 0 <= r < 5 and 0 <= q < 6]
                best = max(win, key=lambda p: (x[0, c, p[0], p[1]], -p[0] * 6 - p[1]))
                assert out.asnumpy()[0, c, i, j] == x[0, c, best[0], best[1]]
                assert arg.asnumpy()[0, c, i, j] == c * 30 + best[0] * 6 + best[1]


def test_max_pool_grad_grad_with_argmax(mode):
    from mycel.ops.operations import _grad_ops as G
    x = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    grad = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    arg = RNG.integers(0, 48, (2, 3, 2, 2)).astype(np.int64)
    got = Fn(G.MaxPoolGradGradWithArgmax("VALID", 2, 2))(
        ms.Tensor(x), ms.Tensor(grad), ms.Tensor(arg)).asnumpy()
    want = np.stack([grad[b].reshape(-1)[arg[b]] for b in range(2)])
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="pad_mode"):
        G.MaxPoolGradGradWithArgmax("full", 2, 2)


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2, stride=2, padding=0),
    dict(kernel_size=(3, 2, 2), stride=(1, 2, 1), padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, stride=1, padding=1, divisor_override=3)])
def test_avg_pool3d_matches_torch(mode, kw):
    x = RNG.standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.avg_pool3d(tx, **kw)
    got = Fn(lambda a: ms.ops.avg_pool3d(a, **kw))(ms.Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    sens = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(sens))
    grad = ms.grad(lambda a: (ms.ops.avg_pool3d(a, **kw) * ms.Tensor(sens)).sum())(
        ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(grad, tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_avg_pool3d_primitive_same_and_pad_modes(mode):
    x = RNG.standard_normal((1, 2, 4, 5, 3)).astype(np.float32)
    got = Fn(P.AvgPool3D(kernel_size=(2, 3, 2), strides=2, pad_mode="same",
                         count_include_pad=False))(ms.Tensor(x)).asnumpy()
    # SAME: out = ceil(L / 2), padding (total // 2) before; count_include_pad=False averages
    # only the elements inside.
    want = np.zeros((1, 2, 2, 3, 2), np.float32)
    for d in range(2):
        for h in range(3):
            for w in range(2):
                d0, h0, w0 = d * 2 - 0, h * 2 - 1, w * 2 - 0
                box = x[:, :, max(d0, 0):d0 + 2, max(h0, 0):h0 + 3, max(w0, 0):w0 + 2]
                want[:, :, d, h, w] = box.mean(axis=(2, 3, 4))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    got = Fn(P.AvgPool3D(kernel_size=2, strides=1, pad_mode="pad", pad=(1, 0, 0, 1, 1, 1)))(
        ms.Tensor(x)).asnumpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 1), (1, 1)))
    want = torch.nn.functional.avg_pool3d(torch.tensor(padded), 2, 1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="AvgPool3D"):
        P.AvgPool3D(pad_mode="valid", pad=1)


def test_avg_pool1d_matches_torch(mode):
    x = RNG.standard_normal((2, 3, 9)).astype(np.float32)
    got = Fn(lambda a: ms.ops.avg_pool1d(a, kernel_size=3, stride=2, padding=1))(ms.Tensor(x))
    want = torch.nn.functional.avg_pool1d(torch.tensor(x), 3, 2, 1)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def _frac_loop(x, rows, cols, overlapping):
    n, h, w, c = x.shape
    oh, ow = len(rows) - 1, len(cols) - 1
    out = np.zeros((n, oh, ow, c), x.dtype)
    arg = np.zeros((n, oh, ow, c), np.int64)
    for i in range(oh):
        for j in range(ow):
            r1 = min(rows[i + 1] + 1, h) if overlapping else rows[i + 1]
            c1 = min(cols[j + 1] + 1, w) if overlapping else cols[j + 1]
            box = x[:, rows[i]:r1, cols[j]:c1, :]
            out[:, i, j] = box.max(axis=(1, 2))
            flat = box.reshape(n, -1, c).argmax(axis=1)  # first maximum, row-major
            bw = c1 - cols[j]
            arg[:, i, j] = (rows[i] + flat // bw) * w + cols[j] + flat % bw
    return out, arg


@pytest.mark.parametrize("pseudo, overlapping", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_fractional_max_pool_against_a_loop(mode, pseudo, overlapping, dtype):
    from mycel.ops.operations import nn_ops, _grad_ops
    x = RNG.permutation(2 * 11 * 9 * 3).reshape(2, 11, 9, 3).astype(dtype)
    op = nn_ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], pseudo_random=pseudo,
                                  overlapping=overlapping)
    y, rows, cols = Fn(op)(ms.Tensor(x))
    rows, cols = rows.asnumpy(), cols.asnumpy()
    for seq, length, out in ((rows, 11, int(11 / 1.6)), (cols, 9, int(9 / 1.4))):
        assert seq.dtype == np.int64 and len(seq) == out + 1
        assert seq[0] == 0 and seq[-1] == length
        assert set(np.diff(seq)) <= {length // out, length // out + 1}
    want, arg = _frac_loop(x, rows, cols, overlapping)
    np.testing.assert_array_equal(y.asnumpy(), want)
    back = RNG.integers(1, 5, want.shape).astype(dtype)
    grad = Fn(_grad_ops.FractionalMaxPoolGrad(overlapping))(
        ms.Tensor(x), y, ms.Tensor(back), ms.Tensor(rows), ms.Tensor(cols)).asnumpy()
    dx = np.zeros((2, 11 * 9, 3), dtype)
    for b in range(2):
        for ch in range(3):
            np.add.at(dx[b, :, ch], arg[b, :, :, ch].reshape(-1), back[b, :, :, ch].reshape(-1))
    np.testing.assert_array_equal(grad, dx.reshape(x.shape))


def test_fractional_max_pool_deterministic_and_errors():
    from mycel.ops.operations import nn_ops
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(RNG.standard_normal((1, 10, 10, 1)).astype(np.float32))
    op = nn_ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], deterministic=True, seed=3, seed2=4)
    a, b = op(x), op(x)
    np.testing.assert_array_equal(a[1].asnumpy(), b[1].asnumpy())
    np.testing.assert_array_equal(a[0].asnumpy(), b[0].asnumpy())
    with pytest.raises(ValueError, match="FractionalMaxPool"):
        nn_ops.FractionalMaxPool([1.0, 0.5, 1.5, 1.0])
    with pytest.raises(TypeError, match="FractionalMaxPool"):
        op(ms.Tensor(np.zeros((1, 4, 4, 1), np.float16)))


@pytest.mark.parametrize("kw", [
    dict(stride=1, padding=0, dilation=1, groups=1, output_padding=0),
    dict(stride=2, padding=1, dilation=1, groups=2, output_padding=1),
    dict(stride=(1, 2, 3), padding=(0, 1, 2), dilation=(2, 1, 1), groups=1,
         output_padding=(0, 1, 2))])
def test_conv3d_transpose_matches_torch(mode, kw):
    x = RNG.standard_normal((2, 4, 3, 4, 5)).astype(np.float32)
    w = RNG.standard_normal((4, 6 // kw["groups"], 2, 3, 3)).astype(np.float32)
    p = kw["padding"]
    p = (p,) * 3 if isinstance(p, int) else p
    op = P.Conv3DTranspose(4, 6, (2, 3, 3), pad_mode="pad",
                           pad=(p[0], p[0], p[1], p[1], p[2], p[2]), stride=kw["stride"],
                           dilation=kw["dilation"], group=kw["groups"],
                           output_padding=kw["output_padding"])
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    want = torch.nn.functional.conv_transpose3d(tx, tw, **kw)
    got = Fn(op)(ms.Tensor(x), ms.Tensor(w))
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    sens = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(sens))
    gx, gw = ms.grad(lambda a, b: (op(a, b) * ms.Tensor(sens)).sum(), grad_position=(0, 1))(
        ms.Tensor(x), ms.Tensor(w))
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.asnumpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_conv3d_transpose_errors():
    with pytest.raises(ValueError, match="Conv3DTranspose"):
        P.Conv3DTranspose(4, 6, 2, group=4)
    with pytest.raises(ValueError, match="Conv3DTranspose"):
        P.Conv3DTranspose(4, 6, 2, pad_mode="valid", pad=1)
    op = P.Conv3DTranspose(4, 6, 2)
    with pytest.raises(ValueError, match="Conv3DTranspose"):
        op(ms.Tensor(np.zeros((1, 3, 2, 2, 2), np.float32)),
           ms.Tensor(np.zeros((4, 6, 2, 2, 2), np.float32)))


@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_fractional_avg_pool_and_grad_against_a_loop(mode, overlapping, dtype):
    from mycel.ops.operations import nn_ops, _grad_ops
    x = RNG.integers(-50, 50, (2, 9, 7, 2)).astype(dtype)
    y, rows, cols = Fn(nn_ops.FractionalAvgPool([1.0, 1.7, 1.3, 1.0],
                                                overlapping=overlapping))(ms.Tensor(x))
    rows, cols = rows.asnumpy(), cols.asnumpy()
    oh, ow = len(rows) - 1, len(cols) - 1
    want = np.zeros((2, oh, ow, 2), np.float64)
    regions = {}
    for i in range(oh):
        for j in range(ow):
            r1 = min(rows[i + 1] + 1, 9) if overlapping else rows[i + 1]
            c1 = min(cols[j + 1] + 1, 7) if overlapping else cols[j + 1]
            regions[i, j] = (rows[i], r1, cols[j], c1)
            want[:, i, j] = x[:, rows[i]:r1, cols[j]:c1].astype(np.float64).mean(axis=(1, 2))
    if dtype == np.int32:
        want = np.trunc(want)
    np.testing.assert_allclose(y.asnumpy(), want.astype(dtype), rtol=1e-12)
    back = RNG.standard_normal((2, oh, ow, 2)) if dtype == np.float64 else \
        RNG.integers(0, 40, (2, oh, ow, 2))
    ms.set_context(mode=ms.PYNATIVE_MODE)  # the shape argument is a tensor: known eagerly
    dx = _grad_ops.FractionalAvgPoolGrad(overlapping)(
        ms.Tensor(np.array(x.shape, np.int64)), ms.Tensor(back.astype(dtype)),
        ms.Tensor(rows), ms.Tensor(cols)).asnumpy()
    if dtype == np.int32:
        # the exact sum of the shares (fractions), truncated: float sums of fractions that
        # add up to an integer can fall just below it
        from fractions import Fraction
        exact = np.full(x.shape, Fraction(0), dtype=object)
        for (i, j), (r0, r1, c0, c1) in regions.items():
            area = (r1 - r0) * (c1 - c0)
            for b in range(x.shape[0]):
                for ch in range(x.shape[3]):
                    exact[b, r0:r1, c0:c1, ch] += Fraction(int(back[b, i, j, ch]), area)
        want_dx = np.vectorize(lambda f: int(f))(exact).astype(dtype)
        np.testing.assert_array_equal(dx, want_dx)
        return
    want_dx = np.zeros(x.shape)
    for (i, j), (r0, r1, c0, c1) in regions.items():
        want_dx[:, r0:r1, c0:c1] += (back[:, i, j] / ((r1 - r0) * (c1 - c0)))[:, None, None]
    np.testing.assert_allclose(dx, want_dx.astype(dtype), rtol=1e-12)


@pytest.mark.parametrize("kw", [dict(kernel_size=(3, 2), stride=(2, 1), padding=0, dilation=1),
                                dict(kernel_size=3, stride=2, padding=1, dilation=1,
                                     ceil_mode=True),
                                dict(kernel_size=2, stride=1, padding=1, dilation=2)])
def test_max_pool_with_argmax_v2_matches_torch(mode, kw):
    x = RNG.standard_normal((2, 3, 9, 8)).astype(np.float32)
    op = P.MaxPoolWithArgmaxV2(kw["kernel_size"], kw["stride"], kw["padding"], kw["dilation"],
                               kw.get("ceil_mode", False))
    out, arg = Fn(op)(ms.Tensor(x))
    want, idx = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(out.asnumpy(), want.numpy())
    np.testing.assert_array_equal(arg.asnumpy(), idx.numpy())
    assert arg.dtype == ms.int64


@pytest.mark.parametrize("v2", [False, True])
def test_max_pool_grad_with_argmax_matches_torch(mode, v2):
    from mycel.ops.operations import _grad_ops as G
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    if v2:
        fwd, bwd = P.MaxPoolWithArgmaxV2(3, 2, 1), G.MaxPoolGradWithArgmaxV2(3, 2, 1)
        kw = dict(kernel_size=3, stride=2, padding=1)
    else:
        fwd, bwd = P.MaxPoolWithArgmax(3, 2), G.MaxPoolGradWithArgmax(3, 2)
        kw = dict(kernel_size=3, stride=2)
    _, arg = Fn(fwd)(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.max_pool2d(tx, **kw)
    dy = RNG.standard_normal(want.shape).astype(np.float32)
    want.backward(torch.tensor(dy))
    got = Fn(bwd)(ms.Tensor(x), ms.Tensor(dy), arg).asnumpy()
    np.testing.assert_allclose(got, tx.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("unique", [True, False])
@pytest.mark.parametrize("remove", [False, True])
def test_uniform_candidate_sampler(mode, unique, remove):
    true = np.array([[1, 7], [3, 30], [5, 1]], np.int64)  # 30 is outside [0, range_max)
    rng_max, k = 10, 6
    op = P.UniformCandidateSampler(2, k, unique, rng_max, seed=5, remove_accidental_hits=remove)
    counts = np.zeros(rng_max)
    for _ in range(300):
        s, t_cnt, s_cnt = Fn(op)(ms.Tensor(true))
        s = s.asnumpy()
        assert s.dtype == np.int64 and s.shape == (k,)
        assert ((s >= 0) & (s < rng_max)).all()
        if unique:
            assert len(set(s.tolist())) == k
        if remove:
            assert not set(s.tolist()) & {1, 3, 5, 7}
        np.add.at(counts, s, 1)
    n = rng_max - (4 if remove else 0)
    p = k / n
    allowed = np.array([c not in ({1, 3, 5, 7} if remove else set()) for c in range(rng_max)])
    np.testing.assert_allclose(counts[allowed] / 300, p, atol=0.15)  # uniform over allowed
    assert (counts[~allowed] == 0).all()
    want_t = np.where(np.isin(true, [1, 3, 5, 7]) & remove, 0.0, p)
    np.testing.assert_allclose(t_cnt.asnumpy(), want_t, rtol=1e-6)
    np.testing.assert_allclose(s_cnt.asnumpy(), np.full(k, p), rtol=1e-6)
    a = Fn(P.UniformCandidateSampler(2, k, unique, rng_max, seed=9))(ms.Tensor(true))[0]
    b = Fn(P.UniformCandidateSampler(2, k, unique, rng_max, seed=9))(ms.Tensor(true))[0]
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_uniform_candidate_sampler_errors():
    with pytest.raises(ValueError, match="UniformCandidateSampler"):
        P.UniformCandidateSampler(1, 5, True, 4)
    with pytest.raises(ValueError, match="UniformCandidateSampler"):
        P.UniformCandidateSampler(2, 3, False, 4)(ms.Tensor(np.zeros((3, 1), np.int32)))


def test_uniform_int(mode):
    class Draw(nn.Cell):
        def __init__(self, seed):
            super().__init__()
            self.op = P.UniformInt(seed, 2)

        def construct(self, lo, hi):
            return self.op((40, 50), lo, hi)

    lo, hi = ms.Tensor(np.int32(-3)), ms.Tensor(np.int32(4))
    a = Draw(7)(lo, hi).asnumpy()
    assert a.dtype == np.int32 and a.shape == (40, 50)
    assert set(np.unique(a).tolist()) == set(range(-3, 4))
    np.testing.assert_allclose(np.bincount(a.reshape(-1) + 3) / a.size, 1 / 7, atol=0.02)
    np.testing.assert_array_equal(a, Draw(7)(lo, hi).asnumpy())
    with pytest.raises(TypeError, match="UniformInt"):
        P.UniformInt()((2,), ms.Tensor(np.float32(0)), hi)
