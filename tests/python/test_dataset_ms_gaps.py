"""Dataset behaviours taken from MindSpore's unit tests (tests/ut/python/dataset), proved
here on data made in the tests: MindDataset[i], len(dataset), debug mode over
error_samples_mode, per_batch_map returning the batched arrays, TFRecord's Shuffle.INFILE
(the rows of each file permuted, files in order), max_rowsize lists, MindSpore's column-name
and empty-data errors, and num_shards' bound."""
import struct

import numpy as np
import pytest

import mycel.dataset as ds
from mycel.mindrecord import FileWriter


def _mindrecord(tmp_path, n=10):
    path = str(tmp_path / "rows.mindrecord")
    writer = FileWriter(path, 1)
    writer.add_schema({"id": {"type": "int32"}, "name": {"type": "string"},
                       "vec": {"type": "float32", "shape": [2]}}, "rows")
    writer.write_raw_data([{"id": i, "name": f"n{i}", "vec": np.array([i, -i], np.float32)}
                           for i in range(n)])
    writer.commit()
    return path


def _same_row(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_minddataset_getitem_follows_the_iterators_order(tmp_path):
    path = _mindrecord(tmp_path)
    ordered = ds.MindDataset(path, shuffle=False)
    assert [int(ordered[i][0]) for i in range(10)] == list(range(10))
    shuffled = ds.MindDataset(path, shuffle=True)
    first = shuffled[0]  # before any iterator: the first iterator's order
    rows = list(shuffled.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert _same_row(first, rows[0])
    assert all(_same_row(shuffled[i], rows[i]) for i in range(10))
    assert sorted(int(r[0]) for r in rows) == list(range(10))
    shuffled.add_sampler(ds.DistributedSampler(2, 1, shuffle=False))
    assert len(shuffled) == 5
    with pytest.raises(TypeError, match="Argument index with value 2 is not of type"):
        ordered["2"]
    with pytest.raises(RuntimeError, match=r"interval of \[0, 9\], but got 10"):
        ordered[10]
    with pytest.raises(ValueError, match="index cannot be negative, but got -1"):
        ordered[-1]


def test_len_is_the_dataset_size():
    data = ds.NumpySlicesDataset(np.arange(10), shuffle=False)
    assert len(data) == 10 and len(data.batch(3)) == 4 and len(data.skip(4)) == 6
    assert len(data.filter(lambda x: x % 2 == 0)) == 5
    with pytest.raises(TypeError, match="infinite"):
        len(data.repeat())
    assert len(list(data.repeat(2))) == 20


def test_debug_mode_ignores_error_samples_mode():
    def bad(x):
        if int(x) == 2:
            raise ValueError("row 2 is bad")
        return x

    data = ds.NumpySlicesDataset(np.arange(5), shuffle=False).map(bad)
    old_mode, old_debug = ds.config.get_error_samples_mode(), ds.config.get_debug_mode()
    try:
        ds.config.set_error_samples_mode(ds.config.ErrorSamplesMode.SKIP)
        assert [int(r[0]) for r in data.create_tuple_iterator(
            num_epochs=1, output_numpy=True)] == [0, 1, 3, 4]
        ds.config.set_debug_mode(True)
        with pytest.raises(RuntimeError, match="row 2 is bad"):
            list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    finally:
        ds.config.set_debug_mode(old_debug)
        ds.config.set_error_samples_mode(old_mode)


def test_per_batch_map_returning_batched_arrays():
    def summary(col, info):
        return (np.array(info.get_batch_num()), np.array([len(col)]))

    data = ds.NumpySlicesDataset({"x": np.arange(7)}, shuffle=False)
    rows = list(data.batch(3, per_batch_map=summary, input_columns=["x"],
                           output_columns=["num", "size"]).create_tuple_iterator(
                               num_epochs=1, output_numpy=True))
    assert [(int(a), b.tolist()) for a, b in rows] == [(0, [3]), (1, [3]), (2, [1])]


def test_tfrecord_infile_shuffle_permutes_within_files(tmp_path):
    files = []
    for f in range(3):
        path = str(tmp_path / f"part{f}.data")
        _write_tfrecord(path, range(f * 10, f * 10 + 10))
        files.append(path)
    data = ds.TFRecordDataset(files, shuffle=ds.Shuffle.INFILE)
    got = [int(r[0]) for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert [sorted(got[k * 10:(k + 1) * 10]) for k in range(3)] == \
        [list(range(k * 10, k * 10 + 10)) for k in range(3)]
    assert got != list(range(30))  # some file's rows were permuted


def _write_tfrecord(path, values):
    """A TFRecord file of tf.train.Examples with one int64 feature "v" per record, written
    with the record framing (length, masked CRC-32C of it, data, masked CRC of the data)."""
    def crc32c(data):
        crc = 0xFFFFFFFF
        for b in data:
            crc ^= b
            for _ in range(8):
                crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        return crc ^ 0xFFFFFFFF

    def masked(data):
        c = crc32c(data)
        return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF

    def varint(n):
        out = b""
        while True:
            b, n = n & 0x7F, n >> 7
            out += bytes([b | (0x80 if n else 0)])
            if not n:
                return out

    def field(num, payload):
        return varint(num << 3 | 2) + varint(len(payload)) + payload

    with open(path, "wb") as f:
        for v in values:
            int64_list = field(1, varint(v))  # Int64List.value, packed
            feature = field(3, int64_list)  # Feature.int64_list
            entry = field(1, b"v") + field(2, feature)  # map entry
            example = field(1, field(1, entry))  # Example.features.feature
            length = struct.pack("<Q", len(example))
            f.write(length + struct.pack("<I", masked(length)) + example +
                    struct.pack("<I", masked(example)))


def test_max_rowsize_and_argument_errors():
    data = ds.NumpySlicesDataset(np.arange(4), shuffle=False)
    assert len(data.batch(2, max_rowsize=[3, 6])) == 2
    with pytest.raises(TypeError, match="is not of type"):
        data.batch(2, max_rowsize=(3, 6))
    with pytest.raises(ValueError, match="is not within the required interval"):
        data.batch(2, max_rowsize=[-8, 20])
    with pytest.raises(ValueError, match="column_names should not be empty"):
        ds.NumpySlicesDataset([1, 2], column_names=[])
    with pytest.raises(ValueError, match=r"column_names\[0\] should not be empty"):
        ds.NumpySlicesDataset([1, 2], column_names=[""])
    with pytest.raises(TypeError, match=r"Argument column_names\[0\] with value 1 is not of type"):
        ds.NumpySlicesDataset([1, 2], column_names=[1])
    with pytest.raises(ValueError, match="Argument data cannot be empty"):
        ds.NumpySlicesDataset([])
    with pytest.raises(ValueError, match=r"num_shards is not within the required interval of "
                                         r"\[1, 2147483647\]"):
        ds.NumpySlicesDataset([1, 2], num_shards=2**31, shard_id=0)
    with pytest.raises(ValueError, match="offset must be no more than num_shards"):
        ds.DistributedSampler(2, 0, offset=3)
    assert ds.NumpySlicesDataset([[1, 2]]).batch(3, drop_remainder=True).output_shapes() == []


def test_numpy_slices_rows_of_different_shapes():
    data = [[], [1], [2, 3], [4, 5, 6]]
    rows = list(ds.NumpySlicesDataset(data, column_names=["d"], shuffle=False)
                .create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert [r[0].tolist() for r in rows] == data
    arrays = [np.arange(k + 1, dtype=np.uint8) for k in range(4)]
    shard = ds.NumpySlicesDataset({"a": arrays, "label": [1, 2, 3, 4]}, num_shards=4,
                                  shard_id=2, shuffle=False)
    [(a, label)] = list(shard.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert a.dtype == np.uint8 and a.tolist() == [0, 1, 2] and int(label) == 3
    padded = list(ds.NumpySlicesDataset(data, column_names=["d"], shuffle=False)
                  .padded_batch(4, pad_info={"d": (None, -1)})
                  .create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert padded[0][0].tolist() == [[-1, -1, -1], [1, -1, -1], [2, 3, -1], [4, 5, 6]]
    with pytest.raises(TypeError, match="row 1 of column 0"):
        ds.NumpySlicesDataset([[1], [[1], [2, 3]]])


def test_map_and_transform_argument_errors():
    from mycel.dataset import transforms, vision
    data = ds.NumpySlicesDataset(np.zeros((2, 4, 4, 3), np.uint8), shuffle=False)
    with pytest.raises(ValueError, match="Parameter operations's element of method map should "
                                         "be a .*class HWC2CHW"):
        data.map(operations=vision.HWC2CHW)
    with pytest.raises(ValueError, match=r"should be a .*transforms\[1\] is the class"):
        transforms.Compose([vision.HWC2CHW(), vision.HWC2CHW])
    with pytest.raises(ValueError, match="should be a "):
        transforms.RandomApply([vision.HWC2CHW])
    with pytest.raises(ValueError, match="'column_order' had been deleted in map operation"):
        data.map(operations=vision.HWC2CHW(), column_order=["column_0"])
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        data.map(operations=vision.HWC2CHW(), nope=1)
    with pytest.raises(ValueError, match="is not within the required interval"):
        data.map(operations=vision.HWC2CHW(), max_rowsize=[-8, 20])
    mapped = data.map(operations=vision.HWC2CHW(), max_rowsize=[3, 6],
                      python_multiprocessing=True)
    out = list(mapped.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert out[0][0].shape == (3, 4, 4)
    with pytest.raises(TypeError, match=r"Size should be a single integer or a list/tuple \(h, w\) "
                                        r"of length 2\."):
        vision.Resize(4.5)
    with pytest.raises(TypeError, match=r"Argument size at dim 0 with value 2.3 is not of type"):
        vision.Resize((2.3, 3))
