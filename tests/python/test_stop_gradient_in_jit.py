"""stop_gradient inside a @jit function or a @jit construct, differentiated by a PYNATIVE
gradient: the compiled graph drops stop_gradient (an identity), so recording its ops gave
the gradient through it (8 where it is 0). Such a graph now runs eagerly under the recording,
like one with a custom bprop. Oracle: torch's detach; GRAPH mode gives the same."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Parameter, Tensor, jit, nn, ops
from mycel.ops import composite as C


@jit
def f(x, w):
    y = ops.stop_gradient(x * x)
    return (y * w + x * w).sum()


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p1 = Parameter(Tensor([2.0], ms.float32), name="p1")

    @jit
    def construct(self, x):
        y = ops.stop_gradient(x * x)
        return y * self.p1


def torch_f(x, w):
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    ((tx * tx).detach() * tw + tx * tw).sum().backward()
    return tx.grad.numpy(), tw.grad.numpy()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_stop_gradient_in_a_jit_function(mode):
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        x = np.array([2.0, -1.5], np.float32)
        w = np.array([3.0, 0.5], np.float32)
        gx, gw = ms.grad(f, grad_position=(0, 1))(Tensor(x), Tensor(w))
        tx, tw = torch_f(x, w)
        np.testing.assert_allclose(gx.asnumpy(), tx, rtol=1e-6)
        np.testing.assert_allclose(gw.asnumpy(), tw, rtol=1e-6)
        net = Net()
        (gx2,), (gp,) = C.GradOperation(get_all=True, get_by_list=True)(
            net, net.trainable_params())(Tensor(np.array([2.0], np.float32)))
        np.testing.assert_allclose(gx2.asnumpy(), [0.0])  # x reaches z only through y
        np.testing.assert_allclose(gp.asnumpy(), [4.0])   # y = x * x = 4
    finally:
        ms.set_context(mode=old)
