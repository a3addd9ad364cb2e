"""The nn layers added for MindSpore's API breadth (activations, Identity, Unflatten, channel
dropout, BiDense, TimeDistributed, CellDict, LRN, BatchNorm3d, ReplicationPad, Conv3d and
Conv3dTranspose, ForwardValueAndGrad, LossBase) against PyTorch or numpy, in both modes, with
gradients; and their argument errors."""
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


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _grad_of(cell, x):
    return ms.grad(lambda v: cell(v).sum())(Tensor(x)).asnumpy()


ACTIVATIONS = [
    (lambda: nn.ReLU6(), lambda t: torch.nn.functional.relu6(t * 4)),
    (lambda: nn.SeLU(), torch.selu),
    (lambda: nn.CELU(1.5), lambda t: torch.celu(t, 1.5)),
    (lambda: nn.GLU(1), lambda t: torch.nn.functional.glu(t, 1)),
    (lambda: nn.HShrink(0.7), lambda t: torch.nn.functional.hardshrink(t, 0.7)),
    (lambda: nn.SoftShrink(0.3), lambda t: torch.nn.functional.softshrink(t, 0.3)),
    (lambda: nn.LogSigmoid(), torch.nn.functional.logsigmoid),
    (lambda: nn.FastGelu(), lambda t: t * torch.sigmoid(1.702 * t)),
]


@pytest.mark.parametrize("k", range(len(ACTIVATIONS)))
def test_activations_match_torch_with_gradients(mode, k):
    make, ref = ACTIVATIONS[k]
    x = _rand((3, 4, 5), k) * (1.0 if k else 2.5)
    if k == 0:  # ReLU6 compared on 4x the input so that the 6 clips
        x = x * 4
        ref = torch.nn.functional.relu6
    cell = make()
    xt = torch.tensor(x, requires_grad=True)
    want = ref(xt)
    want.sum().backward()
    np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), want.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(_grad_of(cell, x), xt.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_log_sigmoid_and_fast_gelu_do_not_overflow(mode):
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0], np.float32)
    np.testing.assert_allclose(nn.LogSigmoid()(Tensor(x)).asnumpy(),
                               torch.nn.functional.logsigmoid(torch.tensor(x)).numpy(),
                               rtol=1e-6)
    got = nn.FastGelu()(Tensor(x)).asnumpy()
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, x / (1 + np.exp(-1.702 * np.abs(x).astype(np.float64)))
                               * np.exp(0.851 * (x - np.abs(x))), rtol=1e-6, atol=1e-30)


def test_activation_argument_errors():
    with pytest.raises(ValueError, match="CELU"):
        nn.CELU(0.0)
    with pytest.raises(TypeError, match="CELU"):
        nn.CELU("1")
    with pytest.raises(ValueError, match="SoftShrink"):
        nn.SoftShrink(-1.0)
    with pytest.raises(ValueError, match="GLU"):
        nn.GLU()(Tensor(_rand((2, 3))))


def test_leaky_relu_keeps_integer_dtypes(mode):
    x = np.array([[1, 2, 3], [4, 0, 6]], np.uint32)
    y = nn.LeakyReLU(0.1)(Tensor(x))
    assert y.dtype == ms.uint32
    np.testing.assert_array_equal(y.asnumpy(), x)
    xi = np.array([-5, 0, 7], np.int32)
    yi = nn.LeakyReLU(0.2)(Tensor(xi))  # alpha truncates to 0 in int32
    assert yi.dtype == ms.int32
    np.testing.assert_array_equal(yi.asnumpy(), [0, 0, 7])
    xf = _rand((4, 5))
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(Tensor(xf)).asnumpy(),
                               torch.nn.functional.leaky_relu(torch.tensor(xf), 0.1).numpy(),
                               rtol=1e-6)


def test_identity_and_unflatten(mode):
    x = _rand((2, 12, 3))
    np.testing.assert_array_equal(nn.Identity()(Tensor(x)).asnumpy(), x)
    got = nn.Unflatten(1, (3, -1))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, torch.tensor(x).unflatten(1, (3, 4)).numpy())
    got = nn.Unflatten(-1, [1, 3])(Tensor(x)).asnumpy()
    assert got.shape == (2, 12, 1, 3)
    with pytest.raises(ValueError, match="Unflatten"):
        nn.Unflatten(1, (5, 2))(Tensor(x))
    with pytest.raises(TypeError, match="Unflatten"):
        nn.Unflatten(1.0, (3, 4))


@pytest.mark.parametrize("cls,shape", [(nn.Dropout2d, (4, 16, 3, 5)),
                                       (nn.Dropout3d, (4, 16, 2, 3, 5))])
def test_channel_dropout_zeroes_whole_channels(mode, cls, shape):
    x = np.abs(_rand(shape)) + 1.0
    cell = cls(p=0.5)
    cell.set_train(True)
    ms.set_seed(3)
    y = cell(Tensor(x)).asnumpy()
    per_channel = y.reshape(shape[0], shape[1], -1)
    ratio = per_channel / x.reshape(shape[0], shape[1], -1)
    for r in ratio.reshape(-1, ratio.shape[-1]):
        assert np.allclose(r, 0.0) or np.allclose(r, 2.0)
    dropped = np.mean([np.allclose(r, 0.0) for r in ratio.reshape(-1, ratio.shape[-1])])
    assert 0.2 < dropped < 0.8
    cell.set_train(False)
    np.testing.assert_array_equal(cell(Tensor(x)).asnumpy(), x)
    with pytest.raises(ValueError):
        cls(p=1.5)
    with pytest.raises(ValueError, match=cls.__name__):
        cls()(Tensor(_rand((2, 3))))


def test_bidense_matches_torch_bilinear(mode):
    net = nn.BiDense(5, 4, 3)
    x1, x2 = _rand((2, 6, 5), 1), _rand((2, 6, 4), 2)
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    t1, t2 = torch.tensor(x1, requires_grad=True), torch.tensor(x2)
    want = torch.nn.functional.bilinear(t1, t2, torch.tensor(w), torch.tensor(b))
    np.testing.assert_allclose(net(Tensor(x1), Tensor(x2)).asnumpy(), want.detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    want.sum().backward()
    g = ms.grad(lambda a, c: net(a, c).sum())(Tensor(x1), Tensor(x2))
    np.testing.assert_allclose(g.asnumpy(), t1.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert np.all(np.abs(w) <= 1 / np.sqrt(5))
    with pytest.raises(ValueError, match="BiDense"):
        net(Tensor(x1), Tensor(_rand((2, 5, 4))))


def test_time_distributed_matches_a_loop(mode):
    dense = nn.Dense(6, 3)
    x = _rand((4, 5, 6))  # [N, T, C]
    want = np.stack([dense(Tensor(x[:, t])).asnumpy() for t in range(5)], axis=1)
    got = nn.TimeDistributed(dense, time_axis=1)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    got = nn.TimeDistributed(dense, time_axis=1, reshape_with_axis=0)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    xt = np.ascontiguousarray(x.transpose(1, 0, 2))  # [T, N, C], time first
    got = nn.TimeDistributed(dense, time_axis=0, reshape_with_axis=1)(Tensor(xt)).asnumpy()
    np.testing.assert_allclose(got, want.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)


def test_cell_dict_registers_its_cells():
    d = nn.CellDict({"conv": nn.Conv2d(1, 2, 3), "act": nn.ReLU()})
    d["fc"] = nn.Dense(2, 2)
    assert list(d.keys()) == ["conv", "act", "fc"] and len(d) == 3 and "act" in d
    names = [p.name for p in d.get_parameters()]
    assert "conv.weight" in names and "fc.weight" in names
    assert isinstance(d.pop("act"), nn.ReLU) and "act" not in d
    d.update([("drop", nn.Dropout())])
    assert list(d) == ["conv", "fc", "drop"]
    with pytest.raises(TypeError, match="CellDict"):
        d["x"] = 3
    with pytest.raises(KeyError):
        d["a.b"] = nn.ReLU()
    d.clear()
    assert len(d) == 0


def _lrn_reference(x, r, bias, alpha, beta):
    sq = x.astype(np.float64) ** 2
    c = x.shape[1]
    s = np.stack([sq[:, max(0, i - r):i + r + 1].sum(1) for i in range(c)], axis=1)
    return x / (bias + alpha * s) ** beta


def test_lrn_matches_numpy(mode):
    x = _rand((2, 7, 3, 4))
    got = nn.LRN(2, 1.5, 0.3, 0.75)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _lrn_reference(x, 2, 1.5, 0.3, 0.75), rtol=1e-5)
    with pytest.raises(ValueError, match="LRN"):
        nn.LRN(norm_region="WITHIN_CHANNEL")


def test_batchnorm3d_matches_torch(mode):
    x = _rand((3, 4, 2, 5, 3))
    net = nn.BatchNorm3d(4, momentum=0.9)
    net.set_train(True)
    ref = torch.nn.BatchNorm3d(4, momentum=0.1)
    got = net(Tensor(x)).asnumpy()
    want = ref(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.moving_mean.asnumpy(), ref.running_mean.numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(net.moving_variance.asnumpy(), ref.running_var.numpy(),
                               rtol=1e-4)
    net.set_train(False)
    ref.eval()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), ref(torch.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="BatchNorm3d"):
        net(Tensor(_rand((3, 4, 5, 3))))


@pytest.mark.parametrize("dims,pad,shape", [(1, (2, 1), (2, 3, 5)), (1, 3, (3, 4)),
                                            (2, (1, 2, 0, 3), (1, 2, 4, 5)),
                                            (3, (1, 0, 2, 1, 1, 2), (1, 2, 3, 4, 2))])
def test_replication_pad_matches_torch(mode, dims, pad, shape):
    x = _rand(shape, dims)
    cell = getattr(nn, f"ReplicationPad{dims}d")(pad)
    xt = torch.tensor(x, requires_grad=True)
    tpad = (pad,) * (2 * dims) if isinstance(pad, int) else pad
    want = torch.nn.functional.pad(xt, tpad, mode="replicate")
    np.testing.assert_array_equal(cell(Tensor(x)).asnumpy(), want.detach().numpy())
    (want * torch.arange(want.numel()).reshape(want.shape)).sum().backward()
    weights = Tensor(np.arange(want.numel(), dtype=np.float32).reshape(want.shape))
    g = ms.grad(lambda v: (cell(v) * weights).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-6)


def test_replication_pad_errors():
    with pytest.raises(ValueError, match="ReplicationPad2d"):
        nn.ReplicationPad2d((1, 2))
    with pytest.raises(ValueError, match="ReplicationPad1d"):
        nn.ReplicationPad1d((-1, 2))
    with pytest.raises(ValueError, match="ReplicationPad2d"):
        nn.ReplicationPad2d(1)(Tensor(_rand((4,))))


CONV3D_CASES = [
    dict(ks=3, stride=1, pad_mode="valid", padding=0, dilation=1, group=1),
    dict(ks=(2, 3, 1), stride=(2, 1, 2), pad_mode="pad", padding=(1, 0, 2, 1, 0, 1),
         dilation=1, group=1),
    dict(ks=3, stride=2, pad_mode="same", padding=0, dilation=1, group=2),
    dict(ks=2, stride=1, pad_mode="pad", padding=1, dilation=(2, 1, 2), group=1),
]


def _torch_same_pad(x, ks, stride, dilation):
    pads = []
    for n, k, s, d in zip(x.shape[2:], ks, stride, dilation):
        total = max(0, (-(-n // s) - 1) * s + d * (k - 1) + 1 - n)
        pads.append((total // 2, total - total // 2))
    flat = [v for p in reversed(pads) for v in p]
    return torch.nn.functional.pad(x, flat)


@pytest.mark.parametrize("case", range(len(CONV3D_CASES)))
def test_conv3d_matches_torch_with_gradients(mode, case):
    c = CONV3D_CASES[case]
    net = nn.Conv3d(4, 6, c["ks"], stride=c["stride"], pad_mode=c["pad_mode"],
                    padding=c["padding"], dilation=c["dilation"], group=c["group"],
                    has_bias=True)
    x = _rand((2, 4, 5, 6, 7), case)
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    triple = (lambda v: (v,) * 3 if isinstance(v, int) else v)
    ks, st, dil = triple(c["ks"]), triple(c["stride"]), triple(c["dilation"])
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    if c["pad_mode"] == "same":
        xin = _torch_same_pad(xt, ks, st, dil)
    elif c["pad_mode"] == "pad":
        p = (c["padding"],) * 6 if isinstance(c["padding"], int) else c["padding"]
        xin = torch.nn.functional.pad(xt, (p[4], p[5], p[2], p[3], p[0], p[1]))
    else:
        xin = xt
    want = torch.nn.functional.conv3d(xin, wt, torch.tensor(b), st, 0, dil, c["group"])
    got = net(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    want.sum().backward()
    gx, gw = ms.grad(lambda v, ww: ops.conv3d(v, ww, None, c["stride"], c["pad_mode"],
                                              c["padding"], c["dilation"], c["group"]).sum(),
                     grad_position=(0, 1))(Tensor(x), Tensor(w))
    np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.asnumpy(), wt.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_conv3d_primitive_and_errors(mode):
    x, w = _rand((1, 2, 4, 4, 4)), _rand((3, 2, 2, 2, 2), 1)
    got = ops.Conv3D(3, 2)(Tensor(x), Tensor(w)).asnumpy()
    want = torch.nn.functional.conv3d(torch.tensor(x), torch.tensor(w)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="Conv3D"):
        ops.Conv3D(3, 2, pad_mode="valid", pad=1)
    with pytest.raises(ValueError, match="Conv3D"):
        ops.Conv3D(4, 2)(Tensor(x), Tensor(w))
    with pytest.raises(ValueError, match="conv3d"):
        ops.conv3d(Tensor(x), Tensor(_rand((3, 2, 5, 2, 2))))
    with pytest.raises(ValueError, match="Conv3d"):
        nn.Conv3d(2, 3, (2, 2))


def test_conv3d_transpose_matches_torch(mode):
    net = nn.Conv3dTranspose(4, 6, (2, 3, 2), stride=2, pad_mode="valid", group=2,
                             has_bias=True)
    x = _rand((2, 4, 3, 2, 3))
    want = torch.nn.functional.conv_transpose3d(torch.tensor(x), torch.tensor(net.weight.asnumpy()),
                                                torch.tensor(net.bias.asnumpy()), 2, 0, 0, 2)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want.numpy(), rtol=1e-4, atol=1e-5)


def test_forward_value_and_grad_matches_value_and_grad(mode):
    net = nn.Dense(3, 2)
    x = Tensor(_rand((4, 3)))
    fvg = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_by_list=True)
    loss, grads = fvg(x)
    want_loss, want_grads = ms.value_and_grad(lambda v: net(v), None,
                                              net.trainable_params())(x)
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="ForwardValueAndGrad"):
        nn.ForwardValueAndGrad(net, get_by_list=True)
    assert nn.WithEvalCell is ms.train.model.WithEvalCell


def test_loss_base_subclass(mode):
    class AbsLoss(nn.LossBase):
        def construct(self, logits, labels):
            return self.get_loss(ops.abs(logits - labels))

    a, b = _rand((3, 4)), _rand((3, 4), 1)
    np.testing.assert_allclose(AbsLoss()(Tensor(a), Tensor(b)).asnumpy(),
                               np.abs(a - b).mean(), rtol=1e-6)
    np.testing.assert_allclose(AbsLoss("sum")(Tensor(a), Tensor(b)).asnumpy(),
                               np.abs(a - b).sum(), rtol=1e-5)
    np.testing.assert_allclose(AbsLoss("none")(Tensor(a), Tensor(b)).asnumpy(),
                               np.abs(a - b), rtol=1e-6)
    with pytest.raises(ValueError, match="AbsLoss"):
        AbsLoss("max")


@pytest.mark.parametrize("ks,st,rt,pad", [((2, 3), (1, 2), (1, 1), "valid"),
                                          ((3, 2), (2, 1), (2, 1), "valid"),
                                          ((3, 3), (2, 2), (1, 1), "same")])
def test_unfold_matches_torch_patches(mode, ks, st, rt, pad):
    x = _rand((2, 3, 7, 8))
    net = nn.Unfold([1, *ks, 1], [1, *st, 1], [1, *rt, 1], pad)
    xt = torch.tensor(x, requires_grad=True)
    xin = xt
    if pad == "same":
        pads = []
        for n, k, s, r in zip(x.shape[2:], ks, st, rt):
            total = max((-(-n // s) - 1) * s + (k - 1) * r + 1 - n, 0)
            pads.append((total // 2, total - total // 2))
        xin = torch.nn.functional.pad(xt, (*pads[1], *pads[0]))
    cols = torch.nn.functional.unfold(xin, ks, dilation=rt, stride=st)  # [N, C*kr*kc, L]
    got = net(Tensor(x))
    n, c = x.shape[:2]
    rows, ncols = got.shape[2], got.shape[3]
    # torch orders the depth by channel, then patch row and column; MindSpore by patch row,
    # column, then channel
    want = cols.reshape(n, c, ks[0] * ks[1], rows, ncols).permute(0, 2, 1, 3, 4).reshape(
        n, -1, rows, ncols)
    np.testing.assert_array_equal(got.asnumpy(), want.detach().numpy())
    weights = np.random.default_rng(5).standard_normal(want.shape).astype(np.float32)
    (want * torch.tensor(weights)).sum().backward()
    g = ms.grad(lambda v: (net(v) * Tensor(weights)).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_unfold_argument_errors():
    with pytest.raises(ValueError, match="Unfold"):
        nn.Unfold([2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="Unfold"):
        nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full")
    with pytest.raises(ValueError, match="Unfold"):
        nn.Unfold([1, 5, 5, 1], [1, 1, 1, 1], [1, 1, 1, 1])(Tensor(_rand((1, 1, 3, 3))))


def _sampled_softmax_reference(w, b, labels, x, sampled, true_exp, samp_exp, remove):
    n, num_true = labels.shape
    true_logits = np.einsum("nd,ntd->nt", x, w[labels]) + b[labels] - np.log(true_exp)
    samp_logits = x @ w[sampled].T + b[sampled] - np.log(samp_exp)
    if remove:
        hits = (labels[:, :, None] == sampled[None, None, :]).any(1)
        samp_logits = np.where(hits, samp_logits - np.float32(3.4028234663852886e38),
                               samp_logits)
    out = np.concatenate([true_logits, samp_logits], 1).astype(np.float64)
    out = out - out.max(1, keepdims=True)
    logp = out - np.log(np.exp(out).sum(1, keepdims=True))
    return -(logp[:, :num_true] / num_true).sum(1)


@pytest.mark.parametrize("num_true,remove", [(1, True), (2, True), (2, False)])
def test_sampled_softmax_loss_matches_numpy(mode, num_true, remove):
    rng = np.random.default_rng(num_true)
    classes, dim, n = 10, 6, 5
    w = rng.standard_normal((classes, dim)).astype(np.float32)
    b = rng.standard_normal(classes).astype(np.float32)
    x = rng.standard_normal((n, dim)).astype(np.float32)
    labels = rng.integers(0, classes, (n, num_true)).astype(np.int32)
    sampled = np.array([3, 7, 1, 8], np.int64)
    true_exp = np.full((n, num_true), 0.4, np.float32)
    samp_exp = np.array([0.4, 0.3, 0.5, 0.2], np.float32)
    loss = nn.SampledSoftmaxLoss(4, classes, num_true,
                                 (Tensor(sampled), Tensor(true_exp), Tensor(samp_exp)), remove)
    got = loss(Tensor(w), Tensor(b), Tensor(labels), Tensor(x)).asnumpy()
    want = _sampled_softmax_reference(w, b, labels, x, sampled, true_exp, samp_exp, remove)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # the gradient with respect to the logits against central differences
    g = ms.grad(lambda v: loss(Tensor(w), Tensor(b), Tensor(labels), v).sum())(Tensor(x))
    eps, fd = 1e-3, np.zeros_like(x, dtype=np.float64)
    for i in range(n):
        for j in range(dim):
            xp, xm = x.astype(np.float64).copy(), x.astype(np.float64).copy()
            xp[i, j] += eps
            xm[i, j] -= eps
            fd[i, j] = (_sampled_softmax_reference(w, b, labels, xp, sampled, true_exp,
                                                   samp_exp, remove).sum() -
                        _sampled_softmax_reference(w, b, labels, xm, sampled, true_exp,
                                                   samp_exp, remove).sum()) / (2 * eps)
    np.testing.assert_allclose(g.asnumpy(), fd, rtol=2e-3, atol=2e-3)


def test_sampled_softmax_loss_with_its_sampler(mode):
    rng = np.random.default_rng(9)
    w = Tensor(rng.standard_normal((20, 4)).astype(np.float32))
    b = Tensor(np.zeros(20, np.float32))
    x = Tensor(rng.standard_normal((3, 4)).astype(np.float32))
    labels = Tensor(np.array([[1], [5], [19]], np.int32))
    loss = nn.SampledSoftmaxLoss(6, 20, seed=3, reduction="mean")
    got = loss(w, b, labels, x).asnumpy()
    assert got.shape == () and np.isfinite(got) and got > 0
    with pytest.raises(ValueError, match="SampledSoftmaxLoss"):
        nn.SampledSoftmaxLoss(30, 20)
    with pytest.raises(TypeError, match="SampledSoftmaxLoss"):
        nn.SampledSoftmaxLoss(2, 20, sampled_values=[1, 2])


@pytest.mark.parametrize("dims,shape,ks,out", [(2, (2, 3, 9, 11), (3, 2), (4, 5)),
                                               (2, (3, 7, 7), 2, (6, 3)),
                                               (3, (1, 2, 6, 7, 8), (2, 3, 2), (3, 4, 1))])
def test_fractional_max_pool_matches_torch(mode, dims, shape, ks, out):
    x = _rand(shape, dims)
    lead = shape[:-dims]
    samples = np.random.default_rng(7).random((lead[0] if len(lead) == 2 else 1, lead[-1],
                                               dims)).astype(np.float32)
    cell = getattr(nn, f"FractionalMaxPool{dims}d")(ks, output_size=out, return_indices=True,
                                                   _random_samples=Tensor(samples))
    y, idx = cell(Tensor(x))
    tfn = getattr(torch.nn.functional, f"fractional_max_pool{dims}d")
    xt = torch.tensor(x, requires_grad=True)
    ty, tidx = tfn(xt, ks, output_size=out, return_indices=True,
                   _random_samples=torch.tensor(samples))
    np.testing.assert_array_equal(y.asnumpy(), ty.detach().numpy())
    np.testing.assert_array_equal(idx.asnumpy(), tidx.numpy())
    ty.sum().backward()
    fn = getattr(ops, f"fractional_max_pool{dims}d")
    g = ms.grad(lambda v: fn(v, ks, out, None, False, Tensor(samples)).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), xt.grad.numpy())


def test_fractional_max_pool_ratio_random_and_errors(mode):
    x = Tensor(_rand((2, 3, 10, 10)))
    y = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(x)
    assert y.shape == (2, 3, 5, 5)
    # every output is the maximum of some 3x3 window of its plane
    xs = x.asnumpy()
    windows = np.lib.stride_tricks.sliding_window_view(xs, (3, 3), axis=(2, 3)).max((-1, -2))
    for v, w in zip(y.asnumpy().reshape(6, -1), windows.reshape(6, -1)):
        assert np.isin(v, w).all()
    with pytest.raises(ValueError, match="FractionalMaxPool2d"):
        nn.FractionalMaxPool2d(3)(x)
    with pytest.raises(ValueError, match="FractionalMaxPool2d"):
        nn.FractionalMaxPool2d(3, output_size=9)(x)
    with pytest.raises(ValueError, match="FractionalMaxPool3d"):
        nn.FractionalMaxPool3d(2, output_size=2)(Tensor(_rand((3, 10, 10))))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_matches_torch(mode, reduction):
    x = _rand((3, 5), 4)
    y = np.array([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [-1, 1, 1, 1, 1]], np.int32)
    xt = torch.tensor(x, requires_grad=True)
    want = torch.nn.functional.multilabel_margin_loss(xt, torch.tensor(y, dtype=torch.int64),
                                                      reduction=reduction)
    loss = nn.MultilabelMarginLoss(reduction)
    np.testing.assert_allclose(loss(Tensor(x), Tensor(y)).asnumpy(), want.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    want.sum().backward()
    g = ms.grad(lambda v: loss(v, Tensor(y)).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
