"""MindSpore's image primitives composed in ops/operations/image_compat_ops.py: ResizeArea
against a loop over TensorFlow's area rule (and torch's adaptive average pooling where the
sizes divide), the CropAndResize gradients against finite differences and torch autograd of a
bilinear crop written out, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel.ops.operations import image_ops
from ms_cell import Fn

RNG = np.random.default_rng(41)


def _t(a):
    return ms.Tensor(a)


def area_loop(img, h, w):
    n, hi, wi, c = img.shape
    sy, sx = hi / h, wi / w
    out = np.zeros((n, h, w, c))
    for i in range(h):
        for j in range(w):
            acc = np.zeros((n, c))
            for y in range(int(np.floor(i * sy)), int(np.ceil((i + 1) * sy))):
                wy = min(y + 1, (i + 1) * sy) - max(y, i * sy)
                for x in range(int(np.floor(j * sx)), int(np.ceil((j + 1) * sx))):
                    wx = min(x + 1, (j + 1) * sx) - max(x, j * sx)
                    acc += wy * wx * img[:, min(y, hi - 1), min(x, wi - 1)]
            out[:, i, j] = acc / (sy * sx)
    return out


def test_resize_area(mode):
    img = RNG.standard_normal((2, 6, 9, 3)).astype(np.float32)
    got = Fn(lambda v: image_ops.ResizeArea()(v, (4, 5)))(_t(img)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, area_loop(img.astype(np.float64), 4, 5), rtol=1e-5,
                               atol=1e-6)
    got = Fn(lambda v: image_ops.ResizeArea()(v, (3, 3)))(_t(img)).asnumpy()
    want = torch.nn.functional.adaptive_avg_pool2d(torch.tensor(img).permute(0, 3, 1, 2),
                                                   (3, 3)).permute(0, 2, 3, 1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    ints = RNG.integers(0, 9, (1, 4, 4, 1)).astype(np.int32)
    np.testing.assert_allclose(
        Fn(lambda v: image_ops.ResizeArea()(v, (2, 2)))(_t(ints)).asnumpy(),
        area_loop(ints.astype(np.float64), 2, 2), rtol=1e-6)
    with pytest.raises(ValueError, match="ResizeArea.*size"):
        Fn(lambda v: image_ops.ResizeArea()(v, (0, 2)))(_t(img))


def _crop(image, boxes, box_index, crop):
    """A bilinear CropAndResize written out in torch (TensorFlow's sampling rule)."""
    _, hh, ww, _ = image.shape
    ch, cw = crop
    outs = []
    for b in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[b]
        img = image[int(box_index[b])]
        rows = []
        for i in range(ch):
            y = y1 * (hh - 1) + i * (y2 - y1) * (hh - 1) / (ch - 1)
            cols = []
            for j in range(cw):
                x = x1 * (ww - 1) + j * (x2 - x1) * (ww - 1) / (cw - 1)
                if not (0 <= float(y) <= hh - 1 and 0 <= float(x) <= ww - 1):
                    cols.append(torch.zeros(image.shape[-1], dtype=image.dtype))
                    continue
                t, l = int(np.floor(float(y))), int(np.floor(float(x)))
                bo, r = int(np.ceil(float(y))), int(np.ceil(float(x)))
                dy, dx = y - t, x - l
                top = img[t, l] + (img[t, r] - img[t, l]) * dx
                bot = img[bo, l] + (img[bo, r] - img[bo, l]) * dx
                cols.append(top + (bot - top) * dy)
            rows.append(torch.stack(cols))
        outs.append(torch.stack(rows))
    return torch.stack(outs)


def test_crop_and_resize_grads_match_torch(mode):
    image = RNG.standard_normal((2, 6, 7, 3))
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.05, 0.1, 0.6, 0.7], [-0.1, 0.3, 0.9, 1.1]])
    box_index = np.array([0, 1, 1], np.int32)
    grads = RNG.standard_normal((3, 4, 5, 3))
    ti = torch.tensor(image, requires_grad=True)
    tb = torch.tensor(boxes, requires_grad=True)
    (_crop(ti, tb, box_index, (4, 5)) * torch.tensor(grads)).sum().backward()
    gi = Fn(lambda g, b, i: image_ops.CropAndResizeGradImage(ms.float64)(g, b, i, (2, 6, 7, 3)))(
        _t(grads.astype(np.float32)), _t(boxes.astype(np.float32)), _t(box_index))
    assert gi.dtype == ms.float64
    np.testing.assert_allclose(gi.asnumpy(), ti.grad.numpy(), rtol=1e-4, atol=1e-5)
    gb = Fn(image_ops.CropAndResizeGradBoxes())(
        _t(grads.astype(np.float32)), _t(image.astype(np.float32)),
        _t(boxes.astype(np.float32)), _t(box_index))
    assert gb.dtype == ms.float32
    np.testing.assert_allclose(gb.asnumpy(), tb.grad.numpy(), rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="CropAndResizeGradBoxes.*boxes"):
        Fn(image_ops.CropAndResizeGradBoxes())(_t(grads.astype(np.float32)),
                                               _t(image.astype(np.float32)),
                                               _t(boxes[:2].astype(np.float32)), _t(box_index))


@pytest.mark.parametrize("ctm,mode_,torch_mode,align", [
    ("asymmetric", "nearest", "nearest", None), ("half_pixel", "nearest", "nearest-exact", None),
    ("half_pixel", "linear", "bilinear", False), ("align_corners", "linear", "bilinear", True)])
def test_resize_v2_matches_torch(mode, ctm, mode_, torch_mode, align):
    x = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    sizes = ms.Tensor(np.array([2, 3, 7, 9], np.int64))
    zero = ms.Tensor(np.zeros(1, np.float32))
    got = Fn(lambda v: image_ops.ResizeV2(ctm, mode_)(v, zero, zero, sizes))(_t(x)).asnumpy()
    want = torch.nn.functional.interpolate(torch.tensor(x), (7, 9), mode=torch_mode,
                                           align_corners=align).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_resize_v2_errors():
    with pytest.raises(ValueError, match="ResizeV2.*cubic"):
        image_ops.ResizeV2(mode="cubic")
    x = _t(np.ones((1, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="ResizeV2.*sizes"):
        image_ops.ResizeV2()(x, x, x, (2, 1, 4, 4))


@pytest.mark.parametrize("kernel,pil", [("lanczos3", "LANCZOS"), ("keyscubic", "BICUBIC"),
                                        ("triangle", "BILINEAR")])
@pytest.mark.parametrize("out", [(5, 4), (13, 17)])
def test_scale_and_translate_matches_pil(mode, kernel, pil, out):
    """PIL's resampling filters are TensorFlow's kernels with the antialiasing stretch (float
    images, mode 'F', one channel at a time)."""
    from PIL import Image
    img = RNG.uniform(0, 1, (1, 9, 11, 2)).astype(np.float32)
    scale = (out[0] / 9, out[1] / 11)
    got = Fn(lambda v: image_ops.ScaleAndTranslate(kernel, True)(v, out, scale, (0.0, 0.0)))(
        _t(img)).asnumpy()
    want = np.stack([np.asarray(Image.fromarray(img[0, :, :, ch], "F").resize(
        (out[1], out[0]), getattr(Image, pil))) for ch in range(2)], -1)
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)


def test_scale_and_translate_identity_and_translation(mode):
    img = RNG.uniform(0, 1, (2, 6, 7, 3)).astype(np.float32)
    same = Fn(lambda v: image_ops.ScaleAndTranslate()(v, (6, 7), (1.0, 1.0), (0.0, 0.0)))(
        _t(img)).asnumpy()
    np.testing.assert_allclose(same, img, rtol=1e-5, atol=1e-6)
    # a whole-pixel shift with a scale of 1: output y samples input y - 2 (0 outside)
    shifted = Fn(lambda v: image_ops.ScaleAndTranslate("triangle", False)(
        v, (6, 7), (1.0, 1.0), (2.0, 0.0)))(_t(img)).asnumpy()
    np.testing.assert_allclose(shifted[:, 2:], img[:, :4], rtol=1e-5, atol=1e-6)
    # triangle without antialiasing upsampling is half-pixel bilinear (torch)
    up = Fn(lambda v: image_ops.ScaleAndTranslate("triangle", False)(
        v, (12, 21), (2.0, 3.0), (0.0, 0.0)))(_t(img)).asnumpy()
    want = torch.nn.functional.interpolate(torch.tensor(img).permute(0, 3, 1, 2), (12, 21),
                                           mode="bilinear", align_corners=False)
    np.testing.assert_allclose(up, want.permute(0, 2, 3, 1).numpy(), rtol=1e-5, atol=1e-6)
    # box halving a side averages pairs (PIL's box differs at the ties, |x| = 0.5)
    even = RNG.uniform(0, 1, (1, 8, 10, 1)).astype(np.float32)
    half = Fn(lambda v: image_ops.ScaleAndTranslate("box", True)(v, (4, 5), (0.5, 0.5),
                                                                 (0.0, 0.0)))(_t(even))
    np.testing.assert_allclose(half.asnumpy(), even.reshape(1, 4, 2, 5, 2, 1).mean((2, 4)),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="ScaleAndTranslate.*kernel_type"):
        image_ops.ScaleAndTranslate("nearest")
