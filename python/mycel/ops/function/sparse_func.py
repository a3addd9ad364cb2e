"""MindSpore's sparse-tensor functions (``mindspore.ops.coo_*``, ``csr_*``, ``dense_to_sparse_*``,
``sparse_segment_mean`` and the work of ``SparseToDense`` / ``SparseTensorDenseMatmul``),
composed from table ops on the index and value tensors of ``COOTensor`` / ``CSRTensor``
(``common/sparse_tensor.py``). Nothing here reads a value on the host, so PYNATIVE and GRAPH
mode give the same results, and gradients reach the values and the dense operands through
the ops (Gather, UnsortedSegmentSum, ScatterNd, MaskedSelect) they are built of. (In graph
code the sparse tensors are struct values: common/sparse_tensor.py.)

How the pieces work:

- A stored value's position is its key ``row * columns + column`` (int64). A CSR matrix's
  rows come from its indptr in O(nnz + rows): one UnsortedSegmentSum counts the row starts
  at each value position and a CumSum turns the counts into row numbers.
- Sums of two patterns (coo_add, csr_add) and concatenation sort the keys (a stable Sort),
  mark the first value of each run of equal keys, number the runs with a CumSum and add each
  run's values with UnsortedSegmentSum over a static bound (the number of values); the run
  count is known only when it runs, so MaskedSelect (a dynamic-size op) takes the result.
- A sparse-times-dense product of float32/float64 values (csr_mm, csr_mv, CSRTensor.mm) is
  the table's fused CSRMM op (kernels/cpu/csrmm.cc: rows in parallel), which checks indptr
  and indices itself (a ValueError naming CSRMM); SparseTensorDenseMatmul's unsorted COO
  entries go to the fused COOMM op (the same file: one pass over the entries, no sorted copy;
  it checks the rows and columns, a ValueError naming COOMM); other dtypes, and a CSR matrix
  whose number of values is known only when it runs, gather the dense rows at the stored
  columns, scale them by the values and add them into the output rows (UnsortedSegmentSum).

Checks: indices outside the dense shape and an indptr that does not rise from 0 to the
number of values are a ValueError when the call runs (both modes); wrong kinds, dtypes and
shapes are TypeError/ValueError at compile time. Within a row of a CSRTensor the columns may
come in any order; values at the same position add up (as ``to_dense``).

A number of values known only when it runs (GRAPH mode, the output of a sum or of
dense_to_sparse_* read again in the same program) has no static segment count: rows then
come from a binary search of each value's position in the row starts (O(nnz log rows)) and
run sums from the differences of a running sum at the runs' ends (exact for integers; float
sums round with the running sum's magnitude).

Limits: only 2-D sparse tensors (as ``COOTensor``/``CSRTensor``); ``csr_mm`` of two
CSRTensors multiplies through the dense form of the right operand and keeps the numerically
non-zero products (an exact cancellation leaves no stored zero, where a cuSPARSE SpGEMM
would); ``sparse_segment_mean`` needs its ``segment_ids`` when it compiles in GRAPH mode and
``SparseToDense``/``SparseTensorDenseMatmul`` their dense shape (the output's shape depends on
them).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.common.sparse_tensor import COOTensor, CSRTensor, _check_kind
from mycel.ops.function._util import prim, as_tensor, guarded as _guarded
from mycel.ops.function import unary_func as _un, math_ext_func as _mx
from mycel.ops.primitive import constexpr

_INDEX = (_C.int16, _C.int32, _C.int64)


@constexpr
def _const(v, dtype):
    return _C.Tensor(np.array(v, np.int64)).astype(dtype)


@constexpr
def _arange(n):
    """0, 1, ..., n - 1 (int64)."""
    return _C.Tensor(np.arange(n, dtype=np.int64))


def _i64(x):
    return prim("Cast", dtype=_C.int64)(x)


def _check_coo_indices(who, indices, shape):
    """indices as int64, once every index lies in [0, shape) (a ValueError otherwise)."""
    idx = _i64(indices)
    bad = prim("LogicalOr")(prim("Less")(idx, 0),
                            prim("GreaterEqual")(idx, _const([list(shape)], _C.int64)))
    return _guarded(idx, bad.any(),
                    f"For '{who}', an index lies outside the shape {shape}: every index "
                    f"must lie in [0, shape).")


def _csr_rows(who, indptr, indices, nnz, shape):
    """(rows, columns) (int64 [nnz]) of the stored values of a CSR matrix, once its indptr
    and columns are checked (a ValueError otherwise)."""
    m, n = shape
    ptr = _i64(indptr)
    cols = _i64(indices)
    ptr = _guarded_ptr(who, ptr, m, nnz)
    bad_col = prim("LogicalOr")(prim("Less")(cols, 0), prim("GreaterEqual")(cols, n)).any()
    cols = _guarded(cols, bad_col, f"For '{who}', every column index must lie in [0, {n}).")
    return _rows_of_ptr(ptr, m, cols), cols


def _guarded_ptr(who, ptr, m, nnz):
    """ptr (int64 [m + 1]), once it rises from 0 to nnz (a ValueError otherwise)."""
    steps = prim("Sub")(ptr[1:], ptr[:m])
    bad = prim("LogicalOr")(prim("LogicalOr")(ptr[0] != 0, ptr[m] != nnz),
                            prim("Less")(steps, 0).any())
    return _guarded(ptr, bad, f"For '{who}', indptr must rise from 0 to the number of values: "
                              f"an unsorted or inconsistent CSR matrix.")


@constexpr
def _static_len(shape):
    """shape[0], or -1 when it is dynamic (known only when it runs: GRAPH mode, after an op
    whose output size depends on the values, such as coo_add's)."""
    return shape[0]


def _iota(like):
    """0, 1, 2, ... (int64) as long as the 1-D tensor like, whose length may be dynamic."""
    return prim("Sub")(prim("CumSum")(prim("OnesLike")(_i64(like)), 0), 1)


def _rows_of_ptr(ptr, m, like):
    """The row (int64) of each value (like: a tensor with one entry per value): the row starts
    counted at each value position (UnsortedSegmentSum) and summed up (CumSum), O(nnz + m);
    with a dynamic number of values (no static segment count) a binary search of each
    value's position in the row starts, ceil(log2 m) Gathers, O(nnz log m)."""
    n = _static_len(like.shape)
    if m <= 1 or n == 0:
        return prim("ZerosLike")(_i64(like))
    if n > 0:
        starts = ptr[1:m]
        counts = prim("UnsortedSegmentSum")(prim("OnesLike")(starts), starts, n + 1)
        return prim("CumSum")(counts, 0)[:n]
    pos = _iota(like)
    lo = prim("ZerosLike")(pos)  # ptr[lo] <= pos < ptr[hi] (hi == m: past the last row)
    hi = prim("Add")(lo, m)
    for _ in range(_search_steps(m)):
        mid = prim("FloorDiv")(prim("Add")(lo, hi), 2)
        go = prim("LessEqual")(prim("Gather")(ptr, mid, 0), pos)
        lo, hi = prim("Select")(go, mid, lo), prim("Select")(go, hi, mid)
    return lo


@constexpr
def _search_steps(m):
    """Halvings of [0, m) down to one row: ceil(log2 m)."""
    return int(np.ceil(np.log2(m))) if m > 1 else 0


def _coo_parts(who, x):
    _check_kind(who, "x", x, COOTensor)
    idx = _check_coo_indices(who, x.indices, x.shape)
    return idx[:, 0], idx[:, 1]


def _csr_parts(who, x):
    _check_kind(who, "x", x, CSRTensor)
    return _csr_rows(who, x.indptr, x.indices, x.values.shape[0], x.shape)


def _scatter(rows, cols, values, shape):
    idx = prim("Stack", axis=1)((rows, cols))
    return prim("ScatterNd")(idx, values, shape)


def coo_to_dense(x):
    """The dense Tensor of the COOTensor x; values at the same position add up."""
    rows, cols = _coo_parts("coo_to_dense", x)
    return _scatter(rows, cols, x.values, x.shape)


def csr_to_dense(x):
    """The dense Tensor of the CSRTensor x."""
    rows, cols = _csr_parts("csr_to_dense", x)
    return _scatter(rows, cols, x.values, x.shape)


def csr_to_coo(tensor):
    """The CSRTensor as a COOTensor: indices [nnz, 2] (``[row, column]``, the CSR's index
    dtype), the same values in the same order."""
    rows, cols = _csr_parts("csr_to_coo", tensor)
    idx = prim("Cast", dtype=tensor.indices.dtype)(prim("Stack", axis=1)((rows, cols)))
    return COOTensor(idx, tensor.values, tensor.shape)


def _indptr(rows, m, dtype):
    """indptr (dtype [m + 1]) of sorted rows."""
    counts = prim("UnsortedSegmentSum")(prim("OnesLike")(rows), rows, m)
    ptr = prim("Concat", axis=0)((_const([0], _C.int64), prim("CumSum")(counts, 0)))
    return prim("Cast", dtype=dtype)(ptr)


def coo_to_csr(x):
    """The COOTensor as a CSRTensor (values ordered by row, then column; a stable order for
    equal positions, which stay separate values)."""
    rows, cols = _coo_parts("coo_to_csr", x)
    keys = prim("Add")(prim("Mul")(rows, x.shape[1]), cols)
    _, order = prim("Sort", axis=0, descending=False)(keys)
    rows, cols = prim("Gather")(rows, order, 0), prim("Gather")(cols, order, 0)
    dtype = x.indices.dtype
    return CSRTensor(_indptr(rows, x.shape[0], dtype), prim("Cast", dtype=dtype)(cols),
                     prim("Gather")(x.values, order, 0), x.shape)


@constexpr
def _dense2d(who, shape):
    if len(shape) != 2:
        raise ValueError(f"For '{who}', the tensor must be 2-D (sparse tensors are 2-D), but "
                         f"got shape {tuple(shape)}.")
    return tuple(shape)


def _nonzero(who, tensor):
    _check_kind(who, "tensor", tensor, _C.Tensor)
    t = tensor
    shape = _dense2d(who, t.shape)
    mask = prim("NotEqual")(t, prim("ZerosLike")(t))
    return t, shape, prim("NonZero")(t), prim("MaskedSelect")(t, mask)


def dense_to_sparse_coo(tensor):
    """The non-zero entries of a 2-D Tensor as a COOTensor (int64 indices, row-major order)."""
    t, shape, idx, values = _nonzero("dense_to_sparse_coo", tensor)
    return COOTensor(_i64(idx), values, shape)


def dense_to_sparse_csr(tensor):
    """The non-zero entries of a 2-D Tensor as a CSRTensor (int32 indptr and indices)."""
    t, shape, idx, values = _nonzero("dense_to_sparse_csr", tensor)
    idx = _i64(idx)
    return CSRTensor(_indptr(idx[:, 0], shape[0], _C.int32),
                     prim("Cast", dtype=_C.int32)(idx[:, 1]), values, shape)


# ----------------------------------------------------------------------------------------
# unions of patterns: coo_add, csr_add, coo_concat


def _runs(keys, values):
    """(run keys, run sums): values of equal keys added, in ascending key order (dynamic
    length: the number of distinct keys). A dynamic number of values (no static segment
    count for UnsortedSegmentSum) sums each run as the difference of a running sum at its
    ends (exact for integers; floats round with the running sum's magnitude)."""
    n = _static_len(keys.shape)
    skeys, order = prim("Sort", axis=0, descending=False)(keys)
    svals = prim("Gather")(values, order, 0)
    if n >= 0:
        first = prim("Concat", axis=0)((_C.Tensor(np.array([True])),
                                        prim("NotEqual")(skeys[1:], skeys[:n - 1])))
        run = prim("Sub")(prim("CumSum")(prim("Cast", dtype=_C.int64)(first), 0), 1)
        sums = _segment_sum(svals, run, n)
        return (prim("MaskedSelect")(skeys, first),
                prim("MaskedSelect")(prim("Gather")(sums, run, 0), first))
    pos = _iota(skeys)
    count = keys.shape[0]
    prev = prim("Gather")(skeys, prim("Maximum")(prim("Sub")(pos, 1), 0), 0)
    nxt = prim("Gather")(skeys, prim("Minimum")(prim("Add")(pos, 1), count - 1), 0)
    first = prim("LogicalOr")(prim("Equal")(pos, 0), prim("NotEqual")(skeys, prev))
    last = prim("LogicalOr")(prim("Equal")(pos, count - 1), prim("NotEqual")(skeys, nxt))
    upto = prim("MaskedSelect")(prim("CumSum")(svals, 0), last)
    before = prim("MaskedSelect")(prim("CumSum", exclusive=True)(svals, 0), first)
    return prim("MaskedSelect")(skeys, first), prim("Sub")(upto, before)


@constexpr
def _check_pair(who, s1, s2, i1, i2, v1, v2):
    if tuple(s1) != tuple(s2):
        raise ValueError(f"For '{who}', both sparse tensors must have one shape, but got {s1} "
                         f"and {s2}.")
    if i1 != i2:
        raise TypeError(f"For '{who}', both sparse tensors' indices must have one dtype, but "
                        f"got {i1} and {i2}.")
    if v1 != v2:
        raise TypeError(f"For '{who}', both sparse tensors' values must have one dtype, but "
                        f"got {v1} and {v2}.")


@constexpr
def _check_thresh(shape, dtype, vdtype):
    if len(shape) != 0:
        raise ValueError(f"For 'coo_add', thresh must be a 0-D Tensor, but got shape "
                         f"{tuple(shape)}.")
    real = {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(vdtype, vdtype)
    if dtype != real:
        raise TypeError(f"For 'coo_add', thresh's dtype ({dtype}) must be the values' real "
                        f"dtype ({real}).")


def coo_add(x1, x2, thresh):
    """x1 + x2 of two COOTensors of one shape: the union of their positions (row-major
    order), values at one position added; a result whose magnitude is below the 0-D Tensor
    thresh is dropped."""
    who = "coo_add"
    _check_kind(who, "x1", x1, COOTensor)
    _check_kind(who, "x2", x2, COOTensor)
    _check_pair(who, x1.shape, x2.shape, x1.indices.dtype, x2.indices.dtype, x1.values.dtype,
                x2.values.dtype)
    thresh = as_tensor(thresh)
    _check_thresh(thresh.shape, thresh.dtype, x1.values.dtype)
    r1, c1 = _coo_parts(who, x1)
    r2, c2 = _coo_parts(who, x2)
    n = x1.shape[1]
    keys = prim("Concat", axis=0)((prim("Add")(prim("Mul")(r1, n), c1),
                                   prim("Add")(prim("Mul")(r2, n), c2)))
    values = prim("Concat", axis=0)((x1.values, x2.values))
    if _static_len(keys.shape) == 0:
        return COOTensor(x1.indices, x1.values, x1.shape)
    keys, sums = _runs(keys, values)
    keep = prim("GreaterEqual")(prim("Abs")(sums), thresh)
    keys, sums = prim("MaskedSelect")(keys, keep), prim("MaskedSelect")(sums, keep)
    idx = prim("Stack", axis=1)((prim("FloorDiv")(keys, n), prim("FloorMod")(keys, n)))
    return COOTensor(prim("Cast", dtype=x1.indices.dtype)(idx), sums, x1.shape)


@constexpr
def _bcast_strides(who, name, o_shape, shape):
    """(row stride, column stride) that read a dense operand of shape o_shape, broadcast to the
    2-D sparse shape, at (row, column) in its flat form: no broadcast copy is made."""
    try:
        ok = np.broadcast_shapes(tuple(o_shape), tuple(shape)) == tuple(shape)
    except ValueError:
        ok = False
    if not ok or len(o_shape) > 2:
        raise ValueError(f"For '{who}', {name}'s shape {tuple(o_shape)} must broadcast to the "
                         f"sparse tensor's shape {tuple(shape)}.")
    o2 = (1,) * (2 - len(o_shape)) + tuple(o_shape)
    return (o2[1] if o2[0] != 1 else 0), (1 if o2[1] != 1 else 0)


def _read_at(who, name, other, rows, cols, shape):
    """The dense operand (broadcast to the sparse shape) read at each stored position."""
    other = as_tensor(other)
    rs, cs = _bcast_strides(who, name, other.shape, shape)
    at = prim("Add")(prim("Mul")(rows, rs), prim("Mul")(cols, cs))
    return prim("Gather")(prim("Reshape")(other, (-1,)), at, 0)


def _scaled(name, values, scale, rows, cols, shape):
    """values times scale read at each stored position (scale broadcast to the dense shape)."""
    return prim("Mul")(values, _read_at("csr_add", name, scale, rows, cols, shape))


def csr_add(a, b, alpha, beta):
    """alpha * a + beta * b of two CSRTensors of one shape (alpha, beta: Tensors that
    broadcast to it): the union of the patterns, each row's columns ascending."""
    who = "csr_add"
    _check_kind(who, "a", a, CSRTensor)
    _check_kind(who, "b", b, CSRTensor)
    _check_pair(who, a.shape, b.shape, a.indices.dtype, b.indices.dtype, a.values.dtype,
                b.values.dtype)
    ra, ca = _csr_parts(who, a)
    rb, cb = _csr_parts(who, b)
    m, n = a.shape
    va = _scaled("alpha", a.values, alpha, ra, ca, a.shape)
    vb = _scaled("beta", b.values, beta, rb, cb, a.shape)
    keys = prim("Concat", axis=0)((prim("Add")(prim("Mul")(ra, n), ca),
                                   prim("Add")(prim("Mul")(rb, n), cb)))
    values = prim("Concat", axis=0)((va, vb))
    if _static_len(keys.shape) == 0:
        return CSRTensor(a.indptr, a.indices, va, a.shape)
    keys, sums = _runs(keys, values)
    dtype = a.indices.dtype
    return CSRTensor(_indptr(prim("FloorDiv")(keys, n), m, a.indptr.dtype),
                     prim("Cast", dtype=dtype)(prim("FloorMod")(keys, n)), sums, a.shape)


@constexpr
def _concat_plan(shapes, dim):
    if len(shapes) < 2:
        raise ValueError(f"For 'coo_concat', sp_input must hold at least 2 COOTensors, but got "
                         f"{len(shapes)}.")
    if isinstance(dim, bool) or not isinstance(dim, int) or not -2 <= dim < 2:
        raise ValueError(f"For 'coo_concat', concat_dim must be an int in [-2, 2), but got "
                         f"{dim!r}.")
    dim %= 2
    other = 1 - dim
    for s in shapes:
        if s[other] != shapes[0][other]:
            raise ValueError(f"For 'coo_concat', the shapes {list(shapes)} must agree outside "
                             f"dimension {dim}.")
    offsets = [int(v) for v in np.cumsum([0] + [s[dim] for s in shapes[:-1]])]
    out = list(shapes[0])
    out[dim] = int(sum(s[dim] for s in shapes))
    return dim, tuple(offsets), tuple(out)


def coo_concat(sp_input, concat_dim=0):
    """The COOTensors of sp_input (a list or tuple of at least 2) joined along concat_dim:
    indices offset by the sizes before them, the result in row-major order."""
    who = "coo_concat"
    if not isinstance(sp_input, (list, tuple)):
        raise TypeError(f"For '{who}', sp_input must be a list or tuple of COOTensors, but "
                        f"got {type(sp_input).__name__}.")
    for x in sp_input:
        _check_kind(who, "sp_input[i]", x, COOTensor)
    dim, offsets, shape = _concat_plan(tuple(x.shape for x in sp_input), concat_dim)
    keys, values = [], []
    for x, off in zip(sp_input, offsets):
        r, c = _coo_parts(who, x)
        if dim == 0:
            r = prim("Add")(r, off)
        else:
            c = prim("Add")(c, off)
        keys.append(prim("Add")(prim("Mul")(r, shape[1]), c))
        values.append(x.values)
    keys = prim("Concat", axis=0)(tuple(keys))
    values = prim("Concat", axis=0)(tuple(values))
    keys, order = prim("Sort", axis=0, descending=False)(keys)
    idx = prim("Stack", axis=1)((prim("FloorDiv")(keys, shape[1]),
                                 prim("FloorMod")(keys, shape[1])))
    return COOTensor(prim("Cast", dtype=sp_input[0].indices.dtype)(idx),
                     prim("Gather")(values, order, 0), shape)


# ----------------------------------------------------------------------------------------
# products


@constexpr
def _mm_plan(who, a_shape, b_shape, a_dtype, b_dtype, trans_a, trans_b):
    if len(b_shape) != 2:
        raise ValueError(f"For '{who}', the dense operand must be 2-D, but got shape "
                         f"{tuple(b_shape)}.")
    if a_dtype != b_dtype:
        raise TypeError(f"For '{who}', the sparse values and the dense operand must have one "
                        f"dtype, but got {a_dtype} and {b_dtype}.")
    m, k = (a_shape[1], a_shape[0]) if trans_a else (a_shape[0], a_shape[1])
    kb = b_shape[1] if trans_b else b_shape[0]
    if k != kb:
        raise ValueError(f"For '{who}', the inner dimensions must agree: the sparse operand "
                         f"{'transposed ' if trans_a else ''}has shape ({m}, {k}), the dense "
                         f"{'transposed ' if trans_b else ''}one {tuple(b_shape)}.")
    return m


def _conj(x):
    if x.dtype in (_C.complex64, _C.complex128):
        return prim("Conj")(x)
    return x


def sparse_dense_mm(who, rows, cols, values, shape, dense, trans_a=False, trans_b=False,
                    conj_a=False, conj_b=False):
    """op(A) @ op(B) for the sparse A (rows, cols, values, dense shape) and the dense B
    (op: transpose when trans_*, conjugate when conj_*): a dense [M, K] Tensor."""
    dense = as_tensor(dense)
    m = _mm_plan(who, shape, dense.shape, values.dtype, dense.dtype, trans_a, trans_b)
    if trans_b:
        dense = prim("Transpose")(dense, (1, 0))
    if conj_b:
        dense = _conj(dense)
    if conj_a:
        values = _conj(values)
    src, dst = (rows, cols) if trans_a else (cols, rows)
    picked = prim("Gather")(dense, src, 0)
    scaled = prim("Mul")(prim("ExpandDims")(values, 1), picked)
    return _segment_sum(scaled, dst, m)


@constexpr
def _fused(v_shape, v_dtype, d_shape, d_dtype):
    """Whether op(A) @ dense runs as the table's CSRMM: float32/float64 values and dense of one
    dtype, and a number of values known when it compiles (CSRMM's gradient needs it)."""
    return v_dtype == d_dtype and v_dtype in (_C.float32, _C.float64) and \
        len(d_shape) == 2 and v_shape[0] >= 0


@constexpr
def _coo_fused(v_dtype, d_shape, d_dtype):
    """Whether a COO product runs as the table's COOMM: float32/float64 values and a 2-D dense
    operand of one dtype (its gradient needs no static number of values)."""
    return v_dtype == d_dtype and v_dtype in (_C.float32, _C.float64) and len(d_shape) == 2


def _index32(x):
    """An int32/int64 index tensor as it is; int16 widened to int32 (CSRMM's index dtypes)."""
    return x if x.dtype in (_C.int32, _C.int64) else prim("Cast", dtype=_C.int32)(x)


def csr_dense_mm(who, indptr, indices, values, shape, dense, trans_a=False, trans_b=False):
    """op(A) @ op(dense) for the CSR matrix A (indptr, indices, values, shape) and a dense
    Tensor, through the fused CSRMM op (float32/float64; its kernel checks indptr and indices,
    a ValueError naming CSRMM), or else the gather/scale/segment-sum composition."""
    dense = as_tensor(dense)
    if not _fused(values.shape, values.dtype, dense.shape, dense.dtype):
        rows, cols = _csr_rows(who, indptr, indices, values.shape[0], shape)
        return sparse_dense_mm(who, rows, cols, values, shape, dense, trans_a, trans_b)
    _mm_plan(who, shape, dense.shape, values.dtype, dense.dtype, trans_a, trans_b)
    if trans_b:
        dense = prim("Transpose")(dense, (1, 0))
    return prim("CSRMM", dense_shape=tuple(shape), transpose_a=bool(trans_a))(
        _index32(indptr), _index32(indices), values, dense)


def _segment_sum(x, ids, n):
    """UnsortedSegmentSum, complex numbers as their real and imaginary parts."""
    if x.dtype in (_C.complex64, _C.complex128):
        return prim("Complex")(prim("UnsortedSegmentSum")(prim("Real")(x), ids, n),
                               prim("UnsortedSegmentSum")(prim("Imag")(x), ids, n))
    return prim("UnsortedSegmentSum")(x, ids, n)


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """op(a) @ op(b) of the CSRTensor a and b, a dense Tensor (the result a dense Tensor) or a
    CSRTensor (the result a CSRTensor); op transposes (trans_*) or conjugate-transposes
    (adjoint_*). Gradients reach a's values and a dense b."""
    who = "csr_mm"
    _check_kind(who, "a", a, CSRTensor)
    ta, tb = bool(trans_a or adjoint_a), bool(trans_b or adjoint_b)
    dense = csr_to_dense(b) if isinstance(b, CSRTensor) else as_tensor(b)
    complex_ = a.values.dtype in (_C.complex64, _C.complex128)
    if complex_ or dense.dtype in (_C.complex64, _C.complex128):
        rows, cols = _csr_parts(who, a)
        out = sparse_dense_mm(who, rows, cols, a.values, a.shape, dense, ta, tb,
                              bool(adjoint_a), bool(adjoint_b))
    else:
        out = csr_dense_mm(who, a.indptr, a.indices, a.values, a.shape, dense, ta, tb)
    return dense_to_sparse_csr(out) if isinstance(b, CSRTensor) else out


@constexpr
def _mv_plan(shape, v_shape):
    if len(v_shape) != 2 or v_shape[1] != 1 or v_shape[0] != shape[1]:
        raise ValueError(f"For 'csr_mv', the dense vector must have shape ({shape[1]}, 1), but "
                         f"got {tuple(v_shape)}.")


def csr_mv(csr_tensor, dense_vector):
    """The CSRTensor times the dense vector of shape [N, 1]: a [M, 1] Tensor."""
    _check_kind("csr_mv", "csr_tensor", csr_tensor, CSRTensor)
    v = as_tensor(dense_vector)
    _mv_plan(csr_tensor.shape, v.shape)
    return csr_dense_mm("csr_mv", csr_tensor.indptr, csr_tensor.indices, csr_tensor.values,
                        csr_tensor.shape, v)


@constexpr
def _axis_plan(axis):
    if isinstance(axis, bool) or not isinstance(axis, int) or not -2 <= axis < 2:
        raise ValueError(f"For 'csr_reduce_sum', axis must be an int in [-2, 2), but got "
                         f"{axis!r}.")
    return axis % 2


def csr_reduce_sum(csr_tensor, axis):
    """The sum of the CSRTensor along axis, keeping it: [1, N] for axis 0, [M, 1] for 1."""
    _check_kind("csr_reduce_sum", "csr_tensor", csr_tensor, CSRTensor)
    ax = _axis_plan(axis)
    rows, cols = _csr_parts("csr_reduce_sum", csr_tensor)
    m, n = csr_tensor.shape
    if ax == 1:
        return prim("Reshape")(_segment_sum(csr_tensor.values, rows, m), (m, 1))
    return prim("Reshape")(_segment_sum(csr_tensor.values, cols, n), (1, n))


# ----------------------------------------------------------------------------------------
# element-wise functions of the values: coo_abs ... coo_tanh, csr_abs ... csr_tanh


def _unary(name, fn):
    def coo_fn(x):
        _check_kind("coo_" + name, "x", x, COOTensor)
        return COOTensor(x.indices, fn(x.values), x.shape)

    def csr_fn(x):
        _check_kind("csr_" + name, "x", x, CSRTensor)
        return CSRTensor(x.indptr, x.indices, fn(x.values), x.shape)

    for f, kind in ((coo_fn, "coo"), (csr_fn, "csr")):
        f.__name__ = f.__qualname__ = f"{kind}_{name}"
        f.__doc__ = (f"The {kind.upper()}Tensor with ``{name}`` applied to each stored value "
                     f"(the same indices).")
    return coo_fn, csr_fn


_UNARY = {
    "abs": prim("Abs"), "acos": prim("ACos"), "acosh": prim("Acosh"), "asin": prim("Asin"),
    "asinh": prim("Asinh"), "atan": prim("Atan"), "atanh": prim("Atanh"),
    "ceil": prim("Ceil"), "cos": prim("Cos"), "cosh": prim("Cosh"), "exp": prim("Exp"),
    "expm1": prim("Expm1"), "floor": prim("Floor"), "inv": _un.inv,
    "isfinite": _mx.isfinite, "isinf": _mx.isinf, "isnan": _mx.isnan, "log": prim("Log"),
    "log1p": prim("Log1p"), "neg": prim("Neg"), "relu": prim("ReLU"), "relu6": prim("ReLU6"),
    "round": prim("Round"), "sigmoid": prim("Sigmoid"), "sin": prim("Sin"),
    "sinh": prim("Sinh"), "softsign": _un.softsign, "sqrt": prim("Sqrt"),
    "square": prim("Square"), "tan": prim("Tan"), "tanh": prim("Tanh"),
}

__all__ = ["coo_add", "coo_concat", "coo_to_dense", "coo_to_csr", "csr_add", "csr_mm",
           "csr_mv", "csr_reduce_sum", "csr_to_coo", "csr_to_dense", "dense_to_sparse_coo",
           "dense_to_sparse_csr", "sparse_segment_mean"]
for _name, _fn in _UNARY.items():
    globals()["coo_" + _name], globals()["csr_" + _name] = _unary(_name, _fn)
    __all__ += ["coo_" + _name, "csr_" + _name]
del _name, _fn


# ----------------------------------------------------------------------------------------
# tensor-level primitives' work: SparseToDense, SparseTensorDenseMatmul, sparse_segment_mean


@constexpr
def _sparse_shape(who, shape):
    if isinstance(shape, _C.Tensor):
        shape = tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
            for d in shape):
        raise ValueError(f"For '{who}', the sparse shape must be a tuple of non-negative ints "
                         f"(or a constant int Tensor), but got {shape!r}.")
    return tuple(int(d) for d in shape)


@constexpr
def _check_index_values(who, i_shape, i_dtype, v_shape, rank):
    if i_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{who}', indices must be int32 or int64, but got {i_dtype}.")
    if len(i_shape) != 2 or len(v_shape) != 1 or i_shape[0] != v_shape[0] or \
            (rank is not None and i_shape[1] != rank):
        want = "[N, R]" if rank is None else f"[N, {rank}]"
        raise ValueError(f"For '{who}', indices must have shape {want} and values [N], but "
                         f"got {tuple(i_shape)} and {tuple(v_shape)}.")


def sparse_to_dense(indices, values, sparse_shape):
    """The dense Tensor of shape sparse_shape with values at indices ([N, R]) and zeros
    elsewhere (values at one index add up); an index outside the shape is a ValueError."""
    who = "SparseToDense"
    indices, values = as_tensor(indices), as_tensor(values)
    shape = _sparse_shape(who, sparse_shape)
    _check_index_values(who, indices.shape, indices.dtype, values.shape, len(shape))
    idx = _check_coo_indices(who, indices, shape)
    return prim("ScatterNd")(idx, values, shape)


def sparse_tensor_dense_matmul(indices, values, sparse_shape, dense, adjoint_st=False,
                               adjoint_dt=False):
    """op(A) @ op(dense) of the 2-D sparse A (indices [N, 2], values [N], sparse_shape) and a
    2-D dense Tensor; op conjugate-transposes when adjoint_*."""
    who = "SparseTensorDenseMatmul"
    indices, values = as_tensor(indices), as_tensor(values)
    shape = _sparse_shape(who, sparse_shape)
    _check_index_values(who, indices.shape, indices.dtype, values.shape, 2)
    dense = as_tensor(dense)
    if len(shape) == 2 and _coo_fused(values.dtype, dense.shape, dense.dtype):
        # One fused COOMM over the unsorted entries (kernels/cpu/csrmm.cc), which checks the
        # indices itself (a ValueError naming COOMM).
        _mm_plan(who, shape, dense.shape, values.dtype, dense.dtype, bool(adjoint_st),
                 bool(adjoint_dt))
        if adjoint_dt:
            dense = prim("Transpose")(dense, (1, 0))
        idx = _index32(indices)
        return prim("COOMM", dense_shape=tuple(shape), transpose_a=bool(adjoint_st))(
            idx[:, 0], idx[:, 1], values, dense)
    idx = _check_coo_indices(who, indices, shape)
    return sparse_dense_mm(who, idx[:, 0], idx[:, 1], values, shape, dense, bool(adjoint_st),
                           bool(adjoint_dt), bool(adjoint_st), bool(adjoint_dt))


@constexpr
def _segment_count(x_shape, i_shape, i_dtype, s_shape, s_dtype, segment_ids):
    who = "sparse_segment_mean"
    for name, d in (("indices", i_dtype), ("segment_ids", s_dtype)):
        if d not in (_C.int32, _C.int64):
            raise TypeError(f"For '{who}', {name} must be int32 or int64, but got {d}.")
    if len(x_shape) < 1 or len(i_shape) != 1 or tuple(i_shape) != tuple(s_shape):
        raise ValueError(f"For '{who}', x must have rank >= 1 and indices, segment_ids be 1-D "
                         f"of one length, but got shapes {tuple(x_shape)}, {tuple(i_shape)}, "
                         f"{tuple(s_shape)}.")
    if not isinstance(segment_ids, _C.Tensor):
        raise ValueError(f"For '{who}', the output has segment_ids[-1] + 1 rows, so "
                         f"segment_ids must be known when it compiles (a constant in GRAPH "
                         f"mode).")
    ids = segment_ids.asnumpy().astype(np.int64)
    if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
        raise ValueError(f"For '{who}', segment_ids must be non-negative and sorted, but got "
                         f"{ids.tolist()}.")
    return int(ids[-1]) + 1 if ids.size else 0


def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = the mean of x[indices[j]] over the j with segment_ids[j] == s (segment_ids
    sorted; out has segment_ids[-1] + 1 rows, empty segments 0); an index outside x's first
    dimension is a ValueError."""
    who = "sparse_segment_mean"
    x, indices, segment_ids = as_tensor(x), as_tensor(indices), as_tensor(segment_ids)
    if x.dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For '{who}', x must be float16, float32 or float64, but got "
                        f"{x.dtype}.")
    n = _segment_count(x.shape, indices.shape, indices.dtype, segment_ids.shape,
                       segment_ids.dtype, segment_ids)
    idx = _i64(indices)
    idx = _guarded(idx, prim("LogicalOr")(prim("Less")(idx, 0),
                                          prim("GreaterEqual")(idx, x.shape[0])).any(),
                   f"For '{who}', every index must lie in [0, {x.shape[0]}).")
    ids = _i64(segment_ids)
    total = prim("UnsortedSegmentSum")(prim("Gather")(x, idx, 0), ids, n)
    count = prim("UnsortedSegmentSum")(prim("OnesLike")(ids), ids, n)
    count = prim("Cast", dtype=x.dtype)(prim("Maximum")(count, 1))
    return prim("Div")(total, prim("Reshape")(count, (n,) + (1,) * (len(x.shape) - 1)))


# ----------------------------------------------------------------------------------------
# the computing methods and operators of COOTensor / CSRTensor (attached here, where the
# functions live; common/sparse_tensor.py holds the containers and their checks)


def csr_rows_of(indptr, nnz):
    """The row (indptr's dtype) of each of the nnz stored values of a CSR matrix's indptr
    (checked as _csr_rows checks it)."""
    indptr = as_tensor(indptr)
    m = indptr.shape[0] - 1
    ptr = _guarded_ptr("CSR2COO", _i64(indptr), m, nnz)
    return prim("Cast", dtype=indptr.dtype)(_rows_of_ptr(ptr, m, _const([0] * nnz, _C.int64)))


def indptr_of(rows, height):
    """The indptr (height + 1 entries, rows' dtype) of sorted rows."""
    rows = as_tensor(rows)
    return _indptr(_i64(rows), height, rows.dtype)


@constexpr
def matrix_add_shape(a_shape, b_shape):
    """SparseMatrixAdd's dense shape (a tuple of 2 ints) from its two shape tensors."""
    sa, sb = (_sparse_shape("SparseMatrixAdd", s) for s in (a_shape, b_shape))
    if len(sa) != 2:
        raise ValueError(f"For 'SparseMatrixAdd', only 2-D (unbatched) CSR matrices are "
                         f"supported, but got the dense shape {sa}.")
    if sa != sb:
        raise ValueError(f"For 'SparseMatrixAdd', the inputs dense shape should be same, but "
                         f"got {sa} and {sb}.")
    return sa


def batch_pointers_of(indptr, m):
    """[0, nnz] (indptr's dtype): the batch pointers of one CSR matrix of m rows."""
    return prim("Concat", axis=0)((prim("ZerosLike")(indptr[:1]), indptr[m:]))


def coo_coalesce(x):
    """The COOTensor with the values at each position added into one, in row-major order."""
    rows, cols = _coo_parts("coalesce", x)
    n = x.shape[1]
    if _static_len(x.values.shape) == 0:
        return x
    keys, sums = _runs(prim("Add")(prim("Mul")(rows, n), cols), x.values)
    idx = prim("Stack", axis=1)((prim("FloorDiv")(keys, n), prim("FloorMod")(keys, n)))
    return COOTensor(prim("Cast", dtype=x.indices.dtype)(idx), sums, x.shape)


def _dense_at(who, rows, cols, shape, other):
    return _read_at(who, "the dense operand", other, rows, cols, shape)


def _coo_cwise(who, x, other, combine):
    rows, cols = _coo_parts(who, x)
    return COOTensor(x.indices, combine(x.values, _dense_at(who, rows, cols, x.shape, other)),
                     x.shape)


def _csr_cwise(who, x, other, combine):
    rows, cols = _csr_parts(who, x)
    return CSRTensor(x.indptr, x.indices,
                     combine(x.values, _dense_at(who, rows, cols, x.shape, other)), x.shape)


def _coo_add_op(self, other):
    if isinstance(other, COOTensor):
        return coo_add(self, other, _zero(self.dtype))
    rows, cols = _coo_parts("COOTensor.__add__", self)
    return prim("Add")(as_tensor(other), _scatter(rows, cols, self.values, self.shape))


def _coo_sub_op(self, other):
    if isinstance(other, COOTensor):
        return _coo_add_op(self, COOTensor(other.indices, prim("Neg")(other.values),
                                           other.shape))
    rows, cols = _coo_parts("COOTensor.__sub__", self)
    return prim("Sub")(_scatter(rows, cols, self.values, self.shape), as_tensor(other))


@constexpr
def _zero(dtype):
    """0 in the real dtype of dtype (coo_add's thresh)."""
    real = {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(dtype, dtype)
    return _C.Tensor(np.array(0)).astype(real)


@constexpr
def _one(dtype, sign):
    return _C.Tensor(np.array(sign)).astype(dtype)


def _coo_rsub_op(self, other):
    """dense - coo: a dense Tensor."""
    rows, cols = _coo_parts("COOTensor.__rsub__", self)
    return prim("Sub")(as_tensor(other), _scatter(rows, cols, self.values, self.shape))


def _csr_add_op(self, other, sign):
    _check_kind("CSRTensor.__add__", "other", other, CSRTensor)
    return csr_add(self, other, _one(self.dtype, 1), _one(self.dtype, sign))


def _attach():
    coo, csr = COOTensor, CSRTensor
    coo.to_dense, csr.to_dense = coo_to_dense, csr_to_dense
    coo.to_csr, csr.to_coo = coo_to_csr, csr_to_coo
    coo.coalesce = coo_coalesce
    coo.add = lambda self, other, thresh: coo_add(self, other, thresh)
    csr.add = lambda self, b, alpha, beta: csr_add(self, b, alpha, beta)
    csr.mm = lambda self, matrix: csr_mm(self, matrix)
    csr.mv = lambda self, dense_vector: csr_mv(self, dense_vector)
    csr.sum = lambda self, axis: csr_reduce_sum(self, axis)
    coo.abs, csr.abs = globals()["coo_abs"], globals()["csr_abs"]
    coo.__neg__, csr.__neg__ = globals()["coo_neg"], globals()["csr_neg"]
    coo.__add__, coo.__sub__ = _coo_add_op, _coo_sub_op
    coo.__radd__ = _coo_add_op  # dense + coo (Tensor's + defers to it)
    coo.__rsub__ = _coo_rsub_op
    _C.Tensor.to_coo = dense_to_sparse_coo  # MindSpore's Tensor.to_coo / to_csr
    _C.Tensor.to_csr = dense_to_sparse_csr
    coo.__mul__ = coo.__rmul__ = lambda self, o: _coo_cwise("COOTensor.__mul__", self, o,
                                                            prim("Mul"))
    coo.__truediv__ = coo.__div__ = lambda self, o: _coo_cwise("COOTensor.__div__", self, o,
                                                               prim("Div"))
    csr.__add__ = lambda self, o: _csr_add_op(self, o, 1)
    csr.__sub__ = lambda self, o: _csr_add_op(self, o, -1)
    csr.__mul__ = csr.__rmul__ = lambda self, o: _csr_cwise("CSRTensor.__mul__", self, o,
                                                            prim("Mul"))
    csr.__truediv__ = csr.__div__ = lambda self, o: _csr_cwise("CSRTensor.__div__", self, o,
                                                               prim("Div"))


_attach()
