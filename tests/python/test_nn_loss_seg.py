"""nn.DiceLoss, nn.MultiClassDiceLoss and nn.FocalLoss against the formulas written out in
torch (values and gradients), both modes; argument and shape errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn


def _focal_torch(x, y, gamma, weight=None, index=True):
    n, c = x.shape[:2]
    x = x.reshape(n, c, -1)
    logp = torch.log_softmax(x, 1)
    if weight is not None:
        wt = weight.reshape(1, c, 1).expand_as(logp)
    if index:
        idx = y.reshape(n, 1, -1).long()
        logp = logp.gather(1, idx)[:, 0]
        p = logp.exp()
        if weight is not None:
            logp = logp * wt.gather(1, idx)[:, 0]
        return (-(1 - p) ** gamma * logp).mean(1)
    p = logp.exp()
    if weight is not None:
        logp = logp * wt
    return (-(1 - p) ** gamma * y.reshape(n, c, -1) * logp).mean(-1)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_focal_loss_against_torch(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    lab = rng.integers(0, 3, (2, 4, 5)).astype(np.int32)
    w = np.array([1.0, 2.0, 0.5], np.float32)
    for weight, red in ((None, "mean"), (w, "sum"), (w, "none")):
        loss = nn.FocalLoss(weight=None if weight is None else Tensor(weight), gamma=1.5,
                            reduction=red)
        tx = torch.tensor(x, requires_grad=True)
        ref = _focal_torch(tx, torch.tensor(lab), 1.5,
                           None if weight is None else torch.tensor(weight))
        ref = ref.mean() if red == "mean" else ref.sum() if red == "sum" else ref
        got = loss(Tensor(x), Tensor(lab))
        np.testing.assert_allclose(got.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
        if red != "none":
            ref.backward()
            g = ms.grad(lambda a: loss(a, Tensor(lab)))(Tensor(x))
            np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    onehot = np.eye(3, dtype=np.float32)[lab].transpose(0, 3, 1, 2)
    got = nn.FocalLoss(gamma=2.0)(Tensor(x), Tensor(onehot))
    ref = _focal_torch(torch.tensor(x), torch.tensor(onehot), 2.0, index=False).mean()
    np.testing.assert_allclose(got.asnumpy(), ref.numpy(), rtol=1e-5)


def test_focal_loss_arguments():
    with pytest.raises(TypeError):
        nn.FocalLoss(gamma="mmm")
    with pytest.raises(TypeError):
        nn.FocalLoss(weight="a")
    with pytest.raises(ValueError):
        nn.FocalLoss(reduction="m")


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_dice_losses_against_torch(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(1)
    p = rng.random((4, 3)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 4)]

    def dice(a, b):
        return 1 - 2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 1e-5)
    tp, ty = torch.tensor(p), torch.tensor(y)
    got = nn.DiceLoss()(Tensor(p), Tensor(y))
    assert float(got.asnumpy()) == pytest.approx(dice(tp, ty).item(), rel=1e-5)
    sm = torch.softmax(tp, -1)
    weights = torch.tensor([1.0, 0.5, 2.0])
    want = sum(dice(sm[:, i], ty[:, i]) * weights[i] for i in range(3) if i != 1) / 3
    got = nn.MultiClassDiceLoss(weights=Tensor(weights.numpy()), ignore_indiex=1)(Tensor(p),
                                                                                 Tensor(y))
    assert float(got.asnumpy()) == pytest.approx(want.item(), rel=1e-5)
    sg = torch.sigmoid(tp)
    want = sum(dice(sg[:, i], ty[:, i]) for i in range(3)) / 3
    got = nn.MultiClassDiceLoss(activation="sigmoid")(Tensor(p), Tensor(y))
    assert float(got.asnumpy()) == pytest.approx(want.item(), rel=1e-5)
    with pytest.raises(ValueError, match="one shape"):
        nn.DiceLoss()(Tensor(p), Tensor(y[:2]))
    with pytest.raises(ValueError, match="one shape"):
        nn.MultiClassDiceLoss()(Tensor(p), Tensor(y[:2]))
    with pytest.raises(TypeError):
        nn.MultiClassDiceLoss(weights="1")


def test_multi_class_dice_loss_activation_argument():
    with pytest.raises(TypeError):
        nn.MultiClassDiceLoss(activation=2)
    with pytest.raises(ValueError):
        nn.MultiClassDiceLoss(activation="relu")
    with pytest.raises(TypeError):
        nn.MultiClassDiceLoss(ignore_indiex="2")
