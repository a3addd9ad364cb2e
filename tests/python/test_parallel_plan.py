"""The planner, ``python -m mycel.parallel.plan`` (issue #18 item 7): an ordinary auto_parallel
training script, run as a dry run for 1,024 devices (init() joins no job), gives the plan the
search gives the same network (the golden plans of test_auto_parallel.py are the oracle), with
the step time's parts adding up, the collectives' breakdown, the memory per device and the
bytes sent per mesh axis; deterministic; its errors."""
import json
import os
import subprocess
import sys

import pytest

import mycel
from mycel.parallel import plan as planner

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "parallel")

SCRIPT = """
import sys
sys.path.insert(0, {here!r})
import mycel as ms
from mycel import nn
from mycel.communication import init, get_rank, get_group_size
from auto_parallel_nets import MLP, mlp_data

ms.set_context(mode=ms.GRAPH_MODE)
init()
ms.set_auto_parallel_context(parallel_mode="auto_parallel", search_mode={mode!r},
                             device_num=get_group_size(), full_batch=True)
with open({world!r}, "w") as f:
    f.write(f"{{get_rank()}} {{get_group_size()}} {{sys.argv[1:]}}")
net = MLP(1024, 4096, 1024, ms.float32)
loss = nn.WithLossCell(net, nn.MSELoss())
step = ms.value_and_grad(loss, None, net.trainable_params())
try:
    step(*mlp_data(64, 1024, 1024, ms.float32))
except Exception:
    raise SystemExit("an Exception stopped the dry run")
raise SystemExit("the script ran past its plan")
"""


def write_script(tmp_path, mode="dynamic_programming"):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT.format(here=HERE, mode=mode, world=str(tmp_path / "world.txt")))
    return str(path)


def golden_block(name, devices):
    """The plan for `devices` in a golden file: its op lines and its last line."""
    with open(os.path.join(GOLDEN, name)) as f:
        for block in f.read().split("\n\n"):
            lines = block.strip().splitlines()
            if lines and lines[0].endswith(f", {devices} devices)"):
                return lines[1:-1], lines[-1]
    raise AssertionError(f"no plan for {devices} devices in {name}")


def op_line(op):
    shapes = " ".join("[" + ",".join(str(d) for d in s) + "]" for s in op["shapes"])
    rows = ", ".join("(" + ", ".join(str(d) for d in r) + ("," if len(r) == 1 else "") + ")"
                     for r in op["strategy"])
    strat = "(" + rows + ("," if len(op["strategy"]) == 1 else "") + ")"
    return f"{op['op']} {shapes} {strat}"


@pytest.mark.parametrize("mode,golden", [("dynamic_programming", "mlp_dp.txt"),
                                         ("sharding_propagation", "mlp_sp.txt")])
def test_a_script_planned_for_1024_devices_equals_the_search(tmp_path, capsys, mode, golden):
    script = write_script(tmp_path, mode)
    out = tmp_path / "plan.json"
    assert planner.main(["--device_num", "1024", "--output", str(out), script, "a", "b"]) == 0
    p = json.loads(out.read_text())
    # The dry run's world: rank 0 of 1024, the script's own arguments.
    assert (tmp_path / "world.txt").read_text() == "0 1024 ['a', 'b']"
    ops, summary = golden_block(golden, 1024)
    assert [op_line(op) for op in p["ops"]] == ops
    assert p["devices"] == 1024 and p["mode"] == mode
    assert summary.startswith(f"step {p['step_ms']:.4g} ms (compute {p['compute_ms']:.4g}, "
                              f"redistribution {p['redistribution_ms']:.4g}, gradient "
                              f"all-reduce {p['gradient_allreduce_ms']:.4g}); memory "
                              f"{p['memory_bytes'] / 2**20:.4g} MB")
    # The parts add up: the step is compute + collectives, each collective listed.
    parts = p["compute_ms"] + sum(p["collectives_ms"].values())
    assert parts == pytest.approx(p["step_ms"], rel=1e-9)
    assert p["collectives_ms"].get("AllReduce (gradients)", 0) == pytest.approx(
        p["gradient_allreduce_ms"], rel=1e-9)
    # 1024 = 2^10: ten mesh axes of 2; every group's axes are among them.
    assert p["mesh"] == [2] * 10
    assert p["axis_bytes"] and all(b > 0 for b in p["axis_bytes"].values())
    for axes in p["axis_bytes"]:
        assert all(a.strip() in {f"axis {i}" for i in range(10)}
                   for a in axes.strip("()").split(","))
    text = capsys.readouterr().out
    assert f"predicted step time: {p['step_ms']:.4g} ms" in text
    assert "memory per device:" in text and "sent per device and step" in text
    for op in p["ops"]:
        assert op["op"] in text
    # Deterministic.
    planner.main(["--device_num", "1024", "--output", str(tmp_path / "again.json"), script])
    assert json.loads((tmp_path / "again.json").read_text()) == p
    # The script's parallel settings stay with its dry run: this process is stand-alone again.
    assert mycel.get_auto_parallel_context("parallel_mode") == "stand_alone"


def test_gradient_allreduce_volume_of_a_data_parallel_plan(tmp_path):
    # A tiny MLP with a large batch on 2 devices: the search splits the batch (data
    # parallel, as in test_auto_parallel.py) and each device sends 2 (p-1)/p = 1 times the
    # weights' bytes per step in the gradients' ring AllReduce (w1 64x64, b1 64, w2 64x16,
    # b2 16, float32), plus the loss's partial sum resolved (a few bytes).
    script = tmp_path / "dp.py"
    script.write_text(f"""
import sys
sys.path.insert(0, {HERE!r})
import mycel as ms
from mycel import nn
from mycel.communication import init
from auto_parallel_nets import MLP, mlp_data
init()
ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=2, full_batch=True,
                             search_mode="dynamic_programming")
net = MLP(64, 64, 16, ms.float32)
step = ms.value_and_grad(nn.WithLossCell(net, nn.MSELoss()), None, net.trainable_params())
step(*mlp_data(65536, 64, 16, ms.float32))
""")
    p = planner.plan_script(str(script), 2)
    assert [op["strategy"] for op in p["ops"] if op["op"] == "MatMul"] == [
        [[2, 1], [1, 1]]] * 2, p["ops"]
    assert set(p["collectives_ms"]) <= {"AllReduce (gradients)", "AllReduce"}, p
    weights = (64 * 64 + 64 + 64 * 16 + 16) * 4
    assert list(p["axis_bytes"]) == ["(axis 0)"]
    assert weights <= p["axis_bytes"]["(axis 0)"] <= weights + 64, p["axis_bytes"]


def test_the_planner_prints_the_optimizer_shard(tmp_path):
    # The tiny MLP of test_gradient_allreduce_volume_of_a_data_parallel_plan, data parallel
    # (set by the user) on 8 devices with enable_parallel_optimizer: every weight whole to
    # its reader, so each holds
    # 1/8 (the dimensions divide), gathered once per forward reader (and again in the
    # backward for w2, whose MatMul passes a gradient to h; not w1: its other input is the
    # data; not the biases: Add), its gradient reduce-scattered. Without the optimizer shard
    # the same plan holds the weights whole.
    weights = (64 * 64 + 64 + 64 * 16 + 16) * 4
    plans = {}
    for zero in (False, True):
        script = tmp_path / f"zero{int(zero)}.py"
        script.write_text(f"""
import sys
sys.path.insert(0, {HERE!r})
import mycel as ms
from mycel import nn
from mycel.communication import init
from auto_parallel_nets import MLP, mlp_data
init()
ms.set_auto_parallel_context(parallel_mode="auto_parallel", device_num=8, full_batch=True,
                             search_mode="dynamic_programming", enable_parallel_optimizer={zero},
                             parallel_optimizer_config={{"parallel_optimizer_threshold": 0}})
net = MLP(64, 64, 16, ms.float32)
net.mm1.shard(((8, 1), (1, 1)))
net.mm2.shard(((8, 1), (1, 1)))
step = ms.value_and_grad(nn.WithLossCell(net, nn.MSELoss()), None, net.trainable_params())
step(*mlp_data(65536, 64, 16, ms.float32))
""")
        plans[zero] = planner.plan_script(str(script), 8)
    plain, zero = plans[False], plans[True]
    for p in (plain, zero):
        assert [op["strategy"] for op in p["ops"] if op["op"] == "MatMul"] == [
            [[8, 1], [1, 1]]] * 2, p["ops"]
    assert plain["weight_bytes"] == weights and plain["optimizer_shard"]["weights"] == 0
    z = zero["optimizer_shard"]
    assert zero["weight_bytes"] == weights / 8, zero
    assert z["weights"] == 4 and z["reduce_scatters"] == 4 and z["all_gathers"] == 5, z
    assert z["all_gather_bytes"] == (weights + 64 * 16 * 4) / 8, z  # w2's shard twice
    assert z["reduce_scatter_bytes"] == weights, z
    # Memory: the weights, gradients and optimizer states of 7/8 of the weights saved.
    factor = 2 + search_profile()["optimizer_factor"]
    assert plain["memory_bytes"] - zero["memory_bytes"] == pytest.approx(
        weights * 7 / 8 * factor), (plain, zero)
    text = planner.format_plan(zero)
    assert "optimizer shard: 4 weights; per step 5 AllGathers" in text, text
    assert "AllGather (optimizer shard)" in text and "optimizer shard" not in \
        planner.format_plan(plain).split("predicted step time")[1].split("memory")[0], text


def search_profile():
    from mycel.parallel import search
    return search.get_profile()


def test_the_command_line(tmp_path):
    script = write_script(tmp_path)
    out = tmp_path / "p.json"
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python"))
    r = subprocess.run([sys.executable, "-m", "mycel.parallel.plan", "--device_num", "64",
                        "--search_mode", "sharding_propagation", "--output", str(out), script],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    p = json.loads(out.read_text())
    ops, summary = golden_block("mlp_sp.txt", 64)
    assert [op_line(op) for op in p["ops"]] == ops
    assert f"plan written to {out}" in r.stdout
    assert f"predicted step time: {p['step_ms']:.4g} ms" in r.stdout


def test_errors(tmp_path):
    idle = tmp_path / "idle.py"
    idle.write_text("x = 1\n")
    with pytest.raises(RuntimeError, match="compiled no GRAPH-mode program"):
        planner.plan_script(str(idle), 8)
    with pytest.raises(ValueError, match="device_num must be a positive int"):
        planner.plan_script(str(idle), 0)
    with pytest.raises(ValueError, match="script file or 'module:function'"):
        planner.plan_script("no_such_thing", 8)
    with pytest.raises(ValueError, match="'search_mode' must be one of"):
        planner.plan_script(str(idle), 8, search_mode="recursive")
    with pytest.raises(SystemExit):
        planner.main(["--device_num", "0", str(idle)])
    # The dry run leaves no job behind.
    from mycel.communication import management
    assert management._groups is None and not management.GlobalComm.INITED
