"""CSRMM's and COOMM's CUDA kernels (kernels/cuda/linalg_kernels.cu) from Python: ops.csr_mm and
SparseTensorDenseMatmul (COOMM) on the GPU against numpy, their gradients against the CPU's, and
a bad index raised (as an IndexError naming the op) when the host next waits for the device.
(tests/cpp/cuda/test_cuda_vs_cpu.cc runs every CSRMM and COOMM kernel case against the CPU
reference.)"""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, CSRTensor, ops


def _csr(m, k, rng):
    dense = rng.standard_normal((m, k)) * (rng.random((m, k)) < 0.2)
    dense[1] = 0  # an empty row
    ptr = np.concatenate([[0], np.cumsum((dense != 0).sum(1))]).astype(np.int32)
    rows, cols = np.nonzero(dense)
    return ptr, cols.astype(np.int32), dense[rows, cols], dense


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_csr_mm_and_coo_matmul_match_numpy(dtype):
    rng = np.random.default_rng(5)
    ptr, cols, vals, dense = _csr(50, 40, rng)
    b = rng.standard_normal((40, 33)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    ms.set_context(device_target="GPU")
    a = CSRTensor(Tensor(ptr), Tensor(cols), Tensor(vals.astype(dtype)), (50, 40))
    np.testing.assert_allclose(ops.csr_mm(a, Tensor(b)).asnumpy(), dense @ b, rtol=tol, atol=tol)
    bt = rng.standard_normal((50, 7)).astype(dtype)
    np.testing.assert_allclose(ops.csr_mm(a, Tensor(bt), trans_a=True).asnumpy(), dense.T @ bt,
                               rtol=tol, atol=tol)
    rows = np.repeat(np.arange(50), np.diff(ptr))
    idx = Tensor(np.stack([rows, cols], 1).astype(np.int64)[::-1].copy())
    out = ops.SparseTensorDenseMatmul()(idx, Tensor(vals[::-1].astype(dtype).copy()), (50, 40),
                                        Tensor(b))
    np.testing.assert_allclose(out.asnumpy(), dense @ b, rtol=tol, atol=tol)


def test_gradients_match_the_cpu():
    rng = np.random.default_rng(6)
    ptr, cols, vals, _ = _csr(20, 15, rng)
    b = rng.standard_normal((15, 9))
    w = rng.standard_normal((20, 9))

    def grads():
        def loss(v, x):
            return (ops.csr_mm(CSRTensor(Tensor(ptr), Tensor(cols), v, (20, 15)), x) *
                    Tensor(w)).sum()
        return [g.asnumpy() for g in ms.grad(loss, (0, 1))(Tensor(vals), Tensor(b))]

    cpu = grads()
    ms.set_context(device_target="GPU")
    gpu = grads()
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(g, c, rtol=1e-12, atol=1e-12)


def test_bad_column_is_raised_when_the_host_reads():
    ms.set_context(device_target="GPU")
    a = CSRTensor(Tensor(np.array([0, 1, 2], np.int32)), Tensor(np.array([0, 5], np.int32)),
                  Tensor(np.ones(2, np.float32)), (2, 4))
    y = ops.csr_mm(a, Tensor(np.ones((4, 3), np.float32)))
    with pytest.raises(IndexError, match="'CSRMM'.*index 5"):
        y.asnumpy()


def test_coo_gradients_and_transposes_match_the_cpu():
    rng = np.random.default_rng(7)
    idx = np.stack([rng.integers(0, 20, 40), rng.integers(0, 15, 40)], 1).astype(np.int64)
    vals = rng.standard_normal(40)
    b = rng.standard_normal((20, 9))
    w = rng.standard_normal((15, 9))

    def run():
        net = ops.SparseTensorDenseMatmul(adjoint_st=True)

        def loss(v, x):
            return (net(Tensor(idx), v, (20, 15), x) * Tensor(w)).sum()
        out = net(Tensor(idx), Tensor(vals), (20, 15), Tensor(b)).asnumpy()
        return [out] + [g.asnumpy() for g in ms.grad(loss, (0, 1))(Tensor(vals), Tensor(b))]

    cpu = run()
    ms.set_context(device_target="GPU")
    gpu = run()
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(g, c, rtol=1e-12, atol=1e-12)


def test_bad_coo_row_is_raised_when_the_host_reads():
    ms.set_context(device_target="GPU")
    y = ops.SparseTensorDenseMatmul()(Tensor(np.array([[0, 1], [9, 0]], np.int64)),
                                      Tensor(np.ones(2, np.float32)), (2, 4),
                                      Tensor(np.ones((4, 3), np.float32)))
    with pytest.raises(IndexError, match="'COOMM'.*index 9"):
        y.asnumpy()
