"""MindSpore's MindRecord behaviours beyond the format: rows with keys outside the schema
(not written), MindDataset's Shuffle.PARTIAL / Shuffle.ADAPTIVE and shuffle levels given
through RandomSampler / DistributedSampler, and the errors for broken, renamed or incomplete
sets in MindSpore's words (its tests match them); MindPage against the rows written, grouped
with numpy; FileWriter.open_for_append against the rows written."""
import json
import os
import re

import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import sources_text
from mycel.dataset.sources_text import Shuffle
from mycel.mindrecord import FileReader, FileWriter

SCHEMA = {"label": {"type": "int32"}, "name": {"type": "string"}}


def _write(path, n=12, shard_num=1):
    w = FileWriter(str(path), shard_num)
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema(SCHEMA)
    w.write_raw_data([{"label": i, "name": f"n{i}"} for i in range(n)])
    w.commit()
    return w.paths


def _labels(dataset):
    return [int(r["label"]) for r in dataset.create_dict_iterator(num_epochs=1,
                                                                  output_numpy=True)]


def test_keys_outside_the_schema_are_not_written(tmp_path):
    path = str(tmp_path / "x.mr")
    w = FileWriter(path)
    w.add_schema(SCHEMA)
    w.write_raw_data([{"label": 1, "name": "a", "extra": np.zeros(3), "id": "skip"}])
    w.commit()
    rows = list(FileReader(path).get_next())
    assert rows == [{"label": 1, "name": "a"}]


@pytest.mark.parametrize("level", [Shuffle.PARTIAL, Shuffle.ADAPTIVE, Shuffle.GLOBAL])
def test_partial_and_adaptive_shuffle_all_rows(tmp_path, level):
    path = _write(tmp_path / "s.mr", 40)[0]
    ds.config.set_seed(7)
    orders = [_labels(ds.MindDataset(path, shuffle=level)) for _ in range(2)]
    for order in orders:
        assert sorted(order) == list(range(40))
    assert orders[0] != list(range(40))  # shuffled (40! orders: never the identity by chance)


def test_partial_beyond_its_block_is_refused(tmp_path, monkeypatch):
    path = _write(tmp_path / "p.mr", 12)[0]
    monkeypatch.setattr(sources_text, "PARTIAL_ROWS", 5)
    with pytest.raises(ValueError, match="Shuffle.PARTIAL over 12 rows"):
        ds.MindDataset(path, shuffle=Shuffle.PARTIAL)
    monkeypatch.setattr(sources_text, "ADAPTIVE_ROWS", 10)
    with pytest.raises(ValueError, match="Shuffle.PARTIAL over 12 rows"):
        ds.MindDataset(path, shuffle=Shuffle.ADAPTIVE)
    monkeypatch.setattr(sources_text, "ADAPTIVE_ROWS", 12)
    assert sorted(_labels(ds.MindDataset(path, shuffle=Shuffle.ADAPTIVE))) == list(range(12))


def test_shuffle_levels_through_samplers(tmp_path):
    paths = _write(tmp_path / "f.mr", 12, shard_num=3)  # shards of rows 0-3, 4-7, 8-11
    ds.config.set_seed(3)
    got = _labels(ds.MindDataset(paths, sampler=ds.RandomSampler(shuffle=Shuffle.FILES)))
    blocks = [got[i:i + 4] for i in range(0, 12, 4)]
    assert sorted(map(tuple, blocks)) == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11)]
    got = _labels(ds.MindDataset(paths, sampler=ds.RandomSampler(shuffle=Shuffle.INFILE)))
    assert [sorted(got[i:i + 4]) for i in range(0, 12, 4)] == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    got = _labels(ds.MindDataset(paths, sampler=ds.RandomSampler(shuffle=Shuffle.ADAPTIVE)))
    assert sorted(got) == list(range(12))
    # DistributedSampler: GLOBAL/ADAPTIVE are shuffle=True; every row once over the shards.
    seen = []
    for k in range(3):
        seen += _labels(ds.MindDataset(paths, sampler=ds.DistributedSampler(
            3, k, shuffle=Shuffle.ADAPTIVE)))
    assert sorted(seen) == list(range(12))
    with pytest.raises(ValueError, match="shuffle must be one of Shuffle.GLOBAL, "
                                         "Shuffle.ADAPTIVE"):
        ds.DistributedSampler(3, 0, shuffle=Shuffle.FILES)
    with pytest.raises(ValueError, match="shuffle must be one of"):
        ds.RandomSampler(shuffle="sideways")
    _raises("only taken by MindDataset",
            lambda: ds.NumpySlicesDataset({"label": np.arange(4)},
                                          sampler=ds.RandomSampler(shuffle=Shuffle.FILES)),
            ValueError)


def _raises(match, make, error=RuntimeError):
    with pytest.raises(error, match=match):
        d = make()
        _labels(d)


def test_broken_sets_in_mindspores_words(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _raises("does not exist or permission denied", lambda: ds.MindDataset("none.mr"),
            ValueError)
    open("empty.mr", "wb").close()
    open("empty.mr.db", "wb").close()
    _raises("Invalid file, the size of mindrecord file: 0", lambda: ds.MindDataset("empty.mr"))
    _raises("Invalid file, the size of mindrecord file: 0",
            lambda: FileReader("empty.mr"))
    with open("junk.mr", "w") as f:
        f.write("just for test")
    open("junk.mr.db", "w").close()
    _raises("Invalid file, the size of mindrecord file header is larger than the upper limit.",
            lambda: ds.MindDataset("junk.mr"))
    # The index renamed away.
    _write("a.mr")
    os.rename("a.mr.db", "b.mr.db")
    for files in ("a.mr", ["a.mr"]):
        _raises("is not exists", lambda: ds.MindDataset(files))
    _raises(re.escape("a.mr.db exists and do not rename the mindrecord file and meta file."),
            lambda: ds.MindDataset("a.mr"))
    # The file and its index renamed together.
    os.rename("a.mr", "c.mr")
    os.rename("b.mr.db", "c.mr.db")
    _raises("can not be found. Please check whether the mindrecord file exists and do not "
            "rename the mindrecord file.", lambda: ds.MindDataset("c.mr"))
    _raises("can not match. Please do not rename the mindrecord file or meta file.",
            lambda: ds.MindDataset(["c.mr"]))
    # A shard of a set missing.
    paths = _write(tmp_path / "m.mr", 8, shard_num=4)
    os.remove(paths[2])
    _raises("can not be found. Please check whether the mindrecord file exists",
            lambda: ds.MindDataset(paths[0]))


def test_padded_sample_errors_in_mindspores_words(tmp_path):
    path = _write(tmp_path / "p.mr", 10)[0]
    pad = {"label": -1, "name": "pad"}
    _raises("num_padded is specified but padded_sample is not",
            lambda: ds.MindDataset(path, num_padded=2), ValueError)
    _raises("padded_sample is specified and requires num_padded as well",
            lambda: ds.MindDataset(path, ["label"], padded_sample=pad, num_shards=2,
                                   shard_id=0), ValueError)
    _raises("padded_sample is specified and requires columns_list as well",
            lambda: ds.MindDataset(path, padded_sample=pad, num_padded=2, num_shards=2,
                                   shard_id=0), ValueError)
    _raises(r"padded_sample cannot match columns_list: .*\['name'\]",
            lambda: ds.MindDataset(path, ["label", "name"], padded_sample={"label": -1},
                                   num_padded=2, num_shards=2, shard_id=0), ValueError)
    got = []
    for k in range(3):
        got += _labels(ds.MindDataset(path, ["label", "name"], padded_sample=pad, num_padded=2,
                                      num_shards=3, shard_id=k, shuffle=False))
    assert sorted(got) == [-1, -1] + list(range(10))


# ---- MindPage -------------------------------------------------------------------------------

def _page_set(path, n=23):
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 4, size=n).astype(np.int32) * 7 - 3
    scores = rng.integers(0, 3, size=n).astype(np.float32) / 2
    rows = [{"label": int(labels[i]), "name": f"f{i % 5}", "score": float(scores[i]),
             "blob": bytes([i]) * (i % 4)} for i in range(n)]
    w = FileWriter(str(path))
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema({"label": {"type": "int32"}, "name": {"type": "string"},
                  "score": {"type": "float32"}, "blob": {"type": "bytes"}})
    w.add_index(["name", "label", "score"])
    w.write_raw_data(rows)
    w.commit()
    return rows


def test_mindpage_groups_and_pages(tmp_path):
    import json
    from mycel.mindrecord import MindPage
    rows = _page_set(tmp_path / "pg.mr")
    page = MindPage(str(tmp_path / "pg.mr"))
    assert page.candidate_fields == ["name", "label", "score"]
    for field in ("label", "name", "score"):
        page.category_field = field
        assert page.category_field == field
        values = [r[field] for r in rows]
        keys, counts = np.unique(values, return_counts=True)  # ascending: MindSpore's ids
        info = json.loads(page.read_category_info())
        assert info["size"] == len(keys)
        assert [c["id"] for c in info["categories"]] == list(range(len(keys)))
        assert [c["count"] for c in info["categories"]] == counts.tolist()
        for cid, key in enumerate(keys):
            members = [r for r in rows if r[field] == key]
            name = info["categories"][cid]["name"]
            assert name == (key if field == "name" else str(float(key)) if field == "score"
                            else str(int(key)))
            for num_row in (1, 2, 5):
                for p in range(len(members) // num_row + 2):
                    want = members[p * num_row:(p + 1) * num_row]
                    for got in (page.read_at_page_by_id(cid, p, num_row),
                                page.read_at_page_by_name(name, p, num_row)):
                        assert [g["blob"] for g in got] == [w["blob"] for w in want]
                        assert [g["label"] for g in got] == [w["label"] for w in want]
                        assert all(isinstance(g["name"], str) for g in got)


def test_mindpage_errors(tmp_path):
    from mycel.mindrecord import (MindPage, MRMDefineCategoryError, MRMGetMetaError,
                                  ParamValueError, set_enc_key)
    _page_set(tmp_path / "e.mr")
    page = MindPage(str(tmp_path / "e.mr"))
    with pytest.raises(RuntimeError, match="set category_field first"):
        page.read_category_info()
    with pytest.raises(MRMDefineCategoryError, match="'blob' is not a candidate"):
        page.category_field = "blob"
    page.category_field = "label"
    n = len(json.loads(page.read_category_info())["categories"])
    for args in [(0, "0", 1), (0, 0, "b"), (-1, 0, 1), (0, -1, 1), (0, 0, 0)]:
        with pytest.raises(ParamValueError):
            page.read_at_page_by_id(*args)
    with pytest.raises(ParamValueError):
        page.read_at_page_by_name(1, 0, 1)
    with pytest.raises(RuntimeError, match=rf"category_id: {n} must be in the range "
                                           rf"\[0, {n - 1}\]"):
        page.read_at_page_by_id(n, 0, 1)
    with pytest.raises(RuntimeError, match="category_name: abc could not found"):
        page.read_at_page_by_name("abc", 0, 1)
    for bad in (None, "2"):
        with pytest.raises((ParamValueError, TypeError), match="Parameter num_consumer is"):
            MindPage(str(tmp_path / "e.mr"), bad)
    with pytest.raises(ParamValueError, match="shard_num's value: 1001 should between 1 and"):
        FileWriter(str(tmp_path / "w.mr"), 1001)
    with pytest.raises(ParamValueError, match="Parameter shard_num is None"):
        FileWriter(str(tmp_path / "w.mr"), None)
    with pytest.raises(MRMGetMetaError, match="Failed to get meta info"):
        FileWriter(str(tmp_path / "w.mr")).add_index(["label"])
    set_enc_key("0123456789abcdef")
    try:
        with pytest.raises(RuntimeError, match="The mindrecord file is not encrypted"):
            MindPage(str(tmp_path / "e.mr"))
        rows = _page_set(tmp_path / "enc.mr")
        page = MindPage(str(tmp_path / "enc.mr"))
        page.category_field = "name"
        assert len(page.read_at_page_by_name("f1", 0, 100)) == \
            sum(r["name"] == "f1" for r in rows)
    finally:
        set_enc_key(None)


# ---- FileWriter.open_for_append ---------------------------------------------------------------

def _info(path):
    from mycel import _mycel
    return _mycel._data.MindRecordSource([str(path)], True, [], "test").set_info()


@pytest.mark.parametrize("shard_num", [1, 3])
def test_open_for_append_keeps_shards_and_adds_rows(tmp_path, shard_num):
    from mycel.mindrecord import MindPage
    base = str(tmp_path / "ap.mr")
    w = FileWriter(base, shard_num)
    w.set_header_size(1 << 15)
    w.set_page_size(1 << 16)
    w.add_schema(SCHEMA, "appended set")
    w.add_index(["label"])
    w.write_raw_data([{"label": i, "name": f"old{i}"} for i in range(7)])
    w.commit()
    paths = w.paths

    def split(rows):  # FileWriter's split of one call over the shards
        each, extra, out, at = len(rows) // shard_num, len(rows) % shard_num, [], 0
        for k in range(shard_num):
            take = each + (k < extra)
            out.append(rows[at:at + take])
            at += take
        return out

    old, new = list(range(7)), list(range(100, 104))
    a = FileWriter.open_for_append(paths[-1])
    assert a.paths == paths
    a.write_raw_data([{"label": i, "name": f"new{i}"} for i in new])
    assert [r["label"] for r in FileReader(paths[0]).get_next()] == old  # not yet committed
    a.commit()
    want = [x for o, n in zip(split(old), split(new)) for x in o + n]
    got = list(FileReader(paths[0]).get_next())
    assert [r["label"] for r in got] == want
    assert [r["name"] for r in got] == [("old" if x < 100 else "new") + str(x) for x in want]
    info = _info(paths[0])
    assert (info["header_size"], info["page_size"], info["desc"]) == (1 << 15, 1 << 16,
                                                                       "appended set")
    assert MindPage(paths[0]).candidate_fields == ["label"]


def test_open_for_append_encrypted(tmp_path):
    from mycel.mindrecord import set_enc_key
    path = str(tmp_path / "ea.mr")
    set_enc_key("0123456789abcdef")
    try:
        _write(path, 4)
        a = FileWriter.open_for_append(path)
        a.write_raw_data([{"label": 9, "name": "n9"}])
        a.commit()
        assert open(path, "rb").read()[-7:] == b"ENCRYPT"
        assert [r["label"] for r in FileReader(path).get_next()] == [0, 1, 2, 3, 9]
        set_enc_key(None)
        with pytest.raises(RuntimeError, match="The mindrecord file is encrypted"):
            FileWriter.open_for_append(path)
    finally:
        set_enc_key(None)
    with pytest.raises(ValueError, match="does not exist"):
        FileWriter.open_for_append(str(tmp_path / "none.mr"))


def test_writer_errors_in_mindspores_words(tmp_path):
    path = str(tmp_path / "w.mr")
    with open(path, "w") as f:
        f.write("just for test")
    with pytest.raises(RuntimeError, match="Invalid file, mindrecord files already exist. "
                                           "Please check file path:"):
        FileWriter(path)
    os.remove(path)
    open(path + ".db", "w").close()
    with pytest.raises(RuntimeError, match="mindrecord files already exist"):
        FileWriter(path)
    os.remove(path + ".db")
    w = FileWriter(path)
    for bad, error in [({"a": {"type": "str"}}, ValueError), ({"a": "int32"}, ValueError),
                       ({"a": {"type": "int32", "shape": "2"}}, TypeError),
                       ({"a b": {"type": "int32"}}, ValueError)]:
        with pytest.raises(error, match="Schema format is error"):
            w.add_schema(bad)
    assert w.add_schema({"a": {"type": "int32"}}) == 0
