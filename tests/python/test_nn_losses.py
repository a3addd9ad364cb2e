"""Loss cells and WithLossCell against PyTorch: value and gradient with respect to the logits
(and through a network for WithLossCell), in PYNATIVE and GRAPH mode, float32 and float64."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import nn, Tensor

MODES = (ms.PYNATIVE_MODE, ms.GRAPH_MODE)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


R = np.random.RandomState(0)
LOGITS = R.randn(5, 4)
CLASSES = np.array([0, 3, 1, 3, 2])
PROBS = np.abs(R.randn(5, 4))
PROBS /= PROBS.sum(1, keepdims=True)
TARGET = R.randn(5, 4)
BINARY = (R.rand(5, 4) > 0.5).astype(np.float64)
CW = np.array([0.5, 1.0, 2.0, 1.5])

# (id, mycel cell factory, torch loss of (logits, labels), labels, labels' torch dtype)
CASES = [
    ("L1/mean", lambda: nn.L1Loss(), lambda x, y: F.l1_loss(x, y), TARGET, None),
    ("L1/sum", lambda: nn.L1Loss("sum"), lambda x, y: F.l1_loss(x, y, reduction="sum"),
     TARGET, None),
    ("MSE/mean", lambda: nn.MSELoss(), lambda x, y: F.mse_loss(x, y), TARGET, None),
    ("MSE/none", lambda: nn.MSELoss("none"), lambda x, y: F.mse_loss(x, y, reduction="none"),
     TARGET, None),
    ("CE/indices", lambda: nn.CrossEntropyLoss(), lambda x, y: F.cross_entropy(x, y),
     CLASSES, torch.long),
    ("CE/weighted_ignore", lambda: nn.CrossEntropyLoss(Tensor(CW), ignore_index=1),
     lambda x, y: F.cross_entropy(x, y, torch.tensor(CW, dtype=x.dtype), ignore_index=1),
     CLASSES, torch.long),
    ("CE/smoothing_sum", lambda: nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.1),
     lambda x, y: F.cross_entropy(x, y, reduction="sum", label_smoothing=0.1),
     CLASSES, torch.long),
    ("CE/probabilities", lambda: nn.CrossEntropyLoss(), lambda x, y: F.cross_entropy(x, y),
     PROBS, None),
    ("NLL", lambda: nn.NLLLoss(), lambda x, y: F.nll_loss(x, y), CLASSES, torch.long),
    ("BCEWithLogits", lambda: nn.BCEWithLogitsLoss(),
     lambda x, y: F.binary_cross_entropy_with_logits(x, y), BINARY, None),
    ("BCEWithLogits/pos_weight",
     lambda: nn.BCEWithLogitsLoss(pos_weight=Tensor(CW)),
     lambda x, y: F.binary_cross_entropy_with_logits(
         x, y, pos_weight=torch.tensor(CW, dtype=x.dtype)), BINARY, None),
    ("SoftmaxCE/sparse_mean", lambda: nn.SoftmaxCrossEntropyWithLogits(True, "mean"),
     lambda x, y: F.cross_entropy(x, y), CLASSES, torch.long),
    ("SoftmaxCE/onehot_none", lambda: nn.SoftmaxCrossEntropyWithLogits(),
     lambda x, y: F.cross_entropy(x, y, reduction="none"), np.eye(4)[CLASSES], None),
]


def as_mycel(a, dtype):
    if np.issubdtype(np.asarray(a).dtype, np.integer):
        return Tensor(np.asarray(a, np.int32))
    return Tensor(np.asarray(a, dtype))


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_loss_value_and_gradient_match_torch(case, dtype, mode):
    _, make, ref, labels, tdt = case
    tl = torch.tensor(labels, dtype=tdt) if tdt else torch.tensor(np.asarray(labels, dtype))
    tx = torch.tensor(LOGITS.astype(dtype), requires_grad=True)
    want = ref(tx, tl)
    (gwant,) = torch.autograd.grad(want.sum(), tx)
    ms.set_context(mode=mode)
    loss = make()
    x, y = Tensor(LOGITS.astype(dtype)), as_mycel(labels, dtype)
    value_fn = ms.value_and_grad(lambda a, b: loss(a, b).sum())
    got, grad = value_fn(x, y)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss(x, y).asnumpy(), want.detach().numpy(), **tol)
    np.testing.assert_allclose(got.asnumpy(), want.sum().detach().numpy(), **tol)
    np.testing.assert_allclose(grad.asnumpy(), gwant.numpy(), **tol)


def test_bad_reduction():
    with pytest.raises(ValueError, match="'reduction' must be one of"):
        nn.MSELoss("average")
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
def test_with_loss_cell_weights_gradients(mode):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = nn.Dense(4, 3)
    x = np.random.RandomState(1).randn(6, 4).astype(np.float32)
    y = np.array([0, 2, 1, 1, 0, 2], np.int32)
    w = torch.tensor(net.weight.asnumpy(), requires_grad=True)
    b = torch.tensor(net.bias.asnumpy(), requires_grad=True)
    want = F.cross_entropy(torch.tensor(x) @ w.T + b, torch.tensor(y).long())
    gw, gb = torch.autograd.grad(want, (w, b))
    ms.set_context(mode=mode)
    train = nn.WithLossCell(net, nn.CrossEntropyLoss())
    assert train.backbone_network is net
    value, grads = ms.value_and_grad(train, None, train.trainable_params())(Tensor(x),
                                                                             Tensor(y))
    np.testing.assert_allclose(value.asnumpy(), want.detach().numpy(), rtol=1e-5)
    names = [p.name for p in train.trainable_params()]
    ref = {"weight": gw.numpy(), "bias": gb.numpy()}
    for name, g in zip(names, grads):
        np.testing.assert_allclose(g.asnumpy(), ref[name.split(".")[-1]], rtol=1e-5, atol=1e-6)
