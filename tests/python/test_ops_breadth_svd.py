"""svd / Svd, pinv and cond (ops/function/linalg_func.py: one-sided Jacobi) against
numpy, tall, wide, square and batched, in PYNATIVE and GRAPH mode; the singular values'
gradient against torch; argument errors typed."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(53)


def _check_svd_and_pinv(shape):
    a = RNG.standard_normal(shape)
    s, u, v = run(ops.svd, a)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(np.einsum("...ik,...k,...jk->...ij", u, s, v), a, atol=1e-12)
    k = min(shape[-2:])
    eye = np.broadcast_to(np.eye(k), shape[:-2] + (k, k))
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, eye, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye, atol=1e-12)
    np.testing.assert_allclose(run(ops.Svd(compute_uv=False), a), s, rtol=1e-13)
    np.testing.assert_allclose(run(ops.pinv, a), np.linalg.pinv(a), atol=1e-11)


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (1, 1)])
def test_svd_and_pinv_match_numpy_both_modes(mode, shape):
    _check_svd_and_pinv(shape)


@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 4)])
def test_svd_and_pinv_match_numpy_larger(shape):
    # PYNATIVE only: graph mode compiles the unrolled sweeps (thousands of nodes for 4 x 4,
    # tens of seconds on a loaded machine); the small shapes above cover that path
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _check_svd_and_pinv(shape)


def test_pinv_of_a_rank_deficient_matrix():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a = RNG.standard_normal((5, 2)) @ RNG.standard_normal((2, 4))  # rank 2
    np.testing.assert_allclose(run(ops.pinv, a), np.linalg.pinv(a), atol=1e-10)
    s = run(lambda t: ops.svd(t, compute_uv=False), a)
    assert s[2:].max() < 1e-12


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", np.inf, -np.inf, 1, -1])
def test_cond_matches_numpy(mode, p):
    a = RNG.standard_normal((2, 3, 3))
    np.testing.assert_allclose(run(lambda t: ops.cond(t, p), a), np.linalg.cond(a, p),
                               rtol=1e-10)


def test_singular_value_gradient_matches_torch():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a = RNG.standard_normal((5, 3))
    w = RNG.standard_normal(3)
    ta = torch.tensor(a, requires_grad=True)
    (torch.linalg.svdvals(ta) * torch.tensor(w)).sum().backward()
    g = ms.grad(lambda t: (ops.svd(t, compute_uv=False) * ms.Tensor(w)).sum())(ms.Tensor(a))
    np.testing.assert_allclose(g.asnumpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="svd"):
        ops.svd(ms.Tensor(np.ones((3, 2))), full_matrices=True)
    with pytest.raises(TypeError, match="svd"):
        ops.svd(ms.Tensor(np.ones((3, 2), np.int32)))
    with pytest.raises(ValueError, match="cond"):
        ops.cond(ms.Tensor(np.eye(2)), 3)
