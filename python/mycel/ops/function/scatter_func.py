"""In-place scatter updates of a Parameter (MindSpore 2.x's ``ops.scatter_nd_add``,
``scatter_nd_sub``, ``scatter_nd_mul``, ``scatter_nd_div``, ``scatter_nd_max``,
``scatter_nd_min``, ``scatter_nd_update`` and the P.ScatterNd* primitives).

``indices`` [..., K] addresses slices of ``input_x`` by their first K coordinates;
``updates`` has shape ``indices.shape[:-1] + input_x.shape[K:]``. Each update row is
combined with its slice and the result written back into ``input_x`` (Assign), which is
returned. Rows that address the same slice apply one after the other, in order, as
MindSpore's CPU kernels do.

The input is viewed as [M, R] (M = the product of its first K dims) and the indices as flat
row numbers. Add and sub need no order: one ScatterNd sums every row's update. The other
operations are applied row by row (a Gather, the op, a TensorScatterUpdate per index row;
the number of rows is static), which keeps repeated indices exact: their cost grows with the
number of index rows.

The scatter family of MindSpore 2.x that mycel lacked, composed from op-table primitives:

- ``tensor_scatter_add / sub / mul / div / max / min`` (N-d indices, a new tensor): the
  updates of each addressed slice are first reduced among themselves (UnsortedSegmentSum
  for add and sub; the segment scans of segment_func.py for the others), then combined with
  input_x once; slices no index addresses keep their values. Integer division applies the
  updates one after the other (truncating at each step, as MindSpore's kernel).
- ``scatter_add / sub / mul / div / max / min / update`` (indices into the first axis of a
  Parameter, in place; returns it): the N-d in-place scatters of scatter_func.py with the
  indices given a trailing axis of 1.
- ``inplace_add / sub / update`` (rows of x by an int or a tuple of ints; a new tensor) and
  ``index_fill``.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr
from mycel.ops.function import segment_func as _seg

__all__ = ["scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div",
           "scatter_nd_max", "scatter_nd_min", "scatter_nd_update", "tensor_scatter_add",
           "tensor_scatter_sub", "tensor_scatter_mul", "tensor_scatter_div",
           "tensor_scatter_max", "tensor_scatter_min", "scatter_add", "scatter_sub",
           "scatter_mul", "scatter_div", "scatter_max", "scatter_min", "scatter_update",
           "inplace_add", "inplace_sub", "inplace_update", "index_fill"]


@constexpr
def _scatter_plan(op, x_shape, idx_shape, idx_dtype, upd_shape):
    """(K, [K] int64 tensor of the strides of the first K dims, [M, R], number of rows);
    errors name op."""
    if idx_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', the indices must be int32 or int64, but got {idx_dtype}.")
    if len(idx_shape) < 1 or not 1 <= idx_shape[-1] <= len(x_shape):
        raise ValueError(f"For '{op}', the last dimension of the indices {idx_shape} must be "
                         f"between 1 and the rank of input_x {x_shape}.")
    k = idx_shape[-1]
    want = tuple(idx_shape[:-1]) + tuple(x_shape[k:])
    if tuple(upd_shape) != want:
        raise ValueError(f"For '{op}', the updates must have shape indices.shape[:-1] + "
                         f"input_x.shape[{k}:] = {want}, but got {tuple(upd_shape)}.")
    strides, s = [], 1
    for d in reversed(x_shape[:k]):
        strides.append(s)
        s *= d
    rows = 1
    for d in idx_shape[:-1]:
        rows *= d
    rest = 1
    for d in x_shape[k:]:
        rest *= d
    return k, _C.Tensor(np.array(strides[::-1], np.int64)), (s, rest), rows


def _flat_rows(indices, k, strides, rows):
    """[rows] int64 flat row numbers of the index tuples."""
    idx = prim("Cast")(prim("Reshape")(indices, (rows, k)), _C.int64)
    return prim("ReduceSum")(prim("Mul")(idx, strides), (-1,))


@constexpr
def _update_dtype(op, x_dtype, u_dtype):
    """MindSpore's rule for a written input (RW_WRITE): updates of another dtype are cast to
    input_x's when the promoted dtype is input_x's; an input_x that would have to change dtype
    is a TypeError in MindSpore's words."""
    if x_dtype == u_dtype:
        return None
    promoted = _C.promote_types(x_dtype, u_dtype)
    if promoted != x_dtype:
        prim_name = "".join(w.capitalize() for w in op.split("_"))
        raise TypeError(f"For '{op}', Data type conversion is not supported for a 'Parameter', "
                        f"nor for the input tensor of an in-place operator, the argument[x]'s "
                        f"data type of primitive[{prim_name}] is {x_dtype}, which cannot be "
                        f"converted to data type {promoted} automatically.")
    return x_dtype


def _check_dtypes(op, x, updates):
    if x.dtype != updates.dtype:
        raise TypeError(f"For '{op}', input_x and updates must have the same dtype, but got "
                        f"{x.dtype} and {updates.dtype}.")


def _match_dtypes(op, x, updates):
    """updates in input_x's dtype (_update_dtype's rule)."""
    dt = _update_dtype(op, x.dtype, updates.dtype)
    return updates if dt is None else prim("Cast")(updates, dt)


def _scatter(op, combine, input_x, indices, updates):
    x, idx, upd = as_tensor(input_x), as_tensor(indices), as_tensor(updates)
    upd = _match_dtypes(op, x, upd)
    k, strides, (m, r), rows = _scatter_plan(op, x.shape, idx.shape, idx.dtype, upd.shape)
    flat = _flat_rows(idx, k, strides, rows)
    x2 = prim("Reshape")(x, (m, r))
    u2 = prim("Reshape")(upd, (rows, r))
    if combine in ("add", "sub"):
        total = prim("ScatterNd")(prim("Reshape")(flat, (rows, 1)), u2, (m, r))
        out = prim("Add" if combine == "add" else "Sub")(x2, total)
    else:
        out = x2
        for i in range(rows):
            at = prim("StridedSlice")(flat, (i,), (i + 1,), (1,))
            old = prim("Gather")(out, at, 0)
            new = prim("StridedSlice")(u2, (i, 0), (i + 1, r), (1, 1))
            if combine == "mul":
                new = prim("Mul")(old, new)
            elif combine == "div":
                new = _divide(old, new)
            elif combine == "max":
                new = prim("Maximum")(old, new)
            elif combine == "min":
                new = prim("Minimum")(old, new)
            out = prim("TensorScatterUpdate")(out, prim("Reshape")(at, (1, 1)), new)
    return prim("Assign")(input_x, prim("Reshape")(out, x.shape))


def _divide(a, b):
    """a / b in a's dtype: true division for floats, truncating for integers (C's rule, as
    MindSpore's integer ScatterNdDiv)."""
    if a.dtype.is_floating_point:
        return prim("Div")(a, b)
    q = prim("Div")(prim("Cast")(a, _C.float64), prim("Cast")(b, _C.float64))
    return prim("Cast")(q, a.dtype)


@constexpr
def _check_nd_indices_rank(op, idx_shape):
    """MindSpore's rule for the ScatterNd<Op> updates: indices of rank at least 2 (a list of
    index tuples; a single tuple is indices[None]). (ops.scatter_<op>, over the first axis,
    takes indices of any rank.)"""
    if len(idx_shape) < 2:
        raise ValueError(f"For '{op}', the rank of indices must be at least 2, but got indices "
                         f"of shape {tuple(idx_shape)}.")


def _in_place(combine, use_locking_default, doc):
    """The public function ops.scatter_nd_<combine> (``use_locking`` is accepted for
    MindSpore's signature: mycel applies the updates of one call in order)."""
    name = "scatter_nd_" + combine

    def fn(input_x, indices, updates, use_locking=use_locking_default):
        _check_nd_indices_rank(name, as_tensor(indices).shape)
        return _scatter(name, combine, input_x, indices, updates)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + " In place; returns input_x."
    return fn


scatter_nd_add = _in_place("add", False, "input_x[indices] += updates.")
scatter_nd_sub = _in_place("sub", False, "input_x[indices] -= updates.")
scatter_nd_mul = _in_place("mul", False, "input_x[indices] *= updates, repeated indices in "
                                         "order.")
scatter_nd_div = _in_place("div", False, "input_x[indices] /= updates (integers truncate "
                                         "towards zero).")
scatter_nd_max = _in_place("max", False, "input_x[indices] = maximum(input_x[indices], "
                                         "updates).")
scatter_nd_min = _in_place("min", False, "input_x[indices] = minimum(input_x[indices], "
                                         "updates).")
scatter_nd_update = _in_place("update", True, "input_x[indices] = updates (a repeated index "
                                              "keeps its last row).")


def _t(x, op, name="input_x"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def _tensor_scatter(op, combine, input_x, indices, updates):
    x = _t(input_x, op)
    idx, upd = _t(indices, op, "indices"), _t(updates, op, "updates")
    _check_dtypes(op, x, upd)
    k, strides, (m, r), rows = _scatter_plan(op, x.shape, idx.shape, idx.dtype, upd.shape)
    flat = _flat_rows(idx, k, strides, rows)
    x2 = prim("Reshape")(x, (m, r))
    u2 = prim("Reshape")(upd, (rows, r))
    if combine in ("add", "sub"):
        total = prim("UnsortedSegmentSum")(u2, flat, m)
        out = prim("Add" if combine == "add" else "Sub")(x2, total)
    elif combine == "div" and not x.dtype.is_floating_point:
        out = x2
        for i in range(rows):
            at = prim("StridedSlice")(flat, (i,), (i + 1,), (1,))
            new = _divide(prim("Gather")(out, at, 0),
                              prim("StridedSlice")(u2, (i, 0), (i + 1, r), (1, 1)))
            out = prim("TensorScatterUpdate")(out, prim("Reshape")(at, (1, 1)), new)
    else:
        touched = prim("Greater")(prim("UnsortedSegmentSum")(
            prim("OnesLike")(prim("Cast")(flat, _C.int32)), flat, m), 0)
        touched = prim("Reshape")(touched, (m, 1))
        if combine == "max":
            red = _seg.unsorted_segment_max(u2, flat, m)
            new = prim("Maximum")(x2, red)
        elif combine == "min":
            red = _seg.unsorted_segment_min(u2, flat, m)
            new = prim("Minimum")(x2, red)
        else:  # mul, float div
            red = _seg.unsorted_segment_prod(u2, flat, m)
            new = prim("Mul")(x2, red) if combine == "mul" else prim("Div")(x2, red)
        out = prim("Select")(prim("BroadcastTo", shape=(m, r))(touched), new, x2)
    return prim("Reshape")(out, x.shape)


def tensor_scatter_add(input_x, indices, updates):
    """input_x with the updates added at the N-d indices (repeated indices add up)."""
    return _tensor_scatter("tensor_scatter_add", "add", input_x, indices, updates)


def tensor_scatter_sub(input_x, indices, updates):
    """input_x with the updates subtracted at the N-d indices."""
    return _tensor_scatter("tensor_scatter_sub", "sub", input_x, indices, updates)


def tensor_scatter_mul(input_x, indices, updates):
    """input_x multiplied by the updates at the N-d indices."""
    return _tensor_scatter("tensor_scatter_mul", "mul", input_x, indices, updates)


def tensor_scatter_div(input_x, indices, updates):
    """input_x divided by the updates at the N-d indices (integers truncate per update)."""
    return _tensor_scatter("tensor_scatter_div", "div", input_x, indices, updates)


def tensor_scatter_max(input_x, indices, updates):
    """maximum(input_x, updates) at the N-d indices."""
    return _tensor_scatter("tensor_scatter_max", "max", input_x, indices, updates)


def tensor_scatter_min(input_x, indices, updates):
    """minimum(input_x, updates) at the N-d indices."""
    return _tensor_scatter("tensor_scatter_min", "min", input_x, indices, updates)


def _first_axis(fn, op, doc):
    """op(input_x, indices, updates): fn's N-d scatter with indices into the first axis (errors
    name op), documented by doc."""
    combine = fn.__name__[len("scatter_nd_"):]

    def scatter(input_x, indices, updates):
        idx = _t(indices, op, "indices")
        return _scatter(op, combine, input_x, prim("ExpandDims")(idx, -1), updates)
    scatter.__name__ = scatter.__qualname__ = op
    scatter.__doc__ = doc
    return scatter


scatter_add = _first_axis(scatter_nd_add, "scatter_add",
                           "input_x[indices] += updates along the first axis, in place.")


scatter_sub = _first_axis(scatter_nd_sub, "scatter_sub",
                           "input_x[indices] -= updates along the first axis, in place.")


scatter_mul = _first_axis(scatter_nd_mul, "scatter_mul",
                           "input_x[indices] *= updates along the first axis, in place.")


scatter_div = _first_axis(scatter_nd_div, "scatter_div",
                           "input_x[indices] /= updates along the first axis, in place.")


scatter_max = _first_axis(scatter_nd_max, "scatter_max",
                           "input_x[indices] = max(input_x[indices], updates), in place.")


scatter_min = _first_axis(scatter_nd_min, "scatter_min",
                           "input_x[indices] = min(input_x[indices], updates), in place.")


scatter_update = _first_axis(scatter_nd_update, "scatter_update",
                              "input_x[indices] = updates along the first axis, in place.")


@constexpr
def _rows_plan(xs, vs, indices, op):
    if isinstance(indices, _C.Tensor):
        indices = [int(i) for i in indices.asnumpy().reshape(-1)]
    rows = [indices] if isinstance(indices, int) else list(indices)
    for i in rows:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"For '{op}', indices must be an int or a tuple of ints, but got "
                            f"{indices!r}.")
        if not -xs[0] <= i < xs[0]:
            raise ValueError(f"For '{op}', index {i} is out of range for the first dimension "
                             f"{xs[0]}.")
    want = (len(rows),) + tuple(xs[1:])
    if tuple(vs) != want and not (len(rows) == 1 and tuple(vs) == tuple(xs[1:])):
        raise ValueError(f"For '{op}', v must have shape {want}, but got {tuple(vs)}.")
    return _C.Tensor(np.array([i % xs[0] for i in rows], np.int64).reshape(-1, 1)), want


@constexpr
def _rows_shape(xs, ishape, vs, op):
    if len(ishape) > 1:
        raise ValueError(f"For '{op}', indices must be 0-D or 1-D, but got shape {ishape}.")
    rows = ishape[0] if ishape else 1
    want = (rows,) + tuple(xs[1:])
    if tuple(vs) != want and not (rows == 1 and tuple(vs) == tuple(xs[1:])):
        raise ValueError(f"For '{op}', v must have shape {want}, but got {tuple(vs)}.")
    return want


def _inplace(op, combine, x, v, indices):
    x, v = _t(x, op, "x"), _t(v, op, "v")
    if x.ndim == 0:  # (x.shape[0]: a bare IndexError)
        raise ValueError(f"For '{op}', x must have at least 1 dimension, but got a 0-d tensor.")
    if x.dtype != v.dtype:
        raise TypeError(f"For '{op}', x and v must have the same dtype, but got {x.dtype} and "
                        f"{v.dtype}.")
    if isinstance(indices, _C.Tensor):
        # values known only at run time (graph mode): negative rows wrap, no range check
        i = prim("Reshape")(prim("Cast")(indices, _C.int64), (-1, 1))
        idx = prim("Select")(prim("Less")(i, 0), i + x.shape[0], i)
        vshape = _rows_shape(x.shape, indices.shape, v.shape, op)
    else:
        idx, vshape = _rows_plan(x.shape, v.shape, indices, op)
    v = prim("Reshape")(v, vshape)
    if combine == "update":
        return prim("TensorScatterUpdate")(x, idx, v)
    total = prim("ScatterNd")(idx, v, x.shape)
    return prim("Add" if combine == "add" else "Sub")(x, total)


def inplace_add(x, v, indices):
    """x with v added to the rows indices (an int or a tuple of ints)."""
    return _inplace("InplaceAdd", "add", x, v, indices)


def inplace_sub(x, v, indices):
    """x with v subtracted from the rows indices."""
    return _inplace("InplaceSub", "sub", x, v, indices)


def inplace_update(x, v, indices):
    """x with the rows indices replaced by v (a repeated index keeps its last row)."""
    return _inplace("InplaceUpdate", "update", x, v, indices)


@constexpr
def _fill_plan(shape, axis, op="index_fill"):
    if isinstance(axis, _C.Tensor):
        axis = int(axis.asnumpy())
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For '{op}', axis must be an int, but got {type(axis).__name__}.")
    nd = max(len(shape), 1)
    if not -nd <= axis < nd:
        raise ValueError(f"For '{op}', axis {axis} is out of range for rank {len(shape)}.")
    ax = axis % nd
    n = shape[ax] if shape else 1
    view = tuple(n if i == ax else 1 for i in range(len(shape)))
    return _C.Tensor(np.arange(n, dtype=np.int64).reshape(view or (1,))), n


def index_fill(x, axis, index, value):
    """x with the positions `index` (a 1-D int tensor) along axis set to value (a number or
    a 0-d tensor)."""
    x = _t(x, "index_fill", "x")
    idx = _t(index, "index_fill", "index")
    if idx.dtype not in (_C.int32, _C.int64) or idx.ndim > 1:
        raise TypeError(f"For 'index_fill', index must be a 0-D or 1-D int32/int64 tensor, but "
                        f"got {idx.dtype} of shape {idx.shape}.")
    pos, n = _fill_plan(x.shape, axis)
    i = prim("Reshape")(prim("Cast")(idx, _C.int64), (1, -1))
    i = prim("Select")(prim("Less")(i, 0), i + n, i)
    hit = prim("ReduceMax")(prim("Cast")(prim("Equal")(prim("ExpandDims")(pos, -1), i),
                                         _C.int32), (-1,))
    hit = prim("BroadcastTo", shape=x.shape)(prim("Greater")(hit, 0))
    val = prim("Cast")(as_tensor(value), x.dtype)
    return prim("Select")(hit, prim("BroadcastTo", shape=x.shape)(val), x)
