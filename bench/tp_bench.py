"""Tensor parallelism against data parallelism and one process: a two-layer MLP (1024 ->
4096 -> 1024, GeLU, MSE loss, Momentum), global batch 64, float32, mycel GRAPH mode.

  serial   one process, the whole batch;
  dp N     N processes, parallel_mode="data_parallel": each holds every weight and its
           optimizer state, runs 64/N rows and all-reduces the gradients;
  tp N     N processes, parallel_mode="semi_auto_parallel" with the Megatron strategies
           (the first MatMul split by columns, the second by rows): each holds 1/N of both
           weights and their state, runs the whole batch, and all-reduces the output's
           partial sums forward and the input gradient's backward.

`tp_bench.py serial|dp|tp N` starts the processes (Gloo on the loopback address, 1 thread
each; with a timeout, all ended whatever happens) and prints rank 0's JSON: global
samples/s (STEPS steps after WARMUP, the best of ROUNDS passes), the bytes of weights and
optimizer state this rank holds, and its peak resident memory (ru_maxrss). The machine
that ran it has 2 cores: at 4 processes they share them, which the numbers show.
"""
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dist_bench import gloo_job, write_rank_result  # noqa: E402

D, H, BATCH = 1024, 4096, 64
WARMUP, STEPS, ROUNDS = 3, 10, 3


def worker(mode, rank, n):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import numpy as np
    import mycel as ms
    from mycel.communication import init, release
    ms._mycel.set_num_threads(1)
    ms.set_context(mode=ms.GRAPH_MODE)
    if mode != "serial":
        init()
    if mode == "dp":
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    if mode == "tp":
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                                     full_batch=True)
    rng = np.random.default_rng(0)
    net, step = make_mlp(rng, (((1, 1), (1, n)), ((1, n), (n, 1))) if mode == "tp" else None)
    rows = BATCH // n if mode == "dp" else BATCH
    best = best_samples_per_s(step, rng, rows)
    # What this rank holds: its weights (slices under tp) and the momentum of each.
    held = 2 * sum(p.asnumpy().nbytes for p in net.trainable_params())
    res = {"samples_per_s": best, "state_mb": held / 2**20,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if mode != "serial":
        release()
    return res


def make_mlp(rng, strategies=None):
    """(net, its TrainOneStepCell): the MLP D -> H -> D (GeLU, MSE, Momentum), float32, its
    MatMuls sharded with `strategies` (the first's, the second's) when given."""
    import numpy as np
    from mycel import nn, ops, Parameter, Tensor

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w1 = Parameter(Tensor(rng.standard_normal((D, H)).astype(np.float32) * 0.02),
                                name="w1")
            self.w2 = Parameter(Tensor(rng.standard_normal((H, D)).astype(np.float32) * 0.02),
                                name="w2")
            self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
            if strategies:
                self.mm1.shard(strategies[0])
                self.mm2.shard(strategies[1])

        def construct(self, x):
            return self.mm2(ops.gelu(self.mm1(x, self.w1)), self.w2)

    net = MLP()
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                    nn.Momentum(net.trainable_params(), 0.01, 0.9))


def best_samples_per_s(step, rng, rows):
    """Global samples/s of `step` on batches of `rows` rows: the best of ROUNDS passes of
    STEPS steps after WARMUP."""
    import numpy as np
    from mycel import Tensor
    data = [(Tensor(rng.standard_normal((rows, D)).astype(np.float32)),
             Tensor(rng.standard_normal((rows, D)).astype(np.float32)))
            for _ in range(WARMUP + STEPS)]
    for x, y in data[:WARMUP]:
        step(x, y)
    best = 0.0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for x, y in data[WARMUP:]:
            last = step(x, y)
        last.asnumpy()
        best = max(best, STEPS * BATCH / (time.perf_counter() - t0))
    return best


def launch(mode, n):
    """Rank 0's result of the job (dist_bench.gloo_job)."""
    return gloo_job(__file__, n, [mode, n])[0]


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        mode, n, rank = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        write_rank_result(rank, worker(mode, rank, n))
    else:
        print(json.dumps(launch(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)))
