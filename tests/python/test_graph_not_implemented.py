"""NotImplementedError keeps its type in GRAPH mode: raised by a graph (a certain raise is a
compile-time error) or by Python code the compiler runs (a constexpr helper); it is still a
RuntimeError for handlers of that. Before, both reached Python as ValueError/RuntimeError."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor
from mycel.ops.primitive import constexpr


@constexpr
def _not_yet(what):
    raise NotImplementedError(f"{what} is not implemented")


class Helper(nn.Cell):
    def construct(self, x):
        return _not_yet("helper") + x


class Raises(nn.Cell):
    def construct(self, x):
        if x.ndim == 1:
            raise NotImplementedError("rank 1 is not implemented")
        return x


@pytest.mark.parametrize("cell,text", [(Helper, "helper is not implemented"),
                                       (Raises, "rank 1 is not implemented")])
def test_not_implemented_error_keeps_its_type(mode, cell, text):
    x = Tensor(np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match=text):
        cell()(x)
    with pytest.raises(RuntimeError):
        cell()(x)


def test_other_errors_keep_theirs():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        class Bad(nn.Cell):
            def construct(self, x):
                raise ValueError("bad value")

        with pytest.raises(ValueError, match="bad value"):
            Bad()(Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
