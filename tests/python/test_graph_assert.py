"""A failed assert in graph code raises an AssertionError (mycel.AssertionError, which is
also a RuntimeError), with its message, whether the compiler knows it fails or the check
runs at run time; PYNATIVE mode raises Python's own."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn


class Known(nn.Cell):
    def construct(self):
        x = 1
        assert x == 2, "x is not 2"
        return x


class AtRunTime(nn.Cell):
    def construct(self, x):
        assert x.sum() > 0, "the sum is not positive"
        return x * 2


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_assert_raises_assertion_error(mode):
    ms.set_context(mode=mode)
    try:
        with pytest.raises(AssertionError, match="x is not 2"):
            Known()()
        with pytest.raises(AssertionError, match="the sum is not positive"):
            AtRunTime()(Tensor(np.array([-1.0, 0.5], np.float32)))
        np.testing.assert_array_equal(
            AtRunTime()(Tensor(np.array([1.0, 0.5], np.float32))).asnumpy(), [2.0, 1.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_graph_assertion_error_is_a_runtime_error():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(RuntimeError):
            Known()()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
