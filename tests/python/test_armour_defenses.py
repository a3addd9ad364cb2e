"""mycel.armour.adv_robustness defences, detectors and evaluations.

Adversarial training (PGD) against natural training from the same weights (LeNet-5 trained
briefly in PyTorch, armour_common), measured under PGD-10 at eps 0.1 on held-out images;
MagNet's ROC-AUC on FGSM examples with an autoencoder trained here in mycel; the similarity
detector on near-duplicate and independent query streams and on a HopSkipJump attack's
queries; region-based and ensemble detectors; AttackEvaluate, DefenseEvaluate and
RadarMetric against numpy (and PIL, test only, to decode the PNG). Numbers are printed
(pytest -s)."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel.armour.adv_robustness.attacks import (BlackModel, HopSkipJumpAttack,
                                                 ProjectedGradientDescent)
from mycel.armour.adv_robustness.defenses import (AdversarialDefense,
                                                  NaturalAdversarialDefense,
                                                  ProjectedAdversarialDefense)
from mycel.armour.adv_robustness.detectors import (DivergenceBasedDetector, EnsembleDetector,
                                                   ErrorBasedDetector, RegionBasedDetector,
                                                   SimilarityDetector)
from mycel.armour.adv_robustness.evaluations import (AttackEvaluate, DefenseEvaluate,
                                                     RadarMetric)
from armour_common import detector_setting, fashion, mycel_net, roc_auc, trained_weights


@pytest.fixture
def graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture(params=[ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def pgd_accuracy(net, x, y):
    pgd = ProjectedGradientDescent(net, eps=0.1, eps_iter=0.02, nb_iter=10,
                                   loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True))
    adv = pgd.generate(x, y)
    clean = (net(ms.Tensor(x)).asnumpy().argmax(1) == y).mean()
    return float(clean), float((net(ms.Tensor(adv)).asnumpy().argmax(1) == y).mean())


# ---- defences ------------------------------------------------------------------------------

def test_pgd_training_beats_natural_training_under_pgd(graph):
    w = trained_weights()
    x, y = fashion("train", 6000)
    xt, yt = fashion("test", 300)
    results = {}
    for name, make in [("natural", lambda n: AdversarialDefense(n)),
                       ("pgd", lambda n: ProjectedAdversarialDefense(n, eps=0.1, eps_iter=0.03,
                                                                     nb_iter=5))]:
        np.random.seed(0)
        net = mycel_net(w)
        defense = make(net)
        for _ in range(3):
            for i in range(0, len(x), 50):
                loss = defense.defense(x[i:i + 50], y[i:i + 50])
        assert np.isfinite(loss)
        results[name] = pgd_accuracy(net, xt, yt)
    print(f"\nclean / PGD-10 (eps 0.1) accuracy on 300 test images after 3 epochs on 6000: "
          f"natural {results['natural']}, PGD-trained {results['pgd']}")
    assert results["pgd"][1] >= results["natural"][1] + 0.2
    assert results["pgd"][0] >= results["natural"][0] - 0.12


def test_defense_step_same_in_both_modes():
    """NaturalAdversarialDefense's step (FGSM on half the batch, one Momentum step) gives the
    same loss and weights in GRAPH and PYNATIVE mode."""
    w = trained_weights()
    x, y = fashion("train", 64)
    got = []
    for m in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=m)
        np.random.seed(1)
        net = mycel_net(w)
        defense = NaturalAdversarialDefense(net, eps=0.1)
        losses = [float(defense.defense(x[i:i + 32], y[i:i + 32])) for i in (0, 32)]
        got.append((losses, net.fc3.weight.asnumpy().copy()))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-4)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-4, atol=1e-6)
    assert not np.allclose(got[0][1], w["fc3.weight"])


def test_batch_defense_and_errors():
    net = mycel_net(trained_weights())
    x, y = fashion("train", 40)
    defense = AdversarialDefense(net)
    assert np.isfinite(defense.batch_defense(x, y, batch_size=16, epochs=1))
    with pytest.raises(ValueError, match="batch_size"):
        defense.batch_defense(x, y, batch_size=64)
    with pytest.raises(ValueError, match="same batch size"):
        defense.defense(x, y[:3])
    with pytest.raises(ValueError, match="replace_ratio"):
        NaturalAdversarialDefense(net, replace_ratio=1.5)
    with pytest.raises(TypeError, match="network"):
        ProjectedAdversarialDefense(object())


# ---- detectors -----------------------------------------------------------------------------

@pytest.fixture(scope="module", name="detector_setting")
def detector_setting_fixture():
    """(LeNet, trained autoencoder, benign test images, labels, FGSM examples):
    armour_common.detector_setting, shared with bench/armour_bench.py."""
    return detector_setting()


def test_magnet_error_detector_auc(detector_setting, mode):
    net, ae, xt, _, adv = detector_setting
    det = ErrorBasedDetector(ae, false_positive_rate=0.02)
    threshold = det.fit(xt[:200])
    benign = det.detect_diff(xt[200:])
    scores = det.detect_diff(adv)
    recon = ae(ms.Tensor(xt[200:])).asnumpy()
    np.testing.assert_allclose(benign, ((xt[200:] - recon) ** 2).reshape(200, -1).mean(1),
                               rtol=1e-5)
    auc = roc_auc(benign, scores)
    flagged = det.detect(adv)
    print(f"\nMagNet error detector: ROC-AUC {auc:.3f} on FGSM eps 0.1, threshold "
          f"{threshold:.5f}, adversarial flagged {flagged.mean():.2f}, benign flagged "
          f"{det.detect(xt[200:]).mean():.2f}")
    assert auc >= 0.9
    assert (np.sort(det.detect_diff(xt[:200]))[-4] == threshold)   # int(200 * 0.02) = 4th
    assert det.transform(adv).min() >= 0 and det.transform(adv).max() <= 1
    div = DivergenceBasedDetector(ae, net)
    print(f"MagNet divergence detector: ROC-AUC "
          f"{roc_auc(div.detect_diff(xt[200:]), div.detect_diff(adv)):.3f}")


def test_similarity_detector_flags_duplicate_streams(detector_setting):
    _, _, xt, _, _ = detector_setting
    det = SimilarityDetector(nn.Flatten(), max_k_neighbor=5, fpr=0.01)
    ks, thresholds = det.fit(xt[:300])
    assert ks == [5] and thresholds[0] > 0
    rng = np.random.default_rng(0)
    independent = det.detect(xt[300:400])
    assert independent.sum() == 0 and det.get_detected_queries() == []
    det.clear_buffer()
    stream = np.clip(xt[300] + rng.normal(0, 0.02, (60,) + xt.shape[1:]), 0, 1)
    flags = det.detect(stream.astype(np.float32))
    detected = det.get_detected_queries()
    print(f"\nsimilarity detector: independent stream 0 of 100 flagged, near-duplicate stream "
          f"{flags.sum()} of 60 flagged at queries {detected[:5]}..., intervals "
          f"{det.get_detection_interval()[:5]}")
    assert flags.sum() >= 8
    assert detected[0] == 100 + 6                       # the first query with 5 neighbours
    assert det.get_detection_interval() == list(np.diff(detected))
    with pytest.raises(ValueError, match="max_k_neighbor"):
        SimilarityDetector(nn.Flatten(), max_k_neighbor=50).fit(xt[:20])
    with pytest.raises(ValueError, match="fit"):
        SimilarityDetector(nn.Flatten()).detect(xt[:2])
    tuned = SimilarityDetector(nn.Flatten(), max_k_neighbor=3, tuning=True)
    ks, thresholds = tuned.fit(xt[:50])
    assert ks == [1, 2, 3] and thresholds == sorted(thresholds)


class WatchedModel(BlackModel):
    """A black-box model whose queries also go through a SimilarityDetector, as a deployed
    service would screen them."""

    def __init__(self, net, detector):
        self._net, self.detector = net, detector

    def predict(self, inputs):
        self.detector.detect(inputs)
        return self._net(ms.Tensor(np.asarray(inputs, np.float32))).asnumpy()


def test_similarity_detector_catches_hop_skip_jump(detector_setting):
    net, _, xt, yt, _ = detector_setting
    det = SimilarityDetector(nn.Flatten(), max_k_neighbor=5, fpr=0.01)
    det.fit(xt[:300])
    model = WatchedModel(net, det)
    for i in range(300, 400, 10):                        # ordinary traffic
        model.predict(xt[i:i + 10])
    assert det.get_detected_queries() == []
    np.random.seed(0)
    HopSkipJumpAttack(model, num_iterations=3, init_num_evals=30,
                      max_num_evals=60).generate(xt[:1], yt[:1])
    print(f"\nsimilarity detector during HopSkipJump: {len(det.get_detected_queries())} "
          f"detections, first at query {det.get_detected_queries()[:1]}")
    assert len(det.get_detected_queries()) >= 5


def test_region_based_and_ensemble_detectors(detector_setting):
    net, ae, xt, yt, adv = detector_setting
    np.random.seed(0)
    region = RegionBasedDetector(net, number_points=10, max_radius=0.3, search_step=0.05,
                                 degrade_limit=0.02, sparse=True)
    radius = region.fit(xt[:200], yt[:200])
    assert 0 <= radius <= 0.3
    auc = roc_auc(region.detect_diff(xt[200:]), region.detect_diff(adv))
    rate_adv, rate_benign = region.detect(adv).mean(), region.detect(xt[200:]).mean()
    print(f"\nregion-based detector: radius {radius:.2f}, ROC-AUC {auc:.3f}, adversarial "
          f"flagged {rate_adv:.2f}, benign {rate_benign:.2f}")
    assert rate_adv > rate_benign
    assert region.transform(xt[:5]).shape == (5,)
    magnet = ErrorBasedDetector(ae, false_positive_rate=0.05)
    magnet.fit(xt[:200])
    both = np.stack([magnet.detect(adv), region.detect(adv)])
    np.random.seed(0)
    region_flags = region.detect(adv)
    np.random.seed(0)
    any_flags = EnsembleDetector([magnet, region], policy="any").detect(adv)
    np.testing.assert_array_equal(any_flags, magnet.detect(adv) | region_flags)
    np.random.seed(0)
    all_flags = EnsembleDetector([magnet, region], policy="all").detect(adv)
    np.testing.assert_array_equal(all_flags, magnet.detect(adv) & region_flags)
    np.random.seed(0)
    share = EnsembleDetector([magnet, region]).detect_diff(adv)
    np.testing.assert_array_equal(share, (magnet.detect(adv) + region_flags) / 2)
    assert both.shape == (2, 200)
    with pytest.raises(ValueError, match="policy"):
        EnsembleDetector([magnet], policy="most")
    with pytest.raises(NotImplementedError):
        EnsembleDetector([magnet]).transform(adv)


# ---- evaluations ---------------------------------------------------------------------------

def test_attack_evaluate_against_numpy():
    x = np.array([[0.5, 0.0, 1.0], [0.2, 0.4, 0.0], [1.0, 1.0, 1.0]], np.float32)
    adv = np.array([[0.6, 0.0, 0.9], [0.2, 0.4, 0.0], [0.7, 1.0, 1.0]], np.float32)
    labels = np.eye(3, dtype=np.float32)[[0, 1, 2]]
    preds = np.array([[0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.6, 0.1, 0.3]])
    ev = AttackEvaluate(x, labels, adv, preds)
    assert ev.mis_classification_rate() == pytest.approx(2 / 3)         # samples 0 and 2
    assert ev.avg_conf_adv_class() == pytest.approx((0.7 + 0.6) / 2)
    assert ev.avg_conf_true_class() == pytest.approx((0.2 + 0.3) / 2)
    l0, l2, linf = ev.avg_lp_distance()
    assert l0 == pytest.approx((2 / 2 + 1 / 3) / 2)
    assert l2 == pytest.approx((np.sqrt(0.02) / np.sqrt(1.25) + 0.3 / np.sqrt(3)) / 2, rel=1e-5)
    assert linf == pytest.approx((0.1 / 1.0 + 0.3 / 1.0) / 2, rel=1e-5)
    assert ev.nte() == pytest.approx(((0.7 - 0.2) + (0.6 - 0.3)) / 2)
    targeted = AttackEvaluate(x, labels, adv, preds, targeted=True,
                              target_label=np.array([1, 2, 0]))
    assert targeted.mis_classification_rate() == pytest.approx(2 / 3)   # samples 0 and 2
    assert targeted.avg_conf_adv_class() == pytest.approx((0.7 + 0.6) / 2)
    with pytest.raises(ValueError, match="target_label"):
        AttackEvaluate(x, labels, adv, preds, targeted=True)
    with pytest.raises(ValueError, match="adv_preds"):
        AttackEvaluate(x, labels, adv, preds[:2])


def test_defense_evaluate_against_numpy():
    raw = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.7], [0.8, 0.2]])
    dfd = np.array([[0.7, 0.3], [0.6, 0.4], [0.6, 0.4], [0.2, 0.8]])
    y = np.array([0, 0, 1, 1])
    ev = DefenseEvaluate(raw, dfd, y)
    # raw right: 0, 2; defended right: 0, 1, 3
    assert ev.cav() == pytest.approx(3 / 4 - 2 / 4)
    assert ev.crr() == pytest.approx(2 / 4)          # 1 and 3 corrected
    assert ev.csr() == pytest.approx(1 / 4)          # 2 broken
    assert ev.ccv() == pytest.approx(abs(0.7 - 0.9))  # only sample 0 right for both
    p, q = dfd[0], raw[0]
    m = (p + q) / 2
    js = 0.5 * (p * np.log(p / m)).sum() + 0.5 * (q * np.log(q / m)).sum()
    assert ev.cos() == pytest.approx(js)
    none = DefenseEvaluate(raw[1:2], dfd[2:3], y[1:2])
    assert none.ccv() == -1 and none.cos() == -1


def test_radar_metric_png(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    data = [[0.9, 0.5, 0.2, 0.7, 0.4], [0.3, 0.8, 0.6, 0.1, 0.9]]
    radar = RadarMetric(["MR", "ACAC", "1-ACTC", "NTE", "RGB"], data, ["fgsm", "pgd"],
                        "attack metrics", scale="sparse")
    path = tmp_path / "radar.png"
    image = radar.show(str(path), size=200)
    with Image.open(path) as png:
        decoded = np.asarray(png.convert("RGB"))
        assert png.text["Title"] == "attack metrics"
    np.testing.assert_array_equal(decoded, image)
    # the first label's colour is on its vertex for metric 0 (top, radius 0.9 * 84)
    top = image[int(100 - 0.9 * 84), 100]
    assert abs(int(top[0]) - 31) < 40 and abs(int(top[2]) - 180) < 40
    assert (image[2, 2] == 255).all()                 # background
    with pytest.raises(ValueError, match="metrics_data"):
        RadarMetric(["a", "b", "c"], [[0.1, 0.2]], ["x"], "t")
    with pytest.raises(ValueError, match="scale"):
        RadarMetric(["a", "b", "c"], [[0.1, 0.2, 0.3]], ["x"], "t", scale="log")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        RadarMetric(["a", "b", "c"], [[0.1, 2.0, 0.3]], ["x"], "t")
    norm = RadarMetric(["a", "b", "c"], [[1.0, 2.0, 4.0], [2.0, 1.0, 2.0]], ["x", "y"], "t",
                       scale="norm")
    assert norm.draw(64).shape == (64, 64, 3)
