"""Dataset AutoTune (mycel/dataset/autotune.py, src/data/autotune.h): the settings' checks,
the tuner giving workers to the op that holds a pipeline back (the rows stay those of an
untuned run, which is the oracle), and the tuned configuration file."""
import json
import os
import time

import numpy as np
import pytest

import mycel.dataset as ds


@pytest.fixture(autouse=True)
def _restore_autotune():
    enabled, interval = ds.config.get_enable_autotune(), ds.config.get_autotune_interval()
    yield
    ds.config.set_enable_autotune(enabled)
    ds.config.set_autotune_interval(interval)


def slow_square(x):
    time.sleep(0.002)  # releases the GIL: more map workers make the map faster
    return x * x


def _pipeline(n=240):
    d = ds.NumpySlicesDataset({"x": np.arange(n, dtype=np.int64)}, shuffle=False)
    return d.map(slow_square, ["x"], num_parallel_workers=1)


def test_settings_are_checked():
    with pytest.raises(TypeError):
        ds.config.set_enable_autotune(1)
    for bad in (123, 0, True, 1.1):
        with pytest.raises(TypeError):
            ds.config.set_enable_autotune(True, bad)
    with pytest.raises(TypeError):
        ds.config.set_enable_autotune(False, 1.1)
    with pytest.raises(RuntimeError, match="empty string"):
        ds.config.set_enable_autotune(True, "")
    with pytest.raises(RuntimeError, match="is a directory"):
        ds.config.set_enable_autotune(True, ".")
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.config.set_enable_autotune(True, "/no_such_dir_for_mycel/at.json")
    ds.config.set_enable_autotune(False, "/no_such_dir_for_mycel/at.json")  # ignored when off
    assert ds.config.get_enable_autotune() is False
    with pytest.raises(TypeError):
        ds.config.set_autotune_interval(2.5)
    with pytest.raises(ValueError):
        ds.config.set_autotune_interval(-1)
    ds.config.set_autotune_interval(7)
    assert ds.config.get_autotune_interval() == 7


def test_independent_mode_refuses_autotune(monkeypatch):
    monkeypatch.setenv("MS_INDEPENDENT_DATASET", "True")
    with pytest.raises(RuntimeError, match="Independent mode"):
        ds.config.set_enable_autotune(True)


def test_tuner_adds_workers_to_the_slow_map_and_keeps_the_rows():
    want = [int(x) ** 2 for x in range(240)]
    ds.config.set_enable_autotune(True)
    ds.config.set_autotune_interval(10)
    it = _pipeline().create_tuple_iterator(num_epochs=1, output_numpy=True)
    got = [int(x) for (x,) in it]
    assert got == want
    report = it._pipe.autotune_report()
    maps = [op for op in report if op["op"].lower().startswith("map")]
    assert len(maps) == 1 and maps[0]["initial_workers"] == 1
    if (os.cpu_count() or 1) > 1:
        assert maps[0]["workers"] > 1 and it._pipe.autotune_adjustments >= 1
    ds.config.set_enable_autotune(False)
    plain = _pipeline().create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert [int(x) for (x,) in plain] == want
    assert plain._pipe.autotune_report() == []


def test_one_pipeline_is_tuned_at_a_time(capfd):
    ds.config.set_enable_autotune(True)
    first = _pipeline(20).create_tuple_iterator(num_epochs=1)
    second = _pipeline(20).create_tuple_iterator(num_epochs=1)
    assert "already enabled for another data pipeline" in capfd.readouterr().err
    assert first._pipe.autotune_report() and not second._pipe.autotune_report()
    first.stop()
    second.stop()


def test_tuned_configuration_file(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("RANK_ID", "3")
    prefix = tmp_path / "tuned"
    path = tmp_path / "tuned_3.json"
    path.write_text("{}")
    ds.config.set_enable_autotune(True, str(prefix))
    ds.config.set_autotune_interval(10)
    data = _pipeline()
    rows = [int(x) for (x,) in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert "already exists. File will be overwritten" in capfd.readouterr().err
    saved = json.loads(path.read_text())
    assert set(saved) == {"remark", "summary", "tree"}
    assert saved["tree"]["op_type"] == "Map"
    workers = saved["tree"]["num_parallel_workers"]
    if (os.cpu_count() or 1) > 1:
        assert workers > 1
    assert data.num_parallel_workers == 1  # the user's dataset is unchanged
    ds.config.set_enable_autotune(False)
    again = ds.deserialize(json_filepath=str(path))  # the file itself: its "tree"
    assert again.num_parallel_workers == workers
    assert [int(x) for (x,) in again.create_tuple_iterator(num_epochs=1,
                                                           output_numpy=True)] == rows
