"""mindspore.scipy.linalg with scipy.linalg's semantics, composed from mycel.ops (so graph
mode compiles them and autodiff differentiates them):

- solve_triangular(a, b, trans, lower, unit_diagonal): forward / back substitution over the
  triangle (the other one is not read), batched; b [..., M] or [..., M, K];
- cholesky / cho_factor / cho_solve: A = L L^T (lower) or U^T U;
- lu(a) -> (p, l, u) with a = p l u for [M, N]; lu_factor(a) -> (lu, piv) (LAPACK's packed
  form, piv[i] the row swapped with row i, 0-based) and lu_solve((lu, piv), b, trans):
  Gaussian elimination with partial pivoting, one step per column;
- eigh(a, lower, eigvals_only) -> (w ascending, v) for a real symmetric or complex Hermitian
  a: cyclic Jacobi
  rotations (ops/function/eigh_func.py; the triangle lower names is read);
- lstsq (x = pinv(a) b by mycel's SVD, with scipy's residues / rank / s), inv, det,
  block_diag.

Integer inputs compute in float64 (scipy's rule for them); the overwrite_* / check_finite
arguments are accepted and change nothing (mycel never overwrites inputs)."""
import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.ops.function import eigh_func as _eigh
from mycel.ops.primitive import constexpr as _constexpr

_FLOATS = (_C.float32, _C.float64)
_INTS = (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8)


def _check_bool(name, arg, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', {arg} must be a bool, but got {value!r}.")


def _float_tensor(x, name, arg="a", allow_ints=True):
    """x as a float32/float64 Tensor (ints become float64); a TypeError for other dtypes."""
    if not isinstance(x, _C.Tensor):
        if isinstance(x, (list, tuple, _np.ndarray)):
            x = _C.Tensor(_np.asarray(x))
        else:
            raise TypeError(f"For '{name}', {arg} must be a Tensor, but got "
                            f"{type(x).__name__}.")
    if x.dtype in _FLOATS:
        return x
    if allow_ints and x.dtype in (_C.int32, _C.int64):
        return x.astype(_C.float64)
    raise TypeError(f"For '{name}', {arg} must be float32 or float64"
                    f"{' (or int32 / int64)' if allow_ints else ''}, but got {x.dtype}.")


@_constexpr
def _static(shape, name, arg):
    if any(d is None or d < 0 for d in shape):
        raise ValueError(f"For '{name}', {arg} must have a static shape (the solve unrolls over "
                         f"its size), but got shape {tuple(shape)} (dynamic dimensions).")


def _square(a, name, arg="a"):
    _static(a.shape, name, arg)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"For '{name}', {arg} must be square matrices [..., N, N], but got "
                         f"shape {tuple(a.shape)}.")
    return a.shape[-1]


def _mt(a):
    n = a.ndim
    return _ops.transpose(a, tuple(range(n - 2)) + (n - 1, n - 2))


@_constexpr
def _eye_const(n, dtype):
    return _C.Tensor(_np.eye(n)).astype(dtype)


@_constexpr
def _unit_const(n, k, dtype):
    e = _np.zeros((n, 1))
    e[k, 0] = 1.0
    return _C.Tensor(e).astype(dtype)


# ---- triangular solves -----------------------------------------------------------------------
def _substitute(t, b, lower):
    """x with t x = b for triangular t [..., M, M] (only its lower / upper triangle is read),
    b [..., M, K]: one row of x per step."""
    m = t.shape[-1]
    x = _ops.zeros_like(b)
    order = range(m) if lower else range(m - 1, -1, -1)
    for k in order:
        e_k = _unit_const(m, k, t.dtype)  # [M, 1]
        row_t = _ops.narrow(t, -2, k, 1)  # [..., 1, M]
        done = _ops.matmul(row_t, x)  # the unsolved entries of x are still zero
        diag = _ops.narrow(row_t, -1, k, 1)
        x_k = (_ops.narrow(b, -2, k, 1) - done) / diag
        x = x + e_k * x_k
    return x


@_constexpr
def _trans_code(trans):
    codes = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
    if isinstance(trans, bool) or trans not in codes:
        raise ValueError(f"For 'solve_triangular', trans must be 0, 1, 2, 'N', 'T' or 'C', but "
                         f"got {trans!r}.")
    return codes[trans]


def _triangle(a, lower, unit_diagonal):
    n = a.shape[-1]
    t = _ops.tril(a) if lower else _ops.triu(a)
    if unit_diagonal:
        eye = _eye_const(n, a.dtype)
        t = t * (1 - eye) + eye
    return t


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """x with a x = b (trans 0 / 'N') or a^T x = b (1 / 'T', 2 / 'C' for real a), a
    triangular [..., M, M] (lower or upper; unit_diagonal reads ones on the diagonal),
    b [..., M] or [..., M, K] (batch dims broadcast)."""
    _check_bool("solve_triangular", "lower", lower)
    _check_bool("solve_triangular", "unit_diagonal", unit_diagonal)
    code = _trans_code(trans)
    a = _float_tensor(a, "solve_triangular")
    b = _float_tensor(b, "solve_triangular", "b")
    m = _square(a, "solve_triangular")
    vector = b.ndim == a.ndim - 1
    if b.ndim < 1 or (not vector and b.ndim != a.ndim):
        raise ValueError(f"For 'solve_triangular', b must have a's rank or one less, but got "
                         f"shapes {tuple(a.shape)} and {tuple(b.shape)}.")
    if b.shape[-1 if vector else -2] != m:
        raise ValueError(f"For 'solve_triangular', b's rows must match a's {m}, but got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}.")
    dtype = _C.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype), b.astype(dtype)
    rhs = _ops.expand_dims(b, -1) if vector else b
    t = _triangle(a, lower, unit_diagonal)
    if code:
        t, lower = _mt(t), not lower
    batch = tuple(_np.broadcast_shapes(tuple(t.shape[:-2]), tuple(rhs.shape[:-2])))
    t = _ops.broadcast_to(t, batch + tuple(t.shape[-2:]))
    rhs = _ops.broadcast_to(rhs, batch + tuple(rhs.shape[-2:]))
    x = _substitute(t, rhs, lower)
    return _ops.squeeze(x, -1) if vector else x


# ---- Cholesky --------------------------------------------------------------------------------
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of the symmetric positive-definite a [..., N, N]: L with a = L L^T
    when lower, else U with a = U^T U."""
    _check_bool("cholesky", "lower", lower)
    a = _float_tensor(a, "cholesky")
    _square(a, "cholesky")
    return _ops.cholesky(a, upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): c holds the Cholesky factor in its lower (or upper) triangle and zeros in the
    other (scipy leaves that triangle unspecified); the input of cho_solve."""
    return cholesky(a, lower, overwrite_a, check_finite), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b from cho_factor(a) = (c, lower): two triangular solves."""
    c, lower = c_and_lower
    _check_bool("cho_solve", "lower", lower)
    if lower:
        y = solve_triangular(c, b, 0, True)
        return solve_triangular(c, y, 1, True)
    y = solve_triangular(c, b, 1, False)
    return solve_triangular(c, y, 0, False)


# ---- LU --------------------------------------------------------------------------------------
def _swap_index(m, k, p):
    """The row order that swaps row k with row p (a tensor index [M])."""
    ar = _ops.arange(0, m, 1).astype(_C.int64)
    kk = _ops.zeros_like(ar) + k
    return _ops.where(_ops.equal(ar, kk), _ops.zeros_like(ar) + p,
                      _ops.where(_ops.equal(ar, _ops.zeros_like(ar) + p), kk, ar))


def _lu_steps(a):
    """(packed L\\U [M, N], perm [M]: row i of the packed form is row perm[i] of a, pivots
    [K]: the row swapped with row k at step k)."""
    m, n = a.shape[-2], a.shape[-1]
    kmax = min(m, n)
    perm = _ops.arange(0, m, 1).astype(_C.int64)
    rows = _ops.arange(0, m, 1).astype(_C.int64)
    cols = _ops.arange(0, n, 1).astype(_C.int64)
    pivots = []
    for k in range(kmax):
        col = _ops.reshape(_ops.narrow(a, -1, k, 1), (m,))
        score = _ops.where(_ops.less(rows, k), _ops.zeros_like(col) - 1, _ops.abs(col))
        p = _ops.argmax(score, 0).astype(_C.int64)
        pivots.append(p)
        idx = _swap_index(m, k, p)
        a = _ops.gather(a, idx, 0)
        perm = _ops.gather(perm, idx, 0)
        row_k = _ops.narrow(a, 0, k, 1)  # [1, N]
        piv = _ops.narrow(row_k, 1, k, 1)  # [1, 1]
        safe = _ops.where(_ops.equal(piv, 0), _ops.ones_like(piv), piv)
        below = _ops.reshape(_ops.greater(rows, k), (m, 1))
        l_col = _ops.where(below, _ops.narrow(a, 1, k, 1) / safe,
                           _ops.zeros((m, 1), a.dtype))  # multipliers, zero at and above k
        right = _ops.reshape(_ops.greater_equal(cols, k), (1, n)).astype(a.dtype)
        a = a - _ops.matmul(l_col, row_k * right)  # columns left of k hold multipliers
        e_k = _ops.reshape(_unit_const(n, k, a.dtype), (1, n))
        a = a + _ops.matmul(l_col, e_k)  # store the multipliers in the eliminated column
    piv = _ops.stack(tuple(pivots), 0) if pivots else _ops.zeros((0,), _C.int64)
    return a, perm, piv


def _check_2d(a, name):
    if a.ndim != 2:
        raise ValueError(f"For '{name}', a must be a 2-D matrix, but got shape "
                         f"{tuple(a.shape)}.")


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv): the packed LU factorization of the square a with partial pivoting (L's unit
    diagonal not stored), piv[i] the row row i was swapped with (0-based, as scipy)."""
    a = _float_tensor(a, "lu_factor")
    _check_2d(a, "lu_factor")
    _square(a, "lu_factor")
    lu_, _, piv = _lu_steps(a)
    return lu_, piv.astype(_C.int32)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p l u for a [M, N] (l [M, K] unit lower, u [K, N] upper, K = min(M,
    N)); (p l, u) with permute_l."""
    _check_bool("lu", "permute_l", permute_l)
    a = _float_tensor(a, "lu")
    _check_2d(a, "lu")
    m, n = a.shape
    k = min(m, n)
    packed, perm, _ = _lu_steps(a)
    low = _ops.narrow(_ops.tril(packed, -1), 1, 0, k) + _ops.narrow(
        _eye_const(m, a.dtype), 1, 0, k)
    up = _ops.narrow(_ops.triu(packed), 0, 0, k)
    onehot = _ops.equal(_ops.expand_dims(perm, 1),
                        _ops.arange(0, m, 1).astype(_C.int64)).astype(a.dtype)  # [i, perm[i]]
    p = _mt(onehot)
    if permute_l:
        return _ops.matmul(p, low), up
    return p, low, up


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with a x = b (trans 0) or a^T x = b (1, or 2 for real a) from lu_factor(a)."""
    lu_, piv = lu_and_piv
    lu_ = _float_tensor(lu_, "lu_solve", "lu")
    b = _float_tensor(b, "lu_solve", "b")
    code = _trans_code(trans)
    m = _square(lu_, "lu_solve", "lu")
    vector = b.ndim == 1
    rhs = _ops.expand_dims(b, -1) if vector else b
    if rhs.ndim != 2 or rhs.shape[0] != m:
        raise ValueError(f"For 'lu_solve', b must be [{m}] or [{m}, K], but got shape "
                         f"{tuple(b.shape)}.")
    dtype = _C.promote_types(lu_.dtype, rhs.dtype)
    lu_, rhs = lu_.astype(dtype), rhs.astype(dtype)
    piv = piv.astype(_C.int64)
    if code == 0:
        for k in range(piv.shape[0]):
            rhs = _ops.gather(rhs, _swap_index(m, k, piv[k]), 0)
        y = solve_triangular(lu_, rhs, 0, True, True)
        x = solve_triangular(lu_, y, 0, False)
    else:
        y = solve_triangular(lu_, rhs, 1, False)
        x = solve_triangular(lu_, y, 1, True, True)
        for k in range(piv.shape[0] - 1, -1, -1):
            x = _ops.gather(x, _swap_index(m, k, piv[k]), 0)
    return _ops.squeeze(x, -1) if vector else x


# ---- eigh ------------------------------------------------------------------------------------
def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, _type=1, check_finite=True):
    """(w, v): the eigenvalues (ascending, real) and orthonormal eigenvectors (columns) of the
    real symmetric or complex Hermitian a [N, N], read from its lower (or upper) triangle; w
    alone with eigvals_only. a must be one 2-D matrix (scipy's); the generalized problem (b) is not
    supported (a ValueError, as MindSpore's)."""
    for arg, value in (("lower", lower), ("eigvals_only", eigvals_only),
                       ("overwrite_a", overwrite_a), ("overwrite_b", overwrite_b),
                       ("turbo", turbo), ("check_finite", check_finite)):
        _check_bool("eigh", arg, value)
    if b is not None or eigvals is not None:  # MindSpore's error for them
        raise ValueError("For 'eigh', the generalized problem (b) and selecting eigenvalues "
                         "(eigvals) are not supported.")
    if not (isinstance(a, _C.Tensor) and a.dtype in (_C.complex64, _C.complex128)):
        a = _float_tensor(a, "eigh")
    _check_2d(a, "eigh")
    _square(a, "eigh")
    w, v = _eigh.eigh(a, lower)
    return w if eigvals_only else (w, v)


# ---- least squares ---------------------------------------------------------------------------
def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True,
          lapack_driver=None, driver=None):
    """(x, residues, rank, s): the minimum-norm least-squares solution x = pinv(a) b of
    a [M, N] x = b [M] or [M, K], singular values at most cond * s_max (machine epsilon by
    default, LAPACK gelss's rule) counted as zero; residues the squared 2-norms of b - a x
    per column when M > N and rank == N, else empty; rank the effective rank; s a's singular
    values, descending. x differentiates as pinv(a) b (residues, rank and s carry no
    gradient, as MindSpore's)."""
    a = _float_tensor(a, "lstsq")
    b = _float_tensor(b, "lstsq", "b")
    _check_2d(a, "lstsq")
    m, n = a.shape
    if b.ndim not in (1, 2) or b.shape[0] != m:
        raise ValueError(f"For 'lstsq', b must be [{m}] or [{m}, K], but got shape "
                         f"{tuple(b.shape)}.")
    dtype = _C.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype), b.astype(dtype)
    eps = float(_np.finfo(_np.float64 if dtype == _C.float64 else _np.float32).eps)
    rcond = eps if cond is None or cond < 0 else float(cond)
    s = _ops.svd(a, compute_uv=False)
    x = _ops.matmul(_ops.pinv(a, atol=0.0, rtol=rcond), b if b.ndim == 2 else
                    _ops.expand_dims(b, -1))
    x = x if b.ndim == 2 else _ops.squeeze(x, -1)
    s = _ops.stop_gradient(s)
    smax = float(s.asnumpy().max()) if s.shape[0] else 0.0
    rank = int((s.asnumpy() > rcond * smax).sum()) if s.shape[0] else 0
    if m > n and rank == n:
        r = b - (_ops.matmul(a, x) if b.ndim == 2 else _ops.mv(a, x))
        residues = _ops.stop_gradient(_ops.sum(r * r, 0))  # 0-d for a 1-d b, as scipy
    else:
        residues = _ops.zeros((0,), dtype)
    return x, residues, _C.Tensor(rank, _C.int32), s


# ---- inv, det, block_diag --------------------------------------------------------------------
def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of the square matrices a [..., N, N]."""
    a = _float_tensor(a, "inv")
    _square(a, "inv")
    return _ops.inverse(a)


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of the square matrices a [..., N, N]."""
    a = _float_tensor(a, "det")
    _square(a, "det")
    return _ops.det(a)


def block_diag(*arrs):
    """The arrays (0-, 1- or 2-D; a 1-D one is a row) on the diagonal of a zero matrix; no
    array gives a [1, 0] matrix (scipy's)."""
    if not arrs:
        return _ops.zeros((1, 0), _C.float32)
    ts = []
    for x in arrs:
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"For 'block_diag', the inputs must be Tensors, but got "
                            f"{type(x).__name__}.")
        if x.ndim > 2:
            raise ValueError(f"For 'block_diag', the inputs must be at most 2-D, but got shape "
                             f"{tuple(x.shape)}.")
        ts.append(_ops.reshape(x, (1, -1)) if x.ndim < 2 else x)
    dtype = ts[0].dtype
    for t in ts[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    cols = sum(t.shape[1] for t in ts)
    rows, c = [], 0
    for t in ts:
        h, w = t.shape
        parts = []
        if c:
            parts.append(_ops.zeros((h, c), dtype))
        parts.append(t.astype(dtype))
        if cols - c - w:
            parts.append(_ops.zeros((h, cols - c - w), dtype))
        rows.append(_ops.cat(tuple(parts), 1) if len(parts) > 1 else parts[0])
        c += w
    return _ops.cat(tuple(rows), 0)
