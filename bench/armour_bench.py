"""Adversarial-attack throughput, one framework per process: `armour_bench.py mycel` or
`armour_bench.py torch`; `armour_bench.py training`, natural against PGD adversarial
training of LeNet-5 in mycel (see `training`); and `armour_bench.py quality`, each attack's
success rate and mean perturbation next to its PyTorch oracle's and each detector's ROC-AUC on
FGSM examples, on the tests' trained LeNet-5 and inputs (tests/python/armour_quality.py).
Each prints one JSON object (bench/run.py runs them and writes RESULTS.md).

LeNet-5 for 28x28 inputs (examples/lenet.py; its PyTorch twin in
tests/python/armour_oracles.py) with the same fixed random weights in both, batch 128 of the
first Fashion-MNIST test images in [0, 1], one-hot labels, softmax cross entropy.
FGSM (eps 0.1) and PGD-20 (eps 0.1, eps_iter 0.01, l-inf): mycel's
mycel.armour.adv_robustness.attacks in GRAPH and PYNATIVE mode against the PyTorch oracle
implementation the tests check mycel against (eager autograd, numpy for the update, as
mycel's attacks). Adversarial examples per second: 128 over the median time of a call
(FGSM 20 calls, PGD-20 5 calls, after 5 warm-up calls)."""
import gzip
import json
import os
import sys
import time

import numpy as np

from grad_bench import median_ms

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, os.path.join(ROOT, "python"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
BATCH = 128
FASHION = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"
TRAIN_EPOCHS = 8
REPLACE_RATIO = 0.2


def data():
    """(images [128, 1, 28, 28] in [0, 1], one-hot labels [128, 10], weights {name: array})."""
    with gzip.open(FASHION) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:BATCH]
    rng = np.random.default_rng(0)
    shapes = {"conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5),
              "fc1.weight": (120, 400), "fc1.bias": (120,), "fc2.weight": (84, 120),
              "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,)}
    weights = {k: (rng.standard_normal(s) / np.sqrt(np.prod(s[1:]) if len(s) > 1 else 10))
               .astype(np.float32) for k, s in shapes.items()}
    onehot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)]
    return x.astype(np.float32) / 255.0, onehot, weights


def per_second(fn, calls):
    """Examples per second: BATCH over the median time of `calls` calls (after warm-up)."""
    return BATCH / (median_ms(fn, calls) / 1e3)


def bench_mycel():
    import mycel as ms
    from mycel.armour.adv_robustness.attacks import (FastGradientSignMethod,
                                                     ProjectedGradientDescent)
    from lenet import LeNet5
    ms._mycel.set_num_threads(THREADS)
    x, onehot, weights = data()
    out = {}
    for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode)
        net = LeNet5()
        for p in net.get_parameters():
            p.set_data(ms.Tensor(weights[p.name]))
        fgsm = FastGradientSignMethod(net, eps=0.1)
        pgd = ProjectedGradientDescent(net, eps=0.1, eps_iter=0.01, nb_iter=20)
        out[f"fgsm_{name}"] = per_second(lambda: fgsm.generate(x, onehot), 20)
        out[f"pgd20_{name}"] = per_second(lambda: pgd.generate(x, onehot), 5)
    return out


def bench_torch():
    import torch
    from armour_oracles import t_bim, t_fgsm, torch_lenet
    torch.set_num_threads(THREADS)
    x, onehot, weights = data()
    net = torch_lenet()
    net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    for p in net.parameters():
        p.requires_grad_(False)
    net.eval()
    return {"fgsm": per_second(lambda: t_fgsm(net, x, onehot, 0.1), 20),
            "pgd20": per_second(lambda: t_bim(net, x, onehot, 0.1, 0.01, 20), 5)}


def fashion_split(prefix, n=None):
    """Images [n, 1, 28, 28] in [0, 1] and int32 labels of a Fashion-MNIST split."""
    root = os.path.dirname(FASHION)
    with gzip.open(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz")) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)[:n]
    with gzip.open(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz")) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)[:n]
    return x.astype(np.float32) / 255.0, y.astype(np.int32)


def training(epochs=TRAIN_EPOCHS, replace_ratio=REPLACE_RATIO):
    """Natural against PGD adversarial training of LeNet-5 on all of Fashion-MNIST (mycel
    GRAPH mode, the same initial weights, Momentum 0.01/0.9, batch 64, `epochs` epochs;
    ProjectedAdversarialDefense eps 0.1, eps_iter 0.025, nb_iter 5, replace_ratio), then
    clean accuracy on the 10,000 test images and accuracy under PGD-20 (eps 0.1, eps_iter
    0.01) on the first 2,000."""
    import mycel as ms
    from mycel import nn
    from mycel.armour.adv_robustness.attacks import ProjectedGradientDescent
    from mycel.armour.adv_robustness.defenses import (AdversarialDefense,
                                                      ProjectedAdversarialDefense)
    from lenet import LeNet5
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)
    x, y = fashion_split("train")
    xt, yt = fashion_split("t10k")
    ms.set_seed(0)
    init = {p.name: p.asnumpy().copy() for p in LeNet5().get_parameters()}
    out = {}
    for name, make in (("natural", AdversarialDefense),
                       ("pgd", lambda n: ProjectedAdversarialDefense(
                           n, eps=0.1, eps_iter=0.025, nb_iter=5,
                           replace_ratio=replace_ratio))):
        net = LeNet5()
        for p in net.get_parameters():
            p.set_data(ms.Tensor(init[p.name]))
        defense = make(net)
        rng = np.random.default_rng(0)
        np.random.seed(0)
        t0 = time.perf_counter()
        for _ in range(epochs):
            order = rng.permutation(len(x))
            for i in range(0, len(x) - 63, 64):
                idx = order[i:i + 64]
                defense.defense(x[idx], y[idx])
        out[f"{name}_train_s"] = time.perf_counter() - t0
        pred = np.concatenate([net(ms.Tensor(xt[i:i + 1000])).asnumpy().argmax(1)
                               for i in range(0, len(xt), 1000)])
        out[f"{name}_clean"] = float((pred == yt).mean())
        pgd = ProjectedGradientDescent(net, eps=0.1, eps_iter=0.01, nb_iter=20,
                                       loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True))
        adv = pgd.batch_generate(xt[:2000], yt[:2000], batch_size=500)
        out[f"{name}_pgd20"] = float(
            (net(ms.Tensor(adv)).asnumpy().argmax(1) == yt[:2000]).mean())
    out["epochs"], out["replace_ratio"] = epochs, replace_ratio
    return out


def quality():
    """{"attacks": [...], "detectors": [...]}: armour_quality's rows (BENCH_THREADS threads
    for mycel and torch alike)."""
    import mycel as ms
    import torch
    from armour_quality import attack_rows, detector_rows
    ms._mycel.set_num_threads(THREADS)
    torch.set_num_threads(THREADS)
    return {"attacks": attack_rows(), "detectors": detector_rows()}


if __name__ == "__main__":
    arg = sys.argv[1]
    print(json.dumps(bench_mycel() if arg == "mycel" else
                     bench_torch() if arg == "torch" else
                     quality() if arg == "quality" else training()))
