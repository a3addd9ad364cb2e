"""Dynamic weight decay (MindSpore's): an optimizer's weight_decay, or a group's, may be a Cell
called with the step counter; each step decays by its value at that step. Checked against
numpy re-implementations of the updates, in both modes, with groups mixing fixed and dynamic
decay; the optimizers that fuse a fixed decay refuse a Cell with a TypeError."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn, ops

SHAPES = [(3, 2), (4,)]
R = np.random.RandomState(7)
W0 = [R.randn(*s).astype(np.float32) for s in SHAPES]
GRADS = [[R.randn(*s).astype(np.float32) for s in SHAPES] for _ in range(4)]


class HalvingDecay(nn.Cell):
    """wd(step) = base * 0.5 ** step (a float32 0-d tensor)."""

    def __init__(self, base):
        super().__init__()
        self.base = base

    def construct(self, global_step):
        return self.base * ops.pow(Tensor(np.float32(0.5)), global_step.astype(ms.float32))


def _params():
    return [Parameter(Tensor(w.copy()), f"p{i}") for i, w in enumerate(W0)]


def _run(opt_fn, steps=4):
    ps = _params()
    opt = opt_fn(ps)
    for k in range(steps):
        opt(tuple(Tensor(g) for g in GRADS[k]))
    return [p.asnumpy() for p in ps], opt


def test_momentum_with_a_decay_cell_matches_numpy(mode):
    lr, mom = 0.1, 0.9
    got, opt = _run(lambda ps: nn.Momentum(ps, lr, mom, weight_decay=HalvingDecay(0.2)))
    w = [x.astype(np.float64) for x in W0]
    acc = [np.zeros_like(x) for x in w]
    for k in range(4):
        wd = 0.2 * 0.5 ** k
        for i in range(2):
            g = GRADS[k][i] + wd * w[i]
            acc[i] = mom * acc[i] + g
            w[i] = w[i] - lr * acc[i]
    for a, b in zip(got, w):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert opt.dynamic_weight_decay and opt.decay_flags == (True, True)
    assert opt.global_step.asnumpy().tolist() == [4]  # advanced though the rate is fixed
    assert float(opt.get_weight_decay().asnumpy()) == pytest.approx(0.2 * 0.5 ** 4)


def test_groups_mix_fixed_and_dynamic_decay_in_adam_weight_decay(mode):
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-6
    decay = HalvingDecay(0.5)

    def make(ps):
        return nn.AdamWeightDecay([{"params": [ps[0]], "weight_decay": decay},
                                   {"params": [ps[1]], "weight_decay": 0.05}], lr, b1, b2, eps)
    got, opt = _run(make)
    w = [x.astype(np.float64) for x in W0]
    m = [np.zeros_like(x) for x in w]
    v = [np.zeros_like(x) for x in w]
    for k in range(4):
        for i, wd in enumerate((0.5 * 0.5 ** k, 0.05)):
            g = GRADS[k][i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            w[i] = w[i] - lr * (m[i] / (np.sqrt(v[i]) + eps) + wd * w[i])
    for a, b in zip(got, w):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert opt.weight_decay[0] is decay and opt.decay_flags == (True, True)
    wds = opt.get_weight_decay()
    assert float(wds[0].asnumpy()) == pytest.approx(0.5 * 0.5 ** 4) and wds[1] == 0.05


def test_adam_l2_decay_cell_with_a_dynamic_rate(mode):
    # the decay and the rate read the same step: step k uses lr[k] and wd(k)
    lrs, b1, b2, eps = [0.1, 0.05, 0.02, 0.01], 0.9, 0.999, 1e-8
    got, _ = _run(lambda ps: nn.Adam(ps, lrs, b1, b2, eps, weight_decay=HalvingDecay(0.3)))
    w = [x.astype(np.float64) for x in W0]
    m = [np.zeros_like(x) for x in w]
    v = [np.zeros_like(x) for x in w]
    for k in range(4):
        t = k + 1
        for i in range(2):
            g = GRADS[k][i] + 0.3 * 0.5 ** k * w[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            a = lrs[k] * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            w[i] = w[i] - a * m[i] / (np.sqrt(v[i]) + eps)
    for a, b in zip(got, w):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fused_decay_optimizers_refuse_a_cell():
    msg = "dynamic weight decay is currently not supported"
    with pytest.raises(TypeError, match="For 'SGD', " + msg):
        nn.SGD(_params(), 0.1, weight_decay=HalvingDecay(0.1))
    with pytest.raises(TypeError, match="For 'SGD', " + msg):
        ps = _params()
        nn.SGD([{"params": ps[:1], "weight_decay": HalvingDecay(0.1)}, {"params": ps[1:]}])
    with pytest.raises(TypeError, match="For 'Lamb', " + msg):
        nn.Lamb(_params(), 0.1, weight_decay=HalvingDecay(0.1))
    with pytest.raises(TypeError, match="LARS"):
        nn.LARS(nn.Momentum(_params(), 0.1, 0.9, weight_decay=HalvingDecay(0.1)))
    with pytest.raises(TypeError, match="'weight_decay' must be a float, an int or a Cell"):
        nn.Momentum(_params(), 0.1, 0.9, weight_decay="0.1")


@pytest.mark.parametrize("make", [lambda ps: nn.Momentum(ps, 0.1, 0.9),
                                  lambda ps: nn.Adam(ps, 0.1),
                                  lambda ps: nn.AdamWeightDecay(ps, 0.1)],
                         ids=["Momentum", "Adam", "AdamWeightDecay"])
def test_gradients_must_be_a_tuple_of_one_per_parameter(mode, make):
    # a bare Tensor is not iterated by rows as if it were the gradients
    ps = [Parameter(Tensor(np.ones((2,), np.float32)), "w")]
    opt = make(ps)
    with pytest.raises(TypeError, match="gradients must be a tuple of 1 tensors"):
        opt(Tensor(np.ones((1, 2), np.float32)))
    with pytest.raises(ValueError, match="but got 2"):
        opt((Tensor(np.ones((2,), np.float32)),) * 2)
    opt([Tensor(np.ones((2,), np.float32))])  # a list is fine
    assert not np.allclose(ps[0].asnumpy(), 1.0)
