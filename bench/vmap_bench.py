"""Per-example gradients of a small MLP by vmap against a Python loop (bench/run.py --only vmap).

`python3 bench/vmap_bench.py mycel|torch` prints one JSON line. The MLP: 32 -> 64 (tanh) -> 10,
float32, loss sum((out - y)^2) of one example ([1, 32] input); the per-example gradients of its
four weights over a batch of 64 examples.

mycel: `vmap(grad(loss, grad_position=(0, 1, 2, 3)), in_axes=(None,)*4 + (0, 0))` (one compiled
graph: the gradient batched by the IR transform), against a Python loop of the same compiled
gradient called per example (GRAPH mode: `grad` compiled once) and of the eager gradient
(PYNATIVE). torch: functorch's `vmap(grad(loss))` (Debian's torch 1.13 has no torch.func; its
functorch does) against a loop of `torch.autograd.grad`. Times: the median of 15 runs after 3
warm-ups, ms per batch.
"""
import json
import statistics
import sys
import time

import numpy as np

B, D_IN, D_H, D_OUT = 64, 32, 64, 10


def median_ms(fn, reps=15, warm=3):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def data():
    rng = np.random.RandomState(0)
    params = [rng.standard_normal((D_IN, D_H)).astype(np.float32) * 0.2,
              np.zeros(D_H, np.float32),
              rng.standard_normal((D_H, D_OUT)).astype(np.float32) * 0.2,
              np.zeros(D_OUT, np.float32)]
    x = rng.standard_normal((B, 1, D_IN)).astype(np.float32)
    y = rng.standard_normal((B, 1, D_OUT)).astype(np.float32)
    return params, x, y


def bench_mycel():
    import mycel as ms
    from mycel import Tensor, ops

    def loss(w1, b1, w2, b2, x, y):
        h = ops.tanh(ops.matmul(x, w1) + b1)
        return ((ops.matmul(h, w2) + b2 - y) ** 2).sum()

    params, x, y = data()
    ps = [Tensor(p) for p in params]
    xt, yt = Tensor(x), Tensor(y)
    xs = [Tensor(x[k]) for k in range(B)]
    ys = [Tensor(y[k]) for k in range(B)]
    res = {}
    for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode)
        g = ms.grad(loss, grad_position=(0, 1, 2, 3))
        vg = ms.vmap(g, in_axes=(None, None, None, None, 0, 0))
        out = vg(*ps, xt, yt)
        ref = g(*ps, xs[5], ys[5])
        for a, b in zip(out, ref):  # the batch's row 5 is example 5's gradient
            np.testing.assert_allclose(a.asnumpy()[5], b.asnumpy(), rtol=1e-4, atol=1e-5)
        res[f"vmap_{name}_ms"] = median_ms(lambda: [t.asnumpy() for t in vg(*ps, xt, yt)])
        res[f"loop_{name}_ms"] = median_ms(
            lambda: [[t.asnumpy() for t in g(*ps, xs[k], ys[k])] for k in range(B)], reps=5)
    return res


def bench_torch():
    import torch
    from functorch import grad, vmap

    torch.set_num_threads(int(__import__("os").environ.get("BENCH_THREADS", "2")))
    params, x, y = data()
    ps = [torch.tensor(p, requires_grad=True) for p in params]
    xt, yt = torch.tensor(x), torch.tensor(y)

    def loss(w1, b1, w2, b2, x, y):
        h = torch.tanh(x @ w1 + b1)
        return ((h @ w2 + b2 - y) ** 2).sum()

    vg = vmap(grad(loss, argnums=(0, 1, 2, 3)), in_dims=(None, None, None, None, 0, 0))
    res = {"vmap_ms": median_ms(lambda: [t.numpy() for t in vg(*[p.detach() for p in ps], xt, yt)])}

    def loop():
        for k in range(B):
            [t.numpy() for t in torch.autograd.grad(loss(*ps, xt[k], yt[k]), ps)]
    res["loop_ms"] = median_ms(loop, reps=5)
    return res


if __name__ == "__main__":
    print(json.dumps(bench_mycel() if sys.argv[1] == "mycel" else bench_torch()))
