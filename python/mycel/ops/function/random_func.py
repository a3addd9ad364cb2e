"""Random tensors. With no seed they draw from the global generator (mycel.set_seed);
a seed makes the call deterministic on its own, as MindSpore's op-level seeds."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, shape_arg
from mycel.ops.function import math_func as _m
from mycel.ops.primitive import constexpr


def _seeds(seed):
    return (0, 0) if seed is None else (int(seed), 1)


def standard_normal(shape, seed=None):
    """Samples of N(0, 1), float32."""
    s, s2 = _seeds(seed)
    return prim("StandardNormal", seed=s, seed2=s2)(shape_arg(shape, "standard_normal"))


def randn(*size, dtype=None, seed=None):
    """Samples of N(0, 1) of the given size."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed)
    return prim("StandardNormal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "randn"))


def rand(*size, dtype=None, seed=None):
    """Samples of U[0, 1) of the given size."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed)
    return prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "rand"))


def uniform(shape, minval, maxval, seed=None, dtype=None):
    """Samples of U[minval, maxval)."""
    s, s2 = _seeds(seed)
    u = prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(shape_arg(shape,
                                                                                "uniform"))
    return _m.add(_m.mul(u, _m.sub(maxval, minval)), minval)


def normal(shape, mean, stddev, seed=None):
    """Samples of N(mean, stddev^2)."""
    return _m.add(_m.mul(standard_normal(shape, seed), stddev), mean)


_POISSON_DTYPES = (_C.float16, _C.float32, _C.float64, _C.int32, _C.int64)


@constexpr
def _poisson_shape(shape, op):
    """MindSpore's rule: `shape` is a 1-D int32/int64 tensor (its values known here)."""
    if not isinstance(shape, _C.Tensor):
        raise TypeError(f"For '{op}', the 'shape' must be a Tensor, but got "
                        f"{type(shape).__name__}.")
    if shape.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', the 'shape' must be an int32 or int64 tensor, but got "
                        f"{shape.dtype}.")
    if shape.ndim != 1:
        raise ValueError(f"For '{op}', the 'shape' must be a 1-D tensor, but got "
                         f"{shape.ndim} dimensions.")
    dims = tuple(int(d) for d in shape.asnumpy())
    if any(d < 0 for d in dims):
        raise ValueError(f"For '{op}', the 'shape' must have non-negative dimensions, but got "
                         f"{dims}.")
    return dims


@constexpr
def _poisson_args(rate_is_tensor, seed, dtype, op):
    if not rate_is_tensor:
        raise TypeError(f"For '{op}', the 'rate' must be a Tensor.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"For '{op}', the 'seed' must be an int, but got "
                        f"{type(seed).__name__}.")
    if dtype not in _POISSON_DTYPES:
        raise TypeError(f"For '{op}', the 'dtype' must be one of float16, float32, float64, "
                        f"int32 or int64, but got {dtype}.")
    return _seeds(seed)


# log Gamma(x) for x >= 1 (Stirling's series at x + n >= 7, shifted down by the recurrence
# log Gamma(x) = log Gamma(x + n) - log(x (x + 1) ... (x + n - 1))): relative error ~1e-16.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156,
             -3617 / 122400, 43867 / 244188, -174611 / 125400)


def _log_gamma(x):
    n = prim("Maximum")(prim("Sub")(7.0, prim("Floor")(x)), 0.0)
    shift = prim("ZerosLike")(x)
    for j in range(7):
        xj = prim("Add")(x, float(j))
        shift = prim("Add")(shift, prim("Select")(prim("Less")(float(j), n), prim("Log")(xj),
                                                  prim("ZerosLike")(x)))
    x0 = prim("Add")(x, n)
    x2 = prim("Reciprocal")(prim("Mul")(x0, x0))
    series = prim("ZerosLike")(x) + _STIRLING[9]
    for c in _STIRLING[8::-1]:
        series = prim("Add")(prim("Mul")(series, x2), c)
    lg = (prim("Div")(series, x0) + 0.9189385332046727418
          + prim("Mul")(prim("Sub")(x0, 0.5), prim("Log")(x0)) - x0)
    return prim("Sub")(lg, shift)


def _any(mask):
    return prim("Greater")(prim("ReduceSum", keep_dims=False)(
        prim("Cast", dtype=_C.int32)(mask), ()), 0)


def _poisson_small(lam, uniform):
    """Rates below 10: inversion by sequential search, k = #{j : F(j) < u} with F the CDF
    (p(j + 1) = p(j) lam / (j + 1)); the loop ends when every u is covered, or after 200
    terms, where p has underflowed for every rate below 10."""
    u = uniform()
    p = prim("Exp")(prim("Neg")(lam))
    cdf = p
    k = prim("ZerosLike")(lam)
    j = 0
    while j < 200 and _any(prim("Greater")(u, cdf)):
        k = prim("Add")(k, prim("Cast", dtype=_C.float64)(prim("Greater")(u, cdf)))
        j = j + 1
        p = prim("Mul")(p, prim("Div")(lam, float(j)))
        cdf = prim("Add")(cdf, p)
    return k


def _poisson_large(lam, uniform):
    """Rates from 10: Hoermann's transformed rejection with squeeze (PTRS, 1993), every
    element drawing until its first accepted candidate (about 1.1 tries each)."""
    safe = prim("Maximum")(lam, 10.0)
    slam, loglam = prim("Sqrt")(safe), prim("Log")(safe)
    b = prim("Add")(prim("Mul")(slam, 2.53), 0.931)
    a = prim("Add")(prim("Mul")(b, 0.02483), -0.059)
    inv_alpha = prim("Add")(prim("Div")(1.1328, prim("Sub")(b, 3.4)), 1.1239)
    v_r = prim("Sub")(0.9277, prim("Div")(3.6224, prim("Sub")(b, 2.0)))
    out = prim("ZerosLike")(lam)
    todo = prim("GreaterEqual")(lam, 10.0)
    while _any(todo):
        U = prim("Sub")(uniform(), 0.5)
        V = uniform()
        us = prim("Sub")(0.5, prim("Abs")(U))
        k = prim("Floor")(prim("Add")(prim("Mul")(prim("Add")(prim("Div")(prim("Mul")(a, 2.0),
                                                                          us), b), U),
                                      prim("Add")(safe, 0.43)))
        quick = prim("LogicalAnd")(prim("GreaterEqual")(us, 0.07), prim("LessEqual")(V, v_r))
        bad = prim("LogicalOr")(prim("Less")(k, 0.0),
                                prim("LogicalAnd")(prim("Less")(us, 0.013),
                                                   prim("Greater")(V, us)))
        kk = prim("Maximum")(k, 0.0)
        lhs = (prim("Log")(V) + prim("Log")(inv_alpha)
               - prim("Log")(prim("Add")(prim("Div")(a, prim("Mul")(us, us)), b)))
        rhs = prim("Sub")(prim("Sub")(prim("Mul")(kk, loglam), safe),
                          _log_gamma(prim("Add")(kk, 1.0)))
        ok = prim("LogicalOr")(quick, prim("LogicalAnd")(prim("LogicalNot")(bad),
                                                         prim("LessEqual")(lhs, rhs)))
        take = prim("LogicalAnd")(todo, ok)
        out = prim("Select")(take, k, out)
        todo = prim("LogicalAnd")(todo, prim("LogicalNot")(take))
    return out


def random_poisson(shape, rate, seed=None, dtype=_C.float32):
    """Poisson counts: the output has shape `shape` + rate.shape, `shape` draws of every rate
    (MindSpore's ops.random_poisson; `shape` is a 1-D int32/int64 tensor). Composed from
    UniformReal draws in float64: rates below 10 by inversion (sequential search of the CDF),
    larger ones by Hoermann's transformed rejection (PTRS). A rate that is negative, NaN or
    infinite has no count: NaN in float dtypes, -1 in integer ones."""
    s, s2 = _poisson_args(isinstance(rate, _C.Tensor), seed, dtype, "random_poisson")
    return _poisson(shape, rate, prim("UniformReal", seed=s, seed2=s2, dtype=_C.float64), dtype,
                    "random_poisson")


def _poisson(shape, rate, draw, dtype, op):
    """random_poisson's body; `draw` is the float64 UniformReal handle it draws from."""
    _poisson_args(isinstance(rate, _C.Tensor), None, dtype, op)
    _poisson_rate_dtype(rate.dtype, op)
    out_shape = _poisson_shape(shape, op) + rate.shape
    lam = prim("BroadcastTo", shape=out_shape)(prim("Cast", dtype=_C.float64)(rate))

    def uniform():
        return draw(out_shape)

    valid = prim("LogicalAnd")(prim("GreaterEqual")(lam, 0.0), prim("Less")(lam, float("inf")))
    small = prim("Select")(prim("Less")(lam, 10.0), lam, prim("ZerosLike")(lam))
    small = prim("Select")(valid, small, prim("ZerosLike")(lam))
    k = prim("Select")(prim("Less")(lam, 10.0), _poisson_small(small, uniform),
                       _poisson_large(prim("Select")(valid, lam, prim("ZerosLike")(lam)),
                                      uniform))
    k = prim("Select")(valid, k, prim("ZerosLike")(k) + _no_count(dtype))
    return prim("Cast", dtype=dtype)(k)


@constexpr
def _no_count(dtype):
    return -1.0 if dtype in (_C.int32, _C.int64) else float("nan")


@constexpr
def _poisson_rate_dtype(dtype, op):
    if dtype == _C.bool:
        raise TypeError(f"For '{op}', the 'rate' must be a number tensor, but got {dtype}.")
