"""Graph-kernel fusion benchmark: memory-bound chains in mycel's GRAPH mode with
set_context(enable_graph_kernel=True) and without, and the same computations in PyTorch eager;
prints one JSON object (bench/run.py --only fusion runs it per framework and writes
RESULTS.md).

Workloads (float32):
  adam       the Adam update of 10M parameters written out in elementwise ops (m, v, p from
             g; bias corrections folded into lr): reads p, m, v, g and writes p, m, v
  layernorm  LayerNorm over the last axis of [4096, 1024] (mean, variance, scale and shift),
             then GELU (tanh form) and dropout by a given keep mask (mask * x / keep)
  lnonly     the LayerNorm alone (reads x, writes y): the chain without GELU's arithmetic
             (tanh's exp and division), which on these cores costs more than its memory traffic
  attention  a softmax-attention block, batch 16 x 128 tokens x 64 features: scores = q k^T /
             sqrt(d) + bias, softmax (max, exp, sum, divide), probabilities @ v
  copy       y = x * 1.5 over 64M float32 (read 256 MB, write 256 MB; one op, which stays
             with its Mul kernel): this machine's memory bandwidth as a kernel sees it;
             numpy's copy of the same array as a second measure

Per workload: ms per call (the best of ROUNDS rounds of REPS calls after a warm-up; the rounds
interleave every setting, the copy included, so they share the machine's load) and the process
CPU time per call (both threads), and, for the memory-bound ones, the bytes a fused kernel must
move at least (inputs read once, outputs written once) divided by the time: STREAM's
convention, which counts neither the cache-line reads that precede writes nor caches, for the
chains and the copy alike.
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
REPS, ROUNDS = 5, 5
N_ADAM = 10_000_000
LN_SHAPE = (4096, 1024)
ATT = (16, 128, 64)
COPY_N = 64 * 1024 * 1024


def best_ms(fn):
    fn()
    best = float("inf")
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(REPS):
            fn()
        best = min(best, (time.perf_counter() - t0) / REPS)
    return best * 1e3


def data():
    rng = np.random.default_rng(0)
    f = np.float32
    adam = [rng.standard_normal(N_ADAM).astype(f) for _ in range(2)] + [
        np.abs(rng.standard_normal(N_ADAM)).astype(f) * 0.1, rng.standard_normal(N_ADAM).astype(f)]
    ln = [rng.standard_normal(LN_SHAPE).astype(f), rng.standard_normal(LN_SHAPE[1]).astype(f),
          rng.standard_normal(LN_SHAPE[1]).astype(f),
          (rng.uniform(size=LN_SHAPE) < 0.9).astype(f)]
    b, t, d = ATT
    att = [rng.standard_normal((b, t, d)).astype(f) for _ in range(3)] + [
        rng.standard_normal((t, t)).astype(f)]
    return adam, ln, att


BYTES = {
    "adam": 7 * 4 * N_ADAM,                                       # p m v g in, p m v out
    "layernorm": 4 * (3 * LN_SHAPE[0] * LN_SHAPE[1] + 2 * LN_SHAPE[1]),  # x, mask in; y out
    "lnonly": 4 * (2 * LN_SHAPE[0] * LN_SHAPE[1] + 2 * LN_SHAPE[1]),     # x in; y out
    "copy": 2 * 4 * COPY_N,
}


def mycel_main():
    import mycel as ms
    from mycel import ops
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8

    def adam(p, m, v, g):
        m2 = m * b1 + g * (1 - b1)
        v2 = v * b2 + g * g * (1 - b2)
        return p - m2 * lr / (ops.sqrt(v2) + eps), m2, v2

    def layernorm(x, gamma, beta, keep):
        mu = ops.ReduceMean(keep_dims=True)(x, -1)
        d = x - mu
        var = ops.ReduceMean(keep_dims=True)(d * d, -1)
        y = d * ops.rsqrt(var + 1e-5) * gamma + beta
        h = 0.5 * y * (1.0 + ops.tanh(0.7978845608 * (y + 0.044715 * y * y * y)))
        return h * keep * (1.0 / 0.9)

    def lnonly(x, gamma, beta, keep):
        mu = ops.ReduceMean(keep_dims=True)(x, -1)
        d = x - mu
        var = ops.ReduceMean(keep_dims=True)(d * d, -1)
        return d * ops.rsqrt(var + 1e-5) * gamma + beta

    def attention(q, k, v, bias):
        s = ops.BatchMatMul(transpose_b=True)(q, k) * 0.125 + bias
        e = ops.exp(s - ops.ReduceMax(keep_dims=True)(s, -1))
        p = e / ops.ReduceSum(keep_dims=True)(e, -1)
        return ops.BatchMatMul()(p, v)

    def copy(x):
        return x * 1.5

    adam_d, ln_d, att_d = data()
    xs = np.random.default_rng(1).standard_normal(COPY_N).astype(np.float32)
    cases = {"adam": (adam, adam_d), "layernorm": (layernorm, ln_d), "lnonly": (lnonly, ln_d),
             "attention": (attention, att_d), "copy": (copy, [xs])}
    # Every setting compiled first, then measured in interleaved rounds (each round runs each
    # setting REPS times), so fused, unfused and the bandwidth measure share the machine's load.
    calls = {}
    for fused in (False, True):
        ms.set_context(enable_graph_kernel=fused)
        tag = "fused" if fused else "unfused"
        for name, (fn, arrays) in cases.items():
            args = [ms.Tensor(a) for a in arrays]
            f = ms.jit(fn)
            f(*args)
            calls[f"{name}_{tag}"] = (lambda f=f, args=args: f(*args))
    calls["numpy_copy"] = lambda: np.copyto(np.empty_like(xs), xs)
    wall = {k: float("inf") for k in calls}
    cpu = dict(wall)
    for _ in range(ROUNDS):
        for key, fn in calls.items():
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(REPS):
                fn()
            wall[key] = min(wall[key], (time.perf_counter() - t0) / REPS)
            cpu[key] = min(cpu[key], (time.process_time() - c0) / REPS)
    out = {f"{k}_ms": v * 1e3 for k, v in wall.items()}
    out.update({f"{k}_cpu_ms": v * 1e3 for k, v in cpu.items()})
    out["load"] = os.getloadavg()[0]
    return out


def torch_main():
    import torch
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    adam_d, ln_d, att_d = data()

    def adam(p, m, v, g):
        m2 = m * b1 + g * (1 - b1)
        v2 = v * b2 + g * g * (1 - b2)
        return p - m2 * lr / (torch.sqrt(v2) + eps), m2, v2

    def layernorm(x, gamma, beta, keep):
        y = torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, 1e-5)
        return torch.nn.functional.gelu(y, approximate="tanh") * keep * (1.0 / 0.9)

    def lnonly(x, gamma, beta, keep):
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, 1e-5)

    def attention(q, k, v, bias):
        s = torch.bmm(q, k.transpose(1, 2)) * 0.125 + bias
        return torch.bmm(torch.softmax(s, -1), v)

    cases = {"adam": (adam, adam_d), "layernorm": (layernorm, ln_d), "lnonly": (lnonly, ln_d),
             "attention": (attention, att_d)}
    out = {}
    with torch.no_grad():
        for threads in (1, 2):
            torch.set_num_threads(threads)
            for name, (fn, arrays) in cases.items():
                args = [torch.from_numpy(a) for a in arrays]
                out[f"{name}_{threads}_ms"] = best_ms(lambda fn=fn, args=args: fn(*args))
    return out


if __name__ == "__main__":
    result = mycel_main() if sys.argv[1] == "mycel" else torch_main()
    print(json.dumps(result))
