"""Cell's attribute rules and call checks, as MindSpore's nn.Cell: a Parameter or sub-cell
attribute set to None keeps its kind; two Parameters of one network may not share a name
(checked when GRAPH mode compiles, and by check_names()); a subclass whose __init__ skips
super().__init__() and a construct without 'self' get errors that say so."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn


def _p(name="w"):
    return Parameter(Tensor(np.ones((2,), np.float32)), name=name)


def test_none_keeps_the_kind_of_a_parameter_or_cell_attribute():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = _p()
            self.sub = nn.ReLU()

    net = Net()
    net.w = None
    assert net.w is None and [n for n, _ in net.parameters_and_names()] == []
    with pytest.raises(KeyError, match="'w' is a Parameter"):
        net.w = nn.ReLU()
    with pytest.raises(TypeError, match="'w' held a Parameter"):
        net.w = Tensor(np.ones((2,), np.float32))
    net.w = _p("w2")  # a Parameter again is fine
    assert [n for n, _ in net.parameters_and_names()] == ["w"]
    net.sub = None
    with pytest.raises(TypeError, match="'sub' held a Cell"):
        net.sub = 3
    net.sub = nn.Tanh()
    assert list(net.name_cells()) == ["sub"]
    with pytest.raises(KeyError, match="'w' is a Parameter"):  # a live Parameter too
        net.w = nn.ReLU()
    del net.sub
    net.sub = 3  # deleted: the name is free
    assert net.sub == 3


class _TwoSameNames(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = _p("weight")
        self.b = _p("weight")

    def construct(self, x):
        return x * self.a + self.b


def test_duplicate_parameter_names_are_a_value_error(mode):
    net = _TwoSameNames()
    with pytest.raises(ValueError, match="'a' and 'b' share the name 'weight'"):
        net.check_names()
    x = Tensor(np.ones((2,), np.float32))
    if mode == ms.GRAPH_MODE:
        with pytest.raises(ValueError, match="share the name 'weight'"):
            net(x)
    else:  # PYNATIVE runs it (nothing is keyed by name there), as MindSpore's
        np.testing.assert_allclose(net(x).asnumpy(), [2.0, 2.0])
    net.b.name = "bias"
    net.check_names()
    np.testing.assert_allclose(net(x).asnumpy(), [2.0, 2.0])


def test_init_without_super_says_so(mode):
    class NoSuper(nn.Cell):
        def __init__(self):
            self.a = 1

        def construct(self):
            return self.a

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\)"):
        NoSuper()()


def test_construct_without_self_says_so(mode):
    class NoSelf(nn.Cell):
        def construct(x):
            return x

    with pytest.raises(TypeError, match="'self'"):
        NoSelf()(Tensor(1))

    class OtherName(nn.Cell):  # any name for the cell itself still works
        def construct(this, x):
            return x * 2

    assert int(OtherName()(Tensor(3)).asnumpy()) == 6


def test_get_scope_follows_recompute():
    pool = nn.MaxPool2d(kernel_size=2, stride=2)
    assert pool.get_scope() is None
    assert pool.recompute(mp_comm_recompute=True).get_scope() == "recompute_"
    assert pool.recompute(mode=False).get_scope() is None
