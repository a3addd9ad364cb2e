"""LPPool1d/2d, MaxUnpool1d/2d/3d and Threshold against PyTorch, in both modes, with
gradients; and the argument errors MindSpore raises."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("p", [1, 2, 3.0])
def test_lp_pool2d_matches_torch(mode, p):
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 6)).astype(np.float32)
    got = nn.LPPool2d(p, 3, 2)(Tensor(x)).asnumpy()
    want = torch.nn.LPPool2d(p, 3, 2)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


def test_lp_pool1d_unbatched_and_gradient(mode):
    x = np.abs(np.random.default_rng(2).standard_normal((3, 10))).astype(np.float32) + 0.1
    got = nn.LPPool1d(2, 3, 2)(Tensor(x)).asnumpy()
    xt = torch.tensor(x, requires_grad=True)
    want = torch.nn.LPPool1d(2, 3, 2)(xt)
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5)
    want.sum().backward()
    g = ms.grad(lambda v: ops.lp_pool1d(v, 2, 3, 2).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_inverts_torch_max_pool(mode, dims):
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 4), 3: (1, 2, 4, 4, 6)}[dims]
    x = torch.tensor(np.random.default_rng(dims).standard_normal(shape).astype(np.float32))
    pool = getattr(torch.nn.functional, f"max_pool{dims}d")
    unpool = getattr(torch.nn.functional, f"max_unpool{dims}d")
    v, i = pool(x, 2, 2, return_indices=True)
    want = unpool(v, i, 2, 2).numpy()
    layer = getattr(nn, f"MaxUnpool{dims}d")(2, 2)
    got = layer(Tensor(v.numpy()), Tensor(i.numpy()))
    np.testing.assert_array_equal(got.asnumpy(), want)
    # the gradient of x is dout read back at the indices (what torch computes)
    vt = v.clone().requires_grad_(True)
    w = torch.tensor(np.random.default_rng(9).standard_normal(want.shape).astype(np.float32))
    (unpool(vt, i, 2, 2) * w).sum().backward()
    g = ms.grad(lambda a: (layer(a, Tensor(i.numpy())) * Tensor(w.numpy())).sum())(
        Tensor(v.numpy()))
    np.testing.assert_allclose(g.asnumpy(), vt.grad.numpy(), rtol=1e-6)


def test_max_unpool_output_size_and_errors():
    v, i = torch.nn.functional.max_pool2d(torch.arange(35.).reshape(1, 1, 5, 7), 2, 2,
                                          return_indices=True)
    got = ops.max_unpool2d(Tensor(v.numpy()), Tensor(i.numpy()), 2, 2, output_size=(5, 7))
    want = torch.nn.functional.max_unpool2d(v, i, 2, 2, output_size=(5, 7))
    np.testing.assert_array_equal(got.asnumpy(), want.numpy())
    with pytest.raises(ValueError, match="max_unpool2d"):
        ops.max_unpool2d(Tensor(v.numpy()), Tensor(i.numpy()), 2, 2, output_size=(9, 9))
    with pytest.raises(ValueError, match="one shape"):
        ops.max_unpool2d(Tensor(v.numpy()), Tensor(i.numpy()[..., :1]), 2)
    with pytest.raises(TypeError, match="int32 or int64"):
        ops.max_unpool2d(Tensor(v.numpy()), Tensor(v.numpy()), 2)
    with pytest.raises(ValueError, match="norm_type"):
        ops.lp_pool2d(Tensor(v.numpy()), 0, 2)


def test_threshold_matches_torch_with_gradient(mode):
    x = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    got = nn.Threshold(0.1, 20.0)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, torch.nn.Threshold(0.1, 20.0)(torch.tensor(x)).numpy())
    g = ms.grad(lambda v: ops.threshold(v, 0.1, 20.0).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), (x > 0.1).astype(np.float32))
    with pytest.raises(TypeError, match="threshold"):
        ops.threshold(x, 0.1, 2.0)


def test_cross_entropy_refuses_non_tensors_and_integer_logits(mode):
    x = Tensor(np.random.default_rng(4).standard_normal((3, 5)).astype(np.float32))
    t = Tensor(np.array([1, 0, 4]), ms.int32)
    w = Tensor(np.ones(5, np.float32))
    want = torch.nn.functional.cross_entropy(torch.tensor(x.asnumpy()),
                                             torch.tensor([1, 0, 4]))
    np.testing.assert_allclose(ops.cross_entropy(x, t, w).asnumpy(), want.numpy(), rtol=1e-5)
    for args in [(x.asnumpy(), t, w), (x, t.asnumpy(), w), (x, t, w.asnumpy()),
                 (Tensor(np.ones((3, 5)), ms.int32), t, w)]:
        with pytest.raises(TypeError, match="cross_entropy"):
            ops.cross_entropy(*args)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=2, stride=2),
                                dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0),
                                     ceil_mode=True),
                                dict(kernel_size=3, stride=2, dilation=2)])
def test_max_pool3d_values_indices_and_gradient_match_torch(mode, kw):
    x = np.random.default_rng(5).standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
    pad_mode = "pad" if "padding" in kw else "valid"
    layer = nn.MaxPool3d(pad_mode=pad_mode, return_indices=True, **kw)
    v, i = layer(Tensor(x))
    xt = torch.tensor(x, requires_grad=True)
    tv, ti = torch.nn.functional.max_pool3d(xt, return_indices=True, **kw)
    np.testing.assert_array_equal(v.asnumpy(), tv.detach().numpy())
    np.testing.assert_array_equal(i.asnumpy(), ti.numpy())
    tv.sum().backward()
    g = ms.grad(lambda a: ops.max_pool3d(a, **kw).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), xt.grad.numpy())


def test_max_pool3d_same_padding_and_unbatched(mode):
    x = np.random.default_rng(6).standard_normal((3, 5, 5, 4)).astype(np.float32)
    out = nn.MaxPool3d(kernel_size=2, stride=2, pad_mode="same")(Tensor(x)).asnumpy()
    # 'same': output ceil(n / stride); the padding (total 1 on odd axes) goes after
    want = torch.nn.functional.max_pool3d(
        torch.nn.functional.pad(torch.tensor(x)[None], (0, 0, 0, 1, 0, 1), value=-np.inf), 2,
        2).numpy()[0]
    np.testing.assert_array_equal(out, want)


def test_avg_pool3d_layer_matches_torch(mode):
    x = np.random.default_rng(7).standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    got = nn.AvgPool3d(kernel_size=3, stride=1)(Tensor(x)).asnumpy()
    want = torch.nn.functional.avg_pool3d(torch.tensor(x), 3, 1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
