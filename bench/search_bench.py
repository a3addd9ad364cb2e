"""The strategy search (auto_parallel, dynamic_programming) against hand-set plans, measured:
tp_bench.py's MLP (1024 -> 4096 -> 1024, GeLU, MSE loss, Momentum), global batch 64, float32,
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
and prints rank 0's JSON: the step time in ms (tp_bench's best of 3 passes of 10 steps)
and, for auto, the plan and its predicted step time."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dist_bench import gloo_job, write_rank_result  # noqa: E402
from tp_bench import BATCH, best_samples_per_s, make_mlp  # noqa


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
    _, step = make_mlp(rng, None if plan == "auto" else hand_plans(n)[plan])
    res = {"step_ms": 1e3 * BATCH / best_samples_per_s(step, rng, BATCH)}
    if plan == "auto":
        text = search.last_plan()
        res["plan"] = text
        res["predicted_ms"] = float(text.rsplit("step ", 1)[1].split(" ms")[0])
    release()
    return res


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        plan, n, rank = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        write_rank_result(rank, worker(plan, rank, n))
    else:
        n = int(sys.argv[2])
        print(json.dumps(gloo_job(__file__, n, [sys.argv[1], n])[0]))
