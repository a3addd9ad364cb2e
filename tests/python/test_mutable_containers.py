"""mycel.mutable of tuples, lists and dicts (MindSpore's ``mutable``), mutable inside graph
code, and the structure of gradients of container inputs (a list's is a list, a dict's a
dict with the same keys, as MindSpore returns them at its default syntax level, LAX).
Oracle: torch.autograd on the same computation."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops

MODES = (ms.GRAPH_MODE, ms.PYNATIVE_MODE)

A = np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32)
B = np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def torch_grads(a, b):
    """d/da, d/db of sum(a @ b * 2)."""
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    (ta @ tb * 2).sum().backward()
    return ta.grad.numpy(), tb.grad.numpy()


def test_mutable_containers_keep_their_kind_and_origin():
    src = [1, (2, 3.5), {"k": 4}]
    m = ms.mutable(src)
    assert isinstance(m, list) and m == src and m.__ms_origin_object__ is src
    assert isinstance(m[1], tuple) and isinstance(m[2], dict)
    assert all(getattr(v, "__ms_mutable__", False) for v in (m[0], m[1][0], m[1][1], m[2]["k"]))
    t = ms.mutable((1, 2), dynamic_len=True)
    assert isinstance(t, tuple) and t == (1, 2)
    with pytest.raises(TypeError, match="For 'mutable', when dynamic_len is True"):
        ms.mutable({"a": 1}, dynamic_len=True)
    with pytest.raises(TypeError, match="For 'mutable', the input must be"):
        ms.mutable([1, "s"])


@pytest.mark.parametrize("mode", MODES)
def test_mutable_sequences_as_arguments(mode):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def construct(self, xs, d):
            return xs[0] * d["w"] + xs[1]

    x = Tensor(np.arange(3, dtype=np.float32))
    for k, w in [(1, 2.0), (5, -1.5)]:
        got = Net()(ms.mutable((x, k)), ms.mutable({"w": w}))
        np.testing.assert_allclose(got.asnumpy(), np.arange(3) * w + k, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_mutable_in_graph_code_makes_constant_tensors_differentiable(mode):
    ms.set_context(mode=mode)

    def f(ab):
        return ops.sum(ops.matmul(ab[0], ab[1]) * 2)

    class GradOfConstants(nn.Cell):
        def construct(self):
            ab = ms.mutable((Tensor(A), Tensor(B)))
            return ops.GradOperation()(f)(ab)

    ga, gb = GradOfConstants()()
    want_a, want_b = torch_grads(A, B)
    np.testing.assert_allclose(ga.asnumpy(), want_a, rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), want_b, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_lists_and_dicts_keep_their_structure(mode):
    ms.set_context(mode=mode)

    def f_list(ab):
        return ops.sum(ops.matmul(ab[0], ab[1]) * 2)

    def f_dict(d):
        return ops.sum(ops.matmul(d["a"], d["b"]) * 2)

    want_a, want_b = torch_grads(A, B)
    g = ms.grad(f_list)([Tensor(A), Tensor(B)])
    assert isinstance(g, list) and len(g) == 2
    np.testing.assert_allclose(g[0].asnumpy(), want_a, rtol=1e-5)
    np.testing.assert_allclose(g[1].asnumpy(), want_b, rtol=1e-5)
    g = ms.grad(f_dict)({"a": Tensor(A), "b": Tensor(B)})
    assert isinstance(g, dict) and list(g) == ["a", "b"]  # a dict's: a dict (MindSpore's LAX)
    np.testing.assert_allclose(g["a"].asnumpy(), want_a, rtol=1e-5)
    np.testing.assert_allclose(g["b"].asnumpy(), want_b, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_tensor_const_arg_gives_the_same_results(mode):
    ms.set_context(mode=mode)

    @ms.jit
    def mm(x, y):
        return ops.matmul(x, y)

    got = mm(Tensor(A, ms.float32, const_arg=True), Tensor(B, const_arg=True))
    np.testing.assert_allclose(got.asnumpy(), A @ B, rtol=1e-5)


class _MatmulNet(nn.Cell):
    def construct(self, z):
        return ops.matmul(z[0], z[1]).sum()


class _GradOfMutableAttr(nn.Cell):
    """A tuple of tensors made mutable and kept as a Cell attribute: graph code takes
    gradients of it as of mutable(...) made in construct (a constant would get zeros)."""

    def __init__(self, a, b, in_construct):
        super().__init__()
        self.grad_op = ops.GradOperation()
        self.net = _MatmulNet()
        self.a, self.b = a, b
        self.z = ms.mutable((Tensor(a), Tensor(b)))
        self.in_construct = in_construct

    def construct(self):
        if self.in_construct:
            return self.grad_op(self.net)(ms.mutable((Tensor(self.a), Tensor(self.b))))
        return self.grad_op(self.net)(self.z)


@pytest.mark.parametrize("in_construct", [False, True])
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_gradient_of_a_mutable_tuple_attribute(mode, in_construct):
    ms.set_context(mode=mode)
    try:
        rng = np.random.default_rng(3)
        a = rng.standard_normal((2, 3)).astype(np.float32)
        b = rng.standard_normal((3, 4)).astype(np.float32)
        ga, gb = _GradOfMutableAttr(a, b, in_construct)()
        # d/da sum(a @ b) = 1 @ b^T, d/db = a^T @ 1
        np.testing.assert_allclose(ga.asnumpy(), np.ones((2, 4)) @ b.T, rtol=1e-5)
        np.testing.assert_allclose(gb.asnumpy(), a.T @ np.ones((2, 4)), rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
