"""ops.matrix_exp / MatrixExp (ops/function/linalg_func.py): exp of square matrices by
scaling and squaring, with the number of squarings a tensor and the squarings a loop on it,
so the same code runs in PYNATIVE and GRAPH mode. Values against scipy.linalg.expm and
torch.linalg.matrix_exp, gradients against torch, in both modes; the names MindSpore's ops
test table imports (ops.function.math_func.matrix_exp, ops.operations.math_ops.MatrixExp)."""
import numpy as np
import pytest
import scipy.linalg
import torch

import mycel as ms
from mycel import Tensor, context, nn, ops


class ExpNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.exp = ops.MatrixExp()

    def construct(self, x):
        return self.exp(x)


def _run(x, mode):
    saved = context._context["mode"]
    try:
        context.set_context(mode=context.GRAPH_MODE if mode == "graph" else
                            context.PYNATIVE_MODE)
        return ExpNet()(Tensor(x)).asnumpy()
    finally:
        context.set_context(mode=saved)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("scale", [0.0, 0.05, 1.0, 7.0, 60.0])
def test_matches_scipy_float64(mode, scale):
    a = np.random.RandomState(3).standard_normal((3, 5, 5)) * scale
    want = np.stack([scipy.linalg.expm(m) for m in a])
    np.testing.assert_allclose(_run(a, mode), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_matches_torch_float32_and_special_matrices(mode):
    a = np.random.RandomState(4).standard_normal((2, 3, 4, 4)).astype(np.float32)
    want = torch.linalg.matrix_exp(torch.from_numpy(a)).numpy()
    np.testing.assert_allclose(_run(a, mode), want, rtol=2e-5, atol=2e-6)
    # nilpotent: exp(N) = I + N + N^2/2; a rotation generator: [[cos, sin], [-sin, cos]]
    n = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(_run(n, mode), np.eye(3) + n + n @ n / 2, rtol=1e-14)
    t = 2.5
    r = np.array([[0.0, t], [-t, 0.0]])
    np.testing.assert_allclose(_run(r, mode), [[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]],
                               atol=1e-13)
    np.testing.assert_allclose(_run(np.array([[-3.0]]), mode), [[np.exp(-3.0)]], rtol=1e-14)


@pytest.mark.parametrize("mode", [context.PYNATIVE_MODE, context.GRAPH_MODE])
def test_gradient_matches_torch(mode):
    a = np.random.RandomState(5).standard_normal((2, 4, 4)) * 1.5
    w = np.random.RandomState(6).standard_normal((2, 4, 4))
    saved = context._context["mode"]
    try:
        context.set_context(mode=mode)
        f = ms.grad(lambda x: (ops.matrix_exp(x) * Tensor(w)).sum())
        if mode == context.GRAPH_MODE:
            f = ms.jit(f)
        got = f(Tensor(a)).asnumpy()
    finally:
        context.set_context(mode=saved)
    t = torch.tensor(a, requires_grad=True)
    (torch.linalg.matrix_exp(t) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_names_mindspore_programs_import():
    from mycel.ops.function.math_func import matrix_exp, nan_to_num, nanquantile, quantile
    from mycel.ops.operations.math_ops import MatrixExp
    assert matrix_exp is ops.matrix_exp and MatrixExp is ops.MatrixExp
    assert quantile is ops.quantile and nanquantile is ops.nanquantile
    assert nan_to_num is ops.nan_to_num


def test_bad_input():
    with pytest.raises(ValueError, match="matrix_exp.*\\[..., n, n\\]"):
        ops.matrix_exp(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="matrix_exp.*float"):
        ops.matrix_exp(Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(TypeError, match="matrix_exp"):
        ops.matrix_exp(np.ones((2, 2)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0)])
def test_empty(mode, shape):
    out = _run(np.zeros(shape), mode)
    assert out.shape == shape
