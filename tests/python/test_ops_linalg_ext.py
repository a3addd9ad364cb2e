"""SelfAdjointEig, MatrixLogarithm, MatrixSolveLs / Lstsq / ops.lstsq, TridiagonalSolve and
NuclearNorm (composed, ops/function/linalg_ext_func.py) against numpy / scipy, in both
modes; gradients against finite differences; errors name the op."""
import numpy as np
import pytest
import scipy.linalg as sl

import mycel as ms
from mycel import nn, ops, Tensor
from mycel.ops.operations import math_ops as M, nn_ops as N
from mycel.ops import operations as P

RNG = np.random.default_rng(29)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


# ---- SelfAdjointEig ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 5), (1, 1), (2, 2), (12, 12)])
def test_self_adjoint_eig_matches_numpy(mode, dtype, tol, shape):
    a = RNG.standard_normal(shape).astype(dtype)  # not symmetric: the lower triangle counts
    w, v = _Fn(M.SelfAdjointEig())(Tensor(a))
    w, v = w.asnumpy(), v.asnumpy()
    wn = np.linalg.eigh(a.astype(np.float64))[0]  # numpy reads the lower triangle too
    assert w.dtype == dtype and v.shape == shape
    np.testing.assert_allclose(w, wn, rtol=tol, atol=tol)
    low = np.tril(a.astype(np.float64))
    sym = low + np.swapaxes(np.tril(low, -1), -1, -2)
    # A v = v diag(w) and V orthonormal (eigenvector signs are a convention)
    np.testing.assert_allclose(sym @ v, v * w[..., None, :], atol=50 * tol)
    eye = np.broadcast_to(np.eye(shape[-1]), v.shape)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye, atol=50 * tol)


def test_self_adjoint_eig_repeated_eigenvalues_and_ms_case(mode):
    q = np.linalg.qr(RNG.standard_normal((4, 4)))[0]
    a = q @ np.diag([2.0, 2.0, -1.0, 5.0]) @ q.T
    w, v = _Fn(M.SelfAdjointEig())(Tensor(a))
    np.testing.assert_allclose(w.asnumpy(), [-1, 2, 2, 5], atol=1e-12)
    np.testing.assert_allclose(v.asnumpy().T @ v.asnumpy(), np.eye(4), atol=1e-12)
    x = np.array([[2, 3, 4], [6, 7, 8], [4, 24, 4]], np.float64)  # MindSpore's test case
    w, _ = M.SelfAdjointEig()(Tensor(x))
    np.testing.assert_allclose(w.asnumpy(), np.linalg.eigh(x)[0], rtol=1e-12)
    w, v = M.SelfAdjointEig(compute_v=False)(Tensor(x))
    assert v.shape == (0,)


def test_self_adjoint_eig_gradient_of_eigenvalues():
    a = RNG.standard_normal((3, 3))
    a = a + a.T
    c = RNG.standard_normal(3)

    def loss(x):
        return (M.SelfAdjointEig()(x)[0] * Tensor(c)).sum()
    got = ms.grad(loss)(Tensor(a)).asnumpy()
    # d(sum c_i w_i)/dA for symmetric perturbations: V diag(c) V^T on the lower triangle
    w, v = np.linalg.eigh(a)
    g = v @ np.diag(c) @ v.T
    want = np.tril(2 * g) - np.diag(np.diag(g))  # the input's lower triangle is what is read
    np.testing.assert_allclose(got, want, atol=1e-8)


@pytest.mark.parametrize("dtype,tol", [(np.complex128, 1e-12), (np.complex64, 2e-5)])
def test_self_adjoint_eig_hermitian_matches_numpy(mode, dtype, tol):
    a = (RNG.standard_normal((2, 4, 4)) + 1j * RNG.standard_normal((2, 4, 4))).astype(dtype)
    w, v = _Fn(M.SelfAdjointEig())(Tensor(a))
    w, v = w.asnumpy(), v.asnumpy()
    assert w.dtype == dtype and v.dtype == dtype
    np.testing.assert_allclose(w, np.linalg.eigh(a.astype(np.complex128))[0], atol=tol)
    low = np.tril(a.astype(np.complex128), -1)
    herm = low + np.conj(np.swapaxes(low, -1, -2)) + \
        np.real(np.diagonal(a, 0, -2, -1))[..., None] * np.eye(4)
    np.testing.assert_allclose(herm @ v, v * w[..., None, :], atol=50 * tol)
    np.testing.assert_allclose(np.conj(np.swapaxes(v, -1, -2)) @ v,
                               np.broadcast_to(np.eye(4), v.shape), atol=50 * tol)


def test_self_adjoint_eig_errors():
    with pytest.raises(TypeError, match="SelfAdjointEig"):
        M.SelfAdjointEig()(Tensor(np.eye(2, dtype=np.int32)))
    with pytest.raises(ValueError, match="SelfAdjointEig"):
        M.SelfAdjointEig()(Tensor(np.ones((2, 3))))
    with pytest.raises(TypeError, match="SelfAdjointEig"):
        M.SelfAdjointEig(compute_v=1)


# ---- MatrixLogarithm -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype,tol", [(np.complex128, 1e-11), (np.complex64, 2e-5)])
def test_matrix_logarithm_matches_scipy(mode, dtype, tol):
    ms_case = np.array([[1 + 2j, 2 + 1j], [4 + 1j, 5 + 2j]])
    batch = np.stack([ms_case, RNG.standard_normal((2, 2)) + 3 * np.eye(2)])
    got = _Fn(M.MatrixLogarithm())(Tensor(batch.astype(dtype))).asnumpy()
    assert got.dtype == dtype
    for i in range(2):
        np.testing.assert_allclose(got[i], sl.logm(batch[i]), rtol=tol, atol=tol)
    a = (RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))) + 4 * np.eye(4)
    got = _Fn(M.MatrixLogarithm())(Tensor(a.astype(dtype))).asnumpy()
    np.testing.assert_allclose(got, sl.logm(a), rtol=10 * tol, atol=10 * tol)
    np.testing.assert_allclose(sl.expm(got.astype(np.complex128)), a, rtol=20 * tol,
                               atol=20 * tol)


def test_matrix_logarithm_defective_matrices(mode):
    """Jordan blocks (no basis of eigenvectors) take inverse scaling and squaring; a matrix
    neither method can trust is NaN, not a wrong logarithm."""
    cases = [np.array([[1, 1], [0, 1]]), np.array([[2, 1, 0], [0, 2, 1], [0, 0, 2]]),
             np.array([[1e-3, 1], [0, 1e-3]]), np.array([[1e3, 1], [0, 1e3]]),
             np.array([[1, 1e-3], [0, 1 + 1e-6]]),  # nearly defective: Eig still does
             np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 2 + 1j]])]
    for a in cases:
        a = a.astype(np.complex128)
        got = _Fn(M.MatrixLogarithm())(Tensor(a)).asnumpy()
        np.testing.assert_allclose(got, sl.logm(a), atol=5e-12)
    got = _Fn(M.MatrixLogarithm())(Tensor(np.array([[-1, 1], [0, -1]], np.complex128)))
    assert np.isnan(got.asnumpy()).all()  # defective with an eigenvalue at -1
    batch = np.stack([np.array([[1, 1], [0, 1]]), np.array([[2, 0.5], [1, 3]])])
    got = _Fn(M.MatrixLogarithm())(Tensor(batch.astype(np.complex64))).asnumpy()
    for i in range(2):
        np.testing.assert_allclose(got[i], sl.logm(batch[i]), atol=1e-6)


def _complex_fd(ref, a, eps=1e-6):
    """dL/dRe + i dL/dIm by central differences (mycel's gradient of a complex input)."""
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        num[idx] = (ref(a + d) - ref(a - d)) / (2 * eps) + \
            1j * (ref(a + 1j * d) - ref(a - 1j * d)) / (2 * eps)
    return num


def test_matrix_logarithm_gradient_on_both_paths(mode):
    def loss(x):
        return ops.real(M.MatrixLogarithm()(x)).sum()
    jordan = np.array([[1, 1], [0, 1]], np.complex128)  # inverse scaling and squaring
    got = ms.grad(loss)(Tensor(jordan)).asnumpy()
    np.testing.assert_allclose(got, _complex_fd(lambda x: np.real(sl.logm(x)).sum(), jordan),
                               atol=1e-7)
    # an eigenvalue at -1 (the branch cut: no finite differences across it): the divided
    # differences of log, and no NaN from the unused method's backward
    got = ms.grad(loss)(Tensor(np.diag([-1.0, 2.0]).astype(np.complex128))).asnumpy()
    lg = np.log(np.array([-1 + 0j, 2]))
    want = np.conj(np.array([[-1, (lg[0] - lg[1]) / -3], [(lg[1] - lg[0]) / 3, 0.5]]))
    np.testing.assert_allclose(got, want, atol=1e-10)


def test_matrix_logarithm_gradient_matches_finite_differences(mode):
    a = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    c = RNG.standard_normal((3, 3)).astype(np.complex128)

    def loss(x):
        return ops.real(M.MatrixLogarithm()(x) * Tensor(c)).sum()
    got = ms.grad(loss)(Tensor(a)).asnumpy()

    def ref(x):
        return np.real(sl.logm(x) * c).sum()
    eps = 1e-6
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        # a complex input's gradient is dL/dRe + i dL/dIm
        num[idx] = (ref(a + d) - ref(a - d)) / (2 * eps) + \
            1j * (ref(a + 1j * d) - ref(a - 1j * d)) / (2 * eps)
    np.testing.assert_allclose(got, num, atol=1e-7)


def test_matrix_logarithm_errors():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Fn(M.MatrixLogarithm())
        net.set_inputs(Tensor(shape=[None, None], dtype=ms.complex128))
        with pytest.raises(ValueError, match="MatrixLogarithm.*compile time"):
            net(Tensor(np.eye(2, dtype=np.complex128)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="MatrixLogarithm"):
        M.MatrixLogarithm()(Tensor(np.eye(2)))
    with pytest.raises(ValueError, match="MatrixLogarithm"):
        M.MatrixLogarithm()(Tensor(np.ones((2, 3), np.complex64)))


# ---- MatrixSolveLs, Lstsq ------------------------------------------------------------------

@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("mn", [(5, 3), (3, 5), (4, 4)])
def test_matrix_solve_ls_matches_numpy(mode, fast, mn):
    m, n = mn
    a = RNG.standard_normal((2, m, n))
    b = RNG.standard_normal((2, m, 2))
    got = _Fn(M.MatrixSolveLs(fast=fast))(Tensor(a), Tensor(b),
                                          Tensor(0.0, ms.float64)).asnumpy()
    want = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8)


def test_matrix_solve_ls_regularised_and_rank_deficient(mode):
    a = RNG.standard_normal((6, 3))
    b = RNG.standard_normal((6, 1))
    l2 = 0.7
    got = _Fn(M.MatrixSolveLs())(Tensor(a), Tensor(b), Tensor(l2, ms.float64)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.solve(a.T @ a + l2 * np.eye(3), a.T @ b),
                               rtol=1e-10)
    r = np.outer(RNG.standard_normal(5), RNG.standard_normal(3))  # rank 1
    got = _Fn(M.MatrixSolveLs(fast=False))(Tensor(r), Tensor(b[:5]),
                                           Tensor(0.0, ms.float64)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.lstsq(r, b[:5], rcond=None)[0], atol=1e-8)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("mn", [(5, 3), (2, 4)])
def test_matrix_solve_ls_complex_matches_numpy(mode, fast, mn):
    m, n = mn
    a = RNG.standard_normal((m, n)) + 1j * RNG.standard_normal((m, n))
    b = RNG.standard_normal((m, 2)) + 1j * RNG.standard_normal((m, 2))
    got = _Fn(M.MatrixSolveLs(fast=fast))(Tensor(a), Tensor(b),
                                          Tensor(0.0, ms.float64)).asnumpy()
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-10)
    if fast:
        l2 = 0.3
        got = _Fn(M.MatrixSolveLs())(Tensor(a.astype(np.complex64)),
                                     Tensor(b.astype(np.complex64)),
                                     Tensor(l2, ms.float64)).asnumpy()
        ah = a.conj().T
        want = np.linalg.solve(ah @ a + l2 * np.eye(n), ah @ b) if m >= n else \
            ah @ np.linalg.solve(a @ ah + l2 * np.eye(m), b)
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_lstsq_and_ops_lstsq(mode):
    x = np.array([[2, 1, 5], [3, 5, 1], [1, 1, 1]], np.float32)  # MindSpore's example
    a = np.array([[10, 5], [15, 8], [7, 4]], np.float32)
    got = _Fn(P.Lstsq(l2_regularizer=0.0, fast=True))(Tensor(x), Tensor(a)).asnumpy()
    np.testing.assert_allclose(got, [[17, 11], [-6.5, -4.5], [-3.5, -2.5]], rtol=1e-4)
    w = RNG.standard_normal((3, 6))
    v = RNG.standard_normal(3)
    got = _Fn(lambda p, q: ops.lstsq(p, q))(Tensor(w), Tensor(v)).asnumpy()
    assert got.shape == (6, 1)
    np.testing.assert_allclose(got[:, 0], np.linalg.lstsq(w, v, rcond=None)[0], atol=1e-10)
    h = _Fn(lambda p, q: ops.lstsq(p, q))(Tensor(x.astype(np.float16)),
                                          Tensor(a.astype(np.float16)))
    assert h.dtype == ms.float16
    # float32 computes in double: MindSpore's expectation to 4 decimals (the normal equations
    # in single precision miss it); the Tensor method is the same function
    got = _Fn(lambda p, q: p.lstsq(q))(Tensor(x), Tensor(a)).asnumpy()
    np.testing.assert_array_almost_equal(got, [[17, 11], [-6.5, -4.5], [-3.5, -2.5]], decimal=5)


def test_matrix_solve_ls_gradient_matches_finite_differences():
    a = RNG.standard_normal((4, 2))
    b = RNG.standard_normal((4, 1))
    l2 = Tensor(0.1, ms.float64)

    def f(x):
        return (M.MatrixSolveLs()(x, Tensor(b), l2) ** 2).sum()
    got = ms.grad(f)(Tensor(a)).asnumpy()
    eps = 1e-6
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        num[idx] = (f(Tensor(a + d)).asnumpy() - f(Tensor(a - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_least_squares_errors():
    with pytest.raises(TypeError, match="MatrixSolveLs"):
        M.MatrixSolveLs()(Tensor(np.eye(2)), Tensor(np.ones((2, 1), np.float32)),
                          Tensor(0.0, ms.float64))
    with pytest.raises(TypeError, match="MatrixSolveLs"):
        M.MatrixSolveLs()(Tensor(np.eye(2, dtype=np.int32)), Tensor(np.ones((2, 1), np.int32)),
                          Tensor(0.0, ms.float64))
    with pytest.raises(ValueError, match="MatrixSolveLs"):
        M.MatrixSolveLs()(Tensor(np.eye(2)), Tensor(np.ones((3, 1))), Tensor(0.0, ms.float64))
    with pytest.raises(TypeError, match="MatrixSolveLs"):
        M.MatrixSolveLs(fast="yes")
    with pytest.raises(ValueError, match="lstsq"):
        ops.lstsq(Tensor(np.ones((2, 2, 2))), Tensor(np.ones((2, 1))))
    with pytest.raises(TypeError, match="lstsq"):
        ops.lstsq(Tensor(np.ones((2, 2), np.int32)), Tensor(np.ones((2, 1), np.int32)))


# ---- TridiagonalSolve ----------------------------------------------------------------------

def _dense_tri(d):
    return np.diag(d[1]) + np.diag(d[0][:-1], 1) + np.diag(d[2][1:], -1)


@pytest.mark.parametrize("pivot", [True, False])
def test_tridiagonal_solve_matches_scipy(mode, pivot):
    d = RNG.standard_normal((2, 3, 5))
    r = RNG.standard_normal((2, 5, 2))
    got = _Fn(M.TridiagonalSolve(partial_pivoting=pivot))(Tensor(d), Tensor(r)).asnumpy()
    for i in range(2):
        ab = np.stack([np.r_[0, d[i, 0, :-1]], d[i, 1], np.r_[d[i, 2, 1:], 0]])
        np.testing.assert_allclose(got[i], sl.solve_banded((1, 1), ab, r[i]), rtol=1e-9,
                                   atol=1e-9)
    ms_d = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0]], np.float32)
    ms_r = np.array([[1.0], [2.0], [3.0]], np.float32)
    got = _Fn(M.TridiagonalSolve())(Tensor(ms_d), Tensor(ms_r)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.solve(_dense_tri(ms_d), ms_r), rtol=1e-5)


def test_tridiagonal_solve_complex(mode):
    d = RNG.standard_normal((3, 5)) + 1j * RNG.standard_normal((3, 5))
    r = RNG.standard_normal((5, 2)) + 1j * RNG.standard_normal((5, 2))
    got = _Fn(M.TridiagonalSolve())(Tensor(d), Tensor(r)).asnumpy()
    np.testing.assert_allclose(got, np.linalg.solve(_dense_tri(d), r), rtol=1e-10, atol=1e-12)


def test_tridiagonal_solve_gradient_and_errors():
    d = RNG.standard_normal((3, 4)) + np.array([[0], [4], [0]])
    r = RNG.standard_normal((4, 1))

    def f(rhs):
        return (M.TridiagonalSolve()(Tensor(d), rhs) * Tensor(np.arange(4.0)[:, None])).sum()
    got = ms.grad(f)(Tensor(r)).asnumpy()
    want = np.linalg.solve(_dense_tri(d).T, np.arange(4.0)[:, None])
    np.testing.assert_allclose(got, want, rtol=1e-10)
    with pytest.raises(ValueError, match="TridiagonalSolve"):
        M.TridiagonalSolve()(Tensor(np.ones((2, 4))), Tensor(np.ones((4, 1))))
    with pytest.raises(TypeError, match="TridiagonalSolve"):
        M.TridiagonalSolve()(Tensor(np.ones((3, 4))), Tensor(np.ones((4, 1), np.float32)))


# ---- NuclearNorm ---------------------------------------------------------------------------

@pytest.mark.parametrize("dim,keepdim", [([1, 2], True), ((0, 2), False), ([-1, 1], False)])
def test_nuclear_norm_matches_numpy(mode, dim, keepdim):
    x = RNG.standard_normal((2, 3, 4))
    got = _Fn(N.NuclearNorm(dim=dim, keepdim=keepdim))(Tensor(x)).asnumpy()
    moved = np.moveaxis(x, [d % 3 for d in dim], [-2, -1])
    want = np.linalg.norm(moved, "nuc", axis=(-2, -1))
    if keepdim:
        want = np.expand_dims(want, tuple(d % 3 for d in dim))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10)
    y = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(_Fn(N.NuclearNorm())(Tensor(y)).asnumpy(),
                               np.linalg.norm(y.astype(np.float64), "nuc"), rtol=1e-5)


def test_nuclear_norm_errors():
    with pytest.raises(ValueError, match="NuclearNorm"):
        N.NuclearNorm()(Tensor(np.ones((2, 3, 4))))
    with pytest.raises(ValueError, match="NuclearNorm"):
        N.NuclearNorm(dim=[1, 1])(Tensor(np.ones((2, 3, 4))))
    with pytest.raises(ValueError, match="NuclearNorm"):
        N.NuclearNorm(dim=[0, 3])(Tensor(np.ones((2, 3, 4))))
    with pytest.raises(TypeError, match="NuclearNorm"):
        N.NuclearNorm()(Tensor(np.ones((2, 3), np.int32)))
