"""Linear solves composed from table ops (MindSpore 2.x's ``ops.matrix_solve``).

Gaussian elimination with partial pivoting, unrolled over the static matrix size M: step k
picks the row of largest |A[i, k]| among i >= k (ArgMax), exchanges it with row k (an
elementwise update with one-hot rows, no gather of data-dependent shape), and subtracts
multiples of row k from the rows below; back substitution then solves the upper-triangular
system row by row. Every step works on whole [..., M, M] and [..., M, K] tensors with masks,
so leading batch dimensions, both modes and gradients (through the ops' own rules) come for
free. The cost is O(M) ops, meant for the small systems MindSpore programs solve this way. A
singular matrix gives inf/NaN entries (no pivot is checked on the host).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["matrix_solve", "inverse"]


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
