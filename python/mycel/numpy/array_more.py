"""mindspore.numpy's array creation and manipulation beyond __init__'s: stacking and
splitting, flips and rolls, axis moves, take, repeat/append, pad, the triangle and diagonal
helpers, grids, windows, histograms and the set, index and selection functions. Composed from
mycel.ops with numpy's defaults; functions whose output size depends on the data (the set
functions, argwhere) run eagerly."""
import numbers as _numbers

import numpy as _np

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.numpy._dtypes import to_dtype as _to_dtype
from mycel.ops.primitive import constexpr as _constexpr


def _t(a):
    return a if isinstance(a, _C.Tensor) else _C.Tensor(a)


# ---- shape and stacking ----------------------------------------------------------------------
def atleast_1d(*arys):
    """Each input with at least 1 dimension."""
    out = [a if a.ndim >= 1 else _ops.reshape(a, (1,)) for a in [_t(x) for x in arys]]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    """Each input with at least 2 dimensions (1-d [n] becomes [1, n])."""
    out = []
    for x in arys:
        out.append(_as_2d(x))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    """Each input with at least 3 dimensions ([n] -> [1, n, 1], [m, n] -> [m, n, 1])."""
    out = []
    for x in arys:
        out.append(_as_3d(x))
    return out[0] if len(out) == 1 else out


def ravel(x):
    """x flattened (C order)."""
    return _ops.reshape(_t(x), (-1,))


def _as_2d(a):
    a = _t(a)
    return _ops.reshape(a, (1,) * (2 - a.ndim) + tuple(a.shape)) if a.ndim < 2 else a


def _as_3d(a):
    a = _t(a)
    if a.ndim == 0:
        return _ops.reshape(a, (1, 1, 1))
    if a.ndim == 1:
        return _ops.reshape(a, (1, a.shape[0], 1))
    if a.ndim == 2:
        return _ops.reshape(a, tuple(a.shape) + (1,))
    return a


# (The stacking functions build their tuples in loops: a comprehension's result has no known
# length in GRAPH mode.)
def hstack(tup):
    """Inputs stacked along axis 1 (axis 0 for 1-d inputs)."""
    ts = ()
    for a in tup:
        ts = ts + (_t(a),)
    return _ops.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tup):
    """Inputs stacked along axis 0 (1-d inputs as rows)."""
    ts = ()
    for a in tup:
        ts = ts + (_as_2d(a),)
    return _ops.concat(ts, 0)


def dstack(tup):
    """Inputs stacked along axis 2 (as atleast_3d makes them)."""
    ts = ()
    for a in tup:
        ts = ts + (_as_3d(a),)
    return _ops.concat(ts, 2)


def column_stack(tup):
    """1-d inputs as columns (2-d inputs as they are), stacked along axis 1."""
    ts = ()
    for a in tup:
        a = _t(a)
        ts = ts + (a if a.ndim >= 2 else _ops.reshape(a, (-1, 1)),)
    return _ops.concat(ts, 1)


def _split_points(n, indices_or_sections, even, name):
    if isinstance(indices_or_sections, _numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"{name}: the number of sections must be positive, but got {k}.")
        if even and n % k:
            raise ValueError(f"{name}: an axis of size {n} does not split into {k} equal "
                             f"sections.")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        return [int(v) for v in _np.cumsum(sizes)[:-1]]
    return [int(i) for i in indices_or_sections]


@_constexpr
def _split_bounds(n, indices_or_sections, even, name):
    return tuple([0] + [min(max(p, 0), n) for p in _split_points(n, indices_or_sections, even,
                                                                   name)] + [n])


def _split(x, indices_or_sections, axis, even, name):
    x = _t(x)
    n = x.shape[axis]
    bounds = _split_bounds(n, indices_or_sections, even, name)
    out = []
    for i in range(len(bounds) - 1):
        out.append(_ops.narrow(x, axis, bounds[i], max(bounds[i + 1] - bounds[i], 0)))
    return out


def split(x, indices_or_sections, axis=0):
    """Equal sections (an int that divides the axis) or pieces between indices."""
    return _split(x, indices_or_sections, axis, True, "split")


def array_split(x, indices_or_sections, axis=0):
    """As split, but an int need not divide the axis (the first pieces one longer)."""
    return _split(x, indices_or_sections, axis, False, "array_split")


def hsplit(x, indices_or_sections):
    """split along axis 1 (axis 0 for 1-d input)."""
    x = _t(x)
    return split(x, indices_or_sections, 0 if x.ndim == 1 else 1)


def vsplit(x, indices_or_sections):
    """split along axis 0."""
    return split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    """split along axis 2."""
    return split(x, indices_or_sections, 2)


def flip(m, axis=None):
    """m reversed along axis (all axes when None)."""
    m = _t(m)
    axes = tuple(range(m.ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    return _ops.flip(m, axes)


def fliplr(m):
    """m reversed along axis 1."""
    return flip(m, 1)


def flipud(m):
    """m reversed along axis 0."""
    return flip(m, 0)



def moveaxis(a, source, destination):
    """a with the axes source moved to destination."""
    return _ops.moveaxis(_t(a), source, destination)


def swapaxes(x, axis1, axis2):
    """x with two axes exchanged."""
    return _ops.swapaxes(_t(x), axis1, axis2)


def rollaxis(x, axis, start=0):
    """x with axis moved to before position start."""
    x = _t(x)
    n = x.ndim
    axis %= n
    start = start + n if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(x, axis, start) if axis != start else x


def rot90(a, k=1, axes=(0, 1)):
    """a rotated by 90 degrees k times in the plane of axes (from the first toward the
    second): ops.rot90."""
    return _ops.rot90(_t(a), k, tuple(axes))


def repeat(a, repeats, axis=None):
    """Each element repeated (of the flattened array when axis is None)."""
    a = _t(a)
    if axis is None:
        a, axis = _ops.reshape(a, (-1,)), 0
    return _ops.repeat_interleave(a, repeats, axis)


def append(arr, values, axis=None):
    """values appended to arr along axis (both flattened when None)."""
    arr, values = _t(arr), _t(values)
    if axis is None:
        return _ops.concat((_ops.reshape(arr, (-1,)),
                            _ops.reshape(values, (-1,)).astype(arr.dtype)), 0)
    return _ops.concat((arr, values.astype(arr.dtype)), axis)


def take(a, indices, axis=None, mode="clip"):
    """Elements of a at indices along axis (of the flattened array when None); 'clip' clips
    out-of-range indices, 'wrap' wraps them (MindSpore's modes)."""
    a, idx = _t(a), _t(indices).astype(_C.int64)
    if axis is None:
        a, axis = _ops.reshape(a, (-1,)), 0
    n = a.shape[axis]
    if mode == "wrap":
        idx = _ops.remainder(idx, n)
    elif mode == "clip":
        idx = _ops.clamp(idx, 0, n - 1)
    else:
        raise ValueError(f"take: mode must be 'clip' or 'wrap', but got {mode!r}.")
    return _ops.gather(a, idx, axis)


def take_along_axis(arr, indices, axis):
    """Values of arr at indices along axis (indices shaped as arr but along axis)."""
    arr, idx = _t(arr), _t(indices).astype(_C.int64)
    if axis is None:
        return _ops.gather_elements(_ops.reshape(arr, (-1,)), 0, _ops.reshape(idx, (-1,)))
    shape = [max(a, b) if i != axis % arr.ndim else idx.shape[i]
             for i, (a, b) in enumerate(zip(arr.shape, idx.shape))]
    if tuple(idx.shape) != tuple(shape):
        idx = _ops.broadcast_to(idx, tuple(shape))
    src_shape = list(shape)
    src_shape[axis % arr.ndim] = arr.shape[axis]
    if tuple(arr.shape) != tuple(src_shape):
        arr = _ops.broadcast_to(arr, tuple(src_shape))
    return _ops.gather_elements(arr, axis, idx)


def broadcast_arrays(*args):
    """The inputs broadcast to one shape."""
    ts = [_t(a) for a in args]
    shape = tuple(_np.broadcast_shapes(*[tuple(t.shape) for t in ts]))
    return [_ops.broadcast_to(t, shape) for t in ts]


def size(a, axis=None):
    """The number of elements (along axis when given)."""
    a = _t(a)
    return a.size if axis is None else a.shape[axis]


def isscalar(element):
    """Whether element is a Python or numpy scalar (not a Tensor)."""
    return _np.isscalar(element)


def array_equal(a1, a2, equal_nan=False):
    """Whether the two arrays have one shape and equal elements (NaNs equal with equal_nan),
    as a bool Tensor (mindspore.numpy's; numpy's is a Python bool)."""
    a1, a2 = _t(a1), _t(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return _C.Tensor(False)
    eq = _ops.equal(a1, a2)
    if equal_nan and a1.dtype.is_floating_point:
        eq = _ops.logical_or(eq, _ops.logical_and(_ops.isnan(a1), _ops.isnan(a2)))
    return _ops.all(eq)


def array_equiv(a1, a2):
    """Whether the two arrays broadcast to one shape with equal elements (a bool Tensor)."""
    a1, a2 = _t(a1), _t(a2)
    try:
        _np.broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except ValueError:
        return _C.Tensor(False)
    return _ops.all(_ops.equal(a1, a2))


def array_str(a):
    """The string of a's values (as str(numpy array))."""
    return _np.array_str(_t(a).asnumpy())


# ---- creation --------------------------------------------------------------------------------
def empty(shape, dtype=_C.float32):
    """A tensor of shape (mycel fills it with zeros)."""
    dtype = _to_dtype(dtype)
    return _ops.zeros(shape if not isinstance(shape, int) else (shape,), dtype)




def asfarray(a, dtype=_C.float32):
    """a as a floating tensor (float32 unless dtype is a float type)."""
    dtype = _to_dtype(dtype)
    a = _t(a)
    return a.astype(dtype if dtype.is_floating_point else _C.float32)


def eye(N, M=None, k=0, dtype=_C.float32):  # noqa: N803 (numpy's names)
    """Ones on the k-th diagonal of an N x M matrix."""
    dtype = _to_dtype(dtype)
    M = N if M is None else M
    return _C.Tensor(_np.eye(N, M, k)).astype(dtype)


def identity(n, dtype=_C.float32):
    """The n x n identity matrix."""
    dtype = _to_dtype(dtype)
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=_C.float32):  # noqa: N803
    """Ones at and below the k-th diagonal of an N x M matrix."""
    dtype = _to_dtype(dtype)
    return _C.Tensor(_np.tri(N, M, k)).astype(dtype)


def tril(m, k=0):
    """m with the elements above the k-th diagonal zeroed."""
    return _ops.tril(_t(m), k)


def triu(m, k=0):
    """m with the elements below the k-th diagonal zeroed."""
    return _ops.triu(_t(m), k)


def tril_indices(n, k=0, m=None):
    """The (rows, cols) indices of the lower triangle of an n x m matrix."""
    r, c = _np.tril_indices(n, k, m)
    return _C.Tensor(r.astype(_np.int32)), _C.Tensor(c.astype(_np.int32))


def triu_indices(n, k=0, m=None):
    """The (rows, cols) indices of the upper triangle of an n x m matrix."""
    r, c = _np.triu_indices(n, k, m)
    return _C.Tensor(r.astype(_np.int32)), _C.Tensor(c.astype(_np.int32))


def tril_indices_from(arr, k=0):
    """tril_indices for a 2-d arr's shape."""
    a = _t(arr)
    return tril_indices(a.shape[0], k, a.shape[1])


def triu_indices_from(arr, k=0):
    """triu_indices for a 2-d arr's shape."""
    a = _t(arr)
    return triu_indices(a.shape[0], k, a.shape[1])


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array (ndim tensors)."""
    idx = _C.Tensor(_np.arange(n, dtype=_np.int32))
    return tuple(idx for _ in range(ndim))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The offset-th diagonal of the planes of axes axis1, axis2 (as the last axis)."""
    return _ops.diagonal(_t(a), offset, axis1, axis2)


def diag(v, k=0):
    """The k-th diagonal of a 2-d v, or a 2-d matrix with 1-d v on its k-th diagonal."""
    v = _t(v)
    if v.ndim == 1:
        return diagflat(v, k)
    if v.ndim != 2:
        raise ValueError(f"diag: the input must be 1-d or 2-d, but got shape {tuple(v.shape)}.")
    return diagonal(v, k)


def diagflat(v, k=0):
    """A 2-d matrix with the flattened v on its k-th diagonal."""
    v = _ops.reshape(_t(v), (-1,))
    n = v.shape[0]
    size = n + abs(k)
    rows = _np.arange(n) + max(-k, 0)
    cols = _np.arange(n) + max(k, 0)
    flat = _C.Tensor((rows * size + cols).astype(_np.int64))
    out = _ops.zeros((size * size,), v.dtype)
    out = _ops.tensor_scatter_update(out, _ops.reshape(flat, (-1, 1)), v)
    return _ops.reshape(out, (size, size))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of the offset-th diagonal of the planes of axis1, axis2."""
    y = _ops.sum(diagonal(a, offset, axis1, axis2), -1)
    return y if dtype is None else y.astype(dtype)




def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from 1-d coordinate vectors ('xy': Cartesian, 'ij': matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', but got {indexing!r}.")
    vs = [_ops.reshape(_t(x), (-1,)) for x in xi]
    n = len(vs)
    outs = []
    for i, v in enumerate(vs):
        shape = [1] * n
        shape[i] = v.shape[0]
        if indexing == "xy" and n >= 2 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        outs.append(_ops.reshape(v, tuple(shape)))
    if sparse:
        return outs
    full = tuple(_np.broadcast_shapes(*[tuple(o.shape) for o in outs]))
    return [_ops.broadcast_to(o, full) for o in outs]


def indices(dimensions, dtype=_C.int32, sparse=False):
    """The index grid of an array of shape dimensions ([len(dimensions), *dimensions])."""
    grids = meshgrid(*[_C.Tensor(_np.arange(d)).astype(dtype) for d in dimensions],
                     sparse=sparse, indexing="ij")
    return tuple(grids) if sparse else _ops.stack(tuple(grids), 0)


def ix_(*args):
    """Open-mesh index arrays: the k-th 1-d input shaped to broadcast along axis k."""
    n = len(args)
    out = []
    for k, a in enumerate(args):
        a = _t(a)
        if a.ndim != 1:
            raise ValueError("ix_: each input must be 1-d.")
        shape = [1] * n
        shape[k] = a.shape[0]
        out.append(_ops.reshape(a, tuple(shape)))
    return tuple(out)


def vander(x, N=None, increasing=False):  # noqa: N803
    """The Vandermonde matrix of 1-d x (powers N - 1 ... 0, or increasing)."""
    x = _t(x)
    n = x.shape[0] if N is None else N
    powers = _np.arange(n) if increasing else _np.arange(n - 1, -1, -1)
    xf = x if x.dtype.is_floating_point else x.astype(_C.float32)
    out = _ops.pow(_ops.expand_dims(xf, 1), _C.Tensor(powers.astype(_np.float32)).astype(
        xf.dtype))
    return out if x.dtype.is_floating_point else _ops.rint(out).astype(x.dtype)



# ---- selection, sets and indices --------------------------------------------------------------
def choose(a, choices, mode="clip"):
    """out[i] = choices[a[i]][i] (indices clipped or wrapped by mode)."""
    a = _t(a).astype(_C.int64)
    cs = [_t(c) for c in choices]
    n = len(cs)
    if mode == "wrap":
        a = _ops.remainder(a, n)
    elif mode == "clip":
        a = _ops.clamp(a, 0, n - 1)
    else:
        raise ValueError(f"choose: mode must be 'clip' or 'wrap', but got {mode!r}.")
    shape = tuple(_np.broadcast_shapes(tuple(a.shape), *[tuple(c.shape) for c in cs]))
    stacked = _ops.stack(tuple(_ops.broadcast_to(c, shape) for c in cs), 0)
    return _ops.gather_elements(stacked, 0, _ops.expand_dims(_ops.broadcast_to(a, shape),
                                                             0))[0]


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[i] (a function or a constant) where condlist[i] holds; one extra function is
    the default where no condition holds."""
    x = _t(x)
    conds = [_t(c) for c in (condlist if isinstance(condlist, (list, tuple)) else [condlist])]
    if len(funclist) == len(conds) + 1:
        none = _ops.logical_not(_ops.any(_ops.stack(tuple(conds), 0), 0))
        conds = conds + [none]
    out = _ops.zeros_like(x)
    for c, f in zip(conds, funclist):
        v = f(x, *args, **kw) if callable(f) else _ops.ones_like(x) * f
        out = _ops.where(c, _t(v).astype(x.dtype), out)
    return out



def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, keeping the dimension."""
    a = _t(a)
    for ax in ([axes] if isinstance(axes, int) else axes):
        b = _t(func(a, ax))
        a = b if b.ndim == a.ndim else _ops.expand_dims(b, ax)
    return a



def in1d(ar1, ar2, invert=False):
    """For each element of the flattened ar1, whether it occurs in ar2."""
    a = _ops.reshape(_t(ar1), (-1, 1))
    b = _ops.reshape(_t(ar2), (1, -1))
    hit = _ops.any(_ops.equal(a, b.astype(a.dtype)), 1)
    return _ops.logical_not(hit) if invert else hit


def isin(element, test_elements, invert=False):
    """For each element of element (its shape kept), whether it occurs in test_elements."""
    e = _t(element)
    return _ops.reshape(in1d(e, test_elements, invert), tuple(e.shape))


def _unique1d(a):
    return _ops.unique(_ops.reshape(_t(a), (-1,)))[0]



def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ar1 not in ar2."""
    u = _ops.sort(_unique1d(ar1))[0]
    return _ops.masked_select(u, in1d(u, ar2, invert=True))


def searchsorted(a, v, side="left", sorter=None):
    """Where v's elements would be inserted into the sorted 1-d a to keep it sorted."""
    a = _t(a)
    if sorter is not None:
        a = _ops.gather(a, _t(sorter).astype(_C.int64), 0)
    v = _t(v)
    cmp = _ops.less if side == "left" else _ops.less_equal
    return _ops.sum(cmp(a, _ops.expand_dims(v.astype(a.dtype), -1)).astype(_C.int64), -1)


def bincount(x, weights=None, minlength=0, length=None):
    """Counts (or summed weights) of each non-negative int in 1-d x: length
    max(x.max() + 1, minlength)."""
    x = _t(x).astype(_C.int64)
    if length is None:
        top = int(_ops.amax(x).asnumpy()) + 1 if x.shape[0] else 0
        length = max(top, minlength)
    onehot = _ops.equal(_ops.expand_dims(x, -1), _C.Tensor(_np.arange(length, dtype=_np.int64)))
    if weights is None:
        return _ops.sum(onehot.astype(_C.int64), 0)
    w = _t(weights)
    w = w if w.dtype.is_floating_point else w.astype(_C.float32)
    return _ops.sum(onehot.astype(w.dtype) * _ops.expand_dims(w, -1), 0)



def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """The flat indices of coordinates in an array of shape dims ('clip' or 'wrap' out of
    range coordinates)."""
    if mode not in ("clip", "wrap"):
        raise ValueError(f"For 'ravel_multi_index', mode must be 'clip' or 'wrap', but got "
                         f"{mode!r}.")
    if order not in ("C", "F"):
        raise ValueError(f"For 'ravel_multi_index', order must be 'C' or 'F', but got "
                         f"{order!r}.")
    n = len(dims)
    flat = None
    for k in range(n):
        i = k if order == "C" else n - 1 - k
        d = dims[i]
        c = _t(multi_index[i]).astype(_C.int64)
        c = _ops.remainder(c, d) if mode == "wrap" else _ops.clamp(c, 0, d - 1)
        flat = c if flat is None else flat * d + c
    return flat
