"""mycel._no_grad (MindSpore's mindspore._no_grad): what runs inside is not recorded by a
PYNATIVE grad, as under torch.no_grad; as a decorator too; a gradient taken inside is a
RuntimeError. Oracle: torch."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Parameter, Tensor, nn, ops


@pytest.fixture(autouse=True)
def _pynative():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=old)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([5.0], ms.float32), name="w")
        self.b = Parameter(Tensor([5.0], ms.float32), name="b")

    def construct(self, x):
        y = self.w * x + self.b
        with ms._no_grad():
            m = y * self.w
        return m * y


def torch_grads(x):
    w = torch.tensor([5.0], requires_grad=True)
    b = torch.tensor([5.0], requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    y = w * tx + b
    with torch.no_grad():
        m = y * w
    (m * y).sum().backward()
    return tx.grad.numpy(), w.grad.numpy(), b.grad.numpy()


def test_no_grad_block_matches_torch():
    x = np.array([2.0], np.float32)
    net = Net()
    gx, (gw, gb) = ms.grad(net, grad_position=0, weights=[net.w, net.b])(Tensor(x))
    tx, tw, tb = torch_grads(x)
    np.testing.assert_allclose(gx.asnumpy(), tx)  # 375: m = 75 is a constant
    np.testing.assert_allclose(gw.asnumpy(), tw)
    np.testing.assert_allclose(gb.asnumpy(), tb)


class Doubler(nn.Cell):
    @ms._no_grad()
    def construct(self, x):
        return x * x + x * x


def test_no_grad_decorator_and_nesting():
    inner = Doubler()

    def f(x):
        y = x * x
        with ms._no_grad():
            with ms._no_grad():
                c = y * 3
            d = c + y
        return y + inner(y) + d * 0 + c * 0 + y * 2

    g = ms.grad(f)(Tensor(np.array([2.0, -1.0], np.float32)))
    # only y + y * 2 = 3 x^2 is recorded: 6x
    np.testing.assert_allclose(g.asnumpy(), [12.0, -6.0])
    # the block ended: recording is back on
    np.testing.assert_allclose(ms.grad(lambda x: x * x)(Tensor(np.float32(3.0))).asnumpy(), 6.0)


def test_grad_inside_no_grad_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="In no_grad context, you can not calculate gradient"):
        with ms._no_grad():
            ms.grad(lambda x: x * x)(Tensor(np.float32(3.0)))
    # and the failed block left recording on
    np.testing.assert_allclose(ms.grad(lambda x: x * x)(Tensor(np.float32(3.0))).asnumpy(), 6.0)


def test_graph_mode_says_with_is_unsupported():
    # graph code has no `with`: a clear error naming the line, not a gradient that ignores it
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="'with' is not supported in graph mode"):
        ms.grad(Net())(Tensor(np.array([2.0], np.float32)))
