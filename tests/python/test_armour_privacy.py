"""mycel.armour.privacy.diff_privacy: the RDP and zCDP accountants against independent
references (numerical integration of the Renyi divergence, the integer-order binomial sum
written here, the zCDP formulas, the published values of Abadi et al., TF Privacy and
Opacus), and DP-SGD training (DPModel, DP optimizers, noise and clipping mechanisms) against
ordinary training, torch's per-micro-batch clipping and the
noise's statistics, in both modes."""
import math

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Parameter, Tensor, nn, ops
from mycel.armour.privacy.diff_privacy import (ClipMechanismsFactory, DPModel,
                                               DPOptimizerClassFactory, DPTrainOneStepCell,
                                               NoiseMechanismsFactory, PrivacyMonitorFactory,
                                               RDPMonitor, ZCDPMonitor)
from mycel.train import Model


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    """Runs the test in each mode and restores PYNATIVE afterwards."""
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


# ---------------------------------------------------------------- references (numpy only)

def rdp_by_integration(q, sigma, alpha):
    """RDP(alpha) of the sampled Gaussian mechanism as log(A)/(alpha-1) with
    A = integral of N(z; 0, s^2) (1 - q + q exp((2z - 1)/(2 s^2)))^alpha dz, by the trapezoid
    rule on a fine grid covering the integrand's mass: in log space, or, when A is close to 1
    (small q, orders near 1), as 1 + the integral of N(z) (ratio - 1) (expm1, log1p), which
    keeps the relative precision of a tiny log A."""
    z = np.linspace(-40 * sigma, alpha + 40 * sigma, 2000001)
    log_ratio = alpha * np.log1p(q * np.expm1((2 * z - 1) / (2 * sigma ** 2)))
    density = -z * z / (2 * sigma ** 2) - math.log(math.sqrt(2 * math.pi) * sigma)
    log_f = density + log_ratio
    top = log_f.max()
    log_a = top + math.log(np.trapz(np.exp(log_f - top), dx=z[1] - z[0]))
    if log_a > 1e-3:
        return log_a / (alpha - 1)
    g = np.exp(density) * np.expm1(log_ratio)  # log_ratio is small wherever density is not
    return math.log1p(np.trapz(g, dx=z[1] - z[0])) / (alpha - 1)


def rdp_integer_order(q, sigma, alpha):
    """The integer-order closed form, summed with exact binomials in Python floats."""
    total = sum(math.comb(alpha, k) * (1 - q) ** (alpha - k) * q ** k *
                math.exp((k * k - k) / (2 * sigma ** 2)) for k in range(alpha + 1))
    return math.log(total) / (alpha - 1)


def classic_eps(orders, rdp, delta):
    return min(r + math.log(1 / delta) / (a - 1) for a, r in zip(orders, rdp))


@pytest.mark.parametrize("q,sigma,alpha", [(0.01, 1.1, 2), (0.01, 1.1, 3.5), (0.01, 1.1, 1.1),
                                           (0.1, 2.0, 7.3), (0.01, 1.1, 20), (0.05, 0.8, 1.5),
                                           (0.2, 1.0, 32), (0.004, 0.7, 5.25), (1e-5, 1.0, 1.5),
                                           (0.01, 10.0, 1.005), (0.5, 1.0, 2.5),
                                           (0.001, 5.0, 50.5)])
def test_rdp_of_one_step_matches_numerical_integration(q, sigma, alpha):
    mon = RDPMonitor(int(round(1000 / q)), 1000, initial_noise_multiplier=sigma,
                     orders=[alpha], noise_decay_mode=None)
    mon.account(1)
    assert mon.rdp[0] == pytest.approx(rdp_by_integration(q, sigma, alpha), rel=1e-4)


@pytest.mark.parametrize("sigma", [1.1, 4.0])
def test_rdp_eps_of_the_published_setting(sigma):
    """q = 0.01, 10,000 steps, delta = 1e-5 (TF Privacy's and Abadi et al.'s setting): eps
    from the monitor equals the eps computed from integrated RDPs to 1%."""
    orders = [1.25, 1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64]
    mon = PrivacyMonitorFactory.create("rdp", num_samples=60000, batch_size=600,
                                       initial_noise_multiplier=sigma, target_delta=1e-5,
                                       orders=orders, noise_decay_mode=None)
    mon.account(10000)
    ref = classic_eps(orders, [10000 * rdp_by_integration(0.01, sigma, a) for a in orders],
                      1e-5)
    assert mon.eps == pytest.approx(ref, rel=0.01)
    assert mon.delta == 1e-5
    assert mon.privacy_spent(10000)[0] == pytest.approx(mon.eps, rel=1e-12)


def balle_eps(orders, rdp, delta):
    """The tighter RDP -> (eps, delta) conversion of Balle et al. 2020 ("Hypothesis testing
    interpretations and Renyi differential privacy", Thm. 21), which Opacus's
    get_privacy_spent applies: min over alpha of RDP(alpha) - (log(delta) + log(alpha)) /
    (alpha - 1) + log((alpha - 1) / alpha)."""
    return min(r - (math.log(delta) + math.log(a)) / (a - 1) + math.log((a - 1) / a)
               for a, r in zip(orders, rdp))


# Published (eps, delta) of DP-SGD's sampled Gaussian mechanism, each with its source:
# (num_samples, batch_size, sigma, steps, orders, published eps at delta 1e-5, conversion).
PUBLISHED = {
    # Abadi et al. 2016, "Deep Learning with Differential Privacy", Sec. 3.1: "with L = 0.01N,
    # sigma = 4, delta = 1e-5, and T = 10000, we have eps ~ 1.26 using the moments
    # accountant" (its moments are the integer orders lambda <= 32).
    "abadi2016": (60000, 600, 4.0, 10000, list(range(2, 33)), 1.26, classic_eps),
    # TF Privacy, compute_dp_sgd_privacy.py's docstring (commit 1ce8cd40): N = 60000,
    # batch_size = 256, noise_multiplier = 1.12, epochs = 60, delta = 1e-5 "satisfies
    # (2.92, 1e-5)-DP"; steps = ceil(epochs N / batch_size), its orders.
    "tf_privacy": (60000, 256, 1.12, math.ceil(60 * 60000 / 256),
                   [1.25, 1.5, 1.75, 2., 2.25, 2.5, 3., 3.5, 4., 4.5] + list(range(5, 64)) +
                   [128, 256, 512], 2.92, classic_eps),
    # Opacus, opacus/scripts/compute_dp_sgd_privacy.py's docstring (commit b4216538): dataset
    # 60000, batch 256, noise 1.12, 60 epochs, delta 1e-5, alphas 10 20 100 gives "(2.95,
    # 1e-5)"; steps = epochs * ceil(60000 / 256).
    "opacus_2020": (60000, 256, 1.12, 60 * math.ceil(60000 / 256), [10, 20, 100], 2.95,
                    classic_eps),
    # Opacus, the same script's later docstring (commit 2f4b5464): sampling rate 1%, noise
    # 1.0, 300 steps, alphas 2 5 10 20 100, delta 1e-5: "epsilon = 2.39", with the Balle et
    # al. conversion its get_privacy_spent then used.
    "opacus_2022": (60000, 600, 1.0, 300, [2, 5, 10, 20, 100], 2.39, balle_eps),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_rdp_monitor_matches_published_values(name):
    """The RDP monitor's accountant against the published values above, to 1% (issue 23);
    the conversion is the monitor's own eps where the source used the classic one, else
    applied here to the monitor's RDP curve."""
    n, batch, sigma, steps, orders, published, convert = PUBLISHED[name]
    mon = PrivacyMonitorFactory.create("rdp", num_samples=n, batch_size=batch,
                                       initial_noise_multiplier=sigma, target_delta=1e-5,
                                       orders=orders, noise_decay_mode=None)
    mon.account(steps)
    eps = mon.eps if convert is classic_eps else convert(orders, mon.rdp, 1e-5)
    assert eps == pytest.approx(published, rel=0.01)


def test_rdp_with_noise_decay_sums_the_schedule():
    """'Time' decay as MindArmour's: sigma_t = sigma_0 / (1 + r t); the monitor's RDP is the
    sum of the steps' RDPs (integer orders, closed form here)."""
    orders, sigma0, rate, steps = [2, 4, 8, 16], 2.0, 0.01, 30
    mon = RDPMonitor(1000, 50, initial_noise_multiplier=sigma0, target_delta=1e-5, orders=orders,
                     noise_decay_mode="Time", noise_decay_rate=rate)
    mon.account(steps)
    ref = [sum(rdp_integer_order(0.05, sigma0 / (1 + rate * t), a) for t in range(steps))
           for a in orders]
    np.testing.assert_allclose(mon.rdp, ref, rtol=1e-9)
    assert mon.eps == pytest.approx(classic_eps(orders, ref, 1e-5), rel=1e-9)


@pytest.mark.parametrize("policy,closed_form", [
    ("Time", lambda s, r, t: s / (1 + r * t)), ("Step", lambda s, r, t: s * (1 - r) ** t),
    ("Exp", lambda s, r, t: s * math.exp(-r * t))])
def test_decay_schedule_of_mechanism_and_monitor_agree(policy, closed_form):
    """MindArmour's schedules (the mechanism's per-step update, the monitors' sigma_t): the
    adaptive mechanism after t updates and both monitors' multiplier of step t equal the
    closed form."""
    sigma, rate = 1.5, 0.05
    mech = NoiseMechanismsFactory.create("AdaGaussian", initial_noise_multiplier=sigma,
                                         noise_decay_rate=rate, decay_policy=policy)
    rdp = RDPMonitor(1000, 10, initial_noise_multiplier=sigma, noise_decay_mode=policy,
                     noise_decay_rate=rate)
    zcdp = ZCDPMonitor(1000, 10, initial_noise_multiplier=sigma, noise_decay_mode=policy,
                       noise_decay_rate=rate)
    for t in range(6):
        want = closed_form(sigma, rate, t)
        assert float(mech._noise_multiplier.asnumpy()) == pytest.approx(want, rel=1e-6)
        assert rdp.noise_multiplier(t) == pytest.approx(want, rel=1e-12)
        assert zcdp.noise_multiplier(t) == pytest.approx(want, rel=1e-12)
        mech.update()


def test_rdp_budgets_and_epoch_suggestion():
    """MindArmour's arguments: with target_delta the monitor reports eps and max_eps bounds
    max_epoch_suggest (the most epochs within it); with target_eps it reports delta, bounded
    by max_delta; the zCDP monitor's suggestion reads its own eps."""
    orders = [2, 3, 4, 6, 8, 12, 16, 24, 32]
    rdp = lambda a: rdp_integer_order(0.01, 1.2, a)  # noqa: E731
    eps_at = lambda e: classic_eps(orders, [100 * e * rdp(a) for a in orders], 1e-5)  # noqa
    delta_at = lambda e, eps: min(1.0, math.exp(min((a - 1) * (100 * e * rdp(a) - eps)  # noqa
                                                    for a in orders)))
    mon = RDPMonitor(10000, 100, 1.2, 3.0, 1e-5, orders=orders, noise_decay_mode=None)
    n = mon.max_epoch_suggest()
    assert 0 < n < 50 and eps_at(n) <= 3.0 < eps_at(n + 1)
    assert mon.steps == 0  # the suggestion accounts nothing
    by_delta = RDPMonitor(10000, 100, 1.2, max_eps=None, target_delta=None, max_delta=1e-4,
                          target_eps=3.0, orders=orders, noise_decay_mode=None)
    m = by_delta.max_epoch_suggest()
    assert delta_at(m, 3.0) <= 1e-4 < delta_at(m + 1, 3.0)
    by_delta.account(500)
    assert by_delta.eps == 3.0 and by_delta.delta == pytest.approx(delta_at(5, 3.0), rel=1e-9)
    z = ZCDPMonitor(10000, 100, 40.0, max_eps=3.0, target_delta=1e-5, noise_decay_mode=None)
    k = z.max_epoch_suggest()
    rho = lambda e: 100 * e / (2 * 40.0 ** 2)  # noqa: E731
    zeps = lambda e: rho(e) + 2 * math.sqrt(rho(e) * math.log(1e5))  # noqa: E731
    assert k > 1 and zeps(k) <= 3.0 < zeps(k + 1)
    with pytest.raises(ValueError, match="max_delta"):
        RDPMonitor(10000, 100, target_delta=None, target_eps=1.0).max_epoch_suggest()


def test_zcdp_monitor_formula():
    mon = PrivacyMonitorFactory.create("zcdp", 1000, 10, initial_noise_multiplier=1.5,
                                       noise_decay_mode="Step", noise_decay_rate=0.02,
                                       target_delta=1e-5)
    assert isinstance(mon, ZCDPMonitor)
    mon.account(40)
    rho = sum(1 / (2 * (1.5 * 0.98 ** t) ** 2) for t in range(40))
    assert mon.rho == pytest.approx(rho, rel=1e-12)
    assert mon.eps == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)), rel=1e-12)


def test_monitor_argument_errors():
    with pytest.raises(ValueError, match="policy"):
        PrivacyMonitorFactory.create("gdp", 100, 10)
    with pytest.raises(ValueError, match="batch_size"):
        RDPMonitor(10, 20)
    with pytest.raises(ValueError, match="orders"):
        RDPMonitor(100, 10, orders=[0.5, 2])
    with pytest.raises(ValueError, match="decay mode"):
        RDPMonitor(100, 10, noise_decay_mode="Linear")
    with pytest.raises(ValueError, match="initial_noise_multiplier"):
        ZCDPMonitor(100, 10, initial_noise_multiplier=0)
    with pytest.raises(ValueError, match="exactly one of 'target_delta' and 'target_eps'"):
        RDPMonitor(100, 10, target_delta=1e-5, target_eps=1.0)
    with pytest.raises(ValueError, match="exactly one"):
        RDPMonitor(100, 10, target_delta=None)
    with pytest.raises(TypeError, match="stop_when_spent"):
        RDPMonitor(100, 10, stop_when_spent=1)
    with pytest.raises(ValueError, match="'max_eps' must be set"):
        ZCDPMonitor(100, 10, max_eps=None, stop_when_spent=True)
    with pytest.raises(ValueError, match="'max_delta' must be set"):
        RDPMonitor(100, 10, target_delta=None, target_eps=2.0, stop_when_spent=True)


# ---------------------------------------------------------------- DP training

def blobs(n=64, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 3, n).astype(np.int32)
    x = (rng.randn(n, 4) + 3 * np.eye(3, 4)[y]).astype(np.float32)
    return x, y


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def weights_of(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


def copy_weights(src, dst):
    for a, b in zip(src.trainable_params(), dst.trainable_params()):
        b.set_data(Tensor(a.asnumpy().copy()))


def batches(x, y, bs):
    return [(Tensor(x[i:i + bs]), Tensor(y[i:i + bs])) for i in range(0, len(x), bs)]


def test_dp_training_without_noise_or_clipping_is_ordinary_training(mode):
    ms.set_seed(3)
    x, y = blobs()
    ref_net, dp_net, opt_net = MLP(), MLP(), MLP()
    copy_weights(ref_net, dp_net)
    copy_weights(ref_net, opt_net)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    Model(ref_net, loss, nn.Momentum(ref_net.trainable_params(), 0.1, 0.9)).train(
        2, batches(x, y, 16))
    mech = NoiseMechanismsFactory.create("Gaussian", norm_bound=1e6, initial_noise_multiplier=0.0)
    DPModel(micro_batches=4, norm_bound=1e6, noise_mech=mech, network=dp_net, loss_fn=loss,
            optimizer=nn.Momentum(dp_net.trainable_params(), 0.1, 0.9)).train(
        2, batches(x, y, 16))
    factory = DPOptimizerClassFactory(micro_batches=4)
    factory.set_mechanisms("Gaussian", norm_bound=1e6, initial_noise_multiplier=0.0)
    opt = factory.create("Momentum")(opt_net.trainable_params(), learning_rate=0.1, momentum=0.9)
    DPModel(micro_batches=4, norm_bound=1e6, network=opt_net, loss_fn=loss,
            optimizer=opt).train(2, batches(x, y, 16))
    for a, b, c in zip(weights_of(ref_net), weights_of(dp_net), weights_of(opt_net)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(c, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n,k", [(24, 6), (96, 96)])
def test_per_micro_batch_clipping_matches_torch(mode, n, k):
    """One SGD step (lr 1) with noise 0: the update is minus the mean over micro-batches of
    each micro-batch gradient scaled to global norm <= C, computed by torch autograd; 96
    micro-batches of one example (per-example clipping) run as 3 chunks of 32."""
    ms.set_seed(5)
    x, y = blobs(n, seed=1)
    net = MLP()
    w0 = weights_of(net)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    mech = NoiseMechanismsFactory.create("Gaussian", norm_bound=0.3, initial_noise_multiplier=0.0)
    step = DPTrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 1.0),
                              micro_batches=k, norm_bound=0.3, noise_mech=mech)
    step(Tensor(x), Tensor(y))
    tw = [torch.tensor(w, requires_grad=True) for w in w0]  # fc1.w, fc1.b, fc2.w, fc2.b
    total, clipped, m = [torch.zeros_like(t) for t in tw], 0, n // k
    for i in range(k):
        xb, yb = torch.tensor(x[m * i:m * i + m]), torch.tensor(y[m * i:m * i + m]).long()
        h = torch.relu(xb @ tw[0].T + tw[1])
        out = torch.nn.functional.cross_entropy(h @ tw[2].T + tw[3], yb)
        grads = torch.autograd.grad(out, tw)
        norm = torch.sqrt(sum((g * g).sum() for g in grads))
        clipped += int(norm > 0.3)
        total = [t + g * min(1.0, 0.3 / float(norm)) for t, g in zip(total, grads)]
    assert clipped > 0
    for w, t, new in zip(w0, total, weights_of(net)):
        np.testing.assert_allclose(new, w - t.numpy() / k, rtol=1e-5, atol=1e-6)


class ZeroGrad(nn.Cell):
    """loss = sum(w * x): with x = 0 every gradient is 0, so a step moves w by noise only."""

    def __init__(self, n):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros(n, np.float32)), name="w")

    def construct(self, x):
        return ops.sum(self.w * x)


def test_noise_has_the_calibrated_std(mode):
    """200,000 noise samples: the step's update is -noise / micro_batches with noise std
    C * sigma; the sample std is within 2% (about 13 standard errors) and the mean within 5
    standard errors, for the Gaussian and (after decay) AdaGaussian mechanisms, whose
    multiplier after t steps is MindArmour's sigma / (1 + rate t) ('Time')."""
    ms.set_seed(11)
    n, c, sigma, k = 200000, 2.0, 1.5, 4
    time_decay = {"noise_decay_rate": 0.1, "decay_policy": "Time"}
    for name, kwargs, decay in [("Gaussian", {}, lambda t: 1.0),
                                ("AdaGaussian", time_decay, lambda t: 1 / (1 + 0.1 * t))]:
        net = ZeroGrad(n)
        mech = NoiseMechanismsFactory.create(name, norm_bound=c, initial_noise_multiplier=sigma,
                                             **kwargs)
        step = DPTrainOneStepCell(net, nn.SGD(net.trainable_params(), 1.0), micro_batches=k,
                                  norm_bound=c, noise_mech=mech)
        x = Tensor(np.zeros((k, n), np.float32))
        for t in range(3):
            before = net.w.asnumpy().copy()
            step(x)
            noise = (before - net.w.asnumpy()) * k
            std = c * sigma * decay(t)
            assert abs(noise.std() / std - 1) < 0.02
            assert abs(noise.mean()) < 5 * std / math.sqrt(n)
        assert float(mech._noise_multiplier.asnumpy()) == pytest.approx(sigma * decay(3),
                                                                        rel=1e-6)


def test_graph_and_pynative_agree_with_noise():
    x, y = blobs(32, seed=2)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    results = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(7)
        net = MLP()
        factory = DPOptimizerClassFactory(micro_batches=8)
        factory.set_mechanisms("AdaGaussian", norm_bound=0.5, initial_noise_multiplier=1.1,
                               noise_decay_rate=0.05, decay_policy="Exp")
        opt = factory.create("Adam")(net.trainable_params(), learning_rate=0.01)
        DPModel(micro_batches=8, norm_bound=0.5, network=net, loss_fn=loss,
                optimizer=opt).train(2, batches(x, y, 16))
        results.append(weights_of(net))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_adaptive_clipping_updates_the_bound(mode):
    """With fraction_stddev 0 the bound moves by exactly lr * (target - unclipped fraction):
    all micro-batch norms exceed 1e-4, none below 1e3."""
    x, y = blobs(16, seed=3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    for bound, fraction in [(1e-4, 0.0), (1e3, 1.0)]:
        for policy, nxt in [("Linear", lambda b: max(b - 0.01 * (fraction - 0.9), 1e-6)),
                            ("Geometric", lambda b: b * math.exp(-0.01 * (fraction - 0.9)))]:
            net = MLP()
            clip = ClipMechanismsFactory.create("Gaussian", decay_policy=policy,
                                                learning_rate=0.01, fraction_stddev=0.0)
            mech = NoiseMechanismsFactory.create("Gaussian", norm_bound=bound,
                                                 initial_noise_multiplier=0.0)
            step = DPTrainOneStepCell(nn.WithLossCell(net, loss),
                                      nn.SGD(net.trainable_params(), 0.1), 4, bound, mech, clip)
            step(Tensor(x), Tensor(y))
            assert float(step.norm_bound.asnumpy()) == pytest.approx(nxt(bound), rel=1e-5)


def test_monitor_as_a_model_callback(mode, capsys):
    x, y = blobs(64, seed=4)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    mech = NoiseMechanismsFactory.create("Gaussian", norm_bound=1.0, initial_noise_multiplier=1.3)
    model = DPModel(micro_batches=4, norm_bound=1.0, noise_mech=mech, network=net, loss_fn=loss,
                    optimizer=nn.SGD(net.trainable_params(), 0.1))
    orders = [2, 4, 8, 16, 32]
    monitor = PrivacyMonitorFactory.create("rdp", num_samples=64, batch_size=16,
                                           initial_noise_multiplier=1.3, target_delta=1e-3,
                                           orders=orders, noise_decay_mode=None,
                                           per_print_times=2)
    model.train(3, batches(x, y, 16), callbacks=[monitor])
    assert monitor.steps == 12
    ref = classic_eps(orders, [12 * rdp_integer_order(0.25, 1.3, a) for a in orders], 1e-3)
    assert monitor.eps == pytest.approx(ref, rel=1e-9)
    assert capsys.readouterr().out.count("privacy budget eps") == 6
    stopper = RDPMonitor(64, 16, initial_noise_multiplier=1.3, max_eps=ref * 0.6,
                         target_delta=1e-3, orders=orders, noise_decay_mode=None,
                         per_print_times=0, stop_when_spent=True)
    model.train(3, batches(x, y, 16), callbacks=[stopper])
    eps_after = lambda t: classic_eps(orders, [t * rdp_integer_order(0.25, 1.3, a)
                                               for a in orders], 1e-3)
    assert stopper.steps < 12  # stopped at the first step that overspends
    assert eps_after(stopper.steps - 1) <= ref * 0.6 < eps_after(stopper.steps)


def test_monitor_counts_the_steps_of_a_sink(mode, capsys):
    """In dataset sink mode Model.train calls step_end once per sink (an epoch here) with
    cur_step_in_epoch its steps: the monitors account all of them (and print once per
    epoch, as MindArmour's in sink mode)."""
    import mycel.dataset as ds
    x, y = blobs(64, seed=5)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.SGD(net.trainable_params(), 0.1))
    rdp = RDPMonitor(64, 16, initial_noise_multiplier=1.3, target_delta=1e-3,
                     noise_decay_mode="Step", noise_decay_rate=0.01, dataset_sink_mode=True)
    zcdp = ZCDPMonitor(64, 16, initial_noise_multiplier=1.3, noise_decay_mode=None,
                       dataset_sink_mode=True)
    data = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(16)
    model.train(3, data, callbacks=[rdp, zcdp], dataset_sink_mode=True)
    assert rdp.steps == zcdp.steps == 12
    assert rdp.eps == pytest.approx(rdp.privacy_spent(12)[0], rel=1e-12)
    assert capsys.readouterr().out.count("privacy budget eps") == 2 * 3


def test_dp_argument_errors(mode):
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    mech = NoiseMechanismsFactory.create("Gaussian")
    model = DPModel(micro_batches=3, noise_mech=mech, network=net, loss_fn=loss,
                    optimizer=nn.SGD(net.trainable_params(), 0.1))
    x, y = blobs(8)
    with pytest.raises(ValueError, match="multiple of micro_batches 3"):
        model.train(1, batches(x, y, 8))
    with pytest.raises(ValueError, match="calibrated to the clipping bound"):
        DPModel(micro_batches=2, norm_bound=2.0, noise_mech=mech, network=net, loss_fn=loss,
                optimizer=nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(ValueError, match="exactly once"):
        DPModel(network=net, loss_fn=loss, optimizer=nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(ValueError, match="seed"):
        NoiseMechanismsFactory.create("Gaussian", seed=3)
    with pytest.raises(ValueError, match="mech_name"):
        NoiseMechanismsFactory.create("Laplace")
    factory = DPOptimizerClassFactory(micro_batches=2)
    with pytest.raises(ValueError, match="set_mechanisms"):
        factory.create("SGD")
    factory.set_mechanisms("Gaussian", norm_bound=1.0)
    with pytest.raises(ValueError, match="policy"):
        factory.create("RMSProp")
    opt = factory.create("SGD")(net.trainable_params(), 0.1)
    with pytest.raises(ValueError, match="micro-batches"):
        DPModel(micro_batches=4, network=net, loss_fn=loss, optimizer=opt)


# ---------------------------------------------------------------- membership inference

from mycel.armour.privacy.evaluation import MembershipInference  # noqa: E402
from mycel.armour.privacy.evaluation import _attackers  # noqa: E402
from mycel.armour.privacy.evaluation.membership_inference import roc_auc  # noqa: E402


def test_roc_auc_is_the_pairwise_win_rate():
    rng = np.random.RandomState(0)
    labels = rng.randint(0, 2, 300)
    scores = np.round(rng.randn(300) + labels, 1)  # with ties
    pos, neg = scores[labels == 1], scores[labels == 0]
    wins = (pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum()
    assert roc_auc(labels, scores) == pytest.approx(wins / (len(pos) * len(neg)), rel=1e-12)


def test_logistic_regression_attack_matches_torch_optimum():
    """The numpy logistic regression reaches the optimum of the same L2-penalised objective
    that torch's LBFGS finds (a convex problem, so the same weights)."""
    rng = np.random.RandomState(1)
    x = rng.randn(200, 5)
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) + rng.randn(200) > 0).astype(np.float64)
    model = _attackers.LogisticRegression(C=0.5).fit(x, y)
    xs = torch.tensor((x - x.mean(0)) / (x.std(0) + 1e-12))
    w = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=500, tolerance_grad=1e-12, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        z = xs @ w + b
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            z, torch.tensor(y), reduction="sum") + (w * w).sum() / (2 * 0.5)
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(model._w[:5], w.detach().numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(model._w[5], b.item(), rtol=1e-5, atol=1e-7)


def cart_oracle(x, y, depth, max_depth):
    """A CART tree grown by exhaustive search in plain Python (every feature, every midpoint
    of consecutive distinct values, the smallest weighted gini of the children, split only if
    it lowers the node's gini): the member share of the leaf of each row of x."""
    p = sum(y) / len(y)
    gini = lambda q: 2 * q * (1 - q)  # noqa: E731
    best = None
    if 0 < p < 1 and depth < max_depth:
        for f in range(x.shape[1]):
            values = sorted(set(x[:, f].tolist()))
            for lo, hi in zip(values[:-1], values[1:]):
                t = (lo + hi) / 2
                left = [yi for xi, yi in zip(x[:, f], y) if xi <= t]
                right = [yi for xi, yi in zip(x[:, f], y) if xi > t]
                g = (len(left) * gini(sum(left) / len(left)) +
                     len(right) * gini(sum(right) / len(right))) / len(y)
                if best is None or g < best[0]:
                    best = (g, f, t)
    if best is None or best[0] >= gini(p):
        return np.full(len(x), p)
    _, f, t = best
    out, go = np.empty(len(x)), x[:, f] <= t
    out[go] = cart_oracle(x[go], y[go], depth + 1, max_depth)
    out[~go] = cart_oracle(x[~go], y[~go], depth + 1, max_depth)
    return out


def test_random_forest_attack_model(monkeypatch):
    """'rf': one tree on all the data and all features is CART, equal to the exhaustive
    oracle above on every training point; a forest learns XOR-like data that logistic
    regression cannot."""
    rng = np.random.RandomState(4)
    x = rng.randn(120, 3)
    y = ((x[:, 0] > 0.3) ^ (x[:, 1] * x[:, 2] > 0)).astype(np.float64)
    tree = _attackers.RandomForest(n_estimators=1, max_depth=3, max_features=None,
                                   bootstrap=False).fit(x, y)
    np.testing.assert_allclose(tree.score(x), cart_oracle(x, y, 0, 3), rtol=1e-12)
    xt = rng.randn(400, 3)
    yt = ((xt[:, 0] > 0.3) ^ (xt[:, 1] * xt[:, 2] > 0)).astype(np.int64)
    x2 = rng.randn(1000, 3)
    y2 = ((x2[:, 0] > 0.3) ^ (x2[:, 1] * x2[:, 2] > 0)).astype(np.float64)
    forest = _attackers.RandomForest(n_estimators=40, max_depth=None, max_features=2,
                                     criterion="entropy").fit(x2, y2)
    lr = _attackers.LogisticRegression().fit(x2, y2)
    acc_rf, acc_lr = (forest.predict(xt) == yt).mean(), (lr.predict(xt) == yt).mean()
    assert acc_rf > 0.9 and acc_lr < 0.7, (acc_rf, acc_lr)
    assert ((forest.score(xt) >= 0) & (forest.score(xt) <= 1)).all()
    # the grid search draws at most 7 of the 12 points, as MindArmour's RandomizedSearchCV
    points = []

    class Counting(_attackers.RandomForest):
        def fit(self, x, y):
            points.append((self.n_estimators, self.max_depth, self.min_samples_leaf))
            return super().fit(x, y)

    monkeypatch.setitem(_attackers.METHODS, "rf", Counting)
    grid = {"n_estimators": [2, 3], "max_depth": [1, 2, 3], "min_samples_leaf": [1, 5]}
    model = _attackers.grid_search("rf", grid, x, y)
    assert isinstance(model, Counting)
    assert len(points) == 7 * 3 + 1 and len(set(points)) == 7   # 3 folds each, then refit


def blobs10(n, spread, seed):
    rng = np.random.RandomState(seed)
    centers = np.random.RandomState(100).randn(10, 20) * 2.0
    y = rng.randint(0, 10, n).astype(np.int32)
    return (centers[y] + spread * rng.randn(n, 20)).astype(np.float32), y


class Wide(nn.Cell):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Dense(20, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(hidden, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def trained(n_train, spread, hidden, epochs, lr, data_seed=1, init_seed=0):
    ms.set_seed(init_seed)
    x, y = blobs10(n_train, spread, seed=data_seed)
    net = Wide(hidden)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Adam(net.trainable_params(), lr))
    model.train(epochs, batches(x, y, min(100, n_train)))
    return model, x, y


ATTACKS = [{"method": "threshold", "params": {}},
           {"method": "lr", "params": {"C": [0.1, 1.0, 10.0]}},
           {"method": "rf", "params": {"n_estimators": [30], "max_depth": [2, 6]}},
           {"method": "knn", "params": {"n_neighbors": [5, 15]}},
           {"method": "mlp", "params": {"hidden_layer_sizes": [(16,)], "alpha": [1e-3],
                                        "max_iter": [200]}}]


def membership_auc(model, x_train, y_train, x_out, y_out):
    """Attacks trained on half of the members and non-members, evaluated on the others."""
    h, g = len(x_train) // 2, len(x_out) // 2
    mi = MembershipInference(model)
    mi.train(batches(x_train[:h], y_train[:h], 50), batches(x_out[:g], y_out[:g], 50), ATTACKS)
    return mi.eval(batches(x_train[h:], y_train[h:], 50), batches(x_out[g:], y_out[g:], 50),
                   metrics=("precision", "recall", "accuracy", "auc"))


def test_membership_inference_separates_overfit_from_generalising(mode):
    """A wide net fitted for many epochs to 100 samples of overlapping classes is attacked
    successfully (AUC well above 0.5); a small net trained briefly on 2,000 samples of
    separated classes is not (AUC near 0.5)."""
    model, x, y = trained(100, spread=3.0, hidden=256, epochs=200, lr=0.01)
    xo, yo = blobs10(100, 3.0, seed=2)
    overfit = membership_auc(model, x, y, xo, yo)
    model, x, y = trained(2000, spread=0.7, hidden=16, epochs=3, lr=0.01)
    xo, yo = blobs10(800, 0.7, seed=3)
    fair = membership_auc(model, x[:800], y[:800], xo, yo)
    for res in overfit + fair:
        assert set(res) == {"precision", "recall", "accuracy", "auc"}
    assert overfit[0]["accuracy"] > 0.65  # the loss threshold attack
    for r in overfit:  # about 0.73-0.78 here
        assert r["auc"] > 0.65, overfit
    for r in fair:
        assert abs(r["auc"] - 0.5) < 0.08, fair


def test_shadow_model_attack_transfers_to_the_target(mode):
    """Shokri et al.'s setting: the attacker trains a shadow model like the target on data of
    its own, fits the attacks on the shadow's members and non-members, and applies them to
    the target: well above 0.5 AUC on an overfit target, near 0.5 on a generalising one."""
    results = {}
    for name, recipe, n in [("overfit", dict(spread=3.0, hidden=256, epochs=200, lr=0.01), 100),
                            ("fair", dict(spread=0.7, hidden=16, epochs=3, lr=0.01), 2000)]:
        target, x, y = trained(n, **recipe)
        shadow, xs, ys = trained(n, data_seed=7, init_seed=5, **recipe)
        out_shadow, out_target = blobs10(min(n, 800), recipe["spread"], seed=8), \
            blobs10(min(n, 800), recipe["spread"], seed=9)
        k = min(n, 800)
        mi = MembershipInference(target)
        mi.train(batches(xs[:k], ys[:k], 50), batches(*out_shadow, 50), ATTACKS[:3],
                 shadow_model=shadow)
        results[name] = mi.eval(batches(x[:k], y[:k], 50), batches(*out_target, 50),
                                metrics=("accuracy", "auc"))
    print(f"\nshadow-model attacks (threshold, lr, rf) on the target: {results}")
    for r in results["overfit"]:
        assert r["auc"] > 0.65, results
    for r in results["fair"]:
        assert abs(r["auc"] - 0.5) < 0.08, results
    with pytest.raises(TypeError, match="shadow_model"):
        mi.train(batches(x, y, 50), batches(x, y, 50), ATTACKS[:1], shadow_model=Wide(4))


def test_membership_inference_errors():
    net = MLP()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    with pytest.raises(TypeError, match="Model"):
        MembershipInference(net)
    with pytest.raises(ValueError, match="n_jobs"):
        MembershipInference(model, n_jobs=0)
    mi = MembershipInference(model)
    x, y = blobs(16)
    with pytest.raises(ValueError, match="method must be one of"):
        mi.train(batches(x, y, 8), batches(x, y, 8), [{"method": "svm", "params": {}}])
    with pytest.raises(ValueError, match="'max_features' must be"):
        mi.train(batches(x, y, 8), batches(x, y, 8),
                 [{"method": "rf", "params": {"max_features": ["all"]}}])
    with pytest.raises(ValueError, match="no parameter"):
        mi.train(batches(x, y, 8), batches(x, y, 8), [{"method": "knn", "params": {"C": [1]}}])
    with pytest.raises(ValueError, match="call train first"):
        mi.eval(batches(x, y, 8), batches(x, y, 8))
    with pytest.raises(ValueError, match="labels must be class indices"):
        mi.train(batches(x, y + 5, 8), batches(x, y, 8), [{"method": "threshold"}])
