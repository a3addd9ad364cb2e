"""The launcher, python -m mycel.run: one log per rank, a failed rank stops the job with a
message naming it, two launchers with different --node_rank form one job, --join False
returns once the workers are started, bad options are usage errors. Every launcher runs
under a timeout, and the tests check that no worker is left behind."""
import os
import signal
import subprocess
import textwrap
import time

from distributed import PYTHON, ROOT, _env, free_port

WORKER = textwrap.dedent("""
    import os, sys, time
    from mycel.communication import init, get_rank, get_group_size, get_local_rank
    init()
    rank = get_rank()
    with open(os.path.join(sys.argv[1], f"pid_{rank}"), "w") as f:
        f.write(str(os.getpid()))
    print(f"rank {rank} of {get_group_size()} local {get_local_rank()} "
          f"timeout {os.environ['MYCEL_COMM_TIMEOUT']}", flush=True)
    if len(sys.argv) > 2 and rank == int(sys.argv[2]):
        print("giving up", flush=True)
        sys.exit(3)
    if len(sys.argv) > 2:
        time.sleep(120)   # the launcher must stop this rank long before
        open(os.path.join(sys.argv[1], f"woke_{rank}"), "w").close()
""")


def launch(args, timeout=150):
    return subprocess.run([PYTHON, "-m", "mycel.run", *map(str, args)], env=_env({}),
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too: read its state.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(") ")[1][0] != "Z"


def test_two_workers_write_one_log_each(tmp_path):
    script = tmp_path / "w.py"
    script.write_text(WORKER)
    logs = tmp_path / "logs"
    r = launch(["--worker_num", 2, "--master_port", free_port(), "--log_dir", logs,
                "--cluster_time_out", 77, script, tmp_path])
    assert r.returncode == 0, r.stderr
    for rank in range(2):
        text = (logs / f"worker_{rank}.log").read_text()
        assert f"rank {rank} of 2 local {rank} timeout 77" in text, text


def test_a_failed_rank_stops_the_job_and_is_named(tmp_path):
    script = tmp_path / "w.py"
    script.write_text(WORKER)
    logs = tmp_path / "logs"
    r = launch(["--worker_num", 3, "--master_port", free_port(), "--log_dir", logs, script,
                tmp_path, 1])
    assert r.returncode != 0
    assert "worker rank 1 exited with status 3" in r.stderr, r.stderr
    assert "giving up" in r.stderr  # the last lines of its log
    for rank in (0, 2):
        pid = int((tmp_path / f"pid_{rank}").read_text())
        assert not alive(pid), f"rank {rank} (pid {pid}) was left running"
        # Stopped, not awaited: a rank that slept its full time would have left this file.
        assert not (tmp_path / f"woke_{rank}").exists(), f"rank {rank} was awaited"


def test_two_launchers_with_different_node_ranks_form_one_job(tmp_path):
    script = tmp_path / "w.py"
    script.write_text(WORKER)
    port = free_port()
    procs = [subprocess.Popen([PYTHON, "-m", "mycel.run", "--worker_num", "2",
                               "--local_worker_num", "1", "--node_rank", str(node),
                               "--master_addr", "127.0.0.1", "--master_port", str(port),
                               "--log_dir", str(tmp_path / f"node{node}"), str(script),
                               str(tmp_path)], env=_env({}), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for node in (0, 1)]
    try:
        outs = [p.communicate(timeout=150)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    assert [p.returncode for p in procs] == [0, 0], outs
    assert "rank 0 of 2 local 0" in (tmp_path / "node0" / "worker_0.log").read_text()
    # Each launcher is a node (MindSpore's msrun), also when both run on one machine: rank 1
    # is the first, local rank 0, of node 1.
    assert "rank 1 of 2 local 0" in (tmp_path / "node1" / "worker_1.log").read_text()


def test_join_false_returns_once_the_workers_are_started(tmp_path):
    script = tmp_path / "w.py"
    script.write_text(WORKER)
    logs = tmp_path / "logs"
    r = launch(["--worker_num", 2, "--master_port", free_port(), "--log_dir", logs,
                "--join", "False", script, tmp_path])
    assert r.returncode == 0, r.stderr
    assert "mycel.run: started ranks 0..1" in r.stdout, r.stdout
    # The workers go on without the launcher: the test waits for them (bounded), then ends
    # any still running.
    pids, deadline = {}, time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            pids = {k: int((tmp_path / f"pid_{k}").read_text())
                    for k in range(2) if (tmp_path / f"pid_{k}").exists()}
            if len(pids) == 2 and not any(alive(p) for p in pids.values()):
                break
            time.sleep(0.2)
    finally:
        for p in pids.values():
            if alive(p):
                os.kill(p, signal.SIGKILL)
    assert len(pids) == 2, "the workers did not start"
    for rank in range(2):
        text = (logs / f"worker_{rank}.log").read_text()
        assert f"rank {rank} of 2 local {rank}" in text, text


def test_bad_options_are_usage_errors(tmp_path):
    r = launch(["--worker_num", 2, "--node_rank", 2, "--local_worker_num", 1, "x.py"])
    assert r.returncode == 2 and "outside the 2 of --worker_num" in r.stderr, r.stderr
    r = launch(["--worker_num", 0, "x.py"])
    assert r.returncode == 2 and "positive integer" in r.stderr, r.stderr
