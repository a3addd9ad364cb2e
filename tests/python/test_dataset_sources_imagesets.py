"""ManifestDataset, CelebADataset, LSUNDataset, OmniglotDataset, SUN397Dataset and PKSampler
over small data sets built here in their formats (images with PIL, index files with json and
plain text), checked against the values written; malformed files give typed errors."""
import collections
import json
import os

import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds


def _rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def _png(path, seed, shape=(5, 6, 3)):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    a = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    Image.fromarray(a).save(path, format="PNG")
    return a


# ----- Manifest -----

def _manifest(tmp_path, entries):
    lines = []
    for k, (usage, names) in enumerate(entries):
        path = str(tmp_path / f"img{k}.png")
        _png(path, k)
        lines.append(json.dumps({"source": path, "usage": usage,
                                 "annotation": [{"name": n, "type": "x"} for n in names]}))
    (tmp_path / "data.manifest").write_text("\n".join(lines) + "\n")
    return str(tmp_path / "data.manifest")


def test_manifest_labels_and_usage(tmp_path):
    path = _manifest(tmp_path, [("TRAIN", ["dog"]), ("train", ["cat", "dog"]), ("EVAL", ["cow"]),
                                ("Train", ["ant"])])
    data = ds.ManifestDataset(path, shuffle=False, decode=True)
    assert data.get_class_indexing() == {"ant": 0, "cat": 1, "dog": 2}
    assert data.num_classes() == 3
    rows = _rows(data)
    assert len(rows) == 3
    assert rows[0]["label"].dtype == np.int32 and rows[0]["label"].shape == () and \
        rows[0]["label"] == 2
    np.testing.assert_array_equal(rows[1]["label"], [1, 2])
    np.testing.assert_array_equal(rows[0]["image"], np.asarray(Image.open(tmp_path / "img0.png")))
    ev = ds.ManifestDataset(path, usage="eval", class_indexing={"cow": 5})
    assert [int(r["label"]) for r in _rows(ev)] == [5]
    assert ev.get_class_indexing() == {"cow": 5}


def test_manifest_skips_non_images_and_reports_bad_lines(tmp_path):
    path = _manifest(tmp_path, [("train", ["a"])])
    (tmp_path / "notes.txt").write_text("not an image")
    with open(path, "a") as f:
        f.write(json.dumps({"source": str(tmp_path / "notes.txt"), "usage": "train",
                            "annotation": [{"name": "b"}]}) + "\n")
    assert ds.ManifestDataset(path).get_dataset_size() == 1  # the text file is left out
    with open(path, "a") as f:
        f.write("{broken\n")
    with pytest.raises(RuntimeError, match=r"data.manifest:3"):
        ds.ManifestDataset(path)
    with pytest.raises(ValueError, match="usage"):
        ds.ManifestDataset(path, usage="test")
    with pytest.raises(ValueError, match="does not exist"):
        ds.ManifestDataset(str(tmp_path / "none.manifest"))
    bad = tmp_path / "bad.manifest"
    bad.write_text(json.dumps({"source": str(tmp_path / "img0.png"), "usage": "train",
                               "annotation": [{"type": "no name"}]}) + "\n")
    with pytest.raises(RuntimeError, match="no 'name'"):
        ds.ManifestDataset(str(bad))
    bad.write_text(json.dumps({"usage": "train", "annotation": []}) + "\n")
    with pytest.raises(RuntimeError, match=r"'source' is missing in .*bad.manifest:1"):
        ds.ManifestDataset(str(bad))
    (tmp_path / "empty.png").write_bytes(b"")
    bad.write_text(json.dumps({"source": str(tmp_path / "empty.png"), "usage": "train",
                               "annotation": [{"name": "a"}]}) + "\n")
    with pytest.raises(RuntimeError, match="has 0 bytes"):
        ds.ManifestDataset(str(bad))


def test_manifest_pk_sampler(tmp_path):
    entries = [("train", [c]) for c in "aaabbc"]
    data = ds.ManifestDataset(_manifest(tmp_path, entries), sampler=ds.PKSampler(2))
    labels = [int(r["label"]) for r in _rows(data)]
    assert labels == [0, 0, 1, 1, 2, 2]  # classes in order, two draws each (c: drawn twice)


# ----- CelebA -----

def test_celeba_attributes_partitions_and_extensions(tmp_path):
    files = ["1.png", "2.jpg", "3.png", "4.png"]
    attrs = [[1, -1, 1], [-1, -1, 1], [1, 1, 1], [-1, 1, -1]]
    images = [_png(str(tmp_path / f), k) for k, f in enumerate(files)]
    lines = ["4", "Smiling Young Bald"] + [f"{f}  " + " ".join(f"{v:2d}" for v in a)
                                           for f, a in zip(files, attrs)]
    (tmp_path / "list_attr_celeba.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "list_eval_partition.txt").write_text("1.png 0\n2.jpg 1\n3.png 0\n4.png 2\n")
    data = ds.CelebADataset(str(tmp_path), shuffle=False, decode=True)
    assert data.get_col_names() == ["image", "attr"]
    rows = _rows(data)
    for r, img, a in zip(rows, images, attrs):
        np.testing.assert_array_equal(r["image"], img)
        assert r["attr"].dtype == np.uint32
        np.testing.assert_array_equal(r["attr"], (np.array(a) == 1).astype(np.uint32))
    sizes = {u: ds.CelebADataset(str(tmp_path), usage=u).get_dataset_size()
             for u in ("all", "train", "valid", "test")}
    assert sizes == {"all": 4, "train": 2, "valid": 1, "test": 1}
    assert ds.CelebADataset(str(tmp_path), extensions=[".jpg"]).get_dataset_size() == 1
    with pytest.raises(ValueError, match="usage"):
        ds.CelebADataset(str(tmp_path), usage="val")
    with pytest.raises(ValueError, match="PKSampler"):
        ds.CelebADataset(str(tmp_path), sampler=ds.PKSampler(1))
    with pytest.raises(TypeError, match="Unsupported sampler"):
        ds.CelebADataset(str(tmp_path), sampler="")
    (tmp_path / "list_attr_celeba.txt").write_text("1\nA B\n1.png 1 x\n")
    with pytest.raises(RuntimeError, match="'x' is not an integer"):
        ds.CelebADataset(str(tmp_path))
    (tmp_path / "list_attr_celeba.txt").write_text("1\nA B\n1.png 1\n")
    with pytest.raises(RuntimeError, match="has 1 attribute values"):
        ds.CelebADataset(str(tmp_path))


# ----- LSUN, Omniglot, SUN397 -----

def test_lsun_usage_and_classes(tmp_path):
    for k, folder in enumerate(["bedroom_train", "bedroom_val", "tower_train", "kitchen_val",
                                "test"]):
        _png(str(tmp_path / folder / f"{k}.png"), k)
    _png(str(tmp_path / "tower_train" / "9.png"), 9)
    rows = _rows(ds.LSUNDataset(str(tmp_path), shuffle=False))
    # all: bedroom_train 0, bedroom_val 1, kitchen_val 2, tower_train 3 (sorted folders)
    assert [int(r["label"]) for r in rows] == [0, 1, 2, 3, 3]
    assert rows[0]["label"].dtype == np.uint32
    assert ds.LSUNDataset(str(tmp_path), usage="train").get_dataset_size() == 3
    assert ds.LSUNDataset(str(tmp_path), usage="valid").get_dataset_size() == 2
    assert ds.LSUNDataset(str(tmp_path), usage="test").get_dataset_size() == 1
    one = ds.LSUNDataset(str(tmp_path), usage="train", classes=["tower"])
    assert one.get_dataset_size() == 2 and one.num_classes() == 1
    with pytest.raises(ValueError, match="classes"):
        ds.LSUNDataset(str(tmp_path), classes=["castle"])
    pk = _rows(ds.LSUNDataset(str(tmp_path), sampler=ds.PKSampler(3)))
    assert sorted(collections.Counter(int(r["label"]) for r in pk).items()) == \
        [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_omniglot_characters_are_classes(tmp_path):
    for part in ("images_background", "images_evaluation"):
        for a, alphabet in enumerate(["Greek", "Braille"]):
            for c in range(2):
                for i in range(2):
                    _png(str(tmp_path / part / alphabet / f"character{c:02d}" / f"{i}.png"),
                         a * 10 + c * 2 + i, (4, 4, 3))
    data = ds.OmniglotDataset(str(tmp_path), shuffle=False, decode=True)
    rows = _rows(data)
    assert [int(r["label"]) for r in rows] == [0, 0, 1, 1, 2, 2, 3, 3]  # Braille, then Greek
    assert rows[0]["label"].dtype == np.int32
    np.testing.assert_array_equal(
        rows[0]["image"], np.asarray(Image.open(tmp_path / "images_background/Braille/"
                                                "character00/0.png")))
    assert ds.OmniglotDataset(str(tmp_path), background=False).get_dataset_size() == 8
    with pytest.raises(ValueError, match="does not exist"):
        ds.OmniglotDataset(str(tmp_path / "images_background"))


def test_sun397_class_list(tmp_path):
    (tmp_path / "ClassName.txt").write_text("/b/beach\n/a/abbey\n")
    _png(str(tmp_path / "a/abbey/sun_2.jpg"), 1)
    _png(str(tmp_path / "a/abbey/sun_1.jpg"), 2)
    _png(str(tmp_path / "a/abbey/other.jpg"), 3)  # not sun_*: left out
    _png(str(tmp_path / "b/beach/sun_9.jpg"), 4)
    rows = _rows(ds.SUN397Dataset(str(tmp_path), shuffle=False))
    # classes read in name order, labelled in the file's order
    assert [int(r["label"]) for r in rows] == [1, 1, 0]
    assert rows[0]["image"].tobytes() == (tmp_path / "a/abbey/sun_1.jpg").read_bytes()
    (tmp_path / "ClassName.txt").write_text("/c/cave\n")
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.SUN397Dataset(str(tmp_path))


# ----- LFW -----

def test_lfw_people_and_pairs(tmp_path):
    imgs = {}
    for name, n in (("Ann", 3), ("Bob", 1)):
        for i in range(1, n + 1):
            imgs[(name, i)] = _png(str(tmp_path / "lfw_funneled" / name / f"{name}_{i:04d}.jpg"),
                                   len(imgs))
    _png(str(tmp_path / "lfw" / "Bob" / "Bob_0001.jpg"), 99)
    (tmp_path / "lfw-names.txt").write_text("Bob 1\nAnn 3\n")
    (tmp_path / "peopleDevTrain.txt").write_text("1\nAnn 3\n")
    (tmp_path / "peopleDevTest.txt").write_text("1\nBob 1\n")
    (tmp_path / "people.txt").write_text("2\n1\nBob 1\n1\nAnn 2\n")
    (tmp_path / "pairsDevTrain.txt").write_text("1\nAnn 1 3\nAnn 2 Bob 1\n")
    (tmp_path / "pairs.txt").write_text("1 1\nAnn 2 3\nBob 1 Ann 1\n")
    rows = _rows(ds.LFWDataset(str(tmp_path), shuffle=False, decode=True))
    assert [int(r["label"]) for r in rows] == [1, 1, 1, 0]  # train (Ann) then test (Bob)
    assert rows[0]["label"].dtype == np.uint32
    np.testing.assert_array_equal(rows[2]["image"], imgs[("Ann", 3)])
    ten = _rows(ds.LFWDataset(str(tmp_path), usage="10fold", shuffle=False))
    assert [int(r["label"]) for r in ten] == [0, 1, 1]
    pairs = ds.LFWDataset(str(tmp_path), task="pairs", usage="train", shuffle=False, decode=True)
    assert pairs.get_col_names() == ["image1", "image2", "label"]
    prow = _rows(pairs)
    assert [int(r["label"]) for r in prow] == [1, 0]
    np.testing.assert_array_equal(prow[0]["image2"], imgs[("Ann", 3)])
    np.testing.assert_array_equal(prow[1]["image2"], imgs[("Bob", 1)])
    assert ds.LFWDataset(str(tmp_path), task="pairs", usage="10fold").get_dataset_size() == 2
    orig = _rows(ds.LFWDataset(str(tmp_path), usage="test", image_set="original", decode=True))
    np.testing.assert_array_equal(orig[0]["image"], np.asarray(Image.open(
        tmp_path / "lfw" / "Bob" / "Bob_0001.jpg")))
    with pytest.raises(ValueError, match="task"):
        ds.LFWDataset(str(tmp_path), task="faces")
    (tmp_path / "pairsDevTest.txt").write_text("2\nAnn 1 3\n")
    with pytest.raises(RuntimeError, match="pairsDevTest.txt:3"):
        ds.LFWDataset(str(tmp_path), task="pairs", usage="test")


# ----- PKSampler -----

def test_pk_sampler_image_folder(tmp_path):
    counts = {"x": 4, "y": 1, "z": 2}
    for c, n in counts.items():
        for i in range(n):
            _png(str(tmp_path / c / f"{i}.png"), i)
    data = ds.ImageFolderDataset(str(tmp_path), sampler=ds.PKSampler(3))
    assert data.get_dataset_size() == 9
    labels = [int(r["label"]) for r in _rows(data)]
    assert labels == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    shuffled = ds.ImageFolderDataset(str(tmp_path), sampler=ds.PKSampler(2, shuffle=True,
                                                                         num_samples=5))
    got = [int(r["label"]) for r in _rows(shuffled)]
    assert len(got) == 5 and got[0] == got[1] and got[2] == got[3]
    with pytest.raises(ValueError):
        ds.PKSampler(0)
    with pytest.raises(NotImplementedError):
        ds.PKSampler(2, num_class=3)
    # sources without classes of their own: the class_column's values (ints or strs)
    gen = ds.GeneratorDataset([(np.int32(v),) for v in (2, 0, 0, 5, 2)], ["label"],
                              sampler=ds.PKSampler(2))
    got = [int(r["label"]) for r in _rows(gen)]
    assert got == [0, 0, 2, 2, 5, 5]
    names = ds.NumpySlicesDataset({"name": np.array(["b", "a", "b", "c"]),
                                   "k": np.arange(4)}, sampler=ds.PKSampler(1, class_column="name"))
    rows = _rows(names)
    assert [str(r["name"]) for r in rows] == ["a", "b", "c"]
    assert int(rows[1]["k"]) in (0, 2)
    floats = ds.NumpySlicesDataset({"label": np.array([0.5, 1.0])}, sampler=ds.PKSampler(1))
    with pytest.raises(ValueError, match="integers or strings"):
        _rows(floats)


def test_pk_sampler_draws_only_rows_of_the_class(tmp_path):
    for c in range(3):
        for i in range(5):
            _png(str(tmp_path / f"c{c}" / f"{i}.png"), c * 5 + i, (2 + c, 2, 3))
    data = ds.ImageFolderDataset(str(tmp_path), sampler=ds.PKSampler(4), decode=True)
    for r in _rows(data):
        assert r["image"].shape[0] == 2 + int(r["label"])


# ----- chained samplers (add_child) -----

def _ids(sampler, n=10):
    data = ds.NumpySlicesDataset(np.arange(n), sampler=sampler)
    return [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)], \
        data.get_dataset_size()


def test_chained_samplers_index_the_childs_rows():
    parent = ds.SequentialSampler(start_index=1, num_samples=3)
    parent.add_child(ds.SubsetSampler([5, 6, 7, 8]))
    assert _ids(parent) == ([6, 7, 8], 3)
    parent = ds.RandomSampler()
    parent.add_child(ds.SubsetSampler([9, 2, 4]))
    got, size = _ids(parent)
    assert sorted(got) == [2, 4, 9] and size == 3
    parent = ds.SequentialSampler()
    child = ds.DistributedSampler(num_shards=2, shard_id=1, shuffle=False)
    parent.add_child(child)
    assert _ids(parent) == ([1, 3, 5, 7, 9], 5)
    grand = ds.SubsetSampler([0, 2])  # three levels: rows 1 and 5 of shard 1
    grand.add_child(parent)
    assert _ids(grand) == ([1, 5], 2)
    with pytest.raises(RuntimeError, match="already has a child"):
        parent.add_child(ds.SequentialSampler())
    with pytest.raises(TypeError):
        ds.RandomSampler().add_child([1, 2])
    bad = ds.SubsetSampler([3])
    bad.add_child(ds.SubsetSampler([0, 1]))  # position 3 of a 2-row child
    with pytest.raises(IndexError, match="out of range for 2 rows"):
        _ids(bad)


def test_pk_sampler_as_child(tmp_path):
    for c in range(3):
        for i in range(2):
            _png(str(tmp_path / f"c{c}" / f"{i}.png"), c * 2 + i)
    parent = ds.SequentialSampler(num_samples=4)
    parent.add_child(ds.PKSampler(2))
    data = ds.ImageFolderDataset(str(tmp_path), sampler=parent)
    assert data.get_dataset_size() == 4
    assert [int(r["label"]) for r in _rows(data)] == [0, 0, 1, 1]


# ----- EMNIST, KMNIST (MNIST's idx format under other names) -----

def _idx(path, arr):
    import struct  # pylint: disable=import-outside-toplevel
    magic = 2051 if arr.ndim == 3 else 2049
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in arr.shape))
        f.write(arr.astype(np.uint8).tobytes())


def test_emnist_and_kmnist_files(tmp_path):
    rng = np.random.default_rng(0)
    splits = {}
    for split, n in (("train", 3), ("test", 2)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 47, n, dtype=np.uint8)
        _idx(tmp_path / f"emnist-balanced-{split}-images-idx3-ubyte", images)
        _idx(tmp_path / f"emnist-balanced-{split}-labels-idx1-ubyte", labels)
        splits[split] = (images, labels)
    rows = _rows(ds.EMnistDataset(str(tmp_path), "balanced", shuffle=False))
    images = np.concatenate([splits["train"][0], splits["test"][0]])
    labels = np.concatenate([splits["train"][1], splits["test"][1]])
    assert len(rows) == 5
    for r, img, lab in zip(rows, images, labels):
        np.testing.assert_array_equal(r["image"], img[:, :, None])
        assert r["label"].dtype == np.uint32 and r["label"] == lab
    test = _rows(ds.EMnistDataset(str(tmp_path), "balanced", usage="test", shuffle=False))
    np.testing.assert_array_equal(test[1]["image"][:, :, 0], splits["test"][0][1])
    with pytest.raises(ValueError, match="name"):
        ds.EMnistDataset(str(tmp_path), "cursive")
    with pytest.raises(RuntimeError, match="emnist-digits-train-images-idx3-ubyte"):
        ds.EMnistDataset(str(tmp_path), "digits", usage="train")
    _idx(tmp_path / "train-images-idx3-ubyte", splits["train"][0])
    _idx(tmp_path / "train-labels-idx1-ubyte", splits["train"][1])
    k = _rows(ds.KMnistDataset(str(tmp_path), usage="train", shuffle=False))
    assert [int(r["label"]) for r in k] == splits["train"][1].tolist()
