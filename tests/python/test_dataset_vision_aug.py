"""vision's random erasers and mixers (CutOut, RandomLighting, MixUpBatch, CutMixBatch,
UniformAugment, RandomErasing) against numpy oracles: each output is checked against what the
transform must compute given the draws that can be read back from it, eager and in a
pipeline."""
import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import vision


def _img(h=20, w=24, c=3, seed=0, lo=1):
    return np.random.default_rng(seed).integers(lo, 256, (h, w, c), dtype=np.uint8)


def _run(op, inputs, seed):
    """A random op on inputs with an explicit seed (the stream of one pipeline row)."""
    out = op._op.apply(list(inputs), 0, seed)
    return out[0] if len(out) == 1 else tuple(out)


def _zero_boxes(mask):
    """The bounding rectangle of the True cells of a 2-D mask, or None."""
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return None
    return ys.min(), ys.max() + 1, xs.min(), xs.max() + 1


# ----- CutOut -----

@pytest.mark.parametrize("seed", range(12))
def test_cut_out_one_patch_is_a_clipped_square(seed):
    img = _img()  # no zeros in the input
    out = _run(vision.CutOut(8), [img], seed)
    assert out.dtype == img.dtype and out.shape == img.shape
    zero = (out == 0).all(axis=2)
    np.testing.assert_array_equal(out[~zero], img[~zero])
    box = _zero_boxes(zero)
    if box is None:
        return  # the square fell wholly outside (MindSpore's draw reaches past the border)
    y0, y1, x0, x1 = box
    assert zero[y0:y1, x0:x1].all()  # one filled rectangle
    # each side is 8 unless the square was clipped at that side's border
    assert (y1 - y0 == 8) or y0 == 0 or y1 == img.shape[0]
    assert (x1 - x0 == 8) or x0 == 0 or x1 == img.shape[1]


def test_cut_out_chw_equals_hwc():
    img = _img(c=4)
    for seed in range(8):
        hwc = _run(vision.CutOut(7, num_patches=3), [img], seed)
        chw = _run(vision.CutOut(7, num_patches=3, is_hwc=False),
                   [np.ascontiguousarray(img.transpose(2, 0, 1))], seed)
        np.testing.assert_array_equal(chw, hwc.transpose(2, 0, 1))


def test_cut_out_float_and_many_patches():
    img = np.random.default_rng(1).random((16, 16, 3)).astype(np.float32) + 1
    out = _run(vision.CutOut(4, num_patches=40), [img], 3)
    zero = out == 0
    assert zero.any() and (zero.all(axis=2) == zero.any(axis=2)).all()
    np.testing.assert_array_equal(out[~zero], img[~zero])


def test_cut_out_errors():
    with pytest.raises(RuntimeError, match="box size is too large for image erase"):
        vision.CutOut(30)(_img())
    with pytest.raises(RuntimeError, match="image shape is not <H,W,C>"):
        vision.CutOut(3)(np.zeros((8, 8), np.uint8))
    with pytest.raises(TypeError, match="Argument length with value 2.5"):
        vision.CutOut(2.5)
    with pytest.raises(ValueError, match="Input is not within the required interval"):
        vision.CutOut(0)
    with pytest.raises(TypeError, match="is_hwc"):
        vision.CutOut(3, is_hwc=1)


def test_cut_out_pipeline_is_seeded():
    imgs = np.stack([_img(seed=s) for s in range(6)])

    def run():
        ds.config.set_seed(7)
        d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
        d = d.map(operations=vision.CutOut(6, num_patches=2), input_columns=["image"])
        return [r["image"] for r in d.create_dict_iterator(output_numpy=True)]

    a, b = run(), run()
    for x, y, src in zip(a, b, imgs):
        np.testing.assert_array_equal(x, y)
        keep = (x != 0).all(axis=2)
        np.testing.assert_array_equal(x[keep], src[keep])
    assert any((x == 0).any() for x in a)


# ----- RandomLighting -----

_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]])


def test_random_lighting_float_offsets_follow_the_pca_noise():
    img = np.random.default_rng(0).random((6, 7, 3)) * 100 + 50
    alphas = []
    for seed in range(300):
        out = _run(vision.RandomLighting(0.3), [img], seed)
        off = out - img
        assert out.dtype == img.dtype
        np.testing.assert_allclose(off, np.broadcast_to(off[0, 0], off.shape), atol=1e-9)
        alphas.append(np.linalg.solve(_EIG, off[0, 0]))
    alphas = np.array(alphas)
    # the three weights are N(0, alpha): the sample std within 15% of 0.3, means near 0
    np.testing.assert_allclose(alphas.std(axis=0), 0.3, rtol=0.15)
    assert np.abs(alphas.mean(axis=0)).max() < 0.1


def test_random_lighting_uint8_rounds_and_saturates():
    img = np.random.default_rng(2).integers(0, 256, (9, 11, 3), dtype=np.uint8)
    for seed in range(20):
        out = _run(vision.RandomLighting(1.0), [img], seed)
        f = _run(vision.RandomLighting(1.0), [img.astype(np.float64)], seed)
        off = (f - img)[0, 0]
        want = np.clip(np.rint(img + off.astype(np.float32)), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(out, want)


def test_random_lighting_zero_alpha_pil_and_errors():
    img = _img()
    np.testing.assert_array_equal(vision.RandomLighting(0)(img), img)
    from PIL import Image
    pil = vision.RandomLighting(0.0)(Image.fromarray(img))
    assert isinstance(pil, Image.Image)
    np.testing.assert_array_equal(np.asarray(pil), img)
    with pytest.raises(RuntimeError, match="channel is not 3"):
        vision.RandomLighting()(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(RuntimeError, match="invalid tensor type"):
        vision.RandomLighting()(np.zeros((4, 4, 3), np.int64))
    with pytest.raises(ValueError, match="Input alpha is not within the required interval"):
        vision.RandomLighting(-1)
    with pytest.raises(TypeError, match="Argument alpha with value"):
        vision.RandomLighting("1")


# ----- MixUpBatch / CutMixBatch -----

def _partner_and_lambda(out_label, n):
    """From one-hot identity labels mixed as lam * e_i + (1 - lam) * e_p(i): (p, lam) per row."""
    pairs = []
    for i in range(n):
        row = out_label[i]
        others = [k for k in range(n) if k != i and row[k] > 0]
        if not others:
            pairs.append((i, None))
        else:
            assert len(others) == 1
            pairs.append((others[0], row[i]))
    return pairs


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_mix_up_batch_mixes_images_like_labels(dtype):
    n = 6
    imgs = np.random.default_rng(0).integers(0, 256, (n, 5, 4, 3)).astype(dtype)
    labels = np.eye(n, dtype=np.int32)
    for seed in range(6):
        out, lab = _run(vision.MixUpBatch(0.7), [imgs, labels], seed)
        assert out.dtype == imgs.dtype and lab.dtype == np.float32
        np.testing.assert_allclose(lab.sum(axis=1), 1, rtol=1e-6)
        pairs = _partner_and_lambda(lab, n)
        lams = {lam for _, lam in pairs if lam is not None}
        assert len(lams) <= 1 or np.ptp(list(lams)) < 1e-6  # one lambda for the batch
        assert sorted(p for p, _ in pairs) == list(range(n))  # a permutation
        for i, (p, lam) in enumerate(pairs):
            lam = 1.0 if lam is None else float(lam)
            want = lam * imgs[i].astype(np.float64) + (1 - lam) * imgs[p]
            tol = 1e-4 if dtype == np.float32 else 1.0
            np.testing.assert_allclose(out[i].astype(np.float64), want, atol=tol)


def test_mix_up_batch_lambda_distribution():
    # lambda ~ Beta(alpha, alpha): mean 1/2, variance 1 / (4 (2 alpha + 1))
    imgs = np.zeros((2, 2, 2, 1), np.float32)
    labels = np.array([[1, 0], [0, 1]], np.float32)
    lams = []
    for seed in range(600):
        _, lab = _run(vision.MixUpBatch(2.0), [imgs, labels], seed)
        lams.append(lab[0, 0] if lab[0, 1] > 0 else lab[1, 1] if lab[1, 0] > 0 else None)
    lams = np.array([v for v in lams if v is not None])
    assert len(lams) > 150
    assert abs(lams.mean() - 0.5) < 0.05
    np.testing.assert_allclose(lams.var(), 1 / (4 * 5), rtol=0.3)


def test_mix_up_batch_errors():
    imgs = np.zeros((2, 4, 4, 3), np.uint8)
    with pytest.raises(RuntimeError, match="rank of image shape should be: 4"):
        vision.MixUpBatch()(imgs[0], np.eye(2))
    with pytest.raises(RuntimeError, match="label is not in shape"):
        vision.MixUpBatch()(imgs, np.zeros(2))
    with pytest.raises(ValueError, match="alpha must be greater than 0"):
        vision.MixUpBatch(0)
    with pytest.raises(TypeError, match="Argument alpha"):
        vision.MixUpBatch("1")


@pytest.mark.parametrize("fmt", [vision.ImageBatchFormat.NHWC, vision.ImageBatchFormat.NCHW])
def test_cut_mix_batch_pastes_a_box_and_mixes_labels_by_area(fmt):
    n, h, w = 5, 12, 10
    base = (np.arange(n, dtype=np.uint8) * 40 + 7)[:, None, None, None]
    imgs = np.broadcast_to(base, (n, h, w, 3)).copy()
    if fmt == vision.ImageBatchFormat.NCHW:
        imgs = np.ascontiguousarray(imgs.transpose(0, 3, 1, 2))
    labels = np.eye(n, dtype=np.float32)
    for seed in range(8):
        out, lab = _run(vision.CutMixBatch(fmt, 1.0, 1.0), [imgs, labels], seed)
        hw = out if fmt == vision.ImageBatchFormat.NHWC else out.transpose(0, 2, 3, 1)
        for i in range(n):
            own = hw[i, :, :, 0] == base[i, 0, 0, 0]
            assert (hw[i] == hw[i, :, :, :1]).all()  # channels pasted together
            pasted = ~own
            if not pasted.any():
                continue
            p = (hw[i, :, :, 0][pasted][0] - 7) // 40
            y0, y1, x0, x1 = _zero_boxes(pasted)
            assert pasted[y0:y1, x0:x1].all()  # one rectangle from one partner
            area = (y1 - y0) * (x1 - x0) / (h * w)
            np.testing.assert_allclose(lab[i, i], 1 - area, atol=1e-6)
            np.testing.assert_allclose(lab[i, p], area, atol=1e-6)


def test_cut_mix_batch_prob_zero_and_errors():
    imgs = np.random.default_rng(0).integers(0, 255, (3, 6, 6, 3), dtype=np.uint8)
    labels = np.eye(3, dtype=np.int64)
    out, lab = _run(vision.CutMixBatch(vision.ImageBatchFormat.NHWC, prob=0.0), [imgs, labels], 1)
    np.testing.assert_array_equal(out, imgs)
    np.testing.assert_array_equal(lab, labels.astype(np.float32))
    op = vision.CutMixBatch(vision.ImageBatchFormat.NHWC)
    with pytest.raises(RuntimeError, match="You may need to perform Batch first"):
        op(imgs[0], labels)
    with pytest.raises(RuntimeError, match="not in channel of 1 or 3"):
        op(np.zeros((3, 6, 6, 4), np.uint8), labels)
    with pytest.raises(RuntimeError, match="batch sizes of image and label must be the same"):
        op(imgs, np.eye(2))
    with pytest.raises(TypeError, match="image_batch_format"):
        vision.CutMixBatch("NHWC")
    with pytest.raises(ValueError, match="Input prob is not within the required interval"):
        vision.CutMixBatch(vision.ImageBatchFormat.NHWC, 1.0, 1.5)


def test_mixers_in_a_pipeline_after_batch():
    imgs = np.random.default_rng(0).integers(0, 255, (8, 6, 6, 3), dtype=np.uint8)
    labels = np.arange(8) % 4
    d = ds.NumpySlicesDataset({"image": imgs, "label": labels}, shuffle=False)
    d = d.map(operations=ds.transforms.OneHot(4), input_columns=["label"])
    d = d.batch(4)
    d = d.map(operations=vision.CutMixBatch(vision.ImageBatchFormat.NHWC),
              input_columns=["image", "label"])
    d = d.map(operations=vision.MixUpBatch(), input_columns=["image", "label"])
    rows = list(d.create_dict_iterator(output_numpy=True))
    assert len(rows) == 2
    for r in rows:
        assert r["image"].shape == (4, 6, 6, 3) and r["label"].shape == (4, 4)
        np.testing.assert_allclose(r["label"].sum(axis=1), 1, rtol=1e-5)


# ----- UniformAugment -----

def test_uniform_augment_outputs_one_of_the_allowed_chains():
    img = _img(8, 9)
    inv, flip = vision.RandomInvert(1.0), vision.RandomHorizontalFlip(1.0)
    allowed = {"none": img, "inv": 255 - img, "flip": img[:, ::-1], "both": 255 - img[:, ::-1]}
    seen = set()
    for seed in range(80):
        out = _run(vision.UniformAugment([inv, flip], num_ops=2), [img], seed)
        names = [k for k, v in allowed.items() if np.array_equal(out, v)]
        assert names, "not a chain of the transforms"
        seen.update(names)
    assert seen == set(allowed)


def test_uniform_augment_num_ops_one_never_composes():
    img = _img(8, 9)
    op = vision.UniformAugment([vision.RandomInvert(1.0), vision.RandomHorizontalFlip(1.0)],
                               num_ops=1)
    counts = {"none": 0, "inv": 0, "flip": 0}
    for seed in range(200):
        out = _run(op, [img], seed)
        if np.array_equal(out, img):
            counts["none"] += 1
        elif np.array_equal(out, 255 - img):
            counts["inv"] += 1
        else:
            np.testing.assert_array_equal(out, img[:, ::-1])
            counts["flip"] += 1
    assert 60 < counts["none"] < 140 and counts["inv"] > 20 and counts["flip"] > 20


def test_uniform_augment_python_callables_and_errors():
    img = _img(8, 9)
    # a Python transform (numpy Invert) among them: the choice is made in Python
    op = vision.UniformAugment([vision.Invert(), lambda x: x // 2], num_ops=2)
    allowed = [img, 255 - img, img // 2, (255 - img) // 2]
    seen = set()
    for _ in range(60):
        out = op(img)
        k = [i for i, a in enumerate(allowed) if np.array_equal(out, a)]
        assert k
        seen.update(k)
    assert seen == {0, 1, 2, 3}
    with pytest.raises(ValueError, match="num_ops is greater than transforms list size"):
        vision.UniformAugment([vision.Invert()], num_ops=2)
    with pytest.raises(ValueError, match="Input num_ops must be greater than 0"):
        vision.UniformAugment([vision.Invert()], num_ops=0)
    with pytest.raises(TypeError, match=r"Argument num_ops with value 2.5 is not of type "
                                        r"\[<class 'int'>\]"):
        vision.UniformAugment([vision.Invert()], num_ops=2.5)


def test_uniform_augment_in_a_pipeline():
    imgs = np.stack([_img(8, 9, seed=s) for s in range(10)])
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False)
    d = d.map(operations=vision.UniformAugment([vision.RandomInvert(1.0),
                                                vision.RandomHorizontalFlip(1.0)]),
              input_columns=["image"])
    for src, r in zip(imgs, d.create_dict_iterator(output_numpy=True)):
        out = r["image"]
        assert any(np.array_equal(out, a) for a in
                   (src, 255 - src, src[:, ::-1], 255 - src[:, ::-1]))


# ----- RandomErasing -----

def test_random_erasing_erases_one_window():
    img = np.random.default_rng(0).random((3, 20, 30)).astype(np.float32) + 1
    hits = 0
    for _ in range(10):
        out = vision.RandomErasing(prob=1.0, value=(0, 0, 0))(img)
        zero = (out == 0).all(axis=0)
        np.testing.assert_array_equal(out[:, ~zero], img[:, ~zero])
        box = _zero_boxes(zero)
        if box is not None:
            hits += 1
            y0, y1, x0, x1 = box
            assert zero[y0:y1, x0:x1].all()
            assert 0.02 * 600 * 0.5 <= (y1 - y0) * (x1 - x0) <= 0.33 * 600 * 1.5
    assert hits >= 8
    np.testing.assert_array_equal(vision.RandomErasing(prob=0.0)(img), img)
    with pytest.raises(ValueError, match="Input prob is not within the required interval"):
        vision.RandomErasing(prob=2)


# ----- PadToSize / RandomResize -----

@pytest.mark.parametrize("offset", [None, (), 3, (2, 5)])
@pytest.mark.parametrize("mode,np_mode", [(vision.Border.CONSTANT, "constant"),
                                          (vision.Border.EDGE, "edge"),
                                          (vision.Border.REFLECT, "reflect"),
                                          (vision.Border.SYMMETRIC, "symmetric")])
def test_pad_to_size_matches_numpy_pad(offset, mode, np_mode):
    img = _img(9, 8)
    out = vision.PadToSize((20, 17), offset, fill_value=7, padding_mode=mode)(img)
    if offset is None or offset == ():
        top, left = (20 - 9) // 2, (17 - 8) // 2
    elif isinstance(offset, int):
        top = left = offset
    else:
        top, left = offset
    pads = ((top, 20 - 9 - top), (left, 17 - 8 - left), (0, 0))
    kw = {"constant_values": 7} if np_mode == "constant" else {}
    np.testing.assert_array_equal(out, np.pad(img, pads, np_mode, **kw))
    gray = vision.PadToSize(12)(img[..., 0])
    np.testing.assert_array_equal(gray, np.pad(img[..., 0], ((1, 2), (2, 2))))


def test_pad_to_size_errors():
    img = _img(9, 8)
    with pytest.raises(RuntimeError, match="target size to pad should be no less than"):
        vision.PadToSize(5)(img)
    with pytest.raises(RuntimeError, match="sum of offset and original image size"):
        vision.PadToSize((10, 10), (5, 5))(img)
    with pytest.raises(RuntimeError, match=r"Expecting tensor in channel of \(1, 3\)"):
        vision.PadToSize(12)(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(RuntimeError, match=r"Expecting tensor in dimension of \(2, 3\)"):
        vision.PadToSize(12)(np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="The size must be a sequence of length 2"):
        vision.PadToSize(())
    with pytest.raises(ValueError, match="The offset must be empty or a sequence of length 2"):
        vision.PadToSize(10, (1, 1, 1))
    with pytest.raises(TypeError, match=r"Argument fill_value\[0\] with value 100.0"):
        vision.PadToSize(10, fill_value=(100.0, 1, 1))


def test_random_resize_draws_one_of_four_interpolations():
    img = _img(13, 17)
    modes = (vision.Inter.LINEAR, vision.Inter.NEAREST, vision.Inter.CUBIC, vision.Inter.AREA)
    candidates = [vision.Resize((6, 9), m)(img) for m in modes]
    seen = set()
    for seed in range(40):
        out = _run(vision.RandomResize((6, 9)), [img], seed)
        k = [i for i, c in enumerate(candidates) if np.array_equal(out, c)]
        assert k
        seen.update(k)
    assert len(seen) >= 3
    assert vision.RandomResize(8)(img).shape == (8, 10, 3)  # the shorter side, as Resize


def test_convert_mode_values_and_decode_of_a_bytes_column():
    from PIL import Image
    import io
    assert vision.ConvertMode.COLOR_RGB2GRAY == 7 and vision.ConvertMode.COLOR_GRAY2RGB == 8
    assert vision.ConvertMode.COLOR_RGB2BGR is vision.ConvertMode.COLOR_BGR2RGB
    img = _img(6, 7)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "PNG")
    data = buf.getvalue()

    def gen():
        yield (np.array(data),)  # a bytes column
        yield (np.array([data]),)  # a 1-element bytes array

    for to_pil in (False, True):  # eagerly, a 0-d bytes array is its bytes
        np.testing.assert_array_equal(np.asarray(vision.Decode(to_pil)(np.array(data))), img)
        np.testing.assert_array_equal(np.asarray(vision.Decode(to_pil)(np.array([data]))), img)
    for to_pil in (False, True):  # in a pipeline (C++ and PIL decoders)
        d = ds.GeneratorDataset(gen, ["data"], shuffle=False)
        d = d.map(operations=[vision.Decode(to_pil=to_pil), vision.ToNumpy()],
                  input_columns=["data"])
        for row in d.create_tuple_iterator(output_numpy=True):
            np.testing.assert_array_equal(row[0], img)
