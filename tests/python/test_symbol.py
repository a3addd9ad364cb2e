"""mycel.Symbol (MindSpore's mindspore.Symbol): a dynamic dimension of a set_inputs placeholder
with rules (range, divisor/remainder, unique) checked on each GRAPH-mode call."""
import numpy as np
import pytest

import mycel as ms
from mycel import Symbol, Tensor, nn, ops


class _Abs(nn.Cell):
    def construct(self, x):
        return ops.abs(x) * 2


@pytest.fixture
def graph_mode():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old)


def _x(*shape):
    return Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def test_argument_checks():
    with pytest.raises(TypeError, match="'max' must be an int"):
        Symbol(max=2.0)
    with pytest.raises(TypeError, match="'unique' must be a bool"):
        Symbol(unique=1)
    with pytest.raises(ValueError, match="'min' must be positive"):
        Symbol(min=0)
    with pytest.raises(ValueError, match="'divisor' must be positive"):
        Symbol(divisor=0)
    with pytest.raises(ValueError, match=r"'remainder' must be in \[0, divisor=8\)"):
        Symbol(divisor=8, remainder=8)
    with pytest.raises(TypeError, match="Symbols"):
        Tensor(shape=[None, "a"], dtype=ms.float32)


def test_placeholder_shape_shows_symbol_dims_as_dynamic():
    s = Symbol(max=32)
    t = Tensor(shape=(None, s, 3), dtype=ms.float32)
    assert t.shape == (-1, -1, 3)


def test_rules_hold_and_results_equal_pynative(graph_mode):
    s1 = Symbol(divisor=8, remainder=1)
    s2 = Symbol(max=32, unique=True)
    net = _Abs()
    net.set_inputs(Tensor(shape=(None, s1, s1, s2, s2), dtype=ms.float32))
    for shape in [(1, 9, 17, 32, 32), (2, 9, 9, 5, 5)]:
        x = _x(*shape)
        np.testing.assert_allclose(net(x).asnumpy(), np.abs(x.asnumpy()) * 2, rtol=1e-6)


@pytest.mark.parametrize("shape,why", [
    ((1, 10, 17, 4, 4), r"dimension 1 of input 0 .* is 10, which is not 8 \* N \+ 1"),
    ((1, 1, 17, 4, 4), r"dimension 1 of input 0 .* is 1, which is not 8 \* N \+ 1"),
    ((1, 9, 17, 33, 33), r"dimension 3 .* is 33, which is above max=32"),
    ((1, 9, 17, 4, 5), r"dimension 4 .* is 5, which differs from input 0's dimension 3 \(4\)"),
])
def test_broken_rules_are_errors_naming_the_dimension(graph_mode, shape, why):
    s1 = Symbol(divisor=8, remainder=1)
    s2 = Symbol(max=32, unique=True)
    net = _Abs()
    net.set_inputs(Tensor(shape=(None, s1, s1, s2, s2), dtype=ms.float32))
    with pytest.raises(ValueError, match=why):
        net(_x(*shape))


def test_min_and_shared_non_unique_symbol(graph_mode):
    s = Symbol(min=3)  # not unique: the two dimensions may differ
    net = _Abs()
    net.set_inputs(Tensor(shape=(s, s), dtype=ms.float32))
    assert net(_x(3, 5)).shape == (3, 5)
    with pytest.raises(ValueError, match="is 2, which is below min=3"):
        net(_x(2, 5))


def test_jit_input_signature_checks_symbols():
    s = Symbol(divisor=4)

    @ms.jit(input_signature=Tensor(shape=(s,), dtype=ms.float32))
    def f(x):
        return x + 1

    np.testing.assert_allclose(f(_x(8)).asnumpy(), _x(8).asnumpy() + 1, rtol=1e-6)
    with pytest.raises(ValueError, match="is 6, which is not 4 \\* N \\+ 0"):
        f(_x(6))
