"""Shape and data-movement functions (MindSpore 2.x names).

More of MindSpore 2.x's array functions, composed from op-table primitives (so both modes,
gradients and vmap follow from the ops they are built of): constructors (eye, full_like,
tril_indices, triu_indices, vander, logspace), views and joins (t, ravel, chunk, hstack,
vstack, dstack, column_stack, row_stack, atleast_1d/2d/3d, meshgrid, block_diag, rot90),
products (mm, mv, dot, tensor_dot, batch_dot, kron, cross), diagonals (diag, diag_embed),
gathers (gather_nd, sequence_mask, reverse_sequence, repeat_elements), the predicates
(is_tensor, is_floating_point, is_nonzero, numel) and cummax / cummin.

Index tables that depend only on static shapes are made on the host at trace time
(constexpr helpers), so graph mode sees them as constants.
"""
import builtins as _builtins  # `range` is redefined below, as MindSpore's ops.range
import math

from mycel import _mycel as _C
from mycel.ops.function._util import (prim, shape_arg, as_tensor, host_bytes, guarded,
                                     holds_dynamic_dim, refuse_dynamic_shape, shape_guarded)
from mycel.ops.primitive import constexpr
import numpy as np
from mycel.ops.function.layout_func import flip
from mycel.ops.function.index_add_func import repeat_interleave


__all__ = ["prim", "shape_arg", "as_tensor", "constexpr", "reshape", "transpose", "permute",
           "swapaxes", "expand_dims", "unsqueeze", "squeeze", "flatten", "concat", "cat",
           "stack", "split", "tile", "broadcast_to", "gather", "strided_slice", "gather_d",
           "gather_elements", "scatter_nd", "tensor_scatter_update", "one_hot", "pad",
           "arange", "range", "cast", "zeros_like", "ones_like", "fill", "full", "zeros",
           "ones", "shape", "size", "rank", "assign", "assign_add", "eye", "full_like",
           "tril_indices", "triu_indices", "vander", "logspace", "t", "ravel", "chunk",
           "hstack", "vstack", "dstack", "column_stack", "row_stack", "atleast_1d",
           "atleast_2d", "atleast_3d", "meshgrid", "block_diag", "rot90", "diag", "diag_embed",
           "gather_nd", "sequence_mask", "reverse_sequence", "repeat_elements", "is_tensor",
           "is_floating_point", "is_nonzero", "numel", "cummax", "cummin", "combinations"]


def reshape(input, shape):  # noqa: A002
    """The same data with a new shape (one entry may be -1); a view when the layout allows.
    In graph mode an entry known only at run time (a dimension read from x.shape under
    set_inputs) is inferred as -1 and the result's shape checked when it runs; with the
    shape's own -1 too (``x.view(x.shape[0], -1)``), that entry is taken to be the input's one
    dynamic dimension (_reshape_plan), and checked so."""
    if not holds_dynamic_dim(shape):
        return prim("Reshape")(input, shape_arg(shape, "reshape"))
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    mask = ()
    for d in dims:
        mask = mask + (holds_dynamic_dim(d),)
    plan = _reshape_plan(_static_shape(as_tensor(input).shape),
                         shape_arg(dims, "reshape", True), mask)
    want = ()
    for i in _builtins.range(len(dims)):
        want = want + ((dims[i] if mask[i] else plan[i]),)
    return shape_guarded(prim("Reshape")(input, plan), want,
                         "For 'reshape', the input's element count does not fit the requested "
                         "shape, some of whose dimensions are known only at run time (in graph "
                         "mode, with a -1 beside it, such a dimension must be the input's "
                         "dynamic one).")


@constexpr
def _reshape_plan(in_shape, target, dynamic):
    """Reshape's static target for a shape with entries known only at run time (dynamic[i];
    -1 in target, as the shape's own -1): target as it is, unless it has one such entry and
    one -1 of its own and the input one dynamic dimension: then the entry is taken to be that
    dimension (the caller checks it when it runs), so the -1 is the input's known element
    count over the target's."""
    own = [i for i, t in enumerate(target) if t == -1 and not dynamic[i]]
    if len(own) != 1 or sum(dynamic) != 1 or sum(1 for d in in_shape if d < 0) != 1:
        return tuple(target)
    known_in = int(np.prod([d for d in in_shape if d >= 0]))
    known_t = int(np.prod([t for i, t in enumerate(target) if t != -1]))
    if known_t <= 0 or known_in % known_t:
        return tuple(target)
    out = list(target)
    out[own[0]] = known_in // known_t
    return tuple(out)


def transpose(input, input_perm):  # noqa: A002
    """Permutes the dimensions (a view)."""
    if not isinstance(input_perm, (tuple, list, _C.Tensor)):  # (tuple() of it named no op)
        raise TypeError(f"For 'transpose', input_perm must be a tuple of ints, but got "
                        f"{type(input_perm).__name__}.")
    return prim("Transpose")(input, tuple(input_perm))


def permute(input, axis):  # noqa: A002
    """Permutes the dimensions (a view)."""
    return prim("Transpose")(input, tuple(axis))


@constexpr
def _check_axis(axis, ndim, op, name="axis"):
    """axis in [0, ndim) from an int in [-ndim, ndim) (a 0-d tensor takes 0 and -1); a
    TypeError or ValueError naming op otherwise."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(axis).__name__}.")
    n = max(ndim, 1)
    if not -n <= axis < n:
        raise ValueError(f"For '{op}', '{name}' {axis} is out of range for a tensor of rank "
                         f"{ndim}.")
    return axis % n


def swapaxes(input, axis0, axis1):  # noqa: A002
    """Exchanges two dimensions."""
    x = as_tensor(input)
    perm = list(_builtins.range(x.ndim))
    a0 = _check_axis(axis0, x.ndim, "swapaxes", "axis0")
    a1 = _check_axis(axis1, x.ndim, "swapaxes", "axis1")
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(x, perm)


def expand_dims(input_x, axis):
    """Inserts a dimension of size 1 at axis."""
    return prim("ExpandDims")(input_x, axis)


unsqueeze = expand_dims


def squeeze(input, axis=None):  # noqa: A002
    """Removes dimensions of size 1 (all, or those in axis)."""
    if axis is not None and not isinstance(axis, (int, tuple, list)):
        raise TypeError(f"For 'squeeze', axis must be None, an int or a tuple of ints, but got "
                        f"{type(axis).__name__}.")
    ax = () if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return prim("Squeeze", axis=ax)(input)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):  # noqa: A002
    """Merges dims start_dim..end_dim into one (MindSpore 2.x defaults keep the batch dim).
    order 'F' (Fortran, MindSpore's rule) reverses the dims first, then merges."""
    if order not in ("C", "F"):
        raise ValueError(f"For 'flatten', order must be 'C' or 'F', but got {order!r}.")
    x = as_tensor(input)
    if order == "F" and x.ndim > 1:
        x = transpose(x, tuple(_builtins.range(x.ndim - 1, -1, -1)))
    if x.ndim == 0:
        return x.reshape((1,))
    s, e = start_dim % x.ndim, end_dim % x.ndim
    if s > e:
        raise ValueError(f"For 'flatten', start_dim {start_dim} comes after end_dim {end_dim} "
                         f"for a tensor of rank {x.ndim}.")
    dims = _static_shape(x.shape)  # a dynamic dimension is -1 here
    kept, merged = dims[:s] + dims[e + 1:], dims[s:e + 1]
    mid = -1  # Reshape infers it, unless a kept dimension is the dynamic (-1) one
    if any(d < 0 for d in kept) and all(d >= 0 for d in merged):
        mid = 1
        for d in merged:
            mid *= d
    return reshape(x, dims[:s] + (mid,) + dims[e + 1:])


def concat(tensors, axis=0):
    """Joins tensors along an existing axis."""
    return prim("Concat", axis=axis)(tuple(tensors))


cat = concat


def stack(tensors, axis=0):
    """Joins tensors along a new axis."""
    return prim("Stack", axis=axis)(tuple(tensors))


def split(tensor, split_size_or_sections, axis=0):
    """Splits into chunks of split_size (an int; the last may be smaller) or into sections of
    the given sizes (a list)."""
    x = as_tensor(tensor)
    axis = _check_axis(axis, x.ndim, "split")  # (x.shape[1.5] named no op)
    n = x.shape[axis]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0:
            raise ValueError(f"For 'split', split_size must be positive, but got {size}.")
        if n % size == 0:
            return prim("Split", axis=axis, output_num=n // size)(x)
        sizes = [size] * (n // size) + [n % size]
    else:
        if not isinstance(split_size_or_sections, (tuple, list)):
            raise TypeError(f"For 'split', split_size_or_sections must be an int or a tuple of "
                            f"ints, but got {type(split_size_or_sections).__name__}.")
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise ValueError(f"For 'split', the sections {sizes} must add up to the size {n} of "
                             f"axis {axis}.")
    out, start = (), 0  # a tuple grown in place: graph code has no list.append
    ax = axis % x.ndim
    for s in sizes:
        idx = (slice(None),) * ax + (slice(start, start + s),)
        out = out + (x[idx],)
        start += s
    return out


def tile(input, multiples):  # noqa: A002
    """Repeats the tensor multiples[i] times along each axis."""
    return prim("Tile")(input, shape_arg(multiples, "tile"))


def broadcast_to(input, shape):  # noqa: A002
    """A broadcast view with the given shape (-1 keeps a dimension). In graph mode a dimension
    known only at run time (from x.shape under set_inputs) is kept from the input's and
    checked when it runs: a static input dimension of 1 cannot grow to it."""
    r = prim("BroadcastTo", shape=shape_arg(shape, "broadcast_to", True))(input)
    if holds_dynamic_dim(shape):
        return shape_guarded(r, shape, "For 'broadcast_to', the input's shape does not give the "
                             "requested shape, some of whose dimensions are known only at run "
                             "time: in graph mode such a dimension is kept from the input, whose "
                             "dimension there must be dynamic or equal to it.")
    return r


def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of input_params along axis at input_indices."""
    return prim("Gather", batch_dims=batch_dims)(input_params, input_indices, axis)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """input_x[begin:end:strides] per dimension (P.StridedSlice; begin, end and strides are
    tuples of ints or 1-d integer tensors; the masks as MindSpore's: a set bit i ignores
    begin[i] / end[i], inserts a new axis, or drops dimension i)."""
    return prim("StridedSlice", begin_mask=begin_mask, end_mask=end_mask,
                ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                shrink_axis_mask=shrink_axis_mask)(
        input_x, shape_arg(begin, "strided_slice"), shape_arg(end, "strided_slice"),
        shape_arg(strides, "strided_slice"))


def _embedding_rows(params, indices, offset=0):
    """params[indices - offset] along axis 0, zero rows where the shifted index is outside
    [0, params.shape[0]) (P.EmbeddingLookup's rule for one shard of a row-split table)."""
    p = as_tensor(params)
    shifted = prim("Sub")(as_tensor(indices), offset)
    inside = prim("LogicalAnd")(prim("GreaterEqual")(shifted, 0),
                                prim("Less")(shifted, p.shape[0]))
    rows = prim("Gather")(p, prim("Select")(inside, shifted, prim("ZerosLike")(shifted)), 0)
    keep = prim("Reshape")(inside, inside.shape + (1,) * (p.ndim - 1))
    return prim("Select")(keep, rows, prim("ZerosLike")(rows))


def gather_d(x, dim, index):
    """out[i][j] = x[index[i][j]][j] for dim 0, and so on."""
    return prim("GatherD")(x, index, dim)


def gather_elements(input, dim, index):  # noqa: A002
    """Same as gather_d."""
    return prim("GatherD")(input, index, dim)


def scatter_nd(indices, updates, shape):
    """zeros(shape) with updates summed in at indices."""
    return prim("ScatterNd")(indices, updates, shape_arg(shape, "scatter_nd"))


def tensor_scatter_update(input_x, indices, updates):
    """input_x with the slices at indices replaced by updates."""
    return prim("TensorScatterUpdate")(input_x, indices, updates)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot vectors of length depth; float32 unless on_value is a tensor."""
    dtype = on_value.dtype if isinstance(on_value, _C.Tensor) else _C.float32
    on = on_value.item() if isinstance(on_value, _C.Tensor) else on_value
    off = off_value.item() if isinstance(off_value, _C.Tensor) else off_value
    return prim("OneHot", axis=axis, dtype=dtype)(indices, int(depth), float(on), float(off))


def pad(input_x, padding, mode="constant", value=None):
    """Pads the trailing dimensions: padding is (left, right) for the last dim, then (top,
    bottom) for the one before, and so on (torch order)."""
    if mode != "constant":
        raise ValueError(f"For 'pad', only mode 'constant' is supported, but got {mode!r}.")
    x = as_tensor(input_x)
    padding = tuple(padding)
    if len(padding) % 2 or len(padding) // 2 > x.ndim:
        raise ValueError(f"For 'pad', padding must hold (before, after) pairs for at most "
                         f"{x.ndim} dimensions, but got {padding}.")
    pairs = [(0, 0)] * x.ndim
    for i in _builtins.range(len(padding) // 2):
        pairs[x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    flat = tuple(v for p in pairs for v in p)
    return prim("Pad", paddings=flat, value=float(value or 0))(x)


def arange(start=0, end=None, step=1, *, dtype=None):
    """Values from start to end (exclusive) by step: int64 for ints, float32 otherwise."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, _C.Tensor) else v for v in (start, end, step)]
    for v in vals:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"For 'arange', start, end and step must be numbers, but got "
                            f"{type(v).__name__}.")
    if vals[2] == 0 or (vals[1] - vals[0]) * vals[2] < 0:
        raise ValueError(f"For 'arange', step {vals[2]} must be non-zero and lead from start "
                         f"{vals[0]} towards end {vals[1]}.")
    if dtype is None:
        is_int = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
        dtype = _C.int64 if is_int else _C.float32
    return prim("Range", dtype=dtype)(*[float(v) for v in vals])


@constexpr
def _check_maxlen(maxlen, n):
    if isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen <= 0:
        raise TypeError(f"For 'range', 'maxlen' must be a positive int, but got {maxlen!r}.")
    if n is not None and n > maxlen:
        raise ValueError(f"For 'range', the output has {n} elements, more than maxlen "
                         f"({maxlen}).")


def range(start, end, step, maxlen=1000000):  # noqa: A001
    """Same as arange(start, end, step); maxlen (MindSpore's Range attribute) is the most
    elements the output may have: more is a ValueError."""
    out = arange(start, end, step)
    n = out.shape[0]
    _check_maxlen(maxlen, n if n >= 0 else None)
    return out


def cast(input, dtype):  # noqa: A002
    """The tensor converted to dtype."""
    return prim("Cast")(input, dtype)


def zeros_like(input, *, dtype=None):  # noqa: A002
    """Zeros of input's shape (and dtype unless given)."""
    out = prim("ZerosLike")(input)
    return out if dtype is None else out.astype(dtype)


def ones_like(input, *, dtype=None):  # noqa: A002
    """Ones of input's shape (and dtype unless given)."""
    out = prim("OnesLike")(input)
    return out if dtype is None else out.astype(dtype)


def _fill(op, type, shape, value):  # noqa: A002
    v = value.item() if isinstance(value, _C.Tensor) else value
    return prim("Fill")(type, shape_arg(shape, op), float(v))


def fill(type, shape, value):  # noqa: A002
    """A tensor of shape and dtype `type` filled with value."""
    return _fill("fill", type, shape, value)


def full(size, fill_value, *, dtype=None):
    """A tensor of shape size filled with fill_value."""
    if dtype is None:
        dtype = _C.float32 if isinstance(fill_value, float) else (
            _C.bool if isinstance(fill_value, bool) else _C.int64)
    return _fill("full", dtype, size, fill_value)


def zeros(size, dtype=None):
    """Zeros of the given shape (float32 by default)."""
    return _fill("zeros", dtype or _C.float32, size, 0)


def ones(size, dtype=None):
    """Ones of the given shape (float32 by default)."""
    return _fill("ones", dtype or _C.float32, size, 1)


def shape(input_x):
    """The shape as a tuple of ints (MindSpore's ops.shape): in graph mode, as ``x.shape``, a
    dimension unknown at compile time (set_inputs with None) is read at run time."""
    return as_tensor(input_x).shape


def _tensor_arg(x, op):
    """x, which must be a Tensor (MindSpore's size and rank take no Python numbers)."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    return x


def size(input_x):
    """The number of elements of a Tensor."""
    return _tensor_arg(input_x, "size").size


def rank(input_x):
    """The number of dimensions of a Tensor."""
    return _tensor_arg(input_x, "rank").ndim


def assign(variable, value):
    """Writes value into the Parameter (or tensor) `variable` in place and returns it; value
    takes variable's dtype and must have its shape. In a graph, as in PYNATIVE mode, reads
    of `variable` before the assignment in the program see the old value, reads after it the
    new one."""
    return prim("Assign")(variable, as_tensor(value))


def assign_add(variable, value):
    """``variable += value`` in place (as assign); returns variable."""
    return prim("AssignAdd")(variable, as_tensor(value))




FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


@constexpr
def _const(arr, dtype):
    """A constant tensor of a host array cast to dtype."""
    return _C.Tensor(np.ascontiguousarray(arr)).astype(dtype)


@constexpr
def _need_int(v, op, name, low=None):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(v).__name__}.")
    if low is not None and v < low:
        raise ValueError(f"For '{op}', '{name}' must be >= {low}, but got {v}.")
    return int(v)


@constexpr
def _norm_axis(axis, nd, op, name="axis"):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(axis).__name__}.")
    n = max(nd, 1)
    if not -n <= axis < n:
        raise ValueError(f"For '{op}', '{name}' {axis} is out of range [-{n}, {n}).")
    return int(axis) % n


def _need_tensor(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def eye(n, m=None, dtype=None):
    """The n x m identity matrix (m = n when None), float32 unless dtype is given."""
    if holds_dynamic_dim((n, m)):
        refuse_dynamic_shape("eye", (n, m) if m is not None else (n, n))
    n = _need_int(n, "eye", "n", 0)
    m = n if m is None else _need_int(m, "eye", "m", 0)
    host_bytes("eye", 8 * n * m)
    return _const(np.eye(n, m), _C.float32 if dtype is None else dtype)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002 (MindSpore's names)
    """A tensor of input's shape filled with fill_value (input's dtype unless given)."""
    x = _need_tensor(input, "full_like")
    dtype = x.dtype if dtype is None else dtype
    if holds_dynamic_dim(x.shape):  # (a fill needs its shape at compile time)
        value = full((), fill_value, dtype=dtype)
        if dtype == _C.bool:
            return prim("LogicalOr")(zeros_like(x, dtype=dtype), value)
        return prim("Add")(zeros_like(x, dtype=dtype), value)
    return full(x.shape, fill_value, dtype=dtype)


@constexpr
def _tri_indices(row, col, offset, lower, dtype, op):
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        _need_int(v, op, name)
    if row < 0 or col < 0:
        raise ValueError(f"For '{op}', row and col must be non-negative, but got {row}, {col}.")
    if dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', dtype must be int32 or int64, but got {dtype}.")
    host_bytes(op, 24 * row * col)  # numpy's mask and the two index arrays
    idx = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return _C.Tensor(np.stack(idx).astype(np.int64).reshape(2, -1)).astype(dtype)


def tril_indices(row, col, offset=0, *, dtype=_C.int64):
    """The (2, N) coordinates of the lower triangle of a row x col matrix (diagonal offset
    included), row-major."""
    return _tri_indices(row, col, offset, True, dtype, "tril_indices")


def triu_indices(row, col, offset=0, *, dtype=_C.int64):
    """The (2, N) coordinates of the upper triangle of a row x col matrix."""
    return _tri_indices(row, col, offset, False, dtype, "triu_indices")


@constexpr
def _vander_plan(shape, n, op="vander"):
    if len(shape) != 1:
        raise ValueError(f"For '{op}', x must be 1-D, but got shape {tuple(shape)}.")
    n = shape[0] if n is None else _need_int(n, op, "N", 0)
    return n, _C.Tensor(np.arange(n - 1, -1, -1, dtype=np.float64))


def vander(x, N=None):  # noqa: N803 (MindSpore's argument name)
    """The Vandermonde matrix: column j holds x ** (N - 1 - j); N = len(x) by default."""
    x = _need_tensor(x, "vander", "x")
    n, powers = _vander_plan(x.shape, N)
    col = prim("Reshape")(x, (x.shape[0], 1))
    p = prim("Cast")(powers, x.dtype)
    return prim("Pow")(prim("BroadcastTo", shape=(x.shape[0], n))(col), p)


def logspace(start, end, steps, base=10, *, dtype=_C.float32):
    """steps points base ** linspace(start, end, steps)."""
    steps = _need_int(steps, "logspace", "steps", 0)
    base = _need_int(base, "logspace", "base")
    host_bytes("logspace", 16 * steps)  # numpy's linspace of steps values
    if isinstance(start, _C.Tensor) or isinstance(end, _C.Tensor):
        s = prim("Cast")(as_tensor(start), _C.float64)
        e = prim("Cast")(as_tensor(end), _C.float64)
        frac = _const(np.linspace(0.0, 1.0, steps) if steps > 1 else np.zeros(steps),
                      _C.float64)
        exps = s + (e - s) * frac
        return prim("Cast")(prim("Pow")(_const(np.float64(base), _C.float64), exps), dtype)
    return _const(np.logspace(float(start), float(end), steps, base=float(base)), dtype)


def t(input):  # noqa: A002
    """A 2-D tensor transposed; a 1-D (or 0-D) one as it is."""
    x = _need_tensor(input, "t")
    if x.ndim > 2:
        raise ValueError(f"For 't', the input must be at most 2-D, but got shape {x.shape}.")
    if x.ndim < 2:
        return x
    return prim("Transpose")(x, (1, 0))


def ravel(input):  # noqa: A002
    """The elements as a 1-D tensor (row-major)."""
    return prim("Reshape")(_need_tensor(input, "ravel"), (-1,))


@constexpr
def _chunk_sizes(shape, chunks, axis, op="chunk"):
    chunks = _need_int(chunks, op, "chunks", 1)
    ax = _norm_axis(axis, len(shape), op)
    if len(shape) == 0:
        raise ValueError(f"For '{op}', the input must have at least 1 dimension.")
    n = shape[ax]
    size = max(-(-n // chunks), 1)
    sizes = [size] * (n // size) + ([n % size] if n % size else [])
    return ax, tuple(sizes) if sizes else (0,)


def chunk(input, chunks, axis=0):  # noqa: A002
    """Splits input along axis into at most `chunks` pieces of ceil(n / chunks) elements
    (the last one smaller when it does not divide)."""
    x = _need_tensor(input, "chunk")
    ax, sizes = _chunk_sizes(x.shape, chunks, axis)
    if len(sizes) == 1:
        return (x,)
    return split(x, sizes, ax)


@constexpr
def _at_least_shape(shape, n):
    shape = tuple(shape)
    if len(shape) >= n:
        return shape
    if n == 3 and len(shape) == 2:
        return shape + (1,)
    if n == 3 and len(shape) == 1:
        return (1,) + shape + (1,)
    return (1,) * (n - len(shape)) + shape


def _at_least(x, n):
    return prim("Reshape")(x, _at_least_shape(x.shape, n))


def _check_seq(tensors, op):
    if not isinstance(tensors, (tuple, list)) or len(tensors) == 0:
        raise TypeError(f"For '{op}', the input must be a non-empty tuple or list of "
                        f"Tensors, but got {type(tensors).__name__}.")
    return True


def _atleast(inputs, n, op):
    if isinstance(inputs, _C.Tensor):
        return _at_least(inputs, n)
    _check_seq(inputs, op)
    out = ()
    for x in inputs:
        out = out + (_at_least(_need_tensor(x, op), n),)
    return out


def atleast_1d(inputs):
    """A tensor (or each of a sequence of them) with at least one dimension."""
    return _atleast(inputs, 1, "atleast_1d")


def atleast_2d(inputs):
    """A tensor (or each of a sequence) with at least two dimensions ([n] -> [1, n])."""
    return _atleast(inputs, 2, "atleast_2d")


def atleast_3d(inputs):
    """At least three dimensions: [n] -> [1, n, 1], [m, n] -> [m, n, 1]."""
    return _atleast(inputs, 3, "atleast_3d")


def hstack(tensors):
    """The tensors joined along axis 1 (axis 0 when they are 1-D)."""
    _check_seq(tensors, "hstack")
    parts = _atleast(tensors, 1, "hstack")
    return concat(parts, 0 if parts[0].ndim == 1 else 1)


def vstack(inputs):
    """The tensors made at least 2-D and joined along axis 0."""
    _check_seq(inputs, "vstack")
    return concat(_atleast(inputs, 2, "vstack"), 0)


row_stack = vstack


def dstack(inputs):
    """The tensors made at least 3-D and joined along axis 2."""
    _check_seq(inputs, "dstack")
    return concat(_atleast(inputs, 3, "dstack"), 2)


def column_stack(tensors):
    """1-D (and 0-D) tensors as columns, others as they are, joined along axis 1."""
    _check_seq(tensors, "column_stack")
    out = ()
    for x in tensors:
        x = _need_tensor(x, "column_stack")
        if x.ndim < 2:
            x = prim("Reshape")(x, (-1, 1))
        out = out + (x,)
    return concat(out, 1)


@constexpr
def _grid_shapes(shapes, indexing):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', indexing must be 'xy' or 'ij', but got "
                         f"{indexing!r}.")
    for s in shapes:
        if len(s) != 1:
            raise ValueError(f"For 'meshgrid', each input must be 1-D, but got shape "
                             f"{tuple(s)}.")
    sizes = [s[0] for s in shapes]
    n = len(sizes)
    order = list(_builtins.range(n))
    if indexing == "xy" and n >= 2:
        order[0], order[1] = 1, 0  # output dims: (len y, len x, ...)
    full = tuple(sizes[order[d]] for d in _builtins.range(n))
    views = []
    for i in _builtins.range(n):
        d = order.index(i)
        views.append(tuple(sizes[i] if k == d else 1 for k in _builtins.range(n)))
    return full, tuple(views)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids of 1-D tensors; "xy" (Cartesian, the default) swaps the first two
    output dimensions with respect to "ij" (matrix) indexing."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = inputs[0]
    _check_seq(inputs, "meshgrid")
    shapes = ()
    for x in inputs:
        shapes = shapes + (_need_tensor(x, "meshgrid").shape,)
    full, views = _grid_shapes(shapes, indexing)
    out = ()
    for i, x in enumerate(inputs):
        out = out + (prim("BroadcastTo", shape=full)(prim("Reshape")(x, views[i])),)
    return out


@constexpr
def _block_plan(shapes):
    rows = sum(s[0] if len(s) == 2 else 1 for s in shapes)
    cols = sum((s[1] if len(s) == 2 else (s[0] if len(s) == 1 else 1)) for s in shapes)
    pads, r, c = [], 0, 0
    for s in shapes:
        if len(s) > 2:
            raise ValueError(f"For 'block_diag', each input must be at most 2-D, but got "
                             f"shape {tuple(s)}.")
        h = s[0] if len(s) == 2 else 1
        w = s[1] if len(s) == 2 else (s[0] if len(s) == 1 else 1)
        pads.append(((r, rows - r - h), (c, cols - c - w)))
        r, c = r + h, c + w
    return tuple(pads)


def block_diag(*inputs):
    """The inputs (0-, 1- or 2-D) placed on the diagonal of a zero matrix."""
    _check_seq(inputs, "block_diag")
    shapes = ()
    for x in inputs:
        shapes = shapes + (_need_tensor(x, "block_diag").shape,)
    pads = _block_plan(shapes)
    dt = inputs[0].dtype
    out = None
    for i, x in enumerate(inputs):
        x2 = _at_least(prim("Cast")(x, dt), 2)
        p = prim("Pad", paddings=pads[i])(x2)
        out = p if out is None else out + p
    return out


@constexpr
def _rot_plan(nd, k, dims):
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"For 'rot90', 'k' must be an int, but got {type(k).__name__}.")
    if not isinstance(dims, (tuple, list)) or len(dims) != 2:
        raise ValueError(f"For 'rot90', 'dims' must be a list of two ints, but got {dims!r}.")
    if nd < 2:
        raise ValueError(f"For 'rot90', the input must be at least 2-D, but got rank {nd}.")
    d0, d1 = (_norm_axis(d, nd, "rot90", "dims") for d in dims)
    if d0 == d1:
        raise ValueError(f"For 'rot90', the two dims must differ, but got {tuple(dims)}.")
    perm = list(_builtins.range(nd))
    perm[d0], perm[d1] = d1, d0
    return k % 4, d0, d1, tuple(perm)


def rot90(input, k, dims):  # noqa: A002
    """Rotates by 90 degrees k times in the plane of dims, from dims[0] towards dims[1]."""
    x = _need_tensor(input, "rot90")
    k, d0, d1, perm = _rot_plan(x.ndim, k, dims)
    if k == 1:
        return prim("Transpose")(flip(x, (d1,)), perm)
    if k == 2:
        return flip(x, (d0, d1))
    if k == 3:
        return flip(prim("Transpose")(x, perm), (d1,))
    return x


@constexpr
def _diag_plan(shape):
    if len(shape) == 0:
        raise ValueError("For 'diag', the input must have at least 1 dimension.")
    n = int(np.prod(shape))
    idx = np.arange(n, dtype=np.int64) * (n + 1)
    return n, _C.Tensor(idx.reshape(-1, 1)), tuple(shape) + tuple(shape)


def diag(input):  # noqa: A002
    """A tensor of rank 2k holding input (rank k) on its diagonal:
    out[i1..ik, i1..ik] = input[i1..ik], zeros elsewhere."""
    x = _need_tensor(input, "diag")
    n, idx, out = _diag_plan(x.shape)
    flat = scatter_nd(idx, prim("Reshape")(x, (-1,)), (n * n,))
    return prim("Reshape")(flat, out)


@constexpr
def _embed_plan(shape, offset, dim1, dim2):
    nd = len(shape) + 1
    d1 = _norm_axis(dim1, nd, "diag_embed", "dim1")
    d2 = _norm_axis(dim2, nd, "diag_embed", "dim2")
    if d1 == d2:
        raise ValueError(f"For 'diag_embed', dim1 and dim2 must differ, but got {dim1}, {dim2}.")
    if len(shape) == 0:
        raise ValueError("For 'diag_embed', the input must have at least 1 dimension.")
    n = shape[-1]
    m = n + abs(offset)
    host_bytes("diag_embed", 24 * m * m)
    rows = np.arange(m)[:, None]
    cols = np.arange(m)[None, :]
    on = (cols - rows) == offset
    src = np.clip(rows if offset >= 0 else cols, 0, max(n - 1, 0))
    src = np.broadcast_to(src, (m, m))
    # the result with the two new dims last, then moved to (d1, d2)
    rest = [i for i in _builtins.range(nd) if i not in (d1, d2)]
    order = [None] * nd
    for j, i in enumerate(rest):
        order[i] = j
    order[d1], order[d2] = nd - 2, nd - 1
    return (_C.Tensor(np.ascontiguousarray(src.reshape(-1)).astype(np.int64)), _C.Tensor(on),
            m, tuple(order))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """The last dimension of input placed on the offset-th diagonal of the planes (dim1,
    dim2) of a new tensor of rank + 1, zeros elsewhere."""
    x = _need_tensor(input, "diag_embed")
    _need_int(offset, "diag_embed", "offset")
    src, on, m, order = _embed_plan(x.shape, offset, dim1, dim2)
    g = prim("Reshape")(prim("Gather")(x, src, -1), x.shape[:-1] + (m, m))
    out = prim("Select")(prim("BroadcastTo", shape=g.shape)(on), g, prim("ZerosLike")(g))
    return prim("Transpose")(out, order)


@constexpr
def _gather_nd_plan(xs, is_, idt):
    if idt not in (_C.int32, _C.int64):
        raise TypeError(f"For 'GatherNd', indices must be int32 or int64, but got {idt}.")
    if len(is_) < 1 or is_[-1] > len(xs):
        raise ValueError(f"For 'GatherNd', indices.shape[-1] must be <= the rank of x, but "
                         f"got indices {tuple(is_)} and x {tuple(xs)}.")
    k = is_[-1]
    strides = np.cumprod((tuple(xs[1:k]) + (1,))[::-1])[::-1].astype(np.int64)
    lead = int(np.prod(xs[:k])) if k else 1
    return (_C.Tensor(np.ascontiguousarray(strides)), (lead,) + tuple(xs[k:]),
            tuple(is_[:-1]) + tuple(xs[k:]), tuple(xs[:k]))


def gather_nd(input_x, indices):
    """out[i...] = input_x[indices[i...]] where the last axis of indices indexes the first
    indices.shape[-1] axes of input_x; negative indices count from the end."""
    x = _need_tensor(input_x, "gather_nd", "input_x")
    idx = _need_tensor(indices, "gather_nd", "indices")
    strides, flat, out, lead = _gather_nd_plan(x.shape, idx.shape, idx.dtype)
    i64 = prim("Cast")(idx, _C.int64)
    dims = _const(np.array(lead, np.int64), _C.int64)
    # each component in [-dim, dim): an out-of-range one would otherwise land on another
    # element's linear position
    bad = prim("LogicalOr")(prim("Less")(i64, -dims), prim("GreaterEqual")(i64, dims))
    i64 = guarded(i64, bad.any(), f"For 'GatherNd', an index lies outside input_x's first "
                  f"{len(lead)} dimensions {lead}: each component must lie in [-dim, dim).",
                  IndexError)
    i64 = prim("Select")(prim("Less")(i64, 0), i64 + dims, i64)
    lin = prim("ReduceSum")(prim("Mul")(i64, strides), (-1,))
    return prim("Reshape")(prim("Gather")(prim("Reshape")(x, flat), lin, 0), out)


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]; maxlen defaults to max(lengths) (known only when
    lengths is, so PYNATIVE mode or a constant)."""
    L = _need_tensor(lengths, "sequence_mask", "lengths")
    if maxlen is None:
        maxlen = int(prim("ReduceMax")(L, ()).asnumpy())
    maxlen = _need_int(maxlen, "sequence_mask", "maxlen", 1)
    pos = _const(np.arange(maxlen), L.dtype)
    return prim("Less")(pos, prim("ExpandDims")(L, -1))


@constexpr
def _rev_plan(shape, seq_dim, batch_dim, ldt, lshape):
    nd = len(shape)
    sd = _norm_axis(seq_dim, nd, "ReverseSequence", "seq_dim")
    bd = _norm_axis(batch_dim, nd, "ReverseSequence", "batch_dim")
    if sd == bd:
        raise ValueError(f"For 'ReverseSequence', seq_dim and batch_dim must differ, but both "
                         f"are {sd}.")
    if ldt not in (_C.int32, _C.int64):
        raise TypeError(f"For 'ReverseSequence', seq_lengths must be int32 or int64, but got "
                        f"{ldt}.")
    if tuple(lshape) != (shape[bd],):
        raise ValueError(f"For 'ReverseSequence', seq_lengths must have shape ({shape[bd]},), "
                         f"but got {tuple(lshape)}.")
    n = shape[sd]
    bshape = [1] * nd
    bshape[bd] = shape[bd]
    sshape = [1] * nd
    sshape[sd] = n
    return sd, tuple(bshape), _C.Tensor(np.arange(n, dtype=np.int64).reshape(sshape))


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each batch element b (along batch_dim), its first seq_lengths[b] elements along
    seq_dim reversed, the rest kept."""
    x = _need_tensor(x, "ReverseSequence", "x")
    L = _need_tensor(seq_lengths, "ReverseSequence", "seq_lengths")
    sd, bshape, pos = _rev_plan(x.shape, seq_dim, batch_dim, L.dtype, L.shape)
    lens = prim("Reshape")(prim("Cast")(L, _C.int64), bshape)
    src = prim("Select")(prim("Less")(pos, lens), lens - 1 - pos, pos + lens * 0)
    src = prim("BroadcastTo", shape=x.shape)(src)
    return gather_d(x, sd, src)


def repeat_elements(x, rep, axis=0):
    """Each element repeated rep times along axis (numpy's repeat with an int)."""
    x = _need_tensor(x, "repeat_elements", "x")
    rep = _need_int(rep, "repeat_elements", "rep", 1)
    return repeat_interleave(x, rep, _norm_axis(axis, x.ndim, "repeat_elements"))


def is_tensor(obj):
    """True when obj is a Tensor."""
    return isinstance(obj, _C.Tensor)


def is_floating_point(input):  # noqa: A002
    """True when input's dtype is a floating type."""
    return _need_tensor(input, "is_floating_point").dtype in FLOATS


def is_nonzero(input):  # noqa: A002
    """For a one-element tensor, whether its value is nonzero."""
    x = _need_tensor(input, "is_nonzero")
    if _numel(x.shape) != 1:
        raise RuntimeError(f"For 'is_nonzero', the input must have exactly one element, but "
                           f"got shape {x.shape}.")
    return bool(x.asnumpy().reshape(-1)[0] != 0)


@constexpr
def _static_shape(shape):
    """The compile-time shape: a dynamic dimension (set_inputs with None) is -1."""
    return tuple(shape)


@constexpr
def _numel(shape):
    return int(np.prod(shape)) if len(shape) else 1


def numel(input):  # noqa: A002
    """The number of elements (in graph mode read at run time where a dimension is dynamic)."""
    return _need_tensor(input, "numel").size


@constexpr
def _cum_plan(shape, axis, op):
    nd = len(shape)
    ax = _norm_axis(axis, nd, op)
    n = shape[ax] if nd else 1
    if n < 0:
        raise ValueError(f"For '{op}', the size of axis {ax} must be known at compile time "
                         f"(its window is built from it), but the input shape is "
                         f"{tuple(shape)} (-1: dynamic).")
    # lower-triangular "j <= i" window along the axis
    tri = np.tril(np.ones((n, n), bool))
    view = [1] * (nd + 1)
    view[ax], view[ax + 1] = n, n
    pos = np.arange(n, dtype=np.int64).reshape(
        [n if i == ax + 1 else 1 for i in _builtins.range(nd + 1)])
    return ax, _C.Tensor(tri.reshape(view)), _C.Tensor(pos)


def _cum_extreme(x, axis, op, is_max):
    x = _need_tensor(x, op)
    if x.ndim == 0:
        return x, prim("ZerosLike")(prim("Cast")(x, _C.int64))
    ax, tri, pos = _cum_plan(x.shape, axis, op)
    xe = prim("ExpandDims")(x, ax)  # element j at position ax + 1
    big = prim("BroadcastTo", shape=_win_shape(x.shape, ax))(xe)
    tri_b = prim("BroadcastTo", shape=big.shape)(tri)
    fill = _const(np.array(-np.inf if is_max else np.inf), x.dtype) if x.dtype in FLOATS \
        else _const(_int_extreme(x.dtype, is_max), x.dtype)
    masked = prim("Select")(tri_b, big, prim("ZerosLike")(big) + fill)
    red = prim("ReduceMax" if is_max else "ReduceMin")
    vals = red(masked, (ax + 1,))
    # the last index j <= i holding the running extreme (MindSpore's CPU kernel: the last
    # occurrence); NaN propagates as in a running max of numpy's maximum.accumulate
    hit = prim("LogicalAnd")(tri_b, prim("Equal")(masked, prim("ExpandDims")(vals, ax + 1)))
    if x.dtype in FLOATS:
        nan_seen = prim("NotEqual")(vals, vals)
        hit = prim("LogicalOr")(hit, prim("LogicalAnd")(
            tri_b, prim("LogicalAnd")(prim("ExpandDims")(nan_seen, ax + 1),
                                      prim("NotEqual")(masked, masked))))
    posb = prim("BroadcastTo", shape=big.shape)(pos)
    idx = prim("ReduceMax")(prim("Select")(hit, posb, prim("ZerosLike")(posb) - 1), (ax + 1,))
    return vals, idx


@constexpr
def _win_shape(shape, ax):
    s = list(shape)
    return tuple(s[:ax] + [s[ax], s[ax]] + s[ax + 1:])


@constexpr
def _int_extreme(dtype, is_max):
    """The identity of a running max (the dtype's least value) or min (its greatest), as a
    numpy array of the dtype (an int64 bound cast to uint64 was 2**63, above small values)."""
    if dtype == _C.bool:
        return np.array(not is_max)
    npdt = {_C.int8: np.int8, _C.int16: np.int16, _C.int32: np.int32, _C.int64: np.int64,
            _C.uint8: np.uint8, _C.uint16: np.uint16, _C.uint32: np.uint32,
            _C.uint64: np.uint64}[dtype]
    info = np.iinfo(npdt)
    return np.array(info.min if is_max else info.max, npdt)


def cummax(input, axis):  # noqa: A002
    """(values, indices): the running maximum along axis and where it was reached (the
    latest index among equal maxima). O(n^2) memory along the axis (a masked window)."""
    return _cum_extreme(input, axis, "cummax", True)


def cummin(input, axis):  # noqa: A002
    """(values, indices): the running minimum along axis (see cummax)."""
    return _cum_extreme(input, axis, "cummin", False)


@constexpr
def _comb_plan(n, r, with_replacement):
    import itertools
    f = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    host_bytes("combinations", count * (64 + 16 * r))  # the list of tuples, then the table
    rows = list(f(_builtins.range(n), r))
    return _C.Tensor(np.array(rows, np.int64).reshape(-1)), len(rows)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The r-length combinations of a 1-D tensor's elements as rows of [N, r]
    (itertools.combinations order)."""
    x = _need_tensor(input, "combinations")
    if x.ndim != 1:
        raise ValueError(f"For 'combinations', the input must be 1-D, but got shape "
                         f"{x.shape}.")
    idx, rows = _comb_plan(x.shape[0], _need_int(r, "combinations", "r", 0), with_replacement)
    return prim("Reshape")(prim("Gather")(x, idx, 0), (rows, r))


# MindSpore defines these in ops.function.array_func too (programs reach them as
# ops.function.array_func.aminmax). Their modules import this one, so they resolve on first use
# (PEP 562), not at import.
_LATER = {"aminmax": "tensor_ext_func"}


def __getattr__(name):
    if name in _LATER:
        import importlib
        return getattr(importlib.import_module("mycel.ops.function." + _LATER[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
