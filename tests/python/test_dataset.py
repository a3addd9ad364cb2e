"""mycel.dataset against numpy oracles: the idx readers (real Fashion-MNIST and small files
written here), samplers and shards, shuffle, batch, map (vectorised and per sample), repeat,
project/rename, iterators, GeneratorDataset sources, transforms, and every error path."""
import gzip
import itertools
import os
import struct

import numpy as np
import pytest

import mycel
import mycel.dataset as ds
from mycel.dataset import config, transforms, vision
from mycel.dataset.engine import BatchDataset, MapDataset, _plan

FASHION = "/usr/share/datasets/fashion-mnist"


@pytest.fixture(autouse=True)
def _restore_seeds():
    """Each test starts and ends with no dataset seed and mycel's global seed unchanged."""
    old = mycel.get_seed()
    config._seed = None
    yield
    config._seed = None
    mycel.set_seed(old)


def _oracle_idx(path, header):
    """An idx file's payload read directly with gzip/numpy (the oracle)."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8)[header:]


def _write_idx(directory, prefix, images, labels, gz):
    """Write MNIST-style idx files for images [n, h, w] uint8 and labels [n]."""
    opener = gzip.open if gz else open
    suffix = ".gz" if gz else ""
    n, h, w = images.shape
    with opener(os.path.join(directory, f"{prefix}-images-idx3-ubyte{suffix}"), "wb") as f:
        f.write(struct.pack(">4I", 2051, n, h, w) + images.astype(np.uint8).tobytes())
    with opener(os.path.join(directory, f"{prefix}-labels-idx1-ubyte{suffix}"), "wb") as f:
        f.write(struct.pack(">2I", 2049, n) + labels.astype(np.uint8).tobytes())


def _rows(dataset, **kw):
    """All rows of one epoch as lists of numpy arrays."""
    return list(dataset.create_tuple_iterator(output_numpy=True, **kw))


def _mnist_files(tmp_path, n_train=7, n_test=5, gz=False, h=4, w=3):
    rng = np.random.default_rng(0)
    data = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, (n, h, w), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        _write_idx(str(tmp_path), prefix, images, labels, gz)
        data[prefix] = (images, labels)
    return data


# ----- MNIST / Fashion-MNIST -----

def test_fashion_mnist_test_split_matches_a_direct_read():
    images = _oracle_idx(f"{FASHION}/t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1)
    labels = _oracle_idx(f"{FASHION}/t10k-labels-idx1-ubyte.gz", 8)
    data = ds.FashionMnistDataset(FASHION, usage="test", shuffle=False)
    assert data.get_dataset_size() == 10000 and data.get_col_names() == ["image", "label"]
    assert data.output_shapes() == [[28, 28, 1], []]
    assert data.output_types() == [np.uint8, np.uint32]
    got = _rows(data.batch(10000))
    np.testing.assert_array_equal(got[0][0], images)
    np.testing.assert_array_equal(got[0][1], labels.astype(np.uint32))
    rows = _rows(data.project("label"))  # the row-by-row path gives the same order
    np.testing.assert_array_equal([r[0] for r in rows], labels)


def test_fashion_mnist_usages_and_sizes():
    train_labels = _oracle_idx(f"{FASHION}/train-labels-idx1-ubyte.gz", 8)
    test_labels = _oracle_idx(f"{FASHION}/t10k-labels-idx1-ubyte.gz", 8)
    assert ds.FashionMnistDataset(FASHION, usage="train").get_dataset_size() == 60000
    every = ds.MnistDataset(FASHION, shuffle=False)  # usage=None is 'all': train, then test
    assert every.get_dataset_size() == 70000
    labels = _rows(every.project("label").batch(70000))[0][0]
    np.testing.assert_array_equal(labels, np.concatenate([train_labels, test_labels]))


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_small_files_plain_and_gzipped(tmp_path, gz):
    data = _mnist_files(tmp_path, gz=gz)
    for usage, parts in (("train", ["train"]), ("test", ["t10k"]), ("all", ["train", "t10k"])):
        d = ds.MnistDataset(str(tmp_path), usage=usage, shuffle=False)
        rows = _rows(d)
        images = np.concatenate([data[p][0] for p in parts])[..., None]
        labels = np.concatenate([data[p][1] for p in parts])
        assert len(rows) == len(labels) == d.get_dataset_size()
        for (im, lb), want_im, want_lb in zip(rows, images, labels):
            assert im.dtype == np.uint8 and im.shape == (4, 3, 1)
            assert lb.dtype == np.uint32 and lb.shape == ()
            np.testing.assert_array_equal(im, want_im)
            assert lb == want_lb


def test_mnist_all_reads_the_splits_present(tmp_path):
    # MindSpore's layout: MNIST_Data/train holds only the train files.
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (6, 4, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, 6, dtype=np.uint8)
    _write_idx(str(tmp_path), "train", images, labels, False)
    rows = _rows(ds.MnistDataset(str(tmp_path), shuffle=False))
    assert len(rows) == 6
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), images[..., None])
    with pytest.raises(RuntimeError, match="t10k-images-idx3-ubyte"):
        ds.MnistDataset(str(tmp_path), usage="test")


def test_mnist_rows_are_read_only(tmp_path):
    _mnist_files(tmp_path)
    d = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)

    def scribble(image):
        image[0, 0, 0] = 1
        return image

    with pytest.raises(ValueError, match="scribble.*read-only"):
        _rows(d.map(scribble, "image"))


def test_mnist_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ds.MnistDataset(str(tmp_path / "nowhere"))
    with pytest.raises(TypeError, match="dataset_dir"):
        ds.MnistDataset(3)
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte"):
        ds.MnistDataset(str(tmp_path), usage="train")
    _mnist_files(tmp_path)
    with pytest.raises(ValueError, match="usage.*'valid'"):
        ds.MnistDataset(str(tmp_path), usage="valid")
    path = tmp_path / "train-images-idx3-ubyte"
    good = path.read_bytes()

    path.write_bytes(good[:-5])  # truncated payload
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte.*truncated"):
        ds.MnistDataset(str(tmp_path), usage="train").get_dataset_size()
    path.write_bytes(good[:10])  # truncated header
    with pytest.raises(RuntimeError, match="truncated.*header"):
        _rows(ds.MnistDataset(str(tmp_path), usage="train"))
    path.write_bytes(struct.pack(">I", 2049) + good[4:])  # a label magic in an image file
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte has magic number 0x00000801"):
        _rows(ds.MnistDataset(str(tmp_path), usage="train"))
    path.write_bytes(good)
    labels = tmp_path / "train-labels-idx1-ubyte"
    labels.write_bytes(struct.pack(">2I", 2049, 6) + bytes(6))  # 6 labels for 7 images
    with pytest.raises(RuntimeError, match="7 images but .* 6 labels"):
        _rows(ds.MnistDataset(str(tmp_path), usage="train"))


def test_mnist_corrupt_gzip(tmp_path):
    _mnist_files(tmp_path, gz=True)
    path = tmp_path / "t10k-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(RuntimeError, match="cannot read .*t10k-images-idx3-ubyte.gz"):
        _rows(ds.MnistDataset(str(tmp_path), usage="test"))


# ----- seeds, shuffles, samplers, shards -----

def _order(dataset, **kw):
    return [int(r[0]) for r in _rows(dataset, **kw)]


def test_seeded_shuffle_is_reproducible_and_reshuffles_each_epoch():
    data = np.arange(200)
    config.set_seed(7)
    assert config.get_seed() == 7
    first = ds.NumpySlicesDataset(data)  # shuffle=None: random order for random access
    assert first.output_shapes() == [[]] and first.output_types() == [np.int64]  # no pass used
    it = first.create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1, e2 = [int(r[0]) for r in it], [int(r[0]) for r in it]
    e3 = _order(first)  # a new iterator on a seeded dataset repeats the run (MindSpore's rule)
    assert sorted(e1) == sorted(e2) == list(range(200))
    assert e1 != list(range(200)) and e1 != e2 and e3 == e1
    again = ds.NumpySlicesDataset(data)  # same seed, a fresh dataset: the same sequence
    it = again.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == e1 and [int(r[0]) for r in it] == e2
    config.set_seed(8)
    assert _order(ds.NumpySlicesDataset(data)) != e1


def test_global_seed_drives_the_shuffle_and_default_is_nondeterministic():
    data = np.arange(500)
    mycel.set_seed(5489)  # the default: counts as unset, as in MindSpore
    assert _order(ds.NumpySlicesDataset(data)) != _order(ds.NumpySlicesDataset(data))
    mycel.set_seed(11)
    assert config.get_seed() == 11
    assert _order(ds.NumpySlicesDataset(data)) == _order(ds.NumpySlicesDataset(data))


def test_shuffle_false_and_sampler_indices():
    data = np.arange(10) * 3
    assert _order(ds.NumpySlicesDataset(data, shuffle=False)) == list(data)
    assert _order(ds.NumpySlicesDataset(data, sampler=[4, 1, 1, 9])) == [12, 3, 3, 27]
    d = ds.NumpySlicesDataset(data, shuffle=False, num_samples=4)
    assert _order(d) == [0, 3, 6, 9] and d.get_dataset_size() == 4
    with pytest.raises(IndexError, match="sampler index 10"):
        _rows(ds.NumpySlicesDataset(data, sampler=[1, 10]))
    with pytest.raises(RuntimeError, match="sampler and shuffle cannot be specified"):
        ds.NumpySlicesDataset(data, sampler=[1], shuffle=True)
    with pytest.raises(TypeError, match="sampler must be a sequence"):
        ds.NumpySlicesDataset(data, sampler="abc")


def test_shards_partition_the_shuffled_data():
    config.set_seed(3)
    data = np.arange(90)
    shards = [_order(ds.NumpySlicesDataset(data, num_shards=3, shard_id=k)) for k in range(3)]
    assert [len(s) for s in shards] == [30, 30, 30]
    assert sorted(itertools.chain(*shards)) == list(range(90))
    assert shards[0] != list(range(0, 90, 3))  # shuffled before sharding
    # with a map on top the sources draw the same order: shards stay aligned
    mapped = _order(ds.NumpySlicesDataset(data, num_shards=3, shard_id=0).map(lambda x: x))
    assert mapped == shards[0]


def test_uneven_shards_wrap_around_as_distributed_sampler():
    data = np.arange(10)
    for k in range(3):
        d = ds.NumpySlicesDataset(data, shuffle=False, num_shards=3, shard_id=k)
        assert d.get_dataset_size() == 4
        assert _order(d) == [(k + 3 * j) % 10 for j in range(4)]


def test_shard_argument_errors():
    with pytest.raises(RuntimeError, match="num_shards is specified and currently requires"):
        ds.NumpySlicesDataset(np.arange(4), num_shards=2)
    with pytest.raises(RuntimeError, match="shard_id is specified but num_shards is not"):
        ds.NumpySlicesDataset(np.arange(4), shard_id=0)
    with pytest.raises(ValueError, match="Input shard_id is not within the required interval"):
        ds.NumpySlicesDataset(np.arange(4), num_shards=2, shard_id=-1)
    with pytest.raises(ValueError, match=r"shard_id must be in \[0, 1\], but got 2"):
        ds.NumpySlicesDataset(np.arange(4), num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="num_shards"):
        ds.NumpySlicesDataset(np.arange(4), num_shards=0, shard_id=0)
    with pytest.raises(TypeError, match="shuffle must be a bool"):
        ds.NumpySlicesDataset(np.arange(4), shuffle=1)
    with pytest.raises(ValueError, match="num_samples"):
        ds.NumpySlicesDataset(np.arange(4), num_samples=-1)  # 0 means all rows, as in MindSpore


def test_buffer_shuffle():
    config.set_seed(5)
    base = ds.NumpySlicesDataset(np.arange(100), shuffle=False)
    it = base.shuffle(4).create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1, e2 = [int(r[0]) for r in it], [int(r[0]) for r in it]
    assert sorted(e1) == sorted(e2) == list(range(100)) and e1 != e2
    assert all(v < i + 4 for i, v in enumerate(e1))  # a buffer of 4 holds back, never ahead
    assert _order(ds.NumpySlicesDataset(np.arange(100), shuffle=False).shuffle(4)) == e1
    full = _order(base.shuffle(1000))
    assert sorted(full) == list(range(100)) and full != list(range(100))
    with pytest.raises(ValueError, match="buffer_size must be in"):
        base.shuffle(1)
    with pytest.raises(TypeError, match="buffer_size"):
        base.shuffle(2.0)


def test_config_errors():
    with pytest.raises(ValueError, match="seed"):
        config.set_seed(-1)
    with pytest.raises(TypeError, match="seed isn.t of type int"):
        config.set_seed("1")


# ----- batch, repeat, project, rename -----

def test_batch_sizes_and_content():
    x = np.arange(23 * 2, dtype=np.float32).reshape(23, 2)
    y = np.arange(23, dtype=np.int32)
    base = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False)
    for drop, n_batches, last in ((False, 5, 3), (True, 4, 5)):
        b = base.batch(5, drop_remainder=drop)
        rows = _rows(b)
        assert b.get_dataset_size() == len(rows) == n_batches and b.get_batch_size() == 5
        assert rows[-1][0].shape == (last, 2)
        np.testing.assert_array_equal(np.concatenate([r[0] for r in rows]), x[:len(rows) * 5
                                                                             if drop else 23])
        np.testing.assert_array_equal(rows[1][1], y[5:10])
    assert base.get_batch_size() == 1
    # the row-by-row batch path (a Python map in between) gives the same batches
    rows = _rows(base.map(lambda v: v, "x").batch(5))
    np.testing.assert_array_equal(rows[-1][0], x[20:])


def test_batch_errors():
    ragged = ds.GeneratorDataset(lambda: (np.ones(i) for i in range(1, 4)), ["v"])
    with pytest.raises(RuntimeError, match=r"column 'v' has rows of different shapes"):
        _rows(ragged.batch(2))
    mixed = ds.GeneratorDataset([np.int32(1), np.int64(2)], ["v"], shuffle=False)
    with pytest.raises(RuntimeError, match="different dtypes"):
        _rows(mixed.batch(2))
    base = ds.NumpySlicesDataset(np.arange(4))
    with pytest.raises(ValueError, match="batch_size must be in"):
        base.batch(0)
    with pytest.raises(TypeError, match="batch_size must be an int"):
        base.batch(2.0)
    with pytest.raises(TypeError, match="drop_remainder must be a bool"):
        base.batch(2, drop_remainder=1)
    with pytest.raises(ValueError, match="num_parallel_workers"):
        base.batch(2, num_parallel_workers=0)


def test_repeat():
    config.set_seed(1)
    base = ds.NumpySlicesDataset(np.arange(6))
    r = base.repeat(3)
    order = _order(r)
    assert r.get_dataset_size() == 18 and len(order) == 18
    passes = [order[i:i + 6] for i in range(0, 18, 6)]
    assert all(sorted(p) == list(range(6)) for p in passes)
    assert len({tuple(p) for p in passes}) > 1  # each repetition reshuffles
    assert base.batch(4).repeat(2).get_dataset_size() == 4
    forever = base.repeat()
    assert forever.get_dataset_size() == -1
    assert len(list(itertools.islice(forever.create_tuple_iterator(), 50))) == 50
    with pytest.raises(ValueError, match="count must be in"):
        base.repeat(0)


def test_project_and_rename():
    d = ds.NumpySlicesDataset({"a": np.arange(3), "b": np.arange(3) * 10, "c": np.ones(3)},
                              shuffle=False)
    p = d.project(["c", "a"])
    assert p.get_col_names() == ["c", "a"]
    assert [[float(v) for v in r] for r in _rows(p)] == [[1, 0], [1, 1], [1, 2]]
    r = d.rename(["a", "c"], ["x", "z"])
    assert r.get_col_names() == ["x", "b", "z"]
    assert [int(v["x"]) for v in r.create_dict_iterator(output_numpy=True)] == [0, 1, 2]
    with pytest.raises(ValueError, match="column 'q' does not exist"):
        d.project(["a", "q"])
    with pytest.raises(ValueError, match="same length"):
        d.rename(["a"], ["x", "y"])
    with pytest.raises(ValueError, match="duplicate"):
        d.rename(["a"], ["b"])
    with pytest.raises(ValueError, match="column 'q' does not exist"):
        d.rename("q", "r")
    with pytest.raises(TypeError, match="columns must be a str"):
        d.project(3)


# ----- map -----

def test_map_transforms_and_callables_against_numpy():
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (10, 5, 4, 3), dtype=np.uint8)
    labels = rng.integers(0, 4, 10).astype(np.uint32)
    base = ds.NumpySlicesDataset((images, labels), ["image", "label"], shuffle=False)
    mean, std = (10.0, 20.0, 30.0), (2.0, 4.0, 8.0)
    d = base.map([vision.Rescale(0.5, 1.0), vision.Normalize(mean, std), vision.HWC2CHW(),
                  lambda im: im * 2], "image")
    d = d.map(transforms.OneHot(4), "label")
    rows = _rows(d)
    want = (images.astype(np.float32) * np.float32(0.5) + np.float32(1)
            - np.float32(mean)) / np.float32(std)
    for (im, lb), w, label in zip(rows, want, labels):
        assert im.dtype == np.float32 and im.shape == (3, 5, 4)
        np.testing.assert_allclose(im, w.transpose(2, 0, 1) * 2, rtol=1e-6)
        np.testing.assert_array_equal(lb, np.eye(4, dtype=np.uint32)[label])


def test_map_columns_in_and_out():
    d = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4) * 10, "c": -np.arange(4)},
                              shuffle=False)
    summed = d.map(lambda a, b: a + b, ["a", "b"], "s")  # 2 -> 1: outputs first, then the rest
    assert summed.get_col_names() == ["s", "c"]
    assert [[int(v) for v in r] for r in _rows(summed)][2] == [22, -2]
    split = d.map(lambda b: (b, b + 1), "b", ["b0", "b1"])  # 1 -> 2
    assert split.get_col_names() == ["b0", "b1", "a", "c"]
    assert [int(v) for v in _rows(split)[3]] == [30, 31, 3, -3]
    renamed = d.map(lambda c: c * 2, "c", "c2")  # 1 -> 1 keeps the column's place
    assert renamed.get_col_names() == ["a", "b", "c2"]
    first = d.map(lambda a: a + 100)  # input_columns=None: the first column
    assert [int(r[0]) for r in _rows(first)] == [100, 101, 102, 103]
    scalar = d.map(lambda a: 7, "a")  # Python numbers and Tensors come back as arrays
    assert all(isinstance(r[0], np.ndarray) for r in _rows(scalar))
    tensors = d.map(lambda a: mycel.Tensor(np.float32(a)), "a")
    assert _rows(tensors)[1][0].dtype == np.float32


def test_map_errors():
    d = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4)}, shuffle=False)
    with pytest.raises(ValueError, match="column 'image' does not exist"):
        d.map(vision.HWC2CHW(), "image")
    with pytest.raises(TypeError, match=r"operations\[1\] is neither a transforms op"):
        d.map([vision.HWC2CHW(), 3])
    with pytest.raises(ValueError, match="operations must not be empty"):
        d.map([])
    with pytest.raises(ValueError, match="duplicate"):
        d.map(lambda a: a, "a", "b")

    def explode(a):
        raise ValueError(f"bad value {a}")

    with pytest.raises(ValueError, match=r"map operation: \[PyFunc\] failed\. .*explode on column\(s\) "
                                         r"\['a'\]: bad value 0"):
        _rows(d.map([lambda a: a, explode]))
    with pytest.raises(RuntimeError, match="returned 2 column.*output_columns has 1"):
        _rows(d.map(lambda a: (a, a)))
    with pytest.raises(ValueError, match=r"map operation: \[OneHot\] failed.*out of range"):
        _rows(d.map(transforms.OneHot(2)).batch(4))  # the vectorised path names it too
    with pytest.raises(TypeError, match="HWC2CHW: expects one input column, but got 2"):
        _rows(d.map(vision.HWC2CHW(), ["a", "b"], "c"))


def test_vectorised_maps_equal_per_sample_maps():
    config.set_seed(2)
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (37, 6, 5, 2), dtype=np.uint8)
    labels = rng.integers(0, 5, 37).astype(np.uint32)

    def pipeline(force_per_sample, source=None):
        d = source or ds.NumpySlicesDataset((images, labels), ["image", "label"])
        d = d.map([vision.Rescale(1 / 255, -0.5), vision.Normalize((0.1, 0.2), (0.3, 0.4))],
                  "image")
        d = d.map(transforms.Compose([vision.HWC2CHW(), transforms.TypeCast(np.float64)]),
                  "image")
        d = d.map([transforms.OneHot(5, 0.1)], "label", "onehot")
        if force_per_sample:
            d = d.map(lambda x: x, "image")  # a Python callable right below the batch
        return d.batch(8)

    fast, slow = pipeline(False), pipeline(True)
    plan = _plan(fast)
    assert isinstance(plan, MapDataset) and plan._batched  # the maps moved above the batch
    assert isinstance(plan.children[0].children[0].children[0], BatchDataset)
    assert isinstance(_plan(slow), BatchDataset)
    a, b = _rows(fast), _rows(slow)
    assert len(a) == len(b) == 5
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
    gen = ds.GeneratorDataset(lambda: zip(images, labels), ["image", "label"])
    c = _rows(pipeline(False, gen))  # a source without the gather path
    np.testing.assert_array_equal(c[0][0], _rows(pipeline(True, ds.GeneratorDataset(
        lambda: zip(images, labels), ["image", "label"])))[0][0])


@pytest.mark.parametrize("op, sample", [
    (vision.Rescale(0.25, 3), np.arange(24, dtype=np.uint8).reshape(2, 4, 3)),
    (vision.Normalize([1.0], [2.0]), np.arange(12, dtype=np.float32).reshape(3, 4)),
    (vision.Normalize([1, 2, 3], [2, 3, 4], is_hwc=False), np.ones((3, 2, 2), np.int16)),
    (vision.Normalize([5.0], [3.0]), np.arange(24, dtype=np.uint8).reshape(2, 4, 3)),
    (vision.HWC2CHW(), np.arange(24).reshape(2, 4, 3)),
    (vision.HWC2CHW(), np.arange(8).reshape(2, 4)),
    (transforms.TypeCast(mycel.int32), np.array(3.7)),
    (transforms.TypeCast("float16"), np.arange(4)),
    (transforms.OneHot(3), np.array(2, np.int64)),
    (transforms.OneHot(3), np.array([[1]], np.int8)),
    (transforms.OneHot(4, 0.2), np.array([0, 3], np.int32)),
])
def test_each_builtin_transform_batched_equals_stacked(op, sample):
    batch = np.stack([sample, sample[::-1] if sample.ndim else sample + 0])
    stacked = np.stack([op(s) for s in batch])
    got = op._apply_batch(batch)
    assert got.dtype == stacked.dtype and got.shape == stacked.shape
    np.testing.assert_array_equal(got, stacked)


# ----- transforms -----

def test_transforms_against_numpy():
    img = np.arange(2 * 3 * 2, dtype=np.uint8).reshape(2, 3, 2)
    out = vision.Rescale(1 / 255, 0.5)(img)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, img / 255 + 0.5, rtol=1e-6)
    out = vision.Normalize((1.0, 2.0), (3.0, 4.0))(img)
    np.testing.assert_allclose(out, (img - np.array([1.0, 2.0])) / np.array([3.0, 4.0]),
                               rtol=1e-6)
    chw = img.transpose(2, 0, 1)
    out = vision.Normalize((1.0, 2.0), (3.0, 4.0), is_hwc=False)(chw)
    np.testing.assert_allclose(out, ((img - [1.0, 2.0]) / [3.0, 4.0]).transpose(2, 0, 1),
                               rtol=1e-6)
    np.testing.assert_array_equal(vision.HWC2CHW()(img), chw)
    cast = transforms.TypeCast(mycel.int32)(np.array([1.7, -2.2]))
    assert cast.dtype == np.int32 and list(cast) == [1, -2]
    assert transforms.TypeCast(mycel.bool_)(np.array([0, 2])).tolist() == [False, True]
    np.testing.assert_array_equal(transforms.OneHot(3)(np.array([2, 0])),
                                  [[0, 0, 1], [1, 0, 0]])
    smooth = transforms.OneHot(4, smoothing_rate=0.2)(np.array(1))
    np.testing.assert_allclose(smooth, [0.05, 0.85, 0.05, 0.05], rtol=1e-6)
    assert smooth.dtype == np.float32
    composed = transforms.Compose([vision.Rescale(2.0, 0), lambda x: x + 1])
    np.testing.assert_array_equal(composed(np.array([1, 2])), [3.0, 5.0])
    assert not composed._batchable
    # vision's transforms take numpy arrays or PIL images only (MindSpore's TypeError); the
    # general transforms also read mycel Tensors
    with pytest.raises(TypeError, match="Input should be NumPy or PIL image, got"):
        vision.Rescale(2.0, 0)(mycel.Tensor(np.array([1.0])))
    with pytest.raises(TypeError, match="Input should be NumPy or PIL image, got <class 'list'>"):
        vision.Rescale(2.0, 0)([1.0])
    assert transforms.TypeCast(np.float64)(mycel.Tensor(np.array([1.0]))).tolist() == [1.0]


def test_transform_errors():
    with pytest.raises(ValueError, match="same length"):
        vision.Normalize((1.0, 2.0), (1.0,))
    with pytest.raises(ValueError, match=r"std values must be in \(0, 255\], but got 0.0"):
        vision.Normalize((1.0,), (0.0,))
    with pytest.raises(ValueError, match=r"mean values must be in \[0, 255\]"):
        vision.Normalize((-1.0,), (1.0,))
    with pytest.raises(TypeError, match="mean must be a non-empty list"):
        vision.Normalize(0.5, (1.0,))
    with pytest.raises(TypeError, match="is_hwc must be a bool"):
        vision.Normalize((1.0,), (1.0,), is_hwc="yes")
    with pytest.raises(RuntimeError, match="number of channels does not match the size of mean "
                                           "and std vectors: the image has 3 channels but mean "
                                           "and std have 2"):
        vision.Normalize((1.0, 2.0), (1.0, 1.0))(np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match=r"HWC2CHW: the image must be .* shape \[5\]"):
        vision.HWC2CHW()(np.zeros(5))
    with pytest.raises(TypeError, match="rescale must be a number"):
        vision.Rescale("1", 0)
    with pytest.raises(TypeError, match="data_type must be a mycel dtype or a numpy dtype"):
        transforms.TypeCast(object())
    with pytest.raises(TypeError, match="bfloat16"):
        transforms.TypeCast(mycel.bfloat16)
    with pytest.raises(ValueError, match="num_classes must be in"):
        transforms.OneHot(0)
    with pytest.raises(ValueError, match="smoothing_rate must be in"):
        transforms.OneHot(3, 1.5)
    with pytest.raises(TypeError, match="OneHot: the label must be an integer type"):
        transforms.OneHot(3)(np.array(1.0))
    with pytest.raises(ValueError, match="scalar or 1-D"):
        transforms.OneHot(3)(np.zeros((2, 2), np.int32))
    with pytest.raises(ValueError, match=r"label -1 is out of range \[0, 3\)"):
        transforms.OneHot(3)(np.array([0, -1]))


# ----- iterators -----

def test_iterators_give_tensors_lists_and_dicts():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6, dtype=np.uint32)
    d = ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False).batch(3)
    rows = list(d)  # iterating the dataset: create_tuple_iterator()
    assert isinstance(rows[0], list) and isinstance(rows[0][0], mycel.Tensor)
    np.testing.assert_array_equal(rows[1][0].asnumpy(), x[3:])
    assert rows[0][1].dtype == mycel.uint32  # the column's own type
    np.testing.assert_array_equal(rows[0][1].asnumpy(), y[:3])
    dicts = list(d.create_dict_iterator())
    assert list(dicts[0]) == ["x", "y"] and isinstance(dicts[0]["x"], mycel.Tensor)
    np.testing.assert_array_equal(dicts[1]["x"].asnumpy(), x[3:])
    numpy_rows = list(d.create_dict_iterator(output_numpy=True))
    assert numpy_rows[0]["y"].dtype == np.uint32
    shared = list(d.create_tuple_iterator(columns=["y"], do_copy=False))
    assert len(shared[0]) == 1 and shared[1][0].asnumpy().tolist() == [3, 4, 5]
    unbatched = list(ds.NumpySlicesDataset(x, shuffle=False).create_tuple_iterator(
        do_copy=False))
    assert unbatched[2][0].asnumpy().tolist() == [4.0, 5.0]
    it = d.create_tuple_iterator()
    assert it.get_col_names() == ["x", "y"]


def test_iterator_epochs_and_errors():
    d = ds.NumpySlicesDataset(np.arange(3), shuffle=False)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert len(list(it)) == 3 and len(list(it)) == 3
    with pytest.raises(RuntimeError, match="num_epochs=2 epochs were consumed"):
        next(it)
    with pytest.raises(ValueError, match="num_epochs"):
        d.create_tuple_iterator(num_epochs=0)
    with pytest.raises(TypeError, match="output_numpy must be a bool"):
        d.create_dict_iterator(output_numpy="no")
    with pytest.raises(ValueError, match="column 'z' does not exist"):
        d.create_tuple_iterator(columns=["z"])
    words = ds.GeneratorDataset([np.array("ab")], ["w"])
    [[w]] = list(words)  # strings: a numpy str array even without output_numpy (no str Tensor)
    assert isinstance(w, np.ndarray) and w.dtype.kind == "U" and str(w) == "ab"
    assert _rows(words)[0][0] == "ab"
    big = ds.NumpySlicesDataset(np.array([2**63 + 5], np.uint64))
    [[b]] = list(big)  # uint64 stays uint64 (values above int64's range too)
    assert b.dtype == mycel.uint64 and int(b.asnumpy()) == 2**63 + 5
    # no rows: no shapes or types (MindSpore's test_numpy_slice_empty_output_shape)
    empty = ds.GeneratorDataset(lambda: iter(()), ["v"])
    assert empty.output_shapes() == [] and empty.output_types() == []
    assert empty.output_shapes(estimate=True) == []


# ----- GeneratorDataset, NumpySlicesDataset -----

def test_generator_function_and_iterable_sources():
    calls = []

    def gen():
        calls.append(1)
        for i in range(5):
            yield np.array(i), np.array([i, i * i], np.float32)

    d = ds.GeneratorDataset(gen, ["a", "b"])
    assert d.get_dataset_size() == 5  # a dry pass counts an unsized source
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1, e2 = list(it), list(it)
    assert len(calls) == 3 and [int(r[0]) for r in e1] == [int(r[0]) for r in e2] == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(e1[3][1], [3, 9])

    class Counter:
        def __iter__(self):
            return iter(range(4))

    c = ds.GeneratorDataset(Counter(), "n", num_samples=3)
    assert [int(r[0]) for r in _rows(c)] == [0, 1, 2] and c.get_dataset_size() == 3


def test_random_access_generator_source():
    class Squares:
        def __getitem__(self, i):
            return np.array(i * i), np.array([i], np.int32)

        def __len__(self):
            return 12

    config.set_seed(4)
    d = ds.GeneratorDataset(Squares(), ["sq", "i"])  # shuffled by default
    rows = _rows(d)
    order = [int(r[1][0]) for r in rows]
    assert sorted(order) == list(range(12)) and order != list(range(12))
    assert all(int(r[0]) == int(r[1][0]) ** 2 for r in rows)
    shards = [[int(r[1][0]) for r in _rows(ds.GeneratorDataset(Squares(), ["sq", "i"],
                                                              num_shards=4, shard_id=k))]
              for k in range(4)]
    assert sorted(itertools.chain(*shards)) == list(range(12))
    plain = ds.GeneratorDataset(list(range(5)), "v", shuffle=False)
    assert [int(r[0]) for r in _rows(plain)] == [0, 1, 2, 3, 4]
    typed = ds.GeneratorDataset(Squares(), ["sq", "i"], column_types=[mycel.int64, np.int32])
    assert len(_rows(typed)) == 12


def test_generator_errors():
    gen = lambda: iter([np.array(1)])  # noqa: E731
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(gen, ["v"], shuffle=True)
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(gen, ["v"], num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="column_names is required"):
        ds.GeneratorDataset(gen)
    with pytest.raises(TypeError, match="source must be random-access"):
        ds.GeneratorDataset(5, ["v"])
    with pytest.raises(ValueError, match="schema file schema.json does not exist"):
        ds.GeneratorDataset(gen, ["v"], schema="schema.json")
    with pytest.raises(ValueError, match="column_types must be a list"):
        ds.GeneratorDataset(gen, ["v"], column_types=[np.int32, np.int32])
    with pytest.raises(RuntimeError,
                       match="size of column_names is:2 and number of returned NumPy array is:1"):
        _rows(ds.GeneratorDataset(gen, ["v", "w"]))
    with pytest.raises(TypeError, match="column 'v' has dtype int64 but column_types says "
                                        "float32"):
        _rows(ds.GeneratorDataset(gen, ["v"], column_types=[mycel.float32]))
    with pytest.raises(TypeError, match="Data type of 1th item of the input"):
        _rows(ds.GeneratorDataset(lambda: iter([object()]), ["v"]))

    def failing():
        yield np.array(1)
        raise KeyError("lost")

    with pytest.raises(KeyError, match="GeneratorDataset: the source raised KeyError"):
        _rows(ds.GeneratorDataset(failing, ["v"]))

    class Broken:
        def __getitem__(self, i):
            raise IndexError(f"no row {i}")

        def __len__(self):
            return 3

    with pytest.raises(IndexError, match=r"GeneratorDataset: source\[0\] raised IndexError"):
        _rows(ds.GeneratorDataset(Broken(), ["v"], shuffle=False))


def test_numpy_slices_inputs():
    d = ds.NumpySlicesDataset([[1, 2], [3, 4], [5, 6]], shuffle=False)  # a list: one column
    assert d.get_col_names() == ["column_0"] and d.output_shapes() == [[2]]
    t = ds.NumpySlicesDataset((np.arange(3), np.ones((3, 2))), shuffle=False)
    assert t.get_col_names() == ["column_0", "column_1"]
    named = ds.NumpySlicesDataset({"p": [1, 2], "q": [3.5, 4.5]}, shuffle=False)
    assert [(int(a), float(b)) for a, b in _rows(named)] == [(1, 3.5), (2, 4.5)]
    renamed = ds.NumpySlicesDataset((np.arange(2), np.arange(2)), ["u", "v"], shuffle=False)
    assert renamed.get_col_names() == ["u", "v"]
    assert ds.NumpySlicesDataset(mycel.Tensor(np.arange(4))).get_dataset_size() == 4
    with pytest.raises(ValueError, match=r"different lengths \[3, 2\]"):
        ds.NumpySlicesDataset((np.arange(3), np.arange(2)))
    with pytest.raises(ValueError, match="column_names has 1 names for 2 columns"):
        ds.NumpySlicesDataset((np.arange(3), np.arange(3)), ["a"])
    with pytest.raises(ValueError, match="scalar"):
        ds.NumpySlicesDataset(5)
    with pytest.raises(ValueError, match="num_parallel_workers"):
        ds.NumpySlicesDataset(np.arange(3), num_parallel_workers=0)


# ----- the MindSpore quick start -----

def test_quick_start_pipeline():
    from mycel.dataset import MnistDataset
    data = MnistDataset(FASHION, usage="test")
    image_transforms = [vision.Rescale(1.0 / 255.0, 0),
                        vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()]
    data = data.map(image_transforms, "image").map(transforms.TypeCast(mycel.int32), "label")
    data = data.batch(64)
    assert data.get_dataset_size() == 157
    n, label_sum = 0, 0
    for image, label in data.create_tuple_iterator():
        assert isinstance(image, mycel.Tensor) and image.dtype == mycel.float32
        assert label.dtype == mycel.int32
        n += image.shape[0]
        label_sum += int(label.asnumpy().sum())
    assert tuple(image.shape) == (10000 % 64, 1, 28, 28) and n == 10000
    labels = _oracle_idx(f"{FASHION}/t10k-labels-idx1-ubyte.gz", 8)
    assert label_sum == int(labels.sum())
    ordered = MnistDataset(FASHION, usage="test", shuffle=False).map(image_transforms, "image")
    first = next(ordered.batch(64).create_tuple_iterator())[0].asnumpy()
    images = _oracle_idx(f"{FASHION}/t10k-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)
    want = (images[:64] / 255.0 - 0.1307) / 0.3081
    np.testing.assert_allclose(first, want, rtol=1e-5, atol=1e-5)
