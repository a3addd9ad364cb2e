"""Distributed benchmarks: all-reduce latency and bandwidth between 2 processes on the
loopback address. Prints one JSON object of rank 0's measurements; bench/run.py runs it for
each framework/backend and writes the "Distributed" section of RESULTS.md.

  dist_bench.py mycel        2 ranks of mycel over Gloo (the environment mycel.run sets:
                             MS_WORKER_NUM, RANK_ID, MS_SCHED_HOST=127.0.0.1, MS_SCHED_PORT)
  dist_bench.py mycel-mpi    2 ranks of mycel over Open MPI, started by mpirun on the
                             loopback (btl self,vader,tcp; tcp on lo only)
  dist_bench.py mycel-mpi-ring   as mycel-mpi, with OMPI_MCA_coll_libnbc_iallreduce_algorithm=1
                             set explicitly (the ring for Open MPI's non-blocking
                             all-reduce, which mycel's MPI backend now chooses itself)
  dist_bench.py torch        2 ranks of torch.distributed with the gloo backend
                             (init_method tcp://127.0.0.1:PORT, GLOO_SOCKET_IFNAME=lo)
  dist_bench.py pingpong     context, no framework: a 4-byte TCP round trip between 2
                             processes on the loopback (the floor under the latency rows)
  dist_bench.py rank MODE    one rank (started by the modes above)

What is timed, on every rank (rank 0's numbers are reported, rank 1's are kept as "peer_*"):

  latency     all-reduce (sum) of one float32 (4 bytes). mycel: `ops.AllReduce()(x)` in
              PYNATIVE mode, the per-call path a user sees (Python -> primitive -> eager
              dispatch -> kernel -> communicator), a new output tensor per call. PyTorch:
              `dist.all_reduce(t)` (in place, synchronous). LAT_WARMUP calls, then LAT_REPEATS
              repeats of LAT_CALLS calls, each repeat started after a barrier; µs per call of
              each repeat, their median.
  bandwidth   all-reduce (sum) of 64 MiB of float32 (16M elements), the same calls.
              BW_WARMUP calls, then BW_REPEATS timed calls, each after a barrier; algorithm
              bandwidth = bytes / time (GB/s, 1e9 bytes), of the median time.

Every process runs with 1 compute thread (OMP_NUM_THREADS=1, torch.set_num_threads(1));
PyTorch's ProcessGroupGloo keeps its own worker threads, as it does for every user. The
launcher modes start the ranks in their own process group, wait with a timeout and kill
every process (the whole group, mpirun's children included) on failure or timeout.
"""
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
NRANKS = 2
LAT_WARMUP, LAT_REPEATS, LAT_CALLS = 200, 5, 200
BW_ELEMS = 64 * 1024 * 1024 // 4  # 64 MiB of float32
BW_WARMUP, BW_REPEATS = 3, 7
TIMEOUT_S = 300  # the whole job, launch to exit
MODES = ("mycel", "mycel-mpi", "mycel-mpi-ring", "torch", "pingpong")


# ---- one rank ------------------------------------------------------------------------------

def measure(allreduce, barrier, make_small, make_big, check):
    """Times `allreduce` (one call on a tensor) as described in the module docstring."""
    x = make_small(1.0)
    check(allreduce(x), 1, float(NRANKS))  # the sum over ranks, before anything is timed
    x = make_small(0.0)  # zeros: an in-place all-reduce of them stays zeros (no overflow)
    for _ in range(LAT_WARMUP):
        allreduce(x)
    lat = []
    for _ in range(LAT_REPEATS):
        barrier()
        t0 = time.perf_counter()
        for _ in range(LAT_CALLS):
            allreduce(x)
        lat.append((time.perf_counter() - t0) / LAT_CALLS * 1e6)

    big = make_big(1.0)
    check(allreduce(big), BW_ELEMS, float(NRANKS))
    big = make_big(0.0)
    for _ in range(BW_WARMUP):
        allreduce(big)
    bw = []
    for _ in range(BW_REPEATS):
        barrier()
        t0 = time.perf_counter()
        allreduce(big)
        bw.append(time.perf_counter() - t0)
    t = statistics.median(bw)
    return {"latency_us": statistics.median(lat), "latency_repeats_us": lat,
            "bw_ms": t * 1e3, "bw_gbps": BW_ELEMS * 4 / t / 1e9,
            "bw_repeats_ms": [v * 1e3 for v in bw]}


def rank_mycel():
    import numpy as np
    import mycel as ms
    from mycel import communication as comm, ops

    ms.set_context(mode=ms.PYNATIVE_MODE)
    t0 = time.perf_counter()
    comm.init()
    init_s = time.perf_counter() - t0
    rank, backend = comm.get_rank(), comm.GlobalComm.BACKEND
    allreduce = ops.AllReduce()  # sum over the world group
    sync = ops.AllReduce()
    one = ms.Tensor(np.zeros(1, np.float32))

    def barrier():
        sync(one)

    def check(y, n, want):
        a = y.asnumpy()
        assert a.shape == (n,) and np.all(a == want), (a[:4], want)

    r = measure(allreduce, barrier,
                lambda v: ms.Tensor(np.full(1, v, np.float32)),
                lambda v: ms.Tensor(np.full(BW_ELEMS, v, np.float32)), check)
    comm.release()
    return rank, dict(r, backend=backend, init_s=init_s)


def rank_torch():
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    rank, size = int(os.environ["RANK_ID"]), int(os.environ["MS_WORKER_NUM"])
    t0 = time.perf_counter()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['MS_SCHED_PORT']}",
                            rank=rank, world_size=size)
    init_s = time.perf_counter() - t0

    def allreduce(t):
        dist.all_reduce(t)  # sum, in place, synchronous
        return t

    def check(y, n, want):
        assert y.shape == (n,) and bool(torch.all(y == want)), (y[:4], want)

    r = measure(allreduce, dist.barrier, lambda v: torch.full((1,), v, dtype=torch.float32),
                lambda v: torch.full((BW_ELEMS,), v, dtype=torch.float32), check)
    dist.barrier()
    dist.destroy_process_group()
    return rank, dict(r, backend="gloo", init_s=init_s, torch_version=torch.__version__)


def rank_pingpong():
    """The floor under a 2-rank all-reduce of 4 bytes: a TCP round trip of 4 bytes between
    two processes on the loopback (TCP_NODELAY, blocking sockets, no framework)."""
    import socket as so
    rank, port = int(os.environ["RANK_ID"]), int(os.environ["MS_SCHED_PORT"])
    deadline = time.monotonic() + 60
    if rank == 0:
        srv = so.socket()
        srv.setsockopt(so.SOL_SOCKET, so.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", port))
        srv.listen(1)
        srv.settimeout(60)
        s, _ = srv.accept()
        srv.close()
    else:
        while True:
            try:
                s = so.create_connection(("127.0.0.1", port), timeout=60)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
    s.settimeout(60)
    s.setsockopt(so.IPPROTO_TCP, so.TCP_NODELAY, 1)

    def exchange():
        if rank == 0:
            s.sendall(b"ping")
            s.recv(4)
        else:
            s.recv(4)
            s.sendall(b"pong")

    for _ in range(LAT_WARMUP):
        exchange()
    lat = []
    for _ in range(LAT_REPEATS):
        t0 = time.perf_counter()
        for _ in range(LAT_CALLS):
            exchange()
        lat.append((time.perf_counter() - t0) / LAT_CALLS * 1e6)
    s.close()
    return rank, {"rtt_us": statistics.median(lat), "rtt_repeats_us": lat}


def rank_main(framework):
    if framework == "pingpong":
        rank, r = rank_pingpong()
    elif framework.startswith("mycel"):
        rank, r = rank_mycel()
    else:
        rank, r = rank_torch()
    # A file per rank: mpirun merges its ranks' stdout into one stream, lines interleaved.
    with open(os.path.join(os.environ["DIST_BENCH_OUT"], f"rank{rank}.json"), "w") as f:
        json.dump(dict(r, rank=rank), f)


# ---- the launcher --------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               GLOO_SOCKET_IFNAME="lo", MYCEL_COMM_TIMEOUT="120")
    env.update(extra)
    return env


def _kill(procs):
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # its own session: children too (mpirun's)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def _run_all(cmds):
    """Starts every (command, environment) in its own session, output to a temporary file;
    polls until all have exited, killing them all as soon as one fails, at the deadline, or
    on an interrupt. Their outputs."""
    deadline = time.monotonic() + TIMEOUT_S
    files = [tempfile.TemporaryFile("w+") for _ in cmds]
    procs = []
    try:
        for (cmd, env), f in zip(cmds, files):
            procs.append(subprocess.Popen(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                          text=True, start_new_session=True))
        while True:
            codes = [p.poll() for p in procs]
            bad = [i for i, c in enumerate(codes) if c not in (None, 0)]
            if bad:
                _kill(procs)
                f = files[bad[0]]
                f.seek(0)
                raise RuntimeError(f"process {bad[0]} ({' '.join(cmds[bad[0]][0][-2:])}) exited "
                                   f"with {codes[bad[0]]}:\n{f.read()[-3000:]}")
            if all(c == 0 for c in codes):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the job did not finish within {TIMEOUT_S} s")
            time.sleep(0.05)
    finally:
        _kill(procs)
    outs = []
    for f in files:
        f.seek(0)
        outs.append(f.read())
        f.close()
    return outs


def gloo_job(script, n, args):
    """Runs `script worker *args RANK` as ranks 0..n-1 of one Gloo job on the loopback (1
    thread each, the environment of _env), ending every process whatever happens; each rank
    writes its JSON to $BENCH_RANK_OUT/rank_RANK.json. The ranks' results, in rank order."""
    with tempfile.TemporaryDirectory(prefix="bench_job") as out:
        port = free_port()
        _run_all([([PYTHON, script, "worker", *map(str, args), str(r)],
                   _env({"MS_WORKER_NUM": str(n), "RANK_ID": str(r), "MS_SCHED_HOST": "127.0.0.1",
                         "MS_SCHED_PORT": str(port), "BENCH_RANK_OUT": out}))
                  for r in range(n)])
        results = []
        for r in range(n):
            with open(os.path.join(out, f"rank_{r}.json")) as f:
                results.append(json.load(f))
        return results


def write_rank_result(rank, result):
    """A gloo_job worker's result, where gloo_job reads it."""
    with open(os.path.join(os.environ["BENCH_RANK_OUT"], f"rank_{rank}.json"), "w") as f:
        json.dump(result, f)


def launch(framework):
    with tempfile.TemporaryDirectory(prefix="dist_bench") as out:
        _launch(framework, out)


def _launch(framework, out):
    me = os.path.abspath(__file__)
    if framework in ("mycel-mpi", "mycel-mpi-ring"):
        # mycel's MPI backend has Open MPI's non-blocking all-reduce (libnbc) use its ring
        # algorithm unless the environment says otherwise; -ring says so explicitly.
        knob = "OMPI_MCA_coll_libnbc_iallreduce_algorithm"
        extra = {knob: "1"} if "ring" in framework else {}
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            raise SystemExit("mpirun not found")
        cmd = [mpirun, "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader,tcp",
               "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
               "-np", str(NRANKS), PYTHON, me, "rank", framework]
        cmds = [(cmd, _env({"DIST_BENCH_OUT": out, **extra}))]
    else:
        port = free_port()
        cmds = [([PYTHON, me, "rank", framework],
                 _env({"MS_WORKER_NUM": str(NRANKS), "RANK_ID": str(r),
                       "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": str(port),
                       "DIST_BENCH_OUT": out}))
                for r in range(NRANKS)]
    _run_all(cmds)
    results = {}
    for name in os.listdir(out):
        with open(os.path.join(out, name)) as f:
            r = json.load(f)
        results[r["rank"]] = r
    if sorted(results) != list(range(NRANKS)):
        raise SystemExit(f"expected results of ranks 0..{NRANKS - 1}, got {sorted(results)}")
    r0, r1 = results[0], results[1]
    r0.update({f"peer_{k}": v for k, v in r1.items() if k.endswith(("_us", "_ms", "_gbps"))})
    print(json.dumps(r0))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "rank":
        rank_main(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] in MODES:
        launch(sys.argv[1])
    else:
        raise SystemExit(f"usage: {sys.argv[0]} {'|'.join(MODES)}")
