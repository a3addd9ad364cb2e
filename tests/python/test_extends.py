"""mycel._extends (MindSpore's ``mindspore._extends``): ``cell_attr_register`` records a Cell's
__init__ arguments and leaves the Cell working as before (its own bprop included, both modes);
``_extends.parse.compile_config`` holds the compiler switches programs set (nothing to test
beyond the import: mycel's checks of a bprop's results are always on)."""
import numpy as np
import pytest

from mycel import nn, ops, Parameter, Tensor
from mycel._extends import cell_attr_register
from mycel._extends.parse import compile_config  # noqa: F401 (the import is the test)


class Scaled(nn.Cell):
    @cell_attr_register
    def __init__(self, scale, bias=0.5):
        super().__init__()
        self.z = Parameter(Tensor(np.float32(scale)), name="z")
        self.bias = bias

    def construct(self, x, y):
        return x * self.z * y + self.bias

    def bprop(self, x, y, out, dout):
        return y * 10, x * 100


class Named(nn.Cell):
    @cell_attr_register(attrs=["a"])
    def __init__(self, a, b):
        super().__init__()
        self.a, self.b = a, b

    def construct(self, x):
        return x * self.a + self.b


def test_cell_attr_register_records_the_arguments():
    assert Scaled(2.0).cell_init_args == "Scaled(scale=2.0, bias=0.5)"
    assert Scaled(3.0, bias=1).cell_init_args == "Scaled(scale=3.0, bias=1)"
    assert Named(2, 7).cell_init_args == "Named(a=2)"
    with pytest.raises(TypeError, match="attrs"):
        cell_attr_register(attrs="a")


def test_a_registered_cell_runs_with_its_own_bprop(mode):
    x, y = Tensor(np.float32(3)), Tensor(np.float32(4))
    net = Scaled(2.0)
    np.testing.assert_allclose(net(x, y).asnumpy(), 3 * 2 * 4 + 0.5)
    gx, gy = ops.grad(net, grad_position=(0, 1))(x, y)
    assert gx.asnumpy() == 40 and gy.asnumpy() == 300  # the bprop's, not the true gradients
    np.testing.assert_allclose(Named(2.0, 1.0)(Tensor(np.float32(5))).asnumpy(), 11.0)



def test_nn_keeps_the_metrics_importable():
    from mycel.nn import Accuracy, MAE
    import mycel.train as train
    assert Accuracy is train.Accuracy and MAE is train.MAE
    acc = Accuracy()
    acc.update(Tensor(np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)),
               Tensor(np.array([1, 1], np.int32)))
    assert acc.eval() == 0.5
    with pytest.raises(AttributeError, match="NoSuchLayer"):
        nn.NoSuchLayer  # noqa: B018
