"""mindspore.numpy's products, norms, statistics, comparisons, dtype rules and random arrays:
inner, outer, kron, cross, tensordot, multi_dot, matrix_power, norm, cov, corrcoef, isclose,
sometrue, promote_types, result_type, rand, randn, randint."""
import numbers as _numbers

import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy._dtypes import to_dtype as _to_dtype
from mycel.ops.primitive import constexpr as _constexpr


def _t(a):
    return a if isinstance(a, _C.Tensor) else _C.Tensor(a)


def _float(a):
    a = _t(a)
    return a if a.dtype.is_floating_point else a.astype(_C.float32)


def inner(a, b):
    """The sum product over the last axes of a and b (a product for scalars)."""
    a, b = _t(a), _t(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    """The outer product of the flattened a and b."""
    a, b = _ops.reshape(_t(a), (-1, 1)), _ops.reshape(_t(b), (1, -1))
    return a * b


@_constexpr
def _tensordot_plan(sa, sb, axes):
    """(a's permutation, b's, the summed size, the output shape) of tensordot's axes."""
    if isinstance(axes, _numbers.Integral):
        ax_a = list(range(len(sa) - axes, len(sa)))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, _numbers.Integral) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, _numbers.Integral) else list(ax_b)
    ax_a = [x % len(sa) for x in ax_a] if sa else []
    ax_b = [x % len(sb) for x in ax_b] if sb else []
    if [sa[i] for i in ax_a] != [sb[i] for i in ax_b]:
        raise ValueError(f"tensordot: the summed axes differ in size: {tuple(sa)} over "
                         f"{ax_a} and {tuple(sb)} over {ax_b}.")
    free_a = [i for i in range(len(sa)) if i not in ax_a]
    free_b = [i for i in range(len(sb)) if i not in ax_b]
    k = int(_np.prod([sa[i] for i in ax_a]))
    out = tuple(sa[i] for i in free_a) + tuple(sb[i] for i in free_b)
    return tuple(free_a + ax_a), tuple(ax_b + free_b), k, out


def tensordot(a, b, axes=2):
    """The sum product over axes (an int: a's last and b's first `axes` axes; or two lists):
    both transposed so the summed axes meet, one MatMul."""
    a, b = _t(a), _t(b)
    perm_a, perm_b, k, out = _tensordot_plan(a.shape, b.shape, axes)
    at = _ops.reshape(_ops.transpose(a, perm_a), (-1, k))
    bt = _ops.reshape(_ops.transpose(b, perm_b), (k, -1))
    dt = _C.promote_types(a.dtype, b.dtype)
    return _ops.reshape(_ops.matmul(at.astype(dt), bt.astype(dt)), out)


def kron(a, b):
    """The Kronecker product: ops.kron."""
    return _ops.kron(_t(a), _t(b))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (2-vectors as z = 0) along the given axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _ops.moveaxis(_t(a), axisa, -1)
    b = _ops.moveaxis(_t(b), axisb, -1)
    two = a.shape[-1] == 2 and b.shape[-1] == 2

    def comp(x, i):
        n = x.shape[-1]
        return x[..., i] if i < n else _ops.zeros_like(x[..., 0])
    a0, a1, a2 = comp(a, 0), comp(a, 1), comp(a, 2)
    b0, b1, b2 = comp(b, 0), comp(b, 1), comp(b, 2)
    z = a0 * b1 - a1 * b0
    if two:
        return z
    out = _ops.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z), -1)
    return _ops.moveaxis(out, -1, axisc)


def multi_dot(arrays):
    """The chained matrix product (1-d first/last operands as row/column vectors)."""
    ts = [_t(x) for x in arrays]
    first_vec, last_vec = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vec:
        ts[0] = _ops.reshape(ts[0], (1, -1))
    if last_vec:
        ts[-1] = _ops.reshape(ts[-1], (-1, 1))
    out = ts[0]
    for m in ts[1:]:
        out = _ops.matmul(out, m)
    if first_vec:
        out = out[0]
    if last_vec:
        out = out[..., 0]
    return out


def matrix_power(a, n):
    """a (square matrices in the last two axes) raised to the integer n >= 0 by squaring."""
    a = _t(a)
    if not isinstance(n, _numbers.Integral) or n < 0:
        raise ValueError(f"matrix_power: n must be a non-negative int, but got {n!r}.")
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else _ops.matmul(result, base)
        n >>= 1
        if n:
            base = _ops.matmul(base, base)
    if result is None:
        eye = _C.Tensor(_np.eye(a.shape[-1])).astype(a.dtype)
        return _ops.broadcast_to(eye, tuple(a.shape))
    return result


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector norms (ord: None/2, 1, inf, -inf, 0, any p) over one axis, the Frobenius norm
    ('fro' or None over two axes or a 2-d whole), the nuclear-free matrix norms 1 and inf."""
    x = _float(x)
    if axis is None:
        if ord is None:
            return _ops.sqrt(_ops.sum(x * x))
        axis = tuple(range(x.ndim)) if x.ndim <= 2 else None
        if axis is None:
            raise ValueError("norm: ord needs axis for arrays of more than 2 dimensions.")
    axes = (axis,) if isinstance(axis, _numbers.Integral) else tuple(axis)
    if len(axes) == 1:
        ax = axes[0]
        p = 2 if ord is None else ord
        ab = _ops.abs(x)
        if p == _np.inf:
            return _ops.amax(ab, ax, keepdims)
        if p == -_np.inf:
            return _ops.amin(ab, ax, keepdims)
        if p == 0:
            return _ops.sum(_ops.not_equal(x, 0).astype(x.dtype), ax, keepdims)
        if p == 1:
            return _ops.sum(ab, ax, keepdims)
        if p == 2:
            return _ops.sqrt(_ops.sum(x * x, ax, keepdims))
        return _ops.pow(_ops.sum(_ops.pow(ab, float(p)), ax, keepdims), 1.0 / p)
    r, c = (a % x.ndim for a in axes)
    if ord in (None, "fro"):
        return _ops.sqrt(_ops.sum(x * x, (r, c), keepdims))
    ab = _ops.abs(x)
    if ord == 1:
        y = _ops.amax(_ops.sum(ab, r, True), c, True)
    elif ord == -1:
        y = _ops.amin(_ops.sum(ab, r, True), c, True)
    elif ord == _np.inf:
        y = _ops.amax(_ops.sum(ab, c, True), r, True)
    elif ord == -_np.inf:
        y = _ops.amin(_ops.sum(ab, c, True), r, True)
    else:
        raise ValueError(f"norm: matrix ord {ord!r} is not supported (None, 'fro', 1, -1, "
                         f"inf, -inf).")
    return y if keepdims else _ops.squeeze(y, (r, c) if r < c else (c, r))


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables (rows, or columns without rowvar), with
    frequency and analytic weights."""
    x = _float(m)
    if x.ndim == 1:
        x = _ops.reshape(x, (1, -1))
    if not rowvar and x.shape[0] != 1:
        x = _ops.transpose(x, (1, 0))
    if y is not None:
        yy = _float(y)
        yy = _ops.reshape(yy, (1, -1)) if yy.ndim == 1 else yy
        if not rowvar and yy.shape[0] != 1:
            yy = _ops.transpose(yy, (1, 0))
        x = _ops.concat((x, yy.astype(x.dtype)), 0)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = _float(fweights).astype(x.dtype)
    if aweights is not None:
        aw = _float(aweights).astype(x.dtype)
        w = aw if w is None else w * aw
    if ddof is None:
        ddof = 0 if bias else 1
    if w is None:
        avg = _ops.mean(x, 1, True)
        fact = n - ddof
        xc = x - avg
        c = _ops.matmul(xc, _ops.transpose(xc, (1, 0))) / fact
    else:
        v1 = _ops.sum(w)
        avg = _ops.sum(x * w, 1, True) / v1
        if aweights is None:
            fact = v1 - ddof
        else:
            fact = v1 - ddof * _ops.sum(w * _float(aweights).astype(x.dtype)) / v1
        xc = x - avg
        c = _ops.matmul(xc * w, _ops.transpose(xc, (1, 0))) / fact
    c = _ops.squeeze(c) if c.shape == (1, 1) else c
    return c if dtype is None else c.astype(dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """The Pearson correlation coefficients (cov normalised by the standard deviations,
    clipped to [-1, 1])."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = _ops.sqrt(_ops.diagonal(c, 0, 0, 1))
    r = c / _ops.reshape(d, (-1, 1)) / _ops.reshape(d, (1, -1))
    r = _ops.clamp(r, -1.0, 1.0)
    return r if dtype is None else r.astype(dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, elementwise (NaNs equal with equal_nan)."""
    return _ops.isclose(_float(a), _float(b), rtol, atol, equal_nan)


def sometrue(a, axis=None, keepdims=False):
    """Whether any element (over axis) is true."""
    a = _t(a)
    return _ops.any(a.astype(_C.bool), axis, bool(keepdims))




def _random_shape(shape, name):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if not all(isinstance(d, _numbers.Integral) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"For '{name}', the shape must be ints or one tuple of ints, but got "
                        f"{shape!r}.")
    if any(d < 0 for d in shape):
        raise ValueError(f"For '{name}', the shape must not hold negative dimensions, but got "
                         f"{shape!r}.")
    return tuple(int(d) for d in shape)


def _float_dtype(dtype, name):
    dtype = _to_dtype(dtype)
    if not dtype.is_floating_point:
        raise ValueError(f"For '{name}', dtype must be a floating type, but got {dtype}.")
    return dtype


def rand(*shape, dtype=_C.float32):
    """Samples of U[0, 1) of the given shape (ints, or one tuple of them)."""
    shape = _random_shape(shape, "rand")
    return _ops.rand(*shape, dtype=_float_dtype(dtype, "rand"))


def randn(*shape, dtype=_C.float32):
    """Samples of N(0, 1) of the given shape (ints, or one tuple of them)."""
    shape = _random_shape(shape, "randn")
    return _ops.randn(*shape, dtype=_float_dtype(dtype, "randn"))


def randint(minval, maxval=None, shape=None, dtype=_C.int32):
    """Integers uniform in [minval, maxval) ([0, minval) with one bound)."""
    for v in (minval, maxval):
        if v is not None and (not isinstance(v, _numbers.Integral) or isinstance(v, bool)):
            raise TypeError(f"For 'randint', minval and maxval must be ints, but got {v!r}.")
    dtype = _to_dtype(dtype)
    if dtype.is_floating_point or dtype == getattr(_C, "bool"):
        raise ValueError(f"For 'randint', dtype must be an integer type, but got {dtype}.")
    if maxval is None:
        minval, maxval = 0, minval
    if maxval <= minval:
        raise ValueError(f"For 'randint', maxval ({maxval}) must exceed minval ({minval}).")
    shape = () if shape is None else _random_shape(
        (shape,) if isinstance(shape, _numbers.Integral) else tuple(shape), "randint")
    u = _ops.rand(*shape, dtype=_C.float64) if shape else _ops.rand(1, dtype=_C.float64)[0]
    return _ops.floor(u * (maxval - minval) + minval).astype(dtype)
