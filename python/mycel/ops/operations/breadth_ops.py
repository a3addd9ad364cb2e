"""Primitive classes of MindSpore 2.x's ``mindspore.ops`` that mycel composes from the
functional forms of ops/function/breadth_*.py (and the older function modules): attributes in
``__init__``, inputs in ``__call__``, as MindSpore's. Each is a _Composed primitive whose
__call__ graph mode parses like any function, so both modes and gradients come from the ops
they are built of. This file: constructors, math, conversions and array primitives;
breadth_nn_ops.py: nn, losses, scatter, random, windows and boxes.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import (breadth_array_func as _ba, breadth_math_func as _bm,
                                math_ext_func as _mx, array_func as _a, linalg_func as _la,
                                special_func as _sp)
from mycel.ops.function._util import prim as _prim, shape_arg, one_int as _one_int
from mycel.ops.function import bitwise_func as _bw
from mycel.ops.function.math_func import dense as _dense
from mycel.ops.function import breadth_misc_func as _bmisc
from mycel.ops.function.graph_compat_func import all as _all, any as _any
from mycel.ops.primitive import constexpr, make_primitive_class

__all__ = []


def _export(cls):
    __all__.append(cls.__name__)
    globals()[cls.__name__] = cls
    return cls


def _simple(name, fn, doc, nargs=None):
    """A primitive without attributes whose call is fn(*inputs)."""
    def __init__(self):
        _Composed.__init__(self)

    def __call__(self, *args):
        return fn(*args)
    cls = type(name, (_Composed,), {"__doc__": doc, "__module__": __name__,
                                    "__init__": __init__, "__call__": __call__})
    return _export(cls)


# ---- constructors ------------------------------------------------------------------------

@constexpr
def _shape_tuple(shape, op):
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    if isinstance(shape, (tuple, list)):
        return tuple(int(s) for s in shape)
    raise TypeError(f"For '{op}', shape must be an int or a tuple of ints, but got "
                    f"{type(shape).__name__}.")


@_export
class Ones(_Composed):
    """Ones()(shape, type): a tensor of ones."""

    def __init__(self):
        super().__init__()

    def __call__(self, size, type=None):  # noqa: A002 (MindSpore's argument name)
        return _a.ones(_shape_tuple(size, "Ones"), type)


@_export
class Zeros(_Composed):
    """Zeros()(shape, type): a tensor of zeros."""

    def __init__(self):
        super().__init__()

    def __call__(self, size, type=None):  # noqa: A002
        return _a.zeros(_shape_tuple(size, "Zeros"), type)


@_export
class Eye(_Composed):
    """Eye()(n, m, t): the n x m identity matrix of dtype t."""

    def __init__(self):
        super().__init__()

    def __call__(self, n, m, t):
        return _ba.eye(n, m, t)


@_export
class FillV2(_Composed):
    """FillV2()(shape, value): a tensor of shape (a tuple or a 1-D int tensor) filled with
    value (a 0-d tensor, whose dtype the result takes)."""

    def __init__(self):
        super().__init__()

    def __call__(self, shape, value):
        v = value if isinstance(value, _C.Tensor) else _C.Tensor(value)
        return _prim("BroadcastTo", shape=shape_arg(shape, "FillV2"))(v)


@_export
class TrilIndices(_Composed):
    """TrilIndices(row, col, offset=0, dtype=int32)(): the lower-triangle coordinates."""

    def __init__(self, row, col, offset=0, dtype=_C.int32):
        super().__init__(row=row, col=col, offset=offset, dtype=dtype)
        self.row, self.col, self.offset, self.dtype = row, col, offset, dtype

    def __call__(self):
        return _ba.tril_indices(self.row, self.col, self.offset, dtype=self.dtype)


@_export
class TriuIndices(TrilIndices):
    """TriuIndices(row, col, offset=0, dtype=int32)(): the upper-triangle coordinates."""

    def __call__(self):
        return _ba.triu_indices(self.row, self.col, self.offset, dtype=self.dtype)


@_export
class LogSpace(_Composed):
    """LogSpace(steps=10, base=10, dtype=float32)(start, end): base ** linspace(start, end)."""

    def __init__(self, steps=10, base=10, dtype=_C.float32):
        super().__init__(steps=steps, base=base, dtype=dtype)
        self.steps, self.base, self.dtype = steps, base, dtype

    def __call__(self, start, end):
        return _ba.logspace(start, end, self.steps, self.base, dtype=self.dtype)


@_export
class Meshgrid(_Composed):
    """Meshgrid(indexing='xy')(inputs): coordinate grids of a tuple of 1-D tensors."""

    def __init__(self, indexing="xy"):
        super().__init__(indexing=indexing)
        self.indexing = indexing

    def __call__(self, inputs):
        return _ba.meshgrid(*inputs, indexing=self.indexing)


# ---- math --------------------------------------------------------------------------------

@_export
class AddN(_Composed):
    """AddN()(inputs): the elementwise sum of a tuple of tensors."""

    def __init__(self):
        super().__init__()

    def __call__(self, inputs):
        return _bm.accumulate_n(inputs)


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


_simple("Diag", _ba.diag, "Diag()(input_x): the rank-2k tensor with input_x on its diagonal.")
_simple("Trace", _mx.trace, "Trace()(x): the sum of the main diagonal of a 2-D tensor.")
_simple("Gcd", _bm.gcd, "Gcd()(x1, x2): the elementwise greatest common divisor.")
_simple("Lcm", _bm.lcm, "Lcm()(x1, x2): the elementwise least common multiple.")
_simple("Hypot", _mx.hypot, "Hypot()(x1, x2): sqrt(x1^2 + x2^2).")
_simple("Sinc", _mx.sinc, "Sinc()(x): sin(pi x) / (pi x), 1 at 0.")
_simple("NextAfter", _bm.nextafter, "NextAfter()(x1, x2): the next float after x1 towards x2.")
_simple("DivNoNan", _bm.div_no_nan, "DivNoNan()(x1, x2): x1 / x2, 0 where x2 is 0.")
_simple("MulNoNan", _bm.mul_no_nan, "MulNoNan()(x, y): x * y, 0 where y is 0.")
_simple("TruncateDiv", _bm.truncate_div, "TruncateDiv()(x, y): x / y rounded toward zero.")
_simple("LeftShift", _bw.bitwise_left_shift,
        "LeftShift()(x1, x2): x1 << x2 elementwise.")
_simple("RightShift", _bw.bitwise_right_shift,
        "RightShift()(x1, x2): x1 >> x2 elementwise (arithmetic).")
_simple("PopulationCount", _bm.population_count,
        "PopulationCount()(input_x): the number of set bits, uint8.")
_simple("Erfinv", _bm.erfinv, "Erfinv()(input_x): the inverse error function.")
_simple("Digamma", _sp.digamma, "Digamma()(input_x): psi(x).")
_simple("Fmax", _mx.fmax, "Fmax()(x1, x2): the maximum, ignoring a NaN operand.")
_simple("GatherNd", _ba.gather_nd, "GatherNd()(input_x, indices): gather by N-d indices.")
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
        return _bm.logit(x, self.eps)


class _CumExtreme(_Composed):
    _max = True

    def __init__(self, axis):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For '{type(self).__name__}', axis must be an int, but got "
                            f"{type(axis).__name__}.")
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, x):
        return _ba.cummax(x, self.axis) if self._max else _ba.cummin(x, self.axis)


@_export
class Cummax(_CumExtreme):
    """Cummax(axis)(input): (running maximum, its indices)."""
    _max = True


@_export
class Cummin(_CumExtreme):
    """Cummin(axis)(input): (running minimum, its indices)."""
    _max = False


@_export
class Cdist(_Composed):
    """Cdist(p=2.0)(input_x, input_y): pairwise p-norm distances of rows."""

    def __init__(self, p=2.0):
        super().__init__(p=p)
        self.p = p

    def __call__(self, input_x, input_y):
        return _bm.cdist(input_x, input_y, self.p)


@_export
class Pdist(_Composed):
    """Pdist(p=2.0)(x): p-norm distances between each pair of rows."""

    def __init__(self, p=2.0):
        super().__init__(p=p)
        self.p = p

    def __call__(self, x):
        return _bm.pdist(x, self.p)


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
        out = _bm.searchsorted(sorted_sequence, values, right=self.right, sorter=sorter)
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
class L2Normalize(_Composed):
    """L2Normalize(axis=0, epsilon=1e-4)(x): x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__(axis=axis, epsilon=epsilon)
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.epsilon = epsilon

    def __call__(self, x):
        s = _prim("ReduceSum", keep_dims=True)(_prim("Square")(x), self.axis)
        return x * _prim("Rsqrt")(_prim("Maximum")(s, float(self.epsilon)))


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
class MatrixSolve(_Composed):
    """MatrixSolve(adjoint=False)(matrix, rhs): X with matrix @ X = rhs."""

    def __init__(self, adjoint=False):
        super().__init__(adjoint=adjoint)
        self.adjoint = adjoint

    def __call__(self, matrix, rhs):
        return _la.matrix_solve(matrix, rhs, self.adjoint)


@_export
class InvertPermutation(_Composed):
    """InvertPermutation()(input_x): the inverse of a permutation given as a tuple/list of
    ints (a constant), as a tuple."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return _invert_perm(input_x)


@constexpr
def _invert_perm(p):
    if not isinstance(p, (tuple, list)):
        raise TypeError(f"For 'InvertPermutation', input_x must be a tuple or list of ints, but "
                        f"got {type(p).__name__}.")
    n = len(p)
    if sorted(p) != list(range(n)):
        raise ValueError(f"For 'InvertPermutation', input_x must be a permutation of 0..{n - 1}, "
                         f"but got {tuple(p)}.")
    out = [0] * n
    for i, v in enumerate(p):
        out[v] = i
    return tuple(out)


# ---- conversions -------------------------------------------------------------------------

@_export
class ScalarToTensor(_Composed):
    """ScalarToTensor()(input_x, dtype=float32): a 0-d tensor of a Python number."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, dtype=_C.float32):
        return scalar_to_tensor(input_x, dtype)


@constexpr
def scalar_to_tensor(input_x, dtype=_C.float32):
    """A 0-d tensor of a Python number (bool, int or float) of dtype."""
    if not isinstance(input_x, (bool, int, float)):
        raise TypeError(f"For 'scalar_to_tensor', input_x must be a number, but got "
                        f"{type(input_x).__name__}.")
    return _C.Tensor(np.array(input_x, np.float64 if isinstance(input_x, float) else
                              np.int64)).astype(dtype)


@_export
class TupleToArray(_Composed):
    """TupleToArray()(input_x): a 1-D tensor of a tuple of numbers (float32 when any is a
    float, else int64)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return tuple_to_array(input_x)


@constexpr
def tuple_to_array(input_x):
    """A 1-D tensor of a tuple or list of numbers (float32 if any is a float, else int64)."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise TypeError(f"For 'tuple_to_array', input_x must be a non-empty tuple of numbers, "
                        f"but got {input_x!r}.")
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in input_x):
        raise TypeError(f"For 'tuple_to_array', each element must be an int or a float, but got "
                        f"{tuple(input_x)!r}.")
    if any(isinstance(v, float) for v in input_x):
        return _C.Tensor(np.array(input_x, np.float32))
    return _C.Tensor(np.array(input_x, np.int64))


@_export
class TensorShape(_Composed):
    """TensorShape()(input_x): the shape as a 1-D int64 tensor."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x):
        return _shape_tensor(input_x.shape)


@constexpr
def _shape_tensor(shape):
    return _C.Tensor(np.array(tuple(shape), np.int64))


@_export
class ScalarCast(_Composed):
    """ScalarCast()(input_x, input_t): a Python number converted to the dtype's Python type."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_x, input_t):
        return _scalar_cast(input_x, input_t)


@constexpr
def _scalar_cast(x, t):
    if t == _C.bool:
        return bool(x)
    if t in (_C.float16, _C.float32, _C.float64, _C.bfloat16):
        return float(x)
    return int(x)


# ---- array -------------------------------------------------------------------------------

@_export
class Cross(_Composed):
    """Cross(dim=-65530)(x1, x2): the cross product along dim (the first of size 3 by
    default)."""

    def __init__(self, dim=-65530):
        super().__init__(dim=dim)
        self.dim = dim

    def __call__(self, x1, x2):
        return _ba.cross(x1, x2, None if self.dim == -65530 else self.dim)


@_export
class ReverseSequence(_Composed):
    """ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths)."""

    def __init__(self, seq_dim, batch_dim=0):
        super().__init__(seq_dim=seq_dim, batch_dim=batch_dim)
        self.seq_dim, self.batch_dim = seq_dim, batch_dim

    def __call__(self, x, seq_lengths):
        return _ba.reverse_sequence(x, seq_lengths, self.seq_dim, self.batch_dim)


@_export
class Dense(_Composed):
    """Dense(has_bias=True)(x, w, b): x @ w.T + b."""

    def __init__(self, has_bias=True):
        super().__init__(has_bias=has_bias)
        self.has_bias = has_bias

    def __call__(self, x, w, b=None):
        return _dense(x, w, b if self.has_bias else None)


@_export
class Conv2DTranspose(_Composed):
    """Conv2DTranspose(...)(dout, weight, input_size): Conv2DBackpropInput under
    MindSpore's other name (the same attributes)."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None,
                 mode=1, stride=1, dilation=1, group=1, data_format="NCHW"):
        super().__init__(out_channel=out_channel, kernel_size=kernel_size)
        kw = dict(pad_mode=pad_mode, pad=pad, mode=mode, stride=stride, dilation=dilation,
                  group=group, data_format=data_format)
        if pad_list is not None:
            kw["pad_list"] = pad_list
        self._inner = make_primitive_class("Conv2DBackpropInput")(out_channel, kernel_size,
                                                                   **kw)

    def __call__(self, dout, weight, input_size):
        return self._inner(dout, weight, input_size)


@_export
class DataFormatDimMap(_Composed):
    """DataFormatDimMap(src_format='NHWC', dst_format='NCHW')(input_x): each dimension index
    of src_format mapped to its position in dst_format."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        if sorted(src_format) != sorted(dst_format) or len(src_format) != 4:
            raise ValueError(f"For 'DataFormatDimMap', src_format and dst_format must be "
                             f"permutations of 4 letters, but got {src_format!r}, "
                             f"{dst_format!r}.")
        super().__init__(src_format=src_format, dst_format=dst_format)
        self._table = _C.Tensor(np.array([dst_format.index(c) for c in src_format], np.int64))

    def __call__(self, input_x):
        i = _prim("Cast")(input_x, _C.int64)
        i = _prim("FloorMod")(i, _prim("OnesLike")(i) * 4)
        return _prim("Cast")(_prim("Gather")(self._table, i, 0), input_x.dtype)


@_export
class Eps(_Composed):
    """Eps()(x): a tensor of x's shape filled with the smallest positive normal number of
    its float dtype."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return eps(x)


def eps(x):
    """A tensor of x's shape filled with the smallest positive normal float of its dtype."""
    return _a.full(x.shape, _tiny(x.dtype), dtype=x.dtype)


@constexpr
def _tiny(dt):
    np_dt = {_C.float16: np.float16, _C.float32: np.float32, _C.float64: np.float64}.get(dt)
    if np_dt is None:
        raise TypeError(f"For 'Eps', x must be float16, float32 or float64, but got {dt}.")
    return float(np.finfo(np_dt).tiny)


@_export
class FillDiagonal(_Composed):
    """FillDiagonal(fill_value, wrap=False)(input_x): the main diagonal (all indices equal)
    set to fill_value; wrap continues it below a tall matrix every N + 1 rows."""

    def __init__(self, fill_value, wrap=False):
        super().__init__(fill_value=fill_value, wrap=wrap)
        self.fill_value, self.wrap = float(fill_value), wrap

    def __call__(self, input_x):
        mask = _fill_diag_mask(tuple(input_x.shape), self.wrap)
        return _prim("Select")(mask, _prim("ZerosLike")(input_x) + self.fill_value, input_x)


@constexpr
def _fill_diag_mask(shape, wrap):
    if len(shape) < 2:
        raise ValueError(f"For 'FillDiagonal', the input must be at least 2-D, but got "
                         f"{shape}.")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"For 'FillDiagonal', all dimensions must be equal above 2-D, but "
                         f"got {shape}.")
    m = np.zeros(shape, bool)
    if len(shape) == 2:
        rows, cols = shape
        flat = m.reshape(-1)
        end = rows * cols if wrap else min(rows, cols) * cols
        flat[:end:cols + 1] = True
    else:
        idx = np.arange(shape[0])
        m[tuple([idx] * len(shape))] = True
    return _C.Tensor(m)


@_export
class MatrixSetDiagV3(_Composed):
    """MatrixSetDiagV3(align='RIGHT_LEFT')(x, diagonal, k): ops.matrix_set_diag."""

    def __init__(self, align="RIGHT_LEFT"):
        super().__init__(align=align)
        self.align = align

    def __call__(self, x, diagonal, k):
        return _bmisc.matrix_set_diag(x, diagonal, k, self.align)
