"""Argument rules MindSpore programs rely on: Parameter's options and checks, optimizers that
take only floats for some hyper-parameters, learning-rate schedules' is_stair, Dense with a
Primitive activation, and the name pattern of check_str_by_regular."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn, ops
from mycel import _checkparam as Validator
from mycel.nn import learning_rate_schedule as lr_schedules


def test_parameter_options_and_checks():
    p = Parameter(Tensor([1.0, 2.0]), name="w", layerwise_parallel=True, parallel_optimizer=False)
    assert p.layerwise_parallel and not p.parallel_optimizer
    with pytest.raises(ValueError, match="bool"):
        Parameter(True, name="b")
    for bad in (np.ones(2), Tensor([1.0]), True):
        with pytest.raises(ValueError, match="name must be a str"):
            Parameter(Tensor([1.0]), name=bad)
    with pytest.raises(TypeError, match="layerwise_parallel"):
        Parameter(Tensor([1.0]), layerwise_parallel=1)


def test_parameter_set_data_refuses_a_float_into_an_int_parameter():
    q = Parameter(1, "i")
    q.set_data(2)
    assert q.asnumpy() == 2
    with pytest.raises(TypeError, match="float"):
        q.set_data(1.2)
    f = Parameter(0.5, "f")
    f.set_data(1)
    assert f.asnumpy() == np.float32(1.0)


def test_parameter_from_tensor_shares_storage_and_copy_is_a_parameter():
    t = Tensor(np.array([1.0, 2.0], np.float32))
    p = Parameter._from_tensor(t, name="shared")
    assert p.name == "shared"
    t.asnumpy()[0] = 7.0  # a write through the tensor shows in the parameter
    assert p.asnumpy()[0] == 7.0
    c = p.copy()
    assert isinstance(c, Parameter) and c.name == "shared"
    c.asnumpy()[1] = -1.0  # and the copy owns its data
    assert p.asnumpy()[1] == 2.0


def test_optimizers_take_only_floats_where_mindspore_does():
    net = nn.Dense(2, 2)
    with pytest.raises(TypeError, match="lambd"):
        nn.ASGD(net.trainable_params(), lambd=1)
    with pytest.raises(TypeError, match="momentum"):
        nn.RMSProp(net.trainable_params(), momentum=1)
    nn.ASGD(net.trainable_params(), lambd=1e-4, learning_rate=1)  # an int lr is fine
    with pytest.raises(ValueError, match="argument parameters must not be empty"):
        nn.Adam(nn.Flatten().trainable_params())


def test_lr_schedule_is_stair_must_be_a_bool():
    with pytest.raises(TypeError, match="is_stair"):
        lr_schedules.ExponentialDecayLR(0.1, 0.9, 4, 1)
    sched = lr_schedules.ExponentialDecayLR(0.1, 0.9, 4, True)
    np.testing.assert_allclose(sched(Tensor(5, ms.int32)).asnumpy(), 0.1 * 0.9, rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_dense_with_a_primitive_activation(mode):
    ms.set_context(mode=mode)
    try:
        d = nn.Dense(3, 2, activation=ops.ReLU())
        x = Tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
        want = np.maximum(x.asnumpy() @ d.weight.asnumpy().T + d.bias.asnumpy(), 0)
        np.testing.assert_allclose(d(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_check_str_by_regular_default_pattern():
    for ok in ("12_sf.asdf_", "x12_sf.asdf.", "_x12_sf.asdf", "conv1/weight-2"):
        assert Validator.check_str_by_regular(ok)
    for bad in (".12_sf.asdf", "12_sf.a$sdf.", "12+sf.asdf", "-a"):
        with pytest.raises(ValueError):
            Validator.check_str_by_regular(bad)


class _Private(nn.Cell):
    def __init__(self):
        super().__init__()
        self.__scale = 3.0  # stored as _Private__scale

    def construct(self, x):
        return x * self.__scale


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_private_attributes_are_name_mangled_in_both_modes(mode):
    ms.set_context(mode=mode)
    try:
        out = _Private()(Tensor(np.array([1.0, 2.0], np.float32)))
        np.testing.assert_array_equal(out.asnumpy(), [3.0, 6.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_deepcopy_of_a_cell_with_primitives_is_independent(mode):
    import copy
    ms.set_context(mode=mode)
    try:
        net = nn.SequentialCell([nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Dense(2 * 6 * 6, 3,
                                                                                      activation=ops.ReLU())])
        twin = copy.deepcopy(net)
        x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 6, 6)).astype(np.float32))
        np.testing.assert_array_equal(twin(x).asnumpy(), net(x).asnumpy())
        p = twin.trainable_params()[0]
        p.set_data(Tensor(np.zeros(p.shape, np.float32)))
        assert np.abs(net.trainable_params()[0].asnumpy()).sum() > 0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_cell_without_construct_raises_attribute_error(mode):
    ms.set_context(mode=mode)
    try:
        class NoConstruct(nn.Cell):
            pass
        with pytest.raises(AttributeError, match="construct"):
            NoConstruct()(Tensor([1.0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_grad_operation_flags_must_be_bools():
    for kw in ("get_all", "get_by_list", "sens_param"):
        with pytest.raises(TypeError, match=f"'{kw}' should be bool"):
            ops.GradOperation(**{kw: 2})


class _GradOf(nn.Cell):
    def __init__(self, how):
        super().__init__()
        self.grad_op = ops.GradOperation()
        self.how = how

    def construct(self, x):
        if self.how == "none":
            return self.grad_op(None)(x)
        return self.grad_op()(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_grad_operation_needs_a_function(mode):
    ms.set_context(mode=mode)
    try:
        x = Tensor([1.0])
        with pytest.raises(TypeError, match="first argument must be a 'Function' or 'Cell'"):
            _GradOf("none")(x)
        with pytest.raises(TypeError, match="requires a forward network or function"):
            _GradOf("empty")(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _Mul(nn.Cell):
    def construct(self, x, y):
        return x * y


class _TooFew(_Mul):
    def bprop(self, dout):
        return dout, dout


class _Mismatched(_Mul):
    def bprop(self, x, out, dout):
        return dout, dout


class _Right(_Mul):
    def bprop(self, x, y, out, dout):
        return 2 * dout, 3 * dout


def test_cell_bprop_arity_is_checked_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x = Tensor(np.ones(2, np.float32))
        grad_all = ops.GradOperation(get_all=True)
        with pytest.raises(TypeError, match="at least 2 params 'out' and 'dout'"):
            grad_all(_TooFew())(x, x)
        with pytest.raises(TypeError, match="forward inputs as well as the 'out' and 'dout'"):
            grad_all(_Mismatched())(x, x)
        gx, gy = grad_all(_Right())(x, x)
        np.testing.assert_array_equal(gx.asnumpy(), [2, 2])
        np.testing.assert_array_equal(gy.asnumpy(), [3, 3])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
