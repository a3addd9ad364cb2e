"""Scans and sorts: CumSum/CumProd (ops.cumsum, ops.cumprod, Tensor.cumsum/cumprod), Sort
(ops.sort, ops.argsort, Tensor.sort/argsort) and TopK (ops.topk, Tensor.topk), against numpy
and PyTorch in PYNATIVE and GRAPH mode: values and indices, every dtype, odd sizes, 0-d and
empty tensors, negative axes, NaNs and ties, and the errors for bad axes and k. Their
gradients, to second order and against torch (CumProd at zeros included), are rows of
test_grad_ops.py."""
import numpy as np
import pytest
import torch

import mycel as ms
from arrays import NP_DTYPES as DTYPES
from graph_harness import run_numpy
from mycel import ops
from mycel.ops import operations as P

MODES = ["pynative", "graph"]
run = run_numpy


def sample(shape, dtype, seed=0, lo=-4, hi=5):
    r = np.random.RandomState(seed)
    if dtype == np.bool_:
        return r.rand(*shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return r.randint(0 if dtype == np.uint8 else lo, hi, shape).astype(dtype)
    return r.standard_normal(shape).astype(dtype)


def np_cum(x, axis, prod=False, exclusive=False, reverse=False):
    """The numpy oracle: integer scans wrap in the input's dtype (bool sums as int64)."""
    dt = np.int64 if x.dtype == np.bool_ else x.dtype
    acc = np.float64 if np.issubdtype(dt, np.floating) else dt
    a = x.astype(acc)
    if x.ndim == 0:
        a, axis = a.reshape(1), 0
    if reverse:
        a = np.flip(a, axis)
    with np.errstate(over="ignore"):
        y = np.cumprod(a, axis, dtype=acc) if prod else np.cumsum(a, axis, dtype=acc)
    if exclusive:
        ident = np.ones_like if prod else np.zeros_like
        first = ident(np.take(y, [0], axis)) if y.shape[axis] else np.take(y, [], axis)
        y = np.concatenate([first, np.take(y, np.arange(y.shape[axis] - 1), axis)], axis)
    if reverse:
        y = np.flip(y, axis)
    return y.reshape(x.shape).astype(dt)


# ---- CumSum / CumProd ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_cumsum_cumprod_every_dtype(dtype, mode):
    x = sample((3, 7, 5), dtype)
    got_s, got_p = run(lambda t: (ops.cumsum(t, 1), ops.cumprod(t, -1)), mode, x)
    want_s, want_p = np_cum(x, 1), np_cum(x, -1, prod=True)
    tol = 1e-2 if dtype == np.float16 else 1e-6
    assert got_s.dtype == want_s.dtype and got_p.dtype == want_p.dtype
    np.testing.assert_allclose(got_s, want_s, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_p, want_p, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("op", ["CumSum", "CumProd"])
def test_exclusive_reverse(op, exclusive, reverse, mode):
    prim = getattr(P, op)(exclusive=exclusive, reverse=reverse)
    for shape, axis in [((4, 9, 3), 1), ((13,), -1), ((2, 0, 3), 1), ((5, 0), 0), ((), 0)]:
        x = sample(shape, np.float64, seed=len(shape))
        got = run(lambda t: prim(t, axis), mode, x)
        want = np_cum(x, axis, op == "CumProd", exclusive, reverse)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=str(shape))


@pytest.mark.parametrize("mode", MODES)
def test_cumsum_dtype_and_tensor_methods(mode):
    x = sample((4, 6), np.int32)
    got = run(lambda t: (ops.cumsum(t, 0, dtype=ms.float32), t.cumsum(), t.cumsum(axis=-1),
                         t.cumprod(1), t.cumsum(1, ms.float64)), mode, x)
    np.testing.assert_array_equal(got[0], np.cumsum(x, 0).astype(np.float32))
    assert got[0].dtype == np.float32
    np.testing.assert_array_equal(got[1], np.cumsum(x.reshape(-1)).astype(np.int32))
    np.testing.assert_array_equal(got[2], np.cumsum(x, -1).astype(np.int32))
    np.testing.assert_array_equal(got[3], np.cumprod(x, 1).astype(np.int32))
    assert got[4].dtype == np.float64


def test_cumsum_long_axis_float32_accumulates_exactly():
    # 1e5 ones and a large offset: a float32 running sum would drift; the kernel adds in double.
    x = np.full((100001,), 0.1, np.float32)
    got = ops.cumsum(ms.Tensor(x), 0).asnumpy()
    np.testing.assert_allclose(got, np.cumsum(x.astype(np.float64)).astype(np.float32),
                               rtol=1e-7)


def test_cumsum_int8_wraps():
    x = np.full((300,), 100, np.int8)
    np.testing.assert_array_equal(ops.cumsum(ms.Tensor(x), 0).asnumpy(),
                                  np.cumsum(x, dtype=np.int8))


# ---- Sort ----------------------------------------------------------------------------------

def ref_sort(x, axis, descending):
    """Stable sort, NaN largest: the expected values and indices, line by line."""
    xm = np.moveaxis(x.reshape(1) if x.ndim == 0 else x, axis, -1)
    idx = np.empty(xm.shape, np.int32)
    for pos in np.ndindex(*xm.shape[:-1]):
        line = xm[pos].astype(np.float64)

        def key(i):
            v = line[i]
            nan = np.isnan(v)
            return (not nan, -v if not nan else 0.0) if descending else (nan, v if not nan else 0.0)
        idx[pos] = sorted(range(line.shape[0]), key=key)
    vals = np.take_along_axis(xm, idx.astype(np.int64), -1)
    back = (lambda a: a.reshape(())) if x.ndim == 0 else (lambda a: np.moveaxis(a, -1, axis))
    return back(vals), back(idx)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_every_dtype(dtype, mode):
    x = sample((4, 11, 3), dtype, lo=-3, hi=3)  # small integer ranges: many ties
    for axis, desc in [(-1, False), (1, True), (0, False), (-2, False)]:
        got_v, got_i = run(lambda t: ops.sort(t, axis, desc), mode, x)
        want_v, want_i = ref_sort(x, axis, desc)
        assert got_v.dtype == x.dtype and got_i.dtype == np.int32
        np.testing.assert_array_equal(got_v, want_v)
        np.testing.assert_array_equal(got_i, want_i)
    np.testing.assert_array_equal(run(lambda t: ops.sort(t)[1], mode, x),
                                  np.argsort(x, -1, kind="stable"))


@pytest.mark.parametrize("mode", MODES)
def test_sort_nan_and_ties_as_numpy(mode):
    x = np.array([[3.0, np.nan, -1.0, 3.0, -np.inf, np.nan, 0.0, -0.0, np.inf, -1.0]],
                 np.float32)
    v, i = run(lambda t: P.Sort()(t), mode, x)
    np.testing.assert_array_equal(i[0], np.argsort(x[0], kind="stable"))
    np.testing.assert_array_equal(v, np.sort(x, -1))
    v, i = run(lambda t: t.sort(descending=True), mode, x)
    np.testing.assert_array_equal(i[0], [1, 5, 8, 0, 3, 6, 7, 2, 9, 4])
    want = torch.sort(torch.tensor(x), descending=True, stable=True)
    np.testing.assert_array_equal(v, want.values.numpy())
    np.testing.assert_array_equal(i, want.indices.numpy())


@pytest.mark.parametrize("mode", MODES)
def test_sort_shapes_and_argsort(mode):
    for shape in [(), (0,), (3, 0), (1,), (1031,), (2, 1, 5)]:
        x = sample(shape, np.float32, seed=3)
        v, i, a, ta = run(lambda t: (t.sort()[0], t.sort()[1], ops.argsort(t, descending=True),
                                     t.argsort(axis=0)), mode, x)
        want_v, want_i = ref_sort(x, -1, False)
        np.testing.assert_array_equal(v, want_v)
        np.testing.assert_array_equal(i, want_i)
        np.testing.assert_array_equal(a, ref_sort(x, -1, True)[1])
        np.testing.assert_array_equal(ta, ref_sort(x, 0, False)[1])
        assert v.shape == x.shape and i.dtype == np.int32


# ---- TopK ----------------------------------------------------------------------------------

def ref_topk(x, k, largest=True, sorted=True):  # noqa: A002
    xm = x.reshape(1) if x.ndim == 0 else x
    vals = np.empty(xm.shape[:-1] + (k,), x.dtype)
    idx = np.empty(xm.shape[:-1] + (k,), np.int32)
    for pos in np.ndindex(*xm.shape[:-1]):
        line = xm[pos].astype(np.float64)

        def key(i):
            nan = np.isnan(line[i])
            return (not nan, -line[i] if not nan else 0.0, i) if largest else \
                (nan, line[i] if not nan else 0.0, i)
        take = sorted_(range(line.shape[0]), key=key)[:k]
        if not sorted:
            take = sorted_(take)
        idx[pos] = take
        vals[pos] = xm[pos][take]
    return (vals.reshape(()), idx.reshape(())) if x.ndim == 0 else (vals, idx)


sorted_ = sorted


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_topk_every_dtype(dtype, mode):
    x = sample((3, 4, 13), dtype, lo=-3, hi=3)
    for k, sorted_flag in [(5, True), (13, True), (0, True), (4, False), (1, False)]:
        v, i = run(lambda t: ops.topk(t, k, sorted=sorted_flag), mode, x)
        want_v, want_i = ref_topk(x, k, sorted=sorted_flag)
        assert v.dtype == x.dtype and i.dtype == np.int32
        np.testing.assert_array_equal(v, want_v)
        np.testing.assert_array_equal(i, want_i)


@pytest.mark.parametrize("mode", MODES)
def test_topk_dim_smallest_nan_and_methods(mode):
    x = np.array([[1.0, np.nan, 5.0, 5.0, -2.0, 0.5],
                  [4.0, 4.0, 4.0, -np.inf, np.inf, 1.0]], np.float64)
    got = run(lambda t: P.TopK()(t, 3) + t.topk(2, dim=0) + ops.topk(t, 3, largest=False) +
              t.topk(4, 1, True, False) + ops.topk(t, 4, largest=False, sorted=False), mode, x)
    want = (*ref_topk(x, 3), *(a.T for a in ref_topk(x.T.copy(), 2)),
            *ref_topk(x, 3, largest=False), *ref_topk(x, 4, sorted=False),
            *ref_topk(x, 4, largest=False, sorted=False))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    # torch agrees where it defines the order (no ties): NaN is the largest value.
    tv, ti = torch.topk(torch.tensor(x[0]), 1)
    np.testing.assert_array_equal(got[0][0, :1], tv.numpy())
    np.testing.assert_array_equal(got[1][0, :1], ti.numpy())


@pytest.mark.parametrize("mode", MODES)
def test_topk_shapes(mode):
    for shape, k in [((), 1), ((0, 4), 2), ((5, 0), 0), ((2049,), 17), ((1, 1), 1)]:
        x = sample(shape, np.float32, seed=5)
        v, i = run(lambda t: ops.topk(t, k), mode, x)
        want_v, want_i = ref_topk(x, k)
        assert v.shape == want_v.shape
        np.testing.assert_array_equal(v, want_v)
        np.testing.assert_array_equal(i, want_i)


# ---- gradients in both modes through the Python forms ---------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_the_functional_forms_match_torch(mode):
    r = np.random.RandomState(0)
    x = r.standard_normal((3, 6))
    x[1, 2] = 0.0
    w = r.standard_normal((3, 6))
    w3 = r.standard_normal((3, 3))

    def f(t):
        return (ops.cumprod(t, 1) * ms.Tensor(w)).sum() + (t.cumsum(0) * ms.Tensor(w)).sum() + \
            (ops.sort(t, 1, True)[0] * ms.Tensor(w)).sum() + (t.topk(3)[0] * ms.Tensor(w3)).sum()

    g = run(lambda t: ms.grad(f)(t), mode, x)
    t = torch.tensor(x, requires_grad=True)
    tw, tw3 = torch.tensor(w), torch.tensor(w3)
    loss = (torch.cumprod(t, 1) * tw).sum() + (torch.cumsum(t, 0) * tw).sum() + \
        (torch.sort(t, 1, descending=True)[0] * tw).sum() + (torch.topk(t, 3)[0] * tw3).sum()
    loss.backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-10, atol=1e-12)


X23 = np.ones((2, 3), np.float32)
ERRORS = [  # (call on a (2, 3) float32 tensor, exception, message)
    (lambda x: ops.cumsum(x, 2), ValueError,
     r"For 'CumSum', the 'axis' must be in range \[-2, 2\), but got 2"),
    (lambda x: P.CumProd()(x, -3), ValueError, r"For 'CumProd', the 'axis' must be in range"),
    (lambda x: ops.cumsum(x, 1.0), TypeError, r"For 'cumsum', the 'axis' must be an int"),
    (lambda x: ops.cumprod(x, None), TypeError, r"For 'cumprod', the 'dim' must be an int"),
    (lambda x: ops.sort(x, 2), ValueError, r"For 'Sort', the 'axis' must be in range \[-2, 2\)"),
    (lambda x: ops.sort(x, (0,)), TypeError, r"For 'sort', the 'axis' must be an int"),
    (lambda x: ops.topk(x, 4), ValueError,
     r"For 'TopK', the 'k' must be in range \[0, 3\] .* but got 4"),
    (lambda x: P.TopK()(x, -1), ValueError, r"For 'TopK', the 'k' must be in range"),
    (lambda x: ops.topk(x, 3, dim=0, largest=False), ValueError,
     r"For 'topk', the 'k' must be in range \[0, 2\]"),
    (lambda x: ops.topk(x, 1, dim=2), ValueError,
     r"For 'topk', the 'dim' must be in range \[-2, 2\)"),
    (lambda x: ops.topk(x, 1.5), TypeError, r"For 'topk', the 'k' must be an int"),
    (lambda x: ops.topk(x[0, 0], 0), ValueError, r"For 'topk', a 0-d input has one element"),
    (lambda x: P.TopK()(x[0, 0], 0), ValueError, r"For 'TopK', a 0-d input has one element"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("call,exc,match", ERRORS, ids=[m for _, _, m in ERRORS])
def test_errors(call, exc, match, mode):
    with pytest.raises(exc, match=match):
        run(call, mode, X23)
