"""Calibrates the strategy search's cost model on this machine and writes its profile.

``python -m mycel.parallel.calibrate [--out PATH] [--optimizer_factor F] [--axes N]`` measures

- peak_flops: mycel's MatMul (float32, 1024 x 1024 x 1024), the best of several runs;
- mem_bandwidth: mycel's Add of two 8M-element float32 tensors (12 bytes moved per element),
  the best of several runs;
- alpha and beta: an AllReduce between 2 processes of one Gloo job on the loopback address
  (started here), the median time at 4 B, 64 KiB, 1, 4 and 16 MiB; at 2 ranks the model's
  best algorithm takes one step and sends the whole message, t = alpha + s * beta, fitted
  by least squares;
- axis_alpha and axis_beta: that alpha and beta for each of ``--axes`` mesh axes (default 2).
  Every rank here shares the loopback, so there is one level to measure and every axis gets
  the same numbers; a mesh over a node hierarchy (e.g. axis 0 between hosts) would have its
  slower axis measured by running this AllReduce across two launchers, which these machines
  cannot do, so no such number is written;

and writes them as JSON (default: ``profile.json`` beside this file, the search's default
profile), with the medians beside them (``check``), which the bench's ``search`` section
compares with the model. The numbers serve relative comparisons only on a shared, sandboxed
machine (distributed.md §1).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

SIZES = (4, 64 << 10, 1 << 20, 4 << 20, 16 << 20)  # bytes of the AllReduces timed
REPEATS = 25


def _best(fn, repeats):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def measure_compute(repeats=5):
    """(peak FLOP/s of a MatMul, bytes/s of an Add), mycel's kernels in PYNATIVE mode."""
    import mycel as ms
    from mycel import ops
    n = 1024
    rng = np.random.default_rng(0)
    a = ms.Tensor(rng.standard_normal((n, n)).astype(np.float32))
    b = ms.Tensor(rng.standard_normal((n, n)).astype(np.float32))
    mm, add = ops.MatMul(), ops.Add()
    peak = 2.0 * n ** 3 / _best(lambda: mm(a, b).asnumpy(), repeats)
    m = 8 << 20
    x = ms.Tensor(np.ones(m, np.float32))
    y = ms.Tensor(np.ones(m, np.float32))
    bandwidth = 12.0 * m / _best(lambda: add(x, y).asnumpy(), repeats)
    return peak, bandwidth


def _worker():
    """One rank of the AllReduce timing job: prints the medians (rank 0)."""
    import mycel as ms
    from mycel.communication import init, get_rank, release
    from mycel.communication.comm_func import all_reduce, barrier
    init()
    out = {}
    for size in SIZES:
        t = ms.Tensor(np.ones(size // 4, np.float32))
        all_reduce(t)
        times = []
        for _ in range(REPEATS):
            barrier()
            s = time.perf_counter()
            all_reduce(t)
            times.append(time.perf_counter() - s)
        out[size] = float(np.median(times))
    if get_rank() == 0:
        print("TIMES", json.dumps(out))
    release()


def measure_allreduce(timeout=300):
    """{bytes: median seconds} of an AllReduce between 2 Gloo processes on loopback."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(2):
        env = dict(os.environ, MS_WORKER_NUM="2", RANK_ID=str(rank),
                   MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(port), OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, "-m", "mycel.parallel.calibrate",
                                       "--worker"], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, text in zip(procs, outs):
        if p.returncode != 0:
            raise RuntimeError(f"calibrate: an AllReduce rank failed:\n{text[-2000:]}")
    line = [ln for ln in outs[0].splitlines() if ln.startswith("TIMES ")][-1]
    return {int(k): v for k, v in json.loads(line[6:]).items()}


def fit(times):
    """(alpha, beta) of t = alpha + s * beta (2 ranks), least squares over the sizes timed;
    alpha at least a tenth of the smallest time, beta positive."""
    s = np.array(sorted(times), float)
    t = np.array([times[k] for k in sorted(times)])
    beta, alpha = np.polyfit(s, t, 1)
    return max(alpha, 0.1 * t[0]), max(beta, 1e-12)


def calibrate(optimizer_factor=1.0, axes=2):
    """The profile of this machine (a dict; see the module's docstring): one level, so each
    of ``axes`` mesh axes gets the fitted alpha and beta."""
    if isinstance(axes, bool) or not isinstance(axes, int) or axes < 0:
        raise ValueError(f"calibrate: axes must be an int >= 0, but got {axes!r}.")
    peak, bandwidth = measure_compute()
    times = measure_allreduce()
    alpha, beta = fit(times)
    return {"peak_flops": peak, "mem_bandwidth": bandwidth, "alpha": alpha, "beta": beta,
            "axis_alpha": [alpha] * axes, "axis_beta": [beta] * axes,
            "optimizer_factor": optimizer_factor,
            "check": {"allreduce_2_ranks_s": {str(k): v for k, v in sorted(times.items())}},
            "measured": time.strftime("%Y-%m-%d", time.gmtime())}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m mycel.parallel.calibrate",
                                 description="Measure this machine for the strategy search.")
    ap.add_argument("--out", default=None, help="the JSON file (default: the search's "
                    "default profile.json)")
    ap.add_argument("--optimizer_factor", type=float, default=1.0,
                    help="optimizer states per parameter (Momentum 1, Adam 2)")
    ap.add_argument("--axes", type=int, default=2,
                    help="mesh axes to write axis_alpha/axis_beta for (all the one level "
                    "measured here)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker()
    from mycel.parallel.search import DEFAULT_PROFILE
    profile = calibrate(args.optimizer_factor, args.axes)
    out = args.out or DEFAULT_PROFILE
    with open(out, "w") as f:
        json.dump(profile, f, indent=1)
        f.write("\n")
    print(json.dumps(profile, indent=1))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
