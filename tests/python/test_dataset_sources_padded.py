"""PaddedDataset and the sharding of a concatenation (ConcatDataset.use_sampler), against a
Python oracle: the concatenation's rows numbered across the children, shard i keeping those
with number % num_shards == i. Children read by index (NumpySlices, random-access
GeneratorDataset, PaddedDataset, an image folder) and streamed children (a generator
function, a map pipeline) are mixed, so both ways of sharding a child are checked."""
import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds


def _lengths(dataset, column="image"):
    return [len(r[column]) for r in dataset.create_dict_iterator(num_epochs=1,
                                                                  output_numpy=True)]


def _pads(sizes):
    return [{"image": np.zeros(n, np.uint8)} for n in sizes]


def _oracle(rows, num_shards, shard_id):
    return [r for p, r in enumerate(rows) if p % num_shards == shard_id]


def test_padded_dataset_rows_columns_and_order():
    samples = [{"b": np.arange(3, dtype=np.int32) + i, "a": np.array(f"s{i}")} for i in range(4)]
    data = ds.PaddedDataset(samples)
    assert data.get_col_names() == ["b", "a"] and data.get_dataset_size() == 4
    rows = list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    for i, (b, a) in enumerate(rows):  # never shuffled
        np.testing.assert_array_equal(b, samples[i]["b"])
        assert b.dtype == np.int32 and str(a) == f"s{i}"


@pytest.mark.parametrize("num_shards", [1, 2, 3, 4, 7, 9, 12])
def test_sharded_concat_of_padded_datasets_matches_the_oracle(num_shards):
    first, second = [1, 2, 3, 4, 5], [6, 7, 8]
    data = ds.PaddedDataset(_pads(first)) + ds.PaddedDataset(_pads(second))
    for shard in range(num_shards):
        data.use_sampler(ds.DistributedSampler(num_shards, shard, shuffle=False))
        want = _oracle(first + second, num_shards, shard)
        assert _lengths(data) == want
        assert data.get_dataset_size() == len(want)


def _gen(lo, hi):
    def gen():
        for i in range(lo, hi):
            yield (np.array([i], np.int64),)
    return gen


class _Indexed:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def __getitem__(self, i):
        return (np.array([self.lo + i], np.int64),)

    def __len__(self):
        return self.hi - self.lo


def test_sharded_concat_mixes_streamed_and_indexed_children():
    # a generator function (streamed), a random-access source (by index), a map (streamed),
    # numpy slices (by index), nested concatenations
    parts = [ds.GeneratorDataset(_gen(0, 7), ["x"]),
             ds.GeneratorDataset(_Indexed(7, 12), ["x"], shuffle=True),
             ds.NumpySlicesDataset({"x": np.arange(12, 15).reshape(3, 1)}, shuffle=False).map(
                 lambda v: v * 1, input_columns=["x"]),
             ds.NumpySlicesDataset({"x": np.arange(15, 19).reshape(4, 1)})]
    data = parts[0] + parts[1] + parts[2] + parts[3]
    for num_shards in (1, 3, 5, 19, 25):
        seen = []
        for shard in range(num_shards):
            data.use_sampler(ds.DistributedSampler(num_shards, shard, shuffle=False))
            got = [int(r[0][0]) for r in data.create_tuple_iterator(num_epochs=1,
                                                                    output_numpy=True)]
            assert got == _oracle(list(range(19)), num_shards, shard)
            assert data.get_dataset_size() == len(got)
            seen += got
        assert sorted(seen) == list(range(19))  # every row in exactly one shard


def test_sharded_concat_repeat_and_batch():
    data = ds.PaddedDataset(_pads([1, 2, 3, 4, 5])) + ds.PaddedDataset(_pads([6, 7, 8]))
    data.use_sampler(ds.DistributedSampler(2, 0, shuffle=False))
    assert _lengths(data.repeat(3)) == [1, 3, 5, 7] * 3
    same = ds.PaddedDataset(_pads([1] * 5)) + ds.PaddedDataset(_pads([1] * 3))
    same.use_sampler(ds.DistributedSampler(2, 0, shuffle=False))
    assert [b[0].shape for b in same.batch(2).create_tuple_iterator(num_epochs=1)] == [(2, 1)] * 2


def test_padding_an_image_folder_evens_the_shards(tmp_path):
    for c in range(2):
        (tmp_path / f"c{c}").mkdir()
        for k in range(4 + c):  # 9 images
            Image.new("RGB", (4 + k, 3), (10 * k, 20, 30)).save(tmp_path / f"c{c}" / f"{k}.png")
    white = np.frombuffer(_png_bytes(), np.uint8)
    pad = ds.PaddedDataset([{"image": white, "label": np.array(-1, np.int32)}])
    data = ds.ImageFolderDataset(str(tmp_path), decode=False) + pad
    counts, labels = [], []
    for shard in range(5):
        data.use_sampler(ds.DistributedSampler(5, shard, shuffle=False))
        decoded = data.map(ds.vision.Decode(), input_columns=["image"])
        rows = list(decoded.create_dict_iterator(num_epochs=1, output_numpy=True))
        counts.append(len(rows))
        labels += [int(r["label"]) for r in rows]
        assert all(r["image"].ndim == 3 for r in rows)
    assert counts == [2, 2, 2, 2, 2] and labels.count(-1) == 1 and len(labels) == 10


def _png_bytes():
    import io
    buf = io.BytesIO()
    Image.new("RGB", (5, 5), (255, 255, 255)).save(buf, "PNG")
    return buf.getvalue()


def test_padded_dataset_bad_input():
    with pytest.raises(ValueError, match="padded_samples cannot be empty"):
        ds.PaddedDataset([])
    with pytest.raises(TypeError, match="padded_samples"):
        ds.PaddedDataset({"image": np.zeros(1)})
    with pytest.raises(TypeError, match="padded_element"):
        ds.PaddedDataset([np.zeros(1)])
    with pytest.raises(ValueError, match=r"padded_samples\[1\] has the columns"):
        ds.PaddedDataset([{"a": np.zeros(1)}, {"b": np.zeros(1)}])


def test_concat_use_sampler_errors():
    a, b = ds.PaddedDataset(_pads([1, 2])), ds.PaddedDataset(_pads([3]))
    with pytest.raises(TypeError, match="must not be BatchDataset"):
        (a.batch(2) + b).use_sampler(ds.DistributedSampler(2, 0, shuffle=False))
    data = a + b
    with pytest.raises(TypeError, match="must be DistributedSampler"):
        data.use_sampler(ds.SequentialSampler())
    with pytest.raises(ValueError, match="shuffle of DistributedSampler must be False"):
        data.use_sampler(ds.DistributedSampler(2, 0, shuffle=True))
    with pytest.raises(ValueError, match="num_samples of DistributedSampler"):
        data.use_sampler(ds.DistributedSampler(2, 0, shuffle=False, num_samples=1))
    limited = ds.NumpySlicesDataset({"image": np.zeros((4, 1), np.uint8)}, num_samples=2)
    with pytest.raises(ValueError, match="NumSamples of NumpySlicesDataset"):
        (limited + b).use_sampler(ds.DistributedSampler(2, 0, shuffle=False))
    with pytest.raises(ValueError, match="replacement of RandomSampler must be False"):
        data.use_sampler(ds.RandomSampler(replacement=True))
    with pytest.raises(ValueError, match="num_samples of RandomSampler"):
        data.use_sampler(ds.RandomSampler(num_samples=2))


def test_concat_of_a_dataset_without_rows_is_an_error():
    data = ds.PaddedDataset(_pads([1, 2]))
    with pytest.raises(ValueError, match="There are no samples in the dataset number 1"):
        data.concat(data.skip(2))


def test_deepcopy_of_a_source_dataset_shares_the_source_and_copies_the_rest():
    import copy
    data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False)
    twin = copy.deepcopy(data)
    assert twin._source is data._source and twin.sampler is not data.sampler
    twin.use_sampler(ds.SequentialSampler(num_samples=2))
    assert [int(r[0]) for r in twin.create_tuple_iterator(output_numpy=True)] == [0, 1]
    assert [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)] == list(range(6))


@pytest.fixture
def seeded():
    """The dataset seed set for one test, unset again after it."""
    ds.config.set_seed(5)
    yield
    ds.config._seed = None


def test_concat_with_a_random_sampler_interleaves_the_children_at_random(seeded):
    parts = [ds.GeneratorDataset(_gen(0, 3), ["x"]), ds.GeneratorDataset(_gen(3, 10), ["x"]),
             ds.NumpySlicesDataset({"x": np.arange(10, 20).reshape(10, 1)}, shuffle=False)]
    data = parts[0] + parts[1] + parts[2]
    data.use_sampler(ds.RandomSampler())
    assert data.get_dataset_size() == 20
    it = data.create_tuple_iterator(num_epochs=3, output_numpy=True)
    epochs = [[int(r[0][0]) for r in it] for _ in range(3)]  # one epoch per pass over it
    for got in epochs:
        assert sorted(got) == list(range(20))  # every row once
        for lo, hi in ((0, 3), (3, 10), (10, 20)):  # each child in its own order
            assert [v for v in got if lo <= v < hi] == list(range(lo, hi))
    assert epochs[0] != list(range(20)) and len({tuple(e) for e in epochs}) > 1
    # seeded: a new iterator repeats the first one's orders (MindSpore's rule)
    again = [int(r[0][0]) for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert again == epochs[0]
    outer = data + ds.PaddedDataset([{"x": np.array([99])}])  # the random concat as a child
    assert sorted(int(r[0][0]) for r in outer.create_tuple_iterator(output_numpy=True)) == \
        list(range(20)) + [99]


def test_concat_children_must_agree_when_read():
    ints = ds.GeneratorDataset(_gen(0, 3), ["x"])
    other = ds.GeneratorDataset(_gen(3, 5), ["y"])
    mixed = ints + other  # sizes can be asked for, rows cannot be read
    assert mixed.get_dataset_size() == 5
    with pytest.raises(RuntimeError, match="column names or column order"):
        list(mixed.create_tuple_iterator(output_numpy=True))
    floats = ds.NumpySlicesDataset({"x": np.zeros((2, 1), np.float32)}, shuffle=False)
    with pytest.raises(RuntimeError, match="data types of the two datasets"):
        list((ints + floats).create_tuple_iterator(output_numpy=True))
    ranks = ds.NumpySlicesDataset({"x": np.zeros((2, 1, 1), np.int64)}, shuffle=False)
    with pytest.raises(RuntimeError, match="rank of the two datasets"):
        list((ints + ranks).create_tuple_iterator(output_numpy=True))
