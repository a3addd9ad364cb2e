"""The C++ data engine (issue #6) against Python/numpy oracles: results independent of the worker
counts, resume by set_init_step, errors raised (never a hang or a crash), every pipeline op,
and the samplers.

Each test runs under a watchdog (faulthandler): a hung pipeline dumps the threads' stacks and
ends the process instead of stalling the suite."""
import faulthandler
import gc
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import mycel
import mycel.dataset as ds
from mycel.dataset import config, vision

SEED = 1234
IMAGES = np.random.default_rng(0).integers(0, 256, (48, 12, 10, 3), dtype=np.uint8)


@pytest.fixture(autouse=True)
def _clean_config_and_watchdog():
    """Each test starts with the default dataset config and ends within 60 s."""
    old = mycel.get_seed()
    config._seed, config._workers, config._prefetch = None, None, 16
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
    config._seed, config._workers, config._prefetch = None, None, 16
    mycel.set_seed(old)


# ----- helpers -----

def _rows(dataset, **kw):
    """One epoch of rows as lists of numpy arrays."""
    return list(dataset.create_tuple_iterator(output_numpy=True, **kw))


def _epochs(dataset, n):
    """n epochs of one iterator, each a list of rows."""
    it = dataset.create_tuple_iterator(num_epochs=n, output_numpy=True)
    return [list(it) for _ in range(n)]


def _ints(dataset, col=0, **kw):
    """Column col of one epoch as Python ints (scalar columns)."""
    return [int(r[col]) for r in _rows(dataset, **kw)]


def _same(a, b):
    """Whether two lists of rows are equal: lengths, dtypes, shapes and values."""
    return len(a) == len(b) and all(
        len(r) == len(s) and all(x.dtype == y.dtype and np.array_equal(x, y)
                                 for x, y in zip(r, s)) for r, s in zip(a, b))


def _slices(data, **kw):
    """NumpySlicesDataset in row order unless kw chooses a shuffle, sampler or shard."""
    if not {"shuffle", "sampler", "num_shards"} & set(kw):
        kw["shuffle"] = False
    return ds.NumpySlicesDataset(data, **kw)


def _images(workers=1, shuffle=True, **kw):
    """IMAGES with their indices as labels."""
    return _slices({"image": IMAGES, "label": np.arange(len(IMAGES))}, shuffle=shuffle,
                   num_parallel_workers=workers, **kw)


def _is_window(out, image):
    """Whether out is a window of image or of its left-right mirror (RandomCrop + flip)."""
    h, w = out.shape[:2]
    for src in (image, image[:, ::-1]):
        for y in range(src.shape[0] - h + 1):
            for x in range(src.shape[1] - w + 1):
                if np.array_equal(src[y:y + h, x:x + w], out):
                    return True
    return False


# ----- 1. determinism whatever the worker counts -----

def _augmented(workers, seed):
    """Random sampler, three random transforms, a Python map and filter, a shuffle buffer and
    a batch, every op on `workers` threads."""
    config.set_seed(seed)
    d = _images(workers)
    d = d.map([vision.RandomCrop(8, padding=1), vision.RandomHorizontalFlip(),
               vision.RandomResizedCrop(6)], input_columns="image", num_parallel_workers=workers)
    d = d.map(lambda label: label * 3 + 1, input_columns="label", num_parallel_workers=workers)
    d = d.filter(lambda label: label % 4 != 1, input_columns="label",
                 num_parallel_workers=workers)
    return d.shuffle(7).batch(4, num_parallel_workers=workers)


def test_one_and_four_workers_give_identical_batches_over_two_epochs():
    one, four = _epochs(_augmented(1, SEED), 2), _epochs(_augmented(4, SEED), 2)
    assert _same(one[0], four[0]) and _same(one[1], four[1])
    assert not _same(one[0], one[1])  # reshuffled and re-augmented each epoch
    assert not _same(one[0], _epochs(_augmented(1, SEED + 1), 1)[0])  # a new seed, new data
    want = sorted(3 * i + 1 for i in range(len(IMAGES)) if i % 4 != 0)
    for epoch in one:
        assert len(epoch) == len(want) // 4
        assert sorted(np.concatenate([b[1] for b in epoch]).tolist()) == want
        assert all(b[0].shape == (4, 6, 6, 3) and b[0].dtype == np.uint8 for b in epoch)


class _IndexedImages:
    """A random-access GeneratorDataset source over IMAGES."""

    def __getitem__(self, i):
        return IMAGES[i], np.int64(i)

    def __len__(self):
        return len(IMAGES)


@pytest.mark.parametrize("make", [
    lambda w: _images(w, shuffle=None, sampler=ds.RandomSampler(replacement=True, num_samples=30)),
    lambda w: _images(w, shuffle=None, num_shards=3, shard_id=1),
    lambda w: _images(w, shuffle=None, sampler=ds.SubsetRandomSampler(list(range(5, 40, 2)))),
    lambda w: _images(w, shuffle=None, sampler=ds.WeightedRandomSampler(np.linspace(0, 1, 48), 25)),
    lambda w: ds.GeneratorDataset(_IndexedImages(), ["image", "label"], shuffle=True),
], ids=["random-replacement", "shards", "subset-random", "weighted", "generator"])
def test_random_crops_follow_the_row_not_the_worker(make):
    def run(workers):
        config.set_seed(SEED)
        d = make(workers).map([vision.RandomCrop((5, 4)), vision.RandomHorizontalFlip()],
                              input_columns="image", num_parallel_workers=workers)
        return _epochs(d.batch(3, num_parallel_workers=workers), 2)

    one, four = run(1), run(4)
    assert _same(one[0], four[0]) and _same(one[1], four[1])
    assert not _same(one[0], one[1])
    for images, labels in one[0] + one[1]:
        assert all(_is_window(img, IMAGES[label]) for img, label in zip(images, labels))


def test_random_transforms_of_one_map_draw_independently():
    img = np.arange(4, dtype=np.uint8).reshape(2, 2, 1)
    d = _slices({"x": np.stack([img] * 400)}).map(
        [vision.RandomHorizontalFlip(0.5), vision.RandomVerticalFlip(0.5)], "x")
    corners = [int(x[0, 0, 0]) for (x,) in d.create_tuple_iterator(output_numpy=True)]
    counts = [corners.count(v) for v in range(4)]  # 0: none, 1: h, 2: v, 3: both flips
    assert all(60 <= c <= 140 for c in counts), counts  # about 100 each when independent


def test_python_map_on_four_workers_keeps_order_and_values():
    def uneven_square(x):
        time.sleep(0.002 * (int(x) % 3))  # later rows often finish first
        return x * x + 1

    d = _slices({"x": np.arange(120)}).map(uneven_square, num_parallel_workers=4)
    got = np.concatenate([b[0] for b in _rows(d.batch(8, num_parallel_workers=4))])
    np.testing.assert_array_equal(got, np.arange(120) ** 2 + 1)
    two = _slices({"x": np.arange(30)}).map(lambda x: (x, -2 * x), output_columns=["a", "b"],
                                             num_parallel_workers=4)
    assert two.get_col_names() == ["a", "b"]
    assert [(int(a), int(b)) for a, b in _rows(two)] == [(i, -2 * i) for i in range(30)]


# ----- 2. resume (set_init_step) -----

def _gen_rows():
    for i in range(30):
        yield (IMAGES[i % len(IMAGES)],)


RESUMABLE = {
    "sampler+map+batch": lambda: _images().map(
        [vision.RandomCrop(6), vision.RandomHorizontalFlip()], "image").batch(4),
    "python-map-4-workers": lambda: _images(4).map(
        lambda x: x + 1, "label", num_parallel_workers=4).batch(5, num_parallel_workers=4),
    "repeat-above-batch": lambda: _images().map(
        vision.RandomHorizontalFlip(), "image").batch(5).repeat(2),
    "repeat-below-batch": lambda: _images().map(
        vision.RandomCrop(4), "image").repeat(3).batch(7),
    "skip-take": lambda: _images().skip(3).take(30).map(vision.RandomCrop(6), "image").batch(4),
    "shuffle-buffer": lambda: _images().shuffle(6).map(vision.RandomCrop(6), "image").batch(4),
    "random-map-above-repeat": lambda: _images().repeat(2).map(
        vision.RandomCrop(5), "image").batch(7),
    "filter-under-take-of-endless-repeat": lambda: _images().filter(
        lambda label: label % 4 != 1, "label").repeat().map(
        vision.RandomCrop(6), "image").take(40).batch(3),
    "zip": lambda: _images().zip(_images().rename(["image", "label"], ["image2", "label2"])
                                 .map(vision.RandomCrop(5), "image2")).batch(4),
    "concat": lambda: (_images() + _images(shuffle=False).take(9)).map(
        vision.RandomCrop(6), "image").batch(7),
    "generator-iterable": lambda: ds.GeneratorDataset(_gen_rows, ["image"]).map(
        vision.RandomCrop(6), "image").batch(4),
}


def _full_and_resumed(make, step, epochs):
    """(the steps from `step` on of an uninterrupted run, those of a run resumed at `step`);
    the resumed iterator must also refuse an epoch past num_epochs."""
    config.set_seed(SEED)
    d = make()
    per = d.get_dataset_size()
    full = [row for epoch in _epochs(d, epochs) for row in epoch]
    config.set_seed(SEED)
    it = make().set_init_step(step).create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    resumed = []
    for _ in range(epochs - step // per):
        resumed += list(it)
    with pytest.raises(RuntimeError, match="epochs were consumed"):
        next(it)
    return full[step:], resumed


@pytest.mark.parametrize("name", sorted(RESUMABLE))
def test_resumed_run_equals_the_rest_of_an_uninterrupted_run(name):
    make = RESUMABLE[name]
    config.set_seed(SEED)
    per = make().get_dataset_size()
    for step in (per // 2 + 1, 2 * per + 1, per):  # inside epoch 0, in epoch 2, a boundary
        want, got = _full_and_resumed(make, step, 3)
        assert len(want) == 3 * per - step
        assert _same(got, want), f"{name} resumed at step {step}"


def test_resume_through_a_filter_replays_to_the_step():
    """A filter makes the size per epoch unknown: the resumed run must still be exact (it may
    read the rows before the step and drop them)."""
    def make():
        return _images().filter(lambda label: label % 3 != 0, "label").map(
            vision.RandomCrop(6), "image").batch(4)

    config.set_seed(SEED)
    per = make().get_dataset_size()
    for step in (3, per, per + 2):  # inside epoch 0, on the boundary, inside epoch 1
        want, got = _full_and_resumed(make, step, 2)
        assert _same(got, want), f"resumed at step {step}"


def test_resume_past_the_last_epoch_of_a_filtered_dataset_is_a_value_error():
    config.set_seed(SEED)
    d = _images().filter(lambda label: label % 3 != 0, "label").batch(4)
    per = d.get_dataset_size()
    d.set_init_step(2 * per + 1)
    with pytest.raises(ValueError, match="set_init_step: step .* is beyond the 2 epochs"):
        d.create_tuple_iterator(num_epochs=2, output_numpy=True)


def test_resume_of_an_unsized_python_iterable_replays_to_the_step():
    def make():
        gen = lambda: ((np.array([i], np.int64),) for i in range(10))
        return ds.GeneratorDataset(gen, ["x"]).map(lambda x: x * 2).batch(3)

    for step in (2, 4, 5):  # 4 batches per epoch: inside epoch 0, the boundary, epoch 1
        want, got = _full_and_resumed(make, step, 2)
        assert _same(got, want), f"resumed at step {step}"


class _CountingSource:
    """A random-access GeneratorDataset source that counts the rows read."""

    def __init__(self, n):
        self.n, self.reads = n, 0

    def __getitem__(self, i):
        self.reads += 1
        return (np.array([i, 2 * i]),)

    def __len__(self):
        return self.n


def test_resumed_source_does_not_read_the_skipped_rows():
    def run(step):
        config.set_seed(SEED)
        src = _CountingSource(40)
        d = ds.GeneratorDataset(src, ["x"], shuffle=True).map(lambda x: x * 3).batch(4)
        d.set_init_step(step)
        it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
        rows = [r for _ in range(2 - step // 10) for r in it]
        return rows, src.reads

    full, reads = run(0)
    assert reads == 80
    for step in (7, 13):  # 10 batches per epoch
        rows, reads = run(step)
        assert _same(rows, full[step:])
        assert reads == 80 - 4 * step  # only the rows of the remaining batches


def test_resume_argument_errors():
    d = _images().batch(4)  # 12 steps per epoch
    with pytest.raises(ValueError, match="set_init_step: init_step must be in"):
        d.set_init_step(-1)
    with pytest.raises(TypeError, match="set_init_step: init_step must be an int"):
        d.set_init_step(1.5)
    d.set_init_step(25)
    with pytest.raises(ValueError, match="set_init_step: step 25 is beyond the 2 epochs of 12"):
        d.create_tuple_iterator(num_epochs=2)


# ----- 3. errors: raised in the caller, never a hang -----

class _BadRow(KeyError):
    pass


def test_python_transform_error_in_a_worker_keeps_its_type():
    def explode(x):
        if int(x) == 37:
            raise _BadRow("row 37")
        return x

    d = _slices({"x": np.arange(80)}).map(explode, num_parallel_workers=4).batch(
        4, num_parallel_workers=4)
    it = d.create_tuple_iterator(output_numpy=True)
    with pytest.raises(_BadRow, match=r"map operation: \[PyFunc\] failed\. .*explode on column\(s\) "
                                       r"\['x'\]"):
        list(it)
    # the iterator stays failed: the same error again, not a crash
    with pytest.raises(_BadRow, match="row 37"):
        next(it)


def test_cpp_transform_error_in_a_worker():
    garbage = np.frombuffer(b"\xff\xd8\xff\xe0 not a jpeg at all", np.uint8)
    d = _slices({"image": np.stack([garbage] * 12)}).map(vision.Decode(),
                                                         num_parallel_workers=4)
    with pytest.raises(RuntimeError,
                       match=r"map operation: \[Decode\] failed\. Column\(s\) \['image'\]: Decode:"):
        _rows(d.batch(3))


@pytest.mark.parametrize("build, func", [
    (lambda d: d.map(lambda x: x, input_columns="nope"), "map"),
    (lambda d: d.map(lambda x: x, input_columns=["image", "nope"]), "map"),
    (lambda d: d.project(["label", "nope"]), "project"),
    (lambda d: d.rename("nope", "x"), "rename"),
    (lambda d: d.filter(lambda x: True, input_columns=["nope"]), "filter"),
    (lambda d: d.batch(2, per_batch_map=lambda x, info: x, input_columns=["nope"]), "batch"),
    (lambda d: d.padded_batch(2, pad_info={"nope": (None, 0)}), "padded_batch"),
    (lambda d: d.create_tuple_iterator(columns=["nope"]), "project"),
])
def test_wrong_column_names(build, func):
    with pytest.raises(ValueError, match=f"{func}: column 'nope' does not exist; the dataset's "
                                         r"columns are \['image', 'label'\]"):
        build(_images())


def test_missing_and_truncated_files(tmp_path):
    with pytest.raises(ValueError, match="MnistDataset: the dataset_dir .*nowhere does not exist"):
        ds.MnistDataset(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="TextFileDataset: dataset_files .*missing.txt.* match no"):
        ds.TextFileDataset(str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="Cifar10Dataset: .*does not exist"):
        ds.Cifar10Dataset(str(tmp_path / "nowhere"))
    n, h, w = 6, 4, 3
    (tmp_path / "train-images-idx3-ubyte").write_bytes(
        np.array([2051, n, h, w], ">u4").tobytes() + bytes(n * h * w - 7))  # 7 bytes short
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(
        np.array([2049, n], ">u4").tobytes() + bytes(n))
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte.*truncated"):
        d = ds.MnistDataset(str(tmp_path), usage="train", num_parallel_workers=4)
        _rows(d.map(lambda x: x, num_parallel_workers=4).batch(2))


def test_generator_errors_keep_their_type():
    def broken():
        yield (np.zeros(2),)
        raise OSError("disk gone")

    with pytest.raises(OSError, match="GeneratorDataset: the source raised OSError: disk gone"):
        _rows(ds.GeneratorDataset(broken, ["x"]).map(lambda x: x + 1, num_parallel_workers=4))

    class Holes:
        def __getitem__(self, i):
            if i == 5:
                raise IndexError("no row 5")
            return (np.array(i),)

        def __len__(self):
            return 8

    with pytest.raises(IndexError, match=r"GeneratorDataset: source\[5\] raised IndexError"):
        _rows(ds.GeneratorDataset(Holes(), ["x"], shuffle=False).batch(2))


def test_callable_results_and_errors_in_workers():
    d = _slices({"x": np.arange(20)})
    with pytest.raises(ZeroDivisionError, match="batch: per_batch_map .* failed: division by"):
        _rows(d.batch(4, num_parallel_workers=3, per_batch_map=lambda x, info: 1 / 0,
                      input_columns=["x"]))
    with pytest.raises(ZeroDivisionError, match="filter: predicate .* failed"):
        _rows(d.filter(lambda x: 1 // (int(x) - 11), num_parallel_workers=4))
    with pytest.raises(RuntimeError, match="per_batch_map changed the number of rows from 4"):
        _rows(d.batch(4, per_batch_map=lambda x, info: (x[:1],), input_columns=["x"]))
    with pytest.raises(RuntimeError, match=r"map: the operations returned 2 column\(s\) but "
                                           "output_columns has 1"):
        _rows(d.map(lambda x: (x, x)))

    def ragged(x):
        return [np.zeros(2), np.zeros(3)]

    with pytest.raises(ValueError, match=r"map operation: \[PyFunc\] failed\. .*ragged on column\(s\) "
                                        r"\['x'\]"):
        _rows(d.map(ragged, num_parallel_workers=2))


def test_dropping_iterators_mid_epoch_does_not_hang():
    config.set_prefetch_size(1)

    def gen():
        for i in range(10_000):
            yield (np.array(i),)

    for make in (lambda: _images(4).map(lambda x: x, "image", num_parallel_workers=4),
                 lambda: ds.GeneratorDataset(gen, ["x"]).map(lambda x: x * 2,
                                                             num_parallel_workers=4),
                 lambda: _images(4).batch(2, num_parallel_workers=3).repeat()):
        it = make().create_tuple_iterator(output_numpy=True)
        next(it)
        time.sleep(0.02)  # the workers fill the queues and block
        del it
        gc.collect()
    assert _ints(_slices({"x": np.arange(5)}).map(lambda x: x + 1, num_parallel_workers=4)) == \
        [1, 2, 3, 4, 5]


def test_interpreter_exit_with_blocked_pipelines_is_clean():
    code = textwrap.dedent("""
        import time
        import numpy as np
        import mycel.dataset as ds
        from mycel.dataset import config
        config.set_prefetch_size(1)
        def gen():
            for i in range(100000):
                yield (np.array(i),)
        a = ds.GeneratorDataset(gen, ["x"]).map(lambda x: x + 1, num_parallel_workers=4)
        b = ds.NumpySlicesDataset({"x": np.arange(1000)}, num_parallel_workers=4).batch(2)
        keep = [a.create_tuple_iterator(), b.create_tuple_iterator(output_numpy=True)]
        cycle = {"it": a.create_tuple_iterator()}
        cycle["self"] = cycle
        for it in keep + [cycle["it"]]:
            next(it)
        time.sleep(0.1)
        print("left with blocked threads", flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "python"))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 0, res.stderr
    assert "left with blocked threads" in res.stdout


# ----- 4. ops against Python oracles -----

def test_skip_take_filter_against_list_slicing():
    d = _slices({"x": np.arange(20)})
    assert _ints(d.skip(5)) == list(range(5, 20))
    assert _ints(d.skip(25)) == [] and d.skip(25).get_dataset_size() == 0
    assert _ints(d.take(7)) == list(range(7)) and d.take(7).get_dataset_size() == 7
    assert _ints(d.take(-1)) == list(range(20)) and d.take(50).get_dataset_size() == 20
    assert _ints(d.skip(3).take(4)) == [3, 4, 5, 6]
    assert _ints(d.take(4).skip(3)) == [3]
    kept = d.filter(lambda x: x % 3 == 1, num_parallel_workers=4)
    assert _ints(kept) == [i for i in range(20) if i % 3 == 1]
    assert kept.get_dataset_size() == 7  # counted by running the pipeline
    assert _ints(kept.skip(2).take(3)) == [7, 10, 13]
    both = _slices({"x": np.arange(10), "y": np.arange(10, 20)})
    assert _ints(both.filter(lambda x, y: (x + y) % 4 == 0), col=1) == \
        [y for y in range(10, 20) if (y - 10 + y) % 4 == 0]


def test_take_ends_its_epoch_without_processing_the_rest():
    seen = []

    def count(x):
        seen.append(int(x))
        return x

    d = _slices({"x": np.arange(20000)}).map(count).take(3)
    it = d.create_tuple_iterator(output_numpy=True)
    assert [int(r[0]) for r in it] == [0, 1, 2]  # the epoch ends after the third row
    it.stop()
    # Only what the bounded queues held was mapped, not the other 19,997 rows.
    assert len(seen) < 1000
    # A second epoch drops the rest of the child's first pass, then starts its next one.
    seen.clear()
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [[int(r[0]) for r in it] for _ in range(2)] == [[0, 1, 2], [0, 1, 2]]
    assert len(seen) >= 20000


def test_zip_ends_with_the_shortest_and_refuses_column_clashes():
    a = _slices({"a": np.arange(5)})
    b = _slices({"b": np.arange(100, 108)})
    for z in (a.zip(b), ds.zip((a, b))):
        assert z.get_col_names() == ["a", "b"] and z.get_dataset_size() == 5
        for epoch in _epochs(z, 2):  # the longer one's extra rows don't leak into epoch 2
            assert [(int(x), int(y)) for x, y in epoch] == [(i, 100 + i) for i in range(5)]
    assert [(int(y), int(x)) for y, x in _rows(b.zip(a))] == [(100 + i, i) for i in range(5)]
    with pytest.raises(ValueError, match="zip: the datasets have columns in common"):
        a.zip(a)
    with pytest.raises(TypeError, match="zip: expected datasets, but got int"):
        a.zip(3)


def test_concat_and_plus():
    a, b = _slices({"x": np.arange(3)}), _slices({"x": np.arange(10, 14)})
    for c in (a.concat(b), a + b, a.concat([b, a])):
        assert c.get_dataset_size() == len(_ints(c))
    assert _ints(a + b) == [0, 1, 2, 10, 11, 12, 13]
    assert [r[0].tolist() for r in _rows((a + b).batch(3))] == [[0, 1, 2], [10, 11, 12], [13]]
    mixed = a + _slices({"y": np.arange(3)})  # sized as MindSpore's; reading it fails
    assert mixed.get_dataset_size() == 6
    with pytest.raises(RuntimeError, match="concat: the column names or column order"):
        _ints(mixed)


def test_split_partitions_the_rows():
    d = _slices({"x": np.arange(10)})
    first, second = d.split([3, 7], randomize=False)
    assert _ints(first) == [0, 1, 2] and _ints(second) == list(range(3, 10))
    first, second = d.map(lambda x: x * 2).split([0.4, 0.6], randomize=False)
    assert _ints(first) == [0, 2, 4, 6] and _ints(second) == [8, 10, 12, 14, 16, 18]
    config.set_seed(SEED)
    parts = d.split([0.33, 0.33, 0.34])
    sizes = [p.get_dataset_size() for p in parts]
    assert sizes == [4, 3, 3]  # rounded (3, 3, 3), the remainder to the first
    rows = [_ints(p) for p in parts]
    assert sorted(sum(rows, [])) == list(range(10)) and [len(r) for r in rows] == sizes
    assert sum(rows, []) != list(range(10))  # randomized
    config.set_seed(SEED)
    assert [_ints(p) for p in d.split([0.33, 0.33, 0.34])] == rows  # same seed, same split


@pytest.mark.parametrize("sizes, randomize, error, match", [  # MindSpore's messages
    ([3, 3], True, RuntimeError, "Sum of split sizes 6 is not equal to dataset size 10"),
    ([0, 10], False, ValueError, "no negative or zero numbers"),
    ([0.5, 0.6], True, ValueError, r"percentages do not sum up to 1"),
    ([1.5, -0.5], True, ValueError, r"no numbers outside the range \(0, 1\]"),
    ([0.01, 0.99], True, RuntimeError, "Split percentage 0.01 is too small"),
    ([0.15] * 5 + [0.25], True, RuntimeError,
     "Sum of calculated split sizes 12 is not equal to dataset size 10"),
    ([1, 0.5], True, ValueError, "sizes should be list of int or list of float"),
    ([], True, ValueError, "sizes cannot be empty"),
    (5, True, TypeError, "sizes must be a list"),
    ([5, 5], 1, TypeError, "split: randomize must be a bool"),
])
def test_split_errors(sizes, randomize, error, match):
    with pytest.raises(error, match=match):
        _slices({"x": np.arange(10)}).split(sizes, randomize=randomize)


def test_split_randomize_of_a_batched_dataset_partitions_its_batches():
    parts = _slices({"x": np.arange(10)}).batch(2).split([3, 2])
    got = [[r[0].tolist() for r in p.create_tuple_iterator(output_numpy=True, num_epochs=1)]
           for p in parts]
    assert [len(g) for g in got] == [3, 2]
    assert sorted(got[0] + got[1]) == [[2 * i, 2 * i + 1] for i in range(5)]


def _ragged():
    """Rows s = [0, 1, .., k] (k = 0..4) and n = k + 1."""
    return ds.GeneratorDataset(lambda: ((np.arange(k + 1), np.array(k + 1)) for k in range(5)),
                               ["s", "n"])


def _padded(rows, width, value):
    return np.array([list(r) + [value] * (width - len(r)) for r in rows])


def test_padded_batch_against_numpy_padding():
    seqs = [list(range(k + 1)) for k in range(5)]
    cases = [
        ({"s": ([None], -1)}, [_padded(seqs[0:2], 2, -1), _padded(seqs[2:4], 4, -1),
                               _padded(seqs[4:], 5, -1)]),
        ({"s": ([6], 9)}, [_padded(seqs[i:i + 2], 6, 9) for i in (0, 2, 4)]),
        ({"s": (None, 7)}, [_padded(seqs[0:2], 2, 7), _padded(seqs[2:4], 4, 7),
                            _padded(seqs[4:], 5, 7)]),
        (None, [_padded(seqs[0:2], 2, 0), _padded(seqs[2:4], 4, 0), _padded(seqs[4:], 5, 0)]),
    ]
    for pad_info, want in cases:
        got = _rows(_ragged().padded_batch(2, pad_info=pad_info))
        assert len(got) == 3
        for (s, n), w in zip(got, want):
            np.testing.assert_array_equal(s, w)
        assert [r[1].tolist() for r in got] == [[1, 2], [3, 4], [5]]
    assert len(_rows(_ragged().padded_batch(2, drop_remainder=True,
                                            pad_info={"s": (None, 0)}))) == 2
    # a pad shape below a row's size truncates the row (MindSpore's test_batch_padding_02)
    got = _rows(_ragged().padded_batch(2, pad_info={"s": ([3], -1)}))
    want = [[[0, -1, -1], [0, 1, -1]], [[0, 1, 2], [0, 1, 2]], [[0, 1, 2]]]
    assert [g[0].tolist() for g in got] == want
    words = ds.GeneratorDataset(lambda: (np.array(["a", "b", "c"][:k + 1]) for k in range(3)),
                                ["w"])
    got = _rows(words.padded_batch(3, pad_info={"w": ([2], "-")}))
    assert got[0][0].tolist() == [["a", "-"], ["a", "b"], ["a", "b"]]
    with pytest.raises(RuntimeError, match=r"batch: Cannot batch tensors with different shapes: "
                                           r"column 's' has rows of different shapes \[1\] "
                                           r"and \[2\]"):
        _rows(_ragged().batch(2))


def test_padded_batch_of_strings():
    words = [["a"], ["bb", "c"], ["ddd", "e", "ff"]]
    d = ds.GeneratorDataset(lambda: (np.array(w) for w in words), ["t"])
    got = [r[0].tolist() for r in _rows(d.padded_batch(2, pad_info={"t": (None, "<pad>")}))]
    assert got == [[["a", "<pad>"], ["bb", "c"]], [["ddd", "e", "ff"]]]
    got = [r[0].tolist() for r in _rows(d.padded_batch(3, pad_info={"t": ([4], "")}))]
    assert got == [[["a", "", "", ""], ["bb", "c", "", ""], ["ddd", "e", "ff", ""]]]


def test_per_batch_map_batch_info_and_columns():
    d = _slices({"x": np.arange(7), "y": np.arange(100, 107)})

    def shift(x, y, info):
        return ([v * 10 + info.get_batch_num() for v in x],
                [v + 1000 * info.get_epoch_num() for v in y])

    epochs = _epochs(d.batch(3, per_batch_map=shift, input_columns=["x", "y"],
                             num_parallel_workers=3), 2)
    for e, epoch in enumerate(epochs):
        for b, (x, y) in enumerate(epoch):
            rows = list(range(3 * b, min(3 * b + 3, 7)))
            assert x.tolist() == [10 * i + b for i in rows]
            assert y.tolist() == [100 + i + 1000 * e for i in rows]

    def split_x(x, info):  # one column in, two out: they come first, then the others
        return [v % 2 for v in x], [v // 2 for v in x]

    b = d.batch(4, per_batch_map=split_x, input_columns=["x"], output_columns=["odd", "half"])
    assert b.get_col_names() == ["odd", "half", "y"]
    rows = _rows(b)
    assert [len(r) for r in rows] == [3, 3]
    np.testing.assert_array_equal(np.concatenate([r[0] for r in rows]), np.arange(7) % 2)
    np.testing.assert_array_equal(np.concatenate([r[1] for r in rows]), np.arange(7) // 2)
    np.testing.assert_array_equal(np.concatenate([r[2] for r in rows]), np.arange(100, 107))

    def ragged_to_sum(x, info):  # rows of different shapes before stacking
        return ([np.array(v.sum()) for v in x],)

    r = _rows(_ragged().batch(2, per_batch_map=ragged_to_sum, input_columns=["s"]))
    assert [x.tolist() for x, _ in r] == [[0, 1], [3, 6], [10]]


def test_repeat_reshuffles_and_redraws_each_repetition():
    config.set_seed(SEED)
    d = _slices({"x": np.arange(12)}, shuffle=True).repeat(3)
    assert d.get_dataset_size() == 36
    got = _ints(d)
    reps = [got[i:i + 12] for i in (0, 12, 24)]
    assert all(sorted(r) == list(range(12)) for r in reps)
    assert reps[0] != reps[1] and reps[1] != reps[2]
    # a random map above the repeat draws anew for each repetition
    crops = [r[0] for r in _rows(_images(shuffle=False).repeat(2).map(vision.RandomCrop(4)))]
    n = len(IMAGES)
    assert all(_is_window(c, IMAGES[i % n]) for i, c in enumerate(crops))
    assert sum(np.array_equal(crops[i], crops[i + n]) for i in range(n)) < n // 4
    buffered = _slices({"x": np.arange(12)}).shuffle(12).repeat(2)
    got = _ints(buffered)
    assert sorted(got[:12]) == sorted(got[12:]) == list(range(12)) and got[:12] != got[12:]
    assert _slices({"x": np.arange(3)}).repeat().get_dataset_size() == -1


def test_project_and_rename():
    d = _slices({"a": np.arange(4), "b": np.arange(10, 14), "c": np.arange(20, 24)})
    p = d.project(["c", "a"])
    assert p.get_col_names() == ["c", "a"]
    assert [(int(c), int(a)) for c, a in _rows(p)] == [(20 + i, i) for i in range(4)]
    r = d.rename(["a", "c"], ["x", "z"])
    assert r.get_col_names() == ["x", "b", "z"]
    assert [r["z"].tolist() for r in r.create_dict_iterator(output_numpy=True)] == \
        [20, 21, 22, 23]
    with pytest.raises(ValueError, match="rename: the new columns .* have duplicate names"):
        d.rename("a", "b")


def test_dataset_sizes_match_the_rows_produced():
    d = _slices({"x": np.arange(10)})
    cases = [d, d.skip(3), d.take(4), d.filter(lambda x: x > 6), d + d.take(2),
             d.zip(_slices({"y": np.arange(6)})), d.batch(3), d.batch(3, drop_remainder=True),
             d.repeat(2).batch(4), d.shuffle(4), d.project("x"), d.rename("x", "z"),
             d.map(lambda x: x), d.repeat().take(13)]
    for c in cases:
        assert c.get_dataset_size() == len(_rows(c))
    assert d.batch(3).get_batch_size() == 3 and d.get_batch_size() == 1


def test_output_shapes_types_and_dict_iterator():
    d = _images(shuffle=False).map(vision.CenterCrop(4), "image").batch(5)
    assert d.output_shapes() == [[5, 4, 4, 3], [5]]
    assert d.output_types() == [np.uint8, np.int64]
    rows = list(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [list(r) for r in rows] == [["image", "label"]] * 10
    np.testing.assert_array_equal(rows[1]["image"], IMAGES[5:10, 4:8, 3:7])
    tensors = next(d.create_dict_iterator())
    assert isinstance(tensors["image"], mycel.Tensor)
    np.testing.assert_array_equal(tensors["label"].asnumpy(), np.arange(5))


def test_source_views_are_read_only_and_copies_are_not():
    d = _slices({"x": np.arange(12).reshape(6, 2)})
    view = _rows(d)[2][0]
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5

    def scribble(x):
        x[0] = -1
        return x

    with pytest.raises(ValueError, match=r"map operation: \[PyFunc\] failed\. .*scribble.*read-only"):
        _rows(d.map(scribble))
    batch = _rows(d.batch(2))[0][0]
    assert batch.flags.writeable  # a new array: writing can't reach the source
    batch[0, 0] = 99
    assert _rows(d)[0][0].tolist() == [0, 1]
    for do_copy in (True, False):
        rows = list(d.batch(3).create_tuple_iterator(do_copy=do_copy))
        assert all(isinstance(r[0], mycel.Tensor) for r in rows)
        np.testing.assert_array_equal(np.concatenate([r[0].asnumpy() for r in rows]),
                                      np.arange(12).reshape(6, 2))
        shared = [r[0].asnumpy() for r in d.create_tuple_iterator(do_copy=do_copy)]
        np.testing.assert_array_equal(np.stack(shared), np.arange(12).reshape(6, 2))


def test_prefetch_and_worker_config():
    assert config.get_prefetch_size() == 16
    config.set_prefetch_size(1)
    config.set_num_parallel_workers(3)
    assert config.get_prefetch_size() == 1 and config.get_num_parallel_workers() == 3
    d = _slices({"x": np.arange(50)}).map(lambda x: x * 2)
    assert d._workers() == 3 and d.map(lambda x: x, num_parallel_workers=2)._workers() == 2
    assert _ints(d.batch(7).map(lambda x: x.sum())) == \
        [sum(2 * i for i in range(k, min(k + 7, 50))) for k in range(0, 50, 7)]
    for setter, name in ((config.set_prefetch_size, "size"),
                         (config.set_num_parallel_workers, "num")):
        with pytest.raises(ValueError, match=f"{setter.__name__}: {name} must be in"):
            setter(0)
        with pytest.raises(TypeError, match=f"{setter.__name__}: {name} must be an int"):
            setter(2.0)
    with pytest.raises(ValueError, match="MapDataset: num_parallel_workers exceeds the boundary"):
        d.map(lambda x: x, num_parallel_workers=0)


def test_strings_through_the_pipeline(tmp_path):
    lines = ["the quick", "brown fox", "", "jumps over", "the lazy dog"]
    (tmp_path / "a.txt").write_text("\n".join(lines[:3]) + "\n")
    (tmp_path / "b.txt").write_text("\r\n".join(lines[3:]))
    # one reader: the files in order (several interleave them, as MindSpore's readers)
    d = ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=False, num_parallel_workers=1)
    want = [s for s in lines if s]
    assert [str(r[0]) for r in _rows(d)] == want
    upper = d.map(lambda t: np.array(str(t).upper()), num_parallel_workers=4)
    assert [r["text"].tolist() for r in upper.create_dict_iterator(output_numpy=True)] == \
        [s.upper() for s in want]
    batches = [r[0].tolist() for r in _rows(d.batch(3))]
    assert batches == [want[:3], want[3:]]
    lengths = d.map(lambda t: np.array(len(str(t)), np.int32), output_columns=["n"])
    assert _ints(lengths) == [len(s) for s in want]
    names = _slices({"name": np.array(["ab", "c", "def"]), "id": np.arange(3)})
    assert [(str(n), int(i)) for n, i in _rows(names.filter(lambda n, i: len(str(n)) > 1))] == \
        [("ab", 0), ("def", 2)]
    # Tensors hold numbers only: a string column comes out as a numpy array of str anyway.
    name, i = next(names.create_tuple_iterator())
    assert isinstance(name, np.ndarray) and name.dtype.kind == "U" and str(name) == "ab"
    assert isinstance(i, mycel.Tensor) and int(i) == 0


# ----- 5. samplers -----

def _ids(sampler=None, n=10, **kw):
    return _ints(_slices({"i": np.arange(n)}, sampler=sampler, **kw))


def test_sequential_and_random_samplers():
    assert _ids(ds.SequentialSampler()) == list(range(10))
    assert _ids(ds.SequentialSampler(2, 5)) == [2, 3, 4, 5, 6]
    assert _ids(ds.SequentialSampler(start_index=8, num_samples=5)) == [8, 9]
    config.set_seed(SEED)
    perm = _ids(ds.RandomSampler())
    assert sorted(perm) == list(range(10)) and perm != list(range(10))
    capped = _ids(ds.RandomSampler(num_samples=4))
    assert len(capped) == len(set(capped)) == 4
    # with replacement: n independent uniform draws (num_samples caps at n, as MindSpore)
    drawn = _ids(ds.RandomSampler(replacement=True), n=400)
    assert len(drawn) == 400 and set(drawn) <= set(range(400))
    assert 230 < len(set(drawn)) < 275  # distinct rows: 400 (1 - 1/e) ~ 252.9, sd ~ 5.8
    assert len(_ids(ds.RandomSampler(replacement=True, num_samples=200))) == 10


def test_distributed_sampler_shards():
    config.set_seed(SEED)
    whole = _ids(ds.DistributedSampler(1, 0))  # one shard: the epoch's permutation
    assert sorted(whole) == list(range(10))
    for kwargs in ({"sampler": True}, {"num_shards": 3}):  # the sampler or the arguments
        config.set_seed(SEED)
        shards = [_ids(ds.DistributedSampler(3, s)) if "sampler" in kwargs else
                  _ids(num_shards=3, shard_id=s) for s in range(3)]
        # ceil(10 / 3) rows each: shard s takes rows s, s + 3, ... of the same permutation,
        # wrapping around to pad the last ones
        assert shards == [[whole[(s + 3 * k) % 10] for k in range(4)] for s in range(3)]
        assert set(sum(shards, [])) == set(range(10))
    assert [_ids(ds.DistributedSampler(3, s, shuffle=False)) for s in range(3)] == \
        [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    # offset: shard `offset` starts the round-robin
    assert [_ids(ds.DistributedSampler(3, s, shuffle=False, offset=1)) for s in range(3)] == \
        [[2, 5, 8, 1], [0, 3, 6, 9], [1, 4, 7, 0]]
    assert _ids(ds.DistributedSampler(2, 1, shuffle=False, num_samples=3)) == [1, 3, 5]
    assert _slices({"i": np.arange(10)}, num_shards=4, shard_id=0).get_dataset_size() == 3


def test_subset_samplers():
    assert _ids(ds.SubsetSampler([5, 1, 1, 7])) == [5, 1, 1, 7]
    assert _ids([9, 0, 4]) == [9, 0, 4]  # a list of indices as the sampler
    assert _ids(ds.SubsetSampler([5, 1, 7], num_samples=2)) == [5, 1]
    config.set_seed(SEED)
    it = _slices({"i": np.arange(10)}, sampler=ds.SubsetRandomSampler([5, 1, 7, 2, 8, 3])) \
        .create_tuple_iterator(num_epochs=2, output_numpy=True)
    epochs = [[int(r[0]) for r in it] for _ in range(2)]
    assert all(sorted(e) == [1, 2, 3, 5, 7, 8] for e in epochs) and epochs[0] != epochs[1]


def test_weighted_sampler_with_replacement_follows_the_weights():
    weights = np.array([1.0, 2.0, 0.0, 3.0, 4.0, 0.5])
    draws = 30_000
    config.set_seed(SEED)
    d = _slices({"i": np.arange(6)}, sampler=ds.WeightedRandomSampler(weights, draws))
    got = np.concatenate([b[0] for b in _rows(d.batch(3000))])
    assert len(got) == draws
    counts = np.bincount(got, minlength=6)
    p = weights / weights.sum()
    sigma = np.sqrt(draws * p * (1 - p))
    assert counts[2] == 0  # zero weight: never drawn
    assert np.all(np.abs(counts - draws * p) <= 5 * sigma + 1e-9), (counts, draws * p)


def test_weighted_sampler_without_replacement():
    weights = [0.0, 1.0, 5.0, 0.0, 2.0, 2.0, 0.0, 1.0]
    config.set_seed(SEED)
    it = _slices({"i": np.arange(8)}, sampler=ds.WeightedRandomSampler(
        weights, 4, replacement=False)).create_tuple_iterator(num_epochs=30, output_numpy=True)
    firsts = []
    for _ in range(30):
        e = [int(r[0]) for r in it]
        assert len(e) == len(set(e)) == 4 and not set(e) & {0, 3, 6}
        firsts.append(e[0])
    assert firsts.count(2) > firsts.count(1)  # heavy rows tend to come first
    # the first pick of each epoch follows the weights: the C++ sampler over many epochs
    c = ds.WeightedRandomSampler(weights, 1, replacement=False)._c_sampler()
    picks = np.bincount([c.order(8, SEED, 0, e)[0] for e in range(4000)], minlength=8)
    p = np.array(weights) / sum(weights)
    assert np.all(np.abs(picks - 4000 * p) <= 5 * np.sqrt(4000 * p * (1 - p)) + 1e-9), picks


@pytest.mark.parametrize("make, error, match", [
    (lambda: ds.WeightedRandomSampler([1, -1]), ValueError, "WeightedRandomSampler: weights "
                                                            "must be non-negative"),
    (lambda: ds.WeightedRandomSampler([0, 0]), ValueError, "weights are all zero"),
    (lambda: ds.WeightedRandomSampler([1, float("nan")]), ValueError, "non-negative numbers"),
    (lambda: ds.WeightedRandomSampler([1, 0, 0], 2, replacement=False), ValueError,
     r"num_samples \(2\) exceeds the rows with positive weight \(1\)"),
    (lambda: ds.WeightedRandomSampler("ab"), TypeError, "weights must be a list of numbers"),
    (lambda: _ids(ds.WeightedRandomSampler([1.0] * 12)), IndexError,
     "12 weights for a source of 10 rows"),
    (lambda: ds.DistributedSampler(2, 2), ValueError,
     r"DistributedSampler: shard_id must be in \[0, 1\], but got 2"),
    (lambda: ds.DistributedSampler(0, 0), ValueError, "num_shards must be in"),
    (lambda: _ids(num_shards=2, shard_id=2), ValueError,
     r"NumpySlicesDataset: shard_id must be in \[0, 1\]"),
    (lambda: _ids(num_shards=2), RuntimeError,
     "num_shards is specified and currently requires shard_id as well"),
    (lambda: _ids(ds.RandomSampler(), shuffle=True), RuntimeError,
     "sampler and shuffle cannot be specified at the same time"),
    (lambda: _ids(ds.SubsetSampler([3, 10])), IndexError,
     "SubsetSampler: sampler index 10 is out of range for 10 rows"),
    (lambda: _ids(ds.SubsetRandomSampler([-1, 2])), IndexError,
     "SubsetRandomSampler: sampler index -1 is out of range"),
    (lambda: ds.SubsetSampler([1.5]), TypeError,
     r"SubsetSampler: Type of indices element must be int, but got list\[0\]: 1.5"),
    (lambda: ds.SubsetSampler(np.array([[1], [5]])), TypeError,
     r"SubsetSampler: Type of indices element must be int, but got list\[0\]: \[1\]"),
    (lambda: ds.SequentialSampler(-1), ValueError, "SequentialSampler: start_index must be in"),
    (lambda: ds.RandomSampler(num_samples=-1), ValueError,
     "RandomSampler: num_samples exceeds the boundary between 0 and"),
    (lambda: ds.RandomSampler(replacement=1), TypeError, "replacement must be a bool"),
])
def test_sampler_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
