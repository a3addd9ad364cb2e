"""Cell.register_forward_pre_hook and register_forward_hook (MindSpore's names): the hooks see
the cell and its inputs (and output), may replace them, run in registration order, and stop
after remove(); in GRAPH mode they run around the outermost Cell, and a Cell with hooks
inside graph code is a TypeError rather than silently unhooked."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(x) * 2.0


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_hooks_see_and_replace_inputs_and_outputs(mode):
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        net = Net()
        x = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
        seen = []
        h1 = net.register_forward_pre_hook(lambda cell, inputs: seen.append(("pre", cell))
                                           or (inputs[0] * 2.0,))
        h2 = net.register_forward_hook(lambda cell, inputs, out: seen.append(("post", out))
                                       or out + 1.0)
        got = net(x).asnumpy()
        np.testing.assert_allclose(got, [[25.0, 25.0]])  # (2x summed over 3 inputs) * 2 + 1
        assert seen[0] == ("pre", net) and seen[1][0] == "post"
        np.testing.assert_allclose(seen[1][1].asnumpy(), [[24.0, 24.0]])
        h1.remove()
        np.testing.assert_allclose(net(x).asnumpy(), [[13.0, 13.0]])
        h2.remove()
        h2.remove()  # a second remove does nothing
        np.testing.assert_allclose(net(x).asnumpy(), [[12.0, 12.0]])
        assert "_forward_hooks" not in net.__dict__  # back on the plain call path
    finally:
        ms.set_context(mode=old)


def test_hooks_run_in_order_and_may_return_none():
    net = Net()
    order = []
    net.register_forward_pre_hook(lambda c, i: order.append(1))
    net.register_forward_pre_hook(lambda c, i: order.append(2))
    net(ms.Tensor(np.ones((1, 3), np.float32)))
    assert order == [1, 2]


def test_a_hooked_cell_inside_graph_code_is_a_type_error():
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        net.fc.register_forward_hook(lambda c, i, o: o)
        with pytest.raises(TypeError, match="'Dense' has forward hooks"):
            net(ms.Tensor(np.ones((1, 3), np.float32)))
    finally:
        ms.set_context(mode=old)


def test_hook_must_be_callable():
    with pytest.raises(TypeError, match="'hook_fn' must be callable"):
        Net().register_forward_hook(3)


class KwNet(nn.Cell):
    def construct(self, x, bias=None):
        y = x * 3.0
        return y if bias is None else y + bias


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_hooks_with_kwargs_see_and_replace_keyword_inputs(mode):
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        net = KwNet()
        x, b = ms.Tensor(np.float32(2.0)), ms.Tensor(np.float32(3.0))

        def pre(cell, args, kwargs):
            return args, {"bias": kwargs["bias"] * 2.0}

        h1 = net.register_forward_pre_hook(pre, with_kwargs=True)
        h2 = net.register_forward_pre_hook(lambda cell, args: args[0] + 1.0)
        assert float(net(x, bias=b)) == 15.0  # (2 + 1) * 3 + 3 * 2
        h1.remove()
        assert float(net(x, bias=b)) == 12.0
        h2.remove()
        h3 = net.register_forward_hook(lambda cell, args, kwargs, out: out + kwargs["bias"],
                                       with_kwargs=True)
        assert float(net(x, bias=b)) == 12.0  # 2 * 3 + 3, then + 3
        h3.remove()
        net.register_forward_pre_hook(lambda cell, args, kwargs: args, with_kwargs=True)
        with pytest.raises(RuntimeError, match="must return None or a tuple of"):
            net(x, bias=b)
        with pytest.raises(TypeError, match="with_kwargs"):
            net.register_forward_hook(lambda *a: None, with_kwargs=1)
    finally:
        ms.set_context(mode=old)
