"""mycel.armour.fuzz_testing: coverage metrics against a numpy computation of the same
criteria on a tiny network, the mutations against numpy/torch equivalents, and the Fuzzer on
LeNet-5 trained briefly on Fashion-MNIST (coverage non-decreasing over iterations and growing,
misclassified inputs found from correctly classified seeds), in both modes."""
import os

import numpy as np
import pytest
import torch

import mycel as ms
import mycel.dataset  # noqa: F401 (Fashion-MNIST for the fuzzer test)
from mycel import Tensor, nn
from mycel.armour.fuzz_testing import (Fuzzer, KMultisectionNeuronCoverage,
                                       NeuronBoundsCoverage, NeuronCoverage,
                                       SuperNeuronActivateCoverage, TopKNeuronCoverage)
from mycel.armour.fuzz_testing import mutations as mut
from mycel.train import Model

FASHION = "/usr/share/datasets/fashion-mnist"


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    """Runs the test in each mode and restores PYNATIVE afterwards."""
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2, 3)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def tiny():
    net = Tiny()
    rng = np.random.RandomState(0)
    ws = [rng.randn(3, 2), rng.randn(3), rng.randn(2, 3), rng.randn(2)]
    for p, w in zip(net.trainable_params(), ws):
        p.set_data(Tensor(w.astype(np.float32)))
    return net, ws


def tiny_neurons(x, ws):
    h = x @ ws[0].T + ws[1]
    return np.hstack([h, np.maximum(h, 0) @ ws[2].T + ws[3]])  # fc1's 3 then fc2's 2


def test_coverage_metrics_match_a_hand_computation(mode):
    net, ws = tiny()
    rng = np.random.RandomState(1)
    train = rng.randn(50, 2).astype(np.float32)
    test = rng.randn(7, 2).astype(np.float32) * 1.5
    acts = tiny_neurons(test.astype(np.float64), ws)
    ref_acts = tiny_neurons(train.astype(np.float64), ws)
    model = Model(net)

    nc = NeuronCoverage(model, threshold=0.3)
    assert nc.layers == ["fc1", "fc2"]
    np.testing.assert_allclose(nc.activations(test), acts, rtol=1e-5, atol=1e-5)
    assert nc.get_metrics(test) == pytest.approx((acts > 0.3).any(0).mean())

    topk = TopKNeuronCoverage(model, top_k=1)
    hit = np.zeros(5, bool)
    for row in acts:
        hit[np.argmax(row[:3])] = True
        hit[3 + np.argmax(row[3:])] = True
    assert topk.get_metrics(test) == pytest.approx(hit.mean())

    k = 4
    kmnc = KMultisectionNeuronCoverage(model, train, segmented_num=k)
    lo, hi = ref_acts.min(0), ref_acts.max(0)
    sections = set()
    for row in acts:
        for j, v in enumerate(row):
            if lo[j] <= v <= hi[j]:
                sections.add((j, min(int((v - lo[j]) / (hi[j] - lo[j]) * k), k - 1)))
    assert kmnc.get_metrics(test) == pytest.approx(len(sections) / (5 * k))

    nbc = NeuronBoundsCoverage(model, train)
    corners = (acts < lo).any(0).sum() + (acts > hi).any(0).sum()
    assert corners > 0
    assert nbc.get_metrics(test) == pytest.approx(corners / 10)
    snac = SuperNeuronActivateCoverage(model, train)
    wide = np.vstack([test, 1.5 * test])  # a neuron above its training maximum
    above = (tiny_neurons(wide.astype(np.float64), ws) > hi).any(0)
    assert 0 < above.sum() < 5
    assert snac.get_metrics(wide) == pytest.approx(above.mean())

    # the network is given back as it was, in the mode it was in
    assert isinstance(net.fc1, nn.Dense) and net._cells["fc2"] is net.fc2
    net.set_train(True)
    nc.get_metrics(test)
    assert net.training and net.fc1.training
    assert ms.get_context("mode") == (ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)


def test_incremental_coverage_accumulates():
    net, ws = tiny()
    rng = np.random.RandomState(2)
    a, b = rng.randn(3, 2).astype(np.float32), rng.randn(3, 2).astype(np.float32) * 2
    both = (tiny_neurons(np.vstack([a, b]).astype(np.float64), ws) > 0.2).any(0).mean()
    inc = NeuronCoverage(net, threshold=0.2, incremental=True)
    inc.get_metrics(a)
    assert inc.get_metrics(b) == pytest.approx(both)
    fresh = NeuronCoverage(net, threshold=0.2)
    fresh.get_metrics(a)
    assert fresh.get_metrics(b) == pytest.approx(
        (tiny_neurons(b.astype(np.float64), ws) > 0.2).any(0).mean())


def test_convolution_neurons_are_channel_means():
    conv = nn.SequentialCell([nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True), nn.Flatten()])
    x = np.random.RandomState(3).randn(5, 1, 6, 6).astype(np.float32)
    cov = NeuronCoverage(conv)
    assert cov.layers == ["0"]
    w = torch.tensor(conv[0].weight.asnumpy())
    b = torch.tensor(conv[0].bias.asnumpy())
    ref = torch.nn.functional.conv2d(torch.tensor(x), w, b).mean((2, 3)).numpy()
    np.testing.assert_allclose(cov.activations(x), ref, rtol=1e-5, atol=1e-5)


def test_mutations_against_numpy():
    rng = np.random.RandomState(4)
    img = rng.rand(1, 9, 9).astype(np.float32)
    shifted = mut.translate(img, rng, x_bias=2 / 9, y_bias=-1 / 9)
    ref = np.zeros_like(img)
    ref[:, :8, 2:] = img[:, 1:, :7]
    np.testing.assert_allclose(shifted, ref, atol=1e-5)
    np.testing.assert_allclose(mut.rotate(img, rng, angle=90)[0], np.rot90(img[0], 1),
                               atol=1e-5)
    np.testing.assert_allclose(mut.gaussian_blur(np.full((2, 7, 7), 0.3, np.float32), rng, 5),
                               0.3, rtol=1e-6)
    np.testing.assert_allclose(mut.contrast(img, rng, alpha=1.5, beta=0.1), img * 1.5 + 0.1,
                               rtol=1e-6)
    np.testing.assert_allclose(mut.scale(img, rng, 1.0, 1.0), img, atol=1e-6)
    assert mut.salt_and_pepper_noise(img, rng, factor=1.0).std() > img.std()


def test_fgsm_mutation_follows_the_loss_gradient_sign(mode):
    net, ws = tiny()
    fuzzer = Fuzzer(Model(net))
    img = np.array([0.3, -0.7], np.float32)
    out = fuzzer._adversarial("FGSM", img, 1, {"eps": 0.1, "bounds": (-1.0, 1.0)})
    x = torch.tensor(img[None].astype(np.float64), requires_grad=True)
    t = [torch.tensor(w) for w in ws]
    logits = torch.relu(x @ t[0].T + t[1]) @ t[2].T + t[3]
    torch.nn.functional.cross_entropy(logits, torch.tensor([1])).backward()
    ref = np.clip(img + 0.2 * np.sign(x.grad.numpy()[0]), -1, 1)
    np.testing.assert_allclose(out, ref, rtol=1e-6)


@pytest.fixture(scope="module")
def lenet_and_seeds():
    """LeNet-5 trained for one pass over 9,600 Fashion-MNIST images (undefended; over 60% of
    the first 256 test images right, checked), 8 test images it classifies correctly as
    seeds, and 200 training images for the coverage's ranges."""
    if not os.path.isdir(FASHION):
        pytest.fail(f"the Fashion-MNIST data is missing at {FASHION}")
    from lenet import LeNet5, fashion_mnist
    ms.set_seed(0)
    ms.dataset.config.set_seed(0)
    net = LeNet5()
    model = Model(net, nn.CrossEntropyLoss(), nn.Momentum(net.trainable_params(), 0.02, 0.9))
    model.train(1, fashion_mnist(FASHION, "train", 64, shuffle=False).take(150))
    x, y = next(fashion_mnist(FASHION, "test", 256, shuffle=False).create_tuple_iterator(
        num_epochs=1))
    x, y = x.asnumpy(), y.asnumpy()
    right = np.flatnonzero(model.predict(Tensor(x)).asnumpy().argmax(1) == y)
    assert len(right) > 0.6 * len(y), len(right)
    seeds = [[x[i], np.eye(10, dtype=np.float32)[int(y[i])]] for i in right[:8]]
    ranges, _ = next(fashion_mnist(FASHION, "train", 200, shuffle=False).create_tuple_iterator(
        num_epochs=1))
    return model, seeds, ranges.asnumpy()


def test_fuzzer_grows_coverage_and_finds_misclassified_inputs(mode, lenet_and_seeds):
    model, seeds, train_images = lenet_and_seeds
    config = [{"method": "Contrast", "params": {"alpha": [0.5, 1.5], "beta": [-0.3, 0.3]}},
              {"method": "GaussianBlur", "params": {"ksize": [3, 5]}},
              {"method": "GaussianNoise", "params": {"factor": [0.05, 0.2]}},
              {"method": "Rotate", "params": {"angle": [-20, 20]}},
              {"method": "Translate", "params": {"x_bias": [-0.1, 0.1], "y_bias": [0.1]}},
              {"method": "Shear", "params": {"factor": [0.2], "direction": ["vertical"]}},
              {"method": "Scale", "params": {"factor_x": [0.8], "factor_y": [1.2]}},
              {"method": "FGSM", "params": {"eps": [0.05, 0.1]}},
              {"method": "PGD", "params": {"eps": [0.1], "eps_iter": [0.02], "nb_iter": [3]}}]
    coverage = KMultisectionNeuronCoverage(model, train_images, segmented_num=10,
                                           batch_size=64)
    fuzzer = Fuzzer(model)
    samples, labels, preds, strategies, report = fuzzer.fuzzing(
        config, seeds, coverage, max_iters=12, mutate_num_per_seed=6)
    history = np.array(fuzzer.coverage_history)
    assert len(history) == 1 + 12 * 6
    assert np.all(np.diff(history) >= 0) and history[-1] > history[0]
    # a mutant joins the seeds exactly when it raised the coverage
    assert len(fuzzer.added_seeds) == int((np.diff(history) > 0).sum()) > 0
    assert len(samples) > 0 and len(samples) == len(labels) == len(preds) == len(strategies)
    again = model.predict(Tensor(samples)).asnumpy()
    np.testing.assert_allclose(again, preds, rtol=1e-4, atol=1e-4)
    assert np.all(again.argmax(1) != np.array([np.argmax(l) for l in labels]))
    assert all(s and s[-1] in {c["method"] for c in config} for s in strategies)
    assert report["Attack_success_rate"] == pytest.approx(len(samples) / 72)
    assert report["Coverage_metrics"]["KMultisectionNeuronCoverage"] == history[-1]
    for s in strategies:  # at most one affine transform per lineage
        assert sum(m in mut.AFFINE for m in s) <= 1


def test_fuzzing_errors():
    net, _ = tiny()
    fuzzer = Fuzzer(net)
    cov = NeuronCoverage(net)
    seeds = [[np.zeros(2, np.float32), 0]]
    with pytest.raises(ValueError, match="method must be one of"):
        fuzzer.fuzzing([{"method": "Warp", "params": {}}], seeds, cov)
    with pytest.raises(ValueError, match="no parameter"):
        fuzzer.fuzzing([{"method": "Rotate", "params": {"ksize": [3]}}], seeds, cov)
    with pytest.raises(TypeError, match="CoverageMetrics"):
        fuzzer.fuzzing([{"method": "Rotate", "params": {"angle": [3]}}], seeds, None)
    with pytest.raises(ValueError, match="layers"):
        NeuronCoverage(net, layers=["conv9"])
    with pytest.raises(TypeError, match="Model or Cell"):
        Fuzzer("lenet")
