"""Preset networks (mycel.models; issue #20): ResNet-18 (full width), ResNet-50 (narrow) and the
Transformer encoder classifier (one layer) equal PyTorch models of the same architecture on
the same weights (to 1e-4, in inference and, for the ResNets, training mode: BatchNorm on the
batch's statistics), in both modes; and each trains in GRAPH mode (the loss falls over a few
steps on a fixed batch). ResNet-18's parameter gradients equal torch's autograd."""
import numpy as np
import pytest
import torch
from torch import nn as tnn

import mycel as ms
from mycel import nn, Tensor
from mycel.models import resnet18, resnet50, TransformerEncoderClassifier

_RENAME = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
           "moving_variance": "running_var", "embedding_table": "weight", "dense1": "linear1",
           "dense2": "linear2"}


def _torch_name(name):
    return ".".join(_RENAME.get(part, part) for part in name.split("."))


def _copy_weights(net, tnet):
    """tnet's parameters and buffers set to net's, by name; every one of tnet's is set."""
    state = tnet.state_dict()
    seen = set()
    for p in net.get_parameters():
        name = _torch_name(p.name)
        assert state[name].shape == tuple(p.shape), name
        state[name] = torch.tensor(p.asnumpy())
        seen.add(name)
    assert seen == {k for k in state if not k.endswith("num_batches_tracked")}
    tnet.load_state_dict(state)


class _TBasic(tnn.Module):
    expansion = 1

    def __init__(self, cin, width, stride):
        super().__init__()
        self.conv1 = tnn.Conv2d(cin, width, 3, stride, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(width)
        self.conv2 = tnn.Conv2d(width, width, 3, 1, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(width)
        self.down_sample = _tshort(cin, width, stride)

    def forward(self, x):
        out = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(out + (x if self.down_sample is None else self.down_sample(x)))


class _TBottleneck(tnn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        self.conv1 = tnn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(width)
        self.conv2 = tnn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(width)
        self.conv3 = tnn.Conv2d(width, width * 4, 1, bias=False)
        self.bn3 = tnn.BatchNorm2d(width * 4)
        self.down_sample = _tshort(cin, width * 4, stride)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn3(self.conv3(torch.relu(self.bn2(self.conv2(out)))))
        return torch.relu(out + (x if self.down_sample is None else self.down_sample(x)))


def _tshort(cin, cout, stride):
    if stride == 1 and cin == cout:
        return None
    return tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride, bias=False), tnn.BatchNorm2d(cout))


class _TResNet(tnn.Module):
    def __init__(self, block, layers, classes, widths):
        super().__init__()
        self.conv1 = tnn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
        self.bn1 = tnn.BatchNorm2d(widths[0])
        cin = widths[0]
        for i, (n, w) in enumerate(zip(layers, widths)):
            blocks = []
            for j in range(n):
                blocks.append(block(cin, w, 2 if i > 0 and j == 0 else 1))
                cin = w * block.expansion
            setattr(self, f"layer{i + 1}", tnn.Sequential(*blocks))
        self.fc = tnn.Linear(cin, classes)

    def forward(self, x):
        x = tnn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(x.mean((2, 3)))


def _randomize_bn_stats(net, rng):
    for p in net.get_parameters():
        if p.name.endswith("moving_mean") or p.name.endswith("gamma"):
            p.set_data(Tensor((rng.standard_normal(p.shape) * 0.1 +
                               (1.0 if p.name.endswith("gamma") else 0.0)).astype(np.float32)))
        elif p.name.endswith("moving_variance"):
            p.set_data(Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))


@pytest.mark.parametrize("arch", ["resnet18", "resnet50_narrow"])
def test_resnet_equals_torch(mode, arch):
    ms.set_seed(1)
    rng = np.random.default_rng(0)
    if arch == "resnet18":
        net, tnet = resnet18(10), _TResNet(_TBasic, (2, 2, 2, 2), 10, (64, 128, 256, 512))
    else:
        widths = (8, 16, 24, 32)
        net, tnet = resnet50(10, widths=widths), _TResNet(_TBottleneck, (3, 4, 6, 3), 10, widths)
    _randomize_bn_stats(net, rng)
    _copy_weights(net, tnet)
    x = rng.standard_normal((2, 3, 64, 64)).astype(np.float32)
    for training in (False, True):
        net.set_train(training)
        tnet.train(training)
        got = net(Tensor(x)).asnumpy()
        with torch.no_grad():
            want = tnet(torch.tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4,
                                   err_msg=f"training={training}")


def test_resnet18_gradients_equal_torch(mode):
    # Every convolution pass in ResNet's geometries (the last stage's 2x2 outputs run on the
    # batched-sgemm kernels, the others on oneDNN's) against torch's autograd on the same
    # weights: the loss's gradient with respect to each parameter, in training mode.
    _resnet18_gradients_vs_torch()


def test_resnet18_fused_gradients_equal_torch():
    # The same with graph-kernel fusion (GRAPH mode): BatchNorm and its gradient expanded into
    # generated kernels with their ReLU and residual Add (compiler/passes/graph_kernel_expand.h).
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=True)
    try:
        _resnet18_gradients_vs_torch()
    finally:
        ms.set_context(mode=old, enable_graph_kernel=False)


def _resnet18_gradients_vs_torch():
    ms.set_seed(1)
    rng = np.random.default_rng(2)
    net, tnet = resnet18(10), _TResNet(_TBasic, (2, 2, 2, 2), 10, (64, 128, 256, 512))
    _randomize_bn_stats(net, rng)
    _copy_weights(net, tnet)
    net.set_train(True)
    tnet.train(True)
    x = rng.standard_normal((4, 3, 64, 64)).astype(np.float32)
    y = rng.integers(0, 10, 4).astype(np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    weights = net.trainable_params()
    value, grads = ms.ops.value_and_grad(nn.WithLossCell(net, loss), None, weights)(
        Tensor(x), Tensor(y))
    tloss = tnn.functional.cross_entropy(tnet(torch.tensor(x)), torch.tensor(y).long())
    tloss.backward()
    np.testing.assert_allclose(value.asnumpy(), tloss.item(), rtol=1e-5)
    tparams = dict(tnet.named_parameters())
    for w, g in zip(weights, grads):
        want = tparams[_torch_name(w.name)].grad.numpy()
        scale = np.abs(want).max()
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-3, atol=1e-4 * scale,
                                   err_msg=w.name)


class _TEncoder(tnn.Module):
    def __init__(self, vocab, classes, d, nhead, ff, max_len):
        super().__init__()
        self.tok = tnn.Embedding(vocab, d)
        self.pos = tnn.Embedding(max_len, d)
        self.norm = tnn.LayerNorm(d, eps=1e-7)  # MindSpore's LayerNorm epsilon
        layer = tnn.TransformerEncoderLayer(d, nhead, ff, 0.0, "gelu", batch_first=True)
        self.encoder = tnn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = tnn.Linear(d, classes)

    def forward(self, ids, pad=None):
        x = self.norm(self.tok(ids) + self.pos(torch.arange(ids.shape[1])))
        x = self.encoder(x, src_key_padding_mask=pad)
        if pad is None:
            return self.head(x.mean(1))
        keep = (~pad).float().unsqueeze(2)
        return self.head((x * keep).sum(1) / keep.sum(1))


def test_encoder_layer_equals_torch(mode):
    ms.set_seed(2)
    net = TransformerEncoderClassifier(40, 3, d_model=32, nhead=4, num_layers=1,
                                       dim_feedforward=64, max_len=16)
    tnet = _TEncoder(40, 3, 32, 4, 64, 16)
    _copy_weights(net, tnet)
    net.set_train(False)
    tnet.eval()
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 40, (3, 10)).astype(np.int32)
    pad = np.zeros((3, 10), bool)
    pad[1, 7:] = True
    with torch.no_grad():
        want = tnet(torch.tensor(ids, dtype=torch.long)).numpy()
        want_pad = tnet(torch.tensor(ids, dtype=torch.long), torch.tensor(pad)).numpy()
    np.testing.assert_allclose(net(Tensor(ids)).asnumpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(net(Tensor(ids), Tensor(pad)).asnumpy(), want_pad, rtol=1e-4,
                               atol=1e-4)


# ResNet-50 has 161 parameter tensors: the optimizer's loop over them (different shapes)
# unrolls past the specialiser's kMaxUnroll, up to kMaxUnrolledLoop, so it trains in GRAPH
# mode as well as PYNATIVE.
@pytest.mark.parametrize("arch,graph", [("resnet18", True), ("resnet50", True),
                                        ("resnet50", False), ("encoder", True)])
def test_preset_trains(arch, graph):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    try:
        ms.set_seed(5)
        rng = np.random.default_rng(5)
        if arch == "encoder":
            net = TransformerEncoderClassifier(30, 4, d_model=32, nhead=4, num_layers=2,
                                               dim_feedforward=64, max_len=12, dropout=0.0)
            x = Tensor(rng.integers(0, 30, (16, 12)).astype(np.int32))
        else:
            make = resnet18 if arch == "resnet18" else resnet50
            net = make(4, widths=(8, 8, 16, 16))
            x = Tensor(rng.standard_normal((16, 3, 32, 32)).astype(np.float32))
        y = Tensor(rng.integers(0, 4, 16).astype(np.int32))
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                   nn.Momentum(net.trainable_params(), 0.05, 0.9))
        step.set_train(True)
        losses = [float(step(x, y).asnumpy()) for _ in range(12)]
        assert np.isfinite(losses).all()
        assert losses[-1] < 0.5 * losses[0], losses
    finally:
        ms.set_context(mode=old)
