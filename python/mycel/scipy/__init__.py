"""mycel.scipy: scipy-style functions on mycel Tensors (MindSpore's mindspore.scipy): linalg
(triangular, Cholesky and LU solves, inv, det, eigh, block_diag), fft (dct / idct and their
n-dimensional forms), ops (the Eig primitive), utils."""
from mycel.scipy import fft, linalg, ops, ops_wrapper, optimize, utils  # noqa: F401
