"""grid_sample / GridSampler2D against torch (every mode, padding mode and alignment; values
and gradients to input and grid) and lu_unpack / LuUnpack / lu_solve against torch and
numpy (batched, rectangular), in PYNATIVE and GRAPH mode (the `mode` fixture)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(47)


@pytest.mark.parametrize("interp", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_matches_torch(mode, interp, padding, align):
    x = RNG.standard_normal((2, 3, 5, 6))
    g = RNG.uniform(-1.4, 1.4, (2, 4, 3, 2))
    want = F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), interp, padding, align)
    got = run(lambda a, b: ops.grid_sample(a, b, interp, padding, align), x, g)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)
    got = run(ops.GridSampler2D(interp, padding, align), x.astype(np.float32),
              g.astype(np.float32))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


def test_grid_sample_gradients_match_torch():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.standard_normal((1, 2, 4, 5))
    g = RNG.uniform(-0.9, 0.9, (1, 3, 3, 2))  # away from pixel boundaries' kinks
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    out = F.grid_sample(tx, tg, "bilinear", "zeros", False)
    w = RNG.standard_normal(tuple(out.shape))
    (out * torch.tensor(w)).sum().backward()
    gx, gg = ms.grad(lambda a, b: (ops.grid_sample(a, b) * ms.Tensor(w)).sum(),
                     grad_position=(0, 1))(ms.Tensor(x), ms.Tensor(g))
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gg.asnumpy(), tg.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (5, 3), (2, 3, 4)])
def test_lu_unpack_matches_torch(mode, shape):
    a = torch.from_numpy(RNG.standard_normal(shape))
    lu, piv = torch.linalg.lu_factor(a)
    tp, tl, tu = torch.lu_unpack(lu, piv)
    p, low, up = run(ops.lu_unpack, lu.numpy(), piv.numpy().astype(np.int32))
    np.testing.assert_array_equal(p, tp.numpy())
    np.testing.assert_array_equal(low, tl.numpy())
    np.testing.assert_array_equal(up, tu.numpy())
    p2, _, _ = run(ops.LuUnpack(), lu.numpy(), piv.numpy())
    np.testing.assert_array_equal(p2, tp.numpy())


def test_lu_solve_matches_numpy(mode):
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((2, 4, 3))
    lu, piv = torch.linalg.lu_factor(torch.from_numpy(a))
    got = run(ops.lu_solve, b, lu.numpy(), piv.numpy().astype(np.int32))
    np.testing.assert_allclose(got, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(RNG.standard_normal((1, 2, 3, 3)))
    with pytest.raises(ValueError, match="grid_sample"):
        ops.grid_sample(x, ms.Tensor(RNG.standard_normal((1, 2, 2, 3))))
    with pytest.raises(ValueError, match="grid_sample"):
        ops.grid_sample(x, ms.Tensor(RNG.standard_normal((1, 2, 2, 2))), "bicubic")
    with pytest.raises(TypeError, match="lu_unpack"):
        ops.lu_unpack(ms.Tensor(np.eye(3)), ms.Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="lu_unpack"):
        ops.lu_unpack(ms.Tensor(np.eye(3)), ms.Tensor(np.ones(2, np.int32)))


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4), (6, 2)])
def test_orgqr_ormqr_match_torch(mode, shape):
    a, tau = torch.geqrf(torch.from_numpy(RNG.standard_normal(shape)))
    np.testing.assert_allclose(run(ops.orgqr, a.numpy(), tau.numpy()),
                               torch.linalg.householder_product(a, tau).numpy(), atol=1e-12)
    np.testing.assert_allclose(run(ops.Orgqr(), a.numpy(), tau.numpy()),
                               torch.linalg.householder_product(a, tau).numpy(), atol=1e-12)
    m = shape[-2]
    for left in (True, False):
        for tr in (False, True):
            c = torch.from_numpy(RNG.standard_normal(shape[:-2] + ((m, 3) if left else (3, m))))
            want = torch.ormqr(a, tau, c, left, tr).numpy()
            got = run(ops.Ormqr(left, tr), a.numpy(), tau.numpy(), c.numpy())
            np.testing.assert_allclose(got, want, atol=1e-12)
    with pytest.raises(ValueError, match="ormqr"):
        ops.ormqr(ms.Tensor(a.numpy()), ms.Tensor(tau.numpy()),
                  ms.Tensor(np.ones(shape[:-2] + (m + 1, 2))))


def _roi_align_ref(f, rois, ph, pw, scale, s, mode):
    """MindSpore's CPU ROIAlign, point by point (Caffe2's bilinear rule)."""
    _, c_, h, w = f.shape
    out = np.zeros((len(rois), c_, ph, pw))

    def bil(img, y, x):
        if y < -1 or y > h or x < -1 or x > w:
            return 0.0
        y, x = max(y, 0.0), max(x, 0.0)
        yl, xl = int(np.floor(y)), int(np.floor(x))
        if yl >= h - 1:
            yh = yl = h - 1
            y = yl
        else:
            yh = yl + 1
        if xl >= w - 1:
            xh = xl = w - 1
            x = xl
        else:
            xh = xl + 1
        ly, lx = y - yl, x - xl
        return ((1 - ly) * (1 - lx) * img[yl, xl] + (1 - ly) * lx * img[yl, xh] +
                ly * (1 - lx) * img[yh, xl] + ly * lx * img[yh, xh])
    for r, roi in enumerate(rois):
        b = int(round(roi[0]))
        sw, sh = roi[1] * scale, roi[2] * scale
        rw, rh = (roi[3] + mode) * scale - sw, (roi[4] + mode) * scale - sh
        if mode == 0:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        for c in range(c_):
            for i in range(ph):
                for j in range(pw):
                    acc = sum(bil(f[b, c], sh + i * bh + (iy + .5) * bh / s,
                                  sw + j * bw + (ix + .5) * bw / s)
                              for iy in range(s) for ix in range(s))
                    out[r, c, i, j] = acc / (s * s)
    return out


@pytest.mark.parametrize("roi_end_mode", [0, 1])
@pytest.mark.parametrize("sample_num", [1, 2, 3])
def test_roi_align_matches_reference(mode, roi_end_mode, sample_num):
    f = RNG.standard_normal((2, 3, 9, 11))
    rois = np.array([[0, 1.0, 2.0, 7.5, 6.0], [1, -2.0, 0.5, 12.0, 9.5],
                     [0, 3.3, 3.3, 3.9, 4.1], [1, 0, 0, 20, 20]])
    got = run(ops.ROIAlign(3, 4, 0.7, sample_num, roi_end_mode), f, rois)
    np.testing.assert_allclose(got, _roi_align_ref(f, rois, 3, 4, 0.7, sample_num,
                                                   roi_end_mode), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="ROIAlign"):
        ops.ROIAlign(2, 2, 1.0, 0)(ms.Tensor(f), ms.Tensor(rois))


@pytest.mark.parametrize("interp", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_3d_matches_torch(mode, interp, padding):
    x = RNG.standard_normal((2, 3, 4, 5, 6))
    g = RNG.uniform(-1.3, 1.3, (2, 3, 2, 4, 3))
    for align in (False, True):
        want = F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), interp, padding, align)
        got = run(ops.GridSampler3D(interp, padding, align), x, g)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)
