"""THOR (nn.thor, ConvertModelUtils; issue #20): the preconditioned updates of a small
Conv2d + Dense network against a float64 numpy/PyTorch transcription of the same formulas
(A from the layers' inputs and im2col patches, G from the gradients by the layers' outputs,
damped inverses, block-diagonal inverses past 128 rows, refreshed every `frequency` steps,
Momentum with weight decay), in GRAPH and PYNATIVE mode; training through Model; errors."""
import numpy as np
import pytest
import torch

import mycel as ms
import mycel.dataset as ds
from mycel import nn, Tensor
from mycel.nn.optim.thor import block_inverse
from mycel.train import Model, ConvertModelUtils

B = 4


class _Net(nn.Cell):
    def __init__(self, hidden):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, pad_mode="pad", padding=1, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(3 * 4 * 4, hidden)
        self.fc2 = nn.Dense(hidden, 5)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(self.flatten(self.relu(self.conv(x))))))


def _batches(n):
    rng = np.random.default_rng(8)
    return [(rng.standard_normal((B, 2, 8, 8)).astype(np.float32),
             rng.integers(0, 5, B).astype(np.int32)) for _ in range(n)]


def _inv(m, lam, block=128):
    """The damped inverse, block-diagonal past `block` rows (written out for the oracle)."""
    n = m.shape[0]
    out = np.zeros((n, n))
    for i in range(0, n, block):
        j = min(i + block, n)
        out[i:j, i:j] = np.linalg.inv(m[i:j, i:j] + np.sqrt(lam) * np.eye(j - i))
    return out


def _oracle(w, batches, lr, damping, mom, wd, freq, loss_scale=1.0):
    """THOR's steps in float64 with torch's autograd for the gradients: w is
    [conv.weight, conv.bias? (none), fc1.weight, fc1.bias, fc2.weight, fc2.bias]."""
    cw, f1w, f1b, f2w, f2b = [torch.tensor(a, dtype=torch.float64, requires_grad=True)
                              for a in w]
    params = [cw, f1w, f1b, f2w, f2b]
    moments = [np.zeros(p.shape) for p in params]
    inv = {}
    for step, (x, y) in enumerate(batches):
        x = torch.tensor(x, dtype=torch.float64)
        s1 = torch.nn.functional.conv2d(x, cw, stride=2, padding=1)
        s1.retain_grad()
        h = torch.relu(s1).flatten(1)
        s2 = h @ f1w.T + f1b
        s2.retain_grad()
        r2 = torch.relu(s2)
        s3 = r2 @ f2w.T + f2b
        s3.retain_grad()
        loss = torch.nn.functional.cross_entropy(s3, torch.tensor(y, dtype=torch.long))
        for p in params:
            p.grad = None
        (loss * loss_scale).backward()
        if step % freq == 0:
            lam = damping[min(step, len(damping) - 1)]
            patches = torch.nn.functional.unfold(x, 3, padding=1, stride=2)  # [B, 18, P]
            pos = patches.shape[2]
            rows = patches.permute(0, 2, 1).reshape(-1, 18).numpy()
            d1 = s1.grad.permute(0, 2, 3, 1).reshape(-1, 3).numpy()
            layers = [(rows, d1, pos), (h.detach().numpy(), s2.grad.numpy(), 1),
                      (r2.detach().numpy(), s3.grad.numpy(), 1)]
            for k, (a, d, p) in enumerate(layers):
                big_a = a.T @ a / a.shape[0]
                big_g = B / p * (d.T @ d) / loss_scale ** 2
                inv[k] = (_inv(big_a, lam) / p, _inv(big_g, lam))
        with torch.no_grad():
            for i, p in enumerate(params):
                g = p.grad.numpy() / loss_scale
                k = {0: 0, 1: 1, 3: 2}.get(i)
                if k is not None:
                    a_inv, g_inv = inv[k]
                    g = (g_inv @ g.reshape(g.shape[0], -1) @ a_inv).reshape(g.shape)
                if i != 2 and i != 4:  # weight decay on the weights (decay_filter)
                    g = g + wd * p.numpy()
                moments[i] = mom * moments[i] + g
                p -= torch.tensor(lr * moments[i])
    return [p.detach().numpy() for p in params]


@pytest.mark.parametrize("hidden", [7, 150], ids=["small", "blocks"])
def test_thor_steps_match_the_formulas(mode, hidden):
    # hidden=150: fc2's A (150 x 150) and fc1's G are inverted as blocks of 128 and 22.
    ms.set_seed(4)
    net = _Net(hidden)
    w0 = [p.asnumpy().astype(np.float64) for p in net.trainable_params()]
    damping = [0.3, 0.2, 0.1, 0.05, 0.03, 0.02, 0.01]
    opt = nn.thor(net, 0.05, damping, 0.9, weight_decay=0.01, batch_size=B, frequency=3,
                  decay_filter=lambda p: "bias" not in p.name)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = ConvertModelUtils.convert_to_thor_model(
        Model(net, loss, opt), net, loss, opt).train_network
    batches = _batches(7)  # captures at steps 0, 3 and 6
    for x, y in batches:
        step(Tensor(x), Tensor(y))
    want = _oracle(w0, batches, 0.05, damping, 0.9, 0.01, 3)
    for p, w in zip(net.trainable_params(), want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=2e-4, atol=2e-5, err_msg=p.name)
    # the preconditioning changed the steps: plain Momentum ends elsewhere
    plain = _oracle(w0, batches, 0.05, [1e12], 0.9, 0.01, 3)
    assert not np.allclose(want[2], plain[2], atol=1e-3)


def test_block_inverse_is_the_damped_inverse_of_each_block():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((400, 300))
    m = x.T @ x / 400
    got = block_inverse(m, 0.04)
    np.testing.assert_allclose(got[:128, :128], np.linalg.inv(m[:128, :128] + 0.2 * np.eye(128)),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[256:, 256:], np.linalg.inv(m[256:, 256:] + 0.2 * np.eye(44)),
                               rtol=1e-4, atol=1e-5)
    assert not got[:128, 128:].any()


def test_thor_trains_through_model(mode):
    # A Model over a dataset (the last batch smaller: no capture on it), in sink mode too.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((30, 2, 8, 8)).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 0).astype(np.int32)
    data = ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False).batch(B)
    ms.set_seed(2)
    net = _Net(7)
    opt = nn.thor(net, 0.01, 0.1, 0.9, batch_size=B, frequency=5)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ConvertModelUtils.convert_to_thor_model(Model(net, loss, opt, metrics={"loss"}),
                                                    net, loss, opt)
    before = model.eval(data)["loss"]
    model.train(3, data, dataset_sink_mode=True)
    model.train(2, data)
    assert model.eval(data)["loss"] < 0.8 * before


def test_thor_errors():
    net = _Net(7)
    with pytest.raises(ValueError, match="'frequency' must be an int >= 2"):
        nn.thor(net, 0.1, 0.1, 0.9, frequency=1)
    with pytest.raises(ValueError, match="'momentum' must be a float >= 0.0"):
        nn.thor(net, 0.1, 0.1, -0.5)
    with pytest.raises(ValueError, match="'damping' must be non-negative"):
        nn.thor(net, 0.1, [-1.0], 0.9)
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        nn.thor("net", 0.1, 0.1, 0.9)
    opt = nn.thor(net, 0.1, 0.1, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    with pytest.raises(ValueError, match="THOR with amp_level 'O2' is not built"):
        ConvertModelUtils.convert_to_thor_model(Model(net, loss, opt), net, loss, opt,
                                                amp_level="O2")
    # a Dense layer on 3-d inputs cannot be captured: a ValueError naming it
    seq = nn.SequentialCell([nn.Dense(4, 3)])
    topt = nn.thor(seq, 0.1, 0.1, 0.9, batch_size=2)
    step = ConvertModelUtils.convert_to_thor_model(Model(seq, nn.MSELoss(), topt), seq,
                                                   nn.MSELoss(), topt).train_network
    with pytest.raises(ValueError, match="'0' is called on 3-d inputs"):
        step(Tensor(np.ones((2, 5, 4), np.float32)), Tensor(np.ones((2, 5, 3), np.float32)))
    other = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = Model(net, loss, other)
    assert ConvertModelUtils.convert_to_thor_model(model, net, loss, other) is model
