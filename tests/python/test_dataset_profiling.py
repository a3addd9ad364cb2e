"""The data engine's pipeline profiler (src/data/profiling.h), MindSpore's
``_c_dataengine.GlobalContext.profiling_manager()``: the files it writes are checked against the
pipeline that ran (ops, ids, children, workers, queue capacity, 4 iterator lines per row, CPU and
memory figures in range), its start/stop errors and its exclusion with AutoTune."""
import json
import os

import numpy as np
import pytest

import mycel.dataset as ds
from mycel import _c_dataengine as cde

NCPU = os.cpu_count() or 1


@pytest.fixture
def prof():
    """The profiler, armed; left stopped and disarmed whatever the test did (an armed profiler
    would profile, and so refuse to tune, the next pipeline of another test)."""
    p = cde.GlobalContext.profiling_manager()
    if p.is_profiling():
        p.stop()
    p.init()
    yield p
    ds.config.set_enable_autotune(False)
    if p.claim() != "off":
        if not p.is_profiling():
            p.start()
        p.stop()
    assert p.claim() == "off"


def _files(tmp_path, rank="0"):
    return (tmp_path / f"pipeline_profiling_{rank}.json",
            tmp_path / f"minddata_cpu_utilization_{rank}.json",
            tmp_path / f"dataset_iterator_profiling_{rank}.txt")


def _source(n):
    return [(np.array([i], np.int64),) for i in range(n)]


def _check_cpu(path, n_ops):
    data = json.loads(path.read_text())
    samples = len(data["time_stamp"])
    assert samples >= 1
    assert [op["op_id"] for op in data["op_info"]] == list(range(n_ops))
    for op in data["op_info"]:
        for key in ("user_utilization", "sys_utilization"):
            values = op["metrics"][key]
            assert len(values) == samples
            assert all(0 <= v <= 100 * NCPU for v in values)
    for key in ("user_utilization", "sys_utilization"):
        assert all(0 <= v <= 100 * NCPU for v in data["process_info"][key])
        assert all(0 <= v <= 100 for v in data["device_info"][key])
    for key in ("pss_mbytes", "rss_mbytes", "vss_mbytes"):
        values = data["process_memory_info"][key]
        assert len(values) == samples and all(v > 0 for v in values)
    mem = data["system_memory_info"]
    for t, a, u in zip(mem["total_sys_memory_mbytes"], mem["available_sys_memory_mbytes"],
                       mem["used_sys_memory_mbytes"]):
        assert 0 < a <= t and u > 0 and abs(t - a - u) < 1e-6 * t + 0.01
    assert data["cpu_processor_num"] == NCPU
    return samples


def _check_trace(path, batches, capacity):
    lines = path.read_text().splitlines()
    assert len(lines) == 4 * len(batches)
    for k, b in enumerate(batches):
        rec = [[int(x) for x in line.split()] for line in lines[4 * k:4 * k + 4]]
        assert [r[:3] for r in rec] == [[0, 1, b], [0, 2, b], [0, 0, b], [1, capacity, b]]
        assert rec[0][3] == 0 and rec[1][3] == rec[2][3] >= 0  # push time 0; batch = pipeline
        assert 0 <= rec[3][3] <= capacity
        assert len({r[4] for r in rec}) == 1


def test_pipeline_files_match_the_pipeline(prof, tmp_path):
    prof.start()
    data = ds.GeneratorDataset(_source(40), ["x"], shuffle=False)
    data = data.map(lambda x: x + 1, input_columns=["x"], num_parallel_workers=3)
    data = data.batch(4, num_parallel_workers=2)
    rows = [d["x"] for d in data.create_dict_iterator(num_epochs=2, output_numpy=True)]
    assert len(rows) == 10
    prof.stop()
    written = prof.save(str(tmp_path))
    pipeline, cpu, trace = _files(tmp_path)
    assert sorted(written) == sorted(str(p) for p in (pipeline, cpu, trace))

    info = json.loads(pipeline.read_text())
    assert info["sampling_interval"] == ds.config.get_monitor_sampling_interval()
    ops = info["op_info"]
    assert [op["op_type"] for op in ops] == ["EpochCtrlOp", "BatchOp", "MapOp", "GeneratorOp"]
    assert [op["op_id"] for op in ops] == [0, 1, 2, 3]
    assert [op.get("children") for op in ops] == [[1], [2], [3], None]
    assert [op["num_workers"] for op in ops][1:3] == [2, 3]
    assert ops[0]["metrics"] is None  # epoch control runs inline
    samples = _check_cpu(cpu, 4)
    cap = ds.config.get_prefetch_size()
    for op in ops[1:]:
        queue = op["metrics"]["output_queue"]
        assert queue["length"] == cap
        assert len(queue["size"]) == samples
        assert all(0 <= s <= cap for s in queue["size"])
    _check_trace(trace, list(range(1, 11)), cap)


def test_inline_ops_have_no_queue(prof, tmp_path):
    prof.start()
    data = ds.GeneratorDataset(_source(10), ["a"], shuffle=False)
    data = data.shuffle(4).rename(["a"], ["b"]).skip(2).repeat(2).take(12)
    assert sum(1 for _ in data) == 12
    prof.stop()
    prof.save(str(tmp_path))
    pipeline, cpu, trace = _files(tmp_path)
    ops = json.loads(pipeline.read_text())["op_info"]
    assert [op["op_type"] for op in ops] == ["TakeOp", "RepeatOp", "SkipOp", "RenameOp",
                                             "ShuffleOp", "GeneratorOp"]
    assert all(op["metrics"] is None for op in ops[:-1])
    assert ops[-1]["metrics"]["output_queue"]["length"] == ds.config.get_prefetch_size()
    _check_cpu(cpu, 6)
    # the iterator reads through the generator's queue, the first below the inline ops
    _check_trace(trace, list(range(1, 13)), ds.config.get_prefetch_size())


def test_zip_and_concat_children(prof, tmp_path):
    prof.start()
    a = ds.GeneratorDataset(_source(6), ["a"], shuffle=False)
    b1 = ds.GeneratorDataset(_source(6), ["b"], shuffle=False).project(["b"])
    b2 = ds.GeneratorDataset(_source(6), ["b"], shuffle=False).project(["b"])
    c = ds.GeneratorDataset(_source(3), ["a"], shuffle=False)
    data = ds.zip((a.concat(c), b1.concat(b2)))
    assert sum(1 for _ in data) == 9
    prof.stop()
    prof.save(str(tmp_path))
    ops = json.loads(_files(tmp_path)[0].read_text())["op_info"]
    assert [op["op_type"] for op in ops] == ["ZipOp", "ConcatOp", "GeneratorOp", "GeneratorOp",
                                             "ConcatOp", "ProjectOp", "GeneratorOp",
                                             "ProjectOp", "GeneratorOp"]
    assert [op.get("children") for op in ops] == [[1, 4], [2, 3], None, None, [5, 7], [6],
                                                  None, [8], None]


def test_start_stop_window(prof, tmp_path):
    data = ds.GeneratorDataset(_source(10), ["x"], shuffle=False)
    for i, _ in enumerate(data.create_tuple_iterator(num_epochs=1)):
        if i in (1, 5):
            prof.start()  # the second start drops what the first window recorded
        elif i in (3, 7):
            prof.stop()
    prof.save(str(tmp_path))
    pipeline, cpu, trace = _files(tmp_path)
    assert [op["op_type"] for op in json.loads(pipeline.read_text())["op_info"]] == \
        ["GeneratorOp"]
    _check_cpu(cpu, 1)
    _check_trace(trace, [7, 8], ds.config.get_prefetch_size())  # rows 6 and 7 (0-based)


def test_nothing_written_without_a_pipeline(prof, tmp_path):
    prof.start()
    data = ds.GeneratorDataset(_source(8), ["x"], shuffle=False).batch(2)
    assert data.output_shapes() == [[2, 1]]  # a getter's pipeline is not profiled
    prof.stop()
    assert prof.save(str(tmp_path)) == []
    assert not any(p.exists() for p in _files(tmp_path))
    # a later start records the next iterator
    prof.start()
    assert sum(1 for _ in data) == 4
    prof.stop()
    prof.save(str(tmp_path))
    assert all(p.exists() for p in _files(tmp_path))


def test_second_pipeline_is_not_profiled(prof, tmp_path, capfd):
    prof.start()
    data = ds.GeneratorDataset(_source(8), ["x"], shuffle=False)
    first = data.create_tuple_iterator(num_epochs=1)
    second = data.create_tuple_iterator(num_epochs=1)
    assert first._pipe.profiled and not second._pipe.profiled
    assert "Dataset Profiling is already enabled for a different data pipeline." in \
        capfd.readouterr().err
    assert sum(1 for _ in second) == 8 and sum(1 for _ in first) == 8
    prof.stop()
    prof.save(str(tmp_path))
    _check_trace(_files(tmp_path)[2], list(range(1, 9)), ds.config.get_prefetch_size())
    # init() forgets the registered pipeline: the next one is profiled
    prof.init()
    third = data.create_tuple_iterator(num_epochs=1)
    assert third._pipe.profiled


def test_rank_id_names_the_files(prof, tmp_path, monkeypatch):
    monkeypatch.setenv("RANK_ID", "3")
    prof.start()
    assert sum(1 for _ in ds.GeneratorDataset(_source(4), ["x"])) == 4
    prof.stop()
    prof.save(str(tmp_path))
    assert all(p.exists() for p in _files(tmp_path, "3"))


def test_sampling_interval_is_recorded(prof, tmp_path):
    old = ds.config.get_monitor_sampling_interval()
    ds.config.set_monitor_sampling_interval(30)
    try:
        prof.start()
        assert sum(1 for _ in ds.GeneratorDataset(_source(4), ["x"])) == 4
        prof.stop()
    finally:
        ds.config.set_monitor_sampling_interval(old)
    prof.save(str(tmp_path))
    pipeline, cpu, _ = _files(tmp_path)
    assert json.loads(pipeline.read_text())["sampling_interval"] == 30
    assert json.loads(cpu.read_text())["sampling_interval"] == 30


def test_state_errors(prof, tmp_path, capfd):
    with pytest.raises(RuntimeError, match="MD ProfilingManager has not started yet."):
        prof.stop()
    prof.start()
    with pytest.raises(RuntimeError, match="MD ProfilingManager is already running."):
        prof.start()
    with pytest.raises(RuntimeError, match="Stop MD Profiler before reinitializing it."):
        prof.init()
    prof.stop()
    capfd.readouterr()
    prof.stop()
    assert "MD ProfilingManager had already stopped." in capfd.readouterr().err
    with pytest.raises(RuntimeError, match="realpath"):
        prof.save(str(tmp_path / "missing"))


def test_profiler_excludes_autotune(prof, capfd):
    prof.start()
    ds.config.set_enable_autotune(True)
    data = ds.GeneratorDataset(_source(64), ["x"]).batch(8)
    it = data.create_dict_iterator(num_epochs=1)
    err = capfd.readouterr().err
    assert "Cannot enable AutoTune for the current data pipeline as Dataset Profiling is already " \
           "enabled for the current data pipeline." in err
    assert it._pipe.profiled and it._pipe.autotune_report() == []
    it2 = data.create_dict_iterator(num_epochs=1)
    err = capfd.readouterr().err
    assert "Cannot enable AutoTune for the current data pipeline as Dataset Profiling is enabled " \
           "for another data pipeline." in err
    assert not it2._pipe.profiled and it2._pipe.autotune_report() == []
    prof.stop()


def test_autotune_excludes_profiler_init(prof):
    prof.start()
    prof.stop()  # a stopped profiler is disarmed: new pipelines may be tuned
    ds.config.set_enable_autotune(True)
    data = ds.GeneratorDataset(_source(64), ["x"]).batch(8)
    it = data.create_dict_iterator(num_epochs=1)
    assert not it._pipe.profiled and it._pipe.autotune_report() != []  # tuned
    ds.config.set_enable_autotune(False)
    with pytest.raises(RuntimeError, match="Stop MD Autotune before initializing the MD "
                                           "Profiler."):
        prof.init()
    del it  # the tuned pipeline stops
    prof.init()
