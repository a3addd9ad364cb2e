"""The image data sets of sources_image_more.py (Caltech101/256, Flowers102, KITTI, Places365,
SBU, QMNIST, Semeion, PhotoTour, FakeImage) on small files each test writes in the data set's
layout, against oracles reading the same files: PIL for images (PNG data under the data sets'
.jpg names, so decoding is exact), SciPy for the .mat files (written by scipy.io.savemat and
read by mycel's own MAT reader), numpy for idx, text and BMP files; plus sharding, samplers and
each bad input's error."""
import struct

import numpy as np
import pytest
from PIL import Image
from scipy.io import savemat

import mycel.dataset as ds
from mycel.dataset._matfile import loadmat


def _rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def _png(path, seed, size=(5, 4)):
    """Writes a small RGB PNG (under any file name) and returns its pixels."""
    path.parent.mkdir(parents=True, exist_ok=True)
    img = np.random.default_rng(seed).integers(0, 256, (size[1], size[0], 3), np.uint8)
    Image.fromarray(img).save(path, "PNG")
    return img


def _check_shards(make, key, num_shards=3):
    """Every row in a shard, and the shards differ by at most one row (a shard may repeat a
    row to even out the shards: DistributedSampler's wrap-around)."""
    everything = sorted(key(r) for r in _rows(make()))
    parts = [[key(r) for r in _rows(make(num_shards=num_shards, shard_id=i, shuffle=False))]
             for i in range(num_shards)]
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1
    assert sorted({k for p in parts for k in p}) == sorted(set(everything))
    assert sum(sizes) - len(everything) < num_shards


# ----- the MAT-file reader -----

@pytest.mark.parametrize("compress", [False, True])
def test_matfile_reader_matches_scipy(tmp_path, compress):
    from scipy.io import loadmat as scipy_loadmat
    arrays = {"d": np.arange(12.0).reshape(3, 4), "u": np.arange(6, dtype=np.uint16).reshape(2, 3),
              "i": np.array([[-5, 7]], np.int64), "small": np.array([[1, 2, 3]], np.float64),
              "text": "skipped"}
    savemat(tmp_path / "a.mat", arrays, do_compression=compress)
    got, want = loadmat(tmp_path / "a.mat"), scipy_loadmat(tmp_path / "a.mat")
    assert sorted(got) == ["d", "i", "small", "u"]
    for k, v in got.items():
        assert v.dtype == want[k].dtype and v.shape == want[k].shape
        np.testing.assert_array_equal(v, want[k])


def test_matfile_reader_rejects_bad_files(tmp_path):
    (tmp_path / "short.mat").write_bytes(b"MATLAB 5.0")
    with pytest.raises(RuntimeError, match="short.mat"):
        loadmat(tmp_path / "short.mat")
    savemat(tmp_path / "t.mat", {"a": np.arange(100.0)})
    data = (tmp_path / "t.mat").read_bytes()
    (tmp_path / "t.mat").write_bytes(data[:200])
    with pytest.raises(RuntimeError, match="t.mat"):
        loadmat(tmp_path / "t.mat")


# ----- Caltech 101 / 256 -----

def _caltech101(root):
    images, contours = {}, {}
    for cls, ann_dir, n in (("Faces", "Faces_2", 2), ("apple", "apple", 3),
                            ("BACKGROUND_Google", None, 1)):
        for k in range(1, n + 1):
            images[(cls, k)] = _png(root / "101_ObjectCategories" / cls / f"image_{k:04d}.jpg",
                                    len(images))
            if ann_dir:
                c = np.random.default_rng(k).integers(0, 100, (2, 4 + k)).astype(np.float64)
                contours[(cls, k)] = c
                (root / "Annotations" / ann_dir).mkdir(parents=True, exist_ok=True)
                savemat(root / "Annotations" / ann_dir / f"annotation_{k:04d}.mat",
                        {"obj_contour": c, "box_coord": np.array([[1, 2, 3, 4]])})
    return images, contours


def test_caltech101_rows_against_pil_and_scipy(tmp_path):
    images, contours = _caltech101(tmp_path)
    order = [("Faces", 1), ("Faces", 2), ("apple", 1), ("apple", 2), ("apple", 3)]
    rows = _rows(ds.Caltech101Dataset(str(tmp_path), target_type="all", decode=True,
                                      shuffle=False))
    assert len(rows) == 5 and list(rows[0]) == ["image", "category", "annotation"]
    for r, key in zip(rows, order):
        np.testing.assert_array_equal(r["image"], images[key])
        assert r["category"].dtype == np.int64 and r["category"] == (key[0] == "apple")
        np.testing.assert_array_equal(r["annotation"], contours[key])
    raw = _rows(ds.Caltech101Dataset(str(tmp_path), shuffle=False))
    assert list(raw[0]) == ["image", "category"]
    assert raw[3]["image"].tobytes() == \
        (tmp_path / "101_ObjectCategories/apple/image_0002.jpg").read_bytes()
    ann = _rows(ds.Caltech101Dataset(str(tmp_path), target_type="annotation", shuffle=False))
    assert list(ann[0]) == ["image", "annotation"]
    indexing = ds.Caltech101Dataset(str(tmp_path)).get_class_indexing()
    assert len(indexing) == 101 and indexing["Faces"] == 0 and indexing["yin_yang"] == 100
    _check_shards(lambda **kw: ds.Caltech101Dataset(str(tmp_path), **kw),
                  lambda r: r["image"].tobytes())


def test_caltech101_bad_input(tmp_path):
    _caltech101(tmp_path)
    with pytest.raises(ValueError, match="target_type is not within the valid set"):
        ds.Caltech101Dataset(str(tmp_path), target_type="cate")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.Caltech101Dataset(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="decode"):
        ds.Caltech101Dataset(str(tmp_path), decode=1)
    (tmp_path / "Annotations/apple/annotation_0002.mat").write_bytes(b"not a mat file" * 20)
    with pytest.raises(RuntimeError, match="annotation_0002.mat"):
        ds.Caltech101Dataset(str(tmp_path), target_type="annotation")
    savemat(tmp_path / "Annotations/apple/annotation_0002.mat", {"obj_contour": np.eye(2)})
    (tmp_path / "Annotations/apple/annotation_0003.mat").unlink()
    with pytest.raises(RuntimeError, match="annotation_0003.mat"):
        ds.Caltech101Dataset(str(tmp_path), target_type="all")
    # the category target reads no annotation
    assert ds.Caltech101Dataset(str(tmp_path)).get_dataset_size() == 5


def test_caltech256_folders_and_extensions(tmp_path):
    imgs = {}
    for c, cls in enumerate(["001.ak47", "002.bat"]):
        for k, ext in enumerate([".jpg", ".JPEG", ".png"]):
            imgs[(c, k)] = _png(tmp_path / cls / f"{k}{ext}", 10 * c + k)
    rows = _rows(ds.Caltech256Dataset(str(tmp_path), decode=True, shuffle=False))
    assert len(rows) == 4  # .png files are not read
    for r, (c, k) in zip(rows, [(0, 0), (0, 1), (1, 0), (1, 1)]):
        np.testing.assert_array_equal(r["image"], imgs[(c, k)])
        assert r["label"].dtype == np.uint32 and r["label"] == c
    pk = _rows(ds.Caltech256Dataset(str(tmp_path), sampler=ds.PKSampler(1, shuffle=False)))
    assert sorted(int(r["label"]) for r in pk) == [0, 1]
    _check_shards(lambda **kw: ds.Caltech256Dataset(str(tmp_path), **kw),
                  lambda r: r["image"].tobytes())
    with pytest.raises(ValueError, match="does not exist"):
        ds.Caltech256Dataset(str(tmp_path / "nope"))


# ----- Flowers 102 -----

def _flowers(root):
    labels = np.array([[3, 1, 102, 3, 7, 1]], np.uint8)
    savemat(root / "imagelabels.mat", {"labels": labels})
    savemat(root / "setid.mat", {"trnid": np.array([[1, 2]], np.uint8),
                                 "tstid": np.array([[3, 4]], np.uint8),
                                 "valid": np.array([[5, 6]], np.uint8)})
    images = {i: _png(root / "jpg" / f"image_{i:05d}.jpg", i) for i in range(1, 7)}
    segs = {i: _png(root / "segmim" / f"segmim_{i:05d}.jpg", 50 + i) for i in range(1, 7)}
    return labels[0].astype(np.int64) - 1, images, segs


def test_flowers102_usages_and_tasks(tmp_path):
    labels, images, segs = _flowers(tmp_path)
    for usage, ids in (("train", [1, 2]), ("test", [3, 4]), ("valid", [5, 6]),
                       ("all", [1, 2, 3, 4, 5, 6])):
        rows = _rows(ds.Flowers102Dataset(str(tmp_path), usage=usage, decode=True,
                                          shuffle=False))
        assert [int(r["label"]) for r in rows] == [labels[i - 1] for i in ids]
        assert all(r["label"].dtype == np.uint32 for r in rows)
        for r, i in zip(rows, ids):
            np.testing.assert_array_equal(r["image"], images[i])
    seg = _rows(ds.Flowers102Dataset(str(tmp_path), task="Segmentation", usage="test",
                                     decode=True, shuffle=False))
    assert list(seg[0]) == ["image", "segmentation", "label"]
    np.testing.assert_array_equal(seg[1]["segmentation"], segs[4])
    _check_shards(lambda **kw: ds.Flowers102Dataset(str(tmp_path), **kw),
                  lambda r: r["image"].tobytes())


def test_flowers102_bad_input(tmp_path):
    _flowers(tmp_path)
    with pytest.raises(ValueError, match="usage is not within the valid set"):
        ds.Flowers102Dataset(str(tmp_path), usage="everything")
    with pytest.raises(ValueError, match="task is not within the valid set"):
        ds.Flowers102Dataset(str(tmp_path), task="Detection")
    indexing = ds.Flowers102Dataset(str(tmp_path)).get_class_indexing()
    assert len(indexing) == 102 and indexing["pink primrose"] == 0
    assert indexing["blackberry lily"] == 101
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.Flowers102Dataset(str(tmp_path / "jpg"))  # no jpg folder below it
    (tmp_path / "segmim" / "segmim_00002.jpg").unlink()
    with pytest.raises(RuntimeError, match="segmim_00002.jpg"):
        ds.Flowers102Dataset(str(tmp_path), task="Segmentation")
    (tmp_path / "setid.mat").write_bytes(b"\0" * 10)
    with pytest.raises(RuntimeError, match="setid.mat"):
        ds.Flowers102Dataset(str(tmp_path))


# ----- KITTI -----

_KITTI_LINES = {
    "000000": ["Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 "
               "-1.59", "Pedestrian 0.50 2 0.21 10 20 30 40 1.7 0.6 0.9 1 2 3 0.5"],
    "000001": [],  # no object: left out
    "000002": ["Cyclist 0.1 1 1.2 5 6 7 8 1 2 3 4 5 6 7", "", "Car 0 0 0 1 1 2 2 1 1 1 1 1 1 1"],
}


def _kitti(root):
    imgs = {}
    for split in ("training", "testing"):
        for i in _KITTI_LINES:
            imgs[(split, i)] = _png(root / "data_object_image_2" / split / "image_2" /
                                    f"{i}.png", len(imgs))
    labels = root / "data_object_label_2" / "training" / "label_2"
    labels.mkdir(parents=True)
    for i, lines in _KITTI_LINES.items():
        (labels / f"{i}.txt").write_text("\n".join(lines) + "\n")
    return imgs


def test_kitti_train_annotations_against_numpy(tmp_path):
    imgs = _kitti(tmp_path)
    rows = _rows(ds.KITTIDataset(str(tmp_path), decode=True, shuffle=False))
    assert len(rows) == 2
    assert list(rows[0]) == ["image", "label", "truncated", "occluded", "alpha", "bbox",
                             "dimensions", "location", "rotation_y"]
    types = sorted({ln.split()[0] for v in _KITTI_LINES.values() for ln in v if ln})
    for r, i in zip(rows, ["000000", "000002"]):
        np.testing.assert_array_equal(r["image"], imgs[("training", i)])
        lines = [ln.split() for ln in _KITTI_LINES[i] if ln]
        num = np.array([[float(w) for w in ln[1:]] for ln in lines], np.float32)
        np.testing.assert_array_equal(r["label"], [[types.index(ln[0])] for ln in lines])
        assert r["label"].dtype == np.uint32 and r["occluded"].dtype == np.uint32
        np.testing.assert_array_equal(r["truncated"], num[:, 0:1])
        np.testing.assert_array_equal(r["occluded"], num[:, 1:2].astype(np.uint32))
        np.testing.assert_array_equal(r["alpha"], num[:, 2:3])
        np.testing.assert_array_equal(r["bbox"], num[:, 3:7])
        np.testing.assert_array_equal(r["dimensions"], num[:, 7:10])
        np.testing.assert_array_equal(r["location"], num[:, 10:13])
        np.testing.assert_array_equal(r["rotation_y"], num[:, 13:14])
        assert all(r[c].dtype == np.float32 for c in ("bbox", "alpha", "location"))
    test = _rows(ds.KITTIDataset(str(tmp_path), usage="test", shuffle=False))
    assert len(test) == 3 and list(test[0]) == ["image"]
    assert test[1]["image"].tobytes() == \
        (tmp_path / "data_object_image_2/testing/image_2/000001.png").read_bytes()


def test_kitti_bad_input(tmp_path):
    _kitti(tmp_path)
    with pytest.raises(ValueError, match=r"usage is not within the valid set of \['train', "):
        ds.KITTIDataset(str(tmp_path), usage="val")
    with pytest.raises(TypeError, match="decode"):
        ds.KITTIDataset(str(tmp_path), decode=123)
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.KITTIDataset(str(tmp_path / "nope"))
    (tmp_path / "data_object_label_2/training/label_2/000002.txt").write_text("Car 0 0\n")
    with pytest.raises(RuntimeError, match=r"000002.txt:1 has 3 fields"):
        ds.KITTIDataset(str(tmp_path))
    (tmp_path / "data_object_label_2/training/label_2/000002.txt").unlink()
    with pytest.raises(RuntimeError, match="000002.txt"):
        ds.KITTIDataset(str(tmp_path))


# ----- Places365 -----

def test_places365_usages_and_sizes(tmp_path):
    (tmp_path / "categories_places365.txt").write_text("/a/airfield 0\n/b/bar 1\n")
    listing = "/a/airfield/00000001.jpg 0\n/b/bar/00000002.jpg 1\n/a/airfield/00000003.jpg 0\n"
    imgs = {}
    for usage, name, folders in (("train-standard", "train_standard",
                                  ("data_256_standard", "data_large_standard")),
                                 ("train-challenge", "train_challenge",
                                  ("data_256_challenge", "data_large_challenge")),
                                 ("val", "val", ("val_256", "val_large"))):
        (tmp_path / f"places365_{name}.txt").write_text(listing)
        for folder in folders:
            for line in listing.split("\n")[:-1]:
                path = line.split()[0]
                imgs[(folder, path)] = _png(tmp_path / folder / path.lstrip("/"), len(imgs))
    for usage, small, folder in ((None, True, "data_256_standard"),
                                 ("train-challenge", False, "data_large_challenge"),
                                 ("val", True, "val_256")):
        rows = _rows(ds.Places365Dataset(str(tmp_path), usage=usage, small=small, decode=True,
                                         shuffle=False))
        assert [int(r["label"]) for r in rows] == [0, 1, 0]
        for r, line in zip(rows, listing.split("\n")):
            np.testing.assert_array_equal(r["image"], imgs[(folder, line.split()[0])])
    data = ds.Places365Dataset(str(tmp_path))
    assert data.get_class_indexing() == {"/a/airfield": 0, "/b/bar": 1}
    _check_shards(lambda **kw: ds.Places365Dataset(str(tmp_path), **kw),
                  lambda r: r["image"].tobytes())
    with pytest.raises(ValueError, match="usage is not within the valid set"):
        ds.Places365Dataset(str(tmp_path), usage="test")
    (tmp_path / "places365_val.txt").write_text("/a/airfield/00000001.jpg zero\n")
    with pytest.raises(RuntimeError, match=r"places365_val.txt:1"):
        ds.Places365Dataset(str(tmp_path), usage="val")


# ----- SBU -----

def test_sbu_captions_and_missing_images(tmp_path):
    urls = [f"http://static.flickr.com/{k}/{k}_abc.jpg" for k in range(4)]
    caps = [" a dog  ", "a cat", " two birds ", "gone"]
    imgs = {}
    for k, url in enumerate(urls[:3]):
        imgs[k] = _png(tmp_path / "sbu_images" / url[23:].replace("/", "_"), k)
    (tmp_path / "SBU_captioned_photo_dataset_urls.txt").write_text("\n".join(urls) + "\n")
    (tmp_path / "SBU_captioned_photo_dataset_captions.txt").write_text("\n".join(caps) + "\n")
    rows = _rows(ds.SBUDataset(str(tmp_path), decode=True, shuffle=False))
    assert [str(r["caption"]) for r in rows] == [" a dog", "a cat", " two birds"]
    assert ds.SBUDataset(str(tmp_path)).get_class_indexing() == {}
    for r, k in zip(rows, range(3)):
        np.testing.assert_array_equal(r["image"], imgs[k])
    _check_shards(lambda **kw: ds.SBUDataset(str(tmp_path), **kw), lambda r: str(r["caption"]))
    (tmp_path / "SBU_captioned_photo_dataset_captions.txt").write_text("x\n\ny\nz\n")
    with pytest.raises(RuntimeError, match="line 2"):
        ds.SBUDataset(str(tmp_path))
    with pytest.raises(TypeError, match="decode"):
        ds.SBUDataset(str(tmp_path), decode="yes")


# ----- QMNIST -----

def _idx(path, magic, array, dtype):
    head = struct.pack(">I", magic) + struct.pack(f">{array.ndim}I", *array.shape)
    path.write_bytes(head + array.astype(dtype).tobytes())


def _qmnist(root, counts=(5, 4, 3)):
    out = {}
    rng = np.random.default_rng(0)
    for prefix, n in zip(("qmnist-train", "qmnist-test", "xnist"), counts):
        images = rng.integers(0, 256, (n, 28, 28), np.uint8)
        labels = rng.integers(0, 70000, (n, 8)).astype(np.int32)
        _idx(root / f"{prefix}-images-idx3-ubyte", 2051, images, np.uint8)
        _idx(root / f"{prefix}-labels-idx2-int", 3074, labels, ">i4")
        out[prefix] = (images, labels)
    return out


def test_qmnist_usages_and_compat(tmp_path):
    files = _qmnist(tmp_path)
    for usage, prefixes in (("train", ["qmnist-train"]), ("test", ["qmnist-test"]),
                            ("nist", ["xnist"]), (None, ["qmnist-train", "qmnist-test", "xnist"])):
        images = np.concatenate([files[p][0] for p in prefixes])
        labels = np.concatenate([files[p][1] for p in prefixes])
        for compat in (True, False):
            rows = _rows(ds.QMnistDataset(str(tmp_path), usage, compat, shuffle=False))
            assert len(rows) == len(images)
            for r, img, lab in zip(rows, images, labels):
                np.testing.assert_array_equal(r["image"], img[..., None])
                assert r["label"].dtype == np.uint32
                np.testing.assert_array_equal(r["label"], lab[0] if compat else lab)
    _check_shards(lambda **kw: ds.QMnistDataset(str(tmp_path), "all", **kw),
                  lambda r: r["image"].tobytes())


def test_qmnist_test10k_and_test50k_split_the_test_file(tmp_path):
    files = _qmnist(tmp_path, counts=(1, 10003, 1))
    ten = ds.QMnistDataset(str(tmp_path), "test10k", shuffle=False)
    fifty = _rows(ds.QMnistDataset(str(tmp_path), "test50k", shuffle=False))
    assert ten.get_dataset_size() == 10000 and len(fifty) == 3
    np.testing.assert_array_equal(np.stack([r["label"] for r in fifty]),
                                  files["qmnist-test"][1][10000:, 0])


def test_qmnist_bad_files(tmp_path):
    _qmnist(tmp_path)
    with pytest.raises(ValueError, match="usage is not within the valid set"):
        ds.QMnistDataset(str(tmp_path), "val")
    path = tmp_path / "qmnist-train-labels-idx2-int"
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(RuntimeError, match="qmnist-train-labels-idx2-int"):
        ds.QMnistDataset(str(tmp_path), "train")
    img = tmp_path / "xnist-images-idx3-ubyte"
    img.write_bytes(struct.pack(">I", 2049) + img.read_bytes()[4:])
    with pytest.raises(RuntimeError, match="magic number of .*xnist-images-idx3-ubyte"):
        ds.QMnistDataset(str(tmp_path), "nist")
    (tmp_path / "qmnist-test-labels-idx2-int").unlink()
    with pytest.raises(RuntimeError, match="qmnist-test-labels-idx2-int"):
        ds.QMnistDataset(str(tmp_path), "test")


# ----- Semeion -----

def test_semeion_rows_and_bad_lines(tmp_path):
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 2, (6, 256))
    digits = rng.integers(0, 10, 6)
    lines = [" ".join(f"{v:.4f}" for v in np.concatenate([p, np.eye(10)[d]])) + " "
             for p, d in zip(pixels, digits)]
    (tmp_path / "semeion.data").write_text("\n".join(lines) + "\n")
    rows = _rows(ds.SemeionDataset(str(tmp_path), shuffle=False))
    for r, p, d in zip(rows, pixels, digits):
        assert r["image"].dtype == np.uint8 and r["image"].shape == (16, 16)
        np.testing.assert_array_equal(r["image"], p.reshape(16, 16))
        assert r["label"].dtype == np.uint32 and r["label"] == d
    _check_shards(lambda **kw: ds.SemeionDataset(str(tmp_path), **kw),
                  lambda r: r["image"].tobytes())
    (tmp_path / "semeion.data").write_text(lines[0] + "\n" + "1.0 0.0\n")
    with pytest.raises(RuntimeError, match=r"semeion.data:2"):
        ds.SemeionDataset(str(tmp_path))


# ----- PhotoTour -----

def test_phototour_patches_against_numpy(tmp_path):
    folder = tmp_path / "yosemite"
    folder.mkdir()
    rng = np.random.default_rng(4)
    sheets = [rng.integers(0, 256, (1024, 1024), np.uint8) for _ in range(2)]
    for k, sheet in enumerate(sheets):
        Image.fromarray(sheet, "L").save(folder / f"patches{k:04d}.bmp")  # 8-bit palette BMP
    (folder / "info.txt").write_text("".join(f"{k // 3} 0\n" for k in range(300)))
    matches = [(0, 7, 5, 7), (3, 1, 299, 2), (256, 9, 10, 9)]
    (folder / "m50_100000_100000_0.txt").write_text(
        "".join(f"{a} {pa} 0 {b} {pb} 0 0\n" for a, pa, b, pb in matches))

    def patch(k):
        r, c = (k % 256) // 16, k % 16
        return sheets[k // 256][r * 64:(r + 1) * 64, c * 64:(c + 1) * 64, None]

    train = ds.PhotoTourDataset(str(tmp_path), "yosemite", shuffle=False)
    assert train.get_dataset_size() == 300
    for k in (0, 17, 255, 256, 299):
        np.testing.assert_array_equal(_rows(train.skip(k).take(1))[0]["image"], patch(k))
    small = ds.PhotoTourDataset(str(tmp_path), "yosemite", shuffle=False)
    small._CACHED_SHEETS = 1  # every other row evicts the other sheet
    small.use_sampler(ds.SubsetSampler([0, 256, 1, 257]))
    for k, r in zip((0, 256, 1, 257), _rows(small)):
        np.testing.assert_array_equal(r["image"], patch(k))
    assert len(small._cache) == 1
    import copy
    twin = copy.deepcopy(small)
    assert twin._cache == {} and twin._lock is not small._lock
    np.testing.assert_array_equal(_rows(twin)[1]["image"], patch(256))
    rows = _rows(ds.PhotoTourDataset(str(tmp_path), "yosemite", "test", shuffle=False))
    for r, (a, pa, b, pb) in zip(rows, matches):
        np.testing.assert_array_equal(r["image1"], patch(a))
        np.testing.assert_array_equal(r["image2"], patch(b))
        assert r["matches"].dtype == np.uint32 and r["matches"] == int(pa == pb)
    # PKSampler: classes are the patches' 3-D point ids (train) or the matches value (test)
    pk = _rows(ds.PhotoTourDataset(str(tmp_path), "yosemite", sampler=ds.PKSampler(2)))
    point_of = {patch(k).tobytes(): k // 3 for k in range(300)}
    got = [point_of[r["image"].tobytes()] for r in pk]
    assert sorted(got) == sorted(list(range(100)) * 2)
    pk = _rows(ds.PhotoTourDataset(str(tmp_path), "yosemite", "test",
                                   sampler=ds.PKSampler(1, shuffle=False)))
    assert sorted(int(r["matches"]) for r in pk) == [0, 1]
    with pytest.raises(ValueError, match="name is not within the valid set"):
        ds.PhotoTourDataset(str(tmp_path), "paris")
    (folder / "m50_100000_100000_0.txt").write_text("0 1 0 900 1 0 0\n")
    with pytest.raises(RuntimeError, match="patch 900"):
        ds.PhotoTourDataset(str(tmp_path), "yosemite", "test")


def test_phototour_reads_24_bit_bmp_through_luma(tmp_path):
    folder = tmp_path / "liberty"
    folder.mkdir()
    rgb = np.random.default_rng(5).integers(0, 256, (1024, 1024, 3), np.uint8)
    Image.fromarray(rgb, "RGB").save(folder / "patches0000.bmp")
    (folder / "info.txt").write_text("0 0\n1 0\n")
    (folder / "m50_100000_100000_0.txt").write_text("0 1 0 1 1 0 0\n")
    gray = np.rint(rgb.astype(np.float64) @ [0.299, 0.587, 0.114]).astype(np.uint8)
    row = _rows(ds.PhotoTourDataset(str(tmp_path), "liberty", shuffle=False).skip(1))[0]
    assert np.abs(row["image"][..., 0].astype(int) - gray[:64, 64:128]).max() <= 1


# ----- FakeImage -----

def test_fake_image_rows_are_deterministic_and_shardable():
    make = lambda **kw: ds.FakeImageDataset(20, (6, 5, 3), 4, base_seed=7, **kw)  # noqa: E731
    first = _rows(make(shuffle=False))
    assert len(first) == 20 and all(r["image"].shape == (6, 5, 3) for r in first)
    assert all(r["image"].dtype == np.uint8 and r["label"].dtype == np.uint32 for r in first)
    assert {int(r["label"]) for r in first} <= set(range(4))
    again = _rows(make(shuffle=False))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a["image"], b["image"])
        assert a["label"] == b["label"]
    other = _rows(ds.FakeImageDataset(20, (6, 5, 3), 4, base_seed=8, shuffle=False))
    assert not np.array_equal(other[0]["image"], first[0]["image"])
    assert len(_rows(make(num_samples=5))) == 5
    _check_shards(make, lambda r: r["image"].tobytes(), num_shards=4)
    pk = _rows(make(sampler=ds.PKSampler(2, shuffle=False)))
    labels = [int(r["label"]) for r in pk]
    counts = {c: labels.count(c) for c in set(labels)}
    assert all(v == 2 for v in counts.values())


def test_fake_image_bad_arguments():
    with pytest.raises(ValueError, match="num_images"):
        ds.FakeImageDataset(0)
    with pytest.raises(ValueError, match="image_size should be a list or tuple of length 3"):
        ds.FakeImageDataset(10, (3, 3))
    with pytest.raises(TypeError, match=r"Argument image_size\[0\] with value -1 is not of"):
        ds.FakeImageDataset(10, ("-1", 3, 3))
    with pytest.raises(ValueError, match=r"image_size\[2\] is not within the required"):
        ds.FakeImageDataset(10, (3, 3, 0))
    with pytest.raises(TypeError, match="num_classes"):
        ds.FakeImageDataset(10, (3, 3, 3), "ten")


def test_num_parallel_workers_out_of_range_names_the_boundary():
    from mycel.dataset._validate import MAX_WORKERS
    for bad in (0, -2, MAX_WORKERS + 1):
        with pytest.raises(ValueError, match="num_parallel_workers exceeds the boundary"):
            ds.FakeImageDataset(4, (2, 2, 3), num_parallel_workers=bad)
    with pytest.raises(TypeError, match="num_parallel_workers"):
        ds.FakeImageDataset(4, (2, 2, 3), num_parallel_workers="2")
    data = ds.FakeImageDataset(4, (2, 2, 3), num_parallel_workers=MAX_WORKERS)
    assert data.get_dataset_size() == 4


def test_missing_and_unknown_arguments_are_type_errors_in_mindspore_words(tmp_path):
    with pytest.raises(TypeError, match="missing a required argument: 'dataset_dir'"):
        ds.KITTIDataset()
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'more_para'"):
        ds.SemeionDataset(str(tmp_path), more_para=None)
