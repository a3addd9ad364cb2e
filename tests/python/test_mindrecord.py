"""mycel.mindrecord.FileWriter and mycel.dataset.MindDataset against the numpy data written:
every field type, several shards, one file name vs the list, columns_list, the engine's
shuffle/num_shards, padding; schema and row errors; overwrite; a writer killed before and
during commit (subprocesses that os._exit at a chosen step); truncated and corrupt files.
(test_mindrecord_format.py checks the files against MindSpore's format with a reader and a
writer of its own.)"""
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel.dataset as ds
from mycel import _mycel
from mycel.mindrecord import FileReader, FileWriter

_data = _mycel._data

SCHEMA = {"label": {"type": "int32"}, "id": {"type": "int64"}, "score": {"type": "float32"},
          "weight": {"type": "float64"}, "name": {"type": "string"}, "image": {"type": "bytes"},
          "mat": {"type": "float32", "shape": [2, 3]}, "seq": {"type": "int64", "shape": [-1, 2]}}


def _row(i):
    """Row i as written: python scalars, str, bytes and numpy arrays."""
    rng = np.random.default_rng(i)
    return {"label": -i, "id": (1 << 40) + i, "score": 0.25 * i, "weight": 1.0 / (i + 1),
            "name": f"row {i}" + " é\n" * (i % 2),
            "image": rng.integers(0, 256, size=i % 5, dtype=np.uint8).tobytes(),
            "mat": rng.standard_normal(6).astype(np.float32),
            "seq": np.arange(2 * (i % 4), dtype=np.int64) + 100 * i}


def _expected(i):
    """Row i as MindDataset gives it (numpy, schema dtypes and shapes), in schema order."""
    r = _row(i)
    return [np.array(r["label"], np.int32), np.array(r["id"], np.int64),
            np.array(r["score"], np.float32), np.array(r["weight"], np.float64),
            np.array(r["name"]), np.frombuffer(r["image"], np.uint8),
            r["mat"].reshape(2, 3), r["seq"].reshape(-1, 2)]


def _same(got, want, what=""):
    assert isinstance(got, np.ndarray), what
    assert got.dtype == want.dtype or (got.dtype.kind == want.dtype.kind == "U"), \
        (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=what)


def _read_order(sizes, shard_num):
    """The write positions of the rows in read order: each write_raw_data call (of sizes[c]
    rows) gives shard k its k-th contiguous run (the first runs one row longer), and readers
    go shard by shard."""
    per_shard = [[] for _ in range(shard_num)]
    start = 0
    for n in sizes:
        each, extra = divmod(n, shard_num)
        for k in range(shard_num):
            take = each + (k < extra)
            per_shard[k] += range(start, start + take)
            start += take
    return [i for rows in per_shard for i in rows]


def _order(n, shard_num=1):
    """_read_order of the files _write makes."""
    return _read_order([n // 2, n - n // 2], shard_num)


def _write(path, n, shard_num=1, **kwargs):
    writer = FileWriter(str(path), shard_num, **kwargs)
    writer.set_header_size(1 << 14)  # MindSpore's smallest: small (sparse) files
    writer.set_page_size(1 << 15)
    assert writer.add_schema(SCHEMA, "every field type") == 0
    writer.add_index(["label", "name"])
    writer.write_raw_data([_row(i) for i in range(n // 2)])
    writer.write_raw_data([_row(i) for i in range(n // 2, n)])
    writer.commit()
    return writer.paths


def _rows(source):
    return [source.read(i) for i in range(len(source))]


def test_round_trip_every_type_over_shards(tmp_path):
    paths = _write(tmp_path / "data.mindrecord", 11, shard_num=3)
    assert paths == [str(tmp_path / f"data.mindrecord{k}") for k in range(3)]
    assert sorted(os.listdir(tmp_path)) == sorted(f"data.mindrecord{k}{ext}" for k in range(3)
                                                  for ext in ("", ".db"))
    order = _order(11, 3)
    for one in paths:  # any shard's name reads the whole set, shard by shard
        src = _data.MindRecordSource([one], True, [])
        assert src.columns() == list(SCHEMA)
        rows = _rows(src)
        assert len(rows) == 11
        for i, row in zip(order, rows):
            for k, (got, want) in enumerate(zip(row, _expected(i))):
                _same(got, want, f"row {i} column {list(SCHEMA)[k]}")
    assert _rows(_data.MindRecordSource([one], True, []))[order.index(3)][4] == "row 3 é\n"


def test_list_of_files_and_columns_list(tmp_path):
    paths = _write(tmp_path / "d.mr", 10, shard_num=4)
    every = _rows(_data.MindRecordSource(paths[::-1], False, ["seq", "label"]))
    assert len(every) == 10
    for i, (seq, label) in zip(_order(10, 4), every):
        _same(seq, _expected(i)[7])
        _same(label, _expected(i)[0])
    # A part of the set: its shards' rows (5 + 5 rows over 4 shards: shard 1 holds rows 2
    # of the first call and 7 of the second).
    part = _rows(_data.MindRecordSource([paths[1]], False, ["label"]))
    assert [int(r[0]) for r in part] == [-2, -7]
    with pytest.raises(ValueError, match="MindDataset: column 'nope' is not a field"):
        _data.MindRecordSource(paths, False, ["label", "nope"])
    with pytest.raises(ValueError, match="listed twice"):
        _data.MindRecordSource([paths[0], paths[0]], False, [])
    with pytest.raises(ValueError, match="does not exist"):
        _data.MindRecordSource([str(tmp_path / "missing.mr")], True, [])


def test_shard_file_names(tmp_path):
    assert _write(tmp_path / "one.mr", 2) == [str(tmp_path / "one.mr")]
    names = FileWriter(str(tmp_path / "x"), 12).paths
    assert [os.path.basename(n) for n in names] == [f"x{k:02d}" for k in range(12)]


@pytest.mark.parametrize("schema, error, match", [
    ([("a", "int32")], TypeError, "schema must be a dict"),
    ({}, ValueError, "must not be empty"),
    ({"a-b": {"type": "int32"}}, ValueError, "'a-b' must be made of"),
    ({"a": {"type": "int8"}}, ValueError, "field 'a' has type 'int8'"),
    ({"a": "int32"}, ValueError, "field 'a' must be described by"),
    ({"a": {"type": "int32", "size": 3}}, ValueError, "field 'a' must be described by"),
    ({"s": {"type": "string", "shape": [2]}}, ValueError, "'s' of type string cannot have a shape"),
    ({"b": {"type": "bytes", "shape": [-1]}}, ValueError, "'b' of type bytes cannot have a shape"),
    ({"x": {"type": "float32", "shape": [-1, -1]}}, ValueError, "at most one dimension"),
    ({"x": {"type": "float32", "shape": [0, 2]}}, ValueError, "positive or -1"),
    ({"x": {"type": "float32", "shape": "2"}}, TypeError, "a shape is a list of ints"),
])
def test_schema_errors(tmp_path, schema, error, match):
    with pytest.raises(error, match=match):
        FileWriter(str(tmp_path / "s.mr")).add_schema(schema)


def test_writer_argument_and_order_errors(tmp_path):
    path = str(tmp_path / "w.mr")
    with pytest.raises(TypeError, match="shard_num must be an int"):
        FileWriter(path, "2")
    with pytest.raises(ValueError, match=r"shard_num must be in \[1, 1000\], but got 0"):
        FileWriter(path, 0)
    with pytest.raises(TypeError, match="overwrite must be a bool"):
        FileWriter(path, 1, 1)
    with pytest.raises(ValueError, match="directory .* does not exist"):
        FileWriter(str(tmp_path / "nodir" / "w.mr"))
    writer = FileWriter(path)
    with pytest.raises(RuntimeError, match="needs a schema"):
        writer.write_raw_data([{"label": 1}])
    writer.add_schema(SCHEMA)
    with pytest.raises(RuntimeError, match="add_schema was already called"):
        writer.add_schema(SCHEMA)
    with pytest.raises(ValueError, match="index field 'image' .* must be of a primitive type"):
        writer.add_index(["image"])
    with pytest.raises(ValueError, match="index field 'nope' is not in the schema"):
        writer.add_index(["nope"])
    with pytest.raises(TypeError, match="index_fields must be a non-empty list"):
        writer.add_index("label")
    writer.write_raw_data([_row(0)])
    with pytest.raises(RuntimeError, match="add_index must come before write_raw_data"):
        writer.add_index(["label"])
    writer.commit()
    with pytest.raises(RuntimeError, match="commit was already called"):
        writer.commit()
    with pytest.raises(RuntimeError, match="write_raw_data after commit"):
        writer.write_raw_data([_row(1)])


def _with(i, **change):
    row = _row(i)
    row.update(change)
    return row


@pytest.mark.parametrize("bad, error, match", [
    ({k: v for k, v in _row(1).items() if k != "score"}, ValueError,
     "row 1 has no field 'score'"),
    (_with(1, label="3"), TypeError, r"row 1, field 'label' \(int32\) must be an int"),
    (_with(1, label=True), TypeError, r"field 'label' \(int32\) must be an int"),
    (_with(1, label=2 ** 31), ValueError, "holds 2147483648, outside the int32 range"),
    (_with(1, score="x"), TypeError, r"field 'score' \(float32\) must be a float"),
    (_with(1, name=b"x"), TypeError, r"field 'name' \(string\) must be a str"),
    (_with(1, image="x"), TypeError, r"field 'image' \(bytes\) must be bytes"),
    (_with(1, mat=[1.0] * 6), TypeError, r"field 'mat' \(float32\) must be a numpy array"),
    (_with(1, mat=np.zeros(5, np.float32)), ValueError,
     r"row 1, field 'mat' \(float32 \[2, 3\]\) cannot hold float32 \[5\]"),
    (_with(1, seq=np.zeros(3, np.int64)), ValueError,
     r"field 'seq' \(int64 \[-1, 2\]\) cannot hold int64 \[3\]"),
    (_with(1, seq=np.zeros(4, np.float32)), TypeError,
     r"field 'seq' \(int64\) must be an integer numpy array"),
    (_with(1, label=np.zeros(2, np.int32)), ValueError, r"field 'label' \(int32\) is a scalar"),
    ("row", TypeError, "row 1 must be a dict"),
])
def test_bad_rows_raise_before_writing(tmp_path, bad, error, match):
    path = str(tmp_path / "rows.mr")
    writer = FileWriter(path)
    writer.add_schema(SCHEMA)
    with pytest.raises(error, match=match):
        writer.write_raw_data([_row(0), bad, _row(2)])
    writer.write_raw_data([_row(3)])  # the writer goes on; the bad call wrote nothing
    writer.commit()
    rows = _rows(_data.MindRecordSource([path], True, ["label"]))
    assert [int(r[0]) for r in rows] == [-3]


def test_casts_and_reshapes_like_mindspore(tmp_path):
    path = str(tmp_path / "cast.mr")
    writer = FileWriter(path)
    writer.set_header_size(1 << 14)
    writer.set_page_size(1 << 15)
    writer.add_schema({"x": {"type": "float64"}, "m": {"type": "float32", "shape": [2, 2]},
                       "n": {"type": "int32", "shape": [-1]}})
    writer.write_raw_data([{"x": 3, "m": np.arange(4.0), "n": np.array([[1, 2], [3, 4]])},
                           {"x": np.float32(0.5), "m": np.ones((4, 1), np.int64),
                            "n": np.array([], np.uint8)}])
    writer.commit()
    (x0, m0, n0), (x1, m1, n1) = _rows(_data.MindRecordSource([path], True, []))
    _same(x0, np.array(3.0))
    _same(m0, np.arange(4, dtype=np.float32).reshape(2, 2))
    _same(n0, np.array([1, 2, 3, 4], np.int32))
    _same(x1, np.array(0.5))
    _same(m1, np.ones((2, 2), np.float32))
    _same(n1, np.zeros(0, np.int32))


def test_overwrite(tmp_path):
    _write(tmp_path / "o.mr", 4, shard_num=2)
    with pytest.raises(RuntimeError, match="o.mr0' already exists; pass overwrite=True"):
        FileWriter(str(tmp_path / "o.mr"), 2)
    _write(tmp_path / "o.mr", 6, shard_num=2, overwrite=True)
    assert len(_data.MindRecordSource([str(tmp_path / "o.mr1")], True, [])) == 6


def _run_writer(tmp_path, body):
    """Runs a script that writes 7 rows into tmp_path/c.mr over 3 shards, then `body`."""
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.join(os.path.dirname(__file__), "..", "..", "python")!r})
        from mycel.mindrecord import FileReader, FileWriter
        writer = FileWriter({str(tmp_path / "c.mr")!r}, 3, overwrite=True)
        writer.set_header_size(1 << 14)
        writer.set_page_size(1 << 15)
        writer.add_schema({{"label": {{"type": "int32"}}, "name": {{"type": "string"}}}})
        writer.write_raw_data([{{"label": i, "name": str(i)}} for i in range(7)])
    """) + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 17, done.stderr


@pytest.mark.parametrize("step", ["sealed 1", "renamed 0", "renamed 1"])
def test_writer_killed_during_commit(tmp_path, step):
    _run_writer(tmp_path, f"""
        writer._writer._set_commit_hook(lambda s: os._exit(17) if s == {step!r} else None)
        writer.commit()
    """)
    finals = [str(tmp_path / f"c.mr{k}") for k in range(3)]
    for path in finals:
        if os.path.exists(path):
            with pytest.raises(RuntimeError, match=r"is missing: the set is incomplete"):
                _data.MindRecordSource([path], True, [])
            with pytest.raises(RuntimeError, match=r"is missing: the set is incomplete"):
                _data.MindRecordSource([path], False, [])
        else:
            with pytest.raises(ValueError, match="does not exist"):
                _data.MindRecordSource([path], True, [])
    # What the crash left under temporary names does not read either (shard files; their
    # indexes too, once sealed).
    temps = [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]
    assert len([t for t in temps if ".db." not in t]) == 3 - sum(map(os.path.exists, finals))
    for name in temps:
        with pytest.raises(RuntimeError, match="is truncated or corrupt|is not a committed Mind|"
                                               r"\.db of .* is missing"):
            _data.MindRecordSource([str(tmp_path / name)], True, [])


def test_writer_killed_before_commit_and_mixed_sets(tmp_path):
    _run_writer(tmp_path, "os._exit(17)")
    assert not any(os.path.exists(tmp_path / f"c.mr{k}") for k in range(3))
    temps = [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]
    assert len(temps) == 3  # the shard files; no index is written before commit
    for name in temps:  # no header, no index yet
        with pytest.raises(RuntimeError, match=r"the index .*\.tmp\.db of .* is missing"):
            _data.MindRecordSource([str(tmp_path / name)], True, [])
    # Replacing a committed set: killed after the first rename, the shards mix two sets.
    _write(tmp_path / "c.mr", 6, shard_num=3)
    _run_writer(tmp_path, """
        writer._writer._set_commit_hook(lambda s: os._exit(17) if s == "renamed 0" else None)
        writer.commit()
    """)
    for k in range(3):
        with pytest.raises(RuntimeError, match="the set is mixed"):
            _data.MindRecordSource([str(tmp_path / f"c.mr{k}")], False, [])


def _read_everything(path):
    src = _data.MindRecordSource([path], True, [])
    for i in range(len(src)):
        src.read(i)


def _spans(path):
    """The byte ranges of a shard file that hold data: the header, then each page's bytes."""
    data = open(path, "rb").read()
    n = int.from_bytes(data[:8], "little")
    h = json.loads(data[8:8 + n])
    spans = [(0, 8 + n)]
    for p in h["page"]:
        start = h["header_size"] + p["page_id"] * h["page_size"]
        spans.append((start, start + p["page_size"]))
    return spans


def test_truncated_and_corrupt_files(tmp_path):
    bad = _write(tmp_path / "g.mr", 6)[0]
    data = open(bad, "rb").read()
    spans = _spans(bad)
    assert spans[-1][1] == len(data)  # the last page ends the file
    cuts = [c for a, b in spans for c in range(a, b, max(1, (b - a) // 40))] + [len(data) - 1]
    for cut in cuts:
        with open(bad, "wb") as f:
            f.write(data[:cut])
        with pytest.raises(RuntimeError,
                           match=f"MindDataset: {re.escape(bad)} is truncated or corrupt"):
            _read_everything(bad)
    # Every byte of the header and the pages is under a checksum in the files mycel writes
    # (the padding between them holds nothing).
    for a, b in spans:
        for pos in range(a, b, 3):
            flipped = bytearray(data)
            flipped[pos] ^= 0x40
            with open(bad, "wb") as f:
                f.write(flipped)
            with pytest.raises((RuntimeError, ValueError), match=f"MindDataset: {re.escape(bad)}"):
                _read_everything(bad)
    with open(bad, "wb") as f:
        f.write(data)
    _read_everything(bad)
    os.rename(bad, tmp_path / "renamed.mr")
    os.rename(bad + ".db", tmp_path / "renamed.mr.db")
    with pytest.raises(RuntimeError, match="written for the name 'g.mr'"):
        _read_everything(str(tmp_path / "renamed.mr"))


# ---- FileReader -----------------------------------------------------------------------------

def _as_written(i, fields=None):
    """Row i as FileReader gives it: str, bytes, numpy scalars and arrays of the schema."""
    names = list(SCHEMA)
    values = dict(zip(names, _expected(i)))
    row = {}
    for name in fields or names:
        v = values[name]
        kind = SCHEMA[name]["type"]
        row[name] = str(v) if kind == "string" else v.tobytes() if kind == "bytes" else \
            (v[()] if "shape" not in SCHEMA[name] else v)
    return row


def test_file_reader_gives_the_rows_as_written(tmp_path):
    paths = _write(tmp_path / "r.mr", 11, shard_num=3)
    for consumers in (1, 2, 4):
        reader = FileReader(paths[2], num_consumer=consumers)
        assert reader.len() == 11 and reader.schema() == SCHEMA
        rows = list(reader.get_next())
        assert len(rows) == 11
        for i, row in zip(_order(11, 3), rows):
            want = _as_written(i)
            assert list(row) == list(want)
            for name in want:
                got = row[name]
                assert type(got) is type(want[name]), (name, type(got))
                if isinstance(got, np.ndarray):
                    _same(got, want[name], f"row {i} {name}")
                else:
                    assert got == want[name], (i, name)
        reader.close()
        with pytest.raises(RuntimeError, match="FileReader: the reader is closed"):
            reader.len()
    picked = list(FileReader([paths[0]], columns=["name", "label"]).get_next())
    assert picked == [_as_written(i, ["name", "label"]) for i in _order(11, 3)[:4]]


def test_file_reader_errors(tmp_path):
    path = _write(tmp_path / "x.mr", 4)[0]
    with pytest.raises(TypeError, match="FileReader: file_name must be a file name"):
        FileReader(3)
    with pytest.raises(ValueError, match=r"FileReader: num_consumer must be in \[1, 32\]"):
        FileReader(path, num_consumer=0)
    with pytest.raises(TypeError, match="FileReader: num_consumer must be an int"):
        FileReader(path, num_consumer=2.0)
    with pytest.raises(TypeError, match="FileReader: columns must be a non-empty list"):
        FileReader(path, columns="label")
    with pytest.raises(ValueError, match="FileReader: column 'nope' is not a field"):
        FileReader(path, columns=["nope"])
    with pytest.raises(ValueError, match="FileReader: dataset file .*missing.mr does not exist"):
        FileReader(str(tmp_path / "missing.mr"))
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:-3])
    with pytest.raises(RuntimeError, match=f"FileReader: {re.escape(path)} is truncated"):
        FileReader(path)
    with open(path, "wb") as f:
        f.write(data)
    os.remove(path + ".db")
    with pytest.raises(RuntimeError, match=r"FileReader: the index .*x.mr.db of .* is missing"):
        FileReader(path)


# ---- Dataset.save ---------------------------------------------------------------------------

def test_dataset_save_round_trips_a_pipeline(tmp_path):
    n = 7
    rng = np.random.default_rng(0)
    cols = {"image": rng.integers(0, 256, (n, 4, 3, 2), dtype=np.uint8),
            "label": np.arange(n, dtype=np.int64) - 3, "half": rng.random(n).astype(np.float16),
            "flag": np.arange(n) % 2 == 0, "wide": np.arange(n, dtype=np.uint32) * 1000,
            "name": np.array([f"row {i}" for i in range(n)])}
    data = ds.NumpySlicesDataset(cols, shuffle=False).map(
        lambda x: x[: 1 + x[0, 0, 0] % 4], "image")  # a first dimension that varies
    want = [list(r) for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    path = str(tmp_path / "saved.mr")
    data.save(path, num_files=2)
    reader = FileReader(path + "0")
    assert reader.schema() == {"image": {"type": "int32", "shape": [-1, 3, 2]},
                               "label": {"type": "int64"}, "half": {"type": "float32"},
                               "flag": {"type": "int32"}, "wide": {"type": "int64"},
                               "name": {"type": "string"}}
    got = _tuples(ds.MindDataset(path + "1", shuffle=False))
    assert len(got) == n
    for g, w in zip(got, want):
        _same(g[0], w[0].astype(np.int32))
        _same(g[1], w[1])
        _same(g[2], w[2].astype(np.float32))
        _same(g[3], w[3].astype(np.int32))
        _same(g[4], w[4].astype(np.int64))
        assert str(g[5]) == str(w[5])
    raw = ds.NumpySlicesDataset({"b": np.arange(12, dtype=np.uint8).reshape(3, 4)}, shuffle=False)
    raw.save(str(tmp_path / "raw.mr"))
    assert list(FileReader(str(tmp_path / "raw.mr")).get_next()) == \
        [{"b": bytes(range(4 * i, 4 * i + 4))} for i in range(3)]


def test_dataset_save_errors(tmp_path):
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    with pytest.raises(ValueError, match="save: file_type must be 'mindrecord'"):
        data.save(str(tmp_path / "a.mr"), file_type="tfrecord")
    with pytest.raises(ValueError, match="save: the dataset has no rows"):
        data.filter(lambda x: False).save(str(tmp_path / "empty.mr"))
    assert not os.listdir(tmp_path)  # nothing left behind
    strings = ds.NumpySlicesDataset({"s": np.array([["a", "b"], ["c", "d"]])}, shuffle=False)
    with pytest.raises(ValueError, match="column 's' holds an array of strings"):
        strings.save(str(tmp_path / "s.mr"))
    data.save(str(tmp_path / "a.mr"))
    with pytest.raises(RuntimeError, match="exists"):
        data.save(str(tmp_path / "a.mr"))


# ---- MindDataset through the engine ---------------------------------------------------------

def _tuples(dataset):
    return list(dataset.create_tuple_iterator(output_numpy=True))


def test_mind_dataset_reads_shard_by_shard(tmp_path):
    paths = _write(tmp_path / "e.mr", 9, shard_num=2)
    order = _order(9, 2)
    for files in (paths[1], paths):
        rows = _tuples(ds.MindDataset(files, shuffle=False))
        assert len(rows) == 9
        for i, row in zip(order, rows):
            for got, want in zip(row, _expected(i)):
                _same(got, want, f"row {i}")
    dataset = ds.MindDataset(paths[0], columns_list=["name", "label"], shuffle=False)
    assert dataset.get_col_names() == ["name", "label"]
    assert [str(n) for n, _ in _tuples(dataset)] == [_row(i)["name"] for i in order]
    # One write_raw_data call: shard k holds the k-th run, so the rows read in write order.
    one = FileWriter(str(tmp_path / "w.mr"), 3)
    one.add_schema({"i": {"type": "int32"}})
    one.write_raw_data([{"i": i} for i in range(8)])
    one.commit()
    assert [int(r[0]) for r in _tuples(ds.MindDataset(one.paths[2], shuffle=False))] == \
        list(range(8))


@pytest.fixture
def _dataset_seed():
    """Sets the dataset seed to 7 for one test, then unsets it."""
    ds.config.set_seed(7)
    yield
    ds.config._seed = None


def test_mind_dataset_shuffle_and_shards(tmp_path, _dataset_seed):
    path = _write(tmp_path / "s.mr", 10, shard_num=3)[0]
    shuffled = [[int(r[0]) for r in _tuples(ds.MindDataset(path, columns_list=["label"],
                                                           num_parallel_workers=workers))]
                for workers in (1, 4)]
    assert shuffled[0] == shuffled[1]  # the same order whatever the number of readers
    assert sorted(shuffled[0]) == sorted(-i for i in range(10))
    assert shuffled[0] != sorted(shuffled[0], reverse=True)
    shards = [[int(r[0]) for r in _tuples(ds.MindDataset(path, columns_list=["label"],
                                                          num_shards=2, shard_id=k))]
              for k in range(2)]
    assert sorted(shards[0] + shards[1]) == sorted(-i for i in range(10))
    assert len(shards[0]) == len(shards[1]) == 5


def test_mind_dataset_file_and_infile_shuffle(tmp_path, _dataset_seed):
    path = _write(tmp_path / "f.mr", 12, shard_num=3)[0]
    by_file = [_order(12, 3)[k * 4:(k + 1) * 4] for k in range(3)]  # shard k's rows

    def epochs(shuffle, n=4, **kw):
        it = ds.MindDataset(path, columns_list=["label"], shuffle=shuffle,
                            **kw).create_tuple_iterator(num_epochs=n, output_numpy=True)
        return [[-int(r[0]) for r in it] for _ in range(n)]

    def blocks(order):
        return [order[k * 4:(k + 1) * 4] for k in range(3)]

    files = epochs(ds.Shuffle.FILES)
    for order in files:  # whole shard files, each in write order
        assert sorted(blocks(order)) == sorted(by_file)
    assert len({tuple(o) for o in files}) > 1  # a new file order across epochs
    infile = epochs(ds.Shuffle.INFILE)
    for order in infile:  # the files in order, each file's rows shuffled
        assert [sorted(b) for b in blocks(order)] == by_file
    assert any(b != sorted(b) for order in infile for b in blocks(order))
    assert epochs(ds.Shuffle.FILES, num_parallel_workers=4) == files
    shards = [epochs(ds.Shuffle.FILES, 1, num_shards=2, shard_id=k)[0] for k in range(2)]
    assert shards == [files[0][0::2], files[0][1::2]]  # one order, dealt round-robin
    with pytest.raises(RuntimeError, match="sampler and shuffle cannot be specified"):
        ds.MindDataset(path, shuffle=ds.Shuffle.FILES, sampler=ds.SequentialSampler())


def test_mind_dataset_padding(tmp_path):
    path = _write(tmp_path / "p.mr", 5)[0]
    pad = {"label": -100, "image": b"", "name": "pad"}
    labels = []
    for k in range(2):
        dataset = ds.MindDataset(path, columns_list=["label", "image"], shuffle=False,
                                 padded_sample=pad, num_padded=1, num_shards=2, shard_id=k)
        labels += [int(r[0]) for r in _tuples(dataset)]
    assert sorted(labels) == sorted([0, -1, -2, -3, -4, -100])
    with pytest.raises(ValueError, match="must be divisible by num_shards=2"):
        ds.MindDataset(path, columns_list=["label"], padded_sample=pad, num_padded=2,
                       num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="padded_sample is specified and requires columns_list"):
        ds.MindDataset(path, padded_sample=pad, num_padded=1, num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match=r"padded_sample cannot match columns_list: .*\['mat'\]"):
        ds.MindDataset(path, columns_list=["mat"], padded_sample=pad, num_padded=1,
                       num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="num_padded is specified but padded_sample is not"):
        ds.MindDataset(path, num_padded=1)
    with pytest.raises(TypeError, match=r"padded_sample, field 'label' \(int32\) must be an int"):
        ds.MindDataset(path, columns_list=["label"], padded_sample={"label": "x"},
                       num_padded=1, num_shards=1, shard_id=0)


def test_mind_dataset_errors(tmp_path):
    paths = _write(tmp_path / "m.mr", 4, shard_num=2)
    with pytest.raises(TypeError, match="dataset_files must be a file name or a non-empty list"):
        ds.MindDataset(3)
    with pytest.raises(ValueError, match="does not exist"):
        ds.MindDataset(str(tmp_path / "none.mr"))
    os.remove(paths[1])
    with pytest.raises(RuntimeError, match=r"shard 1 of the set of .*m.mr0 .* is missing"):
        ds.MindDataset(paths[0])
    # A flipped byte in a record: the error comes when a worker reads it, naming the file.
    path = _write(tmp_path / "r.mr", 4)[0]
    data = bytearray(open(path, "rb").read())
    data[-3] ^= 1  # the last page is the raw page: inside row 3's raw part
    open(path, "wb").write(bytes(data))
    with pytest.raises(RuntimeError, match=r"r.mr is truncated or corrupt \(record 3's raw part "
                                           r"fails its checksum"):
        _tuples(ds.MindDataset(path, shuffle=False))
