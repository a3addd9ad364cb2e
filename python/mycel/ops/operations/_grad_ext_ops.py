"""Backward primitives of MindSpore's ``_grad_ops`` that its ops test table imports, composed
from op-table primitives (both modes); _grad_ops re-exports them:

- ``MedianGrad(global_median=False, axis=0, keep_dims=False)(y_grad, x, y, indices)``: dx of
  Median: zeros but y_grad at indices along axis; for the global median, y_grad divided
  evenly among the elements equal to y. Float32 for float32 and integer x, float64 for
  float64 (MindSpore's kernel).
- ``LogitGrad(eps=-1.0)(grad, input)``: grad / (x (1 - x)); with eps < 0 NaN where x is
  outside [0, 1], otherwise 0 where x < eps or x > 1 - eps (the clamped region).
- ``MinimumGradGrad()(x1, x2, grad_y1, grad_y2)`` / ``MaximumGradGrad()``: (zeros like x1,
  zeros like x2, grad_y1 where x1 <= x2 (>= for Maximum) else grad_y2, broadcast): the
  second-order pass of Minimum's / Maximum's gradient.
- ``CholeskyGrad()(x, grad)``: the symmetric gradient of A from its Cholesky factor x = L
  (lower) and the cotangent of L (its lower triangle):
  0.5 (S + S^T), S = L^-T Phi(L^T tril(grad)) L^-1, Phi the lower triangle with the diagonal
  halved (Murray 2016); triangular solves of cholesky_func.
- ``PdistGrad(p=2.0)(y_grad, x, y)``: dx of Pdist for x [N, M], y [N (N - 1) / 2] (pairs
  i < j in row-major order): each pair adds g d|x_i - x_j|_p / d x_i to row i and its
  negative to row j, with d|d|_p/dd = sign(d) |d|^(p-1) / y^(p-1) (0 where y or d is 0;
  p = 1: sign(d); p = inf: sign(d) where |d| = y; p = 0: 0).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr
from mycel.ops.function._util import prim
from mycel.ops.function import cholesky_func as _chol
from mycel.ops.function.index_add_func import tensor_scatter_elements as _scatter_elements
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.operations._compat_checks import _check_tensors

__all__ = ["MedianGrad", "LogitGrad", "MinimumGradGrad", "MaximumGradGrad", "CholeskyGrad",
           "PdistGrad"]


def _where(c, a, b):
    return prim("Select")(c, a, b)


@constexpr
def _median_grad_plan(x_dtype, g_dtype, x_shape, g_shape, global_median, axis, keep_dims):
    if x_dtype not in (_C.int16, _C.int32, _C.int64, _C.float32, _C.float64) or \
            g_dtype != x_dtype:
        raise TypeError(f"For 'MedianGrad', y_grad and x must be int16, int32, int64, float32 "
                        f"or float64 of one dtype, but got {g_dtype} and {x_dtype}.")
    out = _C.float64 if x_dtype == _C.float64 else _C.float32
    if global_median:
        return out, 0
    nd = len(x_shape)
    if not -max(nd, 1) <= axis < max(nd, 1):
        raise ValueError(f"For 'MedianGrad', axis must be in [{-nd}, {nd}), but got {axis}.")
    axis = axis % max(nd, 1)
    want = tuple(1 if i == axis else x_shape[i] for i in range(nd)) if keep_dims else \
        tuple(x_shape[i] for i in range(nd) if i != axis)
    if tuple(g_shape) != want:
        raise ValueError(f"For 'MedianGrad', y_grad must have shape {want} for x of shape "
                         f"{tuple(x_shape)} (axis {axis}, keep_dims {keep_dims}), but got "
                         f"{tuple(g_shape)}.")
    return out, axis


class MedianGrad(_Composed):
    """MedianGrad(global_median=False, axis=0, keep_dims=False)(y_grad, x, y, indices): the
    cotangent of Median's input (module docstring)."""

    def __init__(self, global_median=False, axis=0, keep_dims=False):
        if not isinstance(global_median, bool) or not isinstance(keep_dims, bool):
            raise TypeError("For 'MedianGrad', 'global_median' and 'keep_dims' must be bools.")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'MedianGrad', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        super().__init__(global_median=global_median, axis=axis, keep_dims=keep_dims)
        self.global_median, self.axis, self.keep_dims = global_median, axis, keep_dims

    def __call__(self, y_grad, x, y, indices):
        _check_tensors("MedianGrad", ("y_grad", y_grad), ("x", x), ("y", y),
                       ("indices", indices))
        out_dtype, axis = _median_grad_plan(x.dtype, y_grad.dtype, x.shape, y_grad.shape,
                                            self.global_median, self.axis, self.keep_dims)
        g = prim("Cast")(y_grad, out_dtype)
        if self.global_median:
            eq = prim("Cast")(prim("Equal")(x, y), out_dtype)
            count = prim("ReduceSum")(eq, ())
            return eq * (g / count)
        idx = prim("Cast")(indices, _C.int64)
        if not self.keep_dims:
            g, idx = prim("ExpandDims")(g, axis), prim("ExpandDims")(idx, axis)
        zeros = prim("ZerosLike")(prim("Cast")(x, out_dtype))
        return _scatter_elements(zeros, idx, g, axis)


class LogitGrad(_Composed):
    """LogitGrad(eps=-1.0)(grad, input): the cotangent of Logit's input (module docstring)."""

    def __init__(self, eps=-1.0):
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise TypeError(f"For 'LogitGrad', 'eps' must be a float, but got "
                            f"{type(eps).__name__}.")
        super().__init__(eps=float(eps))
        self.eps = float(eps)

    def __call__(self, grad, input):  # noqa: A002 (MindSpore's argument name)
        _check_tensors("LogitGrad", ("grad", grad), ("input", input))
        _float_pair("LogitGrad", grad.dtype, input.dtype)
        x = input
        dx = grad / (x * (1.0 - x))
        if self.eps < 0:
            out = prim("LogicalOr")(prim("Less")(x, 0.0), prim("Greater")(x, 1.0))
            return _where(out, prim("ZerosLike")(dx) + float("nan"), dx)
        out = prim("LogicalOr")(prim("Less")(x, self.eps), prim("Greater")(x, 1.0 - self.eps))
        return _where(out, prim("ZerosLike")(dx), dx)


@constexpr
def _float_pair(op, d1, d2):
    if d1 not in (_C.float16, _C.float32, _C.float64) or d2 != d1:
        raise TypeError(f"For '{op}', the inputs must be float16, float32 or float64 of one "
                        f"dtype, but got {d1} and {d2}.")


@constexpr
def _gradgrad_check(op, dtypes, shapes):
    if len(set(dtypes)) != 1:
        raise TypeError(f"For '{op}', x1, x2, grad_y1 and grad_y2 must have one dtype, but got "
                        f"{dtypes}.")
    if tuple(shapes[2]) != tuple(shapes[0]) or tuple(shapes[3]) != tuple(shapes[1]):
        raise ValueError(f"For '{op}', grad_y1 must have x1's shape and grad_y2 x2's, but got "
                         f"shapes {[tuple(s) for s in shapes]}.")


class _ExtremumGradGrad(_Composed):
    _name, _cmp = None, None

    def __init__(self):
        super().__init__()

    def __call__(self, x1, x2, grad_y1, grad_y2):
        _check_tensors(self._name, ("x1", x1), ("x2", x2), ("grad_y1", grad_y1),
                       ("grad_y2", grad_y2))
        _gradgrad_check(self._name, (x1.dtype, x2.dtype, grad_y1.dtype, grad_y2.dtype),
                        (x1.shape, x2.shape, grad_y1.shape, grad_y2.shape))
        first = prim(self._cmp)(x1, x2)
        shape = first.shape
        g1 = prim("BroadcastTo", shape=shape)(grad_y1)
        g2 = prim("BroadcastTo", shape=shape)(grad_y2)
        return prim("ZerosLike")(x1), prim("ZerosLike")(x2), _where(first, g1, g2)


class MinimumGradGrad(_ExtremumGradGrad):
    """MinimumGradGrad()(x1, x2, grad_y1, grad_y2) -> (sopd_x1, sopd_x2, sopd_grads):
    zeros, zeros, and grad_y1 where x1 <= x2 else grad_y2."""
    _name, _cmp = "MinimumGradGrad", "LessEqual"


class MaximumGradGrad(_ExtremumGradGrad):
    """MaximumGradGrad()(x1, x2, grad_y1, grad_y2) -> (sopd_x1, sopd_x2, sopd_grads):
    zeros, zeros, and grad_y1 where x1 >= x2 else grad_y2."""
    _name, _cmp = "MaximumGradGrad", "GreaterEqual"


@constexpr
def _chol_grad_plan(d1, d2, s1, s2):
    if d1 not in (_C.float32, _C.float64) or d2 != d1:
        raise TypeError(f"For 'CholeskyGrad', x and grad must be float32 or float64 of one "
                        f"dtype, but got {d1} and {d2}.")
    if len(s1) < 2 or s1[-1] != s1[-2] or tuple(s2) != tuple(s1):
        raise ValueError(f"For 'CholeskyGrad', x and grad must be [..., M, M] of one shape, "
                         f"but got {tuple(s1)} and {tuple(s2)}.")
    n = s1[-1]
    d = np.float64 if d1 == _C.float64 else np.float32
    return (n, _C.Tensor(np.tril(np.ones((n, n), d), -1) + 0.5 * np.eye(n, dtype=d)),
            _C.Tensor(np.tril(np.ones((n, n), d))))


class CholeskyGrad(_Composed):
    """CholeskyGrad()(x, grad): the symmetric cotangent of A from its Cholesky factor x and
    the cotangent grad of x (module docstring)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, grad):
        _check_tensors("CholeskyGrad", ("x", x), ("grad", grad))
        n, phi_mask, tril = _chol_grad_plan(x.dtype, grad.dtype, x.shape, grad.shape)
        low = prim("Mul")(x, tril)
        g = prim("Mul")(grad, tril)
        phi = prim("Mul")(_chol._mm(_chol._t(low), g), phi_mask)
        up = _chol._t(low)
        # S = L^-T phi L^-1: Y = phi L^-1 (L^T Y^T = phi^T), then S = L^-T Y
        y = _chol._t(_chol._solve_triangular(up, _chol._t(phi), n, lower=False))
        s = _chol._solve_triangular(up, y, n, lower=False)
        return (s + _chol._t(s)) * 0.5


@constexpr
def _pdist_plan(gd, xd, yd, gs, xs, ys):
    if xd not in (_C.float16, _C.float32, _C.float64) or gd != xd or yd != xd:
        raise TypeError(f"For 'PdistGrad', y_grad, x and y must be float16, float32 or float64 "
                        f"of one dtype, but got {gd}, {xd} and {yd}.")
    if len(xs) != 2:
        raise ValueError(f"For 'PdistGrad', x must be 2-D [N, M], but got shape {tuple(xs)}.")
    n = xs[0]
    k = n * (n - 1) // 2
    if tuple(gs) != (k,) or tuple(ys) != (k,):
        raise ValueError(f"For 'PdistGrad', y_grad and y must have shape ({k},) for x of shape "
                         f"{tuple(xs)}, but got {tuple(gs)} and {tuple(ys)}.")
    i, j = np.triu_indices(n, 1)
    return _C.Tensor(i.astype(np.int32)), _C.Tensor(j.astype(np.int32)), n


class PdistGrad(_Composed):
    """PdistGrad(p=2.0)(y_grad, x, y): the cotangent of Pdist's input x (module docstring)."""

    def __init__(self, p=2.0):
        if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
            raise ValueError(f"For 'PdistGrad', 'p' must be a non-negative float, but got "
                             f"{p!r}.")
        super().__init__(p=float(p))
        self.p = float(p)

    def __call__(self, y_grad, x, y):
        _check_tensors("PdistGrad", ("y_grad", y_grad), ("x", x), ("y", y))
        i, j, n = _pdist_plan(y_grad.dtype, x.dtype, y.dtype, y_grad.shape, x.shape, y.shape)
        if self.p == 0.0 or n < 2:
            return prim("ZerosLike")(x)
        d = prim("Gather")(x, i, 0) - prim("Gather")(x, j, 0)  # [K, M]
        g = prim("ExpandDims")(y_grad, 1)
        yy = prim("ExpandDims")(y, 1)
        sign = prim("Sign")(d)
        if self.p == 1.0:
            c = sign
        elif self.p == float("inf"):
            c = sign * prim("Cast")(prim("Equal")(prim("Abs")(d), yy), x.dtype)
        else:
            zero = prim("LogicalOr")(prim("Equal")(yy + prim("ZerosLike")(d), 0.0),
                                     prim("Equal")(d, 0.0))
            ad = _where(zero, prim("OnesLike")(d), prim("Abs")(d))
            ys = _where(zero, prim("OnesLike")(d), yy + prim("ZerosLike")(d))
            c = _where(zero, prim("ZerosLike")(d),
                       sign * prim("Pow")(ad / ys, self.p - 1.0))
        c = c * g
        return prim("UnsortedSegmentSum")(c, i, n) - prim("UnsortedSegmentSum")(c, j, n)
