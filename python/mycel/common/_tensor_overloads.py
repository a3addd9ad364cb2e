"""MindSpore 2.x's overloaded Tensor methods: one method name, two calling forms (the numpy
form ``x.max(axis, keepdims, *, initial, where, return_indices)`` and the torch form
``x.max(dim=..., keepdim=...)`` that returns (values, indices)), told apart by the arguments
given. Written on mycel.ops, so GRAPH mode compiles the same functions (common/tensor.py
attaches them to Tensor).

How a call picks its form (the same in both modes):

- ``sum``: ``x.sum(dim, keepdim, *, dtype)`` when the second argument is a bool or ``dim`` /
  ``keepdim`` is given by name; otherwise ``x.sum(axis, dtype, keepdims, initial)``, which
  adds ``initial`` before casting the result to ``dtype`` (as MindSpore's).
- ``max`` / ``min``: the torch form (a tuple) only when ``dim`` is given by name; positional
  ints keep the numpy form (a tensor), as MindSpore's GRAPH mode and numpy read them (mycel's
  own code relies on it). ``where`` needs ``initial``, as numpy's.
- ``transpose``: two ints are ``transpose(dim0, dim1)`` (the two dims swapped); otherwise the
  permutation (``*axes`` or one tuple/list), reversed when none is given.
- ``scatter_add``: ``(dim, index, src)`` adds src along dim (torch's scatter_add);
  ``(indices, updates)`` adds updates at the N-d indices (ops.tensor_scatter_add).
"""
from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a, array_ext_func as _ax
from mycel.ops.function import sort_scan_func as _s, index_add_func as _ia
from mycel.ops.function import math_ext_func as _x, special_func as _sp
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr
from mycel.ops.function import nn_func as _nnf

Tensor = _C.Tensor


@constexpr
def _check_reduce_options(op, initial_is_number, initial_given, where_ok, where_is_mask,
                          return_indices):
    if initial_given and not initial_is_number:
        raise TypeError(f"For 'Tensor.{op}', 'initial' must be a number (int, float or bool) "
                        f"or None.")
    if not where_ok:
        raise TypeError(f"For 'Tensor.{op}', 'where' must be True or a bool Tensor.")
    if where_is_mask and not initial_given:
        raise ValueError(f"For 'Tensor.{op}', a 'where' mask needs 'initial' (the value of a "
                         f"reduction over no element).")
    if not isinstance(return_indices, bool):
        raise TypeError(f"For 'Tensor.{op}', 'return_indices' must be a bool, but got "
                        f"{return_indices!r}.")


@constexpr
def _is_int_axis(axis):
    return isinstance(axis, int) and not isinstance(axis, bool)


def _extreme(self, op, axis, keepdims, initial, where, return_indices, dim, keepdim):
    """Tensor.max / Tensor.min (op 'max' or 'min') in either form."""
    if dim is not None:  # torch form: (values, int64 indices) along dim
        keep = bool(keepdim) if keepdim is not None else bool(keepdims)
        if op == "max":
            return _m.amax(self, dim, keep), _m.argmax(self, dim, keep)
        return _m.amin(self, dim, keep), _m.argmin(self, dim, keep)
    where_mask = isinstance(where, Tensor)
    _check_reduce_options(op, isinstance(initial, (int, float)), initial is not None,
                          where_mask or where is True, where_mask, return_indices)
    x = self
    if where_mask:
        x = _m.where(where, x, _a.full(x.shape, initial, dtype=x.dtype))
    if op == "max":
        out = _m.amax(x, axis, keepdims)
        if initial is not None:
            out = _m.maximum(out, _a.full(out.shape, initial, dtype=out.dtype))
    else:
        out = _m.amin(x, axis, keepdims)
        if initial is not None:
            out = _m.minimum(out, _a.full(out.shape, initial, dtype=out.dtype))
    if not return_indices:
        return out
    if axis is None:
        idx = _m.argmax(x) if op == "max" else _m.argmin(x)
    else:
        if not _is_int_axis(axis):
            raise ValueError(f"For 'Tensor.{op}', return_indices needs one int axis.")
        idx = _m.argmax(x, axis, keepdims) if op == "max" else _m.argmin(x, axis, keepdims)
    return out, idx


def max(self, axis=None, keepdims=False, *, initial=None, where=True,  # noqa: A001
        return_indices=False, dim=None, keepdim=None, out=None):
    """The maximum over axis (None: all) as numpy's (initial, where); with return_indices, or
    in the torch form max(dim=..., keepdim=...), (values, indices) along that dim."""
    if out is not None:
        raise TypeError("For 'Tensor.max', 'out' is not supported (it must be None).")
    return _extreme(self, "max", axis, keepdims, initial, where, return_indices, dim, keepdim)


def min(self, axis=None, keepdims=False, *, initial=None, where=True,  # noqa: A001
        return_indices=False, dim=None, keepdim=None, out=None):
    """The minimum over axis (None: all) as numpy's (initial, where); with return_indices, or
    in the torch form min(dim=..., keepdim=...), (values, indices) along that dim."""
    if out is not None:
        raise TypeError("For 'Tensor.min', 'out' is not supported (it must be None).")
    return _extreme(self, "min", axis, keepdims, initial, where, return_indices, dim, keepdim)


def sum(self, axis=None, *args, dtype=None, keepdims=False, initial=None,  # noqa: A001
        out=None, dim=None, keepdim=None):
    """The sum over axis (None: all). numpy form sum(axis, dtype, keepdims, initial): initial
    is added, then the result cast to dtype. torch form sum(dim, keepdim, *, dtype) (a bool
    second argument, or dim/keepdim by name)."""
    if out is not None:
        raise TypeError("For 'Tensor.sum', 'out' is not supported (it must be None).")
    if len(args) > 3:
        raise TypeError(f"For 'Tensor.sum', at most 5 positional arguments are taken, but got "
                        f"{len(args) + 2}.")
    if args and isinstance(args[0], bool):  # x.sum(dim, keepdim, *, dtype): the torch form
        if len(args) > 1:
            raise TypeError("For 'Tensor.sum', sum(dim, keepdim) takes dtype by name only.")
        keepdims = args[0]
    elif args:
        dtype = args[0]
        if len(args) > 1:
            keepdims = args[1]
        if len(args) > 2:
            initial = args[2]
    if dim is not None:
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    x = self.astype(_C.int32) if self.dtype == _C.bool else self
    res = _m.sum(x, axis, bool(keepdims))
    if initial is not None:
        res = _m.add(res, initial)
    if dtype is not None:
        return res.astype(dtype)
    return res if initial is None else res.astype(x.dtype)


def transpose(self, *axes):
    """transpose(dim0, dim1): the two dims swapped; transpose(*axes) or transpose(axes): the
    permutation axes (reversed dims when none is given)."""
    if len(axes) == 2 and _is_int_axis(axes[0]) and _is_int_axis(axes[1]):
        return _a.swapaxes(self, axes[0], axes[1])
    if len(axes) == 1 and not isinstance(axes[0], (tuple, list)):
        axes = (axes[0],)
    elif len(axes) == 1:
        axes = tuple(axes[0])
    if not axes:
        axes = tuple(_reversed_dims(self.ndim))
    return _a.transpose(self, axes)


@constexpr
def _reversed_dims(n):
    return tuple(range(n - 1, -1, -1))


def byte(self):
    """The tensor as uint8."""
    return self.astype(_C.uint8)


@constexpr
def _median_pos(shape, axis, op):
    if not shape:
        return 0, 0
    n = len(shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -n <= axis < n:
        raise ValueError(f"For 'Tensor.{op}', the axis must be an int in [{-n}, {n}), but got "
                         f"{axis!r}.")
    axis %= n
    if shape[axis] == 0:
        raise ValueError(f"For 'Tensor.{op}', the median of an empty axis is not defined.")
    return axis, (shape[axis] - 1) // 2


def median(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """The lower median (of an even count, the smaller middle value, as torch's). median():
    over all elements, a 0-d tensor. median(axis, keepdims) / median(dim=..., keepdim=...):
    (values, int64 indices) along that axis; the index is where the value sits in the input
    (the first of equal values)."""
    if dim is not None:
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    if axis is None:
        flat = _a.reshape(self, (-1,))
        ax, k = _median_pos(flat.shape, 0, "median")
        values, _ = _s.sort(flat, 0)
        return _a.reshape(_ax.narrow(values, 0, k, 1), ())
    ax, k = _median_pos(self.shape, axis, "median")
    if self.ndim == 0:
        return self, _a.zeros((), _C.int64)
    values, indices = _s.sort(self, ax)
    v = _ax.narrow(values, ax, k, 1)
    i = _ax.narrow(indices, ax, k, 1).astype(_C.int64)
    if not keepdims:
        v, i = _a.squeeze(v, ax), _a.squeeze(i, ax)
    return v, i


def scatter(self, axis=None, index=None, src=None, *, dim=None, value=None, reduce=None):
    """self with src (a tensor or a number; or value=) written along axis (or dim) at index
    (ops.scatter; torch's Tensor.scatter)."""
    if reduce is not None:
        raise ValueError("For 'Tensor.scatter', 'reduce' is not supported; use scatter_add "
                         "for reduce='add'.")
    axis = axis if dim is None else dim
    src = src if value is None else value
    if axis is None or index is None or src is None:
        raise TypeError("For 'Tensor.scatter', give the axis (or dim), the index and src (or "
                        "value).")
    return _ia.scatter(self, axis, index, src)


def tensor_scatter_add(input_x, indices, updates):
    """input_x with updates added at the N-d indices (the last dim of indices indexes
    input_x's first dims; a position named twice gets both updates), as ops.tensor_scatter_add.
    """
    x = as_tensor(input_x)
    u = as_tensor(updates).astype(x.dtype)
    return _m.add(x, prim("ScatterNd")(as_tensor(indices), u, x.shape))


def scatter_add(self, dim, index=None, src=None):
    """scatter_add(dim, index, src): src added along dim at index (torch's); scatter_add(
    indices, updates): updates added at the N-d indices (ops.tensor_scatter_add)."""
    if src is None:
        if index is None:
            raise TypeError("For 'Tensor.scatter_add', give (dim, index, src) or (indices, "
                            "updates).")
        return tensor_scatter_add(self, dim, index)
    return _ia.tensor_scatter_elements(self, index, src, dim, "add")


def sort(self, axis=-1, descending=False, *, dim=None, stable=False):
    """(values, int32 indices) sorted along axis (or dim); stable always (mycel's Sort is)."""
    return _s.sort(self, axis if dim is None else dim, descending)


def mm(self, mat2):
    """The matrix product of two 2-D tensors."""
    if not isinstance(mat2, Tensor):
        raise TypeError(f"For 'Tensor.mm', mat2 must be a Tensor, but got "
                        f"{type(mat2).__name__}.")
    _check_mm(self.shape, mat2.shape)
    return _m.matmul(self, mat2)


@constexpr
def _check_mm(a, b):
    if len(a) != 2 or len(b) != 2 or a[1] != b[0]:
        raise ValueError(f"For 'Tensor.mm', the inputs must be 2-D with shapes (n, m) and "
                         f"(m, p), but got {tuple(a)} and {tuple(b)}.")


def bincount(self, weights=None, minlength=0):
    """Counts of each value 0..max of a 1-D tensor of non-negative ints (weights: their sums
    instead), at least minlength long. Its length depends on the values, so it runs in
    PYNATIVE mode; GRAPH mode refuses it (reading the maximum needs its value)."""
    _check_bincount(self.shape, self.dtype, minlength)
    n = _bincount_length(self, minlength)
    w = _a.ones(self.shape, _C.int64) if weights is None else as_tensor(weights)
    idx = _a.reshape(self.astype(_C.int64), (-1, 1))
    return prim("ScatterNd")(idx, w, (n,))


@constexpr
def _check_bincount(shape, dtype, minlength):
    if len(shape) != 1 or dtype not in (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8):
        raise TypeError(f"For 'Tensor.bincount', the input must be a 1-D int tensor, but got "
                        f"shape {tuple(shape)} and {dtype}.")
    if isinstance(minlength, bool) or not isinstance(minlength, int) or minlength < 0:
        raise ValueError(f"For 'Tensor.bincount', minlength must be an int >= 0, but got "
                         f"{minlength!r}.")


def _bincount_length(x, minlength):
    if x.shape[0] == 0:
        return minlength
    if _m.amin(x).item() < 0:
        raise ValueError("For 'Tensor.bincount', the input must not hold negative values.")
    top = int(_m.amax(x).item()) + 1
    return top if top > minlength else minlength


@constexpr
def _check_bounds(op, min_none, max_none, min_tensor, max_tensor):
    if min_none and max_none:
        raise ValueError(f"For 'Tensor.{op}', at least one of 'min' or 'max' must not be None.")
    if (min_tensor and not max_none and not max_tensor) or \
            (max_tensor and not min_none and not min_tensor):
        raise TypeError(f"For 'Tensor.{op}', 'min' and 'max' must both be Tensors or both be "
                        f"numbers (or None).")


def clamp(self, min=None, max=None):  # noqa: A002 (MindSpore's argument names)
    """self limited to [min, max] (either may be None, not both; both Tensors or both
    numbers)."""
    _check_bounds("clamp", min is None, max is None, isinstance(min, Tensor),
                  isinstance(max, Tensor))
    return _m.clamp(self, min, max)


def clip(self, min=None, max=None):  # noqa: A002
    """self limited to [min, max], as clamp."""
    _check_bounds("clip", min is None, max is None, isinstance(min, Tensor),
                  isinstance(max, Tensor))
    return _m.clamp(self, min, max)


@constexpr
def _check_mean(axis, keep):
    ints = (tuple, list)
    ok = axis is None or (isinstance(axis, int) and not isinstance(axis, bool)) or (
        isinstance(axis, ints) and all(isinstance(a, int) and not isinstance(a, bool)
                                       for a in axis))
    if not ok:
        raise TypeError(f"For 'Tensor.mean', the axis (dim) must be None, an int or a tuple of "
                        f"ints, but got {axis!r}.")
    if not isinstance(keep, bool):
        raise TypeError(f"For 'Tensor.mean', keep_dims (keepdim) must be a bool, but got "
                        f"{keep!r}.")


def mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, dtype=None):
    """Mean over axis (or dim; None: all), in dtype when given."""
    axis = axis if dim is None else dim
    keep_dims = keep_dims if keepdim is None else keepdim
    _check_mean(axis, keep_dims)
    x = self if dtype is None else self.astype(dtype)
    return _m.mean(x, axis, keep_dims)


# ------------------------------------------------------------------ take, gcd / lcm
@constexpr
def _take_plan(shape, axis, mode):
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"For 'Tensor.take', mode must be 'raise', 'wrap' or 'clip', but got "
                         f"{mode!r}.")
    if axis is None:
        n = 1
        for d in shape:
            n *= d
        return None, n
    nd = len(shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -nd <= axis < nd:
        raise ValueError(f"For 'Tensor.take', the axis must be None or an int in [{-nd}, {nd}), "
                         f"but got {axis!r}.")
    return axis % nd, shape[axis % nd]


def take(self, indices, axis=None, mode="clip"):
    """numpy.take: the elements at indices along axis (None: of the flattened tensor); the
    result's shape is self.shape[:axis] + indices.shape + self.shape[axis + 1:]. mode: 'clip'
    clamps indices to the range, 'wrap' takes them modulo its length, 'raise' leaves them to
    Gather's bounds check (an IndexError)."""
    ax, n = _take_plan(self.shape, axis, mode)
    x = _a.reshape(self, (-1,)) if ax is None else self
    idx = as_tensor(indices).astype(_C.int64)
    if mode == "clip":
        idx = _m.clamp(idx, 0, n - 1)
    elif mode == "wrap":
        idx = _m.remainder(idx, n)
    return _a.gather(x, idx, 0 if ax is None else ax)


@constexpr
def _check_int_dtypes(op, a, b):
    ints = (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8)
    if a not in ints or b not in ints:
        raise TypeError(f"For 'Tensor.{op}', both inputs must be integer tensors, but got {a} "
                        f"and {b}.")
    return _C.result_type(_C.Tensor(0, a), _C.Tensor(0, b))


def gcd(self, other):
    """The elementwise greatest common divisor (>= 0; gcd(0, 0) = 0) of integer tensors,
    broadcast, by Euclid's algorithm."""
    dt = _check_int_dtypes("gcd", self.dtype, as_tensor(other).dtype)
    a = _m.abs(self.astype(dt))
    b = _m.abs(as_tensor(other).astype(dt))
    a, b = _m.add(a, _a.zeros_like(b)), _m.add(b, _a.zeros_like(a))  # the broadcast shape
    while _m.not_equal(b, 0).any():
        nz = _m.not_equal(b, 0)
        r = _m.remainder(a, _m.where(nz, b, _a.ones_like(b)))
        a, b = _m.where(nz, b, a), _m.where(nz, r, _a.zeros_like(b))
    return a


def lcm(self, other):
    """The elementwise least common multiple (>= 0; 0 when either is 0) of integer tensors,
    broadcast."""
    g = gcd(self, other)
    dt = g.dtype
    a, b = _m.abs(self.astype(dt)), _m.abs(as_tensor(other).astype(dt))
    zero = _m.equal(g, 0)
    q = _m.floor_divide(a, _m.where(zero, _a.ones_like(g), g))
    return _m.where(zero, _a.zeros_like(g), _m.mul(q, b))


# ------------------------------------------------------------------ diagonal_scatter, nanmedian,
# index_put, unfold
@constexpr
def _diag_plan(shape, offset, dim1, dim2):
    import numpy as np
    nd = len(shape)
    # (a tuple offset compared with the index array gave a bool: "no attribute 'sum'")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"For 'Tensor.diagonal_scatter', offset must be an int, but got "
                        f"{type(offset).__name__}.")
    for d in (dim1, dim2):
        if isinstance(d, bool) or not isinstance(d, int) or not -nd <= d < nd:
            raise ValueError(f"For 'Tensor.diagonal_scatter', dim1 and dim2 must be ints in "
                             f"[{-nd}, {nd}), but got {dim1!r} and {dim2!r}.")
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise ValueError("For 'Tensor.diagonal_scatter', dim1 and dim2 must differ.")
    n, m = shape[d1], shape[d2]
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    on = (j - i) == offset
    k = np.where(on, np.minimum(i, j), 0)  # the position along the diagonal
    length = int(on.sum())
    return d1, d2, _C.Tensor(on), _C.Tensor(k.reshape(-1).astype(np.int64)), length, (n, m)


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    """self with the diagonal (offset, over dims dim1 and dim2) replaced by src, whose shape is
    self's other dims then the diagonal's length (torch.diagonal_scatter)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"For 'Tensor.diagonal_scatter', src must be a Tensor, but got "
                        f"{type(src).__name__}.")
    d1, d2, on, k, length, nm = _diag_plan(self.shape, offset, dim1, dim2)
    x = _ax.moveaxis(self, (d1, d2), (-2, -1))
    want = tuple(x.shape[:-2]) + (length,)
    if tuple(src.shape) != want:
        raise ValueError(f"For 'Tensor.diagonal_scatter', src must have shape {want}, but got "
                         f"{tuple(src.shape)}.")
    full = _a.reshape(_a.gather(src.astype(x.dtype), k, src.ndim - 1), tuple(x.shape))
    out = _m.where(on, full, x)
    return _ax.moveaxis(out, (-2, -1), (d1, d2))


def nanmedian(self, axis=-1, keepdims=False):
    """(values, int64 indices): the lower median along axis of the elements that are not NaN,
    and where it sits in the input (torch.nanmedian); where all are NaN, NaN and the index of
    the first."""
    ax, _ = _median_pos(self.shape, axis, "nanmedian")
    values, indices = _s.sort(self, ax)  # NaN sorts last
    count = _m.sum(_m.logical_not(_x.isnan(self)).astype(_C.int64), ax, True)
    k = _m.floor_divide(_m.maximum(_m.sub(count, 1), _a.zeros_like(count)), 2)
    v = _a.gather_elements(values, ax, k)
    i = _a.gather_elements(indices.astype(_C.int64), ax, k)
    if not keepdims:
        v, i = _a.squeeze(v, ax), _a.squeeze(i, ax)
    return v, i


def index_put(self, indices, values, accumulate=False):
    """self with values written at the positions the 1-D int tensors in indices name together
    (self[indices[0][i], indices[1][i], ...]); accumulate adds them instead (a position named
    twice then gets both). values broadcasts to the number of positions and the trailing dims.
    """
    if not isinstance(indices, (tuple, list)) or len(indices) == 0:
        raise TypeError("For 'Tensor.index_put', indices must be a non-empty tuple or list of "
                        "1-D int tensors.")
    if not isinstance(accumulate, bool):
        raise TypeError(f"For 'Tensor.index_put', accumulate must be a bool, but got "
                        f"{accumulate!r}.")
    cols = ()
    for t in indices:
        cols = cols + (as_tensor(t).astype(_C.int64),)
    nd_idx = _a.stack(cols, -1)
    upd_shape = tuple(nd_idx.shape[:-1]) + tuple(self.shape[len(cols):])
    upd = _a.broadcast_to(as_tensor(values).astype(self.dtype), upd_shape)
    if accumulate:
        return _m.add(self, prim("ScatterNd")(nd_idx, upd, self.shape))
    return prim("TensorScatterUpdate")(self, nd_idx, upd)


def unfold(self, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding kxk blocks of an (N, C, H, W) tensor as columns (N, C * kh * kw, L), L the
    number of block positions (ops.unfold; torch.nn.functional.unfold; im2col)."""
    cols = _nnf.unfold_blocks("Tensor.unfold", self, kernel_size, dilation, padding, stride)
    return _a.reshape(cols, (cols.shape[0], cols.shape[1] * cols.shape[2], cols.shape[3]))


# ------------------------------------------------------------------ layout queries
# A PYNATIVE tensor may be a view (a transpose, a slice) with its own strides and offset into
# shared storage; a value in graph code owns contiguous row-major storage. So these methods
# have a graph-code form (GRAPH_FORMS, which graph mode's method lookup takes first:
# frontend/py_host.cc) beside the eager one.
def stride(self, dim=None):
    """The step, in elements, between neighbours along each dim (a tuple), or along dim."""
    s = tuple(b // self.itemsize for b in self.strides)
    return s if dim is None else s[dim]


def storage_offset(self):
    """Where the first element sits in its storage, in elements."""
    return self._storage_offset


@constexpr
def _row_major_strides(shape, dim):
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d if d > 0 else 1
    out = tuple(reversed(out))
    return out if dim is None else out[dim]


def _graph_stride(self, dim=None):
    return _row_major_strides(self.shape, dim)


def _graph_storage_offset(self):
    return 0


def _graph_contiguous(self):
    return self


def _graph_is_contiguous(self):
    return True


# asnumpy()/numpy() in graph code (MindSpore runs them through its JIT fallback): graph code
# has no numpy arrays, so the array is the tensor's value itself; arithmetic on it, Tensor(it)
# and tensor(it, dtype) are tensor operations, and a graph returning it returns a Tensor.
def _graph_asnumpy(self):
    return self


# Parameter.value() in graph code (MindSpore's): a Parameter read in a graph is already its
# value at that point of the program (ordered after the graph's writes of it), so value() is
# that value. Graph code types a Parameter as a Tensor, so a Tensor's value() reads the same.
def _graph_value(self):
    return self


GRAPH_FORMS = {"value": _graph_value, "stride": _graph_stride, "storage_offset": _graph_storage_offset,
               "contiguous": _graph_contiguous, "is_contiguous": _graph_is_contiguous,
               "asnumpy": _graph_asnumpy, "numpy": _graph_asnumpy}


METHODS = {"max": max, "min": min, "amax": max, "amin": min, "sum": sum,
           "transpose": transpose, "byte": byte, "median": median, "scatter": scatter,
           "scatter_add": scatter_add, "sort": sort, "mm": mm, "bincount": bincount,
           "clamp": clamp, "clip": clip, "mean": mean, "take": take,
           "gcd": gcd, "lcm": lcm, "diagonal_scatter": diagonal_scatter,
           "nanmedian": nanmedian, "index_put": index_put, "unfold": unfold,
           "lgamma": _sp.lgamma, "digamma": _sp.digamma, "i0": _sp.i0,
           "stride": stride, "storage_offset": storage_offset}
