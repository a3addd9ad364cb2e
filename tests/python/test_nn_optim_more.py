"""MindSpore's Adagrad, RMSProp, AdaMax, Adadelta, FTRL, ASGD, Rprop and Lamb against PyTorch's
optimizer where it computes the same update (Adagrad, Adadelta, ASGD, Rprop exactly; RMSProp and
AdaMax up to where epsilon goes), and against a float64 numpy transcription of MindSpore's
formula otherwise (FTRL, Lamb, and RMSProp/AdaMax with an epsilon large enough to tell its
place): several steps from the same weights and gradients, in PYNATIVE and GRAPH mode. Plus the
update primitives themselves (ops.ApplyAdagrad ...), the state names, and the argument errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor, Parameter

MODES = (ms.PYNATIVE_MODE, ms.GRAPH_MODE)
MODE_IDS = ("pynative", "graph")
STEPS = 5


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


R = np.random.RandomState(7)
SHAPES = [(4, 3), (5,), (2, 2, 2)]
W0 = [R.randn(*s) for s in SHAPES]
GRADS = [[R.randn(*s) for s in SHAPES] for _ in range(STEPS)]  # one set per step


def _params(dtype=np.float32):
    return [Parameter(Tensor(w.astype(dtype)), f"p{i}") for i, w in enumerate(W0)]


def _run_mycel(make_opt, mode, scale=1.0, dtype=np.float32):
    """The final weights after STEPS steps (the gradients times `scale`), and the optimizer."""
    ms.set_context(mode=mode)
    ps = _params(dtype)
    opt = make_opt(ps)
    for k in range(STEPS):
        opt(tuple(Tensor((g * scale).astype(dtype)) for g in GRADS[k]))
    return [p.asnumpy().astype(np.float64) for p in ps], opt


def _run_torch(make_opt, state=None, schedule=None):
    """PyTorch's final weights in float64 and its optimizer; `state(p)` pre-fills a parameter's
    state (PyTorch initialises only what is missing)."""
    ps = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in W0]
    opt = make_opt(ps)
    for p in ps:
        if state:
            opt.state[p].update(state(p))
    sched = schedule(opt) if schedule else None
    for k in range(STEPS):
        for p, g in zip(ps, GRADS[k]):
            p.grad = torch.tensor(g)
        opt.step()
        if sched:
            sched.step()
    return [p.detach().numpy() for p in ps], opt


def _torch(make_opt, **kw):
    return lambda: _run_torch(make_opt, **kw)[0]


def _rms_state(centered, momentum):
    """MindSpore's RMSProp starts mean_square at one (PyTorch at zero)."""
    def fill(p):
        s = {"step": 0, "square_avg": torch.ones_like(p)}
        if momentum > 0:
            s["momentum_buffer"] = torch.zeros_like(p)
        if centered:
            s["grad_avg"] = torch.zeros_like(p)
        return s
    return fill


# ---------------------------------------------------------------- numpy oracles (float64)

def _numpy_run(update, init, lrs=None, lr=None, wd=0.0):
    """Runs update(w, g, state, lr, t) -> w over the parameters for STEPS steps, with L2 decay
    into g; `init(w)` makes a parameter's state dict, `lrs` a per-step rate."""
    ws = [w.copy() for w in W0]
    states = [init(w) for w in ws]
    for t in range(1, STEPS + 1):
        rate = lrs[min(t - 1, len(lrs) - 1)] if lrs is not None else lr
        for i in range(len(ws)):
            g = GRADS[t - 1][i] + wd * ws[i]
            ws[i] = update(ws[i], g, states[i], rate, t)
    return ws


def _np_adagrad(lr, accum=0.1, update_slots=True, wd=0.0, lrs=None):
    def update(w, g, s, lr_t, t):
        if update_slots:
            s["a"] = s["a"] + g * g
        return w - lr_t * g / np.sqrt(s["a"])
    return _numpy_run(update, lambda w: {"a": np.full_like(w, accum)}, lrs, lr, wd)


def _np_rmsprop(lr, decay=0.9, momentum=0.0, eps=1e-10, centered=False, wd=0.0, lrs=None):
    def update(w, g, s, lr_t, t):
        s["ms"] = decay * s["ms"] + (1 - decay) * g * g
        var = s["ms"]
        if centered:
            s["mg"] = decay * s["mg"] + (1 - decay) * g
            var = var - s["mg"] ** 2
        s["mom"] = momentum * s["mom"] + lr_t * g / np.sqrt(var + eps)
        return w - s["mom"]
    init = lambda w: {"ms": np.ones_like(w), "mg": np.zeros_like(w), "mom": np.zeros_like(w)}
    return _numpy_run(update, init, lrs, lr, wd)


def _np_adamax(lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0):
    def update(w, g, s, lr_t, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = np.maximum(b2 * s["v"], np.abs(g))
        return w - lr_t / (1 - b1 ** t) * s["m"] / (s["v"] + eps)
    return _numpy_run(update, lambda w: {"m": np.zeros_like(w), "v": np.zeros_like(w)},
                      lr=lr, wd=wd)


def _np_ftrl(lr, accum=0.1, lr_power=-0.5, l1=0.0, l2=0.0, wd=0.0):
    p = -lr_power

    def update(w, g, s, lr_t, t):
        acc_new = s["acc"] + g * g
        s["lin"] = s["lin"] + g - (acc_new ** p - s["acc"] ** p) / lr_t * w
        s["acc"] = acc_new
        quadratic = acc_new ** p / lr_t + 2 * l2
        return np.where(np.abs(s["lin"]) > l1, (np.sign(s["lin"]) * l1 - s["lin"]) / quadratic,
                        0.0)
    return _numpy_run(update, lambda w: {"acc": np.full_like(w, accum), "lin": np.zeros_like(w)},
                      lr=lr, wd=wd)


def _np_lamb(lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.0, lrs=None):
    def update(w, g, s, lr_t, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        m_hat, v_hat = s["m"] / (1 - b1 ** t), s["v"] / (1 - b2 ** t)
        update_ = m_hat / (np.sqrt(v_hat) + eps) + wd * w
        r = m_hat / np.sqrt(v_hat + eps) + wd * w
        w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)
        trust = w_norm / np.linalg.norm(r) if w_norm > 0 and g_norm > 0 else 1.0
        return w - lr_t * min(max(trust, 0.0), 10.0) * update_
    # Lamb's weight decay is decoupled: not added to the gradient.
    return _numpy_run(update, lambda w: {"m": np.zeros_like(w), "v": np.zeros_like(w)}, lrs, lr)


def _lambda_lr(rates):
    return lambda o: torch.optim.lr_scheduler.LambdaLR(
        o, lambda s: rates[min(s, len(rates) - 1)] / rates[0])


RATES = [0.1, 0.05, 0.02, 0.01]

# (id, mycel optimizer of params, oracle () -> final weights, gradient scale, rtol)
CASES = [
    ("Adagrad", lambda p: nn.Adagrad(p, learning_rate=0.1),
     _torch(lambda p: torch.optim.Adagrad(p, 0.1, initial_accumulator_value=0.1, eps=0.0)),
     1.0, 2e-5),
    ("Adagrad/wd_loss_scale", lambda p: nn.Adagrad(p, accum=0.5, learning_rate=0.05,
                                                   weight_decay=0.1, loss_scale=8.0),
     _torch(lambda p: torch.optim.Adagrad(p, 0.05, weight_decay=0.1,
                                          initial_accumulator_value=0.5, eps=0.0)), 8.0, 2e-5),
    ("Adagrad/no_update_slots", lambda p: nn.Adagrad(p, 0.3, 0.1, update_slots=False),
     lambda: _np_adagrad(0.1, accum=0.3, update_slots=False), 1.0, 2e-5),
    ("Adagrad/dynamic_lr", lambda p: nn.Adagrad(p, learning_rate=RATES),
     _torch(lambda p: torch.optim.Adagrad(p, RATES[0], initial_accumulator_value=0.1, eps=0.0),
            schedule=_lambda_lr(RATES)), 1.0, 2e-5),
    ("RMSProp", lambda p: nn.RMSProp(p, learning_rate=0.01),
     _torch(lambda p: torch.optim.RMSprop(p, 0.01, alpha=0.9, eps=1e-10),
            state=_rms_state(False, 0.0)), 1.0, 2e-5),
    ("RMSProp/centered_momentum_wd", lambda p: nn.RMSProp(p, 0.01, decay=0.8, momentum=0.5,
                                                          centered=True, weight_decay=0.01),
     _torch(lambda p: torch.optim.RMSprop(p, 0.01, alpha=0.8, eps=1e-10, momentum=0.5,
                                          centered=True, weight_decay=0.01),
            state=_rms_state(True, 0.5)), 1.0, 2e-5),
    # epsilon 0.5 under the square root, the rate inside the moment (a changing rate):
    # MindSpore's formula, which PyTorch's is not.
    ("RMSProp/epsilon_in_sqrt_dynamic_lr", lambda p: nn.RMSProp(p, RATES, momentum=0.9,
                                                                epsilon=0.5),
     lambda: _np_rmsprop(None, momentum=0.9, eps=0.5, lrs=RATES), 1.0, 2e-5),
    ("RMSProp/centered_epsilon", lambda p: nn.RMSProp(p, 0.02, momentum=0.3, epsilon=0.25,
                                                      centered=True, loss_scale=4.0),
     lambda: _np_rmsprop(0.02, momentum=0.3, eps=0.25, centered=True), 4.0, 2e-5),
    ("AdaMax/torch", lambda p: nn.AdaMax(p, learning_rate=0.02),
     _torch(lambda p: torch.optim.Adamax(p, 0.02)), 1.0, 2e-5),
    ("AdaMax/epsilon_wd", lambda p: nn.AdaMax(p, 0.02, beta1=0.8, beta2=0.95, eps=0.3,
                                              weight_decay=0.1),
     lambda: _np_adamax(0.02, 0.8, 0.95, 0.3, wd=0.1), 1.0, 2e-5),
    ("Adadelta", lambda p: nn.Adadelta(p),
     _torch(lambda p: torch.optim.Adadelta(p)), 1.0, 2e-5),
    ("Adadelta/rho_eps_wd", lambda p: nn.Adadelta(p, 0.5, rho=0.7, epsilon=1e-3,
                                                  weight_decay=0.05),
     _torch(lambda p: torch.optim.Adadelta(p, 0.5, rho=0.7, eps=1e-3, weight_decay=0.05)),
     1.0, 2e-5),
    ("FTRL", lambda p: nn.FTRL(p, learning_rate=0.1),
     lambda: _np_ftrl(0.1), 1.0, 2e-5),
    ("FTRL/l1_l2_power_wd", lambda p: nn.FTRL(p, initial_accum=0.2, learning_rate=0.5,
                                              lr_power=-0.3, l1=0.05, l2=0.1, weight_decay=0.01),
     lambda: _np_ftrl(0.5, 0.2, -0.3, 0.05, 0.1, wd=0.01), 1.0, 2e-5),
    ("ASGD", lambda p: nn.ASGD(p, learning_rate=0.1, lambd=0.01, t0=2.0),
     _torch(lambda p: torch.optim.ASGD(p, 0.1, lambd=0.01, t0=2.0)), 1.0, 2e-5),
    ("ASGD/alpha_wd", lambda p: nn.ASGD(p, 0.05, lambd=0.1, alpha=0.5, weight_decay=0.1),
     _torch(lambda p: torch.optim.ASGD(p, 0.05, lambd=0.1, alpha=0.5, weight_decay=0.1)),
     1.0, 2e-5),
    ("Rprop", lambda p: nn.Rprop(p, learning_rate=0.01),
     _torch(lambda p: torch.optim.Rprop(p, 0.01)), 1.0, 2e-5),
    ("Rprop/etas_step_sizes", lambda p: nn.Rprop(p, 0.05, etas=(0.3, 1.5),
                                                 step_sizes=(0.02, 0.08)),
     _torch(lambda p: torch.optim.Rprop(p, 0.05, etas=(0.3, 1.5), step_sizes=(0.02, 0.08))),
     1.0, 2e-5),
    ("Lamb", lambda p: nn.Lamb(p, learning_rate=0.01),
     lambda: _np_lamb(0.01), 1.0, 2e-5),
    ("Lamb/wd_eps_dynamic_lr", lambda p: nn.Lamb(p, RATES, beta1=0.8, beta2=0.9, eps=0.1,
                                                 weight_decay=0.2),
     lambda: _np_lamb(None, 0.8, 0.9, 0.1, wd=0.2, lrs=RATES), 1.0, 2e-5),
]


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("name,make,oracle,scale,rtol", CASES, ids=[c[0] for c in CASES])
def test_optimizer_steps_match_the_oracle(name, make, oracle, scale, rtol, mode):
    got, _ = _run_mycel(make, mode, scale)
    want = oracle()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=2e-6)
    assert not np.allclose(got[0], W0[0], atol=1e-4), "the parameters did not move"


def test_epsilon_placement_differs_from_torch_where_documented():
    # RMSProp and AdaMax with a large epsilon: MindSpore's formula, not PyTorch's (the oracle
    # cases above would pass for either if the two agreed).
    got, _ = _run_mycel(lambda p: nn.AdaMax(p, 0.02, eps=0.3), ms.PYNATIVE_MODE)
    want_torch = _run_torch(lambda p: torch.optim.Adamax(p, 0.02, eps=0.3))[0]
    # compared as the distance moved, which eps changes by a few per cent here
    assert not np.allclose(got[0] - W0[0], want_torch[0] - W0[0], rtol=1e-2, atol=0)
    np.testing.assert_allclose(got[0], _np_adamax(0.02, eps=0.3)[0], rtol=2e-5, atol=2e-6)
    got, _ = _run_mycel(lambda p: nn.RMSProp(p, 0.01, epsilon=0.5), ms.PYNATIVE_MODE)
    want_torch = _run_torch(lambda p: torch.optim.RMSprop(p, 0.01, alpha=0.9, eps=0.5),
                            state=_rms_state(False, 0.0))[0]
    assert not np.allclose(got[0] - W0[0], want_torch[0] - W0[0], rtol=1e-2, atol=0)
    np.testing.assert_allclose(got[0], _np_rmsprop(0.01, eps=0.5)[0], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_groups_set_rate_and_decay_per_parameter(mode):
    got, _ = _run_mycel(lambda p: nn.RMSProp([{"params": p[:1], "lr": 0.05},
                                              {"params": p[1:], "weight_decay": 0.1}],
                                             0.01, momentum=0.5, epsilon=1e-3), mode)
    want = [_np_rmsprop(0.05, momentum=0.5, eps=1e-3)[0]] + \
        _np_rmsprop(0.01, momentum=0.5, eps=1e-3, wd=0.1)[1:]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_asgd_average_and_rprop_state_match_torch(mode):
    _, opt = _run_mycel(lambda p: nn.ASGD(p, 0.1, lambd=0.01, t0=2.0), mode)
    _, topt = _run_torch(lambda p: torch.optim.ASGD(p, 0.1, lambd=0.01, t0=2.0))
    tstates = list(topt.state.values())
    for ax, s in zip(opt.ax, tstates):
        np.testing.assert_allclose(ax.asnumpy(), s["ax"].numpy(), rtol=2e-5, atol=2e-6)
    for eta, mu, s in zip(opt.eta, opt.mu, tstates):
        assert float(eta.asnumpy()) == pytest.approx(s["eta"].item(), rel=1e-5)
        assert float(mu.asnumpy()) == pytest.approx(s["mu"].item(), rel=1e-6)
    _, opt = _run_mycel(lambda p: nn.Rprop(p, 0.01), mode)
    _, topt = _run_torch(lambda p: torch.optim.Rprop(p, 0.01))
    for size, prev, s in zip(opt.step_size, opt.prev, topt.state.values()):
        np.testing.assert_allclose(size.asnumpy(), s["step_size"].numpy(), rtol=1e-5)
        np.testing.assert_allclose(prev.asnumpy(), s["prev"].numpy(), rtol=1e-6)
    assert opt.global_step.asnumpy().tolist() == [STEPS]


def test_float64_parameters_update_in_float64():
    got, _ = _run_mycel(lambda p: nn.Adadelta(p, 0.5, rho=0.75, epsilon=0.0625),
                        ms.PYNATIVE_MODE, dtype=np.float64)
    want = _run_torch(lambda p: torch.optim.Adadelta(p, 0.5, rho=0.75, eps=0.0625))[0]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("make", [lambda p: nn.AdaMax(p, 0.01), lambda p: nn.RMSProp(p, 0.01),
                                  lambda p: nn.ASGD(p, 0.01), lambda p: nn.Lamb(p, 0.01)],
                         ids=["AdaMax", "RMSProp", "ASGD", "Lamb"])
def test_float16_parameters_with_zero_gradients_stay_finite(make):
    # The hyperparameters are float32: AdaMax's eps 1e-8 (0 in float16) keeps 0 / (0 + eps)
    # finite where a gradient is zero, and RMSProp's 1e-10 likewise.
    w = np.array([0.5, -1.0, 2.0, 0.25], np.float16)
    p = Parameter(Tensor(w), "w")
    opt = make([p])
    for g in ([0.0, 1.0, -2.0, 0.0], [0.0, -1.0, 0.5, 0.0]):
        opt((Tensor(np.array(g, np.float16)),))
    got = p.asnumpy()
    assert got.dtype == np.float16 and np.isfinite(got).all()
    if not isinstance(opt, nn.ASGD):  # (ASGD also shrinks every weight by lambd * eta)
        assert got[0] == w[0] and got[3] == w[3]
    assert not np.array_equal(got[1:3], w[1:3])


def test_state_parameter_names():
    def names(opt):
        return {p.name for p in opt.get_parameters()}
    assert {"accum.p0", "learning_rate", "global_step"} <= names(nn.Adagrad(_params()))
    assert {"mean_square.p1", "moment.p1", "mean_grad.p1"} <= \
        names(nn.RMSProp(_params(), centered=True))
    assert "mean_grad.p1" not in names(nn.RMSProp(_params()))
    assert {"moment1.p2", "moment2.p2", "beta1_power"} <= names(nn.AdaMax(_params()))
    assert {"accum.p0", "accum_update.p0"} <= names(nn.Adadelta(_params()))
    assert {"moments.p0", "linear.p0"} <= names(nn.FTRL(_params()))
    assert {"ax_.p0", "eta_p0", "mu_p0"} <= names(nn.ASGD(_params()))
    assert {"prev.p0", "step_size.p0"} <= names(nn.Rprop(_params()))
    assert {"lamb_m.p0", "lamb_v.p0"} <= names(nn.Lamb(_params(), 0.1))
    opt = nn.FTRL(_params(), initial_accum=0.25)
    np.testing.assert_array_equal(opt.moments[0].asnumpy(), np.full((4, 3), 0.25, np.float32))
    opt = nn.RMSProp(_params())
    np.testing.assert_array_equal(opt.ms[1].asnumpy(), np.ones(5, np.float32))


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


X = R.randn(10, 6).astype(np.float32)
Y = R.randint(0, 3, 10).astype(np.int32)

TRAIN = {
    "Adagrad": (lambda p: nn.Adagrad(p, learning_rate=0.1),
                lambda p: torch.optim.Adagrad(p, 0.1, initial_accumulator_value=0.1, eps=0.0)),
    "Adadelta": (lambda p: nn.Adadelta(p), lambda p: torch.optim.Adadelta(p)),
    "ASGD": (lambda p: nn.ASGD(p, 0.1, t0=2.0), lambda p: torch.optim.ASGD(p, 0.1, t0=2.0)),
    "Rprop": (lambda p: nn.Rprop(p, 0.01), lambda p: torch.optim.Rprop(p, 0.01)),
}


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("name", sorted(TRAIN))
def test_train_one_step_cell_matches_torch_training(name, mode):
    ms.set_context(mode=mode)
    ms.set_seed(3)
    net = _Mlp()
    tnet = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        for t, c in ((tnet[0], net.fc1), (tnet[2], net.fc2)):
            t.weight.copy_(torch.tensor(c.weight.asnumpy()))
            t.bias.copy_(torch.tensor(c.bias.asnumpy()))
    make, make_torch = TRAIN[name]
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                               make(net.trainable_params()))
    step.set_train()
    topt = make_torch(tnet.parameters())
    for _ in range(5):
        loss = float(step(Tensor(X), Tensor(Y)).asnumpy())
        topt.zero_grad()
        tl = torch.nn.functional.cross_entropy(tnet(torch.tensor(X)), torch.tensor(Y).long())
        tl.backward()
        topt.step()
        assert loss == pytest.approx(tl.item(), rel=1e-5)
    np.testing.assert_allclose(net.fc1.weight.asnumpy(), tnet[0].weight.detach().numpy(),
                               rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- the update primitives

def _t(x):
    return Tensor(np.asarray(x, np.float32))


def _state(*xs):
    return [Parameter(_t(x), f"s{i}", requires_grad=False) for i, x in enumerate(xs)]


V, A, G = R.randn(6), R.rand(6) + 0.5, R.randn(6)
M = R.randn(6) * 0.1


def test_update_primitives_follow_mindspore_formulas_and_arity():
    var, acc = _state(V, A)
    out = ops.ApplyAdagrad()(var, acc, 0.1, _t(G))
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(acc.asnumpy(), A + G * G, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), V - 0.1 * G / np.sqrt(A + G * G), rtol=1e-5)
    np.testing.assert_allclose(out[0].asnumpy(), var.asnumpy())

    var, ms_, mom = _state(V, A, M)
    out = ops.ApplyRMSProp()(var, ms_, mom, 0.1, _t(G), 0.9, 0.5, 1e-3)
    assert isinstance(out, Tensor)  # MindSpore's ApplyRMSProp returns var alone
    s = 0.9 * A + 0.1 * G * G
    m = 0.5 * M + 0.1 * G / np.sqrt(s + 1e-3)
    np.testing.assert_allclose(ms_.asnumpy(), s, rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), V - m, rtol=1e-5)

    var, mg, ms_, mom = _state(V, M, A, M)
    ops.ApplyCenteredRMSProp()(var, mg, ms_, mom, _t(G), 0.1, 0.9, 0.5, 1e-3)
    g_avg = 0.9 * M + 0.1 * G
    m = 0.5 * M + 0.1 * G / np.sqrt(s - g_avg ** 2 + 1e-3)
    np.testing.assert_allclose(mg.asnumpy(), g_avg, rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), V - m, rtol=1e-5)

    var, m_, v_ = _state(V, M, A)
    out = ops.ApplyAdaMax()(var, m_, v_, 0.81, 0.1, 0.9, 0.99, 1e-2, _t(G))
    assert len(out) == 3
    m = 0.9 * M + 0.1 * G
    v = np.maximum(0.99 * A, np.abs(G))
    np.testing.assert_allclose(v_.asnumpy(), v, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), V - 0.1 / 0.19 * m / (v + 1e-2), rtol=1e-5)

    var, acc, up = _state(V, A, A * 0.5)
    out = ops.ApplyAdadelta()(var, acc, up, 1.0, 0.9, 1e-6, _t(G))
    assert len(out) == 3
    a = 0.9 * A + 0.1 * G * G
    u = np.sqrt(A * 0.5 + 1e-6) / np.sqrt(a + 1e-6) * G
    np.testing.assert_allclose(up.asnumpy(), 0.9 * A * 0.5 + 0.1 * u * u, rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), V - u, rtol=1e-5)


def test_ftrl_primitive_zeroes_weights_under_l1():
    an = A + G * G
    li = M + G - (np.sqrt(an) - np.sqrt(A)) / 0.5 * V
    l1 = float(np.median(np.abs(li)))  # half the weights fall under it
    want = np.where(np.abs(li) > l1, (np.sign(li) * l1 - li) / (np.sqrt(an) / 0.5 + 0.2), 0)
    var, acc, lin = _state(V, A, M)
    out = ops.ApplyFtrl()(var, acc, lin, _t(G), 0.5, l1, 0.1, -0.5)
    assert isinstance(out, Tensor)
    np.testing.assert_allclose(lin.asnumpy(), li, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert (var.asnumpy() == 0).any() and (var.asnumpy() != 0).any()


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_update_primitive_inside_a_cell_writes_its_state(mode):
    ms.set_context(mode=mode)

    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(_t(V), "w")
            self.ms = Parameter(_t(A), "ms", requires_grad=False)
            self.mom = Parameter(_t(M), "mom", requires_grad=False)
            self.op = ops.ApplyRMSProp()

        def construct(self, g):
            before = self.w * 1.0
            return self.op(self.w, self.ms, self.mom, 0.1, g, 0.9, 0.0, 1e-3), before

    net = Step()
    new, before = net(_t(G))
    s = 0.9 * A + 0.1 * G * G
    np.testing.assert_allclose(before.asnumpy(), V.astype(np.float32))
    np.testing.assert_allclose(net.w.asnumpy(), V - 0.1 * G / np.sqrt(s + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(net.ms.asnumpy(), s, rtol=1e-5)
    np.testing.assert_allclose(new.asnumpy(), net.w.asnumpy())


def test_update_primitive_errors_name_the_op():
    var, acc = _state(V, A)
    with pytest.raises(ValueError, match=r"For 'ApplyAdagrad', the 'grad' must have the shape "
                                         r"and dtype of 'var'"):
        ops.ApplyAdagrad()(var, acc, 0.1, _t(np.zeros(5)))
    with pytest.raises(TypeError, match=r"For 'ApplyFtrl', the 'lr' must be a floating-point "
                                        r"scalar"):
        ops.ApplyFtrl()(var, acc, acc, _t(G), _t([0.1, 0.2]), 0.0, 0.0, -0.5)
    with pytest.raises(TypeError, match=r"For 'ApplyRMSProp', .* 'update_slots'"):
        ops.ApplyRMSProp(update_slots=True)


# ---------------------------------------------------------------- argument errors

@pytest.mark.parametrize("make,exc,msg", [
    (lambda p: nn.Adagrad(p, accum=-0.1), ValueError, r"For 'Adagrad', the 'accum' must be in"),
    (lambda p: nn.Adagrad(p, update_slots=1), TypeError, r"For 'Adagrad', the 'update_slots'"),
    (lambda p: nn.Adagrad(p, loss_scale=0.0), ValueError, r"For 'Adagrad', the 'loss_scale'"),
    (lambda p: nn.RMSProp(p, epsilon=0.0), ValueError, r"For 'RMSProp', the 'epsilon' must be "
                                                       r"positive"),
    (lambda p: nn.RMSProp(p, decay=-0.1), ValueError, r"For 'RMSProp', the 'decay'"),
    (lambda p: nn.RMSProp(p, centered="yes"), TypeError, r"For 'RMSProp', the 'centered'"),
    (lambda p: nn.RMSProp(p, momentum="0.9"), TypeError, r"For 'RMSProp', the 'momentum' must "
                                                         r"be a float"),
    (lambda p: nn.AdaMax(p, beta1=1.0), ValueError, r"For 'AdaMax', the 'beta1' must be in "
                                                    r"\(0.0, 1.0\)"),
    (lambda p: nn.AdaMax(p, eps=0.0), ValueError, r"For 'AdaMax', the 'eps' must be positive"),
    (lambda p: nn.Adadelta(p, rho=1.5), ValueError, r"For 'Adadelta', the 'rho' must be in"),
    (lambda p: nn.Adadelta(p, epsilon=-1e-6), ValueError, r"For 'Adadelta', the 'epsilon'"),
    (lambda p: nn.Adadelta(p, learning_rate=-1.0), ValueError, r"For 'Adadelta', the "
                                                               r"'learning_rate'"),
    (lambda p: nn.FTRL(p, learning_rate=[0.1, 0.2]), TypeError, r"For 'FTRL', the "
                                                                r"'learning_rate' must be a float"),
    (lambda p: nn.FTRL([{"params": p[:1], "lr": 0.1}, {"params": p[1:]}]), ValueError,
     r"For 'FTRL', dynamic learning rate and group learning rate are not supported"),
    (lambda p: nn.FTRL(p, learning_rate=0.0), ValueError, r"For 'FTRL', the 'learning_rate' "
                                                          r"must be positive"),
    (lambda p: nn.FTRL(p, lr_power=0.5), ValueError, r"For 'FTRL', the 'lr_power' must be <= 0"),
    (lambda p: nn.FTRL(p, l1=-1.0), ValueError, r"For 'FTRL', the 'l1'"),
    (lambda p: nn.FTRL(p, use_locking=None), TypeError, r"For 'FTRL', the 'use_locking'"),
    (lambda p: nn.ASGD(p, lambd="1e-4"), TypeError, r"For 'ASGD', the 'lambd' must be a float"),
    (lambda p: nn.ASGD(p, weight_decay=-1.0), ValueError, r"For 'ASGD', the 'weight_decay'"),
    (lambda p: nn.Rprop(p, etas=[0.5, 1.2]), TypeError, r"For 'Rprop', the 'etas' must be a "
                                                        r"tuple"),
    (lambda p: nn.Rprop(p, step_sizes=(1e-6,)), ValueError, r"For 'Rprop', the 'step_sizes' "
                                                            r"must be a tuple of 2"),
    (lambda p: nn.Rprop(p, etas=(1.5, 1.2)), ValueError, r"For 'Rprop', the 'etaminus' must be "
                                                         r"in \(0.0, 1.0\)"),
    (lambda p: nn.Rprop(p, etas=(0.5, 1.0)), ValueError, r"For 'Rprop', the 'etaplus' must be "
                                                         r"greater than 1.0"),
    (lambda p: nn.Rprop(p, step_sizes=(1.0, 0.1)), ValueError, r"For 'Rprop', the maximal step "
                                                               r"size"),
    (lambda p: nn.Lamb(p, 0.1, beta2=0.0), ValueError, r"For 'Lamb', the 'beta2' must be in"),
    (lambda p: nn.Lamb(p, 0.1, eps=-1.0), ValueError, r"For 'Lamb', the 'eps' must be positive"),
    (lambda p: nn.Lamb(p, "fast"), TypeError, r"For 'Lamb', the 'learning_rate' must be a float"),
    (lambda p: nn.Lamb(p[0], 0.1), TypeError, r"For 'Lamb', the 'parameters' must be a list"),
])
def test_optimizer_argument_errors(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make(_params())


def test_lamb_needs_a_learning_rate():
    with pytest.raises(TypeError, match="learning_rate"):
        nn.Lamb(_params())  # pylint: disable=no-value-for-parameter


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_wrong_gradient_count_is_an_error(mode):
    ms.set_context(mode=mode)
    opt = nn.FTRL(_params())
    with pytest.raises(ValueError, match=r"For 'FTRL', the gradients must be a tuple of 3 "):
        opt(tuple(Tensor(np.zeros(s, np.float32)) for s in SHAPES[:2]))


def test_numpy_oracles_agree_with_torch_where_the_formulas_do():
    # A guard on the oracles: MindSpore's Adagrad is PyTorch's with eps 0, and MindSpore's
    # RMSProp is PyTorch's started at mean_square 1 up to epsilon's place (1e-10 here).
    want = _run_torch(lambda p: torch.optim.Adagrad(p, 0.1, initial_accumulator_value=0.1,
                                                    eps=0.0))[0]
    for g, w in zip(_np_adagrad(0.1), want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    want = _run_torch(lambda p: torch.optim.RMSprop(p, 0.01, alpha=0.9, eps=1e-10, momentum=0.5,
                                                    centered=True),
                      state=_rms_state(True, 0.5))[0]
    for g, w in zip(_np_rmsprop(0.01, momentum=0.5, centered=True), want):
        np.testing.assert_allclose(g, w, rtol=1e-8)
