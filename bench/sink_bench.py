"""Data-sink benchmark: one epoch of LeNet-5 on Fashion-MNIST (batch 64, Momentum) with
``Model.train`` in GRAPH mode, step by step (a Python call per step: the iterator hands each
batch to Python, which calls the compiled step) against ``dataset_sink_mode=True`` (the
compiled step loops in C++ over the data engine's batches). Both start from the same weights
and read the batches in the same order; the weights after the epoch must be identical.
Reported: seconds per epoch, wall-clock and the process's CPU time (all its threads; the
build machine is shared, so wall-clock is noisy), each the best of ROUNDS alternating epochs
from fresh weights; steps per epoch; the largest weight difference. Prints one JSON object."""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
DATA = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
ROUNDS = 3


def main():
    import mycel as ms
    from mycel import nn
    from mycel.train import Model
    from lenet import LeNet5, fashion_mnist
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)

    def epoch(sink, take=None):
        ms.set_seed(1)
        net = LeNet5()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
        data = fashion_mnist(DATA, "train", 64, shuffle=False)
        if take:
            data = data.take(take)
        steps = data.get_dataset_size()
        t0, c0 = time.perf_counter(), time.process_time()
        model.train(1, data, dataset_sink_mode=sink)
        return (time.perf_counter() - t0, time.process_time() - c0, steps,
                [p.asnumpy() for p in net.trainable_params()])

    epoch(False, 3)  # compiles the step (each Model's network is a new Cell: parsing only)
    epoch(True, 3)
    best = {False: float("inf"), True: float("inf")}
    cpu = dict(best)
    weights = {}
    for _ in range(ROUNDS):
        for sink in (False, True):
            t, c, steps, weights[sink] = epoch(sink)
            best[sink], cpu[sink] = min(best[sink], t), min(cpu[sink], c)
    diff = max(float(np.abs(a - b).max()) for a, b in zip(weights[False], weights[True]))
    print(json.dumps({"step_s": best[False], "sink_s": best[True], "step_cpu_s": cpu[False],
                      "sink_cpu_s": cpu[True], "steps": steps, "max_weight_diff": diff}))


if __name__ == "__main__":
    main()
