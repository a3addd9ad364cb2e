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
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div",
           "scatter_nd_max", "scatter_nd_min", "scatter_nd_update"]


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


def _check_dtypes(op, x, updates):
    if x.dtype != updates.dtype:
        raise TypeError(f"For '{op}', input_x and updates must have the same dtype, but got "
                        f"{x.dtype} and {updates.dtype}.")


def _scatter(op, combine, input_x, indices, updates):
    x, idx, upd = as_tensor(input_x), as_tensor(indices), as_tensor(updates)
    _check_dtypes(op, x, upd)
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


def _in_place(combine, use_locking_default, doc):
    """The public function ops.scatter_nd_<combine> (``use_locking`` is accepted for
    MindSpore's signature: mycel applies the updates of one call in order)."""
    name = "scatter_nd_" + combine

    def fn(input_x, indices, updates, use_locking=use_locking_default):
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
