"""Branches of a condition whose values cannot join: a TypeError with MindSpore's words
("Cannot join the return values of different branches"), the condition's line and each
branch's return line, in jit and GRAPH mode."""
import pytest

import mycel as ms
from mycel import Tensor, nn


def test_join_error_names_both_returns():
    @ms.jit
    def foo(x, y):
        if x < y:
            return Tensor([1, 2, 3])
        return 0

    with pytest.raises(TypeError) as e:
        foo(Tensor(2, ms.float32), Tensor(6, ms.float32))
    msg = str(e.value)
    assert msg.startswith("Cannot join the return values of different branches")
    assert "i64[3] and i64=0" in msg
    for line in ("if x < y:", "return Tensor([1, 2, 3])", "return 0"):
        assert line in msg, msg


def test_join_error_in_a_cell_in_graph_mode():
    class Net(nn.Cell):
        def construct(self, x):
            if x > 1:
                out = (x, x)
            else:
                out = x
            return out

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="Cannot join the return values of different "
                                            "branches"):
            Net()(Tensor(2.0, ms.float32))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_join_error_names_the_assignments_that_differ():
    """A variable assigned values of different types on the two branches (a join of the code
    after the `if`): both assignments are quoted, the one that agrees is not."""
    @ms.jit
    def foo(x, y):
        if x < y:
            a = Tensor([1, 2, 3])
            b = 1
        else:
            a = 0
            b = 2
        return a, b

    with pytest.raises(TypeError) as e:
        foo(Tensor(2, ms.float32), Tensor(6, ms.float32))
    msg = str(e.value)
    assert msg.startswith("Cannot join the return values of different branches")
    for line in ("if x < y:", "a = Tensor([1, 2, 3])", "a = 0"):
        assert line in msg, msg
    assert "b = 1" not in msg and "b = 2" not in msg, msg
