"""svd, pinv and cond of MindSpore 2.x, composed from op-table primitives by one-sided Jacobi
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
from mycel.ops.function._util import prim
from mycel.ops.function import array_func as _a
from mycel.ops.function.linalg_func import inverse
from mycel.ops.function.norm_func import matrix_norm
from mycel.ops.primitive import constexpr

__all__ = ["svd", "pinv", "cond"]

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
