"""The text corpora datasets (mycel/dataset/sources_text_corpora.py): each test writes small
files in the corpus's format under tmp_path and checks the rows against what the files say,
plus the shared rules: usage, num_samples, shuffle=False reader order, shards, errors."""
import json
import os

import numpy as np
import pytest

import mycel.dataset as ds


def rows(dataset, *columns):
    out = []
    for r in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
        vals = [r[c].tolist() for c in columns]
        out.append(vals[0] if len(vals) == 1 else tuple(vals))
    return out


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


@pytest.fixture
def workers1():
    old = ds.config.get_num_parallel_workers()
    ds.config.set_num_parallel_workers(1)
    yield
    ds.config.set_num_parallel_workers(old)


# ----- CSV corpora -----

def test_ag_news_columns_quotes_and_usage(tmp_path, workers1):
    write(tmp_path / "train.csv", '1,"A title","Text with ""quotes"", and a comma"\n2,T2,D2\n')
    write(tmp_path / "test.csv", "3,T3,D3\n")
    d = ds.AGNewsDataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["index", "title", "description"]
    assert rows(d, "index", "title", "description") == [
        ("1", "A title", 'Text with "quotes", and a comma'), ("2", "T2", "D2")]
    # 'all' reads train.csv then test.csv (MindSpore's order for the CSV corpora)
    assert rows(ds.AGNewsDataset(str(tmp_path), shuffle=False), "index") == ["1", "2", "3"]
    assert ds.AGNewsDataset(str(tmp_path), usage="test").get_dataset_size() == 1


@pytest.mark.parametrize("cls,columns", [
    (ds.AmazonReviewDataset, ["label", "title", "content"]),
    (ds.DBpediaDataset, ["class", "title", "content"]),
    (ds.SogouNewsDataset, ["index", "title", "content"]),
    (ds.YahooAnswersDataset, ["class", "title", "content", "answer"]),
    (ds.YelpReviewDataset, ["label", "text"]),
])
def test_csv_corpora_columns(tmp_path, cls, columns):
    line = ",".join(f"v{i}" for i in range(len(columns)))
    write(tmp_path / "train.csv", line + "\n")
    write(tmp_path / "test.csv", line + "\n" + line + "\n")
    d = cls(str(tmp_path), usage="test", shuffle=False)
    assert d.get_col_names() == columns
    assert rows(d, *columns) == [tuple(f"v{i}" for i in range(len(columns)))] * 2


def test_sst2_usages(tmp_path):
    write(tmp_path / "train.tsv", "sentence\tlabel\ngood film .\t1\nbad .\t0\n")
    write(tmp_path / "test.tsv", "index\tsentence\n0\tsome text .\n")
    write(tmp_path / "dev.tsv", "sentence\tlabel\nok .\t1\n")
    tr = ds.SST2Dataset(str(tmp_path), shuffle=False)
    assert rows(tr, "sentence", "label") == [("good film .", "1"), ("bad .", "0")]
    te = ds.SST2Dataset(str(tmp_path), usage="test", shuffle=False)
    assert te.get_col_names() == ["sentence"]
    assert rows(te, "sentence") == ["some text ."]
    with pytest.raises(ValueError, match="usage"):
        ds.SST2Dataset(str(tmp_path), usage="all")


# ----- line corpora and MindSpore's reader order -----

def _ptb(tmp_path):
    for split in ("train", "test", "valid"):
        write(tmp_path / f"ptb.{split}.txt", "".join(f"{split} {i}\n" for i in range(3)))
    return str(tmp_path)


def test_penn_treebank_reader_order(tmp_path):
    d = _ptb(tmp_path)
    old = ds.config.get_num_parallel_workers()
    try:
        ds.config.set_num_parallel_workers(1)  # one reader: the files one after another
        one = rows(ds.PennTreebankDataset(d, usage="all", shuffle=False), "text")
        assert one == [f"{s} {i}" for s in ("test", "train", "valid") for i in range(3)]
        ds.config.set_num_parallel_workers(4)  # a reader per file, rows taken in turn
        four = rows(ds.PennTreebankDataset(d, usage="all", shuffle=False), "text")
        assert four == [f"{s} {i}" for i in range(3) for s in ("test", "train", "valid")]
    finally:
        ds.config.set_num_parallel_workers(old)


def test_reader_order_shards_are_contiguous(tmp_path, workers1):
    d = _ptb(tmp_path)
    got = [rows(ds.PennTreebankDataset(d, shuffle=False, num_shards=2, shard_id=s), "text")
           for s in range(2)]
    every = [f"{s} {i}" for s in ("test", "train", "valid") for i in range(3)]
    assert got[0] == every[:5]
    assert got[1] == every[5:] + every[:1]  # ceil(9 / 2) rows each, wrapping around


def test_shuffled_shards_keep_contiguous_rows(tmp_path, workers1):
    d = _ptb(tmp_path)
    every = [f"{s} {i}" for s in ("test", "train", "valid") for i in range(3)]
    for s in range(2):
        got = rows(ds.PennTreebankDataset(d, num_shards=2, shard_id=s), "text")
        want = every[:5] if s == 0 else every[5:] + every[:1]
        assert sorted(got) == sorted(want)


def test_empty_dataset_files():
    with pytest.raises(ValueError, match="Input dataset_files can not be empty"):
        ds.TextFileDataset("")


def test_wikitext_enwik9_and_num_samples(tmp_path, workers1):
    for split in ("train", "test", "valid"):
        write(tmp_path / f"wiki.{split}.tokens", f" = {split} = \n")
    d = ds.WikiTextDataset(str(tmp_path), usage="valid", shuffle=False)
    assert rows(d, "text") == [" = valid = "]
    write(tmp_path / "enwik9", "<page>\n  <title>x</title>\n</page>\n")
    e = ds.EnWik9Dataset(str(tmp_path), shuffle=False, num_samples=2)
    assert rows(e, "text") == ["<page>", "  <title>x</title>"]
    assert len(rows(ds.EnWik9Dataset(str(tmp_path), num_samples=0), "text")) == 3
    with pytest.raises(ValueError, match="num_samples exceeds the boundary"):
        ds.EnWik9Dataset(str(tmp_path), num_samples=-1)


def test_missing_folder_and_usage(tmp_path):
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.PennTreebankDataset(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ds.PennTreebankDataset(_ptb(tmp_path), usage="dev")


# ----- token tables -----

def test_conll2000_sentences(tmp_path, workers1):
    write(tmp_path / "train.txt", "He PRP B-NP\nruns VBZ B-VP\n. . O\n\nOk UH O\n")
    write(tmp_path / "test.txt", "\nA DT B-NP\n\n\n")
    d = ds.CoNLL2000Dataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["word", "pos_tag", "chunk_tag"]
    got = rows(d, "word", "pos_tag", "chunk_tag")
    assert got == [(["He", "runs", "."], ["PRP", "VBZ", "."], ["B-NP", "B-VP", "O"]),
                   (["Ok"], ["UH"], ["O"])]
    assert rows(ds.CoNLL2000Dataset(str(tmp_path), shuffle=False), "word") == [
        ["A"], ["He", "runs", "."], ["Ok"]]


def test_conll2000_bad_line(tmp_path):
    write(tmp_path / "train.txt", "He PRP\n")
    with pytest.raises(RuntimeError, match=r"train.txt:1: the line has 2 fields"):
        ds.CoNLL2000Dataset(str(tmp_path), usage="train")


def test_udpos_tabs(tmp_path, workers1):
    write(tmp_path / "en-ud-tag.v2.train.txt", "New York\tPROPN\tNNP\nis\tAUX\tVBZ\n\n")
    write(tmp_path / "en-ud-tag.v2.dev.txt", "x\tX\tFW\n")
    write(tmp_path / "en-ud-tag.v2.test.txt", "y\tX\tFW\n")
    d = ds.UDPOSDataset(str(tmp_path), usage="train", shuffle=False)
    assert rows(d, "word", "universal", "stanford") == [
        (["New York", "is"], ["PROPN", "AUX"], ["NNP", "VBZ"])]
    assert rows(ds.UDPOSDataset(str(tmp_path), usage="valid", shuffle=False), "word") == [["x"]]


# ----- CLUE, SQuAD -----

def test_clue_tasks(tmp_path, workers1):
    f = write(tmp_path / "wsc.json", json.dumps({
        "target": {"span1_index": 0, "span1_text": "A", "span2_index": 4, "span2_text": "he"},
        "idx": 7, "text": "A said he", "label": "true"}) + "\n")
    d = ds.CLUEDataset(f, task="WSC", usage="train", shuffle=False)
    assert d.get_col_names() == ["span1_index", "span2_index", "span1_text", "span2_text", "idx",
                                 "label", "text"]
    r = next(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert r["span2_index"].dtype == np.int64 and r["span2_index"] == 4
    assert r["idx"] == 7 and r["span1_text"] == "A" and r["label"] == "true"
    f2 = write(tmp_path / "csl.json", json.dumps({"id": 3, "abst": "t", "keyword": ["k1", "k2"]}))
    r2 = next(ds.CLUEDataset(f2, task="CSL", usage="test").create_dict_iterator(
        num_epochs=1, output_numpy=True))
    assert r2["keyword"].tolist() == ["k1", "k2"] and r2["id"] == 3
    with pytest.raises(RuntimeError, match="no key 'label'"):
        ds.CLUEDataset(f2, task="CSL", usage="train")
    with pytest.raises(ValueError, match="did not match any files"):
        ds.CLUEDataset(str(tmp_path), task="CSL")


def test_squad(tmp_path, workers1):
    doc = {"data": [{"title": "t", "paragraphs": [{"context": "ctx one", "qas": [
        {"question": "q1", "id": "1", "answers": [{"text": "one", "answer_start": 4},
                                                  {"text": "ctx", "answer_start": 0}]},
        {"question": "q2", "id": "2", "answers": [], "is_impossible": True}]}]}]}
    write(tmp_path / "train-v2.0.json", json.dumps(doc))
    write(tmp_path / "dev-v2.0.json", json.dumps({"data": []}))
    d = ds.SQuADDataset(str(tmp_path), usage="train", shuffle=False)
    got = list(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [g["question"].tolist() for g in got] == ["q1", "q2"]
    assert got[0]["text"].tolist() == ["one", "ctx"]
    assert got[0]["answer_start"].dtype == np.uint32
    assert got[0]["answer_start"].tolist() == [4, 0]
    assert got[1]["text"].tolist() == [""]
    assert ds.SQuADDataset(str(tmp_path)).get_dataset_size() == 2


# ----- parallel text -----

def test_multi30k_pairs_and_language_pair(tmp_path, workers1):
    write(tmp_path / "training/train.en", "a dog\na cat\n")
    write(tmp_path / "training/train.de", "ein Hund\neine Katze\n")
    write(tmp_path / "validation/val.en", "x\n")
    write(tmp_path / "validation/val.de", "y\n")
    write(tmp_path / "mmt16_task1_test/test.en", "t\n")
    write(tmp_path / "mmt16_task1_test/test.de", "u\n")
    d = ds.Multi30kDataset(str(tmp_path), usage="train", shuffle=False)
    assert rows(d, "text", "translation") == [("a dog", "ein Hund"), ("a cat", "eine Katze")]
    r = ds.Multi30kDataset(str(tmp_path), usage="train", language_pair=["de", "en"],
                           shuffle=False)
    assert rows(r, "text")[0] == "ein Hund"
    assert len(rows(ds.Multi30kDataset(str(tmp_path), shuffle=False), "text")) == 4
    with pytest.raises(ValueError, match="language_pair should be a list or tuple of length 2"):
        ds.Multi30kDataset(str(tmp_path), language_pair=["en", "de", "fr"])
    write(tmp_path / "training/train.de", "nur eine\n")
    with pytest.raises(RuntimeError, match="parallel files must hold as many"):
        ds.Multi30kDataset(str(tmp_path), usage="train")


def test_iwslt2016_tags_and_xml(tmp_path, workers1):
    folder = tmp_path / "texts/de/en/de-en"
    write(folder / "train.tags.de-en.de", "<url>u</url>\n<talkid>1</talkid>\nHallo Welt\n")
    write(folder / "train.tags.de-en.en", "<url>u</url>\n<talkid>1</talkid>\nHello world\n")
    for s, de, en in (("tst2013", "Eins", "One"), ("tst2014", "Zwei", "Two")):
        for lang, t in (("de", de), ("en", en)):
            write(folder / f"IWSLT16.TED.{s}.de-en.{lang}.xml",
                  f'<mteval><doc><seg id="1"> {t} </seg></doc></mteval>\n')
    d = ds.IWSLT2016Dataset(str(tmp_path), usage="train", shuffle=False)
    assert rows(d, "text", "translation") == [("Hallo Welt", "Hello world")]
    allrows = rows(ds.IWSLT2016Dataset(str(tmp_path), usage="all", shuffle=False), "text")
    assert allrows == ["Hallo Welt", "Eins", "Zwei"]


# ----- IMDB -----

def test_imdb(tmp_path):
    for usage in ("train", "test"):
        for sub in ("pos", "neg", "unsup"):
            for i in range(2):
                write(tmp_path / usage / sub / f"{i}.txt", f"{usage} {sub} {i}")
    d = ds.IMDBDataset(str(tmp_path), shuffle=False)
    got = rows(d, "text", "label")
    assert got == [(f"{u} {s} {i}", 1 if s == "pos" else 0)
                   for u in ("train", "test") for s in ("pos", "neg") for i in range(2)]
    r = next(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert r["label"].dtype == np.uint32
    s = ds.IMDBDataset(str(tmp_path), usage="test", sampler=ds.SequentialSampler(1, 2))
    assert rows(s, "text") == ["test pos 1", "test neg 0"]
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.IMDBDataset(str(tmp_path / "missing"))


def test_invalid_utf8_line_is_an_error_when_read(tmp_path):
    (tmp_path / "enwik9").write_bytes(b"<page>\n\xff\xfe broken\n")
    d = ds.EnWik9Dataset(str(tmp_path), shuffle=False)
    with pytest.raises(RuntimeError, match=r"enwik9:2: the line is not valid UTF-8 text"):
        rows(d, "text")


def test_amazon_review_all_reads_test_first(tmp_path, workers1):
    write(tmp_path / "train.csv", "1,a,b\n")
    write(tmp_path / "test.csv", "2,c,d\n")
    assert rows(ds.AmazonReviewDataset(str(tmp_path), shuffle=False), "label") == ["2", "1"]
    assert rows(ds.SogouNewsDataset(str(tmp_path), shuffle=False), "index") == ["1", "2"]
