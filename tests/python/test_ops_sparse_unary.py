"""ops.coo_<f> / ops.csr_<f> (the function of the stored values, the pattern kept),
ops.csr_to_coo, ops.dense_to_sparse_coo and ops.dense_to_sparse_csr
(ops/function/sparse_unary_func.py) against numpy; errors."""
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
