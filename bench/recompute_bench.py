"""Recompute: peak memory and step time of a training step with and without Cell.recompute().

`python3 bench/recompute_bench.py` trains a deep MLP (6 blocks of 4 Dense(256, 256) + tanh
layers, batch 4096, float32, MSE loss, Momentum) in GRAPH mode through nn.TrainOneStepCell,
once with every block under recompute() and once without, and prints one JSON object: per
variant the peak bytes mycel's host allocator held above what was in use before the call (the
executor's activations, gradients and temporaries) for the gradients alone (ops.grad of the
loss cell) and for the training step, the activation bytes of one layer for scale, and the
median step time over 10 steps after the warm-up.
"""
import json
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/python")
import mycel as ms  # noqa: E402
from mycel import _mycel as _C, nn, ops  # noqa: E402

BLOCKS, DEPTH, WIDTH, BATCH = 6, 4, 256, 4096


class Block(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.layers = nn.CellList([
            nn.Dense(WIDTH, WIDTH, weight_init=ms.Tensor(
                (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)),
                activation="tanh") for _ in range(DEPTH)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def step_of(recompute):
    rng = np.random.default_rng(0)
    blocks = [Block(rng) for _ in range(BLOCKS)]
    if recompute:
        for b in blocks:
            b.recompute()
    net = nn.WithLossCell(nn.SequentialCell(blocks), nn.MSELoss())
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    return nn.TrainOneStepCell(net, opt).set_train()


def measure(recompute):
    step = step_of(recompute)
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    grad = ops.grad(step.network, None, step.network.trainable_params())

    def peak(f):
        f()
        _C.reset_peak_memory()
        before = _C.memory_stats()["in_use"]
        f()
        return _C.memory_stats()["peak_in_use"] - before

    grad_peak = peak(lambda: [g.asnumpy() for g in grad(x, y)])
    step_peak = peak(lambda: step(x, y).asnumpy())
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        step(x, y).asnumpy()
        times.append(time.perf_counter() - t0)
    return {"grad_peak_bytes": grad_peak, "step_peak_bytes": step_peak,
            "step_ms": statistics.median(times) * 1e3}


def main():
    ms.set_context(mode=ms.GRAPH_MODE)
    out = {"layers": BLOCKS * DEPTH, "width": WIDTH, "batch": BATCH,
           "activation_bytes": BATCH * WIDTH * 4,
           "plain": measure(False), "recompute": measure(True)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
