"""vision's geometric warps (Affine, RandomAffine, Rotate, RandomRotation, Perspective,
RandomPerspective) and RandomCropDecodeResize, against OpenCV (cv2: MindSpore's kernels call
its warpAffine / warpPerspective, so uint8 results must be equal), eager and in a pipeline."""
import io

import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds
from mycel.dataset import config, vision
from mycel.dataset.vision import Inter

cv2 = pytest.importorskip("cv2")  # python3-opencv, installed by scripts/deps.sh test

CV_INTER = {Inter.NEAREST: cv2.INTER_NEAREST, Inter.BILINEAR: cv2.INTER_LINEAR,
            Inter.BICUBIC: cv2.INTER_CUBIC, Inter.AREA: cv2.INTER_LINEAR}


def _img(h=37, w=53, c=3, dtype=np.uint8, seed=0):
    rng = np.random.default_rng(seed)
    shape = (h, w) if c == 0 else (h, w, c)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return (rng.random(shape) * 255).astype(dtype)


def _run(op, img, seed):
    """A random op on img with an explicit seed (the stream of one pipeline row)."""
    return op._op.apply([img], 0, seed)[0]


def _cv_rotate(img, deg, inter, fill=0):
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), deg, 1.0)
    return cv2.warpAffine(img, m, (w, h), flags=CV_INTER[inter], borderMode=cv2.BORDER_CONSTANT,
                          borderValue=fill)


@pytest.mark.parametrize("inter", [Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA])
@pytest.mark.parametrize("deg", [0, 13.7, -45, 90, 181.5])
def test_rotate_matches_cv2_warp_affine(inter, deg):
    img = _img()
    np.testing.assert_array_equal(vision.Rotate(deg, inter)(img), _cv_rotate(img, deg, inter))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("inter", [Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC])
def test_rotate_float_images_match_cv2(dtype, inter):
    img = _img(dtype=dtype)
    out = vision.Rotate(27.3, inter)(img)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, _cv_rotate(img, 27.3, inter), rtol=1e-5, atol=1e-3)


def test_rotate_expand_gray_center_and_fill():
    img = _img()
    # expand: 90 and 180 degrees are exact permutations of the pixels.
    np.testing.assert_array_equal(vision.Rotate(90, expand=True)(img),
                                  cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE))
    np.testing.assert_array_equal(vision.Rotate(180, expand=True)(img),
                                  cv2.rotate(img, cv2.ROTATE_180))
    out = vision.Rotate(30, Inter.BILINEAR, expand=True)(img)
    assert out.shape == (int(round(37 * np.cos(np.pi / 6) + 53 * 0.5)),
                         int(round(53 * np.cos(np.pi / 6) + 37 * 0.5)), 3)
    gray = _img(c=0)
    np.testing.assert_array_equal(vision.Rotate(20, Inter.BILINEAR)(gray),
                                  _cv_rotate(gray, 20, Inter.BILINEAR))
    m = cv2.getRotationMatrix2D((5.0, 7.0), 33, 1.0)
    ref = cv2.warpAffine(img, m, (53, 37), flags=cv2.INTER_NEAREST, borderValue=(30, 20, 10))
    # MindSpore's kernel hands OpenCV Scalar(b, g, r): the fill reaches the channels reversed.
    np.testing.assert_array_equal(vision.Rotate(33, center=(5, 7), fill_value=(10, 20, 30))(img),
                                  ref)


def _ms_affine_matrix(deg, tx, ty, scale, shx, shy, h, w):
    """MindSpore's Affine matrix (clockwise rotation, shears, scale about the centre) in float32,
    written from its documented formula."""
    f = np.float32
    a, sx, sy = f(np.deg2rad(deg)), f(np.deg2rad(shx)), f(np.deg2rad(-shy))
    a, sx, sy = float(a), float(sx), float(sy)
    cx, cy = f((w - 1) / 2), f((h - 1) / 2)
    m0 = f(scale * np.cos(a + sy) / np.cos(sy))
    m1 = f(scale * (-np.cos(a + sy) * np.tan(sx) / np.cos(sy) - np.sin(a)))
    m3 = f(scale * np.sin(a + sy) / np.cos(sy))
    m4 = f(scale * (-np.sin(a + sy) * np.tan(sx) / np.cos(sy) + np.cos(a)))
    m2 = (f(1) - m0) * cx - m1 * cy + f(tx * w)
    m5 = (f(1) - m4) * cy - m3 * cx + f(ty * h)
    return np.array([[m0, m1, m2], [m3, m4, m5]], np.float64)


@pytest.mark.parametrize("inter", [Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC])
@pytest.mark.parametrize("args", [(15, (0.1, -0.05), 1.1, (5, 3)), (-30, (0, 0), 0.8, 12),
                                  (0, (0.2, 0.1), 1.0, (0, 0))])
def test_affine_matches_cv2(inter, args):
    img = _img()
    deg, (tx, ty), scale, shear = args
    shx, shy = (shear, 0) if isinstance(shear, (int, float)) else shear
    m = _ms_affine_matrix(deg, tx, ty, scale, shx, shy, 37, 53)
    ref = cv2.warpAffine(img, m, (53, 37), flags=CV_INTER[inter], borderValue=(1, 2, 3))
    out = vision.Affine(deg, [tx, ty], scale, shear, inter, (1, 2, 3))(img)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("inter", [Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC])
def test_perspective_matches_cv2(inter):
    img = _img()
    start = [[0, 0], [52, 0], [52, 36], [0, 36]]
    end = [[3, 2], [50, 5], [48, 30], [1, 34]]
    m = cv2.getPerspectiveTransform(np.float32(start), np.float32(end))
    ref = cv2.warpPerspective(img, m, (53, 37), flags=CV_INTER[inter])
    out = vision.Perspective(start, end, inter)(img)
    assert np.abs(out.astype(int) - ref).max() <= 1
    assert (out != ref).mean() < 0.01


def test_random_ops_with_fixed_ranges_equal_the_fixed_ops():
    img = _img()
    for seed in range(3):
        np.testing.assert_array_equal(_run(vision.RandomRotation((25, 25), Inter.BILINEAR), img,
                                           seed), vision.Rotate(25, Inter.BILINEAR)(img))
        ra = vision.RandomAffine((10, 10), (0.1, 0.1, -0.2, -0.2), (1.2, 1.2), (4, 4, 2, 2))
        np.testing.assert_array_equal(_run(ra, img, seed),
                                      vision.Affine(10, [0.1, -0.2], 1.2, [4, 2])(img))
    # A number d is the range (-d, d): every output is a rotation by an angle in it.
    outs = [_run(vision.RandomRotation(40), img, s) for s in range(6)]
    assert len({o.tobytes() for o in outs}) == 6
    ref = {a: _cv_rotate(img, a, Inter.NEAREST) for a in np.linspace(-40, 40, 801)}
    for o in outs:
        assert min(np.mean(o != r) for r in ref.values()) < 0.02


def test_random_perspective():
    img = _img()
    np.testing.assert_array_equal(_run(vision.RandomPerspective(0.5, 0.0), img, 1), img)
    # No distortion: the identity warp (bicubic at whole pixels) gives the image back.
    np.testing.assert_array_equal(_run(vision.RandomPerspective(0.0, 1.0), img, 1), img)
    outs = [_run(vision.RandomPerspective(0.6, 1.0, Inter.BILINEAR), img, s) for s in range(4)]
    assert all(o.shape == img.shape and not np.array_equal(o, img) for o in outs)
    assert len({o.tobytes() for o in outs}) == 4


def test_warps_in_a_pipeline_and_on_pil_images():
    imgs = np.stack([_img(seed=s) for s in range(4)])
    data = ds.NumpySlicesDataset(imgs, column_names=["image"], shuffle=False)
    data = data.map(operations=[vision.Rotate(12, Inter.BILINEAR),
                                vision.RandomRotation((-7, -7), Inter.NEAREST, expand=True)],
                    input_columns=["image"])
    outs = [row["image"] for row in data.create_dict_iterator(output_numpy=True)]
    assert len(outs) == 4
    for img, out in zip(imgs, outs):
        step = _cv_rotate(img, 12, Inter.BILINEAR)
        np.testing.assert_array_equal(out, vision.Rotate(-7, expand=True)(step))
    # Random draws in a pipeline follow ds.config.set_seed.
    try:
        runs = []
        for _ in range(2):
            config.set_seed(5)
            data = ds.NumpySlicesDataset(imgs, column_names=["image"], shuffle=False)
            data = data.map(operations=vision.RandomAffine(20, (0.1, 0.1), (0.9, 1.1), 5),
                            input_columns=["image"])
            runs.append([r["image"] for r in data.create_dict_iterator(output_numpy=True)])
        for a, b in zip(*runs):
            np.testing.assert_array_equal(a, b)
        assert len({a.tobytes() for a in runs[0]}) == 4
    finally:
        config._seed = None
    pil = Image.fromarray(imgs[0])
    out = vision.Rotate(12, Inter.BILINEAR)(pil)
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), _cv_rotate(imgs[0], 12, Inter.BILINEAR))


def test_random_crop_decode_resize_equals_decode_then_random_resized_crop():
    img = _img(60, 80)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "PNG")
    data = np.frombuffer(buf.getvalue(), np.uint8)
    rcdr = vision.RandomCropDecodeResize((20, 24), scale=(0.3, 0.9))
    rrc = vision.RandomResizedCrop((20, 24), scale=(0.3, 0.9))
    for seed in range(4):
        np.testing.assert_array_equal(_run(rcdr, img, seed), _run(rrc, img, seed))
    out = rcdr(data)
    assert out.shape == (20, 24, 3) and out.dtype == np.uint8
    pipe = ds.NumpySlicesDataset([data], column_names=["image"], shuffle=False)
    pipe = pipe.map(operations=vision.RandomCropDecodeResize(16), input_columns=["image"])
    rows = list(pipe.create_dict_iterator(output_numpy=True))
    assert rows[0]["image"].shape == (16, 16, 3)


def test_geometry_argument_errors():
    with pytest.raises(TypeError, match=r"Argument resample with value .* \[<enum 'Inter'>\]"):
        vision.Rotate(10, resample="bilinear")
    # Interpolations the warps lack are refused when an image comes, as MindSpore.
    with pytest.raises(RuntimeError, match="RandomRotation: Invalid InterpolationMode"):
        vision.RandomRotation(10, Inter.PILCUBIC)(_img())
    with pytest.raises(TypeError, match="Current Interpolation is not supported with PIL input"):
        vision.RandomAffine(10, resample=Inter.AREA)(Image.fromarray(_img()))
    with pytest.raises(ValueError, match="center needs to be None and angle needs to be an "
                                         "integer multiple of 90"):
        vision.Rotate(45, Inter.ANTIALIAS)(Image.fromarray(_img()))
    quarter = vision.RandomRotation((90, 90), Inter.ANTIALIAS, expand=True)(Image.fromarray(_img()))
    np.testing.assert_array_equal(np.asarray(quarter),
                                  cv2.rotate(_img(), cv2.ROTATE_90_COUNTERCLOCKWISE))
    with pytest.raises(TypeError, match="Input should be NumPy or PIL image, got <class 'list'>"):
        vision.Rotate(10)([_img()])
    with pytest.raises(ValueError, match="Value center needs to be a 2-tuple."):
        vision.RandomRotation(10, center=(1, 2, 3))
    with pytest.raises(TypeError, match="fill_value should be a single integer or a 3-tuple."):
        vision.RandomRotation(10, fill_value=(1, 2))
    with pytest.raises(ValueError, match=r"degrees should be in \(min,max\) format"):
        vision.RandomAffine((20, 10))
    with pytest.raises(ValueError, match="translate at 0"):
        vision.RandomAffine(0, translate=(2, 0))
    with pytest.raises(TypeError, match="start_points should be a list or tuple of length 4"):
        vision.Perspective([[0, 0]] * 3, [[0, 0]] * 4)
    with pytest.raises(ValueError, match=r"required interval of \[-2147483648, 2147483647\]"):
        vision.Perspective([[0, 0]] * 3 + [[0, 2**31]], [[0, 0]] * 4)
    with pytest.raises(ValueError, match="collinear"):
        vision.Perspective([[0, 0]] * 4, [[0, 0]] * 4)
    with pytest.raises(RuntimeError, match="CUBIC when image channel is greater than 4"):
        vision.Rotate(10, Inter.BICUBIC)(_img(c=5))
    with pytest.raises(TypeError, match="uint8, float32 or float64"):
        vision.Rotate(10)(_img().astype(np.int32))
    with pytest.raises(RuntimeError, match="should have at least two dimensions. You may need "
                                           "to perform Decode first."):
        vision.Affine(0, [0, 0], 1, 0)(np.zeros(5, np.uint8))
    with pytest.raises(ValueError, match=r"<H, W> or <H, W, C>"):
        vision.RandomAffine(10)(np.zeros((2, 3, 4, 5, 6), np.uint8))
    # Deterministic warps take <..., H, W, C>: each image warped alike.
    video = np.stack([_img(seed=s) for s in range(3)])
    out = vision.Rotate(20, Inter.BILINEAR)(video)
    for k in range(3):
        np.testing.assert_array_equal(out[k], _cv_rotate(video[k], 20, Inter.BILINEAR))
    assert vision.RandomRotation(10)(_img(c=5)).shape == (37, 53, 5)
