"""The work of MindSpore's ``ops.operations.sparse_ops`` primitives over the parts of sparse
tensors (operations/sparse_compat_ops.py holds the classes), composed from table ops so that
both modes compile them and gradients reach the values through the ops they are built of.

Two forms of sparse tensors appear:

- COO parts: ``indices [N, R]`` (int32/int64), ``values [N]`` and a dense ``shape`` of R
  sizes (a tuple, or an int Tensor known when it compiles: a constant in GRAPH mode, since
  it fixes the output's shape). A position's key is its row-major flat offset (int64).
- The batched CSR "sparse matrix" of five tensors: ``dense_shape`` ([rows, cols] or [batch,
  rows, cols]), ``batch_pointers [B + 1]`` (where each batch's values start), ``row_pointers
  [B * (rows + 1)]`` (each batch's own indptr, from 0), ``col_indices [nnz]`` and ``values
  [nnz]``. Its entries' (batch, row, column) come from the pointers in O(nnz + B * rows): the
  batches' row starts offset by the batch starts form one indptr of B * rows rows
  (sparse_func._rows_of_ptr), checked first (a ValueError when the pointers do not rise from 0
  to each batch's count or a column is out of range).

Results whose size depends on the values (SparseSlice, SparseSparseMaximum/Minimum,
SparseFillEmptyRows) select with MaskedSelect, the table's dynamic-size op. Outputs keep
MindSpore's dtypes: indices int64 unless stated, values as given.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import sparse_func as _sf
from mycel.ops.function import segment_func as _seg
from mycel.ops.primitive import constexpr

_INDEX = (_C.int32, _C.int64)
_FLOATS = (_C.float16, _C.float32, _C.float64)
_COMPLEX = (_C.complex64, _C.complex128)
_i64 = _sf._i64
_guarded = _sf._guarded


def _cast(x, dtype):
    return prim("Cast", dtype=dtype)(x)


def _all(b, axis):
    """Whether every element of the bool tensor b along axis holds (the axis removed)."""
    return prim("Greater")(prim("ReduceMin", keep_dims=False)(_cast(b, _C.int32), (axis,)), 0)


@constexpr
def _check_index_dtype(who, name, dtype):
    if dtype not in _INDEX:
        raise TypeError(f"For '{who}', '{name}' must be int32 or int64, but got {dtype}.")
    return True


@constexpr
def _shape_of(who, shape):
    """The dense shape as a tuple of ints (a tuple, or an int Tensor known when it compiles)."""
    return _sf._sparse_shape(who, shape)


@constexpr
def _strides(shape):
    return tuple(int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape)))


def _keys(idx, shape):
    """The row-major flat offset (int64 [N]) of each index row of idx (int64 [N, R])."""
    strides = _strides(shape)
    key = None
    for d, s in enumerate(strides):
        term = prim("Mul")(idx[:, d], s) if s != 1 else idx[:, d]
        key = term if key is None else prim("Add")(key, term)
    return key


def _unravel(keys, shape):
    """Index rows (int64 [N, R]) of flat offsets."""
    cols = []
    for s, size in zip(_strides(shape), shape):
        q = prim("FloorDiv")(keys, s) if s != 1 else keys
        cols.append(prim("FloorMod")(q, size) if len(cols) else q)
    return prim("Stack", axis=1)(tuple(cols))


@constexpr
def _check_coo(who, i_shape, v_shape, rank):
    if len(i_shape) != 2 or len(v_shape) != 1 or i_shape[0] != v_shape[0] or \
            (rank is not None and i_shape[1] != rank):
        want = "[N, R]" if rank is None else f"[N, {rank}]"
        raise ValueError(f"For '{who}', indices must have shape {want} and values [N], but got "
                         f"{tuple(i_shape)} and {tuple(v_shape)}.")
    return True


def _check_default(who, default_value, dtype):
    if len(default_value.shape) != 0:
        raise ValueError(f"For '{who}', default_value must be a scalar, but got shape "
                         f"{tuple(default_value.shape)}.")
    if default_value.dtype != dtype:
        raise TypeError(f"For '{who}', default_value must have values' dtype {dtype}, but got "
                        f"{default_value.dtype}.")


def _coo_in(who, indices, values, shape):
    """(int64 indices checked to lie in shape, values, shape tuple)."""
    indices, values = as_tensor(indices), as_tensor(values)
    shape = _shape_of(who, shape)
    _check_index_dtype(who, "indices", indices.dtype)
    _check_coo(who, indices.shape, values.shape, len(shape))
    return _sf._check_coo_indices(who, indices, shape), values, shape


# ---- the batched CSR sparse matrix ---------------------------------------------------------


@constexpr
def _csr_plan(who, shape, bp_shape, rp_shape, ci_shape, v_shape):
    if len(shape) not in (2, 3):
        raise ValueError(f"For '{who}', the dense shape must have 2 or 3 entries, but got "
                         f"{shape}.")
    batch = shape[0] if len(shape) == 3 else 1
    rows, cols = shape[-2], shape[-1]
    want = ((batch + 1,), (batch * (rows + 1),))
    if (tuple(bp_shape), tuple(rp_shape)) != want or len(ci_shape) != 1 or \
            tuple(ci_shape) != tuple(v_shape):
        raise ValueError(f"For '{who}', a sparse matrix of dense shape {shape} needs batch "
                         f"pointers of shape {want[0]}, row pointers {want[1]} and col_indices "
                         f"and values of one length, but got {tuple(bp_shape)}, "
                         f"{tuple(rp_shape)}, {tuple(ci_shape)} and {tuple(v_shape)}.")
    return batch, rows, cols


def csr_coords(who, dense_shape, batch_pointers, row_pointers, col_indices, values):
    """(batch, row, column) (int64 [nnz] each) of the stored values and (B, rows, cols), once
    the pointers and columns are checked (a ValueError naming who)."""
    shape = _shape_of(who, dense_shape)
    bp, rp, ci, v = (as_tensor(t) for t in (batch_pointers, row_pointers, col_indices, values))
    for name, t in (("batch_pointers", bp), ("row_pointers", rp), ("col_indices", ci)):
        _check_index_dtype(who, name, t.dtype)
    b, m, n = _csr_plan(who, shape, bp.shape, rp.shape, ci.shape, v.shape)
    nnz = v.shape[0]
    bp, rp, ci = _i64(bp), _i64(rp), _i64(ci)
    local = prim("Reshape")(rp, (b, m + 1))
    counts = prim("Sub")(bp[1:], bp[:b])
    bad = prim("LogicalOr")(prim("NotEqual")(bp[0], 0), prim("NotEqual")(bp[b], nnz))
    bad = prim("LogicalOr")(bad, prim("Less")(counts, 0).any())
    bad = prim("LogicalOr")(bad, prim("NotEqual")(local[:, 0], 0).any())
    bad = prim("LogicalOr")(bad, prim("NotEqual")(local[:, m], counts).any())
    if m > 0:
        bad = prim("LogicalOr")(bad, prim("Less")(prim("Sub")(local[:, 1:], local[:, :m]),
                                                  0).any())
    bad = prim("LogicalOr")(bad, prim("LogicalOr")(prim("Less")(ci, 0),
                                                   prim("GreaterEqual")(ci, n)).any())
    local = _guarded(local, bad, f"For '{who}', the sparse matrix is inconsistent: the batch "
                                 f"pointers must rise from 0 to the number of values, each "
                                 f"batch's row pointers from 0 to its count, and every column "
                                 f"lie in [0, {n}).")
    if nnz == 0 or m == 0:
        z = prim("ZerosLike")(ci)
        return z, z, ci, (b, m, n)
    starts = prim("Add")(local[:, :m], prim("Reshape")(bp[:b], (b, 1)))
    gptr = prim("Concat", axis=0)((prim("Reshape")(starts, (b * m,)), bp[b:]))
    g = _sf._rows_of_ptr(gptr, b * m, ci)
    return prim("FloorDiv")(g, m), prim("FloorMod")(g, m), ci, (b, m, n)


def _scatter_dense(keys, values, size):
    """A flat dense [size] tensor with values added at keys."""
    return _sf._segment_sum(values, keys, size)


def csr_matrix_to_dense(dense_shape, batch_pointers, row_pointers, col_indices, values):
    who = "CSRSparseMatrixToDense"
    bi, r, c, (b, m, n) = csr_coords(who, dense_shape, batch_pointers, row_pointers,
                                     col_indices, values)
    key = prim("Add")(prim("Mul")(prim("Add")(prim("Mul")(bi, m), r), n), c)
    flat = _scatter_dense(key, as_tensor(values), b * m * n)
    return prim("Reshape")(flat, _shape_of(who, dense_shape))


def csr_matrix_to_sparse_tensor(dense_shape, batch_pointers, row_pointers, col_indices,
                                values):
    who = "CSRSparseMatrixToSparseTensor"
    bi, r, c, _ = csr_coords(who, dense_shape, batch_pointers, row_pointers, col_indices,
                             values)
    parts = (r, c) if len(_shape_of(who, dense_shape)) == 2 else (bi, r, c)
    dtype = as_tensor(dense_shape).dtype
    return (_cast(prim("Stack", axis=1)(parts), dtype), values, dense_shape)


def _pointers(bi, r, b, m, dtype):
    """(batch_pointers [b + 1], row_pointers [b * (m + 1)]) of entries sorted by (batch, row)."""
    ones = prim("OnesLike")(bi)
    per_batch = prim("UnsortedSegmentSum")(ones, bi, b)
    zero = _sf._const([0], _C.int64)
    bp = prim("Concat", axis=0)((zero, prim("CumSum")(per_batch, 0)))
    per_row = prim("Reshape")(prim("UnsortedSegmentSum")(ones, prim("Add")(prim("Mul")(bi, m), r),
                                                         b * m), (b, m))
    rp = prim("Concat", axis=1)((_sf._const(np.zeros((b, 1), np.int64).tolist(), _C.int64),
                                 prim("CumSum")(per_row, 1)))
    return _cast(bp, dtype), _cast(prim("Reshape")(rp, (b * (m + 1),)), dtype)


def coo_to_csr_matrix(who, indices, values, dense_shape, out_dtype=None):
    """The 5 parts of the sparse matrix of COO indices ([N, 2] or [N, 3]), entries sorted by
    (batch, row, column) (stable)."""
    idx, values, shape = _coo_in(who, indices, values, dense_shape)
    if len(shape) not in (2, 3):
        raise ValueError(f"For '{who}', the dense shape must have 2 or 3 entries, but got "
                         f"{shape}.")
    b = shape[0] if len(shape) == 3 else 1
    m, n = shape[-2], shape[-1]
    dtype = out_dtype or as_tensor(indices).dtype
    if values.shape[0] == 0:
        bi = r = c = _i64(idx[:, 0])
    else:
        _, order = prim("Sort", axis=0, descending=False)(_keys(idx, shape))
        idx = prim("Gather")(idx, order, 0)
        values = prim("Gather")(values, order, 0)
        bi = idx[:, 0] if len(shape) == 3 else prim("ZerosLike")(idx[:, 0])
        r, c = idx[:, -2], idx[:, -1]
    bp, rp = _pointers(bi, r, b, m, dtype)
    ds = dense_shape if isinstance(dense_shape, _C.Tensor) else \
        _sf._const(list(shape), dtype)
    return ds, bp, rp, _cast(c, dtype), values


def dense_to_csr_matrix(dense_input, indices):
    who = "DenseToCSRSparseMatrix"
    dense_input, indices = as_tensor(dense_input), as_tensor(indices)
    shape = tuple(dense_input.shape)
    idx = _sf._check_coo_indices(who, indices, shape)
    flat = prim("Reshape")(dense_input, (-1,))
    values = prim("Gather")(flat, _keys(idx, shape), 0)
    return coo_to_csr_matrix(who, indices, values, shape, indices.dtype)


def csr_matrix_nnz(batch_pointers):
    bp = as_tensor(batch_pointers)
    n = bp.shape[0] - 1
    return _cast(prim("Sub")(bp[1:], bp[:n]), _C.int32)


def _conj(x):
    return prim("Conj")(x) if x.dtype in _COMPLEX else x


def coords_mm(dst, src, values, out_rows, dense):
    """out [out_rows, N] with values[j] * dense[src[j], :] added at row dst[j] (the coords
    checked): the fused COOMM for float32/float64, else a Gather and UnsortedSegmentSum."""
    if values.dtype == dense.dtype and values.dtype in (_C.float32, _C.float64):
        return prim("COOMM", dense_shape=(out_rows, dense.shape[0]), transpose_a=False)(
            dst, src, values, dense)
    picked = prim("Gather")(dense, src, 0)
    return _sf._segment_sum(prim("Mul")(prim("ExpandDims")(values, 1), picked), dst, out_rows)


def csr_matrix_matmul(parts, x2, transpose_x1, transpose_x2, adjoint_x1, adjoint_x2,
                      transpose_output, conjugate_output):
    """op(x1) @ op(x2) of the sparse matrix x1 (5 parts) and the dense x2 ([rows, cols] or
    [B, rows, cols]); op transposes (transpose_*) or conjugate-transposes (adjoint_*); then
    the output transposed and/or conjugated."""
    who = "SparseMatrixMatMul"
    bi, r, c, (b, m, n) = csr_coords(who, *parts)
    values, x2 = as_tensor(parts[4]), as_tensor(x2)
    if values.dtype != x2.dtype:
        raise TypeError(f"For '{who}', x1_values and x2_dense must have one dtype, but got "
                        f"{values.dtype} and {x2.dtype}.")
    rank = len(_shape_of(who, parts[0]))
    if len(x2.shape) != rank:
        raise ValueError(f"For '{who}', x2_dense must have the rank of x1's dense shape "
                         f"({rank}), but got shape {tuple(x2.shape)}.")
    if transpose_x1 and adjoint_x1 or transpose_x2 and adjoint_x2:
        raise ValueError(f"For '{who}', transpose and adjoint of one operand cannot both be "
                         f"set.")
    d = x2 if rank == 3 else prim("ExpandDims")(x2, 0)
    if transpose_x2 or adjoint_x2:
        d = prim("Transpose")(d, (0, 2, 1))
    if adjoint_x2:
        d = _conj(d)
    if adjoint_x1:
        values = _conj(values)
    ta = transpose_x1 or adjoint_x1
    rows, inner = (n, m) if ta else (m, n)
    if d.shape[0] != b or d.shape[1] != inner:
        raise ValueError(f"For '{who}', op(x2) must have shape ({inner}, N) per batch (of "
                         f"{b}), but got x2_dense of shape {tuple(x2.shape)}.")
    dst, src = (c, r) if ta else (r, c)
    dst = prim("Add")(dst, prim("Mul")(bi, rows))
    src = prim("Add")(src, prim("Mul")(bi, inner))
    k = d.shape[2]
    out = coords_mm(dst, src, values, b * rows, prim("Reshape")(d, (b * inner, k)))
    out = prim("Reshape")(out, (b, rows, k))
    if transpose_output:
        out = prim("Transpose")(out, (0, 2, 1))
    if conjugate_output:
        out = _conj(out)
    return out if rank == 3 else out[0]


def csr_matrix_transpose(parts, conjugate):
    """The 5 parts of each batch's transpose (columns become rows, each row's entries in
    ascending column order, stable)."""
    who = "SparseMatrixTranspose"
    bi, r, c, (b, m, n) = csr_coords(who, *parts)
    dense_shape, bp, rp, ci, values = (as_tensor(t) for t in parts)
    shape = _shape_of(who, dense_shape)
    if values.shape[0] > 0:
        _, order = prim("Sort", axis=0, descending=False)(
            prim("Add")(prim("Mul")(prim("Add")(prim("Mul")(bi, n), c), max(m, 1)), r))
        bi, r, c = (prim("Gather")(t, order, 0) for t in (bi, r, c))
        values = prim("Gather")(values, order, 0)
    _, new_rp = _pointers(bi, c, b, n, rp.dtype)
    new_shape = shape[:-2] + (n, m)
    ds = _cast(_sf._const(list(new_shape), _C.int64), dense_shape.dtype)
    return ds, bp, new_rp, _cast(r, ci.dtype), _conj(values) if conjugate else values


# ---- COO tensors -----------------------------------------------------------------------------


def sparse_tensor_dense_add(x1_indices, x1_values, x1_shape, x2):
    who = "SparseTensorDenseAdd"
    idx, values, shape = _coo_in(who, x1_indices, x1_values, x1_shape)
    x2 = as_tensor(x2)
    if tuple(x2.shape) != shape:
        raise ValueError(f"For '{who}', x2's shape {tuple(x2.shape)} must be x1_shape {shape}.")
    if x2.dtype != values.dtype:
        raise TypeError(f"For '{who}', x1_values and x2 must have one dtype, but got "
                        f"{values.dtype} and {x2.dtype}.")
    return prim("Add")(x2, prim("ScatterNd")(idx, values, shape))


def sparse_addmm(x1_indices, x1_values, x1_shape, x2_dense, x3_dense, alpha, beta):
    """alpha * (x1 @ x2_dense) + beta * x3_dense for the 2-D sparse x1."""
    who = "SparseAddmm"
    idx, values, shape = _coo_in(who, x1_indices, x1_values, x1_shape)
    x2, x3 = as_tensor(x2_dense), as_tensor(x3_dense)
    if len(shape) != 2 or len(x2.shape) != 2 or x2.shape[0] != shape[1] or \
            tuple(x3.shape) != (shape[0], x2.shape[1]):
        raise ValueError(f"For '{who}', x1 [M, K] @ x2 [K, N] + x3 [M, N] must agree, but got "
                         f"{shape}, {tuple(x2.shape)} and {tuple(x3.shape)}.")
    if not values.dtype == x2.dtype == x3.dtype:
        raise TypeError(f"For '{who}', x1_values, x2_dense and x3_dense must have one dtype, "
                        f"but got {values.dtype}, {x2.dtype} and {x3.dtype}.")
    prod = coords_mm(idx[:, 0], idx[:, 1], values, shape[0], x2)
    a = prim("Reshape")(_cast(as_tensor(alpha), values.dtype), ())
    bt = prim("Reshape")(_cast(as_tensor(beta), values.dtype), ())
    return prim("Add")(prim("Mul")(prod, a), prim("Mul")(x3, bt))


def sparse_to_dense_v2(indices, output_shape, values, default_value, validate_indices):
    """The dense tensor of output_shape holding values at indices ([N, R], [N] for R = 1, or
    a scalar index for a 0-d output) and default_value elsewhere."""
    who = "SparseToDenseV2"
    indices, values, default_value = as_tensor(indices), as_tensor(values), \
        as_tensor(default_value)
    shape = _shape_of(who, output_shape)
    _check_index_dtype(who, "indices", indices.dtype)
    idx = indices if len(indices.shape) == 2 else prim("Reshape")(indices, (-1, 1))
    n = idx.shape[0]
    if idx.shape[1] != len(shape):
        raise ValueError(f"For '{who}', indices must have {len(shape)} columns (the output's "
                         f"rank), but got shape {tuple(indices.shape)}.")
    _check_default(who, default_value, values.dtype)
    if len(values.shape) == 0:
        values = prim("BroadcastTo", shape=(n,))(values)
    elif tuple(values.shape) != (n,):
        raise ValueError(f"For '{who}', values must be a scalar or of shape ({n},), but got "
                         f"{tuple(values.shape)}.")
    idx = _sf._check_coo_indices(who, idx, shape)
    if validate_indices and n > 1:
        keys = _keys(idx, shape)
        idx = _guarded(idx, prim("LessEqual")(keys[1:], keys[:n - 1]).any(),
                       f"For '{who}', indices must be in lexicographic order without repeats.")
    full = prim("BroadcastTo", shape=shape)(default_value)
    return prim("TensorScatterUpdate")(full, idx, values)


def sparse_softmax(indices, values, shape):
    """The softmax of the values of each group of entries that share their leading indices
    (all but the last)."""
    who = "SparseSoftmax"
    idx, values, shape = _coo_in(who, indices, values, shape)
    if len(shape) < 2:
        raise ValueError(f"For '{who}', the shape must have at least 2 entries, but got {shape}.")
    if values.dtype not in (_C.float32, _C.float64):
        raise TypeError(f"For '{who}', values must be float32 or float64, but got "
                        f"{values.dtype}.")
    if values.shape[0] == 0:
        return values
    lead = shape[:-1]
    groups = int(np.prod(lead))
    g = _keys(idx[:, :-1], lead)
    top = _seg.unsorted_segment_max(values, g, groups)
    e = prim("Exp")(prim("Sub")(values, prim("Gather")(top, g, 0)))
    return prim("Div")(e, prim("Gather")(prim("UnsortedSegmentSum")(e, g, groups), g, 0))


def sparse_reorder(indices, values, shape):
    """(indices, values) in row-major order (a stable sort of the keys)."""
    who = "SparseReorder"
    idx, values, shape = _coo_in(who, indices, values, shape)
    if values.shape[0] == 0:
        return as_tensor(indices), values
    _, order = prim("Sort", axis=0, descending=False)(_keys(idx, shape))
    return (prim("Gather")(as_tensor(indices), order, 0), prim("Gather")(values, order, 0))


@constexpr
def _concat_plan(who, shapes, dim, n_idx, n_val):
    if not n_idx == n_val == len(shapes) or len(shapes) < 2:
        raise ValueError(f"For '{who}', sp_input_indices, sp_input_values and sp_input_shapes "
                         f"must hold one entry per sparse tensor (at least 2), but got "
                         f"{n_idx}, {n_val} and {len(shapes)}.")
    rank = len(shapes[0])
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
        raise ValueError(f"For '{who}', concat_dim must be an int in [{-rank}, {rank}), but got "
                         f"{dim!r}.")
    dim %= rank
    for s in shapes:
        if len(s) != rank or any(a != b for i, (a, b) in enumerate(zip(s, shapes[0]))
                                 if i != dim):
            raise ValueError(f"For '{who}', the shapes {list(shapes)} must agree outside "
                             f"dimension {dim}.")
    offsets = tuple(int(v) for v in np.cumsum([0] + [s[dim] for s in shapes[:-1]]))
    out = list(shapes[0])
    out[dim] = int(sum(s[dim] for s in shapes))
    return dim, offsets, tuple(out)


def sparse_concat(indices, values, shapes, concat_dim):
    who = "SparseConcat"
    shapes_t = tuple(_shape_of(who, s) for s in shapes)
    dim, offsets, out = _concat_plan(who, shapes_t, concat_dim, len(indices), len(values))
    keys, vals = [], []
    for i, v, s, off in zip(indices, values, shapes_t, offsets):
        idx, v, _ = _coo_in(who, i, v, s)
        shift = [0] * len(out)
        shift[dim] = off
        keys.append(_keys(prim("Add")(idx, _sf._const([shift], _C.int64)), out))
        vals.append(v)
    keys = prim("Concat", axis=0)(tuple(keys))
    vals = prim("Concat", axis=0)(tuple(vals))
    skeys, order = prim("Sort", axis=0, descending=False)(keys)
    return (_unravel(skeys, out), prim("Gather")(vals, order, 0),
            _sf._const(list(out), _C.int64))


def sparse_sparse_extreme(who, combine, x1_indices, x1_values, x1_shape, x2_indices, x2_values,
                          x2_shape):
    """(indices, values) over the union of the positions (row-major order) of
    combine(x1 or 0, x2 or 0): SparseSparseMaximum / Minimum (each input without repeats)."""
    i1, v1, s1 = _coo_in(who, x1_indices, x1_values, x1_shape)
    i2, v2, s2 = _coo_in(who, x2_indices, x2_values, x2_shape)
    if s1 != s2:
        raise ValueError(f"For '{who}', x1_shape and x2_shape must be equal, but got {s1} and "
                         f"{s2}.")
    if v1.dtype != v2.dtype:
        raise TypeError(f"For '{who}', x1_values and x2_values must have one dtype, but got "
                        f"{v1.dtype} and {v2.dtype}.")
    n1, n = v1.shape[0], v1.shape[0] + v2.shape[0]
    if n == 0:
        return i1, v1
    keys = prim("Concat", axis=0)((_keys(i1, s1), _keys(i2, s1)))
    skeys, order = prim("Sort", axis=0, descending=False)(keys)
    first = prim("Concat", axis=0)((_C.Tensor(np.array([True])),
                                    prim("NotEqual")(skeys[1:], skeys[:n - 1])))
    run = prim("Sub")(prim("CumSum")(_cast(first, _C.int64), 0), 1)
    vals = prim("Gather")(prim("Concat", axis=0)((v1, v2)), order, 0)
    zero = prim("ZerosLike")(vals)
    from_1 = prim("Less")(order, n1)
    a = prim("UnsortedSegmentSum")(prim("Select")(from_1, vals, zero), run, n)
    b = prim("UnsortedSegmentSum")(prim("Select")(from_1, zero, vals), run, n)
    out = prim("Gather")(combine(a, b), run, 0)
    return (_unravel(prim("MaskedSelect")(skeys, first), s1),
            prim("MaskedSelect")(out, first))


def sparse_slice(indices, values, shape, start, size):
    """(y_indices, y_values, y_shape): the entries inside [start, start + size) (clipped to
    the shape), their indices relative to start, in their order."""
    who = "SparseSlice"
    indices, values = as_tensor(indices), as_tensor(values)
    shape_t, start, size = (_i64(as_tensor(t)) for t in (shape, start, size))
    _check_index_dtype(who, "indices", indices.dtype)
    rank = indices.shape[1] if len(indices.shape) == 2 else -1
    _check_coo(who, indices.shape, values.shape, None)
    for name, t in (("shape", shape_t), ("start", start), ("size", size)):
        if tuple(t.shape) != (rank,):
            raise ValueError(f"For '{who}', '{name}' must have shape ({rank},), but got "
                             f"{tuple(t.shape)}.")
    bad = prim("LogicalOr")(prim("Less")(start, 0).any(), prim("Less")(size, 0).any())
    start = _guarded(start, bad, f"For '{who}', start and size must be non-negative.")
    idx = _i64(indices)
    end = prim("Minimum")(prim("Add")(start, size), shape_t)
    inside = prim("LogicalAnd")(prim("GreaterEqual")(idx, start), prim("Less")(idx, end))
    keep = _all(inside, 1)
    rel = prim("Sub")(idx, start)
    y_idx = prim("Reshape")(prim("MaskedSelect")(rel, prim("ExpandDims")(keep, 1)), (-1, rank))
    y_shape = prim("Maximum")(prim("Sub")(end, start), 0)
    return y_idx, prim("MaskedSelect")(values, keep), y_shape


def sparse_slice_grad(backprop_val_grad, indices, start, new_indices):
    """The gradient of SparseSlice's values by its input values: each input entry whose index
    (less start) is among new_indices takes that entry's gradient, the others 0 (an [N, M]
    comparison of the two index lists)."""
    who = "SparseSliceGrad"
    grad, indices, start, new = (as_tensor(t) for t in (backprop_val_grad, indices, start,
                                                        new_indices))
    if len(indices.shape) != 2 or len(new.shape) != 2 or indices.shape[1] != new.shape[1] or \
            tuple(grad.shape) != (new.shape[0],) or tuple(start.shape) != (indices.shape[1],):
        raise ValueError(f"For '{who}', indices [N, R], start [R], new_indices [M, R] and "
                         f"backprop_val_grad [M] must agree, but got {tuple(indices.shape)}, "
                         f"{tuple(start.shape)}, {tuple(new.shape)} and {tuple(grad.shape)}.")
    rel = prim("Sub")(_i64(indices), _i64(start))
    eq = _all(prim("Equal")(prim("ExpandDims")(rel, 1), prim("ExpandDims")(_i64(new), 0)), 2)
    picked = prim("Select")(eq, prim("BroadcastTo", shape=tuple(eq.shape))(
        prim("ExpandDims")(grad, 0)), prim("ZerosLike")(_cast(eq, grad.dtype)))
    return prim("ReduceSum", keep_dims=False)(picked, (1,))


def sparse_fill_empty_rows(indices, values, dense_shape, default_value):
    """(output_indices, output_values, empty_row_indicator, reverse_index_map): the entries
    with (r, 0, ...) = default_value added for each empty row r, ordered by row (entries of a
    row in their input order); reverse_index_map[i] is input entry i's output position."""
    who = "SparseFillEmptyRows"
    idx, values, shape = _coo_in(who, indices, values, dense_shape)
    default_value = as_tensor(default_value)
    _check_default(who, default_value, values.dtype)
    m, n, rank = shape[0], values.shape[0], len(shape)
    rows = idx[:, 0]
    counts = prim("UnsortedSegmentSum")(prim("OnesLike")(rows), rows, m)
    empty = prim("Equal")(counts, 0)
    empty_before = prim("CumSum", exclusive=True)(_cast(empty, _C.int64), 0)
    all_rows = _sf._arange(m)
    fill_rows = prim("MaskedSelect")(all_rows, empty)
    # positions: the stable row order of the entries, shifted by the empty rows before theirs
    if n > 0:
        srows, order = prim("Sort", axis=0, descending=False)(rows)
        pos_sorted = prim("Add")(_sf._arange(n), prim("Gather")(empty_before, srows, 0))
        reverse = prim("ScatterNd")(prim("ExpandDims")(order, 1), pos_sorted, (n,))
    else:
        reverse = _i64(rows)
    before_rows = prim("CumSum", exclusive=True)(counts, 0)
    fill_pos = prim("Add")(prim("Gather")(before_rows, fill_rows, 0),
                           prim("Gather")(empty_before, fill_rows, 0))
    zeros = prim("ZerosLike")(fill_rows)
    fill_idx = prim("Stack", axis=1)((fill_rows,) + (zeros,) * (rank - 1))
    fill_vals = prim("Add")(prim("ZerosLike")(_cast(fill_rows, values.dtype)), default_value)
    keys = prim("Concat", axis=0)((reverse, fill_pos))
    _, order2 = prim("Sort", axis=0, descending=False)(keys)
    all_idx = prim("Concat", axis=0)((idx, fill_idx))
    all_vals = prim("Concat", axis=0)((values, fill_vals))
    return (prim("Gather")(all_idx, order2, 0), prim("Gather")(all_vals, order2, 0), empty,
            reverse)


def set_size(set_indices, set_values, set_shape, validate_indices):
    """The number of distinct values of each set (the entries sharing their leading indices):
    int32 of shape set_shape[:-1]."""
    who = "SetSize"
    idx, values, shape = _coo_in(who, set_indices, set_values, set_shape)
    if len(shape) < 2:
        raise ValueError(f"For '{who}', set_shape must have at least 2 entries, but got "
                         f"{shape}.")
    n = values.shape[0]
    lead = shape[:-1]
    groups = int(np.prod(lead))
    if n == 0:
        return _sf._const(np.zeros(lead, np.int64).tolist(), _C.int32)
    if validate_indices and n > 1:
        keys = _keys(idx, shape)
        idx = _guarded(idx, prim("LessEqual")(keys[1:], keys[:n - 1]).any(),
                       f"For '{who}', set_indices must be in row-major order without repeats.")
    g = _keys(idx[:, :-1], lead)
    sv, o1 = prim("Sort", axis=0, descending=False)(values)
    sg, o2 = prim("Sort", axis=0, descending=False)(prim("Gather")(g, o1, 0))
    sv = prim("Gather")(sv, o2, 0)
    new = prim("LogicalOr")(prim("NotEqual")(sg[1:], sg[:n - 1]),
                            prim("NotEqual")(sv[1:], sv[:n - 1]))
    first = prim("Concat", axis=0)((_C.Tensor(np.array([True])), new))
    count = prim("UnsortedSegmentSum")(_cast(first, _C.int32), sg, groups)
    return prim("Reshape")(count, lead)


# ---- segment reductions over selected rows ---------------------------------------------------


@constexpr
def _segments(who, x_shape, i_shape, i_dtype, s_shape, s_dtype, segment_ids, num_segments):
    for name, d in (("indices", i_dtype), ("segment_ids", s_dtype)):
        if d not in _INDEX:
            raise TypeError(f"For '{who}', {name} must be int32 or int64, but got {d}.")
    if len(x_shape) < 1 or len(i_shape) != 1 or tuple(i_shape) != tuple(s_shape):
        raise ValueError(f"For '{who}', x must have rank >= 1 and indices, segment_ids be 1-D "
                         f"of one length, but got shapes {tuple(x_shape)}, {tuple(i_shape)}, "
                         f"{tuple(s_shape)}.")
    if num_segments is not None:
        if not isinstance(num_segments, _C.Tensor):
            raise ValueError(f"For '{who}', num_segments fixes the output's shape, so it must "
                             f"be known when it compiles (a constant in GRAPH mode).")
        ns = num_segments.asnumpy().reshape(-1)
        if ns.size != 1:
            raise ValueError(f"For '{who}', num_segments must hold one value, but got shape "
                             f"{tuple(num_segments.shape)}.")
        return int(ns[0])
    if not isinstance(segment_ids, _C.Tensor):
        raise ValueError(f"For '{who}', the output has segment_ids[-1] + 1 rows, so "
                         f"segment_ids must be known when it compiles (a constant in GRAPH "
                         f"mode).")
    ids = segment_ids.asnumpy().astype(np.int64)
    return int(ids[-1]) + 1 if ids.size else 0


def sparse_segment_reduce(who, kind, x, indices, segment_ids, num_segments=None):
    """out[s] = the sum ("sum"), mean ("mean") or sum / sqrt(count) ("sqrtn") of x[indices[j]]
    over the j with segment_ids[j] == s; empty segments 0. segment_ids must be sorted and
    below the number of segments, indices within x's first dimension (a ValueError)."""
    x, indices, segment_ids = as_tensor(x), as_tensor(indices), as_tensor(segment_ids)
    if x.dtype not in _FLOATS and kind != "sum":
        raise TypeError(f"For '{who}', x must be float16, float32 or float64, but got "
                        f"{x.dtype}.")
    n = _segments(who, x.shape, indices.shape, indices.dtype, segment_ids.shape,
                  segment_ids.dtype, segment_ids,
                  None if num_segments is None else as_tensor(num_segments))
    idx, ids = _i64(indices), _i64(segment_ids)
    k = ids.shape[0]
    bad = prim("LogicalOr")(prim("Less")(idx, 0), prim("GreaterEqual")(idx, x.shape[0])).any()
    bad = prim("LogicalOr")(bad, prim("LogicalOr")(prim("Less")(ids, 0),
                                                   prim("GreaterEqual")(ids, n)).any())
    if k > 1:
        bad = prim("LogicalOr")(bad, prim("Less")(ids[1:], ids[:k - 1]).any())
    idx = _guarded(idx, bad, f"For '{who}', every index must lie in [0, {x.shape[0]}) and "
                             f"segment_ids be sorted in [0, {n}).")
    total = prim("UnsortedSegmentSum")(prim("Gather")(x, idx, 0), ids, n)
    if kind == "sum":
        return total
    count = _cast(prim("Maximum")(prim("UnsortedSegmentSum")(prim("OnesLike")(ids), ids, n), 1),
                  x.dtype)
    if kind == "sqrtn":
        count = prim("Sqrt")(count)
    return prim("Div")(total, prim("Reshape")(count, (n,) + (1,) * (len(x.shape) - 1)))


def sspaddmm(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, x3_dense, alpha,
             beta):
    """(y_indices [2, N], y_values [N], y_shape [2]) of beta * x1 + alpha * (x2 @ x3_dense):
    x1's entries (indices [2, n1], as MindSpore's Sspaddmm takes them) scaled by beta, then
    for each entry (r, k, v) of x2 in its order the row r of alpha * v * x3_dense[k, :] (every
    column; entries of x2 in one row stay separate entries that add up)."""
    who = "Sspaddmm"
    i1, i2 = as_tensor(x1_indices), as_tensor(x2_indices)
    for name, t in (("x1_indices", i1), ("x2_indices", i2)):
        _check_index_dtype(who, name, t.dtype)
        if len(t.shape) != 2 or t.shape[0] != 2:
            raise ValueError(f"For '{who}', '{name}' must have shape [2, N], but got "
                             f"{tuple(t.shape)}.")
    idx1, v1, s1 = _coo_in(who, prim("Transpose")(i1, (1, 0)), x1_values, x1_shape)
    idx2, v2, s2 = _coo_in(who, prim("Transpose")(i2, (1, 0)), x2_values, x2_shape)
    x3 = as_tensor(x3_dense)
    if len(s1) != 2 or len(s2) != 2 or len(x3.shape) != 2 or s2[1] != x3.shape[0] or \
            s1 != (s2[0], x3.shape[1]):
        raise ValueError(f"For '{who}', x1 [M, N] + x2 [M, K] @ x3 [K, N] must agree, but got "
                         f"{s1}, {s2} and {tuple(x3.shape)}.")
    if not v1.dtype == v2.dtype == x3.dtype:
        raise TypeError(f"For '{who}', x1_values, x2_values and x3_dense must have one dtype, "
                        f"but got {v1.dtype}, {v2.dtype} and {x3.dtype}.")
    a = prim("Reshape")(_cast(as_tensor(alpha), v1.dtype), ())
    b = prim("Reshape")(_cast(as_tensor(beta), v1.dtype), ())
    n2, n = v2.shape[0], x3.shape[1]
    rows = prim("Mul")(prim("Gather")(x3, idx2[:, 1], 0),
                       prim("ExpandDims")(prim("Mul")(v2, a), 1))  # [n2, N]
    r = prim("Reshape")(prim("BroadcastTo", shape=(n2, n))(prim("ExpandDims")(idx2[:, 0], 1)),
                        (n2 * n,))
    c = prim("Reshape")(prim("BroadcastTo", shape=(n2, n))(
        prim("ExpandDims")(_sf._arange(n), 0)), (n2 * n,))
    y_idx = prim("Concat", axis=1)((prim("Transpose")(idx1, (1, 0)), prim("Stack", axis=0)((r, c))))
    y_val = prim("Concat", axis=0)((prim("Mul")(v1, b), prim("Reshape")(rows, (n2 * n,))))
    return y_idx, y_val, _sf._const(list(s1), _C.int64)


# ---- ragged tensors --------------------------------------------------------------------------


@constexpr
def _ragged_plan(who, types, n_parts):
    if not isinstance(types, (list, tuple)) or not types or len(types) != n_parts:
        raise ValueError(f"For '{who}', row_partition_types must name one type per row "
                         f"partition tensor ({n_parts}), but got {types!r}.")
    kinds = list(types)
    if kinds[0] == "FIRST_DIM_SIZE":
        if any(k != "VALUE_ROWIDS" for k in kinds[1:]) or len(kinds) < 2:
            raise ValueError(f"For '{who}', FIRST_DIM_SIZE must be followed by VALUE_ROWIDS "
                             f"partitions, but got {kinds}.")
        return "rowids"
    if any(k != "ROW_SPLITS" for k in kinds):
        raise ValueError(f"For '{who}', row_partition_types must be all ROW_SPLITS or "
                         f"FIRST_DIM_SIZE then VALUE_ROWIDS, but got {kinds}.")
    return "splits"


@constexpr
def _host_ints(who, name, t):
    if not isinstance(t, _C.Tensor):
        raise ValueError(f"For '{who}', '{name}' decides the output's shape, so it must be known "
                         f"when it compiles (a constant in GRAPH mode).")
    return tuple(int(v) for v in t.asnumpy().reshape(-1))


def _ragged_coords(who, kind, parts):
    """The coordinates (int64 [n, levels + 1]) of the flat values of a ragged tensor given by
    its row partitions (ROW_SPLITS, or VALUE_ROWIDS after FIRST_DIM_SIZE), the partitions
    checked (splits rising from 0, row ids sorted in range: a ValueError), and each level's
    row count as known on the host (tuple)."""
    if kind == "splits":
        first = _host_ints(who, "row_partition_tensors", as_tensor(parts[0]))
        nrows = len(first) - 1
        levels = parts
    else:
        nrows = _host_ints(who, "row_partition_tensors[0]", as_tensor(parts[0]))[0]
        levels = parts[1:]
    coords = prim("ExpandDims")(_sf._arange(nrows), 1)
    for level in levels:
        t = _i64(as_tensor(level))
        parent_n = coords.shape[0]
        if kind == "splits":
            n_child = _host_ints(who, "row_partition_tensors", as_tensor(level))[-1]
            steps = prim("Sub")(t[1:], t[:parent_n])
            bad = prim("LogicalOr")(prim("NotEqual")(t[0], 0), prim("Less")(steps, 0).any())
            t = _guarded(t, bad, f"For '{who}', row splits must rise from 0.")
            if tuple(as_tensor(level).shape) != (parent_n + 1,):
                raise ValueError(f"For '{who}', row splits of {parent_n} rows must have "
                                 f"{parent_n + 1} entries, but got shape "
                                 f"{tuple(as_tensor(level).shape)}.")
            dummy = _sf._const([0] * n_child, _C.int64)
            parent = _sf._rows_of_ptr(t, parent_n, dummy) if n_child else dummy
            start = prim("Gather")(t, parent, 0)
        else:
            n_child = t.shape[0]
            bad = prim("LogicalOr")(prim("Less")(t, 0), prim("GreaterEqual")(t, parent_n)).any()
            if n_child > 1:
                bad = prim("LogicalOr")(bad, prim("Less")(t[1:], t[:n_child - 1]).any())
            parent = _guarded(t, bad, f"For '{who}', value row ids must be sorted in "
                                      f"[0, {parent_n}).")
            counts = prim("UnsortedSegmentSum")(prim("OnesLike")(parent), parent, parent_n)
            start = prim("Gather")(prim("CumSum", exclusive=True)(counts, 0), parent, 0)
        pos = prim("Sub")(_sf._arange(n_child), start)
        coords = prim("Concat", axis=1)((prim("Gather")(coords, parent, 0),
                                         prim("ExpandDims")(pos, 1)))
    return coords


@constexpr
def _ragged_shape(who, shape, n_levels, inner, coords_max):
    shape = tuple(shape)
    if len(shape) != n_levels + 1 + len(inner):
        raise ValueError(f"For '{who}', shape must have {n_levels + 1 + len(inner)} entries "
                         f"(the ragged rank + 1 + the values' inner rank), but got {shape}.")
    out = []
    for d, s in enumerate(shape):
        if s < 0:
            if d > n_levels:
                s = inner[d - n_levels - 1]
            else:
                s = coords_max[d]
        out.append(int(s))
    for d, s in enumerate(inner):
        if out[n_levels + 1 + d] != s:
            raise ValueError(f"For '{who}', shape {shape} must end in the values' inner shape "
                             f"{tuple(inner)}.")
    return tuple(out)


def ragged_tensor_to_tensor(shape, values, default_value, row_partition_tensors, types):
    """The dense tensor of the ragged tensor (values and row partitions), padded with
    default_value and truncated to shape (-1 entries: the largest size)."""
    who = "RaggedTensorToTensor"
    parts = tuple(row_partition_tensors)
    kind = _ragged_plan(who, tuple(types), len(parts))
    values, default_value = as_tensor(values), as_tensor(default_value)
    if default_value.dtype != values.dtype:
        raise TypeError(f"For '{who}', default_value must have values' dtype {values.dtype}, "
                        f"but got {default_value.dtype}.")
    coords = _ragged_coords(who, kind, parts)
    levels = coords.shape[1] - 1
    if coords.shape[0] != values.shape[0]:
        raise ValueError(f"For '{who}', the row partitions hold {coords.shape[0]} values, but "
                         f"values has {values.shape[0]}.")
    inner = tuple(values.shape[1:])
    want = _host_ints(who, "shape", as_tensor(shape))
    cmax = _host_max(coords) if _has_dynamic(want) else None
    out = _ragged_shape(who, want, levels, inner, cmax)
    lead = out[:levels + 1]
    total = int(np.prod(lead))
    inside = _all(prim("Less")(coords, _sf._const([list(lead)], _C.int64)), 1)
    key = prim("Select")(inside, _keys(coords, lead), prim("Add")(prim("ZerosLike")(coords[:, 0]),
                                                                  total))
    full = prim("BroadcastTo", shape=(total + 1,) + inner)(default_value)
    dense = prim("TensorScatterUpdate")(full, prim("ExpandDims")(key, 1), values)
    return prim("Reshape")(dense[:total], out)


@constexpr
def _has_dynamic(shape):
    return any(s < 0 for s in shape)


def _host_max(coords):
    """The size each level needs (1 + the largest coordinate; 0 when empty): read on the host,
    so the partitions must be known when it compiles."""
    c = coords.asnumpy() if isinstance(coords, _C.Tensor) else None
    if c is None:
        raise ValueError("For 'RaggedTensorToTensor', a -1 in shape needs the row partitions "
                         "when it compiles (PYNATIVE mode, or constants).")
    return tuple(int(v) + 1 for v in c.max(0)) if c.size else (0,) * c.shape[1]


def ragged_tensor_to_sparse(rt_nested_splits, rt_dense_values):
    """(sparse_indices [N, levels + 1 + inner rank], sparse_values [N], sparse_dense_shape)
    of the ragged tensor (nested row splits, flat values)."""
    who = "RaggedTensorToSparse"
    parts = tuple(rt_nested_splits)
    if not parts:
        raise ValueError(f"For '{who}', rt_nested_splits must hold at least one tensor.")
    values = as_tensor(rt_dense_values)
    coords = _ragged_coords(who, "splits", parts)
    n = values.shape[0]
    if coords.shape[0] != n:
        raise ValueError(f"For '{who}', the row splits hold {coords.shape[0]} values, but "
                         f"rt_dense_values has {n}.")
    inner = tuple(values.shape[1:])
    k = int(np.prod(inner)) if inner else 1
    if inner:
        at = prim("FloorDiv")(_sf._arange(n * k), k)
        inner_idx = _unravel(prim("FloorMod")(_sf._arange(n * k), k), inner)
        coords = prim("Concat", axis=1)((prim("Gather")(coords, at, 0), inner_idx))
        values = prim("Reshape")(values, (n * k,))
    sizes = [_sf._const([len(_host_ints(who, "rt_nested_splits", as_tensor(parts[0]))) - 1],
                        _C.int64)]
    for level in parts:
        t = _i64(as_tensor(level))
        m = t.shape[0] - 1
        widest = prim("ReduceMax", keep_dims=True)(prim("Sub")(t[1:], t[:m]), (0,)) if m > 0 \
            else _sf._const([0], _C.int64)
        sizes.append(widest)
    if inner:
        sizes.append(_sf._const(list(inner), _C.int64))
    return coords, values, prim("Concat", axis=0)(tuple(sizes))
