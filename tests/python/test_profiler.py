"""mycel.Profiler over the op profiler: counts of the ops a program runs (eager and graph),
the files analyse() writes, stop(), schedules and on_trace_ready."""
import csv
import json

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.profiler import Profiler, schedule


def _counts(folder):
    with open(folder / "profiler" / "op_statistic.csv") as f:
        return {r["Op Type"]: int(r["Count"]) for r in csv.DictReader(f)}


def test_eager_ops_are_counted_and_written(tmp_path):
    x = Tensor(np.ones((4, 3), np.float32))
    w = Tensor(np.ones((3, 2), np.float32))
    prof = Profiler(output_path=str(tmp_path))
    for _ in range(3):
        ops.relu(ops.matmul(x, w))
    folder = prof.analyse()
    assert folder == str(tmp_path / "profiler")
    counts = _counts(tmp_path)
    assert counts["MatMul"] == 3 and counts["ReLU"] == 3
    with open(tmp_path / "profiler" / "op_detail.csv") as f:
        detail = {r["Op"]: int(r["Count"]) for r in csv.DictReader(f)}
    assert detail["MatMul f32[4, 2]"] == 3
    trace = json.loads((tmp_path / "profiler" / "trace_view.json").read_text())
    names = [e["name"] for e in trace["traceEvents"]]
    assert names.count("MatMul") == 3 and all(e["ph"] == "X" and e["dur"] >= 0
                                              for e in trace["traceEvents"])
    assert len(names) == sum(counts.values())
    info = json.loads((tmp_path / "profiler" / "profiler_info.json").read_text())
    assert info["op_calls"] == sum(counts.values()) and info["timeline_dropped_calls"] == 0


def test_graph_ops_are_counted(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = nn.Dense(3, 2)
        x = Tensor(np.ones((4, 3), np.float32))
        net(x)  # compile before recording
        with Profiler(output_path=str(tmp_path)) as prof:
            for _ in range(4):
                net(x)
        prof.analyse()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    counts = _counts(tmp_path)
    assert counts.get("MatMul", 0) + counts.get("GraphKernel", 0) >= 4
    assert sum(counts.values()) >= 4


def test_stop_ends_recording(tmp_path):
    x = Tensor(np.ones((2, 2), np.float32))
    prof = Profiler(output_path=str(tmp_path))
    ops.exp(x)
    prof.stop()
    ops.exp(x)
    ops.exp(x)
    prof.analyse()
    assert _counts(tmp_path)["Exp"] == 1
    assert not ms._mycel._profiler_active()
    assert json.loads(prof.op_analyse("Exp"))["Exp"]["calls"] == 1


def test_schedule_records_active_steps_only(tmp_path):
    x = Tensor(np.ones((2, 2), np.float32))
    ready = []
    prof = Profiler(output_path=str(tmp_path),
                    schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                    on_trace_ready=lambda p: ready.append(json.loads(p.op_analyse("Sqrt"))))
    for step in range(7):
        for _ in range(step + 1):  # step s runs s + 1 Sqrt ops
            ops.sqrt(x)
        prof.step()
    prof.stop()
    # steps 2 and 3 are active: 3 + 4 ops
    assert ready == [{"Sqrt": {"calls": 7, "total_us": ready[0]["Sqrt"]["total_us"],
                               "cpu_us": ready[0]["Sqrt"]["cpu_us"]}}]


def test_schedule_and_argument_errors():
    with pytest.raises(ValueError, match="schedule"):
        schedule(wait=1, active=0)
    with pytest.raises(ValueError, match="schedule"):
        schedule(wait=-1, active=1)
    with pytest.raises(TypeError, match="Profiler"):
        Profiler(start_profile="yes")
    with pytest.raises(TypeError, match="Profiler"):
        Profiler(start_profile=False, on_trace_ready=3)
