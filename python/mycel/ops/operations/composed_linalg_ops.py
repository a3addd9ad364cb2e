"""Linear-algebra primitives of MindSpore 2.x composed from the functional forms
(ops/function/linalg_func.py, cholesky_func.py): MatrixSolve, Cholesky, Geqrf, Orgqr, Ormqr,
LuUnpack, Svd and MatrixExp.

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
from mycel import _mycel as _C
from mycel.ops.primitive import constexpr
from mycel.ops.function import cholesky_func as _chol
from mycel.ops.function import eigh_func as _eigh
from mycel.ops.function import linalg_func as _la
from mycel.ops.function.layout_func import tril as _tril, triu as _triu
from mycel.ops.operations._compat_checks import _check_bool, _check_tensors
from mycel.ops.operations.composed_ops import _Composed, _exporter

__all__ = ["Cholesky", "Geqrf", "Eigh"]


_export = _exporter(__all__, globals())


@_export
class MatrixSolve(_Composed):
    """MatrixSolve(adjoint=False)(matrix, rhs): X with matrix @ X = rhs."""

    def __init__(self, adjoint=False):
        super().__init__(adjoint=adjoint)
        self.adjoint = adjoint

    def __call__(self, matrix, rhs):
        return _la.matrix_solve(matrix, rhs, self.adjoint)


@_export
class LuUnpack(_Composed):
    """LuUnpack(unpack_data=True, unpack_pivots=True)(LU_data, LU_pivots): (P, L, U)."""

    def __init__(self, unpack_data=True, unpack_pivots=True):
        super().__init__(unpack_data=unpack_data, unpack_pivots=unpack_pivots)
        self.unpack_data, self.unpack_pivots = unpack_data, unpack_pivots

    def __call__(self, LU_data, LU_pivots):  # noqa: N803
        return _la.lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


@_export
class Orgqr(_Composed):
    """Orgqr()(x, tau): ops.orgqr."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, tau):
        return _la.orgqr(x, tau)


@_export
class Ormqr(_Composed):
    """Ormqr(left=True, transpose=False)(x, tau, other): ops.ormqr."""

    def __init__(self, left=True, transpose=False):
        super().__init__(left=left, transpose=transpose)
        self.left, self.transpose = left, transpose

    def __call__(self, x, tau, other):
        return _la.ormqr(x, tau, other, self.left, self.transpose)


@_export
class Svd(_Composed):
    """Svd(full_matrices=False, compute_uv=True)(a): (s, u, v) (ops.svd: one-sided Jacobi,
    ops/function/linalg_func.py)."""

    def __init__(self, full_matrices=False, compute_uv=True):
        super().__init__(full_matrices=full_matrices, compute_uv=compute_uv)
        self.full_matrices, self.compute_uv = full_matrices, compute_uv

    def __call__(self, a):
        from_svd = _la.svd(a, self.full_matrices, self.compute_uv)
        return from_svd


@_export
class MatrixExp(_Composed):
    """MatrixExp()(x): exp of each square matrix of x [..., n, n] (ops.matrix_exp: scaling
    and squaring with a Taylor polynomial; both modes, differentiable)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return _la.matrix_exp(x)


class Cholesky(_Composed):
    """Cholesky(upper=False)(input_x): the Cholesky factor of each symmetric positive-definite
    matrix of input_x [..., M, M], lower (input_x = L L^T) or upper (input_x = U^T U)
    (ops.cholesky)."""

    def __init__(self, upper=False):
        self.upper = _check_bool("Cholesky", "upper", upper)
        super().__init__(upper=upper)

    def __call__(self, input_x):
        return _chol.cholesky(input_x, self.upper)


class Eigh(_Composed):
    """Eigh(compute_eigenvectors=True, lower=True)(a): (w, v), the ascending eigenvalues and
    the eigenvectors (columns) of the real symmetric matrices a [..., N, N] read from their
    lower (or upper) triangle; w alone without compute_eigenvectors (ops/function/
    eigh_func.py: Jacobi rotations, differentiable)."""

    def __init__(self, compute_eigenvectors=True, lower=True):
        self.compute_eigenvectors = _check_bool("Eigh", "compute_eigenvectors",
                                                compute_eigenvectors)
        self.lower = _check_bool("Eigh", "lower", lower)
        super().__init__(compute_eigenvectors=compute_eigenvectors, lower=lower)

    def __call__(self, a):
        _check_tensors("Eigh", ("a", a))
        w, v = _eigh.eigh(a, self.lower)
        if self.compute_eigenvectors:
            return w, v
        return w


class Geqrf(_Composed):
    """Geqrf()(x) -> (y, tau): the QR factorisation of each matrix of x [..., M, N] in
    LAPACK's Householder form, R on and above the diagonal of y, the reflectors below it
    (ops.geqrf)."""

    def __call__(self, x):
        return _chol.geqrf(x)


@constexpr
def _tri_solve_plan(m_shape, r_shape, m_dtype, r_dtype):
    if m_dtype not in (_C.float32, _C.float64) or r_dtype != m_dtype:
        raise TypeError(f"For 'MatrixTriangularSolve', 'matrix' and 'rhs' must be float32 or "
                        f"float64 of one dtype, but got {m_dtype} and {r_dtype}.")
    if len(m_shape) < 2 or m_shape[-1] != m_shape[-2] or len(r_shape) != len(m_shape) or \
            tuple(r_shape[:-2]) != tuple(m_shape[:-2]) or r_shape[-2] != m_shape[-1]:
        raise ValueError(f"For 'MatrixTriangularSolve', 'matrix' must be [..., M, M] and 'rhs' "
                         f"[..., M, K] with its batch dimensions, but got shapes "
                         f"{tuple(m_shape)} and {tuple(r_shape)}.")
    return m_shape[-1]


@_export
class MatrixTriangularSolve(_Composed):
    """MatrixTriangularSolve(lower=True, adjoint=False)(matrix, rhs): X with T X = rhs, T the
    lower (or upper) triangle of each matrix [..., M, M] (the other triangle is not read), or
    T^T X = rhs when adjoint; rhs [..., M, K]. Substitution row by row (static M)."""

    def __init__(self, lower=True, adjoint=False):
        _check_bool("MatrixTriangularSolve", "lower", lower)
        _check_bool("MatrixTriangularSolve", "adjoint", adjoint)
        super().__init__(lower=lower, adjoint=adjoint)
        self.lower, self.adjoint = lower, adjoint

    def __call__(self, matrix, rhs):
        _check_tensors("MatrixTriangularSolve", ("matrix", matrix), ("rhs", rhs))
        m = _tri_solve_plan(matrix.shape, rhs.shape, matrix.dtype, rhs.dtype)
        t = _tril(matrix) if self.lower else _triu(matrix)
        if self.adjoint:
            t = _chol._t(t)
        return _chol._solve_triangular(t, rhs, m, self.lower != self.adjoint)


@_export
class Qr(_Composed):
    """Qr(full_matrices=False)(x): (q, r) of x [..., M, N] = q r, q with orthonormal columns
    and r upper-triangular (LAPACK's signs); full_matrices: q [..., M, M] and r [..., M, N]
    (ops.qr's 'complete'), else [..., M, K] and [..., K, N], K = min(M, N)."""

    def __init__(self, full_matrices=False):
        _check_bool("Qr", "full_matrices", full_matrices)
        super().__init__(full_matrices=full_matrices)
        self.full_matrices = full_matrices

    def __call__(self, x):
        return _la.qr(x, "complete" if self.full_matrices else "reduced")
