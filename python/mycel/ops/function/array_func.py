"""Shape and data-movement functions (MindSpore 2.x names)."""
import builtins as _builtins  # `range` is redefined below, as MindSpore's ops.range

from mycel import _mycel as _C
from mycel.ops.function._util import prim, shape_arg, as_tensor
from mycel.ops.primitive import constexpr


def reshape(input, shape):  # noqa: A002
    """The same data with a new shape (one entry may be -1); a view when the layout allows."""
    return prim("Reshape")(input, shape_arg(shape, "reshape"))


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
    """Merges dims start_dim..end_dim into one (MindSpore 2.x defaults keep the batch dim)."""
    if order != "C":
        raise ValueError(f"For 'flatten', only order 'C' is supported, but got {order!r}.")
    x = as_tensor(input)
    if x.ndim == 0:
        return x.reshape((1,))
    s, e = start_dim % x.ndim, end_dim % x.ndim
    if s > e:
        raise ValueError(f"For 'flatten', start_dim {start_dim} comes after end_dim {end_dim} "
                         f"for a tensor of rank {x.ndim}.")
    dims = shape(x)  # static: a dynamic dimension is -1
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
    """A broadcast view with the given shape (-1 keeps a dimension)."""
    return prim("BroadcastTo", shape=shape_arg(shape, "broadcast_to"))(input)


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
    if dtype is None:
        is_int = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
        dtype = _C.int64 if is_int else _C.float32
    return prim("Range", dtype=dtype)(*[float(v) for v in vals])


def range(start, end, step):  # noqa: A001
    """Same as arange(start, end, step)."""
    return arange(start, end, step)


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
    """The shape as a tuple of ints (MindSpore's ops.shape: static; in graph mode a dynamic
    dimension under set_inputs is -1, where ``x.shape`` reads its size at run time)."""
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
