"""grad(..., return_ids=True) pairs each gradient with its input position or Parameter name,
and ops.get_grad picks one out: values against torch.autograd, both modes, called from Python
and inside graph code (where get_grad takes input positions: a Parameter read there is a
tensor, its name unknown to the compiler)."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Parameter, Tensor, nn
from mycel.ops import get_grad, grad


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, -1.0], np.float32)), name="w")
        self.z = Parameter(Tensor(np.array([3.0, 0.5], np.float32)), name="z")

    def construct(self, x, y):
        return (x * self.w * self.z + y * y).sum()


def _torch_grads(x, y):
    tx, ty = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    tw = torch.tensor([2.0, -1.0], requires_grad=True)
    tz = torch.tensor([3.0, 0.5], requires_grad=True)
    (tx * tw * tz + ty * ty).sum().backward()
    return tx.grad.numpy(), ty.grad.numpy(), tw.grad.numpy(), tz.grad.numpy()


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_return_ids_layouts_and_get_grad(mode):
    ms.set_context(mode=mode)
    x, y = np.array([1.0, 2.0], np.float32), np.array([0.5, -3.0], np.float32)
    gx, gy, gw, gz = _torch_grads(x, y)
    net = Net()
    X, Y = Tensor(x), Tensor(y)
    pos, g = grad(net, 0, return_ids=True)(X, Y)
    assert pos == 0
    np.testing.assert_allclose(g.asnumpy(), gx)
    res = grad(net, (0, 1), return_ids=True)(X, Y)
    assert [p for p, _ in res] == [0, 1]
    np.testing.assert_allclose(get_grad(res, 1).asnumpy(), gy)
    res = grad(net, 1, net.trainable_params(), return_ids=True)(X, Y)
    assert res[0][0] == 1 and [n for n, _ in res[1]] == [net.w.name, net.z.name]
    np.testing.assert_allclose(get_grad(res, 1).asnumpy(), gy)
    np.testing.assert_allclose(get_grad(res, net.w).asnumpy(), gw)
    np.testing.assert_allclose(get_grad(res, net.z).asnumpy(), gz)
    res = grad(net, None, net.trainable_params(), return_ids=True)(X, Y)
    np.testing.assert_allclose(get_grad(res, net.z).asnumpy(), gz)
    with pytest.raises(RuntimeError, match="no gradient for 0"):
        get_grad(res, 0)
    with pytest.raises(TypeError):
        get_grad(res, "w")


def test_return_ids_and_get_grad_inside_graph_code():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    x, y = np.array([1.0, 2.0], np.float32), np.array([0.5, -3.0], np.float32)
    gx, gy, gw, gz = _torch_grads(x, y)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x, y):
            res = grad(self.net, (0, 1), self.net.trainable_params(), return_ids=True)(x, y)
            return res, get_grad(res, 1)

    res, g1 = Outer()(Tensor(x), Tensor(y))
    (p0, g0), (p1, _) = res[0]
    assert (p0, p1) == (0, 1) and [n for n, _ in res[1]] == [net.w.name, net.z.name]
    np.testing.assert_allclose(g0.asnumpy(), gx)
    np.testing.assert_allclose(g1.asnumpy(), gy)
    np.testing.assert_allclose(res[1][0][1].asnumpy(), gw)
    np.testing.assert_allclose(res[1][1][1].asnumpy(), gz)

    class Single(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x, y):
            return grad(self.net, 0, return_ids=True)(x, y)

    pos, g = Single()(Tensor(x), Tensor(y))
    assert pos == 0
    np.testing.assert_allclose(g.asnumpy(), gx)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_value_and_grad_return_ids(mode):
    ms.set_context(mode=mode)
    x, y = np.array([1.0, 2.0], np.float32), np.array([0.5, -3.0], np.float32)
    gx, _, gw, gz = _torch_grads(x, y)
    net = Net()
    value, res = ms.ops.value_and_grad(net, 0, net.trainable_params(), False, True)(
        Tensor(x), Tensor(y))
    want = (x * np.array([2.0, -1.0]) * np.array([3.0, 0.5]) + y * y).sum()
    assert float(value.asnumpy()) == pytest.approx(want)
    assert res[0][0] == 0 and res[1][0][0] == net.w.name
    np.testing.assert_allclose(get_grad(res, 0).asnumpy(), gx)
    np.testing.assert_allclose(get_grad(res, net.w).asnumpy(), gw)
    np.testing.assert_allclose(get_grad(res, net.z).asnumpy(), gz)
