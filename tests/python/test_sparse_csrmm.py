"""The fused sparse-dense product (the op table's CSRMM, kernels/cpu/csrmm.cc) and the functions
routed through it (ops.csr_mm, csr_mv, CSRTensor.mm, SparseTensorDenseMatmul, _csr_ops.CSRMM)
against scipy.sparse and torch (gradients), in both modes; typed errors for bad index arrays."""
import numpy as np
import pytest
import scipy.sparse as sp

import mycel as ms
from mycel import Tensor, CSRTensor, ops
from mycel.ops import operations as P
from mycel.ops.operations import _csr_ops

RNG = np.random.default_rng(31337)


def _run(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)


def _random_csr(m, k, density, dtype, idx, shuffle=True):
    """A scipy CSR matrix with empty rows, its columns shuffled within rows when asked."""
    a = sp.random(m, k, density=density, format="csr", random_state=RNG, dtype=np.float64)
    a.data = a.data.astype(dtype) - dtype(0.5)
    if m > 2:
        a = a.tolil()
        a[1, :] = 0  # an empty row
        a = a.tocsr()
        a.eliminate_zeros()
    indices = a.indices.copy()
    data = a.data.copy()
    if shuffle:
        for r in range(m):
            s, e = a.indptr[r], a.indptr[r + 1]
            p = RNG.permutation(e - s) + s
            indices[s:e], data[s:e] = indices[p], data[p]
    return a.indptr.astype(idx), indices.astype(idx), data.astype(dtype), a.toarray()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
@pytest.mark.parametrize("ta", [False, True])
def test_primitive_matches_scipy(mode, dtype, idx, ta):
    m, k, n = 37, 29, 11
    ptr, ind, val, dense_a = _random_csr(m, k, 0.2, dtype, idx)
    d = RNG.standard_normal((m if ta else k, n)).astype(dtype)
    op = P.CSRMM(dense_shape=(m, k), transpose_a=ta)
    out = _run(mode, op, Tensor(ptr), Tensor(ind), Tensor(val), Tensor(d))
    want = (dense_a.T if ta else dense_a) @ d.astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert out.dtype == (ms.float32 if dtype == np.float32 else ms.float64)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=tol, atol=tol)


def test_duplicates_add_up_and_empty_shapes(mode):
    op = P.CSRMM(dense_shape=(2, 3))
    ptr, ind = Tensor(np.array([0, 3, 3], np.int64)), Tensor(np.array([1, 1, 0], np.int64))
    val = Tensor(np.array([1.0, 2.0, 4.0]))
    d = np.arange(6.0).reshape(3, 2)
    out = _run(mode, op, ptr, ind, val, Tensor(d))
    np.testing.assert_allclose(out.asnumpy(), [[3 * d[1, 0] + 4 * d[0, 0],
                                                3 * d[1, 1] + 4 * d[0, 1]], [0, 0]])
    empty = P.CSRMM(dense_shape=(3, 4))(Tensor(np.zeros(4, np.int32)),
                                          Tensor(np.zeros(0, np.int32)),
                                          Tensor(np.zeros(0, np.float32)),
                                          Tensor(np.ones((4, 5), np.float32)))
    np.testing.assert_array_equal(empty.asnumpy(), np.zeros((3, 5)))
    no_cols = P.CSRMM(dense_shape=(2, 3))(ptr, ind, val, Tensor(np.ones((3, 0))))
    assert no_cols.shape == (2, 0)


@pytest.mark.parametrize("ta", [False, True])
def test_gradients_match_torch(mode, ta):
    import torch
    m, k, n = 6, 5, 3
    ptr, ind, val, _ = _random_csr(m, k, 0.5, np.float64, np.int64)
    d = RNG.standard_normal((m if ta else k, n))
    w = RNG.standard_normal((k if ta else m, n))
    op = P.CSRMM(dense_shape=(m, k), transpose_a=ta)

    def loss(v, x):
        return (op(Tensor(ptr), Tensor(ind), v, x) * Tensor(w)).sum()

    gv, gd = _run(mode, ms.grad(loss, (0, 1)), Tensor(val), Tensor(d))
    rows = np.repeat(np.arange(m), np.diff(ptr))
    tv = torch.tensor(val, requires_grad=True)
    td = torch.tensor(d, requires_grad=True)
    a = torch.sparse_coo_tensor(np.stack([rows, ind]), tv, (m, k))
    prod = torch.sparse.mm(a.t() if ta else a, td)
    (prod * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(gv.asnumpy(), tv.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gd.asnumpy(), td.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_second_order_gradient(mode):
    """d/dx of (d loss / d values) . u, through CSRMM's own backward (Gather, CumSum, ...)."""
    import torch
    ptr = np.array([0, 2, 2, 4], np.int64)
    ind = np.array([1, 0, 2, 1], np.int64)
    val = RNG.standard_normal(4)
    d = RNG.standard_normal((3, 2))
    u = RNG.standard_normal(4)
    op = P.CSRMM(dense_shape=(3, 3))

    def inner(v, x):
        return (op(Tensor(ptr), Tensor(ind), v, x) ** 2).sum()

    def outer(v, x):
        return (ms.grad(inner, 0)(v, x) * Tensor(u)).sum()

    g = _run(mode, ms.grad(outer, 1), Tensor(val), Tensor(d))
    tv = torch.tensor(val, requires_grad=True)
    td = torch.tensor(d, requires_grad=True)
    rows = np.repeat(np.arange(3), np.diff(ptr))
    a = torch.zeros(3, 3, dtype=torch.float64).index_put(
        (torch.tensor(rows), torch.tensor(ind)), tv, accumulate=True)
    (gv,) = torch.autograd.grad(((a @ td) ** 2).sum(), tv, create_graph=True)
    (gv * torch.tensor(u)).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), td.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_routed_functions_match_scipy(mode):
    ptr, ind, val, dense_a = _random_csr(40, 30, 0.1, np.float32, np.int32)
    a = CSRTensor(Tensor(ptr), Tensor(ind), Tensor(val), (40, 30))
    b = RNG.standard_normal((30, 8)).astype(np.float32)
    for fn in (lambda x, y: ops.csr_mm(x, y), lambda x, y: x.mm(y),
               lambda x, y: _csr_ops.CSRMM()(x.indptr, x.indices, x.values, x.shape, y)):
        np.testing.assert_allclose(_run(mode, fn, a, Tensor(b)).asnumpy(), dense_a @ b,
                                   rtol=1e-5, atol=1e-5)
    v = b[:, :1]
    np.testing.assert_allclose(_run(mode, ops.csr_mv, a, Tensor(v)).asnumpy(), dense_a @ v,
                               rtol=1e-5, atol=1e-5)
    # SparseTensorDenseMatmul: unsorted COO with a repeated position, through the sort to CSR
    coo = sp.coo_matrix(dense_a)
    perm = RNG.permutation(coo.nnz)
    idx = np.stack([coo.row, coo.col], 1)[perm]
    idx = np.concatenate([idx, idx[:3]])
    vals = np.concatenate([coo.data[perm], coo.data[perm][:3]]).astype(np.float32)
    want = np.zeros((40, 30))
    np.add.at(want, (idx[:, 0], idx[:, 1]), vals)
    wide = RNG.standard_normal((30, 130)).astype(np.float32)  # > 128 columns: the sort path
    for adj, d in ((False, b), (True, RNG.standard_normal((40, 8)).astype(np.float32)),
                   (False, wide), (True, RNG.standard_normal((40, 130)).astype(np.float32))):
        net = ops.SparseTensorDenseMatmul(adjoint_st=adj)
        out = _run(mode, lambda i, x, y: net(i, x, (40, 30), y), Tensor(idx.astype(np.int64)),
                   Tensor(vals), Tensor(d))
        np.testing.assert_allclose(out.asnumpy(), (want.T if adj else want) @ d, rtol=1e-5,
                                   atol=1e-5)


def test_bad_index_arrays_are_value_errors(mode):
    d = Tensor(np.ones((3, 2), np.float32))
    v = Tensor(np.ones(3, np.float32))
    op = P.CSRMM(dense_shape=(3, 3))
    cases = {
        r"CSRMM.*indptr must not decrease": ([0, 2, 1, 3], [0, 1, 2]),
        r"CSRMM.*indptr must start at 0 and end at the number of values 3": ([0, 1, 2, 2],
                                                                              [0, 1, 2]),
        r"CSRMM.*column index must lie in \[0, 3\), but indices\[2\] = 3": ([0, 1, 2, 3],
                                                                             [0, 1, 3]),
        r"CSRMM.*column index must lie in \[0, 3\), but indices\[0\] = -1": ([0, 1, 2, 3],
                                                                             [-1, 1, 2]),
    }
    for msg, (ptr, ind) in cases.items():
        with pytest.raises(ValueError, match=msg):
            _run(mode, op, Tensor(np.array(ptr, np.int32)), Tensor(np.array(ind, np.int32)), v, d)


def test_bad_shapes_and_dtypes_are_typed_errors(mode):
    ptr, ind = Tensor(np.array([0, 1, 2, 3], np.int32)), Tensor(np.array([0, 1, 2], np.int32))
    v = Tensor(np.ones(3, np.float32))
    with pytest.raises(ValueError, match=r"CSRMM.*dense must be 2-d with 3 rows"):
        _run(mode, P.CSRMM(dense_shape=(3, 3)), ptr, ind, v, Tensor(np.ones((4, 2), np.float32)))
    with pytest.raises(ValueError, match=r"CSRMM.*indptr must be 1-d with M \+ 1 = 5"):
        _run(mode, P.CSRMM(dense_shape=(4, 3)), ptr, ind, v, Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(TypeError, match=r"CSRMM.*must both be float32 or both float64"):
        _run(mode, P.CSRMM(dense_shape=(3, 3)), ptr, ind, v, Tensor(np.ones((3, 2))))
    with pytest.raises(TypeError, match=r"CSRMM.*int32 or int64"):
        _run(mode, P.CSRMM(dense_shape=(3, 3)), Tensor(np.array([0.0, 1, 2, 3])), ind, v,
             Tensor(np.ones((3, 2), np.float32)))


@pytest.mark.parametrize("cols", [3, 130])
def test_sparse_tensor_dense_matmul_gradients_both_paths(mode, cols):
    """Unsorted COO entries with a repeated position; 3 columns: gathered rows and CSRMM over
    one entry per row; 130: sorted into CSR form first."""
    import torch
    idx = np.array([[2, 1], [0, 2], [1, 0], [0, 2], [2, 2]], np.int64)
    vals = RNG.standard_normal(5)
    dense = RNG.standard_normal((3, cols))
    w = RNG.standard_normal((3, cols))
    net = ops.SparseTensorDenseMatmul()

    def loss(v, d):
        return (net(Tensor(idx), v, (3, 3), d) * Tensor(w)).sum()

    gv, gd = _run(mode, ms.grad(loss, (0, 1)), Tensor(vals), Tensor(dense))
    tv = torch.tensor(vals, requires_grad=True)
    td = torch.tensor(dense, requires_grad=True)
    (torch.sparse.mm(torch.sparse_coo_tensor(idx.T, tv, (3, 3)), td) * torch.tensor(w)
     ).sum().backward()
    np.testing.assert_allclose(gv.asnumpy(), tv.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gd.asnumpy(), td.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_vmap_of_csr_mm_matches_a_loop(mode, dtype):
    """ms.vmap over ops.csr_mm and SparseTensorDenseMatmul: only the dense operand batched
    (CSRMM/COOMM's rule folds the batch into the columns), values and dense batched, and every
    part batched (float16: the composition, whose run-time index checks then see a batched
    condition), against a Python loop."""
    ptr = np.array([0, 2, 3, 5], np.int64)
    ind = np.array([0, 2, 1, 0, 2], np.int64)
    coo = np.array([[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], np.int64)
    vals = RNG.standard_normal((4, 5)).astype(dtype)
    dense = RNG.standard_normal((4, 3, 2)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 2e-2

    def csr(p, i, v, d):
        return ops.csr_mm(CSRTensor(p, i, v, (3, 3)), d)

    def coo_mm(i, v, d):
        return ops.SparseTensorDenseMatmul()(i, v, (3, 3), d)

    cases = [
        (csr, (None, None, None, 0), (ptr, ind, vals[0], dense)),
        (csr, (None, None, 0, 0), (ptr, ind, vals, dense)),
        (csr, (0, 0, 0, 0), (np.stack([ptr] * 4), np.stack([ind] * 4), vals, dense)),
        (coo_mm, (None, None, 0), (coo, vals[0], dense)),
        (coo_mm, (None, 0, 0), (coo, vals, dense)),
    ]
    for fn, axes, args in cases:
        got = ms.vmap(fn, in_axes=axes)(*(Tensor(a) for a in args))
        want = np.stack([fn(*(Tensor(a[b] if ax == 0 else a) for a, ax in zip(args, axes)))
                         .asnumpy() for b in range(4)])
        np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


def test_vmap_of_a_bad_index_raises(mode):
    """A check under vmap raises when any example's index is bad (here the second)."""
    ptr = np.stack([np.array([0, 2, 3, 5], np.int64)] * 2)
    ind = np.stack([np.array([0, 2, 1, 0, 2], np.int64), np.array([0, 2, 1, 0, 7], np.int64)])
    vals = Tensor(np.ones((2, 5), np.float16))
    dense = Tensor(np.ones((2, 3, 2), np.float16))

    def fn(p, i, v, d):
        return ops.csr_mm(CSRTensor(p, i, v, (3, 3)), d)

    with pytest.raises(ValueError, match="csr_mm.*column index"):
        ms.vmap(fn)(Tensor(ptr), Tensor(ind), vals, dense).asnumpy()
