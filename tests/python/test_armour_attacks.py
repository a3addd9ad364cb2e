"""mycel.armour.adv_robustness.attacks against PyTorch oracles written in this file from the
papers' definitions (and MindArmour's conventions: eps as a share of the data range, one-hot
labels for the default softmax cross-entropy loss), on LeNet-5 trained briefly on a
Fashion-MNIST subset whose weights are copied into mycel (armour_common).

Bars (issue 23): FGSM identical but for gradient signs flipped by float rounding (< 0.1% of
pixels); BIM, PGD, MIM and JSMA equal on >= 98% of pixels; DeepFool and C&W within 5% of the
oracle's mean perturbation norm. Success rates are printed (pytest -s). Black-box attacks
must succeed on the model through BlackModel.predict alone."""
import numpy as np
import pytest

import mycel as ms
from mycel.armour.adv_robustness.attacks import (
    BasicIterativeMethod, BlackModel, CarliniWagnerL2Attack, DeepFool, FastGradientMethod,
    FastGradientSignMethod, GeneticAttack, HopSkipJumpAttack, JSMAAttack,
    MomentumIterativeMethod, ProjectedGradientDescent, PSOAttack, RandomFastGradientMethod,
    RandomFastGradientSignMethod)
torch = pytest.importorskip("torch")
from armour_oracles import (t_bim, t_cw, t_deepfool, t_fgm_l2, t_fgsm,  # noqa: E402
                            t_jsma, t_l2_ball, t_mim)
from armour_quality import inputs, outcome, same_pixels  # noqa: E402


@pytest.fixture(params=[ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture
def graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture(scope="module")
def setting():
    """(mycel net, torch twin, inputs [N, 1, 28, 28], labels [N], one-hot labels [N, 10]):
    the first N correctly classified test images (armour_quality.inputs, which the bench's
    attack table uses too)."""
    return inputs()


def predict(net, x):
    return net(ms.Tensor(x)).asnumpy().argmax(1)


def report(name, net, x, adv, y, targeted=False):
    rate, norm = outcome(net, x, adv, y, targeted)
    print(f"\n{name}: success rate {rate:.3f}, mean l2 perturbation {norm:.4f}")
    return rate, norm


# ---- white-box attacks against the oracles ------------------------------------------------

def test_fgsm_matches_oracle(setting, mode):
    net, tnet, x, y, onehot = setting
    adv = FastGradientSignMethod(net, eps=0.1).generate(x, onehot)
    want = t_fgsm(tnet, x, onehot, 0.1)
    assert adv.shape == x.shape and adv.dtype == np.float32
    assert 1 - same_pixels(adv, want) < 1e-3
    rate, _ = report("FGSM eps=0.1", net, x, adv, y)
    assert rate > 0.3


def test_fgsm_targeted_and_bounds(setting, graph):
    net, tnet, x, y, onehot = setting
    target = np.eye(10, dtype=np.float32)[(y + 1) % 10]
    adv = FastGradientSignMethod(net, eps=0.05, is_targeted=True,
                                 bounds=(-1.0, 2.0)).generate(x, target)
    want = t_fgsm(tnet, x, target, 0.05, targeted=True, lo=-1.0, hi=2.0)
    assert 1 - same_pixels(adv, want) < 1e-3
    assert np.abs(adv - x).max() == pytest.approx(0.15, abs=1e-6)    # eps * range
    # targeted: the target's loss falls
    ce = lambda z: -(target * np.log(np.exp(z - z.max(1, keepdims=True)) /  # noqa: E731
                                    np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True)))
    assert ce(net(ms.Tensor(adv)).asnumpy()).sum() < ce(net(ms.Tensor(x)).asnumpy()).sum()


def test_fgm_l2_and_random_variants(setting, graph):
    net, tnet, x, y, onehot = setting
    adv = FastGradientMethod(net, eps=1.5).generate(x, onehot)
    want = t_fgm_l2(tnet, x, onehot, 1.5)
    # float32 gradients of two frameworks: the same direction to a relative 5e-3 (1e-3 but
    # for a confidently classified sample whose tiny gradient is mostly rounding)
    gap = np.linalg.norm((adv - want).reshape(len(x), -1), axis=1)
    rel = gap / np.linalg.norm((want - x).reshape(len(x), -1), axis=1)
    assert rel.max() < 5e-3 and np.median(rel) < 1e-4
    inf = FastGradientMethod(net, eps=0.1, norm_level=np.inf).generate(x, onehot)
    assert np.abs(inf - x).max() <= 0.1 + 1e-6
    np.random.seed(3)
    rfgsm = RandomFastGradientSignMethod(net, eps=0.1, alpha=0.04).generate(x, onehot)
    step = np.abs(rfgsm - x)[(rfgsm > 0) & (rfgsm < 1)]
    # |0.06 * sign(g) + 0.04 * sign(noise)| is 0.1 or 0.02 away from the clip (0.04 where
    # the gradient is exactly 0)
    assert np.isin(np.round(step, 4), [0.02, 0.04, 0.1]).all()
    assert (np.round(step, 4) == 0.1).mean() > 0.3
    rfgm = RandomFastGradientMethod(net, eps=0.1, alpha=0.05).generate(x, onehot)
    assert rfgm.shape == x.shape and 0 <= rfgm.min() and rfgm.max() <= 1
    report("FGM l2 eps=1.5", net, x, adv, y)


def test_pgd_matches_oracle(setting, mode):
    net, tnet, x, y, onehot = setting
    adv = ProjectedGradientDescent(net, eps=0.1, eps_iter=0.02, nb_iter=10).generate(x, onehot)
    want = t_bim(tnet, x, onehot, 0.1, 0.02, 10)
    assert same_pixels(adv, want) >= 0.98
    assert np.abs(adv - x).max() <= 0.1 + 1e-6
    rate, _ = report("PGD-10 linf eps=0.1", net, x, adv, y)
    assert rate > 0.6


def test_pgd_l2_and_random_start(setting, graph):
    net, tnet, x, y, onehot = setting
    adv = ProjectedGradientDescent(net, eps=1.0, eps_iter=0.05, nb_iter=5,
                                   norm_level=2).generate(x, onehot)
    want = t_bim(tnet, x, onehot, 0.1, 0.05, 5, project=t_l2_ball(1.0))
    assert same_pixels(adv, want) >= 0.98
    assert np.linalg.norm((adv - x).reshape(len(x), -1), axis=1).max() <= 1.0 + 1e-4
    report("PGD-5 l2 eps=1.0", net, x, adv, y)
    l1 = ProjectedGradientDescent(net, eps=10.0, eps_iter=0.05, nb_iter=3,
                                  norm_level=1).generate(x, onehot)
    assert np.abs(l1 - x).reshape(len(x), -1).sum(1).max() <= 10.0 * (1 + 1e-4)  # float32
    a = ProjectedGradientDescent(net, eps=0.1, eps_iter=0.02, nb_iter=2, random_start=True)
    b = ProjectedGradientDescent(net, eps=0.1, eps_iter=0.02, nb_iter=2)
    assert not np.array_equal(a.generate(x, onehot), b.generate(x, onehot))
    assert np.array_equal(b.generate(x, onehot), b.generate(x, onehot))   # no random start


def test_projections():
    from mycel.armour.adv_robustness.attacks.iterative_gradient_method import project
    d = np.array([[3.0, 1.0], [1.0, -1.0], [0.2, 0.1]], np.float32)
    # l1 ball of radius 1: soft thresholding at theta with sum max(|d| - theta, 0) = 1
    np.testing.assert_allclose(project(d, 1.0, 1), [[1, 0], [0.5, -0.5], [0.2, 0.1]],
                               atol=1e-6)
    np.testing.assert_allclose(project(d, 1.0, 2), [[3 / np.sqrt(10), 1 / np.sqrt(10)],
                                                    [1 / np.sqrt(2), -1 / np.sqrt(2)],
                                                    [0.2, 0.1]], atol=1e-6)
    np.testing.assert_allclose(project(d, 1.0, np.inf), [[1, 1], [1, -1], [0.2, 0.1]])
    big = np.random.default_rng(0).standard_normal((5, 50)).astype(np.float32)
    out = project(big, 3.0, 1)
    np.testing.assert_allclose(np.abs(out).sum(1), 3.0, rtol=1e-5)
    assert (np.sign(out) * np.sign(big) >= 0).all()
    # the l1 projection is the closest point of the ball: no random point of it is closer
    rng = np.random.default_rng(1)
    for row, proj in zip(big, out):
        pts = rng.standard_normal((2000, 50))
        pts *= 3.0 * rng.random((2000, 1)) / np.abs(pts).sum(1, keepdims=True)
        assert np.linalg.norm(row - proj) <= np.linalg.norm(row - pts, axis=1).min() + 1e-6


def test_bim_and_mim_match_oracle(setting, mode):
    net, tnet, x, y, onehot = setting
    bim = BasicIterativeMethod(net, eps=0.1, eps_iter=0.02, nb_iter=10).generate(x, onehot)
    assert same_pixels(bim, t_bim(tnet, x, onehot, 0.1, 0.02, 10)) >= 0.98
    mim = MomentumIterativeMethod(net, eps=0.1, eps_iter=0.02, nb_iter=10,
                                  decay_factor=0.9).generate(x, onehot)
    assert same_pixels(mim, t_mim(tnet, x, onehot, 0.1, 0.02, 10, 0.9)) >= 0.98
    assert report("BIM-10", net, x, bim, y)[0] > 0.6
    assert report("MIM-10", net, x, mim, y)[0] > 0.6


def test_deepfool_matches_oracle(setting, mode):
    net, tnet, x, y, _ = setting
    adv = DeepFool(net, num_classes=10, max_iters=20, overshoot=0.02,
                   bounds=(0.0, 1.0)).generate(x[:16], y[:16])
    want = t_deepfool(tnet, x[:16], y[:16], 20, 0.02)
    rate, norm = report("DeepFool l2", net, x[:16], adv, y[:16])
    _, want_norm = report("DeepFool oracle", net, x[:16], want, y[:16])
    assert rate >= 0.9
    assert norm == pytest.approx(want_norm, rel=0.05)
    onehot = np.eye(10, dtype=np.float32)[y[:4]]
    inf = DeepFool(net, 10, norm_level=np.inf, sparse=False,
                   bounds=(0.0, 1.0)).generate(x[:4], onehot)
    assert (predict(net, inf) != y[:4]).mean() >= 0.75


def test_carlini_wagner_matches_oracle(setting, mode):
    net, tnet, x, y, _ = setting
    kw = dict(bin_search_steps=3, max_iterations=60, learning_rate=0.05, initial_const=1.0)
    adv = CarliniWagnerL2Attack(net, 10, **kw).generate(x[:12], y[:12])
    want = t_cw(tnet, x[:12], y[:12], 3, 60, 0.05, 1.0)
    rate, norm = report("C&W L2", net, x[:12], adv, y[:12])
    want_rate, want_norm = report("C&W L2 oracle", net, x[:12], want, y[:12])
    assert rate >= 0.9 and rate == pytest.approx(want_rate, abs=1 / 12 + 1e-9)
    assert norm == pytest.approx(want_norm, rel=0.05)
    assert adv.min() >= 0 and adv.max() <= 1


def test_carlini_wagner_targeted(setting, graph):
    net, _, x, y, _ = setting
    target = (y[:6] + 3) % 10
    adv = CarliniWagnerL2Attack(net, 10, bin_search_steps=3, max_iterations=60,
                                learning_rate=0.05, initial_const=1.0,
                                targeted=True).generate(x[:6], target)
    assert report("C&W L2 targeted", net, x[:6], adv, target, targeted=True)[0] >= 0.8


@pytest.fixture(scope="module")
def jsma_oracle(setting):
    """(targets, the oracle's examples) of JSMA on the first 4 inputs, targets label + 1."""
    _, tnet, x, y, _ = setting
    target = (y[:4] + 1) % 10
    return target, t_jsma(tnet, x[:4], target, 1.0, 150)


def test_jsma_targeted(setting, jsma_oracle, mode):
    net, _, x, y, _ = setting
    target, want = jsma_oracle
    adv = JSMAAttack(net, 10, theta=1.0, max_iteration=150).generate(x[:4], target)
    rate, _ = report("JSMA", net, x[:4], adv, target, targeted=True)
    assert same_pixels(adv, want) >= 0.98
    changed = (adv != x[:4]).reshape(4, -1)
    print(f"JSMA: changed pixels per sample {changed.sum(1)}")
    assert rate >= 0.5
    assert (adv.reshape(4, -1)[changed] == 1.0).all()      # increase with theta=1: to the max
    assert changed.sum(1).max() <= 2 * 150


# ---- black-box attacks: predict only ------------------------------------------------------

class CountingModel(BlackModel):
    """A BlackModel over the mycel net that counts its predict calls; the attacks get only
    this object. Run in PYNATIVE mode: the queries come in batches of many sizes, which GRAPH
    mode would compile one graph for each."""

    def __init__(self, net):
        self._net = net
        self.calls = self.samples = 0

    def predict(self, inputs):
        self.calls += 1
        self.samples += len(inputs)
        return self._net(ms.Tensor(np.asarray(inputs, np.float32))).asnumpy()


@pytest.mark.parametrize("attack,kwargs", [
    (GeneticAttack, dict(targeted=False, max_steps=300, per_bounds=0.2, step_size=0.1,
                         mutation_rate=0.05, pop_size=8)),
    (GeneticAttack, dict(targeted=False, max_steps=600, per_bounds=0.2, step_size=0.1,
                         pop_size=8, adaptive=True)),
    (PSOAttack, dict(t_max=150, bounds=(0.0, 1.0), per_bounds=0.3)),
    (HopSkipJumpAttack, dict(num_iterations=6, init_num_evals=50, max_num_evals=100)),
    (HopSkipJumpAttack, dict(num_iterations=4, init_num_evals=30, max_num_evals=60,
                             constraint="linf", stepsize_search="grid_search")),
], ids=["genetic", "genetic-adaptive", "pso", "hsja", "hsja-linf-grid"])
def test_black_box_attacks_use_predict_only(setting, attack, kwargs):
    net, _, x, y, _ = setting
    model = CountingModel(net)
    np.random.seed(0)
    ok, adv, queries = attack(model, **kwargs).generate(x[:4], y[:4])
    pred = predict(net, adv)
    assert ok.dtype == bool and ok.mean() >= 0.75
    np.testing.assert_array_equal(ok, pred != y[:4])
    assert queries.sum() == model.samples and model.calls > 0
    print(f"\n{attack.__name__}: success {ok.mean():.2f}, queries {queries}, l2 "
          f"{np.linalg.norm((adv - x[:4]).reshape(4, -1), axis=1).round(3)}")
    assert adv.min() >= 0 and adv.max() <= 1


def test_hsja_targeted_and_decreasing_distance(setting):
    net, _, x, y, _ = setting
    target = (y[:3] + 2) % 10
    pool = predict(net, x)
    starts = np.stack([x[np.flatnonzero(pool == t)[0]] if (pool == t).any() else x[0]
                       for t in target])
    attack = HopSkipJumpAttack(CountingModel(net), num_iterations=5, init_num_evals=50)
    attack.set_target_images(starts)
    ok, adv, _ = attack.generate(x[:3], target)
    have = pool[[np.flatnonzero(pool == t)[0] if (pool == t).any() else 0 for t in target]]
    sel = have == target
    assert (predict(net, adv)[sel] == target[sel]).all() and ok[sel].all()
    d_start = np.linalg.norm((starts - x[:3]).reshape(3, -1), axis=1)
    d_adv = np.linalg.norm((adv - x[:3]).reshape(3, -1), axis=1)
    assert (d_adv[sel] < d_start[sel]).all()


# ---- errors ---------------------------------------------------------------------------------

def test_bad_arguments_are_typed_errors(setting):
    net, _, x, y, onehot = setting
    with pytest.raises(ValueError, match="FastGradientSignMethod.*eps"):
        FastGradientSignMethod(net, eps=-0.1)
    with pytest.raises(TypeError, match="network"):
        FastGradientSignMethod(lambda z: z)
    with pytest.raises(ValueError, match="eps.*alpha"):
        RandomFastGradientSignMethod(net, eps=0.01, alpha=0.05)
    with pytest.raises(ValueError, match="norm_level"):
        ProjectedGradientDescent(net, norm_level=3)
    with pytest.raises(ValueError, match=r"same batch size.*\(32, 1, 28, 28\).*\(5, 10\)"):
        FastGradientSignMethod(net).generate(x, onehot[:5])
    with pytest.raises(TypeError, match="numpy.ndarray"):
        FastGradientSignMethod(net).generate(list(x), onehot)
    with pytest.raises(ValueError, match="bounds"):
        BasicIterativeMethod(net, bounds=(1.0, 0.0))
    with pytest.raises(ValueError, match=r"labels must be in \[0, 10\)"):
        DeepFool(net, 10).generate(x[:2], np.array([3, 12], np.int32))
    with pytest.raises(TypeError, match="BlackModel"):
        GeneticAttack(net)
    with pytest.raises(ValueError, match="one-hot"):
        CarliniWagnerL2Attack(net, 10, sparse=False).generate(x[:2], y[:2])


def test_batch_generate_slices(setting, graph):
    net, _, x, _, onehot = setting
    attack = FastGradientSignMethod(net, eps=0.05)
    np.testing.assert_array_equal(attack.batch_generate(x, onehot, batch_size=10),
                                  np.concatenate([attack.generate(x[i:i + 10], onehot[i:i + 10])
                                                  for i in range(0, len(x), 10)]))
