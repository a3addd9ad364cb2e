"""mycel.communication on real process groups: Gloo (ranks started with the launcher's
environment) and Open MPI (mpirun), at 2 and 4 processes on the loopback address; the
errors of bad input and of a job whose ranks disagree."""
import json
import socket
import textwrap

import pytest

from distributed import run_gloo, run_mpi, run_ranks

WORKER = textwrap.dedent("""
    import json, sys
    from mycel.communication import (init, release, get_rank, get_group_size, get_local_rank,
        get_local_rank_size, create_group, destroy_group, get_world_rank_from_group_rank,
        get_group_rank_from_world_rank, GlobalComm)
    init(sys.argv[1] if sys.argv[1] != "default" else None)
    rank, size = get_rank(), get_group_size()
    out = {"rank": rank, "size": size, "local": [get_local_rank(), get_local_rank_size()],
           "backend": GlobalComm.BACKEND, "inited": GlobalComm.INITED}
    evens = [r for r in range(size) if r % 2 == 0][::-1]   # group rank i is evens[i]
    if rank % 2 == 0:
        create_group("evens", evens)
        out["evens"] = [get_rank("evens"), get_group_size("evens"),
                        get_world_rank_from_group_rank("evens", get_rank("evens")),
                        get_group_rank_from_world_rank(rank, "evens")]
        try:
            create_group("evens", evens)
        except ValueError as e:
            out["twice"] = str(e)
        destroy_group("evens")
        try:
            get_rank("evens")
        except ValueError as e:
            out["gone"] = str(e)
    release()
    out["released"] = not GlobalComm.INITED
    # One file per rank: under mpirun the ranks share one stdout, and lines can interleave.
    with open(f"{sys.argv[2]}/result_{rank}.json", "w") as f:
        json.dump(out, f)
""")


def results(runs, folder):
    for code, text in runs:
        assert code == 0, text
    out = [json.loads(p.read_text()) for p in folder.glob("result_*.json")]
    return sorted(out, key=lambda r: r["rank"])


@pytest.mark.parametrize("backend", ["gloo", "mpi"])
@pytest.mark.parametrize("n", [2, 4])
def test_ranks_groups_and_release(tmp_path, backend, n):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    # The backend by default (Gloo, or MPI under mpirun) at 2 processes, named at 4.
    args = ["default" if n == 2 else backend, tmp_path]
    runs = run_gloo(script, n, args) if backend == "gloo" else run_mpi(script, n, args)
    res = results(runs, tmp_path)
    assert [r["rank"] for r in res] == list(range(n))
    evens = [r for r in range(n) if r % 2 == 0][::-1]
    for r in res:
        assert r["size"] == n and r["backend"] == backend and r["inited"] and r["released"]
        assert r["local"] == [r["rank"], n]  # one machine
        if r["rank"] % 2 == 0:
            g = evens.index(r["rank"])
            assert r["evens"] == [g, len(evens), r["rank"], g]
            assert "exists already" in r["twice"]
            assert "no communication group 'evens'" in r["gone"]


def test_a_single_process_without_a_launcher_is_a_world_of_one(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {k: "" for k in ("MS_WORKER_NUM", "RANK_ID", "MS_SCHED_PORT")}
    res = results(run_gloo(script, 1, ["gloo", tmp_path], env=env), tmp_path)
    assert res[0]["size"] == 1 and res[0]["rank"] == 0


BAD = textwrap.dedent("""
    import sys
    import mycel.communication as comm
    try:
        comm.get_rank()
    except RuntimeError as e:
        print("BEFORE", e)
    for call in (lambda: comm.init("hccl2"), lambda: comm.init(timeout=-1)):
        try:
            call()
        except ValueError as e:
            print("VALUE", e)
    comm.init()
    for call in (lambda: comm.create_group("g", [0, 0]), lambda: comm.create_group("g", [5]),
                 lambda: comm.create_group("g", []), lambda: comm.get_rank("nope"),
                 lambda: comm.destroy_group(comm.GlobalComm.WORLD_COMM_GROUP),
                 lambda: comm.get_world_rank_from_group_rank(comm.GlobalComm.WORLD_COMM_GROUP, 3),
                 lambda: comm.get_local_rank("g")):
        try:
            call()
        except ValueError as e:
            print("VALUE", e)
    try:
        comm.create_group("g", "01")
    except TypeError as e:
        print("TYPE", e)
""")


def test_bad_arguments_are_typed_errors(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(BAD)
    [(code, out)] = run_gloo(script, 1, env={"MS_WORKER_NUM": "", "RANK_ID": ""})
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("BEFORE") and "init()" in lines[0]
    assert sum(line.startswith("VALUE") for line in lines) == 9, out
    assert "appears twice" in out and "is not a world rank" in out and "is empty" in out
    assert "hccl2" in out and "cannot be destroyed" in out and lines[-1].startswith("TYPE")


AGREE = textwrap.dedent("""
    import os
    import mycel.communication as comm
    try:
        comm.init(timeout=20)
        print("OK")
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
""")


def test_ranks_that_disagree_on_the_world_size_fail_at_init(tmp_path):
    script = tmp_path / "agree.py"
    script.write_text(AGREE)
    # Rank 0 is told the world has 2 ranks, rank 1 that it has 3.
    out = "".join(text for _, text in run_ranks(script, [(0, 2), (1, 3)], timeout=120))
    assert "was told the world has 3 ranks, rank 0 was told 2" in out, out


def test_a_rank_that_never_comes_is_a_timeout_at_init(tmp_path):
    script = tmp_path / "agree.py"
    script.write_text(AGREE.replace("timeout=20", "timeout=3"))
    [(code, out)] = run_ranks(script, [(0, 2)], timeout=120)
    assert out.startswith("RuntimeError") and "timed out" in out, out


def test_a_port_in_use_is_a_clear_error_at_init(tmp_path):
    script = tmp_path / "agree.py"
    script.write_text(AGREE)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        [(code, out)] = run_ranks(script, [(0, 2)], timeout=120, port=port)
    assert out.startswith("RuntimeError") and str(port) in out and "in use" in out, out


FAULT = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import mycel as ms
    from mycel import ops
    from mycel.communication import init, get_rank
    init()
    r, out, how = get_rank(), sys.argv[1], sys.argv[2]
    x = ms.Tensor(np.ones(3, np.float32))
    ops.AllReduce()(x)
    if r == 2:   # never reaches the next collective: gone, or busy until the others report
        if how == "exit":
            os._exit(0)
        deadline = time.time() + 60
        while time.time() < deadline and not all(
                os.path.exists(os.path.join(out, f"res_{k}")) for k in (0, 1)):
            time.sleep(0.2)
        sys.exit(0)
    try:
        ops.AllReduce()(x)
        msg = "no error"
    except RuntimeError as e:
        msg = str(e)
    with open(os.path.join(out, f"res_{r}"), "w") as f:
        f.write(msg)
""")


@pytest.mark.parametrize("how", ["exit", "busy"])
def test_a_collective_whose_peer_is_gone_or_never_comes_names_it(tmp_path, how):
    script = tmp_path / "worker.py"
    script.write_text(FAULT)
    runs = run_gloo(script, 3, [tmp_path, how], timeout=120, env={"MYCEL_COMM_TIMEOUT": "4"})
    for code, text in runs:
        assert code == 0, text
    for r in (0, 1):
        msg = (tmp_path / f"res_{r}").read_text()
        assert msg.startswith("For 'AllReduce' (the ranks comparing their calls), AllGather "
                              "on group 'hccl_world_group' "
                              f"(rank {r} of 3, gloo, timeout 4 s) failed"), msg
        assert msg.endswith("(rank(s) 2 of the group never reached this collective)"), msg


def test_under_mpi_a_collective_whose_peer_never_comes_names_it(tmp_path):
    # Rank 2 is busy elsewhere: the others' AllReduce fails after the timeout, naming it.
    script = tmp_path / "worker.py"
    script.write_text(FAULT)
    [(code, text)] = run_mpi(script, 3, [tmp_path, "busy"], timeout=120,
                             env={"MYCEL_COMM_TIMEOUT": "4"})
    assert code == 0, text
    for r in (0, 1):
        msg = (tmp_path / f"res_{r}").read_text()
        assert msg.startswith("For 'AllReduce' (the ranks comparing their calls), AllGather "
                              "on group 'hccl_world_group' "
                              f"(rank {r} of 3, mpi, timeout 4 s) failed"), msg
        assert msg.endswith("(rank(s) 2 of the group never reached this collective)"), msg


def test_under_mpi_a_rank_that_dies_ends_the_job_naming_it(tmp_path):
    # Rank 2 exits without finalising MPI: mpirun ends the job, no rank waits for it.
    script = tmp_path / "worker.py"
    script.write_text(FAULT)
    [(code, text)] = run_mpi(script, 3, [tmp_path, "exit"], timeout=120,
                             env={"MYCEL_COMM_TIMEOUT": "60"})
    assert code != 0, text
    assert "process rank 2" in text, text
