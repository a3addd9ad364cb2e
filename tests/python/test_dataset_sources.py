"""File source datasets against Python oracles reading the same files: Fashion-MNIST (numpy),
CIFAR-10 binaries (numpy), an image folder of PNGs (PIL), text files (str.split) and CSV files
(the csv module); and each malformed input's error. The MNIST API itself is tested in
test_dataset.py."""
import csv
import gzip
import struct

import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds
from mycel import _mycel

FASHION = "/usr/share/datasets/fashion-mnist"


def _rows(dataset):
    """One epoch of a dataset as a list of tuples of numpy arrays."""
    return [tuple(r) for r in dataset.create_tuple_iterator(output_numpy=True)]


# ----- MNIST -----

def test_fashion_mnist_source_rows_are_cached_read_only_views():
    with gzip.open(f"{FASHION}/t10k-images-idx3-ubyte.gz") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28, 1)
    with gzip.open(f"{FASHION}/t10k-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    src = _mycel._data.mnist_source("FashionMnistDataset", FASHION, "test")
    assert len(src) == 10000 and src.columns() == ["image", "label"]
    for i in (0, 4321, 9999):
        image, label = src.read(i)
        np.testing.assert_array_equal(image, images[i])
        assert label.dtype == np.uint32 and label.shape == () and label == labels[i]
        assert not image.flags.writeable
    # a second dataset over the same files shares the decompressed bytes (the cache)
    again = _mycel._data.mnist_source("FashionMnistDataset", FASHION, "test")
    assert np.shares_memory(src.read(5)[0], again.read(5)[0])
    with pytest.raises(IndexError, match="row 10000 is out of range"):
        src.read(10000)


def test_mnist_cache_sees_a_rewritten_file(tmp_path):
    def write(images):
        with open(tmp_path / "train-images-idx3-ubyte", "wb") as f:
            f.write(struct.pack(">4I", 2051, len(images), 2, 2) + images.tobytes())
        with open(tmp_path / "train-labels-idx1-ubyte", "wb") as f:
            f.write(struct.pack(">2I", 2049, len(images)) + bytes(len(images)))

    write(np.zeros((3, 2, 2), np.uint8))
    assert _rows(ds.MnistDataset(str(tmp_path), shuffle=False))[1][0].sum() == 0
    write(np.full((4, 2, 2), 9, np.uint8))  # another size: another cache key
    rows = _rows(ds.MnistDataset(tmp_path, usage="train", shuffle=False))
    assert len(rows) == 4 and rows[1][0].shape == (2, 2, 1) and rows[1][0].sum() == 36


# ----- CIFAR-10 -----

def _cifar_dir(tmp_path, per_file=3):
    """A cifar-10-batches-bin folder of random records; returns {file name: records}."""
    rng = np.random.default_rng(0)
    files = {}
    for name in [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]:
        records = rng.integers(0, 256, (per_file, 3073), dtype=np.uint8)
        records[:, 0] = rng.integers(0, 10, per_file)
        (tmp_path / name).write_bytes(records.tobytes())
        files[name] = records
    (tmp_path / "batches.meta.txt").write_text("airplane\nautomobile\n")
    return files


def _cifar_oracle(records):
    """(images HWC, labels) of CIFAR-10 records."""
    return records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), records[:, 0]


@pytest.mark.parametrize("usage,names", [
    ("train", [f"data_batch_{k}.bin" for k in range(1, 6)]),
    ("test", ["test_batch.bin"]),
    (None, [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"])])
def test_cifar10_matches_numpy(tmp_path, usage, names):
    files = _cifar_dir(tmp_path)
    images, labels = _cifar_oracle(np.concatenate([files[n] for n in names]))
    data = ds.Cifar10Dataset(str(tmp_path), usage=usage, shuffle=False)
    assert data.get_col_names() == ["image", "label"]
    assert data.get_dataset_size() == len(labels)
    rows = _rows(data)
    assert len(rows) == len(labels)
    for (image, label), want_image, want_label in zip(rows, images, labels):
        assert image.dtype == np.uint8 and image.shape == (32, 32, 3)
        np.testing.assert_array_equal(image, want_image)
        assert label.dtype == np.uint32 and label.shape == () and label == want_label


def test_cifar10_shards_cover_the_dataset(tmp_path):
    files = _cifar_dir(tmp_path, per_file=2)  # 10 rows: two equal shards
    _, labels = _cifar_oracle(np.concatenate([files[f"data_batch_{k}.bin"] for k in range(1, 6)]))
    shards = [_rows(ds.Cifar10Dataset(tmp_path, usage="train", shuffle=False, num_shards=2,
                                      shard_id=s)) for s in range(2)]
    assert sorted(int(r[1]) for s in shards for r in s) == sorted(labels.tolist())


def test_cifar10_errors(tmp_path):
    with pytest.raises(ValueError, match="Cifar10Dataset: the dataset_dir .*nowhere does not "
                                         "exist"):
        ds.Cifar10Dataset(str(tmp_path / "nowhere"))
    with pytest.raises(RuntimeError, match="Cifar10Dataset: .* holds no data_batch"):
        ds.Cifar10Dataset(str(tmp_path), usage="train")
    _cifar_dir(tmp_path)
    with pytest.raises(ValueError, match="usage must be 'train', 'test' or 'all', but got 'eval'"):
        ds.Cifar10Dataset(str(tmp_path), usage="eval")
    with pytest.raises(TypeError, match="Cifar10Dataset: usage"):
        ds.Cifar10Dataset(str(tmp_path), usage=1)
    with pytest.raises(TypeError, match="Cifar10Dataset: dataset_dir must be a path"):
        ds.Cifar10Dataset(None)
    path = tmp_path / "data_batch_3.bin"
    good = path.read_bytes()
    path.write_bytes(good[:-100])  # truncated
    with pytest.raises(RuntimeError, match="data_batch_3.bin is 9119 bytes, not a whole number "
                                           "of 3073-byte records"):
        ds.Cifar10Dataset(str(tmp_path))
    path.write_bytes(bytes([12]) + good[1:])  # a label past 9
    with pytest.raises(RuntimeError, match="data_batch_3.bin record 0 has label 12"):
        ds.Cifar10Dataset(str(tmp_path), usage="train")


# ----- ImageFolder -----

def _image_folder(tmp_path):
    """Class folders of PNGs (RGB, gray and RGBA) and a stray text file; returns
    {class: [(file path, PIL oracle RGB array)]} in file name order."""
    rng = np.random.default_rng(1)
    folders = {"zebra": ["b.png", "a.png"], "ant": ["c.png"], "cow": ["d.png", "e.png", "f.png"]}
    out = {}
    for cls, names in folders.items():
        (tmp_path / cls).mkdir()
        for k, name in enumerate(names):
            mode = ["RGB", "L", "RGBA"][k % 3]
            shape = (rng.integers(3, 9), rng.integers(3, 9)) + ((len(mode),) if k % 3 != 1 else ())
            Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode).save(
                tmp_path / cls / name)
        (tmp_path / cls / "notes.txt").write_text("not an image")
        out[cls] = [(str(tmp_path / cls / n), np.asarray(Image.open(tmp_path / cls / n)
                                                          .convert("RGB")))
                    for n in sorted(names)]
    return out


def test_image_folder_bytes_and_labels_match_the_files(tmp_path):
    folders = _image_folder(tmp_path)
    data = ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"])
    assert data.get_class_indexing() == {"ant": 0, "cow": 1, "zebra": 2}
    assert data.get_col_names() == ["image", "label"]
    want = [(path, label) for label, cls in enumerate(sorted(folders))
            for path, _ in folders[cls]]
    rows = _rows(data)
    assert len(rows) == data.get_dataset_size() == len(want) == 6
    for (image, label), (path, want_label) in zip(rows, want):
        assert image.dtype == np.uint8 and image.ndim == 1
        assert image.tobytes() == open(path, "rb").read()
        assert label.dtype == np.int32 and label.shape == () and label == want_label
    every = ds.ImageFolderDataset(str(tmp_path), shuffle=False)  # the text files too
    assert every.get_dataset_size() == 9


def test_image_folder_decode_matches_pil(tmp_path):
    folders = _image_folder(tmp_path)
    data = ds.ImageFolderDataset(tmp_path, shuffle=False, extensions=[".png"], decode=True,
                                 class_indexing={"zebra": 5, "ant": 1})
    assert data.get_class_indexing() == {"ant": 1, "zebra": 5}
    want = [(a, 1) for _, a in folders["ant"]] + [(a, 5) for _, a in folders["zebra"]]
    rows = _rows(data)
    assert len(rows) == len(want) == 3
    for (image, label), (want_image, want_label) in zip(rows, want):
        assert image.dtype == np.uint8 and image.shape == want_image.shape
        np.testing.assert_array_equal(image, want_image)
        assert label == want_label


def test_image_folder_errors(tmp_path):
    with pytest.raises(ValueError, match="ImageFolderDataset: the dataset_dir .* does not exist"):
        ds.ImageFolderDataset(str(tmp_path / "nowhere"))
    with pytest.raises(RuntimeError, match="ImageFolderDataset: no images found .*no "
                                           "sub-directories"):
        ds.ImageFolderDataset(str(tmp_path))
    _image_folder(tmp_path)
    with pytest.raises(RuntimeError, match=r"no images found .*extensions \[\.jpg\]"):
        ds.ImageFolderDataset(str(tmp_path), extensions=[".jpg"])
    with pytest.raises(ValueError, match="class_indexing names class 'horse'"):
        ds.ImageFolderDataset(str(tmp_path), class_indexing={"ant": 0, "horse": 1})
    with pytest.raises(ValueError, match=r"class_indexing\['ant'\] must be in"):
        ds.ImageFolderDataset(str(tmp_path), class_indexing={"ant": -1})
    with pytest.raises(TypeError, match="ImageFolderDataset: class_indexing must be a dict"):
        ds.ImageFolderDataset(str(tmp_path), class_indexing=["ant"])
    with pytest.raises(TypeError, match="ImageFolderDataset: extensions"):
        ds.ImageFolderDataset(str(tmp_path), extensions=".png")
    with pytest.raises(TypeError, match="ImageFolderDataset: decode must be a bool"):
        ds.ImageFolderDataset(str(tmp_path), decode=1)
    # a file that is no image fails when its row is decoded, naming the file
    data = ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True,
                                 class_indexing={"ant": 0})
    with pytest.raises(RuntimeError, match="notes.txt is not an image"):
        _rows(data)


# ----- TextFile -----

def test_text_file_lines_match_python(tmp_path):
    texts = {"b.txt": "héllo wörld\r\n\nsecond line\n  spaced  \n",
             "a.txt": "first file\nno newline at the end",
             "c.txt": ""}
    for name, text in texts.items():
        (tmp_path / name).write_bytes(text.encode())
    want = [line.rstrip("\r") for name in sorted(texts) for line in texts[name].split("\n")]
    want = [line for line in want if line]
    # one reader reads the files one after another (more interleave them, as MindSpore's)
    data = ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=False, num_parallel_workers=1)
    assert data.dataset_files == sorted(str(tmp_path / n) for n in texts)
    assert data.get_col_names() == ["text"] and data.get_dataset_size() == len(want) == 5
    rows = _rows(data)
    assert [r[0].item() for r in rows] == want
    assert rows[0][0].shape == () and rows[0][0].dtype.kind == "U"
    listed = ds.TextFileDataset([str(tmp_path / "b.txt"), str(tmp_path / "a.txt")],
                                shuffle=False, num_parallel_workers=1)
    assert [r[0].item() for r in _rows(listed)] == want  # sorted, as MindSpore
    shuffled = ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=ds.Shuffle.GLOBAL)
    assert sorted(r[0].item() for r in _rows(shuffled)) == sorted(want)


def test_text_file_and_csv_shuffle_files(tmp_path):
    for f in range(5):
        (tmp_path / f"{f}.txt").write_text("".join(f"{f}-{i}\n" for i in range(3)))
        _write_csv(tmp_path / f"{f}.csv", [["v"]] + [[f * 10 + i] for i in range(3)])
    ds.config.set_seed(5)
    try:
        data = ds.TextFileDataset(str(tmp_path / "*.txt"), shuffle=ds.Shuffle.FILES)
        it = data.create_tuple_iterator(num_epochs=3, output_numpy=True)
        orders = [[r[0].item() for r in it] for _ in range(3)]
        for order in orders:  # whole files, each in line order
            files = [order[k:k + 3] for k in range(0, 15, 3)]
            assert sorted(b[0][0] for b in files) == list("01234")
            assert all(b == [f"{b[0][0]}-{i}" for i in range(3)] for b in files)
        assert len({tuple(o) for o in orders}) > 1
        csv_data = ds.CSVDataset(str(tmp_path / "*.csv"), column_defaults=[0],
                                 shuffle=ds.Shuffle.FILES)
        values = [int(r[0]) for r in _rows(csv_data)]
        assert [values[k:k + 3] for k in range(0, 15, 3)] == \
            [list(range(v, v + 3)) for v in values[0::3]]
        assert sorted(values) == [f * 10 + i for f in range(5) for i in range(3)]
    finally:
        ds.config._seed = None


def test_text_file_errors(tmp_path):
    with pytest.raises(ValueError, match=r"TextFileDataset: dataset_files \['.*missing.txt'\] "
                                         "match no file"):
        ds.TextFileDataset(str(tmp_path / "missing.txt"))
    with pytest.raises(TypeError, match="TextFileDataset: dataset_files must be a path"):
        ds.TextFileDataset(3)
    (tmp_path / "a.txt").write_bytes(b"fine\n\xff\xfe bad bytes\n")
    with pytest.raises(ValueError, match="TextFileDataset: shuffle=.*INFILE is not supported"):
        ds.TextFileDataset(str(tmp_path / "a.txt"), shuffle=ds.Shuffle.INFILE)
    with pytest.raises(RuntimeError, match="a.txt:2: the line is not valid UTF-8"):
        _rows(ds.TextFileDataset(str(tmp_path / "a.txt"), shuffle=False))


# ----- CSV -----

CSV_ROWS = [["id", "score", "name"],
            ["1", "0.25", "plain"],
            ["-7", "", "with, a comma"],
            ["", "1e-3", 'a "quoted" word'],
            ["42", "-3.5", "two\nlines"],
            ["+5", " 2.5 ", ""]]


def _write_csv(path, rows, delimiter=","):
    with open(path, "w", newline="") as f:
        csv.writer(f, delimiter=delimiter).writerows(rows)


def _typed(value, default):
    """The oracle of one field: the default's type (int32, float32, str), the default when
    empty (numbers: blank)."""
    if isinstance(default, str):
        return value or default
    if not value.strip():
        return default
    return int(value) if isinstance(default, int) else np.float32(float(value)).item()


def test_csv_matches_the_csv_module(tmp_path):
    _write_csv(tmp_path / "a.csv", CSV_ROWS)
    _write_csv(tmp_path / "b.csv", CSV_ROWS[:1] + CSV_ROWS[3:])  # every file has the header
    defaults = [-1, 9.5, "none"]
    data = ds.CSVDataset(str(tmp_path / "*.csv"), column_defaults=defaults, shuffle=False,
                         num_parallel_workers=1)  # one reader: file order
    assert data.get_col_names() == ["id", "score", "name"]
    records = []
    for name in ("a.csv", "b.csv"):
        with open(tmp_path / name, newline="") as f:
            records += list(csv.reader(f))[1:]
    rows = _rows(data)
    assert len(rows) == data.get_dataset_size() == len(records) == 8
    for row, record in zip(rows, records):
        assert [a.dtype.kind for a in row] == ["i", "f", "U"] and row[0].dtype == np.int32
        assert row[1].dtype == np.float32 and all(a.shape == () for a in row)
        assert [a.item() for a in row] == [_typed(v, d) for v, d in zip(record, defaults)]


def test_csv_names_delimiters_and_string_columns(tmp_path):
    _write_csv(tmp_path / "t.tsv", CSV_ROWS[1:], delimiter="\t")
    data = ds.CSVDataset(str(tmp_path / "t.tsv"), field_delim="\t", column_names=["a", "b", "c"],
                         shuffle=False)
    assert data.get_col_names() == ["a", "b", "c"]
    rows = _rows(data)  # no column_defaults: every column str, fields as they are
    assert [[a.item() for a in r] for r in rows] == CSV_ROWS[1:]
    shards = [_rows(ds.CSVDataset(str(tmp_path / "t.tsv"), field_delim="\t",
                                  column_names=["a", "b", "c"], shuffle=False, num_shards=2,
                                  shard_id=s)) for s in range(2)]
    assert [len(s) for s in shards] == [3, 3]  # 5 rows: the shards wrap around to equal sizes
    assert {r[0].item() for s in shards for r in s} == {r[0] for r in CSV_ROWS[1:]}


def test_csv_errors(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\nx,3\n4,5,6\n1,1e99\n")
    data = ds.CSVDataset(str(path), column_defaults=[0, 0.0], shuffle=False)
    with pytest.raises(RuntimeError, match=r"CSVDataset: .*bad.csv:3: column 'a' \(int32\): "
                                           "cannot parse 'x' as an int32"):
        _rows(data)
    with pytest.raises(RuntimeError, match="bad.csv:4: the record has 3 fields but there are 2 "
                                           "columns"):
        _mycel._data.csv_source([str(path)], ",", [0, 0.0], []).read(2)
    path.write_text("a,b\n1,1e99\n")
    with pytest.raises(RuntimeError, match=r"bad.csv:2: column 'b' \(float32\): cannot parse "
                                           r"'1e99' as a float32 \(out of range\)"):
        _rows(ds.CSVDataset(str(path), column_defaults=[0, 0.0]))
    path.write_text('a,b\n1,"open\n')
    with pytest.raises(RuntimeError, match="bad.csv:2: a quoted field is not closed"):
        ds.CSVDataset(str(path))
    path.write_text("a,b\n1,2\n")
    _write_csv(tmp_path / "other.csv", [["a", "c"], ["1", "2"]])
    with pytest.raises(RuntimeError, match="the header of .*other.csv .* differs"):
        ds.CSVDataset([str(path), str(tmp_path / "other.csv")])
    with pytest.raises(ValueError, match="column_defaults has 3 values but there are 2 columns"):
        ds.CSVDataset(str(path), column_defaults=[1, 2, 3])
    with pytest.raises(TypeError, match=r"CSVDataset: column_defaults\[1\] must be an int, float "
                                        "or str, but got bool"):
        ds.CSVDataset(str(path), column_defaults=[1, True])
    with pytest.raises(ValueError, match="outside the int32 range"):
        ds.CSVDataset(str(path), column_defaults=[2**40, 1])
    with pytest.raises(ValueError, match="CSVDataset: field_delim must be one character"):
        ds.CSVDataset(str(path), field_delim=";;")
    with pytest.raises(TypeError, match="CSVDataset: field_delim must be a str"):
        ds.CSVDataset(str(path), field_delim=44)
    with pytest.raises(ValueError, match="CSVDataset: column_names has duplicate"):
        ds.CSVDataset(str(path), column_names=["a", "a"])
    path.write_text("")
    with pytest.raises(RuntimeError, match="bad.csv is empty: it has no header line"):
        ds.CSVDataset(str(path))
    path.write_text("a,a\n1,2\n")
    with pytest.raises(ValueError, match="bad.csv:1: the header names column 'a' twice"):
        ds.CSVDataset(str(path))
