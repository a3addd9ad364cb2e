"""The strategy search (auto_parallel, dynamic_programming) against hand-set plans, measured:
a two-layer MLP (1024 -> 4096 -> 1024, ReLU, MSE loss, Momentum), global batch 64, float32,
mycel GRAPH mode, the whole batch on every rank (full_batch), Gloo on the loopback address,
1 thread per process.

  auto      parallel_mode="auto_parallel", search_mode="dynamic_programming" on the committed
            profile (python -m mycel.parallel.calibrate): the search's plan, its predicted
            step time (the plan's "step ... ms") and its measured one;
  dp        semi_auto_parallel, both MatMuls split by rows (data parallelism);
  megatron  the first MatMul split by columns, the second by rows;
  rowcol    the first by rows of its weight (partial sums), the second by columns;
  dp_mp     (4 processes) 2 x 2: the batch over one axis, Megatron over the other.

`search_bench.py PLAN N` starts the N processes (with a timeout, all ended whatever happens)
and prints rank 0's JSON: the step time in ms (the best of ROUNDS passes of STEPS steps,
after WARMUP) and, for auto, the plan and its predicted step time."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dist_bench import free_port  # noqa: E402

D, H, BATCH = 1024, 4096, 64
WARMUP, STEPS, ROUNDS = 3, 10, 3


def hand_plans(n):
    """{name: (first MatMul's strategy, second's)} of the hand-set plans for n ranks."""
    plans = {"dp": (((n, 1), (1, 1)), ((n, 1), (1, 1))),
             "megatron": (((1, 1), (1, n)), ((1, n), (n, 1))),
             "rowcol": (((1, n), (n, 1)), ((1, 1), (1, n)))}
    if n == 4:
        plans["dp_mp"] = (((2, 1), (1, 2)), ((2, 2), (2, 1)))
    return plans


def worker(plan, rank, n):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Parameter, Tensor
    from mycel.communication import init, release
    from mycel.parallel import search
    ms._mycel.set_num_threads(1)
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    if plan == "auto":
        ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=n,
                                     search_mode="dynamic_programming", full_batch=True)
    else:
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                                     full_batch=True)
    rng = np.random.default_rng(0)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w1 = Parameter(Tensor(rng.standard_normal((D, H)).astype(np.float32) * 0.02),
                                name="w1")
            self.w2 = Parameter(Tensor(rng.standard_normal((H, D)).astype(np.float32) * 0.02),
                                name="w2")
            self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
            if plan != "auto":
                s1, s2 = hand_plans(n)[plan]
                self.mm1.shard(s1)
                self.mm2.shard(s2)

        def construct(self, x):
            return self.mm2(ops.relu(self.mm1(x, self.w1)), self.w2)

    net = MLP()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    data = [(Tensor(rng.standard_normal((BATCH, D)).astype(np.float32)),
             Tensor(rng.standard_normal((BATCH, D)).astype(np.float32)))
            for _ in range(WARMUP + STEPS)]
    for x, y in data[:WARMUP]:
        step(x, y)
    best = float("inf")
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for x, y in data[WARMUP:]:
            last = step(x, y)
        last.asnumpy()
        best = min(best, (time.perf_counter() - t0) / STEPS)
    res = {"step_ms": best * 1e3}
    if plan == "auto":
        text = search.last_plan()
        res["plan"] = text
        res["predicted_ms"] = float(text.rsplit("step ", 1)[1].split(" ms")[0])
    release()
    return res


def launch(plan, n, timeout=900):
    out_dir = tempfile.mkdtemp(prefix="search_bench_")
    port = free_port()
    procs = []
    for rank in range(n):
        env = dict(os.environ, OMP_NUM_THREADS="1", MS_WORKER_NUM=str(n), RANK_ID=str(rank),
                   MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(port), SEARCH_BENCH_OUT=out_dir)
        procs.append(subprocess.Popen([sys.executable, __file__, "worker", plan, str(rank),
                                       str(n)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, (_, err) in zip(procs, outs):
        if p.returncode != 0:
            sys.stderr.write(err)
            raise SystemExit(f"search_bench {plan} {n}: a rank failed")
    with open(os.path.join(out_dir, "rank_0.json")) as f:
        res = json.load(f)
    shutil.rmtree(out_dir, ignore_errors=True)
    return res


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        plan, rank, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        res = worker(plan, rank, n)
        with open(os.path.join(os.environ["SEARCH_BENCH_OUT"], f"rank_{rank}.json"), "w") as f:
            json.dump(res, f)
    else:
        print(json.dumps(launch(sys.argv[1], int(sys.argv[2]))))
