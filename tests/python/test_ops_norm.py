"""ops.norm / vector_norm / matrix_norm and Tensor.norm against torch.linalg, in both modes;
the norms of singular values are refused with a clear error (no SVD in mycel yet)."""
import math

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops, Tensor

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)
X[0, 1, 2] = 0.0


def _run(mode, fn):
    ms.set_context(mode=mode)
    try:
        return (ms.jit(fn)() if mode == ms.GRAPH_MODE else fn()).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


MODES = pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE],
                                ids=["graph", "pynative"])


@MODES
@pytest.mark.parametrize("ord_", [2, 1, 3, 0.5, 0, math.inf, -math.inf, -1])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), ((0, 2), True)])
def test_vector_norm(mode, ord_, axis, keepdims):
    got = _run(mode, lambda: ops.vector_norm(Tensor(X), ord_, axis, keepdims))
    want = torch.linalg.vector_norm(torch.tensor(X), ord_, axis, keepdims).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@MODES
@pytest.mark.parametrize("ord_", ["fro", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("axis, keepdims", [((-2, -1), False), ((0, 2), True), ((2, 0), False)])
def test_matrix_norm(mode, ord_, axis, keepdims):
    got = _run(mode, lambda: ops.matrix_norm(Tensor(X), ord_, axis, keepdims))
    want = torch.linalg.matrix_norm(torch.tensor(X), ord_, axis, keepdims).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@MODES
@pytest.mark.parametrize("ord_, dim", [(None, None), (1, None), (math.inf, None), (3, 0),
                                       (None, (0, 1)), (-1, (1, 0))])
def test_norm_and_tensor_norm(mode, ord_, dim):
    a = X[0]  # a matrix: ord without dim is a matrix norm
    got = _run(mode, lambda: ops.norm(Tensor(a), ord_, dim))
    want = torch.linalg.norm(torch.tensor(a), ord_, dim).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    got = _run(mode, lambda: Tensor(a).norm(ord_, dim, dtype=ms.float64))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_norm_gradient_matches_torch():
    x = Tensor(X)
    g = ms.grad(lambda t: ops.vector_norm(t, 3, 1).sum())(x).asnumpy()
    tx = torch.tensor(X, requires_grad=True)
    torch.linalg.vector_norm(tx, 3, 1).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norms_of_singular_values_are_refused(ord_):
    with pytest.raises(ValueError, match="singular value"):
        ops.matrix_norm(Tensor(X), ord_)
