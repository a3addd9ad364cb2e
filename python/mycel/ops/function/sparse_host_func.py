"""MindSpore's sparse-tensor functions whose result pattern depends on the values:
``ops.coo_add``, ``ops.coo_concat``, ``ops.csr_add``, ``ops.csr_mm`` and
``ops.sparse_segment_mean``. The patterns (which index pairs are stored, how many output
rows) are worked out on the host from the index values, as COOTensor.to_csr does
(common/sparse_tensor.py), so these run in PYNATIVE mode; the stored values are computed
with table ops (Gather, UnsortedSegmentSum), so gradients reach the input values.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.common.sparse_tensor import COOTensor, CSRTensor
from mycel.ops.function._util import prim, as_tensor

__all__ = ["coo_add", "coo_concat", "csr_add", "csr_mm", "sparse_segment_mean"]


def _coo(op, name, x):
    if not isinstance(x, COOTensor):
        raise TypeError(f"For '{op}', '{name}' must be a COOTensor, but got "
                        f"{type(x).__name__}.")
    return x


def _csr(op, name, x):
    if not isinstance(x, CSRTensor):
        raise TypeError(f"For '{op}', '{name}' must be a CSRTensor, but got "
                        f"{type(x).__name__}.")
    return x


def _scalar(op, name, v):
    """A Python number from a number or a one-element tensor."""
    if isinstance(v, _C.Tensor):
        if v.size != 1:
            raise ValueError(f"For '{op}', '{name}' must hold one value, but got shape "
                             f"{tuple(v.shape)}.")
        return v.asnumpy().reshape(-1)[0].item()
    return v


def _merge(op, rows, cols, values, shape):
    """Sums the values at equal (row, col) (row-major order): (unique rows, cols, the summed
    values as a tensor, which row of the result each input value went to)."""
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= shape[0] or cols.min() < 0 or
                      cols.max() >= shape[1]):
        raise ValueError(f"For '{op}', an index lies outside the shape {tuple(shape)}.")
    key = rows * shape[1] + cols
    uniq, where = np.unique(key, return_inverse=True)
    summed = prim("UnsortedSegmentSum")(values, _C.Tensor(where.astype(np.int64)),
                                        int(uniq.size))
    return uniq // shape[1], uniq % shape[1], summed


def coo_add(x1, x2, thresh):
    """x1 + x2 for COOTensors of one shape: the stored values summed at equal indices (the
    result in row-major order), keeping the pairs whose |sum| >= thresh (TensorFlow's
    SparseAdd)."""
    op = "coo_add"
    _coo(op, "x1", x1)
    _coo(op, "x2", x2)
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"For '{op}', x1 and x2 must have the same shape, but got {x1.shape} "
                         f"and {x2.shape}.")
    if x1.dtype != x2.dtype:
        raise TypeError(f"For '{op}', x1 and x2 must have the same dtype, but got {x1.dtype} "
                        f"and {x2.dtype}.")
    t = _scalar(op, "thresh", thresh)
    idx = np.concatenate([x1.indices.asnumpy(), x2.indices.asnumpy()]).astype(np.int64)
    vals = prim("Concat", axis=0)((x1.values, x2.values))
    rows, cols, summed = _merge(op, idx[:, 0], idx[:, 1], vals, x1.shape)
    keep = np.nonzero(np.abs(summed.asnumpy()) >= t)[0]
    out_idx = np.stack([rows[keep], cols[keep]], 1).reshape(-1, 2)
    values = prim("Gather")(summed, _C.Tensor(keep.astype(np.int64)), 0)
    return COOTensor(_C.Tensor(out_idx.astype(x1.indices.asnumpy().dtype)), values, x1.shape)


def coo_concat(sp_input, concat_dim=0):
    """The COOTensors of sp_input (a list or tuple of at least two, equal in the other
    dimension) joined along concat_dim (0 or 1, or -2 / -1): their indices offset by the
    sizes before them, the result in row-major order."""
    op = "coo_concat"
    if not isinstance(sp_input, (list, tuple)) or len(sp_input) < 2:
        raise ValueError(f"For '{op}', sp_input must be a list or tuple of at least two "
                         f"COOTensors.")
    for i, x in enumerate(sp_input):
        _coo(op, f"sp_input[{i}]", x)
    if isinstance(concat_dim, bool) or not isinstance(concat_dim, int) or \
            not -2 <= concat_dim < 2:
        raise ValueError(f"For '{op}', concat_dim must be an int in [-2, 2), but got "
                         f"{concat_dim!r}.")
    ax = concat_dim % 2
    other = 1 - ax
    if len({x.shape[other] for x in sp_input}) != 1:
        raise ValueError(f"For '{op}', the inputs must agree in dimension {other}, but got "
                         f"shapes {[x.shape for x in sp_input]}.")
    parts, offset = [], 0
    for x in sp_input:
        idx = x.indices.asnumpy().astype(np.int64).copy()
        idx[:, ax] += offset
        parts.append(idx)
        offset += x.shape[ax]
    idx = np.concatenate(parts)
    shape = (offset, sp_input[0].shape[1]) if ax == 0 else (sp_input[0].shape[0], offset)
    order = np.lexsort((idx[:, 1], idx[:, 0]))
    vals = prim("Concat", axis=0)(tuple(x.values for x in sp_input))
    values = prim("Gather")(vals, _C.Tensor(order.astype(np.int64)), 0)
    return COOTensor(_C.Tensor(idx[order]), values, shape)


def _csr_rows(x):
    ptr = x.indptr.asnumpy().astype(np.int64)
    return np.repeat(np.arange(x.shape[0]), np.diff(ptr)), x.indices.asnumpy().astype(np.int64)


def _to_csr(rows, cols, values, shape, index_dtype):
    ptr = np.zeros(shape[0] + 1, np.int64)
    np.add.at(ptr, rows + 1, 1)
    return CSRTensor(_C.Tensor(np.cumsum(ptr).astype(index_dtype)),
                     _C.Tensor(cols.astype(index_dtype)), values, tuple(shape))


def csr_add(a, b, alpha, beta):
    """alpha a + beta b for CSRTensors of one shape (alpha, beta numbers or one-element
    tensors): the union of the two patterns, values summed where both store one."""
    op = "csr_add"
    _csr(op, "a", a)
    _csr(op, "b", b)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{op}', a and b must have the same shape, but got {a.shape} and "
                         f"{b.shape}.")
    ra, ca = _csr_rows(a)
    rb, cb = _csr_rows(b)
    al, be = _scalar(op, "alpha", alpha), _scalar(op, "beta", beta)
    vals = prim("Concat", axis=0)((prim("Mul")(a.values, al), prim("Mul")(b.values, be)))
    rows, cols, summed = _merge(op, np.concatenate([ra, rb]), np.concatenate([ca, cb]), vals,
                                a.shape)
    return _to_csr(rows, cols, prim("Cast")(summed, a.dtype), a.shape,
                   a.indptr.asnumpy().dtype)


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """The matrix product op(a) op(b) of CSRTensors (op: transpose with trans_* or adjoint_*,
    the same for real values) as a CSRTensor whose pattern holds every (i, k) with some
    a[i, j] b[j, k] stored (products that cancel stay stored). A dense b gives a dense
    Tensor."""
    op = "csr_mm"
    _csr(op, "a", a)
    ra, ca = _csr_rows(a)
    a_shape = tuple(a.shape)
    if trans_a or adjoint_a:
        ra, ca, a_shape = ca, ra, a_shape[::-1]
    if isinstance(b, _C.Tensor):
        bb = prim("Transpose")(b, (1, 0)) if (trans_b or adjoint_b) else b
        if bb.ndim != 2 or bb.shape[0] != a_shape[1]:
            raise ValueError(f"For '{op}', a ({a_shape}) and b ({tuple(bb.shape)}) do not "
                             f"chain.")
        terms = prim("Mul")(prim("Gather")(bb, _C.Tensor(ca), 0),
                            prim("ExpandDims")(a.values, 1))
        return prim("UnsortedSegmentSum")(terms, _C.Tensor(ra), a_shape[0])
    _csr(op, "b", b)
    rb, cb = _csr_rows(b)
    b_shape = tuple(b.shape)
    if trans_b or adjoint_b:
        rb, cb, b_shape = cb, rb, b_shape[::-1]
    if a_shape[1] != b_shape[0]:
        raise ValueError(f"For '{op}', a ({a_shape}) and b ({b_shape}) do not chain.")
    # every pair (p, q) of stored values with a's column equal to b's row
    pa, pb = np.nonzero(ca[:, None] == rb[None, :])
    prod = prim("Mul")(prim("Gather")(a.values, _C.Tensor(pa.astype(np.int64)), 0),
                       prim("Gather")(b.values, _C.Tensor(pb.astype(np.int64)), 0))
    shape = (a_shape[0], b_shape[1])
    rows, cols, summed = _merge(op, ra[pa], cb[pb], prod, shape)
    return _to_csr(rows, cols, summed, shape, a.indptr.asnumpy().dtype)


def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = the mean of x[indices[j]] over the j with segment_ids[j] == s (0 for a segment
    with none), s < segment_ids[-1] + 1 (the ids sorted, TensorFlow's SparseSegmentMean); the
    output's first dimension is read from segment_ids' last value."""
    op = "sparse_segment_mean"
    x, idx, seg = as_tensor(x), as_tensor(indices), as_tensor(segment_ids)
    for name, t in (("indices", idx), ("segment_ids", seg)):
        if t.dtype not in (_C.int32, _C.int64) or t.ndim != 1:
            raise TypeError(f"For '{op}', '{name}' must be a 1-D int32 or int64 tensor, but got "
                            f"{t.dtype} of shape {tuple(t.shape)}.")
    if idx.shape[0] != seg.shape[0]:
        raise ValueError(f"For '{op}', indices and segment_ids must have the same length, but "
                         f"got {idx.shape[0]} and {seg.shape[0]}.")
    if x.dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For '{op}', x must be float16, float32 or float64, but got {x.dtype}.")
    s = seg.asnumpy()
    if s.size and (np.any(np.diff(s) < 0) or s[0] < 0):
        raise ValueError(f"For '{op}', segment_ids must be non-negative and sorted, but got "
                         f"{s.tolist()}.")
    n = int(s[-1]) + 1 if s.size else 0
    rows = prim("Gather")(x, prim("Cast")(idx, _C.int64), 0)
    seg64 = prim("Cast")(seg, _C.int64)
    total = prim("UnsortedSegmentSum")(rows, seg64, n)
    count = prim("UnsortedSegmentSum")(prim("OnesLike")(seg64), seg64, n)
    count = prim("Cast")(prim("Maximum")(count, 1), x.dtype)
    return prim("Div")(total, prim("Reshape")(count, (n,) + (1,) * (x.ndim - 1)))
