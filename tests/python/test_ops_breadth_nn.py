"""The composed neural-network functions of ops/function/nn_func.py (activations,
channel dropout, group_norm, embedding, channel_shuffle, the losses, fold, affine_grid) and
their primitives, against PyTorch (values and gradients), in PYNATIVE and GRAPH mode (the
`mode` fixture), argument errors typed."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(31)


def _f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _tgrad(tfn, *arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = tfn(*ts)
    w = torch.tensor(RNG.standard_normal(tuple(out.shape)))
    (out * w).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts], w.numpy()


def _mgrad(fn, w, *arrays):
    xs = [ms.Tensor(a) for a in arrays]
    g = ms.grad(lambda *a: (fn(*a) * ms.Tensor(w)).sum(),
                grad_position=tuple(range(len(xs))))(*xs)
    return [t.asnumpy() for t in (g if isinstance(g, tuple) else (g,))]


ACTS = {  # name: (mycel call, torch call)
    "leaky_relu": (lambda x: ops.leaky_relu(x, 0.3), lambda x: F.leaky_relu(x, 0.3)),
    "hardtanh": (lambda x: ops.hardtanh(x, -0.5, 1.2), lambda x: F.hardtanh(x, -0.5, 1.2)),
    "logsigmoid": (ops.logsigmoid, F.logsigmoid),
    "softmin": (lambda x: ops.softmin(x, 1), lambda x: F.softmin(x, 1)),
    "tanhshrink": (ops.tanhshrink, F.tanhshrink),
    "glu": (lambda x: ops.glu(x, 1), lambda x: F.glu(x, 1)),
    "fast_gelu": (ops.fast_gelu,
                  lambda x: x / (1 + torch.exp(-1.702 * x.abs())) *
                  torch.exp(0.851 * (x - x.abs()))),
}


@pytest.mark.parametrize("name", sorted(ACTS))
def test_activation_values_match_torch(mode, name):
    x = _f(3, 4, 5, dtype=np.float64) * 3
    x[0, 0, :3] = [0.0, 50.0, -50.0]
    want = ACTS[name][1](torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(run(ACTS[name][0], x), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(ACTS))
def test_activation_gradients_match_torch(name):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = _f(2, 4, 3, dtype=np.float64) * 2
    _, (tg,), w = _tgrad(ACTS[name][1], x)
    (g,) = _mgrad(ACTS[name][0], w, x)
    np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)


def test_prelu_and_primitive(mode):
    x = _f(2, 3, 4)
    w = np.array([0.1, -0.2, 0.3], np.float32)
    want = F.prelu(torch.from_numpy(x), torch.from_numpy(w)).numpy()
    np.testing.assert_allclose(run(ops.prelu, x, w), want, rtol=1e-6)
    np.testing.assert_allclose(run(ops.PReLU(), x, w), want, rtol=1e-6)
    w1 = np.array([0.25], np.float32)
    np.testing.assert_allclose(run(ops.prelu, x, w1),
                               F.prelu(torch.from_numpy(x), torch.from_numpy(w1)).numpy(),
                               rtol=1e-6)


def test_prelu_gradient():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x, w = _f(2, 3, 4, dtype=np.float64), np.array([0.1, -0.2, 0.3])
    _, (tx, tw), wt = _tgrad(F.prelu, x, w)
    gx, gw = _mgrad(ops.prelu, wt, x, w)
    np.testing.assert_allclose(gx, tx, rtol=1e-10)
    np.testing.assert_allclose(gw, tw, rtol=1e-10)


def test_random_activations_are_in_their_ranges():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = _f(2000)
    y = ops.rrelu(ms.Tensor(x), 0.1, 0.3).asnumpy()
    neg = x < 0
    np.testing.assert_array_equal(y[~neg], x[~neg])
    ratio = y[neg] / x[neg]
    assert (ratio >= 0.1 - 1e-6).all() and (ratio <= 0.3 + 1e-6).all()
    assert ratio.std() > 0.03  # drawn, not fixed
    logits = _f(400, 5)
    soft = ops.gumbel_softmax(ms.Tensor(logits), 0.5).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0, rtol=1e-5)
    hard = ops.gumbel_softmax(ms.Tensor(logits), 1.0, hard=True).asnumpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()
    # the argmax of logits + Gumbel noise is a draw from softmax(logits)
    lg = np.log(np.array([0.6, 0.3, 0.1], np.float32))
    picks = ops.gumbel_softmax(ms.Tensor(np.tile(lg, (6000, 1))), 1.0, hard=True).asnumpy()
    np.testing.assert_allclose(picks.mean(0), [0.6, 0.3, 0.1], atol=0.03)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_channel_dropout(nd):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    fn = getattr(ops, f"dropout{nd}d")
    x = np.ones((8, 50) + (3,) * nd, np.float32)
    y = fn(ms.Tensor(x), 0.4).asnumpy()
    per_channel = y.reshape(8, 50, -1)
    assert all(len(np.unique(c)) == 1 for c in per_channel.reshape(400, -1))  # whole channels
    kept = per_channel[..., 0] != 0
    np.testing.assert_allclose(per_channel[..., 0][kept], 1 / 0.6, rtol=1e-6)
    assert 0.45 < kept.mean() < 0.75
    np.testing.assert_array_equal(fn(ms.Tensor(x), 0.4, False).asnumpy(), x)
    if nd > 1:
        out, mask = getattr(ops, f"Dropout{nd}D")(0.7)(ms.Tensor(x))
        np.testing.assert_allclose(out.asnumpy(), mask.asnumpy() / 0.7, rtol=1e-6)


def test_group_norm_matches_torch(mode):
    x = _f(2, 6, 3, 4, dtype=np.float64)
    w, b = _f(6, dtype=np.float64), _f(6, dtype=np.float64)
    want = F.group_norm(torch.from_numpy(x), 3, torch.from_numpy(w), torch.from_numpy(b),
                        1e-5).numpy()
    np.testing.assert_allclose(run(lambda a, p, q: ops.group_norm(a, 3, p, q), x, w, b), want,
                               rtol=1e-10, atol=1e-12)
    if mode == ms.PYNATIVE_MODE:
        _, (tx, tw, tb), wt = _tgrad(lambda a, p, q: F.group_norm(a, 2, p, q), x, w, b)
        gx, gw, gb = _mgrad(lambda a, p, q: ops.group_norm(a, 2, p, q), wt, x, w, b)
        for g, t in ((gx, tx), (gw, tw), (gb, tb)):
            np.testing.assert_allclose(g, t, rtol=1e-8, atol=1e-10)


def test_embedding_matches_torch(mode):
    w = _f(6, 4, dtype=np.float64) * 3
    idx = np.array([[0, 5, 2], [2, 3, 5]], np.int32)
    np.testing.assert_allclose(run(ops.embedding, idx, w), w[idx])
    got = run(lambda i, t: ops.embedding(i, t, max_norm=1.5), idx, w)
    want = F.embedding(torch.from_numpy(idx).long(), torch.from_numpy(w.copy()), max_norm=1.5)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
    if mode == ms.PYNATIVE_MODE:
        _, (tw,), wt = _tgrad(lambda t: F.embedding(torch.from_numpy(idx).long(), t, 2), w)
        (gw,) = _mgrad(lambda t: ops.embedding(ms.Tensor(idx), t, 2), wt, w)
        np.testing.assert_allclose(gw, tw, rtol=1e-12)


def test_channel_shuffle_fold_affine_grid(mode):
    x = _f(2, 6, 3, 2)
    np.testing.assert_array_equal(run(lambda a: ops.channel_shuffle(a, 3), x),
                                  F.channel_shuffle(torch.from_numpy(x), 3).numpy())
    np.testing.assert_array_equal(run(ops.ChannelShuffle(2), x),
                                  F.channel_shuffle(torch.from_numpy(x), 2).numpy())
    cols = _f(2, 3 * 2 * 2, 12, dtype=np.float64)
    for kw in (dict(kernel_size=2), dict(kernel_size=(2, 2), stride=2, padding=1),
               dict(kernel_size=2, dilation=2, padding=(2, 1))):
        out = (5, 6) if "stride" not in kw else (5, 5)
        tl = torch.from_numpy(cols)
        try:
            want = F.fold(tl, out, **kw).numpy()
        except RuntimeError:
            continue
        np.testing.assert_allclose(run(lambda c: ops.fold(c, out, **kw), cols), want,
                                   rtol=1e-12)
    theta = _f(2, 2, 3)
    for ac in (False, True):
        np.testing.assert_allclose(
            run(lambda t: ops.affine_grid(t, (2, 3, 4, 5), ac), theta),
            F.affine_grid(torch.from_numpy(theta), (2, 3, 4, 5), ac).numpy(), rtol=1e-5,
            atol=1e-6)
    theta3 = _f(1, 3, 4)
    np.testing.assert_allclose(
        run(lambda t: ops.affine_grid(t, (1, 1, 2, 3, 4)), theta3),
        F.affine_grid(torch.from_numpy(theta3), (1, 1, 2, 3, 4), False).numpy(), rtol=1e-5,
        atol=1e-6)


def test_losses_match_torch(mode):
    x = _f(4, 5, dtype=np.float64)
    y = np.where(RNG.random((4, 5)) > 0.5, 1.0, -1.0)
    for red in ("mean", "sum", "none"):
        got = run(lambda a, t: ops.hinge_embedding_loss(a, t, 0.7, red), x, y)
        want = F.hinge_embedding_loss(torch.from_numpy(x), torch.from_numpy(y), 0.7,
                                      reduction=red).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    target = np.array([[3, 0, -1, 1, 2], [1, 2, 4, 0, 3], [-1, 1, 2, 0, 0], [4, -1, 0, 0, 0]],
                      np.int64)
    for red in ("mean", "sum", "none"):
        got = run(lambda a, t: ops.multilabel_margin_loss(a, t, red), x, target)
        want = F.multilabel_margin_loss(torch.from_numpy(x), torch.from_numpy(target),
                                        reduction=red).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    loss, is_t = run(ops.MultilabelMarginLoss("none"), x, target)
    want_is = np.zeros_like(target)
    for i, row in enumerate(target):
        for v in row:
            if v < 0:
                break
            want_is[i, v] = 1
    np.testing.assert_array_equal(is_t, want_is)
    logit, lab = _f(3, 4, dtype=np.float64), RNG.random((3, 4))
    np.testing.assert_allclose(run(ops.SigmoidCrossEntropyWithLogits(), logit, lab),
                               F.binary_cross_entropy_with_logits(
                                   torch.from_numpy(logit), torch.from_numpy(lab),
                                   reduction="none").numpy(), rtol=1e-12)
    np.testing.assert_allclose(run(ops.BCEWithLogitsLoss("sum"), logit, lab),
                               F.binary_cross_entropy_with_logits(
                                   torch.from_numpy(logit), torch.from_numpy(lab),
                                   reduction="sum").numpy(), rtol=1e-12)
    np.testing.assert_allclose(run(ops.SmoothL1Loss(0.5, "mean"), logit, lab),
                               F.smooth_l1_loss(torch.from_numpy(logit), torch.from_numpy(lab),
                                                beta=0.5).numpy(), rtol=1e-12)
    sy = np.where(lab > 0.5, 1.0, -1.0)
    np.testing.assert_allclose(run(ops.SoftMarginLoss(), logit, sy),
                               F.soft_margin_loss(torch.from_numpy(logit),
                                                  torch.from_numpy(sy)).numpy(), rtol=1e-12)
    a, p, n = _f(3, 4, dtype=np.float64), _f(3, 4, dtype=np.float64), _f(3, 4, dtype=np.float64)
    np.testing.assert_allclose(
        run(lambda s, t, u: ops.TripletMarginLoss()(s, t, u, 1.0), a, p, n),
        F.triplet_margin_loss(*(torch.from_numpy(v) for v in (a, p, n))).numpy(), rtol=1e-10)


def test_multilabel_margin_gradient():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = _f(3, 4, dtype=np.float64)
    target = np.array([[3, 0, -1, 1], [1, 2, 0, 3], [2, -1, 0, 0]], np.int64)
    tx = torch.tensor(x, requires_grad=True)
    F.multilabel_margin_loss(tx, torch.from_numpy(target)).backward()
    g = ms.grad(lambda a: ops.multilabel_margin_loss(a, ms.Tensor(target)))(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-10)


def test_upsample_is_interpolate(mode):
    x = _f(1, 2, 3, 4)
    np.testing.assert_allclose(run(lambda a: ops.upsample(a, (6, 8), mode="bilinear",
                                                          align_corners=True), x),
                               F.interpolate(torch.from_numpy(x), (6, 8), mode="bilinear",
                                             align_corners=True).numpy(), rtol=1e-5, atol=1e-6)


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(_f(2, 3))
    with pytest.raises(ValueError, match="'glu'"):
        ops.glu(x)
    with pytest.raises(ValueError, match="'group_norm'"):
        ops.group_norm(ms.Tensor(_f(2, 6, 3)), 4)
    with pytest.raises(ValueError, match="'prelu'"):
        ops.prelu(x, ms.Tensor(_f(2)))
    with pytest.raises(TypeError, match="'embedding'"):
        ops.embedding(x, x)
    with pytest.raises(ValueError, match="'dropout2d'"):
        ops.dropout2d(x)
    with pytest.raises(ValueError, match="'fold'"):
        ops.fold(ms.Tensor(_f(1, 5, 4)), (3, 3), 2)
    with pytest.raises(ValueError, match="'channel_shuffle'"):
        ops.channel_shuffle(ms.Tensor(_f(1, 5, 2)), 2)
    with pytest.raises(ValueError, match="reduction"):
        ops.hinge_embedding_loss(x, x, reduction="avg")
