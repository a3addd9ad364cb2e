"""MindSpore's pipeline API around the dataset engine: dataset.core.config (load, error samples
mode), engine.datasets' failover reset, seeded runs repeating per iterator, GeneratorDataset
random access and schema, bucket_batch_by_length, split of datasets read in order, and the
unsized string output_types. Oracles: plain Python/numpy computations of the same rows."""
import json

import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import config


@pytest.fixture(autouse=True)
def _restore_config():
    seed, workers = config._seed, config.get_num_parallel_workers()
    mode, debug = config.get_error_samples_mode(), config.get_debug_mode()
    yield
    config._seed = seed
    config.set_num_parallel_workers(workers)
    config.set_error_samples_mode(mode)
    config.set_debug_mode(debug)


def _rows(dataset, **kw):
    return [[np.asarray(v) for v in r]
            for r in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw)]


# ----- core.config -----

def test_core_config_is_config_and_load_sets_the_named_settings(tmp_path):
    import mycel.dataset.core.config as core_config
    assert core_config is ds.config and ds.core.config is ds.config
    path = tmp_path / "ds.cfg"
    path.write_text(json.dumps({"numParallelWorkers": 3, "seed": 77, "workerConnectorSize": 9,
                                "monitorSamplingInterval": 15, "error_samples_mode": 2,
                                "logFilePath": "/tmp", "rowsPerBuffer": 1}))
    config.load(str(path))
    assert config.get_num_parallel_workers() == 3 and config.get_seed() == 77
    assert config.get_worker_connector_size() == 9
    assert config.get_monitor_sampling_interval() == 15
    assert config.get_error_samples_mode() == config.ErrorSamplesMode.SKIP
    path.write_text(json.dumps({"numParallelWorker": 3}))
    with pytest.raises(RuntimeError, match="unknown settings.*numParallelWorker"):
        config.load(str(path))
    with pytest.raises(RuntimeError, match="cannot read"):
        config.load(str(tmp_path / "missing.cfg"))


def test_error_samples_mode_takes_the_enum_only():
    assert config.get_error_samples_mode() == config.ErrorSamplesMode.RETURN
    config.set_error_samples_mode(config.ErrorSamplesMode.REPLACE)
    assert config.get_error_samples_mode() == config.ErrorSamplesMode.REPLACE
    with pytest.raises(TypeError, match="error_samples_mode"):
        config.set_error_samples_mode(1)


# ----- seeded runs, failover reset -----

def _shuffled_pipeline():
    data = ds.NumpySlicesDataset(np.arange(40).reshape(20, 2), column_names=["x"])
    data = data.shuffle(8)
    return data.map(lambda x: x * 10, input_columns=["x"]).batch(3)


def test_seeded_iterators_repeat_and_epochs_differ():
    config.set_seed(5)
    data = _shuffled_pipeline()
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1 = [r[0].tolist() for r in it]
    e2 = [r[0].tolist() for r in it]
    again = [r[0].tolist() for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert again == e1 and e1 != e2
    assert sorted(v for b in e1 for row in b for v in row) == [10 * i for i in range(40)]


@pytest.mark.parametrize("failure_step", [0, 3, 6, 7, 11, 13])
def test_reset_training_dataset_continues_the_uninterrupted_run(failure_step):
    config.set_seed(3)
    data = _shuffled_pipeline()
    size, epochs = data.get_dataset_size(), 2
    assert size == 7
    it = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    full = [r[0].tolist() for _ in range(epochs) for r in it]
    it = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    ds.engine.datasets._set_training_dataset(it)
    got = []
    for _ in range(epochs):  # up to the failure, then a reset to the failure step
        for r in it:
            if len(got) == failure_step:
                break
            got.append(r[0].tolist())
        if len(got) == failure_step:
            break
    ds.engine.datasets._reset_training_dataset(failure_step, size)
    for _ in range(failure_step // size, epochs):
        got.extend(r[0].tolist() for r in it)
    assert got == full
    with pytest.raises(RuntimeError, match="beyond the specified number of epochs"):
        next(iter(it))


def test_reset_checks_the_step():
    data = _shuffled_pipeline()
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    ds.engine.datasets._set_training_dataset(it)
    with pytest.raises(RuntimeError, match="reset step must be >= 0"):
        ds.engine.datasets._reset_training_dataset(-1, 7)
    with pytest.raises(RuntimeError, match="less than dataset_size \\* num_epochs"):
        ds.engine.datasets._reset_training_dataset(14, 7)
    ds.engine.datasets._set_training_dataset(None)
    with pytest.raises(RuntimeError, match="Training dataset is not set"):
        ds.engine.datasets._reset_training_dataset(1, 7)


# ----- GeneratorDataset: random access, schema -----

class _Source:
    def __init__(self, n):
        self.data = np.arange(n, dtype=np.int32) * 3

    def __getitem__(self, i):
        return (self.data[i],)

    def __len__(self):
        return len(self.data)


@pytest.mark.parametrize("kw", [{"shuffle": False}, {"shuffle": True},
                                {"shuffle": True, "num_shards": 3, "shard_id": 1},
                                {"sampler": ds.SubsetSampler([4, 1, 7])},
                                {"shuffle": True, "num_samples": 4}])
def test_generator_getitem_is_the_iterated_row(kw):
    config.set_seed(11)
    data = ds.GeneratorDataset(_Source(10), ["v"], **kw)
    rows = [int(r[0]) for r in _rows(data)]
    assert [int(data[i][0]) for i in range(len(rows))] == rows
    with pytest.raises(RuntimeError, match=f"Index \\[{len(rows)}\\] exceeded"):
        _ = data[len(rows)]
    with pytest.raises(RuntimeError, match="can not be a negative number"):
        _ = data[-1]
    with pytest.raises(TypeError, match="Argument index"):
        _ = data["x"]


def test_generator_getitem_needs_random_access():
    data = ds.GeneratorDataset(lambda: iter([(1,), (2,)]), ["v"])
    with pytest.raises(RuntimeError, match="don't support randomized access"):
        _ = data[0]


def test_generator_schema_names_and_checks_the_columns():
    schema = ds.Schema()
    schema.add_column("v", de_type=np.int32)
    data = ds.GeneratorDataset(_Source(4), schema=schema, shuffle=False)
    assert data.get_col_names() == ["v"]
    assert [int(r[0]) for r in _rows(data)] == [0, 3, 6, 9]
    schema = ds.Schema()
    schema.add_column("v", de_type=np.float32)
    with pytest.raises(TypeError, match="column 'v' has dtype int32"):
        _rows(ds.GeneratorDataset(_Source(4), schema=schema, shuffle=False))


# ----- bucket_batch_by_length -----

def _seqs(n):
    return lambda: ((np.arange(i + 1), np.array([i])) for i in range(n))


def _bucketed(lengths_rows, bounds, sizes, pad_to=None, drop=False):
    """The expected batches, computed plainly: [(bucket, [rows])] in emission order."""
    edges = [0] + bounds
    buckets, out = [[] for _ in edges], []
    for length, row in lengths_rows:
        b = max(i for i, e in enumerate(edges) if length >= e)
        buckets[b].append(row)
        if len(buckets[b]) == sizes[b]:
            out.append((b, buckets[b]))
            buckets[b] = []
    if not drop:
        out.extend((b, rows) for b, rows in enumerate(buckets) if rows)
    return out


@pytest.mark.parametrize("drop", [False, True])
def test_bucket_batch_pads_each_batch_to_its_longest(drop):
    data = ds.GeneratorDataset(_seqs(13), ["seq", "i"])
    bounds, sizes = [3, 6, 10], [2, 3, 2, 4]
    data = data.bucket_batch_by_length(["seq"], bounds, sizes, pad_info={"seq": ([None], -1)},
                                       drop_remainder=drop)
    got = [(r[0].tolist(), r[1].tolist()) for r in _rows(data)]
    want = []
    for _, rows in _bucketed([(i + 1, i) for i in range(13)], bounds, sizes, drop=drop):
        width = max(rows) + 1
        want.append(([list(range(i + 1)) + [-1] * (width - i - 1) for i in rows],
                     [[i] for i in rows]))
    assert got == want
    assert data.get_dataset_size() == len(want)


def test_bucket_batch_length_function_and_pad_to_boundary():
    data = ds.GeneratorDataset(_seqs(9), ["seq", "i"])
    bounds, sizes = [4, 8, 20], [2, 2, 3, 1]
    data = data.bucket_batch_by_length(["i"], bounds, sizes, lambda i: int(i[0]) * 2,
                                       pad_info={"seq": ([None], 0)}, pad_to_bucket_boundary=True)
    got = [r[0].tolist() for r in _rows(data)]
    want = []
    for b, rows in _bucketed([(2 * i, i) for i in range(9)], bounds, sizes):
        width = ([0] + bounds)[b + 1] - 1
        want.append([list(range(i + 1)) + [0] * (width - i - 1) for i in rows])
    assert got == want


def test_bucket_batch_checks_its_arguments():
    data = ds.GeneratorDataset(_seqs(4), ["seq", "i"])
    with pytest.raises(ValueError, match="exactly one column name"):
        data.bucket_batch_by_length(["seq", "i"], [2], [1, 1])
    with pytest.raises(ValueError, match="strictly increasing"):
        data.bucket_batch_by_length(["seq"], [2, 2], [1, 1, 1])
    with pytest.raises(ValueError, match="one element more"):
        data.bucket_batch_by_length(["seq"], [2], [1])
    with pytest.raises(ValueError, match="positive numbers"):
        data.bucket_batch_by_length(["seq"], [0, 2], [1, 1, 1])
    with pytest.raises(TypeError, match="Argument drop_remainder"):
        data.bucket_batch_by_length(["seq"], [2], [1, 1], drop_remainder="")
    bad = data.bucket_batch_by_length(["nope"], [2], [1, 1], len)
    with pytest.raises(RuntimeError, match="Couldn't find the specified column"):
        _rows(bad)
    last = data.bucket_batch_by_length(["seq"], [2], [1, 1], pad_info={"seq": ([None], 0)},
                                       pad_to_bucket_boundary=True)
    with pytest.raises(RuntimeError, match="pad to bucket boundary"):
        _rows(last)


# ----- split of a dataset read in order, output types -----

def test_split_of_a_generator_is_a_partition():
    config.set_seed(9)
    data = ds.GeneratorDataset(lambda: ((np.array(i),) for i in range(20)), ["v"])
    parts = data.split([0.7, 0.3])
    got = [[int(r[0]) for r in _rows(p)] for p in parts]
    assert [len(g) for g in got] == [14, 6] == [p.get_dataset_size() for p in parts]
    assert sorted(got[0] + got[1]) == list(range(20)) and got[0] != sorted(got[0])
    assert [[int(r[0]) for r in _rows(p)] for p in parts] == got  # the same parts each epoch


def test_string_output_types_are_unsized():
    data = ds.NumpySlicesDataset({"s": np.array(["a", "bcd"]), "n": np.array([1, 2])},
                                 shuffle=False)
    types = data.output_types()
    assert types == [np.str_, np.int64] and types[0] == np.dtype(np.str_)


# ----- error samples mode -----

def _raising_map(n, bad, workers=1):
    def op(x):
        if bad(int(x)):
            raise ZeroDivisionError(f"bad row {int(x)}")
        return x
    data = ds.GeneratorDataset(lambda: ((np.array(i),) for i in range(n)), ["x"])
    return data.map(op, num_parallel_workers=workers)


@pytest.mark.parametrize("workers", [1, 4])
def test_skip_mode_drops_the_rows_that_raise(workers):
    config.set_error_samples_mode(config.ErrorSamplesMode.SKIP)
    data = _raising_map(20, lambda i: i % 3 == 1, workers).batch(4)
    want = [i for i in range(20) if i % 3 != 1]
    assert [v for r in _rows(data) for v in r[0].tolist()] == want
    assert data.get_dataset_size() == -(-len(want) // 4)


@pytest.mark.parametrize("workers", [1, 3])
def test_replace_mode_puts_copies_of_good_rows_at_the_epoch_end(workers):
    config.set_error_samples_mode(config.ErrorSamplesMode.REPLACE)
    data = _raising_map(12, lambda i: i < 3 or i == 7, workers)
    good = [i for i in range(12) if not (i < 3 or i == 7)]
    it = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    for _ in range(2):  # each epoch: its good rows, then 4 copies of its first good rows
        assert [int(r[0]) for r in it] == good + good[:4]
    assert data.get_dataset_size() == 12


def test_replace_mode_with_only_bad_rows_raises():
    config.set_error_samples_mode(config.ErrorSamplesMode.REPLACE)
    with pytest.raises(RuntimeError, match="All data is garbage"):
        _rows(_raising_map(5, lambda i: True))


def test_return_mode_raises_the_rows_error():
    with pytest.raises(ZeroDivisionError, match="bad row 2"):
        _rows(_raising_map(5, lambda i: i == 2))


def test_skip_mode_resumes_at_a_step():
    config.set_error_samples_mode(config.ErrorSamplesMode.SKIP)
    data = _raising_map(30, lambda i: i % 4 == 0)
    full = [int(r[0]) for r in _rows(data)]
    data.set_init_step(5)
    assert [int(r[0]) for r in _rows(data)] == full[5:]


# ----- GeneratorDataset: batch_sampler, collate_fn, one-shot sources, pipeline errors -----

class _Indexed:
    def __init__(self):
        self.rows = [(np.array([i], np.int32), np.array(10 * i)) for i in range(7)]

    def __getitem__(self, i):
        return self.rows[i]

    def __len__(self):
        return len(self.rows)


def test_batch_sampler_batches_are_the_indexed_rows_stacked():
    batches = [[0, 1, 2], [5], [3, 6]]
    data = ds.GeneratorDataset(_Indexed(), ["a", "b"], batch_sampler=batches)
    got = _rows(data)
    assert [r[0].tolist() for r in got] == [[[i] for i in b] for b in batches]
    assert [r[1].tolist() for r in got] == [[10 * i for i in b] for b in batches]
    assert data.get_dataset_size() == 3 and data.get_batch_size() == -1


def test_collate_fn_makes_each_batch():
    def collate(a, b):  # a: list of (1,) arrays, b: list of 0-d arrays
        return np.concatenate(a) * 2, [x + 1 for x in b]
    data = ds.GeneratorDataset(_Indexed(), ["a", "b"], batch_sampler=[[1, 4], [2]],
                               collate_fn=collate)
    got = _rows(data)
    assert [r[0].tolist() for r in got] == [[2, 8], [4]]
    assert [r[1].tolist() for r in got] == [[11, 41], [21]]


def test_batch_sampler_argument_rules():
    with pytest.raises(ValueError, match="mutually exclusive"):
        ds.GeneratorDataset(_Indexed(), ["a", "b"], batch_sampler=[[0]], shuffle=True)
    with pytest.raises(ValueError, match="only when batch_sampler is set"):
        ds.GeneratorDataset(_Indexed(), ["a", "b"], collate_fn=lambda a, b: (a, b))
    with pytest.raises(TypeError, match="batch_sampler should have"):
        ds.GeneratorDataset(_Indexed(), ["a", "b"], batch_sampler=3)


def test_one_shot_sources_give_every_epoch():
    gen = ((np.array(i),) for i in range(4))
    data = ds.GeneratorDataset(gen, ["v"])
    assert data.get_dataset_size() == 4
    for _ in range(3):
        assert [int(r[0]) for r in _rows(data)] == [0, 1, 2, 3]
    zipped = ds.GeneratorDataset(zip(np.arange(5), np.arange(5) * 2), ["x", "y"], shuffle=False)
    assert [(int(a), int(b)) for a, b in _rows(zipped)] == [(i, 2 * i) for i in range(5)] * 1
    assert len(_rows(zipped)) == 5  # a list now: read again


def test_getitem_without_len_is_an_error_when_run():
    class NoLen:
        def __getitem__(self, i):
            return np.array(i)
    data = ds.GeneratorDataset(NoLen(), ["v"])
    with pytest.raises(RuntimeError, match="'__len__' method is required"):
        data.get_dataset_size()


def test_user_errors_in_a_pipeline_keep_their_type_and_are_runtime_errors():
    data = ds.GeneratorDataset(lambda: ((np.array(i),) for i in range(3)), ["x"])
    data = data.map(lambda x: {}["missing"])
    with pytest.raises(KeyError) as info:
        _rows(data)
    assert isinstance(info.value, RuntimeError) and "KeyError" in str(info.value)
    bad = ds.GeneratorDataset(lambda: iter([({1},)]), ["x"])
    with pytest.raises(RuntimeError, match="Data type of 1th item"):
        _rows(bad)


def test_a_stopped_iterator_refuses_and_extra_epochs_say_so():
    data = ds.NumpySlicesDataset(np.arange(3), shuffle=False)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert len(list(it)) == 3
    with pytest.raises(RuntimeError, match="EOF buffer encountered. User tries to fetch data "
                                           "beyond the specified number of epochs"):
        next(it)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    it.stop()
    with pytest.raises(AttributeError, match="the iterator was stopped"):
        next(it)


def test_bytes_stay_bytes_and_text_stays_text():
    raw = np.array([b"ab", b"\x00\xff", b"c"])
    data = ds.NumpySlicesDataset({"b": raw, "s": np.array(["x", "yz", "w"])}, shuffle=False)
    rows = _rows(data)
    assert [r[0].dtype.kind for r in rows] == ["S"] * 3
    assert [r[1].dtype.kind for r in rows] == ["U"] * 3
    assert [r[0].item() for r in rows] == list(raw)
    assert [r[1].item() for r in rows] == ["x", "yz", "w"]
    assert data.output_types() == [np.bytes_, np.str_]
    batch = _rows(data.batch(3))[0]
    np.testing.assert_array_equal(batch[0], raw)
    assert batch[0].dtype.kind == "S" and batch[1].dtype.kind == "U"
    mapped = ds.NumpySlicesDataset([1, 2], shuffle=False).map(lambda x: np.array(b"123"))
    assert [r[0] for r in _rows(mapped)] == [np.array(b"123")] * 2
    assert all(r[0].dtype.kind == "S" for r in _rows(mapped))


# ----- debug mode hooks -----

def test_debug_hooks_see_each_operations_input_and_output(capsys):
    from mycel.dataset import debug

    class Record(debug.DebugHook):
        def __init__(self):
            super().__init__()
            self.seen = []

        def compute(self, *args):
            self.seen.append((self.prev_op_name, self.is_first_op, [int(c) for c in args[0]]))
            return args

    hook = Record()
    config.set_debug_mode(True, [hook, debug.PrintMetaDataHook()])
    data = ds.NumpySlicesDataset(np.arange(2), shuffle=False)

    def add_one(x):
        return x + 1

    def double(x):
        return x * 2
    data = data.map([add_one, double])
    assert [int(r[0]) for r in _rows(data)] == [2, 4]
    # per row: the map's input before add_one, then each operation's output (the hook's
    # copies share its list)
    seen = [(name.rsplit(".", 1)[-1], first, v) for name, first, v in hook.seen]
    assert seen == [("add_one", True, [0]), ("add_one", False, [1]), ("double", False, [2]),
                    ("add_one", True, [1]), ("add_one", False, [2]), ("double", False, [4])]
    out = capsys.readouterr().out
    assert out.count("Print the [INPUT] of the operation [") == 4  # 2 hooks x 2 rows
    assert out.count("double].") == 4
    assert "Column 0. The dtype is [int64]. The shape is [()]." in out
    config.set_debug_mode(False)
    assert [int(r[0]) for r in _rows(data)] == [2, 4]
    assert "Dataset debugger" not in capsys.readouterr().out


def test_debug_mode_arguments():
    from mycel.dataset import debug
    with pytest.raises(TypeError, match="debug_mode_flag isn't of type boolean"):
        config.set_debug_mode(1)
    with pytest.raises(TypeError, match="debug_hook_list is not a list"):
        config.set_debug_mode(True, debug.PrintDataHook())
    with pytest.raises(TypeError, match="must be of type DebugHook"):
        config.set_debug_mode(True, [print])
