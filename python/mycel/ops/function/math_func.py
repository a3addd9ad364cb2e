"""Elementwise math, comparisons, reductions and matrix products (MindSpore 2.x names)."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, axes, as_tensor
from mycel.ops.primitive import constexpr

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
_LATER = {"matrix_exp": "breadth_ext_func", "quantile": "tensor_ext_func",
          "nanquantile": "tensor_ext_func", "nan_to_num": "math_ext_func"}


def __getattr__(name):
    if name in _LATER:
        import importlib
        return getattr(importlib.import_module("mycel.ops.function." + _LATER[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
