"""The math cells of MindSpore's ``mindspore.nn`` (its nn/layer/math.py and the matrix cells of
nn/layer/basic.py): thin cells over mycel's functions, so both modes and gradients are theirs.
ReduceLogSumExp, LGamma, DiGamma, IGamma, LBeta (log |B(x, y)| = lgamma(x) + lgamma(y) -
lgamma(x + y)), CosineSimilarity, MatInverse, MatDet, MatrixDiag, MatrixDiagPart and
MatrixSetDiag."""
from mycel.nn.cell import Cell
from mycel.ops.function import math_ext_func as _mx, special_func as _sp, math_func as _m
from mycel.ops.function import diag_func as _dg, array_ext_func as _ax, linalg_func as _la
from mycel.ops.function import array_func as _ar

__all__ = ["ReduceLogSumExp", "LGamma", "DiGamma", "IGamma", "LBeta", "CosineSimilarity",
           "MatInverse", "MatDet", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatMul"]


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over axis (an int or a tuple of ints; () reduces every dim),
    computed stably (ops.logsumexp)."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'ReduceLogSumExp', 'keep_dims' must be a bool, but got "
                            f"{type(keep_dims).__name__}.")
        if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)) or (
                not isinstance(axis, int) and not all(
                    isinstance(a, int) and not isinstance(a, bool) for a in axis)):
            raise TypeError(f"For 'ReduceLogSumExp', 'axis' must be an int or a tuple of ints, "
                            f"but got {axis!r}.")
        self.axis = axis if isinstance(axis, int) else tuple(axis)
        self.keep_dims = keep_dims

    def construct(self, x):
        return _mx.logsumexp(x, self.axis, self.keep_dims)


class LGamma(Cell):
    """log |Gamma(x)|, elementwise (ops.lgamma)."""

    def construct(self, x):
        return _sp.lgamma(x)


class DiGamma(Cell):
    """psi(x) = d/dx log Gamma(x), elementwise (ops.digamma)."""

    def construct(self, x):
        return _sp.digamma(x)


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x), elementwise (ops.igamma)."""

    def construct(self, a, x):
        return _sp.igamma(a, x)


class LBeta(Cell):
    """log |B(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), elementwise with broadcasting."""

    def construct(self, x, y):
        return _sp.lgamma(x) + _sp.lgamma(y) - _sp.lgamma(x + y)


class CosineSimilarity(Cell):
    """The cosine similarity of x1 and x2 along dim, x1 . x2 / max(|x1| |x2|, eps)
    (ops.cosine_similarity)."""

    def __init__(self, dim=1, eps=1e-08):
        super().__init__()
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"For 'CosineSimilarity', 'dim' must be an int, but got {dim!r}.")
        self.dim, self.eps = dim, float(eps)

    def construct(self, x1, x2):
        return _m.cosine_similarity(x1, x2, self.dim, self.eps)


class MatMul(Cell):
    """x1 @ x2 as ops.matmul (1-D operands promoted and their axis removed after, batch dims
    broadcast), each operand of 2 or more dims first transposed in its last two dims when
    transpose_x1 / transpose_x2 (MindSpore 1.x's nn.MatMul, which it later deprecated for
    ops.matmul)."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        for name, v in (("transpose_x1", transpose_x1), ("transpose_x2", transpose_x2)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'MatMul', '{name}' must be a bool, but got "
                                f"{type(v).__name__}.")
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1 and x1.ndim > 1:
            x1 = _ar.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim > 1:
            x2 = _ar.swapaxes(x2, -1, -2)
        return _m.matmul(x1, x2)


class MatInverse(Cell):
    """The inverse of each square matrix of a [..., M, M] (ops.inverse)."""

    def construct(self, a):
        return _la.inverse(a)


class MatDet(Cell):
    """The determinant of each square matrix of a [..., M, M] (ops.det)."""

    def construct(self, a):
        return _la.det(a)


class MatrixDiag(Cell):
    """The matrices [..., N, N] with x [..., N] on their diagonal (ops.matrix_diag)."""

    def construct(self, x):
        return _dg.matrix_diag(x)


class MatrixDiagPart(Cell):
    """The main diagonals [..., min(M, N)] of x [..., M, N] (ops.matrix_diag_part)."""

    def construct(self, x):
        return _dg.matrix_diag_part(x)


class MatrixSetDiag(Cell):
    """x [..., M, N] with its main diagonal replaced by diagonal [..., min(M, N)]
    (ops.matrix_set_diag)."""

    def construct(self, x, diagonal):
        return _ax.matrix_set_diag(x, diagonal)
