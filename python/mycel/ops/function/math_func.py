"""Elementwise math, comparisons, reductions and matrix products (MindSpore 2.x names).

More of MindSpore 2.x's math functions, composed from op-table primitives (both modes,
gradients from the ops they are built of): gcd, lcm, logit, truncate_div, truncate_mod,
div_no_nan / mul_no_nan, population_count, clip_by_value, clip_by_norm,
clip_by_global_norm, accumulate_n, addr, dist, cdist, pdist, cosine_similarity, bincount,
bucketize, searchsorted, trapz, erfinv, nextafter.

gcd and lcm run Euclid's algorithm unrolled to its worst case for the dtype (the number of
steps of consecutive Fibonacci numbers), so they need no data-dependent loop and compile in
graph mode. erfinv starts from a closed-form approximation and takes Newton steps on erf
(converged, so its gradient through the steps is 1 / erf'(y) as it should be).
"""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, axes, as_tensor, number_arg
from mycel.ops.primitive import constexpr
import math
import numpy as np
from mycel.ops.function import array_func as _a
from mycel.ops.function.array_ext_func import narrow as _narrow
from mycel.ops.function._util import stop_gradient

__all__ = ["prim", "axes", "as_tensor", "constexpr", "add", "sub", "mul", "div", "trunc",
           "fix", "floor", "floor_divide", "floor_div", "remainder", "floor_mod", "fmod",
           "pow", "neg", "negative", "abs", "absolute", "sign", "square", "exp", "log",
           "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf",
           "logical_not", "acos", "arccos", "asin", "arcsin", "atan", "arctan", "acosh",
           "arccosh", "asinh", "arcsinh", "atanh", "arctanh", "sinh", "cosh", "tan", "expm1",
           "erfc", "ceil", "rint", "round", "maximum", "minimum", "clamp", "clip", "equal",
           "not_equal", "ne", "less", "lt", "less_equal", "le", "greater", "gt",
           "greater_equal", "ge", "logical_and", "logical_or", "eq", "select", "where", "sum",
           "mean", "prod", "amax", "amin", "argmax", "argmin", "max", "min", "matmul", "bmm",
           "bias_add", "dense", "addr", "approximate_equal", "gcd", "lcm", "logit",
           "truncate_div", "truncate_mod", "div_no_nan", "mul_no_nan", "population_count",
           "clip_by_value", "clip_by_norm", "clip_by_global_norm", "accumulate_n", "dist",
           "cdist", "pdist", "cosine_similarity", "bincount", "bucketize", "searchsorted",
           "trapz", "erfinv", "nextafter"]


_add, _sub, _mul, _div = prim("Add"), prim("Sub"), prim("Mul"), prim("Div")


def add(input, other):  # noqa: A002 (MindSpore's argument names)
    """input + other, broadcasting; either may be a Python number."""
    return _add(input, other)


def sub(input, other):  # noqa: A002
    """input - other, broadcasting."""
    return _sub(input, other)


def mul(input, other):  # noqa: A002
    """input * other, broadcasting."""
    return _mul(input, other)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """True division; rounding_mode 'floor' floors, 'trunc' rounds toward zero."""
    if rounding_mode is None:
        return _div(input, other)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        return _trunc(_div(input, other), input, other)
    raise ValueError(f"For 'div', rounding_mode must be None, 'floor' or 'trunc', "
                     f"but got {rounding_mode!r}.")


def _trunc(q, input, other):  # noqa: A002
    # trunc(q), in the dtype the inputs promote to (from their dtypes, so that GRAPH mode
    # knows it at compile time).
    t = trunc(q)
    dt = _promoted(_dtype_or_number(input), _dtype_or_number(other))
    return t if dt.is_floating_point else prim("Cast")(t, dt)


def _dtype_or_number(x):
    return x.dtype if isinstance(x, _C.Tensor) else x


@constexpr
def _promoted(a, b):
    """The dtype _C.result_type gives for operands of dtype (or Python number) a and b."""
    def probe(v):
        return _C.Tensor(0, v) if isinstance(v, _C.DType) else v
    return _C.result_type(probe(a), probe(b))


def trunc(input):  # noqa: A002
    """The integral part, rounded toward zero (integers unchanged)."""
    x = as_tensor(input)
    if not x.dtype.is_floating_point:
        return x
    return prim("Mul")(prim("Sign")(x), floor(prim("Abs")(x)))


fix = trunc


def floor(input):  # noqa: A002
    """Largest integral value not greater than each element (integers unchanged)."""
    return prim("Floor")(input)


def floor_divide(input, other):  # noqa: A002
    """floor(input / other), Python's //."""
    return prim("FloorDiv")(input, other)


floor_div = floor_divide


def remainder(input, other):  # noqa: A002
    """Python's %: the result takes the sign of other."""
    return prim("FloorMod")(input, other)


floor_mod = remainder


def fmod(input, other):  # noqa: A002
    """C's fmod: the result takes the sign of input."""
    return prim("Mod")(input, other)


def pow(input, exponent):  # noqa: A001,A002
    """input ** exponent, broadcasting."""
    return prim("Pow")(input, exponent)


def _unary(name, doc):
    h = prim(name)

    def f(input):  # noqa: A002
        return h(input)
    f.__doc__ = doc
    f.__name__ = f.__qualname__ = name  # errors name the op: "Abs() takes 1 positional ..."
    return f


neg = _unary("Neg", "-input.")
negative = neg
abs = _unary("Abs", "|input|.")  # noqa: A001
absolute = abs
sign = _unary("Sign", "-1, 0 or 1 by the sign of each element.")
square = _unary("Square", "input * input.")
exp = _unary("Exp", "e ** input.")
log = _unary("Log", "Natural logarithm.")
log1p = _unary("Log1p", "log(1 + input), accurate near 0.")
sqrt = _unary("Sqrt", "Square root.")
rsqrt = _unary("Rsqrt", "1 / sqrt(input).")
reciprocal = _unary("Reciprocal", "1 / input.")
sin = _unary("Sin", "Sine.")
cos = _unary("Cos", "Cosine.")
tanh = _unary("Tanh", "Hyperbolic tangent.")
sigmoid = _unary("Sigmoid", "1 / (1 + exp(-input)).")
erf = _unary("Erf", "The error function.")
logical_not = _unary("LogicalNot", "not input, for bool tensors.")
acos = _unary("ACos", "Inverse cosine, in [0, pi]; NaN outside [-1, 1].")
arccos = acos
asin = _unary("Asin", "Inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].")
arcsin = asin
atan = _unary("Atan", "Inverse tangent, in (-pi/2, pi/2).")
arctan = atan
acosh = _unary("Acosh", "Inverse hyperbolic cosine; NaN below 1.")
arccosh = acosh
asinh = _unary("Asinh", "Inverse hyperbolic sine.")
arcsinh = asinh
atanh = _unary("Atanh", "Inverse hyperbolic tangent; +-inf at +-1, NaN outside [-1, 1].")
arctanh = atanh
sinh = _unary("Sinh", "Hyperbolic sine.")
cosh = _unary("Cosh", "Hyperbolic cosine.")
tan = _unary("Tan", "Tangent.")
expm1 = _unary("Expm1", "exp(input) - 1, accurate near 0.")
erfc = _unary("Erfc", "The complementary error function, 1 - erf(input).")
ceil = _unary("Ceil", "Smallest integral value not less than each element (integers "
                      "unchanged).")
rint = _unary("Rint", "The nearest integral value, halves to even (integers unchanged).")


def round(input, *, decimals=0):  # noqa: A001,A002
    """The nearest integral value, halves to even (0.5 -> 0, 2.5 -> 2, -4.5 -> -4), as
    MindSpore's ops.round; with ``decimals`` (an int), to that many decimal places
    (round(input * 10**decimals) / 10**decimals). Integers are returned unchanged."""
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"For 'round', decimals must be an int, but got "
                        f"{type(decimals).__name__}.")
    if decimals == 0:
        return prim("Round")(input)
    if not -308 <= decimals <= 308:  # 10.0 ** decimals: a bare OverflowError past float64
        raise ValueError(f"For 'round', decimals must be in [-308, 308], but got {decimals}.")
    x = as_tensor(input)
    if not x.dtype.is_floating_point:
        return x
    scale = 10.0 ** decimals
    return prim("Div")(prim("Round")(prim("Mul")(x, scale)), scale)


def maximum(input, other):  # noqa: A002
    """Elementwise maximum, broadcasting (NaN propagates)."""
    return prim("Maximum")(input, other)


def minimum(input, other):  # noqa: A002
    """Elementwise minimum, broadcasting (NaN propagates)."""
    return prim("Minimum")(input, other)


def clamp(input, min=None, max=None):  # noqa: A002
    """Limits input to [min, max]; either bound may be None."""
    out = input
    if min is not None:
        out = maximum(out, min)
    if max is not None:
        out = minimum(out, max)
    return out


clip = clamp


def _cmp(name, doc):
    h = prim(name)

    def f(input, other):  # noqa: A002
        return h(input, other)
    f.__doc__ = doc
    f.__name__ = f.__qualname__ = name  # errors name the op: "Abs() takes 1 positional ..."
    return f


equal = _cmp("Equal", "input == other (bool).")
not_equal = ne = _cmp("NotEqual", "input != other (bool).")
less = lt = _cmp("Less", "input < other (bool).")
less_equal = le = _cmp("LessEqual", "input <= other (bool).")
greater = gt = _cmp("Greater", "input > other (bool).")
greater_equal = ge = _cmp("GreaterEqual", "input >= other (bool).")
logical_and = _cmp("LogicalAnd", "input and other, for bool tensors.")
logical_or = _cmp("LogicalOr", "input or other, for bool tensors.")
eq = equal


def select(cond, x, y):
    """x where cond is true, else y (all three broadcast)."""
    return prim("Select")(cond, x, y)


def where(condition, x, y):
    """x where condition is true, else y (all three broadcast)."""
    return prim("Select")(condition, x, y)


# ---- reductions ------------------------------------------------------------------------

def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002
    """Sum over dim (an int, a tuple, or None for all)."""
    out = prim("ReduceSum", keep_dims=keepdim)(input, axes(dim))
    return out if dtype is None else out.astype(dtype)


def mean(input, axis=None, keep_dims=False):  # noqa: A002
    """Mean over axis (an int, a tuple, or None for all)."""
    return prim("ReduceMean", keep_dims=keep_dims)(input, axes(axis))


def prod(input, axis=None, keep_dims=False):  # noqa: A002
    """Product over axis."""
    return prim("ReduceProd", keep_dims=keep_dims)(input, axes(axis))


def amax(input, axis=None, keepdims=False):  # noqa: A002
    """Maximum over axis."""
    return prim("ReduceMax", keep_dims=keepdims)(input, axes(axis))


def amin(input, axis=None, keepdims=False):  # noqa: A002
    """Minimum over axis."""
    return prim("ReduceMin", keep_dims=keepdims)(input, axes(axis))


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """Indices (int64) of the maxima along dim; dim None: of the flattened input."""
    if dim is None:
        return prim("Argmax", axis=0, output_type=_C.int64)(input.reshape((-1,)))
    return prim("Argmax", axis=dim, output_type=_C.int64, keep_dims=keepdim)(input)


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    """Indices (int64) of the minima along axis; None: of the flattened input."""
    if axis is None:
        return prim("Argmin", axis=0, output_type=_C.int64)(input.reshape((-1,)))
    return prim("Argmin", axis=axis, output_type=_C.int64, keep_dims=keepdims)(input)


def max(input, axis=None, keepdims=False):  # noqa: A001,A002
    """(values, indices) of the maxima along axis (MindSpore 2.x); axis None: over all."""
    if axis is None:
        return amax(input), argmax(input)
    return amax(input, axis, keepdims), argmax(input, axis, keepdims)


def min(input, axis=None, keepdims=False):  # noqa: A001,A002
    """(values, indices) of the minima along axis (MindSpore 2.x); axis None: over all."""
    if axis is None:
        return amin(input), argmin(input)
    return amin(input, axis, keepdims), argmin(input, axis, keepdims)


# ---- matrix products -------------------------------------------------------------------

def matmul(input, other):  # noqa: A002
    """numpy.matmul semantics: 1-d operands are promoted to matrices and the added dimension
    removed; batch dimensions broadcast."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"For 'matmul', the inputs must not be scalars, but got shapes "
                         f"{list(a.shape)} and {list(b.shape)}.")
    a2 = a.reshape((1, a.shape[0])) if a.ndim == 1 else a
    b2 = b.reshape((b.shape[0], 1)) if b.ndim == 1 else b
    if a2.ndim == 2 and b2.ndim == 2:
        out = prim("MatMul")(a2, b2)
    else:
        out = prim("BatchMatMul")(a2, b2)
    if a.ndim == 1:
        out = out.squeeze(-2)
    if b.ndim == 1:
        out = out.squeeze(-1)
    return out


def bmm(input_x, mat2):
    """Batched matrix product of [..., M, K] and [..., K, N]."""
    return prim("BatchMatMul")(input_x, mat2)


def bias_add(input_x, bias, data_format="NCHW"):
    """Adds a 1-d bias along the channel axis."""
    return prim("BiasAdd", data_format=data_format)(input_x, bias)


def dense(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias, with weight [out, in] as nn.Dense keeps it; input may have
    leading batch dimensions."""
    x = as_tensor(input)
    if x.ndim == 2:
        out = prim("MatMul", transpose_b=True)(x, weight)
    else:
        out = matmul(x, prim("Transpose")(weight, (1, 0)))
    return out if bias is None else add(out, bias)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2) (ops.addr and Tensor.addr)."""
    for name, v in (("x", x), ("vec1", vec1), ("vec2", vec2)):
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"For 'addr', '{name}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise ValueError(f"For 'addr', vec1 and vec2 must be 1-D, but got shapes {vec1.shape} "
                         f"and {vec2.shape}.")
    outer = prim("Mul")(prim("Reshape")(vec1, (-1, 1)), prim("Reshape")(vec2, (1, -1)))
    return add(mul(x, beta), mul(outer, alpha))


# MindSpore defines approximate_equal in ops.function.math_func; programs import it from there.
from mycel.ops.function.compat_func import approximate_equal  # noqa: E402,F401
# MindSpore defines these in ops.function.math_func too (its ops test table imports them).
# Their modules import this one, so they resolve on first use (PEP 562), not at import.
_LATER = {"matrix_exp": "linalg_func", "quantile": "tensor_ext_func",
          "nanquantile": "tensor_ext_func", "nan_to_num": "math_ext_func",
          "inplace_index_add": "index_add_func", "polar": "complex_func"}


def __getattr__(name):
    if name in _LATER:
        import importlib
        return getattr(importlib.import_module("mycel.ops.function." + _LATER[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")




FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


INTS = (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8, _C.uint16, _C.uint32, _C.uint64)


_BITS = {_C.int8: 8, _C.uint8: 8, _C.int16: 16, _C.uint16: 16, _C.int32: 32, _C.uint32: 32,
         _C.int64: 64, _C.uint64: 64}


_EUCLID_STEPS = {8: 12, 16: 24, 32: 47, 64: 93}


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


@constexpr
def _int_pair(a, b, op):
    if a not in INTS or b not in INTS:
        raise TypeError(f"For '{op}', both inputs must be integer tensors, but got {a} and "
                        f"{b}.")
    dt = _C.result_type(_C.Tensor(0, a), _C.Tensor(0, b))
    return dt, _EUCLID_STEPS[_BITS[dt]]


def gcd(input, other):  # noqa: A002 (MindSpore's argument names)
    """The elementwise greatest common divisor (>= 0; gcd(0, 0) = 0) of integer tensors,
    broadcast."""
    a, b = _t(input, "gcd"), _t(other, "gcd", "other")
    dt, steps = _int_pair(a.dtype, b.dtype, "gcd")
    a, b = prim("Abs")(prim("Cast")(a, dt)), prim("Abs")(prim("Cast")(b, dt))
    a, b = a + prim("ZerosLike")(b), b + prim("ZerosLike")(a)
    one = prim("OnesLike")(b)
    zero = prim("ZerosLike")(b)
    for _ in range(steps):
        nz = prim("NotEqual")(b, zero)
        r = prim("FloorMod")(a, prim("Select")(nz, b, one))
        a, b = prim("Select")(nz, b, a), prim("Select")(nz, r, zero)
    return a


def lcm(input, other):  # noqa: A002
    """The elementwise least common multiple (>= 0; 0 when either is 0)."""
    a, b = _t(input, "lcm"), _t(other, "lcm", "other")
    g = gcd(a, b)
    dt = g.dtype
    a, b = prim("Abs")(prim("Cast")(a, dt)), prim("Abs")(prim("Cast")(b, dt))
    zero = prim("Equal")(g, prim("ZerosLike")(g))
    q = prim("FloorDiv")(a, prim("Select")(zero, prim("OnesLike")(g), g))
    return prim("Select")(zero, prim("ZerosLike")(g), q * b)


@constexpr
def _float_dtype(dt, op):
    if dt in FLOATS:
        return dt
    if dt in INTS or dt == _C.bool:
        return _C.float32
    raise TypeError(f"For '{op}', the input must be a real tensor, but got {dt}.")


def logit(input, eps=None):  # noqa: A002
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] first when eps is given
    (MindSpore's Logit: eps < 0 means no clamping)."""
    x = _t(input, "logit")
    x = prim("Cast")(x, _float_dtype(x.dtype, "logit"))
    if eps is not None and number_arg(eps, "logit", "eps") >= 0:
        x = clamp(x, float(eps), 1.0 - float(eps))
    return prim("Log")(x / (1.0 - x))


def truncate_div(x, y):
    """x / y rounded toward zero (an integer result for integer inputs)."""
    return div(x, y, rounding_mode="trunc")


def truncate_mod(x, y):
    """x - truncate_div(x, y) * y: the remainder with x's sign."""
    return fmod(x, y)


def div_no_nan(x1, x2):
    """x1 / x2, and 0 where x2 is 0 (float division)."""
    a, b = as_tensor(x1), as_tensor(x2)
    q = div(a, b)
    zero_b = prim("Equal")(b, prim("ZerosLike")(b))
    safe = div(a, prim("Select")(zero_b, prim("OnesLike")(b), b))
    return prim("Select")(prim("BroadcastTo", shape=q.shape)(zero_b), prim("ZerosLike")(q),
                          prim("BroadcastTo", shape=q.shape)(safe))


def mul_no_nan(x, y):
    """x * y, and 0 where y is 0 (even when x is inf or NaN)."""
    a, b = as_tensor(x), as_tensor(y)
    p = mul(a, b)
    zero_b = prim("Equal")(b, prim("ZerosLike")(b))
    safe_a = prim("Select")(prim("BroadcastTo", shape=p.shape)(zero_b), prim("ZerosLike")(p),
                            prim("BroadcastTo", shape=p.shape)(prim("Cast")(a, p.dtype)))
    return mul(safe_a, prim("Cast")(b, p.dtype))


@constexpr
def _popcount_plan(dt):
    if dt not in INTS:
        raise TypeError(f"For 'PopulationCount', the input must be an integer tensor, but got "
                        f"{dt}.")
    return _BITS[dt]


def population_count(input_x):
    """The number of set bits of each element's two's-complement representation, uint8."""
    x = _t(input_x, "PopulationCount", "input_x")
    bits = _popcount_plan(x.dtype)
    v = prim("Cast")(x, _C.int64)
    total = prim("ZerosLike")(v)
    if bits == 64:
        # the sign bit separately, then the 63 bits below it of x & INT64_MAX
        neg = prim("Less")(v, total)
        total = prim("Cast")(neg, _C.int64)
        v = prim("BitwiseAnd")(v, _low_mask(63))
        bits = 63
    else:
        v = prim("BitwiseAnd")(v, _low_mask(bits))
    for _ in range(bits):
        total = total + prim("BitwiseAnd")(v, prim("OnesLike")(v))
        v = prim("FloorDiv")(v, prim("OnesLike")(v) + 1)
    return prim("Cast")(total, _C.uint8)


@constexpr
def _low_mask(bits):
    """2 ** bits - 1 as an int64 tensor."""
    return _C.Tensor(np.array(2 ** bits - 1, np.int64))


def _clip_one(x, lo, hi):
    if lo is not None:
        x = prim("Maximum")(x, prim("Cast")(as_tensor(lo), x.dtype))
    if hi is not None:
        x = prim("Minimum")(x, prim("Cast")(as_tensor(hi), x.dtype))
    return x


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Each element limited to [clip_value_min, clip_value_max] (either may be None, not
    both); x may be a Tensor or a list/tuple of them (the result matches)."""
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("For 'clip_by_value', clip_value_min and clip_value_max must not "
                         "both be None.")
    if isinstance(x, _C.Tensor):
        return _clip_one(x, clip_value_min, clip_value_max)
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'clip_by_value', x must be a Tensor or a list/tuple of Tensors, "
                        f"but got {type(x).__name__}.")
    out = ()
    for t in x:
        out = out + (_clip_one(_t(t, "clip_by_value", "x"), clip_value_min, clip_value_max),)
    return out if isinstance(x, tuple) else list(out)


def _pnorm_all(t, p):
    a = prim("Abs")(prim("Cast")(t, _C.float32) if t.dtype not in FLOATS else t)
    if p == math.inf:
        return prim("ReduceMax")(a, ())
    if p == -math.inf:
        return prim("ReduceMin")(a, ())
    return prim("ReduceSum")(prim("Pow")(a, float(p)), ())


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales x (a Tensor or a list/tuple of them, one norm over all) by
    min(1, max_norm / (total_norm + 1e-6)); the norm is of order norm_type (inf allowed)."""
    single = isinstance(x, _C.Tensor)
    xs = (x,) if single else tuple(x)
    p = float(number_arg(norm_type, "clip_by_norm", "norm_type"))
    if p == 0 or p != p:  # 1 / p below: a bare ZeroDivisionError
        raise ValueError(f"For 'clip_by_norm', norm_type must be a non-zero number, but got "
                         f"{norm_type!r}.")
    total = None
    for t in xs:
        s = _pnorm_all(_t(t, "clip_by_norm", "x"), p)
        if total is None:
            total = s
        elif p == math.inf:
            total = prim("Maximum")(total, s)
        elif p == -math.inf:
            total = prim("Minimum")(total, s)
        else:
            total = total + s
    if p not in (math.inf, -math.inf):
        total = prim("Pow")(total, 1.0 / p)
    if error_if_nonfinite and not bool(prim("Less")(prim("Abs")(total), math.inf).asnumpy()):
        raise RuntimeError(f"For 'clip_by_norm', the total norm of order {p} is non-finite.")
    coef = clamp(float(number_arg(max_norm, "clip_by_norm", "max_norm")) / (total + 1e-6),
                 None, 1.0)
    out = ()
    for t in xs:
        out = out + (t * prim("Cast")(coef, t.dtype),)
    return out[0] if single else (out if isinstance(x, tuple) else list(out))


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Each tensor of x (a list/tuple) times clip_norm / max(global_norm, clip_norm), the
    global norm being sqrt(sum of their squared L2 norms) (or use_norm when given)."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For 'clip_by_global_norm', x must be a tuple or list of Tensors, but "
                        f"got {type(x).__name__}.")
    if use_norm is None:
        total = None
        for t in x:
            s = prim("ReduceSum")(prim("Square")(prim("Cast")(_t(t, "clip_by_global_norm",
                                                                  "x"), _C.float32)), ())
            total = s if total is None else total + s
        norm = prim("Sqrt")(total)
    else:
        norm = prim("Cast")(as_tensor(use_norm), _C.float32)
    scale = float(clip_norm) / prim("Maximum")(norm, prim("Cast")(as_tensor(float(clip_norm)),
                                                                   _C.float32))
    out = ()
    for t in x:
        out = out + (t * prim("Cast")(scale, t.dtype),)
    return out


def accumulate_n(x):
    """The elementwise sum of a list/tuple of tensors of one shape and dtype."""
    if isinstance(x, _C.Tensor):
        return x
    if not isinstance(x, (tuple, list)) or len(x) == 0:
        raise TypeError("For 'AccumulateNV2', x must be a non-empty tuple or list of Tensors.")
    out = _t(x[0], "AccumulateNV2", "x")
    for i in range(1, len(x)):
        t = _t(x[i], "AccumulateNV2", "x")
        if tuple(t.shape) != tuple(out.shape) or t.dtype != out.dtype:
            raise ValueError(f"For 'AccumulateNV2', all inputs must have the same shape and "
                             f"dtype, but got {out.shape} {out.dtype} and {t.shape} {t.dtype}.")
        out = out + t
    return out


def _pnorm(diff, p, axes):
    """The p-norm of diff over axes (p = 0: count of nonzeros; inf: max |.|)."""
    a = prim("Abs")(diff)
    if p == 0:
        return prim("ReduceSum")(prim("Cast")(prim("NotEqual")(a, prim("ZerosLike")(a)),
                                              diff.dtype), axes)
    if p == math.inf:
        return prim("ReduceMax")(a, axes)
    if p == 2:
        return prim("Sqrt")(prim("ReduceSum")(prim("Square")(a), axes))
    if p == 1:
        return prim("ReduceSum")(a, axes)
    return prim("Pow")(prim("ReduceSum")(prim("Pow")(a, float(p)), axes), 1.0 / p)


@constexpr
def _check_p(p, op):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        raise ValueError(f"For '{op}', p must be a non-negative number, but got {p!r}.")
    return float(p)


def dist(input, other, p=2):  # noqa: A002
    """The p-norm of input - other (broadcast) over all elements."""
    a, b = _t(input, "dist"), _t(other, "dist", "other")
    return _pnorm(a - b, _check_p(p, "dist"), ())


@constexpr
def _cdist_plan(sa, sb, da, db):
    if da != db or da not in (_C.float32, _C.float64, _C.float16):
        raise TypeError(f"For 'cdist', x1 and x2 must have the same float dtype, but got {da} "
                        f"and {db}.")
    if len(sa) < 2 or len(sa) != len(sb) or sa[-1] != sb[-1] or tuple(sa[:-2]) != tuple(
            sb[:-2]):
        raise ValueError(f"For 'cdist', x1 [..., P, M] and x2 [..., R, M] must agree, but got "
                         f"shapes {tuple(sa)} and {tuple(sb)}.")
    return len(sa)


def cdist(x1, x2, p=2.0):
    """The p-norm distance of each row vector of x1 [..., P, M] to each of x2 [..., R, M]:
    [..., P, R]."""
    a, b = _t(x1, "cdist", "x1"), _t(x2, "cdist", "x2")
    nd = _cdist_plan(a.shape, b.shape, a.dtype, b.dtype)
    diff = prim("ExpandDims")(a, nd - 1) - prim("ExpandDims")(b, nd - 2)
    return _pnorm(diff, _check_p(p, "cdist"), (-1,))


@constexpr
def _pdist_plan(shape, dt):
    if dt not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'pdist', the input must be float16, float32 or float64, but got "
                        f"{dt}.")
    if len(shape) < 2:
        raise ValueError(f"For 'pdist', the input must be at least 2-D, but got shape "
                         f"{tuple(shape)}.")
    n = shape[-2]
    i, j = np.triu_indices(n, 1)
    return _C.Tensor(i.astype(np.int64)), _C.Tensor(j.astype(np.int64))


def pdist(input, p=2.0):  # noqa: A002
    """The p-norm distances between each pair of rows i < j of input [..., N, M]:
    [..., N (N - 1) / 2], row-major pair order."""
    x = _t(input, "pdist")
    i, j = _pdist_plan(x.shape, x.dtype)
    diff = prim("Gather")(x, i, -2) - prim("Gather")(x, j, -2)
    return _pnorm(diff, _check_p(p, "pdist"), (-1,))


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / sqrt(max(|x1|^2 |x2|^2, eps^2)) along dim (broadcast)."""
    a, b = _t(x1, "cosine_similarity", "x1"), _t(x2, "cosine_similarity", "x2")
    w12 = prim("ReduceSum")(a * b, (dim,))
    w1 = prim("ReduceSum")(a * a, (dim,))
    w2 = prim("ReduceSum")(b * b, (dim,))
    return w12 / prim("Sqrt")(clamp(w1 * w2, eps * eps, None))


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """Counts of each value 0..max of a 1-D tensor of non-negative ints (or the sums of
    weights), at least minlength long. The length depends on the values: PYNATIVE mode."""
    return _t(input, "bincount").bincount(weights, minlength)  # Tensor.bincount


def _count_below(seq, v, right):
    """The number of elements of seq [..., N] below v [..., M] (<= v when right): [..., M]."""
    cmp = prim("LessEqual" if right else "Less")(prim("ExpandDims")(seq, -2),
                                                  prim("ExpandDims")(v, -1))
    return prim("ReduceSum")(prim("Cast")(cmp, _C.int64), (-1,))


@constexpr
def _boundaries(b):
    if not isinstance(b, (list, tuple)):
        raise TypeError(f"For 'bucketize', boundaries must be a list of numbers, but got "
                        f"{type(b).__name__}.")
    arr = np.array(b, np.float64)
    if arr.ndim != 1 or np.any(np.diff(arr) < 0):
        raise ValueError("For 'bucketize', boundaries must be a sorted 1-D list.")
    return _C.Tensor(arr)


def bucketize(input, boundaries, *, right=False):  # noqa: A002
    """The bucket index of each element: the number of boundaries below it (at or below it
    when right), int32."""
    x = _t(input, "bucketize")
    b = _boundaries(boundaries)
    flat = prim("Reshape")(prim("Cast")(x, _C.float64), (-1,))
    cnt = _count_below(b, flat, right)
    return prim("Reshape")(prim("Cast")(cnt, _C.int32), x.shape)


@constexpr
def _ss_plan(ss, vs, side, right, op="searchsorted"):
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For '{op}', side must be 'left' or 'right', but got {side!r}.")
        if right and side == "left":
            raise ValueError(f"For '{op}', side='left' contradicts right=True.")
        right = side == "right"
    if len(ss) > 1 and (len(vs) != len(ss) or tuple(vs[:-1]) != tuple(ss[:-1])):
        raise ValueError(f"For '{op}', the leading dimensions of sorted_sequence {tuple(ss)} "
                         f"and values {tuple(vs)} must match.")
    return bool(right)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """For each value, the index where it would be inserted in the innermost dimension of
    sorted_sequence to keep it sorted (the leftmost place, or rightmost when right)."""
    s = _t(sorted_sequence, "searchsorted", "sorted_sequence")
    v = as_tensor(values)
    right = _ss_plan(s.shape, v.shape, side, right)
    if sorter is not None:
        s = _a.gather_d(s, s.ndim - 1, prim("Cast")(_t(sorter, "searchsorted", "sorter"),
                                                     _C.int64))
    scalar = v.ndim == 0
    if scalar:
        v = prim("Reshape")(v, (1,))
    dt = _C.result_type(_C.Tensor(0, s.dtype), _C.Tensor(0, v.dtype))
    s, v = prim("Cast")(s, dt), prim("Cast")(v, dt)
    if s.ndim == 1 and v.ndim > 1:
        cnt = prim("Reshape")(_count_below(s, prim("Reshape")(v, (-1,)), right), v.shape)
    else:
        cnt = _count_below(s, v, right)
    if scalar:
        cnt = prim("Reshape")(cnt, ())
    return prim("Cast")(cnt, _C.int32) if out_int32 else cnt


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoidal-rule integral of y along dim, with sample points x (a tensor, 1-D or
    of y's shape) or spacing dx."""
    y = _t(y, "trapz", "y")
    if y.ndim == 0:
        raise ValueError("For 'trapz', y must have at least 1 dimension, but got a 0-d tensor.")
    dim = _a._check_axis(dim, y.ndim, "trapz", "dim")  # (y.shape[dim] named no op)
    n = y.shape[dim]
    y = prim("Cast")(y, _float_dtype(y.dtype, "trapz"))
    lo = _narrow(y, dim, 0, n - 1)
    hi = _narrow(y, dim, 1, n - 1)
    mid = (lo + hi) * 0.5
    if x is None:
        return prim("ReduceSum")(mid, (dim,)) * float(dx)
    x = prim("Cast")(_t(x, "trapz", "x"), y.dtype)
    if x.ndim == 1:
        d = _narrow(x, 0, 1, n - 1) - _narrow(x, 0, 0, n - 1)
        d = prim("Reshape")(d, _along_shape(y.ndim, dim, n - 1))
    else:
        d = _narrow(x, dim, 1, n - 1) - _narrow(x, dim, 0, n - 1)
    return prim("ReduceSum")(mid * d, (dim,))


@constexpr
def _along_shape(nd, dim, n):
    return tuple(n if i == dim % nd else 1 for i in range(nd))


def _erfinv_guess(y):
    # Giles' single-precision approximation ("Approximating the erfinv function", 2010)
    w = -prim("Log")((1.0 - y) * (1.0 + y))
    small = prim("Less")(w, 5.0)
    ws = prim("Select")(small, w, prim("ZerosLike")(w) + 2.5) - 2.5
    p = ws * 0.0 + 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = p * ws + c
    wl = prim("Sqrt")(prim("Select")(small, prim("ZerosLike")(w) + 5.0, w)) - 3.0
    q = wl * 0.0 - 0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = q * wl + c
    return prim("Select")(small, p, q) * y


def erfinv(input):  # noqa: A002
    """The inverse error function on (-1, 1); +-inf at +-1, NaN outside. Newton steps on
    erf(r) = y for |y| < 0.5 (signed, so that the gradient at 0 is sqrt(pi)/2: through |y|
    and sign(y) it was 0) and on erfc(r) = 1 - |y| above (well conditioned near 1)."""
    x = _t(input, "erfinv")
    dt = _float_dtype(x.dtype, "erfinv")
    y = prim("Cast")(x, _C.float64)
    a = prim("Abs")(y)
    inside = prim("Less")(a, 1.0)
    a = prim("Select")(inside, a, prim("ZerosLike")(a))
    ys = prim("Select")(inside, y, prim("ZerosLike")(y))
    sign = prim("Sign")(y)
    low = prim("Less")(a, 0.5)
    t = 1.0 - a  # exact for a >= 0.5
    guess = _erfinv_guess(a)
    r = stop_gradient(prim("Select")(low, guess * sign, guess))
    for _ in range(3):  # the guess is good to ~1e-7; each step squares the error
        d = prim("Exp")(-r * r) * (2.0 / math.sqrt(math.pi))
        f = prim("Select")(low, prim("Erf")(r) - ys, t - prim("Erfc")(r))
        r = r - f / d
    r = prim("Select")(low, r, r * sign)
    zero = prim("ZerosLike")(y)
    inf = prim("Select")(prim("Greater")(y, 0.0), zero + math.inf, zero - math.inf)
    edge = prim("Equal")(prim("Abs")(y), 1.0)
    out = prim("Select")(inside, r, prim("Select")(edge, inf, zero + math.nan))
    return prim("Cast")(out, dt)


@constexpr
def _next_plan(da, db):
    if da != db or da not in (_C.float32, _C.float64):
        raise TypeError(f"For 'NextAfter', both inputs must be float32 or both float64, but "
                        f"got {da} and {db}.")
    if da == _C.float32:
        return 24, -126, 2.0 ** -149
    return 53, -1022, 2.0 ** -1074


def nextafter(input, other):  # noqa: A002
    """The next representable float after input towards other (other itself when equal;
    NaN if either is NaN). The exponent is found in float64 and checked, so the step is the
    exact unit in the last place for both dtypes."""
    a, b = _t(input, "nextafter"), _t(other, "nextafter", "other")
    digits, emin, tiny = _next_plan(a.dtype, b.dtype)
    x = prim("Cast")(a, _C.float64)
    t = prim("Cast")(b, _C.float64)
    x, t = x + prim("ZerosLike")(t), t + prim("ZerosLike")(x)
    ax = prim("Abs")(x)
    pos = prim("Greater")(ax, 0.0)
    safe = prim("Select")(pos, ax, prim("OnesLike")(ax))
    e = prim("Floor")(prim("Log")(safe) * (1.0 / math.log(2.0)))
    two = prim("OnesLike")(e) * 2.0
    e = e - prim("Cast")(prim("Less")(safe, prim("Pow")(two, e)), _C.float64)
    e = e + prim("Cast")(prim("GreaterEqual")(safe, prim("Pow")(two, e + 1.0)), _C.float64)
    e = clamp(e, float(emin), None)
    ulp = prim("Pow")(two, e - (digits - 1))
    # moving towards zero from an exact power of two steps by half an ulp
    up = prim("Greater")(t, x)
    away = prim("Equal")(up, prim("GreaterEqual")(x, 0.0))
    at_pow = prim("LogicalAnd")(prim("Equal")(safe, prim("Pow")(two, e)),
                                prim("Greater")(e, float(emin)))
    step = prim("Select")(prim("LogicalAnd")(prim("LogicalNot")(away), at_pow), ulp * 0.5, ulp)
    step = prim("Select")(pos, step, prim("ZerosLike")(step) + tiny)
    moved = prim("Select")(up, x + step, x - step)
    out = prim("Select")(prim("Equal")(x, t), t, moved)
    nan = prim("LogicalOr")(prim("NotEqual")(x, x), prim("NotEqual")(t, t))
    out = prim("Select")(nan, prim("ZerosLike")(out) + math.nan, out)
    return prim("Cast")(out, a.dtype)


# MindSpore's Tensor.nextafter(other), attached here beside the function.
_C.Tensor.nextafter = lambda self, other: nextafter(self, other)
