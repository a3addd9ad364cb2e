"""ops.matrix_solve (ops/function/linalg_func.py: Gaussian elimination with partial pivoting
composed from table ops) against numpy and torch, values and gradients, in PYNATIVE and GRAPH
mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops

RNG = np.random.default_rng(13)


class Solve(nn.Cell):
    def __init__(self, adjoint):
        super().__init__()
        self.adjoint = adjoint

    def construct(self, a, b):
        return ops.matrix_solve(a, b, self.adjoint)


@pytest.mark.parametrize("a_shape, k", [((6, 6), 3), ((2, 3, 4, 4), 2), ((1, 1), 1)])
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve_matches_numpy(mode, a_shape, k, adjoint):
    a = RNG.standard_normal(a_shape) + 3 * np.eye(a_shape[-1])
    b = RNG.standard_normal(a_shape[:-1] + (k,))
    got = Solve(adjoint)(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    want = np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_matrix_solve_pivots_a_zero_leading_entry(mode):
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    b = np.array([[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(Solve(False)(ms.Tensor(a), ms.Tensor(b)).asnumpy(),
                               np.linalg.solve(a, b), rtol=1e-12)


def test_matrix_solve_float32_and_gradients(mode):
    a = RNG.standard_normal((5, 5)) + 4 * np.eye(5)
    b = RNG.standard_normal((5, 2))
    got32 = Solve(False)(ms.Tensor(a.astype(np.float32)), ms.Tensor(b.astype(np.float32)))
    assert got32.dtype == ms.float32
    np.testing.assert_allclose(got32.asnumpy(), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
    ga, gb = ms.grad(lambda x, y: ops.sum(ops.matrix_solve(x, y) ** 2), grad_position=(0, 1))(
        ms.Tensor(a), ms.Tensor(b))
    at, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (torch.linalg.solve(at, bt) ** 2).sum().backward()
    np.testing.assert_allclose(ga.asnumpy(), at.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gb.asnumpy(), bt.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype, tol", [(np.complex64, 1e-4), (np.complex128, 1e-11)])
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve_complex_matches_numpy(mode, dtype, tol, adjoint):
    shape = (2, 5, 5)
    a = (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)
    b = (RNG.standard_normal((2, 5, 3)) + 1j * RNG.standard_normal((2, 5, 3))).astype(dtype)
    got = Solve(adjoint)(ms.Tensor(a), ms.Tensor(b))
    assert got.dtype == ms.Tensor(a).dtype
    # adjoint: the conjugate transpose, as MindSpore's
    want = np.linalg.solve(np.conj(np.swapaxes(a, -1, -2)) if adjoint else a, b)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


def test_matrix_solve_dynamic_shape_is_a_clear_error():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Solve(False)
        net.set_inputs(ms.Tensor(shape=[3, None], dtype=ms.float64),
                       ms.Tensor(shape=[3, 1], dtype=ms.float64))
        with pytest.raises(TypeError, match="MatrixSolve.*known at compile time"):
            net(ms.Tensor(np.eye(3)), ms.Tensor(np.ones((3, 1))))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_matrix_solve_errors():
    a = ms.Tensor(np.eye(3))
    with pytest.raises(ValueError, match="MatrixSolve.*\\[..., M, M\\]"):
        ops.matrix_solve(ms.Tensor(np.ones((3, 4))), ms.Tensor(np.ones((3, 1))))
    with pytest.raises(ValueError, match="MatrixSolve.*rhs"):
        ops.matrix_solve(a, ms.Tensor(np.ones((4, 1))))
    with pytest.raises(TypeError, match="MatrixSolve.*float"):
        ops.matrix_solve(a, ms.Tensor(np.ones((3, 1), np.float32)))
    with pytest.raises(TypeError, match="MatrixSolve.*complex"):
        ops.matrix_solve(a, ms.Tensor(np.ones((3, 1), np.complex128)))
