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
    _shards_cover(lambda **kw: ds.Food101Dataset(str(tmp_path), **kw),
                  lambda r: r["image"].tobytes())
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


def test_div2k_pairs_per_downgrade_and_scale(tmp_path):
    hr = {}
    for split, ids in (("train", ["0001", "0002"]), ("valid", ["0801"])):
        for i in ids:
            hr[(split, i)] = _png(tmp_path / f"DIV2K_{split}_HR" / f"{i}.png", len(hr), (8, 6))
            _png(tmp_path / f"DIV2K_{split}_LR_bicubic" / "X2" / f"{i}x2.png", 100 + len(hr))
            _png(tmp_path / f"DIV2K_{split}_LR_x8" / f"{i}x8.png", 200 + len(hr))
            _png(tmp_path / f"DIV2K_{split}_LR_mild" / f"{i}x4m.png", 300 + len(hr))
    for usage, downgrade, scale, lr_of in (
            ("train", "bicubic", 2, lambda s, i: f"DIV2K_{s}_LR_bicubic/X2/{i}x2.png"),
            ("all", "bicubic", 8, lambda s, i: f"DIV2K_{s}_LR_x8/{i}x8.png"),
            ("valid", "mild", 4, lambda s, i: f"DIV2K_{s}_LR_mild/{i}x4m.png")):
        rows = _rows(ds.DIV2KDataset(str(tmp_path), usage, downgrade, scale, decode=True,
                                     shuffle=False))
        keys = [k for k in hr if usage == "all" or k[0] == usage]
        assert len(rows) == len(keys)
        for r, (s, i) in zip(rows, keys):
            np.testing.assert_array_equal(r["hr_image"], hr[(s, i)])
            np.testing.assert_array_equal(r["lr_image"],
                                          np.asarray(Image.open(tmp_path / lr_of(s, i))))
    with pytest.raises(ValueError, match=r"Input scale is not within the valid set of \[2, 3"):
        ds.DIV2KDataset(str(tmp_path), scale=16)
    with pytest.raises(ValueError, match="downgrade 'mild' has no scale 2"):
        ds.DIV2KDataset(str(tmp_path), downgrade="mild", scale=2)
    with pytest.raises(RuntimeError, match="0002x3.png"):
        (tmp_path / "DIV2K_train_LR_unknown" / "X3").mkdir(parents=True)
        _png(tmp_path / "DIV2K_train_LR_unknown" / "X3" / "0001x3.png", 9)
        ds.DIV2KDataset(str(tmp_path), downgrade="unknown", scale=3)


def test_wider_face_annotations(tmp_path):
    imgs = {}
    gt = {"train": [("0--Abs/a.jpg", [[1, 2, 3, 4, 0, 1, 0, 0, 2, 1],
                                      [5, 6, 7, 8, 2, 0, 1, 1, 0, 0]]),
                    ("1--Run/b.jpg", [[0] * 10])],  # no face: a count of 0 and a line of zeros
          "val": [("0--Abs/c.jpg", [[9, 9, 9, 9, 1, 1, 1, 1, 1, 0]])]}
    for split, entries in gt.items():
        lines = []
        for name, faces in entries:
            imgs[(split, name)] = _png(tmp_path / f"WIDER_{split}" / "images" / name, len(imgs))
            count = 0 if faces == [[0] * 10] else len(faces)
            lines += [name, str(count)] + [" ".join(map(str, f)) + " " for f in faces]
        (tmp_path / "wider_face_split").mkdir(exist_ok=True)
        (tmp_path / "wider_face_split" / f"wider_face_{split}_bbx_gt.txt").write_text(
            "\n".join(lines) + "\n")
    imgs[("test", "0--Abs/t.jpg")] = _png(tmp_path / "WIDER_test/images/0--Abs/t.jpg", 50)
    rows = _rows(ds.WIDERFaceDataset(str(tmp_path), decode=True, shuffle=False))
    assert len(rows) == 3 and list(rows[0]) == ["image", "bbox", "blur", "expression",
                                                "illumination", "occlusion", "pose", "invalid"]
    for r, (split, (name, faces)) in zip(rows, [(s, e) for s in ("train", "val") for e in gt[s]]):
        f = np.array(faces, np.uint32)
        np.testing.assert_array_equal(r["image"], imgs[(split, name)])
        np.testing.assert_array_equal(r["bbox"], f[:, :4])
        for k, col in enumerate(["blur", "expression", "illumination", "occlusion", "pose",
                                 "invalid"], 4):
            assert r[col].dtype == np.uint32
            np.testing.assert_array_equal(r[col], f[:, k])
    test = _rows(ds.WIDERFaceDataset(str(tmp_path), "test", shuffle=False))
    assert len(test) == 1 and list(test[0]) == ["image"]
    (tmp_path / "wider_face_split" / "wider_face_val_bbx_gt.txt").write_text(
        "0--Abs/c.jpg\n2\n1 2\n")
    with pytest.raises(RuntimeError, match=r"wider_face_val_bbx_gt.txt:1"):
        ds.WIDERFaceDataset(str(tmp_path), "valid")
    with pytest.raises(ValueError, match=r"usage is not within the valid set of \['train', 'test'"):
        ds.WIDERFaceDataset(str(tmp_path), "val")


def test_cityscapes_tasks_and_usages(tmp_path):
    import json
    imgs, targets = {}, {}
    for split, cities in (("train", {"aa": 2, "bb": 1}), ("val", {"cc": 1}), ("test", {"dd": 1})):
        for city, n in cities.items():
            for k in range(n):
                stem = f"{city}_{k:06d}"
                imgs[(split, stem)] = _png(tmp_path / "leftImg8bit" / split / city /
                                           f"{stem}_leftImg8bit.png", len(imgs))
                gt = tmp_path / "gtFine" / split / city
                for suffix in ("instanceIds", "labelIds", "color"):
                    targets[(split, stem, suffix)] = _png(gt / f"{stem}_gtFine_{suffix}.png",
                                                          1000 + len(targets))
                (gt / f"{stem}_gtFine_polygons.json").write_text(
                    json.dumps({"imgWidth": 5, "objects": [{"label": city, "polygon": [[k, 1]]}]}))
    for usage, task, suffix in (("train", "instance", "instanceIds"),
                                ("val", "semantic", "labelIds"), ("all", "color", "color")):
        rows = _rows(ds.CityscapesDataset(str(tmp_path), usage, task=task, decode=True,
                                          shuffle=False))
        keys = sorted(k for k in imgs if usage == "all" or k[0] == usage)
        if usage == "all":  # train, test, val in that order, sorted within each
            keys = [k for s in ("train", "test", "val") for k in keys if k[0] == s]
        assert len(rows) == len(keys)
        for r, key in zip(rows, keys):
            np.testing.assert_array_equal(r["image"], imgs[key])
            np.testing.assert_array_equal(r["task"], targets[key + (suffix,)])
    poly = _rows(ds.CityscapesDataset(str(tmp_path), task="polygon", shuffle=False))
    assert [json.loads(str(r["task"]))["objects"][0]["label"] for r in poly] == ["aa", "aa", "bb"]
    with pytest.raises(ValueError, match=r"task is not within the valid set of \['instance'"):
        ds.CityscapesDataset(str(tmp_path), task="depth")
    with pytest.raises(ValueError, match="usage is not within the valid set"):
        ds.CityscapesDataset(str(tmp_path), usage="train_extra")
    (tmp_path / "gtFine/val/cc/cc_000000_gtFine_color.png").unlink()
    with pytest.raises(RuntimeError, match="cc_000000_gtFine_color.png does not exist"):
        ds.CityscapesDataset(str(tmp_path), "val", task="color")


def _sbd(root):
    from scipy.sparse import csc_matrix
    (root / "img").mkdir(parents=True)
    (root / "cls").mkdir()
    rng = np.random.default_rng(6)
    truth = {}
    for i in ("a1", "a2", "b1"):
        imgs = _png(root / "img" / f"{i}.jpg", len(truth), (7, 5))
        seg = rng.integers(0, 21, (5, 7)).astype(np.uint8)
        bounds = [(rng.random((5, 7)) < 0.2).astype(np.uint8) for _ in range(20)]
        cells = np.empty((20, 1), object)
        for k, b in enumerate(bounds):
            cells[k, 0] = csc_matrix(b)
        gt = np.array([[(cells, seg, np.array([[1, 2]], np.uint8))]],
                      dtype=[("Boundaries", "O"), ("Segmentation", "O"),
                             ("CategoriesPresent", "O")])
        savemat(root / "cls" / f"{i}.mat", {"GTcls": gt}, do_compression=i == "a2")
        truth[i] = (imgs, np.stack(bounds), seg)
    (root / "train.txt").write_text("a1\na2\n")
    (root / "val.txt").write_text("b1\n")
    return truth


def test_sbd_boundaries_and_segmentation(tmp_path):
    truth = _sbd(tmp_path)
    rows = _rows(ds.SBDataset(str(tmp_path), "Boundaries", "all", decode=True, shuffle=False))
    for r, i in zip(rows, ["a1", "a2", "b1"]):
        np.testing.assert_array_equal(r["image"], truth[i][0])
        assert r["task"].shape == (20, 5, 7)
        np.testing.assert_array_equal(r["task"], truth[i][1])
    seg = _rows(ds.SBDataset(str(tmp_path), "Segmentation", "val", shuffle=False))
    assert seg[0]["image"].tobytes() == (tmp_path / "img" / "b1.jpg").read_bytes()
    np.testing.assert_array_equal(seg[0]["task"], truth["b1"][2])
    with pytest.raises(ValueError, match="task is not within the valid set"):
        ds.SBDataset(str(tmp_path), "Edges")
    savemat(tmp_path / "cls" / "b1.mat", {"other": np.eye(2)})
    with pytest.raises(RuntimeError, match="b1.mat has no GTcls"):
        _rows(ds.SBDataset(str(tmp_path), usage="val"))
    (tmp_path / "img" / "a2.jpg").unlink()
    with pytest.raises(RuntimeError, match="a2.jpg"):
        ds.SBDataset(str(tmp_path), usage="train")


def test_matfile_reader_cells_structs_and_sparse(tmp_path):
    from scipy.io import loadmat as scipy_loadmat
    from scipy.sparse import csc_matrix
    from mycel.dataset._matfile import loadmat
    cell = np.empty((1, 3), object)
    cell[0, 0], cell[0, 1], cell[0, 2] = np.arange(4.0).reshape(2, 2), np.array([[7]], np.int16), \
        csc_matrix(np.array([[0, 2.5], [0, 0], [1, 0]]))
    st = np.array([[(np.array([[1, 2]]), np.array([[3.5]]))]], dtype=[("p", "O"), ("q", "O")])
    savemat(tmp_path / "c.mat", {"cell": cell, "st": st,
                                 "sp": csc_matrix(np.array([[0, 0, 3], [4, 0, 0]]))})
    got, want = loadmat(tmp_path / "c.mat"), scipy_loadmat(tmp_path / "c.mat")
    assert got["cell"].shape == (1, 3) and got["st"].shape == (1, 1)
    for k in range(3):
        w = want["cell"][0, k]
        np.testing.assert_array_equal(got["cell"][0, k], w.toarray() if hasattr(w, "toarray")
                                      else w)
    np.testing.assert_array_equal(got["st"][0, 0]["p"], want["st"][0, 0]["p"])
    np.testing.assert_array_equal(got["st"][0, 0]["q"], want["st"][0, 0]["q"])
    np.testing.assert_array_equal(got["sp"], want["sp"].toarray())
