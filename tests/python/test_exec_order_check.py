"""mycel.utils' collective execution-order tools: comm_exec_order_check makes each rank of a
real 2-process Gloo job write its comm_execute_order.csv (collectives in PyNative and in a
GRAPH-mode jit function, Send/Receive, a sub-group), and runtime_execution_order_check reads
the files back: consistent orders pass; a rank that stopped recording early, and orders
swapped on one rank (a deadlock), are reported. The key, validation and cycle functions are
checked on hand-made orders."""
import csv
import importlib
import os
import textwrap

import pytest

from distributed import run_gloo
# The module (mycel.utils' attribute of that name is its function).
reoc = importlib.import_module("mycel.utils.runtime_execution_order_check")

WORKER = textwrap.dedent("""
    import os, sys
    import numpy as np
    import mycel as ms
    from mycel import ops, Tensor
    from mycel.communication import init, release, get_rank, create_group
    from mycel.utils import comm_exec_order_check

    os.environ["MYCEL_COMM_TIMEOUT"] = "30"
    out, mode = sys.argv[1], sys.argv[2]
    init()
    create_group("pair", [0, 1])
    ms.set_context(save_graphs_path=out)
    r = get_rank()
    x = Tensor(np.full((2, 3), r + 1, np.float32))
    ops.AllReduce()(x)  # before start: not recorded
    comm_exec_order_check("start")
    y = ops.AllReduce()(x)
    assert np.allclose(y.asnumpy(), 3.0)
    gather = ops.AllGather()

    @ms.jit
    def f(a):
        return gather(a) * 2

    z = f(x)
    assert z.shape == (4, 3)
    if r == 0:
        ops.Send(0, 1)(x)
    else:
        ops.Receive(0, 0, (2, 3), ms.float32)()
    ops.Broadcast(1, group="pair")((x,))
    if mode == "early" and r == 1:
        comm_exec_order_check("end")
    ops.AllReduce(group="pair")(x)
    comm_exec_order_check("end")  # rank 1 in "early": logged, ignored
    release()
    print("OK")
""")


def _run(tmp_path, mode):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    out = tmp_path / mode
    res = run_gloo(script, 2, args=(str(out), mode), timeout=180)
    for rc, text in res:
        assert rc == 0 and "OK" in text, text
    return out


def _rows(out, rank):
    with open(out / f"rank_{rank}" / "execute_order" / "comm_execute_order.csv",
              newline="") as f:
        return list(csv.DictReader(f))


def test_two_ranks_write_consistent_orders(tmp_path):
    out = _run(tmp_path, "same")
    r0, r1 = _rows(out, 0), _rows(out, 1)
    assert [r["primitive"] for r in r0] == ["AllReduce", "AllGather", "Send", "Broadcast",
                                            "AllReduce"]
    assert [r["primitive"] for r in r1] == ["AllReduce", "AllGather", "Receive", "Broadcast",
                                            "AllReduce"]
    assert [r["index"] for r in r0] == ["1", "2", "3", "4", "5"]
    assert r0[0]["group"] == "hccl_world_group" and r0[0]["comm_rank"] == "0 1"
    assert r0[0]["input_shape"] == "[2, 3]" and r0[0]["input_type"] == "Float32"
    assert r0[0]["input_size"] == "24" and r0[1]["output_shape"] == "[4, 3]"
    assert (r0[2]["dest_rank"], r0[2]["src_rank"]) == ("1", "")
    assert (r1[2]["src_rank"], r1[2]["output_shape"]) == ("0", "[2, 3]")
    assert r0[3]["group"] == "pair" and r0[3]["root_rank"] == "1"
    report = reoc.runtime_execution_order_check(str(out))
    assert report.ok, report.problems
    assert report.cycle_path is None


def test_rank_missing_a_collective_is_reported(tmp_path):
    out = _run(tmp_path, "early")
    assert len(_rows(out, 0)) == 5 and len(_rows(out, 1)) == 4
    report = reoc.runtime_execution_order_check(str(out))
    assert not report.ok
    assert any("Key '1' is missing" in p and "AllReduce_pair" in p for p in report.problems)


def test_swapped_order_is_a_cycle(tmp_path):
    out = _run(tmp_path, "same")
    # Rank 1's AllGather and AllReduce swapped: each rank waits for the other's first call.
    path = out / "rank_1" / "execute_order" / "comm_execute_order.csv"
    os.chmod(path, 0o644)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    rows[1], rows[2] = rows[2], rows[1]
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    report = reoc.runtime_execution_order_check(str(out))
    assert not report.ok
    assert report.cycle_path[0] == report.cycle_path[-1]
    assert {p.split("_")[0] for p in report.cycle_path} == {"AllReduce", "AllGather"}
    assert sorted(e.split()[0] for e in report.cycle_ranks) == ["0", "1"]


def test_keys_of_orders():
    send = reoc.ExecuteOrder("1", "g", "0 1", "Send", dest_rank="1", input_shape="[2]")
    recv = reoc.ExecuteOrder("1", "g", "0 1", "Receive", src_rank="0", output_shape="[2]")
    red = reoc.ExecuteOrder("2", "g", "0 1", "AllReduce")
    bc = reoc.ExecuteOrder("3", "g", "0 1", "Broadcast", root_rank="1")
    keys = reoc.modify_execute_orders({"0": [send, red, red, bc], "1": [recv, red],
                                       "2": None})
    assert keys["0"] == ["Send_Receive_g_(0)->(1)_[2]_1th", "AllReduce_g_(0,1)_1th",
                         "AllReduce_g_(0,1)_2th", "Broadcast_g_commRank:(0,1)_rootRank:(1)_1th"]
    assert keys["1"][0] == keys["0"][0]  # the Send and its Receive meet
    assert keys["2"] == []


def test_validate_and_cycles():
    ok = {"0": ["AllReduce_g_(0,1)_1th"], "1": ["AllReduce_g_(0,1)_1th"]}
    assert reoc.parse_and_validate(ok) == []
    bad = reoc.parse_and_validate({"0": ["AllReduce_g_(0,1)_1th"], "1": []})
    assert bad == ["Key '1' is missing the value 'AllReduce_g_(0,1)_1th'."]
    assert reoc.parse_and_validate({"0": ["AllReduce_g_(0,2)_1th"]}, all_rank=True)
    assert reoc.parse_and_validate({"0": ["AllReduce_g_(0,2)_1th"]}, all_rank=False) == []
    assert reoc.detect_cycle_in_graph({"a": ["P", "Q", "R"], "b": ["R", "S"]}) == (None, None)
    path, edges = reoc.detect_cycle_in_graph({"a": ["P", "Q"], "b": ["Q", "R"], "c": ["R", "P"]})
    assert path == ["P", "Q", "R", "P"]
    assert edges == ["a P -> Q", "b Q -> R", "c R -> P"]
    assert reoc.detect_cycle_in_graph({"a": ["P", "P"]}) == (["P", "P"], ["a P -> P"])


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError):
        reoc.comm_exec_order_check(1)
    with pytest.raises(ValueError, match="'start' or 'end'"):
        reoc.comm_exec_order_check("begin")
    with pytest.raises(ValueError, match="Path does not exist"):
        reoc.RankFolderParser(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="No rank_x folders"):
        reoc.RankFolderParser(str(tmp_path))
    (tmp_path / "rank_0" / "execute_order").mkdir(parents=True)
    (tmp_path / "rank_0" / "execute_order" / "comm_execute_order.csv").write_text("a,b\n1,2\n")
    assert reoc.RankFolderParser(str(tmp_path)).parse() == {}
    assert not reoc.runtime_execution_order_check(str(tmp_path)).ok


def test_single_process_records_nothing_without_collectives(tmp_path):
    import mycel as ms
    ms.set_context(save_graphs_path=str(tmp_path))
    try:
        reoc.comm_exec_order_check("start")
        reoc.comm_exec_order_check("end")
    finally:
        ms.set_context(save_graphs_path=None)
    assert not (tmp_path / "rank_0").exists()
