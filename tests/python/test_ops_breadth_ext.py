"""col2im, swiglu, rms_norm, matrix_exp (scipy), the pooling and
resizing primitives, the random choices, the loop primitives, IndexPut and
HistogramFixedWidth; PYNATIVE and GRAPH mode where the function compiles (the `mode`
fixture)."""
import numpy as np
import pytest
import scipy.linalg
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(41)


def _f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def test_col2im_swiglu_rms_norm(mode):
    cols = _f(2, 3, 4, 20, dtype=np.float64)
    want = F.fold(torch.from_numpy(cols.reshape(2, 12, 20)), (5, 6), 2).numpy()
    np.testing.assert_allclose(run(lambda c: ops.col2im(c, (5, 6), 2, 1, 0, 1), cols), want,
                               rtol=1e-12)
    # output_size fixes the result's shape: a tensor only where its value is known (PYNATIVE)
    size = np.array([5, 6], np.int32) if mode == ms.PYNATIVE_MODE else (5, 6)
    np.testing.assert_allclose(run(lambda c, s: ops.Col2Im(2)(c, s), cols, size), want,
                               rtol=1e-12)
    x = _f(3, 8, dtype=np.float64)
    a, b = x[:, :4], x[:, 4:]
    np.testing.assert_allclose(run(ops.swiglu, x), a / (1 + np.exp(-a)) * b, rtol=1e-12)
    g = _f(8, dtype=np.float64)
    y, rstd = run(lambda t, k: ops.rms_norm(t, k, 1e-5), x, g)
    want_r = 1 / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(rstd, want_r, rtol=1e-12)
    np.testing.assert_allclose(y, x * want_r * g, rtol=1e-12)


def test_matrix_exp_matches_scipy():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for scale in (0.1, 1.0, 6.0):
        a = _f(2, 4, 4, dtype=np.float64) * scale
        got = ops.matrix_exp(ms.Tensor(a)).asnumpy()
        want = np.stack([scipy.linalg.expm(m) for m in a])
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


def test_pooling_primitives(mode):
    x = _f(2, 3, 7, 6, dtype=np.float64)
    np.testing.assert_allclose(run(ops.AdaptiveAvgPool2D((3, 4)), x),
                               F.adaptive_avg_pool2d(torch.from_numpy(x), (3, 4)).numpy(),
                               rtol=1e-12)
    v = _f(1, 2, 6, 5, 4, dtype=np.float64)
    np.testing.assert_allclose(run(ops.AdaptiveAvgPool3D(2), v),
                               F.adaptive_avg_pool3d(torch.from_numpy(v), 2).numpy(), rtol=1e-12)
    np.testing.assert_allclose(run(ops.MaxPool3D(2, 2), v),
                               F.max_pool3d(torch.from_numpy(v), 2, 2).numpy())
    t, idx = F.max_pool2d(torch.from_numpy(x), 2, 2, return_indices=True)
    np.testing.assert_allclose(run(ops.MaxUnpool2D(2, 2), t.numpy(), idx.numpy()),
                               F.max_unpool2d(t, idx, 2, 2).numpy())
    theta = _f(2, 2, 3)
    np.testing.assert_allclose(run(lambda th: ops.AffineGrid(True)(th, (2, 1, 3, 4)), theta),
                               F.affine_grid(torch.from_numpy(theta), (2, 1, 3, 4), True).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_resize_bilinear_v2(mode):
    x = _f(1, 2, 4, 5, dtype=np.float64)
    got = run(lambda a: ops.ResizeBilinearV2(True)(a, (7, 3)), x)
    want = F.interpolate(torch.from_numpy(x), (7, 3), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
    got = run(lambda a: ops.ResizeBilinearV2(False, True)(a, (7, 3)), x)
    want = F.interpolate(torch.from_numpy(x), (7, 3), mode="bilinear", align_corners=False)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
    got = run(lambda a: ops.ResizeBilinearV2()(a, (8, 10)), x)  # legacy: j * in / out
    for i in range(8):
        for j in range(10):
            p, q = i * 4 / 8, j * 5 / 10
            i0, j0 = int(p), int(q)
            i1, j1 = min(i0 + 1, 3), min(j0 + 1, 4)
            fp, fq = p - i0, q - j0
            ref = ((1 - fp) * (1 - fq) * x[..., i0, j0] + (1 - fp) * fq * x[..., i0, j1] +
                   fp * (1 - fq) * x[..., i1, j0] + fp * fq * x[..., i1, j1])
            np.testing.assert_allclose(got[..., i, j], ref, rtol=1e-12)


def test_diagonal_scatter_and_index_put():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x, src = _f(3, 4), _f(3)
    np.testing.assert_array_equal(
        ops.diagonal_scatter(ms.Tensor(x), ms.Tensor(src)).asnumpy(),
        torch.diagonal_scatter(torch.from_numpy(x), torch.from_numpy(src)).numpy())
    rows, cols = np.array([0, 2, 0], np.int64), np.array([1, 3, 1], np.int64)
    v = np.array([1.0, 2.0, 3.0], np.float32)
    for acc in (0, 1):
        got = ops.IndexPut(acc)(ms.Tensor(x), ms.Tensor(v), (ms.Tensor(rows), ms.Tensor(cols)))
        want = torch.from_numpy(x.copy()).index_put((torch.from_numpy(rows),
                                                     torch.from_numpy(cols)),
                                                    torch.from_numpy(v), bool(acc))
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-6)


def test_histogram_unique_consecutive_and_loops():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.uniform(-1, 6, 200)
    got = ops.HistogramFixedWidth(5)(ms.Tensor(x), ms.Tensor(np.array([0.0, 5.0]))).asnumpy()
    want = np.histogram(np.clip(x, 0, 5 - 1e-9), 5, (0, 5))[0]
    np.testing.assert_array_equal(got, want)
    out, idx, cnt = ops.UniqueConsecutive(True, True)(ms.Tensor(np.array([1, 1, 3, 3, 1])))
    np.testing.assert_array_equal(out.asnumpy(), [1, 3, 1])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(cnt.asnumpy(), [2, 2, 1])
    add = ops.Partial()(ops.add, ms.Tensor(np.float32(2)))
    assert float(add(ms.Tensor(np.float32(3))).asnumpy()) == 5.0
    assert float(ops.partial(ops.mul, 3.0)(ms.Tensor(np.float32(2))).asnumpy()) == 6.0
    total = ops.ForiLoop()(0, 5, lambda i, v: v + i, ms.Tensor(np.float32(0)))
    assert float(total.asnumpy()) == 10.0
    v = ops.WhileLoop()(lambda t: t < 100, lambda t: t * 3, ms.Tensor(np.int32(1)))
    assert int(v.asnumpy()) == 243
    carry, ys = ops.Scan()(lambda c, e: (c + e, c * e), ms.Tensor(np.float32(1)),
                           ms.Tensor(np.arange(4, dtype=np.float32)))
    assert float(carry.asnumpy()) == 7.0
    np.testing.assert_array_equal(ys.asnumpy(), [0.0, 1.0, 4.0, 12.0])


def test_random_choices():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    m = np.zeros((4, 5), bool)
    m[[0, 1, 3, 3], [2, 0, 4, 1]] = True
    idx, mask = ops.choice_with_mask(ms.Tensor(m), 6)
    idx, mask = idx.asnumpy(), mask.asnumpy()
    assert idx.shape == (6, 2) and mask.tolist() == [True] * 4 + [False] * 2
    assert sorted(map(tuple, idx[:4].tolist())) == [(0, 2), (1, 0), (3, 1), (3, 4)]
    assert (idx[4:] == 0).all()
    idx2, mask2 = ops.RandomChoiceWithMask(3)(ms.Tensor(m))
    assert mask2.asnumpy().all() and all(m[tuple(r)] for r in idx2.asnumpy())
    p = ops.RandpermV2(seed=1)(ms.Tensor(np.int64(9))).asnumpy()
    assert sorted(p.tolist()) == list(range(9))
    w = ms.Tensor(np.array([[0.0, 1.0, 3.0]], np.float32))
    s = ops.MultinomialWithReplacement(4000, True)(w, -1, 0).asnumpy()
    np.testing.assert_allclose(np.bincount(s[0], minlength=3) / 4000, [0, 0.25, 0.75],
                               atol=0.03)


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="matrix_exp"):
        ops.matrix_exp(ms.Tensor(_f(2, 3)))
    with pytest.raises(TypeError, match="choice_with_mask"):
        ops.choice_with_mask(ms.Tensor(_f(3)))
    with pytest.raises(ValueError, match="HistogramFixedWidth"):
        ops.HistogramFixedWidth(0)
    with pytest.raises(ValueError, match="ResizeBilinearV2"):
        ops.ResizeBilinearV2(True, True)


def test_optimizer_steps_against_numpy():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    var0, m0, g = _f(3, 4, dtype=np.float64), _f(3, 4, dtype=np.float64), _f(3, 4,
                                                                               dtype=np.float64)
    var, m = ms.Parameter(ms.Tensor(var0), name="v"), ms.Parameter(ms.Tensor(m0), name="m")
    ops.ApplyAddSign()(var, m, 0.1, 1.0, 0.5, 0.9, ms.Tensor(g))
    m_want = 0.9 * m0 + 0.1 * g
    np.testing.assert_allclose(m.asnumpy(), m_want, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), var0 - 0.1 * (1.0 + 0.5 * np.sign(g) *
                                                            np.sign(m_want)) * g, rtol=1e-12)
    v0, vh0 = np.abs(_f(3, 4, dtype=np.float64)), np.abs(_f(3, 4, dtype=np.float64))
    ps = [ms.Parameter(ms.Tensor(a), name=n) for a, n in ((var0, "a"), (m0, "b"), (v0, "c"),
                                                          (vh0, "d"))]
    ops.ApplyAdamWithAmsgradV2()(*ps, 0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-8,
                                 ms.Tensor(g))
    m1 = 0.9 * m0 + 0.1 * g
    v1 = 0.999 * v0 + 0.001 * g * g
    vh1 = np.maximum(vh0, v1)
    lr_t = 0.01 * np.sqrt(1 - 0.999 ** 3) / (1 - 0.9 ** 3)
    np.testing.assert_allclose(ps[0].asnumpy(), var0 - lr_t * m1 / (np.sqrt(vh1) + 1e-8),
                               rtol=1e-12)
    np.testing.assert_allclose(ps[3].asnumpy(), vh1, rtol=1e-12)
    w0, acc0 = _f(4, 2), np.abs(_f(4, 2)) + 0.1
    w, acc = ms.Parameter(ms.Tensor(w0), name="w"), ms.Parameter(ms.Tensor(acc0), name="acc")
    gr, idx = _f(2, 2), np.array([3, 1], np.int32)
    ops.SparseApplyProximalAdagrad()(w, acc, 0.5, 0.0, 0.0, ms.Tensor(gr), ms.Tensor(idx))
    acc_want = acc0.copy()
    acc_want[idx] += gr ** 2
    w_want = w0.copy()
    w_want[idx] -= gr * 0.5 / np.sqrt(acc_want[idx])
    np.testing.assert_allclose(acc.asnumpy(), acc_want, rtol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), w_want, rtol=1e-5)


def test_upsample_3d_matches_torch(mode):
    x = _f(1, 2, 3, 4, 5, dtype=np.float64)
    tx = torch.from_numpy(x)
    for ac in (False, True):
        np.testing.assert_allclose(run(lambda a: ops.UpsampleTrilinear3D(ac)(a, (5, 7, 4)), x),
                                   F.interpolate(tx, (5, 7, 4), mode="trilinear",
                                                 align_corners=ac).numpy(), atol=1e-12)
    np.testing.assert_allclose(
        run(lambda a: ops.UpsampleTrilinear3D()(a, None, (2.0, 1.5, 0.6)), x),
        F.interpolate(tx, scale_factor=(2.0, 1.5, 0.6), mode="trilinear").numpy(), atol=1e-12)
    np.testing.assert_array_equal(run(lambda a: ops.UpsampleNearest3D()(a, (5, 7, 4)), x),
                                  F.interpolate(tx, (5, 7, 4), mode="nearest").numpy())
    with pytest.raises(ValueError, match="UpsampleNearest3D"):
        ops.UpsampleNearest3D()(ms.Tensor(x), (2, 2, 2), (1.0, 1.0, 1.0))


def test_max_pool3d_with_argmax_float_status_rope_and_dump(mode, tmp_path):
    x = _f(1, 2, 5, 6, 7, dtype=np.float64)
    out, arg = run(ops.MaxPool3DWithArgmax(2, 2, 0), x)
    to, ta = F.max_pool3d(torch.from_numpy(x), 2, 2, return_indices=True)
    np.testing.assert_array_equal(out, to.numpy())
    np.testing.assert_array_equal(arg, ta.numpy())
    assert run(ops.FloatStatus(), np.array([1.0, np.inf], np.float32)).tolist() == [1.0]
    assert run(ops.FloatStatus(), np.array([1.0, 2.0], np.float32)).tolist() == [0.0]
    q = _f(2, 3, 8, dtype=np.float64)
    cos, sin = np.cos(_f(3, 8, dtype=np.float64)), np.sin(_f(3, 8, dtype=np.float64))
    half = np.concatenate([-q[..., 4:], q[..., :4]], -1)
    np.testing.assert_allclose(run(ops.rotary_position_embedding, q, cos, sin),
                               q * cos + half * sin, rtol=1e-12)
    pairs = q.reshape(2, 3, 4, 2)
    inter = np.stack([-pairs[..., 1], pairs[..., 0]], -1).reshape(q.shape)
    np.testing.assert_allclose(run(lambda a, c, s: ops.rotary_position_embedding(a, c, s, 1),
                                   q, cos, sin), q * cos + inter * sin, rtol=1e-12)
    if mode == ms.PYNATIVE_MODE:  # a file write: a Python side effect
        ops.tensordump(str(tmp_path / "t"), ms.Tensor(q))
        np.testing.assert_array_equal(np.load(tmp_path / "t.npy"), q)
        ops.TensorDump()(str(tmp_path / "u.npy"), ms.Tensor(q[0]))
        np.testing.assert_array_equal(np.load(tmp_path / "u.npy"), q[0])


def test_sparse_apply_ftrl_v2_against_numpy():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    var0, acc0, lin0 = _f(4, 3), np.abs(_f(4, 3)) + 0.5, _f(4, 3)
    grad = _f(3, 3)
    idx = np.array([2, 0, 2], np.int32)  # row 2 twice: summed
    ps = [ms.Parameter(ms.Tensor(a), name=n) for a, n in ((var0, "v"), (acc0, "a"),
                                                          (lin0, "l"))]
    lr, l1, l2, shr, pw = 0.1, 0.05, 0.2, 0.3, -0.5
    ops.SparseApplyFtrlV2(lr, l1, l2, shr, pw)(*ps, ms.Tensor(grad), ms.Tensor(idx))
    g = np.zeros_like(var0)
    np.add.at(g, idx, grad)
    rows = np.zeros(4, bool)
    rows[idx] = True
    gs = g + 2 * shr * var0
    acc1 = acc0 + g * g
    lin1 = lin0 + gs - (acc1 ** 0.5 - acc0 ** 0.5) / lr * var0
    var1 = np.where(np.abs(lin1) > l1, (np.sign(lin1) * l1 - lin1) / (acc1 ** 0.5 / lr + 2 * l2),
                    0.0)
    for p, new, old in ((ps[0], var1, var0), (ps[1], acc1, acc0), (ps[2], lin1, lin0)):
        np.testing.assert_allclose(p.asnumpy(), np.where(rows[:, None], new, old), rtol=1e-5,
                                   atol=1e-6)


def test_compute_accidental_hits():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    true = np.array([[1, 2], [0, 4], [3, 3]], np.int64)
    sampled = np.array([4, 3, 2, 1, 3], np.int64)
    idx, ids, w = ops.ComputeAccidentalHits(2)(ms.Tensor(true), ms.Tensor(sampled))
    want = [(b, s) for b in range(3) for s in range(5) if sampled[s] in true[b]]
    assert list(zip(idx.asnumpy().tolist(), ids.asnumpy().tolist())) == want
    assert (w.asnumpy() == -np.finfo(np.float32).max).all() and w.asnumpy().dtype == np.float32
    with pytest.raises(ValueError, match="ComputeAccidentalHits"):
        ops.ComputeAccidentalHits(3)(ms.Tensor(true), ms.Tensor(sampled))
