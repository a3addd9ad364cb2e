"""Assigning to a Parameter attribute in construct (`self.p = v`, `self.p += v`), MindSpore's
graph-mode statement: the Parameter takes the value in place (an Assign, ordered with the
graph's reads of it), in both modes, and stays the registered, trainable Parameter; any other
attribute is refused in graph mode with the statement's file and line."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.ones(3, np.float32)), name="w")
        self.count = Parameter(Tensor(0, ms.int32), name="c", requires_grad=False)

    def construct(self, x):
        y = x * self.weight          # reads the value before the update
        self.weight += 1.0
        self.count = self.count + 1
        return y + self.weight       # and after it


def test_parameter_attribute_updates_in_place(mode):
    net = Counter()
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(net(x).asnumpy(), [5.0, 7.0, 9.0])
    np.testing.assert_array_equal(net.weight.asnumpy(), [3.0, 3.0, 3.0])
    assert int(net.count.asnumpy()) == 2
    assert isinstance(net.weight, Parameter) and net.weight.name == "w"
    assert [p.name for p in net.trainable_params()] == ["w"]


class SetFromInput(nn.Cell):
    def __init__(self):
        super().__init__()
        self.state = Parameter(Tensor(np.zeros(2, np.float32)), name="state")

    def construct(self, x):
        self.state = x           # a float64 input, cast to the Parameter's float32
        return self.state * 2


def test_assignment_casts_to_the_parameter_dtype(mode):
    net = SetFromInput()
    out = net(Tensor(np.array([1.5, -2.0], np.float64)))
    np.testing.assert_array_equal(out.asnumpy(), [3.0, -4.0])
    assert net.state.dtype == ms.float32
    np.testing.assert_array_equal(net.state.asnumpy(), [1.5, -2.0])


class SetsPlainAttribute(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def construct(self, x):
        self.scale = x
        return x


def test_graph_mode_refuses_other_attributes_with_the_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="only to Parameter attributes") as e:
            SetsPlainAttribute()(Tensor([1.0]))
        assert "test_graph_attr_assign.py" in str(e.value) and "self.scale = x" in str(e.value)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
