"""A gradient taken inside a construct whose function has a run-time branch with an effect (a
call that raises, a print): GRAPH mode compiles it and gives PYNATIVE's answer. The branch's
condition depends on a dynamic dimension (Cell.set_inputs), so it is decided at run time; the
K transform used to reach the front end's graph of the branch through the switch's abstract
("K: ... has effects outside depend()", an internal error)."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Tensor


def _raise_func(msg):
    raise ValueError(msg)


def check_test(shp):
    if shp[0] > 3:
        _raise_func("too long")


class Net(nn.Cell):
    def construct(self, x):
        check_test(x.shape)
        return x * x


class PrintNet(nn.Cell):
    def construct(self, x):
        if x.shape[0] > 3:
            print("long input")
        return x * x


class GradNet(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation()

    def construct(self, x):
        return self.grad(self.net)(x)


@pytest.mark.parametrize("dynamic", [False, True])
def test_grad_through_a_branch_that_raises(mode, dynamic):
    g = GradNet(Net())
    if dynamic:
        g.set_inputs(Tensor(shape=[None], dtype=ms.float32))
    short = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(g(Tensor(short)).asnumpy(), 2 * short, rtol=1e-6)
    with pytest.raises(ValueError, match="too long"):
        g(Tensor(np.ones(4, np.float32)))


def test_grad_through_a_branch_that_prints(mode, capsys):
    g = GradNet(PrintNet())
    g.set_inputs(Tensor(shape=[None], dtype=ms.float32))
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_allclose(g(Tensor(x)).asnumpy(), 2 * x, rtol=1e-6)
    assert "long input" in capsys.readouterr().out
