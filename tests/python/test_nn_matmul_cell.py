"""nn.MatMul (MindSpore 1.x's Cell over ops.matmul, with transpose_x1/transpose_x2 on the last
two dims): numpy's matmul of the (transposed) operands in both modes, batch dims broadcast
and 1-D operands promoted."""
import os
import sys

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn

sys.path.insert(0, os.path.dirname(__file__))
from graph_harness import check_all_modes  # noqa: E402

RNG = np.random.default_rng(3)


def t(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("a,b,tx1,tx2", [
    (t(3, 4), t(4, 5), False, False),
    (t(4, 3), t(5, 4), True, True),
    (t(2, 1, 3, 4), t(6, 5, 4), False, True),   # batch dims broadcast: (2, 6, 3, 5)
    (t(4), t(2, 4, 3), False, False),           # a 1-D operand: its axis removed after
    (t(2, 4, 3), t(4), True, False),
    (t(4), t(4), True, True),                   # 1-D transposes are no-ops: the dot product
])
def test_matmul_cell_is_numpys_matmul(a, b, tx1, tx2):
    net = nn.MatMul(transpose_x1=tx1, transpose_x2=tx2)
    out = check_all_modes(net, Tensor(a), Tensor(b), rtol=1e-5, atol=1e-5)
    ea = np.swapaxes(a, -1, -2) if tx1 and a.ndim > 1 else a
    eb = np.swapaxes(b, -1, -2) if tx2 and b.ndim > 1 else b
    np.testing.assert_allclose(out.asnumpy(), np.matmul(ea, eb), rtol=1e-5, atol=1e-5)


def test_matmul_cell_checks_its_arguments():
    with pytest.raises(TypeError, match="transpose_x1"):
        nn.MatMul(transpose_x1=1)
    with pytest.raises(ValueError):
        nn.MatMul()(Tensor(t(3, 4)), Tensor(t(5, 6)))
