"""Per-group learning rates as MindSpore shows them: ``opt.learning_rate`` is one entry per
parameter (in the order of ``opt.parameters``): the group's rate Parameter, or, when a group
gives per-step rates, a cell whose ``learning_rate`` Parameter holds them (a fixed group rate
beside it becomes that many copies). The updates are checked against numpy's momentum rule
in both modes; ParameterTuple takes one Parameter more than once (MindSpore)."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, ParameterTuple, Tensor, nn


def params():
    w = Parameter(Tensor(np.array([1.0, -2.0], np.float32)), "w")
    b = Parameter(Tensor(np.array([0.5], np.float32)), "b")
    return w, b


def test_fixed_group_rates_view():
    w, b = params()
    opt = nn.Momentum([{"params": [w], "lr": 0.8}, {"params": [b]},
                       {"order_params": [b, w]}], learning_rate=0.1, momentum=0.9)
    assert opt.is_group_lr and not opt.dynamic_lr
    assert isinstance(opt.learning_rate, ParameterTuple)
    assert [p.name for p in opt.parameters] == ["b", "w"]
    assert [lr.name for lr in opt.learning_rate] == ["learning_rate", "learning_rate_group_0"]
    np.testing.assert_allclose([lr.data.asnumpy() for lr in opt.learning_rate], [0.1, 0.8])
    # the checkpointed names are as before: one Parameter per rate
    names = [n for n, _ in opt.parameters_and_names()]
    assert "learning_rate" in names and "learning_rate_group_0" in names
    assert opt.get_lr_parameter(w) is opt.learning_rate[1]


def test_dynamic_group_rates_view():
    w, b = params()
    opt = nn.RMSProp([{"params": [w], "lr": (0.1, 0.2, 0.3)}, {"params": [b]}],
                     learning_rate=0.8)
    assert opt.dynamic_lr
    lw, lb = opt.learning_rate
    np.testing.assert_allclose(lw.learning_rate.data.asnumpy(), [0.1, 0.2, 0.3], rtol=1e-6)
    np.testing.assert_allclose(lb.learning_rate.data.asnumpy(), [0.8, 0.8, 0.8], rtol=1e-6)
    # the cell gives a step's rate, the last one after the end
    for step, want in ((0, 0.1), (2, 0.3), (7, 0.3)):
        got = lw(Tensor(np.array([step], np.int32)))
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="one length"):
        nn.Momentum([{"params": [w], "lr": (0.1, 0.2)}, {"params": [b], "lr": (0.1, 0.2, 0.3)}],
                    learning_rate=0.1, momentum=0.9)


def test_mixed_group_rates_train_as_numpy(mode):
    """Momentum: v = m v + g; p -= lr v, with w's rate per step (0.1, 0.2, 0.3) and b's fixed
    0.5 (held as three copies); three steps of constant gradients."""
    w, b = params()
    opt = nn.Momentum([{"params": [w], "lr": [0.1, 0.2, 0.3]}, {"params": [b]}],
                      learning_rate=0.5, momentum=0.9)
    gw, gb = np.array([0.5, -1.0], np.float32), np.array([2.0], np.float32)
    ref_w, ref_b = w.asnumpy().copy(), b.asnumpy().copy()
    vw, vb = np.zeros_like(ref_w), np.zeros_like(ref_b)
    for lr_w in (0.1, 0.2, 0.3):
        opt((Tensor(gw), Tensor(gb)))
        vw, vb = 0.9 * vw + gw, 0.9 * vb + gb
        ref_w, ref_b = ref_w - lr_w * vw, ref_b - 0.5 * vb
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5)
    np.testing.assert_allclose(b.asnumpy(), ref_b, rtol=1e-5)


def test_parameter_tuple_repeats_one_parameter():
    w, _ = params()
    t = ParameterTuple([w, w])
    assert len(t) == 2 and t[0] is t[1]
    other = Parameter(Tensor(np.zeros(1, np.float32)), "w")
    with pytest.raises(ValueError, match="the name 'w' appears twice"):
        ParameterTuple([w, other])
