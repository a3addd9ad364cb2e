"""The launcher: ``python -m mycel.run [options] script.py [args...]``, MindSpore's ``msrun``.

Starts this node's workers of a distributed job, each with the environment that
``mycel.communication.init()`` reads (the world size, its rank, the rendezvous address),
writes each worker's output to ``<log_dir>/worker_<rank>.log`` and watches them: when one
fails, the others are stopped (SIGTERM, then SIGKILL after a grace period), no process is
left behind, and the launcher exits non-zero naming the rank, its exit status and the last
lines of its log. Two launchers with different ``--node_rank`` form one job over TCP: node 0's
first worker hosts the rendezvous store on ``--master_addr:--master_port``.

Options (msrun's): --worker_num N (the world size), --local_worker_num N (workers on this
node; default worker_num), --master_addr A (127.0.0.1), --master_port P (8118),
--node_rank K (0), --log_dir D (./mycel_log), --join True|False (wait for the workers; True
here), --cluster_time_out S (seconds any rendezvous or collective may wait; 600).
"""
import argparse
import os
import queue
import signal
import subprocess
import sys
import threading
import time

GRACE_S = 5.0  # SIGTERM to SIGKILL
TAIL_LINES = 20


def _bool(v):
    if v.lower() in ("true", "1", "yes"):
        return True
    if v.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected True or False, got {v!r}")


def _positive(v):
    n = int(v)
    if n <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v!r}")
    return n


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m mycel.run", description=__doc__.split("\n")[0])
    p.add_argument("--worker_num", type=_positive, default=8)
    p.add_argument("--local_worker_num", type=_positive, default=None)
    p.add_argument("--master_addr", default="127.0.0.1")
    p.add_argument("--master_port", type=int, default=8118)
    p.add_argument("--node_rank", type=int, default=0)
    p.add_argument("--log_dir", default="mycel_log")
    p.add_argument("--join", type=_bool, default=True)
    p.add_argument("--cluster_time_out", type=_positive, default=600)
    p.add_argument("task_script")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.local_worker_num is None:
        a.local_worker_num = a.worker_num
    first = a.node_rank * a.local_worker_num
    if a.node_rank < 0 or first + a.local_worker_num > a.worker_num:
        p.error(f"--node_rank {a.node_rank} with --local_worker_num {a.local_worker_num} gives "
                f"ranks {first}..{first + a.local_worker_num - 1}, outside the "
                f"{a.worker_num} of --worker_num")
    if not 0 < a.master_port < 65536:
        p.error(f"--master_port {a.master_port} is not a TCP port")
    return a


def _tail(path, n=TAIL_LINES):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def _stop(workers):
    """SIGTERM every live worker's process group, then SIGKILL what is left after GRACE_S."""
    for w in workers:
        if w["proc"].poll() is None:
            try:
                os.killpg(w["proc"].pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + GRACE_S
    for w in workers:
        try:
            w["proc"].wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for w in workers:
        try:  # the whole group: a worker's own children (data workers) go too
            os.killpg(w["proc"].pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        w["proc"].wait()


def start(a):
    os.makedirs(a.log_dir, exist_ok=True)
    workers = []
    for i in range(a.local_worker_num):
        rank = a.node_rank * a.local_worker_num + i
        env = dict(os.environ)
        env.update({"MS_WORKER_NUM": str(a.worker_num), "RANK_ID": str(rank),
                    "LOCAL_RANK": str(i), "MS_SCHED_HOST": a.master_addr,
                    "MS_SCHED_PORT": str(a.master_port), "MS_NODE_RANK": str(a.node_rank),
                    "MYCEL_COMM_TIMEOUT": str(a.cluster_time_out)})
        log = os.path.join(a.log_dir, f"worker_{rank}.log")
        with open(log, "w") as f:
            proc = subprocess.Popen([sys.executable, a.task_script, *a.task_script_args],
                                    env=env, stdout=f, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        workers.append({"rank": rank, "proc": proc, "log": log})
    return workers


def watch(workers):
    """Waits for the workers; 0 when all succeed, else stops the rest and returns 1, naming
    the first to fail (a thread per worker records the order of exits, so a rank that died
    is named rather than a peer that failed because of it)."""
    exits = queue.Queue()
    for w in workers:
        threading.Thread(target=lambda w=w: exits.put((w, w["proc"].wait())),
                         daemon=True).start()
    done = 0
    while done < len(workers):
        try:
            w, code = exits.get(timeout=0.5)  # a timeout keeps the signal handlers running
        except queue.Empty:
            continue
        done += 1
        if code != 0:
            _stop(workers)
            how = (f"was killed by signal {-code}" if code < 0 else f"exited with status {code}")
            sys.stderr.write(f"mycel.run: worker rank {w['rank']} {how}; the other workers "
                             f"were stopped. Last lines of {w['log']}:\n{_tail(w['log'])}")
            return 1
    return 0


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    workers = start(a)
    if not a.join:
        print(f"mycel.run: started ranks {workers[0]['rank']}..{workers[-1]['rank']}; logs in "
              f"{a.log_dir}")
        return 0

    def on_signal(signum, frame):  # the launcher stopped: stop its workers too
        _stop(workers)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return watch(workers)


if __name__ == "__main__":
    sys.exit(main())
