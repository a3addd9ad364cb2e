"""ops.median, ops.nanmedian, ops.unfold / P.Im2Col, P.Polar, P.Cholesky, P.Geqrf,
ops.crop_and_resize, P.CTCLoss, P.NoRepeatNGram and P.LogUniformCandidateSampler /
ops.log_uniform_candidate_sampler (ops/function/candidate_sampler_func.py,
ops/operations/composed_random_ops.py) against numpy, torch or analytic values, in PYNATIVE and
GRAPH mode; gradients against torch; errors."""
import math

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from mycel.ops import operations as P
from ms_cell import Fn, run

RNG = np.random.default_rng(27)


# ------------------------------------------------------------------ median / nanmedian
@pytest.mark.parametrize("axis,keepdims", [(-1, False), (0, True), (1, False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int16])
def test_median_matches_torch(mode, axis, keepdims, dtype):
    x = RNG.permutation(4 * 7 * 5).reshape(4, 7, 5).astype(dtype)  # distinct values
    v, i = run(lambda a: ops.median(a, axis, keepdims), x)
    tv, ti = torch.median(torch.tensor(x.astype(np.float64)), axis, keepdims)
    np.testing.assert_array_equal(v, tv.numpy().astype(dtype))
    np.testing.assert_array_equal(i, ti.numpy())
    assert v.dtype == dtype and i.dtype == np.int64


def test_median_even_count_is_the_lower_middle_and_index_points_at_it(mode):
    x = np.array([[4.0, 1.0, 3.0, 2.0], [2.0, 2.0, 9.0, 2.0]], np.float32)
    v, i = run(lambda a: ops.median(a), x)
    np.testing.assert_array_equal(v, [2.0, 2.0])
    np.testing.assert_array_equal(np.take_along_axis(x, i[:, None], 1)[:, 0], v)
    assert i[0] == 3


def test_median_nan_and_nanmedian(mode):
    nan = float("nan")
    x = np.array([[nan, nan, -256.9], [nan, 128.1, 128.0]], np.float32)
    v, i = run(lambda a: ops.nanmedian(a, 0, True), x)
    np.testing.assert_allclose(v, [[nan, 128.1, -256.9]], equal_nan=True)
    np.testing.assert_array_equal(i, [[0, 1, 0]])
    y = RNG.standard_normal((6, 9))
    y[RNG.random((6, 9)) < 0.3] = nan
    v, i = run(lambda a: ops.nanmedian(a, 1), y)
    tv, ti = torch.nanmedian(torch.tensor(y), 1)
    np.testing.assert_allclose(v, tv.numpy(), equal_nan=True)
    ok = ~np.isnan(v)
    np.testing.assert_array_equal(y[np.arange(6), i][ok], v[ok])
    v, _ = run(lambda a: ops.median(a, 1), y)
    tv, _ = torch.median(torch.tensor(y), 1)
    np.testing.assert_allclose(v, tv.numpy(), equal_nan=True)


def test_median_gradient_goes_to_the_median_element(mode):
    x = RNG.standard_normal((3, 5))
    sens = RNG.standard_normal(3)
    got = ms.grad(lambda a: (ops.median(a, 1)[0] * ms.Tensor(sens)).sum())(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    (torch.median(tx, 1)[0] * torch.tensor(sens)).sum().backward()
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy())


def test_median_errors():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="'median'.*axis"):
        ops.median(x, 2)
    with pytest.raises(ValueError, match="'nanmedian'.*empty axis"):
        ops.nanmedian(ms.Tensor(np.zeros((0, 2), np.float32)), 0)
    with pytest.raises(TypeError, match="median"):
        ops.median(x, 0.5)
    with pytest.raises(TypeError, match="keepdims"):
        ops.nanmedian(x, 0, 1)
    with pytest.raises(TypeError, match="median"):
        ops.median(ms.Tensor(np.ones(3, np.bool_)))


# ------------------------------------------------------------------ unfold / Im2Col
@pytest.mark.parametrize("k,d,p,s", [(2, 1, 0, 1), ((2, 3), (1, 2), (1, 0), (2, 1)),
                                     (3, 2, 2, 3)])
def test_unfold_and_im2col_match_torch(mode, k, d, p, s):
    x = RNG.standard_normal((2, 3, 9, 8))
    want = torch.nn.functional.unfold(torch.tensor(x), k, d, p, s).numpy()
    got = run(lambda a: ops.unfold(a, k, d, p, s), x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got4 = run(P.Im2Col(k, s, d, p), x)
    np.testing.assert_allclose(got4, want.reshape(2, 3, -1, want.shape[-1]), rtol=1e-12)


def test_unfold_gradient_matches_torch(mode):
    x = RNG.standard_normal((1, 2, 6, 7))
    sens = RNG.standard_normal((1, 2 * 6, 16))
    got = ms.grad(lambda a: (ops.unfold(a, (2, 3), 1, 1, 2) * ms.Tensor(sens)).sum())(
        ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    (torch.nn.functional.unfold(tx, (2, 3), 1, 1, 2) * torch.tensor(sens)).sum().backward()
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy(), rtol=1e-12)


def test_unfold_errors():
    x = ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
    with pytest.raises(ValueError, match="'unfold'.*4-D"):
        ops.unfold(ms.Tensor(np.ones((3, 3), np.float32)), 2)
    with pytest.raises(ValueError, match="'Im2Col'.*does not fit"):
        P.Im2Col(4)(x)
    with pytest.raises(TypeError, match="'Im2Col'.*ksizes"):
        P.Im2Col((1, 2, 3))
    with pytest.raises(ValueError, match="'unfold'"):
        ops.unfold(x, 0)


# ------------------------------------------------------------------ Polar, Cholesky, Geqrf
@pytest.mark.parametrize("dtype,cdtype", [(np.float32, np.complex64), (np.float64, np.complex128)])
def test_polar(mode, dtype, cdtype):
    r, t = RNG.random((3, 4)).astype(dtype), RNG.standard_normal((3, 4)).astype(dtype)
    got = run(P.Polar(), r, t)
    assert got.dtype == cdtype
    np.testing.assert_allclose(got, r * np.exp(1j * t), rtol=1e-6)
    with pytest.raises(TypeError, match="Polar"):
        P.Polar()(ms.Tensor(r.astype(np.int32)), ms.Tensor(t))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_primitive(mode, upper):
    a = RNG.standard_normal((2, 4, 4))
    spd = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    got = run(P.Cholesky(upper), spd)
    low = np.linalg.cholesky(spd)
    np.testing.assert_allclose(got, low.transpose(0, 2, 1) if upper else low, rtol=1e-10)
    with pytest.raises(TypeError, match="Cholesky"):
        P.Cholesky(upper=1)


def test_geqrf_primitive(mode):
    a = RNG.standard_normal((5, 3))
    y, tau = run(P.Geqrf(), a)
    ty, ttau = torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(y, ty.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tau, ttau.numpy(), rtol=1e-10, atol=1e-12)


def test_crop_and_resize_function_matches_the_primitive(mode):
    img = RNG.standard_normal((2, 6, 7, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.0, -0.2, 1.3]], np.float32)
    idx = np.array([1, 0], np.int32)
    got = run(lambda a, b, c: ops.crop_and_resize(a, b, c, (4, 5), "bilinear", -1.0), img,
              boxes, idx)
    want = run(lambda a, b, c: P.CropAndResize("bilinear", -1.0)(a, b, c, (4, 5)), img, boxes,
               idx)
    np.testing.assert_array_equal(got, want)
    # one analytic value: box 0's first sample sits at y = 0.1 * 5, x = 0.2 * 6 of image 1
    y, x = 0.5, 1.2
    top = img[1, 0, 1] + (img[1, 0, 2] - img[1, 0, 1]) * 0.2
    bot = img[1, 1, 1] + (img[1, 1, 2] - img[1, 1, 1]) * 0.2
    np.testing.assert_allclose(got[0, 0, 0], top + (bot - top) * (y - 0), rtol=1e-5)
    assert x == pytest.approx(1.2)
    with pytest.raises(ValueError, match="crop_and_resize"):
        ops.crop_and_resize(ms.Tensor(img), ms.Tensor(boxes), ms.Tensor(idx), (4, 5), "cubic")


# ------------------------------------------------------------------ CTCLoss
def _sparse(labels):
    idx = [(b, p) for b, lab in enumerate(labels) for p in range(len(lab))]
    vals = [v for lab in labels for v in lab]
    return np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int32)


def _torch_ctc(x, labels, seq_len):
    tx = torch.tensor(x, requires_grad=True)
    lp = torch.log_softmax(tx, 2)
    c = x.shape[2]
    flat = torch.tensor([v for lab in labels for v in lab], dtype=torch.long)
    loss = torch.nn.functional.ctc_loss(lp, flat, torch.tensor(seq_len),
                                        torch.tensor([len(lab) for lab in labels]),
                                        blank=c - 1, reduction="none", zero_infinity=False)
    loss.sum().backward()
    return loss.detach().numpy(), tx.grad.numpy()


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 1e-4)])
def test_ctc_loss_primitive_matches_torch(mode, dtype, tol):
    t, c = 8, 5
    labels = [[0, 1, 1, 2], [], [2, 0, 2], [1, 3, 0]]  # an empty label too
    seq_len = np.array([8, 5, 7, 6], np.int32)
    x = RNG.standard_normal((t, 4, c)).astype(dtype)
    idx, vals = _sparse(labels)
    loss, grad = run(P.CTCLoss(), x, idx, vals, seq_len)
    want, want_g = _torch_ctc(x.astype(np.float64), labels, seq_len)
    assert loss.dtype == dtype and grad.shape == x.shape
    np.testing.assert_allclose(loss, want, rtol=tol)
    np.testing.assert_allclose(grad, want_g, rtol=tol, atol=tol)
    assert np.all(grad[6:, 1] == 0)  # after sequence_length


def test_ctc_loss_collapse_and_ignore_longer(mode):
    t, c = 6, 4
    labels = [[1, 1, 2, 2, 2], [0, 1, 2, 0, 1, 2, 0]]
    seq_len = np.array([6, 6], np.int32)
    x = RNG.standard_normal((t, 2, c))
    idx, vals = _sparse(labels)
    loss, grad = run(P.CTCLoss(preprocess_collapse_repeated=True,
                               ignore_longer_outputs_than_inputs=True), x, idx, vals, seq_len)
    want, want_g = _torch_ctc(x[:, :1], [[1, 2]], seq_len[:1])
    np.testing.assert_allclose(loss, [want[0], 0.0], rtol=1e-10)
    np.testing.assert_allclose(grad[:, 0], want_g[:, 0], rtol=1e-10, atol=1e-12)
    assert np.all(grad[:, 1] == 0)
    loss, _ = run(P.CTCLoss(), x, idx, vals, seq_len)
    assert np.isinf(loss[1])


def test_ctc_loss_errors():
    x = ms.Tensor(np.zeros((3, 2, 4), np.float32))
    idx, vals = _sparse([[1], [2]])
    with pytest.raises(TypeError, match="CTCLoss.*labels_values"):
        P.CTCLoss()(x, ms.Tensor(idx), ms.Tensor(vals.astype(np.int64)),
                    ms.Tensor(np.array([3, 3], np.int32)))
    with pytest.raises(ValueError, match="CTCLoss.*sequence_length"):
        P.CTCLoss()(x, ms.Tensor(idx), ms.Tensor(vals), ms.Tensor(np.array([3], np.int32)))
    with pytest.raises(ValueError, match="ctc_merge_repeated"):
        P.CTCLoss(ctc_merge_repeated=False)
    with pytest.raises(TypeError, match="CTCLoss"):
        P.CTCLoss(preprocess_collapse_repeated=1)


# ------------------------------------------------------------------ NoRepeatNGram
def _ngram_oracle(seq, lp, n):
    out = lp.copy()
    for b in range(seq.shape[0]):
        for k in range(seq.shape[1]):
            s = list(seq[b, k])
            tail = s[len(s) - n + 1:]
            for i in range(len(s) - n + 1):
                if s[i:i + n - 1] == tail:
                    out[b, k, s[i + n - 1]] = -np.finfo(np.float32).max
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_no_repeat_ngram_matches_a_loop(mode, n):
    seq = RNG.integers(0, 4, (2, 3, 9)).astype(np.int32)
    lp = RNG.standard_normal((2, 3, 6)).astype(np.float32)
    got = run(P.NoRepeatNGram(n), seq, lp)
    np.testing.assert_array_equal(got, _ngram_oracle(seq, lp, n))


def test_no_repeat_ngram_documented_case_and_errors(mode):
    seq = np.array([[[1, 2, 1, 2, 5, 1, 2]]], np.int32)
    lp = np.zeros((1, 1, 8), np.float32)
    got = run(P.NoRepeatNGram(3), seq, lp)
    assert sorted(np.nonzero(got[0, 0])[0].tolist()) == [1, 5]
    with pytest.raises(ValueError, match="NoRepeatNGram"):
        P.NoRepeatNGram(0)
    with pytest.raises(TypeError, match="NoRepeatNGram"):
        P.NoRepeatNGram(2)(ms.Tensor(seq.astype(np.float32)), ms.Tensor(lp))


# ------------------------------------------------------------------ LogUniformCandidateSampler
def _zipf(r):
    c = np.arange(r)
    return np.log((c + 2) / (c + 1)) / np.log(r + 1)


def test_log_uniform_sampler_with_replacement(mode):
    true = np.array([[1, 7], [0, 4], [3, 3]], np.int64)
    s, te, se = run(P.LogUniformCandidateSampler(2, 4000, False, 10, seed=5), true)
    assert s.shape == (4000,) and s.dtype == np.int64 and te.shape == (3, 2)
    assert s.min() >= 0 and s.max() < 10
    p = _zipf(10)
    np.testing.assert_allclose(te, 4000 * p[true], rtol=1e-6)
    np.testing.assert_allclose(se, 4000 * p[s], rtol=1e-6)
    freq = np.bincount(s, minlength=10) / 4000
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / 4000))


def test_log_uniform_sampler_unique(mode):
    true = np.array([[2], [0]], np.int64)
    r, k, trials = 8, 3, 600
    counts = np.zeros(r)
    for seed in range(1, trials + 1):
        s, te, se = run(P.LogUniformCandidateSampler(1, k, True, r, seed=seed), true)
        assert len(set(s.tolist())) == k and s.min() >= 0 and s.max() < r
        assert np.all((se > 0) & (se <= 1)) and np.all((te > 0) & (te <= 1))
        # one number of tries n for all: -expm1(n log1p(-p)) inverts to the same n >= k
        n = np.log1p(-se) / np.log1p(-_zipf(r)[s])
        np.testing.assert_allclose(n, n[0], rtol=1e-4)
        assert n[0] >= k - 1e-3
        counts[s] += 1
    # inclusion frequencies of successive sampling without replacement, computed exactly
    p = _zipf(r)
    incl = np.zeros(r)

    def walk(chosen, prob):
        if len(chosen) == k:
            for c in chosen:
                incl[c] += prob
            return
        rest = 1 - sum(p[c] for c in chosen)
        for c in range(r):
            if c not in chosen:
                walk(chosen + [c], prob * p[c] / rest)
    walk([], 1.0)
    assert np.all(np.abs(counts / trials - incl) < 5 * np.sqrt(incl * (1 - incl) / trials) + 1e-3)


def test_log_uniform_sampler_function_and_errors(mode):
    true = ms.Tensor(np.array([[1], [2]], np.int64))
    s, te, se = ops.log_uniform_candidate_sampler(true, 1, 3, True, 5, 1)
    assert s.shape == (3,) and te.shape == (2, 1) and se.shape == (3,)
    with pytest.raises(ValueError, match="num_sampled"):
        P.LogUniformCandidateSampler(1, 6, True, 5)
    with pytest.raises(TypeError, match="LogUniformCandidateSampler"):
        P.LogUniformCandidateSampler(1, 2, True, 5)(ms.Tensor(np.array([[1]], np.int32)))
    with pytest.raises(ValueError, match="num_true"):
        P.LogUniformCandidateSampler(2, 2, True, 5)(true)
    assert math.isfinite(float(se.asnumpy()[0]))


# ------------------------------------------------------------------ ResizeBicubic
def _bicubic_oracle(img, size, align, half):
    """A direct 16-tap sum per output pixel (TensorFlow's rules, written per pixel)."""
    n, c, h, w = img.shape
    oh, ow = size

    def kernel(d, a):
        d = abs(d)
        if d <= 1:
            return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
        if d < 2:
            return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
        return 0.0

    def taps(j, n_in, n_out):
        scale = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
        x = (j + 0.5) * scale - 0.5 if half else j * scale
        f = int(np.floor(x))
        a = -0.5 if half else -0.75
        out = []
        for i in range(f - 1, f + 3):
            wt = kernel(x - i, a)
            if half:
                if 0 <= i < n_in:
                    out.append((i, wt))
            else:
                out.append((min(max(i, 0), n_in - 1), wt))
        if half:
            s = sum(wt for _, wt in out)
            out = [(i, wt / s) for i, wt in out]
        return out

    res = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for x in range(ow):
            for iy, wy in taps(y, h, oh):
                for ix, wx in taps(x, w, ow):
                    res[:, :, y, x] += wy * wx * img[:, :, iy, ix]
    return res


@pytest.mark.parametrize("align,half", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("size", [(7, 5), (3, 11), (1, 1)])
def test_resize_bicubic_matches_tensorflow_rules(mode, align, half, size):
    img = RNG.standard_normal((2, 3, 5, 6))
    got = run(lambda a: P.ResizeBicubic(align, half)(a, size), img)
    np.testing.assert_allclose(got, _bicubic_oracle(img, size, align, half), rtol=1e-10,
                               atol=1e-12)


def test_resize_bicubic_align_corners_is_torchs_and_gradient(mode):
    img = RNG.standard_normal((1, 2, 4, 5))
    want = torch.nn.functional.interpolate(torch.tensor(img), (7, 8), mode="bicubic",
                                           align_corners=True).numpy()
    op = P.ResizeBicubic(align_corners=True)
    size = ms.Tensor(np.array([7, 8], np.int32))
    np.testing.assert_allclose(Fn(lambda a: op(a, size))(ms.Tensor(img)).asnumpy(), want,
                               rtol=1e-10)
    sens = RNG.standard_normal(want.shape)
    got = ms.grad(lambda a: (op(a, size) * ms.Tensor(sens)).sum())(ms.Tensor(img))
    tx = torch.tensor(img, requires_grad=True)
    (torch.nn.functional.interpolate(tx, (7, 8), mode="bicubic", align_corners=True) *
     torch.tensor(sens)).sum().backward()
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy(), rtol=1e-10)


def test_resize_bicubic_documented_case_dtypes_and_errors(mode):
    for dt in (np.float16, np.float32, np.float64):
        img = np.array([1, 2, 3, 4], dt).reshape(1, 1, 2, 2)
        size = ms.Tensor(np.array([1, 4], np.int32))
        got = run(lambda a: P.ResizeBicubic()(a, size), img)
        assert got.dtype == dt
        np.testing.assert_array_equal(got, np.array([[[[1, 1.5, 2, 2.09375]]]], dt))
    with pytest.raises(ValueError, match="ResizeBicubic"):
        P.ResizeBicubic(True, True)
    x = ms.Tensor(np.ones((1, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="ResizeBicubic.*size"):
        P.ResizeBicubic()(x, ms.Tensor(np.array([1, 2, 3], np.int32)))
    with pytest.raises(ValueError, match="ResizeBicubic.*4-D"):
        P.ResizeBicubic()(ms.Tensor(np.ones((2, 2), np.float32)),
                          ms.Tensor(np.array([1, 2], np.int32)))


# ------------------------------------------------------------------ ExtractVolumePatches
def _volume_oracle(x, ks, st, same):
    n, c, d, h, w = x.shape
    if same:
        out = [-(-s // t) for s, t in zip((d, h, w), st)]
        pad = [max((o - 1) * t + k - s, 0) for o, t, k, s in zip(out, st, ks, (d, h, w))]
        before = [p // 2 for p in pad]
    else:
        out = [(s - k) // t + 1 for s, k, t in zip((d, h, w), ks, st)]
        before = [0, 0, 0]
    res = np.zeros((n, ks[0] * ks[1] * ks[2] * c) + tuple(out), x.dtype)
    for od in range(out[0]):
        for oh in range(out[1]):
            for ow in range(out[2]):
                ch = 0
                for i in range(ks[0]):
                    for j in range(ks[1]):
                        for k in range(ks[2]):
                            for cc in range(c):
                                z = od * st[0] + i - before[0]
                                y = oh * st[1] + j - before[1]
                                xx = ow * st[2] + k - before[2]
                                if 0 <= z < d and 0 <= y < h and 0 <= xx < w:
                                    res[:, ch, od, oh, ow] = x[:, cc, z, y, xx]
                                ch += 1
    return res


@pytest.mark.parametrize("ks,st,padding", [((2, 2, 2), (1, 1, 1), "VALID"),
                                           ((1, 2, 3), (2, 1, 2), "SAME"),
                                           ((3, 1, 2), (1, 3, 1), "same"),
                                           ((2, 3, 1), (2, 2, 3), "VALID")])
def test_extract_volume_patches_matches_a_loop(mode, ks, st, padding):
    x = RNG.standard_normal((2, 3, 4, 5, 6))
    got = run(P.ExtractVolumePatches((1, 1) + ks, (1, 1) + st, padding), x)
    np.testing.assert_array_equal(got, _volume_oracle(x, ks, st, padding.upper() == "SAME"))
    xi = RNG.integers(-9, 9, (1, 2, 3, 4, 3)).astype(np.int8)
    got = run(P.ExtractVolumePatches(ks, st, padding), xi)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, _volume_oracle(xi, ks, st, padding.upper() == "SAME"))


def test_extract_volume_patches_gradient_and_errors(mode):
    x = RNG.standard_normal((1, 2, 3, 4, 3))
    op = P.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 1, 2, 1), "SAME")
    sens = RNG.standard_normal(run(op, x).shape)
    got = ms.grad(lambda a: (op(a) * ms.Tensor(sens)).sum())(ms.Tensor(x)).asnumpy()
    # the gradient of a linear map: the adjoint of the oracle, column by column
    want = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = 1
        want[i] = (_volume_oracle(e.reshape(x.shape), (2, 2, 2), (1, 2, 1), True) * sens).sum()
    np.testing.assert_allclose(got.reshape(-1), want, rtol=1e-12)
    with pytest.raises(ValueError, match="ExtractVolumePatches"):
        P.ExtractVolumePatches((2, 1, 1, 1, 1), 1)
    with pytest.raises(ValueError, match="ExtractVolumePatches.*padding"):
        P.ExtractVolumePatches(1, 1, "FULL")
    with pytest.raises(ValueError, match="ExtractVolumePatches.*5-D"):
        P.ExtractVolumePatches(1, 1)(ms.Tensor(np.ones((2, 2, 2, 2), np.float32)))


# ------------------------------------------------------------------ FractionalMaxPool3D
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool3d_fixed_ksize_matches_torch(mode, dtype):
    x = RNG.standard_normal((2, 3, 7, 8, 9)).astype(dtype)
    samples = RNG.random((2, 3, 3)).astype(dtype)
    y, idx = run(P.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (4, 5, 3)), x, samples)
    ty, tidx = torch.nn.functional.fractional_max_pool3d(
        torch.tensor(x), (2, 3, 2), output_size=(4, 5, 3), return_indices=True,
        _random_samples=torch.tensor(samples))
    np.testing.assert_array_equal(y, ty.numpy())
    np.testing.assert_array_equal(idx, tidx.numpy())
    assert idx.dtype == np.int64
    # channels last, a 4-D input and integers give the same windows
    yl, il = run(P.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (4, 5, 3), "NDHWC"),
                 np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1)), samples)
    np.testing.assert_array_equal(yl, y.transpose(0, 2, 3, 4, 1))
    np.testing.assert_array_equal(il, idx.transpose(0, 2, 3, 4, 1))
    y4, _ = run(P.FractionalMaxPool3DWithFixedKsize(2, 3), x[0], samples[:1])
    ty4 = torch.nn.functional.fractional_max_pool3d(torch.tensor(x[:1]), 2, output_size=3,
                                                    _random_samples=torch.tensor(samples[:1]))
    np.testing.assert_array_equal(y4, ty4.numpy()[0])
    xi = RNG.permutation(7 * 8 * 9 * 6).reshape(2, 3, 7, 8, 9).astype(np.int64)
    yi, ii = run(P.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (4, 5, 3)), xi, samples)
    _, tii = torch.nn.functional.fractional_max_pool3d(
        torch.tensor(xi.astype(np.float64)), (2, 3, 2), output_size=(4, 5, 3),
        return_indices=True, _random_samples=torch.tensor(samples.astype(np.float64)))
    np.testing.assert_array_equal(ii, tii.numpy())
    assert yi.dtype == np.int64


def test_fractional_max_pool3d_fixed_ksize_gradient_and_errors(mode):
    x = RNG.standard_normal((1, 2, 5, 5, 5))
    samples = RNG.random((1, 2, 3))
    op = P.FractionalMaxPool3DWithFixedKsize(2, 3)
    sens = RNG.standard_normal((1, 2, 3, 3, 3))
    got = ms.grad(lambda a: (op(a, ms.Tensor(samples))[0] * ms.Tensor(sens)).sum())(
        ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    (torch.nn.functional.fractional_max_pool3d(tx, 2, output_size=3,
                                               _random_samples=torch.tensor(samples)) *
     torch.tensor(sens)).sum().backward()
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy())
    with pytest.raises(ValueError, match="random_samples"):
        op(ms.Tensor(x), ms.Tensor(np.zeros((1, 2, 2))))
    with pytest.raises(ValueError, match="data_format"):
        P.FractionalMaxPool3DWithFixedKsize(2, 3, "NCHW")
    with pytest.raises(TypeError, match="FractionalMaxPool3DWithFixedKsize"):
        op(ms.Tensor(x.astype(np.int8)), ms.Tensor(samples))


# ------------------------------------------------------------------ LSTM, DynamicRNN, DynamicGRUV2
def _pack_lstm(tl, layers, dirs, two_biases=False):
    sfx = ["", "_reverse"][:dirs]
    ks = [(k, s) for k in range(layers) for s in sfx]
    g = lambda n: getattr(tl, n).detach().numpy().reshape(-1)  # noqa: E731
    parts = [g(f"weight_ih_l{k}{s}") for k, s in ks] + [g(f"weight_hh_l{k}{s}") for k, s in ks]
    if tl.proj_size:
        parts += [g(f"weight_hr_l{k}{s}") for k, s in ks]
    if two_biases:
        parts += [g(f"bias_ih_l{k}{s}") for k, s in ks] + [g(f"bias_hh_l{k}{s}") for k, s in ks]
    else:
        parts += [g(f"bias_ih_l{k}{s}") + g(f"bias_hh_l{k}{s}") for k, s in ks]
    return np.concatenate(parts).reshape(-1, 1, 1)


@pytest.mark.parametrize("layers,bi,proj,two", [(1, False, 0, False), (2, True, 0, False),
                                                (2, False, 3, False), (1, True, 2, True)])
def test_lstm_primitive_matches_torch(mode, layers, bi, proj, two):
    torch.manual_seed(3)
    n_in, hid, t, b = 5, 6, 4, 3
    tl = torch.nn.LSTM(n_in, hid, layers, bidirectional=bi, proj_size=proj).double()
    dirs = 2 if bi else 1
    real = proj or hid
    x = RNG.standard_normal((t, b, n_in))
    h0 = RNG.standard_normal((layers * dirs, b, real))
    c0 = RNG.standard_normal((layers * dirs, b, hid))
    want, (wh, wc) = tl(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
    op = P.LSTM(n_in, hid, layers, True, bi, 0.0, proj)
    out, hn, cn, reserve, state = run(op, x, h0, c0, _pack_lstm(tl, layers, dirs, two))
    np.testing.assert_allclose(out, want.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hn, wh.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cn, wc.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert reserve.shape == (1, 1) and state.shape == (1, 1)


def test_lstm_primitive_gradient_and_errors(mode):
    torch.manual_seed(4)
    tl = torch.nn.LSTM(3, 4, 1).double()
    x = RNG.standard_normal((5, 2, 3))
    h0, c0 = RNG.standard_normal((1, 2, 4)), RNG.standard_normal((1, 2, 4))
    w = _pack_lstm(tl, 1, 1)
    op = P.LSTM(3, 4, 1, True, False, 0.0)
    got = ms.grad(lambda a: op(a, ms.Tensor(h0), ms.Tensor(c0), ms.Tensor(w))[0].sum())(
        ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    tl(tx, (torch.tensor(h0), torch.tensor(c0)))[0].sum().backward()
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy(), rtol=1e-10)
    with pytest.raises(ValueError, match="LSTM.*packed weight"):
        op(ms.Tensor(x), ms.Tensor(h0), ms.Tensor(c0), ms.Tensor(w[:-1]))
    with pytest.raises(ValueError, match="LSTM.*'h'"):
        op(ms.Tensor(x), ms.Tensor(h0[:, :1]), ms.Tensor(c0), ms.Tensor(w))
    with pytest.raises(ValueError, match="proj_size"):
        P.LSTM(3, 4, 1, True, False, 0.0, 4)


def _sig(v):
    return 1 / (1 + np.exp(-v))


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float16, 3e-3)])
def test_dynamic_rnn_matches_the_lstm_rules(mode, dtype, tol):
    t, b, n_in, hid = 3, 2, 4, 5
    x = RNG.standard_normal((t, b, n_in)).astype(dtype)
    w = (RNG.standard_normal((n_in + hid, 4 * hid)) * 0.5).astype(dtype)
    bias = RNG.standard_normal(4 * hid).astype(dtype)
    h0 = RNG.standard_normal((1, b, hid)).astype(dtype)
    c0 = RNG.standard_normal((1, b, hid)).astype(dtype)
    outs = run(lambda *a: P.DynamicRNN(forget_bias=0.7)(a[0], a[1], a[2], None, a[3], a[4]),
               x, w, bias, h0, c0)
    h, c = h0[0].astype(np.float64), c0[0].astype(np.float64)
    want = [[] for _ in range(8)]
    for s in range(t):
        g = np.concatenate([x[s], h], 1) @ w.astype(np.float64) + bias
        i, j, f, o = np.split(g, 4, 1)
        i, j, f, o = _sig(i), np.tanh(j), _sig(f + 0.7), _sig(o)
        c = f * c + i * j
        h = o * np.tanh(c)
        for lst, v in zip(want, (h, h, c, i, j, f, o, np.tanh(c))):
            lst.append(v)
    for got, w_ in zip(outs, want):
        assert got.dtype == dtype and got.shape == (t, b, hid)
        np.testing.assert_allclose(got.astype(np.float64), np.stack(w_), rtol=tol, atol=tol)


def test_dynamic_rnn_equals_torch_lstm_with_mindsporess_repacking(mode):
    torch.manual_seed(5)
    cell = torch.nn.LSTM(3, 4).double()
    x = RNG.standard_normal((6, 2, 3))
    wih, whh = cell.weight_ih_l0.detach().numpy(), cell.weight_hh_l0.detach().numpy()
    bsum = (cell.bias_ih_l0 + cell.bias_hh_l0).detach().numpy()
    order = lambda m: np.concatenate([m[0:4], m[8:12], m[4:8], m[12:16]])  # noqa: E731
    w = np.concatenate([order(wih), order(whh)], 1).T.astype(np.float32)
    h0 = np.zeros((1, 2, 4), np.float32)
    y = run(lambda a, b_, c_: P.DynamicRNN()(a, b_, c_, None, ms.Tensor(h0), ms.Tensor(h0)),
            x.astype(np.float32), w, order(bsum).astype(np.float32))[0]
    np.testing.assert_allclose(y, cell(torch.tensor(x))[0].detach().numpy(), rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="DynamicRNN.*seq_length"):
        P.DynamicRNN()(ms.Tensor(x.astype(np.float32)), ms.Tensor(w),
                       ms.Tensor(order(bsum).astype(np.float32)), ms.Tensor(np.ones(2, np.int32)),
                       ms.Tensor(h0), ms.Tensor(h0))
    with pytest.raises(ValueError, match="DynamicRNN.*direction"):
        P.DynamicRNN(direction="BIDIRECTIONAL")
    with pytest.raises(ValueError, match="DynamicRNN.*'w'"):
        P.DynamicRNN()(ms.Tensor(x.astype(np.float32)), ms.Tensor(w[1:]),
                       ms.Tensor(order(bsum).astype(np.float32)), None, ms.Tensor(h0),
                       ms.Tensor(h0))


@pytest.mark.parametrize("gate_order", ["rzh", "zrh"])
def test_dynamic_gru_v2_matches_torch_gru(mode, gate_order):
    torch.manual_seed(6)
    gru = torch.nn.GRU(4, 5).double()
    t, b = 3, 2
    x = RNG.standard_normal((t, b, 4))
    h0 = RNG.standard_normal((b, 5))
    want, _ = gru(torch.tensor(x), torch.tensor(h0[None]))

    def reorder(m):  # torch's rows r, z, n -> gate_order's columns
        r, z, n = np.split(m, 3, 0)
        return np.concatenate([r, z, n] if gate_order == "rzh" else [z, r, n], 0)
    get = lambda n: getattr(gru, n).detach().numpy()  # noqa: E731
    wi, wh = reorder(get("weight_ih_l0")).T, reorder(get("weight_hh_l0")).T
    bi, bh = reorder(get("bias_ih_l0")), reorder(get("bias_hh_l0"))
    f32 = lambda a: a.astype(np.float32)  # noqa: E731
    y, oh, upd, rst, new, hnew = run(
        lambda a, c, d, e, f, g: P.DynamicGRUV2(gate_order=gate_order)(a, c, d, e, f, None, g),
        f32(x), f32(wi), f32(wh), f32(bi), f32(bh), f32(h0))
    np.testing.assert_allclose(y, want.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(y, oh)
    # the gates of the first step, from torch's parameters
    gx = x[0] @ get("weight_ih_l0").T + get("bias_ih_l0")
    gh = h0 @ get("weight_hh_l0").T + get("bias_hh_l0")
    r0 = _sig(gx[:, :5] + gh[:, :5])
    z0 = _sig(gx[:, 5:10] + gh[:, 5:10])
    np.testing.assert_allclose(rst[0], r0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(upd[0], z0, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hnew[0], gh[:, 10:], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new[0], np.tanh(gx[:, 10:] + r0 * gh[:, 10:]), rtol=1e-4,
                               atol=1e-5)


def test_dynamic_gru_v2_without_biases_and_errors(mode):
    x = RNG.standard_normal((2, 1, 3)).astype(np.float16)
    wi = RNG.standard_normal((3, 6)).astype(np.float16)
    wh = RNG.standard_normal((2, 6)).astype(np.float16)
    h0 = np.zeros((1, 2), np.float16)
    y = run(lambda a, c, d, e: P.DynamicGRUV2()(a, c, d, None, None, None, e), x, wi, wh, h0)[0]
    h = np.zeros((1, 2))
    for s in range(2):
        gx, gh = x[s].astype(np.float64) @ wi, h @ wh.astype(np.float64)
        r, z = _sig(gx[:, :2] + gh[:, :2]), _sig(gx[:, 2:4] + gh[:, 2:4])
        n = np.tanh(gx[:, 4:] + r * gh[:, 4:])
        h = (1 - z) * n + z * h
    assert y.dtype == np.float16
    np.testing.assert_allclose(y[-1].astype(np.float64), h, rtol=3e-3, atol=3e-3)
    with pytest.raises(ValueError, match="gate_order"):
        P.DynamicGRUV2(gate_order="hzr")
    with pytest.raises(ValueError, match="DynamicGRUV2.*init_h"):
        P.DynamicGRUV2()(ms.Tensor(x), ms.Tensor(wi), ms.Tensor(wh), None, None, None,
                         ms.Tensor(np.zeros((2, 2), np.float16)))


# ------------------------------------------------------------------ EditDistance
def _lev(a, b):
    d = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, y in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (x != y))
    return d[-1]


def _sparse_seqs(lead, width, rng, p_empty=0.2):
    seqs, idx, vals = {}, [], []
    for pos in np.ndindex(*lead):
        n = 0 if rng.random() < p_empty else int(rng.integers(1, width + 1))
        seq = rng.integers(0, 3, n).tolist()
        seqs[pos] = seq
        for k, v in enumerate(seq):
            idx.append(list(pos) + [k])
            vals.append(v)
    return seqs, np.array(idx, np.int64).reshape(-1, len(lead) + 1), np.array(vals, np.int32)


@pytest.mark.parametrize("normalize", [True, False])
def test_edit_distance_matches_levenshtein(mode, normalize):
    lead_h, lead_t = (3, 2), (2, 4)
    hs, hi, hv = _sparse_seqs(lead_h, 5, RNG)
    ts, ti, tv = _sparse_seqs(lead_t, 4, RNG)
    perm = RNG.permutation(len(hv))  # the entries need not come in order
    hi, hv = hi[perm], hv[perm]
    h_shape = ms.Tensor(np.array(lead_h + (5,), np.int64))
    t_shape = ms.Tensor(np.array(lead_t + (4,), np.int64))
    got = run(lambda a, b, c, d: P.EditDistance(normalize)(a, b, h_shape, c, d, t_shape),
              hi, hv, ti, tv)
    assert got.shape == (3, 4) and got.dtype == np.float32
    for pos in np.ndindex(3, 4):
        a, b = hs.get(pos, []), ts.get(pos, [])
        want = float(_lev(a, b))
        if normalize:
            want = 0.0 if not a and not b else (np.inf if not b else want / len(b))
        assert got[pos] == pytest.approx(want), pos


def test_edit_distance_documented_case_and_errors(mode):
    hi = np.array([[0, 0, 0], [1, 0, 1], [1, 1, 1]], np.int64)
    ti = np.array([[0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1]], np.int64)
    hs, ts = ms.Tensor(np.array([1, 1, 2], np.int64)), ms.Tensor(np.array([2, 2, 2], np.int64))
    got = run(lambda a, b, c, d: P.EditDistance()(a, b, hs, c, d, ts), hi,
              np.array([1, 2, 3], np.float32), ti, np.array([1, 3, 2, 1], np.float32))
    np.testing.assert_array_equal(got, np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="EditDistance"):
        P.EditDistance()(ms.Tensor(hi), ms.Tensor(np.ones(3, np.float32)),
                         ms.Tensor(np.array([1, 2], np.int64)), ms.Tensor(ti),
                         ms.Tensor(np.ones(4, np.float32)), ts)
    with pytest.raises(TypeError, match="EditDistance"):
        P.EditDistance(normalize=1)


# ------------------------------------------------------------------ RNNTLoss
def _rnnt_oracle(acts, labels, t_len, u_len, blank):
    lp = acts - np.log(np.exp(acts).sum(-1, keepdims=True))
    out = []
    for b in range(acts.shape[0]):
        tt, uu = t_len[b], u_len[b]
        alpha = np.full((tt, uu + 1), -np.inf)
        for t in range(tt):
            for u in range(uu + 1):
                if t == 0 and u == 0:
                    alpha[t, u] = 0.0
                    continue
                terms = []
                if t > 0:
                    terms.append(alpha[t - 1, u] + lp[b, t - 1, u, blank])
                if u > 0:
                    terms.append(alpha[t, u - 1] + lp[b, t, u - 1, labels[b, u - 1]])
                alpha[t, u] = np.logaddexp.reduce(terms)
        out.append(-(alpha[tt - 1, uu] + lp[b, tt - 1, uu, blank]))
    return np.array(out)


@pytest.mark.parametrize("blank", [0, 3])
def test_rnnt_loss_matches_the_recursion_and_finite_differences(mode, blank):
    b, t, u, v = 3, 5, 3, 6
    acts = RNG.standard_normal((b, t, u + 1, v))
    labels = RNG.integers(0, v, (b, u)).astype(np.int32)
    labels = np.where(labels == blank, (blank + 1) % v, labels).astype(np.int32)
    t_len = np.array([5, 3, 4], np.int32)
    u_len = np.array([3, 1, 0], np.int32)
    costs, grads = run(P.RNNTLoss(blank), acts, labels, t_len, u_len)
    np.testing.assert_allclose(costs, _rnnt_oracle(acts, labels, t_len, u_len, blank),
                               rtol=1e-10)
    eps = 1e-6
    for _ in range(12):
        i = tuple(int(RNG.integers(0, s)) for s in acts.shape)
        up, dn = acts.copy(), acts.copy()
        up[i] += eps
        dn[i] -= eps
        fd = (_rnnt_oracle(up, labels, t_len, u_len, blank).sum() -
              _rnnt_oracle(dn, labels, t_len, u_len, blank).sum()) / (2 * eps)
        assert grads[i] == pytest.approx(fd, abs=1e-6), i
    assert np.all(grads[1, 3:] == 0)  # after the example's input length


def test_rnnt_loss_float32_and_errors(mode):
    acts = RNG.standard_normal((1, 2, 3, 5)).astype(np.float32)
    labels = np.array([[1, 2]], np.int32)
    lens = (np.array([2], np.int32), np.array([2], np.int32))
    costs, grads = run(P.RNNTLoss(), acts, labels, *lens)
    assert costs.dtype == np.float32 and grads.shape == acts.shape
    np.testing.assert_allclose(costs, _rnnt_oracle(acts.astype(np.float64), labels, *lens, 0),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="RNNTLoss.*labels"):
        P.RNNTLoss()(ms.Tensor(acts), ms.Tensor(labels[:, :1]), ms.Tensor(lens[0]),
                     ms.Tensor(lens[1]))
    with pytest.raises(TypeError, match="RNNTLoss.*labels"):
        P.RNNTLoss()(ms.Tensor(acts), ms.Tensor(labels.astype(np.int64)), ms.Tensor(lens[0]),
                     ms.Tensor(lens[1]))
    with pytest.raises(ValueError, match="blank_label"):
        P.RNNTLoss(7)(ms.Tensor(acts), ms.Tensor(labels), ms.Tensor(lens[0]),
                      ms.Tensor(lens[1]))


# ------------------------------------------------------------------ moe_token_permute / unpermute
@pytest.mark.parametrize("topk,n_out", [(1, None), (3, None), (2, 7)])
def test_moe_token_permute_and_unpermute(mode, topk, n_out):
    n, hidden = 6, 4
    tokens = RNG.standard_normal((n, hidden)).astype(np.float32)
    idx = RNG.integers(0, 4, (n, topk) if topk > 1 else (n,)).astype(np.int32)
    perm, sidx = run(lambda a, b: ops.moe_token_permute(a, b, n_out), tokens, idx)
    order = np.argsort(idx.reshape(-1), kind="stable")
    keep = len(order) if n_out is None else n_out
    np.testing.assert_array_equal(perm, tokens[order[:keep] // topk])
    np.testing.assert_array_equal(sidx, np.argsort(order))
    assert sidx.dtype == np.int32
    probs = RNG.random((n, topk)).astype(np.float32)
    back = run(lambda a, b, c: ops.moe_token_unpermute(a, b, c), perm, sidx, probs)
    want = np.zeros((n, hidden), np.float32)
    for i in range(n):
        for k in range(topk):
            p = sidx[i * topk + k]
            if p < keep:
                want[i] += perm[p] * probs[i, k]
    np.testing.assert_allclose(back, want, rtol=1e-6)
    if topk == 1 and n_out is None:  # without probs the round trip is the identity
        np.testing.assert_array_equal(run(ops.moe_token_unpermute, perm, sidx), tokens)


def test_moe_token_permute_gradient_and_errors(mode):
    tokens = RNG.standard_normal((4, 3))
    idx = np.array([[1, 0], [0, 2], [2, 1], [1, 1]], np.int64)
    sens = RNG.standard_normal((8, 3))
    got = ms.grad(lambda a: (ops.moe_token_permute(a, ms.Tensor(idx))[0] *
                             ms.Tensor(sens)).sum())(ms.Tensor(tokens)).asnumpy()
    order = np.argsort(idx.reshape(-1), kind="stable")
    want = np.zeros_like(tokens)
    np.add.at(want, order // 2, sens)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(ValueError, match="padded_mode"):
        ops.moe_token_permute(ms.Tensor(tokens), ms.Tensor(idx), padded_mode=True)
    with pytest.raises(TypeError, match="indices"):
        ops.moe_token_permute(ms.Tensor(tokens), ms.Tensor(idx.astype(np.float32)))
    with pytest.raises(ValueError, match="moe_token_unpermute"):
        ops.moe_token_unpermute(ms.Tensor(tokens), ms.Tensor(np.arange(4, dtype=np.int64)))


# ------------------------------------------------------------------ LARSUpdate
@pytest.mark.parametrize("use_clip", [False, True])
def test_lars_update_matches_the_formula(mode, use_clip):
    w, g = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    sw, sg = np.array((w * w).sum()), np.array((g * g).sum())
    got = run(lambda a, b, c, d: P.LARSUpdate(1e-5, 0.01, use_clip)(a, b, c, d, 0.1, 0.05),
              w, g, sw, sg)
    lam = 0.01 * np.sqrt(sw) / (np.sqrt(sg) + 0.1 * np.sqrt(sw) + 1e-5)
    if use_clip:
        lam = min(lam / 0.05, 1.0)
    np.testing.assert_allclose(got, lam * (g + 0.1 * w), rtol=1e-12)
    zero = run(lambda a, b, c, d: P.LARSUpdate()(a, b, c, d, 0.0, 0.1), w, g, np.array(0.0), sg)
    np.testing.assert_allclose(zero, g, rtol=1e-12)  # ||w|| = 0: lambda = 1
    with pytest.raises(ValueError, match="LARSUpdate"):
        P.LARSUpdate()(ms.Tensor(w), ms.Tensor(g[:2]), ms.Tensor(sw), ms.Tensor(sg), 0.0, 0.1)
    with pytest.raises(TypeError, match="LARSUpdate"):
        P.LARSUpdate(use_clip=1)


def test_dynamic_rnn_and_gru_gradients_match_torch(mode):
    torch.manual_seed(9)
    x = RNG.standard_normal((4, 2, 3)).astype(np.float32)
    sens = RNG.standard_normal((4, 2, 5)).astype(np.float32)
    # DynamicRNN against torch's LSTM, the weights repacked as MindSpore's nn.LSTM does
    lstm = torch.nn.LSTM(3, 5)
    order = lambda m: np.concatenate([m[0:5], m[10:15], m[5:10], m[15:20]])  # noqa: E731
    get = lambda mod, n: getattr(mod, n).detach().numpy()  # noqa: E731
    w = np.concatenate([order(get(lstm, "weight_ih_l0")), order(get(lstm, "weight_hh_l0"))],
                       1).T.copy()
    b = order(get(lstm, "bias_ih_l0") + get(lstm, "bias_hh_l0"))
    h0 = np.zeros((1, 2, 5), np.float32)
    op = P.DynamicRNN()
    gx, gw = ms.grad(lambda a, ww: (op(a, ww, ms.Tensor(b), None, ms.Tensor(h0),
                                        ms.Tensor(h0))[0] * ms.Tensor(sens)).sum(), (0, 1))(
        ms.Tensor(x), ms.Tensor(w))
    tx = torch.tensor(x, requires_grad=True)
    (lstm(tx)[0] * torch.tensor(sens)).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    want_w = np.concatenate([order(lstm.weight_ih_l0.grad.numpy()),
                             order(lstm.weight_hh_l0.grad.numpy())], 1).T
    np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-4, atol=1e-5)
    # DynamicGRUV2 against torch's GRU
    gru = torch.nn.GRU(3, 5)
    wi, wh = get(gru, "weight_ih_l0").T.copy(), get(gru, "weight_hh_l0").T.copy()
    bi, bh = get(gru, "bias_ih_l0"), get(gru, "bias_hh_l0")
    op2 = P.DynamicGRUV2()
    gx2, gwh = ms.grad(lambda a, whh: (op2(a, ms.Tensor(wi), whh, ms.Tensor(bi), ms.Tensor(bh),
                                           None, ms.Tensor(h0[0]))[0] *
                                       ms.Tensor(sens)).sum(), (0, 1))(
        ms.Tensor(x), ms.Tensor(wh))
    tx = torch.tensor(x, requires_grad=True)
    (gru(tx)[0] * torch.tensor(sens)).sum().backward()
    np.testing.assert_allclose(gx2.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gwh.asnumpy(), gru.weight_hh_l0.grad.numpy().T, rtol=1e-4,
                               atol=1e-5)


def test_polar_gradient_matches_torch(mode):
    r, t = RNG.random(5) + 0.5, RNG.standard_normal(5)
    sens_re, sens_im = RNG.standard_normal(5), RNG.standard_normal(5)

    def f(a, b):
        z = P.Polar()(a, b)
        return (ops.real(z) * ms.Tensor(sens_re) + ops.imag(z) * ms.Tensor(sens_im)).sum()
    gr, gt = ms.grad(f, (0, 1))(ms.Tensor(r), ms.Tensor(t))
    tr, tt = torch.tensor(r, requires_grad=True), torch.tensor(t, requires_grad=True)
    z = torch.polar(tr, tt)
    (z.real * torch.tensor(sens_re) + z.imag * torch.tensor(sens_im)).sum().backward()
    np.testing.assert_allclose(gr.asnumpy(), tr.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gt.asnumpy(), tt.grad.numpy(), rtol=1e-12)
