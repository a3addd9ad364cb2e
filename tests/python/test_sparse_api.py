"""MindSpore's sparse-tensor API (ops/function/sparse_func.py, common/sparse_tensor.py):
ops.coo_* / csr_*, dense_to_sparse_*, SparseToDense, SparseTensorDenseMatmul,
sparse_segment_mean, the COOTensor/CSRTensor methods and operators, RowTensor and
SparseTensor, against scipy.sparse, numpy on the dense forms and torch (gradients), in both
modes (in graph code a sparse tensor is a struct: common/sparse_tensor.py); typed errors."""
import numpy as np
import pytest
import scipy.sparse as sp

import mycel as ms
from mycel import Tensor, COOTensor, CSRTensor, ops

RNG = np.random.default_rng(2027)


def _run(mode, fn, *args):
    """fn(*args) eagerly, or compiled (jit) in GRAPH mode."""
    return ms.jit(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)


def _csr(m, n, density=0.4, dtype=np.float32, idx=np.int32):
    a = sp.random(m, n, density=density, format="csr", random_state=RNG, dtype=np.float64)
    a.sort_indices()
    x = CSRTensor(Tensor(a.indptr.astype(idx)), Tensor(a.indices.astype(idx)),
                  Tensor(a.data.astype(dtype)), (m, n))
    return x, a.toarray().astype(dtype)


def _coo(m, n, nnz, dtype=np.float32, idx=np.int64):
    """A COOTensor with repeated positions, in no particular order, and its dense sum."""
    r, c = RNG.integers(0, m, nnz), RNG.integers(0, n, nnz)
    v = RNG.standard_normal(nnz).astype(dtype)
    dense = np.zeros((m, n), dtype)
    np.add.at(dense, (r, c), v)
    return COOTensor(Tensor(np.stack([r, c], 1).astype(idx)), Tensor(v), (m, n)), dense


def _dense_of(x):
    """The dense form of a COOTensor/CSRTensor by scipy (an oracle independent of mycel)."""
    if isinstance(x, COOTensor):
        i = x.indices.asnumpy()
        return sp.coo_matrix((x.values.asnumpy(), (i[:, 0], i[:, 1])), shape=x.shape).toarray()
    return sp.csr_matrix((x.values.asnumpy(), x.indices.asnumpy(), x.indptr.asnumpy()),
                         shape=x.shape).toarray()


def _row_major(idx):
    keys = idx[:, 0] * 10**6 + idx[:, 1]
    return np.all(np.diff(keys) > 0)


# ---------------------------------------------------------------------------- conversions

def test_conversions_match_scipy(mode):
    coo, dense = _coo(5, 7, 12)
    np.testing.assert_allclose(_run(mode, lambda x: x.to_dense(), coo).asnumpy(), dense,
                               rtol=1e-6)
    np.testing.assert_allclose(_run(mode, ops.coo_to_dense, coo).asnumpy(), dense, rtol=1e-6)
    csr = _run(mode, lambda x: x.to_csr(), coo)
    assert isinstance(csr, CSRTensor) and csr.indptr.dtype == ms.int64
    counts = np.bincount(coo.indices.asnumpy()[:, 0], minlength=5)  # duplicates kept apart
    np.testing.assert_array_equal(csr.indptr.asnumpy(), np.concatenate([[0], np.cumsum(counts)]))
    np.testing.assert_allclose(_dense_of(csr), dense, rtol=1e-6)
    x, d = _csr(6, 4)
    np.testing.assert_allclose(_run(mode, lambda c: c.to_dense(), x).asnumpy(), d)
    np.testing.assert_allclose(_run(mode, ops.csr_to_dense, x).asnumpy(), d)
    back = _run(mode, ops.csr_to_coo, x)
    assert isinstance(back, COOTensor) and back.indices.dtype == ms.int32
    ref = sp.csr_matrix(d).tocoo()
    np.testing.assert_array_equal(back.indices.asnumpy(), np.stack([ref.row, ref.col], 1))
    np.testing.assert_allclose(_run(mode, lambda c: c.to_coo(), x).values.asnumpy(), ref.data)


def test_dense_to_sparse_match_scipy(mode):
    d = RNG.standard_normal((5, 6)).astype(np.float32) * (RNG.random((5, 6)) < 0.4)
    coo = _run(mode, ops.dense_to_sparse_coo, Tensor(d))
    ref = sp.coo_matrix(d)
    assert coo.indices.dtype == ms.int64 and coo.shape == (5, 6)
    np.testing.assert_array_equal(coo.indices.asnumpy(), np.stack([ref.row, ref.col], 1))
    np.testing.assert_array_equal(coo.values.asnumpy(), ref.data)
    csr = _run(mode, ops.dense_to_sparse_csr, Tensor(d))
    ref = sp.csr_matrix(d)
    assert csr.indptr.dtype == ms.int32
    np.testing.assert_array_equal(csr.indptr.asnumpy(), ref.indptr)
    np.testing.assert_array_equal(csr.indices.asnumpy(), ref.indices)
    np.testing.assert_array_equal(csr.values.asnumpy(), ref.data)
    with pytest.raises(ValueError, match="dense_to_sparse_coo.*2-D"):
        ops.dense_to_sparse_coo(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="dense_to_sparse_csr.*Tensor"):
        ops.dense_to_sparse_csr(d)


# ---------------------------------------------------------------------------- element-wise

_UNARY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "ceil": np.ceil,
    "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "floor": np.floor,
    "inv": lambda v: 1 / v, "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan,
    "log": np.log, "log1p": np.log1p, "neg": np.negative, "relu": lambda v: np.maximum(v, 0),
    "relu6": lambda v: np.clip(v, 0, 6), "round": np.round,
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "sin": np.sin, "sinh": np.sinh,
    "softsign": lambda v: v / (1 + np.abs(v)), "sqrt": np.sqrt, "square": np.square,
    "tan": np.tan, "tanh": np.tanh,
}


def _domain(name, n):
    if name == "acosh":
        return RNG.uniform(1.1, 3.0, n)
    if name in ("log", "sqrt", "log1p"):
        return RNG.uniform(0.1, 3.0, n)
    if name in ("acos", "asin", "atanh"):
        return RNG.uniform(-0.9, 0.9, n)
    if name in ("isfinite", "isinf", "isnan"):
        return np.array([1.0, np.inf, np.nan, -np.inf, 2.5])[:n]
    return RNG.uniform(-7.0, 7.0, n)


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_unary_family_on_values(mode, name):
    v = _domain(name, 5).astype(np.float32)
    want = _UNARY[name](v.astype(np.float64))
    coo = COOTensor(Tensor(np.array([[0, 0], [0, 3], [1, 1], [2, 0], [2, 2]], np.int32)),
                    Tensor(v), (3, 4))
    csr = CSRTensor(Tensor(np.array([0, 2, 3, 5], np.int32)),
                    Tensor(np.array([0, 3, 1, 0, 2], np.int32)), Tensor(v), (3, 4))
    out = _run(mode, getattr(ops, "coo_" + name), coo)
    assert isinstance(out, COOTensor) and out.shape == (3, 4)
    np.testing.assert_array_equal(out.indices.asnumpy(), coo.indices.asnumpy())
    np.testing.assert_allclose(out.values.asnumpy(), want, rtol=2e-6, atol=1e-6)
    out = _run(mode, getattr(ops, "csr_" + name), csr)
    assert isinstance(out, CSRTensor)
    np.testing.assert_array_equal(out.indptr.asnumpy(), csr.indptr.asnumpy())
    np.testing.assert_allclose(out.values.asnumpy(), want, rtol=2e-6, atol=1e-6)
    with pytest.raises(TypeError, match=f"coo_{name}.*COOTensor"):
        getattr(ops, "coo_" + name)(csr)


# ---------------------------------------------------------------------------- sums, concat

def test_coo_add_matches_dense_sum_with_thresh(mode):
    a, da = _coo(4, 5, 9)
    b, db = _coo(4, 5, 9)
    for t in (0.0, 0.5):
        out = _run(mode, lambda x, y: ops.coo_add(x, y, Tensor(np.float32(t))), a, b)
        idx = out.indices.asnumpy()
        assert out.indices.dtype == ms.int64 and _row_major(idx)
        s = da + db
        present = np.zeros(s.shape, bool)
        for x in (a, b):
            present[tuple(x.indices.asnumpy().T)] = True
        want = present & (np.abs(s) >= t)
        np.testing.assert_array_equal(np.stack(np.nonzero(want), 1), idx)
        np.testing.assert_allclose(out.values.asnumpy(), s[want], rtol=1e-5, atol=1e-6)
    # positions that meet add up; a sum whose magnitude is below thresh drops out
    x1 = COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), Tensor([1, 2], ms.int32), (3, 4))
    x2 = COOTensor(Tensor([[0, 0], [1, 1]], ms.int64), Tensor([3, 4], ms.int32), (3, 4))
    out = ops.coo_add(x1, x2, Tensor(2, ms.int32))
    np.testing.assert_array_equal(out.indices.asnumpy(), [[0, 0], [1, 1], [1, 2]])
    np.testing.assert_array_equal(out.values.asnumpy(), [3, 4, 2])


def test_csr_add_matches_scipy(mode):
    a, da = _csr(5, 6)
    b, db = _csr(5, 6)
    alpha, beta = Tensor(np.float32(1.5)), Tensor(np.float32(-2.0))
    out = _run(mode, lambda x, y: ops.csr_add(x, y, alpha, beta), a, b)
    ref = (1.5 * sp.csr_matrix(da) - 2.0 * sp.csr_matrix(db)).tocsr()
    ref.sort_indices()
    np.testing.assert_allclose(_dense_of(out), ref.toarray(), rtol=1e-6)
    # the union of the patterns (no stored entry dropped)
    pattern = (np.abs(da) > 0) | (np.abs(db) > 0)
    np.testing.assert_array_equal(np.diff(out.indptr.asnumpy()), pattern.sum(1))
    # a scale that broadcasts to the dense shape: per-row
    rows = Tensor(np.arange(1, 6, dtype=np.float32).reshape(5, 1))
    out = ops.csr_add(a, b, rows, Tensor(np.float32(1)))
    np.testing.assert_allclose(_dense_of(out), np.arange(1, 6).reshape(5, 1) * da + db,
                               rtol=1e-6)
    np.testing.assert_allclose(_dense_of(a.add(b, alpha, beta)), ref.toarray(), rtol=1e-6)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_coo_concat_matches_scipy(mode, dim):
    parts = [_coo(3, 4, 5) for _ in range(3)] if dim != 0 else \
        [_coo(r, 4, 5) for r in (2, 3, 1)]
    out = _run(mode, lambda x, y, z: ops.coo_concat((x, y, z), dim), *[p[0] for p in parts])
    stack = np.concatenate([p[1] for p in parts], axis=dim)
    assert out.shape == stack.shape
    np.testing.assert_allclose(_dense_of(out), stack, rtol=1e-6)
    keys = out.indices.asnumpy() @ np.array([stack.shape[1], 1])
    assert np.all(np.diff(keys) >= 0)  # row-major order


def test_coalesce(mode):
    coo, dense = _coo(4, 4, 14)
    out = _run(mode, lambda x: x.coalesce(), coo)
    ref = sp.coo_matrix((coo.values.asnumpy(), tuple(coo.indices.asnumpy().T)),
                        shape=(4, 4)).tocsr().tocoo()
    np.testing.assert_array_equal(out.indices.asnumpy(), np.stack([ref.row, ref.col], 1))
    np.testing.assert_allclose(out.values.asnumpy(), ref.data, rtol=1e-6)


# ---------------------------------------------------------------------------- products

@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_csr_mm_dense_matches_numpy(mode, ta, tb):
    a, da = _csr(5, 4)
    b = RNG.standard_normal((3, 5) if tb and ta else (5, 3) if ta else
                            (3, 4) if tb else (4, 3)).astype(np.float32)
    out = _run(mode, lambda x, y: ops.csr_mm(x, y, trans_a=ta, trans_b=tb), a, Tensor(b))
    want = (da.T if ta else da) @ (b.T if tb else b)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_csr_mm_adjoint_complex():
    a, da = _csr(4, 3, dtype=np.complex64)
    vals = a.values.asnumpy() * (1 + 2j)
    a = CSRTensor(a.indptr, a.indices, Tensor(vals.astype(np.complex64)), a.shape)
    da = _dense_of(a)
    b = (RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))).astype(np.complex64)
    out = ops.csr_mm(a, Tensor(b), adjoint_a=True)
    np.testing.assert_allclose(out.asnumpy(), da.conj().T @ b, rtol=1e-5, atol=1e-6)


def test_csr_mm_sparse_matches_scipy(mode):
    a, da = _csr(5, 6)
    b, db = _csr(6, 4)
    out = _run(mode, ops.csr_mm, a, b)
    assert isinstance(out, CSRTensor) and out.shape == (5, 4)
    ref = sp.csr_matrix(da) @ sp.csr_matrix(db)
    np.testing.assert_allclose(_dense_of(out), ref.toarray(), rtol=1e-5, atol=1e-6)
    # the example of MindSpore's documentation (its printed result)
    x = CSRTensor(Tensor([0, 1, 1, 3, 4], ms.int32), Tensor([0, 3, 4, 0], ms.int32),
                  Tensor([1.0, 5.0, -1.0, -2.0], ms.float32), (4, 5))
    y = CSRTensor(Tensor([0, 1, 1, 3, 3, 3], ms.int32), Tensor([0, 0, 1], ms.int32),
                  Tensor([2.0, 7.0, 8.0], ms.float32), (5, 3))
    c = ops.csr_mm(x, y)
    np.testing.assert_array_equal(c.indptr.asnumpy(), [0, 1, 1, 1, 2])
    np.testing.assert_array_equal(c.indices.asnumpy(), [0, 0])
    np.testing.assert_array_equal(c.values.asnumpy(), [2.0, -4.0])


def test_csr_mv_sum_mm_methods(mode):
    a, da = _csr(5, 4)
    v = RNG.standard_normal((4, 1)).astype(np.float32)
    m = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(_run(mode, lambda x, y: x.mv(y), a, Tensor(v)).asnumpy(),
                               da @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_run(mode, ops.csr_mv, a, Tensor(v)).asnumpy(), da @ v,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_run(mode, lambda x, y: x.mm(y), a, Tensor(m)).asnumpy(),
                               da @ m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_run(mode, lambda x: x.sum(1), a).asnumpy(),
                               da.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_run(mode, lambda x: ops.csr_reduce_sum(x, 0), a).asnumpy(),
                               da.sum(0, keepdims=True), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"csr_mv.*\(4, 1\)"):
        a.mv(Tensor(np.ones(4, np.float32)))


@pytest.mark.parametrize("adj_st,adj_dt", [(False, False), (True, False), (False, True),
                                           (True, True)])
def test_sparse_tensor_dense_matmul_matches_torch(mode, adj_st, adj_dt):
    import torch
    idx = np.array([[0, 1], [1, 2], [2, 0], [0, 1]], np.int64)  # a repeated position adds up
    vals = RNG.standard_normal(4)
    dense = RNG.standard_normal((2, 3) if adj_dt and adj_st else (3, 4) if adj_st else
                                (2, 3) if adj_dt else (3, 2))
    net = ops.SparseTensorDenseMatmul(adjoint_st=adj_st, adjoint_dt=adj_dt)
    out = _run(mode, lambda i, v, d: net(i, v, (3, 3), d), Tensor(idx), Tensor(vals),
               Tensor(dense))
    a = torch.sparse_coo_tensor(idx.T, vals, (3, 3)).to_dense()
    d = torch.tensor(dense)
    want = (a.T if adj_st else a) @ (d.T if adj_dt else d)
    np.testing.assert_allclose(out.asnumpy(), want.numpy(), rtol=1e-12)


def test_sparse_tensor_dense_matmul_gradients_match_torch(mode):
    import torch
    idx = np.array([[0, 1], [1, 2], [2, 0], [2, 2]], np.int64)
    vals = RNG.standard_normal(4)
    dense = RNG.standard_normal((3, 2))
    w = RNG.standard_normal((3, 2))
    net = ops.SparseTensorDenseMatmul()

    def loss(v, d):
        return (net(Tensor(idx), v, (3, 3), d) * Tensor(w)).sum()

    gv, gd = _run(mode, ms.grad(loss, (0, 1)), Tensor(vals), Tensor(dense))
    tv = torch.tensor(vals, requires_grad=True)
    td = torch.tensor(dense, requires_grad=True)
    (torch.sparse.mm(torch.sparse_coo_tensor(idx.T, tv, (3, 3)), td) * torch.tensor(w)
     ).sum().backward()
    np.testing.assert_allclose(gv.asnumpy(), tv.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gd.asnumpy(), td.grad.numpy(), rtol=1e-12)


def test_csr_mm_gradients_match_torch(mode):
    """csr_mm differentiated by its values and its dense operand (the CSRTensor made in the
    differentiated function)."""
    import torch
    a, _ = _csr(4, 5, dtype=np.float64)
    b = RNG.standard_normal((5, 3))
    w = RNG.standard_normal((4, 3))

    def loss(v, d):
        return (ops.csr_mm(CSRTensor(a.indptr, a.indices, v, (4, 5)), d) * Tensor(w)).sum()

    gv, gd = _run(mode, ms.grad(loss, (0, 1)), a.values, Tensor(b))
    tv = torch.tensor(a.values.asnumpy(), requires_grad=True)
    td = torch.tensor(b, requires_grad=True)
    rows = np.repeat(np.arange(4), np.diff(a.indptr.asnumpy()))
    ta = torch.zeros(4, 5, dtype=torch.float64).index_put(
        (torch.tensor(rows), torch.tensor(a.indices.asnumpy().astype(np.int64))), tv,
        accumulate=True)
    ((ta @ td) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(gv.asnumpy(), tv.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gd.asnumpy(), td.grad.numpy(), rtol=1e-12)
    # the values' gradient of to_dense (a scatter): the cotangent read at each position
    g = _run(mode, ms.grad(lambda v: (COOTensor(Tensor([[0, 1], [2, 2], [0, 1]]), v,
                                                (3, 3)).to_dense() * Tensor(w[:3, :3])).sum()),
             Tensor(np.ones(3)))
    np.testing.assert_allclose(g.asnumpy(), [w[0, 1], w[2, 2], w[0, 1]])


# ---------------------------------------------------------------------------- primitives

def test_sparse_to_dense_and_segment_mean(mode):
    idx = np.array([[0, 1, 2], [1, 0, 3], [0, 1, 2]], np.int32)
    vals = np.array([1.0, 2.0, 4.0], np.float32)
    out = _run(mode, lambda i, v: ops.SparseToDense()(i, v, (2, 2, 4)), Tensor(idx),
               Tensor(vals))
    want = np.zeros((2, 2, 4), np.float32)
    np.add.at(want, tuple(idx.T), vals)
    np.testing.assert_array_equal(out.asnumpy(), want)
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    ind, seg = np.array([0, 3, 1, 4, 4]), np.array([0, 0, 2, 2, 4])
    out = _run(mode, lambda a: ops.sparse_segment_mean(a, Tensor(ind.astype(np.int32)),
                                                       Tensor(seg.astype(np.int64))),
               Tensor(x))
    want = np.zeros((5, 3), np.float32)
    for s in range(5):
        rows = ind[seg == s]
        if rows.size:
            want[s] = x[rows].mean(0)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def test_sparse_segment_mean_needs_known_ids_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x = Tensor(np.ones((3, 2), np.float32))
        with pytest.raises(TypeError, match="num_segments.*compile time"):
            ms.jit(lambda s: ops.sparse_segment_mean(x, Tensor([0, 1], ms.int32), s))(
                Tensor([0, 1], ms.int32))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# ---------------------------------------------------------------------------- operators

def test_operators(mode):
    a, da = _csr(4, 5)
    b, db = _csr(4, 5)
    d = RNG.standard_normal((4, 5)).astype(np.float32)
    x, dx = _coo(4, 5, 6)
    y, dy = _coo(4, 5, 6)
    got = _run(mode, lambda a, b, x, y, t: (-a, a + b, a - b, a * t, t * a, a / t, -x, x + y,
                                            x - y, x + t, t + x, t - x, x - t, x * t,
                                            x.abs(), x.astype(ms.float64)),
               a, b, x, y, Tensor(d))
    want = (-da, da + db, da - db, da * d, da * d, np.where(da != 0, da / d, 0), -dx, dx + dy,
            dx - dy, dx + d, dx + d, d - dx, dx - d, dx * d)
    for g, w in zip(got, want):
        assert isinstance(g, (CSRTensor, COOTensor, Tensor))
        dense = g.asnumpy() if isinstance(g, Tensor) else _dense_of(g)
        np.testing.assert_allclose(dense, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[14].values.asnumpy(), np.abs(x.values.asnumpy()))
    assert got[15].dtype == ms.float64


# ---------------------------------------------------------------------------- errors

def test_bad_input_is_a_typed_error(mode):
    bad_coo = COOTensor(Tensor([[0, 1], [3, 0]], ms.int64), Tensor([1.0, 2.0]), (3, 4))
    with pytest.raises(ValueError, match=r"coo_to_dense.*\[0, shape\)"):
        _run(mode, ops.coo_to_dense, bad_coo)
    unsorted = CSRTensor(Tensor([0, 2, 1, 3], ms.int32), Tensor([0, 1, 2], ms.int32),
                         Tensor([1.0, 2.0, 3.0]), (3, 4))
    with pytest.raises(ValueError, match="csr_to_dense.*indptr must rise"):
        _run(mode, ops.csr_to_dense, unsorted)
    wide = CSRTensor(Tensor([0, 1, 2], ms.int32), Tensor([0, 4], ms.int32),
                     Tensor([1.0, 2.0]), (2, 4))
    # csr_mv runs as the fused CSRMM op, whose kernel checks the columns (and names itself)
    with pytest.raises(ValueError, match=r"CSRMM.*column index.*\[0, 4\)"):
        _run(mode, lambda c: ops.csr_mv(c, Tensor(np.ones((4, 1), np.float32))), wide)
    a, _ = _csr(3, 4)
    with pytest.raises(ValueError, match="csr_mm.*inner dimensions"):
        _run(mode, ops.csr_mm, a, Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(TypeError, match="csr_mm.*one dtype"):
        _run(mode, ops.csr_mm, a, Tensor(np.ones((4, 2), np.float64)))
    x, _ = _coo(3, 4, 2)
    y, _ = _coo(3, 5, 2)
    with pytest.raises(ValueError, match="coo_add.*one shape"):
        _run(mode, lambda p, q: ops.coo_add(p, q, Tensor(np.float32(0))), x, y)
    with pytest.raises(ValueError, match="coo_add.*0-D"):
        ops.coo_add(x, x, Tensor(np.zeros(1, np.float32)))
    with pytest.raises(TypeError, match="coo_add.*thresh"):
        ops.coo_add(x, x, Tensor(np.float64(0)))
    with pytest.raises(ValueError, match="coo_concat.*at least 2"):
        ops.coo_concat((x,))
    with pytest.raises(ValueError, match="coo_concat.*agree"):
        ops.coo_concat((x, y), 0)
    with pytest.raises(TypeError, match="csr_add.*CSRTensor"):
        ops.csr_add(x, a, Tensor(1.0), Tensor(1.0))
    with pytest.raises(ValueError, match=r"SparseToDense.*\[0, shape\)"):
        _run(mode, lambda i: ops.SparseToDense()(i, Tensor([1.0]), (2, 2)),
             Tensor([[0, 2]], ms.int64))
    with pytest.raises(ValueError, match="SparseTensorDenseMatmul.*inner"):
        ops.SparseTensorDenseMatmul()(Tensor([[0, 0]], ms.int64), Tensor([1.0], ms.float32),
                                      (2, 3), Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ValueError, match=r"sparse_segment_mean.*\[0, 3\)"):
        ops.sparse_segment_mean(Tensor(np.ones((3, 2), np.float32)), Tensor([0, 3], ms.int32),
                                Tensor([0, 1], ms.int32))
    with pytest.raises(ValueError, match="sparse_segment_mean.*sorted"):
        ops.sparse_segment_mean(Tensor(np.ones((3, 2), np.float32)), Tensor([0, 1], ms.int32),
                                Tensor([1, 0], ms.int32))


# ---------------------------------------------------------------------------- containers

def test_row_tensor_and_sparse_tensor():
    from mycel.common.sparse_tensor import RowTensorInner
    idx, vals = Tensor([0, 2], ms.int32), Tensor(np.ones((2, 3), np.float32))
    r = ms.RowTensor(idx, vals, (4, 3))
    assert isinstance(r, RowTensorInner) and r.dense_shape == (4, 3)
    copy = RowTensorInner(row_tensor=r)
    np.testing.assert_array_equal(copy.values.asnumpy(), vals.asnumpy())
    with pytest.raises(ValueError, match=r"RowTensorInner.*values must have shape"):
        RowTensorInner(idx, vals, (4, 2))
    with pytest.raises(TypeError, match="RowTensor.*indices must be int"):
        ms.RowTensor(Tensor([0.0, 1.0]), vals, (4, 3))
    with pytest.warns(DeprecationWarning, match="SparseTensor"):
        s = ms.SparseTensor(Tensor([[0, 1], [1, 2]]), Tensor([1.0, 2.0]), (3, 4))
    assert isinstance(s, COOTensor) and s.dense_shape == (3, 4) and s.shape == (3, 4)
    np.testing.assert_array_equal(s.to_dense().asnumpy(), [[0, 1, 0, 0], [0, 0, 2, 0],
                                                           [0, 0, 0, 0]])


def test_sparse_tensors_are_graph_values():
    """A sparse tensor made in graph code is a struct (common/sparse_tensor.py): its fields,
    properties and methods are read there, it goes through control flow, isinstance sees its
    class, operators call its methods, and a function building one from its values is
    differentiated, in GRAPH mode as in PYNATIVE mode."""
    idx = Tensor([[0, 1], [1, 0]], ms.int64)
    w = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))

    def f(v, flag):
        x = COOTensor(idx, v, (2, 2))
        if flag > 0:
            x = COOTensor(x.indices, x.values * 2, x.shape)
        else:
            x = -x
        y = x * w
        assert isinstance(y, COOTensor) and not isinstance(y, tuple)
        return y.to_dense().sum() + y.values.sum() + y.ndim + y.size, y.to_csr(), y.dtype

    for flag in (1, -1):
        for v in ([1.0, 2.0], [0.5, -3.0]):
            args = (Tensor(np.array(v, np.float32)), Tensor(flag, ms.int32))
            want = f(*args)
            ms.set_context(mode=ms.GRAPH_MODE)
            try:
                got = ms.jit(f)(*args)
                g_graph = ms.jit(ms.grad(lambda v, s: f(v, s)[0]))(*args)
            finally:
                ms.set_context(mode=ms.PYNATIVE_MODE)
            np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
            assert isinstance(got[1], CSRTensor) and got[2] == want[2] == ms.float32
            np.testing.assert_allclose(got[1].to_dense().asnumpy(), want[1].to_dense().asnumpy())
            g = ms.grad(lambda v, s: f(v, s)[0])(*args)
            # d/dv of sum(2 or -1 * v * w[idx]) twice (to_dense().sum() and values.sum())
            s = 2.0 if flag > 0 else -1.0
            np.testing.assert_allclose(g.asnumpy(), 2 * s * np.array([2.0, 3.0]), rtol=1e-6)
            np.testing.assert_allclose(g_graph.asnumpy(), g.asnumpy(), rtol=1e-6)
    # a shape error of a sparse tensor made in graph code is found when it compiles
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="CSRTensor.*indptr must hold"):
            ms.jit(lambda v: CSRTensor(Tensor([0, 1], ms.int32), Tensor([0], ms.int32), v,
                                       (2, 2)))(Tensor([1.0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_gradient_of_a_sparse_input_is_sparse(mode):
    """The gradient with respect to a CSRTensor / COOTensor input is one of the same structure
    holding the values' gradient (MindSpore's form), in both modes."""
    csr = CSRTensor(Tensor([0, 1, 3], ms.int32), Tensor([1, 0, 1], ms.int32),
                    Tensor([1.0, 2.0, 3.0]), (2, 2))
    coo = COOTensor(Tensor([[0, 1], [1, 1]], ms.int64), Tensor([4.0, 5.0]), (2, 3))
    w = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))

    def f(x, c, o):
        return ((c * w).values * x).sum() + (o.values ** 2).sum()

    gx, gc, go = _run(mode, ms.grad(f, (0, 1, 2)), Tensor(2.0), csr, coo)
    np.testing.assert_allclose(gx.asnumpy(), 1.0 * 2 + 2.0 * 3 + 3.0 * 4)
    assert isinstance(gc, CSRTensor) and isinstance(go, COOTensor)
    np.testing.assert_array_equal(gc.indptr.asnumpy(), [0, 1, 3])
    np.testing.assert_array_equal(gc.indices.asnumpy(), [1, 0, 1])
    np.testing.assert_allclose(gc.values.asnumpy(), 2.0 * np.array([2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(go.indices.asnumpy(), [[0, 1], [1, 1]])
    np.testing.assert_allclose(go.values.asnumpy(), [8.0, 10.0])
    assert gc.shape == (2, 2) and go.shape == (2, 3)


def test_chained_sums_with_a_dynamic_number_of_values(mode):
    """A sum's number of values is known only when it runs; in GRAPH mode the next sum, the
    conversions and the products take such a sparse tensor (rows and run sums without a static
    count)."""
    x, dx = _csr(4, 5)
    y, dy = _csr(4, 5)
    z, dz = _csr(4, 5)

    def f(a, b, c):
        s = -a + b + c
        return s, s.to_dense(), ops.csr_to_coo(s).to_dense(), s.mv(Tensor(np.ones((5, 1),
                                                                                np.float32)))

    s, dense, via_coo, mv = _run(mode, f, x, y, z)
    want = -dx + dy + dz
    np.testing.assert_allclose(_dense_of(s), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dense.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(via_coo.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv.asnumpy(), want.sum(1, keepdims=True), rtol=1e-5, atol=1e-5)
    p, dp = _coo(3, 4, 6)
    q, dq = _coo(3, 4, 6)
    out = _run(mode, lambda u, v: ops.coo_add(ops.coo_add(u, v, Tensor(np.float32(0))), u,
                                              Tensor(np.float32(0))), p, q)
    np.testing.assert_allclose(_dense_of(out), 2 * dp + dq, rtol=1e-5, atol=1e-6)


def test_nn_cells(mode):
    idx = np.array([[0, 1], [1, 2]], np.int64)
    vals = np.array([2.0, 3.0], np.float32)
    dense = RNG.standard_normal((3, 2)).astype(np.float32)
    out = ms.nn.SparseTensorDenseMatmul()(Tensor(idx), Tensor(vals), (2, 3), Tensor(dense))
    a = np.zeros((2, 3), np.float32)
    a[tuple(idx.T)] = vals
    np.testing.assert_allclose(out.asnumpy(), a @ dense, rtol=1e-6)
    coo = COOTensor(Tensor(idx), Tensor(vals), (2, 3))
    np.testing.assert_array_equal(ms.nn.SparseToDense()(coo).asnumpy(), a)


def test_csr_ops_primitives_and_tensor_methods(mode):
    from mycel.ops.operations import _csr_ops as K
    x, d = _csr(4, 5)
    ptr, ind, val = x.indptr, x.indices, x.values
    dense = RNG.standard_normal((4, 5)).astype(np.float32) + 3.0
    rows = np.repeat(np.arange(4), np.diff(ptr.asnumpy()))
    cols = ind.asnumpy()
    np.testing.assert_allclose(
        _run(mode, lambda: K.CSRReduceSum()(ptr, ind, val, (4, 5), 1)).asnumpy(),
        d.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    v = Tensor(RNG.standard_normal((5, 1)).astype(np.float32))
    np.testing.assert_allclose(_run(mode, lambda: K.CSRMV()(ptr, ind, val, (4, 5), v)).asnumpy(),
                               d @ v.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        _run(mode, lambda: K.CSRMul()(ptr, ind, val, (4, 5), Tensor(dense))).asnumpy(),
        val.asnumpy() * dense[rows, cols], rtol=1e-6)
    np.testing.assert_allclose(
        _run(mode, lambda: K.CSRDiv()(ptr, ind, val, (4, 5), Tensor(dense))).asnumpy(),
        val.asnumpy() / dense[rows, cols], rtol=1e-6)
    np.testing.assert_allclose(
        _run(mode, lambda: K.CSRGather()(ptr, ind, Tensor(dense), (4, 5))).asnumpy(),
        dense[rows, cols])
    nnz = val.shape[0]
    r = _run(mode, lambda: K.CSR2COO()(ptr, nnz))
    assert r.dtype == ms.int32
    np.testing.assert_array_equal(r.asnumpy(), rows)
    np.testing.assert_array_equal(_run(mode, lambda: K.COO2CSR()(r, 4)).asnumpy(), ptr.asnumpy())
    coo = _run(mode, lambda t: t.to_coo(), Tensor(d))
    np.testing.assert_allclose(_dense_of(coo), d)
    csr = _run(mode, lambda t: t.to_csr(), Tensor(d))
    np.testing.assert_array_equal(csr.indptr.asnumpy(), ptr.asnumpy())
    assert ms.ops.functional.dtype(val) == ms.float32


def test_sparse_matrix_add(mode):
    from mycel.ops.operations.sparse_ops import SparseMatrixAdd
    a, da = _csr(3, 4)
    b, db = _csr(3, 4)
    shape = Tensor(np.array([3, 4], np.int32))

    def f(pa, ia, va, pb, ib, vb):
        return SparseMatrixAdd()(shape, Tensor([0, 0], ms.int32), pa, ia, va, shape,
                                 Tensor([0, 0], ms.int32), pb, ib, vb,
                                 Tensor(np.float32(2)), Tensor(np.float32(-1)))

    c_shape, c_batch, c_ptr, c_ind, c_val = _run(mode, f, a.indptr, a.indices, a.values,
                                                 b.indptr, b.indices, b.values)
    c = CSRTensor(c_ptr, c_ind, c_val, (3, 4))
    np.testing.assert_allclose(_dense_of(c), 2 * da - db, rtol=1e-6)
    np.testing.assert_array_equal(c_batch.asnumpy(), [0, c_val.shape[0]])
    np.testing.assert_array_equal(c_shape.asnumpy(), [3, 4])
    with pytest.raises(ValueError, match="SparseMatrixAdd.*dense shape should be same"):
        SparseMatrixAdd()(shape, Tensor([0, 0], ms.int32), a.indptr, a.indices, a.values,
                          Tensor(np.array([3, 5], np.int32)), Tensor([0, 0], ms.int32),
                          b.indptr, b.indices, b.values, Tensor(np.float32(1)),
                          Tensor(np.float32(1)))


def test_rows_of_a_dynamic_count_with_empty_rows(mode):
    """The binary search of the rows (a dynamic number of values) with empty rows first, in
    the middle and last, against the rows numpy repeats from the indptr."""
    d = np.zeros((7, 3), np.float32)
    d[1, 0], d[1, 2], d[3, 1], d[4, 0], d[4, 1], d[4, 2] = 1, 2, 3, 4, 5, 6
    a = ops.dense_to_sparse_csr(Tensor(d))
    # a csr_add output has a number of values known only when it runs (in GRAPH mode)
    coo = _run(mode, lambda x: ops.csr_to_coo(ops.csr_add(x, x, Tensor(np.float32(1)),
                                                          Tensor(np.float32(0)))), a)
    want = np.stack(np.nonzero(d), 1)
    np.testing.assert_array_equal(coo.indices.asnumpy(), want)
    np.testing.assert_array_equal(coo.values.asnumpy(), d[d != 0])


def test_scaling_a_huge_sparse_matrix_reads_the_operand_in_place(mode):
    """A dense operand that broadcasts (a number, a row, a column) is read at the stored
    positions, never broadcast to the dense shape (10**6 x 10**6 here)."""
    n = 10**6
    coo = COOTensor(Tensor([[0, 5], [999999, 999998], [3, 0]], ms.int64),
                    Tensor([1.0, 2.0, 3.0]), (n, n))
    col = Tensor(np.arange(n, dtype=np.float32).reshape(n, 1))
    out = _run(mode, lambda x, c: ((x * Tensor(np.float32(2))).values, (x * c).values,
                                   (x / Tensor(np.full((1, n), 4.0, np.float32))).values), coo,
               col)
    np.testing.assert_allclose(out[0].asnumpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(out[1].asnumpy(), [0.0, 2.0 * 999999, 9.0])
    np.testing.assert_allclose(out[2].asnumpy(), [0.25, 0.5, 0.75])
    with pytest.raises(ValueError, match="must broadcast to the sparse tensor's shape"):
        coo * Tensor(np.ones((2, 3), np.float32))


def test_print_and_repr(mode, capsys):
    coo = COOTensor(Tensor([[0, 1]], ms.int64), Tensor([2.5]), (2, 3))
    row = ms.RowTensor(Tensor([1], ms.int32), Tensor(np.ones((1, 2), np.float32)), (3, 2))

    def f(x, r):
        print(x)
        print(r)
        return x.values

    _run(mode, f, coo, row)
    out = capsys.readouterr().out
    assert "COOTensor(shape=[2, 3], dtype=Float32, indices=" in out and "2.5" in out
    assert "RowTensor(dense_shape=[3, 2], indices=" in out
