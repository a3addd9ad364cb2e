"""The random family through the Python primitives: StandardNormal and UniformReal have the
right distribution (moments and quantiles of a million draws, with fixed seeds), every float
dtype, op-level seeds that fix the stream, mycel.set_seed reproducibility of the global
generator, results independent of the thread count, and the errors bad input raises."""
import math

import numpy as np
import pytest

import mycel as ms
from mycel.ops import operations as P

N = 1 << 20


def normal(shape, seed=11, seed2=12, dtype=ms.float32):
    return P.StandardNormal(seed=seed, seed2=seed2, dtype=dtype)(shape)


def uniform(shape, seed=11, seed2=12, dtype=ms.float32):
    return P.UniformReal(seed=seed, seed2=seed2, dtype=dtype)(shape)


@pytest.mark.parametrize("dtype", [ms.float32, ms.float64])
def test_standard_normal_moments_and_quantiles(dtype):
    x = normal((N,), dtype=dtype).asnumpy().astype(np.float64)
    assert np.isfinite(x).all()
    se = 1 / math.sqrt(N)
    assert abs(x.mean()) < 5 * se
    assert abs(x.std() - 1) < 5 * se
    assert abs((x ** 3).mean()) < 5 * math.sqrt(15) * se       # skewness 0
    assert abs((x ** 4).mean() - 3) < 5 * math.sqrt(96) * se   # kurtosis 3
    for z in [-2.5, -1.0, 0.0, 0.5, 2.0]:
        p = 0.5 * (1 + math.erf(z / math.sqrt(2)))
        assert abs((x < z).mean() - p) < 5 * math.sqrt(p * (1 - p) / N)
    # The two normals of one Box-Muller pair, and neighbouring pairs, are uncorrelated.
    assert abs(np.corrcoef(x[0::2], x[1::2])[0, 1]) < 5 / math.sqrt(N / 2)
    assert abs(np.corrcoef(x[1:-1:2], x[2::2])[0, 1]) < 5 / math.sqrt(N / 2)


@pytest.mark.parametrize("dtype", [ms.float32, ms.float64])
def test_uniform_real_range_and_moments(dtype):
    x = uniform((N,), dtype=dtype).asnumpy().astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    se = math.sqrt(1 / 12 / N)
    assert abs(x.mean() - 0.5) < 5 * se
    assert abs(x.var() - 1 / 12) < 5 * math.sqrt(1 / 180 / N)
    counts = np.histogram(x, bins=16, range=(0, 1))[0]
    assert np.abs(counts - N / 16).max() < 5 * math.sqrt(N / 16)


@pytest.mark.parametrize("dtype,step", [(ms.float16, 2.0 ** -11), (ms.bfloat16, 2.0 ** -8)])
def test_uniform_real_half_dtypes_are_exact_and_below_one(dtype, step):
    t = uniform((N,), dtype=dtype)
    assert t.dtype == dtype
    x = t.asnumpy().astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    np.testing.assert_array_equal(np.round(x / step) * step, x)  # exact multiples of the step
    assert abs(x.mean() - (0.5 - step / 2)) < 5 * math.sqrt(1 / 12 / N)
    assert len(np.unique(x)) == round(1 / step)  # every value of the grid is reached


@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16])
def test_standard_normal_half_dtypes(dtype):
    t = normal((N,), dtype=dtype)
    assert t.dtype == dtype
    x = t.asnumpy().astype(np.float64)
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    ref = normal((N,), dtype=ms.float32).asnumpy()  # the same stream, rounded differently
    tol = 2.0 ** -10 if dtype == ms.float16 else 2.0 ** -7
    np.testing.assert_allclose(x, ref, rtol=tol, atol=1e-7)


def test_shapes():
    assert normal(()).shape == ()
    assert normal((0,)).shape == (0,)
    assert uniform((2, 0, 3)).shape == (2, 0, 3)
    assert normal((2, 3, 5)).shape == (2, 3, 5)
    assert uniform(7).shape == (7,)
    assert normal([4, 1]).shape == (4, 1)
    assert normal((3,)).dtype == ms.float32 and uniform((3,)).dtype == ms.float32


@pytest.mark.parametrize("make", [normal, uniform])
def test_op_seeds_fix_the_stream(make):
    a = make((1001,), 3, 4).asnumpy()
    np.testing.assert_array_equal(a, make((1001,), 3, 4).asnumpy())
    ms.set_seed(99)  # op-level seeds ignore the global generator
    np.testing.assert_array_equal(a, make((1001,), 3, 4).asnumpy())
    # Element i depends on its index alone: a prefix, or another shape, reads the same values.
    np.testing.assert_array_equal(a[:500], make((500,), 3, 4).asnumpy())
    np.testing.assert_array_equal(a[:1000], make((10, 100), 3, 4).asnumpy().ravel())
    for s1, s2 in [(3, 5), (4, 4), (0, 4), (3, 0), (4, 3)]:
        assert not np.array_equal(a, make((1001,), s1, s2).asnumpy())


@pytest.mark.parametrize("op", [P.StandardNormal, P.UniformReal])
def test_set_seed_makes_the_global_generator_reproducible(op):
    f = op()
    ms.set_seed(7)
    a1, a2 = f((3, 50)).asnumpy(), f((3, 50)).asnumpy()
    assert not np.array_equal(a1, a2)  # the generator advances between calls
    ms.set_seed(7)
    b1, b2 = f((3, 50)).asnumpy(), f((3, 50)).asnumpy()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    ms.set_seed(8)
    assert not np.array_equal(a1, f((3, 50)).asnumpy())
    # Draws never overlap: a big draw after a small one shares none of its values.
    ms.set_seed(7)
    c = np.concatenate([f((3, 50)).asnumpy().ravel(), f((3, 50)).asnumpy().ravel()])
    np.testing.assert_array_equal(c, np.concatenate([a1.ravel(), a2.ravel()]))
    assert len(np.intersect1d(a1, a2)) == 0


@pytest.mark.parametrize("make", [normal, uniform])
def test_results_do_not_depend_on_thread_count(make):
    before = ms._mycel.get_num_threads()
    try:
        ms._mycel.set_num_threads(1)
        one = [make((N + 3,), dtype=t).asnumpy() for t in (ms.float32, ms.float64, ms.float16)]
        ms._mycel.set_num_threads(2)
        two = [make((N + 3,), dtype=t).asnumpy() for t in (ms.float32, ms.float64, ms.float16)]
        ms.set_seed(5)
        ms._mycel.set_num_threads(1)
        g1 = P.StandardNormal()((N,)).asnumpy()
        ms.set_seed(5)
        ms._mycel.set_num_threads(2)
        g2 = P.StandardNormal()((N,)).asnumpy()
    finally:
        ms._mycel.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(g1, g2)


def test_random_errors():
    with pytest.raises(TypeError, match=r"For 'StandardNormal'.*dtype.*Float16, BFloat16, "
                       r"Float32 or Float64.*Int32"):
        P.StandardNormal(dtype=ms.int32)((2, 3))
    with pytest.raises(TypeError, match=r"For 'UniformReal'.*dtype.*Bool"):
        P.UniformReal(dtype=ms.bool_)((2,))
    with pytest.raises(ValueError, match=r"For 'UniformReal'.*shape.*non-negative.*\[2, -1\]"):
        P.UniformReal()((2, -1))
    with pytest.raises(ValueError, match=r"For 'StandardNormal'.*seed.*non-negative.*-1"):
        P.StandardNormal(seed=-1)((2,))
    with pytest.raises(TypeError, match=r"tuple of ints.*2\.5"):
        P.StandardNormal()((2.5, 3))
    with pytest.raises(TypeError, match=r"For 'UniformReal'.*shape.*required"):
        P.UniformReal()()
