"""Mixed-precision benchmark: one training step of a small Transformer-style MLP block in
float32 and with ``amp.build_train_network(..., level="O2")`` in bfloat16, and of LeNet-5,
mycel in GRAPH mode; prints one JSON object (bench/run.py runs it and writes RESULTS.md).

The block (a Transformer encoder's feed-forward half, pre-norm): tokens [B*T, d] ->
LayerNorm -> Dense(d, 4d) -> GeLU -> Dense(4d, d) -> residual, twice, then Dense(d, classes)
and cross-entropy; d = 512, 1024 tokens per batch; Momentum SGD. O2 computes the Dense layers
(MatMul on oneDNN's bf16 primitive) and GeLU in bfloat16, LayerNorm and the loss in float32,
with the dynamic loss scale's overflow check and skip-by-select in every step. Reported: ms
per step, the best of 3 passes of STEPS steps after a warm-up (the machine is shared)."""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
STEPS, WARMUP, ROUNDS = 20, 3, 3


def main():
    import mycel as ms
    from mycel import amp, nn
    from lenet import LeNet5
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)

    class Block(nn.Cell):
        def __init__(self, d):
            super().__init__()
            self.norm = nn.LayerNorm((d,))
            self.up = nn.Dense(d, 4 * d)
            self.act = nn.GELU()
            self.down = nn.Dense(4 * d, d)

        def construct(self, x):
            return x + self.down(self.act(self.up(self.norm(x))))

    class Mlp(nn.Cell):
        def __init__(self, d, classes):
            super().__init__()
            self.b1 = Block(d)
            self.b2 = Block(d)
            self.head = nn.Dense(d, classes)

        def construct(self, x):
            return self.head(self.b2(self.b1(x)))

    rng = np.random.default_rng(0)

    def step_ms(make_net, x, y, level):
        ms.set_seed(1)
        net = make_net()
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        # O0: TrainOneStepCell(WithLossCell(net, loss), opt), the float32 step.
        step = amp.build_train_network(net, opt, loss, level=level)
        x, y = ms.Tensor(x), ms.Tensor(y)
        for _ in range(WARMUP):
            step(x, y)
        best = float("inf")
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            for _ in range(STEPS):
                out = step(x, y)
            (out[0] if isinstance(out, tuple) else out).asnumpy()
            best = min(best, (time.perf_counter() - t0) / STEPS * 1e3)
        return best

    out = {}
    x = rng.standard_normal((1024, 512)).astype(np.float32)
    y = rng.integers(0, 16, 1024).astype(np.int32)
    for name, level in (("fp32", "O0"), ("o2_bf16", "O2")):
        out[f"mlp_{name}_ms"] = step_ms(lambda: Mlp(512, 16), x, y, level)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64).astype(np.int32)
    for name, level in (("fp32", "O0"), ("o2_bf16", "O2")):
        out[f"lenet_{name}_ms"] = step_ms(LeNet5, x, y, level)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
