"""PIL images in vision transforms (Decode(to_pil=True), ToPIL, ToNumpy, Resize and CenterCrop
on PIL images, maps passing PIL images between operations) against PIL itself, and Resize /
CenterCrop on arrays with leading axes against a loop over the images."""
import io

import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds
from mycel.dataset import transforms, vision


def _jpeg(seed, h=37, w=53):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=90)
    return np.frombuffer(buf.getvalue(), np.uint8)


def test_decode_to_pil_matches_pil_and_numpy_decode():
    data = _jpeg(0)
    pil = vision.Decode(to_pil=True)(data)
    assert isinstance(pil, Image.Image) and pil.mode == "RGB"
    ref = np.array(Image.open(io.BytesIO(data.tobytes())).convert("RGB"))
    np.testing.assert_array_equal(vision.ToNumpy()(pil), ref)
    np.testing.assert_array_equal(vision.Decode()(data), ref)  # same libjpeg, same pixels
    with pytest.raises(RuntimeError, match="Decode"):
        vision.Decode(to_pil=True)(np.arange(10, dtype=np.uint8))


@pytest.mark.parametrize("size,interp,resample", [
    ((20, 31), vision.Inter.LINEAR, Image.BILINEAR), (16, vision.Inter.NEAREST, Image.NEAREST),
    ((50, 40), vision.Inter.CUBIC, Image.BICUBIC), (12, vision.Inter.ANTIALIAS, Image.LANCZOS)])
def test_resize_of_pil_is_pils_resize(size, interp, resample):
    pil = vision.Decode(to_pil=True)(_jpeg(1))
    out = vision.Resize(size, interp)(pil)
    assert isinstance(out, Image.Image)
    if isinstance(size, int):  # shorter side (height 37) to size, width rounded down
        expect = (int(53 * size / 37), size)
    else:
        expect = (size[1], size[0])
    np.testing.assert_array_equal(np.array(out), np.array(pil.resize(expect, resample)))


@pytest.mark.parametrize("size", [(10, 20), (11, 21), (37, 53), (40, 60), (41, 11)])
def test_center_crop_of_pil_equals_array_crop(size):
    arr = vision.Decode()(_jpeg(2))
    out = vision.CenterCrop(size)(Image.fromarray(arr))
    assert isinstance(out, Image.Image)
    h, w = size
    left, top = int(round((53 - w) / 2.0)), int(round((37 - h) / 2.0))
    ref = np.array(Image.fromarray(arr).crop((left, top, left + w, top + h)))
    np.testing.assert_array_equal(np.array(out), ref)
    # PIL's window starts at round((size - crop) / 2) (Python's rounding, as MindSpore's PIL
    # version), the array's at the floor: the same window when both differences are even
    if h <= 37 and w <= 53 and (37 - h) % 2 == 0 and (53 - w) % 2 == 0:
        np.testing.assert_array_equal(np.array(out), vision.CenterCrop(size)(arr))


def test_map_passes_pil_images_between_operations():
    images = [_jpeg(s) for s in range(4)]
    data = ds.GeneratorDataset(lambda: ((i,) for i in images), ["image"], shuffle=False)
    ops = [vision.Decode(True), vision.Resize((24, 30)), vision.ToTensor()]
    for operations in (ops, transforms.Compose(ops)):
        got = [r[0] for r in data.map(operations, ["image"])
               .create_tuple_iterator(output_numpy=True)]
        for g, raw in zip(got, images):
            pil = Image.open(io.BytesIO(raw.tobytes())).convert("RGB").resize((30, 24),
                                                                             Image.BILINEAR)
            ref = np.array(pil).astype(np.float32).transpose(2, 0, 1) / 255
            np.testing.assert_allclose(g, ref, rtol=0, atol=1e-6)
    # ToPIL then numpy out of the map
    arrs = [vision.Decode()(i) for i in images]
    data2 = ds.GeneratorDataset(lambda: ((a,) for a in arrs), ["image"], shuffle=False)
    got = [r[0] for r in data2.map([vision.ToPIL(), vision.CenterCrop(20)], ["image"])
           .create_tuple_iterator(output_numpy=True)]
    for g, a in zip(got, arrs):
        np.testing.assert_array_equal(g, vision.CenterCrop(20)(a))


def test_to_pil_checks():
    to_pil = vision.ToPIL()
    assert to_pil(np.zeros((4, 5), np.float32)).mode == "F"
    assert to_pil(np.zeros((4, 5, 4), np.uint8)).mode == "RGBA"
    with pytest.raises(TypeError, match="numpy.ndarray or PIL.Image.Image"):
        to_pil([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="dimension of input image should be 2 or 3"):
        to_pil(np.zeros((2, 2, 2, 3), np.uint8))
    with pytest.raises(ValueError, match="channel of input image should not exceed 4"):
        to_pil(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(TypeError, match="image type int16 is not supported"):
        to_pil(np.zeros((2, 2, 3), np.int16))


@pytest.mark.parametrize("op", [vision.Resize((7, 9)), vision.Resize(5), vision.CenterCrop(6),
                                vision.CenterCrop((12, 3)),
                                vision.Normalize([10.0, 20.0, 30.0], [2.0, 3.0, 4.0])])
def test_leading_axes_are_a_loop_over_images(op):
    rng = np.random.default_rng(3)
    frames = rng.integers(0, 255, (2, 3, 10, 8, 3), dtype=np.uint8)
    out = op(frames)
    ref = np.stack([np.stack([op(f) for f in group]) for group in frames])
    np.testing.assert_array_equal(out, ref)
    if isinstance(op, vision.Normalize):  # and against numpy
        np.testing.assert_allclose(out, (frames - [10, 20, 30]) / np.array([2, 3, 4]),
                                   rtol=1e-6)
    batch = ds.NumpySlicesDataset({"x": frames[0]}, shuffle=False).batch(3).map(op, ["x"])
    got = next(batch.create_tuple_iterator(output_numpy=True))[0]
    np.testing.assert_array_equal(got, ref[0])


def test_center_crop_refuses_padding_beyond_three_times():
    with pytest.raises(RuntimeError, match="Padding size cannot be more than 3 times"):
        vision.CenterCrop(100)(np.zeros((10, 40, 3), np.uint8))
