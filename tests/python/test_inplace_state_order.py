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


# A tensor computed in the program (not a Parameter, not an argument) and written in place
# by an update: reads after the write see it in GRAPH mode as in PYNATIVE mode, also when
# the write is in an `if` branch or in a function the tensor is passed to, and reads before
# the write keep the old value.
ONE = np.ones(3, np.float32)


def _add_one(t):
    ops.assign_add(t, Tensor(ONE))
    return 0


class WrittenLocals(nn.Cell):
    def __init__(self, where):
        super().__init__()
        self.where = where

    def construct(self, x, c):
        y = x * 1
        before = y * 3
        if self.where == "straight":
            ops.assign_add(y, Tensor(ONE))
        elif self.where == "if":
            if c > 0:
                ops.assign_add(y, Tensor(ONE))
        elif self.where == "if_else":
            if c > 0:
                ops.assign_add(y, Tensor(ONE))
            else:
                ops.assign_sub(y, Tensor(ONE))
        elif self.where == "function":
            _add_one(y)
        else:  # a loop with a run-time condition inside
            for i in range(3):
                if c > i:
                    ops.assign_add(y, Tensor(ONE))
        return y * 2, before


@pytest.mark.parametrize("where, c, added", [
    ("straight", 1, 1), ("if", 1, 1), ("if", 0, 0), ("if_else", 1, 1), ("if_else", 0, -1),
    ("function", 1, 1), ("loop", 2, 2), ("loop", 0, 0)])
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_a_computed_tensor_written_in_place_is_read_after_the_write(mode, where, c, added):
    ms.set_context(mode=mode)
    try:
        x = np.array([0.5, -2.0, 3.0], np.float32)
        after, before = WrittenLocals(where)(Tensor(x), Tensor(c))
        np.testing.assert_allclose(after.asnumpy(), (x + added) * 2, rtol=1e-6)
        np.testing.assert_allclose(before.asnumpy(), x * 3, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
