"""Optimizer parallelism against plain data parallelism: an MLP 1024 -> 4096 -> 1024 (GeLU,
MSE), Adam (two state tensors per parameter), float32, 32 rows per rank, mycel GRAPH mode,
N processes (Gloo on the loopback, 1 thread each).

  dp       parallel_mode="data_parallel": whole gradients all-reduced, whole state;
  sharded  the same with enable_parallel_optimizer=True: gradients reduce-scattered, each
           rank's rows of the state, weights all-gathered after the update (ZeRO-1);
  weights  parallel_mode="semi_auto_parallel" (no strategies: each rank given its rows) with
           enable_parallel_optimizer=True: each rank holds its rows of the weights and of
           the state between steps, every weight all-gathered before its use in the
           forward, gradients reduce-scattered (ZeRO-3).

`optimizer_bench.py dp|sharded|weights N` starts the processes (a timeout ends them
whatever happens) and prints rank 0's JSON: the bytes of weights and of optimizer state it
holds between steps (``optimizer_shard.weight_bytes``, ``state_bytes``), its peak resident
memory, the executor's peak bytes during one step above what was held before it (the
gathered weights, gradients and activations), and ms per step (the best of ROUNDS passes
of STEPS steps).
"""
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dist_bench import gloo_job, write_rank_result  # noqa: E402

D, H, ROWS = 1024, 4096, 32
WARMUP, STEPS, ROUNDS = 1, 5, 3


def worker(mode, rank, n):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import numpy as np
    import mycel as ms
    from mycel import nn, Tensor
    from mycel.communication import init, release
    from mycel.parallel.optimizer_shard import state_bytes, weight_bytes
    ms._mycel.set_num_threads(1)
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    ms.set_auto_parallel_context(
        parallel_mode="semi_auto_parallel" if mode == "weights" else "data_parallel",
        gradients_mean=True, enable_parallel_optimizer=mode != "dp")
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(D, H), nn.GELU(), nn.Dense(H, D)])
    opt = nn.Adam(net.trainable_params(), 1e-3)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    rng = np.random.default_rng(rank)
    x = Tensor(rng.standard_normal((ROWS, D)).astype(np.float32))
    y = Tensor(rng.standard_normal((ROWS, D)).astype(np.float32))
    per_step = []  # the first WARMUP passes compile and warm up
    for _ in range(WARMUP + ROUNDS):
        t0 = time.perf_counter()
        for _ in range(STEPS):
            loss = step(x, y)
        loss.asnumpy()
        per_step.append((time.perf_counter() - t0) / STEPS)
    best = min(per_step[WARMUP:])
    before = ms._mycel.memory_stats()["in_use"]
    ms._mycel.reset_peak_memory()
    step(x, y).asnumpy()
    step_peak = ms._mycel.memory_stats()["peak_in_use"] - before
    res = {"state_mb": state_bytes(opt) / 2**20, "step_ms": best * 1e3,
           "weights_mb": weight_bytes(net.trainable_params()) / 2**20,
           "step_peak_mb": step_peak / 2**20,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    release()
    return res


def launch(mode, n):
    return gloo_job(__file__, n, [mode, n])[0]


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        mode, n, rank = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        write_rank_result(rank, worker(mode, rank, n))
    else:
        print(json.dumps(launch(sys.argv[1], int(sys.argv[2]))))
