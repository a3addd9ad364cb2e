"""Linear algebra of MindSpore's ops test table composed from table ops and the factorisations
of linalg_func / cholesky_func / eig_func (both modes; gradients through the ops they are
made of): self_adjoint_eig (P.SelfAdjointEig), matrix_logarithm (P.MatrixLogarithm),
matrix_solve_ls and lstsq (P.MatrixSolveLs, P.Lstsq, ops.lstsq), tridiagonal_solve
(P.TridiagonalSolve) and nuclear_norm (P.NuclearNorm).

- self_adjoint_eig: eigh_func.eigh (the cyclic Jacobi method on the Hermitian matrix of the
  input's lower triangle, as LAPACK's and Eigen's solvers read it), its eigenvalues in x's
  dtype (real-valued).
- matrix_logarithm: the principal logarithm in complex128, by two methods chosen per
  matrix. First the eigendecomposition (the op table's Eig, differentiable through eig_func's
  backward): log A = V diag(log w) V^-1, V^-1 applied by linalg_func.matrix_solve; exact up to
  Eig's accuracy for a diagonalisable matrix with a well-conditioned V (about 1e-13 relative
  for cond(V) ~ 10), and used where V diag(w) V^-1 gives A back to 1e-9 (relative,
  Frobenius). A defective (non-diagonalisable) matrix fails that check and takes inverse
  scaling and squaring (_logm_iss: Denman-Beavers square roots, then the atanh series; about
  1e-12; computed only when some matrix of the batch needs it: a run-time branch, which
  GRAPH mode compiles both sides of), used where its own checks pass. A matrix neither
  method can trust (a defective one
  with an eigenvalue on the negative real axis, or with |log A| past about 2000) gives
  NaN, never a wrong logarithm. Complex input, as MindSpore's.
- matrix_solve_ls / lstsq: fast=True solves the regularised normal equations by Cholesky,
  (A^T A + l2 I) X = A^T B for M >= N and X = A^T (A A^T + l2 I)^-1 B for M < N (the
  minimum-norm solution); fast=False gives the minimum-norm least-squares solution from the
  SVD (pinv), also for rank-deficient A, and ignores l2 (as TensorFlow's MatrixSolveLs).
  A complex system is solved as its real embedding [[Ar, -Ai], [Ai, Ar]] (same residual
  and solution norms, so the same solution). Single (and half) precision inputs compute in
  double (the normal equations square A's condition number) and return their own dtype.
- tridiagonal_solve: the dense tridiagonal matrix from its three diagonals, solved by
  Gaussian elimination with partial pivoting (linalg_func.matrix_solve, O(M) unrolled
  steps): the same answer with partial_pivoting False (mathematically equal; no pivoting is
  not less accurate here). A singular system gives inf/NaN.
- nuclear_norm: the sum of the singular values (linalg_func.svd) over two dimensions.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, stop_gradient
from mycel.ops.primitive import constexpr
from mycel.ops.function import linalg_func as _la
from mycel.ops.function import cholesky_func as _chol
from mycel.ops.function.eig_func import eig as _eig
from mycel.ops.function import eigh_func as _eigh

__all__ = ["self_adjoint_eig", "matrix_logarithm", "matrix_solve_ls", "lstsq",
           "tridiagonal_solve", "nuclear_norm"]

_FLOATS = (_C.float32, _C.float64)
_COMPLEX = (_C.complex64, _C.complex128)


# numpy dtype of a mycel dtype, transpose of the last two axes, (batched) matmul
_np_dtype, _t, _mm = _eigh._np_dtype, _eigh._t, _eigh._mm


def _check_tensor(x, op, name):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def _check_static(shape, op):
    """A ValueError naming op for a dimension known only at run time (GRAPH mode's dynamic
    shapes): these compositions unroll over the matrix size."""
    if any(d is None or d < 0 for d in shape):
        raise ValueError(f"For '{op}', the shape must be known at compile time (the "
                         f"computation is unrolled over the matrix size), but got "
                         f"{tuple(shape)}.")


# ---- self_adjoint_eig -----------------------------------------------------------------------

def self_adjoint_eig(x, compute_v=True):
    """(eigenvalues [..., N] ascending, eigenvectors [..., N, N] as columns) of the
    symmetric / Hermitian matrices given by the lower triangle of x [..., N, N]
    (float32/float64/complex64/complex128; the eigenvalues have x's dtype, real-valued);
    without compute_v the eigenvectors are an empty tensor (shape [0]). eigh_func.eigh's
    Jacobi method."""
    _check_tensor(x, "SelfAdjointEig", "x")
    if not isinstance(compute_v, bool):
        raise TypeError(f"For 'SelfAdjointEig', 'compute_v' must be a bool, but got "
                        f"{type(compute_v).__name__}.")
    w, v = _eigh.eigh(x, True, "SelfAdjointEig")
    if x.dtype in _COMPLEX:
        w = prim("Complex")(w, prim("ZerosLike")(w))
    if not compute_v:
        return w, _C.Tensor(np.zeros(0, _np_dtype(x.dtype)))
    return w, v


# ---- matrix_logarithm -----------------------------------------------------------------------

@constexpr
def _logm_plan(shape, dtype):
    _check_static(shape, "MatrixLogarithm")
    if dtype not in _COMPLEX:
        raise TypeError(f"For 'MatrixLogarithm', x must be complex64 or complex128, but got "
                        f"{dtype}.")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'MatrixLogarithm', x must be [..., N, N], but got shape "
                         f"{tuple(shape)}.")


_LOGM_RESIDUAL = 1e-9
# Denman-Beavers steps per square root: the first roots start far from I (quadratic
# convergence after about log2 |log(lambda)| steps), the later ones close to it
_DB_STEPS = (12, 10, 8, 6, 6, 5, 5, 5, 5, 5, 5, 5)
_ISS_ROOTS, _GREGORY_TERMS = len(_DB_STEPS), 30


def _fro(t):
    """The Frobenius norm of each matrix, as [..., 1, 1]."""
    a = prim("Abs")(t)
    return prim("Sqrt")(prim("ReduceSum", keep_dims=True)(a * a, (-2, -1)))


@constexpr
def _eye_c128(shape):
    return _C.Tensor(np.broadcast_to(np.eye(shape[-1], dtype=np.complex128),
                                     tuple(shape)).copy())


@constexpr
def _distinct_diag(shape):
    """diag(1, 2, ..., N) broadcast to shape: diagonalisable with distinct eigenvalues (Eig's
    backward divides by their differences)."""
    d = np.diag(np.arange(1, shape[-1] + 1)).astype(np.complex128)
    return _C.Tensor(np.broadcast_to(d, tuple(shape)).copy())


def _logm_eig(a):
    """(V diag(log w) V^-1, whether V diag(w) V^-1 gives a back) for complex128 a."""
    w, v = _eig(a)  # eig_func's: differentiable (the table's Eig is NODIFF)
    vt = _t(v)

    def times_inverse(d):  # X = D V^-1  <=>  V^T X^T = D^T
        return _t(_la.matrix_solve(vt, _t(d)))
    out = times_inverse(prim("Mul")(v, prim("ExpandDims")(prim("Log")(w), -2)))
    back = times_inverse(prim("Mul")(v, prim("ExpandDims")(w, -2)))
    scale = prim("Maximum")(_fro(a), 1e-300)
    return out, prim("LessEqual")(_fro(back - a) / scale, _LOGM_RESIDUAL)


def _logm_iss(a):
    """(2^k log(A^(1/2^k)), whether it is trustworthy) for complex128 a: inverse scaling and
    squaring. k = 12 square roots by the Denman-Beavers iteration in product form
    (M <- (I + (M + M^-1) / 2) / 2, Y <- Y (I + M^-1) / 2 from M = Y = A; 12 steps for the
    first root down to 5 for the last: _DB_STEPS),
    then log R = 2 atanh(Z) = 2 sum Z^(2j+1) / (2j+1), Z = (R + I)^-1 (R - I), 30 terms.
    Trusted where R^(2^k) gives A back and |Z| <= 0.6 (the series' error below 1e-15):
    a matrix with an eigenvalue on the closed negative real axis has no principal square root
    the iteration can reach, and fails the first check."""
    eye = _eye_c128(tuple(a.shape))
    r = a
    for steps in _DB_STEPS:
        m, y = r, r
        for _ in range(steps):
            m_inv = _la.matrix_solve(m, eye)
            y = _mm(y, eye + m_inv) * 0.5
            m = (eye + (m + m_inv) * 0.5) * 0.5
        r = y
    back = r
    for _ in range(_ISS_ROOTS):
        back = _mm(back, back)
    z = _la.matrix_solve(r + eye, r - eye)
    z2 = _mm(z, z)
    term, total = z, z
    for j in range(1, _GREGORY_TERMS):
        term = _mm(term, z2)
        total = total + term * (1.0 / (2 * j + 1))
    out = total * float(2 ** (_ISS_ROOTS + 1))
    scale = prim("Maximum")(_fro(a), 1e-300)
    ok = prim("LogicalAnd")(prim("LessEqual")(_fro(back - a) / scale, _LOGM_RESIDUAL),
                            prim("LessEqual")(_fro(z), 0.6))
    return out, ok


def matrix_logarithm(x):
    """The principal logarithm of each square matrix of x [..., N, N] (complex64/complex128),
    in complex128: V diag(log w) V^-1 from Eig where that reproduces the matrix, else by
    inverse scaling and squaring (computed only when some matrix needs it), else NaN
    (module docstring)."""
    _check_tensor(x, "MatrixLogarithm", "x")
    _logm_plan(x.shape, x.dtype)
    a = prim("Cast")(x, _C.complex128)
    # the check runs without gradient: its eigenvectors' backward is NaN for a defective
    # matrix, and graph mode's backward of the branch below would reach it with zeros
    eig_ok = _logm_eig(stop_gradient(a))[1]
    if eig_ok.all():  # the common case: every matrix diagonalisable
        return prim("Cast")(_logm_eig(a)[0], x.dtype)
    shape = tuple(a.shape)
    take_eig = prim("BroadcastTo", shape=shape)(eig_ok)
    # each method runs on a benign stand-in where its result is not taken, so that its
    # backward (which a Select does not stop: zero cotangents times NaN partials) stays finite
    by_eig = _logm_eig(prim("Select")(take_eig, a, _distinct_diag(shape)))[0]
    by_iss, iss_ok = _logm_iss(prim("Select")(take_eig, _eye_c128(shape), a))
    nan = prim("ZerosLike")(by_eig) + complex(float("nan"), float("nan"))
    out = prim("Select")(prim("BroadcastTo", shape=shape)(iss_ok), by_iss, nan)
    out = prim("Select")(prim("BroadcastTo", shape=shape)(eig_ok), by_eig, out)
    return prim("Cast")(out, x.dtype)


# ---- matrix_solve_ls / lstsq ----------------------------------------------------------------

@constexpr
def _ls_plan(a_shape, b_shape, a_dtype, b_dtype, op, a_name, b_name, batched):
    _check_static(tuple(a_shape) + tuple(b_shape), op)
    if batched and a_dtype not in _FLOATS + _COMPLEX:
        raise TypeError(f"For '{op}', '{a_name}' must be float32, float64, complex64 or "
                        f"complex128, but got {a_dtype}.")
    if not batched and a_dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For '{op}', '{a_name}' must be float16, float32 or float64, but got "
                        f"{a_dtype}.")
    if b_dtype != a_dtype:
        raise TypeError(f"For '{op}', '{a_name}' and '{b_name}' must have one dtype, but got "
                        f"{a_dtype} and {b_dtype}.")
    if batched:
        ok = len(a_shape) >= 2 and len(b_shape) == len(a_shape) and \
            tuple(a_shape[:-2]) == tuple(b_shape[:-2]) and a_shape[-2] == b_shape[-2]
        want = "[..., M, N] and [..., M, K] with one batch shape"
    else:
        ok = len(a_shape) == 2 and len(b_shape) in (1, 2) and a_shape[0] == b_shape[0]
        want = "[M, N] and [M, K] or [M]"
    if not ok:
        raise ValueError(f"For '{op}', '{a_name}' and '{b_name}' must be {want}, but got "
                         f"shapes {tuple(a_shape)} and {tuple(b_shape)}.")
    return a_shape[-2], a_shape[-1]


@constexpr
def _eye_of(n, dtype):
    return _C.Tensor(np.eye(n, dtype=_np_dtype(dtype)))


def _ls_solve(a, b, m, n, l2, fast):
    """The (regularised) least-squares / minimum-norm solution X [..., N, K] of A X = B."""
    if not fast:
        return _mm(_la.pinv(a), b)
    if m >= n:
        gram = _mm(_t(a), a) + l2 * _eye_of(n, a.dtype)
        return _chol.cholesky_solve(_mm(_t(a), b), _chol.cholesky(gram))
    gram = _mm(a, _t(a)) + l2 * _eye_of(m, a.dtype)
    return _mm(_t(a), _chol.cholesky_solve(b, _chol.cholesky(gram)))


def matrix_solve_ls(matrix, rhs, l2_regularizer, fast=True):
    """The least-squares solution X [..., N, K] of matrix [..., M, N] X = rhs [..., M, K]
    (float32/float64/complex64/complex128; complex systems solved as their real embedding),
    regularised by l2_regularizer (a scalar) when fast (module docstring)."""
    _check_tensor(matrix, "MatrixSolveLs", "matrix")
    _check_tensor(rhs, "MatrixSolveLs", "rhs")
    if not isinstance(fast, bool):
        raise TypeError(f"For 'MatrixSolveLs', 'fast' must be a bool, but got "
                        f"{type(fast).__name__}.")
    m, n = _ls_plan(matrix.shape, rhs.shape, matrix.dtype, rhs.dtype, "MatrixSolveLs",
                    "matrix", "rhs", True)
    cplx = matrix.dtype in _COMPLEX
    dt = matrix.dtype
    if dt in (_C.float32, _C.complex64):  # the normal equations square cond(A): use doubles
        wide = _C.complex128 if cplx else _C.float64
        matrix, rhs = prim("Cast")(matrix, wide), prim("Cast")(rhs, wide)
    l2 = prim("Reshape")(prim("Cast")(as_tensor(l2_regularizer), _C.float64), ())
    if not cplx:
        return prim("Cast")(_ls_solve(matrix, rhs, m, n, l2, fast), dt)
    # A X = B in complex numbers is [[Ar, -Ai], [Ai, Ar]] [Xr; Xi] = [Br; Bi] in real ones,
    # with the same residual and solution norms: the same (regularised, minimum-norm) solution
    ar, ai = prim("Real")(matrix), prim("Imag")(matrix)
    big = prim("Concat", axis=-2)((prim("Concat", axis=-1)((ar, -ai)),
                                   prim("Concat", axis=-1)((ai, ar))))
    rb = prim("Concat", axis=-2)((prim("Real")(rhs), prim("Imag")(rhs)))
    x = _ls_solve(big, rb, 2 * m, 2 * n, l2, fast)
    nd = x.ndim
    top = prim("StridedSlice")(x, (0,) * nd, tuple(x.shape[:-2]) + (n, x.shape[-1]), (1,) * nd)
    bottom = prim("StridedSlice")(x, (0,) * (nd - 2) + (n, 0), tuple(x.shape), (1,) * nd)
    return prim("Cast")(prim("Complex")(top, bottom), dt)


def lstsq(input, A, l2_regularizer=0.0, fast=True):  # noqa: A002 (MindSpore's names)
    """The least-squares (M >= N) or minimum-norm (M < N) solution [N, K] of input [M, N] X =
    A [M, K] (or [M]: the result is [N, 1]); float16 computes in float32."""
    _check_tensor(input, "lstsq", "input")
    _check_tensor(A, "lstsq", "A")
    if isinstance(l2_regularizer, bool) or not isinstance(l2_regularizer, (int, float)):
        raise TypeError(f"For 'lstsq', 'l2_regularizer' must be a float, but got "
                        f"{type(l2_regularizer).__name__}.")
    m, n = _ls_plan(input.shape, A.shape, input.dtype, A.dtype, "lstsq", "input", "A", False)
    dt = input.dtype
    a, b = input, A
    if dt != _C.float64:  # the normal equations square the condition number: use doubles
        a, b = prim("Cast")(a, _C.float64), prim("Cast")(b, _C.float64)
    if b.ndim == 1:
        b = prim("ExpandDims")(b, -1)
    out = _ls_solve(a, b, m, n, float(l2_regularizer), fast)
    return prim("Cast")(out, dt) if dt != _C.float64 else out


# ---- tridiagonal_solve ----------------------------------------------------------------------

@constexpr
def _tri_plan(d_shape, r_shape, d_dtype, r_dtype):
    _check_static(tuple(d_shape) + tuple(r_shape), "TridiagonalSolve")
    if d_dtype not in _FLOATS + _COMPLEX:
        raise TypeError(f"For 'TridiagonalSolve', 'diagonals' must be float32, float64, "
                        f"complex64 or complex128, but got {d_dtype}.")
    if r_dtype != d_dtype:
        raise TypeError(f"For 'TridiagonalSolve', 'diagonals' and 'rhs' must have one dtype, "
                        f"but got {d_dtype} and {r_dtype}.")
    if len(d_shape) < 2 or d_shape[-2] != 3 or len(r_shape) != len(d_shape) or \
            tuple(r_shape[:-2]) != tuple(d_shape[:-2]) or r_shape[-2] != d_shape[-1]:
        raise ValueError(f"For 'TridiagonalSolve', 'diagonals' must be [..., 3, M] and 'rhs' "
                         f"[..., M, K] with its batch dimensions, but got shapes "
                         f"{tuple(d_shape)} and {tuple(r_shape)}.")
    return d_shape[-1]


@constexpr
def _band_masks(m, dtype):
    d = _np_dtype(dtype)
    return tuple(_C.Tensor(np.eye(m, k=k, dtype=d)) for k in (1, 0, -1))


def _diag_row(diagonals, i):
    nd = diagonals.ndim
    begin = (0,) * (nd - 2) + (i, 0)
    end = tuple(diagonals.shape[:-2]) + (i + 1, diagonals.shape[-1])
    row = prim("StridedSlice")(diagonals, begin, end, (1,) * nd)  # [..., 1, M]
    return _t(row)  # [..., M, 1]: scales row i of a band


def tridiagonal_solve(diagonals, rhs, partial_pivoting=True):
    """X [..., M, K] with T X = rhs, T the tridiagonal matrix whose superdiagonal,
    diagonal and subdiagonal are diagonals[..., 0, :], [..., 1, :] and [..., 2, :] (the last
    superdiagonal and first subdiagonal entries are ignored). Module docstring."""
    _check_tensor(diagonals, "TridiagonalSolve", "diagonals")
    _check_tensor(rhs, "TridiagonalSolve", "rhs")
    if not isinstance(partial_pivoting, bool):
        raise TypeError(f"For 'TridiagonalSolve', 'partial_pivoting' must be a bool, but got "
                        f"{type(partial_pivoting).__name__}.")
    m = _tri_plan(diagonals.shape, rhs.shape, diagonals.dtype, rhs.dtype)
    up, mid, down = _band_masks(m, diagonals.dtype)
    dense = _diag_row(diagonals, 0) * up + _diag_row(diagonals, 1) * mid + \
        _diag_row(diagonals, 2) * down
    return _la.matrix_solve(dense, rhs)


# ---- nuclear_norm ---------------------------------------------------------------------------

@constexpr
def _nuc_plan(shape, dtype, dim):
    _check_static(shape, "NuclearNorm")
    if dtype not in _FLOATS:
        raise TypeError(f"For 'NuclearNorm', the input must be float32 or float64, but got "
                        f"{dtype}.")
    nd = len(shape)
    if dim is None:
        if nd != 2:
            raise ValueError(f"For 'NuclearNorm', dim None needs a 2-D input, but got shape "
                             f"{tuple(shape)}.")
        dim = (0, 1)
    if not isinstance(dim, (list, tuple)) or len(dim) != 2 or \
            any(isinstance(d, bool) or not isinstance(d, int) for d in dim):
        raise ValueError(f"For 'NuclearNorm', dim must be a list or tuple of two ints, but got "
                         f"{dim!r}.")
    for d in dim:
        if not -nd <= d < nd:
            raise ValueError(f"For 'NuclearNorm', dim {dim!r} is out of range for an input of "
                             f"{nd} dimensions.")
    d0, d1 = dim[0] % nd, dim[1] % nd
    if d0 == d1:
        raise ValueError(f"For 'NuclearNorm', the two dims must differ, but got {dim!r}.")
    rest = tuple(i for i in range(nd) if i not in (d0, d1))
    kept = tuple(1 if i in (d0, d1) else shape[i] for i in range(nd))
    return rest + (d0, d1), kept


def nuclear_norm(x, dim=None, keepdim=False):
    """The sum of the singular values of the matrices of x over the two dimensions dim (both
    of a 2-D x when None); keepdim keeps them with size 1."""
    _check_tensor(x, "NuclearNorm", "x")
    if not isinstance(keepdim, bool):
        raise TypeError(f"For 'NuclearNorm', 'keepdim' must be a bool, but got "
                        f"{type(keepdim).__name__}.")
    perm, kept = _nuc_plan(x.shape, x.dtype, dim if dim is None else tuple(dim))
    s = _la.svd(prim("Transpose")(x, perm), compute_uv=False)
    out = prim("ReduceSum")(s, (-1,))
    return prim("Reshape")(out, kept) if keepdim else out


# Tensor.lstsq(A) (attached here, as eig_func attaches eigvals: common/_tensor_linalg_methods
# cannot import this module without an import circle through eig_func)
_C.Tensor.lstsq = lambda self, A: lstsq(self, A)  # noqa: N803 (MindSpore's argument name)
