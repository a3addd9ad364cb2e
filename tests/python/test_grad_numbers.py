"""Gradients with respect to Python numbers and the inputs MindSpore compiles as constants
(src/compiler/grad_spec.h), keyword inputs of a gradient function called in graph code, and
sensitivities of outputs without tensors. Each case runs in GRAPH mode (the gradient taken
inside a Cell's construct, as MindSpore programs do) and in PYNATIVE mode, against analytic
values, finite differences or torch."""
import os

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops, mutable
from mycel._extends.parse import compile_config
from mycel.ops.composite import GradOperation

MODES = (ms.GRAPH_MODE, ms.PYNATIVE_MODE)


@pytest.fixture(autouse=True)
def _restore():
    yield
    compile_config.GRAD_FOR_SCALAR = ''
    os.environ.pop("MS_DEV_JIT_SYNTAX_LEVEL", None)
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture
def scalar_grads():
    compile_config.GRAD_FOR_SCALAR = 1
    yield


class GradNet(nn.Cell):
    """GradOperation(get_all, sens_param) of `net`, taken in construct."""

    def __init__(self, net, get_all=False, sens_param=False):
        super().__init__()
        self.net = net
        self.grad_op = GradOperation(get_all=get_all, sens_param=sens_param)

    def construct(self, *args):
        return self.grad_op(self.net)(*args)


class Mul(nn.Cell):
    def construct(self, x, y):
        return x * y


def fd(f, x, eps=1e-3):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# ---------------------------------------------------------------- GRAD_FOR_SCALAR

def test_config_sets_the_environment():
    compile_config.GRAD_FOR_SCALAR = 1
    assert os.environ["MS_DEV_GRAD_FOR_SCALAR"] == "1"
    assert compile_config.GRAD_FOR_SCALAR == 1
    compile_config.GRAD_FOR_SCALAR = ''
    assert "MS_DEV_GRAD_FOR_SCALAR" not in os.environ


@pytest.mark.parametrize("mode", MODES)
def test_int_inputs(mode, scalar_grads):
    ms.set_context(mode=mode)
    out = GradNet(Mul())(mutable(2), 3)  # d(xy)/dx = y
    assert out == 3 and isinstance(out, int)
    out = GradNet(Mul(), get_all=True)(mutable(2), mutable(3))
    assert out == (3, 2) and all(isinstance(g, int) for g in out)


@pytest.mark.parametrize("mode", MODES)
def test_float_input_against_finite_differences(mode, scalar_grads):
    class Poly(nn.Cell):
        def construct(self, x, y):
            return x * x * y + 3.0 * x

    ms.set_context(mode=mode)
    x, y = 1.25, 0.5
    g = GradNet(Poly(), get_all=True)(mutable(x), mutable(y))
    assert isinstance(g[0], float) and isinstance(g[1], float)
    np.testing.assert_allclose(g[0], fd(lambda t: t * t * y + 3.0 * t, x), rtol=1e-3)
    np.testing.assert_allclose(g[1], fd(lambda t: x * x * t + 3.0 * x, y), rtol=1e-3)


class TupleProd(nn.Cell):
    def construct(self, x):
        return x[0] * x[1]


class DictProd(nn.Cell):
    def construct(self, x):
        return x['a'] * x['b']


@pytest.mark.parametrize("mode", MODES)
def test_containers_of_numbers(mode, scalar_grads):
    ms.set_context(mode=mode)
    assert GradNet(TupleProd())(mutable((2, 3))) == (3, 2)
    assert GradNet(TupleProd())(mutable([2, 3])) == [3, 2]
    assert GradNet(DictProd())(mutable({'a': 2, 'b': 3})) == {'a': 3, 'b': 2}


def test_strict_syntax_gives_tuples(scalar_grads):
    # MindSpore's syntax level STRICT: the gradient of a dict is the tuple of its values'
    os.environ["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"
    ms.set_context(mode=ms.GRAPH_MODE)
    assert GradNet(DictProd())(mutable({'a': 2, 'b': 3})) == (3, 2)


@pytest.mark.parametrize("mode", MODES)
def test_numbers_beside_tensors_against_torch(mode, scalar_grads):
    class Net(nn.Cell):
        def construct(self, z):
            return ops.matmul(z[0], z[3][1]) * z[1] + z[2][1]

    a = np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32)
    b = np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32)
    ms.set_context(mode=mode)
    g = GradNet(Net())(mutable((Tensor(a), 1.5, [2, 3, 4], (1, Tensor(b)))))

    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    ts = torch.tensor(1.5, requires_grad=True)
    tl = torch.tensor([2.0, 3.0, 4.0], requires_grad=True)
    (torch.matmul(ta, tb) * ts + tl[1]).sum().backward()
    np.testing.assert_allclose(g[0].asnumpy(), ta.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(g[1], ts.grad.item(), rtol=1e-5)
    assert list(g[2]) == [0, 6, 0] and g[2] == tl.grad.numpy().astype(int).tolist()
    assert g[3][0] == 0
    np.testing.assert_allclose(g[3][1].asnumpy(), tb.grad.numpy(), rtol=1e-5)


# ---------------------------------------------------------------- constant numbers

class Add(nn.Cell):
    def construct(self, x, y):
        return x + y


class NoInputs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([6.0], np.float32)), name="w")

    def construct(self):
        return self.w * 2


@pytest.mark.parametrize("mode", MODES)
def test_constant_numbers_have_no_gradient(mode):
    # MindSpore compiles a Python int into the graph: its gradient is left out
    ms.set_context(mode=mode)
    assert ms.grad(Add())(1, 2) == ()
    assert ms.grad(Add(), return_ids=True)(1, 2) == ()
    assert GradNet(Add())(1, 2) == ()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    g = GradNet(Add(), get_all=True)(x, 3)  # only the tensor's
    assert len(g) == 1
    np.testing.assert_allclose(g[0].asnumpy(), [1.0, 1.0])


class ReshapeScale(nn.Cell):
    def construct(self, x, shape, n, y):
        return (x.reshape(shape) * n * y).sum()


@pytest.mark.parametrize("mode", MODES)
def test_constant_tuples_of_ints_have_no_gradient(mode):
    # A shape tuple is a constant as an int is: get_all leaves it out (MindSpore's
    # SparseTensorDenseMatmul tests read the dense input's gradient at index 2 of
    # (indices, values, dense_shape, dense)); it used to come back as (0, 0).
    ms.set_context(mode=mode)
    x = Tensor(np.arange(4, dtype=np.float32))
    y = Tensor(np.full((2, 2), 2.0, np.float32))
    g = GradNet(ReshapeScale(), get_all=True)(x, (2, 2), 3, y)
    assert len(g) == 2
    np.testing.assert_allclose(g[0].asnumpy(), np.full(4, 6.0))
    np.testing.assert_allclose(g[1].asnumpy(), 3.0 * np.arange(4).reshape(2, 2))
    # a list of ints too, and an explicit grad_position at the tuple gives nothing
    assert len(GradNet(ReshapeScale(), get_all=True)(x, [2, 2], 3, y)) == 2
    assert ms.grad(ReshapeScale(), grad_position=1)(x, (2, 2), 3, y) == ()


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation_without_inputs(mode):
    ms.set_context(mode=mode)
    assert GradNet(NoInputs())() == ()
    # an explicit position out of range is still an error
    with pytest.raises(IndexError, match="grad_position 0 is out of range"):
        ms.grad(NoInputs(), grad_position=0)()


def test_int_without_the_switch_is_left_out_in_both_modes():
    outs = []
    for mode in MODES:
        ms.set_context(mode=mode)
        outs.append(GradNet(Mul(), get_all=True)(Tensor(np.array([2.0], np.float32)), 5))
    for g in outs:
        assert len(g) == 1
        np.testing.assert_allclose(g[0].asnumpy(), [5.0])


# ---------------------------------------------------------------- keyword inputs

class KwSum(nn.Cell):
    def construct(self, **kwargs):
        return kwargs["a"] * kwargs["b"]


class KwOnly(nn.Cell):
    def construct(self, *, a, b):
        return a * b


class KwGrad(nn.Cell):
    def __init__(self, net, get_all=True):
        super().__init__()
        self.net = net
        self.grad_op = GradOperation(get_all=get_all)

    def construct(self, *args, **kwargs):
        return self.grad_op(self.net)(*args, **kwargs)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("net", [KwSum, KwOnly])
def test_keyword_inputs_against_torch(mode, net):
    a = np.array([1.5, -2.0, 0.25], np.float32)
    b = np.array([0.5, 3.0, -1.0], np.float32)
    ms.set_context(mode=mode)
    g = KwGrad(net())(a=Tensor(a), b=Tensor(b))
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    (ta * tb).sum().backward()
    assert len(g) == 2
    np.testing.assert_allclose(g[0].asnumpy(), ta.grad.numpy())
    np.testing.assert_allclose(g[1].asnumpy(), tb.grad.numpy())
    first = KwGrad(net(), get_all=False)(a=Tensor(a), b=Tensor(b))
    np.testing.assert_allclose(first.asnumpy(), ta.grad.numpy())


# ---------------------------------------------------------------- outputs without tensors

class Shape(nn.Cell):
    def construct(self, x):
        return ops.shape(x)


@pytest.mark.parametrize("mode", MODES)
def test_sensitivity_of_a_shape_is_ignored(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.arange(8, dtype=np.int32))
    g = GradNet(Shape(), get_all=True, sens_param=True)(x, (8,))
    assert len(g) == 1
    assert g[0].dtype == ms.int32
    np.testing.assert_array_equal(g[0].asnumpy(), np.zeros(8, np.int32))


def test_non_tensor_outputs_take_no_gradient_pynative():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.array([6], np.int32)), name="w")

        def construct(self, x):
            return self.w * x, "a", None

    ms.set_context(mode=ms.PYNATIVE_MODE)
    g = GradNet(Net())(Tensor(np.array([10], np.int32)))
    np.testing.assert_array_equal(g.asnumpy(), [6])


# ---------------------------------------------------------------- mutable and const_arg

@pytest.mark.parametrize("mode", MODES)
def test_mutable_bool(mode):
    class Net(nn.Cell):
        def construct(self, x, y):
            return x, mutable(y), mutable(False)

    ms.set_context(mode=mode)
    assert mutable(True) is True
    assert Net()(mutable(True), False) == (True, False, False)
    assert Net()(mutable((True, 1)), True) == ((True, 1), True, False)


def test_set_const_arg():
    x = Tensor(np.ones(2, np.float32), const_arg=True)
    assert x.set_const_arg(False) is x
    with pytest.raises(TypeError, match="set_const_arg"):
        x.set_const_arg(1)


# ---------------------------------------------------------------- recompute options

def test_recompute_communication_options():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)

        def construct(self, x):
            return ops.sum(ops.tanh(self.dense(x)))

    x = Tensor(np.array([[0.5, -1.0, 2.0]], np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    want = GradNet(net)(x).asnumpy()
    assert net.dense.recompute(mp_comm_recompute=True,
                               parallel_optimizer_comm_recompute=False) is net.dense
    np.testing.assert_allclose(GradNet(net)(x).asnumpy(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="mp_comm_recompute"):
        net.dense.recompute(mp_comm_recompute=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        net.dense.recompute(foo=True)


# ---------------------------------------------------------------- dynamic shapes

def _raise_value_error(msg):
    raise ValueError(msg)


def _check_size(shp, x):
    if shp[0] > 3:
        _raise_value_error(f"too long: {x}.")


class CheckedIdentity(nn.Cell):
    def construct(self, x):
        _check_size(x.shape, x)
        return x * 2


@pytest.mark.parametrize("mode", MODES)
def test_grad_of_a_branch_that_raises_with_a_dynamic_shape(mode):
    # the branch's input gets a zero cotangent of a size known at run time only (it was
    # an internal error of the lift pass: the zero referred to the differentiated graph's
    # parameter, not to its forward copy's)
    ms.set_context(mode=mode)
    net = GradNet(CheckedIdentity())
    net.set_inputs(Tensor(shape=[None], dtype=ms.float32))
    g = net(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 2.0])
    with pytest.raises(ValueError, match=r"too long: \["):
        net(Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32)))


# ---------------------------------------------------------------- in-place updates and reads

@pytest.mark.parametrize("mode", MODES)
def test_update_in_a_branch_is_seen_by_a_later_primitive(mode):
    # AssignSub(y, x) reads x after the branch's AssignAdd on x: x reaches the primitive
    # through the tuple of its arguments, read after the effects so far (it was read before
    # the branch, a silent wrong answer)
    from mycel.ops import operations as P

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(Tensor(1, dtype=ms.int32), name="p")

        def construct(self, x, y):
            P.AssignAdd()(x, y)
            if x * 2 > y:
                P.AssignAdd()(x, y - self.p)
            P.AssignSub()(y, x)
            return y

    ms.set_context(mode=mode)
    for a, b in ((2, 3), (-5, 1)):
        x, y = Tensor(a, dtype=ms.int32), Tensor(b, dtype=ms.int32)
        xa, ya = a + b, b  # numpy's order of the same updates
        if xa * 2 > ya:
            xa += ya - 1
        ya -= xa
        out = Net()(x, y)
        assert int(out) == ya and int(y) == ya and int(x) == xa


# ---------------------------------------------------------------- messages

@ms.jit
def _endless(x):
    if x > 0:
        return _endless(x - 1)
    return _endless(x + 1)


def test_endless_recursion_is_named_a_loop():
    with pytest.raises(RuntimeError, match="never returns: every path recurses.*an endless loop"):
        _endless(Tensor([5], ms.int32))
