"""vision's colour transforms against OpenCV (cv2: the arithmetic MindSpore's kernels use),
PIL (ImageEnhance / ImageOps), torchvision's adjust_gamma and numpy, eager and in a
pipeline."""
import numpy as np
import pytest
from PIL import Image, ImageEnhance, ImageOps

import mycel.dataset as ds
from mycel.dataset import config, vision

cv2 = pytest.importorskip("cv2")  # python3-opencv, installed by scripts/deps.sh test


def _img(h=29, w=41, c=3, seed=0):
    shape = (h, w) if c == 0 else (h, w, c)
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def _run(op, img, seed):
    """A random op on img with an explicit seed (the stream of one pipeline row)."""
    return op._op.apply([img], 0, seed)[0]


def _gray3(img):
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)


def _cv_brightness(img, f):
    # OpenCV's convertTo(alpha=f) on uint8: float32 products rounded half to even, saturated.
    return np.clip(np.rint(img.astype(np.float32) * np.float32(f)), 0, 255).astype(np.uint8)


# MindSpore's kernels take the factor as a float32 and blend with weights 1.0 - f and f.
def _cv_contrast(img, f):
    mean = int(cv2.mean(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY))[0] + 0.5)
    f = float(np.float32(f))
    return cv2.addWeighted(np.full_like(img, mean), 1 - f, img, f, 0)


def _cv_saturation(img, f):
    f = float(np.float32(f))
    return cv2.addWeighted(_gray3(img), 1 - f, img, f, 0)


def _cv_hue(img, f):
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV_FULL)
    hsv[..., 0] = (hsv[..., 0].astype(int) + int(f * 255)) % 256
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB_FULL)


@pytest.mark.parametrize("f", [0.0, 0.4, 1.0, 1.7])
def test_brightness_contrast_saturation_match_cv2(f):
    img = _img()
    np.testing.assert_array_equal(vision.AdjustBrightness(f)(img), _cv_brightness(img, f))
    np.testing.assert_array_equal(vision.AdjustContrast(f)(img), _cv_contrast(img, f))
    np.testing.assert_array_equal(vision.AdjustSaturation(f)(img), _cv_saturation(img, f))


def test_float_images_follow_the_float_formulas():
    img = _img().astype(np.float32) / 255
    np.testing.assert_allclose(vision.AdjustBrightness(1.3)(img), img * 1.3, rtol=1e-6)
    gray = img @ np.float32([0.299, 0.587, 0.114])
    np.testing.assert_allclose(vision.AdjustSaturation(0.3)(img),
                               0.7 * gray[..., None] + 0.3 * img, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vision.AdjustContrast(0.5)(img), 0.5 * gray.mean() + 0.5 * img,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [-0.5, -0.13, 0.0, 0.2, 0.5])
def test_hue_matches_cv2(f):
    img = _img(32, 64)  # rows of whole vectors: OpenCV's vector path throughout
    out, ref = vision.AdjustHue(f)(img), _cv_hue(img, f)
    assert np.abs(out.astype(int) - ref).max() <= 1
    assert (out != ref).mean() < 0.01


@pytest.mark.parametrize("f", [0.0, 0.5, 1.0, 1.8, 3.0])
@pytest.mark.parametrize("c", [0, 1, 3])
def test_sharpness_matches_pil(f, c):
    img = _img(c=c)
    pil = Image.fromarray(img[..., 0] if c == 1 else img)
    ref = np.asarray(ImageEnhance.Sharpness(pil).enhance(f)).reshape(img.shape)
    np.testing.assert_array_equal(vision.AdjustSharpness(f)(img), ref)
    np.testing.assert_array_equal(_run(vision.RandomSharpness((f, f)), img, 3), ref)


@pytest.mark.parametrize("gamma,gain", [(0.5, 1.0), (2.2, 1.0), (1.0, 0.7), (0.8, 1.3)])
def test_gamma_matches_torchvision_and_floats(gamma, gain):
    tf = pytest.importorskip("torchvision.transforms.functional")
    img = _img()
    ref = np.asarray(tf.adjust_gamma(Image.fromarray(img), gamma, gain))
    np.testing.assert_array_equal(vision.AdjustGamma(gamma, gain)(img), ref)
    x = img.astype(np.float32) / 255
    np.testing.assert_allclose(vision.AdjustGamma(gamma, gain)(x),
                               np.clip((x * gain) ** gamma, 0, 1), rtol=1e-5)


@pytest.mark.parametrize("c", [0, 1, 3])
def test_equalize_matches_cv2(c):
    img = _img(c=c) // 3 + 40  # a narrow histogram
    planes = img[..., None] if c == 0 else img
    ref = np.stack([cv2.equalizeHist(np.ascontiguousarray(planes[..., k]))
                    for k in range(planes.shape[-1])], -1).reshape(img.shape)
    np.testing.assert_array_equal(vision.Equalize()(img), ref)
    flat = np.full((4, 5, 3), 9, np.uint8)
    np.testing.assert_array_equal(vision.Equalize()(flat), flat)


@pytest.mark.parametrize("cutoff,ignore", [(0, None), (2.0, None), (10, [0, 255]), (0, 128)])
def test_auto_contrast_matches_pil(cutoff, ignore):
    img = _img() // 2 + 30
    ref = np.asarray(ImageOps.autocontrast(Image.fromarray(img), cutoff, ignore))
    out = vision.AutoContrast(cutoff, ignore)(img)
    # MindSpore's table is computed in float32 (PIL's in double): a step may land 1 apart.
    assert np.abs(out.astype(int) - ref).max() <= 1
    assert (out != ref).mean() < 0.05


def test_posterize_solarize_invert_match_numpy_and_pil():
    img = _img()
    for bits in range(1, 9):
        np.testing.assert_array_equal(vision.Posterize(bits)(img),
                                      np.asarray(ImageOps.posterize(Image.fromarray(img), bits)))
    np.testing.assert_array_equal(vision.Solarize(100)(img), np.where(img >= 100, 255 - img, img))
    np.testing.assert_array_equal(vision.Solarize((50, 150))(img),
                                  np.where((img >= 50) & (img <= 150), 255 - img, img))
    np.testing.assert_array_equal(_run(vision.RandomInvert(1.0), img, 0), 255 - img)
    np.testing.assert_array_equal(_run(vision.RandomEqualize(0.0), img, 0), img)
    np.testing.assert_array_equal(_run(vision.RandomEqualize(1.0), img, 0),
                                  vision.Equalize()(img))
    np.testing.assert_array_equal(_run(vision.RandomAutoContrast(prob=1.0), img, 0),
                                  vision.AutoContrast()(img))
    np.testing.assert_array_equal(_run(vision.RandomAdjustSharpness(2.0, 1.0), img, 0),
                                  vision.AdjustSharpness(2.0)(img))
    # RandomPosterize / RandomSolarize draw their parameters in the given ranges.
    for seed in range(5):
        out = _run(vision.RandomPosterize((2, 4)), img, seed)
        assert any(np.array_equal(out, vision.Posterize(b)(img)) for b in (2, 3, 4))
        out = _run(vision.RandomSolarize((40, 60)), img, seed)
        assert any(np.array_equal(out, vision.Solarize((lo, hi))(img))
                   for lo in range(40, 61) for hi in range(lo, 61))


def test_random_color_adjust():
    img = _img()
    # Identity ranges are skipped; a one-point range is that adjust.
    np.testing.assert_array_equal(_run(vision.RandomColorAdjust(), img, 0), img)
    np.testing.assert_array_equal(_run(vision.RandomColorAdjust(brightness=(1.4, 1.4)), img, 0),
                                  _cv_brightness(img, 1.4))
    np.testing.assert_array_equal(_run(vision.RandomColorAdjust(saturation=(0.2, 0.2)), img, 0),
                                  _cv_saturation(img, 0.2))
    # A number b is the range (max(0, 1 - b), 1 + b): each output is the image scaled by one
    # factor in it (rint(v * f) = out bounds f to [(out - 0.5) / v, (out + 0.5) / v] per pixel).
    op = vision.RandomColorAdjust(brightness=0.5)
    v = img.astype(np.float64).ravel()
    factors = []
    for seed in range(6):
        out = _run(op, img, seed).astype(np.float64).ravel()
        keep = (v > 0) & (out < 255)
        lo = ((out[keep] - 0.5) / v[keep]).max()
        hi = ((out[keep] + 0.5) / v[keep]).min()
        assert 0.5 - 1e-6 <= lo <= hi + 1e-6 and hi <= 1.5 + 1e-6, (seed, lo, hi)
        np.testing.assert_array_equal(out, _cv_brightness(img, (lo + hi) / 2).ravel())
        factors.append(lo)
    assert len(set(np.round(factors, 2))) > 3
    # All four in a random order: the orders differ across rows.
    op = vision.RandomColorAdjust((1.3, 1.3), (0.6, 0.6), (1.5, 1.5), (0.1, 0.1))
    outs = {_run(op, img, s).tobytes() for s in range(24)}
    assert len(outs) > 4
    x = img.astype(np.float32) / 255
    assert vision.RandomColorAdjust(contrast=0.5)(x).dtype == np.float32
    with pytest.raises(RuntimeError, match=r"Expecting tensor in type of \(uint8, uint16, float32"):
        vision.RandomColorAdjust(contrast=0.5)(x.astype(np.float64))


def test_color_ops_in_a_pipeline_and_on_pil():
    imgs = np.stack([_img(seed=s) for s in range(4)])
    try:
        runs = []
        for _ in range(2):
            config.set_seed(9)
            data = ds.NumpySlicesDataset(imgs, column_names=["image"], shuffle=False)
            data = data.map(operations=[vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1),
                                        vision.RandomSharpness(), vision.Equalize()],
                            input_columns=["image"], num_parallel_workers=2)
            runs.append([r["image"] for r in data.create_dict_iterator(output_numpy=True)])
        for a, b in zip(*runs):
            np.testing.assert_array_equal(a, b)
        assert len({a.tobytes() for a in runs[0]}) == 4
    finally:
        config._seed = None
    data = ds.NumpySlicesDataset(imgs, column_names=["image"], shuffle=False)
    data = data.map(operations=vision.AdjustContrast(0.3), input_columns=["image"])
    for img, row in zip(imgs, data.create_dict_iterator(output_numpy=True)):
        np.testing.assert_array_equal(row["image"], _cv_contrast(img, 0.3))
    out = vision.AdjustSaturation(0.5)(Image.fromarray(imgs[0]))
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), _cv_saturation(imgs[0], 0.5))
    # Posterize and Solarize have no PIL version in MindSpore: a PIL image gives an array.
    out = vision.Posterize(3)(Image.fromarray(imgs[0]))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, imgs[0] & 0xE0)


def test_color_argument_errors():
    with pytest.raises(ValueError, match="Input brightness_factor is not within the required "
                                         "interval of"):
        vision.AdjustBrightness(-1)
    with pytest.raises(TypeError, match=r"is not of type \[<class 'float'>, <class 'int'>\]"):
        vision.AdjustGamma("1")
    with pytest.raises(ValueError, match="hue_factor"):
        vision.AdjustHue(0.7)
    with pytest.raises(ValueError, match=r"Input cutoff is not within the required interval of "
                                         r"\[0, 50\)."):
        vision.AutoContrast(50)
    with pytest.raises(ValueError, match="threshold must be in order of"):
        vision.Solarize((200, 100))
    with pytest.raises(TypeError, match="threshold must be a single number or sequence of two"):
        vision.Solarize((1, 2, 3))
    with pytest.raises(TypeError, match="degrees must be either a tuple or a list."):
        vision.RandomSharpness(1.0)
    with pytest.raises(ValueError, match=r"degrees should be in \(min,max\) format"):
        vision.RandomColor((1.5, 0.5))
    with pytest.raises(ValueError, match="within the bound"):
        vision.RandomColorAdjust(hue=(0.2, 0.7))
    # MindSpore's wording for images of the wrong rank, channels or type (RuntimeError).
    with pytest.raises(RuntimeError, match=r"dimension of image tensor does not match the "
                                           r"requirement of operator. Expecting tensor in "
                                           r"dimension of \(3\), but got dimension: 2"):
        vision.AdjustSaturation(0.5)(_img(c=0))
    with pytest.raises(RuntimeError, match=r"Expecting tensor in channel of \(3\), but got "
                                           r"channel: 1"):
        vision.RandomColorAdjust(brightness=(0.5, 0.5))(_img(c=1))
    with pytest.raises(RuntimeError, match=r"data type of image tensor does not match the "
                                           r"requirement of operator. Expecting tensor in type "
                                           r"of \(uint8\)"):
        vision.Equalize()(_img().astype(np.float32))
    with pytest.raises(RuntimeError, match="channel is not 3"):
        vision.RandomColor()(_img(c=0))
    with pytest.raises(TypeError, match="Input should be NumPy or PIL image, got <class 'int'>"):
        vision.AdjustGamma(1.2)(1)
    # Solarize takes the numeric image types MindSpore's does, 255 - v saturated.
    x = np.array([[0, 100, 200, 300]], np.int16)
    np.testing.assert_array_equal(vision.Solarize((90, 250))(x), [[0, 155, 55, 300]])
    f = np.array([[0.5, 120.0]], np.float32)
    np.testing.assert_array_equal(vision.Solarize(100)(f), [[0.5, 135.0]])
