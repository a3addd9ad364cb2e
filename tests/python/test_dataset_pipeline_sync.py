"""The pipeline features a training loop talks to: map callbacks (DSCallback,
WaitedDSCallback), sync_wait / sync_update, a callable batch_size, serialize / deserialize,
the data file named in map errors, get_repeat_count and the epoch-limit message.

Oracles are Python loops over the same rows. Every wait in a test is bounded (the callback
timeout is set to a few seconds; a faulthandler watchdog turns a hang into a failure)."""
import faulthandler
import json
import os
import sys
import threading

import numpy as np
import pytest

import mycel.dataset as ds
import mycel.dataset.vision as vision
from mycel.dataset.callback import DSCallback, WaitedDSCallback


@pytest.fixture(autouse=True)
def _watchdog():
    faulthandler.dump_traceback_later(120, exit=True)
    old = ds.config.get_callback_timeout()
    ds.config.set_callback_timeout(5)
    yield
    ds.config.set_callback_timeout(old)
    faulthandler.cancel_dump_traceback_later()


def _numbers(n):
    return ds.NumpySlicesDataset(np.arange(n, dtype=np.int64), column_names=["x"], shuffle=False)


# ----- callbacks -----

class Recorder(DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.events = []

    def _add(self, name, c):
        self.events.append((name, c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num))

    def ds_begin(self, c):
        self._add("begin", c)

    def ds_epoch_begin(self, c):
        self._add("epoch_begin", c)

    def ds_epoch_end(self, c):
        self._add("epoch_end", c)

    def ds_step_begin(self, c):
        self._add("step_begin", c)

    def ds_step_end(self, c):
        self._add("step_end", c)


def expected_events(epochs, steps, step_size=1):
    """The events of a map over `steps` rows per epoch, as a loop gives them."""
    out, total = [("begin", 0, 0, 0)], 0
    for e in range(1, epochs + 1):
        out.append(("epoch_begin", e, 0, total))
        for s in range(1, steps + 1):
            total += 1
            if (s - 1) % step_size == 0:
                out += [("step_begin", e, s, total), ("step_end", e, s, total)]
        out.append(("epoch_end", e, steps, total))
    return out


@pytest.mark.parametrize("epochs,rows,step_size,repeat", [(1, 3, 1, 1), (3, 4, 1, 1),
                                                          (2, 5, 2, 1), (2, 2, 1, 3),
                                                          (3, 2, 4, 4)])
def test_callback_events_in_order(epochs, rows, step_size, repeat):
    cb = Recorder(step_size)
    data = _numbers(rows).map(lambda x: x, callbacks=cb, num_parallel_workers=4)
    if repeat > 1:
        data = data.repeat(repeat)  # one epoch of the iterator holds `repeat` passes
    it = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    seen = [int(r[0]) for _ in range(epochs) for r in it]
    assert seen == list(range(rows)) * repeat * epochs
    assert cb.events == expected_events(epochs, rows * repeat, step_size)


def test_callbacks_of_two_maps_and_list():
    a, b, c = Recorder(), Recorder(), Recorder()
    data = _numbers(3).map(lambda x: x, callbacks=[a, b]).map(lambda x: x + 1, callbacks=c)
    for _ in data.create_tuple_iterator(num_epochs=1):
        pass
    assert a.events == b.events == c.events == expected_events(1, 3)


def test_callbacks_not_called_by_getters():
    cb = Recorder()
    data = _numbers(4).map(lambda x: x, callbacks=cb)
    assert data.get_dataset_size() == 4
    assert data.output_shapes() == [[]]
    assert cb.events == []
    for _ in data.create_dict_iterator(num_epochs=1):
        pass
    assert len(cb.events) == len(expected_events(1, 4))


def test_callback_validation_and_errors():
    with pytest.raises(TypeError, match="Argument callbacks with value 0"):
        _numbers(2).map(lambda x: x, callbacks=0)
    with pytest.raises(TypeError, match=r"Argument callbacks\[1\] with value 0"):
        _numbers(2).map(lambda x: x, callbacks=[Recorder(), 0])

    class Empty(DSCallback):
        pass

    with pytest.raises(AttributeError, match="without overriding any methods"):
        _numbers(2).map(lambda x: x, callbacks=Empty())

    class Bad(DSCallback):
        def ds_step_begin(self, ds_run_context):
            raise ValueError("bad step")

    data = _numbers(3).map(lambda x: x, callbacks=Bad())
    with pytest.raises(ValueError, match="Bad.ds_step_begin raised ValueError: bad step"):
        for _ in data:
            pass


class Waited(WaitedDSCallback):
    def __init__(self, events, step_size=1):
        super().__init__(step_size)
        self.events = events

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        self.events.append(f"ds_epoch_begin_{ds_run_context.cur_epoch_num}_"
                           f"{ds_run_context.cur_step_num}")

    def sync_step_begin(self, train_run_context, ds_run_context):
        self.events.append(f"ds_step_begin_{ds_run_context.cur_epoch_num}_"
                           f"{ds_run_context.cur_step_num}")


def test_waited_callback_runs_in_step_with_the_loop():
    events = []
    cb = Waited(events)
    data = _numbers(3).map(lambda x: x, callbacks=cb)
    it = data.create_tuple_iterator(num_epochs=2)
    step = 0
    for epoch in (1, 2):
        for _ in it:
            step += 1
            events.append(f"train_step_end_{epoch}_{step}")
            cb.step_end(None)
        events.append(f"train_epoch_end_{epoch}")
        cb.epoch_end(None)
    # The dataset's step s + 1 starts only after the loop ended step s; epoch 2 after epoch 1.
    assert events == ["train_step_end_1_1", "ds_step_begin_1_2", "train_step_end_1_2",
                      "ds_step_begin_1_3", "train_step_end_1_3", "train_epoch_end_1",
                      "ds_epoch_begin_2_3", "ds_step_begin_2_4", "train_step_end_2_4",
                      "ds_step_begin_2_5", "train_step_end_2_5", "ds_step_begin_2_6",
                      "train_step_end_2_6", "train_epoch_end_2"]


def test_waited_callback_times_out_with_runtime_error():
    ds.config.set_callback_timeout(1)
    cb = Waited([])
    # batch(3) needs row 3 before the loop's first step ends: ds_step_begin(2) times out
    data = _numbers(4).map(lambda x: x, callbacks=cb).batch(3)
    with pytest.raises(RuntimeError, match="ds_step_begin timed out after 1 second"):
        for _ in data.create_tuple_iterator(num_epochs=1):
            cb.step_end(None)


# ----- sync_wait -----

class Counter:
    def __init__(self):
        self.rows = 0
        self.updates = []
        self.lock = threading.Lock()

    def count(self, x):
        with self.lock:
            self.rows += 1
        return x

    def update(self, data):
        self.updates.append(data)


@pytest.mark.parametrize("num_batch,batch", [(1, 4), (2, 3), (1, 1)])
def test_sync_wait_lets_through_only_released_rows(num_batch, batch):
    c = Counter()
    data = _numbers(40).sync_wait("policy", num_batch=num_batch, callback=c.update)
    data = data.map(c.count, num_parallel_workers=2).batch(batch)
    got, step = [], 0
    for row in data.create_tuple_iterator(num_epochs=1, output_numpy=True):
        step += 1
        # rows released so far: the first num_batch batches, then num_batch per update
        released = num_batch * batch * (1 + (step - 1) // num_batch)
        assert c.rows <= released
        got.extend(int(v) for v in row[0])
        if step % num_batch == 0:
            data.sync_update("policy", data={"step": step})
    assert got == list(range(40))
    assert c.updates == [{"step": s} for s in range(num_batch, step + 1, num_batch)]


def test_sync_wait_errors():
    data = _numbers(10).sync_wait("a")
    with pytest.raises(RuntimeError, match="Condition name is already in use"):
        data.map(lambda x: x).sync_wait("a")
    with pytest.raises(RuntimeError, match="No shuffle after sync operators"):
        data.map(lambda x: x).shuffle(4)
    with pytest.raises(ValueError, match="num_batch need to be greater than 0"):
        _numbers(3).sync_wait("b", num_batch=0)
    with pytest.raises(TypeError, match=r"is not of type \[<class 'int'>\]"):
        _numbers(3).sync_wait("b", num_batch="1")
    with pytest.raises(RuntimeError, match="Condition name not found"):
        data.sync_update("zzz")
    with pytest.raises(RuntimeError, match="Sync_update batch size can only be positive"):
        data.sync_update("a", num_batch=-1)


def test_sync_wait_without_update_is_bounded_by_the_timeout():
    ds.config.set_callback_timeout(1)
    data = _numbers(6).sync_wait("never").batch(2)
    rows = [r[0].tolist() for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert rows == [[0, 1], [2, 3], [4, 5]]  # the condition is disabled after one timeout


def test_sync_wait_dropped_iterator_does_not_block():
    data = _numbers(50).sync_wait("p").batch(2)
    it = data.create_tuple_iterator(num_epochs=1)
    next(it)
    del it  # the worker waits for a release: dropping the iterator must wake it
    # a fresh run starts from a reset condition
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert next(it)[0].tolist() == [0, 1]
    it.stop()


# ----- callable batch_size -----

def _partition(n, size_of, drop):
    out, start, b = [], 0, 0
    while start < n:
        k = size_of(b)
        if start + k > n and drop:
            break
        out.append(list(range(start, min(start + k, n))))
        start += k
        b += 1
    return out


@pytest.mark.parametrize("drop", [False, True])
def test_callable_batch_size(drop):
    data = _numbers(20).batch(lambda info: info.get_batch_num() + 1, drop_remainder=drop)
    got = [r[0].tolist() for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert got == _partition(20, lambda b: b + 1, drop)
    assert data.get_batch_size() == -1
    assert data.get_dataset_size() == len(got)


def test_callable_batch_size_sees_the_epoch():
    data = _numbers(6).repeat(2).batch(lambda info: info.get_epoch_num() + 2,
                                       per_batch_map=lambda x, info: ([v * 10 for v in x],))
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    for epoch in range(2):
        got = [r[0].tolist() for r in it]
        want = _partition(12, lambda b: epoch + 2, False)
        assert got == [[10 * (v % 6) for v in b] for b in want]


def test_callable_batch_size_errors():
    def stop(info):
        raise StopIteration

    with pytest.raises(RuntimeError, match="batch_size function"):
        for _ in _numbers(5).batch(stop):
            pass
    with pytest.raises(ValueError, match="must return an int >= 1"):
        for _ in _numbers(5).batch(lambda info: 0):
            pass


# ----- serialize -----

def module_level_double(x):
    return x * 2


def test_serialize_round_trip(tmp_path):
    sampler = ds.WeightedRandomSampler([1.0, 0.5, 2.0, 0.1, 1.0, 1.0], 5)
    sampler.add_child(ds.SequentialSampler())
    images = np.random.default_rng(0).integers(0, 255, (6, 8, 10, 3), dtype=np.uint8)
    data = ds.NumpySlicesDataset({"image": images, "label": np.arange(6)}, sampler=sampler)
    data = data.map([vision.Rescale(1 / 255.0, 0.0), vision.Resize((4, 5), vision.Inter.LINEAR)],
                    input_columns=["image"])
    data = data.map(module_level_double, input_columns=["label"]).repeat(2).batch(2)
    data = data.zip(_numbers(12).rename("x", "y"))
    path = str(tmp_path / "p.json")
    as_dict = ds.serialize(data, path)
    with open(path, encoding="utf-8") as f:
        assert json.load(f) == as_dict
    again = ds.deserialize(json_filepath=path)
    assert ds.serialize(again) == as_dict
    assert again.get_dataset_size() == data.get_dataset_size()
    ds.config.set_seed(7)
    rows1 = list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    ds.config.set_seed(7)
    rows2 = list(ds.deserialize(input_dict=as_dict).create_tuple_iterator(num_epochs=1,
                                                                           output_numpy=True))
    assert len(rows1) == len(rows2) > 0
    for a, b in zip(rows1, rows2):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_serialize_local_function_cannot_round_trip():
    data = _numbers(3).map(lambda x: x + 1)
    again = ds.deserialize(input_dict=ds.serialize(data))
    with pytest.raises(RuntimeError, match="Failed to find key 'tensor_op_params'"):
        ds.serialize(again)
    with pytest.raises(RuntimeError, match="serialized by name only"):
        for _ in again:
            pass


def test_show_prints_json(capsys):
    ds.show(_numbers(3).batch(2))
    out = json.loads(capsys.readouterr().out)
    assert out["op_type"] == "Batch" and out["children"][0]["op_type"] == "NumpySlicesDataset"


# ----- errors name the data file -----

def test_map_error_names_the_data_file(tmp_path):
    files = []
    for k in range(2):
        p = tmp_path / f"{k}.txt"
        p.write_text("".join(f"line {k} {i}\n" for i in range(3)))
        files.append(str(p))

    def explode(line):
        if "1 2" in str(line):
            raise KeyError("boom")
        return line

    data = ds.TextFileDataset(files, shuffle=False).map(explode, input_columns=["text"])
    with pytest.raises(KeyError) as info:
        for _ in data:
            pass
    msg = str(info.value)
    assert "map operation: [PyFunc] failed. The corresponding data file is: " + files[1] in msg
    assert "explode" in msg and "boom" in msg
    assert isinstance(info.value, RuntimeError)  # MindSpore's engine raises RuntimeError


def test_builtin_op_error_names_the_image_file(tmp_path):
    folder = tmp_path / "cls"
    folder.mkdir()
    (folder / "bad.jpg").write_bytes(b"not an image")
    data = ds.ImageFolderDataset(str(tmp_path), decode=False).map(vision.Decode(), ["image"])
    with pytest.raises(RuntimeError) as info:
        for _ in data:
            pass
    assert "map operation: [Decode] failed. The corresponding data file is: " + \
        str(folder / "bad.jpg") in str(info.value)


def test_map_error_without_a_file():
    data = _numbers(2).map(lambda x: x[5])
    with pytest.raises(IndexError) as info:
        for _ in data:
            pass
    assert "map operation: [PyFunc] failed. test_map_error_without_a_file.<locals>.<lambda> " \
        "on column(s) ['x']" in str(info.value)
    assert "data file" not in str(info.value)


# ----- small getters -----

def test_get_repeat_count_and_epoch_limit():
    assert _numbers(3).get_repeat_count() == 1
    assert _numbers(3).repeat(4).batch(2).get_repeat_count() == 4
    assert _numbers(3).repeat().get_repeat_count() == -1
    it = _numbers(2).create_dict_iterator(num_epochs=1)
    assert len(list(it)) == 2
    with pytest.raises(RuntimeError, match="EOF buffer encountered. User tries to fetch data "
                                           r"beyond the specified number of epochs\."):
        next(it)


def test_independent_mode_refuses_sync_and_callbacks(monkeypatch):
    monkeypatch.setenv("MS_INDEPENDENT_DATASET", "True")
    with pytest.raises(RuntimeError, match="not supported in Dataset Independent mode"):
        _numbers(2).sync_wait("a")
    with pytest.raises(RuntimeError, match="not supported in Dataset Independent mode"):
        _numbers(2).map(lambda x: x, callbacks=Recorder())


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


# ----- padded_batch with a bytes pad value; the engine's value types (_c_dataengine) -----

def test_padded_batch_bytes_pad_value():
    def gen():
        for i in range(2):
            yield (np.array([f"{100 + i}".encode(), f"{200 + i}".encode()]),)

    data = ds.GeneratorDataset(gen, ["c"]).padded_batch(2, pad_info={"c": ([3], b"-2")})
    rows = [r[0] for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    want = np.array([[b"100", b"200", b"-2"], [b"101", b"201", b"-2"]])
    assert len(rows) == 1
    np.testing.assert_array_equal(rows[0], want)
    assert rows[0].dtype.kind == "S"


def test_c_dataengine_types():
    import mycel._c_dataengine as cde
    from mycel.dataset.core.datatypes import detype_to_nptype, nptype_to_detype

    x = np.array([[1, 2], [3, 4]], dtype=np.int16)
    t = cde.Tensor(x)
    assert t.type() == cde.DataType("int16") and t.shape() == [2, 2]
    np.testing.assert_array_equal(t.as_array(), x)
    view = np.array(t, copy=False)
    view[0, 0] = 9
    assert t.as_array()[0, 0] == 9  # the tensor's own array
    s = cde.Tensor(np.array(["ab", "", "c"]))
    assert s.type() == cde.DataType("string")
    np.testing.assert_array_equal(s.as_array(), ["ab", "", "c"])
    for np_type in (np.bool_, np.int8, np.uint16, np.float16, np.float64, int):
        assert nptype_to_detype(np_type) == cde.DataType(np.dtype(np_type).name)
        assert detype_to_nptype(nptype_to_detype(np_type)) == np.dtype(np_type)
    assert nptype_to_detype(str) == cde.DataType("string")
    with pytest.raises(TypeError, match="not a data engine type"):
        cde.DataType("complex64")
    shape = cde.TensorShape([2, -1])
    assert shape.as_list() == [2, -1] and not shape.is_known() and shape.rank() == 2


def test_batch_info_epoch_is_the_iterators_epoch():
    # repeat above the batch: its 3 passes are one epoch of the iterator (MindSpore's count)
    data = _numbers(5).batch(lambda info: info.get_epoch_num() + 1, drop_remainder=True,
                             per_batch_map=lambda x, info: ([v + 100 * info.get_epoch_num()
                                                             for v in x],)).repeat(3)
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    for epoch in range(2):
        got = [r[0].tolist() for r in it]
        want = _partition(5, lambda b: epoch + 1, True) * 3
        assert got == [[v + 100 * epoch for v in b] for b in want]


def test_compare_pipelines_and_exported_callbacks():
    import mycel.dataset as ds
    x = np.arange(12, dtype=np.float32).reshape(6, 2)

    def make(batch, shuffle=False):
        return ds.NumpySlicesDataset((x,), column_names=["x"], shuffle=shuffle).batch(batch)

    assert ds.compare(make(2), make(2))
    assert not ds.compare(make(2), make(3))
    assert not ds.compare(make(2), make(2).repeat(2))
    with pytest.raises(TypeError, match="compare"):
        ds.compare(make(2), [1, 2])
    assert issubclass(ds.WaitedDSCallback, ds.DSCallback)
