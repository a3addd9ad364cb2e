"""ms.ParameterTuple (MindSpore's): a tuple of distinct Parameters, accepted as grad's
weights and held by a Cell that reads it in construct, in both modes; clone; errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Parameter, ParameterTuple, Tensor


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), "w")
        self.b = Parameter(Tensor(np.array([0.5], np.float32)), "b")
        self.params = ParameterTuple((self.w, self.b))

    def construct(self, x):
        total = 0.0
        for p in self.params:  # a ParameterTuple read and iterated in construct
            total = total + (p * p).sum()
        return (x * self.params[0]).sum() + self.params[1].sum() + total


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_parameter_tuple_as_grad_weights_and_in_construct(mode):
    ms.set_context(mode=mode)
    net = Net()
    x = Tensor(np.array([2.0, -1.0, 0.5], np.float32))
    weights = ParameterTuple(net.trainable_params())
    assert isinstance(weights, tuple) and [p.name for p in weights] == ["w", "b"]
    out = net(x)
    np.testing.assert_allclose(out.asnumpy(), (2 - 2 + 1.5) + 0.5 + (1 + 4 + 9) + 0.25,
                               rtol=1e-6)
    gw, gb = ms.grad(net, None, weights)(x)
    np.testing.assert_allclose(gw.asnumpy(), [2 + 2, -1 + 4, 0.5 + 6], rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), [1 + 1.0], rtol=1e-6)


def test_clone_and_errors():
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), "w")
    b = Parameter(Tensor(np.array([3.0], np.float64)), "b")
    t = ParameterTuple([w, b])
    same, zeros = t.clone("m"), t.clone("v", init="zeros")
    assert isinstance(same, ParameterTuple)
    assert [p.name for p in same] == ["m.w", "m.b"] and [p.name for p in zeros] == ["v.w", "v.b"]
    np.testing.assert_array_equal(same[0].asnumpy(), [1.0, 2.0])
    same[0].set_data(Tensor(np.array([5.0, 5.0], np.float32)))
    np.testing.assert_array_equal(w.asnumpy(), [1.0, 2.0])  # a copy
    assert zeros[1].dtype == ms.float64 and zeros[1].asnumpy().tolist() == [0.0]
    with pytest.raises(TypeError, match="each element must be a Parameter"):
        ParameterTuple([w, Tensor(np.ones(2, np.float32))])
    assert len(ParameterTuple([w, w])) == 2  # one Parameter twice: allowed (MindSpore)
    twin = Parameter(Tensor(np.zeros(1, np.float32)), "w")
    with pytest.raises(ValueError, match="the name 'w' appears twice"):
        ParameterTuple([w, twin])
    with pytest.raises(ValueError, match="'init' must be 'same', 'zeros' or 'ones'"):
        t.clone("p", init="normal")


def test_parameter_value_is_its_current_value():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    v = p.value()
    assert isinstance(v, ms.Tensor)
    p.set_data(ms.Tensor(np.full(2, 3.0, np.float32)))
    np.testing.assert_array_equal(p.value().asnumpy(), [3.0, 3.0])
