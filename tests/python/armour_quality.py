"""What each attack and detector of mycel.armour achieves on the tests' model and inputs,
measured next to the PyTorch oracle of armour_oracles where there is one: the rows of
RESULTS.md's "Adversarial attacks" section (bench/armour_bench.py quality). The model is
armour_common's LeNet-5 trained briefly in PyTorch with its weights copied into mycel; the
inputs are the first 32 correctly classified Fashion-MNIST test images (fewer for the slow
attacks, as in test_armour_attacks.py); the settings are those of the tests."""
import numpy as np

import mycel as ms
from armour_common import (detector_setting, fashion, mycel_net, roc_auc, torch_net,
                           trained_weights)
from armour_oracles import (t_bim, t_cw, t_deepfool, t_fgm_l2, t_fgsm, t_jsma, t_l2_ball,
                            t_mim)

N = 32


def inputs():
    """(mycel net, torch twin, x [N, 1, 28, 28], labels [N], one-hot [N, 10]): the first N
    test images (of 200) the trained model classifies correctly."""
    import torch
    w = trained_weights()
    x, y = fashion("test", 200)
    tnet = torch_net(w)
    keep = np.flatnonzero(tnet(torch.from_numpy(x)).argmax(1).numpy() == y)[:N]
    x, y = x[keep], y[keep]
    return mycel_net(w), tnet, x, y, np.eye(10, dtype=np.float32)[y]


def outcome(net, x, adv, y, targeted=False):
    """(success rate, mean l2 norm of adv - x): success is a changed label (untargeted) or
    the target label (targeted)."""
    pred = net(ms.Tensor(adv)).asnumpy().argmax(1)
    rate = float((pred == y).mean() if targeted else (pred != y).mean())
    return rate, float(np.linalg.norm((adv - x).reshape(len(x), -1), axis=1).mean())


def _white_box(net, tnet, x, y, onehot):
    """(name, settings, n, mycel's examples, the oracle's examples or None, targets or None)
    for each white-box attack."""
    from mycel.armour.adv_robustness.attacks import (
        BasicIterativeMethod, CarliniWagnerL2Attack, DeepFool, FastGradientMethod,
        FastGradientSignMethod, JSMAAttack, MomentumIterativeMethod, ProjectedGradientDescent)
    it = dict(eps=0.1, eps_iter=0.02, nb_iter=10)
    cw = dict(bin_search_steps=3, max_iterations=60, learning_rate=0.05, initial_const=1.0)
    target = (y[:4] + 1) % 10
    return [
        ("FGSM", "l-inf, eps 0.1", N, FastGradientSignMethod(net, eps=0.1).generate(x, onehot),
         t_fgsm(tnet, x, onehot, 0.1), None),
        ("FGM", "l2, eps 1.5", N, FastGradientMethod(net, eps=1.5).generate(x, onehot),
         t_fgm_l2(tnet, x, onehot, 1.5), None),
        ("BIM", "eps 0.1, eps_iter 0.02, 10 steps", N,
         BasicIterativeMethod(net, **it).generate(x, onehot), t_bim(tnet, x, onehot, 0.1, 0.02, 10),
         None),
        ("PGD", "l-inf, eps 0.1, eps_iter 0.02, 10 steps", N,
         ProjectedGradientDescent(net, **it).generate(x, onehot),
         t_bim(tnet, x, onehot, 0.1, 0.02, 10), None),
        ("PGD", "l2, eps 1.0, eps_iter 0.05, 5 steps", N,
         ProjectedGradientDescent(net, eps=1.0, eps_iter=0.05, nb_iter=5,
                                  norm_level=2).generate(x, onehot),
         t_bim(tnet, x, onehot, 0.1, 0.05, 5, project=t_l2_ball(1.0)), None),
        ("MIM", "eps 0.1, eps_iter 0.02, 10 steps, decay 0.9", N,
         MomentumIterativeMethod(net, decay_factor=0.9, **it).generate(x, onehot),
         t_mim(tnet, x, onehot, 0.1, 0.02, 10, 0.9), None),
        ("DeepFool", "l2, 20 iterations, overshoot 0.02", 16,
         DeepFool(net, num_classes=10, max_iters=20, overshoot=0.02,
                  bounds=(0.0, 1.0)).generate(x[:16], y[:16]),
         t_deepfool(tnet, x[:16], y[:16], 20, 0.02), None),
        ("C&W L2", "3 binary-search steps, 60 iterations, lr 0.05, c0 1.0", 12,
         CarliniWagnerL2Attack(net, 10, **cw).generate(x[:12], y[:12]),
         t_cw(tnet, x[:12], y[:12], 3, 60, 0.05, 1.0), None),
        ("JSMA", "targeted (label + 1), theta 1.0, 150 iterations", 4,
         JSMAAttack(net, 10, theta=1.0, max_iteration=150).generate(x[:4], target),
         t_jsma(tnet, x[:4], target, 1.0, 150), target),
    ]


def _black_box(net, x, y):
    """(name, settings, n, examples, None, None) for each black-box attack, which sees the
    model only through BlackModel.predict (PYNATIVE: its queries come in many batch sizes)."""
    from mycel.armour.adv_robustness.attacks import (BlackModel, GeneticAttack,
                                                     HopSkipJumpAttack, PSOAttack)

    class Model(BlackModel):
        def predict(self, inputs):
            return net(ms.Tensor(np.asarray(inputs, np.float32))).asnumpy()

    rows = []
    for name, settings, attack in [
            ("Genetic", "untargeted, 300 steps, population 8, per_bounds 0.2",
             GeneticAttack(Model(), targeted=False, max_steps=300, per_bounds=0.2,
                           step_size=0.1, mutation_rate=0.05, pop_size=8)),
            ("PSO", "150 iterations, per_bounds 0.3",
             PSOAttack(Model(), t_max=150, bounds=(0.0, 1.0), per_bounds=0.3)),
            ("HopSkipJump", "l2, 6 iterations, 50-100 evaluations",
             HopSkipJumpAttack(Model(), num_iterations=6, init_num_evals=50,
                               max_num_evals=100))]:
        np.random.seed(0)
        rows.append((name, settings, 4, attack.generate(x[:4], y[:4])[1], None, None))
    return rows


def same_pixels(a, b, tol=1e-5):
    """The share of pixels of a and b within tol of each other."""
    return float((np.abs(a - b) <= tol).mean())


def attack_rows():
    """One dict per attack: name, settings, n, mode, success rate and mean l2 perturbation of
    mycel and (white-box) of the oracle, and the share of pixels equal to the oracle's."""
    rows = []
    for mode, mode_name in ((ms.GRAPH_MODE, "GRAPH"), (ms.PYNATIVE_MODE, "PYNATIVE")):
        ms.set_context(mode=mode)
        net, tnet, x, y, onehot = inputs()
        cases = _white_box(net, tnet, x, y, onehot)
        if mode == ms.PYNATIVE_MODE:
            cases += _black_box(net, x, y)
        for name, settings, n, adv, want, target in cases:
            labels = y[:n] if target is None else target
            rate, norm = outcome(net, x[:n], adv, labels, targeted=target is not None)
            row = dict(attack=name, settings=settings, n=n, mode=mode_name, rate=rate,
                       norm=norm)
            if want is not None:
                row["oracle_rate"], row["oracle_norm"] = outcome(net, x[:n], want, labels,
                                                                 targeted=target is not None)
                row["same_pixels"] = same_pixels(adv, want)
            rows.append(row)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return rows


def detector_rows():
    """ROC-AUC of each detector's score on the 200 FGSM (eps 0.1) examples of
    armour_common.detector_setting against the 200 benign images they came from, the
    detectors fitted on the 200 test images before them (the tests' settings; thresholds at
    a false-positive rate of 0.02 for the reconstruction error, 0.01 for the divergence)."""
    from mycel.armour.adv_robustness.detectors import (DivergenceBasedDetector,
                                                       EnsembleDetector, ErrorBasedDetector,
                                                       RegionBasedDetector)
    net, ae, xt, yt, adv = detector_setting()
    benign = xt[200:]
    magnet = ErrorBasedDetector(ae, false_positive_rate=0.02)
    magnet.fit(xt[:200])
    np.random.seed(0)
    region = RegionBasedDetector(net, number_points=10, max_radius=0.3, search_step=0.05,
                                 degrade_limit=0.02, sparse=True)
    region.fit(xt[:200], yt[:200])
    divergence = DivergenceBasedDetector(ae, net)
    divergence.fit(xt[:200])
    detectors = [("ErrorBasedDetector (MagNet, reconstruction error)", magnet),
                 ("DivergenceBasedDetector (MagNet, Jensen-Shannon)", divergence),
                 ("RegionBasedDetector (radius fitted on benign images)", region),
                 ("EnsembleDetector (MagNet error and region-based, share of votes)",
                  EnsembleDetector([magnet, region]))]
    rows = []
    for name, det in detectors:
        np.random.seed(0)
        scores_benign = det.detect_diff(benign)
        np.random.seed(0)
        scores_adv = det.detect_diff(adv)
        rows.append(dict(detector=name, auc=roc_auc(scores_benign, scores_adv),
                         flagged_adv=float(np.mean(det.detect(adv))),
                         flagged_benign=float(np.mean(det.detect(benign)))))
    return rows
