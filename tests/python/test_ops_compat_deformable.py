"""nn_ops.DeformableOffsets and _grad_ops.DeformableOffsetsGrad (composed,
ops/function/deformable_func.py) against a loop over output pixels and kernel points written
here from the definition (bilinear samples of the offset positions times the masks), with
groups, strides, padding and dilation; the gradient against finite differences; NHWC; both
modes; errors."""
import math

import numpy as np
import pytest

import mycel as ms
from mycel.ops.operations import _grad_ops as G
from mycel.ops.operations import nn_ops
from ms_cell import Fn

RNG = np.random.default_rng(29)
KS, ST, PD, DL, GR = (2, 3), (1, 1, 2, 1), (1, 0, 0, 1), (1, 1, 1, 2), 2


def _bilinear(img, x, y):
    h, w = img.shape
    if y <= -1 or y >= h or x <= -1 or x >= w:
        return 0.0
    left, top = math.floor(x), math.floor(y)
    lw, tw = x - left, y - top
    total = 0.0
    for r, c, wt in ((top, left, (1 - lw) * (1 - tw)), (top, left + 1, lw * (1 - tw)),
                     (top + 1, left, (1 - lw) * tw), (top + 1, left + 1, lw * tw)):
        if 0 <= r < h and 0 <= c < w:
            total += wt * img[r, c]
    return total


def _loop(x, off):
    n, c, _, _ = x.shape
    kh, kw = KS
    oh, ow = off.shape[2:]
    o = off.reshape(n, 3, GR, kh, kw, oh, ow)
    out = np.zeros((n, c, oh * kh, ow * kw))
    for b in range(n):
        for ch in range(c):
            g = ch // (c // GR)
            for p in range(oh):
                for q in range(ow):
                    for i in range(kh):
                        for j in range(kw):
                            px = q * ST[3] + j * DL[3] - PD[2] + o[b, 0, g, i, j, p, q]
                            py = p * ST[2] + i * DL[2] - PD[0] + o[b, 1, g, i, j, p, q]
                            out[b, ch, p * kh + i, q * kw + j] = (
                                _bilinear(x[b, ch], px, py) * o[b, 2, g, i, j, p, q])
    return out


def _inputs():
    x = RNG.standard_normal((2, 4, 5, 6))
    off = RNG.uniform(-1.3, 1.3, (2, 3 * GR * KS[0] * KS[1], 3, 4))
    return x, off


def test_deformable_offsets_matches_loop(mode):
    x, off = _inputs()
    op = nn_ops.DeformableOffsets(ST, PD, KS, DL, deformable_groups=GR)
    got = Fn(op)(ms.Tensor(x.astype(np.float32)), ms.Tensor(off.astype(np.float32)))
    np.testing.assert_allclose(got.asnumpy(), _loop(x, off), rtol=1e-4, atol=1e-5)
    nhwc = nn_ops.DeformableOffsets((1, 2, 1, 1), PD, KS, (1, 1, 2, 1), data_format="NHWC",
                                    deformable_groups=GR)
    got = Fn(nhwc)(ms.Tensor(x.transpose(0, 2, 3, 1).astype(np.float32)),
                   ms.Tensor(off.transpose(0, 2, 3, 1).astype(np.float32)))
    np.testing.assert_allclose(got.asnumpy().transpose(0, 3, 1, 2), _loop(x, off), rtol=1e-4,
                               atol=1e-5)


def test_deformable_offsets_grad_matches_finite_differences(mode):
    x, off = _inputs()
    x, off = x[:1, :2], off[:1]
    dout = RNG.standard_normal((1, 2, 3 * KS[0], 4 * KS[1]))
    op = G.DeformableOffsetsGrad(ST, PD, KS, DL, deformable_groups=GR)
    dx, doff = Fn(op)(ms.Tensor(dout.astype(np.float32)), ms.Tensor(x.astype(np.float32)),
                      ms.Tensor(off.astype(np.float32)))
    eps = 1e-6
    for arr, got in ((x, dx.asnumpy()), (off, doff.asnumpy())):
        want = np.zeros_like(arr)
        for idx in np.ndindex(*arr.shape):
            d = np.zeros_like(arr)
            d[idx] = eps
            a, b = (x + d, off) if arr is x else (x, off + d)
            a2, b2 = (x - d, off) if arr is x else (x, off - d)
            want[idx] = ((_loop(a, b) * dout).sum() - (_loop(a2, b2) * dout).sum()) / (2 * eps)
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_deformable_offsets_errors():
    with pytest.raises(ValueError, match="DeformableOffsets"):
        nn_ops.DeformableOffsets((2, 1, 1, 1), PD, KS)
    with pytest.raises(ValueError, match="DeformableOffsets"):
        nn_ops.DeformableOffsets(ST, PD, KS, modulated=False)
    op = nn_ops.DeformableOffsets(ST, PD, KS)
    with pytest.raises(ValueError, match="DeformableOffsets"):
        op(ms.Tensor(np.zeros((1, 2, 4, 4), np.float32)),
           ms.Tensor(np.zeros((1, 17, 2, 2), np.float32)))


def test_deformable_conv2d_is_offsets_then_a_strided_conv(mode):
    x, off = _inputs()  # x [2, 4, 5, 6]: two groups of two input channels
    w = RNG.standard_normal((4, 2, KS[0], KS[1]))
    bias = RNG.standard_normal(4)

    def f(a, b, c, d):
        return ms.ops.deformable_conv2d(a, b, c, KS, ST, PD, d, DL, groups=2,
                                        deformable_groups=GR)
    got = Fn(f)(*[ms.Tensor(v.astype(np.float32)) for v in (x, w, off, bias)]).asnumpy()
    n, oh, ow = x.shape[0], off.shape[2], off.shape[3]
    cols = _loop(x, off).reshape(n, 2, 2, oh, KS[0], ow, KS[1])  # [N, group, C/g, ...]
    want = np.zeros((n, 4, oh, ow))
    for o in range(4):
        want[:, o] = np.einsum("ncpiqj,cij->npq", cols[:, o // 2], w[o]) + bias[o]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
