"""FlickrDataset (sources_flickr.py) over a Flickr-layout folder made here: PNG images written
with PIL and an annotation file of "image#n<TAB>caption" lines."""
import os

import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds


def _png(path, seed):
    a = np.random.default_rng(seed).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    Image.fromarray(a).save(path, format="PNG")
    return a


def _flickr(tmp_path, lines):
    images = tmp_path / "images"
    images.mkdir(exist_ok=True)
    pixels = {name: _png(str(images / name), k) for k, name in enumerate(["a.png", "b.png"])}
    ann = tmp_path / "ann.token"
    ann.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(images), str(ann), pixels


LINES = ["b.png#0\tA blue thing.", "a.png#0\tA red thing.", "b.png#1\tStill blue.",
         "missing.png#0\tNot there.", "a.png#1\tRed again, tab\tinside."]


def test_rows_in_order_with_their_captions(tmp_path):
    images, ann, pixels = _flickr(tmp_path, LINES)
    data = ds.FlickrDataset(images, ann, decode=True, shuffle=False)
    assert data.get_dataset_size() == 2  # missing.png is left out
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert [r["annotation"].tolist() for r in rows] == [
        ["A blue thing.", "Still blue."], ["A red thing.", "Red again, tab\tinside."]]
    assert np.array_equal(rows[0]["image"], pixels["b.png"])
    assert np.array_equal(rows[1]["image"], pixels["a.png"])
    raw = list(ds.FlickrDataset(images, ann, shuffle=False).create_tuple_iterator(
        num_epochs=1, output_numpy=True))
    with open(os.path.join(images, "b.png"), "rb") as f:
        assert raw[0][0].tobytes() == f.read()  # undecoded: the file's bytes
    shard = ds.FlickrDataset(images, ann, num_shards=2, shard_id=1, shuffle=False)
    assert [r["annotation"][0] for r in shard.create_dict_iterator(
        num_epochs=1, output_numpy=True)] == ["A red thing."]


def test_bad_inputs(tmp_path):
    images, ann, _ = _flickr(tmp_path, LINES)
    with pytest.raises(ValueError, match="FlickrDataset"):
        ds.FlickrDataset(str(tmp_path / "nope"), ann)
    with pytest.raises(ValueError, match="FlickrDataset.*does not exist"):
        ds.FlickrDataset(images, str(tmp_path / "nope.token"))
    bad = tmp_path / "bad.token"
    bad.write_text("a.png#0 no tab here\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"bad.token:1"):
        ds.FlickrDataset(images, str(bad))
    bad.write_text("a.png\tno number\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="Invalid annotation"):
        ds.FlickrDataset(images, str(bad))
    bad.write_text("missing.png#0\tx\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="none of the images"):
        ds.FlickrDataset(images, str(bad))
    with pytest.raises(TypeError, match="decode"):
        ds.FlickrDataset(images, ann, decode=1)


@pytest.mark.parametrize("name", ["../secret.png", "/etc/passwd", "a/../../secret.png"])
def test_image_names_leading_outside_dataset_dir_are_refused(tmp_path, name):
    # An untrusted annotation file could read any file into the dataset (found while adding
    # the Flickr parser to test_fuzz_python_readers.py).
    images, ann, _ = _flickr(tmp_path, ["a.png#0\tfine", f"{name}#0\tnot fine"])
    with pytest.raises(RuntimeError, match=r"FlickrDataset: Invalid annotation .*:2: the image "
                                           r"name .* leads outside dataset_dir"):
        ds.FlickrDataset(images, ann)
