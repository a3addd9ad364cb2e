"""nn.dynamic_lr's natural_exp_decay_lr, inverse_decay_lr, polynomial_decay_lr, warmup_lr and the
schedule Cells NaturalExpDecayLR, InverseDecayLR, PolynomialDecayLR, WarmUpLR, against their
closed forms written out here; argument errors as MindSpore raises them (TypeError for a wrong
type, ValueError for a wrong value). Cells in both modes."""
import math

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn
from mycel.nn import dynamic_lr as dr


def test_lists_against_closed_forms():
    lr, rate, total, spe, de = 0.1, 0.9, 30, 3, 2
    ep = [i // spe for i in range(total)]
    np.testing.assert_allclose(dr.natural_exp_decay_lr(lr, rate, total, spe, de),
                               [lr * math.exp(-rate * e) for e in ep])
    np.testing.assert_allclose(dr.natural_exp_decay_lr(lr, rate, total, spe, de, True),
                               [lr * math.exp(-rate * (e // de * de)) for e in ep])
    np.testing.assert_allclose(dr.inverse_decay_lr(lr, rate, total, spe, de),
                               [lr / (1 + rate * e / de) for e in ep])
    np.testing.assert_allclose(dr.inverse_decay_lr(lr, rate, total, spe, de, True),
                               [lr / (1 + rate * (e // de)) for e in ep])
    np.testing.assert_allclose(dr.polynomial_decay_lr(lr, 0.01, total, spe, de, 0.5),
                               [0.09 * (1 - min(e, de) / de) ** 0.5 + 0.01 for e in ep])
    cyc = [0.09 * (1 - e / (de * max(math.ceil(e / de), 1))) ** 0.5 + 0.01 for e in ep]
    np.testing.assert_allclose(dr.polynomial_decay_lr(lr, 0.01, total, spe, de, 0.5, True), cyc)
    np.testing.assert_allclose(dr.warmup_lr(lr, total, spe, 2), [lr * min(e, 2) / 2 for e in ep])


def test_argument_errors():
    with pytest.raises(TypeError):
        dr.polynomial_decay_lr(True, 0.01, 30, 3, 2, 0.5)
    with pytest.raises(ValueError):
        dr.polynomial_decay_lr(-1.0, 0.01, 30, 3, 2, 0.5)
    with pytest.raises(TypeError):
        dr.exponential_decay_lr(0.1, 0.9, 2.0, 3, 2)
    with pytest.raises(ValueError):
        dr.cosine_decay_lr(0.01, 0.1, -1, 3, 2)
    with pytest.raises(TypeError):
        dr.exponential_decay_lr(0.1, 0.9, 30, 3, 2, 1)  # is_stair must be a bool
    with pytest.raises(TypeError):
        dr.polynomial_decay_lr(0.1, 0.01, 30, 3, 2, 0.5, 1)
    with pytest.raises(TypeError):
        dr.piecewise_constant_lr([1.0, 2.0, True], [0.1, 0.05, 0.01])
    with pytest.raises(TypeError):
        dr.piecewise_constant_lr([10, 20, 30], [1, 2, 1])  # learning rates are floats
    with pytest.raises(ValueError):
        dr.piecewise_constant_lr([20, 10, 1], [0.1, 0.05, 0.01])


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_schedule_cells_match_closed_forms(mode):
    ms.set_context(mode=mode)
    cases = [
        (nn.NaturalExpDecayLR(0.1, 0.9, 4), lambda s: 0.1 * math.exp(-0.9 * s / 4)),
        (nn.NaturalExpDecayLR(0.1, 0.9, 4, is_stair=True),
         lambda s: 0.1 * math.exp(-0.9 * (s // 4))),
        (nn.InverseDecayLR(0.1, 0.5, 4), lambda s: 0.1 / (1 + 0.5 * s / 4)),
        (nn.InverseDecayLR(0.1, 0.5, 4, True), lambda s: 0.1 / (1 + 0.5 * (s // 4))),
        (nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5),
         lambda s: 0.09 * (1 - min(s, 4) / 4) ** 0.5 + 0.01),
        (nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0, update_decay_steps=True),
         lambda s: 0.09 * (1 - s / (4 * max(math.ceil(s / 4), 1))) ** 2 + 0.01),
        (nn.WarmUpLR(0.1, 3), lambda s: 0.1 * min(s, 3) / 3),
    ]
    for cell, ref in cases:
        for step in (0, 1, 4, 5, 9):
            got = cell(Tensor(np.array(step, np.int32))).asnumpy()
            assert float(got) == pytest.approx(ref(step), rel=1e-5, abs=1e-7), (cell, step)
    with pytest.raises(TypeError):
        nn.PolynomialDecayLR(0.1, 0.01, 4.0, 0.5)
    with pytest.raises(TypeError):
        nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, update_decay_steps=1)
