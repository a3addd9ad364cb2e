"""Cifar100Dataset (src/data/cifar100.h) over CIFAR-100 binary files written here, checked
against numpy decoding of the same bytes."""
import numpy as np
import pytest

import mycel.dataset as ds


def _write(path, coarse, fine, images):
    """A CIFAR-100 binary: per record a coarse and a fine label byte, then the CHW image."""
    with open(path, "wb") as f:
        for c, k, img in zip(coarse, fine, images):
            f.write(bytes([c, k]))
            f.write(np.ascontiguousarray(img.transpose(2, 0, 1)).tobytes())


@pytest.fixture(name="cifar")
def _cifar(tmp_path):
    rng = np.random.default_rng(5)
    parts = {}
    for name, n in (("train", 7), ("test", 3)):
        coarse = rng.integers(0, 20, n)
        fine = rng.integers(0, 100, n)
        images = rng.integers(0, 256, (n, 32, 32, 3), dtype=np.uint8)
        _write(tmp_path / f"{name}.bin", coarse, fine, images)
        parts[name] = (coarse, fine, images)
    (tmp_path / "meta.txt").write_text("not read")
    return tmp_path, parts


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


@pytest.mark.parametrize("usage", ["train", "test", "all", None])
def test_rows_match_the_file(cifar, usage):
    root, parts = cifar
    names = ["test", "train"] if usage in ("all", None) else [usage]  # files in name order
    coarse = np.concatenate([parts[n][0] for n in names])
    fine = np.concatenate([parts[n][1] for n in names])
    images = np.concatenate([parts[n][2] for n in names])
    d = ds.Cifar100Dataset(str(root), usage=usage, shuffle=False, num_parallel_workers=3)
    assert d.get_dataset_size() == len(coarse)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    rows = _rows(d)
    assert len(rows) == len(coarse)
    for (img, c, k), wc, wk, wimg in zip(rows, coarse, fine, images):
        assert img.dtype == np.uint8 and img.shape == (32, 32, 3)
        np.testing.assert_array_equal(img, wimg)
        assert c.dtype == np.uint32 and int(c) == wc
        assert k.dtype == np.uint32 and int(k) == wk


def test_shuffle_shards_and_pk_sampler(cifar):
    root, parts = cifar
    fine = list(parts["test"][1]) + list(parts["train"][1])
    d = ds.Cifar100Dataset(str(root), num_parallel_workers=2)
    assert sorted(int(k) for _, _, k in _rows(d)) == sorted(int(v) for v in fine)
    shards = [_rows(ds.Cifar100Dataset(str(root), num_shards=2, shard_id=s, shuffle=False))
              for s in range(2)]
    assert [len(s) for s in shards] == [5, 5]
    one = _rows(ds.Cifar100Dataset(str(root), sampler=ds.PKSampler(1), num_parallel_workers=2))
    assert sorted(int(k) for _, _, k in one) == sorted(set(int(v) for v in fine))


def test_bad_files_and_arguments(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ds.Cifar100Dataset(str(tmp_path / "missing"))
    with pytest.raises(RuntimeError, match="holds no .bin file"):
        ds.Cifar100Dataset(str(tmp_path))
    (tmp_path / "train.bin").write_bytes(bytes(3074 + 5))
    with pytest.raises(RuntimeError, match="truncated or corrupt"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")
    (tmp_path / "train.bin").write_bytes(bytes([20, 0]) + bytes(3072))
    with pytest.raises(RuntimeError, match="coarse label 20"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")
    (tmp_path / "train.bin").write_bytes(bytes([0, 100]) + bytes(3072))
    with pytest.raises(RuntimeError, match="fine label 100"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="usage"):
        ds.Cifar100Dataset(str(tmp_path), usage="valid")
    with pytest.raises(TypeError):
        ds.Cifar100Dataset(str(tmp_path), usage=3)
