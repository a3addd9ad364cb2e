"""More of MindSpore 2.x's elementwise math, reductions and matrix products, composed from
table ops (so both modes, gradients and vmap come from the ops they are built of): the float
classifications (isnan, isinf, isfinite, isneginf, isposinf, signbit), log2/log10/exp2,
sinc, deg2rad/rad2deg, frac, hypot, atan2, logaddexp(2), xlogy, copysign,
heaviside, fmax/fmin, lerp, float_power, the arithmetic aliases (divide, multiply, subtract,
true_divide, positive), the NaN-ignoring reductions (nansum, nanmean), logsumexp,
count_nonzero, isclose, nan_to_num, logical_xor, and addmm, addmv, addbmm, baddbmm, addcdiv,
addcmul, inner, outer, trace.

Formulas that divide or take logarithms guard their operands where the result is selected
away, so that no NaN reaches a gradient through the branch not taken.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, axes
from mycel.ops.function import math_func as _m
from mycel.ops.primitive import constexpr

__all__ = ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "log2", "log10",
           "exp2", "sinc", "deg2rad", "rad2deg", "frac", "hypot", "atan2",
           "arctan2", "logaddexp", "logaddexp2", "xlogy", "copysign", "heaviside", "fmax",
           "fmin", "lerp", "float_power", "divide", "true_divide", "multiply", "subtract",
           "positive", "nansum", "nanmean", "logsumexp", "count_nonzero", "isclose",
           "nan_to_num", "logical_xor", "addmm", "addmv", "addbmm", "baddbmm", "addcdiv",
           "addcmul", "inner", "outer", "trace", "squared_difference", "assign_sub"]

_FLOAT = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _float(x):
    """x itself when floating, else cast to float32 (MindSpore's rule for float-valued math
    of integer inputs)."""
    x = as_tensor(x)
    return x if x.dtype in _FLOAT else prim("Cast")(x, _C.float32)


def _safe(cond, x, value):
    """x with `value` where cond holds (a guarded operand: the result there is replaced)."""
    return prim("Select")(cond, prim("ZerosLike")(x) + value, x)


# ---- classification ----------------------------------------------------------------------

def isnan(input):  # noqa: A002 (MindSpore's argument names)
    """True where input is NaN (never for integers)."""
    x = as_tensor(input)
    return prim("NotEqual")(x, x)


def isinf(input):  # noqa: A002
    """True where input is +inf or -inf."""
    x = as_tensor(input)
    if x.dtype not in _FLOAT:
        return prim("NotEqual")(x, x)
    return prim("Equal")(prim("Abs")(x), math.inf)


def isfinite(input):  # noqa: A002
    """True where input is neither NaN nor infinite."""
    x = as_tensor(input)
    if x.dtype not in _FLOAT:
        return prim("Equal")(x, x)
    return prim("Less")(prim("Abs")(x), math.inf)


def isneginf(input):  # noqa: A002
    """True where input is -inf."""
    x = as_tensor(input)
    return prim("Equal")(x, -math.inf) if x.dtype in _FLOAT else prim("NotEqual")(x, x)


def isposinf(input):  # noqa: A002
    """True where input is +inf."""
    x = as_tensor(input)
    return prim("Equal")(x, math.inf) if x.dtype in _FLOAT else prim("NotEqual")(x, x)


def signbit(input):  # noqa: A002
    """True where input is negative, -0.0 included (1 / -0.0 is -inf); a NaN counts as
    positive whatever its sign bit."""
    x = as_tensor(input)
    neg = prim("Less")(x, 0)
    if x.dtype not in _FLOAT:
        return neg
    zero = prim("Equal")(x, 0)
    return prim("LogicalOr")(neg, prim("LogicalAnd")(zero, prim("Less")(
        prim("Div")(1.0, _safe(prim("LogicalNot")(zero), x, 1.0)), 0)))


def logical_xor(input, other):  # noqa: A002
    """Exclusive or of the truth values of input and other."""
    a = prim("Cast")(as_tensor(input), getattr(_C, "bool"))
    b = prim("Cast")(as_tensor(other), getattr(_C, "bool"))
    return prim("NotEqual")(a, b)


# ---- elementwise -------------------------------------------------------------------------

def log2(input):  # noqa: A002
    """Base-2 logarithm."""
    return prim("Mul")(prim("Log")(_float(input)), 1.0 / math.log(2.0))


def log10(input):  # noqa: A002
    """Base-10 logarithm."""
    return prim("Mul")(prim("Log")(_float(input)), 1.0 / math.log(10.0))


def exp2(input):  # noqa: A002
    """2 ** input."""
    return prim("Exp")(prim("Mul")(_float(input), math.log(2.0)))


def sinc(input):  # noqa: A002
    """sin(pi x) / (pi x), 1 at 0."""
    x = _float(input)
    zero = prim("Equal")(x, 0)
    px = prim("Mul")(_safe(zero, x, 1.0), math.pi)
    return prim("Select")(zero, prim("OnesLike")(x), prim("Div")(prim("Sin")(px), px))


def deg2rad(x):
    """Degrees to radians."""
    return prim("Mul")(_float(x), math.pi / 180.0)


def rad2deg(x):
    """Radians to degrees."""
    return prim("Mul")(_float(x), 180.0 / math.pi)


def frac(input):  # noqa: A002
    """input - trunc(input): the fractional part, with input's sign."""
    x = as_tensor(input)
    return prim("Sub")(x, _m.trunc(x))


def hypot(input, other):  # noqa: A002
    """sqrt(input**2 + other**2), scaled by the larger magnitude so that it does not
    overflow."""
    a, b = prim("Abs")(_float(input)), prim("Abs")(_float(other))
    big = prim("Maximum")(a, b)
    zero = prim("Equal")(big, 0)
    s = _safe(zero, big, 1.0)
    r = prim("Mul")(s, prim("Sqrt")(prim("Add")(prim("Square")(prim("Div")(a, s)),
                                                prim("Square")(prim("Div")(b, s)))))
    r = prim("Select")(zero, prim("ZerosLike")(r), r)
    inf = prim("LogicalOr")(isinf(a), isinf(b))  # infinite even beside a NaN
    return prim("Select")(inf, prim("ZerosLike")(r) + math.inf, r)


def atan2(input, other):  # noqa: A002
    """The angle of the point (other, input) in (-pi, pi], from the half-angle identities
    tan(t/2) = y / (r + x) = (r - x) / y (r = hypot(x, y)), each used where it does not
    cancel: the first for x >= 0, the second for x < 0; pi on the negative x axis, 0 at the
    origin. Infinite coordinates are replaced by +-1 and the finite one by 0 (the limits);
    (y < 0, -inf) gives -pi; a NaN gives NaN. Signed zeros are not told apart."""
    y, x = _float(input), _float(other)
    nan = prim("LogicalOr")(isnan(y), isnan(x))
    inf_y, inf_x = isinf(y), isinf(x)
    some = prim("LogicalOr")(inf_y, inf_x)
    below = prim("LogicalAnd")(prim("LogicalAnd")(isneginf(x), prim("Less")(y, 0)),
                               prim("LogicalNot")(inf_y))
    y = prim("Select")(some, prim("Select")(inf_y, prim("Sign")(y), prim("ZerosLike")(y)), y)
    x = prim("Select")(some, prim("Select")(inf_x, prim("Sign")(x), prim("ZerosLike")(x)), x)
    t = prim("Select")(below, prim("ZerosLike")(y) - math.pi, _atan2_finite(y, x))
    return prim("Select")(nan, prim("ZerosLike")(t) + math.nan, t)


arctan2 = atan2


def _atan2_finite(y, x):
    r = hypot(y, x)
    right = prim("GreaterEqual")(x, 0)
    den_a = prim("Add")(r, x)
    a = prim("Div")(y, _safe(prim("Equal")(den_a, 0), den_a, 1.0))
    y0 = prim("Equal")(y, 0)
    b = prim("Div")(prim("Sub")(r, x), _safe(y0, y, 1.0))
    left = prim("Select")(y0, prim("ZerosLike")(b) + math.inf, b)  # 2 atan(inf) = pi
    return prim("Mul")(prim("Atan")(prim("Select")(right, a, left)), 2.0)


def logaddexp(input, other):  # noqa: A002
    """log(exp(input) + exp(other)), computed as max + log1p(exp(-|input - other|))."""
    a, b = _float(input), _float(other)
    m = prim("Maximum")(a, b)
    d = prim("Sub")(a, b)
    same = prim("Equal")(a, b)  # also both -inf or both +inf: no inf - inf
    gap = prim("Neg")(prim("Abs")(_safe(same, d, 0.0)))
    return prim("Add")(m, prim("Log1p")(prim("Exp")(gap)))


def logaddexp2(input, other):  # noqa: A002
    """log2(2**input + 2**other)."""
    a, b = _float(input), _float(other)
    m = prim("Maximum")(a, b)
    same = prim("Equal")(a, b)
    gap = prim("Neg")(prim("Abs")(_safe(same, prim("Sub")(a, b), 0.0)))
    tail = prim("Log1p")(prim("Exp")(prim("Mul")(gap, math.log(2.0))))
    return prim("Add")(m, prim("Mul")(tail, 1.0 / math.log(2.0)))


def xlogy(input, other):  # noqa: A002
    """input * log(other), 0 where input is 0 (whatever other is)."""
    x, y = _float(input), _float(other)
    zero = prim("Equal")(x, 0)
    y = prim("Add")(y, prim("ZerosLike")(x))  # broadcast y to the result's shape first
    out = prim("Mul")(x, prim("Log")(_safe(zero, y, 1.0)))
    return prim("Select")(zero, prim("ZerosLike")(out), out)


def copysign(input, other):  # noqa: A002
    """|input| with the sign of other (-0.0 counts as negative)."""
    x = prim("Abs")(_float(input))
    neg = signbit(other)
    return prim("Select")(neg, prim("Neg")(x), x)


def heaviside(input, values):  # noqa: A002
    """0 where input < 0, values where input == 0, 1 where input > 0 (NaN where NaN)."""
    x = as_tensor(input)
    v = prim("Cast")(as_tensor(values), x.dtype)
    step = prim("Cast")(prim("Greater")(x, 0), x.dtype)
    step = prim("Select")(isnan(x), x, step)  # NaN stays NaN
    return prim("Select")(prim("Equal")(x, 0), prim("Add")(v, prim("ZerosLike")(x)), step)


def _nan_ignoring(pick, input, other):
    a, b = as_tensor(input), as_tensor(other)
    r = pick(a, b)
    r = prim("Select")(isnan(a), prim("Add")(b, prim("ZerosLike")(r)), r)
    return prim("Select")(isnan(b), prim("Add")(a, prim("ZerosLike")(r)), r)


def fmax(input, other):  # noqa: A002
    """Elementwise maximum that ignores a NaN (NaN only where both are)."""
    return _nan_ignoring(prim("Maximum"), input, other)


def fmin(input, other):  # noqa: A002
    """Elementwise minimum that ignores a NaN (NaN only where both are)."""
    return _nan_ignoring(prim("Minimum"), input, other)


def lerp(input, end, weight):  # noqa: A002
    """input + weight * (end - input)."""
    return prim("Add")(input, prim("Mul")(weight, prim("Sub")(end, input)))


def float_power(input, exponent):  # noqa: A002
    """input ** exponent computed in float64."""
    a = prim("Cast")(as_tensor(input), _C.float64)
    e = prim("Cast")(as_tensor(exponent), _C.float64)
    return prim("Pow")(a, e)


def divide(input, other, *, rounding_mode=None):  # noqa: A002
    """ops.div."""
    return _m.div(input, other, rounding_mode=rounding_mode)


def true_divide(dividend, divisor):
    """True division."""
    return _m.div(dividend, divisor)


def multiply(input, other):  # noqa: A002
    """input * other."""
    return _m.mul(input, other)


def subtract(input, other, *, alpha=1):  # noqa: A002
    """input - alpha * other."""
    return _m.sub(input, other if alpha == 1 else prim("Mul")(other, alpha))


def positive(input):  # noqa: A002
    """input itself (a numeric tensor)."""
    x = as_tensor(input)
    if x.dtype == getattr(_C, "bool"):
        raise TypeError("For 'positive', the input must not be a bool tensor.")
    return x


# ---- reductions --------------------------------------------------------------------------

def nansum(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """Sum over axis with NaN counted as 0."""
    x = as_tensor(input)
    if x.dtype in _FLOAT:
        x = prim("Select")(isnan(x), prim("ZerosLike")(x), x)
    return _m.sum(x, axis, keepdims, dtype=dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """Mean over axis of the elements that are not NaN (NaN where all are)."""
    x = _float(input)
    keep = prim("Cast")(prim("LogicalNot")(isnan(x)), x.dtype)
    out = prim("Div")(nansum(x, axis, keepdims), _m.sum(keep, axis, keepdims))
    return out if dtype is None else prim("Cast")(out, dtype)


def logsumexp(input, axis, keep_dims=False):  # noqa: A002
    """log(sum(exp(input), axis)), with the maximum taken out first (an infinite maximum
    is not subtracted)."""
    x = _float(input)
    m = prim("ReduceMax", keep_dims=True)(x, axes(axis))
    m = prim("Select")(isfinite(m), m, prim("ZerosLike")(m))
    s = prim("ReduceSum", keep_dims=True)(prim("Exp")(prim("Sub")(x, m)), axes(axis))
    out = prim("Add")(prim("Log")(s), m)
    return out if keep_dims else prim("Squeeze", axis=_reduced(x.ndim, axes(axis)))(out)


@constexpr
def _reduced(ndim, ax):
    return tuple(sorted(a % ndim for a in ax)) if ax else tuple(range(ndim))


def count_nonzero(input, axis=(), keep_dims=False, dtype=_C.int32):  # noqa: A002
    """The number of nonzero elements over axis (() or None: all)."""
    nz = prim("Cast")(prim("NotEqual")(as_tensor(input), 0), _C.int32)
    out = prim("ReduceSum", keep_dims=keep_dims)(nz, axes(axis if axis != () else None))
    return prim("Cast")(out, dtype)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """|input - other| <= atol + rtol * |other| elementwise (equal infinities are close;
    NaNs are close to each other only with equal_nan)."""
    a, b = as_tensor(input), as_tensor(other)
    exact = prim("Equal")(a, b)
    a, b = _float(a), _float(b)
    near = prim("LessEqual")(prim("Abs")(prim("Sub")(a, b)),
                             prim("Add")(prim("Mul")(prim("Abs")(b), float(rtol)), float(atol)))
    out = prim("LogicalOr")(exact, prim("LogicalAnd")(near, isfinite(b)))
    if equal_nan:
        out = prim("LogicalOr")(out, prim("LogicalAnd")(isnan(a), isnan(b)))
    return out


@constexpr
def _largest(dtype):
    """The largest finite value of a float dtype."""
    return {_C.float16: 65504.0, _C.bfloat16: float(np.ldexp(2.0 - 2.0 ** -7, 127)),
            _C.float32: float(np.finfo(np.float32).max),
            _C.float64: float(np.finfo(np.float64).max)}[dtype]


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """NaN, +inf and -inf replaced by nan, posinf and neginf (by default 0 and the dtype's
    largest and lowest finite values)."""
    x = as_tensor(input)
    if x.dtype not in _FLOAT:
        return x
    big = _largest(x.dtype)
    pos = big if posinf is None else posinf
    neg = -big if neginf is None else neginf
    zero = prim("ZerosLike")(x)
    x = prim("Select")(isnan(x), zero + nan, x)
    x = prim("Select")(isposinf(x), zero + pos, x)
    return prim("Select")(isneginf(x), zero + neg, x)


# ---- matrix products ---------------------------------------------------------------------

def _scaled_sum(input, prod, beta, alpha):
    """beta * input + alpha * prod (beta 0: input is ignored, NaN included)."""
    p = prod if alpha == 1 else prim("Mul")(prod, alpha)
    if beta == 0:
        return prim("Add")(p, prim("ZerosLike")(prim("Add")(input, prim("ZerosLike")(p))))
    return prim("Add")(input if beta == 1 else prim("Mul")(input, beta), p)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (mat1 @ mat2)."""
    return _scaled_sum(input, prim("MatMul")(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (mat @ vec)."""
    return _scaled_sum(input, _m.matmul(mat, vec), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    prod = prim("ReduceSum")(prim("BatchMatMul")(batch1, batch2), (0,))
    return _scaled_sum(input, prod, beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2), batched."""
    return _scaled_sum(input, prim("BatchMatMul")(batch1, batch2), beta, alpha)


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    """input + value * tensor1 / tensor2."""
    return prim("Add")(input, prim("Mul")(prim("Div")(tensor1, tensor2), value))


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    """input + value * tensor1 * tensor2."""
    return prim("Add")(input, prim("Mul")(prim("Mul")(tensor1, tensor2), value))


def inner(input, other):  # noqa: A002
    """The sum of products over the last dimension of both (a product with a 0-d input):
    shape input.shape[:-1] + other.shape[:-1]."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return prim("Mul")(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"For 'inner', the last dimensions of the inputs must agree, but got "
                         f"shapes {list(a.shape)} and {list(b.shape)}.")
    k = a.shape[-1]
    out = prim("MatMul", transpose_b=True)(prim("Reshape")(a, (-1, k)),
                                           prim("Reshape")(b, (-1, k)))
    return prim("Reshape")(out, tuple(a.shape[:-1]) + tuple(b.shape[:-1]))


def outer(input, vec2):  # noqa: A002
    """The outer product of two 1-d tensors."""
    a, b = as_tensor(input), as_tensor(vec2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"For 'outer', the inputs must be 1-d, but got shapes "
                         f"{list(a.shape)} and {list(b.shape)}.")
    return prim("Mul")(prim("Reshape")(a, (-1, 1)), prim("Reshape")(b, (1, -1)))


@constexpr
def _diagonal_index(shape):
    """The flat positions of the main diagonal of a matrix of shape."""
    return _C.Tensor(np.arange(min(shape), dtype=np.int64) * (shape[1] + 1))


def trace(input):  # noqa: A002
    """The sum of the main diagonal of a 2-d tensor."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise ValueError(f"For 'trace', the input must be 2-d, but got shape {list(x.shape)}.")
    flat = prim("Reshape")(x, (-1,))
    idx = _diagonal_index(x.shape)
    return prim("ReduceSum")(prim("Gather")(flat, idx, 0), ())


def squared_difference(x, y):
    """(x - y) ** 2."""
    return prim("Square")(prim("Sub")(x, y))


def assign_sub(variable, value):
    """``variable -= value`` in place (AssignAdd of -value); returns variable."""
    return prim("AssignAdd")(variable, prim("Neg")(as_tensor(value)))
