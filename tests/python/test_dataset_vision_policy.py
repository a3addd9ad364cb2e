"""vision's augmentation policies, GaussianBlur, RandomGrayscale, FiveCrop / TenCrop, the image
file functions, py_transforms_util, and transforms.RandomApply / RandomChoice / RandomOrder,
against PIL, OpenCV, torchvision's functional ops, colorsys and numpy."""
import colorsys

import cv2
import numpy as np
import pytest
import torchvision.transforms.functional as TF
from PIL import Image, ImageEnhance, ImageOps

import mycel
import mycel.dataset as ds
from mycel import _mycel
from mycel.dataset import transforms, vision
from mycel.dataset.vision import Inter

_data = _mycel._data


def _img(shape=(24, 32, 3), seed=0):
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def _pipeline(images, op):
    data = ds.NumpySlicesDataset(images, column_names=["image"], shuffle=False)
    data = data.map(operations=op, input_columns=["image"])
    return [row["image"] for row in data.create_dict_iterator(num_epochs=1, output_numpy=True)]


# ----- transforms.RandomApply / RandomChoice / RandomOrder -----

def test_random_apply_prob_edges_and_rate():
    img = _img()
    flip = [vision.HorizontalFlip()]
    np.testing.assert_array_equal(transforms.RandomApply(flip, prob=0)(img), img)
    np.testing.assert_array_equal(transforms.RandomApply(flip, prob=1)(img), img[:, ::-1])
    # C++ chain of built-ins: RandomHorizontalFlip(1) then RandomInvert(1)
    op = transforms.RandomApply([vision.RandomHorizontalFlip(1.0), vision.RandomInvert(1.0)],
                                prob=0.3)
    assert op._op is not None
    ds.config.set_seed(5)
    outs = _pipeline(np.stack([img] * 400), op)
    applied = [np.array_equal(o, 255 - img[:, ::-1]) for o in outs]
    assert all(a or np.array_equal(o, img) for a, o in zip(applied, outs))
    assert 0.2 < np.mean(applied) < 0.4


def test_random_apply_python_callables_and_compose():
    ds.config.set_seed(1)
    op = transforms.RandomApply([transforms.Duplicate(), transforms.Concatenate()], 1.0)
    assert op._op is None
    np.testing.assert_array_equal(op(np.array([0, 1])), [0, 1, 0, 1])
    comp = transforms.Compose([transforms.Duplicate(), transforms.Concatenate(), lambda x: x,
                               transforms.Slice([0, 1, 2])])
    outs = _pipeline(np.array([[0, 1, 2]]), transforms.RandomApply([comp]))
    np.testing.assert_array_equal(outs[0], [0, 1, 2])


def test_random_choice_and_order():
    img = _img()
    ds.config.set_seed(3)
    choice = transforms.RandomChoice([vision.HorizontalFlip(), vision.VerticalFlip()])
    outs = _pipeline(np.stack([img] * 200), choice)  # HorizontalFlip is Python: Python path
    h = [np.array_equal(o, img[:, ::-1]) for o in outs]
    v = [np.array_equal(o, img[::-1]) for o in outs]
    assert all(a != b for a, b in zip(h, v)) and 0.35 < np.mean(h) < 0.65
    c = transforms.RandomChoice([vision.RandomHorizontalFlip(1.0), vision.RandomVerticalFlip(1.0)])
    assert c._op is not None
    outs = _pipeline(np.stack([img] * 200), c)
    h = [np.array_equal(o, img[:, ::-1]) for o in outs]
    assert all(a or np.array_equal(o, img[::-1]) for a, o in zip(h, outs))
    assert 0.35 < np.mean(h) < 0.65
    # order matters for Crop then Resize: both orders must appear, nothing else
    crop, resize = vision.CenterCrop(8), vision.Resize((16, 16))
    order = transforms.RandomOrder([crop, resize])
    first = resize(crop(img))
    second = crop(resize(img))
    outs = _pipeline(np.stack([img] * 100), order)
    a = [np.array_equal(o, first) for o in outs]
    assert all(x or np.array_equal(o, second) for x, o in zip(a, outs))
    assert 0.3 < np.mean(a) < 0.7


def test_random_compositions_same_seed_same_result():
    img = np.stack([_img(seed=i) for i in range(20)])

    def make():
        return transforms.RandomChoice([vision.RandomHorizontalFlip(1.0),
                                        vision.RandomInvert(1.0), vision.RandomVerticalFlip(1.0)])

    op = make()
    assert op._op is not None
    ds.config.set_seed(11)
    a = _pipeline(img, op)
    ds.config.set_seed(11)
    b = _pipeline(img, op)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert len({tuple(x.ravel()[:8]) for x in a}) > 1
    ds.config.set_seed(11)  # eager: a program repeating its calls after set_seed repeats them
    op = make()
    e1 = [op(i) for i in img]
    ds.config.set_seed(11)
    op = make()
    e2 = [op(i) for i in img]
    for x, y in zip(e1, e2):
        np.testing.assert_array_equal(x, y)


def test_random_composition_argument_errors():
    with pytest.raises(TypeError, match=r"transforms list with value None is not of type "
                                        r"\[<class 'list'>\]"):
        transforms.RandomApply(None)
    with pytest.raises(ValueError, match="Input prob is not within the required interval"):
        transforms.RandomApply([vision.Invert()], 1.1)
    with pytest.raises(TypeError, match=r"is not of type \[<class 'float'>, <class 'int'>\]"):
        transforms.RandomApply([vision.Invert()], None)
    with pytest.raises(TypeError, match="transforms\\[1\\] is neither a transforms op"):
        transforms.RandomChoice([vision.Invert(), "zyx"])
    with pytest.raises(ValueError, match="can not be empty"):
        transforms.RandomOrder([])
    with pytest.raises(TypeError, match=r"transforms\[0\] is neither a transforms op "
                                        r"\(TensorOperation\) nor a callable pyfunc"):
        transforms.Compose([1, transforms.TypeCast(mycel.int32)])
    with pytest.raises(ValueError, match="transforms list can not be empty"):
        transforms.Compose([])
    with pytest.raises(RuntimeError, match="Input Tensor is not valid"):
        transforms.Compose([lambda x: x + x])()


# ----- the policies' ops against PIL / OpenCV -----

def _aug(img, name, m, interp="nearest", fill=(0.0, 0.0, 0.0)):
    return _data.apply_augment(img, name, m, interp, list(fill))


def test_augment_ops_match_pil_and_opencv():
    img = _img((20, 20, 3), 2)
    pil = Image.fromarray(img)
    np.testing.assert_array_equal(_aug(img, "Posterize", 3), np.asarray(ImageOps.posterize(pil, 3)))
    np.testing.assert_array_equal(_aug(img, "Solarize", 128),
                                  np.asarray(ImageOps.solarize(pil, 128)))
    np.testing.assert_array_equal(_aug(img, "Solarize", 256), img)
    np.testing.assert_array_equal(_aug(img, "Invert", 0), np.asarray(ImageOps.invert(pil)))
    np.testing.assert_array_equal(_aug(img, "AutoContrast", 0),
                                  np.asarray(ImageOps.autocontrast(pil)))
    eq = np.stack([cv2.equalizeHist(np.ascontiguousarray(img[:, :, c])) for c in range(3)], -1)
    np.testing.assert_array_equal(_aug(img, "Equalize", 0), eq)
    np.testing.assert_array_equal(_aug(img, "Identity", 0), img)
    sharp = np.asarray(ImageEnhance.Sharpness(pil).enhance(1.5))
    assert np.abs(_aug(img, "Sharpness", 0.5).astype(int) - sharp).max() <= 1
    bright = np.clip(np.round(img * 0.7), 0, 255)
    assert np.abs(_aug(img, "Brightness", -0.3) - bright).max() <= 1
    # translations by whole pixels: a shift with the fill coming in
    tx = _aug(img, "TranslateX", 5.7, fill=(10, 20, 30))
    np.testing.assert_array_equal(tx[:, 5:], img[:, :-5])
    np.testing.assert_array_equal(tx[:, :5], np.broadcast_to([10, 20, 30], (20, 5, 3)))
    ty = _aug(img, "TranslateY", -3.2)
    np.testing.assert_array_equal(ty[:-3], img[3:])
    assert (ty[-3:] == 0).all()
    # rotating a square image by 90 degrees counter-clockwise about its centre
    np.testing.assert_array_equal(_aug(img, "Rotate", 90.0), np.rot90(img))
    for name in ("ShearX", "ShearY", "Rotate", "Brightness", "Color", "Contrast"):
        np.testing.assert_array_equal(_aug(img, name, 0.0), img)


def test_rand_augment_bin_zero_ops_are_the_identity_ones():
    # with magnitude bin 0 every op but AutoContrast, Equalize and Solarize (threshold 255) is
    # the identity: one op gives one of these four images
    img = _img((16, 18, 3), 4)
    pil = Image.fromarray(img)
    cands = [img, np.asarray(ImageOps.solarize(pil, 255)), np.asarray(ImageOps.autocontrast(pil)),
             np.stack([cv2.equalizeHist(np.ascontiguousarray(img[:, :, c])) for c in range(3)], -1)]
    ds.config.set_seed(7)
    op = vision.RandAugment(num_ops=1, magnitude=0, num_magnitude_bins=5)
    seen = set()
    for out in _pipeline(np.stack([img] * 120), op):
        hits = [i for i, c in enumerate(cands) if np.array_equal(out, c)]
        assert hits, "RandAugment gave an image no bin-0 op gives"
        seen.update(hits)
    assert seen == {0, 1, 2, 3}
    np.testing.assert_array_equal(vision.RandAugment(num_ops=0)(img), img)


def test_policies_shapes_determinism_and_pil():
    imgs = np.stack([_img((20, 28, 3), s) for s in range(12)])
    for op in (vision.AutoAugment(), vision.AutoAugment(vision.AutoAugmentPolicy.CIFAR10,
                                                        Inter.BILINEAR, (1, 2, 3)),
               vision.AutoAugment(vision.AutoAugmentPolicy.SVHN, Inter.NEAREST, 20),
               vision.RandAugment(3, 10, 15, Inter.BICUBIC, 20), vision.TrivialAugmentWide()):
        ds.config.set_seed(9)
        a = _pipeline(imgs, op)
        ds.config.set_seed(9)
        b = _pipeline(imgs, op)
        assert all(x.shape == (20, 28, 3) and x.dtype == np.uint8 for x in a)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert any(not np.array_equal(x, i) for x, i in zip(a, imgs))
        out = op(Image.fromarray(imgs[0]))
        assert isinstance(out, Image.Image) and out.size == (28, 20)


def test_policy_errors():
    with pytest.raises(TypeError, match=r"Argument policy with value invalid is not of type "
                                        r"\[<enum 'AutoAugmentPolicy'>\]"):
        vision.AutoAugment(policy="invalid")
    with pytest.raises(TypeError, match=r"interpolation with value invalid is not of type "
                                        r"\[<enum 'Inter'>\]"):
        vision.RandAugment(interpolation="invalid")
    with pytest.raises(TypeError, match="fill_value should be a single integer or a 3-tuple"):
        vision.TrivialAugmentWide(fill_value=(10, 10))
    with pytest.raises(ValueError, match=r"is not within the required interval of \[0, 255\]"):
        vision.AutoAugment(fill_value=300)
    with pytest.raises(ValueError, match=r"Input num_ops is not within the required interval of "
                                         r"\[0, 16777216\]"):
        vision.RandAugment(num_ops=-1)
    with pytest.raises(ValueError, match=r"Input magnitude is not within the required interval "
                                         r"of \[0, 3\)"):
        vision.RandAugment(3, 4, 3)
    with pytest.raises(ValueError, match=r"num_magnitude_bins is not within the required "
                                         r"interval of \[2, 16777216\]"):
        vision.RandAugment(magnitude=0, num_magnitude_bins=1)
    op = vision.TrivialAugmentWide()
    with pytest.raises(RuntimeError, match="the data type of image tensor does not match"):
        op(np.zeros((8, 8, 3), np.uint32))
    with pytest.raises(RuntimeError, match="the channel of image tensor does not match"):
        op(np.zeros((8, 8, 1), np.uint8))
    with pytest.raises(RuntimeError, match="the dimension of image tensor does not match"):
        op(np.zeros((8, 8), np.uint8))


def test_random_select_subpolicy():
    img = _img()
    policy = [[(vision.RandomHorizontalFlip(1.0), 1.0), (vision.RandomInvert(1.0), 0.0)],
              [(vision.RandomVerticalFlip(1.0), 1.0)]]
    op = vision.RandomSelectSubpolicy(policy)
    assert op._op is not None
    ds.config.set_seed(2)
    outs = _pipeline(np.stack([img] * 100), op)
    h = [np.array_equal(o, img[:, ::-1]) for o in outs]
    assert all(a or np.array_equal(o, img[::-1]) for a, o in zip(h, outs))
    assert 0.3 < np.mean(h) < 0.7
    with pytest.raises(ValueError, match=r"prob of \(op, prob\) policy\[0\]\[0\] is not within"):
        vision.RandomSelectSubpolicy([[(vision.Invert(), 2.0)]])
    with pytest.raises(ValueError, match=r"policy\[1\] can not be empty"):
        vision.RandomSelectSubpolicy([[(vision.Invert(), 1.0)], []])
    # Python callables: the choice runs in Python, with the same outcomes
    ds.config.set_seed(4)
    mixed = vision.RandomSelectSubpolicy([[(lambda x: x[:, ::-1], 1.0)],
                                          [(vision.VerticalFlip(), 1)]])
    assert mixed._op is None
    outs = _pipeline(np.stack([img] * 40), mixed)
    h = [np.array_equal(o, img[:, ::-1]) for o in outs]
    assert all(a or np.array_equal(o, img[::-1]) for a, o in zip(h, outs)) and 0 < sum(h) < 40


# ----- GaussianBlur -----

@pytest.mark.parametrize("ksize,sigma", [(3, 3), ((3, 5), (3.5, 3.5)), (5, None), ((7, 3), 1.2),
                                         (9, (2.0, 0.7))])
def test_gaussian_blur_equals_opencv(ksize, sigma):
    img = _img((33, 41, 3), 5)
    out = vision.GaussianBlur(ksize, sigma)(img)
    kx, ky = (ksize, ksize) if isinstance(ksize, int) else ksize
    if sigma is None:
        sx, sy = (((k - 1) * 0.5 - 1) * 0.3 + 0.8 for k in (kx, ky))
    else:
        sx, sy = (sigma, sigma) if not isinstance(sigma, tuple) else sigma
    np.testing.assert_array_equal(out, cv2.GaussianBlur(img, (kx, ky), sx, sigmaY=sy))
    gray = _img((17, 12), 6)
    np.testing.assert_array_equal(vision.GaussianBlur(ksize, sigma)(gray),
                                  cv2.GaussianBlur(gray, (kx, ky), sx, sigmaY=sy))


def test_gaussian_blur_float_numpy_convolution_and_pipeline():
    x = np.random.default_rng(3).random((15, 19)).astype(np.float64)
    k = np.exp(-np.arange(-2, 3) ** 2 / (2 * 1.3 ** 2))
    k /= k.sum()
    pad = np.pad(x, 2, mode="reflect")  # numpy's reflect is OpenCV's BORDER_REFLECT_101
    rows = sum(k[t] * pad[:, t:t + 19] for t in range(5))
    want = sum(k[t] * rows[t:t + 15] for t in range(5))
    np.testing.assert_allclose(vision.GaussianBlur(5, 1.3)(x), want, atol=1e-12)
    imgs = np.stack([_img((10, 12, 3), s) for s in range(3)])
    for got, i in zip(_pipeline(imgs, vision.GaussianBlur(3, 0.9)), imgs):
        np.testing.assert_array_equal(got, cv2.GaussianBlur(i, (3, 3), 0.9))
    with pytest.raises(ValueError, match="not an odd value"):
        vision.GaussianBlur([2, 2])
    with pytest.raises(ValueError, match="kernel_size must be at most 4095"):
        vision.GaussianBlur((3, 4097))


def test_convert_color_equals_opencv():
    from mycel.dataset.vision_utils import ConvertMode as M
    bgr = _img((9, 11, 3), 15)
    bgra = _img((9, 11, 4), 16)
    gray = _img((9, 11), 17)
    cases = [(M.COLOR_BGR2BGRA, bgr, cv2.COLOR_BGR2BGRA),
             (M.COLOR_BGRA2BGR, bgra, cv2.COLOR_BGRA2BGR),
             (M.COLOR_BGR2RGBA, bgr, cv2.COLOR_BGR2RGBA),
             (M.COLOR_RGBA2BGR, bgra, cv2.COLOR_RGBA2BGR),
             (M.COLOR_BGR2RGB, bgr, cv2.COLOR_BGR2RGB),
             (M.COLOR_BGRA2RGBA, bgra, cv2.COLOR_BGRA2RGBA),
             (M.COLOR_BGR2GRAY, bgr, cv2.COLOR_BGR2GRAY),
             (M.COLOR_RGB2GRAY, bgr, cv2.COLOR_RGB2GRAY),
             (M.COLOR_GRAY2BGR, gray, cv2.COLOR_GRAY2BGR),
             (M.COLOR_GRAY2BGRA, gray, cv2.COLOR_GRAY2BGRA),
             (M.COLOR_BGRA2GRAY, bgra, cv2.COLOR_BGRA2GRAY),
             (M.COLOR_RGBA2GRAY, bgra, cv2.COLOR_RGBA2GRAY)]
    for mode, img, code in cases:
        np.testing.assert_array_equal(vision.ConvertColor(mode)(img), cv2.cvtColor(img, code))
    f = bgr.astype(np.float32) / 255
    np.testing.assert_allclose(vision.ConvertColor(M.COLOR_BGR2GRAY)(f),
                               cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), atol=1e-6)
    got = _pipeline(np.stack([bgr] * 2), vision.ConvertColor(M.COLOR_BGR2RGB))
    np.testing.assert_array_equal(got[1], bgr[:, :, ::-1])
    with pytest.raises(RuntimeError, match="takes images with 3 channel"):
        vision.ConvertColor(M.COLOR_BGR2GRAY)(bgra)
    with pytest.raises(TypeError, match="convert_mode"):
        vision.ConvertColor(6)


# ----- RandomGrayscale, FiveCrop, TenCrop -----

def test_five_and_ten_crop_equal_torchvision():
    pil = Image.fromarray(_img((40, 50, 3), 8))
    for size in (20, (17, 31)):
        got = vision.FiveCrop(size)(pil)
        want = TF.five_crop(pil, size)
        assert len(got) == 5
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        for vflip in (False, True):
            got = vision.TenCrop(size, use_vertical_flip=vflip)(pil)
            want = TF.ten_crop(pil, size, vertical_flip=vflip)
            assert len(got) == 10
            for g, w in zip(got, want):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    arr = _img((40, 50, 3), 8)
    crops = vision.FiveCrop(10)(arr)
    np.testing.assert_array_equal(crops[3], arr[30:, 40:])
    with pytest.raises(TypeError, match=r"Size should be a single integer or a list/tuple"):
        vision.TenCrop([200, 200, 200])
    with pytest.raises(ValueError, match=r"Input is not within the required interval of "
                                         r"\[1, 16777216\]"):
        vision.TenCrop(0)
    with pytest.raises(ValueError, match="is larger than input image size"):
        vision.FiveCrop(60)(pil)


def test_five_crop_in_pipeline_stacks():
    imgs = np.stack([_img((30, 30, 3), s) for s in range(2)])
    op = transforms.Compose([vision.FiveCrop(12),
                             lambda *crops: np.stack([np.asarray(c) for c in crops])])
    for got, img in zip(_pipeline(imgs, op), imgs):
        assert got.shape == (5, 12, 12, 3)
        np.testing.assert_array_equal(got[0], img[:12, :12])


def test_random_grayscale():
    pil = Image.fromarray(_img())
    gray = np.asarray(pil.convert("L"))
    out = vision.RandomGrayscale(1.0)(pil)
    assert out.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(out), np.stack([gray] * 3, -1))
    one = vision.RandomGrayscale(1.0)(pil.convert("L"))
    assert one.mode == "L"
    assert vision.RandomGrayscale(0.0)(pil) is pil
    arr = vision.RandomGrayscale(1.0)(_img())
    np.testing.assert_array_equal(arr[:, :, 0], gray)
    with pytest.raises(ValueError, match=r"Input prob is not within the required interval of "
                                         r"\[0.0, 1.0\]"):
        vision.RandomGrayscale(1.5)


def test_mix_up_single_and_multi():
    rng = np.random.default_rng(14)
    imgs = rng.integers(0, 256, (4, 5, 6, 3)).astype(np.uint8)
    labels = np.eye(4, dtype=np.float32)[[0, 1, 2, 3]]
    ds.config.set_seed(3)
    img, lab = vision.MixUp(4, 0.4, True)(imgs, labels)
    lam = lab[np.arange(4), np.arange(4)]  # the one-hot labels give lambda back
    want = lam[:, None, None, None] * imgs + (1 - lam[:, None, None, None]) * np.roll(imgs, -1, 0)
    np.testing.assert_allclose(img, want, rtol=1e-6)
    np.testing.assert_allclose(lab, lam[:, None] * labels + (1 - lam[:, None]) *
                               np.roll(labels, -1, 0), rtol=1e-6)
    multi = vision.MixUp(4, 0.4, False)
    first, _ = multi(imgs, labels)
    np.testing.assert_array_equal(first, imgs)  # the first batch passes
    second, lab2 = multi(imgs[::-1], labels[::-1])
    lam2 = lab2[np.arange(4), np.arange(4)[::-1]]
    want2 = lam2[:, None, None, None] * imgs[::-1] + (1 - lam2[:, None, None, None]) * first
    np.testing.assert_allclose(second, want2, rtol=1e-6)
    with pytest.raises(ValueError, match="batch_size = 3"):
        vision.MixUp(3, 0.4)(imgs, labels)


# ----- image files -----

def test_encode_jpeg_png_round_trip(tmp_path):
    img = _img((30, 40, 3), 9)
    for q in (1, 75, 100):
        data = vision.encode_jpeg(img, q)
        assert data.dtype == np.uint8 and data[:3].tolist() == [255, 216, 255]
        decoded = np.asarray(Image.open(__import__("io").BytesIO(data.tobytes())))
        np.testing.assert_array_equal(vision.Decode()(data), decoded)
    yy, xx = np.mgrid[0:32, 0:48]
    smooth = np.stack([yy * 7, xx * 5, (xx + yy) * 3], -1).astype(np.uint8)
    back = vision.Decode()(vision.encode_jpeg(mycel.Tensor.from_numpy(smooth), 95))
    assert np.abs(back.astype(int) - smooth).mean() < 4
    for level in (0, 6, 9):
        for im in (img, img[:, :, 0], img[:, :, :1]):
            data = vision.encode_png(im, level)
            assert data[:4].tolist() == [137, 80, 78, 71]
            got = np.asarray(Image.open(__import__("io").BytesIO(data.tobytes())))
            np.testing.assert_array_equal(got, im.reshape(got.shape))
    with pytest.raises(RuntimeError, match="Invalid quality"):
        vision.encode_jpeg(img, 0)
    with pytest.raises(TypeError, match="Input quality is not of type"):
        vision.encode_jpeg(img, 75.0)
    with pytest.raises(RuntimeError, match="The type of the image data"):
        vision.encode_png(img.astype(float))
    with pytest.raises(RuntimeError, match="The image has invalid channels"):
        vision.encode_png(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(RuntimeError, match="The image has invalid dimensions"):
        vision.encode_jpeg(np.zeros((4,), np.uint8))
    with pytest.raises(RuntimeError, match="Invalid compression_level"):
        vision.encode_png(img, 10)
    with pytest.raises(TypeError, match="Input image is not of type"):
        vision.encode_jpeg("image")


def test_write_and_read_image(tmp_path):
    img = _img((26, 35, 3), 10)
    png = str(tmp_path / "a.png")
    vision.write_png(png, img, 9)
    np.testing.assert_array_equal(np.asarray(Image.open(png)), img)
    for mode, want in ((vision.ImageReadMode.UNCHANGED, img), (vision.ImageReadMode.COLOR, img)):
        np.testing.assert_array_equal(vision.read_image(png, mode), want)
    assert vision.read_image(png, vision.ImageReadMode.GRAYSCALE).shape == (26, 35, 1)
    jpg = str(tmp_path / "a.jpg")
    vision.write_jpeg(jpg, mycel.Tensor.from_numpy(img), 90)
    pil_rgb = np.asarray(Image.open(jpg).convert("RGB"))
    np.testing.assert_array_equal(vision.read_image(jpg), pil_rgb)
    gray = vision.read_image(jpg, vision.ImageReadMode.GRAYSCALE)
    want = (pil_rgb.astype(np.int64) @ [9798, 19235, 3735] + 16384) >> 15  # RGB2GRAY
    np.testing.assert_array_equal(gray[:, :, 0], want)
    # gray files stay one channel, alpha is dropped (as MindSpore's read_image)
    Image.fromarray(img[:, :, 0]).save(tmp_path / "g.png")
    np.testing.assert_array_equal(vision.read_image(str(tmp_path / "g.png")), img[:, :, :1])
    Image.fromarray(img[:, :, 0]).save(tmp_path / "g.jpg")
    assert vision.read_image(str(tmp_path / "g.jpg")).shape == (26, 35, 1)
    rgba = np.dstack([img, img[:, :, :1]])
    Image.fromarray(rgba).save(tmp_path / "a4.png")
    np.testing.assert_array_equal(vision.read_image(str(tmp_path / "a4.png")), img)
    np.testing.assert_array_equal(
        vision.read_image(str(tmp_path / "a4.png"), vision.ImageReadMode.COLOR), img)
    Image.fromarray(img).save(tmp_path / "a.bmp")
    np.testing.assert_array_equal(vision.read_image(str(tmp_path / "a.bmp")), img)
    np.testing.assert_array_equal(vision.decode_image(np.fromfile(png, np.uint8)), img)
    with pytest.raises(RuntimeError, match="does not exist"):
        vision.read_image(str(tmp_path / "none.png"))
    with pytest.raises(RuntimeError, match="is not a regular file"):
        vision.read_image(str(tmp_path))
    with pytest.raises(RuntimeError, match="is not a regular file"):
        vision.write_png(str(tmp_path), img)
    with pytest.raises(RuntimeError, match="No such file or directory"):
        vision.write_jpeg(str(tmp_path / "no" / "dir.jpg"), img)
    with pytest.raises(TypeError, match="Input mode is not of type"):
        vision.read_image(png, "0")
    Image.fromarray(img).save(tmp_path / "a.gif")
    with pytest.raises(RuntimeError, match="Failed to read file"):
        vision.read_image(str(tmp_path / "a.gif"))


# ----- py_transforms_util, batched flips -----

def test_py_transforms_util_hsv_equals_colorsys():
    import mycel.dataset.vision.py_transforms_util as util
    rgb = np.random.default_rng(4).random((2, 5, 6, 3))
    hsv = util.rgb_to_hsvs(rgb, True)
    want = np.array([[[colorsys.rgb_to_hsv(*p) for p in row] for row in im] for im in rgb])
    np.testing.assert_allclose(hsv, want, atol=1e-12)
    np.testing.assert_allclose(util.hsv_to_rgbs(hsv, True), rgb, atol=1e-12)
    chw = np.moveaxis(rgb[0], -1, 0)
    np.testing.assert_allclose(util.rgb_to_hsvs(chw, False), np.moveaxis(want[0], -1, 0),
                               atol=1e-12)
    with pytest.raises(TypeError, match="img should be 3 channels RGB img"):
        util.rgb_to_hsvs(np.zeros((4, 4, 2)), True)


def test_random_flips_take_batches_of_images():
    x = _img((2, 3, 5, 7, 3), 12)
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(x), x[..., ::-1, :])
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)(x), x[..., ::-1, :, :])
    np.testing.assert_array_equal(_pipeline(x[None], vision.RandomHorizontalFlip(1.0))[0],
                                  x[..., ::-1, :])
    with pytest.raises(RuntimeError, match="the image tensor should have at least two dimensions"):
        vision.RandomHorizontalFlip(0.1)(np.zeros(32, np.float32))
    # several columns flip together, on one draw
    ds.config.set_seed(6)
    img = _img((6, 7, 3), 13)
    data = ds.NumpySlicesDataset((np.stack([img] * 30), np.stack([img] * 30)), ["a", "b"],
                                 shuffle=False)
    data = data.map(vision.RandomVerticalFlip(0.5), input_columns=["a", "b"])
    rows = list(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert all(np.array_equal(a, b) for a, b in rows)
    assert 0 < sum(np.array_equal(a, img[::-1]) for a, _ in rows) < 30
