"""Math primitives of MindSpore 2.x composed from the functional forms (ops/function):
elementwise arithmetic (Gcd, Lcm, Hypot, DivNoNan, TruncateDiv, NextAfter, shifts, ...),
reductions and comparisons (AddN, ReduceAll/Any, LpNorm, IsClose, EqualCount, ...), the
special functions (Bessel*, Zeta, Polygamma, Igamma, Igammac, Erfinv, Digamma), the windows
(Bartlett, Blackman, Hamming), Polar, FloatStatus and Eps / eps.

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import numpy as np
from mycel import _mycel as _C
from mycel.ops.function import array_func as _a
from mycel.ops.function import bitwise_func as _bw
from mycel.ops.function import complex_func as _cx
from mycel.ops.function import math_ext_func as _mx
from mycel.ops.function import math_func as _mf
from mycel.ops.function import random_func as _rnd
from mycel.ops.function import special_func as _sf
from mycel.ops.function import tensor_ext_func as _tx
from mycel.ops.function import array_ext_func as _ax
from mycel.ops.function import linalg_func as _la
from mycel.ops.function import cholesky_func as _chol
from mycel.ops.function.layout_func import flip as _flip
from mycel.ops.function._util import prim as _prim, one_int as _one_int
from mycel.ops.function.graph_compat_func import all as _all
from mycel.ops.function.graph_compat_func import any as _any
from mycel.ops.operations._compat_checks import _check_tensor, _check_bool, _check_tensors
from mycel.ops.operations.composed_ops import _Composed, _exporter, _simple_maker
from mycel.ops.primitive import constexpr

__all__ = ["Polar"]


_export = _exporter(__all__, globals())
_simple = _simple_maker(_export, __name__)


@_export
class LogSpace(_Composed):
    """LogSpace(steps=10, base=10, dtype=float32)(start, end): base ** linspace(start, end)."""

    def __init__(self, steps=10, base=10, dtype=_C.float32):
        super().__init__(steps=steps, base=base, dtype=dtype)
        self.steps, self.base, self.dtype = steps, base, dtype

    def __call__(self, start, end):
        return _a.logspace(start, end, self.steps, self.base, dtype=self.dtype)


@_export
class AddN(_Composed):
    """AddN()(inputs): the elementwise sum of a tuple of tensors."""

    def __init__(self):
        super().__init__()

    def __call__(self, inputs):
        return _mf.accumulate_n(inputs)


@_export
class AccumulateNV2(AddN):
    """AccumulateNV2()(inputs): the elementwise sum of a tuple of tensors (ops.accumulate_n)."""


class _AddcOp(_Composed):
    _fn = None

    def __init__(self):
        super().__init__()

    def __call__(self, input_data, x1, x2, value):
        return type(self)._fn(input_data, x1, x2, value)


@_export
class Addcdiv(_AddcOp):
    """Addcdiv()(input_data, x1, x2, value): input_data + value * x1 / x2."""
    _fn = staticmethod(_mx.addcdiv)


@_export
class Addcmul(_AddcOp):
    """Addcmul()(input_data, x1, x2, value): input_data + value * x1 * x2."""
    _fn = staticmethod(_mx.addcmul)


_simple("Trace", _mx.trace, "Trace()(x): the sum of the main diagonal of a 2-D tensor.")


_simple("Gcd", _mf.gcd, "Gcd()(x1, x2): the elementwise greatest common divisor.")


_simple("Lcm", _mf.lcm, "Lcm()(x1, x2): the elementwise least common multiple.")


_simple("Hypot", _mx.hypot, "Hypot()(x1, x2): sqrt(x1^2 + x2^2).")


_simple("Sinc", _mx.sinc, "Sinc()(x): sin(pi x) / (pi x), 1 at 0.")


_simple("NextAfter", _mf.nextafter, "NextAfter()(x1, x2): the next float after x1 towards x2.")


_simple("DivNoNan", _mf.div_no_nan, "DivNoNan()(x1, x2): x1 / x2, 0 where x2 is 0.")


_simple("MulNoNan", _mf.mul_no_nan, "MulNoNan()(x, y): x * y, 0 where y is 0.")


_simple("TruncateDiv", _mf.truncate_div, "TruncateDiv()(x, y): x / y rounded toward zero.")


_simple("LeftShift", _bw.bitwise_left_shift,
        "LeftShift()(x1, x2): x1 << x2 elementwise.")


_simple("RightShift", _bw.bitwise_right_shift,
        "RightShift()(x1, x2): x1 >> x2 elementwise (arithmetic).")


_simple("PopulationCount", _mf.population_count,
        "PopulationCount()(input_x): the number of set bits, uint8.")


_simple("Erfinv", _mf.erfinv, "Erfinv()(input_x): the inverse error function.")


_simple("Digamma", _sf.digamma, "Digamma()(input_x): psi(x).")


_simple("Fmax", _mx.fmax, "Fmax()(x1, x2): the maximum, ignoring a NaN operand.")


def square_sum_all(x, y):
    """(sum(x^2), sum(y^2)) (a named function: its arity errors name it)."""
    return _prim("ReduceSum")(_prim("Square")(x), ()), _prim("ReduceSum")(_prim("Square")(y), ())


_simple("SquareSumAll", square_sum_all, "SquareSumAll()(x, y): (sum(x^2), sum(y^2)).")


@_export
class Logit(_Composed):
    """Logit(eps=-1.0)(x): log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0."""

    def __init__(self, eps=-1.0):
        super().__init__(eps=eps)
        self.eps = eps

    def __call__(self, x):
        return _mf.logit(x, self.eps)


@_export
class Bincount(_Composed):
    """Bincount()(array, size, weights): sums of weights per value of array in [0, size),
    values outside ignored (MindSpore's primitive: size a 0-d int tensor)."""

    def __init__(self):
        super().__init__()

    def __call__(self, array, size, weights):
        n = _one_int(size, "Bincount", "size")
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"For 'Bincount', size must be an int, but got {type(n).__name__}.")
        a = _prim("Cast")(array, _C.int64)
        inside = _prim("LogicalAnd")(_prim("GreaterEqual")(a, 0), _prim("Less")(a, n))
        w = _prim("Select")(inside, weights, _prim("ZerosLike")(weights))
        idx = _prim("Reshape")(_prim("Select")(inside, a, _prim("ZerosLike")(a)), (-1,))
        return _prim("UnsortedSegmentSum")(_prim("Reshape")(w, (-1,)), idx, n)


@_export
class SearchSorted(_Composed):
    """SearchSorted(dtype=int64, right=False)(sorted_sequence, values[, sorter])."""

    def __init__(self, dtype=_C.int64, right=False):
        super().__init__(dtype=dtype, right=right)
        self.dtype, self.right = dtype, right

    def __call__(self, sorted_sequence, values, sorter=None):
        out = _mf.searchsorted(sorted_sequence, values, right=self.right, sorter=sorter)
        return _prim("Cast")(out, self.dtype)


@_export
class IsClose(_Composed):
    """IsClose(rtol=1e-05, atol=1e-08, equal_nan=True)(input, other)."""

    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=True):
        super().__init__(rtol=rtol, atol=atol, equal_nan=equal_nan)
        self.rtol, self.atol, self.equal_nan = rtol, atol, equal_nan

    def __call__(self, input, other):  # noqa: A002
        return _mx.isclose(input, other, self.rtol, self.atol, self.equal_nan)


@_export
class NanToNum(_Composed):
    """NanToNum(nan=0.0, posinf=None, neginf=None)(x)."""

    def __init__(self, nan=0.0, posinf=None, neginf=None):
        super().__init__(nan=nan, posinf=posinf, neginf=neginf)
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def __call__(self, x):
        return _mx.nan_to_num(x, self.nan, self.posinf, self.neginf)


@_export
class ReduceAll(_Composed):
    """ReduceAll(keep_dims=False)(x, axis=()): logical AND over axis (all axes by default)."""

    def __init__(self, keep_dims=False):
        super().__init__(keep_dims=keep_dims)
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        return _all(x, None if axis == () else axis, self.keep_dims)


@_export
class ReduceAny(ReduceAll):
    """ReduceAny(keep_dims=False)(x, axis=()): logical OR over axis."""

    def __call__(self, x, axis=()):
        return _any(x, None if axis == () else axis, self.keep_dims)


@_export
class LpNorm(_Composed):
    """LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12)(input): the p-norm over axis."""

    def __init__(self, axis, p=2, keep_dims=False, epsilon=1e-12):
        super().__init__(axis=axis, p=p, keep_dims=keep_dims, epsilon=epsilon)
        if not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"For 'LpNorm', axis must be an int or a tuple of ints, but got "
                            f"{type(axis).__name__}.")
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.p, self.keep_dims, self.epsilon = p, keep_dims, epsilon

    def __call__(self, input):  # noqa: A002
        a = _prim("Abs")(input)
        if self.p == 0:
            r = _prim("ReduceSum", keep_dims=self.keep_dims)(
                _prim("Cast")(_prim("NotEqual")(a, 0.0), input.dtype), self.axis)
        else:
            r = _prim("Pow")(_prim("ReduceSum", keep_dims=self.keep_dims)(
                _prim("Pow")(a, float(self.p)), self.axis), 1.0 / self.p)
        return r


@_export
class EqualCount(_Composed):
    """EqualCount()(x, y): the number of equal elements, a [1] tensor of x's dtype."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, y):
        eq = _prim("Cast")(_prim("Equal")(x, y), x.dtype)
        return _prim("Reshape")(_prim("ReduceSum")(eq, ()), (1,))


@_export
class Cross(_Composed):
    """Cross(dim=-65530)(x1, x2): the cross product along dim (the first of size 3 by
    default)."""

    def __init__(self, dim=-65530):
        super().__init__(dim=dim)
        self.dim = dim

    def __call__(self, x1, x2):
        return _la.cross(x1, x2, None if self.dim == -65530 else self.dim)


@_export
class Eps(_Composed):
    """Eps()(x): a tensor of x's shape filled with the machine epsilon of its float dtype
    (numpy's finfo(dtype).eps: 1.1920929e-07 for float32, as MindSpore's example)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return eps(x)


def eps(x):
    """A tensor of x's shape filled with the machine epsilon of its float dtype (the distance
    from 1.0 to the next representable number)."""
    return _a.full(x.shape, _machine_eps(x.dtype), dtype=x.dtype)


@constexpr
def _machine_eps(dt):
    np_dt = {_C.float16: np.float16, _C.float32: np.float32, _C.float64: np.float64}.get(dt)
    if np_dt is None:
        raise TypeError(f"For 'Eps', x must be float16, float32 or float64, but got {dt}.")
    return float(np.finfo(np_dt).eps)


class _Window(_Composed):
    _fn = None

    def __init__(self, periodic=True, dtype=_C.float32):
        super().__init__(periodic=periodic, dtype=dtype)
        self.periodic, self.dtype = periodic, dtype

    def __call__(self, window_length):
        return type(self)._fn(window_length, self.periodic, dtype=self.dtype)


@_export
class BartlettWindow(_Window):
    """BartlettWindow(periodic=True, dtype=float32)(window_length)."""
    _fn = staticmethod(_rnd.bartlett_window)


@_export
class BlackmanWindow(_Window):
    """BlackmanWindow(periodic=True, dtype=float32)(window_length)."""
    _fn = staticmethod(_rnd.blackman_window)


@_export
class HammingWindow(_Composed):
    """HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=float32)(length)."""

    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=_C.float32):
        super().__init__(periodic=periodic, alpha=alpha, beta=beta, dtype=dtype)
        self.periodic, self.alpha, self.beta, self.dtype = periodic, alpha, beta, dtype

    def __call__(self, length):
        return _rnd.hamming_window(length, self.periodic, self.alpha, self.beta,
                                  dtype=self.dtype)


@_export
class HistogramFixedWidth(_Composed):
    """HistogramFixedWidth(nbins, dtype='int32')(x, range): counts of x in nbins equal
    bins over [range[0], range[1]), values below in the first bin and above in the last."""

    def __init__(self, nbins, dtype="int32"):
        if not isinstance(nbins, int) or isinstance(nbins, bool) or nbins < 1:
            raise ValueError(f"For 'HistogramFixedWidth', nbins must be a positive int, but got "
                             f"{nbins!r}.")
        super().__init__(nbins=nbins, dtype=dtype)
        self.nbins = nbins

    def __call__(self, x, range):  # noqa: A002 (MindSpore's argument name)
        v = _prim("Cast")(_prim("Reshape")(x, (-1,)), _C.float64)
        r = _prim("Cast")(range, _C.float64)
        lo = _prim("StridedSlice")(r, (0,), (1,), (1,))
        hi = _prim("StridedSlice")(r, (1,), (2,), (1,))
        b = _prim("Floor")((v - lo) / (hi - lo) * float(self.nbins))
        b = _prim("Minimum")(_prim("Maximum")(b, 0.0), float(self.nbins - 1))
        ones = _prim("OnesLike")(_prim("Cast")(b, _C.int32))
        return _prim("UnsortedSegmentSum")(ones, _prim("Cast")(b, _C.int32), self.nbins)


def _unary_class(name, fn):
    def __init__(self):
        _Composed.__init__(self)

    def __call__(self, x):
        return fn(x)
    return _export(type(name, (_Composed,), {
        "__doc__": f"{name}()(x): ops.{fn.__name__}.", "__module__": __name__,
        "__init__": __init__, "__call__": __call__}))


for _fn_name in ("j0", "j1", "y0", "y1", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e"):
    _unary_class("Bessel" + _fn_name[0].upper() + _fn_name[1:],
                 getattr(_sf, "bessel_" + _fn_name))


def _binary_class(name, fn, doc):
    def __init__(self):
        _Composed.__init__(self)

    def __call__(self, x, y):
        return fn(x, y)
    return _export(type(name, (_Composed,), {"__doc__": doc, "__module__": __name__,
                                             "__init__": __init__, "__call__": __call__}))


_binary_class("Zeta", _sf.zeta, "Zeta()(x, q): the Hurwitz zeta function (ops.zeta).")


_binary_class("Polygamma", _sf.polygamma, "Polygamma()(a, x): ops.polygamma(a, x).")


_binary_class("Igamma", _sf.igamma, "Igamma()(a, x): the regularized lower incomplete gamma.")


_binary_class("Igammac", _sf.igammac, "Igammac()(a, x): the regularized upper incomplete "
              "gamma.")


@_export
class FloatStatus(_Composed):
    """FloatStatus()(x): [1] float32, 1 when x holds an inf or NaN, else 0."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        bad = _prim("LogicalNot")(_prim("Less")(_prim("Abs")(x), float("inf")))
        return _prim("Reshape")(_prim("Cast")(_prim("ReduceMax")(_prim("Cast")(bad, _C.int32),
                                                                 ()), _C.float32), (1,))


class Polar(_Composed):
    """Polar()(abs, angle): abs * (cos(angle) + i sin(angle)), complex64 for float32 parts,
    complex128 for float64 (ops.polar)."""

    def __call__(self, abs, angle):  # noqa: A002 (MindSpore's argument names)
        _check_tensor("Polar", "abs", abs, (_C.float32, _C.float64))
        _check_tensor("Polar", "angle", angle, (_C.float32, _C.float64))
        return _cx.polar(abs, angle)


# ---- MindSpore's math_ops classes of its ops test table (ut/python/ops/test_ops.py) -------

_REAL_FLOATS = (_C.float16, _C.float32, _C.float64)


@_export
class AddV2(_Composed):
    """AddV2()(x, y): x + y with broadcasting (TensorFlow's AddV2; the Add op)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, y):
        return _prim("Add")(x, y)


@_export
class Fmin(_Composed):
    """Fmin()(x1, x2): the elementwise minimum, ignoring a NaN operand (ops.fmin)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x1, x2):
        return _mx.fmin(x1, x2)


@_export
class Bucketize(_Composed):
    """Bucketize(boundaries)(input): int32 bucket indices, i where boundaries[i - 1] <= x <
    boundaries[i] (TensorFlow's rule; boundaries a sorted list of floats)."""

    def __init__(self, boundaries):
        if not isinstance(boundaries, (list, tuple)) or not all(
                isinstance(b, (int, float)) and not isinstance(b, bool) for b in boundaries):
            raise TypeError(f"For 'Bucketize', 'boundaries' must be a list of floats, but got "
                            f"{boundaries!r}.")
        if any(b > c for b, c in zip(boundaries, boundaries[1:])):
            raise ValueError(f"For 'Bucketize', 'boundaries' must be sorted, but got "
                             f"{list(boundaries)}.")
        super().__init__(boundaries=list(boundaries))
        self.boundaries = [float(b) for b in boundaries]

    def __call__(self, input):  # noqa: A002 (MindSpore's argument name)
        _check_tensor("Bucketize", "input", input, (_C.int32, _C.int64) + _REAL_FLOATS)
        return _mf.bucketize(input, self.boundaries, right=True)


@constexpr
def _std_axes(axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
        raise TypeError(f"For 'ReduceStd', 'axis' must be an int, tuple or list, but got "
                        f"{axis!r}.")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"For 'ReduceStd', 'axis' must be ints in [{-ndim}, {ndim}), but "
                             f"got {axis!r}.")
    return tuple(sorted({a % max(ndim, 1) for a in axes})) if axes else tuple(range(ndim))


@_export
class ReduceStd(_Composed):
    """ReduceStd(axis=(), unbiased=True, keep_dims=False)(input_x): (std, mean) over axis (()
    reduces every dim); unbiased divides by n - 1."""

    def __init__(self, axis=(), unbiased=True, keep_dims=False):
        _check_bool("ReduceStd", "unbiased", unbiased)
        _check_bool("ReduceStd", "keep_dims", keep_dims)
        super().__init__(axis=axis, unbiased=unbiased, keep_dims=keep_dims)
        self.axis, self.unbiased, self.keep_dims = axis, unbiased, keep_dims

    def __call__(self, input_x):
        _check_tensor("ReduceStd", "input_x", input_x, _REAL_FLOATS)
        axes = _std_axes(self.axis, input_x.ndim)
        mean = _prim("ReduceMean", keep_dims=True)(input_x, axes)
        sq = _prim("ReduceSum", keep_dims=self.keep_dims)(_prim("Square")(input_x - mean), axes)
        n = _std_count(input_x.shape, axes) - (1 if self.unbiased else 0)
        std = _prim("Sqrt")(sq / n)
        if not self.keep_dims:
            mean = _prim("ReduceMean", keep_dims=False)(input_x, axes)
        return std, mean


@constexpr
def _std_count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return float(n)


@_export
class CumulativeLogsumexp(_Composed):
    """CumulativeLogsumexp(exclusive=False, reverse=False)(x, axis): log(cumsum(exp(x))) along
    axis; exclusive leaves each element out of its own sum (-inf first), reverse sums from the
    end."""

    def __init__(self, exclusive=False, reverse=False):
        _check_bool("CumulativeLogsumexp", "exclusive", exclusive)
        _check_bool("CumulativeLogsumexp", "reverse", reverse)
        super().__init__(exclusive=exclusive, reverse=reverse)
        self.exclusive, self.reverse = exclusive, reverse

    def __call__(self, x, axis):
        _check_tensor("CumulativeLogsumexp", "x", x, _REAL_FLOATS)
        ax = _cum_axis(axis, x.ndim)
        if self.reverse:
            x = _flip(x, (ax,))
        y = _tx.logcumsumexp(x, ax)
        if self.exclusive:
            first = _a.full_like(_ax.narrow(x, ax, 0, 1), -np.inf)
            y = _a.concat((first, _ax.narrow(y, ax, 0, x.shape[ax] - 1)), ax)
        if self.reverse:
            y = _flip(y, (ax,))
        return y


@constexpr
def _cum_axis(axis, ndim):
    if isinstance(axis, _C.Tensor):
        axis = int(axis.item())
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(f"For 'CumulativeLogsumexp', 'axis' must be an int in [{-ndim}, "
                         f"{ndim}), but got {axis!r}.")
    return axis % ndim


@_export
class MatrixPower(_Composed):
    """MatrixPower(n)(x): x^n of each square matrix of x [..., M, M] by repeated squaring
    (n = 0: the identity; n < 0: the inverse's power)."""

    def __init__(self, n):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"For 'MatrixPower', 'n' must be an int, but got {n!r}.")
        super().__init__(n=n)
        self.n = n

    def __call__(self, x):
        _check_tensor("MatrixPower", "x", x, _REAL_FLOATS)
        _square_check(x.shape)
        if self.n == 0:
            return _a.broadcast_to(_a.eye(x.shape[-1], x.shape[-1], x.dtype), x.shape)
        base = _la.inverse(x) if self.n < 0 else x
        k, out = abs(self.n), None
        while k:
            if k & 1:
                out = base if out is None else _prim("BatchMatMul")(out, base)
            k >>= 1
            if k:
                base = _prim("BatchMatMul")(base, base)
        return out


@constexpr
def _square_check(shape):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'MatrixPower', 'x' must be square matrices [..., M, M], but got "
                         f"shape {tuple(shape)}.")


@_export
class CholeskySolve(_Composed):
    """CholeskySolve(upper=False)(x1, x2): the solution of A y = x1 given A's Cholesky factor
    x2 (lower, or upper when upper) (ops.cholesky_solve)."""

    def __init__(self, upper=False):
        _check_bool("CholeskySolve", "upper", upper)
        super().__init__(upper=upper)
        self.upper = upper

    def __call__(self, x1, x2):
        return _chol.cholesky_solve(x1, x2, self.upper)


@_export
class Quantile(_Composed):
    """Quantile(dim=None, keep_dims=False, ignore_nan=False)(input, q): the q-th quantiles along
    dim by linear interpolation (ops.quantile; ignore_nan: ops.nanquantile)."""

    def __init__(self, dim=None, keep_dims=False, ignore_nan=False):
        _check_bool("Quantile", "keep_dims", keep_dims)
        _check_bool("Quantile", "ignore_nan", ignore_nan)
        super().__init__(dim=dim, keep_dims=keep_dims, ignore_nan=ignore_nan)
        self.dim, self.keep_dims, self.ignore_nan = dim, keep_dims, ignore_nan

    def __call__(self, input, q):  # noqa: A002 (MindSpore's argument name)
        f = _tx.nanquantile if self.ignore_nan else _tx.quantile
        return f(input, q, self.dim, self.keep_dims)


@_export
class Histogram(_Composed):
    """Histogram(bins=100, min=0.0, max=0.0)(x): the counts of x's elements in `bins` equal
    bins over [min, max] (both 0: x's own range) (ops.histc)."""

    def __init__(self, bins=100, min=0.0, max=0.0):  # noqa: A002 (MindSpore's names)
        if isinstance(bins, bool) or not isinstance(bins, int) or bins <= 0:
            raise ValueError(f"For 'Histogram', 'bins' must be a positive int, but got {bins!r}.")
        if min > max:
            raise ValueError(f"For 'Histogram', 'min' must not exceed 'max', but got {min} and "
                             f"{max}.")
        super().__init__(bins=bins, min=min, max=max)
        self.bins, self.min, self.max = bins, float(min), float(max)

    def __call__(self, x):
        _check_tensor("Histogram", "x", x, (_C.int32,) + _REAL_FLOATS)
        return _tx.histc(x, self.bins, self.min, self.max)


@constexpr
def _bitpack_plan(shape, dtype):
    if len(shape) < 1 or shape[-1] % 8:
        raise ValueError(f"For 'CompareAndBitpack', the last dimension of 'x' must be a multiple "
                         f"of 8, but got shape {tuple(shape)}.")
    weights = np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32)
    return tuple(shape[:-1]) + (shape[-1] // 8, 8), _C.Tensor(weights)


@_export
class CompareAndBitpack(_Composed):
    """CompareAndBitpack()(x, threshold): x > threshold packed into uint8 along the last
    dimension, 8 elements a byte, the first in the most significant bit (TensorFlow's)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, threshold):
        _check_tensor("CompareAndBitpack", "x", x, (_C.bool, _C.float16, _C.float32,
                                                    _C.float64, _C.int8, _C.int16, _C.int32,
                                                    _C.int64))
        _check_tensor("CompareAndBitpack", "threshold", threshold, (x.dtype,))
        shape, weights = _bitpack_plan(x.shape, x.dtype)
        bits = _a.cast(_prim("Greater")(x, threshold), _C.int32)
        packed = _prim("ReduceSum")(_prim("Reshape")(bits, shape) * weights, (-1,))
        return _a.cast(packed, _C.uint8)


@constexpr
def _tridiag_plan(sup, main, sub, rhs, dtypes):
    if len(set(dtypes)) != 1 or dtypes[0] not in (_C.float32, _C.float64):
        raise TypeError(f"For 'TridiagonalMatMul', the inputs must be float32 or float64 of one "
                        f"dtype, but got {[str(d) for d in dtypes]}.")
    m = rhs[-2] if len(rhs) >= 2 else -1
    want = tuple(rhs[:-2]) + (1, m)
    for name, s in (("superdiag", sup), ("maindiag", main), ("subdiag", sub)):
        if tuple(s) != want:
            raise ValueError(f"For 'TridiagonalMatMul', '{name}' must have shape {want} (rhs "
                             f"{tuple(rhs)} is [..., M, N]), but got {tuple(s)}.")
    return m


@_export
class TridiagonalMatMul(_Composed):
    """TridiagonalMatMul()(superdiag, maindiag, subdiag, rhs): the tridiagonal matrix given by
    its diagonals [..., 1, M] times rhs [..., M, N]: row i is superdiag[i] rhs[i + 1] +
    maindiag[i] rhs[i] + subdiag[i] rhs[i - 1] (superdiag's last and subdiag's first entries
    are not used)."""

    def __init__(self):
        super().__init__()

    def __call__(self, superdiag, maindiag, subdiag, rhs):
        _check_tensors("TridiagonalMatMul", ("superdiag", superdiag), ("maindiag", maindiag),
                       ("subdiag", subdiag), ("rhs", rhs))
        m = _tridiag_plan(superdiag.shape, maindiag.shape, subdiag.shape, rhs.shape,
                          (superdiag.dtype, maindiag.dtype, subdiag.dtype, rhs.dtype))
        ax = rhs.ndim - 2
        col = (lambda d: _prim("Transpose")(d, tuple(range(ax)) + (ax + 1, ax)))  # [..., M, 1]
        zero = _a.zeros_like(_ax.narrow(rhs, ax, 0, 1))
        out = col(maindiag) * rhs
        if m > 1:
            down = _a.concat((_ax.narrow(rhs, ax, 1, m - 1), zero), ax)   # rhs[i + 1]
            up = _a.concat((zero, _ax.narrow(rhs, ax, 0, m - 1)), ax)     # rhs[i - 1]
            out = out + col(superdiag) * down + col(subdiag) * up
        return out
