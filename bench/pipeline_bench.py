"""The pipeline's bubble, measured: 2 stages on 2 processes (nn.PipelineCell, Gloo on the
loopback, 1 thread each), an MLP of 8 Dense layers 1024 wide (4 per stage, Tanh, MSE,
Momentum), float32, 512 rows per micro-batch, M = 2, 4 and 8 micro-batches, GPipe and 1F1B.

The two stages do equal work, as the ideal (S-1)/(M+S-1) assumes. A stage's forward is 4
MatMuls of 512x1024 by 1024x1024; its backward recomputes them and computes the weights'
gradients and the input's. Stage 0 needs no gradient of its input (the data), so the first
Dense of stage 1 is frozen (``requires_grad=False``, a fixed random projection): its
weight's gradient is not computed either, and each backward is 11 such MatMuls (stage 0: 4
recomputed, 4 for the weights, 3 for the inputs; stage 1: 4, 3, 4). Only the elementwise
ops differ (stage 1 computes the loss). `--unequal` trains every layer, the earlier form
(stage 0's backward one MatMul lighter).

Each rank records when its stage programs run (``PipelineCell.events``: the start and end of
every forward and backward, time.monotonic, one clock for the machine's processes). A
stage's idle fraction is 1 - (its programs' time) / (the step's span, from the first start
to the last end over both stages); the ideal for equal stages is (S-1)/(M+S-1). Of ROUNDS
measured steps the one with the shortest span is kept (the machine is shared). The same
durations replayed through the schedule without latency (``pipeline.replay``) give the
bubble of the schedule itself, apart from communication and process wake-ups.

`pipeline_bench.py SCHEDULER M [--unequal]` starts the two processes (a timeout ends them whatever
happens) and prints JSON: each stage's idle fraction, the ideal, the step's span in ms.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dist_bench import gloo_job, write_rank_result  # noqa: E402

WIDTH, LAYERS, ROWS = 1024, 8, 512
WARMUP, ROUNDS = 2, 5


def worker(scheduler, micro, rank, unequal=False):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import numpy as np
    import mycel as ms
    from mycel import nn, Tensor
    from mycel.communication import init, release
    ms._mycel.set_num_threads(1)
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                                 pipeline_config={"pipeline_scheduler": scheduler})
    ms.set_seed(0)
    cells = []
    for i in range(LAYERS):
        for c in (nn.Dense(WIDTH, WIDTH), nn.Tanh()):
            c.pipeline_stage = 0 if i < LAYERS // 2 else 1
            cells.append(c)
    if not unequal:  # the first Dense of stage 1: see the module's text
        for p in cells[LAYERS].get_parameters():
            p.requires_grad = False
    pc = nn.PipelineCell(nn.WithLossCell(nn.SequentialCell(cells), nn.MSELoss()), micro)
    step = nn.TrainOneStepCell(pc, nn.Momentum(pc.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((ROWS * micro, WIDTH)).astype(np.float32))
    y = Tensor(rng.standard_normal((ROWS * micro, WIDTH)).astype(np.float32))
    for _ in range(WARMUP):
        step(x, y)
    runs = []
    for _ in range(ROUNDS):
        step(x, y)
        runs.append(pc.events)
    release()
    return {"stage": pc.stage, "runs": runs}


def launch(scheduler, micro, unequal=False):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    from mycel.parallel.pipeline import bubble, replay
    got = gloo_job(__file__, 2, [scheduler, micro] + (["--unequal"] if unequal else []))
    best = None
    for k in range(ROUNDS):
        events = {g["stage"]: g["runs"][k] for g in got}
        span = (max(e[3] for ev in events.values() for e in ev) -
                min(e[2] for ev in events.values() for e in ev))
        if best is None or span < best[0]:
            best = (span, events)
    idle, ideal = bubble(best[1], 2, micro)
    again, _ = bubble(replay(best[1], 2, micro, scheduler), 2, micro)
    return {"scheduler": scheduler, "micro": micro, "equal_stages": not unequal,
            "idle": [idle[0], idle[1]],
            "replayed": [again[0], again[1]], "ideal": ideal, "span_ms": best[0] * 1e3}


if __name__ == "__main__":
    unequal = "--unequal" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--unequal"]
    if args[0] == "worker":
        scheduler, micro, rank = args[1], int(args[2]), int(args[3])
        write_rank_result(rank, worker(scheduler, micro, rank, unequal))
    else:
        print(json.dumps(launch(args[0], int(args[1]), unequal)))
