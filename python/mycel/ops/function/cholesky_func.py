"""Cholesky factorisation, its inverse and solves, and Householder QR (geqrf), composed from
table ops (MindSpore 2.x's ``ops.cholesky``, ``ops.cholesky_inverse``, ``ops.cholesky_solve``
and ``ops.geqrf``, and their Tensor methods).

Each is unrolled over the static matrix size M, as ``linalg_func.matrix_solve`` is: step k
works on whole [..., M, N] tensors with one-hot rows/columns and masks (Gather of row or
column k, MatMul, elementwise updates), so leading batch dimensions, both modes and gradients
(through the ops' own rules) come for free. The cost is O(M) ops, meant for the small
matrices programs factor this way.

- cholesky: the Cholesky-Banachiewicz order, column k of L from the columns before it; a
  matrix that is not positive definite gives NaN where the square root's argument is
  negative (no pivot is checked on the host).
- triangular solves: forward or back substitution, row by row.
- geqrf: LAPACK's representation (``xGEQRF``): R on and above the diagonal, the Householder
  vectors v (v[k] = 1 implied) below it, and tau with H_k = I - tau_k v v^T; a column whose
  part below the diagonal is zero gets tau 0 (H = I), as LAPACK's xLARFG.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "geqrf"]

_FLOATS = (_C.float32, _C.float64)


@constexpr
def _square_plan(shape, dtype, op, arg="input"):
    if dtype not in _FLOATS:
        raise TypeError(f"For '{op}', '{arg}' must be float32 or float64, but got {dtype}.")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For '{op}', '{arg}' must be [..., M, M], but got shape "
                         f"{tuple(shape)}.")
    return shape[-1]


@constexpr
def _check_upper(op, upper):
    if not isinstance(upper, bool):
        raise TypeError(f"For '{op}', 'upper' must be a bool, but got "
                        f"{type(upper).__name__}.")


@constexpr
def _unit(m, k, dtype, column):
    """e_k as [M, 1] (column) or [1, M] (row), of dtype; and the index tensor [k]."""
    np_dtype = np.float64 if dtype == _C.float64 else np.float32
    e = np.zeros((m, 1) if column else (1, m), np_dtype)
    e[(k, 0) if column else (0, k)] = 1
    return _C.Tensor(e), _C.Tensor(np.array([k], np.int64))


@constexpr
def _mask_from(m, k, dtype, strict):
    """[M, 1]: 1 for rows i > k (strict) or i >= k."""
    np_dtype = np.float64 if dtype == _C.float64 else np.float32
    rows = np.arange(m) > k if strict else np.arange(m) >= k
    return _C.Tensor(rows.astype(np_dtype).reshape(m, 1))


@constexpr
def _eye(shape, dtype):
    np_dtype = np.float64 if dtype == _C.float64 else np.float32
    return _C.Tensor(np.broadcast_to(np.eye(shape[-1], dtype=np_dtype), tuple(shape)).copy())


def _mm(a, b):
    return prim("BatchMatMul")(a, b) if a.ndim > 2 or b.ndim > 2 else prim("MatMul")(a, b)


def _t(a):
    n = a.ndim
    return prim("Transpose")(a, tuple(range(n - 2)) + (n - 1, n - 2))


def _col(a, idx):
    return prim("Gather")(a, idx, a.ndim - 1)  # [..., M, 1]


def _row(a, idx):
    return prim("Gather")(a, idx, a.ndim - 2)  # [..., 1, N]


def _cholesky_lower(a, m):
    """L with a = L L^T (a [..., M, M] symmetric positive definite)."""
    low = prim("ZerosLike")(a)
    for k in range(m):
        e_k, idx = _unit(m, k, a.dtype, column=False)
        # c = a[:, k] - L L[k, :]^T: column k of the Schur complement (rows >= k are used).
        c = prim("Sub")(_col(a, idx), _mm(low, _t(_row(low, idx))))  # [..., M, 1]
        d = prim("Sqrt")(_row(c, idx))  # [..., 1, 1]
        col = prim("Mul")(prim("Div")(c, d), _mask_from(m, k, a.dtype, strict=False))
        low = prim("Add")(low, prim("Mul")(col, e_k))
    return low


def cholesky(input_x, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix of input_x [..., M, M]
    (float32/float64): L lower-triangular with input_x = L L^T, or (upper) U = L^T with
    input_x = U^T U. Only the lower triangle of input_x is read."""
    a = as_tensor(input_x)
    _check_upper("cholesky", upper)
    m = _square_plan(a.shape, a.dtype, "cholesky", "input_x")
    low = _cholesky_lower(a, m)
    return _t(low) if upper else low


def _solve_triangular(t, b, m, lower):
    """X with t X = b, t [..., M, M] triangular (lower: forward substitution), b [..., M, K]."""
    x = prim("ZerosLike")(b)
    order = range(m) if lower else reversed(range(m))
    for k in order:
        e_k, idx = _unit(m, k, t.dtype, column=True)
        row_t = _row(t, idx)  # [..., 1, M]; the entries not yet solved multiply zeros of x
        done = _mm(row_t, x)  # [..., 1, K]
        diag = prim("Gather")(row_t, idx, t.ndim - 1)  # [..., 1, 1]
        x_k = prim("Div")(prim("Sub")(_row(b, idx), done), diag)
        x = prim("Add")(x, prim("Mul")(e_k, x_k))
    return x


def cholesky_inverse(input_x, upper=False):
    """The inverse of A from its Cholesky factor input_x [..., M, M] (float32/float64):
    A = L L^T (lower, the default) or A = U^T U (upper): A^-1 = L^-T L^-1."""
    f = as_tensor(input_x)
    _check_upper("cholesky_inverse", upper)
    m = _square_plan(f.shape, f.dtype, "cholesky_inverse", "input_x")
    low = _t(f) if upper else f
    low_inv = _solve_triangular(low, _eye(f.shape, f.dtype), m, lower=True)
    return _mm(_t(low_inv), low_inv)


@constexpr
def _solve_plan(b_shape, f_shape, b_dtype, f_dtype):
    m = _square_plan(f_shape, f_dtype, "cholesky_solve", "input2")
    if b_dtype != f_dtype:
        raise TypeError(f"For 'cholesky_solve', input1 and input2 must have one dtype, but got "
                        f"{b_dtype} and {f_dtype}.")
    if len(b_shape) != len(f_shape) or tuple(b_shape[:-2]) != tuple(f_shape[:-2]) or \
            b_shape[-2] != m:
        raise ValueError(f"For 'cholesky_solve', input1 must be [..., M, K] with input2's "
                         f"batch dimensions, but got shapes {tuple(b_shape)} and "
                         f"{tuple(f_shape)}.")
    return m


def cholesky_solve(input1, input2, upper=False):
    """X with A X = input1 [..., M, K], A given by its Cholesky factor input2 [..., M, M]
    (A = L L^T, or A = U^T U with upper): two triangular solves."""
    b, f = as_tensor(input1), as_tensor(input2)
    _check_upper("cholesky_solve", upper)
    m = _solve_plan(b.shape, f.shape, b.dtype, f.dtype)
    low = _t(f) if upper else f
    y = _solve_triangular(low, b, m, lower=True)
    return _solve_triangular(_t(low), y, m, lower=False)


@constexpr
def _geqrf_plan(shape, dtype):
    if dtype not in _FLOATS:
        raise TypeError(f"For 'geqrf', the input must be float32 or float64, but got {dtype}.")
    if len(shape) < 2:
        raise ValueError(f"For 'geqrf', the input must be at least 2-D, but got shape "
                         f"{tuple(shape)}.")
    return shape[-2], shape[-1]


@constexpr
def _zeros(shape, dtype):
    return _C.Tensor(np.zeros(shape, np.float64 if dtype == _C.float64 else np.float32))


@constexpr
def _geqrf_step(m, n, k, dtype):
    """(index [k], e_k column [M, 1], rows > k mask [M, 1], columns > k mask [1, N],
    column k one-hot [1, N], tau one-hot [1, min(M, N)])."""
    np_dtype = np.float64 if dtype == _C.float64 else np.float32
    e = np.zeros((m, 1), np_dtype)
    e[k] = 1
    below = (np.arange(m) > k).astype(np_dtype).reshape(m, 1)
    right = (np.arange(n) > k).astype(np_dtype).reshape(1, n)
    onek = (np.arange(n) == k).astype(np_dtype).reshape(1, n)
    taus = (np.arange(min(m, n)) == k).astype(np_dtype)
    return (_C.Tensor(np.array([k], np.int64)), _C.Tensor(e), _C.Tensor(below),
            _C.Tensor(right), _C.Tensor(onek), _C.Tensor(taus))


def geqrf(input):  # noqa: A002 (MindSpore's argument name)
    """(y, tau): the QR factorisation of each matrix of input [..., M, N] (float32/float64) in
    LAPACK's Householder form (module docstring); tau is [..., min(M, N)]."""
    a = as_tensor(input)
    m, n = _geqrf_plan(a.shape, a.dtype)
    tau = _zeros(tuple(a.shape[:-2]) + (min(m, n),), a.dtype)
    for k in range(min(m, n)):
        idx, e_k, below, right, onek, t_k = _geqrf_step(m, n, k, a.dtype)
        col = _col(a, idx)  # [..., M, 1]
        alpha = _row(col, idx)  # [..., 1, 1]
        tail = prim("Mul")(col, below)
        sigma = prim("ReduceSum", keep_dims=True)(prim("Square")(tail), (a.ndim - 2,))
        norm = prim("Sqrt")(prim("Add")(prim("Square")(alpha), sigma))
        plain = prim("Equal")(sigma, prim("ZerosLike")(sigma))  # nothing to annihilate
        neg = prim("Less")(alpha, prim("ZerosLike")(alpha))
        beta = prim("Select")(neg, norm, prim("Neg")(norm))  # -sign(alpha) * norm
        beta = prim("Select")(plain, alpha, beta)
        one = prim("OnesLike")(beta)
        safe_beta = prim("Select")(plain, one, beta)
        denom = prim("Select")(plain, one, prim("Sub")(alpha, beta))
        t = prim("Select")(plain, prim("ZerosLike")(beta),
                           prim("Div")(prim("Sub")(beta, alpha), safe_beta))
        v = prim("Add")(e_k, prim("Div")(tail, denom))  # [..., M, 1], v[k] = 1
        # H a on the columns right of k: a - tau v (v^T a).
        w = _mm(_t(v), a)  # [..., 1, N]
        a = prim("Sub")(a, prim("Mul")(prim("Mul")(t, v), prim("Mul")(w, right)))
        # Column k keeps R above the diagonal, becomes beta on it and v below it.
        above = prim("Sub")(prim("Sub")(prim("OnesLike")(below), below), e_k)
        newcol = prim("Add")(prim("Add")(prim("Mul")(beta, e_k), prim("Mul")(v, below)),
                             prim("Mul")(col, above))
        a = prim("Add")(prim("Mul")(a, prim("Sub")(prim("OnesLike")(onek), onek)),
                        prim("Mul")(newcol, onek))
        t_flat = prim("Reshape")(t, tuple(tau.shape[:-1]) + (1,))
        tau = prim("Add")(tau, prim("Mul")(t_flat, t_k))
    return a, tau
