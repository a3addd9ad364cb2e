"""The composed math functions of ops/function/math_func.py (ops.gcd ... ops.nextafter)
and their primitives, against numpy, scipy and PyTorch, in PYNATIVE and GRAPH mode (the
`mode` fixture), gradients against torch, argument errors typed."""
import math

import numpy as np
import pytest
import scipy.special
import torch

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(29)


def _f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int16])
def test_gcd_lcm(mode, dtype):
    a = RNG.integers(-60, 61, (5, 4)).astype(dtype)
    b = RNG.integers(-60, 61, (1, 4)).astype(dtype)
    a[0, 0], b[0, 0] = 0, 0
    np.testing.assert_array_equal(run(ops.gcd, a, b), np.gcd(a, b))
    np.testing.assert_array_equal(run(ops.lcm, a, b), np.lcm(a, b))
    np.testing.assert_array_equal(run(ops.Gcd(), a, b), np.gcd(a, b))
    big = np.array([2 ** 40 * 3, 987654321987], np.int64)
    np.testing.assert_array_equal(run(ops.gcd, big, big[::-1].copy()),
                                  np.gcd(big, big[::-1]))


def test_logit_and_erfinv(mode):
    x = RNG.uniform(0.01, 0.99, (3, 5)).astype(np.float64)
    np.testing.assert_allclose(run(ops.logit, x), scipy.special.logit(x), rtol=1e-12)
    x2 = np.array([0.0, 0.05, 0.5, 1.0], np.float32)
    np.testing.assert_allclose(run(lambda a: ops.logit(a, 0.1), x2),
                               scipy.special.logit(np.clip(x2, 0.1, 0.9)), rtol=1e-5)
    np.testing.assert_allclose(run(ops.Logit(0.1), x2),
                               scipy.special.logit(np.clip(x2, 0.1, 0.9)), rtol=1e-5)
    y = np.concatenate([RNG.uniform(-1, 1, 20), [0.0, 0.999999, -0.9999999999, 1.0, -1.0,
                                                 1.5]])
    with np.errstate(all="ignore"):
        want = scipy.special.erfinv(y)
    np.testing.assert_allclose(run(ops.erfinv, y), want, rtol=1e-12, atol=1e-14)
    y32 = y.astype(np.float32)
    with np.errstate(all="ignore"):
        want32 = scipy.special.erfinv(y32.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(run(ops.erfinv, y32), want32, rtol=2e-6, atol=1e-7)


def _erfinv_sum(t):
    return ops.erfinv(t).sum()


def test_erfinv_gradient(mode):
    # 0 and +-0.5 included: at 0 the gradient is sqrt(pi)/2 (it was 0, through |y| and sign)
    y = np.concatenate([RNG.uniform(-0.95, 0.95, 7), [0.0, 0.5, -0.5, 0.999]])
    g = run(ms.grad(_erfinv_sum), y)
    x = scipy.special.erfinv(y)
    np.testing.assert_allclose(g, math.sqrt(math.pi) / 2 * np.exp(x * x), rtol=1e-8)
    g32 = run(ms.grad(_erfinv_sum), y.astype(np.float32))
    np.testing.assert_allclose(g32, math.sqrt(math.pi) / 2 * np.exp(x * x), rtol=2e-5)


def test_division_variants(mode):
    x = np.array([[3.0, -7.0, 1.0, np.inf], [0.0, 5.0, -2.0, np.nan]], np.float32)
    y = np.array([2.0, 0.0, -3.0, 0.0], np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(run(ops.DivNoNan(), x, y),
                                      np.where(y == 0, 0.0, x / np.where(y == 0, 1, y)))
        np.testing.assert_array_equal(run(ops.MulNoNan(), x, y),
                                      np.where(y == 0, 0.0, x * y))
    a = np.array([7, -7, 9, -9], np.int32)
    b = np.array([2, 2, -4, -4], np.int32)
    np.testing.assert_array_equal(run(ops.truncate_div, a, b), np.trunc(a / b).astype(np.int32))
    np.testing.assert_array_equal(run(ops.TruncateDiv(), a, b), np.trunc(a / b))
    np.testing.assert_array_equal(run(ops.truncate_mod, a, b), np.fmod(a, b))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_population_count(mode, dtype):
    info = np.iinfo(dtype)
    x = np.array([0, 1, 7, info.max, info.min, -1 if info.min < 0 else 200, 85],
                 dtype=np.int64).astype(dtype)
    want = np.array([bin(int(v) & ((1 << (8 * x.itemsize)) - 1)).count("1") for v in x],
                    np.uint8)
    got = run(ops.population_count, x)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)


def test_clipping(mode):
    x, y = _f(3, 4) * 3, _f(5) * 3
    np.testing.assert_array_equal(run(lambda a: ops.clip_by_value(a, -1.0, 2.0), x),
                                  np.clip(x, -1, 2))
    got = run(lambda a, b: ops.clip_by_value((a, b), None, 0.5), x, y)
    np.testing.assert_array_equal(got[0], np.minimum(x, 0.5))
    np.testing.assert_array_equal(got[1], np.minimum(y, 0.5))
    tx, ty = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
    torch.nn.utils.clip_grad_norm_  # the same scaling rule: max_norm / (total + 1e-6)
    total = math.sqrt((x ** 2).sum() + (y ** 2).sum())
    coef = min(1.0, 2.0 / (total + 1e-6))
    got = run(lambda a, b: ops.clip_by_norm((a, b), 2.0), x, y)
    np.testing.assert_allclose(got[0], tx.numpy() * coef, rtol=1e-5)
    np.testing.assert_allclose(got[1], ty.numpy() * coef, rtol=1e-5)
    inf_norm = max(np.abs(x).max(), np.abs(y).max())
    got = run(lambda a: ops.clip_by_norm(a, 1.0, float("inf")), x)
    np.testing.assert_allclose(got, x * min(1, 1.0 / (np.abs(x).max() + 1e-6)), rtol=1e-5)
    assert inf_norm > 1
    got = run(lambda a, b: ops.clip_by_global_norm((a, b), 1.5), x, y)
    scale = 1.5 / max(total, 1.5)
    np.testing.assert_allclose(got[0], x * scale, rtol=1e-5)
    np.testing.assert_allclose(got[1], y * scale, rtol=1e-5)


def test_sums_and_addr(mode):
    a, b, c = _f(2, 3), _f(2, 3), _f(2, 3)
    np.testing.assert_allclose(run(lambda x, y, z: ops.accumulate_n((x, y, z)), a, b, c),
                               a + b + c, rtol=1e-6)
    np.testing.assert_allclose(run(lambda x, y, z: ops.AddN()((x, y, z)), a, b, c), a + b + c,
                               rtol=1e-6)
    v1, v2 = _f(2), _f(3)
    np.testing.assert_allclose(run(lambda x, p, q: ops.addr(x, p, q, beta=0.5, alpha=2), a, v1,
                                   v2), 0.5 * a + 2 * np.outer(v1, v2), rtol=1e-5)
    t1, t2 = _f(2, 3), _f(2, 3)
    val = np.array([0.5], np.float32)
    np.testing.assert_allclose(run(ops.Addcdiv(), a, t1, t2, val), a + 0.5 * t1 / t2,
                               rtol=1e-5)
    np.testing.assert_allclose(run(ops.Addcmul(), a, t1, t2, val), a + 0.5 * t1 * t2,
                               rtol=1e-5)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.0, float("inf")])
def test_distances_match_torch(mode, p):
    a, b = _f(2, 4, 3, dtype=np.float64), _f(2, 5, 3, dtype=np.float64)
    np.testing.assert_allclose(run(lambda x, y: ops.cdist(x, y, p), a, b),
                               torch.cdist(torch.from_numpy(a), torch.from_numpy(b), p).numpy(),
                               rtol=1e-10, atol=1e-12)
    x = _f(5, 3, dtype=np.float64)
    np.testing.assert_allclose(run(lambda t: ops.pdist(t, p), x),
                               torch.pdist(torch.from_numpy(x), p).numpy(), rtol=1e-10,
                               atol=1e-12)
    u, v = _f(3, 4, dtype=np.float64), _f(3, 4, dtype=np.float64)
    np.testing.assert_allclose(run(lambda s, t: ops.dist(s, t, p), u, v),
                               torch.dist(torch.from_numpy(u), torch.from_numpy(v), p).numpy(),
                               rtol=1e-10)


def test_cosine_similarity_and_gradient(mode):
    a, b = _f(4, 5, dtype=np.float64), _f(1, 5, dtype=np.float64)
    want = torch.nn.functional.cosine_similarity(torch.from_numpy(a), torch.from_numpy(b), 1)
    np.testing.assert_allclose(run(ops.cosine_similarity, a, b), want.numpy(), rtol=1e-12)
    if mode == ms.PYNATIVE_MODE:
        ta = torch.tensor(a, requires_grad=True)
        torch.nn.functional.cosine_similarity(ta, torch.from_numpy(b), 1).sum().backward()
        g = ms.grad(lambda x: ops.cosine_similarity(x, ms.Tensor(b)).sum())(ms.Tensor(a))
        np.testing.assert_allclose(g.asnumpy(), ta.grad.numpy(), rtol=1e-10)


def test_bucketize_and_searchsorted(mode):
    bounds = [-1.0, 0.0, 0.5, 2.0]
    x = np.array([[-3.0, -1.0, 0.2], [0.5, 2.0, 9.0]], np.float32)
    for right in (False, True):
        got = run(lambda t: ops.bucketize(t, bounds, right=right), x)
        want = torch.bucketize(torch.from_numpy(x), torch.tensor(bounds), right=right)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want.numpy())
    seq = np.sort(_f(3, 6), -1)
    vals = _f(3, 4)
    vals[0, :2] = seq[0, 2], seq[0, 4]  # exact hits: left and right differ
    for right in (False, True):
        got = run(lambda s, v: ops.searchsorted(s, v, right=right), seq, vals)
        want = torch.searchsorted(torch.from_numpy(seq), torch.from_numpy(vals), right=right)
        np.testing.assert_array_equal(got, want.numpy())
    s1 = np.sort(_f(7))
    got = run(lambda s, v: ops.searchsorted(s, v, side="right", out_int32=True), s1, vals)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.searchsorted(s1, vals, side="right"))
    perm = RNG.permutation(7)
    shuffled = s1[perm]
    sorter = np.argsort(shuffled).astype(np.int64)
    got = run(lambda s, v, o: ops.searchsorted(s, v, sorter=o), shuffled, vals, sorter)
    np.testing.assert_array_equal(got, np.searchsorted(shuffled, vals, sorter=sorter))


def test_bincount():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.array([1, 4, 1, 0, 4, 4], np.int32)
    np.testing.assert_array_equal(ops.bincount(ms.Tensor(x)).asnumpy(), np.bincount(x))
    w = _f(6)
    np.testing.assert_allclose(ops.bincount(ms.Tensor(x), ms.Tensor(w), 8).asnumpy(),
                               np.bincount(x, w, 8), rtol=1e-6)
    got = ops.Bincount()(ms.Tensor(x), ms.Tensor(np.int32(3)), ms.Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, np.bincount(x[x < 3], w[x < 3], 3), rtol=1e-6)


def test_trapz(mode):
    y = _f(3, 6, dtype=np.float64)
    np.testing.assert_allclose(run(ops.trapz, y), np.trapz(y), rtol=1e-12)
    np.testing.assert_allclose(run(lambda t: ops.trapz(t, dx=0.5, dim=0), y),
                               np.trapz(y, dx=0.5, axis=0), rtol=1e-12)
    xs = np.sort(_f(6, dtype=np.float64))
    np.testing.assert_allclose(run(lambda t, s: ops.trapz(t, s), y, xs),
                               np.trapz(y, xs), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_matches_numpy(mode, dtype):
    tiny = np.finfo(dtype).tiny
    x = np.array([1.0, 1.0, 2.0, 2.0, -2.0, 0.0, 0.0, 3.5, tiny, 1e-40 if dtype == np.float32
                  else 1e-310, 5.0, np.nan, 1.0], dtype)
    y = np.array([2.0, 0.0, 0.0, 3.0, 0.0, 1.0, -1.0, 3.5, 0.0, 1.0, -np.inf, 1.0, np.nan],
                 dtype)
    np.testing.assert_array_equal(run(ops.nextafter, x, y), np.nextafter(x, y))
    z = RNG.standard_normal(50).astype(dtype) * 1e3
    w = RNG.standard_normal(50).astype(dtype)
    np.testing.assert_array_equal(run(ops.NextAfter(), z, w), np.nextafter(z, w))


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    f = ms.Tensor(_f(3))
    with pytest.raises(TypeError, match="'gcd'"):
        ops.gcd(f, f)
    with pytest.raises(ValueError, match="clip_by_value"):
        ops.clip_by_value(f)
    with pytest.raises(ValueError, match="'cdist'"):
        ops.cdist(ms.Tensor(_f(2, 3)), ms.Tensor(_f(2, 4)))
    with pytest.raises(ValueError, match="'dist'"):
        ops.dist(f, f, -1)
    with pytest.raises(ValueError, match="searchsorted"):
        ops.searchsorted(f, f, side="middle")
    with pytest.raises(TypeError, match="'NextAfter'"):
        ops.nextafter(f, ms.Tensor(_f(3, dtype=np.float64)))
    with pytest.raises(TypeError, match="PopulationCount"):
        ops.population_count(f)
    with pytest.raises(ValueError, match="AccumulateNV2"):
        ops.accumulate_n([f, ms.Tensor(_f(4))])
