"""More of MindSpore 2.x's array functions, composed from op-table primitives (so both modes,
gradients and vmap follow from the ops they are built of): constructors (eye, full_like,
tril_indices, triu_indices, vander, logspace), views and joins (t, ravel, chunk, hstack,
vstack, dstack, column_stack, row_stack, atleast_1d/2d/3d, meshgrid, block_diag, rot90),
products (mm, mv, dot, tensor_dot, batch_dot, kron, cross), diagonals (diag, diag_embed),
gathers (gather_nd, sequence_mask, reverse_sequence, repeat_elements), the predicates
(is_tensor, is_floating_point, is_nonzero, numel) and cummax / cummin.

Index tables that depend only on static shapes are made on the host at trace time
(constexpr helpers), so graph mode sees them as constants.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, host_bytes
from mycel.ops.function import array_func as _a
from mycel.ops.function.layout_func import flip
from mycel.ops.function.index_add_func import repeat_interleave
from mycel.ops.primitive import constexpr

__all__ = ["eye", "full_like", "tril_indices", "triu_indices", "vander", "logspace", "t",
           "ravel", "chunk", "hstack", "vstack", "dstack", "column_stack", "row_stack",
           "atleast_1d", "atleast_2d", "atleast_3d", "meshgrid", "block_diag", "rot90", "mm",
           "mv", "dot", "tensor_dot", "batch_dot", "kron", "cross", "diag", "diag_embed",
           "gather_nd", "sequence_mask", "reverse_sequence", "repeat_elements", "is_tensor",
           "is_floating_point", "is_nonzero", "numel", "cummax", "cummin", "vecdot",
           "combinations"]

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


# ---- constructors ------------------------------------------------------------------------

def eye(n, m=None, dtype=None):
    """The n x m identity matrix (m = n when None), float32 unless dtype is given."""
    n = _need_int(n, "eye", "n", 0)
    m = n if m is None else _need_int(m, "eye", "m", 0)
    host_bytes("eye", 8 * n * m)
    return _const(np.eye(n, m), _C.float32 if dtype is None else dtype)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002 (MindSpore's names)
    """A tensor of input's shape filled with fill_value (input's dtype unless given)."""
    x = _need_tensor(input, "full_like")
    return _a.full(x.shape, fill_value, dtype=x.dtype if dtype is None else dtype)


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


# ---- views and joins ---------------------------------------------------------------------

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
    return _a.split(x, sizes, ax)


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
    return _a.concat(parts, 0 if parts[0].ndim == 1 else 1)


def vstack(inputs):
    """The tensors made at least 2-D and joined along axis 0."""
    _check_seq(inputs, "vstack")
    return _a.concat(_atleast(inputs, 2, "vstack"), 0)


row_stack = vstack


def dstack(inputs):
    """The tensors made at least 3-D and joined along axis 2."""
    _check_seq(inputs, "dstack")
    return _a.concat(_atleast(inputs, 3, "dstack"), 2)


def column_stack(tensors):
    """1-D (and 0-D) tensors as columns, others as they are, joined along axis 1."""
    _check_seq(tensors, "column_stack")
    out = ()
    for x in tensors:
        x = _need_tensor(x, "column_stack")
        if x.ndim < 2:
            x = prim("Reshape")(x, (-1, 1))
        out = out + (x,)
    return _a.concat(out, 1)


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
    order = list(range(n))
    if indexing == "xy" and n >= 2:
        order[0], order[1] = 1, 0  # output dims: (len y, len x, ...)
    full = tuple(sizes[order[d]] for d in range(n))
    views = []
    for i in range(n):
        d = order.index(i)
        views.append(tuple(sizes[i] if k == d else 1 for k in range(n)))
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
    perm = list(range(nd))
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


# ---- products ----------------------------------------------------------------------------

@constexpr
def _check_2d(a, b, op, ra, rb):
    if len(a) != ra or len(b) != rb:
        raise ValueError(f"For '{op}', the inputs must be {ra}-D and {rb}-D, but got shapes "
                         f"{tuple(a)} and {tuple(b)}.")
    if a[-1] != b[0]:
        raise ValueError(f"For '{op}', the inner dimensions differ: shapes {tuple(a)} and "
                         f"{tuple(b)}.")
    return True


@constexpr
def _check_same_dtype(a, b, op):
    if a != b:
        raise TypeError(f"For '{op}', the inputs must have the same dtype, but got {a} and "
                        f"{b}.")
    return True


def mm(input, mat2):  # noqa: A002
    """The matrix product of two 2-D tensors."""
    x, y = _need_tensor(input, "mm"), _need_tensor(mat2, "mm", "mat2")
    _check_2d(x.shape, y.shape, "mm", 2, 2)
    return prim("MatMul")(x, y)


def mv(mat, vec):
    """The product of a 2-D matrix and a 1-D vector."""
    x, v = _need_tensor(mat, "mv", "mat"), _need_tensor(vec, "mv", "vec")
    _check_2d(x.shape, v.shape, "mv", 2, 1)
    return prim("Reshape")(prim("MatMul")(x, prim("Reshape")(v, (-1, 1))), (-1,))


@constexpr
def _tensordot_plan(sa, sb, axes, op="tensor_dot"):
    na, nb = len(sa), len(sb)
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0 or axes > min(na, nb):
            raise ValueError(f"For '{op}', axes {axes} is out of range for ranks {na}, {nb}.")
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax_a = list(axes[0]) if isinstance(axes[0], (tuple, list)) else [axes[0]]
        ax_b = list(axes[1]) if isinstance(axes[1], (tuple, list)) else [axes[1]]
        if len(ax_a) != len(ax_b):
            raise ValueError(f"For '{op}', both axes lists must have the same length, but "
                             f"got {axes!r}.")
        ax_a = [_norm_axis(a, na, op, "axes") for a in ax_a]
        ax_b = [_norm_axis(b, nb, op, "axes") for b in ax_b]
    else:
        raise TypeError(f"For '{op}', axes must be an int or a pair of int sequences, but got "
                        f"{axes!r}.")
    for a, b in zip(ax_a, ax_b):
        if sa[a] != sb[b]:
            raise ValueError(f"For '{op}', the contracted dimensions differ: {sa[a]} (axis "
                             f"{a} of {tuple(sa)}) and {sb[b]} (axis {b} of {tuple(sb)}).")
    free_a = [i for i in range(na) if i not in ax_a]
    free_b = [i for i in range(nb) if i not in ax_b]
    k = int(np.prod([sa[i] for i in ax_a])) if ax_a else 1
    ma = int(np.prod([sa[i] for i in free_a])) if free_a else 1
    nb_ = int(np.prod([sb[i] for i in free_b])) if free_b else 1
    out = tuple(sa[i] for i in free_a) + tuple(sb[i] for i in free_b)
    return tuple(free_a + ax_a), (ma, k), tuple(ax_b + free_b), (k, nb_), out


def tensor_dot(x1, x2, axes):
    """The sum of products over the axes pairs (an int n: the last n of x1 with the first n
    of x2), numpy's tensordot."""
    a, b = _need_tensor(x1, "tensor_dot", "x1"), _need_tensor(x2, "tensor_dot", "x2")
    _check_same_dtype(a.dtype, b.dtype, "tensor_dot")
    pa, sa, pb, sb, out = _tensordot_plan(a.shape, b.shape, axes)
    a2 = prim("Reshape")(prim("Transpose")(a, pa), sa)
    b2 = prim("Reshape")(prim("Transpose")(b, pb), sb)
    return prim("Reshape")(prim("MatMul")(a2, b2), out)


@constexpr
def _dot_check(sa, sb, da, db):
    if da != db:
        raise TypeError(f"For 'dot', the inputs must have the same dtype, but got {da} and "
                        f"{db}.")
    if da not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'dot', the inputs must be float16, float32 or float64, but got "
                        f"{da}.")
    if len(sa) < 2 or len(sb) < 2:
        raise ValueError(f"For 'dot', both inputs must be at least 2-D, but got shapes "
                         f"{tuple(sa)} and {tuple(sb)}.")
    return ((len(sa) - 1,), (len(sb) - 2,))


def dot(input, other):  # noqa: A002
    """numpy's dot for rank >= 2: input's last axis contracted with other's second to last,
    shape input.shape[:-1] + other.shape[:-2] + other.shape[-1:]."""
    a, b = _need_tensor(input, "dot"), _need_tensor(other, "dot", "other")
    return tensor_dot(a, b, _dot_check(a.shape, b.shape, a.dtype, b.dtype))


@constexpr
def _batch_dot_plan(sa, sb, axes, da, db):
    if da != db:
        raise TypeError(f"For 'batch_dot', the inputs must have the same dtype, but got {da} "
                        f"and {db}.")
    na, nb = len(sa), len(sb)
    if na < 2 or nb < 2 or sa[0] != sb[0]:
        raise ValueError(f"For 'batch_dot', both inputs must be at least 2-D with the same "
                         f"batch size, but got shapes {tuple(sa)} and {tuple(sb)}.")
    if axes is None:
        axes = (na - 1, nb - 1 if nb == 2 else nb - 2)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        axes = (axes, axes)
    ax_a = _norm_axis(axes[0], na, "batch_dot", "axes")
    ax_b = _norm_axis(axes[1], nb, "batch_dot", "axes")
    if ax_a == 0 or ax_b == 0:
        raise ValueError(f"For 'batch_dot', axes must not be the batch axis 0, got {axes!r}.")
    if sa[ax_a] != sb[ax_b]:
        raise ValueError(f"For 'batch_dot', the contracted dimensions differ: {sa[ax_a]} and "
                         f"{sb[ax_b]}.")
    fa = [i for i in range(1, na) if i != ax_a]
    fb = [i for i in range(1, nb) if i != ax_b]
    b, k = sa[0], sa[ax_a]
    ma = int(np.prod([sa[i] for i in fa])) if fa else 1
    mb = int(np.prod([sb[i] for i in fb])) if fb else 1
    out = (b,) + tuple(sa[i] for i in fa) + tuple(sb[i] for i in fb)
    if len(out) == 1:
        out = (b, 1)
    return ((0,) + tuple(fa) + (ax_a,), (b, ma, k), (0, ax_b) + tuple(fb), (b, k, mb), out)


def batch_dot(x1, x2, axes=None):
    """Per batch element (axis 0) the sum of products over axes (default: x1's last axis
    with x2's second to last, or last when x2 is 2-D); a result of rank 1 becomes [B, 1]."""
    a, b = _need_tensor(x1, "batch_dot", "x1"), _need_tensor(x2, "batch_dot", "x2")
    pa, sa, pb, sb, out = _batch_dot_plan(a.shape, b.shape, axes, a.dtype, b.dtype)
    a3 = prim("Reshape")(prim("Transpose")(a, pa), sa)
    b3 = prim("Reshape")(prim("Transpose")(b, pb), sb)
    return prim("Reshape")(prim("BatchMatMul")(a3, b3), out)


@constexpr
def _kron_plan(sa, sb):
    n = max(len(sa), len(sb))
    sa = (1,) * (n - len(sa)) + tuple(sa)
    sb = (1,) * (n - len(sb)) + tuple(sb)
    va = tuple(v for d in sa for v in (d, 1))
    vb = tuple(v for d in sb for v in (1, d))
    return va, vb, tuple(a * b for a, b in zip(sa, sb))


def kron(input, other):  # noqa: A002
    """The Kronecker product: blocks input[i] * other, of shape input.shape * other.shape
    (the shorter shape padded with leading ones)."""
    a, b = _need_tensor(input, "kron"), _need_tensor(other, "kron", "other")
    va, vb, out = _kron_plan(a.shape, b.shape)
    return prim("Reshape")(prim("Mul")(prim("Reshape")(a, va), prim("Reshape")(b, vb)), out)


@constexpr
def _cross_dim(sa, sb, dim):
    if len(sa) != len(sb):
        raise ValueError(f"For 'cross', the inputs must have the same rank, but got shapes "
                         f"{tuple(sa)} and {tuple(sb)}.")
    if dim is None:
        for i, (x, y) in enumerate(zip(sa, sb)):
            if x == 3 and y == 3:
                return i
        raise ValueError(f"For 'cross', no dimension of size 3 in {tuple(sa)}.")
    d = _norm_axis(dim, len(sa), "cross", "dim")
    if sa[d] != 3 or sb[d] != 3:
        raise ValueError(f"For 'cross', dimension {dim} must have size 3, but got shapes "
                         f"{tuple(sa)} and {tuple(sb)}.")
    return d


def cross(input, other, dim=None):  # noqa: A002
    """The 3-vector cross product along dim (the first dimension of size 3 when None)."""
    a, b = _need_tensor(input, "cross"), _need_tensor(other, "cross", "other")
    d = _cross_dim(a.shape, b.shape, dim)
    a0, a1, a2 = _a.split(a, (1, 1, 1), d)
    b0, b1, b2 = _a.split(b, (1, 1, 1), d)
    return _a.concat((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), d)


def vecdot(x, y, *, axis=-1):
    """sum(x * y) over axis (broadcasting)."""
    p = prim("Mul")(_need_tensor(x, "vecdot", "x"), _need_tensor(y, "vecdot", "y"))
    return prim("ReduceSum")(p, (_norm_axis(axis, p.ndim, "vecdot"),))


# ---- diagonals ---------------------------------------------------------------------------

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
    flat = _a.scatter_nd(idx, prim("Reshape")(x, (-1,)), (n * n,))
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
    rest = [i for i in range(nd) if i not in (d1, d2)]
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


# ---- gathers -----------------------------------------------------------------------------

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
    return _a.gather_d(x, sd, src)


def repeat_elements(x, rep, axis=0):
    """Each element repeated rep times along axis (numpy's repeat with an int)."""
    x = _need_tensor(x, "repeat_elements", "x")
    rep = _need_int(rep, "repeat_elements", "rep", 1)
    return repeat_interleave(x, rep, _norm_axis(axis, x.ndim, "repeat_elements"))


# ---- predicates and sizes ----------------------------------------------------------------

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
def _numel(shape):
    return int(np.prod(shape)) if len(shape) else 1


def numel(input):  # noqa: A002
    """The number of elements."""
    return _numel(_need_tensor(input, "numel").shape)


# ---- running extremes --------------------------------------------------------------------

@constexpr
def _cum_plan(shape, axis, op):
    nd = len(shape)
    ax = _norm_axis(axis, nd, op)
    n = shape[ax] if nd else 1
    # lower-triangular "j <= i" window along the axis
    tri = np.tril(np.ones((n, n), bool))
    view = [1] * (nd + 1)
    view[ax], view[ax + 1] = n, n
    pos = np.arange(n, dtype=np.int64).reshape([n if i == ax + 1 else 1 for i in range(nd + 1)])
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
        else _const(np.array(_int_extreme(x.dtype, is_max)), x.dtype)
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
    info = np.iinfo({_C.int8: np.int8, _C.int16: np.int16, _C.int32: np.int32,
                     _C.int64: np.int64, _C.uint8: np.uint8}.get(dtype, np.int64))
    return info.min if is_max else info.max


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
    rows = list(f(range(n), r))
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
