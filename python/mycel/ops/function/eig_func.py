"""MindSpore's ``ops.eig`` / ``ops.eigvals`` (and ``Tensor.eigvals``): the op table's ``Eig``
(a Hessenberg reduction and shifted QR iteration in C++, kernels/cpu/eig.cc): eigenvalues
sorted by real part, then imaginary part, unit eigenvectors with their largest entry real and
positive.

The table op is NODIFF (its gradient needs a complex matrix inverse, which has no table op);
eig and eigvals are ``custom_vjp`` Cells whose backward (_eig_backward) solves with
linalg_func.matrix_solve, so both modes differentiate them. (A module of its own:
grad_func's Cell imports common.tensor, which imports linalg_func.)
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.function.linalg_func import matrix_solve
from mycel.ops.primitive import constexpr

__all__ = []

def _mh(x):
    """The conjugate transpose of the last two axes."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return prim("Conj")(prim("Transpose")(x, perm))


@constexpr
def _eye_c(n, dtype):
    return _C.Tensor(np.eye(n, dtype=np.complex128 if dtype == _C.complex128 else np.complex64))


def _eig_backward(a, w, v, gw, gv):
    """The gradient of A from the cotangents of w and v (either may be None), PyTorch's
    linalg_eig_backward written with mycel's ops (complex cotangents as dL/dRe + i dL/dIm):
        gA = V^-H (diag(gw) + E o (V^H gV - V^H V diag(Re diag(V^H gV)))) V^H
    with E_ij = 1 / conj(w_j - w_i) off the diagonal and 0 on it. The eigenvectors' term
    holds for losses that do not depend on the eigenvectors' phases (the phase Eig picks is
    a convention). V^-H X is matrix_solve(V, X, adjoint=True); a real A takes the real part."""
    n = w.shape[-1]
    eye = _eye_c(n, w.dtype)
    vh = _mh(v)
    inner = prim("ZerosLike")(v)
    if gw is not None:
        inner = prim("Mul")(prim("ExpandDims")(gw, -1), eye)
    if gv is not None:
        vhgv = prim("BatchMatMul")(vh, gv)
        re_diag = prim("Real")(prim("ReduceSum", keep_dims=True)(prim("Mul")(vhgv, eye), (-2,)))
        re_diag = prim("Complex")(re_diag, prim("ZerosLike")(re_diag))
        vhgv = prim("Sub")(vhgv, prim("BatchMatMul")(vh, prim("Mul")(v, re_diag)))
        wc = prim("Conj")(w)
        econj = prim("Add")(prim("Sub")(prim("ExpandDims")(wc, -2), prim("ExpandDims")(wc, -1)),
                            eye)  # conj(w_j) - conj(w_i), 1 on the diagonal
        off = prim("Mul")(prim("Div")(vhgv, econj), prim("Sub")(prim("OnesLike")(eye), eye))
        inner = prim("Add")(inner, off)
    ga = _solve_h(v, prim("BatchMatMul")(inner, vh), n)
    if a.dtype in (_C.complex64, _C.complex128):
        return ga
    return prim("Real")(ga)


# matrix_solve unrolls 2N elimination steps for a complex system; graph mode unrolls a loop
# whose body needs its counter as a constant up to 256 steps (about 240 at the default
# max_call_depth): past N = 100, V^-H comes from Newton-Schulz iterations instead.
_SOLVE_MAX_N = 100
_NEWTON_STEPS = 40


def _solve_h(v, x, n):
    """V^-H x: matrix_solve for N <= 100; else V^-1 by Newton-Schulz, Y <- Y (2I - V Y) from
    Y = V^H / (|V|_1 |V|_inf), 40 steps (converges quadratically once |I - V Y| < 1: enough
    for cond(V) up to about 1e5; an ill-conditioned eigenvector matrix has an ill-conditioned
    gradient anyway)."""
    if n <= _SOLVE_MAX_N:
        return matrix_solve(v, x, adjoint=True)
    mag = prim("Abs")(v)
    scale = prim("Mul")(prim("ReduceMax", keep_dims=True)(
        prim("ReduceSum", keep_dims=True)(mag, (-2,)), (-1,)), prim("ReduceMax", keep_dims=True)(
            prim("ReduceSum", keep_dims=True)(mag, (-1,)), (-2,)))
    scale = prim("Complex")(scale, prim("ZerosLike")(scale))
    y = prim("Div")(_mh(v), scale)
    two = prim("Mul")(_eye_c(n, v.dtype), 2.0)
    for _ in range(_NEWTON_STEPS):
        y = prim("BatchMatMul")(y, prim("Sub")(two, prim("BatchMatMul")(v, y)))
    return prim("BatchMatMul")(_mh(y), x)


def _eigvecs_forward(a):
    return prim("Eig", compute_v=True)(a)[1]


def _eigvecs_bprop(a, out, dout):
    w = prim("Eig", compute_v=True)(a)[0]
    return (_eig_backward(a, w, out, None, dout),)


def _eigvals_v_forward(a):
    return prim("Eig", compute_v=True)(a)[0]


def _eigvals_v_bprop(a, out, dout):
    v = prim("Eig", compute_v=True)(a)[1]
    return (_eig_backward(a, out, v, dout, None),)


def _eigvals_forward(a):
    return prim("Eig", compute_v=False)(a)[0]


def _eigvals_bprop(a, out, dout):
    v = prim("Eig", compute_v=True)(a)[1]
    return (_eig_backward(a, out, v, dout, None),)


_CELLS = {}


@constexpr
def _cell(name):
    """The custom_vjp Cell of one of eig's and eigvals' outputs, made at first use (a
    constexpr: Python, also when graph code calls it), as grad_func's Cell class cannot be
    imported while mycel.ops loads."""
    if name not in _CELLS:
        from mycel.ops.function.grad.grad_func import custom_vjp
        fwd, bwd = {"eigvecs": (_eigvecs_forward, _eigvecs_bprop),
                    "eigvals_v": (_eigvals_v_forward, _eigvals_v_bprop),
                    "eigvals": (_eigvals_forward, _eigvals_bprop)}[name]
        cell = custom_vjp(fwd)
        cell.defbwd(bwd)
        _CELLS[name] = cell
    return _CELLS[name]


def eig(A):  # noqa: N803 (MindSpore's argument name)
    """(eigenvalues (*, N), eigenvectors (*, N, N)) of the square matrices A (*, N, N),
    float32/float64/complex64/complex128; complex64 results for float32/complex64 input,
    complex128 otherwise. The eigenvectors are the columns, of unit length. Differentiable
    (_eig_backward), in both modes: the eigenvalues and the eigenvectors are two Cells with
    their own backward (a Cell with a bprop gives one tensor), each running Eig (the same
    deterministic result)."""
    return _cell("eigvals_v")(A), _cell("eigvecs")(A)


def eigvals(A):  # noqa: N803 (MindSpore's argument name)
    """The eigenvalues (*, N) of the square matrices A (*, N, N), as ``eig``'s first result;
    differentiable (the eigenvectors are computed again for the gradient)."""
    return _cell("eigvals")(A)


@constexpr
def _empty(dtype):
    np_dtype = np.complex128 if dtype in (_C.float64, _C.complex128) else np.complex64
    return _C.Tensor(np.zeros(0, np_dtype))


def empty_vectors(a):
    """P.Eig(compute_v=False)'s eigenvectors: an empty complex tensor of a's precision."""
    return _empty(a.dtype)


__all__ += ["eig", "eigvals"]


_C.Tensor.eigvals = lambda self: eigvals(self)
