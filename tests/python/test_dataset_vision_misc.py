"""vision's ToType, NormalizePad, SlicePatches, ResizedCrop, Erase, LinearTransformation,
RgbToHsv and HsvToRgb against numpy, colorsys and torch, eager and in a pipeline."""
import colorsys

import numpy as np
import pytest
import torch

import mycel
import mycel.dataset as ds
from mycel.dataset import vision
from mycel.dataset.vision import Inter
from mycel.dataset.vision.utils import SliceMode


def _img(h=9, w=11, c=3, seed=0):
    shape = (h, w) if c == 0 else (h, w, c)
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def test_to_type():
    x = _img().astype(np.float32) + 0.5
    np.testing.assert_array_equal(vision.ToType(np.int16)(x), x.astype(np.int16))
    assert vision.ToType(mycel.int32)(x).dtype == np.int32
    with pytest.raises(TypeError, match="missing a required argument: 'data_type'"):
        vision.ToType()
    with pytest.raises(TypeError, match="Argument data_type with value JUNK is not of type"):
        vision.ToType("JUNK")


@pytest.mark.parametrize("is_hwc", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_normalize_pad(is_hwc, dtype):
    img = _img()
    x = img if is_hwc else np.ascontiguousarray(img.transpose(2, 0, 1))
    mean, std = [121.0, 115.0, 100.0], [70.0, 68.0, 71.0]
    out = vision.NormalizePad(mean, std, dtype, is_hwc)(x)
    shape = (-1, 1, 1) if not is_hwc else (1, 1, -1)
    ref = (x.astype(np.float32) - np.float32(mean).reshape(shape)) / np.float32(std).reshape(shape)
    zeros = np.zeros_like(ref[..., :1] if is_hwc else ref[:1])
    ref = np.concatenate([ref, zeros], -1 if is_hwc else 0).astype(dtype)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, ref, rtol=1e-6 if dtype == "float32" else 1e-3)
    with pytest.raises(ValueError, match="Length of mean and std must be equal."):
        vision.NormalizePad(mean, std + [1.0])
    with pytest.raises(ValueError, match="dtype only supports float32 or float16."):
        vision.NormalizePad(mean, std, "float64")


@pytest.mark.parametrize("mode", [SliceMode.PAD, SliceMode.DROP])
def test_slice_patches_match_numpy_and_a_pipeline(mode):
    img = _img(10, 13)
    patches = vision.SlicePatches(3, 4, mode, 7)(img)
    assert len(patches) == 12
    if mode == SliceMode.PAD:
        padded = np.full((12, 16, 3), 7, np.uint8)
        padded[:10, :13] = img
        ph, pw = 4, 4
    else:
        padded, ph, pw = img, 3, 3
    for k, p in enumerate(patches):
        i, j = divmod(k, 4)
        np.testing.assert_array_equal(p, padded[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
    data = ds.NumpySlicesDataset(img[None], column_names=["image"], shuffle=False)
    names = [f"p{k}" for k in range(12)]
    data = data.map(operations=vision.SlicePatches(3, 4, mode, 7), input_columns=["image"],
                    output_columns=names)
    row = next(data.create_dict_iterator(output_numpy=True))
    for k, name in enumerate(names):
        np.testing.assert_array_equal(row[name], patches[k])
    with pytest.raises(ValueError, match="Input num_height is not within"):
        vision.SlicePatches(0, 2)
    with pytest.raises(TypeError, match="Argument slice_mode with value"):
        vision.SlicePatches(2, 2, 1)


def test_resized_crop_is_a_resized_window():
    img = _img(20, 30)
    out = vision.ResizedCrop(3, 5, 10, 12, (15, 18), Inter.BILINEAR)(img)
    ref = vision.Resize((15, 18), Inter.BILINEAR)(np.ascontiguousarray(img[3:13, 5:17]))
    np.testing.assert_array_equal(out, ref)
    t = torch.nn.functional.interpolate(torch.from_numpy(img[3:13, 5:17]).permute(2, 0, 1)[None]
                                        .double(), size=(15, 18), mode="bilinear",
                                        align_corners=False)[0].permute(1, 2, 0).numpy()
    assert np.abs(out.astype(float) - t).max() <= 1
    with pytest.raises(RuntimeError, match="exceeds the image"):
        vision.ResizedCrop(15, 0, 10, 10, 4)(img)


def test_erase_and_linear_transformation():
    img = _img()
    out = vision.Erase(1, 2, 3, 4, (10, 20, 30))(img)
    ref = img.copy()
    ref[1:4, 2:6] = [10, 20, 30]
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(img, _img())  # not in place by default
    x = np.random.default_rng(1).random((3, 2, 2))
    m = np.random.default_rng(2).random((12, 12))
    mean = np.random.default_rng(3).random(12)
    np.testing.assert_allclose(vision.LinearTransformation(m, mean)(x),
                               ((x.reshape(-1) - mean) @ m).reshape(3, 2, 2))
    with pytest.raises(ValueError, match="square matrix"):
        vision.LinearTransformation(np.ones((2, 3)), np.ones(2))
    with pytest.raises(TypeError, match=r"Argument mean_vector with value None is not of type "
                                        r"\[<class 'numpy.ndarray'>\]"):
        vision.LinearTransformation(m, None)


def test_rgb_hsv_match_colorsys():
    x = np.random.default_rng(4).random((3, 5, 6))
    x[:, 0, 0] = 0.5  # a gray pixel
    hsv = vision.RgbToHsv()(x)
    for i in range(5):
        for j in range(6):
            np.testing.assert_allclose(hsv[:, i, j], colorsys.rgb_to_hsv(*x[:, i, j]), atol=1e-12)
    np.testing.assert_allclose(vision.HsvToRgb()(hsv), x, atol=1e-12)
    hwc = np.ascontiguousarray(x.transpose(1, 2, 0))
    np.testing.assert_allclose(vision.RgbToHsv(True)(hwc), hsv.transpose(1, 2, 0))
