"""Helpers for multi-process tests: start N ranks of a script on the loopback address (Gloo,
through the environment the launcher sets, or under mpirun), wait for them with a timeout,
and end every process whatever happens."""
import os
import shutil
import socket
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.update(extra)
    return env


def _wait_all(procs, timeout):
    """(returncode, output) per process; kills every one still running after `timeout`."""
    results = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=timeout)
            results.append((p.returncode, out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return results


def run_ranks(script, ranks, args=(), timeout=180, env=None, port=None):
    """Runs `script` once per (rank, world size) of `ranks`, with the environment the
    launcher sets for a Gloo job on the loopback address; [(returncode, output)] in order."""
    port = port or free_port()
    procs = []
    for rank, size in ranks:
        e = _env({"MS_WORKER_NUM": str(size), "RANK_ID": str(rank),
                  "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": str(port), **(env or {})})
        procs.append(subprocess.Popen([PYTHON, str(script), *map(str, args)], env=e,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True))
    return _wait_all(procs, timeout)


def run_gloo(script, n, args=(), timeout=180, env=None):
    """Runs `script` as ranks 0..n-1 of one Gloo job; [(returncode, output)] by rank."""
    return run_ranks(script, [(r, n) for r in range(n)], args, timeout, env)


def run_mpi(script, n, args=(), timeout=180, env=None):
    """Runs `script` on n processes under mpirun; [(returncode, output)] (one entry: mpirun's)."""
    mpirun = shutil.which("mpirun")
    cmd = [mpirun, "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader,tcp",
           "--mca", "btl_tcp_if_include", "lo", "-np", str(n), PYTHON, str(script), *map(str, args)]
    p = subprocess.Popen(cmd, env=_env(env or {}), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    return _wait_all([p], timeout)
