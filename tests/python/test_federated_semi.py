"""Semi-supervised federated learning (mycel.federated.semi_supervised): the pseudo-labels and
their mask against numpy's softmax, argmax and threshold; the masked loss against numpy; a
simulation in which most clients hold only unlabeled data and reach a clearly higher test
accuracy than the labeled clients alone, from the same start; the argument checks. Both modes.

The data: a mixture of four Gaussians in 20 dimensions (seeded), a linear classifier; 2 clients
hold 6 labeled samples each, 8 clients 200 unlabeled samples each. Loopback servers only."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel.federated import (FLServer, PseudoLabeler, PseudoLabelLoss, SemiSupervisedClient,
                             load_weights, network_weights, simulate)

from test_federated import TIMEOUT, config, mode  # noqa: F401

K, D = 4, 20


def numpy_pseudo_labels(logits, threshold):
    z = logits.astype(np.float64) - logits.max(1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    return p.argmax(1), (p.max(1) >= threshold).astype(np.float32)


def dense_logits(weights, x):
    return x.astype(np.float64) @ weights["weight"].T + weights["bias"]


def test_pseudo_labels_are_numpys_argmax_above_the_threshold(mode):
    rng = np.random.default_rng(0)
    ms.set_seed(0)
    net = nn.Dense(D, K)
    x = (3 * rng.standard_normal((300, D))).astype(np.float32)
    logits = dense_logits(network_weights(net), x)
    for t in (0.5, 0.8, 0.95):
        labels, mask = PseudoLabeler(net, t)(ms.Tensor(x))
        want_labels, want_mask = numpy_pseudo_labels(logits, t)
        assert labels.asnumpy().dtype == np.int32
        np.testing.assert_array_equal(labels.asnumpy(), want_labels)
        np.testing.assert_array_equal(mask.asnumpy(), want_mask)
        assert 0 < want_mask.sum() < len(x)  # the threshold selects some, not all


def test_the_masked_loss_is_numpys(mode):
    rng = np.random.default_rng(1)
    ms.set_seed(0)
    net = nn.Dense(D, K)
    x = rng.standard_normal((16, D)).astype(np.float32)
    labels = rng.integers(0, K, 16).astype(np.int32)
    mask = (rng.random(16) < 0.5).astype(np.float32)
    got = PseudoLabelLoss(net, 2.5)(ms.Tensor(x), ms.Tensor(labels), ms.Tensor(mask))
    z = dense_logits(network_weights(net), x)
    z -= z.max(1, keepdims=True)
    ce = -(z[np.arange(16), labels] - np.log(np.exp(z).sum(1)))
    np.testing.assert_allclose(float(got.asnumpy()), 2.5 * (ce * mask).sum() / 16, rtol=1e-5)


def mixture(seed=0):
    rng = np.random.default_rng(seed)
    means = rng.standard_normal((K, D))
    means *= 3.5 / np.linalg.norm(means, axis=1, keepdims=True)

    def draw(n):
        y = rng.integers(0, K, n).astype(np.int32)
        return (means[y] + rng.standard_normal((n, D))).astype(np.float32), y
    test = draw(4000)
    labeled = [draw(6) for _ in range(2)]
    unlabeled = [draw(200)[0] for _ in range(8)]
    return test, labeled, unlabeled


class LabeledClient:
    """A client with labels: 20 full-batch SGD steps a round."""

    def __init__(self, cid, x, y, net, step):
        self.client_id, self.x, self.y, self.data_size = cid, x, y, len(y)
        self.net, self.step = net, step

    def train(self, weights):
        load_weights(self.net, weights)
        for _ in range(20):
            self.step(ms.Tensor(self.x), ms.Tensor(self.y))
        return network_weights(self.net)


def accuracy(weights, x, y):
    return float((dense_logits(weights, x).argmax(1) == y).mean())


def rounds(tmp_path, name, start, clients, n):
    tmp = tmp_path / name
    tmp.mkdir()
    with FLServer(config(tmp, start, rounds=n, threshold=len(clients)),
                  log_to_stderr=False) as server:
        history = simulate(server.address, clients, n, timeout=TIMEOUT)
    assert [h["iteration"] for h in history] == list(range(1, n + 1))
    assert all(h["uploaded"] == len(clients) for h in history)
    return history


def test_unlabeled_clients_raise_accuracy_above_the_labeled_clients_alone(tmp_path, mode):
    (xt, yt), labeled, unlabeled = mixture()
    ms.set_seed(0)
    net = nn.Dense(D, K)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
    with_labels = [LabeledClient(f"l{i}", x, y, net, step) for i, (x, y) in enumerate(labeled)]
    # the labeled clients first train the model that labels the others (20 rounds)
    start = rounds(tmp_path, "warm", network_weights(net), with_labels, 20)[-1]["weights"]
    alone = rounds(tmp_path, "alone", start, with_labels, 20)
    semi_clients = [SemiSupervisedClient(f"u{i}", net, nn.SGD(net.trainable_params(), 0.1), x,
                                         pseudo_label_threshold=0.8, epochs=5, seed=i)
                    for i, x in enumerate(unlabeled)]
    semi = rounds(tmp_path, "semi", start, with_labels + semi_clients, 20)
    acc_start = accuracy(start, xt, yt)
    acc_alone = accuracy(alone[-1]["weights"], xt, yt)
    acc_semi = accuracy(semi[-1]["weights"], xt, yt)
    assert acc_alone < acc_start + 0.02  # the 12 labels are exhausted: about 0.81
    assert acc_semi > acc_alone + 0.08, (acc_start, acc_alone, acc_semi)  # about 0.96
    # each unlabeled client trained on the global model's confident labels of its last round
    u = semi_clients[0]
    want_labels, want_mask = numpy_pseudo_labels(dense_logits(semi[-2]["weights"], u.x), 0.8)
    np.testing.assert_array_equal(u.last_labels, want_labels)
    np.testing.assert_array_equal(u.last_mask, want_mask)
    assert want_mask.mean() > 0.8


def test_a_strong_augmentation_is_what_the_client_trains_on(mode):
    (_, _), _, unlabeled = mixture()
    ms.set_seed(0)
    net = nn.Dense(D, K)
    seen = {"weak": 0, "strong": 0}

    def weak(batch, rng):
        seen["weak"] += len(batch)
        return batch

    def strong(batch, rng):  # noise and a random half of the features dropped
        seen["strong"] += len(batch)
        keep = rng.random(batch.shape) < 0.5
        return (batch * keep * 2 + 0.3 * rng.standard_normal(batch.shape)).astype(np.float32)
    client = SemiSupervisedClient("u", net, nn.SGD(net.trainable_params(), 0.1), unlabeled[0],
                                  pseudo_label_threshold=1 / K, weak_transform=weak,
                                  strong_transform=strong, batch_size=50, epochs=2)
    w0 = network_weights(net)
    w1 = client.train(w0)
    assert client.last_mask.all()  # a top probability of K classes is at least 1 / K
    assert seen["weak"] == 200 and seen["strong"] == 2 * 200  # 2 epochs
    assert not np.array_equal(w1["weight"], w0["weight"])


def test_semi_supervised_arguments_are_checked():
    net = nn.Dense(D, K)
    opt = nn.SGD(net.trainable_params(), 0.1)
    x = np.zeros((4, D), np.float32)
    for t, kind in ((0, ValueError), (1.5, ValueError), (True, TypeError), ("0.9", TypeError)):
        with pytest.raises(kind, match="pseudo_label_threshold"):
            SemiSupervisedClient("u", net, opt, x, pseudo_label_threshold=t)
    with pytest.raises(ValueError, match="unlabeled_loss_weight"):
        PseudoLabelLoss(net, -1.0)
    with pytest.raises(TypeError, match="unlabeled_loss_weight"):
        PseudoLabelLoss(net, None)
    with pytest.raises(ValueError, match="x_unlabeled"):
        SemiSupervisedClient("u", net, opt, np.zeros((0, D), np.float32))
    with pytest.raises(ValueError, match="batch_size"):
        SemiSupervisedClient("u", net, opt, x, batch_size=0)
    with pytest.raises(TypeError, match="strong_transform"):
        SemiSupervisedClient("u", net, opt, x, strong_transform=3)
