"""TFRecordDataset and Schema: files written here from the TFRecord format's description
(length, masked CRC-32C of the length, data, masked CRC-32C of the data; crcmod computes the
CRCs) holding tf.train.Example records built with Python's protobuf from the repository's
src/data/tf_example.proto (compiled by protoc into the test's folder). The values read back
are compared with the numpy arrays written."""
import gzip
import importlib
import os
import struct
import subprocess
import sys
import zlib

import crcmod.predefined
import numpy as np
import pytest

import mycel.common.dtype as mstype
import mycel.dataset as ds

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_crc32c = crcmod.predefined.mkCrcFun("crc-32c")


def test_crc_oracle():
    assert _crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    """The tf_example_pb2 module generated from src/data/tf_example.proto."""
    out = tmp_path_factory.mktemp("pb")
    subprocess.run(["protoc", "-I", os.path.join(REPO, "src/data"), "--python_out", str(out),
                    "tf_example.proto"], check=True, timeout=60)
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module("tf_example_pb2")
    finally:
        sys.path.remove(str(out))


def _masked(data):
    c = _crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _frame(data):
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", _masked(n)) + data + struct.pack("<I", _masked(data))


def _example(pb, row):
    ex = pb.Example()
    for name, v in row.items():
        f = ex.features.feature[name]
        if isinstance(v, (bytes, list)) and (isinstance(v, bytes) or isinstance(v[0], bytes)):
            f.bytes_list.value.extend([v] if isinstance(v, bytes) else v)
        elif np.asarray(v).dtype.kind == "f":
            f.float_list.value.extend(np.asarray(v).ravel().tolist())
        else:
            f.int64_list.value.extend(np.asarray(v).ravel().tolist())
    return ex.SerializeToString()


def _rows(n, start=0):
    rng = np.random.default_rng(start)
    return [{"id": np.array([start + i]), "vec": rng.standard_normal(6).astype(np.float32),
             "mat": rng.integers(-1000, 1000, size=(2, 3)), "raw": bytes([65 + i % 26] * 3),
             "words": [b"a%d" % i, b"bc"]} for i in range(n)]


def _write(pb, path, rows, compress=None):
    data = b"".join(_frame(_example(pb, r)) for r in rows)
    if compress == "GZIP":
        data = gzip.compress(data)
    elif compress == "ZLIB":
        data = zlib.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def test_no_schema_reads_every_feature_sorted(pb, tmp_path):
    rows = _rows(5)
    path = _write(pb, tmp_path / "a.tfrecord", rows)
    data = ds.TFRecordDataset(path, shuffle=False)
    assert data.get_col_names() == ["id", "mat", "raw", "vec", "words"]
    assert data.get_dataset_size() == 5
    got = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    for g, r in zip(got, rows):
        np.testing.assert_array_equal(g["id"], r["id"])
        np.testing.assert_array_equal(g["mat"], r["mat"].ravel())
        np.testing.assert_array_equal(g["vec"], r["vec"])
        np.testing.assert_array_equal(g["raw"], np.frombuffer(r["raw"], np.uint8))
        # two bytes values: their bytes concatenated as uint8
        np.testing.assert_array_equal(g["words"], np.frombuffer(b"".join(r["words"]), np.uint8))
        assert g["id"].dtype == np.int64 and g["vec"].dtype == np.float32
        assert g["raw"].dtype == np.uint8


def test_schema_types_shapes_and_columns_list(pb, tmp_path):
    rows = _rows(4)
    path = _write(pb, tmp_path / "a.tfrecord", rows)
    schema = ds.Schema()
    schema.add_column("mat", de_type=mstype.int16, shape=[3, -1])
    schema.add_column("vec", de_type=mstype.float64, shape=[2, 3])
    schema.add_column("words", de_type=mstype.string)
    schema.add_column("id", de_type="int32", shape=[])
    data = ds.TFRecordDataset([path], schema=schema, shuffle=False)
    assert data.get_col_names() == ["mat", "vec", "words", "id"]
    got = list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    for (mat, vec, words, i), r in zip(got, rows):
        np.testing.assert_array_equal(mat, r["mat"].reshape(3, 2).astype(np.int16))
        assert mat.dtype == np.int16
        np.testing.assert_array_equal(vec, r["vec"].astype(np.float64).reshape(2, 3))
        assert list(words) == [w.decode() for w in r["words"]]
        assert i.shape == () and i == r["id"][0] and i.dtype == np.int32
    sub = ds.TFRecordDataset(path, schema=schema, columns_list=["id", "mat"], shuffle=False)
    assert sub.get_col_names() == ["id", "mat"]
    first = next(sub.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert set(first) == {"id", "mat"}
    with pytest.raises(ValueError, match="failed to find column name: nothere"):
        ds.TFRecordDataset(path, columns_list=["nothere"])


def test_schema_json_file_num_rows_and_batch(pb, tmp_path):
    rows = _rows(6)
    path = _write(pb, tmp_path / "a.tfrecord", rows)
    schema_file = tmp_path / "schema.json"
    schema_file.write_text('{"datasetType": "TF", "numRows": 4, "columns": {'
                           '"vec": {"type": "float32", "rank": 1, "shape": [6]},'
                           '"raw": {"type": "uint8", "rank": 1}}}')
    data = ds.TFRecordDataset(path, str(schema_file), shuffle=False)
    assert data.get_dataset_size() == 4
    batched = data.batch(2)
    got = list(batched.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert len(got) == 2
    np.testing.assert_array_equal(got[1][0], np.stack([rows[2]["vec"], rows[3]["vec"]]))
    assert got[0][1].shape == (2, 3)
    assert ds.Schema(str(schema_file)).get_num_rows() == 4
    # num_samples, when given, replaces numRows as the cap (MindSpore's rule)
    capped = ds.TFRecordDataset(path, str(schema_file), shuffle=False, num_samples=5)
    assert capped.get_dataset_size() == 5
    assert len(list(capped.create_tuple_iterator(num_epochs=1, output_numpy=True))) == 5


def test_type_and_shape_mismatch_are_runtime_errors(pb, tmp_path):
    path = _write(pb, tmp_path / "a.tfrecord", _rows(2))
    for col, t in (("id", mstype.string), ("vec", mstype.int32), ("raw", mstype.int64)):
        schema = ds.Schema()
        schema.add_column(col, de_type=t)
        with pytest.raises(RuntimeError, match=f"feature name: {col} does not match"):
            list(ds.TFRecordDataset(path, schema=schema, shuffle=False))
    schema = ds.Schema()
    schema.add_column("vec", de_type=mstype.float32, shape=[4])
    with pytest.raises(RuntimeError, match="Column shape of vec defined in schema"):
        list(ds.TFRecordDataset(path, schema=schema, shuffle=False))


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files_match_plain(pb, tmp_path, compression):
    rows = _rows(7)
    plain = _write(pb, tmp_path / "p.tfrecord", rows)
    packed = _write(pb, tmp_path / "c.tfrecord", rows, compression)
    a = list(ds.TFRecordDataset(plain, shuffle=False).create_tuple_iterator(output_numpy=True))
    b = list(ds.TFRecordDataset(packed, shuffle=False, compression_type=compression)
             .create_tuple_iterator(output_numpy=True))
    assert len(a) == len(b) == 7
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    with pytest.raises(RuntimeError, match="TFRecordDataset"):
        ds.TFRecordDataset(packed)  # compressed, read as plain: the framing check fails


def test_many_files_shuffle_and_shards(pb, tmp_path):
    files = [_write(pb, tmp_path / f"f{k}.tfrecord", _rows(5, 10 * k)) for k in range(3)]
    pattern = str(tmp_path / "f*.tfrecord")
    ids = lambda d: [int(r["id"][0]) for r in d.create_dict_iterator(output_numpy=True)]  # noqa
    assert ids(ds.TFRecordDataset(pattern, shuffle=False)) == \
        [10 * k + i for k in range(3) for i in range(5)]
    everything = sorted(ids(ds.TFRecordDataset(files, shuffle=False)))
    assert sorted(ids(ds.TFRecordDataset(files, shuffle=True))) == everything
    by_file = ids(ds.TFRecordDataset(files, shuffle=ds.Shuffle.FILES))
    assert sorted(by_file) == everything
    for k in range(3):  # each file's rows stay together and in order
        start = by_file.index(10 * k)
        assert by_file[start:start + 5] == [10 * k + i for i in range(5)]
    shards = [ids(ds.TFRecordDataset(files, num_shards=3, shard_id=s, shuffle=False))
              for s in range(3)]
    assert sorted(sum(shards, [])) == everything and all(len(s) == 5 for s in shards)


def test_corrupt_record_is_detected(pb, tmp_path):
    path = _write(pb, tmp_path / "a.tfrecord", _rows(3))
    raw = bytearray(open(path, "rb").read())
    first_len = struct.unpack("<Q", raw[:8])[0]
    raw[12 + first_len + 4 + 12 + 5] ^= 0xFF  # a byte of the second record's data
    with open(path, "wb") as f:
        f.write(raw)
    data = ds.TFRecordDataset(path, shuffle=False)  # the first record names the columns
    with pytest.raises(RuntimeError, match="CRC"):
        list(data)


def test_truncated_and_bad_arguments(pb, tmp_path):
    path = _write(pb, tmp_path / "a.tfrecord", _rows(3))
    raw = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(raw[:-7])
    with pytest.raises(RuntimeError, match="truncated"):
        ds.TFRecordDataset(path)
    with pytest.raises(ValueError, match="match no file"):
        ds.TFRecordDataset(str(tmp_path / "none*.tfrecord"))
    with pytest.raises(ValueError, match="compression_type"):
        ds.TFRecordDataset(path, compression_type="LZ4")
    with pytest.raises(TypeError, match="de_type"):
        ds.Schema().add_column("x", de_type=object())


def test_schema_json_round_trip():
    s = ds.Schema()
    s.add_column("a", de_type=mstype.int64, shape=[2, 2])
    s.add_column("b", de_type=mstype.string)
    t = ds.Schema()
    import json
    t.from_json(json.loads(s.to_json()))
    assert t.columns == s.columns == [{"name": "a", "type": "int64", "shape": [2, 2]},
                                      {"name": "b", "type": "string", "shape": None}]
