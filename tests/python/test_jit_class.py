"""mycel.jit_class (MindSpore's decorator for plain classes used in compiled code): instances
read and called inside a Cell's construct and a jit function, both modes, against numpy."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn


@ms.jit_class
class Affine:
    def __init__(self, scale, shift):
        self.scale = scale
        self.shift = Tensor(np.array(shift, np.float32))

    def apply(self, x):
        return x * self.scale + self.shift


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.affine = Affine(3.0, [1.0, -1.0])

    def construct(self, x):
        return self.affine.apply(x), self.affine.scale


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_jit_class_instances_in_construct_and_jit(mode):
    ms.set_context(mode=mode)
    x = np.array([0.5, 2.0], np.float32)
    out, scale = Net()(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), x * 3 + np.array([1, -1]))
    assert scale == 3.0

    @ms.jit
    def f(t):
        return Affine(2.0, [0.0, 1.0]).apply(t)
    np.testing.assert_allclose(f(Tensor(x)).asnumpy(), x * 2 + np.array([0, 1]))
    assert Affine.__ms_class__ is True


def test_jit_class_rejects_non_classes_and_cells():
    with pytest.raises(TypeError, match="class type"):
        ms.jit_class(lambda: 1)
    with pytest.raises(TypeError, match="nn.Cell"):
        ms.jit_class(nn.Dense)
