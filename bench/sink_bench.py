"""Data-sink benchmark: LeNet-5 on Fashion-MNIST (batch 64, Momentum) with ``Model.train`` in
GRAPH mode, step by step (a Python call per step: the iterator hands each batch to Python,
which calls the compiled step) against ``dataset_sink_mode=True`` (the compiled step loops in
C++ over the data engine's batches).

- Weights: one whole epoch each way from the same initial weights, batches in the same order;
  the weights after it must be identical (the largest difference is reported), and the two
  epochs' times are reported as they came.
- Speed: ROUNDS alternating rounds of STEPS steps each way (each a fresh Model.train over the
  first STEPS batches, on two networks); ms per step, the fastest round and the median. The
  build machine is shared and loaded: the fastest round is the least disturbed one.
- Per-step overhead: the same comparison for a Dense(4, 2) step on batches of 8 (TINY_STEPS
  steps per round), where the step's own work is small and what a sink saves (the Python
  iteration, the batch's Python Tensors, the Cell call, the signature lookup) is most of it.
Prints one JSON object."""
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
DATA = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
ROUNDS, STEPS, TINY_STEPS = 15, 100, 500


def rounds(models, data, steps):
    """ms per step of each model's Model.train over `data`, step by step (False) and sinking
    (True), in ROUNDS alternating rounds."""
    out = {False: [], True: []}
    for _ in range(ROUNDS):
        for sink in (False, True):
            t0 = time.perf_counter()
            models[sink].train(1, data, dataset_sink_mode=sink)
            out[sink].append((time.perf_counter() - t0) / steps * 1e3)
    return out


def main():
    import mycel as ms
    import mycel.dataset as ds
    from mycel import nn
    from mycel.train import Model
    from lenet import LeNet5, fashion_mnist
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)

    def model():
        ms.set_seed(1)
        net = LeNet5()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        return net, Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))

    data = fashion_mnist(DATA, "train", 64, shuffle=False)
    nets, models, epoch_s = {}, {}, {}
    for sink in (False, True):
        nets[sink], models[sink] = model()
        t0 = time.perf_counter()
        models[sink].train(1, data, dataset_sink_mode=sink)
        epoch_s[sink] = time.perf_counter() - t0
    diff = max(float(np.abs(a.asnumpy() - b.asnumpy()).max())
               for a, b in zip(nets[False].trainable_params(), nets[True].trainable_params()))
    per_step = rounds(models, data.take(STEPS), STEPS)
    tiny = {}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8 * TINY_STEPS, 4)).astype(np.float32)
    y = rng.integers(0, 2, 8 * TINY_STEPS).astype(np.int32)
    tiny_data = ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False).batch(8)
    for sink in (False, True):
        net = nn.Dense(4, 2)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        tiny[sink] = Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    tiny_step = rounds(tiny, tiny_data, TINY_STEPS)
    out = {"steps": data.get_dataset_size(), "max_weight_diff": diff,
           "step_epoch_s": epoch_s[False], "sink_epoch_s": epoch_s[True]}
    for name, times in (("", per_step), ("tiny_", tiny_step)):
        for sink, mode in ((False, "step"), (True, "sink")):
            out[f"{mode}_{name}min_ms"] = min(times[sink])
            out[f"{mode}_{name}median_ms"] = statistics.median(times[sink])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
