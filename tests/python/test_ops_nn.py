"""The NN family through the Python primitives, against PyTorch: convolution and its backward
ops, pooling and its gradients, softmax and the cross entropies, BatchNorm, LayerNorm and
their gradients, Dropout; and the errors bad input raises."""
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel.ops import operations as P

RNG = np.random.default_rng(0)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def T(a):
    return ms.Tensor(np.ascontiguousarray(a))


def close(got, want, rtol=1e-4, atol=1e-5):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want.astype(np.float64),
                               rtol=rtol, atol=atol)


# ---- convolution ----

def same_pads(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def torch_conv(x, w, pads, stride, dilation, group, dy=None):
    """y = conv2d(x, w) with pads (top, bottom, left, right), and (dx, dw) when dy is given."""
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    t, b, l, r = pads
    y = F.conv2d(F.pad(xt, (l, r, t, b)), wt, stride=stride, dilation=dilation, groups=group)
    if dy is None:
        return y
    y.backward(torch.tensor(dy))
    return y, xt.grad, wt.grad


CONV_CASES = [
    # x shape, w shape, attrs, pads (t, b, l, r) or "same"
    ((4, 1, 32, 32), (6, 1, 5, 5), {}, (0, 0, 0, 0)),
    ((3, 6, 14, 14), (16, 6, 5, 5), {}, (0, 0, 0, 0)),
    ((2, 1, 28, 28), (6, 1, 5, 5), {"pad_mode": "pad", "pad": 2}, (2, 2, 2, 2)),
    ((2, 1, 28, 28), (6, 1, 5, 5), {"pad_mode": "same"}, "same"),
    ((2, 3, 17, 19), (8, 3, 3, 3), {"pad_mode": "same", "stride": 2}, "same"),
    ((2, 4, 13, 11), (5, 4, 3, 3),
     {"pad_mode": "pad", "pad": (1, 2, 0, 3), "stride": (2, 1), "dilation": (1, 2)}, (1, 2, 0, 3)),
    ((2, 4, 9, 9), (6, 2, 3, 3), {"group": 2, "pad_mode": "pad", "pad": 1}, (1, 1, 1, 1)),
    ((2, 8, 10, 10), (8, 1, 3, 3), {"group": 8, "pad_mode": "same"}, "same"),
    ((2, 3, 16, 15), (4, 3, 3, 2), {"stride": (1, 1, 2, 3), "dilation": (1, 1, 2, 2)},
     (0, 0, 0, 0)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs,ws,attrs,pads", CONV_CASES)
def test_conv2d_and_backprops_match_torch(xs, ws, attrs, pads, dtype):
    x, w = randn(*xs, dtype=dtype), randn(*ws, dtype=dtype)
    stride = attrs.get("stride", 1)
    dilation = attrs.get("dilation", 1)
    st = (stride, stride) if isinstance(stride, int) else tuple(stride[-2:])
    dl = (dilation, dilation) if isinstance(dilation, int) else tuple(dilation[-2:])
    if pads == "same":
        pads = same_pads(xs[2], ws[2], st[0], dl[0]) + same_pads(xs[3], ws[3], st[1], dl[1])
    group = attrs.get("group", 1)
    y_ref = torch_conv(x, w, pads, st, dl, group)
    dy = randn(*y_ref.shape, dtype=dtype)
    y_ref, dx_ref, dw_ref = torch_conv(x, w, pads, st, dl, group, dy)
    conv_attrs = dict(attrs, out_channel=ws[0], kernel_size=ws[2:])
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    close(P.Conv2D(**conv_attrs)(T(x), T(w)), y_ref, **tol)
    close(P.Conv2DBackpropInput(**conv_attrs)(T(dy), T(w), xs), dx_ref, **tol)
    close(P.Conv2DBackpropFilter(**conv_attrs)(T(dy), T(x), ws), dw_ref, **tol)


# Passes with at least 2^20 multiply-adds and several images run on oneDNN with the images split
# across the threads (kernels/cpu/conv.cc: run_dnnl_by_images; the weights reordered once for
# all shares, the filter gradient's partial sums added in oneDNN's blocked layout): odd
# batches (shares of different sizes) and channel counts that are not multiples of 16 (the
# blocked layouts pad them), on one and two threads.
BIG_CONV_CASES = [
    ((5, 24, 12, 12), (40, 24, 3, 3), {"pad_mode": "pad", "pad": 1}, (1, 1, 1, 1)),
    ((3, 64, 9, 9), (48, 64, 3, 3), {"pad_mode": "pad", "pad": 1, "stride": 2}, (1, 1, 1, 1)),
    ((4, 32, 16, 16), (64, 32, 1, 1), {}, (0, 0, 0, 0)),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("xs,ws,attrs,pads", BIG_CONV_CASES)
def test_conv2d_passes_split_across_threads_match_torch(xs, ws, attrs, pads, threads):
    x, w = randn(*xs), randn(*ws)
    stride = attrs.get("stride", 1)
    y_ref = torch_conv(x, w, pads, (stride, stride), (1, 1), 1)
    dy = randn(*y_ref.shape)
    y_ref, dx_ref, dw_ref = torch_conv(x, w, pads, (stride, stride), (1, 1), 1, dy)
    conv_attrs = dict(attrs, out_channel=ws[0], kernel_size=ws[2:])
    before = ms._mycel.get_num_threads()
    try:
        ms._mycel.set_num_threads(threads)
        for _ in range(2):  # the second run reuses the cached primitives and reorders
            close(P.Conv2D(**conv_attrs)(T(x), T(w)), y_ref, rtol=1e-4, atol=1e-4)
            close(P.Conv2DBackpropInput(**conv_attrs)(T(dy), T(w), xs), dx_ref, rtol=1e-4,
                  atol=1e-4)
            close(P.Conv2DBackpropFilter(**conv_attrs)(T(dy), T(x), ws), dw_ref, rtol=1e-4,
                  atol=2e-4)
    finally:
        ms._mycel.set_num_threads(before)


def test_conv2d_float16_computes_in_float32():
    x, w = randn(2, 3, 10, 10), randn(4, 3, 3, 3)
    y = P.Conv2D(out_channel=4, kernel_size=3)(T(x.astype(np.float16)), T(w.astype(np.float16)))
    assert y.asnumpy().dtype == np.float16
    want = F.conv2d(torch.tensor(x.astype(np.float16).astype(np.float32)),
                    torch.tensor(w.astype(np.float16).astype(np.float32)))
    close(y, want, rtol=1e-2, atol=1e-2)


def test_conv2d_promotes_mixed_float_inputs():
    x, w = randn(1, 2, 6, 6), randn(3, 2, 3, 3, dtype=np.float64)
    y = P.Conv2D(out_channel=3, kernel_size=3)(T(x), T(w))
    assert y.asnumpy().dtype == np.float64
    close(y, F.conv2d(torch.tensor(x, dtype=torch.float64), torch.tensor(w)), rtol=1e-6)


# ---- pooling ----

def torch_pool(kind, x, k, s, pads, ceil, count_pad, dy):
    """Pools with pads (t, b, l, r) like mycel (symmetric pads go to torch, others to F.pad)."""
    xt = torch.tensor(x, requires_grad=True)
    t, b, l, r = pads
    if t == b and l == r:
        if kind == "max":
            y = F.max_pool2d(xt, k, s, (t, l), ceil_mode=ceil)
        else:
            y = F.avg_pool2d(xt, k, s, (t, l), ceil_mode=ceil, count_include_pad=count_pad)
    elif kind == "max":
        y = F.max_pool2d(F.pad(xt, (l, r, t, b), value=-np.inf), k, s, ceil_mode=ceil)
    else:  # padding never counted: window sums over window counts
        ones = torch.ones_like(xt)
        sums = F.avg_pool2d(F.pad(xt, (l, r, t, b)), k, s, ceil_mode=ceil, divisor_override=1)
        counts = F.avg_pool2d(F.pad(ones, (l, r, t, b)), k, s, ceil_mode=ceil, divisor_override=1)
        y = sums / counts
    y.backward(torch.tensor(dy[tuple(slice(0, n) for n in y.shape)]))
    return y, xt.grad


POOL_CASES = [
    # x shape, attrs, torch pads (t, b, l, r), ceil, count_include_pad
    ((4, 6, 28, 28), {"kernel_size": 2, "strides": 2}, (0, 0, 0, 0), False, True),
    ((2, 3, 11, 13), {"kernel_size": 3, "strides": 2, "pad_mode": "same"}, (1, 1, 1, 1), False,
     False),
    ((2, 3, 12, 12), {"kernel_size": 2, "strides": 2, "pad_mode": "same"}, (0, 0, 0, 0), False,
     False),
    ((2, 3, 10, 10), {"kernel_size": 4, "strides": 3, "pad_mode": "same"}, (1, 2, 1, 2), False,
     False),
    ((2, 3, 10, 9), {"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1,
                     "ceil_mode": True}, (1, 1, 1, 1), True, True),
    ((2, 3, 10, 9), {"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1,
                     "count_include_pad": False}, (1, 1, 1, 1), False, False),
    ((3, 2, 9, 9), {"kernel_size": (2, 3), "strides": 2, "ceil_mode": True}, (0, 0, 0, 0), True,
     True),
    ((2, 2, 12, 11), {"kernel_size": (1, 1, 4, 3), "strides": (1, 1, 3, 2)}, (0, 0, 0, 0), False,
     True),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("xs,attrs,pads,ceil,count_pad", POOL_CASES)
def test_pool_and_grad_match_torch(kind, xs, attrs, pads, ceil, count_pad):
    x = randn(*xs)
    ks = attrs["kernel_size"]
    ks = (ks, ks) if isinstance(ks, int) else tuple(ks[-2:])
    ss = attrs["strides"]
    ss = (ss, ss) if isinstance(ss, int) else tuple(ss[-2:])
    dy = randn(*xs)  # sliced to the output shape
    y_ref, dx_ref = torch_pool(kind, x, ks, ss, pads, ceil, count_pad, dy)
    fwd = (P.MaxPool if kind == "max" else P.AvgPool)(**attrs)
    grad = (P.MaxPoolGrad if kind == "max" else P.AvgPoolGrad)(**attrs)
    y = fwd(T(x))
    close(y, y_ref)
    dy_t = T(dy[tuple(slice(0, n) for n in y.shape)])
    close(grad(T(x), y, dy_t), dx_ref)


def test_max_pool_grad_routes_ties_to_first_maximum():
    x = np.zeros((1, 1, 3, 3), np.float32)
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = x[0, 0, 2, 1] = 5.0  # three maxima in the 2x2 windows
    dy = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)
    attrs = {"kernel_size": 2, "strides": 1}
    out = P.MaxPool(**attrs)(T(x))
    dx = P.MaxPoolGrad(**attrs)(T(x), out, T(dy)).asnumpy()
    # Windows (0,0), (0,1), (1,0), (1,1) all contain (1,1), each its first maximum; (0,1)
    # sees (1,1) before (1,2), (1,0) sees (1,1) before (2,1).
    want = np.zeros_like(x)
    want[0, 0, 1, 1] = 10.0
    np.testing.assert_array_equal(dx, want)


@pytest.mark.parametrize("xs,attrs,pads,ceil,count_pad", POOL_CASES)
def test_max_pool_grad_grad_is_the_transpose_of_max_pool_grad(xs, attrs, pads, ceil, count_pad):
    # MaxPoolGrad is linear in dy and MaxPoolGradGrad in ddx: <grad(dy), ddx> = <dy, gg(ddx)>,
    # and gg(ddx) reads ddx at each window's argmax (torch's indices, no ties in random data).
    x = randn(*xs).astype(np.float64)
    ks = attrs["kernel_size"]
    ks = (ks, ks) if isinstance(ks, int) else tuple(ks[-2:])
    ss = attrs["strides"]
    ss = (ss, ss) if isinstance(ss, int) else tuple(ss[-2:])
    y = P.MaxPool(**attrs)(T(x))
    dy = randn(*y.shape).astype(np.float64)
    ddx = randn(*xs).astype(np.float64)
    dx = P.MaxPoolGrad(**attrs)(T(x), y, T(dy)).asnumpy()
    ddy = P.MaxPoolGradGrad(**attrs)(T(x), y, T(ddx))
    assert ddy.shape == y.shape
    np.testing.assert_allclose(np.sum(dx * ddx), np.sum(dy * ddy.asnumpy()), rtol=1e-10)
    t, b, l, r = pads  # as torch_pool: symmetric pads go to torch, others to F.pad
    xt, ddxt = torch.tensor(x), torch.tensor(ddx)
    if t == b and l == r:
        _, idx = F.max_pool2d(xt, ks, ss, (t, l), ceil_mode=ceil, return_indices=True)
    else:
        xt, ddxt = F.pad(xt, (l, r, t, b), value=-np.inf), F.pad(ddxt, (l, r, t, b))
        _, idx = F.max_pool2d(xt, ks, ss, ceil_mode=ceil, return_indices=True)
    want = torch.gather(ddxt.flatten(2), 2, idx.flatten(2)).reshape(idx.shape)
    close(ddy, want, rtol=0, atol=0)


def test_max_pool_grad_grad_reads_the_first_maximum():
    x = np.zeros((1, 1, 3, 3), np.float32)
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = x[0, 0, 2, 1] = 5.0  # as in the MaxPoolGrad tie test
    ddx = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {"kernel_size": 2, "strides": 1}
    out = P.MaxPool(**attrs)(T(x))
    ddy = P.MaxPoolGradGrad(**attrs)(T(x), out, T(ddx)).asnumpy()
    np.testing.assert_array_equal(ddy, np.full((1, 1, 2, 2), 4.0, np.float32))


# ---- softmax and losses ----

@pytest.mark.parametrize("shape,axis", [((7, 33), -1), ((3, 1031), 1), ((4, 5, 6), 1),
                                        ((5, 3, 17), 0), ((64, 130), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_and_log_softmax_match_torch(shape, axis, dtype):
    x = randn(*shape, dtype=dtype) * 10
    close(P.Softmax(axis=axis)(T(x)), F.softmax(torch.tensor(x), axis), rtol=1e-5, atol=1e-7)
    close(P.Softmax(axis=(axis,))(T(x)), F.softmax(torch.tensor(x), axis), rtol=1e-5, atol=1e-7)
    close(P.LogSoftmax(axis=axis)(T(x)), F.log_softmax(torch.tensor(x), axis), rtol=1e-5,
          atol=1e-5)


def test_softmax_is_stable_for_large_logits():
    x = np.array([[1000.0, 1001.0, -1000.0, -np.inf]], np.float32)
    y = P.Softmax()(T(x)).asnumpy()
    assert np.isfinite(y).all()
    close(P.Softmax()(T(x)), F.softmax(torch.tensor(x), -1), atol=1e-7)
    close(P.LogSoftmax()(T(x[:, :3])), F.log_softmax(torch.tensor(x[:, :3]), -1))


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_softmax_cross_entropy_matches_torch(label_dtype):
    logits = randn(16, 10)
    labels = RNG.integers(0, 10, 16).astype(label_dtype)
    lt = torch.tensor(logits, requires_grad=True)
    loss = F.cross_entropy(lt, torch.tensor(labels.astype(np.int64)))
    loss.backward()
    got = P.SparseSoftmaxCrossEntropyWithLogits()(T(logits), T(labels))
    assert got.shape == ()
    close(got, loss, rtol=1e-5)
    grad = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(T(logits), T(labels))
    close(grad, lt.grad, rtol=1e-5, atol=1e-7)


def test_softmax_cross_entropy_matches_torch():
    logits = randn(8, 5)
    labels = F.softmax(torch.tensor(randn(8, 5)), -1).numpy()
    loss, dlogits = P.SoftmaxCrossEntropyWithLogits()(T(logits), T(labels))
    lt = torch.tensor(logits, requires_grad=True)
    want = -(torch.tensor(labels) * F.log_softmax(lt, -1)).sum(-1)
    want.sum().backward()
    close(loss, want, rtol=1e-5)
    close(dlogits, lt.grad, rtol=1e-5, atol=1e-7)


# ---- BatchNorm ----

@pytest.mark.parametrize("shape", [(8, 3, 5, 7), (33, 6)])
def test_batch_norm_training_matches_torch(shape):
    c = shape[1]
    x, scale, bias = randn(*shape), randn(c), randn(c)
    rmean, rvar = randn(c), RNG.uniform(0.5, 2, c).astype(np.float32)
    mean_t, var_t = T(rmean.copy()), T(rvar.copy())
    y, bmean, bvar, smean, sinv = P.BatchNorm(is_training=True, momentum=0.1, epsilon=1e-5)(
        T(x), T(scale), T(bias), mean_t, var_t)
    tm, tv = torch.tensor(rmean.copy()), torch.tensor(rvar.copy())
    xt = torch.tensor(x, requires_grad=True)
    st, bt = torch.tensor(scale, requires_grad=True), torch.tensor(bias, requires_grad=True)
    want = F.batch_norm(xt, tm, tv, st, bt, training=True, momentum=0.1, eps=1e-5)
    close(y, want, atol=1e-5)
    close(mean_t, tm, atol=1e-6)  # running statistics updated in place, unbiased variance
    close(var_t, tv, atol=1e-6)
    axes = (0,) if len(shape) == 2 else (0, 2, 3)
    close(bmean, x.mean(axes), atol=1e-6)
    close(bvar, x.var(axes), atol=1e-5)
    close(smean, x.mean(axes), atol=1e-6)
    close(sinv, 1 / np.sqrt(x.var(axes) + 1e-5), rtol=1e-4)
    dy = randn(*shape)
    want.backward(torch.tensor(dy))
    dx, dscale, dbias = P.BatchNormGrad(is_training=True, epsilon=1e-5)(T(dy), T(x), T(scale),
                                                                         smean, sinv)
    close(dx, xt.grad, atol=1e-5)
    close(dscale, st.grad, atol=1e-4)
    close(dbias, bt.grad, atol=1e-4)


def test_batch_norm_inference_matches_torch():
    x, scale, bias = randn(4, 3, 6, 6), randn(3), randn(3)
    rmean, rvar = randn(3), RNG.uniform(0.5, 2, 3).astype(np.float32)
    mean_t, var_t = T(rmean.copy()), T(rvar.copy())
    y, bmean, bvar, smean, sinv = P.BatchNorm(is_training=False, epsilon=1e-3)(
        T(x), T(scale), T(bias), mean_t, var_t)
    xt = torch.tensor(x, requires_grad=True)
    st, bt = torch.tensor(scale, requires_grad=True), torch.tensor(bias, requires_grad=True)
    want = F.batch_norm(xt, torch.tensor(rmean), torch.tensor(rvar), st, bt, training=False,
                        eps=1e-3)
    close(y, want, atol=1e-5)
    np.testing.assert_array_equal(mean_t.asnumpy(), rmean)  # untouched
    np.testing.assert_array_equal(var_t.asnumpy(), rvar)
    close(bmean, rmean)
    close(bvar, rvar)
    close(smean, rmean)
    close(sinv, 1 / np.sqrt(rvar + 1e-3))
    dy = randn(4, 3, 6, 6)
    want.backward(torch.tensor(dy))
    dx, dscale, dbias = P.BatchNormGrad(is_training=False)(T(dy), T(x), T(scale), smean, sinv)
    close(dx, xt.grad, atol=1e-5)
    close(dscale, st.grad, atol=1e-4)
    close(dbias, bt.grad, atol=1e-4)


def test_batch_norm_float16_input_with_float32_parameters():
    x = randn(4, 3, 5, 5)
    scale, bias, rmean, rvar = randn(3), randn(3), np.zeros(3, np.float32), np.ones(3, np.float32)
    y, *_ = P.BatchNorm(is_training=True)(T(x.astype(np.float16)), T(scale), T(bias), T(rmean),
                                          T(rvar))
    assert y.asnumpy().dtype == np.float16
    want = F.batch_norm(torch.tensor(x.astype(np.float16).astype(np.float32)), None, None,
                        torch.tensor(scale), torch.tensor(bias), training=True)
    close(y, want, rtol=1e-2, atol=1e-2)


# ---- LayerNorm ----

@pytest.mark.parametrize("shape,axis", [((4, 7, 33), 1), ((4, 7, 33), -1), ((6, 1031), 1)])
def test_layer_norm_and_grad_match_torch(shape, axis):
    x = randn(*shape)
    norm_shape = shape[axis:]
    gamma, beta = randn(*norm_shape), randn(*norm_shape)
    y, mean, rstd = P.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=1e-5)(
        T(x), T(gamma), T(beta))
    xt = torch.tensor(x, requires_grad=True)
    gt, bt = torch.tensor(gamma, requires_grad=True), torch.tensor(beta, requires_grad=True)
    want = F.layer_norm(xt, norm_shape, gt, bt, eps=1e-5)
    close(y, want, atol=1e-5)
    axes = tuple(range(len(shape) - len(norm_shape), len(shape)))
    close(mean, x.mean(axes, keepdims=True), atol=1e-6)
    close(rstd, 1 / np.sqrt(x.var(axes, keepdims=True) + 1e-5), rtol=1e-4)
    dy = randn(*shape)
    want.backward(torch.tensor(dy))
    dx, dgamma, dbeta = P.LayerNormGrad(begin_norm_axis=axis, begin_params_axis=axis)(
        T(dy), T(x), T(gamma), mean, rstd)
    close(dx, xt.grad, atol=1e-4)
    close(dgamma, gt.grad, atol=1e-4)
    close(dbeta, bt.grad, atol=1e-4)


# ---- Dropout ----

def test_dropout_statistics_and_scaling():
    x = randn(200, 500)
    y, mask = P.Dropout(keep_prob=0.8, Seed0=3, Seed1=4)(T(x))
    m = mask.asnumpy()
    assert set(np.unique(m)) <= {0.0, 1.0}
    assert abs(m.mean() - 0.8) < 0.005  # 100k draws: sd 0.0013
    np.testing.assert_allclose(y.asnumpy(), x * m / 0.8, rtol=1e-6)


def test_dropout_is_reproducible_with_seeds():
    x = T(randn(1000))
    _, m1 = P.Dropout(keep_prob=0.5, Seed0=1, Seed1=2)(x)
    _, m2 = P.Dropout(keep_prob=0.5, Seed0=1, Seed1=2)(x)
    _, m3 = P.Dropout(keep_prob=0.5, Seed0=1, Seed1=3)(x)
    np.testing.assert_array_equal(m1.asnumpy(), m2.asnumpy())
    assert (m1.asnumpy() != m3.asnumpy()).any()
    # Global seed: two calls differ, and resetting the seed replays them.
    ms.set_seed(123)
    a = P.Dropout(keep_prob=0.5)(x)[1].asnumpy()
    b = P.Dropout(keep_prob=0.5)(x)[1].asnumpy()
    ms.set_seed(123)
    np.testing.assert_array_equal(P.Dropout(keep_prob=0.5)(x)[1].asnumpy(), a)
    np.testing.assert_array_equal(P.Dropout(keep_prob=0.5)(x)[1].asnumpy(), b)
    assert (a != b).any()


def test_dropout_does_not_depend_on_the_thread_count():
    x = T(randn(300, 1001))
    before = ms._mycel.get_num_threads()
    try:
        ms._mycel.set_num_threads(1)
        one = P.Dropout(keep_prob=0.6, Seed0=9, Seed1=1)(x)[1].asnumpy()
        ms._mycel.set_num_threads(2)
        two = P.Dropout(keep_prob=0.6, Seed0=9, Seed1=1)(x)[1].asnumpy()
    finally:
        ms._mycel.set_num_threads(before)
    np.testing.assert_array_equal(one, two)


def test_dropout_keep_prob_one_keeps_everything():
    x = randn(37)
    y, mask = P.Dropout(keep_prob=1.0)(T(x))
    np.testing.assert_array_equal(mask.asnumpy(), np.ones(37, np.float32))
    np.testing.assert_array_equal(y.asnumpy(), x)


# ---- errors ----

def ones(*shape, dtype=np.float32):
    return T(np.ones(shape, dtype))


def test_conv2d_channel_mismatch_names_op_and_shapes():
    msg = re.escape("[2, 3, 8, 8]") + ".*" + re.escape("[4, 2, 3, 3]")
    with pytest.raises(ValueError, match="Conv2D.*" + msg):
        P.Conv2D(out_channel=4, kernel_size=3)(ones(2, 3, 8, 8), ones(4, 2, 3, 3))


def test_conv2d_bad_attributes():
    with pytest.raises(ValueError, match=r"Conv2D.*pad_mode.*'valid', 'same', 'pad'.*'full'"):
        P.Conv2D(out_channel=4, kernel_size=3, pad_mode="full")(ones(1, 3, 8, 8),
                                                                  ones(4, 3, 3, 3))
    with pytest.raises(ValueError, match=r"Conv2D.*data_format.*NHWC"):
        P.Conv2D(out_channel=4, kernel_size=3, data_format="NHWC")(ones(1, 3, 8, 8),
                                                                     ones(4, 3, 3, 3))
    with pytest.raises(ValueError, match=r"Conv2D.*output.*positive.*\[1, 3, 2, 2\]"):
        P.Conv2D(out_channel=4, kernel_size=3)(ones(1, 3, 2, 2), ones(4, 3, 3, 3))
    with pytest.raises(ValueError, match=r"Conv2D.*out_channel"):
        P.Conv2D(out_channel=5, kernel_size=3)(ones(1, 3, 8, 8), ones(4, 3, 3, 3))
    with pytest.raises(ValueError, match=r"Conv2D.*pad.*zero unless"):
        P.Conv2D(out_channel=4, kernel_size=3, pad=1)(ones(1, 3, 8, 8), ones(4, 3, 3, 3))
    with pytest.raises(TypeError, match=r"Conv2D.*Int32"):
        P.Conv2D(out_channel=4, kernel_size=3)(ones(1, 3, 8, 8, dtype=np.int32),
                                               ones(4, 3, 3, 3, dtype=np.int32))
    with pytest.raises(ValueError, match=r"Conv2DBackpropInput.*dout.*\[1, 4, 6, 6\]"):
        P.Conv2DBackpropInput(out_channel=4, kernel_size=3)(ones(1, 4, 5, 5), ones(4, 3, 3, 3),
                                                            (1, 3, 8, 8))


def test_pool_errors():
    with pytest.raises(ValueError, match=r"MaxPool.*pad_mode.*'valid', 'same', 'pad'"):
        P.MaxPool(kernel_size=2, strides=2, pad_mode="bad")(ones(1, 1, 4, 4))
    with pytest.raises(ValueError, match=r"AvgPool.*4-d.*\[4, 4\]"):
        P.AvgPool(kernel_size=2, strides=2)(ones(4, 4))
    with pytest.raises(ValueError, match=r"MaxPool.*height and width.*\[1, 1, 0, 4\]"):
        P.MaxPool(kernel_size=2, strides=2, pad_mode="pad", pad=1)(ones(1, 1, 0, 4))
    with pytest.raises(ValueError, match=r"MaxPoolGrad.*dout.*\[1, 1, 2, 2\]"):
        P.MaxPoolGrad(kernel_size=2, strides=2)(ones(1, 1, 4, 4), ones(1, 1, 2, 2),
                                                ones(1, 1, 3, 3))


def test_sparse_cross_entropy_label_out_of_range():
    with pytest.raises(IndexError, match=r"SparseSoftmaxCrossEntropyWithLogits.*label 7.*\[0, 5\)"):
        P.SparseSoftmaxCrossEntropyWithLogits()(ones(2, 5), T(np.array([1, 7], np.int32)))
    with pytest.raises(IndexError, match=r"label -1"):
        P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(ones(2, 5),
                                                            T(np.array([-1, 0], np.int64)))
    with pytest.raises(TypeError, match=r"SparseSoftmaxCrossEntropyWithLogits.*labels.*Float32"):
        P.SparseSoftmaxCrossEntropyWithLogits()(ones(2, 5), ones(2))


def test_batch_norm_parameter_shape_mismatch():
    with pytest.raises(ValueError, match=r"BatchNorm.*'bias'.*\[3\].*\[4\]"):
        P.BatchNorm()(ones(2, 3, 4, 4), ones(3), ones(4), ones(3), ones(3))
    with pytest.raises(ValueError, match=r"BatchNorm.*2-d.*4-d.*\[2, 3, 4\]"):
        P.BatchNorm()(ones(2, 3, 4), ones(3), ones(3), ones(3), ones(3))
    with pytest.raises(TypeError, match=r"BatchNorm.*'mean'.*Float64"):
        P.BatchNorm()(ones(2, 3), ones(3), ones(3), ones(3, dtype=np.float64), ones(3))


def test_other_errors():
    with pytest.raises(ValueError, match=r"LayerNorm.*'gamma'.*\[5\].*\[4\]"):
        P.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)(ones(3, 5), ones(4), ones(5))
    with pytest.raises(ValueError, match=r"Dropout.*keep_prob.*\(0, 1\]"):
        P.Dropout(keep_prob=0.0)(ones(3))
    with pytest.raises(ValueError, match=r"Softmax.*axes.*contiguous"):
        P.Softmax(axis=(0, 2))(ones(2, 3, 4))
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropyWithLogits.*\[2, 5\].*\[2, 4\]"):
        P.SoftmaxCrossEntropyWithLogits()(ones(2, 5), ones(2, 4))
