"""A Cell whose construct is replaced on the instance by another of its methods
(``setattr(net, "construct", net.construct2)``, as MindSpore's test framework picks one of
several constructs) runs that method in GRAPH mode too, called from Python, called inside
another cell's graph code, and under grad; PYNATIVE mode gives the same values."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops


class Picker(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 3.0

    def construct(self, *inputs):
        raise NotImplementedError

    def construct_square(self, x):
        return x * x * self.scale

    def construct_sum(self, x, y):
        return x + y


class Outer(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def construct(self, x):
        return self.inner(x) + 1.0


class GradOf(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.grad = ops.GradOperation()

    def construct(self, x):
        return self.grad(self.inner)(x)


@pytest.mark.parametrize("graph", [False, True])
def test_instance_construct_runs_in_both_modes(graph):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    try:
        x = ms.Tensor(np.array([1.0, -2.0, 0.5], np.float32))
        net = Picker()
        setattr(net, "construct", net.construct_square)
        np.testing.assert_allclose(net(x).asnumpy(), 3 * x.asnumpy() ** 2)
        np.testing.assert_allclose(Outer(net)(x).asnumpy(), 3 * x.asnumpy() ** 2 + 1)
        np.testing.assert_allclose(GradOf(net)(x).asnumpy(), 6 * x.asnumpy())
        other = Picker()
        setattr(other, "construct", other.construct_sum)
        np.testing.assert_allclose(other(x, x).asnumpy(), 2 * x.asnumpy())
    finally:
        ms.set_context(mode=old)
