"""Automatic-differentiation benchmarks, one framework per process:
`grad_bench.py mycel` or `grad_bench.py torch`; prints one JSON object (bench/run.py runs
it and writes RESULTS.md).

  training step   LeNet-5 (bench/graph_bench.py's models), batch 64, 1x32x32 float32
                  input, 10 classes: forward, cross-entropy loss, and the gradients of every
                  weight (no optimizer update). mycel: value_and_grad(loss, None, weights) in
                  GRAPH mode (one compiled graph) and in PYNATIVE mode (eager forward recorded
                  into IR, cached backward graph). PyTorch: eager forward, loss.backward()
                  equivalent via torch.autograd.grad. Median ms per step.
  tanh'''         10,000 evaluations of grad(grad(grad(tanh)))(2.0) on a 0-d float32
                  tensor. mycel: the compiled third derivative (GRAPH mode) and PYNATIVE;
                  PyTorch: three nested torch.autograd.grad calls with create_graph=True.
                  Total seconds for the 10,000.
"""
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
BATCH = 64
TANH_EVALS = 10_000


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, BATCH).astype(np.int32)
    return x, y


def median_ms(fn, repeats=30):
    for _ in range(5):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def bench_mycel():
    import graph_bench
    ms, models = graph_bench.mycel_models()
    from mycel import ops
    ms._mycel.set_num_threads(THREADS)
    net = models["lenet"]()
    x, y = data()
    xm, ym = ms.Tensor(x), ms.Tensor(y)

    def loss_fn(a, b):
        return ops.cross_entropy(net(a), b)

    step = ms.value_and_grad(loss_fn, None, net.trainable_params())
    r = {}
    for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode)
        r[f"lenet_step_{name}_ms"] = median_ms(lambda: step(xm, ym))

    d3 = ms.grad(ms.grad(ms.grad(ops.tanh)))
    t = ms.Tensor(2.0, ms.float32)
    for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode)
        value = float(d3(t).asnumpy())
        assert abs(value - 0.25265405) < 1e-5, value
        t0 = time.perf_counter()
        for _ in range(TANH_EVALS):
            d3(t)
        r[f"tanh3_{name}_s"] = time.perf_counter() - t0
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return r


def bench_torch():
    import graph_bench
    torch, models = graph_bench.torch_models()
    torch.set_num_threads(THREADS)
    net = models["lenet"]()
    x, y = data()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    params = list(net.parameters())

    def step():
        loss = torch.nn.functional.cross_entropy(net(xt), yt)
        return loss, torch.autograd.grad(loss, params)

    r = {"lenet_step_ms": median_ms(step)}

    def d3(v):
        v = v.detach().requires_grad_(True)
        (g1,) = torch.autograd.grad(torch.tanh(v), v, create_graph=True)
        (g2,) = torch.autograd.grad(g1, v, create_graph=True)
        (g3,) = torch.autograd.grad(g2, v)
        return g3

    t = torch.tensor(2.0)
    assert abs(float(d3(t)) - 0.25265405) < 1e-5
    t0 = time.perf_counter()
    for _ in range(TANH_EVALS):
        d3(t)
    r["tanh3_s"] = time.perf_counter() - t0
    return r


if __name__ == "__main__":
    result = bench_mycel() if sys.argv[1] == "mycel" else bench_torch()
    print(json.dumps(result))
