"""mindspore.numpy's elementwise functions and reductions with numpy's arguments: the ufuncs
take dtype (the inputs are cast to it first, as numpy computes in that type), absolute keeps
bools, clip is minimum(maximum(x, a_min), a_max) (either bound may be None), dot follows
numpy.dot for every rank, sum / amax / amin take initial and where, promote_types and
result_type read dtype names, Python types and scalars, histogram takes bin edges, and
histogram2d / histogramdd count over several dimensions."""
import builtins as _builtins
import numbers as _numbers

import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy._dtypes import to_dtype as _to_dtype
from mycel.numpy.creations import asarray as _asarray
from mycel.ops.primitive import constexpr as _constexpr

_BOOL = getattr(_C, "bool")


def _cast(x, dtype):
    x = _asarray(x)
    return x if dtype is None else x.astype(dtype)


def _binary(fn, name, doc):
    def f(x1, x2, dtype=None):
        dtype = _to_dtype(dtype)
        return fn(_cast(x1, dtype), _cast(x2, dtype))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + " dtype: the type both inputs are cast to first."
    return f


def _unary(fn, name, doc):
    def f(x, dtype=None):
        dtype = _to_dtype(dtype)
        return fn(_cast(x, dtype))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + " dtype: the type the input is cast to first."
    return f


add = _binary(_ops.add, "add", "x1 + x2, elementwise (broadcast).")
subtract = _binary(_ops.sub, "subtract", "x1 - x2, elementwise (broadcast).")
multiply = _binary(_ops.mul, "multiply", "x1 * x2, elementwise (broadcast).")
divide = _binary(_ops.div, "divide", "x1 / x2 (true division), elementwise (broadcast).")
true_divide = _binary(_ops.div, "true_divide", "x1 / x2, elementwise (broadcast).")
power = _binary(_ops.pow, "power", "x1 ** x2, elementwise (broadcast).")
maximum = _binary(_ops.maximum, "maximum", "The larger of x1 and x2, elementwise.")
minimum = _binary(_ops.minimum, "minimum", "The smaller of x1 and x2, elementwise.")
remainder = _binary(_ops.remainder, "remainder",
                    "x1 mod x2 with the sign of x2 (Python's %), elementwise.")
mod = remainder
floor_divide = _binary(_ops.floor_divide, "floor_divide", "x1 // x2, elementwise.")
negative = _unary(_ops.neg, "negative", "-x, elementwise.")
exp = _unary(_ops.exp, "exp", "e ** x, elementwise.")
log = _unary(_ops.log, "log", "The natural logarithm, elementwise.")
log1p = _unary(_ops.log1p, "log1p", "log(1 + x), elementwise.")
sqrt = _unary(_ops.sqrt, "sqrt", "The square root, elementwise.")
square = _unary(_ops.square, "square", "x * x, elementwise.")
sin = _unary(_ops.sin, "sin", "Sine, elementwise.")
cos = _unary(_ops.cos, "cos", "Cosine, elementwise.")
tanh = _unary(_ops.tanh, "tanh", "Hyperbolic tangent, elementwise.")
sign = _unary(_ops.sign, "sign", "-1, 0 or 1 by the sign of x, elementwise.")
reciprocal = _unary(_ops.reciprocal, "reciprocal", "1 / x, elementwise.")
cbrt = _unary(lambda x: _ops.sign(x) * _ops.pow(_ops.abs(x), 1.0 / 3.0), "cbrt",
              "The real cube root, elementwise.")


def absolute(x, dtype=None):
    """|x|, elementwise (bools stay bools, as numpy). dtype: the type x is cast to first."""
    x = _cast(x, _to_dtype(dtype))
    return x if x.dtype == _BOOL else _ops.abs(x)


abs = fabs = absolute  # noqa: A001


def clip(a, a_min, a_max, dtype=None):
    """minimum(maximum(a, a_min), a_max): a_min / a_max may be arrays (broadcast) or None, not
    both; a_min above a_max gives a_max (numpy.clip)."""
    if a_min is None and a_max is None:
        raise ValueError("For 'clip', a_min and a_max must not both be None.")
    dtype = _to_dtype(dtype)
    y = _cast(a, dtype)
    if a_min is not None:
        y = _ops.maximum(y, _asarray(a_min).astype(y.dtype))
    if a_max is not None:
        y = _ops.minimum(y, _asarray(a_max).astype(y.dtype))
    return y


def divmod(x1, x2, dtype=None):  # noqa: A001
    """(x1 // x2, x1 % x2), elementwise."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def radians(x, dtype=None):
    """Degrees to radians, elementwise."""
    x = _cast(x, _to_dtype(dtype))
    x = x if x.dtype.is_floating_point else x.astype(_C.float32)
    return x * (_np.pi / 180.0)


def dot(a, b):
    """numpy.dot: a scalar operand multiplies; 1-d . 1-d is the inner product; N-d . 1-d sums
    over a's last axis; N-d . M-d (M >= 2) over a's last and b's second-to-last axes."""
    a, b = _asarray(a), _asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return _ops.mul(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        if b.ndim == 1:
            y = _ops.matmul(a, _ops.reshape(b, (-1, 1)))
            return _ops.reshape(y, tuple(a.shape[:-1]))
        return _ops.matmul(a, b)
    if b.ndim == 1:
        return _ops.sum(a * b, -1)
    bt = _ops.moveaxis(b, -2, 0)  # [k, ...b's others]
    out = _ops.matmul(_ops.reshape(a, (-1, a.shape[-1])), _ops.reshape(bt, (bt.shape[0], -1)))
    return _ops.reshape(out, tuple(a.shape[:-1]) + tuple(bt.shape[1:]))


# ---- reductions with initial and where -------------------------------------------------------
def _masked(a, where, fill):
    if where is None or where is True:
        return a
    return _ops.where(_asarray(where).astype(_BOOL), a, _asarray(fill).astype(a.dtype))


def sum(a, axis=None, dtype=None, keepdims=False, initial=None, where=True):  # noqa: A001
    """The sum over axis (all axes when None) of the elements where holds, plus initial."""
    a = _asarray(a)
    dtype = _to_dtype(dtype)
    if dtype is not None:
        a = a.astype(dtype)
    elif a.dtype == _BOOL or a.dtype in (_C.int8, _C.int16, _C.uint8, _C.uint16):
        a = a.astype(_C.int32)
    y = _ops.sum(_masked(a, where, 0), axis, bool(keepdims))
    return y if initial is None else y + _asarray(initial).astype(y.dtype)


def _extreme(name, reduce, pick, a, axis, keepdims, initial, where):
    a = _asarray(a)
    if initial is not None and (isinstance(initial, bool) or
                                not isinstance(initial, _numbers.Number)):
        raise TypeError(f"For '{name}', initial must be a number, but got {initial!r}.")
    if where is not None and where is not True:
        if initial is None:
            raise ValueError(f"For '{name}', a where mask needs an initial value (the result "
                             f"for a slice with no element selected).")
        a = _masked(a, where, initial)
    y = reduce(a, axis, bool(keepdims))
    return y if initial is None else pick(y, _asarray(initial).astype(y.dtype))


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """The maximum over axis (all axes when None) of the elements where holds and initial."""
    return _extreme("amax", _ops.amax, _ops.maximum, a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """The minimum over axis (all axes when None) of the elements where holds and initial."""
    return _extreme("amin", _ops.amin, _ops.minimum, a, axis, keepdims, initial, where)


max, min = amax, amin  # noqa: A001


# ---- dtype rules -----------------------------------------------------------------------------
def _as_dtype_arg(t):
    """A dtype from a dtype, a dtype name ('float32', '?'), a Python type or a numpy type."""
    if isinstance(t, str):
        return _C.dtype_from_name(_np.dtype(t).name) if t not in ("int", "float") else \
            _to_dtype({"int": int, "float": float}[t])
    return _to_dtype(t)


def promote_types(type1, type2):
    """The dtype both promote to (Python int / float are int32 / float32)."""
    return _C.promote_types(_as_dtype_arg(type1), _as_dtype_arg(type2))


@_constexpr
def _np_promote(dtypes):
    """numpy's promotion of mycel dtypes (bfloat16, which numpy lacks, promotes by mycel's
    rules)."""
    if any(d == _C.bfloat16 for d in dtypes):
        out = dtypes[0]
        for d in dtypes[1:]:
            out = _C.promote_types(out, d)
        return out
    return _C.dtype_from_name(_np.result_type(*[_np.dtype(d.name.lower()) for d in
                                                dtypes]).name)


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on all the arguments (numpy's rule): tensors and dtypes
    (names, types) promote; Python scalars count only when nothing else does or when they are
    of a higher kind (bool < int < float), then as that kind's default, int32 / float32."""
    types, scalars = [], []
    for x in arrays_and_dtypes:
        if isinstance(x, _C.Tensor):
            types.append(x.dtype)
        elif isinstance(x, (bool, _numbers.Number)) and not isinstance(x, type):
            scalars.append(x)
        else:
            types.append(_as_dtype_arg(x))
    kind = 0
    for v in scalars:
        kind = _builtins.max(kind, 0 if isinstance(v, bool) else (
            1 if isinstance(v, _numbers.Integral) else 2))
    scalar_type = (_BOOL, _C.int32, _C.float32)[kind] if scalars else None
    if not types:
        return scalar_type
    out = _np_promote(tuple(types))
    if scalar_type is not None:
        kind_of = 2 if out.is_floating_point else (0 if out == _BOOL else 1)
        if kind > kind_of:  # a weak scalar of a higher kind: that kind's default type
            out = scalar_type
    return out


# ---- histograms ------------------------------------------------------------------------------
@_constexpr
def _edges_for(lo, hi, bins):
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _np.linspace(lo, hi, int(bins) + 1)


def _bin_edges(x, bins, rng, name):
    """1-d edges (float32) for the values x (1-d): bins equal bins over rng or x's range, or
    the given increasing edges."""
    if isinstance(bins, _numbers.Integral) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"For '{name}', bins must be positive, but got {bins}.")
        if rng is None:
            lo = float(_ops.amin(x).asnumpy()) if x.shape[0] else 0.0
            hi = float(_ops.amax(x).asnumpy()) if x.shape[0] else 1.0
        else:
            lo, hi = float(rng[0]), float(rng[1])
            if lo > hi:
                raise ValueError(f"For '{name}', range's min {lo} exceeds its max {hi}.")
        return _C.Tensor(_edges_for(lo, hi, bins).astype(_np.float32))
    edges = _asarray(bins).astype(_C.float32)
    if edges.ndim != 1 or edges.shape[0] < 1:
        raise ValueError(f"For '{name}', bins must be an int or a 1-d array of increasing "
                         f"edges, but got shape {tuple(edges.shape)}.")
    if edges.shape[0] > 1 and bool(_ops.any(edges[1:] < edges[:-1]).asnumpy()):
        raise ValueError(f"For '{name}', the bin edges must increase monotonically.")
    return edges


def _bin_index(x, edges):
    """Each value's bin (0..n-1; the last bin holds its right edge) and whether it is inside."""
    n = edges.shape[0] - 1
    idx = _ops.sum(_ops.less_equal(edges, _ops.expand_dims(x, -1)).astype(_C.int32), -1) - 1
    last = _ops.equal(x, edges[n])
    idx = _ops.where(last, _ops.full_like(idx, n - 1), idx)
    inside = _ops.logical_and(_ops.greater_equal(x, edges[0]), _ops.less_equal(x, edges[n]))
    return _ops.clamp(idx, 0, n - 1), inside


def _counts(flat_idx, inside, weights, size):
    w = _ops.ones(flat_idx.shape, _C.float32) if weights is None else \
        _ops.reshape(_asarray(weights), (-1,)).astype(_C.float32)
    w = _ops.where(inside, w, _ops.zeros_like(w))
    onehot = _ops.equal(_ops.expand_dims(flat_idx, -1),
                        _C.Tensor(_np.arange(size, dtype=_np.int32))).astype(_C.float32)
    return _ops.sum(onehot * _ops.expand_dims(w, -1), 0)


def _density(counts, widths):
    return counts / (_ops.sum(counts) * widths)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The edges histogram would use (bins + 1 over range or a's range, or bins itself)."""
    x = _ops.reshape(_asarray(a), (-1,)).astype(_C.float32)
    return _bin_edges(x, bins, range, "histogram_bin_edges")


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """(counts, edges): how many values of a (weights summed with weights) fall in each bin;
    the last bin includes its right edge, values outside are not counted."""
    x = _ops.reshape(_asarray(a), (-1,)).astype(_C.float32)
    edges = _bin_edges(x, bins, range, "histogram")
    n = edges.shape[0] - 1
    if n == 0:  # one edge: no bin
        return _ops.zeros((0,), _C.float32 if density or weights is not None else _C.int32), \
            edges
    idx, inside = _bin_index(x, edges)
    counts = _counts(idx, inside, weights, n)
    if density:
        return _density(counts, edges[1:] - edges[:-1]), edges
    if weights is None:
        counts = _ops.rint(counts).astype(_C.int32)
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """(counts [n1, ..., nD], [edges per dimension]) for the N points of sample [N, D]; bins
    per dimension (an int for all, ints or edge arrays), range one (min, max) per dimension."""
    s = _asarray(sample)
    if s.ndim == 1:
        s = _ops.reshape(s, (-1, 1))
    if s.ndim != 2:
        raise ValueError(f"For 'histogramdd', sample must be [N, D], but got shape "
                         f"{tuple(s.shape)}.")
    s = s.astype(_C.float32)
    d = s.shape[1]
    if isinstance(bins, _C.Tensor):
        bins = [bins[i] for i in _builtins.range(bins.shape[0])]
    per_bins = [bins] * d if isinstance(bins, _numbers.Integral) else list(bins)
    rngs = [None] * d if range is None else list(range)
    if len(per_bins) != d or len(rngs) != d:
        raise ValueError(f"For 'histogramdd', bins and range must have one entry per dimension "
                         f"({d}).")
    edges, flat, inside, sizes = [], None, None, []
    for j in _builtins.range(d):
        x = s[:, j]
        e = _bin_edges(x, per_bins[j], rngs[j], "histogramdd")
        idx, ok = _bin_index(x, e)
        n = e.shape[0] - 1
        flat = idx if flat is None else flat * n + idx
        inside = ok if inside is None else _ops.logical_and(inside, ok)
        edges.append(e)
        sizes.append(n)
    total = 1
    for n in sizes:
        total *= n
    counts = _ops.reshape(_counts(flat, inside, weights, total), tuple(sizes))
    if density:
        vol = None
        for j, e in enumerate(edges):
            w = e[1:] - e[:-1]
            shape = [1] * d
            shape[j] = sizes[j]
            w = _ops.reshape(w, tuple(shape))
            vol = w if vol is None else vol * w
        return _density(counts, vol), edges
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """(counts [nx, ny], x edges, y edges) of the points (x[i], y[i])."""
    x = _ops.reshape(_asarray(x), (-1,))
    y = _ops.reshape(_asarray(y), (-1,))
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"For 'histogram2d', x and y must have one length, but got "
                         f"{x.shape[0]} and {y.shape[0]}.")
    if not isinstance(bins, _numbers.Integral) and len(bins) == 2 and not (
            isinstance(bins, _C.Tensor) and bins.ndim == 1):
        per = list(bins)
    elif isinstance(bins, _numbers.Integral):
        per = [bins, bins]
    else:
        per = [bins, bins]
    sample = _ops.stack((x.astype(_C.float32), y.astype(_C.float32)), 1)
    counts, edges = histogramdd(sample, per, range, weights, density)
    return counts, edges[0], edges[1]


def digitize(x, bins, right=False):
    """The index of the bin each value of x falls in (numpy.digitize): bins increasing or
    decreasing; right says whether a bin holds its right edge rather than its left."""
    x = _asarray(x)
    b = _asarray(bins)
    if b.ndim != 1:
        raise ValueError(f"For 'digitize', bins must be 1-d, but got shape {tuple(b.shape)}.")
    xe = _ops.expand_dims(x.astype(_C.float64), -1)
    bf = b.astype(_C.float64)
    increasing = b.shape[0] < 2 or bool((b[-1] >= b[0]).asnumpy())
    if increasing:
        hit = _ops.less(bf, xe) if right else _ops.less_equal(bf, xe)
        return _ops.sum(hit.astype(_C.int32), -1)
    hit = _ops.greater_equal(bf, xe) if right else _ops.greater(bf, xe)
    return _ops.sum(hit.astype(_C.int32), -1)
