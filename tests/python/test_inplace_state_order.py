"""Reads of the state an op writes in place beyond its outputs (ApplyMomentum's
accumulation, SGD's accumulation, BatchNorm's running statistics: OpDef::writes) that come
before the op in the source see the value before it, in GRAPH mode as in PYNATIVE mode:
the compiler orders those readers before the write (order_updates)."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Parameter, Tensor


class MomentumStep(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), "w")
        self.acc = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), "acc")
        self.update = ops.ApplyMomentum()

    def construct(self, g):
        before = -self.acc  # read before the update
        self.update(self.w, self.acc, 0.1, g, 0.9)
        return before


class BatchNormStep(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(2, momentum=0.5)

    def construct(self, x):
        before = -self.bn.moving_mean
        y = self.bn(x)
        return before, y


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_momentum_accumulation_read_before_the_update(mode):
    ms.set_context(mode=mode)
    step = MomentumStep()
    g = Tensor(np.array([1.0, 1.0, -1.0], np.float32))
    acc = np.array([0.5, -1.0, 2.0], np.float32)
    for _ in range(3):
        got = step(g).asnumpy()
        np.testing.assert_allclose(got, -acc, rtol=1e-6)
        acc = 0.9 * acc + g.asnumpy()
    np.testing.assert_allclose(step.acc.asnumpy(), acc, rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_batchnorm_running_mean_read_before_the_layer(mode):
    ms.set_context(mode=mode)
    step = BatchNormStep()
    step.set_train()
    x = np.random.default_rng(0).standard_normal((4, 2, 3, 3)).astype(np.float32)
    mean = np.zeros(2, np.float32)
    for _ in range(3):
        before, _ = step(Tensor(x))
        np.testing.assert_allclose(before.asnumpy(), -mean, rtol=1e-5, atol=1e-6)
        mean = 0.5 * mean + 0.5 * x.mean(axis=(0, 2, 3))


class TwoEqualValuesOneWritten(nn.Cell):
    """z and z1 compute the same value; only z is written in place: common subexpression
    elimination must keep them apart (src/compiler/passes/cse.cc)."""

    def construct(self, x, y):
        z = x - y
        z1 = x - y
        ops.AssignAdd()(z, y)
        return z + y, z1


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_an_equal_value_is_not_written_with_the_one_written(mode):
    ms.set_context(mode=mode)
    try:
        x = np.array([2, 7], np.int32)
        y = np.array([3, -1], np.int32)
        w, z1 = TwoEqualValuesOneWritten()(Tensor(x), Tensor(y))
        np.testing.assert_array_equal(w.asnumpy(), x - y + y + y)
        np.testing.assert_array_equal(z1.asnumpy(), x - y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
