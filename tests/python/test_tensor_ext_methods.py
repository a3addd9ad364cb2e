"""Tensor methods of ops/function/tensor_ext_func.py (tensor_split & co., adjoint/mH, aminmax,
diff, logdet, sum_to_size, ldexp, short, type), nn.Tril/Triu and mycel.is_tensor, against
numpy, in both modes (a Cell calling the method is compiled in GRAPH mode)."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor

RNG = np.random.default_rng(2)
A = RNG.standard_normal((7, 4, 5)).astype(np.float32)


class Call(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


def run(fn, x):
    return Call(fn)(x)


@pytest.mark.parametrize("ios", [3, 4, 7, 9, [2, 5], [1, 1, 6], [-3, 6], [5, 2]])
def test_tensor_split_matches_array_split(mode, ios):
    for axis in (0, 1, -1):
        got = run(lambda x: x.tensor_split(ios, axis), Tensor(A))
        want = np.array_split(A, ios, axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g.asnumpy(), w)


def test_vsplit_hsplit_dsplit(mode):
    for meth, np_fn in (("vsplit", np.vsplit), ("hsplit", np.hsplit), ("dsplit", np.dsplit)):
        got = run(lambda x: getattr(x, meth)([1, 3]), Tensor(A))
        for g, w in zip(got, np_fn(A, [1, 3])):
            np.testing.assert_array_equal(g.asnumpy(), w)
    got = run(lambda x: x.hsplit(2), Tensor(A[0, 0]))  # 1-D: along axis 0
    for g, w in zip(got, np.array_split(A[0, 0], 2)):
        np.testing.assert_array_equal(g.asnumpy(), w)
    with pytest.raises(ValueError, match="dsplit"):
        Tensor(A[0]).dsplit(2)
    with pytest.raises(ValueError, match="sections"):
        Tensor(A).tensor_split(0)


def test_adjoint_mh_aminmax_diff(mode):
    np.testing.assert_array_equal(run(lambda x: x.adjoint(), Tensor(A)).asnumpy(),
                                  np.swapaxes(A, -1, -2))
    np.testing.assert_array_equal(run(lambda x: x.mH, Tensor(A)).asnumpy(),
                                  np.swapaxes(A, -1, -2))
    # mT swaps the last two axes (GRAPH mode reversed all of them before), T reverses all
    np.testing.assert_array_equal(run(lambda x: x.mT, Tensor(A)).asnumpy(),
                                  np.swapaxes(A, -1, -2))
    np.testing.assert_array_equal(run(lambda x: x.T, Tensor(A)).asnumpy(), A.T)
    lo, hi = run(lambda x: x.aminmax(axis=1, keepdims=True), Tensor(A))
    np.testing.assert_array_equal(lo.asnumpy(), A.min(1, keepdims=True))
    np.testing.assert_array_equal(hi.asnumpy(), A.max(1, keepdims=True))
    for n in (1, 2):
        np.testing.assert_allclose(run(lambda x: x.diff(n=n, axis=1), Tensor(A)).asnumpy(),
                                   np.diff(A, n=n, axis=1), rtol=1e-6)
    pre = A[:, :, :1]
    np.testing.assert_allclose(
        run(lambda x: x.diff(prepend=Tensor(pre), append=Tensor(pre)), Tensor(A)).asnumpy(),
        np.diff(A, prepend=pre, append=pre), rtol=1e-6)


def test_logdet_sum_to_size_ldexp(mode):
    m = RNG.standard_normal((3, 4, 4)).astype(np.float32)
    spd = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4, dtype=np.float32)
    np.testing.assert_allclose(run(lambda x: x.logdet(), Tensor(spd)).asnumpy(),
                               np.linalg.slogdet(spd.astype(np.float64))[1], rtol=1e-4)
    np.testing.assert_allclose(run(lambda x: x.sum_to_size((4, 1)), Tensor(A)).asnumpy(),
                               A.sum(axis=(0, 2))[:, None], rtol=1e-5)
    np.testing.assert_allclose(run(lambda x: x.sum_to_size(1, 5), Tensor(A)).asnumpy(),
                               A.sum(axis=(0, 1))[None], rtol=1e-5)
    with pytest.raises(ValueError, match="sum_to_size"):
        Tensor(A).sum_to_size((3, 5))
    e = np.array([0, 1, 3, -2], np.int32)
    np.testing.assert_allclose(run(lambda x: x.ldexp(Tensor(e)), Tensor(A[0, 0, :4])).asnumpy(),
                               np.ldexp(A[0, 0, :4], e), rtol=1e-6)


def test_short_type_is_tensor_tril(mode):
    x = Tensor(np.array([[-1.7, 2.5], [3.9, -4.2]], np.float32))
    assert x.short().dtype == ms.int16
    np.testing.assert_array_equal(x.short().asnumpy(), np.array([[-1, 2], [3, -4]]))
    assert x.type() == "Float32"
    assert x.type(ms.int32).dtype == ms.int32
    assert ms.is_tensor(x) and ms.is_tensor(ms.Parameter(x)) and not ms.is_tensor(A)
    v = Tensor(np.arange(1, 10, dtype=np.int32).reshape(3, 3))
    for k in (-1, 0, 1):
        np.testing.assert_array_equal(nn.Tril()(v, k).asnumpy(), np.tril(v.asnumpy(), k))
        np.testing.assert_array_equal(nn.Triu()(v, k).asnumpy(), np.triu(v.asnumpy(), k))


@pytest.mark.parametrize("shape,wrap", [((6, 3), True), ((6, 3), False), ((3, 5), True),
                                        ((4, 4, 4), False)])
def test_fill_diagonal_matches_numpy(mode, shape, wrap):
    a = RNG.standard_normal(shape).astype(np.float32)
    want = a.copy()
    np.fill_diagonal(want, 5.0, wrap=wrap)
    np.testing.assert_array_equal(run(lambda x: x.fill_diagonal(5.0, wrap), Tensor(a)).asnumpy(),
                                  want)


def test_slice_and_select_scatter_match_torch(mode):
    import torch
    x = np.arange(40, dtype=np.float32).reshape(2, 5, 4)
    src = -np.ones((2, 2, 4), np.float32)
    got = run(lambda t: t.slice_scatter(Tensor(src), 1, 1, 5, 2), Tensor(x)).asnumpy()
    np.testing.assert_array_equal(
        got, torch.tensor(x).slice_scatter(torch.tensor(src), 1, 1, 5, 2).numpy())
    src2 = -np.ones((2, 4), np.float32)
    got = run(lambda t: t.select_scatter(Tensor(src2), 1, -2), Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, torch.tensor(x).select_scatter(torch.tensor(src2), 1,
                                                                      -2).numpy())
    with pytest.raises(ValueError, match="slice_scatter"):
        Tensor(x).slice_scatter(Tensor(src), 1, 0, 5, 1)


def test_logcumsumexp_histc_cov_match_torch(mode):
    import torch
    x = (RNG.standard_normal((3, 6)) * 30).astype(np.float32)  # large: the naive form overflows
    np.testing.assert_allclose(run(lambda t: t.logcumsumexp(1), Tensor(x)).asnumpy(),
                               torch.logcumsumexp(torch.tensor(x), 1).numpy(), rtol=1e-5)
    h = RNG.uniform(-1, 3, 50).astype(np.float32)
    np.testing.assert_array_equal(run(lambda t: t.histc(7, -0.5, 2.5), Tensor(h)).asnumpy(),
                                  torch.histc(torch.tensor(h), 7, -0.5, 2.5).numpy())
    np.testing.assert_array_equal(run(lambda t: t.histc(5), Tensor(h)).asnumpy(),
                                  torch.histc(torch.tensor(h), 5).numpy())
    v = RNG.standard_normal((3, 5)).astype(np.float32)
    fw = np.array([1, 2, 3, 1, 1], np.int64)
    aw = RNG.uniform(0.1, 1, 5).astype(np.float32)
    tv = torch.tensor(v)
    np.testing.assert_allclose(run(lambda t: t.cov(), Tensor(v)).asnumpy(),
                               torch.cov(tv).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        run(lambda t: t.cov(correction=0, fweights=Tensor(fw), aweights=Tensor(aw)),
            Tensor(v)).asnumpy(),
        torch.cov(tv, correction=0, fweights=torch.tensor(fw),
                  aweights=torch.tensor(aw)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sa,sb", [((2, 3), (1, 3, 2)), ((3,), (3,)), ((4, 3), (3,)),
                                   ((3,), (2, 3, 5)), ((2, 4, 3), (5, 3, 2)), ((2, 3), (3, 4))])
def test_dot_is_numpy_dot(mode, sa, sb):
    # N-D Tensor.dot was a broadcasting matmul ((2,3).dot((1,3,2)) gave (1,2,2), not (2,1,2))
    a = RNG.standard_normal(sa).astype(np.float32)
    b = RNG.standard_normal(sb).astype(np.float32)

    class Dot(nn.Cell):
        def construct(self, x, y):
            return x.dot(y)

    got = Dot()(Tensor(a), Tensor(b)).asnumpy()
    want = np.dot(a, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="dot"):
        Tensor(a).dot(Tensor(np.ones((7, 2), np.float32)))


def test_quantile_nanquantile_match_torch(mode):
    import torch
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    q = np.array([0.1, 0.7, 0.9], np.float32)
    for axis in (None, 0, 1):
        for kd in (False, True):
            got = run(lambda t: t.quantile(Tensor(q), axis, kd), Tensor(x)).asnumpy()
            want = torch.quantile(torch.tensor(x), torch.tensor(q), dim=axis, keepdim=kd).numpy()
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, atol=1e-6)
    np.testing.assert_allclose(run(lambda t: t.quantile(0.3, 1), Tensor(x)).asnumpy(),
                               torch.quantile(torch.tensor(x), 0.3, dim=1).numpy(), atol=1e-6)
    xn = x.copy()
    xn[0, 1] = np.nan
    xn[:, 3] = np.nan
    for axis in (None, 0, 1):
        got = run(lambda t: t.nanquantile(Tensor(q[:2]), axis), Tensor(xn)).asnumpy()
        want = torch.nanquantile(torch.tensor(xn), torch.tensor(q[:2]), dim=axis).numpy()
        np.testing.assert_allclose(got, want, atol=1e-6, equal_nan=True)
        got = run(lambda t: t.quantile(0.5, axis), Tensor(xn)).asnumpy()
        want = torch.quantile(torch.tensor(xn), 0.5, dim=axis).numpy()
        np.testing.assert_allclose(got, want, atol=1e-6, equal_nan=True)


def test_msort_and_diagflat(mode):
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(run(lambda t: t.msort(), Tensor(x)).asnumpy(), np.sort(x, 0))
    v = RNG.standard_normal((2, 2)).astype(np.float32)
    for off in (-2, 0, 1, 3):
        np.testing.assert_array_equal(run(lambda t: t.diagflat(off), Tensor(v)).asnumpy(),
                                      np.diagflat(v, off))
