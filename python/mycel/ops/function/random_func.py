"""Random tensors. With no seed they draw from the global generator (mycel.set_seed) or, given
``generator=``, from that Generator's stream (common/generator.py); a seed makes the call
deterministic on its own, as MindSpore's op-level seeds.

More of MindSpore 2.x's random functions and the window functions, composed from the
op table's uniform and normal generators: rand_like, randn_like, randint, randint_like,
bernoulli, multinomial, randperm, shuffle, laplace, standard_laplace, gamma, and
hann_window, hamming_window, bartlett_window, blackman_window, kaiser_window.

With no seed a draw uses the global generator (mycel.set_seed) or the Generator given as
``generator=``; a seed makes the call deterministic on its own (random_func's rule).
Sampling without replacement (multinomial) takes the top k of the log-probabilities plus
Gumbel noise, which draws exactly the successive-sampling distribution. gamma uses Marsaglia and Tsang's squeeze method with a
fixed number of proposal rounds (8; each is accepted with probability > 0.95, so a sample
left unaccepted after all of them has probability < 4e-11 and keeps its last proposal), and
alpha < 1 through Gamma(alpha + 1) * U^(1 / alpha).
"""
import numbers

from mycel import _mycel as _C
from mycel.common import generator as _gen
from mycel.ops.function._util import prim, shape_arg, one_int, host_bytes, number_arg
from mycel.ops.function import math_func as _m
from mycel.ops.primitive import constexpr
import math
import numpy as np
from mycel.ops.function._util import as_tensor
from mycel.ops.function import array_func as _a


__all__ = ["prim", "shape_arg", "constexpr", "standard_normal", "randn", "rand", "uniform",
           "normal", "random_poisson", "rand_like", "randn_like", "randint", "randint_like",
           "bernoulli", "multinomial", "randperm", "shuffle", "laplace", "standard_laplace",
           "gamma", "random_gamma", "hann_window", "hamming_window", "bartlett_window",
           "blackman_window", "kaiser_window", "multinomial_with_replacement",
           "choice_with_mask"]


def _seeds(seed, op):
    if seed is None:
        return 0, 0
    # (int() of NaN or 'abc' raised naming no op)
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, _C.Tensor)):
        raise TypeError(f"For '{op}', the seed must be None or an int, but got "
                        f"{type(seed).__name__}.")
    return int(one_int(seed, op, "seed")), 1


def standard_normal(shape, seed=None, *, generator=None):
    """Samples of N(0, 1), float32."""
    if _gen.uses_generator(generator, "standard_normal"):
        return _gen.draw(generator, standard_normal, shape, seed)
    s, s2 = _seeds(seed, "standard_normal")
    return prim("StandardNormal", seed=s, seed2=s2)(shape_arg(shape, "standard_normal"))


def randn(*size, dtype=None, seed=None, generator=None):
    """Samples of N(0, 1) of the given size."""
    if _gen.uses_generator(generator, "randn"):
        return _gen.draw(generator, randn, *size, dtype=dtype, seed=seed)
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed, "randn")
    return prim("StandardNormal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "randn"))


def rand(*size, dtype=None, seed=None, generator=None):
    """Samples of U[0, 1) of the given size."""
    if _gen.uses_generator(generator, "rand"):
        return _gen.draw(generator, rand, *size, dtype=dtype, seed=seed)
    if len(size) == 1 and not isinstance(size[0], int):
        size = size[0]
    s, s2 = _seeds(seed, "rand")
    return prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(
        shape_arg(size, "rand"))


def uniform(shape, minval, maxval, seed=None, dtype=None, *, generator=None):
    """Samples of U[minval, maxval)."""
    if _gen.uses_generator(generator, "uniform"):
        return _gen.draw(generator, uniform, shape, minval, maxval, seed, dtype)
    s, s2 = _seeds(seed, "uniform")
    u = prim("UniformReal", seed=s, seed2=s2, dtype=dtype or _C.float32)(shape_arg(shape,
                                                                                "uniform"))
    return _m.add(_m.mul(u, _m.sub(maxval, minval)), minval)


def normal(shape, mean, stddev, seed=None, *, generator=None):
    """Samples of N(mean, stddev^2)."""
    if _gen.uses_generator(generator, "normal"):
        return _gen.draw(generator, normal, shape, mean, stddev, seed)
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
    return _seeds(seed, op)


def random_poisson(shape, rate, seed=None, dtype=_C.float32):
    """Poisson counts: the output has shape `shape` + rate.shape, `shape` draws of every rate
    (MindSpore's ops.random_poisson; `shape` is a 1-D int32/int64 tensor). The table's
    RandomPoisson: rates below 10 by Knuth's method, larger ones by Hoermann's transformed
    rejection (PTRS; kernels/cpu/random_format.h). A rate that is negative, NaN or infinite
    has no count: NaN in float dtypes, -1 in integer ones."""
    s, s2 = _poisson_args(isinstance(rate, _C.Tensor), seed, dtype, "random_poisson")
    return _poisson(shape, rate, prim("RandomPoisson", seed=s, seed2=s2, dtype=dtype),
                    "random_poisson")


def _poisson(shape, rate, handle, op):
    """random_poisson's body; `handle` is the RandomPoisson op it draws from."""
    if not isinstance(rate, _C.Tensor):
        raise TypeError(f"For '{op}', the 'rate' must be a Tensor.")
    _poisson_rate_dtype(rate.dtype, op)
    return handle(rate, _poisson_shape(shape, op))


@constexpr
def _poisson_rate_dtype(dtype, op):
    if dtype == _C.bool:
        raise TypeError(f"For '{op}', the 'rate' must be a number tensor, but got {dtype}.")




FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


INTS = (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8)


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def _uniform(shape, seed, dtype=_C.float32):
    s, s2 = _seeds(seed, "UniformReal")
    return prim("UniformReal", seed=s, seed2=s2, dtype=dtype)(tuple(shape))


def _normal(shape, seed, dtype=_C.float32):
    s, s2 = _seeds(seed, "StandardNormal")
    return prim("StandardNormal", seed=s, seed2=s2, dtype=dtype)(tuple(shape))


@constexpr
def _float_out(dtype, op):
    if dtype not in FLOATS:
        raise TypeError(f"For '{op}', dtype must be a float type, but got {dtype}.")
    return dtype


def rand_like(input, seed=None, *, dtype=None, generator=None):  # noqa: A002 (MindSpore's names)
    """U[0, 1) samples of input's shape (its dtype unless given; a float dtype)."""
    if _gen.uses_generator(generator, "rand_like"):
        return _gen.draw(generator, rand_like, input, seed, dtype=dtype)
    x = _t(input, "rand_like")
    dt = _float_out(x.dtype if dtype is None else dtype, "rand_like")
    return prim("Cast")(_uniform(x.shape, seed), dt)


def randn_like(input, seed=None, *, dtype=None, generator=None):  # noqa: A002
    """N(0, 1) samples of input's shape (its dtype unless given; a float dtype)."""
    if _gen.uses_generator(generator, "randn_like"):
        return _gen.draw(generator, randn_like, input, seed, dtype=dtype)
    x = _t(input, "randn_like")
    dt = _float_out(x.dtype if dtype is None else dtype, "randn_like")
    return prim("Cast")(_normal(x.shape, seed), dt)


@constexpr
def _check_range(low, high, op):
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For '{op}', '{name}' must be an int, but got "
                            f"{type(v).__name__}.")
    if low >= high:
        raise ValueError(f"For '{op}', low ({low}) must be less than high ({high}).")
    return True


def _randint(shape, low, high, seed, dtype, op):
    _check_range(low, high, op)
    u = _uniform(shape, seed, _C.float64)
    v = prim("Floor")(u * float(high - low)) + float(low)
    v = prim("Minimum")(v, float(high - 1))  # u * n rounding up to n in float64
    return prim("Cast")(v, dtype)


def randint(low, high, size, seed=None, *, dtype=None, generator=None):
    """Integers drawn uniformly from [low, high), int64 unless dtype is given."""
    if _gen.uses_generator(generator, "randint"):
        return _gen.draw(generator, randint, low, high, size, seed, dtype=dtype)
    return _randint(shape_arg(size, "randint"), low, high, seed,
                    _C.int64 if dtype is None else dtype, "randint")


def randint_like(input, low, high, seed=None, *, dtype=None, generator=None):  # noqa: A002
    """Integers drawn uniformly from [low, high) in input's shape (its dtype unless given)."""
    if _gen.uses_generator(generator, "randint_like"):
        return _gen.draw(generator, randint_like, input, low, high, seed, dtype=dtype)
    x = _t(input, "randint_like")
    return _randint(x.shape, low, high, seed, x.dtype if dtype is None else dtype,
                    "randint_like")


def bernoulli(input, p=0.5, seed=None, *, generator=None):  # noqa: A002
    """1 with probability p (a number or a tensor broadcast to input), else 0, in input's
    shape and dtype."""
    if _gen.uses_generator(generator, "bernoulli"):
        return _gen.draw(generator, bernoulli, input, p, seed)
    x = _t(input, "bernoulli")
    if isinstance(p, _C.Tensor):
        prob = prim("Cast")(p, _C.float32)
    else:
        if not 0.0 <= float(number_arg(p, "bernoulli", "p")) <= 1.0:
            raise ValueError(f"For 'bernoulli', p must be in [0, 1], but got {p}.")
        prob = float(p)
    u = _uniform(x.shape, seed)
    return prim("Cast")(prim("Less")(u, prob), x.dtype)


@constexpr
def _multinomial_check(shape, dtype, num_samples, replacement):
    if dtype not in FLOATS:
        raise TypeError(f"For 'multinomial', the input must be a float tensor, but got "
                        f"{dtype}.")
    if len(shape) not in (1, 2):
        raise ValueError(f"For 'multinomial', the input must be 1-D or 2-D, but got shape "
                         f"{tuple(shape)}.")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
        raise ValueError(f"For 'multinomial', num_samples must be a positive int, but got "
                         f"{num_samples!r}.")
    if not replacement and num_samples > shape[-1]:
        raise ValueError(f"For 'multinomial', num_samples ({num_samples}) must not exceed the "
                         f"number of categories ({shape[-1]}) without replacement.")
    return True


def multinomial(input, num_samples, replacement=True, seed=None, *, generator=None):  # noqa: A002
    """num_samples category indices per row of input (non-negative weights, 1-D or 2-D),
    drawn with probabilities proportional to the weights; int64."""
    if _gen.uses_generator(generator, "multinomial"):
        return _gen.draw(generator, multinomial, input, num_samples, replacement, seed)
    x = _t(input, "multinomial")
    _multinomial_check(x.shape, x.dtype, num_samples, replacement)
    one = x.ndim == 1
    w = prim("Cast")(prim("ExpandDims")(x, 0) if one else x, _C.float64)
    rows, c = w.shape
    if replacement:
        cdf = prim("CumSum")(w, 1)
        total = prim("StridedSlice")(cdf, (0, c - 1), (rows, c), (1, 1))  # [rows, 1]
        u = _uniform((rows, num_samples), seed, _C.float64) * total
        below = prim("Less")(prim("ExpandDims")(cdf, 1), prim("ExpandDims")(u, -1))
        idx = prim("ReduceSum")(prim("Cast")(below, _C.int64), (-1,))
        idx = prim("Minimum")(idx, float(c - 1))
    else:
        u = _uniform((rows, c), seed, _C.float64)
        g = -prim("Log")(-prim("Log")(u + 1e-300))
        logw = prim("Log")(w)  # zero weight: -inf, never chosen before the positive ones
        _, idx = prim("TopK", sorted=True)(logw + g, num_samples)
    idx = prim("Cast")(idx, _C.int64)
    return prim("Reshape")(idx, (num_samples,)) if one else idx


@constexpr
def _perm_check(n, dtype):
    n = one_int(n, "randperm", "n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For 'randperm', n must be a non-negative int, but got {n!r}.")
    if dtype not in INTS + FLOATS:
        raise TypeError(f"For 'randperm', dtype must be an int or float type, but got {dtype}.")
    return n


def randperm(n, seed=0, offset=0, dtype=_C.int64, *, generator=None):
    """A random permutation of 0 .. n - 1 (the order of n uniform draws). seed 0 draws from
    the global generator (or `generator`); another seed (with offset) gives a deterministic
    permutation."""
    if _gen.uses_generator(generator, "randperm"):
        return _gen.draw(generator, randperm, n, seed, offset, dtype)
    n = _perm_check(n, dtype)
    if n == 0:
        return prim("Cast")(_C.Tensor(np.zeros(0, np.int64)), dtype)
    u = _uniform((n,), None if seed == 0 and offset == 0 else int(seed) * 65536 + int(offset))
    _, idx = prim("TopK", sorted=True)(u, n)
    return prim("Cast")(idx, dtype)


def shuffle(x, seed=None):
    """x with its first dimension randomly permuted."""
    x = _t(x, "shuffle", "x")
    if x.ndim == 0:
        return x
    n = x.shape[0]
    u = _uniform((n,), seed)
    _, idx = prim("TopK", sorted=True)(u, n)
    return prim("Gather")(x, idx, 0)


def laplace(shape, mean, lambda_param, seed=None):
    """Laplace(mean, lambda_param) samples of shape (broadcast with mean and lambda_param):
    mean - lambda * sign(u) * log(1 - 2|u|), u ~ U(-1/2, 1/2)."""
    m, b = as_tensor(mean), as_tensor(lambda_param)
    shp = shape_arg(shape, "laplace")
    u = _uniform(shp, seed, m.dtype if m.dtype in FLOATS else _C.float32) - 0.5
    e = prim("Log")(1.0 - 2.0 * prim("Abs")(u) + 1e-30)
    return m - b * prim("Sign")(u) * e


def standard_laplace(shape, seed=0, seed2=0):
    """Laplace(0, 1) samples of shape, float32."""
    shp = shape_arg(shape, "StandardLaplace")
    s = None if seed == 0 and seed2 == 0 else int(seed) * 65536 + int(seed2)
    return laplace(shp, 0.0, 1.0, s)


_GAMMA_ROUNDS = 8


def _gamma_ge1(a, shape, seed):
    """Gamma(a, 1) for a >= 1 (Marsaglia-Tsang), float64, shape = a's broadcast shape."""
    d = a - 1.0 / 3.0
    c = 1.0 / prim("Sqrt")(9.0 * d)
    out = prim("ZerosLike")(a)
    done = prim("Cast")(out, _C.bool)
    for r in range(_GAMMA_ROUNDS):
        s = None if seed is None else seed * 97 + r
        z = _normal(shape, s, _C.float64)
        u = _uniform(shape, None if s is None else s + 7919, _C.float64)
        v = 1.0 + c * z
        v3 = v * v * v
        ok = prim("LogicalAnd")(prim("Greater")(v, 0.0), prim("Less")(
            prim("Log")(u + 1e-300), 0.5 * z * z + d - d * v3 + d * prim("Log")(
                prim("Maximum")(v3, 1e-300))))
        take = prim("LogicalAnd")(ok, prim("LogicalNot")(done))
        last = r == _GAMMA_ROUNDS - 1
        if last:
            take = prim("LogicalNot")(done)
        out = prim("Select")(take, d * prim("Maximum")(v3, 0.0), out)
        done = prim("LogicalOr")(done, take)
    return out


def gamma(shape, alpha, beta, seed=None):
    """Gamma(alpha, rate beta) samples: shape followed by the broadcast shape of alpha and
    beta (MindSpore's ops.gamma); float32 unless alpha is float64."""
    a, b = as_tensor(alpha), as_tensor(beta)
    dt = a.dtype if a.dtype in FLOATS else _C.float32
    a64, b64 = prim("Cast")(a, _C.float64), prim("Cast")(b, _C.float64)
    ab = prim("BroadcastTo", shape=_bshape(a64.shape, b64.shape))(a64)
    bb = prim("BroadcastTo", shape=ab.shape)(b64)
    full = shape_arg(shape, "gamma") + tuple(ab.shape)
    ab = prim("BroadcastTo", shape=full)(ab)
    bb = prim("BroadcastTo", shape=full)(bb)
    small = prim("Less")(ab, 1.0)
    g = _gamma_ge1(prim("Select")(small, ab + 1.0, ab), full, seed)
    u = _uniform(full, None if seed is None else seed + 104729, _C.float64)
    boost = prim("Pow")(u + 1e-300, 1.0 / ab)
    g = prim("Select")(small, g * boost, g)
    return prim("Cast")(g / bb, dt)


@constexpr
def _bshape(a, b):
    return tuple(np.broadcast_shapes(tuple(a), tuple(b)))


def random_gamma(shape, alpha, seed=0, seed2=0):
    """Gamma(alpha, 1) samples of shape + alpha.shape (MindSpore's RandomGamma)."""
    s = None if seed == 0 and seed2 == 0 else int(seed) * 65536 + int(seed2)
    return gamma(shape, alpha, 1.0, s)


@constexpr
def _win_len(n, periodic, dtype, op):
    n = one_int(n, op, "window_length")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For '{op}', window_length must be a non-negative int, but got "
                         f"{n!r}.")
    if not isinstance(periodic, bool):
        raise TypeError(f"For '{op}', periodic must be a bool, but got "
                        f"{type(periodic).__name__}.")
    if dtype is not None and dtype not in FLOATS:
        raise TypeError(f"For '{op}', dtype must be a float type, but got {dtype}.")
    return n


@constexpr
def _window(kind, n, periodic, dtype, a, b):
    if n == 0:
        w = np.zeros(0)
    elif n == 1:
        w = np.ones(1)
    else:
        m = n if periodic else n - 1  # the denominator: a periodic window is one of n + 1
        host_bytes(f"{kind}_window", 32 * n)  # k and numpy's temporaries
        k = np.arange(n, dtype=np.float64)
        if kind == "hamming":
            w = a - b * np.cos(2 * math.pi * k / m)
        elif kind == "hann":
            w = 0.5 - 0.5 * np.cos(2 * math.pi * k / m)
        elif kind == "blackman":
            w = 0.42 - 0.5 * np.cos(2 * math.pi * k / m) + 0.08 * np.cos(4 * math.pi * k / m)
        elif kind == "bartlett":
            w = 1.0 - np.abs(2.0 * k / m - 1.0)
        else:  # kaiser, beta = a
            w = np.i0(a * np.sqrt(np.maximum(1.0 - (2.0 * k / m - 1.0) ** 2, 0.0))) / np.i0(a)
    return _C.Tensor(np.ascontiguousarray(w)).astype(_C.float32 if dtype is None else dtype)


def hann_window(window_length, periodic=True, *, dtype=None):
    """0.5 - 0.5 cos(2 pi k / N) (N = length when periodic, length - 1 otherwise)."""
    n = _win_len(window_length, periodic, dtype, "hann_window")
    return _window("hann", n, periodic, dtype, 0.0, 0.0)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """alpha - beta cos(2 pi k / N)."""
    n = _win_len(window_length, periodic, dtype, "hamming_window")
    return _window("hamming", n, periodic, dtype, float(alpha), float(beta))


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The triangular window 1 - |2 k / N - 1|."""
    n = _win_len(window_length, periodic, dtype, "bartlett_window")
    return _window("bartlett", n, periodic, dtype, 0.0, 0.0)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N)."""
    n = _win_len(window_length, periodic, dtype, "blackman_window")
    return _window("blackman", n, periodic, dtype, 0.0, 0.0)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """I0(beta sqrt(1 - (2 k / N - 1)^2)) / I0(beta)."""
    n = _win_len(window_length, periodic, dtype, "kaiser_window")
    return _window("kaiser", n, periodic, dtype, float(beta), 0.0)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """numsamples draws per row of the probabilities x (with or without replacement); seed
    and offset pick a deterministic stream (seed -1: the global generator)."""
    s = None if (isinstance(seed, int) and seed == -1) else _scalar_int(seed) * 65536 + \
        _scalar_int(offset)
    return multinomial(x, numsamples, replacement, s)


def _scalar_int(v):
    v = one_int(v, "multinomial_with_replacement", "seed and offset")
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For 'multinomial_with_replacement', seed and offset must be ints, "
                        f"but got {type(v).__name__}.")
    return v


def choice_with_mask(input_x, count=256, seed=0, seed2=0):
    """(index [count, rank] int32, mask [count] bool): up to count positions where input_x
    (bool) is True, in random order; rows past the number of True positions are zero with
    mask False."""
    x = _t(input_x, "choice_with_mask", "input_x")
    if x.dtype != _C.bool:
        raise TypeError(f"For 'choice_with_mask', input_x must be bool, but got {x.dtype}.")
    flat = prim("Reshape")(x, (-1,))
    total = flat.shape[0]
    k = min(int(count), total)
    s = None if seed == 0 and seed2 == 0 else int(seed) * 65536 + int(seed2)
    u = _uniform((total,), s)
    score = u + prim("Cast")(flat, _C.float32) * 2.0  # the True positions first
    vals, pos = prim("TopK", sorted=True)(score, k)
    mask = prim("GreaterEqual")(vals, 2.0)
    coords = _unravel(prim("Cast")(pos, _C.int64), x.shape)
    coords = prim("Select")(prim("BroadcastTo", shape=coords.shape)(prim("ExpandDims")(mask, -1)),
                            coords, prim("ZerosLike")(coords))
    if k < count:
        pad = count - k
        coords = _a.concat((coords, _a.zeros((pad, x.ndim), _C.int64)), 0)
        mask = _a.concat((mask, prim("Cast")(_a.zeros((pad,), _C.int32), _C.bool)), 0)
    return prim("Cast")(coords, _C.int32), mask


def _unravel(flat, shape):
    strides = _strides(tuple(shape))
    f = prim("ExpandDims")(flat, -1)
    return prim("FloorMod")(prim("FloorDiv")(f, strides[0]), strides[1])


@constexpr
def _strides(shape):
    st = np.cumprod((tuple(shape[1:]) + (1,))[::-1])[::-1].astype(np.int64)
    return _C.Tensor(np.ascontiguousarray(st)), _C.Tensor(np.array(shape, np.int64))
