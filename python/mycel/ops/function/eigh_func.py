"""eigh: the eigen-decomposition of Hermitian (real symmetric) matrices [..., N, N] from the
triangle `lower` names (as LAPACK's syevd/heevd read it), by the cyclic Jacobi method composed
from ops (graph mode compiles it, autodiff differentiates it; N is static). The one
implementation behind ops' Eigh, P.SelfAdjointEig and mycel.scipy.linalg.eigh.

Each rotation A <- J^H A J zeroes A[p, q] with t = sign(z) / (|z| + sqrt(1 + z^2)),
z = (A[q, q] - A[p, p]) / (2 |A[p, q]|), c = 1 / sqrt(1 + t^2), s = c t; a complex A[p, q]'s
phase moves into J first (U = D R, D = diag(.., conj(A[p, q]) / |A[p, q]| at q, ..)), so the
diagonal stays real; no rotation where A[p, q] is negligible. Each sweep runs the pairs in the
round-robin order, N - 1 rounds (N for odd N) of N / 2 disjoint rotations applied as one
matrix (parallel Jacobi: O(N) matmuls per sweep, so the unrolled graph stays small). 8 + N / 4
sweeps (convergence is quadratic once the off-diagonal part is small): about 1e-15 relative
in float64 for the small and moderate matrices this is meant for. float32 / complex64 inputs
rotate in float64 / complex128 and round the results back: the hundreds of unrolled rotations
(and autodiff through them) lose float32's few digits otherwise. The eigenvalues come
ascending and real, the eigenvectors as unit columns in that order (signs / phases not
normalised)."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_REAL = {_C.complex64: _C.float32, _C.complex128: _C.float64}
_WORK = {_C.float32: _C.float64, _C.complex64: _C.complex128}
_COMPLEX = (_C.complex64, _C.complex128)


def _np_dtype(dtype):
    return {_C.float64: np.float64, _C.complex64: np.complex64,
            _C.complex128: np.complex128}.get(dtype, np.float32)


def _t(a):
    n = a.ndim
    return prim("Transpose")(a, tuple(range(n - 2)) + (n - 1, n - 2))


def _mm(a, b):
    return prim("BatchMatMul")(a, b) if a.ndim > 2 or b.ndim > 2 else prim("MatMul")(a, b)


@constexpr
def _plan(shape, dtype, op):
    """(N, the number of sweeps, the dtype the rotations run in or None for dtype itself)."""
    if dtype not in (_C.float32, _C.float64) + _COMPLEX:
        raise TypeError(f"For '{op}', the input must be float32, float64, complex64 or "
                        f"complex128, but got {dtype}.")
    if any(d is None or d < 0 for d in shape):
        raise ValueError(f"For '{op}', the input must have a static shape (the rotations unroll "
                         f"over its size), but got shape {tuple(shape)}.")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For '{op}', the input must be square matrices [..., N, N], but got "
                         f"shape {tuple(shape)}.")
    return shape[-1], 8 + shape[-1] // 4, _WORK.get(dtype)


@constexpr
def _round_robin(n, dtype):
    """The rounds of a parallel Jacobi sweep (the round-robin schedule: n - 1 rounds, or n
    for odd n, of disjoint pairs p < q covering every pair once), each as (flat index of
    A[p, p], of A[q, q], of A[p, q], and the [K, N*N] one-hot placements of the pairs'
    entries pp, qq, pq, qp in a flattened N x N matrix), and the flattened identity."""
    d = _np_dtype(dtype)
    m = n + (n % 2)
    players = list(range(m))
    rounds = []
    for _ in range(m - 1):
        pairs = []
        for k in range(m // 2):
            p, q = sorted((players[k], players[m - 1 - k]))
            if q < n:
                pairs.append((p, q))
        players = [players[0], players[-1]] + players[1:-1]
        k = len(pairs)
        if not k:
            continue  # N = 1: nothing to rotate
        place = np.zeros((4, k, n * n), d)
        for i, (p, q) in enumerate(pairs):
            for j, (r, c) in enumerate(((p, p), (q, q), (p, q), (q, p))):
                place[j, i, r * n + c] = 1
        idx = np.array([[p * n + p, q * n + q, p * n + q] for p, q in pairs], np.int64).T
        rounds.append((_C.Tensor(idx[0].copy()), _C.Tensor(idx[1].copy()),
                       _C.Tensor(idx[2].copy())) + tuple(_C.Tensor(place[j]) for j in range(4)))
    return tuple(rounds), _C.Tensor(np.eye(n, dtype=d).reshape(-1))


@constexpr
def _lower_masks(n, dtype):
    d = _np_dtype(dtype)
    return _C.Tensor(np.tril(np.ones((n, n), d), -1)), _C.Tensor(np.eye(n, dtype=d))


def _ct(a, cplx):
    """The (conjugate) transpose of the last two axes."""
    return prim("Conj")(_t(a)) if cplx else _t(a)


def _as(v, cplx):
    """A real tensor in the complex dtype when cplx (zero imaginary part)."""
    return prim("Complex")(v, prim("ZerosLike")(v)) if cplx else v


def _rotations(app, aqq, apq, cplx, tiny):
    """(c, s, phase) of the rotations zeroing A[p, q] (elementwise over the pairs); phase is
    None for real input."""
    mag = prim("Abs")(apq)
    small = prim("LessEqual")(mag, 1e-15 * prim("Sqrt")(prim("Abs")(app * aqq)) + tiny)
    mag_safe = prim("Select")(small, prim("OnesLike")(mag), mag)
    # a real A[p, q] keeps its sign; a complex one's phase goes into D, leaving |A[p, q]|
    den = mag_safe if cplx else prim("Select")(small, prim("OnesLike")(apq), apq)
    z = (aqq - app) / (2.0 * den)
    sz = prim("Select")(prim("GreaterEqual")(z, 0.0), prim("OnesLike")(z), -prim("OnesLike")(z))
    t = sz / (prim("Abs")(z) + prim("Sqrt")(1.0 + z * z))
    t = prim("Select")(small, prim("ZerosLike")(t), t)
    c = 1.0 / prim("Sqrt")(1.0 + t * t)
    if not cplx:
        return c, c * t, None
    phase = prim("Conj")(apq) / _as(mag_safe, True)
    phase = prim("Select")(small, prim("OnesLike")(phase), phase)
    return _as(c, True), _as(c * t, True), phase


def _place(coef, placement, batch, n):
    """sum_k coef[..., k] * placement[k] as [..., N*N]."""
    flat = prim("Reshape")(coef, (-1, coef.shape[-1]))
    return prim("Reshape")(prim("MatMul")(flat, placement), batch + (n * n,))


def _jacobi_eigh(a, n, sweeps):
    """(A' nearly diagonal, V) with A = V A' V^H, a Hermitian (real symmetric) [..., N, N]:
    parallel cyclic Jacobi, each round one orthogonal (unitary) J of disjoint rotations,
    A <- J^H A J, V <- V J. A complex rotation is the real one after the phase of A[p, q]
    is moved onto column q: U = D R, D = diag(1, ..., conj(A[p, q]) / |A[p, q]| at q, ...),
    so (D^H A D)[p, q] = |A[p, q]| and R is the real rotation for it."""
    cplx = a.dtype in _COMPLEX
    tiny = 1e-300 if a.dtype in (_C.float64, _C.complex128) else 1e-37
    batch = tuple(a.shape[:-2])
    rounds, eye = _round_robin(n, a.dtype)
    v = prim("BroadcastTo", shape=tuple(a.shape))(prim("Reshape")(eye, (n, n)))
    for _ in range(sweeps):
        for i_pp, i_qq, i_pq, m_pp, m_qq, m_pq, m_qp in rounds:
            flat = prim("Reshape")(a, batch + (n * n,))
            app = prim("Gather")(flat, i_pp, len(batch))
            aqq = prim("Gather")(flat, i_qq, len(batch))
            apq = prim("Gather")(flat, i_pq, len(batch))
            if cplx:
                app, aqq = prim("Real")(app), prim("Real")(aqq)
            c, s, phase = _rotations(app, aqq, apq, cplx, tiny)
            cq, sq = (c, s) if phase is None else (c * phase, s * phase)
            rot = eye + _place(c - 1.0, m_pp, batch, n) + _place(cq - 1.0, m_qq, batch, n) + \
                _place(s, m_pq, batch, n) - _place(sq, m_qp, batch, n)
            rot = prim("Reshape")(rot, batch + (n, n))
            a = _mm(_ct(rot, cplx), _mm(a, rot))
            v = _mm(v, rot)
    return a, v


def _gather_cols(t, order):
    nd = t.ndim
    idx = prim("BroadcastTo", shape=tuple(t.shape))(prim("ExpandDims")(order, nd - 2))
    return prim("GatherD")(t, idx, nd - 1)


def eigh(a, lower=True, op="eigh"):
    """(w [..., N] ascending, v [..., N, N]) with sym(a) v = v diag(w), sym(a) the Hermitian
    (symmetric) matrix of a's lower (or upper) triangle; w is real. op names the caller in
    errors."""
    n, sweeps, work = _plan(a.shape, a.dtype, op)
    if work is not None:  # float32 / complex64 rotate in double precision (module docstring)
        w, v = eigh(a.astype(work), lower, op)
        return w.astype(_REAL.get(a.dtype, a.dtype)), v.astype(a.dtype)
    cplx = a.dtype in _COMPLEX
    strict, eye = _lower_masks(n, a.dtype)
    off = prim("Mul")(a if lower else _t(a), strict)
    if not lower and cplx:
        off = prim("Conj")(off)  # the upper triangle's conjugate is the lower one
    diag = prim("Mul")(a, eye)
    if cplx:
        diag = _as(prim("Real")(diag), True)  # the diagonal's imaginary part is not read
    d, v = _jacobi_eigh(off + _ct(off, cplx) + diag, n, sweeps)
    w = prim("ReduceSum")(prim("Mul")(d, eye), (-1,))
    if cplx:
        w = prim("Real")(w)
    neg, order = prim("TopK", sorted=True)(-w, n)
    return -neg, _gather_cols(v, order)
