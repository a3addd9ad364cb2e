"""ops.coo_<f> / ops.csr_<f> (the function of the stored values, the pattern kept),
ops.csr_to_coo, ops.dense_to_sparse_coo and ops.dense_to_sparse_csr
(ops/function/sparse_func.py), ops.coo_add, coo_concat, csr_add, csr_mm and
sparse_segment_mean (sparse_func.py), P.SparseToDense and P.SparseTensorDenseMatmul
(operations/sparse_ops.py, both modes) against numpy; gradients; errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import ops

RNG = np.random.default_rng(41)

NUMPY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "ceil": np.ceil,
    "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "floor": np.floor,
    "inv": lambda v: 1 / v, "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan,
    "log": np.log, "log1p": np.log1p, "neg": np.negative, "relu": lambda v: np.maximum(v, 0),
    "relu6": lambda v: np.clip(v, 0, 6), "round": np.round,
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "sin": np.sin, "sinh": np.sinh, "softsign": lambda v: v / (1 + np.abs(v)), "sqrt": np.sqrt,
    "square": np.square, "tan": np.tan, "tanh": np.tanh,
}
# values inside every function's domain where one is needed
DOMAIN = {"acos": (-0.9, 0.9), "asin": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 4.0),
          "log": (0.1, 4.0), "log1p": (-0.5, 4.0), "sqrt": (0.1, 4.0)}


def _values(name):
    lo, hi = DOMAIN.get(name, (-7.0, 7.0))
    v = RNG.uniform(lo, hi, 5)
    if name in ("isfinite", "isinf", "isnan"):
        v[1], v[3] = np.inf, np.nan
    return v.astype(np.float32)


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_coo_and_csr_functions_apply_to_the_values(name):
    vals = _values(name)
    idx = np.array([[0, 1], [0, 3], [1, 0], [2, 2], [2, 3]], np.int32)
    coo = ms.COOTensor(ms.Tensor(idx), ms.Tensor(vals), (3, 4))
    out = getattr(ops, f"coo_{name}")(coo)
    assert isinstance(out, ms.COOTensor) and out.shape == (3, 4)
    np.testing.assert_array_equal(out.indices.asnumpy(), idx)
    want = NUMPY[name](vals.astype(np.float64))
    np.testing.assert_allclose(out.values.asnumpy().astype(np.float64), want, rtol=2e-6,
                               atol=1e-6)
    csr = coo.to_csr()
    out = getattr(ops, f"csr_{name}")(csr)
    assert isinstance(out, ms.CSRTensor)
    np.testing.assert_array_equal(out.indptr.asnumpy(), csr.indptr.asnumpy())
    np.testing.assert_array_equal(out.indices.asnumpy(), csr.indices.asnumpy())
    np.testing.assert_allclose(out.values.asnumpy().astype(np.float64),
                               NUMPY[name](csr.values.asnumpy().astype(np.float64)),
                               rtol=2e-6, atol=1e-6)
    with pytest.raises(TypeError, match=f"coo_{name}"):
        getattr(ops, f"coo_{name}")(csr)
    with pytest.raises(TypeError, match=f"csr_{name}"):
        getattr(ops, f"csr_{name}")(ms.Tensor(vals))


def test_conversions():
    a = np.array([[1, 0, 0], [-5, 0, 2], [0, 0, 0], [0, 7, 0]], np.float32)
    coo = ops.dense_to_sparse_coo(ms.Tensor(a))
    np.testing.assert_array_equal(coo.indices.asnumpy(), [[0, 0], [1, 0], [1, 2], [3, 1]])
    np.testing.assert_array_equal(coo.values.asnumpy(), [1, -5, 2, 7])
    assert coo.shape == (4, 3) and coo.dtype == ms.float32
    csr = ops.dense_to_sparse_csr(ms.Tensor(a))
    np.testing.assert_array_equal(csr.indptr.asnumpy(), [0, 1, 3, 3, 4])
    np.testing.assert_array_equal(csr.indices.asnumpy(), [0, 0, 2, 1])
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), a)
    back = ops.csr_to_coo(csr)
    np.testing.assert_array_equal(back.to_dense().asnumpy(), a)
    np.testing.assert_array_equal(back.indices.asnumpy(), coo.indices.asnumpy())
    with pytest.raises(ValueError, match="dense_to_sparse_coo.*2-D"):
        ops.dense_to_sparse_coo(ms.Tensor(np.zeros(3, np.float32)))
    with pytest.raises(TypeError, match="csr_to_coo"):
        ops.csr_to_coo(coo)


# ------------------------------------------------------------------ patterns from the values
def _rand_coo(shape, n, rng, dtype=np.float32):
    flat = rng.choice(shape[0] * shape[1], n, replace=False)
    idx = np.stack([flat // shape[1], flat % shape[1]], 1).astype(np.int64)
    return ms.COOTensor(ms.Tensor(idx), ms.Tensor(rng.standard_normal(n).astype(dtype)), shape)


def test_coo_add_sums_and_thresholds():
    a, b = _rand_coo((4, 5), 7, RNG), _rand_coo((4, 5), 6, RNG)
    dense = a.to_dense().asnumpy() + b.to_dense().asnumpy()
    for thresh in (0.0, 0.8):
        out = ops.coo_add(a, b, ms.Tensor(np.float32(thresh)))
        idx = out.indices.asnumpy()
        stored = np.zeros(dense.shape, bool)
        stored[idx[:, 0], idx[:, 1]] = True
        both = (a.to_dense().asnumpy() != 0) | (b.to_dense().asnumpy() != 0)
        np.testing.assert_array_equal(stored, both & (np.abs(dense) >= thresh))
        np.testing.assert_allclose(out.values.asnumpy(), dense[idx[:, 0], idx[:, 1]], rtol=1e-6)
        assert np.all(np.diff(idx[:, 0] * 5 + idx[:, 1]) > 0)  # row-major
    with pytest.raises(ValueError, match="coo_add"):
        ops.coo_add(a, _rand_coo((4, 6), 3, RNG), 0.0)


def test_coo_concat_both_axes():
    a, b, c = _rand_coo((2, 3), 3, RNG), _rand_coo((2, 4), 2, RNG), _rand_coo((3, 3), 4, RNG)
    out = ops.coo_concat((a, b), 1)
    assert out.shape == (2, 7)
    np.testing.assert_array_equal(out.to_dense().asnumpy(),
                                  np.concatenate([a.to_dense().asnumpy(),
                                                  b.to_dense().asnumpy()], 1))
    out = ops.coo_concat([a, c], 0)
    np.testing.assert_array_equal(out.to_dense().asnumpy(),
                                  np.concatenate([a.to_dense().asnumpy(),
                                                  c.to_dense().asnumpy()], 0))
    with pytest.raises(ValueError, match="coo_concat"):
        ops.coo_concat((a, b), 0)
    with pytest.raises(ValueError, match="coo_concat"):
        ops.coo_concat((a,), 0)


def test_csr_add_and_mm():
    a, b = _rand_coo((4, 5), 8, RNG).to_csr(), _rand_coo((4, 5), 6, RNG).to_csr()
    out = ops.csr_add(a, b, ms.Tensor(np.array([2.0], np.float32)), -0.5)
    np.testing.assert_allclose(out.to_dense().asnumpy(),
                               2 * a.to_dense().asnumpy() - 0.5 * b.to_dense().asnumpy(),
                               rtol=1e-6)
    c = _rand_coo((5, 3), 6, RNG).to_csr()
    ad, cd = a.to_dense().asnumpy(), c.to_dense().asnumpy()
    np.testing.assert_allclose(ops.csr_mm(a, c).to_dense().asnumpy(), ad @ cd, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(ops.csr_mm(a, b, trans_a=True).to_dense().asnumpy(),
                               ad.T @ b.to_dense().asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.csr_mm(a, b, trans_b=True).to_dense().asnumpy(),
                               ad @ b.to_dense().asnumpy().T, rtol=1e-5, atol=1e-6)
    dense = RNG.standard_normal((5, 2)).astype(np.float32)
    np.testing.assert_allclose(ops.csr_mm(a, ms.Tensor(dense)).asnumpy(), ad @ dense,
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="csr_mm.*inner dimensions"):
        ops.csr_mm(a, a)


def test_sparse_segment_mean_and_gradient():
    x = RNG.standard_normal((5, 3))
    idx = np.array([0, 2, 2, 4, 1], np.int32)
    seg = np.array([0, 0, 1, 3, 3], np.int32)
    got = ops.sparse_segment_mean(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(seg)).asnumpy()
    want = np.stack([x[[0, 2]].mean(0), x[2], np.zeros(3), x[[4, 1]].mean(0)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    g = ms.grad(lambda a: ops.sparse_segment_mean(a, ms.Tensor(idx), ms.Tensor(seg)).sum())(
        ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g[:, 0], [0.5, 0.5, 1.5, 0, 0.5])
    with pytest.raises(ValueError, match="sorted"):
        ops.sparse_segment_mean(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(seg[::-1].copy()))


def test_sparse_to_dense_and_sparse_dense_matmul(mode):
    from ms_cell import run
    from mycel.ops import operations as P
    idx = np.array([[0, 1], [2, 0], [1, 3], [2, 0]], np.int64)
    vals = RNG.standard_normal(4)
    got = run(lambda a, b: P.SparseToDense()(a[:3], b[:3], (3, 4)), idx, vals)
    want = np.zeros((3, 4))
    want[idx[:3, 0], idx[:3, 1]] = vals[:3]
    np.testing.assert_array_equal(got, want)
    full = np.zeros((3, 4))
    np.add.at(full, (idx[:, 0], idx[:, 1]), vals)  # the repeated index adds up
    dense = RNG.standard_normal((4, 2))
    for ast, adt in ((False, False), (True, False), (False, True), (True, True)):
        a = full.T if ast else full
        d = RNG.standard_normal((2, a.shape[1])) if adt else RNG.standard_normal((a.shape[1], 2))
        got = run(lambda i, v, dd: P.SparseTensorDenseMatmul(ast, adt)(i, v, (3, 4), dd), idx,
                  vals, d)
        np.testing.assert_allclose(got, a @ (d.T if adt else d), rtol=1e-12)
    g = ms.grad(lambda v: P.SparseTensorDenseMatmul()(ms.Tensor(idx), v, (3, 4),
                                                       ms.Tensor(dense)).sum())(ms.Tensor(vals))
    np.testing.assert_allclose(g.asnumpy(), dense.sum(1)[idx[:, 1]], rtol=1e-12)
    with pytest.raises(ValueError, match="SparseTensorDenseMatmul.*inner dimensions"):
        P.SparseTensorDenseMatmul()(ms.Tensor(idx), ms.Tensor(vals), (3, 4),
                                    ms.Tensor(np.ones((3, 2))))
    with pytest.raises(ValueError, match="SparseToDense"):
        P.SparseToDense()(ms.Tensor(idx), ms.Tensor(vals[:2]), (3, 4))


def test_nn_sparse_cells(mode):
    from ms_cell import run
    idx = np.array([[0, 0], [1, 1], [2, 2], [2, 3]], np.int64)
    vals = np.array([2, 3, 4, 5], np.float32)
    dense = np.arange(12, dtype=np.float32).reshape(4, 3)
    dup = ms.COOTensor(ms.Tensor(np.array([[1, 2], [1, 2]], np.int64)),
                       ms.Tensor(np.array([1.5, 2.0], np.float32)), (2, 3))
    np.testing.assert_array_equal(ms.nn.SparseToDense()(dup).asnumpy(),
                                  [[0, 0, 0], [0, 0, 3.5]])
    sparse = np.zeros((3, 4), np.float32)
    sparse[idx[:, 0], idx[:, 1]] = vals
    cell = ms.nn.SparseTensorDenseMatmul()
    np.testing.assert_allclose(run(lambda a, b, c: cell(a, b, (3, 4), c), idx, vals, dense),
                               sparse @ dense)
    coo = ms.COOTensor(ms.Tensor(idx), ms.Tensor(vals), (3, 4))
    np.testing.assert_array_equal(ms.nn.SparseToDense()(coo).asnumpy(), sparse)
