"""Training-throughput benchmarks on Fashion-MNIST, one framework and setting per process:
`train_bench.py mycel graph|pynative` or `train_bench.py torch` (threads from BENCH_THREADS,
OpenBLAS's from OPENBLAS_NUM_THREADS); prints one JSON object (bench/run.py runs it and writes
RESULTS.md).

Models: LeNet-5 (examples/lenet.py: 1x28x28 input, first conv padded by 2) and an MLP
784-512-256-10 with ReLUs, trained with Momentum SGD (lr 0.01, momentum 0.9) and
cross-entropy on the real Fashion-MNIST training images, batch 64, normalised as the demo
does. The batches are prepared once in each framework's own tensors (the data pipeline is not
timed), then full training steps (forward, loss, backward, optimizer update) run over them in
order, three times (the best pass counts): mycel's nn.TrainOneStepCell (GRAPH: one compiled graph per step; PYNATIVE: eager
forward, recorded backward, in-place update ops); PyTorch eager with loss.backward() and
torch.optim.SGD. Reported: samples/s over STEPS steps after a warm-up, and the process's peak
resident memory (MB).
"""
import gzip
import json
import os
import resource
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
DATA = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
BATCH = 64
STEPS = 300
WARMUP = 20
ROUNDS = 3
MEAN, STD = 0.2860, 0.3530


def batches():
    """The first (STEPS + WARMUP) training batches as numpy (x [64, 1, 28, 28], y [64])."""
    with gzip.open(os.path.join(DATA, "train-images-idx3-ubyte.gz"), "rb") as f:
        _, n, h, w = struct.unpack(">IIII", f.read(16))
        x = np.frombuffer(f.read(), np.uint8).reshape(n, 1, h, w)
    with gzip.open(os.path.join(DATA, "train-labels-idx1-ubyte.gz"), "rb") as f:
        f.read(8)
        y = np.frombuffer(f.read(), np.uint8)
    k = (STEPS + WARMUP) * BATCH
    x = ((x[:k].astype(np.float32) / 255.0 - MEAN) / STD).astype(np.float32)
    y = y[:k].astype(np.int32)
    return [(x[i:i + BATCH], y[i:i + BATCH]) for i in range(0, k, BATCH)]


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def timed(step, data):
    """samples/s: the best of ROUNDS passes over the timed batches (the machine is shared:
    the best pass is the one least disturbed), after the warm-up batches."""
    for xb, yb in data[:WARMUP]:
        step(xb, yb)
    best = 0.0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for xb, yb in data[WARMUP:]:
            last = step(xb, yb)
        float(last.asnumpy() if hasattr(last, "asnumpy") else last.item())  # sync
        best = max(best, STEPS * BATCH / (time.perf_counter() - t0))
    return best


def bench_mycel(mode):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import mycel as ms
    from mycel import nn
    from lenet import LeNet5
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(1)
    raw = batches()
    out = {}
    for name in ("lenet", "mlp"):
        if name == "lenet":
            net = LeNet5()
            data = [(ms.Tensor(x), ms.Tensor(y)) for x, y in raw]
        else:
            net = nn.SequentialCell([nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 256),
                                     nn.ReLU(), nn.Dense(256, 10)])
            data = [(ms.Tensor(x.reshape(BATCH, 784)), ms.Tensor(y)) for x, y in raw]
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
        step.set_train()
        out[f"{name}_samples_per_s"] = timed(step, data)
    out["peak_mb"] = peak_mb()
    return out


def torch_lenet5():
    """LeNet-5 in PyTorch, as examples/lenet.py builds it in mycel."""
    import torch
    f = torch.nn.functional

    class LeNet5(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(1, 6, 5, padding=2)
            self.conv2 = torch.nn.Conv2d(6, 16, 5)
            self.fc1 = torch.nn.Linear(400, 120)
            self.fc2 = torch.nn.Linear(120, 84)
            self.fc3 = torch.nn.Linear(84, 10)

        def forward(self, x):
            x = f.max_pool2d(f.relu(self.conv1(x)), 2)
            x = f.max_pool2d(f.relu(self.conv2(x)), 2)
            return self.fc3(f.relu(self.fc2(f.relu(self.fc1(x.flatten(1))))))

    return LeNet5()


def bench_torch():
    import torch
    torch.set_num_threads(THREADS)
    torch.manual_seed(1)

    raw = batches()
    out = {}
    for name in ("lenet", "mlp"):
        if name == "lenet":
            net = torch_lenet5()
            data = [(torch.from_numpy(x), torch.from_numpy(y).long()) for x, y in raw]
        else:
            net = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                      torch.nn.Linear(512, 256), torch.nn.ReLU(),
                                      torch.nn.Linear(256, 10))
            data = [(torch.from_numpy(x.reshape(BATCH, 784)), torch.from_numpy(y).long())
                    for x, y in raw]
        opt = torch.optim.SGD(net.parameters(), 0.01, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            return loss.detach()

        out[f"{name}_samples_per_s"] = timed(step, data)
    out["peak_mb"] = peak_mb()
    return out


if __name__ == "__main__":
    which = sys.argv[1]
    res = bench_torch() if which == "torch" else bench_mycel(sys.argv[2])
    print(json.dumps(res))
