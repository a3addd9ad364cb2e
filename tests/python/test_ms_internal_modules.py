"""The MindSpore module paths programs import internal primitives from:
ops.auto_generate (gen_ops_prim, gen_ops_def), ops.operations._inner_ops, and
_extends.parse.compile_config. Oracle: numpy; in-place primitives in both modes."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn
from mycel.common import dtype as mstype
from mycel.ops.auto_generate import gen_ops_def, gen_ops_prim
from mycel.ops.operations._inner_ops import TopTypeof
from mycel.ops.operations import manually_defined as F

MODES = (ms.GRAPH_MODE, ms.PYNATIVE_MODE)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
def test_inplace_add_ext_writes_into_its_input(mode):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.add_ = gen_ops_prim.InplaceAddExt()

        def construct(self, x, y):
            self.add_(x, y, 2)
            return x + 1

    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([0.5, -1.0, 4.0], np.float32)
    np.testing.assert_allclose(Net()(Tensor(x), Tensor(y)).asnumpy(), x + 2 * y + 1)
    t = Tensor(x)
    out = gen_ops_def.inplace_add_ext_op(t, Tensor(y))
    assert out is t
    np.testing.assert_allclose(t.asnumpy(), x + y)


def test_inplace_copy_and_embedding():
    t = Tensor(np.zeros((2, 3), np.float32))
    gen_ops_prim.inplace_copy_op(t, Tensor(np.array([1, 2, 3], np.int32)))
    np.testing.assert_array_equal(t.asnumpy(), np.tile(np.float32([1, 2, 3]), (2, 1)))
    w = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    idx = np.array([[1, 0, 3], [2, 2, 0]], np.int64)
    got = gen_ops_prim.embedding_op(Tensor(idx), Tensor(w))
    np.testing.assert_array_equal(got.asnumpy(), w[idx])
    with pytest.raises(NotImplementedError, match="max_norm"):
        gen_ops_prim.embedding_op(Tensor(idx), Tensor(w), max_norm=1.0)


def test_top_typeof():
    t = TopTypeof()(Tensor(np.array([True])))
    assert isinstance(t, mstype.TensorType) and t.element_type() == mstype.bool_
    assert TopTypeof()(3) == mstype.int64 and TopTypeof()(1.5) == mstype.float32
    assert TopTypeof()(True) == mstype.bool_
    with pytest.raises(TypeError, match="TopTypeof"):
        TopTypeof()("s")


def test_compile_config_keeps_what_is_set():
    from mycel._extends.parse import compile_config
    assert compile_config.GRAD_FOR_SCALAR == ''
    compile_config.GRAD_FOR_SCALAR = 1
    try:
        assert compile_config.GRAD_FOR_SCALAR == 1
    finally:
        compile_config.GRAD_FOR_SCALAR = ''


@pytest.mark.parametrize("mode", MODES)
def test_shape_tensor_add_and_set_grad(mode):
    from mycel import ops
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.shape = ops.Shape()
            self.add = ops.TensorAdd()

        def construct(self, x):
            return self.shape(x), self.add(x, x)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    net = Net()
    assert net.set_grad() is net and net.requires_grad
    shape, y = net(Tensor(x))
    assert tuple(shape) == (2, 3)
    np.testing.assert_array_equal(y.asnumpy(), x + x)


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation_by_one_parameter_read_in_graph_code(mode):
    """GradOperation(get_by_list=True)(net, self.params[0]): one Parameter, its gradient
    returned bare (MindSpore's rule), also when graph code reads it from a list."""
    from mycel import ops, Parameter
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([6.0], np.float32)), name="w")

        def construct(self, x):
            return self.w * x * x

    class GradNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.params = net.trainable_params()
            self.grad_op = ops.GradOperation(get_by_list=True)

        def construct(self, x):
            return self.grad_op(self.net, self.params[0])(x)

    g = GradNet(Net())(Tensor(np.array([3.0], np.float32)))
    assert isinstance(g, Tensor)
    np.testing.assert_allclose(g.asnumpy(), [9.0])


@pytest.mark.parametrize("mode", MODES)
def test_addn_all_any_dtype(mode):
    from mycel import ops
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def construct(self, x, y):
            return ops.addn((x, y, x)), ops.all(x > 0), ops.any(y > 0, 0), ops.dtype(x)

    x = np.array([[1.0, 2.0], [3.0, -4.0]], np.float32)
    y = np.array([[-1.0, 0.5], [-3.0, -4.0]], np.float32)
    s, a, b, dt = Net()(Tensor(x), Tensor(y))
    np.testing.assert_array_equal(s.asnumpy(), x + y + x)
    assert not bool(a.asnumpy())
    np.testing.assert_array_equal(b.asnumpy(), (y > 0).any(0))
    assert dt == mstype.float32


class _ScalarNet(nn.Cell):
    def construct(self, x, a, b):
        return (F.rank(x), F.shape_(x), F.scalar_add(a, b), F.scalar_div(a, b),
                F.scalar_floordiv(a, b), F.scalar_mod(-a, b), F.scalar_pow(a, 2),
                F.scalar_lt(a, b), F.scalar_eq(a, a))


@pytest.mark.parametrize("mode", MODES)
def test_manually_defined_rank_shape_and_scalars(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.ones((2, 3, 4), np.float32))
    out = _ScalarNet()(x, 7, 2)
    assert tuple(out) == (3, (2, 3, 4), 9, 3.5, 3, 1, 49, False, True)


@pytest.mark.parametrize("mode", MODES)
def test_gen_ops_def_ones_and_zeros(mode):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def construct(self):
            return gen_ops_def.ones((2, 3), ms.float32), gen_ops_def.zeros((4,), ms.int32)

    a, b = Net()()
    np.testing.assert_array_equal(a.asnumpy(), np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(b.asnumpy(), np.zeros(4, np.int32))
