"""Linear solves composed from table ops (MindSpore 2.x's ``ops.matrix_solve``).

Gaussian elimination with partial pivoting, unrolled over the static matrix size M: step k
picks the row of largest |A[i, k]| among i >= k (ArgMax), exchanges it with row k (an
elementwise update with one-hot rows, no gather of data-dependent shape), and subtracts
multiples of row k from the rows below; back substitution then solves the upper-triangular
system row by row. Every step works on whole [..., M, M] and [..., M, K] tensors with masks,
so leading batch dimensions, both modes and gradients (through the ops' own rules) come for
free. The cost is O(M) ops, meant for the small systems MindSpore programs solve this way. A
singular matrix gives inf/NaN entries (no pivot is checked on the host).

svd, pinv and cond of MindSpore 2.x, composed from op-table primitives by one-sided Jacobi
rotations (both modes; gradients flow through the rotations).

For A [..., M, N] (M >= N; a wide matrix is transposed first), each sweep rotates every pair
of columns (p, q) of W = A V so that they become orthogonal: with a = |w_p|^2, b = |w_q|^2,
g = w_p . w_q, t = sign(z) / (|z| + sqrt(1 + z^2)) for z = (b - a) / (2 g) (no rotation where
g is negligible), c = 1 / sqrt(1 + t^2), s = c t. The sweeps are unrolled (their number
is fixed: 10 + N / 4, convergence is quadratic once the columns are nearly orthogonal), so a
program compiles to O(sweeps N^2) elementwise ops on [..., M] columns: meant for the small
matrices MindSpore programs decompose this way, not for large ones (graph mode compiles
every rotation: thousands of nodes already for 4 x 4, slow to compile). The singular values are
the column norms of W, sorted descending; U = W / s (columns of a zero singular value are
left zero, where LAPACK returns some orthonormal completion), V the accumulated rotations.
full_matrices=True is supported for square matrices only (ValueError otherwise).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, tensor_arg
from mycel.ops.primitive import constexpr
from mycel.ops.function import array_func as _a
from mycel.ops.function.norm_func import matrix_norm
from mycel.ops.function.array_func import _need_tensor, _norm_axis
from mycel.ops.function.layout_func import tril as _tril
from mycel.ops.function.layout_func import triu as _triu
from mycel.ops.function.cholesky_func import geqrf as _geqrf
import math
from mycel.ops.function._util import stop_gradient

__all__ = ["matrix_solve", "inverse", "svd", "pinv", "cond", "mm", "mv", "dot", "tensor_dot",
           "batch_dot", "kron", "cross", "vecdot", "orgqr", "ormqr", "qr", "lu_unpack",
           "lu_solve", "matrix_exp"]


@constexpr
def _solve_plan(a_shape, b_shape, a_dtype, b_dtype):
    """M; errors name MatrixSolve."""
    if a_dtype != b_dtype or a_dtype not in (_C.float32, _C.float64, _C.complex64,
                                             _C.complex128):
        raise TypeError(f"For 'MatrixSolve', matrix and rhs must both be float32, float64, "
                        f"complex64 or complex128 (the same), but got {a_dtype} and "
                        f"{b_dtype}.")
    if any(d is None or d < 0 for d in tuple(a_shape) + tuple(b_shape)):
        raise TypeError(f"For 'MatrixSolve', the shapes must be known at compile time (the "
                        f"elimination is unrolled over M), but got {tuple(a_shape)} and "
                        f"{tuple(b_shape)} (-1: a size known only at run time).")
    if len(a_shape) < 2 or a_shape[-1] != a_shape[-2]:
        raise ValueError(f"For 'MatrixSolve', the matrix must be [..., M, M], but got shape "
                         f"{tuple(a_shape)}.")
    if len(b_shape) != len(a_shape) or tuple(b_shape[:-2]) != tuple(a_shape[:-2]) or \
            b_shape[-2] != a_shape[-1]:
        raise ValueError(f"For 'MatrixSolve', rhs must be [..., M, K] with the matrix's batch "
                         f"dimensions, but got shapes {tuple(a_shape)} and {tuple(b_shape)}.")
    return a_shape[-1]


@constexpr
def _step_constants(m, k, dtype):
    """(index tensor [k], one-hot column e_k [M, 1], rows-below mask [M, 1], rows >= k
    mask [M]) for step k."""
    np_dtype = np.float64 if dtype == _C.float64 else np.float32
    e = np.zeros((m, 1), np_dtype)
    e[k] = 1
    below = (np.arange(m) > k).astype(np_dtype).reshape(m, 1)
    return (_C.Tensor(np.array([k], np.int64)), _C.Tensor(e), _C.Tensor(below),
            _C.Tensor(np.arange(m) >= k))


def _row(t, idx):
    return prim("Gather")(t, idx, t.ndim - 2)  # [..., 1, N]


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix @ X = rhs (matrix^T @ X = rhs with adjoint) for matrix [..., M, M] and
    rhs [..., M, K], float32, float64, complex64 or complex128 (module docstring: the method
    and its limits; a complex system is solved as its real form of size 2M, adjoint being the
    conjugate transpose)."""
    a, b = as_tensor(matrix), as_tensor(rhs)
    m = _solve_plan(a.shape, b.shape, a.dtype, b.dtype)
    if a.dtype in (_C.complex64, _C.complex128):
        return _complex_solve(a, b, m, adjoint)
    if adjoint:
        a = prim("Transpose")(a, tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2))
    for k in range(m):
        idx, e_k, below, candidates = _step_constants(m, k, a.dtype)
        col = prim("Gather")(a, idx, a.ndim - 1)  # [..., M, 1]
        mag = prim("Select")(candidates, prim("Reshape")(prim("Abs")(col), col.shape[:-1]),
                             prim("Fill")(a.dtype, col.shape[:-1], -1.0))
        pivot = prim("Argmax", axis=-1, output_type=_C.int64)(mag)
        e_p = prim("ExpandDims")(prim("OneHot", dtype=a.dtype)(pivot, m, 1.0, 0.0), -1)
        is_p = prim("Greater")(e_p, 0.5)  # [..., M, 1]
        a = _exchange(a, e_p, is_p, e_k, idx)
        b = _exchange(b, e_p, is_p, e_k, idx)
        row_a, row_b = _row(a, idx), _row(b, idx)
        diag = prim("Gather")(row_a, idx, a.ndim - 1)  # [..., 1, 1]
        factor = prim("Mul")(prim("Div")(prim("Gather")(a, idx, a.ndim - 1), diag), below)
        a = prim("Sub")(a, prim("Mul")(factor, row_a))
        b = prim("Sub")(b, prim("Mul")(factor, row_b))
    x = prim("ZerosLike")(b)
    for k in reversed(range(m)):
        idx, e_k, _, _ = _step_constants(m, k, a.dtype)
        row_a = _row(a, idx)  # [..., 1, M]
        done = prim("BatchMatMul")(row_a, x) if a.ndim > 2 else prim("MatMul")(row_a, x)
        diag = prim("Gather")(row_a, idx, a.ndim - 1)
        x_k = prim("Div")(prim("Sub")(_row(b, idx), done), diag)  # [..., 1, K]
        x = prim("Add")(x, prim("Mul")(e_k, x_k))
    return x


def _complex_solve(a, b, m, adjoint):
    """A complex system A X = B as the real one [[Ar, -Ai], [Ai, Ar]] [Xr; Xi] = [Br; Bi]
    of twice the size (adjoint: A's conjugate transpose), solved with the same pivoting."""
    if adjoint:
        perm = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
        a = prim("Conj")(prim("Transpose")(a, perm))
    ar, ai = prim("Real")(a), prim("Imag")(a)
    rows, cols = a.ndim - 2, a.ndim - 1
    top = prim("Concat", axis=cols)((ar, prim("Neg")(ai)))
    bottom = prim("Concat", axis=cols)((ai, ar))
    big = prim("Concat", axis=rows)((top, bottom))
    rhs = prim("Concat", axis=rows)((prim("Real")(b), prim("Imag")(b)))
    x = matrix_solve(big, rhs)
    xr, xi = prim("Split", axis=rows, output_num=2)(x)
    return prim("Complex")(xr, xi)


def _exchange(t, e_p, is_p, e_k, idx):
    """t with rows k and p exchanged (exactly: rows are selected, not recomputed); row p is
    the sum of e_p * t over the rows (one nonzero term)."""
    row_p = prim("ReduceSum", keep_dims=True)(prim("Mul")(e_p, t), (t.ndim - 2,))
    is_k = prim("Greater")(e_k, 0.5)  # [M, 1]
    swapped = prim("Select")(is_p, prim("BroadcastTo", shape=t.shape)(_row(t, idx)), t)
    return prim("Select")(is_k, prim("BroadcastTo", shape=t.shape)(row_p), swapped)


@constexpr
def _eye(shape, dtype):
    """The identity matrices of a [..., M, M] shape."""
    np_dtype = np.float64 if dtype == _C.float64 else np.float32
    return _C.Tensor(np.broadcast_to(np.eye(shape[-1], dtype=np_dtype), tuple(shape)).copy())


def inverse(input):  # noqa: A002 (MindSpore's argument name)
    """The inverse of each square matrix of input [..., M, M] (float32 or float64), solved
    against the identity (matrix_solve: Gaussian elimination with partial pivoting)."""
    a = as_tensor(input)
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"For 'inverse', the input must be [..., M, M], but got shape "
                         f"{tuple(a.shape)}.")
    return matrix_solve(a, _eye(a.shape, a.dtype))


@constexpr
def _det_plan(shape, dtype, op):
    if dtype not in (_C.float32, _C.float64):
        raise TypeError(f"For '{op}', the input must be float32 or float64, but got {dtype}.")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For '{op}', the input must be [..., M, M], but got shape "
                         f"{tuple(shape)}.")
    return shape[-1]


def _eliminate(a, m):
    """The diagonal of U ([..., M]) and the permutation's sign ([...]) of a = P L U, by the
    elimination of matrix_solve (partial pivoting)."""
    sign = prim("ReduceSum", keep_dims=False)(prim("ZerosLike")(a), (a.ndim - 2, a.ndim - 1))
    sign = prim("Add")(sign, 1.0)
    diags = ()
    for k in range(m):
        idx, e_k, below, candidates = _step_constants(m, k, a.dtype)
        col = prim("Gather")(a, idx, a.ndim - 1)
        mag = prim("Select")(candidates, prim("Reshape")(prim("Abs")(col), col.shape[:-1]),
                             prim("Fill")(a.dtype, col.shape[:-1], -1.0))
        pivot = prim("Argmax", axis=-1, output_type=_C.int64)(mag)
        onehot = prim("OneHot", dtype=a.dtype)(pivot, m, 1.0, 0.0)  # [..., M]
        e_p = prim("ExpandDims")(onehot, -1)
        swapped = prim("Sub")(1.0, prim("Gather")(onehot, idx, onehot.ndim - 1))  # [..., 1]
        sign = prim("Mul")(sign, prim("Sub")(1.0, prim("Mul")(
            prim("Reshape")(swapped, sign.shape), 2.0)))
        a = _exchange(a, e_p, prim("Greater")(e_p, 0.5), e_k, idx)
        row_a = _row(a, idx)
        diag = prim("Gather")(row_a, idx, a.ndim - 1)  # [..., 1, 1]
        diags = diags + (prim("Reshape")(diag, diag.shape[:-2] + (1,)),)
        # A zero pivot means the column is zero from row k down: nothing to eliminate.
        safe = prim("Select")(prim("Equal")(diag, 0.0), prim("OnesLike")(diag), diag)
        factor = prim("Mul")(prim("Div")(prim("Gather")(a, idx, a.ndim - 1), safe), below)
        a = prim("Sub")(a, prim("Mul")(factor, row_a))
    return prim("Concat", axis=-1)(diags), sign


def slogdet(input):  # noqa: A002 (MindSpore's argument name)
    """(sign, log|det|) of each square matrix of input [..., M, M] (float32/float64), from
    the LU diagonal of matrix_solve's elimination: sign 0 and log|det| -inf when singular."""
    a = as_tensor(input)
    m = _det_plan(a.shape, a.dtype, "slogdet")
    d, sign = _eliminate(a, m)
    sign = prim("Mul")(sign, prim("ReduceProd", keep_dims=False)(prim("Sign")(d), (-1,)))
    logabs = prim("ReduceSum", keep_dims=False)(prim("Log")(prim("Abs")(d)), (-1,))
    return sign, logabs


def det(input):  # noqa: A002
    """The determinant of each square matrix of input [..., M, M] (float32/float64): the
    permutation's sign times the product of the LU diagonal."""
    a = as_tensor(input)
    m = _det_plan(a.shape, a.dtype, "det")
    d, sign = _eliminate(a, m)
    return prim("Mul")(sign, prim("ReduceProd", keep_dims=False)(d, (-1,)))


__all__ += ["slogdet", "det"]


FLOATS = (_C.float32, _C.float64)


@constexpr
def _svd_plan(shape, dtype, full_matrices, op):
    if dtype not in FLOATS:
        raise TypeError(f"For '{op}', the input must be float32 or float64, but got {dtype}.")
    if len(shape) < 2:
        raise ValueError(f"For '{op}', the input must be at least 2-D, but got {tuple(shape)}.")
    m, n = shape[-2], shape[-1]
    if full_matrices and m != n:
        raise ValueError(f"For '{op}', full_matrices=True is supported for square matrices "
                         f"only, but got shape {tuple(shape)}.")
    return m < n, 10 + max(m, n) // 4


@constexpr
def _swap_last(nd):
    return tuple(range(nd - 2)) + (nd - 1, nd - 2)


def _col(t, j):
    nd = len(t.shape)
    return prim("StridedSlice")(t, (0,) * nd, tuple(t.shape[:-1]) + (j + 1,),
                                (1,) * (nd - 1) + (1,)) if j == 0 else \
        prim("StridedSlice")(t, (0,) * (nd - 1) + (j,), tuple(t.shape[:-1]) + (j + 1,),
                             (1,) * nd)


def _jacobi(a, sweeps):
    """(W = A V with orthogonal columns, V), a [..., M, N] with M >= N."""
    n = a.shape[-1]
    cols = ()
    for j in range(n):
        cols = cols + (_col(a, j),)
    eye = _eye_cols(n, a.dtype)
    vcols = ()
    for j in range(n):
        vcols = vcols + (prim("BroadcastTo", shape=tuple(a.shape[:-2]) + (n, 1))(eye[j]),)
    tiny = 1e-300 if a.dtype == _C.float64 else 1e-37
    for _ in range(sweeps):
        for p in range(n - 1):
            for q in range(p + 1, n):
                wp, wq = cols[p], cols[q]
                al = prim("ReduceSum", keep_dims=True)(wp * wp, (-2,))
                be = prim("ReduceSum", keep_dims=True)(wq * wq, (-2,))
                ga = prim("ReduceSum", keep_dims=True)(wp * wq, (-2,))
                small = prim("LessEqual")(prim("Abs")(ga), 1e-15 * prim("Sqrt")(al * be) + tiny)
                g_safe = prim("Select")(small, prim("OnesLike")(ga), ga)
                z = (be - al) / (2.0 * g_safe)
                sz = prim("Select")(prim("GreaterEqual")(z, 0.0), prim("OnesLike")(z),
                                    -prim("OnesLike")(z))
                t = sz / (prim("Abs")(z) + prim("Sqrt")(1.0 + z * z))
                t = prim("Select")(small, prim("ZerosLike")(t), t)
                c = 1.0 / prim("Sqrt")(1.0 + t * t)
                s = c * t
                cols = _replace2(cols, p, q, c * wp - s * wq, s * wp + c * wq)
                vp, vq = vcols[p], vcols[q]
                vcols = _replace2(vcols, p, q, c * vp - s * vq, s * vp + c * vq)
    return _a.concat(cols, -1), _a.concat(vcols, -1)


def _replace2(t, p, q, a, b):
    out = ()
    for i in range(len(t)):
        out = out + ((a if i == p else (b if i == q else t[i])),)
    return out


@constexpr
def _eye_cols(n, dtype):
    e = np.eye(n)
    return tuple(_C.Tensor(np.ascontiguousarray(e[:, j:j + 1])).astype(dtype) for j in range(n))


def _svd_core(a, sweeps):
    """(s [..., K] descending, U [..., M, K], V [..., K, K]) for M >= N = K."""
    w, v = _jacobi(a, sweeps)
    s = prim("Sqrt")(prim("ReduceSum")(w * w, (-2,)))
    k = s.shape[-1]
    vals, order = prim("TopK", sorted=True)(s, k)
    nd = len(w.shape)
    idx = prim("BroadcastTo", shape=w.shape)(prim("ExpandDims")(order, nd - 2))
    w = _a.gather_d(w, nd - 1, idx)
    vidx = prim("BroadcastTo", shape=v.shape)(prim("ExpandDims")(order, nd - 2))
    v = _a.gather_d(v, nd - 1, vidx)
    pos = prim("Greater")(vals, 0.0)
    inv = prim("Select")(pos, 1.0 / prim("Select")(pos, vals, prim("OnesLike")(vals)),
                         prim("ZerosLike")(vals))
    u = w * prim("ExpandDims")(inv, nd - 2)
    return vals, u, v


def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002 (MindSpore's names)
    """(s, u, v) with input = u diag(s) v^T, s descending (module docstring); s alone when
    compute_uv is False."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"For 'svd', the input must be a Tensor, but got "
                        f"{type(input).__name__}.")
    wide, sweeps = _svd_plan(input.shape, input.dtype, full_matrices, "svd")
    nd = len(input.shape)
    a = prim("Transpose")(input, _swap_last(nd)) if wide else input
    s, u, v = _svd_core(a, sweeps)
    if not compute_uv:
        return s
    return (s, v, u) if wide else (s, u, v)


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse: v diag(1/s) u^T over the singular values above
    max(atol, rtol * s_max) (rtol defaults to eps * max(M, N) when atol is not given)."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For 'pinv', x must be a Tensor, but got {type(x).__name__}.")
    wide, sweeps = _svd_plan(x.shape, x.dtype, False, "pinv")
    nd = len(x.shape)
    s, u, v = svd(x)
    eps = float(np.finfo(np.float64 if x.dtype == _C.float64 else np.float32).eps)
    m, n = x.shape[-2], x.shape[-1]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else eps * max(m, n)
    smax = prim("ReduceMax", keep_dims=True)(s, (-1,))
    cut = prim("Maximum")(smax * float(rtol), float(atol or 0.0))
    keep = prim("Greater")(s, cut)
    inv = prim("Select")(keep, 1.0 / prim("Select")(keep, s, prim("OnesLike")(s)),
                         prim("ZerosLike")(s))
    vs = v * prim("ExpandDims")(inv, nd - 2)
    mm = prim("BatchMatMul") if nd > 2 else prim("MatMul")
    return mm(vs, prim("Transpose")(u, _swap_last(nd)))


def cond(A, p=None):  # noqa: N803 (MindSpore's argument name)
    """The condition number: s_max / s_min for p None or 2, s_min / s_max for -2; for 'fro',
    'nuc', inf, -inf, 1, -1 the product of the norm of A and of its inverse."""
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"For 'cond', A must be a Tensor, but got {type(A).__name__}.")
    if p is None or p in (2, -2):
        s = svd(A, compute_uv=False)
        k = s.shape[-1]
        nd = len(s.shape)
        hi = prim("StridedSlice")(s, (0,) * nd, tuple(s.shape[:-1]) + (1,), (1,) * nd)
        lo = prim("StridedSlice")(s, (0,) * (nd - 1) + (k - 1,), tuple(s.shape), (1,) * nd)
        r = hi / lo if p != -2 else lo / hi
        return prim("Reshape")(r, tuple(s.shape[:-1]))
    if p not in ("fro", "nuc", float("inf"), float("-inf"), 1, -1):
        raise ValueError(f"For 'cond', p must be None, 'fro', 'nuc', inf, -inf, 1, -1, 2 or "
                         f"-2, but got {p!r}.")
    if p == "nuc":
        s = svd(A, compute_uv=False)
        si = svd(inverse(A), compute_uv=False)
        return prim("ReduceSum")(s, (-1,)) * prim("ReduceSum")(si, (-1,))
    return matrix_norm(A, p) * matrix_norm(inverse(A), p)


@constexpr
def _check_2d(a, b, op, ra, rb):
    if len(a) != ra or len(b) != rb:
        raise ValueError(f"For '{op}', the inputs must be {ra}-D and {rb}-D, but got shapes "
                         f"{tuple(a)} and {tuple(b)}.")
    if a[-1] != b[0]:
        raise ValueError(f"For '{op}', the inner dimensions differ: shapes {tuple(a)} and "
                         f"{tuple(b)}.")
    return True


@constexpr
def _check_same_dtype(a, b, op):
    if a != b:
        raise TypeError(f"For '{op}', the inputs must have the same dtype, but got {a} and "
                        f"{b}.")
    return True


def mm(input, mat2):  # noqa: A002
    """The matrix product of two 2-D tensors."""
    x, y = _need_tensor(input, "mm"), _need_tensor(mat2, "mm", "mat2")
    _check_2d(x.shape, y.shape, "mm", 2, 2)
    return prim("MatMul")(x, y)


def mv(mat, vec):
    """The product of a 2-D matrix and a 1-D vector."""
    x, v = _need_tensor(mat, "mv", "mat"), _need_tensor(vec, "mv", "vec")
    _check_2d(x.shape, v.shape, "mv", 2, 1)
    return prim("Reshape")(prim("MatMul")(x, prim("Reshape")(v, (-1, 1))), (-1,))


@constexpr
def _tensordot_plan(sa, sb, axes, op="tensor_dot"):
    na, nb = len(sa), len(sb)
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0 or axes > min(na, nb):
            raise ValueError(f"For '{op}', axes {axes} is out of range for ranks {na}, {nb}.")
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax_a = list(axes[0]) if isinstance(axes[0], (tuple, list)) else [axes[0]]
        ax_b = list(axes[1]) if isinstance(axes[1], (tuple, list)) else [axes[1]]
        if len(ax_a) != len(ax_b):
            raise ValueError(f"For '{op}', both axes lists must have the same length, but "
                             f"got {axes!r}.")
        ax_a = [_norm_axis(a, na, op, "axes") for a in ax_a]
        ax_b = [_norm_axis(b, nb, op, "axes") for b in ax_b]
    else:
        raise TypeError(f"For '{op}', axes must be an int or a pair of int sequences, but got "
                        f"{axes!r}.")
    for a, b in zip(ax_a, ax_b):
        if sa[a] != sb[b]:
            raise ValueError(f"For '{op}', the contracted dimensions differ: {sa[a]} (axis "
                             f"{a} of {tuple(sa)}) and {sb[b]} (axis {b} of {tuple(sb)}).")
    free_a = [i for i in range(na) if i not in ax_a]
    free_b = [i for i in range(nb) if i not in ax_b]
    k = int(np.prod([sa[i] for i in ax_a])) if ax_a else 1
    ma = int(np.prod([sa[i] for i in free_a])) if free_a else 1
    nb_ = int(np.prod([sb[i] for i in free_b])) if free_b else 1
    out = tuple(sa[i] for i in free_a) + tuple(sb[i] for i in free_b)
    return tuple(free_a + ax_a), (ma, k), tuple(ax_b + free_b), (k, nb_), out


def tensor_dot(x1, x2, axes):
    """The sum of products over the axes pairs (an int n: the last n of x1 with the first n
    of x2), numpy's tensordot."""
    a, b = _need_tensor(x1, "tensor_dot", "x1"), _need_tensor(x2, "tensor_dot", "x2")
    _check_same_dtype(a.dtype, b.dtype, "tensor_dot")
    pa, sa, pb, sb, out = _tensordot_plan(a.shape, b.shape, axes)
    a2 = prim("Reshape")(prim("Transpose")(a, pa), sa)
    b2 = prim("Reshape")(prim("Transpose")(b, pb), sb)
    return prim("Reshape")(prim("MatMul")(a2, b2), out)


@constexpr
def _dot_check(sa, sb, da, db):
    if da != db:
        raise TypeError(f"For 'dot', the inputs must have the same dtype, but got {da} and "
                        f"{db}.")
    if da not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'dot', the inputs must be float16, float32 or float64, but got "
                        f"{da}.")
    if len(sa) < 2 or len(sb) < 2:
        raise ValueError(f"For 'dot', both inputs must be at least 2-D, but got shapes "
                         f"{tuple(sa)} and {tuple(sb)}.")
    return ((len(sa) - 1,), (len(sb) - 2,))


def dot(input, other):  # noqa: A002
    """numpy's dot for rank >= 2: input's last axis contracted with other's second to last,
    shape input.shape[:-1] + other.shape[:-2] + other.shape[-1:]."""
    a, b = _need_tensor(input, "dot"), _need_tensor(other, "dot", "other")
    return tensor_dot(a, b, _dot_check(a.shape, b.shape, a.dtype, b.dtype))


@constexpr
def _batch_dot_plan(sa, sb, axes, da, db):
    if da != db:
        raise TypeError(f"For 'batch_dot', the inputs must have the same dtype, but got {da} "
                        f"and {db}.")
    na, nb = len(sa), len(sb)
    if na < 2 or nb < 2 or sa[0] != sb[0]:
        raise ValueError(f"For 'batch_dot', both inputs must be at least 2-D with the same "
                         f"batch size, but got shapes {tuple(sa)} and {tuple(sb)}.")
    if axes is None:
        axes = (na - 1, nb - 1 if nb == 2 else nb - 2)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        axes = (axes, axes)
    ax_a = _norm_axis(axes[0], na, "batch_dot", "axes")
    ax_b = _norm_axis(axes[1], nb, "batch_dot", "axes")
    if ax_a == 0 or ax_b == 0:
        raise ValueError(f"For 'batch_dot', axes must not be the batch axis 0, got {axes!r}.")
    if sa[ax_a] != sb[ax_b]:
        raise ValueError(f"For 'batch_dot', the contracted dimensions differ: {sa[ax_a]} and "
                         f"{sb[ax_b]}.")
    fa = [i for i in range(1, na) if i != ax_a]
    fb = [i for i in range(1, nb) if i != ax_b]
    b, k = sa[0], sa[ax_a]
    ma = int(np.prod([sa[i] for i in fa])) if fa else 1
    mb = int(np.prod([sb[i] for i in fb])) if fb else 1
    out = (b,) + tuple(sa[i] for i in fa) + tuple(sb[i] for i in fb)
    if len(out) == 1:
        out = (b, 1)
    return ((0,) + tuple(fa) + (ax_a,), (b, ma, k), (0, ax_b) + tuple(fb), (b, k, mb), out)


def batch_dot(x1, x2, axes=None):
    """Per batch element (axis 0) the sum of products over axes (default: x1's last axis
    with x2's second to last, or last when x2 is 2-D); a result of rank 1 becomes [B, 1]."""
    a, b = _need_tensor(x1, "batch_dot", "x1"), _need_tensor(x2, "batch_dot", "x2")
    pa, sa, pb, sb, out = _batch_dot_plan(a.shape, b.shape, axes, a.dtype, b.dtype)
    a3 = prim("Reshape")(prim("Transpose")(a, pa), sa)
    b3 = prim("Reshape")(prim("Transpose")(b, pb), sb)
    return prim("Reshape")(prim("BatchMatMul")(a3, b3), out)


@constexpr
def _kron_plan(sa, sb):
    n = max(len(sa), len(sb))
    sa = (1,) * (n - len(sa)) + tuple(sa)
    sb = (1,) * (n - len(sb)) + tuple(sb)
    va = tuple(v for d in sa for v in (d, 1))
    vb = tuple(v for d in sb for v in (1, d))
    return va, vb, tuple(a * b for a, b in zip(sa, sb))


def kron(input, other):  # noqa: A002
    """The Kronecker product: blocks input[i] * other, of shape input.shape * other.shape
    (the shorter shape padded with leading ones)."""
    a, b = _need_tensor(input, "kron"), _need_tensor(other, "kron", "other")
    va, vb, out = _kron_plan(a.shape, b.shape)
    return prim("Reshape")(prim("Mul")(prim("Reshape")(a, va), prim("Reshape")(b, vb)), out)


@constexpr
def _cross_dim(sa, sb, dim):
    if len(sa) != len(sb):
        raise ValueError(f"For 'cross', the inputs must have the same rank, but got shapes "
                         f"{tuple(sa)} and {tuple(sb)}.")
    if dim is None:
        for i, (x, y) in enumerate(zip(sa, sb)):
            if x == 3 and y == 3:
                return i
        raise ValueError(f"For 'cross', no dimension of size 3 in {tuple(sa)}.")
    d = _norm_axis(dim, len(sa), "cross", "dim")
    if sa[d] != 3 or sb[d] != 3:
        raise ValueError(f"For 'cross', dimension {dim} must have size 3, but got shapes "
                         f"{tuple(sa)} and {tuple(sb)}.")
    return d


def cross(input, other, dim=None):  # noqa: A002
    """The 3-vector cross product along dim (the first dimension of size 3 when None)."""
    a, b = _need_tensor(input, "cross"), _need_tensor(other, "cross", "other")
    d = _cross_dim(a.shape, b.shape, dim)
    a0, a1, a2 = _a.split(a, (1, 1, 1), d)
    b0, b1, b2 = _a.split(b, (1, 1, 1), d)
    return _a.concat((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), d)


def vecdot(x, y, *, axis=-1):
    """sum(conj(x) * y) over axis (broadcasting): complex x is conjugated, as MindSpore's and
    torch.linalg.vecdot (it was not: a silently different value)."""
    x = _need_tensor(x, "vecdot", "x")
    if x.dtype in (_C.complex64, _C.complex128):
        x = prim("Conj")(x)
    p = prim("Mul")(x, _need_tensor(y, "vecdot", "y"))
    return prim("ReduceSum")(p, (_norm_axis(axis, p.ndim, "vecdot"),))


@constexpr
def _below(m, i):
    """([M, 1] bool rows > i, [M, 1] float 1 at row i)."""
    r = np.arange(m).reshape(m, 1)
    return _C.Tensor(r > i), _C.Tensor((r == i).astype(np.float64))


def _reflector(a, i, m):
    """v_i [..., M, 1]: 1 at row i, a[..., i+1:, i] below, 0 above."""
    nd = len(a.shape)
    col = prim("StridedSlice")(a, (0,) * (nd - 1) + (i,), tuple(a.shape[:-1]) + (i + 1,),
                               (1,) * nd)
    below, unit = _below(m, i)
    return prim("Select")(prim("BroadcastTo", shape=col.shape)(below), col,
                          prim("BroadcastTo", shape=col.shape)(prim("Cast")(unit, a.dtype)))


def _householder_apply(a, tau, q, k, m):
    """H_1 ... H_k q (reflectors of a, factors tau), applying H_k first."""
    nd = len(a.shape)
    for i in range(k - 1, -1, -1):
        v = _reflector(a, i, m)
        t = prim("Reshape")(prim("StridedSlice")(tau, (0,) * (nd - 2) + (i,),
                                                 tuple(tau.shape[:-1]) + (i + 1,),
                                                 (1,) * (nd - 1)),
                            tuple(tau.shape[:-1]) + (1, 1))
        vt_q = prim("ReduceSum", keep_dims=True)(v * q, (-2,))  # [..., 1, N]
        q = q - t * v * vt_q
    return q


def orgqr(input, input2):  # noqa: A002
    """The first N columns of Q = H_1 ... H_K from geqrf's packed reflectors input [..., M, N]
    and factors input2 (tau) [..., K] (LAPACK's orgqr)."""
    a, tau = tensor_arg(input, "orgqr", "input"), tensor_arg(input2, "orgqr", "input2")
    m, n, k = _qr_check(a.shape, tau.shape, a.dtype, tau.dtype, "orgqr")
    if n > m:
        raise ValueError(f"For 'orgqr', input must have M >= N, but got {a.shape}.")
    q = prim("BroadcastTo", shape=a.shape)(_eye_rect(m, n, a.dtype))
    return _householder_apply(a, tau, q, k, m)


def qr(input, mode="reduced"):  # noqa: A002
    """(Q, R) with input = Q R for input [..., M, N] (float32/float64), from geqrf's
    reflectors (LAPACK's signs, as numpy's): 'reduced' Q [..., M, K], R [..., K, N] with
    K = min(M, N); 'complete' Q [..., M, M], R [..., M, N]."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"For 'qr', mode must be 'reduced' or 'complete', but got {mode!r}.")
    y, tau = _geqrf(input)
    m, n = y.shape[-2], y.shape[-1]
    eye = prim("BroadcastTo", shape=tuple(y.shape[:-2]) + (m, m))(_lu_eye(m, y.dtype))
    q = ormqr(y, tau, eye)
    r = _triu(y)
    if mode == "complete" or m <= n:  # K = M: Q is square, R is all of triu(y)
        return q, r
    return q[..., :n], r[..., :n, :]


def ormqr(input, tau, other, left=True, transpose=False):  # noqa: A002
    """other multiplied by Q = H_1 ... H_K of geqrf's packed reflectors: Q other (left),
    other Q (not left), with Q^T when transpose (LAPACK's ormqr)."""
    a = input
    for name, v in (("input", input), ("tau", tau), ("other", other)):
        tensor_arg(v, "ormqr", name)
    m, _, k = _qr_check(a.shape, tau.shape, a.dtype, tau.dtype, "ormqr")
    need = other.shape[-2] if left else other.shape[-1]
    if need != m:
        raise ValueError(f"For 'ormqr', other's {'rows' if left else 'columns'} ({need}) must "
                         f"equal input's rows M = {m}.")
    eye = prim("BroadcastTo", shape=tuple(a.shape[:-2]) + (m, m))(_lu_eye(m, a.dtype))
    q = _householder_apply(a, tau, eye, k, m)
    nd = len(q.shape)
    if transpose:
        q = prim("Transpose")(q, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    mm = prim("BatchMatMul") if nd > 2 else prim("MatMul")
    return mm(q, other) if left else mm(other, q)


_FLOAT_DTYPES = (_C.float16, _C.float32, _C.float64)


@constexpr
def _lu_check(ls, ps, ldt, pdt, op):
    if len(ls) < 2 or ldt not in _FLOAT_DTYPES:
        raise TypeError(f"For '{op}', LU_data must be a float tensor [..., M, N], but got "
                        f"{ldt} of shape {tuple(ls)}.")
    if pdt not in (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8):
        raise TypeError(f"For '{op}', LU_pivots must be an integer tensor, but got {pdt}.")
    k = min(ls[-2], ls[-1])
    if tuple(ps) != tuple(ls[:-2]) + (k,):
        raise ValueError(f"For '{op}', LU_pivots must have shape {tuple(ls[:-2]) + (k,)}, but "
                         f"got {tuple(ps)}.")
    return ls[-2], k


def _perm_rows(pivots, m, k):
    """The row order [..., m] (int64) after applying the swaps i <-> pivots[i] - 1."""
    piv = prim("Cast")(pivots, _C.int64) - 1
    lead = piv.shape[:-1]
    order = prim("BroadcastTo", shape=tuple(lead) + (m,))(_arange_i64(m))
    for i in range(k):
        pi = prim("StridedSlice")(piv, (0,) * len(lead) + (i,), tuple(lead) + (i + 1,),
                                  (1,) * (len(lead) + 1))  # [..., 1]
        at_i = prim("StridedSlice")(order, (0,) * len(lead) + (i,), tuple(lead) + (i + 1,),
                                    (1,) * (len(lead) + 1))
        at_p = _a.gather_d(order, len(lead), pi)
        pos = _arange_i64(m)
        at_row_i = prim("BroadcastTo", shape=order.shape)(_onehot_row(m, i))
        order = prim("Select")(at_row_i, prim("BroadcastTo", shape=order.shape)(at_p),
                               prim("Select")(prim("Equal")(pos, pi),
                                              prim("BroadcastTo", shape=order.shape)(at_i),
                                              order))
    return order


@constexpr
def _arange_i64(m):
    return _C.Tensor(np.arange(m, dtype=np.int64))


@constexpr
def _onehot_row(m, i):
    return _C.Tensor(np.arange(m) == i)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) of packed LU factors: A = P @ L @ U, P a permutation matrix [..., M, M],
    L [..., M, K] unit lower, U [..., K, N] upper (K = min(M, N))."""
    lu = tensor_arg(LU_data, "lu_unpack", "LU_data")
    piv = tensor_arg(LU_pivots, "lu_unpack", "LU_pivots")
    m, k = _lu_check(lu.shape, piv.shape, lu.dtype, piv.dtype, "lu_unpack")
    p = l_ = u = None
    if unpack_pivots:
        order = _perm_rows(piv, m, k)  # row i of P^T A is row order[i] of A
        eye = _lu_eye(m, lu.dtype)
        pt = prim("Gather")(eye, order, 0) if len(order.shape) == 1 else \
            _a.gather_d(prim("BroadcastTo", shape=tuple(order.shape) + (m,))(eye),
                        len(order.shape) - 1,
                        prim("BroadcastTo", shape=tuple(order.shape) + (m,))(
                            prim("ExpandDims")(order, -1)))
        nd = len(pt.shape)
        p = prim("Transpose")(pt, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    if unpack_data:
        n = lu.shape[-1]
        lower = _tril(lu, -1)
        lower = prim("StridedSlice")(lower, (0,) * len(lu.shape), tuple(lu.shape[:-1]) + (k,),
                                     (1,) * len(lu.shape))
        l_ = lower + _eye_rect(m, k, lu.dtype)
        upper = _triu(lu, 0)
        u = prim("StridedSlice")(upper, (0,) * len(lu.shape), tuple(lu.shape[:-2]) + (k, n),
                                 (1,) * len(lu.shape))
    return p, l_, u


@constexpr
def _lu_eye(m, dtype):
    return _C.Tensor(np.eye(m)).astype(dtype)


@constexpr
def _eye_rect(m, k, dtype):
    return _C.Tensor(np.eye(m, k)).astype(dtype)


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    """x with A x = b for A given by its packed LU factors and pivots; b [..., M, K]."""
    for name, v in (("b", b), ("LU_data", LU_data), ("LU_pivots", LU_pivots)):
        tensor_arg(v, "lu_solve", name)
    m, k = _lu_check(LU_data.shape, LU_pivots.shape, LU_data.dtype, LU_pivots.dtype,
                     "lu_solve")
    if LU_data.shape[-1] != m or b.shape[-2] != m:
        raise ValueError(f"For 'lu_solve', LU_data must be square [..., M, M] and b [..., M, K], "
                         f"but got {LU_data.shape} and {b.shape}.")
    p, low, up = lu_unpack(LU_data, LU_pivots)
    nd = len(p.shape)
    pt = prim("Transpose")(p, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    y = prim("BatchMatMul")(pt, b) if nd > 2 else prim("MatMul")(pt, b)
    rows = ()
    for i in range(m):  # forward substitution, unit diagonal
        ri = _row_of(y, i)
        for j in range(i):
            ri = ri - _elem(low, i, j) * rows[j]
        rows = rows + (ri,)
    solved = ()  # x_(m-1), x_(m-2), ...: x_j is solved[m - 1 - j]
    for i in range(m - 1, -1, -1):  # back substitution
        ri = rows[i]
        for j in range(i + 1, m):
            ri = ri - _elem(up, i, j) * solved[m - 1 - j]
        solved = solved + (ri / _elem(up, i, i),)
    ordered = ()
    for i in range(m):
        ordered = ordered + (solved[m - 1 - i],)
    return _a.concat(ordered, -2)


def _row_of(t, i):
    nd = len(t.shape)
    return prim("StridedSlice")(t, (0,) * (nd - 2) + (i, 0), tuple(t.shape[:-2]) + (
        i + 1, t.shape[-1]), (1,) * nd)


def _elem(t, i, j):
    nd = len(t.shape)
    return prim("StridedSlice")(t, (0,) * (nd - 2) + (i, j), tuple(t.shape[:-2]) + (
        i + 1, j + 1), (1,) * nd)


@constexpr
def _qr_check(xs, ts, xdt, tdt, op):
    if len(xs) < 2 or xdt not in _FLOAT_DTYPES or tdt != xdt:
        raise TypeError(f"For '{op}', input must be a float tensor [..., M, N] and tau of the "
                        f"same dtype, but got {xdt} {tuple(xs)} and {tdt}.")
    m, n = xs[-2], xs[-1]
    if len(ts) != len(xs) - 1 or tuple(ts[:-1]) != tuple(xs[:-2]) or ts[-1] > min(m, n):
        raise ValueError(f"For '{op}', tau must be [..., K] with K <= min(M, N) = {min(m, n)} "
                         f"and input's batch dims, but got {tuple(ts)} for {tuple(xs)}.")
    return m, n, ts[-1]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


_EXPM_TERMS = 18


@constexpr
def _expm_plan(shape, dtype):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'matrix_exp', the input must be [..., n, n], but got shape "
                         f"{tuple(shape)}.")
    if dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'matrix_exp', the input must be a float tensor, but got {dtype}.")
    n = shape[-1]
    return _C.Tensor(np.eye(n)).astype(dtype), n


def matrix_exp(input):  # noqa: A002
    """exp(A) of square matrices [..., n, n] (scaling and squaring; module docstring). The
    number of squarings s is a tensor read from the largest 1-norm of the batch and the
    squarings a loop on it, so the same code runs in PYNATIVE and GRAPH mode (a tensor
    condition loop there) and is differentiated through."""
    a = _t(input, "matrix_exp")
    eye, n = _expm_plan(a.shape, a.dtype)
    if n == 0 or 0 in a.shape:
        return a * 1
    norm = prim("ReduceMax")(prim("ReduceSum")(prim("Abs")(a), (-2,)), ())
    # s = max(0, ceil(log2(2 * norm))): the scaled matrix has 1-norm <= 1/2.
    s = prim("Maximum")(prim("Ceil")(prim("Log")(norm * 2.0) * (1.0 / math.log(2.0))),
                        prim("ZerosLike")(norm))
    s = stop_gradient(s)
    b = a * prim("Pow")(prim("OnesLike")(s) * 2.0, -s)
    term = prim("BroadcastTo", shape=a.shape)(eye)
    total = term
    for k in range(1, _EXPM_TERMS + 1):
        term = prim("BatchMatMul")(term, b) * (1.0 / k)
        total = total + term
    i = prim("ZerosLike")(s)
    while i < s:
        total = prim("BatchMatMul")(total, total)
        i = i + 1.0
    return total
