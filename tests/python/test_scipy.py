"""mycel.scipy against scipy (the oracle by definition): the triangular, Cholesky and LU
solves and factorizations, eigh (and the Eigh primitive), inv, det, block_diag, the type-2
DCTs, minimize (BFGS, LBFGS), line_search and linear_sum_assignment; gradients against finite
differences; GRAPH mode against PYNATIVE; bad input is a typed error."""
import numpy as np
import pytest
import scipy.fft as sfft
import scipy.linalg as sla

import mycel as ms
import mycel.scipy as msp
from mycel import ops
from mycel.ops.operations.linalg_ops import Eigh

RNG = np.random.default_rng(3)
FLOATS = [(np.float32, 1e-4), (np.float64, 1e-10)]


def _np(x):
    return x.asnumpy() if isinstance(x, ms.Tensor) else np.asarray(x)


def _close(got, want, tol):
    np.testing.assert_allclose(_np(got), want, rtol=tol, atol=tol)


def _well_conditioned(n, dtype):
    return (RNG.standard_normal((n, n)) + n * np.eye(n)).astype(dtype)


def _spd(n, dtype):
    a = RNG.standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def _in_graph(fn, *args):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return ms.jit(fn)(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("dtype,tol", FLOATS)
@pytest.mark.parametrize("trans", [0, "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(dtype, tol, trans, lower, unit):
    a = _well_conditioned(6, dtype)
    for bshape in [(6,), (6, 3)]:
        b = RNG.standard_normal(bshape).astype(dtype)
        got = msp.linalg.solve_triangular(ms.Tensor(a), ms.Tensor(b), trans, lower, unit)
        _close(got, sla.solve_triangular(a, b, trans, lower, unit), tol * 10)


def test_solve_triangular_batched_and_graph():
    a = np.stack([_well_conditioned(5, np.float64) for _ in range(3)])
    b = RNG.standard_normal((3, 5, 2))
    want = np.stack([sla.solve_triangular(a[i], b[i], lower=True) for i in range(3)])
    _close(msp.linalg.solve_triangular(ms.Tensor(a), ms.Tensor(b), lower=True), want, 1e-10)
    got = _in_graph(lambda x, y: msp.linalg.solve_triangular(x, y, lower=True), ms.Tensor(a),
                    ms.Tensor(b))
    _close(got, want, 1e-10)


def test_solve_triangular_gradient_matches_finite_differences():
    a = _well_conditioned(4, np.float64)
    b = RNG.standard_normal((4, 2))

    def loss(x):
        return (msp.linalg.solve_triangular(x, ms.Tensor(b), lower=True) ** 2).sum()
    g = ms.grad(loss)(ms.Tensor(a)).asnumpy()
    num = np.zeros_like(a)
    eps = 1e-6
    for idx in np.ndindex(*a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        num[idx] = (loss(ms.Tensor(a + d)).asnumpy() - loss(ms.Tensor(a - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype,tol", FLOATS)
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_family(dtype, tol, lower):
    a = _spd(5, dtype)
    b = RNG.standard_normal((5, 2)).astype(dtype)
    _close(msp.linalg.cholesky(ms.Tensor(a), lower=lower), sla.cholesky(a, lower=lower), tol)
    c, low = msp.linalg.cho_factor(ms.Tensor(a), lower=lower)
    assert low is lower
    want = sla.cho_solve(sla.cho_factor(a, lower=lower), b)
    _close(msp.linalg.cho_solve((c, low), ms.Tensor(b)), want, tol * 10)


@pytest.mark.parametrize("dtype,tol", FLOATS)
@pytest.mark.parametrize("shape", [(4, 4), (4, 6), (7, 3), (1, 1)])
def test_lu(dtype, tol, shape):
    a = RNG.standard_normal(shape).astype(dtype)
    p, l, u = msp.linalg.lu(ms.Tensor(a))
    wp, wl, wu = sla.lu(a)
    _close(p, wp, 0)
    _close(l, wl, tol * 10)
    _close(u, wu, tol * 10)
    pl, u2 = msp.linalg.lu(ms.Tensor(a), permute_l=True)
    _close(pl, wp @ wl, tol * 10)


@pytest.mark.parametrize("dtype,tol", FLOATS)
@pytest.mark.parametrize("trans", [0, 1])
def test_lu_factor_and_solve(dtype, tol, trans):
    a = _well_conditioned(6, dtype)
    a[0, 0] = 0.0  # forces a pivot
    lu, piv = msp.linalg.lu_factor(ms.Tensor(a))
    wlu, wpiv = sla.lu_factor(a)
    _close(lu, wlu, tol * 10)
    np.testing.assert_array_equal(piv.asnumpy(), wpiv)
    for bshape in [(6,), (6, 2)]:
        b = RNG.standard_normal(bshape).astype(dtype)
        got = msp.linalg.lu_solve((lu, piv), ms.Tensor(b), trans)
        _close(got, sla.lu_solve((wlu, wpiv), b, trans), tol * 10)


@pytest.mark.parametrize("n", [1, 4, 9])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(n, lower):
    a = RNG.standard_normal((n, n))  # not symmetric: only one triangle is read
    sym = np.tril(a) + np.tril(a, -1).T if lower else np.triu(a) + np.triu(a, 1).T
    w, v = msp.linalg.eigh(ms.Tensor(a), lower=lower)
    _close(w, sla.eigh(sym, eigvals_only=True), 1e-10)
    vv = v.asnumpy()
    _close(vv.T @ vv, np.eye(n), 1e-10)
    _close(sym @ vv, vv * w.asnumpy(), 1e-9)
    _close(msp.linalg.eigh(ms.Tensor(a.astype(np.float32)), lower=lower, eigvals_only=True),
           sla.eigh(sym, eigvals_only=True), 1e-4)


@pytest.mark.parametrize("dtype,tol", [(np.complex64, 1e-4), (np.complex128, 1e-10)])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_hermitian(dtype, tol, lower):
    n = 6
    a = (RNG.standard_normal((n, n)) + 1j * RNG.standard_normal((n, n))).astype(dtype)
    off = np.tril(a, -1) if lower else np.triu(a, 1)
    herm = off + off.conj().T + np.diag(np.diag(a).real)  # the diagonal's imaginary part unread
    w, v = msp.linalg.eigh(ms.Tensor(a), lower=lower)
    assert w.dtype == (ms.float32 if dtype == np.complex64 else ms.float64)
    _close(w, sla.eigh(herm, eigvals_only=True), tol * 10)
    vv = v.asnumpy()
    _close(vv.conj().T @ vv, np.eye(n), tol * 10)
    _close(herm @ vv, vv * w.asnumpy(), tol * 10)


def test_eigh_primitive_graph_and_gradient():
    a = _spd(4, np.float64)
    w_eager, v_eager = Eigh(True, True)(ms.Tensor(a))
    w_graph, v_graph = _in_graph(lambda x: Eigh(True, True)(x), ms.Tensor(a))
    _close(w_graph, w_eager.asnumpy(), 1e-12)
    _close(np.abs(v_graph.asnumpy()), np.abs(v_eager.asnumpy()), 1e-10)
    _close(Eigh(False)(ms.Tensor(a)), np.linalg.eigvalsh(a), 1e-10)
    # d(sum of the k smallest eigenvalues)/dA = V_k V_k^T (symmetric input, distinct values)
    g = ms.grad(lambda x: Eigh(False, True)(x)[:2].sum())(ms.Tensor(a)).asnumpy()
    _, vecs = np.linalg.eigh(a)
    want = vecs[:, :2] @ vecs[:, :2].T
    want_lower = np.tril(2 * want - np.diag(np.diag(want)))  # only the lower triangle is read
    _close(g, want_lower, 1e-7)


def test_inv_det_block_diag():
    a = _well_conditioned(5, np.float64)
    _close(msp.linalg.inv(ms.Tensor(a)), np.linalg.inv(a), 1e-10)
    _close(msp.linalg.det(ms.Tensor(a)), np.linalg.det(a), 1e-8)
    args = [np.ones((3, 4), np.float32), np.float32(5), RNG.standard_normal(2).astype(np.float32)]
    _close(msp.linalg.block_diag(*[ms.Tensor(x) for x in args]), sla.block_diag(*args), 0)
    _close(msp.linalg.block_diag(), sla.block_diag(), 0)
    assert msp.linalg.block_diag().shape == (1, 0)


def test_bad_input_is_a_typed_error():
    a = ms.Tensor(_well_conditioned(4, np.float32))
    with pytest.raises(ValueError, match="trans"):
        msp.linalg.solve_triangular(a, a, trans=3)
    with pytest.raises(ValueError, match="rows"):
        msp.linalg.solve_triangular(a, ms.Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(ValueError, match="square"):
        msp.linalg.cholesky(ms.Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(TypeError, match="lower"):
        msp.linalg.eigh(a, lower=None)
    with pytest.raises(TypeError, match="float32"):
        msp.linalg.eigh(ms.Tensor(np.ones((3, 3), np.float16)))
    with pytest.raises(ValueError):
        msp.linalg.eigh(ms.Tensor(np.ones((2, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="not supported"):
        msp.linalg.eigh(a, a)
    with pytest.raises(ValueError, match="type 2"):
        msp.fft.dct(a, type=3)
    with pytest.raises(ValueError, match="norm"):
        msp.fft.idct(a, norm="none")


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("dtype,tol", FLOATS)
def test_dct_family(norm, dtype, tol):
    x = RNG.standard_normal((3, 5, 6)).astype(dtype)
    t = ms.Tensor(x)
    scale = tol * 100
    _close(msp.fft.dct(t, norm=norm), sfft.dct(x, norm=norm), scale)
    _close(msp.fft.idct(t, n=4, axis=1, norm=norm), sfft.idct(x, n=4, axis=1, norm=norm), scale)
    _close(msp.fft.dct(t, n=8, axis=0, norm=norm), sfft.dct(x, n=8, axis=0, norm=norm), scale)
    _close(msp.fft.dctn(t, norm=norm), sfft.dctn(x, norm=norm), scale)
    _close(msp.fft.idctn(t, s=(4, 7), norm=norm), sfft.idctn(x, s=(4, 7), norm=norm), scale)
    _close(msp.fft.idctn(t, axes=(0, 2), norm=norm), sfft.idctn(x, axes=(0, 2), norm=norm),
           scale)


def test_dct_graph_and_gradient():
    x = RNG.standard_normal((4, 6))
    want = sfft.dct(x, norm="ortho")
    _close(_in_graph(lambda t: msp.fft.dct(t, norm="ortho"), ms.Tensor(x)), want, 1e-12)
    # the DCT is linear: d(sum(dct(x) * w))/dx = dct's adjoint applied to w = idct-ortho(w)
    w = RNG.standard_normal((4, 6))
    g = ms.grad(lambda t: (msp.fft.dct(t, norm="ortho") * ms.Tensor(w)).sum())(ms.Tensor(x))
    _close(g, sfft.idct(w, norm="ortho"), 1e-12)


def test_eig_and_utils():
    a = RNG.standard_normal((2, 4, 4)).astype(np.float32)
    w, v = msp.ops.Eig(True)(ms.Tensor(a))
    wv = v.asnumpy()
    np.testing.assert_allclose(a.astype(np.complex64) @ wv, wv * w.asnumpy()[:, None, :],
                               rtol=1e-3, atol=1e-3)
    w2, empty = msp.ops.Eig(False)(ms.Tensor(a))
    _close(w2, w.asnumpy(), 0)
    assert empty.shape == (0,)
    with pytest.raises(ValueError):
        msp.ops.Eig(True)(ms.Tensor(np.ones((3,), np.float32)))
    _close(msp.utils._nd_transpose(ms.Tensor(a)), np.swapaxes(a, -1, -2), 0)
    band = ops.matrix_band_part(ms.Tensor(a), 1, 0)
    _close(msp.ops_wrapper.matrix_band_part(ms.Tensor(a), 1, 0), band.asnumpy(), 0)


# ---- optimize -------------------------------------------------------------------------------
def _rosenbrock(m):
    return lambda x: m.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _himmelblau(m):
    return lambda p: (p[0] ** 2 + p[1] - 11.0) ** 2 + (p[0] + p[1] ** 2 - 7.0) ** 2


@pytest.mark.parametrize("method", ["BFGS", "LBFGS"])
@pytest.mark.parametrize("func,x0", [(_rosenbrock, np.zeros(2)), (_rosenbrock, np.zeros(6)),
                                     (_himmelblau, np.zeros(2))])
def test_minimize_matches_scipy(method, func, x0):
    import mycel.numpy as mnp
    import scipy.optimize as sopt
    got = msp.optimize.minimize(func(mnp), ms.Tensor(x0), method=method,
                                options=dict(gtol=1e-8))
    want = sopt.minimize(func(np), x0, method="BFGS", options=dict(gtol=1e-8))
    assert got.success and got.status == 0
    _close(got.x, want.x, 1e-5)
    assert abs(float(got.fun.asnumpy()) - want.fun) < 1e-9
    assert np.abs(got.jac.asnumpy()).max() <= 1e-8


def test_minimize_badly_scaled_float32():
    import mycel.numpy as mnp
    a = ms.Tensor(np.eye(2, dtype=np.float32)) * 1e4
    for method in ("BFGS", "LBFGS"):
        res = msp.optimize.minimize(lambda x: mnp.mean(mnp.dot(a, x) ** 2),
                                    ms.Tensor(np.ones(2, np.float32)), method=method,
                                    options=dict(gtol=1e-6))
        _close(res.x, np.zeros(2), 1e-6)
    with pytest.raises(ValueError, match="method"):
        msp.optimize.minimize(lambda x: x.sum(), ms.Tensor(np.ones(2)), method="CG")
    with pytest.raises(ValueError, match="1-D"):
        msp.optimize.minimize(lambda x: x.sum(), ms.Tensor(np.ones((2, 2))))


@pytest.mark.parametrize("case", range(4))
def test_line_search_matches_scipy(case):
    import mycel.numpy as mnp
    from scipy.optimize import line_search as sp_line_search
    a = RNG.standard_normal((5, 5))
    a = a @ a.T + np.eye(5)
    funcs = [
        (lambda m: (lambda x: -x - x ** 3 + x ** 4), lambda x: -1 - 3 * x ** 2 + 4 * x ** 3,
         np.array(0.0), np.array(1.0)),
        (lambda m: (lambda x: m.exp(-4 * x) + x ** 2), lambda x: -4 * np.exp(-4 * x) + 2 * x,
         np.array(0.0), np.array(1.0)),
        (lambda m: (lambda x: -m.sin(10 * x)), lambda x: -10 * np.cos(10 * x),
         np.array(0.0), np.array(1.0)),
        (lambda m: (lambda x: m.dot(x, m.dot(a if m is np else ms.Tensor(a), x)) + 1),
         lambda x: 2 * a @ x, RNG.standard_normal(5), None),
    ]
    f, fprime, x, p = funcs[case]
    if p is None:
        p = -fprime(x)
    want = sp_line_search(f(np), fprime, x, p, maxiter=10)
    got = msp.optimize.line_search(f(mnp), ms.Tensor(x), ms.Tensor(p), maxiter=10)
    assert not got.failed
    np.testing.assert_allclose(float(got.a_k.asnumpy()), want[0], rtol=1e-8)
    np.testing.assert_allclose(float(got.f_k.asnumpy()), want[3], rtol=1e-8)


@pytest.mark.parametrize("shape", [(5, 5), (4, 7), (7, 4), (1, 3)])
@pytest.mark.parametrize("maximize", [False, True])
def test_linear_sum_assignment_matches_scipy(shape, maximize):
    import scipy.optimize as sopt
    c = RNG.integers(0, 20, shape).astype(np.float64)
    r, col = msp.optimize.linear_sum_assignment(ms.Tensor(c), maximize)
    wr, wc = sopt.linear_sum_assignment(c, maximize)
    assert c[r.asnumpy(), col.asnumpy()].sum() == c[wr, wc].sum()
    np.testing.assert_array_equal(r.asnumpy(), wr)


def test_linear_sum_assignment_limit_graph_and_primitive():
    cost = ms.Tensor(np.array([[2, 3, 3], [3, 2, 3], [3, 3, 2]], np.int32))
    limit = ms.Tensor(2)
    want = np.array([0, 1, -1])
    for got in (msp.optimize.linear_sum_assignment(cost, False, limit),
                msp.ops.LinearSumAssignment()(cost, limit, False),
                _in_graph(lambda c, d: msp.optimize.linear_sum_assignment(c, False, d), cost,
                          limit)):
        np.testing.assert_array_equal(got[0].asnumpy(), want)
        np.testing.assert_array_equal(got[1].asnumpy(), want)
    with pytest.raises(TypeError, match="maximize"):
        msp.optimize.linear_sum_assignment(cost, 1)
    with pytest.raises(ValueError, match="NaN"):
        msp.optimize.linear_sum_assignment(ms.Tensor(np.array([[np.nan, 1.0]])), False)


@pytest.mark.parametrize("sa,sb", [((5, 5), (5, 3)), ((6, 3), (6, 2)), ((3, 5), (3,)),
                                   ((6, 3), (6,))])
def test_lstsq_matches_scipy(sa, sb):
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    got = msp.linalg.lstsq(ms.Tensor(a), ms.Tensor(b))
    want = sla.lstsq(a, b, lapack_driver="gelss")
    for g, w in zip(got, want):
        assert _np(g).shape == np.shape(w)
        _close(g, w, 1e-10)
    low = a.copy()
    low[:, -1] = low[:, 0]  # rank deficient: one column repeats another
    got = msp.linalg.lstsq(ms.Tensor(low), ms.Tensor(b))
    want = sla.lstsq(low, b, lapack_driver="gelss")
    assert int(got[2].asnumpy()) == want[2]
    _close(got[0], want[0], 1e-8)


def test_lstsq_gradient_is_pinvs():
    a, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 3))
    # d(sum x)/db = pinv(a)^T 1
    g = ms.grad(lambda y: msp.linalg.lstsq(ms.Tensor(a), y)[0].sum())(ms.Tensor(b))
    _close(g, np.linalg.pinv(a).T @ np.ones((5, 3)), 1e-8)


def test_dynamic_shapes_are_refused_with_a_clear_error():
    class Net(ms.nn.Cell):
        def construct(self, a, b):
            return msp.linalg.solve_triangular(a, b, lower=True)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        place = ms.Tensor(shape=[None, None], dtype=ms.float32)
        net.set_inputs(place, place)
        a = ms.Tensor(_well_conditioned(3, np.float32))
        with pytest.raises(ValueError, match="static shape"):
            net(a, a)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
