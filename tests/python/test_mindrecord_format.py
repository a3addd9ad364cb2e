"""MindRecord in MindSpore's format, checked against a writer and a reader of the test's own
(mindrecord_ms.py: struct, json, sqlite3 and a small MessagePack codec, written from the
format's description): files built by that writer load through MindDataset and FileReader
with every field type and layout (several blobs with compressed integer arrays, one blob, no
blob, no raw field); FileWriter's files read back through that reader and follow the layout
(header keys and values, blob order, compressed integers, the SQLite tables MindSpore
creates); damaged files of MindSpore's (which carry no checksums) give clear errors."""
import json
import os
import re
import sqlite3
import struct

import numpy as np
import pytest

import mycel.dataset as ds
from mycel.mindrecord import FileReader, FileWriter

import mindrecord_ms as msf

ALL = {"label": {"type": "int32"}, "id": {"type": "int64"}, "score": {"type": "float32"},
       "weight": {"type": "float64"}, "name": {"type": "string"}, "image": {"type": "bytes"},
       "mat": {"type": "float32", "shape": [2, 3]}, "seq": {"type": "int64", "shape": [-1, 2]},
       "ids": {"type": "int32", "shape": [-1]}, "dbl": {"type": "float64", "shape": [3]}}


def _value(name, spec, i):
    """Field `name` of row i: values that need every integer width and float precision."""
    t, rng = spec["type"], np.random.default_rng(i * 31 + len(name))
    if t == "string":
        return f"row {i} é" + "x" * (i % 40)
    if t == "bytes":
        return rng.integers(0, 256, size=i % 7, dtype=np.uint8).tobytes()
    if "shape" in spec:
        n = int(np.prod([d for d in spec["shape"] if d != -1]))
        if -1 in spec["shape"]:
            n *= i % 4
        if t.startswith("int"):
            scale = {0: 100, 1: 30000, 2: 2 ** 30, 3: 2 ** 62}[i % 4]
            scale = min(scale, 2 ** 30) if t == "int32" else scale
            return rng.integers(-scale, scale, size=n).astype(t)
        return rng.standard_normal(n).astype(t)
    if t == "int32":
        return int(rng.integers(-2 ** 31, 2 ** 31))
    if t == "int64":
        return int(rng.integers(-2 ** 62, 2 ** 62))
    return float(np.float32(rng.standard_normal())) if t == "float32" else \
        float(rng.standard_normal())


def _rows(schema, n):
    return [{k: _value(k, v, i) for k, v in schema.items()} for i in range(n)]


def _check(got, want, spec, what, flat=False):
    """got (as a reader gives it) equals want (as written); flat: arrays come 1-d (the test's
    own reader keeps a blob's elements as they lie)."""
    t = spec["type"]
    if t == "string":
        assert str(got) == want, what
    elif t == "bytes":
        assert bytes(np.asarray(got, np.uint8)) == want if not isinstance(got, bytes) \
            else got == want, what
    elif "shape" in spec:
        w = np.asarray(want).reshape(-1 if flat else spec["shape"])
        assert got.dtype == np.dtype(t) and got.shape == w.shape, (what, got.shape, w.shape)
        np.testing.assert_array_equal(got, w, err_msg=what)
    elif isinstance(got, (int, float)):  # the test's own reader: MessagePack's Python values
        assert got == want, (what, got, want)
    else:
        assert np.asarray(got).dtype == np.dtype(t), what
        assert np.asarray(got)[()] == np.asarray(want, t)[()], (what, got, want)


LAYOUTS = {
    "all_types": ALL,  # several blobs, integer arrays compressed
    "one_int_blob": {"label": {"type": "int64"}, "ids": {"type": "int32", "shape": [-1]}},
    "one_float_blob": {"x": {"type": "float32", "shape": [4]}, "name": {"type": "string"}},
    "no_blob": {"label": {"type": "int32"}, "w": {"type": "float64"}, "s": {"type": "string"}},
    "no_raw": {"img": {"type": "bytes"}, "seq": {"type": "int64", "shape": [-1, 2]}},
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_files_in_mindspore_format_load(tmp_path, layout):
    schema = LAYOUTS[layout]
    rows = _rows(schema, 23)
    paths = msf.write_set(str(tmp_path / "ms.mindrecord"), schema, rows, shard_num=3,
                          rows_per_group=4)
    assert sorted(os.listdir(tmp_path)) == sorted(
        f"ms.mindrecord{k}{e}" for k in range(3) for e in ("", ".db"))
    # One write: shard k holds the k-th run, so reading shard by shard is the write order.
    for files in (paths[1], paths):
        data = ds.MindDataset(files, shuffle=False)
        assert data.get_col_names() == sorted(schema)  # the header's order: MindSpore sorts
        got = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
        assert len(got) == 23
        for i, (g, w) in enumerate(zip(got, rows)):
            for name, spec in schema.items():
                _check(g[name], w[name], spec, f"{layout} row {i} {name}")
    reader = FileReader(paths[2], num_consumer=2)
    assert reader.schema() == schema
    for i, (g, w) in enumerate(zip(reader.get_next(), rows)):
        for name, spec in schema.items():
            _check(g[name], w[name], spec, f"FileReader {layout} row {i} {name}")
    # MindDataset drives a pipeline as any source does.
    scalars = [k for k, v in schema.items() if v["type"] != "bytes" and "shape" not in v]
    if scalars:
        batched = ds.MindDataset(paths[0], columns_list=scalars[:1], shuffle=False).batch(5)
        assert sum(b[0].shape[0] for b in batched.create_tuple_iterator(output_numpy=True)) == 23


def test_file_writer_output_follows_the_format(tmp_path):
    rows = _rows(ALL, 17)
    w = FileWriter(str(tmp_path / "out.mr"), 2)
    w.set_header_size(1 << 15)
    w.set_page_size(1 << 16)
    w.add_schema(ALL, "written by mycel")
    w.write_raw_data(rows[:9])
    w.write_raw_data(rows[9:])
    w.commit()
    # Each call splits into two runs (5 + 4, 4 + 4): shard 0 holds rows 0-4 and 9-12.
    order = list(range(0, 5)) + list(range(9, 13)) + list(range(5, 9)) + list(range(13, 17))
    got = msf.read_set(w.paths[0])
    assert len(got) == 17
    for g, i in zip(got, order):
        for name, spec in ALL.items():
            _check(g[name], rows[i][name], spec, f"row {i} {name}", flat=True)

    for k, path in enumerate(w.paths):
        h = msf.read_header(path)
        assert h["version"] == "3.0" and h["shard_id"] == k
        assert h["header_size"] == 1 << 15 and h["page_size"] == 1 << 16
        assert h["shard_addresses"] == ["out.mr0", "out.mr1"]
        assert h["statistics"] is None and h["compression_size"] > 0
        [s] = h["schema"]
        assert s["schema"] == ALL and s["desc"] == "written by mycel" and s["schema_id"] == 0
        assert s["blob_fields"] == sorted(["image", "mat", "seq", "ids", "dbl"])
        # MindSpore's default index: every scalar and string field
        assert [f["index_field"] for f in h["index_fields"]] == \
            ["label", "id", "score", "weight", "name"]
        assert {f["schema_id"] for f in h["index_fields"]} == {0}
        blob = [p for p in h["page"] if p["page_type"] == "BLOB_DATA"]
        raw = [p for p in h["page"] if p["page_type"] == "RAW_DATA"]
        assert [p["page_id"] for p in h["page"]] == list(range(len(h["page"])))
        assert sum(p["end_row_id"] - p["start_row_id"] for p in blob) == (9 if k == 0 else 8)
        groups = [g["id"] for p in raw for g in p["row_group_ids"]]
        assert groups == [p["page_type_id"] for p in blob]
        assert os.path.getsize(path) == max(h["header_size"] + p["page_id"] * h["page_size"] +
                                            p["page_size"] for p in h["page"])
        con = sqlite3.connect(f"file:{path}.db?mode=ro", uri=True)
        cols = [c[1] for c in con.execute("PRAGMA table_info(INDEXES)")]
        assert cols == ["ROW_ID", "PAGE_ID_RAW", "PAGE_OFFSET_RAW", "PAGE_OFFSET_RAW_END",
                        "ROW_GROUP_ID", "PAGE_ID_BLOB", "PAGE_OFFSET_BLOB",
                        "PAGE_OFFSET_BLOB_END", "INC_0", "label_0", "INC_1", "id_0", "INC_2",
                        "score_0", "INC_3", "weight_0", "INC_4", "name_0"]
        mine = order[:9] if k == 0 else order[9:]
        assert con.execute("SELECT label_0, name_0 FROM INDEXES ORDER BY ROW_ID").fetchall() == \
            [(rows[i]["label"], rows[i]["name"]) for i in mine]
        assert con.execute("SELECT NAME FROM SHARD_NAME").fetchall() == [(f"out.mr{k}",)]
        con.close()


def test_compressed_integers_match_mindspore(tmp_path):
    """The blob of a lone integer array is MindSpore's compressed form, byte for byte."""
    w = FileWriter(str(tmp_path / "c.mr"))
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema({"v": {"type": "int64", "shape": [-1]}})
    values = np.array([0, -1, 127, -128, 128, 40000, -2 ** 31, 2 ** 31, -2 ** 63, 5], np.int64)
    w.write_raw_data([{"v": values}])
    w.commit()
    h = msf.read_header(w.paths[0])
    [page] = [p for p in h["page"] if p["page_type"] == "BLOB_DATA"]
    with open(w.paths[0], "rb") as f:
        f.seek(h["header_size"] + page["page_id"] * h["page_size"])
        n = struct.unpack("<Q", f.read(8))[0]
        blob = f.read(n)
    assert blob == msf.compress_ints(values)
    # widths 1,1,1,1,2,4,4,8,8,1: count, 3 bytes of 2-bit codes, then the values
    assert blob[:4] == b"\0\0\0\x0a" and len(blob) == 4 + 3 + (4 + 2 + 4 + 4 + 8 + 8 + 1)
    assert h["compression_size"] == values.nbytes - len(blob)


def test_default_sizes_match_mindspore(tmp_path):
    w = FileWriter(str(tmp_path / "d.mr"))
    w.add_schema({"x": {"type": "int32"}})
    w.write_raw_data([{"x": 7}])
    w.commit()
    h = msf.read_header(w.paths[0])
    assert (h["header_size"], h["page_size"]) == (1 << 24, 1 << 25)
    assert [r["x"] for r in msf.read_shard(w.paths[0])] == [7]
    with pytest.raises(ValueError, match=r"FileWriter: header_size must be a multiple of 4 in"):
        FileWriter(str(tmp_path / "e.mr")).set_header_size(1000)
    with pytest.raises(ValueError, match=r"FileWriter: page_size must be a multiple of 4 in"):
        FileWriter(str(tmp_path / "e.mr")).set_page_size((1 << 15) + 1)
    small = FileWriter(str(tmp_path / "f.mr"))
    small.set_page_size(1 << 15)
    small.add_schema({"b": {"type": "bytes"}})
    with pytest.raises(ValueError, match="row 0 takes up to .* bytes, more than a page holds"):
        small.write_raw_data([{"b": b"x" * (1 << 15)}])


# ---- Damaged files of MindSpore's (no checksums: the structure is what is checked) --------

def _ms_set(tmp_path, schema=None, n=6):
    schema = schema or ALL
    return msf.write_set(str(tmp_path / "b.mr"), schema, _rows(schema, n), rows_per_group=2)[0]


def _read_all(path):
    for _ in ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True):
        pass


def _fails(path, match, error=RuntimeError):
    with pytest.raises(error, match=match):
        _read_all(path)


def _rewrite_header(path, change):
    data = bytearray(open(path, "rb").read())
    n = struct.unpack("<Q", data[:8])[0]
    h = json.loads(data[8:8 + n])
    change(h)
    text = json.dumps(h, sort_keys=True).encode()
    data[:8 + n] = struct.pack("<Q", len(text)) + text + b" " * max(0, n - len(text))
    open(path, "wb").write(bytes(data))


def test_truncated_mindspore_files(tmp_path):
    path = _ms_set(tmp_path)
    data = open(path, "rb").read()
    corrupt = f"MindDataset: {re.escape(path)} is truncated or corrupt"
    n = struct.unpack("<Q", data[:8])[0]
    for cut in [0, 5, 8, 8 + n // 2, 8 + n, 1 << 14, (1 << 14) + 3, len(data) - 9,
                len(data) - 1]:
        open(path, "wb").write(data[:cut])
        _fails(path, corrupt)
    open(path, "wb").write(data)
    _read_all(path)


def test_damaged_mindspore_index(tmp_path):
    path = _ms_set(tmp_path)
    db = path + ".db"
    good = open(db, "rb").read()
    corrupt_db = f"MindDataset: {re.escape(db)} is truncated or corrupt"
    open(db, "wb").write(good[:len(good) // 2])
    _fails(path, corrupt_db)
    open(db, "wb").write(b"not a database" * 100)
    _fails(path, corrupt_db)
    for sql, match in [
            ("UPDATE INDEXES SET PAGE_OFFSET_BLOB_END = 99999 WHERE ROW_ID = 3",
             "row 3 of the index lies outside its pages"),
            ("UPDATE INDEXES SET PAGE_ID_RAW = 0 WHERE ROW_ID = 1",
             "row 1 of the index names page 0, not a raw page"),
            ("UPDATE INDEXES SET PAGE_OFFSET_RAW_END = PAGE_OFFSET_RAW_END - 1 WHERE ROW_ID = 2",
             "record 2's raw part length disagrees with the index"),
            ("DELETE FROM INDEXES WHERE ROW_ID = 5", "the index has 5 rows, the blob pages 6"),
            ("UPDATE INDEXES SET ROW_ID = 9 WHERE ROW_ID = 0", "row 1 where row 0 belongs"),
            ("UPDATE INDEXES SET PAGE_OFFSET_RAW = 'x' WHERE ROW_ID = 0",
             "PAGE_OFFSET_RAW is not an integer"),
            ("DROP TABLE INDEXES", "not a MindRecord index")]:
        open(db, "wb").write(good)
        con = sqlite3.connect(db)
        con.execute(sql)
        con.commit()
        con.close()
        with pytest.raises(RuntimeError, match=match):
            _read_all(path)
    os.remove(db)
    _fails(path, r"the index .*b.mr.db of .*b.mr is missing")


def test_damaged_mindspore_headers_and_records(tmp_path):
    path = _ms_set(tmp_path)
    good = open(path, "rb").read()
    corrupt = f"MindDataset: {re.escape(path)} is truncated or corrupt"
    for change, match in [
            (lambda h: h.update(version="9.9"), "unsupported header version"),
            (lambda h: h.update(page_size=100), "page_size 100 is out of range"),
            (lambda h: h["schema"][0].update(blob_fields=["image"]),
             "blob_fields do not match its schema"),
            (lambda h: h.update(shard_addresses=["../x"]), "a shard address is not a file name"),
            (lambda h: h["page"][0].update(page_size=1 << 20), "overfills page_size"),
            (lambda h: h["page"][1].update(page_id=0), "out of order"),
            (lambda h: h["schema"][0]["schema"].update(x={"type": "int8"}),
             "field 'x' has no known type")]:
        open(path, "wb").write(good)
        _rewrite_header(path, change)
        _fails(path, f"{corrupt} \\(.*{match}")
    open(path, "wb").write(good)
    _rewrite_header(path, lambda h: h["schema"][0]["schema"].update(
        bad={"type": "int32", "shape": [-1, -1]}))
    _fails(path, "has an invalid schema in its header: .*at most one dimension", ValueError)
    open(path, "wb").write(b"\xff" * 8 + good[8:])
    _fails(path, f"{corrupt} \\(the header length")

    # Records: a raw part that is not a flat MessagePack map, a deeply nested one (refused
    # before the parser recurses), a compressed array claiming too many elements.
    open(path, "wb").write(good)
    h = msf.read_header(path)
    con = sqlite3.connect(f"file:{path}.db?mode=ro", uri=True)
    (rp, ro, re_), = con.execute("SELECT PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END FROM "
                                 "INDEXES WHERE ROW_ID = 4").fetchall()
    (bp, bo, be), = con.execute("SELECT PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END "
                                "FROM INDEXES WHERE ROW_ID = 4").fetchall()
    con.close()
    raw_at = h["header_size"] + rp * h["page_size"] + ro + 8
    blob_at = h["header_size"] + bp * h["page_size"] + bo + 8
    for at, body, match in [
            (raw_at, b"\x91" * (re_ - ro - 8), "record 4: a raw record must be a map of scalars"),
            (raw_at, b"\x81\xa1a" + b"\x91" * (re_ - ro - 11),
             "record 4: a raw record must be a map"),
            (raw_at, b"\xc1" * (re_ - ro - 8), "record 4: .*"),
            (blob_at, b"\xff" * 8, "record 4: field 'dbl' overruns the blob")]:
        data = bytearray(good)
        data[at:at + len(body)] = body
        open(path, "wb").write(bytes(data))
        _fails(path, f"{corrupt} \\({match}")
    # the int32 array 'ids': its compressed count says more elements than its bytes hold
    open(path, "wb").write(good)
    blob = bytearray(good[blob_at:blob_at + be - bo - 8])
    pieces, at = [], 0
    for name in sorted(["dbl", "ids", "image", "mat", "seq"]):
        n = struct.unpack(">Q", blob[at:at + 8])[0]
        pieces.append((name, at + 8, n))
        at += 8 + n
    [(_, ids_at, ids_len)] = [p for p in pieces if p[0] == "ids"]
    data = bytearray(good)
    data[blob_at + ids_at:blob_at + ids_at + 4] = struct.pack(">I", 10 ** 6)
    open(path, "wb").write(bytes(data))
    _fails(path, f"{corrupt} \\(record 4: field 'ids': a compressed integer array claims")
