"""The sparse-tensor API (ops/function/sparse_func.py: composed of Sort, Gather,
UnsortedSegmentSum, ScatterNd, CumSum, NonZero, MaskedSelect) on the GPU, in both modes: the
results equal the CPU's (the same ops' CPU kernels), gradients included, and stay on the
device."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, COOTensor, ops


def _parts(seed):
    rng = np.random.RandomState(seed)
    dense = rng.randn(6, 5).astype(np.float32) * (rng.rand(6, 5) < 0.4)
    other = rng.randn(6, 5).astype(np.float32) * (rng.rand(6, 5) < 0.4)
    right = rng.randn(5, 3).astype(np.float32)
    idx = np.stack([rng.randint(0, 6, 7), rng.randint(0, 5, 7)], 1).astype(np.int64)
    vals = rng.randn(7).astype(np.float32)
    return dense, other, right, idx, vals


def _program(d, o, r, idx, vals):
    a, b = ops.dense_to_sparse_csr(d), ops.dense_to_sparse_csr(o)
    s = ops.csr_add(a, b, Tensor(np.float32(2)), Tensor(np.float32(-1)))
    coo = COOTensor(idx, vals, (6, 5))
    c = ops.coo_add(coo, ops.dense_to_sparse_coo(o), Tensor(np.float32(0)))
    loss = lambda v, m: (ops.SparseTensorDenseMatmul()(idx, v, (6, 5), m) ** 2).sum()  # noqa
    gv, gm = ms.grad(loss, (0, 1))(vals, r)
    return (s.indptr, s.indices, s.values, ops.csr_mm(a, r), c.indices, c.values,
            coo.coalesce().values, ops.csr_to_coo(s).indices, gv, gm)


def _run(device, mode, parts):
    ms.set_context(device_target=device, mode=mode)
    args = [Tensor(p) for p in parts]
    out = ms.jit(_program)(*args) if mode == ms.GRAPH_MODE else _program(*args)
    if device == "GPU":
        for t in out:
            assert t.device == "GPU:0"
    return [t.asnumpy() for t in out]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_sparse_api_on_gpu_matches_cpu(mode):
    parts = _parts(5)
    want = _run("CPU", ms.PYNATIVE_MODE, parts)
    got = _run("GPU", mode, parts)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
