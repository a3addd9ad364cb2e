"""Optimizers, learning-rate schedules and TrainOneStepCell against PyTorch (or, where
MindSpore's formula is not PyTorch's, a float64 numpy transcription of it): several update
steps from the same weights and gradients, in PYNATIVE and GRAPH mode; plus the in-place
update ops (ops.assign), their ordering inside a graph, and the error paths."""
import math

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor, Parameter

MODES = (ms.PYNATIVE_MODE, ms.GRAPH_MODE)
MODE_IDS = ("pynative", "graph")


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


R = np.random.RandomState(0)
SHAPES = [(4, 3), (3,), (2, 2, 2)]
W0 = [R.randn(*s) for s in SHAPES]
GRADS = [[R.randn(*s) for s in SHAPES] for _ in range(4)]  # one set per step


def _params(dtype=np.float32):
    return [Parameter(Tensor(w.astype(dtype)), f"p{i}") for i, w in enumerate(W0)]


def _run_mycel(make_opt, mode, steps=4, dtype=np.float32):
    ms.set_context(mode=mode)
    ps = _params(dtype)
    opt = make_opt(ps)
    for k in range(steps):
        opt(tuple(Tensor(g.astype(dtype)) for g in GRADS[k]))
    return [p.asnumpy().astype(np.float64) for p in ps]


def _run_torch(make_opt, steps=4, schedule=None):
    ps = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in W0]
    opt = make_opt(ps)
    sched = schedule(opt) if schedule else None
    for k in range(steps):
        for p, g in zip(ps, GRADS[k]):
            p.grad = torch.tensor(g)
        opt.step()
        if sched:
            sched.step()
    return [p.detach().numpy() for p in ps]


def _adam_numpy(lr, b1, b2, eps, wd=0.0, steps=4, nesterov=False, decoupled=False,
                bias_correction=True):
    """MindSpore's Adam (decoupled=False: L2 decay into g) or AdamWeightDecay (decoupled,
    no bias correction), in float64."""
    ws = [w.copy() for w in W0]
    ms_ = [np.zeros_like(w) for w in W0]
    vs = [np.zeros_like(w) for w in W0]
    for t in range(1, steps + 1):
        for i, w in enumerate(ws):
            g = GRADS[t - 1][i] + (0 if decoupled else wd * w)
            ms_[i] = b1 * ms_[i] + (1 - b1) * g
            vs[i] = b2 * vs[i] + (1 - b2) * g * g
            if decoupled:
                ws[i] = w - lr * (ms_[i] / (np.sqrt(vs[i]) + eps) + wd * w)
            else:
                lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
                num = b1 * ms_[i] + (1 - b1) * g if nesterov else ms_[i]
                ws[i] = w - lr_t * num / (np.sqrt(vs[i]) + eps)
    return ws


# (id, mycel optimizer of params, oracle () -> final weights)
CASES = [
    ("Momentum", lambda p: nn.Momentum(p, 0.1, 0.9),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1, momentum=0.9))),
    ("Momentum/nesterov_wd", lambda p: nn.Momentum(p, 0.05, 0.8, weight_decay=0.01,
                                                   use_nesterov=True),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.05, momentum=0.8, weight_decay=0.01,
                                                  nesterov=True))),
    ("Momentum/loss_scale", lambda p: nn.Momentum(p, 0.1, 0.9, loss_scale=4.0),
     lambda: [w for w in _run_torch(lambda p: torch.optim.SGD(p, 0.1 / 4.0, momentum=0.9))]),
    ("SGD/plain", lambda p: nn.SGD(p, 0.1),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1))),
    ("SGD/momentum_dampening_wd", lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.1,
                                                   weight_decay=0.05),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1, momentum=0.9, dampening=0.1,
                                                  weight_decay=0.05))),
    ("SGD/nesterov", lambda p: nn.SGD(p, 0.1, momentum=0.9, nesterov=True),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1, momentum=0.9, nesterov=True))),
    ("Adam", lambda p: nn.Adam(p, 0.01), lambda: _adam_numpy(0.01, 0.9, 0.999, 1e-8)),
    ("Adam/nesterov_wd", lambda p: nn.Adam(p, 0.01, use_nesterov=True, weight_decay=0.1),
     lambda: _adam_numpy(0.01, 0.9, 0.999, 1e-8, wd=0.1, nesterov=True)),
    ("AdamWeightDecay", lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1),
     lambda: _adam_numpy(0.01, 0.9, 0.999, 1e-6, wd=0.1, decoupled=True)),
    ("AdamW", lambda p: nn.AdamW(p, 0.01),
     lambda: _run_torch(lambda p: torch.optim.AdamW(p, 0.01))),
    ("AdamW/betas_wd", lambda p: nn.AdamW(p, 0.02, beta1=0.8, beta2=0.99, eps=1e-6,
                                          weight_decay=0.3),
     lambda: _run_torch(lambda p: torch.optim.AdamW(p, 0.02, betas=(0.8, 0.99), eps=1e-6,
                                                    weight_decay=0.3))),
    ("SGD/dynamic_lr_list", lambda p: nn.SGD(p, [0.1, 0.05, 0.02]),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1),
                        schedule=lambda o: torch.optim.lr_scheduler.LambdaLR(
                            o, lambda s: [1.0, 0.5, 0.2][min(s, 2)]))),
    ("Momentum/exponential_decay", lambda p: nn.Momentum(p, nn.ExponentialDecayLR(0.1, 0.5, 1),
                                                         0.9),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1, momentum=0.9),
                        schedule=lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.5))),
    ("SGD/cosine_decay", lambda p: nn.SGD(p, nn.CosineDecayLR(0.01, 0.1, 3)),
     lambda: _run_torch(lambda p: torch.optim.SGD(p, 0.1),
                        schedule=lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(
                            o, 3, eta_min=0.01))),
    ("Adam/groups", lambda p: nn.Adam([{"params": p[:1], "lr": 0.05},
                                       {"params": p[1:], "weight_decay": 0.1}], 0.01),
     lambda: [_adam_numpy(0.05, 0.9, 0.999, 1e-8)[0]] +
     _adam_numpy(0.01, 0.9, 0.999, 1e-8, wd=0.1)[1:]),
]


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("name,make,oracle", CASES, ids=[c[0] for c in CASES])
def test_optimizer_steps_match_the_oracle(name, make, oracle, mode):
    got = _run_mycel(make, mode)
    want = oracle()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_float64_parameters_update_in_float64(mode):
    # The rate and momentum are float32 Parameters (as MindSpore's): exact binary fractions.
    got = _run_mycel(lambda p: nn.SGD(p, 0.125, momentum=0.875), mode, dtype=np.float64)
    want = _run_torch(lambda p: torch.optim.SGD(p, 0.125, momentum=0.875))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_mindspore_adam_is_torch_adam_up_to_epsilon():
    got = _run_mycel(lambda p: nn.Adam(p, 0.01), ms.PYNATIVE_MODE)
    want = _run_torch(lambda p: torch.optim.Adam(p, 0.01))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_optimizer_state_parameters_and_names():
    ps = _params()
    opt = nn.Adam(ps, 0.01)
    names = [n for n, _ in opt.parameters_and_names()]
    assert "moment1.p0" in [p.name for p in opt.get_parameters()]
    assert {"learning_rate", "global_step", "beta1_power"} <= {p.name for p in
                                                                opt.get_parameters()}
    assert len(names) == len(set(names))
    assert opt.parameters == tuple(ps)
    assert all(not p.requires_grad for p in opt.get_parameters())  # state is not trained


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_dynamic_lr_advances_the_step_counter(mode):
    ms.set_context(mode=mode)
    ps = _params()
    opt = nn.SGD(ps, nn.piecewise_constant_lr([1, 3], [0.5, 0.1]))
    for k in range(3):
        opt(tuple(Tensor(np.zeros(s, np.float32)) for s in SHAPES))
    assert opt.global_step.asnumpy().tolist() == [3]


def test_get_lr_parameter_gives_the_group_rate_parameter_without_a_step():
    # MindSpore's get_lr_parameter: the group's learning-rate Parameter (the per-step values of
    # a list rate, the value of a fixed one) or schedule; it does not advance the step
    ps = _params()
    sched = nn.ExponentialDecayLR(0.1, 0.5, 1)
    opt = nn.SGD([{"params": ps[:1], "lr": [0.5, 0.25]}, {"params": ps[1:2]},
                  {"params": ps[2:], "lr": sched}], 0.1)
    lr0 = opt.get_lr_parameter(ps[0])
    assert isinstance(lr0, ms.Parameter) and lr0.name == "learning_rate_group_0"
    np.testing.assert_allclose(lr0.asnumpy(), [0.5, 0.25])
    lr1 = opt.get_lr_parameter([ps[1]])
    assert isinstance(lr1, list) and lr1[0].name == "learning_rate"
    # a fixed rate beside a per-step list is held as that many copies (MindSpore's rule)
    np.testing.assert_allclose(lr1[0].asnumpy(), [0.1, 0.1])
    assert opt.get_lr_parameter(ps[2]) is sched
    assert opt.global_step.asnumpy().tolist() == [0]
    lrs = opt.get_lr()  # this step's rates, one per group; the step advances
    assert [float(t.asnumpy()) for t in lrs] == pytest.approx([0.5, 0.1, 0.1])
    assert opt.global_step.asnumpy().tolist() == [1]
    assert [float(t.asnumpy()) for t in opt.get_lr()] == pytest.approx([0.25, 0.1, 0.05])


def test_learning_rate_lists_and_schedules():
    assert nn.piecewise_constant_lr([2, 5], [0.1, 0.05]) == [0.1, 0.1, 0.05, 0.05, 0.05]
    lr = nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1)
    np.testing.assert_allclose(lr, [0.1 * 0.9 ** (i // 2) for i in range(6)])
    lr = nn.exponential_decay_lr(0.1, 0.9, 6, 1, 4, is_stair=True)
    np.testing.assert_allclose(lr, [0.1 * 0.9 ** (i // 4) for i in range(6)])
    lr = nn.cosine_decay_lr(0.0, 0.1, 6, 2, 2)
    want = [0.05 * (1 + math.cos(math.pi * min(i // 2, 2) / 2)) for i in range(6)]
    np.testing.assert_allclose(lr, want)
    s = nn.PiecewiseConstantLR([2, 4], [0.3, 0.1])
    got = [float(s(Tensor(np.int32(i))).asnumpy()) for i in range(6)]
    np.testing.assert_allclose(got, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1], rtol=1e-6)
    e = nn.ExponentialDecayLR(0.1, 0.5, 2, is_stair=True)
    got = [float(e(Tensor(np.int32(i))).asnumpy()) for i in range(5)]
    np.testing.assert_allclose(got, [0.1, 0.1, 0.05, 0.05, 0.025], rtol=1e-6)


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _torch_mlp(net):
    t = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        t[0].weight.copy_(torch.tensor(net.fc1.weight.asnumpy()))
        t[0].bias.copy_(torch.tensor(net.fc1.bias.asnumpy()))
        t[2].weight.copy_(torch.tensor(net.fc2.weight.asnumpy()))
        t[2].bias.copy_(torch.tensor(net.fc2.bias.asnumpy()))
    return t


X = R.randn(10, 6).astype(np.float32)
Y = R.randint(0, 3, 10).astype(np.int32)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("opt", ["momentum", "adamw"])
def test_train_one_step_cell_matches_torch_training(mode, opt):
    ms.set_context(mode=mode)
    ms.set_seed(1)
    net = _Mlp()
    tnet = _torch_mlp(net)
    if opt == "momentum":
        o = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        to = torch.optim.SGD(tnet.parameters(), 0.1, momentum=0.9)
    else:
        o = nn.AdamW(net.trainable_params(), 0.01)
        to = torch.optim.AdamW(tnet.parameters(), 0.01)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), o)
    step.set_train()
    for _ in range(6):
        loss = float(step(Tensor(X), Tensor(Y)).asnumpy())
        to.zero_grad()
        tl = torch.nn.functional.cross_entropy(tnet(torch.tensor(X)), torch.tensor(Y).long())
        tl.backward()
        to.step()
        assert loss == pytest.approx(tl.item(), rel=1e-5)
    np.testing.assert_allclose(net.fc2.weight.asnumpy(), tnet[2].weight.detach().numpy(),
                               rtol=1e-4, atol=1e-6)


def test_train_one_step_sens_scales_the_gradients():
    net = _Mlp()
    w0 = net.fc2.bias.asnumpy().copy()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               nn.SGD(net.trainable_params(), 0.1, loss_scale=2.0), sens=2.0)
    net2 = _Mlp()
    for a, b in zip(net2.trainable_params(), net.trainable_params()):
        a.set_data(b.copy())
    step2 = nn.TrainOneStepCell(nn.WithLossCell(net2, nn.CrossEntropyLoss()),
                                nn.SGD(net2.trainable_params(), 0.1))
    step(Tensor(X), Tensor(Y))
    step2(Tensor(X), Tensor(Y))
    assert not np.allclose(net.fc2.bias.asnumpy(), w0)
    np.testing.assert_allclose(net.fc2.bias.asnumpy(), net2.fc2.bias.asnumpy(), rtol=1e-6)


# ---------------------------------------------------------------- the update ops


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_assign_writes_the_parameter_and_reads_see_the_old_value(mode):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones(3, np.float32)), "w")
            self.n = Parameter(Tensor(np.zeros(1, np.int32)), "n", requires_grad=False)

        def construct(self, x):
            y = self.w * x
            new = ops.assign(self.w, x + 1)
            ops.assign_add(self.n, 1)
            return y, new * 1

    net = Net()
    y, new = net(Tensor(np.full(3, 5, np.float32)))
    np.testing.assert_array_equal(y.asnumpy(), [5, 5, 5])      # read before the update
    np.testing.assert_array_equal(new.asnumpy(), [6, 6, 6])    # the update's result
    np.testing.assert_array_equal(net.w.asnumpy(), [6, 6, 6])  # written in place
    net(Tensor(np.full(3, 2, np.float32)))
    np.testing.assert_array_equal(net.w.asnumpy(), [3, 3, 3])
    assert net.n.asnumpy().tolist() == [2]


def test_assign_casts_and_checks_shapes():
    w = Parameter(Tensor(np.zeros(3, np.float32)), "w")
    r = ops.assign(w, Tensor(np.array([1, 2, 3], np.int64)))
    assert r.dtype == ms.float32 and w.asnumpy().tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match=r"For 'Assign', the 'value' must have the shape"):
        ops.assign(w, Tensor(np.zeros(4, np.float32)))
    with pytest.raises(TypeError, match=r"For 'AssignAdd', the 'variable' must be numeric"):
        ops.assign_add(Parameter(Tensor(np.array([True])), "b"), Tensor(np.array([True])))


def test_update_op_errors_name_the_op_and_shapes():
    p = Tensor(np.zeros((2, 3), np.float32))
    s = Tensor(np.float32(0.1))
    with pytest.raises(ValueError, match=r"For 'ApplyMomentum', the 'gradient' must have the "
                                         r"shape and dtype of 'variable'"):
        ops.ApplyMomentum()(p, p.copy(), s, Tensor(np.zeros((3, 2), np.float32)), s)
    with pytest.raises(TypeError, match=r"For 'SGD', the 'learning_rate' must be a "
                                        r"floating-point scalar"):
        ops.SGD()(p, p.copy(), Tensor(np.zeros(2, np.float32)), p.copy(), s, s)


def test_optimizer_argument_errors():
    ps = _params()
    with pytest.raises(TypeError, match=r"For 'Momentum', the 'parameters' must be a list"):
        nn.Momentum(ps[0], 0.1, 0.9)
    with pytest.raises(ValueError, match=r"For 'Optimizer', the argument parameters must not be empty"):
        nn.SGD([], 0.1)
    with pytest.raises(TypeError, match=r"every element of 'parameters' must be a Parameter"):
        nn.SGD([Tensor(np.zeros(2, np.float32))], 0.1)
    with pytest.raises(ValueError, match=r"'learning_rate' must be finite and non-negative"):
        nn.SGD(ps, -0.1)
    with pytest.raises(TypeError, match=r"'learning_rate' must be a float"):
        nn.SGD(ps, "fast")
    with pytest.raises(ValueError, match=r"nesterov needs a positive momentum"):
        nn.SGD(ps, 0.1, nesterov=True)
    with pytest.raises(ValueError, match=r"beta1 and beta2 must be in \[0, 1\)"):
        nn.Adam(ps, beta1=1.0)
    with pytest.raises(RuntimeError, match=r"the parameter 'p0' is given twice"):
        nn.SGD(ps + ps[:1], 0.1)
    with pytest.raises(ValueError, match=r"unknown parameter-group keys \['momentum'\]"):
        nn.SGD([{"params": ps, "momentum": 0.9}], 0.1)
    with pytest.raises(ValueError, match=r"'max_lr' must be greater than the 'min_lr'"):
        nn.CosineDecayLR(0.1, 0.05, 10)
    with pytest.raises(ValueError, match=r"'milestone' must be increasing positive ints"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_wrong_gradient_count_is_an_error(mode):
    ms.set_context(mode=mode)
    opt = nn.Momentum(_params(), 0.1, 0.9)
    with pytest.raises(ValueError, match=r"For 'Momentum', the gradients must be a tuple of 3 "
                                         r"tensors .* but got 2"):
        opt(tuple(Tensor(np.zeros(s, np.float32)) for s in SHAPES[:2]))


def test_train_one_step_cell_argument_errors():
    net = _Mlp()
    with pytest.raises(TypeError, match=r"the 'optimizer' must be an nn Optimizer"):
        nn.TrainOneStepCell(net, object())
    with pytest.raises(TypeError, match=r"the 'network' must be a Cell"):
        nn.TrainOneStepCell(lambda x: x, nn.SGD(net.trainable_params()))
