"""``mindspore.mint.linalg``: PyTorch's ``torch.linalg`` names over mycel's ops (vector and
matrix norms, inv, det)."""
from mycel import ops as _ops

__all__ = ["vector_norm", "matrix_norm", "norm", "inv", "det"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The ord-norm of x's elements along dim (all when None)."""
    return _ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """The ord-norm of the matrices of A over the two dims dim."""
    return _ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """A vector norm or a matrix norm, as torch.linalg.norm chooses by ord and dim."""
    return _ops.norm(A, ord, dim, keepdim, dtype=dtype)


def inv(A):
    """The inverse of each square matrix of A."""
    return _ops.inverse(A)


def det(A):
    """The determinant of each square matrix of A."""
    return _ops.det(A)
