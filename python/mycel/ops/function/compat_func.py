"""Functions of MindSpore 2.x's ops that compose from op-table primitives, added where
MindSpore's own tests showed them missing (scripts/ms_compat.py): std, var, std_mean,
var_mean, linspace, unstack, masked_fill, the activations mish, elu, celu, selu, hardsigmoid,
hardswish, hardshrink, softshrink, xdivy, approximate_equal, and the block rearrangements
behind P.DepthToSpace / P.SpaceToDepth. Where a branch could overflow (exp of a large
positive x) its argument is clamped first, so the discarded branch stays finite and its zero
cotangent does not turn into NaN (0 * inf)."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, axes, as_tensor, host_bytes, number_arg
from mycel.ops.primitive import constexpr


@constexpr
def _denominator(shape, axis, ddof, op):
    """n - ddof, n being the number of elements reduced (at least 0)."""
    if not isinstance(ddof, (bool, int)):
        raise TypeError(f"For '{op}', the 'ddof' must be an int or a bool, but got {ddof!r}.")
    nd = len(shape)
    n = 1
    for a in (range(nd) if not axis else axis):
        n *= shape[a % max(nd, 1)] if nd else 1
    return float(max(n - int(ddof), 0))


def _var_mean(input, axis, ddof, keepdims, op):  # noqa: A002
    x = as_tensor(input)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For '{op}', the input must be a float tensor, but got {x.dtype}.")
    ax = axes(axis)
    mean = prim("ReduceMean", keep_dims=True)(x, ax)
    sq = prim("ReduceSum", keep_dims=keepdims)(prim("Square")(prim("Sub")(x, mean)), ax)
    var = prim("Div")(sq, _denominator(x.shape, ax, ddof, op))
    if not keepdims:
        mean = prim("ReduceMean", keep_dims=False)(x, ax)
    return var, mean


def var(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """Variance over axis (an int, a tuple, or None for all) with ddof delta degrees of
    freedom (True means 1): sum((x - mean)^2) / (n - ddof)."""
    return _var_mean(input, axis, ddof, keepdims, "var")[0]


def var_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """(variance, mean) over axis, as var and mean."""
    return _var_mean(input, axis, ddof, keepdims, "var_mean")


def std(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """Standard deviation over axis: sqrt(var(input, axis, ddof, keepdims))."""
    return prim("Sqrt")(_var_mean(input, axis, ddof, keepdims, "std")[0])


def std_mean(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """(standard deviation, mean) over axis, as std and mean."""
    v, m = _var_mean(input, axis, ddof, keepdims, "std_mean")
    return prim("Sqrt")(v), m


@constexpr
def _steps(steps):
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"For 'linspace', the 'steps' must be an int, but got {steps!r}.")
    if steps < 1:
        raise ValueError(f"For 'linspace', the 'steps' must be positive, but got {steps}.")
    return steps


@constexpr
def _fractions(steps):
    # t_i = i / (steps - 1): exactly 0 at the first point and 1 at the last
    host_bytes("linspace", 8 * steps)  # a list of 2**62 floats was built before
    if steps == 1:
        return _C.Tensor(np.zeros(1, np.float64))
    return _C.Tensor(np.arange(steps, dtype=np.float64) / (steps - 1))


def linspace(start, end, steps):
    """steps evenly spaced float32 values from start to end, both included (start and end
    are numbers or 0-d tensors): start * (1 - t) + end * t for t = i / (steps - 1)."""
    t = prim("Cast")(_fractions(_steps(steps)), _C.float32)
    s = prim("Cast")(as_tensor(start), _C.float32)
    e = prim("Cast")(as_tensor(end), _C.float32)
    return prim("Add")(prim("Mul")(s, prim("Sub")(1.0, t)), prim("Mul")(e, t))


@constexpr
def _unstack_plan(shape, axis):
    nd = len(shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -nd <= axis < nd:
        raise ValueError(f"For 'unstack', the 'axis' must be an int in [{-nd}, {nd}), but "
                         f"got {axis!r}.")
    a = axis % nd
    return a, shape[a]


def unstack(input_x, axis=0):
    """The slices of input_x along axis, each without that dimension, as a tuple."""
    x = as_tensor(input_x)
    a, n = _unstack_plan(x.shape, axis)
    if n == 0:
        return ()
    squeeze = prim("Squeeze", axis=(a,))
    out = ()
    for p in prim("Split", axis=a, output_num=n)(x):
        out = out + (squeeze(p),)
    return out


def masked_fill(input_x, mask, value):
    """input_x with value where mask is True (mask and value broadcast against it)."""
    x = as_tensor(input_x)
    v = prim("Cast")(as_tensor(value), x.dtype)
    return prim("Select")(mask, prim("BroadcastTo", shape=x.shape)(v), x)


def mish(x):
    """x * tanh(softplus(x)), elementwise."""
    return prim("Mul")(x, prim("Tanh")(prim("Softplus")(x)))


def elu(input_x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1), elementwise."""
    x = as_tensor(input_x)
    neg = prim("Mul")(prim("Sub")(prim("Exp")(prim("Minimum")(x, 0.0)), 1.0), float(number_arg(alpha, "elu", "alpha")))
    return prim("Select")(prim("Greater")(x, 0.0), x, neg)


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise (alpha != 0)."""
    a = float(number_arg(alpha, "celu", "alpha"))
    if a == 0.0:
        raise ValueError("For 'celu', the 'alpha' must not be 0.")
    x = as_tensor(x)
    neg = prim("Mul")(prim("Sub")(prim("Exp")(prim("Div")(prim("Minimum")(x, 0.0), a)), 1.0), a)
    return prim("Add")(prim("Maximum")(x, 0.0), prim("Minimum")(neg, 0.0))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input_x):
    """scale * elu(x, alpha) with SELU's fixed alpha and scale, elementwise."""
    return prim("Mul")(elu(input_x, _SELU_ALPHA), _SELU_SCALE)


def hardsigmoid(input):  # noqa: A002
    """relu6(x + 3) / 6, elementwise."""
    return prim("Div")(prim("ReLU6")(prim("Add")(input, 3.0)), 6.0)


def hardswish(x):
    """x * relu6(x + 3) / 6, elementwise."""
    return prim("Mul")(x, hardsigmoid(x))


def hardshrink(input, lambd=0.5):  # noqa: A002
    """x where |x| > lambd, else 0, elementwise."""
    x = as_tensor(input)
    keep = prim("Greater")(prim("Abs")(x), float(number_arg(lambd, "hardshrink", "lambd")))
    return prim("Select")(keep, x, prim("ZerosLike")(x))


def softshrink(input, lambd=0.5):  # noqa: A002
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0, elementwise."""
    x = as_tensor(input)
    lam = float(number_arg(lambd, "softshrink", "lambd"))
    if lam < 0:
        raise ValueError(f"For 'softshrink', the 'lambd' must be no less than 0, but got {lam}.")
    shrunk = prim("Sub")(x, prim("Mul")(prim("Sign")(x), lam))
    keep = prim("Greater")(prim("Abs")(x), lam)
    return prim("Select")(keep, shrunk, prim("ZerosLike")(shrunk))


def xdivy(x, y):
    """x / y, and 0 where x is 0 (also when y is 0), broadcasting."""
    q = prim("Div")(x, y)
    return prim("Select")(prim("Equal")(x, 0), prim("ZerosLike")(q), q)


@constexpr
def _approx_plan(tolerance, x_shape, y_shape, x_dtype, y_dtype):
    """MindSpore's rules: tolerance a float; x and y of one shape (no broadcasting), float16,
    float32 or float64 (the lower precision converted to the higher)."""
    if not isinstance(tolerance, float):
        raise TypeError(f"For 'ApproximateEqual', the type of 'tolerance' should be 'float', "
                        f"but got {tolerance!r} with type '{type(tolerance).__name__}'.")
    for name, d in (("x1", x_dtype), ("x2", y_dtype)):
        if d not in (_C.float16, _C.float32, _C.float64):
            raise TypeError(f"For 'ApproximateEqual', '{name}' must be float16, float32 or "
                            f"float64, but got {d}.")
    if tuple(x_shape) != tuple(y_shape) and -1 not in tuple(x_shape) + tuple(y_shape):
        raise ValueError(f"For 'ApproximateEqual', arg 'x1' must have the same shape as 'x2'. "
                         f"But got 'x1' shape: {list(x_shape)}, 'x2' shape: {list(y_shape)}.")
    order = (_C.float16, _C.float32, _C.float64)
    return order[max(order.index(x_dtype), order.index(y_dtype))]


def approximate_equal(x, y, tolerance=1e-5):
    """|x - y| < tolerance, elementwise (bool); x and y float tensors of one shape, computed
    in the higher precision of the two."""
    x, y = as_tensor(x), as_tensor(y)
    dtype = _approx_plan(tolerance, x.shape, y.shape, x.dtype, y.dtype)
    x, y = prim("Cast")(x, dtype), prim("Cast")(y, dtype)
    return prim("Less")(prim("Abs")(prim("Sub")(x, y)), tolerance)


@constexpr
def _block_shapes(shape, bs, op, to_space):
    if isinstance(bs, bool) or not isinstance(bs, int) or bs < 2:
        raise ValueError(f"For '{op}', the 'block_size' must be an int of at least 2, but got "
                         f"{bs!r}.")
    if len(shape) != 4:
        raise ValueError(f"For '{op}', the input must be 4-D (NCHW), but got shape "
                         f"{tuple(shape)}.")
    n, c, h, w = shape
    if to_space:
        if c % (bs * bs):
            raise ValueError(f"For '{op}', the channels ({c}) must be divisible by "
                             f"block_size * block_size ({bs * bs}).")
        return (n, bs, bs, c // (bs * bs), h, w), (0, 3, 4, 1, 5, 2), \
            (n, c // (bs * bs), h * bs, w * bs)
    if h % bs or w % bs:
        raise ValueError(f"For '{op}', the height and width ({h}, {w}) must be divisible by "
                         f"block_size ({bs}).")
    return (n, c, h // bs, bs, w // bs, bs), (0, 3, 5, 1, 2, 4), \
        (n, c * bs * bs, h // bs, w // bs)


def depth_to_space(x, block_size):
    """NCHW: channel blocks moved into block_size x block_size spatial tiles (the channel
    index is (row offset * block_size + column offset) * C_out + c)."""
    x = as_tensor(x)
    split, perm, out = _block_shapes(x.shape, block_size, "DepthToSpace", True)
    return prim("Reshape")(prim("Transpose")(prim("Reshape")(x, split), perm), out)


def space_to_depth(x, block_size):
    """NCHW: block_size x block_size spatial tiles moved into channels (the inverse of
    depth_to_space)."""
    x = as_tensor(x)
    split, perm, out = _block_shapes(x.shape, block_size, "SpaceToDepth", False)
    return prim("Reshape")(prim("Transpose")(prim("Reshape")(x, split), perm), out)


@constexpr
def _check_ger(s1, s2, d1, d2):
    if len(s1) != 1 or len(s2) != 1:
        raise ValueError(f"For 'Ger', both inputs must be 1-d, but got shapes {tuple(s1)} and "
                         f"{tuple(s2)}.")
    if d1 != d2 or d1 not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'Ger', the inputs must have the same float dtype, but got {d1} "
                        f"and {d2}.")
    return True


def ger(input, vec2):  # noqa: A002
    """The outer product of two 1-d float tensors: out[i, j] = input[i] * vec2[j]."""
    x1, x2 = as_tensor(input), as_tensor(vec2)
    _check_ger(x1.shape, x2.shape, x1.dtype, x2.dtype)
    return prim("Mul")(prim("ExpandDims")(x1, 1), prim("ExpandDims")(x2, 0))


@constexpr
def _renorm_axes(shape, p, axis, maxnorm):
    """The axes other than `axis` (each slice's norm is over them); errors name Renorm."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p <= 0:
        raise ValueError(f"For 'Renorm', 'p' must be a positive number, but got {p!r}.")
    if isinstance(maxnorm, bool) or not isinstance(maxnorm, (int, float)) or maxnorm < 0:
        raise ValueError(f"For 'Renorm', 'maxnorm' must be a non-negative number, but got "
                         f"{maxnorm!r}.")
    nd = len(shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -nd <= axis < max(nd, 1):
        raise ValueError(f"For 'Renorm', 'axis' must be an int in [{-nd}, {nd}), but got "
                         f"{axis!r}.")
    return tuple(i for i in range(nd) if i != axis % nd)


def renorm(input, p, axis, maxnorm):  # noqa: A002
    """Each slice input[..., i, ...] along `axis` whose p-norm exceeds maxnorm, scaled to
    norm maxnorm (by maxnorm / (norm + 1e-7), PyTorch's and MindSpore's rule); the other
    slices unchanged."""
    x = as_tensor(input)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For 'Renorm', the input must be a float tensor, but got {x.dtype}.")
    rest = _renorm_axes(x.shape, p, axis, maxnorm)
    a = prim("Abs")(x)
    powered = a if p == 1 else (prim("Square")(a) if p == 2 else prim("Pow")(a, float(p)))
    total = prim("ReduceSum", keep_dims=True)(powered, rest)
    norm = total if p == 1 else (prim("Sqrt")(total) if p == 2 else
                                  prim("Pow")(total, 1.0 / p))
    scale = prim("Div")(prim("ZerosLike")(norm) + maxnorm, prim("Add")(norm, 1e-7))
    factor = prim("Select")(prim("Greater")(norm, maxnorm), scale, prim("OnesLike")(norm))
    return prim("Mul")(x, factor)


@constexpr
def _lrn_band(c, depth_radius, dtype, shape, norm_region):
    """[C, C] 0/1 matrix: column c sums channels max(0, c - r) .. min(C - 1, c + r)."""
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For 'LRN', 'norm_region' must be 'ACROSS_CHANNELS', but got "
                         f"{norm_region!r}.")
    if len(shape) != 4:
        raise ValueError(f"For 'LRN', the input must be 4-d [N, C, H, W], but got shape "
                         f"{tuple(shape)}.")
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
        raise ValueError(f"For 'LRN', 'depth_radius' must be a non-negative int, but got "
                         f"{depth_radius!r}.")
    i = np.arange(c)
    band = (np.abs(i[:, None] - i[None, :]) <= depth_radius)
    return _C.Tensor(band.astype(np.float64 if dtype == _C.float64 else np.float32))


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation across channels (MindSpore's P.LRN, TensorFlow's rule):
    out[n, c] = x[n, c] / (bias + alpha * sum of x[n, c']^2 over |c' - c| <= depth_radius)
    ** beta, for [N, C, H, W] float input."""
    x = as_tensor(x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For 'LRN', the input must be a float tensor, but got {x.dtype}.")
    n, c, h, w = x.shape if x.ndim == 4 else (0, 0, 0, 0)
    band = _lrn_band(c, depth_radius, x.dtype, x.shape, norm_region)
    work = x if x.dtype in (_C.float32, _C.float64) else prim("Cast")(x, _C.float32)
    sq = prim("Reshape")(prim("Transpose")(prim("Square")(work), (0, 2, 3, 1)), (n * h * w, c))
    window = prim("Transpose")(prim("Reshape")(prim("MatMul")(sq, band), (n, h, w, c)),
                               (0, 3, 1, 2))
    denom = prim("Pow")(prim("Add")(prim("Mul")(window, float(alpha)), float(bias)), float(beta))
    return prim("Cast")(prim("Div")(work, denom), x.dtype)


__all__ = ["std", "var", "std_mean", "var_mean", "linspace", "unstack", "masked_fill", "mish",
           "elu", "celu", "selu", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "xdivy",
           "approximate_equal"]
__all__ += ["ger", "renorm", "lrn"]
