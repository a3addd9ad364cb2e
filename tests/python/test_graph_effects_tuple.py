"""GRAPH mode keeps an update whose value only an unread tuple element holds: f()[0] of an f
returning (assign(a, x), assign(b, y)) still writes b, as in PYNATIVE mode (and MindSpore's
auto-monad). ApplyAdamWithAmsgrad(...)[0] used to leave its moments unchanged in GRAPH mode."""
import numpy as np

import mycel as ms
from mycel import nn, ops, Tensor
from mycel.ops.operations.composed_ops import ApplyAdamWithAmsgrad


def _two_updates(a, b, x):
    return ops.assign(a, x), ops.assign(b, x * 2)


class FirstOnly(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(Tensor(np.zeros(2, np.float32)), "a")
        self.b = ms.Parameter(Tensor(np.zeros(2, np.float32)), "b")

    def construct(self, x):
        return _two_updates(self.a, self.b, x)[0]


def test_an_update_in_an_unread_tuple_element_still_writes(mode):
    net = FirstOnly()
    out = net(Tensor(np.ones(2, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [1, 1])
    np.testing.assert_array_equal(net.a.asnumpy(), [1, 1])
    np.testing.assert_array_equal(net.b.asnumpy(), [2, 2])


class Amsgrad(nn.Cell):
    def __init__(self):
        super().__init__()
        z = np.zeros(3, np.float32)
        self.var = ms.Parameter(Tensor(np.ones(3, np.float32)), "var")
        self.m = ms.Parameter(Tensor(z), "m")
        self.v = ms.Parameter(Tensor(z), "v")
        self.vh = ms.Parameter(Tensor(z), "vh")
        self.op = ApplyAdamWithAmsgrad()

    def construct(self, g):
        return self.op(self.var, self.m, self.v, self.vh, Tensor(0.9, ms.float32),
                       Tensor(0.999, ms.float32), Tensor(0.1, ms.float32), g)[0]


def test_apply_adam_with_amsgrad_first_output_only_updates_its_state(mode):
    net = Amsgrad()
    g = np.array([1.0, 2.0, 3.0], np.float32)
    for _ in range(2):
        net(Tensor(g))
    m = 0.1 * g * 0.9 + 0.1 * g  # two steps of m = 0.9 m + 0.1 g
    v = 0.001 * g * g * 0.999 + 0.001 * g * g
    np.testing.assert_allclose(net.m.asnumpy(), m, rtol=1e-6)
    np.testing.assert_allclose(net.v.asnumpy(), v, rtol=1e-5)
    np.testing.assert_allclose(net.vh.asnumpy(), v, rtol=1e-5)
