"""super() inside graph code: the zero-argument form (the method's __class__ cell and its first
argument, as Python's compiler makes it) and super(Class, self) resolve at compile time to
the parent's method, through several levels of inheritance, with gradients; both modes give
Python's own answer. Outside a method (no __class__ cell), or on values known only at run
time, it is a clear error."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return x * self.w

    def scale(self, x):
        return x * 2.0


class Middle(Base):
    def construct(self, x):
        return super().construct(x) + 1.0  # Base.construct


class Top(Middle):
    def construct(self, x):
        return ops.tanh(super().construct(x)) + super().scale(x)  # Middle's, then Base's


class Explicit(Middle):
    def construct(self, x):
        return super(Middle, self).construct(x) - 1.0  # skips Middle: Base.construct


def _numpy(cls, x):
    w = np.array([1.0, 2.0, 3.0], np.float32)
    if cls is Top:
        return np.tanh(x * w + 1.0) + 2.0 * x
    return x * w - 1.0


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("cls", [Top, Explicit])
def test_super_calls_the_parents_method(mode, cls):
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        x = np.array([0.5, -0.25, 0.125], np.float32)
        net = cls()
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), _numpy(cls, x), rtol=1e-6)
        # The gradient flows through the parent's method to its weight.
        _, (gw,) = ms.value_and_grad(lambda t: net(t).sum(), None, (net.w,))(ms.Tensor(x))
        if cls is Top:
            want = x * (1 - np.tanh(x * np.array([1, 2, 3], np.float32) + 1.0) ** 2)
        else:
            want = x
        np.testing.assert_allclose(gw.asnumpy(), want, rtol=1e-5)
    finally:
        ms.set_context(mode=old)


def test_super_outside_a_method_is_a_clear_error():
    def f(x):
        return super().construct(x)

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        # Python's RuntimeError, evaluated by the compiler, reported with the user's line.
        with pytest.raises((RuntimeError, ValueError),
                           match=r"super\(\): __class__ cell not found"):
            ms.jit(f)(ms.Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(mode=old)
