"""Assigning to attributes in construct (`self.p = v`, `self.p += v`, `self.a.b = v`),
MindSpore's graph-mode statement. A Parameter takes the value in place (an Assign, ordered with
the graph's reads of it), in both modes, and stays the registered, trainable Parameter. Any
other attribute takes the value as in Python (MindSpore 2.x, JIT syntax level LAX): later reads
in the function see it, the object holds it after the call, and the next call starts from it;
both modes give the same answers. An attribute reached through an index is refused in graph
mode with the statement's file and line."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn, ops

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


class Accumulates(nn.Cell):
    """A plain int attribute counted up by each call (read before and after the write)."""

    def __init__(self):
        super().__init__()
        self.calls = 1

    def construct(self, x):
        before = self.calls
        self.calls = self.calls + 1
        return x * before + self.calls


def test_plain_attribute_is_written_and_read_back(mode):
    net = Accumulates()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    for k in range(1, 4):   # each call starts from the value the last one left
        np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * k + (k + 1))
        assert net.calls == k + 1


class Repeated(nn.Cell):
    def __init__(self):
        super().__init__()
        self.data = 1

    def construct(self):
        self.data = 2
        a = self.data
        self.data = 3
        return a, self.data


def test_each_read_sees_the_last_assignment(mode):
    net = Repeated()
    assert net() == (2, 3)
    assert net.data == 3


class TensorState(nn.Cell):
    """A Tensor attribute (not a Parameter) replaced by each call."""

    def __init__(self):
        super().__init__()
        self.state = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def construct(self, x):
        self.state = self.state + x
        return self.state * 2


def test_tensor_attribute_is_replaced(mode):
    net = TensorState()
    x = Tensor(np.array([1.0, 1.0, 1.0], np.float32))
    np.testing.assert_allclose(net(x).asnumpy(), [4.0, 6.0, 8.0])
    np.testing.assert_allclose(net(x).asnumpy(), [6.0, 8.0, 10.0])
    np.testing.assert_allclose(net.state.asnumpy(), [3.0, 4.0, 5.0])
    assert not isinstance(net.state, Parameter) and not list(net.get_parameters())


class Inner:
    def __init__(self):
        self.i = 3


class Outer:
    def __init__(self):
        self.inner = Inner()


class Nested(nn.Cell):
    def __init__(self):
        super().__init__()
        self.outer = Outer()

    def construct(self, x):
        self.outer.inner.i += 10
        y = x + self.outer.inner.i
        self.outer.inner = Inner()       # a new object: the longer chain reads it again
        return y, self.outer.inner.i


def test_nested_attribute_chain(mode):
    net = Nested()
    y, i = net(Tensor(np.array([1.0], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [14.0])
    assert i == 3 and net.outer.inner.i == 3


class Branches(nn.Cell):
    """Assigned on one branch of a run-time condition, and inside a loop."""

    def __init__(self):
        super().__init__()
        self.best = Tensor(np.array(0.0, np.float32))

    def construct(self, xs):
        for k in range(3):
            if xs[k] > self.best:
                self.best = xs[k]
        return self.best + 0


def test_assignment_under_run_time_condition_and_loop(mode):
    net = Branches()
    out = net(Tensor(np.array([2.0, 5.0, 4.0], np.float32)))
    assert float(out.asnumpy()) == 5.0
    assert float(net.best.asnumpy()) == 5.0
    out = net(Tensor(np.array([1.0, 7.0, 6.0], np.float32)))
    assert float(out.asnumpy()) == 7.0


class NewAttribute(nn.Cell):
    def construct(self, x):
        self.seen = x * 2
        return self.seen + 1


def test_attribute_created_in_construct(mode):
    net = NewAttribute()
    out = net(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [3.0, 5.0])
    np.testing.assert_allclose(net.seen.asnumpy(), [2.0, 4.0])


class Box:
    def __init__(self):
        self.x = 1


BOX = Box()


def test_global_object_attribute(mode):
    @ms.jit
    def set_box(t):
        BOX.x = 99
        return t + BOX.x

    BOX.x = 1
    np.testing.assert_allclose(set_box(Tensor(np.array([1.0], np.float32))).asnumpy(), [100.0])
    assert BOX.x == 99


class InnerNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.x = 0

    def construct(self, x):
        return x + self.x


class ThroughIndex(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cells = nn.CellList([InnerNet()])

    def construct(self, x):
        self.cells[0].x = x
        return x


def test_graph_mode_refuses_attributes_reached_by_index_with_the_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(RuntimeError, match="only attribute and name of class members") as e:
            ThroughIndex()(Tensor([1.0]))
        assert "test_graph_attr_assign.py" in str(e.value) and "self.cells[0].x = x" in str(e.value)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class ReadsValue(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        before = self.w.value() * 1
        self.w = self.w * 3
        return before + x, self.w.value() + x


def test_parameter_value_reads_the_current_value(mode):
    net = ReadsValue()
    a, b = net(Tensor(np.array([1.0, 1.0], np.float32)))
    np.testing.assert_allclose(a.asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(b.asnumpy(), [4.0, 7.0])
    np.testing.assert_allclose(net.w.asnumpy(), [3.0, 6.0])


class Holder:
    def __init__(self):
        self.xs = [Tensor(np.array([1.0], np.float32)), Tensor(np.array([2.0], np.float32))]


class ExtendsList(nn.Cell):
    """A list attribute extended in construct (its list methods as statements)."""

    def __init__(self):
        super().__init__()
        self.xs = Holder().xs

    def construct(self, y):
        self.xs.extend((y,))
        self.xs.append(y * 2)
        return ops.addn(self.xs)


def test_list_methods_on_attributes(mode):
    net = ExtendsList()
    y = Tensor(np.array([5.0], np.float32))
    np.testing.assert_allclose(net(y).asnumpy(), [18.0])   # 1 + 2 + 5 + 10
    assert len(net.xs) == 4
    np.testing.assert_allclose(net(y).asnumpy(), [33.0])   # the next call starts from 4 items
    assert len(net.xs) == 6


class Scaled(nn.Cell):
    """Its output scales by a plain attribute that each call counts up."""

    def __init__(self):
        super().__init__()
        self.k = 1

    def construct(self, x):
        self.k = self.k + 1
        return x * x * self.k


def test_gradient_function_sees_the_attribute_its_last_call_assigned(mode):
    net = Scaled()
    g = ms.grad(net)
    x = Tensor(np.array([1.5], np.float32))
    for k in (2, 3, 4):  # d/dx x^2 k = 2 x k, with k one more each call
        np.testing.assert_allclose(g(x).asnumpy(), [2 * 1.5 * k], rtol=1e-6)
        assert net.k == k
