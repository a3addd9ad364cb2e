"""vision's bounding-box transforms against numpy oracles: the image must be what the plain
transform gives (flip, crop of the padded image, Resize), the boxes must follow it (shifted,
cut to the window, scaled), eager and in a two-column pipeline; bad boxes are a RuntimeError
with MindSpore's message."""
import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import vision


def _img(h=20, w=30, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


# x, y, width, height, label (the label column passes through)
BOXES = np.array([[2, 3, 10, 5, 1], [15, 0, 15, 20, 2], [0, 12, 4, 8, 3]], np.float32)


def _run(op, img, boxes, seed):
    return tuple(op._op.apply([img, boxes], 0, seed))


def _crop_boxes(boxes, x0, y0, x1, y1):
    """The oracle of a crop to [x0, x1] x [y0, y1]: boxes overlapping it, cut and moved."""
    out = []
    for b in boxes:
        bx0, by0, bx1, by1 = b[0], b[1], b[0] + b[2], b[1] + b[3]
        if bx0 > x1 or by0 > y1 or bx1 < x0 or by1 < y0:
            continue
        nx0, ny0 = max(bx0, x0) - x0, max(by0, y0) - y0
        nx1, ny1 = min(bx1, x1) - x0, min(by1, y1) - y0
        out.append([nx0, ny0, nx1 - nx0, ny1 - ny0, *b[4:]])
    return np.array(out, np.float32).reshape(-1, boxes.shape[1])


def test_flips_with_bbox():
    img = _img()
    out, b = vision.RandomHorizontalFlipWithBBox(1.0)(img, BOXES)
    np.testing.assert_array_equal(out, img[:, ::-1])
    want = BOXES.copy()
    want[:, 0] = 30 - BOXES[:, 0] - BOXES[:, 2]
    np.testing.assert_array_equal(b, want)
    out, b = vision.RandomVerticalFlipWithBBox(1.0)(img, BOXES)
    np.testing.assert_array_equal(out, img[::-1])
    want = BOXES.copy()
    want[:, 1] = 20 - BOXES[:, 1] - BOXES[:, 3]
    np.testing.assert_array_equal(b, want)
    out, b = vision.RandomVerticalFlipWithBBox(0.0)(img, BOXES)
    np.testing.assert_array_equal(out, img)
    np.testing.assert_array_equal(b, BOXES)


@pytest.mark.parametrize("size", [(10, 45), 15])
def test_resize_with_bbox_matches_resize(size):
    img = _img()
    out, b = vision.ResizeWithBBox(size)(img, BOXES)
    np.testing.assert_array_equal(out, vision.Resize(size)(img))
    sx, sy = out.shape[1] / 30, out.shape[0] / 20
    want = BOXES.copy()
    want[:, [0, 2]] *= sx
    want[:, [1, 3]] *= sy
    np.testing.assert_allclose(b, want, rtol=1e-6)


def test_random_resize_with_bbox_uses_one_of_four_interpolations():
    img = _img()
    candidates = [vision.Resize((12, 16), m)(img) for m in
                  (vision.Inter.LINEAR, vision.Inter.NEAREST, vision.Inter.CUBIC,
                   vision.Inter.AREA)]
    seen = set()
    for seed in range(40):
        out, b = _run(vision.RandomResizeWithBBox((12, 16)), img, BOXES, seed)
        k = [i for i, c in enumerate(candidates) if np.array_equal(out, c)]
        assert k
        seen.update(k)
        np.testing.assert_allclose(b[:, 0], BOXES[:, 0] * 16 / 30, rtol=1e-6)
    assert len(seen) >= 3


@pytest.mark.parametrize("padding,pad_if_needed,size", [(None, False, (12, 16)),
                                                        (4, False, (20, 30)),
                                                        ([1, 2, 3, 4], False, (22, 31)),
                                                        (None, True, (24, 34))])
def test_random_crop_with_bbox_is_a_window_of_the_padded_image(padding, pad_if_needed, size):
    img = _img()
    op = vision.RandomCropWithBBox(size, padding=padding, pad_if_needed=pad_if_needed,
                                   fill_value=(1, 2, 3))
    if padding is None:
        left = top = right = bottom = 0
    elif isinstance(padding, int):
        left = top = right = bottom = padding
    else:
        left, top, right, bottom = padding
    h, w = size
    ph, pw = 20 + top + bottom, 30 + left + right
    if pad_if_needed and ph < h:
        top, bottom, ph = top + h - ph, bottom + h - ph, 2 * h - ph
    if pad_if_needed and pw < w:
        left, right, pw = left + w - pw, right + w - pw, 2 * w - pw
    padded = np.empty((ph, pw, 3), np.uint8)
    padded[...] = np.array([1, 2, 3], np.uint8)
    padded[top:top + 20, left:left + 30] = img
    shifted = BOXES.copy()
    shifted[:, 0] += left
    shifted[:, 1] += top
    for seed in range(10):
        out, b = _run(op, img, BOXES, seed)
        assert out.shape == (h, w, 3)
        hits = [(y, x) for y in range(ph - h + 1) for x in range(pw - w + 1)
                if np.array_equal(padded[y:y + h, x:x + w], out)]
        assert hits
        y, x = hits[0]
        np.testing.assert_allclose(b, _crop_boxes(shifted, x, y, x + w, y + h), atol=1e-5)


def test_random_resized_crop_with_bbox_whole_image_window():
    img = _img()
    op = vision.RandomResizedCropWithBBox((10, 15), scale=(1.0, 1.0), ratio=(1.5, 1.5))
    out, b = op(img, BOXES)
    np.testing.assert_array_equal(out, vision.Resize((10, 15))(img))
    want = BOXES.copy()
    want[:, :4] *= 0.5
    np.testing.assert_allclose(b, want, rtol=1e-6)


def test_random_resized_crop_with_bbox_boxes_follow_the_window():
    img = np.zeros((40, 40, 1), np.uint8)
    boxes = np.array([[10, 10, 20, 20]], np.float32)
    img[10:30, 10:30] = 255
    for seed in range(10):
        op = vision.RandomResizedCropWithBBox((40, 40), scale=(0.3, 0.6), ratio=(1.0, 1.0),
                                              interpolation=vision.Inter.NEAREST)
        out, b = _run(op, img, boxes, seed)
        if len(b) == 0:
            continue
        x, y, bw, bh = b[0]
        inside = out[int(np.ceil(y)):int(y + bh), int(np.ceil(x)):int(x + bw), 0]
        assert inside.size == 0 or (inside == 255).all()  # the box still covers the square


def test_bounding_box_augment_transforms_each_box_window():
    img = _img()
    boxes = np.array([[2, 3, 10, 5], [15, 8, 12, 10]], np.float32)
    out, b = vision.BoundingBoxAugment(vision.RandomHorizontalFlip(1.0), ratio=1.0)(img, boxes)
    want = img.copy()
    for x, y, w, h in boxes.astype(int):
        want[y:y + h, x:x + w] = img[y:y + h, x:x + w][:, ::-1]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(b, boxes)
    out, _ = vision.BoundingBoxAugment(vision.Resize((2, 2)), ratio=1.0)(img, boxes)
    assert out.shape == img.shape  # the resized window is resized back and pasted
    out, _ = vision.BoundingBoxAugment(vision.RandomInvert(1.0), ratio=0.0)(img, boxes)
    np.testing.assert_array_equal(out, img)
    with pytest.raises(ValueError, match="Input ratio is not within the required interval"):
        vision.BoundingBoxAugment(vision.RandomInvert(1.0), ratio=1.5)
    with pytest.raises(TypeError, match="transform"):
        vision.BoundingBoxAugment(lambda x: x)


@pytest.mark.parametrize("bad,msg", [
    ([[0, 0, 31, 20]], "bounding boxes is out of bounds of the image"),
    ([[0, 0, 30, 21]], "bounding boxes is out of bounds of the image"),
    ([[-10, -10, 30, 20]], "has negative value"),
    ([[0, 0, 29]], "bounding boxes should be have at least 4 features"),
])
def test_bad_boxes(bad, msg):
    img = _img()
    for op in (vision.RandomHorizontalFlipWithBBox(1.0), vision.ResizeWithBBox(10),
               vision.RandomCropWithBBox(10), vision.RandomResizedCropWithBBox(10),
               vision.BoundingBoxAugment(vision.RandomInvert(1.0))):
        with pytest.raises(RuntimeError, match=msg):
            op(img, np.array(bad, np.float32))


def test_argument_errors():
    with pytest.raises(TypeError, match="Size should be a single integer"):
        vision.RandomCropWithBBox("10")
    with pytest.raises(ValueError, match=r"Input padding is not within the required interval "
                                         r"of \[0, 2147483647\]"):
        vision.RandomCropWithBBox(10, padding=-1)
    with pytest.raises(RuntimeError, match="padding size is three times bigger"):
        vision.RandomCropWithBBox(10, padding=100)(_img(), BOXES)
    with pytest.raises(ValueError, match="Input prob is not within the required interval"):
        vision.RandomHorizontalFlipWithBBox(2)


def test_bbox_ops_in_a_pipeline():
    imgs = [_img(seed=s) for s in range(4)]

    def gen():
        for i, im in enumerate(imgs):
            yield im, BOXES[: i % 3 + 1]

    d = ds.GeneratorDataset(gen, ["image", "bbox"], shuffle=False)
    d = d.map(operations=[vision.RandomHorizontalFlipWithBBox(1.0), vision.ResizeWithBBox(10)],
              input_columns=["image", "bbox"], output_columns=["image", "bbox"])
    for i, r in enumerate(d.create_dict_iterator(output_numpy=True)):
        img, b = r["image"], r["bbox"]
        np.testing.assert_array_equal(img, vision.Resize(10)(imgs[i][:, ::-1]))
        want = BOXES[: i % 3 + 1].copy()
        want[:, 0] = 30 - want[:, 0] - want[:, 2]
        want[:, :4] *= 0.5
        np.testing.assert_allclose(b, want, rtol=1e-6)
