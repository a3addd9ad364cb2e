"""The reduce family through the Python primitives, against numpy: ReduceSum/Mean/Max/Min/Prod
over every dtype, axis mode and layout (odd sizes, 0-d, 0-size, big threaded cases), NaN
propagation, the accuracy of big float32 sums, thread-count independence, Argmax/Argmin, and
the errors bad input raises."""
import warnings

import numpy as np
import pytest

import mycel as ms
from mycel.ops import operations as P

RNG = np.random.default_rng(0)

NP_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
             np.float64]
REDUCE_OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"]

# (shape, axis); axis () means every axis.
SHAPES_AXES = [
    ((), ()), ((), (0,)), ((), (-1,)), ((7,), ()), ((7,), (0,)), ((3, 33), ()), ((3, 33), (1,)),
    ((3, 33), (0,)), ((3, 33), (-1,)), ((33, 3), (0, 1)), ((4, 5, 6), (0, 2)), ((4, 5, 6), (1,)),
    ((4, 5, 6), (2, 0)), ((4, 5, 6), (-2, -1)), ((2, 3, 4, 5), (1, 3)), ((2, 3, 4, 5), (0, 2, 3)),
    ((2, 1, 3), (1,)), ((2, 1, 3), (0, 1)), ((5, 40, 3), (1,)), ((3, 37, 300), (1,)),
    ((1031,), ()), ((0, 3), (1,)), ((3, 0), (1,)), ((0,), ()), ((2, 0, 3), (0, 2)),
]


def rand(shape, dtype, op=None):
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        lo = 0 if dtype == np.uint8 else -50
        return RNG.integers(lo, 50, size=shape).astype(dtype)
    if op == "ReduceProd":  # keep products of many elements finite and away from 0
        return RNG.uniform(0.8, 1.25, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def numpy_reduce(op, x, axis, keep):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # means of empty slices, f16 overflow
        return _numpy_reduce(op, x, axis, keep)


def _numpy_reduce(op, x, axis, keep):
    ax = None if (not axis or x.ndim == 0) else tuple(axis)
    kw = dict(axis=ax, keepdims=keep)
    if op == "ReduceSum" or op == "ReduceProd":
        f = np.sum if op == "ReduceSum" else np.prod
        if x.dtype == np.bool_:
            return f(x, dtype=np.int64, **kw)
        if np.issubdtype(x.dtype, np.integer):
            return f(x, dtype=x.dtype, **kw)  # wraps like the op's own dtype
        return f(x.astype(np.float64), **kw).astype(x.dtype)
    if op == "ReduceMean":
        out = np.float32 if not np.issubdtype(x.dtype, np.floating) else x.dtype
        return np.mean(x.astype(np.float64), **kw).astype(out)
    f = np.max if op == "ReduceMax" else np.min
    return f(x, **kw)


def tolerances(dtype):
    if dtype == np.float16:
        return 2e-3, 2e-3
    if dtype == np.float32:
        return 1e-5, 1e-5
    return 1e-12, 1e-12


def check(got, want):
    got_np = got.asnumpy()
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    assert got_np.dtype == want.dtype, (got_np.dtype, want.dtype)
    if np.issubdtype(want.dtype, np.floating):
        rtol, atol = tolerances(want.dtype)
        np.testing.assert_allclose(got_np, want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got_np, want)


def reduce_params():
    out = []
    for op in REDUCE_OPS:
        for dt in NP_DTYPES:
            for shape, axis in SHAPES_AXES:
                x_count = [shape[a] for a in (axis or range(len(shape)))] if shape else [1]
                if op in ("ReduceMax", "ReduceMin") and 0 in x_count:
                    continue  # no identity: an error, tested below
                out.append((op, dt, shape, axis))
    return out


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("op,dtype,shape,axis", reduce_params())
def test_reduce_matches_numpy(op, dtype, shape, axis, keep):
    x = rand(shape, dtype, op)
    got = getattr(P, op)(keep_dims=keep)(ms.Tensor(x), axis)
    check(got, numpy_reduce(op, x, axis, keep))


@pytest.mark.parametrize("op", REDUCE_OPS)
@pytest.mark.parametrize("shape,axis", [((600, 513), (1,)), ((513, 600), (0,)),
                                        ((100000, 5), (0,)), ((300001,), ()),
                                        ((8, 64, 30, 30), (0, 2, 3)), ((65536, 10), (1,))])
def test_reduce_big_float32(op, shape, axis):
    x = rand(shape, np.float32, op)
    if op == "ReduceProd":
        x = RNG.uniform(0.999, 1.001, size=shape).astype(np.float32)
    got = getattr(P, op)()(ms.Tensor(x), axis).asnumpy()
    want = numpy_reduce(op, x.astype(np.float64), axis, False)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("op", REDUCE_OPS)
def test_reduce_bfloat16(op):
    x = ms.Tensor(rand((37, 65), np.float32, op)).astype(ms.bfloat16)
    xv = x.asnumpy()  # the bfloat16 values, widened exactly to float32
    for axis in [(), (0,), (1,)]:
        got = getattr(P, op)()(x, axis)
        assert got.dtype == ms.bfloat16
        want = numpy_reduce(op, xv.astype(np.float64), axis, False)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-2, atol=2e-2)


def test_float32_sum_is_accurate():
    x = RNG.random(1 << 20).astype(np.float32)  # mean 0.5: a large sum
    exact = x.astype(np.float64).sum()
    got = float(P.ReduceSum()(ms.Tensor(x), ()).asnumpy())
    assert abs(got - exact) <= 1e-6 * exact
    got_mean = float(P.ReduceMean()(ms.Tensor(x), ()).asnumpy())
    assert abs(got_mean - exact / x.size) <= 1e-6 * exact / x.size
    rows = P.ReduceSum()(ms.Tensor(x.reshape(16, -1)), (1,)).asnumpy()
    np.testing.assert_allclose(rows, x.reshape(16, -1).astype(np.float64).sum(1), rtol=1e-6)
    cols = P.ReduceSum()(ms.Tensor(x.reshape(-1, 16)), (0,)).asnumpy()
    np.testing.assert_allclose(cols, x.reshape(-1, 16).astype(np.float64).sum(0), rtol=1e-6)


@pytest.mark.parametrize("shape,axis", [((1 << 20,), ()), ((1000, 3000), (0,)),
                                        ((3000, 1000), (1,)), ((20, 300, 50), (0, 2))])
def test_results_do_not_depend_on_thread_count(shape, axis):
    x = ms.Tensor(rand(shape, np.float32))
    before = ms._mycel.get_num_threads()
    try:
        ms._mycel.set_num_threads(1)
        one = [P.ReduceSum()(x, axis).asnumpy(), P.ReduceMax()(x, axis).asnumpy()]
        ms._mycel.set_num_threads(2)
        two = [P.ReduceSum()(x, axis).asnumpy(), P.ReduceMax()(x, axis).asnumpy()]
    finally:
        ms._mycel.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("axis", [(), (0,), (1,)])
def test_nan_and_inf_propagate(dtype, axis):
    x = RNG.standard_normal((37, 300)).astype(dtype)
    x[3, 100] = np.nan
    x[20, 7] = np.inf
    x[30, 250] = -np.inf
    t = ms.Tensor(x)
    for op in ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean"]:
        got = getattr(P, op)()(t, axis).asnumpy()
        want = numpy_reduce(op, x, axis, False)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


def test_empty_reductions():
    x = ms.Tensor(np.zeros((3, 0), np.float32))
    np.testing.assert_array_equal(P.ReduceSum()(x, (1,)).asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(P.ReduceProd()(x, (1,)).asnumpy(), [1, 1, 1])
    assert np.isnan(P.ReduceMean()(x, (1,)).asnumpy()).all()
    assert P.ReduceMax()(x, (0,)).shape == (0,)
    for op in ["ReduceMax", "ReduceMin"]:
        with pytest.raises(ValueError, match=rf"For '{op}', cannot reduce an empty.*\[3, 0\]"):
            getattr(P, op)()(x, (1,))
        with pytest.raises(ValueError, match=rf"For '{op}', cannot reduce an empty"):
            getattr(P, op)()(x, ())


def test_output_dtypes():
    b = ms.Tensor(np.array([[True, False], [True, True]]))
    assert P.ReduceSum()(b, ()).dtype == ms.int64
    assert int(P.ReduceSum()(b, ()).asnumpy()) == 3
    assert P.ReduceProd()(b, (1,)).dtype == ms.int64
    assert P.ReduceMax()(b, ()).dtype == ms.bool_
    assert P.ReduceMean()(b, ()).dtype == ms.float32
    i8 = ms.Tensor(np.full((200,), 3, np.int8))
    got = P.ReduceSum()(i8, ())
    assert got.dtype == ms.int8 and int(got.asnumpy()) == np.int8(600 - 512)
    assert P.ReduceMean()(ms.Tensor(np.arange(4, dtype=np.int32)), ()).dtype == ms.float32
    assert P.ReduceMean()(ms.Tensor(np.arange(4, dtype=np.float16)), ()).dtype == ms.float16


def test_axis_forms():
    x = rand((2, 3, 4), np.float32)
    t = ms.Tensor(x)
    np.testing.assert_allclose(P.ReduceSum()(t, 1).asnumpy(), x.sum(1), rtol=1e-6)
    np.testing.assert_allclose(P.ReduceSum()(t, [0, 2]).asnumpy(), x.sum((0, 2)), rtol=1e-6)
    np.testing.assert_allclose(P.ReduceSum()(t).asnumpy(), x.sum(), rtol=1e-6)
    assert P.ReduceSum(keep_dims=True)(t).shape == (1, 1, 1)
    assert P.ReduceMean(True)(t, (1,)).shape == (2, 1, 4)


def test_reduce_errors():
    t = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"For 'ReduceSum'.*axis.*\[-2, 2\).*5"):
        P.ReduceSum()(t, 5)
    with pytest.raises(ValueError, match=r"For 'ReduceMean'.*axis.*-3"):
        P.ReduceMean()(t, (0, -3))
    with pytest.raises(ValueError, match=r"For 'ReduceSum'.*repeat.*\(1, -1\).*\[2, 3\]"):
        P.ReduceSum()(t, (1, -1))
    with pytest.raises(ValueError, match=r"For 'ReduceMax'.*axis.*1"):
        P.ReduceMax()(ms.Tensor(np.float32(2)), 1)
    with pytest.raises(TypeError, match=r"For 'ReduceSum'.*keep_dims.*bool"):
        P.ReduceSum(keep_dims=2)
    with pytest.raises(TypeError, match=r"For 'ReduceProd'.*axis"):
        P.ReduceProd()(t, 1.5)


# ---- Argmax / Argmin ---------------------------------------------------------------------

def arg_params():
    out = []
    for op in ["Argmax", "Argmin"]:
        for dt in NP_DTYPES:
            for shape, axis in [((), 0), ((), -1), ((7,), 0), ((3, 33), 1), ((3, 33), 0),
                                ((33, 3), -1), ((4, 40, 3), 1), ((4, 5, 6), -3), ((0, 5), 1),
                                ((600, 513), 1), ((513, 600), 0)]:
                out.append((op, dt, shape, axis))
    return out


@pytest.mark.parametrize("op,dtype,shape,axis", arg_params())
def test_arg_reduce_matches_numpy(op, dtype, shape, axis):
    # Few distinct values: ties are common, and the first index must win.
    x = rand(shape, dtype)
    if np.issubdtype(dtype, np.floating):
        x = np.round(x * 2).astype(dtype)
    f = np.argmax if op == "Argmax" else np.argmin
    want = np.asarray(f(x, axis=axis if x.ndim else None))
    for ot, npt in [(ms.int32, np.int32), (ms.int64, np.int64)]:
        got = getattr(P, op)(axis=axis, output_type=ot)(ms.Tensor(x))
        assert got.dtype == ot
        np.testing.assert_array_equal(got.asnumpy(), want.astype(npt))
        kept = getattr(P, op)(axis=axis, output_type=ot, keep_dims=True)(ms.Tensor(x)).asnumpy()
        if x.ndim:
            np.testing.assert_array_equal(kept, np.expand_dims(want, axis))


@pytest.mark.parametrize("axis", [0, 1])
def test_arg_reduce_nan_counts_as_extreme(axis):
    x = RNG.standard_normal((37, 300)).astype(np.float32)
    x[5, 17] = np.nan
    x[30, 17] = np.nan
    x[11, 200] = np.inf
    x[2, 250] = -np.inf
    for op, f in [("Argmax", np.argmax), ("Argmin", np.argmin)]:
        got = getattr(P, op)(axis=axis)(ms.Tensor(x)).asnumpy()
        np.testing.assert_array_equal(got, f(x, axis=axis))


def test_arg_reduce_bfloat16():
    x = ms.Tensor(np.round(RNG.standard_normal((20, 30)) * 3).astype(np.float32))
    xb = x.astype(ms.bfloat16)
    for axis in [0, 1]:
        np.testing.assert_array_equal(P.Argmax(axis=axis)(xb).asnumpy(),
                                      np.argmax(xb.asnumpy(), axis=axis))
        np.testing.assert_array_equal(P.Argmin(axis=axis)(xb).asnumpy(),
                                      np.argmin(xb.asnumpy(), axis=axis))


def test_arg_reduce_errors():
    t = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match=r"For 'Argmax'.*output_type.*Int32 or Int64.*Float32"):
        P.Argmax(output_type=ms.float32)(t)
    with pytest.raises(TypeError, match=r"For 'Argmin'.*output_type.*Int16"):
        P.Argmin(output_type=ms.int16)(t)
    with pytest.raises(ValueError, match=r"For 'Argmax'.*axis.*\[-2, 2\).*2"):
        P.Argmax(axis=2)(t)
    with pytest.raises(ValueError, match=r"For 'Argmin', cannot reduce an empty axis.*\[2, 0\]"):
        P.Argmin(axis=1)(ms.Tensor(np.ones((2, 0), np.float32)))
    with pytest.raises(TypeError, match=r"For 'Argmax'.*axis.*int"):
        P.Argmax(axis=(0, 1))
