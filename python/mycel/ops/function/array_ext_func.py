"""More of MindSpore 2.x's shape and selection functions, composed from table ops:
index_select, narrow, slice, moveaxis/movedim, swapdims, fliplr, flipud, unbind, diagonal."""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import array_func as _a, layout_func as _l, compat_func as _c
from mycel.ops.primitive import constexpr
from mycel.ops.function.diag_func import matrix_diag

__all__ = ["cartesian_prod", "index_select", "narrow", "moveaxis", "movedim", "swapdims",
           "fliplr", "flipud", "unbind", "diagonal", "slice", "space_to_batch_nd",
           "batch_to_space_nd", "matrix_set_diag", "move_to", "deepcopy", "dyn_shape"]


def index_select(input, axis, index):  # noqa: A002 (MindSpore's argument names)
    """The entries of input at the 1-d integer tensor index along axis."""
    x, idx = as_tensor(input), as_tensor(index)
    if idx.ndim != 1 or idx.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For 'index_select', index must be a 1-d int32 or int64 tensor, but "
                        f"got shape {list(idx.shape)} and dtype {idx.dtype}.")
    return prim("Gather")(x, idx, _a._check_axis(axis, x.ndim, "index_select"))


@constexpr
def _narrow_bounds(shape, axis, start, length):
    n = shape[axis]
    if not (isinstance(start, int) and isinstance(length, int)) or isinstance(start, bool):
        raise TypeError("For 'narrow', start and length must be ints.")
    if start < 0:
        start += n
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise ValueError(f"For 'narrow', start {start} and length {length} must lie in "
                         f"dimension {axis} of size {n}.")
    begin = [0] * len(shape)
    end = list(shape)
    begin[axis], end[axis] = start, start + length
    return tuple(begin), tuple(end), (1,) * len(shape)


def narrow(input, axis, start, length):  # noqa: A002
    """The slice [start, start + length) of input along axis."""
    x = as_tensor(input)
    b, e, s = _narrow_bounds(x.shape, _a._check_axis(axis, x.ndim, "narrow"), start, length)
    return prim("StridedSlice")(x, b, e, s)


@constexpr
def _move_perm(ndim, source, destination):
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"For 'moveaxis', source {src} and destination {dst} must have the "
                         f"same number of axes.")
    for a in src + dst:  # (a 0-d input divided by zero below: a bare ZeroDivisionError)
        if isinstance(a, bool) or not isinstance(a, int) or not -ndim <= a < ndim:
            raise ValueError(f"For 'moveaxis', each axis must be an int in "
                             f"[{-ndim}, {ndim}), but got {a!r}.")
    src = tuple(a % ndim for a in src)
    dst = tuple(a % ndim for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"For 'moveaxis', the axes must be distinct, but got {src} and {dst}.")
    rest = [a for a in range(ndim) if a not in src]
    perm = [None] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    return tuple(p if p is not None else next(it) for p in perm)


def moveaxis(x, source, destination):
    """x with the axes source moved to the positions destination (ints or tuples)."""
    x = as_tensor(x)
    return prim("Transpose")(x, _move_perm(x.ndim, source, destination))


movedim = moveaxis


def swapdims(input, dim0, dim1):  # noqa: A002
    """input with dims dim0 and dim1 exchanged (ops.swapaxes)."""
    return _a.swapaxes(input, dim0, dim1)


def fliplr(input):  # noqa: A002
    """input reversed along dimension 1."""
    return _l.flip(input, (1,))


def flipud(input):  # noqa: A002
    """input reversed along dimension 0."""
    return _l.flip(input, (0,))


def unbind(input, dim=0):  # noqa: A002
    """The slices of input along dim, as a tuple (ops.unstack)."""
    return _c.unstack(input, dim)


@constexpr
def _diagonal_plan(shape, offset, dim1, dim2):
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"For 'diagonal', the input must have at least 2 dimensions, but got "
                         f"shape {list(shape)}.")
    for name, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
        # (a float tensor offset was truncated silently in PYNATIVE; dims out of range wrapped)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For 'diagonal', '{name}' must be an int, but got "
                            f"{type(v).__name__}.")
    for name, v in (("dim1", dim1), ("dim2", dim2)):
        if not -nd <= v < nd:
            raise ValueError(f"For 'diagonal', '{name}' {v} is out of range for a tensor of "
                             f"rank {nd}.")
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise ValueError(f"For 'diagonal', dim1 and dim2 must differ, but both are {d1}.")
    perm = tuple(a for a in range(nd) if a not in (d1, d2)) + (d1, d2)
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        pos = np.arange(length, dtype=np.int64) * n2 + np.arange(length) + offset
    else:
        length = max(0, min(n1 + offset, n2))
        pos = (np.arange(length, dtype=np.int64) - offset) * n2 + np.arange(length)
    flat = tuple(shape[a] for a in perm[:-2]) + (n1 * n2,)
    return perm, flat, _C.Tensor(pos.astype(np.int64))


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """The diagonal of input over dims dim1 and dim2 (offset above the main one when
    positive, below when negative), as its last dimension."""
    x = as_tensor(input)
    perm, flat, pos = _diagonal_plan(x.shape, offset, dim1, dim2)
    rows = prim("Reshape")(prim("Transpose")(x, perm), flat)
    return prim("Gather")(rows, pos, len(flat) - 1)


@constexpr
def _slice_bounds(shape, begin, size):
    begin, size = tuple(begin), tuple(size)
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ValueError(f"For 'slice', begin {begin} and size {size} must have one entry per "
                         f"dimension of the input of shape {tuple(shape)}.")
    end = []
    for d, (b, n, s) in enumerate(zip(begin, shape, size)):
        e = n if s == -1 else b + s
        if not 0 <= b <= n or s < -1 or e > n:
            raise ValueError(f"For 'slice', begin {b} and size {s} do not fit dimension {d} of "
                             f"size {n}.")
        end.append(e)
    return begin, tuple(end), (1,) * len(shape)


def slice(input_x, begin, size):  # noqa: A001 (MindSpore's name)
    """The block of input_x starting at begin (a tuple) of size size (-1: to the end)."""
    x = as_tensor(input_x)
    b, e, s = _slice_bounds(x.shape, begin, size)
    return prim("StridedSlice")(x, b, e, s)


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


@constexpr
def _s2b_plan(shape, block, pads, op):
    nd = len(shape)
    block = (block,) * 2 if isinstance(block, int) else tuple(block)
    pads = tuple(tuple(p) for p in pads)
    m = len(block)
    if nd < m + 1 or len(pads) != m or any(len(p) != 2 for p in pads):
        raise ValueError(f"For '{op}', block {block} and paddings/crops {pads} do not fit the "
                         f"input shape {tuple(shape)}.")
    if any(b < 1 for b in block) or any(v < 0 for p in pads for v in p):
        raise ValueError(f"For '{op}', block sizes must be >= 1 and paddings/crops >= 0.")
    return block, pads, nd - m


def space_to_batch_nd(input_x, block_size, paddings):
    """The last len(block_size) dims padded, then split into blocks moved into the batch:
    out[(i * b1 + j) * N + n, ..., h, w] = padded[n, ..., h * b0 + i, w * b1 + j]."""
    x = _t(input_x, "SpaceToBatchND", "input_x")
    block, pads, lead = _s2b_plan(x.shape, block_size, paddings, "SpaceToBatchND")
    full = ((0, 0),) * lead + pads
    p = prim("Pad", paddings=full)(x) if any(v for q in pads for v in q) else x
    sp = p.shape[lead:]
    for i, b in enumerate(block):
        if sp[i] % b:
            raise ValueError(f"For 'SpaceToBatchND', the padded dimension {sp[i]} must be "
                             f"divisible by the block size {b}.")
    view, perm, out = _s2b_view(tuple(p.shape), block, lead)
    return prim("Reshape")(prim("Transpose")(prim("Reshape")(p, view), perm), out)


@constexpr
def _s2b_view(shape, block, lead):
    m = len(block)
    view = tuple(shape[:lead])
    for i, b in enumerate(block):
        view += (shape[lead + i] // b, b)
    # [N, C.., h0, b0, h1, b1] -> [b0, b1, N, C.., h0, h1]
    bpos = [lead + 2 * i + 1 for i in range(m)]
    hpos = [lead + 2 * i for i in range(m)]
    perm = tuple(bpos) + tuple(range(lead)) + tuple(hpos)
    n = shape[0] * int(np.prod(block))
    out = (n,) + tuple(shape[1:lead]) + tuple(shape[lead + i] // b for i, b in enumerate(block))
    return view, perm, out


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: blocks of the batch moved back into the last
    len(block_shape) dims, then those cropped."""
    x = _t(input_x, "BatchToSpaceND", "input_x")
    block, crops, lead = _s2b_plan(x.shape, block_shape, crops, "BatchToSpaceND")
    view, perm, out, begin, end = _b2s_view(tuple(x.shape), block, crops, lead)
    y = prim("Reshape")(prim("Transpose")(prim("Reshape")(x, view), perm), out)
    return prim("StridedSlice")(y, begin, end, (1,) * len(out))


@constexpr
def _b2s_view(shape, block, crops, lead):
    m = len(block)
    prod = int(np.prod(block))
    if shape[0] % prod:
        raise ValueError(f"For 'BatchToSpaceND', the batch {shape[0]} must be divisible by the "
                         f"product of block_shape {prod}.")
    n = shape[0] // prod
    view = tuple(block) + (n,) + tuple(shape[1:])
    # [b0, b1, N, C.., h0, h1] -> [N, C.., h0, b0, h1, b1]
    perm = (m,) + tuple(range(m + 1, m + lead))
    for i in range(m):
        perm += (m + lead + i, i)
    out = (n,) + tuple(shape[1:lead]) + tuple(shape[lead + i] * b for i, b in enumerate(block))
    begin = (0,) * lead + tuple(c[0] for c in crops)
    end = tuple(out[:lead]) + tuple(out[lead + i] - crops[i][1] for i in range(m))
    if any(e <= b for b, e in zip(begin[lead:], end[lead:])):
        raise ValueError(f"For 'BatchToSpaceND', crops {crops} remove the whole dimension.")
    return view, perm, out, begin, end


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its diagonals k (an int or a (k0, k1) band) replaced by diagonal (laid out as
    ops.matrix_diag_part returns them)."""
    x = _t(x, "matrix_set_diag", "x")
    d = prim("Cast")(_t(diagonal, "matrix_set_diag", "diagonal"), x.dtype)
    m, n = x.shape[-2], x.shape[-1]
    placed = matrix_diag(d, k, m, n, 0, align)
    mask = matrix_diag(prim("OnesLike")(d), k, m, n, 0, align)
    placed = prim("BroadcastTo", shape=x.shape)(placed)
    mask = prim("BroadcastTo", shape=x.shape)(prim("NotEqual")(mask, 0))
    return prim("Select")(mask, placed, x)


@constexpr
def _arange(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


def move_to(input, to="CPU", blocking=True):  # noqa: A002
    """The tensor on device `to`. mycel places tensors by the context's device_target, so
    'CPU' returns the tensor itself; other targets are a ValueError here."""
    x = _t(input, "move_to")
    if to != "CPU":
        raise ValueError(f"For 'move_to', mycel moves tensors only to 'CPU' this way (the "
                         f"context's device_target places computations), but got {to!r}.")
    return x


def deepcopy(input_x):
    """A copy of the tensor that shares no memory with it."""
    x = _t(input_x, "deepcopy", "input_x")
    return prim("Add")(x, prim("ZerosLike")(x)) if x.dtype != _C.bool else \
        prim("LogicalAnd")(x, x)


def dyn_shape(input_x):
    """The shape as a 1-D int64 tensor; in graph mode a dimension unknown at compile time
    (set_inputs with None) is read at run time (MindSpore's TensorShape)."""
    x = _t(input_x, "dyn_shape", "input_x")
    if x.ndim == 0:
        return _shape_t(())
    return prim("Cast")(x.shape, _C.int64)


@constexpr
def _shape_t(shape):
    return _C.Tensor(np.array(tuple(shape), np.int64))


def cartesian_prod(*inputs):
    """The Cartesian product of 1-D tensors of one dtype: [prod of lengths, n] (rows in
    itertools.product's order); one input is returned as it is."""
    for t in inputs:
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"For 'cartesian_prod', the inputs must be Tensors, but got "
                            f"{type(t).__name__}.")
    _cartesian_check(tuple(t.shape for t in inputs), tuple(t.dtype for t in inputs))
    if len(inputs) == 1:
        return inputs[0]
    grids = _a.meshgrid(*inputs, indexing="ij")
    return prim("Stack", axis=1)(tuple(prim("Reshape")(g, (-1,)) for g in grids))


@constexpr
def _cartesian_check(shapes, dtypes):
    if not shapes or any(len(s) != 1 for s in shapes):
        raise TypeError(f"For 'cartesian_prod', the inputs must be one or more 1-D Tensors, but "
                        f"got shapes {[tuple(s) for s in shapes]}.")
    if len(set(dtypes)) != 1:
        raise TypeError(f"For 'cartesian_prod', the inputs must have one dtype, but got "
                        f"{[str(d) for d in dtypes]}.")
