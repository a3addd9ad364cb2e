"""eigh: the eigen-decomposition of real symmetric matrices [..., N, N] by cyclic Jacobi
rotations, composed from ops (graph mode compiles it, autodiff differentiates it; N is static).

Each rotation J zeroes one off-diagonal pair (p, q): with tau = (a_qq - a_pp) / (2 a_pq),
t = sign(tau) / (|tau| + sqrt(1 + tau^2)), c = 1 / sqrt(1 + t^2), s = c t, A <- J^T A J and
V <- V J. 6 + N / 3 sweeps over all pairs (Jacobi converges quadratically once the
off-diagonal is small: float64 reaches rounding level for N up to ~50). The eigenvalues come
ascending, the eigenvectors as V's columns in that order. float32 / complex64 inputs rotate in
float64 / complex128 and round the results back: the hundreds of unrolled rotations (and
autodiff through them) lose float32's few digits otherwise. Only the triangle `lower` names is
read (the matrix is mirrored from it), as LAPACK's syevd.

Complex Hermitian matrices take the same rotations after a phase: with a_pq = |a_pq| e^{i phi},
J = diag(.., 1 at p, e^{-i phi} at q, ..) R makes the pair real before the real rotation R;
A <- J^H A J keeps the diagonal real, the eigenvalues come real (float32 / float64) and the
eigenvectors complex."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import array_func as _a, math_func as _m
from mycel.ops.function import complex_func as _cx
from mycel.ops.function.layout_func import tril as _tril, triu as _triu
from mycel.ops.function.sort_scan_func import sort as _sort
from mycel.ops.primitive import constexpr


_REAL = {_C.complex64: _C.float32, _C.complex128: _C.float64}
_WORK = {_C.float32: _C.float64, _C.complex64: _C.complex128}


@constexpr
def _work_dtype(dtype):
    """The dtype the rotations run in for dtype (None: dtype itself)."""
    return _WORK.get(dtype)


@constexpr
def _real_plan(dtype):
    """(whether dtype is complex, its real dtype, the rotation threshold)."""
    real = _REAL.get(dtype, dtype)
    return dtype in _REAL, real, 1e-300 if real == _C.float64 else 1e-37


@constexpr
def _plan(shape, dtype):
    if dtype not in (_C.float32, _C.float64, _C.complex64, _C.complex128):
        raise TypeError(f"For 'eigh', the input must be float32, float64, complex64 or "
                        f"complex128, but got {dtype}.")
    if any(d is None or d < 0 for d in shape):
        raise ValueError(f"For 'eigh', the input must have a static shape (the rotations unroll "
                         f"over its size), but got shape {tuple(shape)}.")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'eigh', the input must be square matrices [..., N, N], but got "
                         f"shape {tuple(shape)}.")
    return shape[-1]


@constexpr
def _eye(n, dtype):
    return _C.Tensor(np.eye(n)).astype(dtype)


@constexpr
def _pair_consts(n, p, q, dtype):
    """The one-hot matrices E_pp, E_qq, E_pq, E_qp."""
    out = []
    for i, j in ((p, p), (q, q), (p, q), (q, p)):
        e = np.zeros((n, n))
        e[i, j] = 1.0
        out.append(_C.Tensor(e).astype(dtype))
    return tuple(out)


def _mt(a):
    n = a.ndim
    return _a.transpose(a, tuple(range(n - 2)) + (n - 1, n - 2))


def _rotate(a, v, n, p, q, tiny):
    epp, eqq, epq, eqp = _pair_consts(n, p, q, a.dtype)
    app = _m.sum(a * epp, (-2, -1), True)
    aqq = _m.sum(a * eqq, (-2, -1), True)
    apq = _m.sum(a * epq, (-2, -1), True)
    small = _m.less_equal(_m.abs(apq), tiny)
    safe = _m.where(small, _a.ones_like(apq), apq)
    tau = (aqq - app) / (2.0 * safe)
    sgn = _m.where(_m.greater_equal(tau, 0), _a.ones_like(tau), -_a.ones_like(tau))
    t = sgn / (_m.abs(tau) + _m.sqrt(1.0 + tau * tau))
    t = _m.where(small, _a.zeros_like(t), t)
    c = 1.0 / _m.sqrt(1.0 + t * t)
    s = c * t
    j = _eye(n, a.dtype) + (c - 1.0) * (epp + eqq) + s * (epq - eqp)
    return _m.matmul(_mt(j), _m.matmul(a, j)), _m.matmul(v, j)


def _rotate_complex(a, v, n, p, q, tiny):
    epp, eqq, epq, eqp = _pair_consts(n, p, q, a.dtype)
    app = _cx.real(_m.sum(a * epp, (-2, -1), True))
    aqq = _cx.real(_m.sum(a * eqq, (-2, -1), True))
    apq = _m.sum(a * epq, (-2, -1), True)
    mag = _m.abs(apq)
    small = _m.less_equal(mag, tiny)
    safe = _m.where(small, _a.ones_like(mag), mag)
    phase = _m.where(small, _a.ones_like(apq), apq / safe.astype(a.dtype))  # e^{i phi}
    tau = (aqq - app) / (2.0 * safe)
    sgn = _m.where(_m.greater_equal(tau, 0), _a.ones_like(tau), -_a.ones_like(tau))
    t = sgn / (_m.abs(tau) + _m.sqrt(1.0 + tau * tau))
    t = _m.where(small, _a.zeros_like(t), t)
    c = (1.0 / _m.sqrt(1.0 + t * t)).astype(a.dtype)
    s = c * t.astype(a.dtype)
    back = _cx.conj(phase)  # e^{-i phi}
    j = _eye(n, a.dtype) + (c - 1.0) * epp + (c * back - 1.0) * eqq + s * epq - s * back * eqp
    jh = _cx.conj(_mt(j))
    return _m.matmul(jh, _m.matmul(a, j)), _m.matmul(v, j)


def eigh(a, lower=True):
    """(w [..., N] ascending, v [..., N, N]) with sym(a) v = v diag(w), sym(a) the symmetric
    (Hermitian) matrix of a's lower (or upper) triangle; w is real."""
    n = _plan(a.shape, a.dtype)
    work = _work_dtype(a.dtype)
    if work is not None:  # float32 / complex64 rotate in double precision (see the docstring)
        w, v = eigh(a.astype(work), lower)
        return w.astype(_real_plan(a.dtype)[1]), v.astype(a.dtype)
    eye = _eye(n, a.dtype)
    tri = _tril(a) if lower else _triu(a)
    complex_, _, tiny = _real_plan(a.dtype)
    off = tri - tri * eye
    diag = tri * eye
    if complex_:  # the diagonal's imaginary part is not read (LAPACK's heevd)
        a = off + _cx.conj(_mt(off)) + _cx.real(diag).astype(a.dtype)
    else:
        a = off + _mt(off) + diag
    v = _a.zeros_like(a) + eye
    rotate = _rotate_complex if complex_ else _rotate
    for _ in range(6 + n // 3):
        for p in range(n - 1):
            for q in range(p + 1, n):
                a, v = rotate(a, v, n, p, q, tiny)
    w = _m.sum(a * eye, -1)
    if complex_:
        w = _cx.real(w)
    w, order = _sort(w, -1)
    idx = _a.broadcast_to(_a.expand_dims(order, -2), tuple(v.shape))
    return w, _a.gather_elements(v, -1, idx)
