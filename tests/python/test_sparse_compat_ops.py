"""MindSpore's sparse_ops primitives composed in operations/sparse_compat_ops.py (the batched CSR
sparse matrix, COO parts, sparse segment sums, ragged tensors) and the TensorFlow-style
SparseApply* updates of nn_ops, against numpy / scipy.sparse / torch references written here,
in PYNATIVE and GRAPH mode (in GRAPH mode the shape tensors are constants of the program, as
they fix output shapes); typed errors naming the op for bad input."""
import numpy as np
import pytest
import scipy.sparse as sp

import mycel as ms
from mycel import Tensor, Parameter
from mycel.ops.operations import sparse_ops as S, nn_ops as N, _grad_ops as G

RNG = np.random.default_rng(2029)


def _run(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)


def _np(x):
    return tuple(_np(t) for t in x) if isinstance(x, (tuple, list)) else x.asnumpy()


def _batched_csr(batch, m, n, density, dtype=np.float32, idx=np.int64):
    """(5 parts as numpy, the dense [batch, m, n]) of a random batched CSR matrix (an empty
    row in each batch)."""
    dense = np.zeros((batch, m, n), dtype)
    bp, rp, ci, vals = [0], [], [], []
    for b in range(batch):
        a = sp.random(m, n, density=density, format="csr", random_state=RNG).astype(dtype)
        a = a.tolil()
        a[min(1, m - 1), :] = 0
        a = a.tocsr()
        a.eliminate_zeros()
        dense[b] = a.toarray()
        rp.extend(a.indptr.tolist())
        ci.extend(a.indices.tolist())
        vals.extend(a.data.tolist())
        bp.append(bp[-1] + a.nnz)
    shape = [batch, m, n] if batch > 1 else [m, n]
    parts = (np.array(shape, idx), np.array(bp, idx), np.array(rp, idx), np.array(ci, idx),
             np.array(vals, dtype))
    return parts, dense if batch > 1 else dense[0]


@pytest.mark.parametrize("batch", [1, 3])
def test_csr_matrix_to_dense_and_sparse_tensor(mode, batch):
    parts, dense = _batched_csr(batch, 5, 4, 0.4)
    shape = Tensor(parts[0])
    out = _run(mode, lambda bp, rp, ci, v: S.CSRSparseMatrixToDense()(shape, bp, rp, ci, v),
               *(Tensor(p) for p in parts[1:]))
    np.testing.assert_array_equal(out.asnumpy(), dense)
    idx, vals, ds = _run(mode, lambda bp, rp, ci, v: S.CSRSparseMatrixToSparseTensor()(
        shape, bp, rp, ci, v), *(Tensor(p) for p in parts[1:]))
    want = np.argwhere(dense != 0)
    np.testing.assert_array_equal(idx.asnumpy(), want)
    np.testing.assert_array_equal(vals.asnumpy(), dense[tuple(want.T)])
    np.testing.assert_array_equal(ds.asnumpy(), parts[0])


@pytest.mark.parametrize("batch", [1, 2])
def test_sparse_tensor_to_csr_round_trip(mode, batch):
    parts, dense = _batched_csr(batch, 6, 5, 0.3, np.float64, np.int32)
    coo = np.argwhere(dense != 0)
    perm = RNG.permutation(len(coo))  # unsorted input: sorted by the op
    shape = Tensor(parts[0])
    got = _run(mode, lambda i, v: S.SparseTensorToCSRSparseMatrix()(i, v, shape),
               Tensor(coo[perm].astype(np.int32)), Tensor(dense[tuple(coo.T)][perm]))
    for g, w in zip(_np(got), parts):
        np.testing.assert_array_equal(g, w)
    got = _run(mode, lambda d: S.DenseToCSRSparseMatrix()(d, Tensor(coo.astype(np.int32))),
               Tensor(dense))
    for g, w in zip(_np(got)[1:], parts[1:]):
        np.testing.assert_array_equal(g, w)
    nnz = _run(mode, lambda *p: S.SparseMatrixNNZ()(*p), *(Tensor(p) for p in parts))
    assert nnz.dtype == ms.int32
    np.testing.assert_array_equal(nnz.asnumpy(), np.diff(parts[1]))


@pytest.mark.parametrize("flags", [{}, {"transpose_x1": True}, {"adjoint_x2": True},
                                   {"transpose_output": True, "transpose_x2": True}])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_sparse_matrix_matmul(mode, flags, dtype):
    batch = 2
    parts, dense = _batched_csr(batch, 5, 4, 0.5, np.float64)
    parts = parts[:4] + ((parts[4] * 4).astype(dtype),)
    dense = (dense * 4).astype(dtype)
    a = np.swapaxes(dense, 1, 2) if flags.get("transpose_x1") else dense
    inner = a.shape[2]
    x2 = (RNG.standard_normal((batch, inner, 3)) * 3).astype(dtype)
    x2_in = np.swapaxes(x2, 1, 2) if flags.get("adjoint_x2") or flags.get("transpose_x2") \
        else x2
    want = a.astype(np.float64) @ x2.astype(np.float64)
    if flags.get("transpose_output"):
        want = np.swapaxes(want, 1, 2)
    shape = Tensor(parts[0])
    op = S.SparseMatrixMatMul(**flags)
    out = _run(mode, lambda bp, rp, ci, v, x: op(shape, bp, rp, ci, v, x),
               *(Tensor(p) for p in parts[1:]), Tensor(x2_in))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-4)


def test_sparse_matrix_matmul_gradient_matches_torch(mode):
    import torch
    parts, dense = _batched_csr(1, 5, 4, 0.5, np.float64)
    x2 = RNG.standard_normal((4, 3))
    w = RNG.standard_normal((5, 3))
    shape = Tensor(parts[0])
    rest = [Tensor(p) for p in parts[1:4]]

    def loss(v, x):
        return (S.SparseMatrixMatMul()(shape, *rest, v, x) * Tensor(w)).sum()

    gv, gx = _run(mode, ms.grad(loss, (0, 1)), Tensor(parts[4]), Tensor(x2))
    tv = torch.tensor(parts[4], requires_grad=True)
    tx = torch.tensor(x2, requires_grad=True)
    rows = torch.tensor(np.repeat(np.arange(5), np.diff(parts[2])))
    a = torch.zeros(5, 4, dtype=tv.dtype).index_put((rows, torch.tensor(parts[3])), tv,
                                                    accumulate=True)
    ((a @ tx) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(gv.asnumpy(), tv.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("batch", [1, 2])
def test_sparse_matrix_transpose(mode, batch):
    parts, dense = _batched_csr(batch, 4, 6, 0.4, np.complex64 if batch == 1 else np.float32)
    if batch == 1:
        parts = parts[:4] + ((parts[4] * (1 + 2j)).astype(np.complex64),)
        dense = dense * (1 + 2j)
    shape = Tensor(parts[0])
    got = _run(mode, lambda bp, rp, ci, v: S.SparseMatrixTranspose(conjugate=True)(
        shape, bp, rp, ci, v), *(Tensor(p) for p in parts[1:]))
    want_dense = np.conj(np.swapaxes(dense, -1, -2))
    t = sp.csr_matrix(want_dense) if batch == 1 else None
    g = _np(got)
    np.testing.assert_array_equal(g[0], list(want_dense.shape))
    back = S.CSRSparseMatrixToDense()(*(Tensor(x) for x in g))
    np.testing.assert_allclose(back.asnumpy(), want_dense, rtol=1e-6)
    if t is not None:  # scipy's canonical CSR: each row's columns ascending
        np.testing.assert_array_equal(g[2], t.indptr)
        np.testing.assert_array_equal(g[3], t.indices)


def test_bad_sparse_matrix_is_a_value_error(mode):
    shape = Tensor(np.array([2, 3], np.int64))
    bp = Tensor(np.array([0, 2], np.int64))
    v = Tensor(np.ones(2, np.float32))
    for rp, ci in (([0, 2, 1], [0, 1]), ([0, 1, 2], [0, 3]), ([0, 1, 3], [0, 1])):
        with pytest.raises(ValueError, match="CSRSparseMatrixToDense.*inconsistent"):
            _run(mode, lambda r, c: S.CSRSparseMatrixToDense()(shape, bp, r, c, v),
                 Tensor(np.array(rp, np.int64)), Tensor(np.array(ci, np.int64)))
    with pytest.raises(ValueError, match="SparseMatrixNNZ|CSRSparseMatrixToDense.*batch"):
        S.CSRSparseMatrixToDense()(Tensor(np.array([2, 3, 3], np.int64)), bp,
                                   Tensor(np.array([0, 1, 2], np.int64)),
                                   Tensor(np.array([0, 1], np.int64)), v)
    with pytest.raises(TypeError, match="CSRSparseMatrixToDense.*int32 or int64"):
        S.CSRSparseMatrixToDense()(shape, bp, Tensor(np.array([0, 1, 2], np.float32)),
                                   Tensor(np.array([0, 1], np.int64)), v)


# ---- COO parts -------------------------------------------------------------------------------


def _coo(shape, nnz, dtype=np.float32, unique=True):
    keys = RNG.choice(int(np.prod(shape)), nnz, replace=not unique)
    idx = np.stack(np.unravel_index(keys, shape), 1).astype(np.int64)
    vals = (RNG.standard_normal(nnz) * 3).astype(dtype)
    return idx, vals


def test_sparse_tensor_dense_add_and_gradient(mode):
    idx, vals = _coo((3, 4, 2), 7, np.float64)
    x2 = RNG.standard_normal((3, 4, 2))
    want = x2.copy()
    np.add.at(want, tuple(idx.T), vals)
    out = _run(mode, lambda i, v, x: S.SparseTensorDenseAdd()(i, v, (3, 4, 2), x), Tensor(idx),
               Tensor(vals), Tensor(x2))
    np.testing.assert_allclose(out.asnumpy(), want)
    g = _run(mode, ms.grad(lambda v: (S.SparseTensorDenseAdd()(
        Tensor(idx), v, (3, 4, 2), Tensor(x2)) * Tensor(want)).sum()), Tensor(vals))
    np.testing.assert_allclose(g.asnumpy(), want[tuple(idx.T)])
    with pytest.raises(ValueError, match="SparseTensorDenseAdd.*x1_shape"):
        S.SparseTensorDenseAdd()(Tensor(idx), Tensor(vals), (3, 4, 3), Tensor(x2))
    with pytest.raises(ValueError, match="SparseTensorDenseAdd.*outside the shape"):
        _run(mode, lambda i: S.SparseTensorDenseAdd()(i, Tensor(vals), (3, 4, 2), Tensor(x2)),
             Tensor(idx + np.array([0, 0, 5])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_sparse_addmm_and_sspaddmm(mode, dtype):
    idx, vals = _coo((4, 5), 6, dtype)
    a = np.zeros((4, 5))
    np.add.at(a, tuple(idx.T), vals)
    x2 = (RNG.standard_normal((5, 3)) * 3).astype(dtype)
    x3 = (RNG.standard_normal((4, 3)) * 3).astype(dtype)
    alpha, beta = Tensor(np.array([2], dtype)), Tensor(np.array([3], dtype))
    out = _run(mode, lambda i, v, b, c: S.SparseAddmm()(i, v, (4, 5), b, c, alpha, beta),
               Tensor(idx), Tensor(vals), Tensor(x2), Tensor(x3))
    np.testing.assert_allclose(out.asnumpy(), 2 * a @ x2 + 3 * x3, rtol=1e-5, atol=1e-4)
    i1, v1 = _coo((4, 3), 3, dtype)
    y_idx, y_val, y_shape = _run(
        mode, lambda a1, b1, a2, b2, d: S.Sspaddmm()(a1, b1, (4, 3), a2, b2, (4, 5), d, alpha,
                                                      beta),
        Tensor(i1.T.copy()), Tensor(v1), Tensor(idx.T.copy()), Tensor(vals), Tensor(x2))
    got = np.zeros((4, 3))
    np.add.at(got, tuple(y_idx.asnumpy()), y_val.asnumpy())
    x1 = np.zeros((4, 3))
    np.add.at(x1, tuple(i1.T), v1)
    np.testing.assert_allclose(got, 3 * x1 + 2 * a @ x2, rtol=1e-5, atol=1e-4)
    assert y_idx.shape == (2, 3 + 6 * 3)
    np.testing.assert_array_equal(y_shape.asnumpy(), [4, 3])


def test_sspaddmm_layout_of_mindspore():
    """x1's entries first, then one full product row per x2 entry (MindSpore's documented
    int32 example)."""
    i32 = np.int32
    y_idx, y_val, y_shape = S.Sspaddmm()(
        Tensor(np.array([[0, 1], [0, 1]], i32)), Tensor(np.array([1, 2], i32)),
        Tensor(np.array([3, 3], i32)), Tensor(np.array([[0, 1], [2, 2]], i32)),
        Tensor(np.array([3, 4], i32)), Tensor(np.array([3, 3], i32)),
        Tensor(np.array([[1, 2, 3], [1, 3, 2], [3, 2, 1]], i32)), Tensor(np.array([1], i32)),
        Tensor(np.array([1], i32)))
    np.testing.assert_array_equal(y_idx.asnumpy(), [[0, 1, 0, 0, 0, 1, 1, 1],
                                                    [0, 1, 0, 1, 2, 0, 1, 2]])
    np.testing.assert_array_equal(y_val.asnumpy(), [1, 2, 9, 6, 3, 12, 8, 4])
    np.testing.assert_array_equal(y_shape.asnumpy(), [3, 3])


def test_sparse_to_dense_v2(mode):
    idx = np.array([[0, 1], [1, 0], [2, 3]], np.int32)
    vals = np.array([1.5, -2.0, 4.0], np.float32)
    want = np.full((3, 4), 7.0, np.float32)
    want[tuple(idx.T)] = vals
    out = _run(mode, lambda i, v, d: S.SparseToDenseV2()(i, (3, 4), v, d), Tensor(idx),
               Tensor(vals), Tensor(np.float32(7.0)))
    np.testing.assert_array_equal(out.asnumpy(), want)
    gv, gd = _run(mode, ms.grad(lambda v, d: (S.SparseToDenseV2()(
        Tensor(idx), (3, 4), v, d) * Tensor(want)).sum(), (0, 1)), Tensor(vals),
        Tensor(np.float32(7.0)))
    np.testing.assert_allclose(gv.asnumpy(), want[tuple(idx.T)])
    np.testing.assert_allclose(gd.asnumpy(), want.sum() - want[tuple(idx.T)].sum(), rtol=1e-6)
    with pytest.raises(ValueError, match="SparseToDenseV2.*lexicographic"):
        _run(mode, lambda i: S.SparseToDenseV2()(i, (3, 4), Tensor(vals),
                                                 Tensor(np.float32(0))),
             Tensor(idx[::-1].copy()))
    out = S.SparseToDenseV2(validate_indices=False)(Tensor(idx[::-1].copy()), (3, 4),
                                                    Tensor(vals[::-1].copy()),
                                                    Tensor(np.float32(7.0)))
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_sparse_softmax_matches_torch(mode):
    import torch
    idx, vals = _coo((3, 2, 5), 12, np.float64)
    out = _run(mode, lambda i, v: S.SparseSoftmax()(i, v, (3, 2, 5)), Tensor(idx), Tensor(vals))
    t = torch.sparse_coo_tensor(idx.T, torch.tensor(vals), (3, 2, 5)).coalesce()
    want = torch.sparse.softmax(t, dim=2).coalesce()
    got = np.zeros((3, 2, 5))
    got[tuple(idx.T)] = out.asnumpy()
    dense_want = np.zeros((3, 2, 5))
    dense_want[tuple(want.indices().numpy())] = want.values().numpy()
    np.testing.assert_allclose(got, dense_want, rtol=1e-12)


def test_sparse_reorder_and_concat(mode):
    idx, vals = _coo((5, 6), 9)
    perm = RNG.permutation(9)
    yi, yv = _run(mode, lambda i, v: S.SparseReorder()(i, v, (5, 6)), Tensor(idx[perm]),
                  Tensor(vals[perm]))
    order = np.lexsort((idx[:, 1], idx[:, 0]))
    np.testing.assert_array_equal(yi.asnumpy(), idx[order])
    np.testing.assert_array_equal(yv.asnumpy(), vals[order])
    for dim, s2 in ((0, (3, 6)), (1, (5, 2))):
        j2, w2 = _coo(s2, 3)
        ci, cv, cs = _run(mode, lambda a, b, c, d: S.SparseConcat(concat_dim=dim)(
            (a, c), (b, d), ((5, 6), s2)), Tensor(idx), Tensor(vals), Tensor(j2), Tensor(w2))
        d1 = np.zeros((5, 6), np.float32)
        d1[tuple(idx.T)] = vals
        d2 = np.zeros(s2, np.float32)
        d2[tuple(j2.T)] = w2
        want = np.concatenate([d1, d2], axis=dim)
        got = np.zeros(want.shape, np.float32)
        got[tuple(ci.asnumpy().T)] = cv.asnumpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(cs.asnumpy(), want.shape)
        keys = np.ravel_multi_index(tuple(ci.asnumpy().T), want.shape)
        assert np.all(np.diff(keys) > 0)


@pytest.mark.parametrize("op,fn", [(S.SparseSparseMaximum, np.maximum),
                                   (S.SparseSparseMinimum, np.minimum)])
def test_sparse_sparse_extremes(mode, op, fn):
    i1, v1 = _coo((4, 3, 2), 8)
    i2, v2 = _coo((4, 3, 2), 6)
    i1, i2 = i1[np.lexsort(i1.T[::-1])], i2[np.lexsort(i2.T[::-1])]
    yi, yv = _run(mode, lambda a, b, c, d: op()(a, b, (4, 3, 2), c, d, (4, 3, 2)), Tensor(i1),
                  Tensor(v1), Tensor(i2), Tensor(v2))
    d1, d2 = np.zeros((4, 3, 2), np.float32), np.zeros((4, 3, 2), np.float32)
    d1[tuple(i1.T)] = v1
    d2[tuple(i2.T)] = v2
    union = np.unique(np.concatenate([np.ravel_multi_index(tuple(i.T), (4, 3, 2))
                                      for i in (i1, i2)]))
    np.testing.assert_array_equal(np.ravel_multi_index(tuple(yi.asnumpy().T), (4, 3, 2)),
                                  union)
    np.testing.assert_array_equal(yv.asnumpy(), fn(d1, d2).reshape(-1)[union])


def test_sparse_slice_and_its_gradient(mode):
    idx = np.array([[0, 1], [1, 2], [1, 3], [2, 2], [3, 0]], np.int64)
    vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    yi, yv, ys = _run(mode, lambda i, v, st, sz: S.SparseSlice()(i, v, Tensor(
        np.array([4, 4], np.int64)), st, sz), Tensor(idx), Tensor(vals),
        Tensor(np.array([1, 1], np.int64)), Tensor(np.array([5, 2], np.int64)))
    # rows [1, 4) (clipped to the shape), columns [1, 3): (1, 2) and (2, 2)
    np.testing.assert_array_equal(yi.asnumpy(), [[0, 1], [1, 1]])
    np.testing.assert_array_equal(yv.asnumpy(), [2.0, 4.0])
    np.testing.assert_array_equal(ys.asnumpy(), [3, 2])
    g = _run(mode, lambda gr, i, st, ni: G.SparseSliceGrad()(gr, i, st, ni),
             Tensor(np.array([10.0, 20.0])), Tensor(idx), Tensor(np.array([1, 1])), yi)
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 10.0, 0.0, 20.0, 0.0])


def test_sparse_fill_empty_rows(mode):
    idx = np.array([[3, 1], [0, 2], [3, 0], [1, 1]], np.int64)
    vals = np.array([5, 6, 7, 8], np.int64)
    oi, ov, empty, rev = _run(mode, lambda i, v, d: S.SparseFillEmptyRows()(
        i, v, Tensor(np.array([6, 3], np.int64)), d), Tensor(idx), Tensor(vals),
        Tensor(np.int64(-1)))
    # rows 2, 4, 5 are empty; entries ordered by row, input order within a row
    np.testing.assert_array_equal(oi.asnumpy(), [[0, 2], [1, 1], [2, 0], [3, 1], [3, 0],
                                                 [4, 0], [5, 0]])
    np.testing.assert_array_equal(ov.asnumpy(), [6, 8, -1, 5, 7, -1, -1])
    np.testing.assert_array_equal(empty.asnumpy(), [False, False, True, False, True, True])
    np.testing.assert_array_equal(rev.asnumpy(), [3, 0, 4, 1])
    np.testing.assert_array_equal(oi.asnumpy()[rev.asnumpy()], idx)


def test_set_size(mode):
    idx = np.array([[0, 1, 0], [0, 1, 1], [0, 2, 0], [0, 2, 1], [1, 1, 2], [1, 1, 3]], np.int64)
    vals = np.array([7, 8, 2, 2, 5, 9], np.uint8)
    out = _run(mode, lambda i, v: S.SetSize()(i, v, Tensor(np.array([2, 3, 4], np.int64))),
               Tensor(idx), Tensor(vals))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 2, 1], [0, 2, 0]])
    with pytest.raises(ValueError, match="SetSize.*row-major"):
        _run(mode, lambda i: S.SetSize()(i, Tensor(vals), Tensor(np.array([2, 3, 4],
                                                                            np.int64))),
             Tensor(idx[::-1].copy()))


@pytest.mark.parametrize("kind", ["Sum", "SqrtN", "Mean"])
def test_sparse_segment_reductions_match_numpy(mode, kind):
    x = RNG.standard_normal((6, 3)).astype(np.float32)
    indices = np.array([0, 5, 2, 2, 4], np.int32)
    ids = np.array([0, 0, 2, 2, 3], np.int32)
    want = np.zeros((5, 3), np.float64)
    for s in range(5):
        rows = x[indices[ids == s]].astype(np.float64)
        if len(rows):
            div = {"Sum": 1, "SqrtN": np.sqrt(len(rows)), "Mean": len(rows)}[kind]
            want[s] = rows.sum(0) / div
    if kind != "Mean":
        op = getattr(S, f"SparseSegment{kind}")()
        out = _run(mode, lambda a, b: op(a, b, Tensor(ids)), Tensor(x), Tensor(indices))
        np.testing.assert_allclose(out.asnumpy(), want[:4], rtol=1e-5, atol=1e-6)
    op = getattr(S, f"SparseSegment{kind}WithNumSegments")()
    out = _run(mode, lambda a, b: op(a, b, Tensor(ids), Tensor(np.array([5], np.int32))),
               Tensor(x), Tensor(indices))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=f"SparseSegment{kind}WithNumSegments.*sorted"):
        _run(mode, lambda a, b: op(a, b, Tensor(ids[::-1].copy()),
                                   Tensor(np.array([5], np.int32))), Tensor(x),
             Tensor(indices))


def test_sparse_segment_sum_gradient_matches_torch(mode):
    import torch
    x = RNG.standard_normal((6, 3))
    indices = np.array([0, 5, 2, 2, 4], np.int32)
    ids = np.array([0, 0, 2, 2, 3], np.int32)
    w = RNG.standard_normal((4, 3))
    g = _run(mode, ms.grad(lambda a: (S.SparseSegmentSqrtN()(a, Tensor(indices), Tensor(ids)) *
                                      Tensor(w)).sum()), Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    counts = np.bincount(ids, minlength=4)
    out = torch.zeros(4, 3, dtype=torch.float64).index_add(0, torch.tensor(ids).long(),
                                                           tx[torch.tensor(indices).long()])
    (out / torch.tensor(np.sqrt(np.maximum(counts, 1)))[:, None] * torch.tensor(w)).sum() \
        .backward()
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-12)


# ---- ragged ------------------------------------------------------------------------------------


def _ragged_dense(rows, shape, default):
    out = np.full(shape, default)
    for r, row in enumerate(rows[:shape[0]]):
        for c, v in enumerate(row[:shape[1]]):
            out[r, c] = v
    return out


def test_ragged_tensor_to_tensor(mode):
    values = np.arange(1, 10, dtype=np.int64)
    splits = np.array([0, 3, 3, 7, 9], np.int32)
    rows = [values[splits[i]:splits[i + 1]] for i in range(4)]
    for shape in ([4, 4], [3, 2], [5, 5]):
        op = S.RaggedTensorToTensor(row_partition_types=["ROW_SPLITS"])
        out = _run(mode, lambda v, d: op(Tensor(np.array(shape, np.int32)), v, d,
                                         (Tensor(splits),)), Tensor(values),
                   Tensor(np.int64(0)))
        np.testing.assert_array_equal(out.asnumpy(), _ragged_dense(rows, shape, 0))
    ids = np.repeat(np.arange(4), np.diff(splits)).astype(np.int64)
    op = S.RaggedTensorToTensor(row_partition_types=["FIRST_DIM_SIZE", "VALUE_ROWIDS"])
    out = op(Tensor(np.array([-1, -1], np.int64)), Tensor(values), Tensor(np.int64(-1)),
             (Tensor(np.int64(4)), Tensor(ids)))
    np.testing.assert_array_equal(out.asnumpy(), _ragged_dense(rows, (4, 4), -1))


def test_ragged_tensor_to_sparse(mode):
    s1 = np.array([0, 2, 4], np.int64)
    s2 = np.array([0, 3, 3, 5, 6], np.int64)
    values = np.array([1, 2, 3, 4, 5, 6], np.int64)
    op = S.RaggedTensorToSparse(Tsplits=ms.int64)
    idx, vals, shape = _run(mode, lambda v: op((Tensor(s1), Tensor(s2)), v), Tensor(values))
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0],
                                                  [1, 0, 1], [1, 1, 0]])
    np.testing.assert_array_equal(vals.asnumpy(), values)
    np.testing.assert_array_equal(shape.asnumpy(), [2, 2, 3])


# ---- SparseApply* (TensorFlow-style sparse updates) ---------------------------------------------


def _d(x):
    return Tensor(np.float64(x))


def _rows(var, indices):
    mask = np.zeros(var.shape[0], bool)
    mask[indices] = True
    return mask


@pytest.mark.parametrize("nesterov", [False, True])
def test_sparse_apply_momentum(mode, nesterov):
    var0, acc0 = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    grad, indices = RNG.standard_normal((2, 3)), np.array([3, 1], np.int32)
    var, acc = Parameter(Tensor(var0), name="var"), Parameter(Tensor(acc0), name="acc")
    op = N.SparseApplyMomentum(use_nesterov=nesterov)
    out = _run(mode, lambda g, i: op(var, acc, _d(0.1), g, i, _d(0.9)), Tensor(grad),
               Tensor(indices))
    wv, wa = var0.copy(), acc0.copy()
    for g, i in zip(grad, indices):
        wa[i] = wa[i] * 0.9 + g
        wv[i] -= 0.1 * g + 0.1 * 0.9 * wa[i] if nesterov else 0.1 * wa[i]
    np.testing.assert_allclose(var.asnumpy(), wv, rtol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), wa, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), wv, rtol=1e-6)


def test_sparse_apply_proximal_gd_adagrad_da_centered_rms(mode):
    var0 = RNG.standard_normal((4, 2))
    grad, indices = RNG.standard_normal((2, 2)), np.array([0, 2], np.int64)
    rows = _rows(var0, indices)
    g = np.zeros_like(var0)
    g[indices] = grad
    # proximal gradient descent (l1 > 0)
    var = Parameter(Tensor(var0), name="v1")
    _run(mode, lambda gr, i: N.SparseApplyProximalGradientDescent()(
        var, _d(0.1), _d(0.05), _d(0.2), gr, i), Tensor(grad), Tensor(indices))
    prox = var0 - 0.1 * g
    want = np.sign(prox) * np.maximum(np.abs(prox) - 0.1 * 0.05, 0) / (1 + 0.1 * 0.2)
    np.testing.assert_allclose(var.asnumpy(), np.where(rows[:, None], want, var0), rtol=1e-6)
    # Adagrad dual averaging
    ga0, gs0 = RNG.standard_normal((4, 2)), np.abs(RNG.standard_normal((4, 2)))
    var, ga, gs = (Parameter(Tensor(t), name=n) for t, n in ((var0, "v2"), (ga0, "ga"),
                                                              (gs0, "gs")))
    _run(mode, lambda gr, i: N.SparseApplyAdagradDA()(var, ga, gs, gr, i, _d(0.1),
                                                       _d(0.05), _d(0.2),
                                                       Tensor(np.int64(3))),
         Tensor(grad), Tensor(indices))
    na, ns = ga0 + g, gs0 + g * g
    want = -0.1 * np.sign(na) * np.maximum(np.abs(na) - 0.05 * 3, 0) / (0.2 * 3 * 0.1 +
                                                                        np.sqrt(ns))
    np.testing.assert_allclose(var.asnumpy(), np.where(rows[:, None], want, var0), rtol=1e-6)
    np.testing.assert_allclose(ga.asnumpy(), np.where(rows[:, None], na, ga0), rtol=1e-6)
    # centered RMSProp
    mg0, ms0, mom0 = (RNG.standard_normal((4, 2)) * 0.1, np.abs(RNG.standard_normal((4, 2))),
                      RNG.standard_normal((4, 2)))
    var, mg, msq, mom = (Parameter(Tensor(t), name=n) for t, n in (
        (var0, "v3"), (mg0, "mg"), (ms0, "ms"), (mom0, "mom")))
    _run(mode, lambda gr, i: N.SparseApplyCenteredRMSProp()(
        var, mg, msq, mom, _d(0.01), _d(0.9), _d(0.5), _d(1e-6), gr, i),
        Tensor(grad), Tensor(indices))
    nms = 0.9 * ms0 + 0.1 * g * g
    nmg = 0.9 * mg0 + 0.1 * g
    nmom = 0.5 * mom0 + 0.01 * g / np.sqrt(nms - nmg * nmg + 1e-6)
    np.testing.assert_allclose(var.asnumpy(), np.where(rows[:, None], var0 - nmom, var0),
                               rtol=1e-6)
    np.testing.assert_allclose(mom.asnumpy(), np.where(rows[:, None], nmom, mom0), rtol=1e-6)


def test_sparse_apply_bad_input_is_typed():
    var = Parameter(Tensor(np.ones((3, 2), np.float32)), name="v")
    acc = Parameter(Tensor(np.ones((3, 2), np.float32)), name="a")
    with pytest.raises(ValueError, match="SparseApplyMomentum.*grad"):
        N.SparseApplyMomentum()(var, acc, Tensor(0.1, ms.float32),
                                Tensor(np.ones((2, 3), np.float32)),
                                Tensor(np.array([0, 1], np.int32)), Tensor(0.9, ms.float32))
    with pytest.raises(TypeError, match="SparseApplyMomentum.*indices"):
        N.SparseApplyMomentum()(var, acc, Tensor(0.1, ms.float32),
                                Tensor(np.ones((2, 2), np.float32)),
                                Tensor(np.array([0.0, 1.0], np.float32)),
                                Tensor(0.9, ms.float32))
    with pytest.raises(TypeError, match="SparseApplyMomentum.*use_nesterov"):
        N.SparseApplyMomentum(use_nesterov=1)


def test_bad_coo_arguments_are_typed():
    idx = Tensor(np.array([[0, 1], [1, 0]], np.int64))
    vals = Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(TypeError, match="SparseToDenseV2.*default_value.*dtype"):
        S.SparseToDenseV2()(idx, (2, 2), vals, Tensor(np.float64(0)))
    with pytest.raises(ValueError, match="SparseToDenseV2.*default_value must be a scalar"):
        S.SparseToDenseV2()(idx, (2, 2), vals, Tensor(np.zeros(2, np.float32)))
    with pytest.raises(TypeError, match="SparseReorder.*int32 or int64"):
        S.SparseReorder()(Tensor(np.array([[0.0, 1.0]], np.float32)), vals[:1], (2, 2))
    with pytest.raises(ValueError, match="SparseSoftmax.*indices must have shape"):
        S.SparseSoftmax()(idx, vals[:1], (2, 2))
    with pytest.raises(ValueError, match="SparseFillEmptyRows.*outside the shape"):
        S.SparseFillEmptyRows()(Tensor(np.array([[3, 0]], np.int64)), vals[:1], (2, 2),
                                Tensor(np.float32(0)))
