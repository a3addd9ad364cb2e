"""Eager-op benchmarks for one framework per process: `ops_bench.py mycel|torch`.
Prints one JSON object of measurements. bench/run.py runs it for each framework and writes
RESULTS.md. Every timing is the median of several repeats after a warm-up."""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))


def timeit(fn, repeat=7, number=1, stat=statistics.median):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return stat(times)


def import_time(module):
    """Median wall time of `python -c 'import module'` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    code = f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"
    vals = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, check=True)
        vals.append(float(out.stdout.strip()))
    return statistics.median(vals)


LENET_CONVS = [  # (N, C, H, W, O, k): LeNet-5's two convolutions at batch 64
    (64, 1, 32, 32, 6, 5),
    (64, 6, 14, 14, 16, 5),
]
CHAIN_N = 1 << 20


def bench_mycel():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import mycel as ms
    from mycel import ops
    from mycel.ops import operations as P
    ms._mycel.set_num_threads(THREADS)
    r = {"import_s": import_time("mycel")}
    a, b = ms.Tensor([1.0]), ms.Tensor([2.0])
    n = 100_000

    def adds():
        for _ in range(n):
            a + b
    r["add1_us"] = timeit(adds, repeat=9, stat=min) / n * 1e6  # best of: timeit's convention
    # MatMul against oneDNN's own sgemm, called through ctypes in this same process and
    # interleaved with mycel's calls, so drift between runs cannot favour either.
    sgemm = _onednn_sgemm()
    for size in (1024, 4096):
        a = np.random.rand(size, size).astype(np.float32)
        b2 = np.random.rand(size, size).astype(np.float32)
        x, y = ms.Tensor(a), ms.Tensor(b2)
        mm = P.MatMul()
        ref = sgemm(a, b2)
        mine_t, ref_t = [], []
        mm(x, y)
        ref()
        for _ in range(9):
            mine_t.append(timeit(lambda: mm(x, y), repeat=1))
            ref_t.append(timeit(ref, repeat=1))
        r[f"matmul{size}_gflops"] = 2 * size ** 3 / statistics.median(mine_t) / 1e9
        r[f"onednn{size}_gflops"] = 2 * size ** 3 / statistics.median(ref_t) / 1e9
    total = 0.0
    for (nb, c, h, w, o, k) in LENET_CONVS:
        x = ms.Tensor(np.random.rand(nb, c, h, w).astype(np.float32))
        wt = ms.Tensor(np.random.rand(o, c, k, k).astype(np.float32))
        conv = P.Conv2D(o, k)
        dx = P.Conv2DBackpropInput(o, k)
        dw = P.Conv2DBackpropFilter(o, k)

        def step():
            out = conv(x, wt)
            dx(out, wt, x.shape)
            dw(out, x, wt.shape)
        total += timeit(step, repeat=20)
    r["lenet_conv_fwdbwd_ms"] = total * 1e3
    x = ms.Tensor(np.random.rand(CHAIN_N).astype(np.float32))
    y = ms.Tensor(np.random.rand(CHAIN_N).astype(np.float32))

    def chain():
        z = x * y
        z = z + x
        z = ops.tanh(z)
        z = ops.exp(z)
        z = z - y
        z = ops.sigmoid(z)
        z = z * 2.0
        z = ops.relu(z)
        z = ops.sqrt(z)
        return z / (y + 1.0)
    r["chain10_ms"] = timeit(chain, repeat=20) * 1e3
    return r


def bench_torch():
    import torch
    torch.set_num_threads(THREADS)
    r = {"import_s": import_time("torch")}
    a, b = torch.tensor([1.0]), torch.tensor([2.0])
    n = 100_000

    def adds():
        for _ in range(n):
            a + b
    r["add1_us"] = timeit(adds, repeat=9, stat=min) / n * 1e6  # best of: timeit's convention
    for size in (1024, 4096):
        x = torch.rand(size, size)
        y = torch.rand(size, size)
        t = timeit(lambda: torch.matmul(x, y), repeat=5 if size == 1024 else 1)
        r[f"matmul{size}_gflops"] = 2 * size ** 3 / t / 1e9
    total = 0.0
    for (nb, c, h, w, o, k) in LENET_CONVS:
        x = torch.rand(nb, c, h, w, requires_grad=True)
        wt = torch.rand(o, c, k, k, requires_grad=True)

        def step():
            out = torch.nn.functional.conv2d(x, wt)
            out.backward(out.detach())
        total += timeit(step, repeat=20)
    r["lenet_conv_fwdbwd_ms"] = total * 1e3
    x = torch.rand(CHAIN_N)
    y = torch.rand(CHAIN_N)

    def chain():
        z = x * y
        z = z + x
        z = torch.tanh(z)
        z = torch.exp(z)
        z = z - y
        z = torch.sigmoid(z)
        z = z * 2.0
        z = torch.relu(z)
        z = torch.sqrt(z)
        return z / (y + 1.0)
    r["chain10_ms"] = timeit(chain, repeat=20) * 1e3
    return r


def _onednn_sgemm():
    """A factory of oneDNN sgemm calls (ctypes) on numpy operands: the reference MatMul must
    reach."""
    import ctypes
    lib = ctypes.CDLL("libdnnl.so.2")
    fn = lib.dnnl_sgemm
    fn.restype = ctypes.c_int
    fp = ctypes.POINTER(ctypes.c_float)
    fn.argtypes = [ctypes.c_char, ctypes.c_char, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                   ctypes.c_float, fp, ctypes.c_int64, fp, ctypes.c_int64, ctypes.c_float, fp,
                   ctypes.c_int64]

    def make(a, b):
        m, k = a.shape
        n = b.shape[1]
        z = np.empty((m, n), np.float32)
        args = (b"N", b"N", m, n, k, 1.0, a.ctypes.data_as(fp), k, b.ctypes.data_as(fp), n, 0.0,
                z.ctypes.data_as(fp), n)
        return lambda: fn(*args)
    return make


if __name__ == "__main__":
    which = sys.argv[1]
    result = {"mycel": bench_mycel, "torch": bench_torch}[which]()
    print(json.dumps(result))
