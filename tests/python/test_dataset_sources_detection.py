"""VOCDataset and CocoDataset over small data sets built here in their formats (VOC's XML
written with xml.etree, COCO's JSON with the json module, images with PIL), checked against
the values written; malformed files give typed errors. A few checks read MindSpore's own test
data when it is present (the tests on files made here do not depend on it)."""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds


def _rows(dataset, **kw):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True, **kw))


def _png(path, seed, shape=(6, 8, 3)):
    """A random RGB image saved as PNG (also under a .jpg name: decoders sniff the bytes)."""
    a = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    with open(path, "wb") as f:
        Image.fromarray(a).save(f, format="PNG")
    return a


def _voc_xml(path, objects):
    """An annotation file: objects are (name, (xmin, ymin, xmax, ymax), difficult, truncated)."""
    root = ET.Element("annotation")
    ET.SubElement(root, "filename").text = os.path.basename(path)
    for name, box, difficult, truncated in objects:
        obj = ET.SubElement(root, "object")
        ET.SubElement(obj, "name").text = name
        ET.SubElement(obj, "difficult").text = str(difficult)
        ET.SubElement(obj, "truncated").text = str(truncated)
        bb = ET.SubElement(obj, "bndbox")
        for key, v in zip(("xmin", "ymin", "xmax", "ymax"), box):
            ET.SubElement(bb, key).text = str(v)
    ET.ElementTree(root).write(path)


VOC_OBJECTS = {
    "a1": [("dog", (10, 20, 30, 60), 0, 1), ("cat", (1, 2, 5, 9), 1, 0)],
    "b2": [("person", (3.5, 4, 7.5, 8), 0, 0)],
    "c3": [("dog", (5, 5, 6, 6), 0, 0), ("dog", (7, 7, 9, 10), 1, 1),
           ("bird", (2, 2, 3, 3), 0, 0)],
}


@pytest.fixture(name="voc")
def voc_fixture(tmp_path):
    for sub in ("JPEGImages", "SegmentationClass", "Annotations", "ImageSets/Main",
                "ImageSets/Segmentation"):
        (tmp_path / sub).mkdir(parents=True)
    images, targets = {}, {}
    for k, (vid, objs) in enumerate(VOC_OBJECTS.items()):
        images[vid] = _png(tmp_path / "JPEGImages" / f"{vid}.jpg", k, (5 + k, 7, 3))
        targets[vid] = _png(tmp_path / "SegmentationClass" / f"{vid}.png", 10 + k, (5 + k, 7, 3))
        _voc_xml(tmp_path / "Annotations" / f"{vid}.xml", objs)
    ids = "\n".join(VOC_OBJECTS) + "\n"
    (tmp_path / "ImageSets/Main/train.txt").write_text(ids)
    (tmp_path / "ImageSets/Segmentation/train.txt").write_text(ids.replace("\n", "\r\n"))
    return tmp_path, images, targets


def test_voc_detection_values(voc):
    root, images, _ = voc
    data = ds.VOCDataset(str(root), task="Detection", usage="train", shuffle=False, decode=True)
    assert data.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
    names = sorted({o[0] for objs in VOC_OBJECTS.values() for o in objs})
    assert data.get_class_indexing() == {n: i for i, n in enumerate(names)}
    rows = _rows(data)
    assert len(rows) == 3 and data.get_dataset_size() == 3
    for row, (vid, objs) in zip(rows, VOC_OBJECTS.items()):
        np.testing.assert_array_equal(row["image"], images[vid])
        boxes = np.array([[x0, y0, x1 - x0, y1 - y0] for _, (x0, y0, x1, y1), _, _ in objs],
                         np.float32)
        assert row["bbox"].dtype == np.float32 and row["bbox"].shape == (len(objs), 4)
        np.testing.assert_array_equal(row["bbox"], boxes)
        for col, want in (("label", [names.index(o[0]) for o in objs]),
                          ("difficult", [o[2] for o in objs]), ("truncate", [o[3] for o in objs])):
            assert row[col].dtype == np.uint32 and row[col].shape == (len(objs), 1)
            np.testing.assert_array_equal(row[col][:, 0], want)


def test_voc_class_indexing_filters_objects_and_images(voc):
    root, _, _ = voc
    data = ds.VOCDataset(str(root), task="Detection", class_indexing={"cat": 7, "person": 2},
                         shuffle=False)
    assert data.get_class_indexing() == {"cat": 7, "person": 2}
    rows = _rows(data)
    assert [r["label"][:, 0].tolist() for r in rows] == [[7], [2]]  # c3 has neither: dropped
    # the image column is the file's bytes without decode
    assert rows[0]["image"].dtype == np.uint8 and rows[0]["image"].ndim == 1
    assert rows[0]["image"].tobytes() == (root / "JPEGImages/a1.jpg").read_bytes()


def test_voc_segmentation_and_metadata_column(voc):
    root, images, targets = voc
    data = ds.VOCDataset(str(root), task="Segmentation", usage="train", decode=True,
                         shuffle=False, extra_metadata=True)
    rows = _rows(data)
    assert [sorted(r) for r in rows] == [["image", "target"]] * 3  # the meta column is hidden
    named = _rows(data.rename("_meta-filename", "filename"))
    assert [str(r["filename"]) for r in named] == list(VOC_OBJECTS)
    for r, vid in zip(named, VOC_OBJECTS):
        np.testing.assert_array_equal(r["image"], images[vid])
        np.testing.assert_array_equal(r["target"], targets[vid])
    with pytest.raises(RuntimeError, match="Segmentation"):
        data.get_class_indexing()


def test_voc_bad_arguments(voc):
    root, _, _ = voc
    with pytest.raises(ValueError, match="task"):
        ds.VOCDataset(str(root), task="Classify")
    with pytest.raises(ValueError, match="class_indexing"):
        ds.VOCDataset(str(root), task="Segmentation", class_indexing={"cat": 0})
    with pytest.raises(ValueError, match="val.txt"):
        ds.VOCDataset(str(root), task="Detection", usage="val")
    with pytest.raises(ValueError, match="does not exist"):
        ds.VOCDataset(str(root / "nowhere"))
    with pytest.raises(TypeError):
        ds.VOCDataset(str(root), task="Detection", decode=1)


@pytest.mark.parametrize("content, match", [
    ("<annotation><object><name>x</name>", "well-formed"),
    ("junk<annotation/>", "well-formed"),
    ("<annotation><size/></annotation>", "no <object>"),
    ("<annotation><object><name>x</name></object></annotation>", "no <bndbox>"),
    ("<annotation><object><name>x</name><bndbox><xmin>3</xmin><ymin>1</ymin><xmax>2</xmax>"
     "<ymax>4</ymax></bndbox></object></annotation>",
     r"should be greater than 0, but got \{3, 1, 2, 4\}"),
    ("<annotation><object><name>x</name><bndbox><xmin>a</xmin></bndbox></object></annotation>",
     "not a number"),
])
def test_voc_malformed_annotation(voc, content, match):
    root, _, _ = voc
    (root / "Annotations/bad.xml").write_text(content)
    (root / "ImageSets/Main/bad.txt").write_text("a1\nbad\n")
    with pytest.raises(RuntimeError, match=match):
        ds.VOCDataset(str(root), task="Detection", usage="bad")


def test_voc_missing_annotation_and_entity_bomb(voc):
    root, _, _ = voc
    (root / "ImageSets/Main/gone.txt").write_text("zz\n")
    with pytest.raises(RuntimeError, match="zz.xml"):
        ds.VOCDataset(str(root), task="Detection", usage="gone")
    # a "billion laughs" file is refused (libxml2 finds the entity loop), not expanded
    lol = "".join(f'<!ENTITY l{i} "{("&l%d;" % (i - 1)) * 10 if i else "lol"}">'
                  for i in range(10))
    (root / "Annotations/bomb.xml").write_text(
        f"<?xml version='1.0'?><!DOCTYPE annotation [{lol}]><annotation><object><name>&l9;"
        "</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>2</xmax><ymax>2</ymax></bndbox>"
        "</object></annotation>")
    (root / "ImageSets/Main/bomb.txt").write_text("bomb\n")
    with pytest.raises(RuntimeError, match="bomb.xml is not a well-formed XML file"):
        ds.VOCDataset(str(root), task="Detection", usage="bomb")


def test_voc_pk_sampler_needs_labels(voc):
    root, _, _ = voc  # a VOC row has several objects, not one class: PKSampler is refused
    data = ds.VOCDataset(str(root), task="Detection", sampler=ds.PKSampler(2))
    with pytest.raises(ValueError, match="class_column 'label' of VOCDataset must hold one value"):
        _rows(data)
    data = ds.VOCDataset(str(root), task="Detection", sampler=ds.PKSampler(2, class_column="x"))
    with pytest.raises(ValueError, match="'x' is not one of its columns"):
        _rows(data)


# ----- COCO -----

def _coco(tmp_path, annotations, categories=None, n_images=3):
    img_dir = tmp_path / "images"
    img_dir.mkdir(exist_ok=True)
    images = {}
    meta = []
    for k in range(n_images):
        name = f"{100 + k:06d}.jpg"
        images[name] = _png(img_dir / name, k, (4 + k, 5, 3))
        meta.append({"file_name": name, "id": 100 + k})
    doc = {"images": meta, "annotations": annotations}
    if categories is not None:
        doc["categories"] = categories
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(doc))
    return str(img_dir), str(path), images


CATS = [{"id": 1, "name": "person", "isthing": 1}, {"id": 3, "name": "car", "isthing": 0}]


def test_coco_detection(tmp_path):
    anns = [{"id": 1, "image_id": 102, "bbox": [1, 2, 3, 4], "category_id": 3, "iscrowd": 1},
            {"id": 2, "image_id": 100, "bbox": [5.5, 6, 7, 8], "category_id": 1},
            {"id": 3, "image_id": 102, "bbox": [9, 10, 11, 12], "category_id": 1, "iscrowd": 0}]
    img_dir, ann, images = _coco(tmp_path, anns, CATS)
    data = ds.CocoDataset(img_dir, ann, task="Detection", decode=True, shuffle=False,
                          extra_metadata=True)
    assert data.get_class_indexing() == {"person": [1], "car": [3]}
    assert data.num_classes() is None  # as MindSpore's
    rows = _rows(data.rename("_meta-filename", "filename"))
    assert [str(r["filename"]) for r in rows] == ["000100", "000102"]  # images order, annotated
    np.testing.assert_array_equal(rows[0]["image"], images["000100.jpg"])
    np.testing.assert_array_equal(rows[0]["bbox"], np.array([[5.5, 6, 7, 8]], np.float32))
    np.testing.assert_array_equal(rows[1]["bbox"], np.array([[1, 2, 3, 4], [9, 10, 11, 12]],
                                                            np.float32))
    assert rows[1]["category_id"].dtype == np.uint32
    np.testing.assert_array_equal(rows[1]["category_id"], [[3], [1]])
    np.testing.assert_array_equal(rows[1]["iscrowd"], [[1], [0]])
    np.testing.assert_array_equal(rows[0]["iscrowd"], [[0]])  # absent: 0


def test_coco_stuff_keypoint_panoptic_captioning(tmp_path):
    stuff = [{"id": 1, "image_id": 101, "iscrowd": 0, "segmentation": [[1, 2, 3], [4, 5, 6, 7, 8]]},
             {"id": 2, "image_id": 101, "iscrowd": 1,
              "segmentation": {"counts": [9, 9], "size": 1}}]
    img_dir, ann, _ = _coco(tmp_path, stuff)
    (row,) = _rows(ds.CocoDataset(img_dir, ann, task="Stuff", shuffle=False))
    np.testing.assert_array_equal(row["segmentation"], np.array(
        [[1, 2, 3, -1, -1], [4, 5, 6, 7, 8], [9, 9, -1, -1, -1]], np.float32))
    np.testing.assert_array_equal(row["iscrowd"], [[0], [1]])

    kp = [{"id": 1, "image_id": 100, "num_keypoints": 2, "keypoints": list(range(51))}]
    img_dir, ann, _ = _coco(tmp_path, kp)
    (row,) = _rows(ds.CocoDataset(img_dir, ann, task="Keypoint"))
    assert row["keypoints"].shape == (1, 51) and row["keypoints"][0, 50] == 50
    np.testing.assert_array_equal(row["num_keypoints"], [[2]])

    pan = [{"image_id": 100, "segments_info": [
        {"bbox": [1, 2, 3, 4], "category_id": 3, "iscrowd": 0, "area": 70},
        {"bbox": [5, 6, 7, 8], "category_id": 1, "iscrowd": 1, "area": 9}]}]
    img_dir, ann, _ = _coco(tmp_path, pan, CATS)
    data = ds.CocoDataset(img_dir, ann, task="Panoptic")
    assert data.get_class_indexing() == {"person": [1, 1], "car": [3, 0]}
    (row,) = _rows(data)
    assert data.get_col_names() == ["image", "bbox", "category_id", "iscrowd", "area"]
    np.testing.assert_array_equal(row["area"], [[70], [9]])
    np.testing.assert_array_equal(row["category_id"], [[3], [1]])

    caps = [{"id": 1, "image_id": 101, "caption": "a cat"},
            {"id": 2, "image_id": 101, "caption": "one cat"}]
    img_dir, ann, _ = _coco(tmp_path, caps)
    (row,) = _rows(ds.CocoDataset(img_dir, ann, task="Captioning"))
    np.testing.assert_array_equal(row["captions"], [["a cat"], ["one cat"]])


@pytest.mark.parametrize("doc, match", [
    ({"annotations": []}, "the attribute of 'images' is missing"),
    ({"images": [{"file_name": "000100.jpg", "id": 100}],
      "annotations": [{"image_id": 100, "bbox": [1, 1, 1, 1], "category_id": 7}],
      "categories": CATS}, "the attribute of 'category_id': 7 is missing"),
    ({"images": [{"file_name": "000100.jpg", "id": 100}],
      "annotations": [{"image_id": 5, "bbox": [1, 1, 1, 1], "category_id": 1}],
      "categories": CATS}, "image_id 5"),
    ({"images": [{"file_name": "000100.jpg", "id": 100}],
      "annotations": [{"image_id": 100, "bbox": ["x"], "category_id": 1}],
      "categories": CATS}, "must hold numbers"),
])
def test_coco_malformed(tmp_path, doc, match):
    img_dir, ann, _ = _coco(tmp_path, [], CATS)
    with open(ann, "w") as f:
        json.dump(doc, f)
    with pytest.raises(RuntimeError, match=match):
        ds.CocoDataset(img_dir, ann, task="Detection")


def test_coco_bad_arguments(tmp_path):
    img_dir, ann, _ = _coco(tmp_path, [], CATS)
    with open(ann, "w") as f:
        f.write("{not json")
    with pytest.raises(RuntimeError, match="Invalid annotation file"):
        ds.CocoDataset(img_dir, ann)
    with pytest.raises(ValueError, match="Invalid task type"):
        ds.CocoDataset(img_dir, ann, task="Segment")
    with pytest.raises(ValueError, match="does not exist"):
        ds.CocoDataset(img_dir, str(tmp_path / "none.json"))
    with pytest.raises(ValueError, match="PKSampler"):
        ds.CocoDataset(img_dir, ann, sampler=ds.PKSampler(2))


def test_coco_missing_image_is_named(tmp_path):
    anns = [{"id": 1, "image_id": 100, "bbox": [1, 2, 3, 4], "category_id": 1}]
    img_dir, ann, _ = _coco(tmp_path, anns, CATS)
    os.remove(os.path.join(img_dir, "000100.jpg"))
    data = ds.CocoDataset(img_dir, ann)  # images are read row by row, not at construction
    with pytest.raises(RuntimeError, match="Failed to open file .*000100.jpg"):
        _rows(data)
