"""Food101, RenderedSST2, STL10, SVHN and USPS (sources_image_extra.py) on small files each
test writes in the data set's layout, against oracles reading the same files: PIL for images
(PNG data under Food101's .jpg names), numpy for STL-10's column-major binaries and USPS's
libsvm lines, SciPy's savemat for SVHN's .mat files; plus sharding and bad input."""
import numpy as np
import pytest
from PIL import Image
from scipy.io import savemat

import mycel.dataset as ds


def _rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def _png(path, seed, size=(5, 4)):
    path.parent.mkdir(parents=True, exist_ok=True)
    img = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], 3), np.uint8)
    Image.fromarray(img).save(path, "PNG")
    return img


def _shards_cover(make, key, num_shards=2):
    everything = {key(r) for r in _rows(make(shuffle=False))}
    parts = [{key(r) for r in _rows(make(num_shards=num_shards, shard_id=i, shuffle=False))}
             for i in range(num_shards)]
    assert set().union(*parts) == everything


def test_food101_lists_and_labels(tmp_path):
    imgs = {}
    for cls in ("apple_pie", "sushi"):
        for k in range(3):
            imgs[f"{cls}/{k}"] = _png(tmp_path / "images" / cls / f"{k}.jpg", len(imgs))
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "train.txt").write_text("apple_pie/0\nsushi/2\napple_pie/1\n")
    (tmp_path / "meta" / "test.txt").write_text("sushi/0\n")
    for usage, keys in (("train", ["apple_pie/0", "sushi/2", "apple_pie/1"]),
                        ("test", ["sushi/0"]),
                        (None, ["apple_pie/0", "sushi/2", "apple_pie/1", "sushi/0"])):
        rows = _rows(ds.Food101Dataset(str(tmp_path), usage, decode=True, shuffle=False))
        assert [str(r["label"]) for r in rows] == [k.split("/")[0] for k in keys]
        for r, k in zip(rows, keys):
            np.testing.assert_array_equal(r["image"], imgs[k])
    _shards_cover(lambda **kw: ds.Food101Dataset(str(tmp_path), **kw), lambda r: r["image"].tobytes())
    with pytest.raises(ValueError, match=r"usage is not within the valid set of \['train', 'test'"):
        ds.Food101Dataset(str(tmp_path), "val")
    (tmp_path / "meta" / "test.txt").write_text("pizza/0\n")
    with pytest.raises(RuntimeError, match=r"test.txt:1"):
        ds.Food101Dataset(str(tmp_path), "test")


def test_rendered_sst2_splits(tmp_path):
    imgs = {}
    for split in ("train", "valid", "test"):
        for cls in ("negative", "positive"):
            for k in range(2):
                imgs[(split, cls, k)] = _png(tmp_path / split / cls / f"{k:04d}x2.png", len(imgs))
    for usage, split in (("train", "train"), ("val", "valid"), ("test", "test")):
        rows = _rows(ds.RenderedSST2Dataset(str(tmp_path), usage, decode=True, shuffle=False))
        want = [(split, c, k) for c in ("negative", "positive") for k in range(2)]
        assert [int(r["label"]) for r in rows] == [0, 0, 1, 1]
        assert all(r["label"].dtype == np.uint32 for r in rows)
        for r, key in zip(rows, want):
            np.testing.assert_array_equal(r["image"], imgs[key])
    assert ds.RenderedSST2Dataset(str(tmp_path)).get_dataset_size() == 12
    with pytest.raises(ValueError, match="usage is not within the valid set"):
        ds.RenderedSST2Dataset(str(tmp_path), "valid")


def _stl10(root, counts=(2, 3, 1)):
    rng = np.random.default_rng(0)
    out = {}
    for part, n in zip(("train", "test", "unlabeled"), counts):
        raw = rng.integers(0, 256, n * 96 * 96 * 3, np.uint8)
        raw.tofile(root / f"{part}_X.bin")
        # the oracle: channel planes stored column by column
        hwc = np.stack([np.stack([raw[i * 27648 + c * 9216:(i * 27648 + (c + 1) * 9216)]
                                  .reshape(96, 96).T for c in range(3)], -1) for i in range(n)])
        labels = rng.integers(1, 11, n).astype(np.uint8)
        if part != "unlabeled":
            labels.tofile(root / f"{part}_y.bin")
        out[part] = (hwc, labels.astype(np.int32) - 1 if part != "unlabeled"
                     else np.full(n, -1, np.int32))
    return out


def test_stl10_images_and_labels(tmp_path):
    parts = _stl10(tmp_path)
    for usage, names in (("train", ["train"]), ("test", ["test"]), ("unlabeled", ["unlabeled"]),
                         ("train+unlabeled", ["train", "unlabeled"]),
                         (None, ["test", "train", "unlabeled"])):
        rows = _rows(ds.STL10Dataset(str(tmp_path), usage, shuffle=False))
        images = np.concatenate([parts[p][0] for p in names])
        labels = np.concatenate([parts[p][1] for p in names])
        assert len(rows) == len(images)
        for r, img, lab in zip(rows, images, labels):
            np.testing.assert_array_equal(r["image"], img)
            assert r["label"].dtype == np.int32 and r["label"] == lab
    (tmp_path / "test_y.bin").write_bytes(b"\x01")
    with pytest.raises(RuntimeError, match="test_y.bin has 1 labels"):
        ds.STL10Dataset(str(tmp_path), "test")
    (tmp_path / "train_y.bin").unlink()
    with pytest.raises(ValueError, match="train_y.bin does not exist"):
        ds.STL10Dataset(str(tmp_path), "train")


def test_svhn_mat_files(tmp_path):
    rng = np.random.default_rng(1)
    parts = {}
    for part, n in (("train", 3), ("test", 2), ("extra", 1)):
        x = rng.integers(0, 256, (32, 32, 3, n), np.uint8)
        y = rng.integers(1, 11, (n, 1)).astype(np.float64)
        y[0, 0] = 10  # the digit 0
        savemat(tmp_path / f"{part}_32x32.mat", {"X": x, "y": y})
        parts[part] = (np.transpose(x, (3, 0, 1, 2)), np.where(y[:, 0] == 10, 0, y[:, 0]))
    for usage, names in (("train", ["train"]), ("extra", ["extra"]),
                         (None, ["train", "test", "extra"])):
        rows = _rows(ds.SVHNDataset(str(tmp_path), usage, shuffle=False))
        images = np.concatenate([parts[p][0] for p in names])
        labels = np.concatenate([parts[p][1] for p in names])
        for r, img, lab in zip(rows, images, labels):
            np.testing.assert_array_equal(r["image"], img)
            assert r["label"].dtype == np.uint32 and r["label"] == lab
    _shards_cover(lambda **kw: ds.SVHNDataset(str(tmp_path), **kw), lambda r: r["image"].tobytes())
    savemat(tmp_path / "test_32x32.mat", {"X": np.zeros((8, 8, 3, 1), np.uint8), "y": [[1]]})
    with pytest.raises(RuntimeError, match="test_32x32.mat does not hold X"):
        ds.SVHNDataset(str(tmp_path), "test")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="test_32x32.mat does not exist or permission denied!"):
        ds.SVHNDataset(str(tmp_path / "empty"), "test")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.SVHNDataset(str(tmp_path / "nope"), "test")


def test_usps_libsvm_lines(tmp_path):
    rng = np.random.default_rng(2)
    data = {}
    for name, n in (("usps", 4), ("usps.t", 2)):
        values = rng.uniform(-1, 1, (n, 256)).astype(np.float32)
        labels = rng.integers(1, 11, n)
        lines = [f"{lab} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(row))
                 for lab, row in zip(labels, values)]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        parsed = np.array([[float(f"{v:.6f}") for v in row] for row in values], np.float32)
        data[name] = (((parsed + 1) / 2 * 255).astype(np.uint8).reshape(-1, 16, 16, 1),
                      labels - 1)
    for usage, names in (("train", ["usps"]), ("test", ["usps.t"]), (None, ["usps", "usps.t"])):
        rows = _rows(ds.USPSDataset(str(tmp_path), usage, shuffle=False))
        images = np.concatenate([data[n][0] for n in names])
        labels = np.concatenate([data[n][1] for n in names])
        for r, img, lab in zip(rows, images, labels):
            np.testing.assert_array_equal(r["image"], img)
            assert r["label"].dtype == np.uint32 and r["label"] == lab
    assert len(_rows(ds.USPSDataset(str(tmp_path), shuffle=ds.Shuffle.GLOBAL))) == 6
    with pytest.raises(ValueError, match="only Shuffle.GLOBAL"):
        ds.USPSDataset(str(tmp_path), shuffle=ds.Shuffle.FILES)
    (tmp_path / "usps.t").write_text("3 1:0.5 2:0.1\n")
    with pytest.raises(RuntimeError, match=r"usps.t:1 has 2 values"):
        ds.USPSDataset(str(tmp_path), "test")
    (tmp_path / "usps").unlink()
    with pytest.raises(RuntimeError, match="usps does not exist or is a directory"):
        ds.USPSDataset(str(tmp_path), "train")
