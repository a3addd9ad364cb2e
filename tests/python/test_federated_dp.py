"""Differential privacy of federated rounds (encrypt_type DP_ENCRYPT; mycel.federated.privacy):
the epsilon the server reports per round against a reference computation of the Gaussian
mechanism's RDP (a dense grid of orders, independent of the accountant's), its growth with the
rounds, the calibration of the noise multiplier to the per-round budget, the clipping and the
noise's scale (on the function and end to end through the server, also through Model.train in
both modes), and the config's checks.

Loopback only; every wait has a timeout; every server a test starts is stopped by it."""
import json
import math

import numpy as np
import pytest

from mycel.federated import (FederatedClient, FederatedLearningCallback, load_config,
                             network_weights, simulate)
from mycel.federated.privacy import dp_noise_multiplier, privatize

from test_federated import (TIMEOUT, DenseTask, config, init_weights, mode,  # noqa: F401
                            servers)


def dp_config(tmp_path, weights, eps=10.0, delta=1e-5, clip=1.0, **kw):
    return config(tmp_path, weights, **kw, encrypt={
        "encrypt_type": "DP_ENCRYPT",
        "dp_encrypt": {"dp_eps": eps, "dp_delta": delta, "dp_norm_clip": clip}})


def reference_epsilon(z, delta, rounds):
    """eps of `rounds` Gaussian releases of noise multiplier z: their RDP at order a is
    rounds * a / (2 z^2); eps = min over a > 1 of RDP(a) + log(1/delta) / (a - 1), here over a
    dense grid of orders (the accountant uses its own, coarser one)."""
    a = np.linspace(1.0005, 400.0, 2_000_000)
    return float(np.min(rounds * a / (2 * z * z) + math.log(1 / delta) / (a - 1)))


@pytest.mark.parametrize("eps,delta", [(10.0, 1e-5), (50.0, 0.01), (2.0, 1e-3)])
def test_epsilon_per_round_matches_the_gaussian_mechanisms_rdp(tmp_path, eps, delta):
    cfg = load_config(dp_config(tmp_path, init_weights(), eps=eps, delta=delta,
                                fl_iteration_num=30))
    z = cfg["dp_noise_multiplier"]
    got = cfg["dp_epsilons"]
    assert len(got) == 30 and all(b > a for a, b in zip(got, got[1:]))  # grows with rounds
    for t in (1, 2, 5, 10, 30):
        want = reference_epsilon(z, delta, t)
        assert abs(got[t - 1] - want) <= 0.01 * want, (t, got[t - 1], want)
    # the noise multiplier is the smallest that keeps one round within the budget
    assert reference_epsilon(z, delta, 1) <= eps * 1.01
    assert reference_epsilon(z * 0.97, delta, 1) > eps


def test_privatize_clips_the_update_and_adds_noise_of_the_right_scale():
    rng = np.random.default_rng(0)
    g = {"a": rng.standard_normal((200, 250)).astype(np.float32),
         "b": rng.standard_normal(50000).astype(np.float32)}
    big = {k: v + 0.1 for k, v in g.items()}  # an update of norm 0.1 * sqrt(100000) = 31.6
    exact = privatize(big, g, 0.0, 2.0, rng)  # no noise: just the clipping
    norm = math.sqrt(sum(np.sum((exact[k].astype(np.float64) - g[k]) ** 2) for k in g))
    assert abs(norm - 2.0) < 1e-3
    small = {k: v + 1e-3 for k, v in g.items()}  # norm 0.32 < 2: kept as it is
    np.testing.assert_allclose(privatize(small, g, 0.0, 2.0, rng)["a"], small["a"], atol=1e-6)
    noisy = privatize(big, g, 0.5, 2.0, rng)
    noise = np.concatenate([(noisy[k].astype(np.float64) - exact[k]).ravel() for k in g])
    assert abs(noise.std() - 1.0) < 0.01 and abs(noise.mean()) < 0.01  # std z * C = 1
    with pytest.raises(ValueError, match="the global model lacks"):
        privatize({"zz": np.zeros(2)}, g, 0.5, 1.0, rng)


def test_a_dp_server_logs_epsilon_each_round_and_clients_add_the_noise(tmp_path, servers):
    rng = np.random.default_rng(1)
    w0 = {"w": rng.standard_normal((64, 64)).astype(np.float32)}
    metrics = tmp_path / "metrics.json"
    server = servers(dp_config(tmp_path, w0, eps=20.0, delta=1e-4, clip=0.5, rounds=3,
                               threshold=1, summary={"metrics_file": str(metrics)}))
    cfg = load_config(dp_config(tmp_path, w0, eps=20.0, delta=1e-4, clip=0.5, rounds=3,
                                threshold=1))

    class Step:  # moves every weight by 1: an update of norm 64, clipped to 0.5
        client_id, data_size = "dp", 10

        def train(self, weights):
            return {"w": weights["w"] + 1.0}
    history = simulate(server.address, [Step()], 3, timeout=TIMEOUT)
    assert len(history) == 3
    events = [e for e in server.events() if "epsilon: " in e]
    assert len(events) == 3
    logged = [float(e.split("epsilon: ")[1]) for e in events]
    np.testing.assert_allclose(logged, cfg["dp_epsilons"], rtol=1e-5)
    lines = [json.loads(x) for x in metrics.read_text().splitlines()]
    np.testing.assert_allclose([x["epsilon"] for x in lines], cfg["dp_epsilons"], rtol=1e-5)
    # one client per round: the global model is its upload, w + 0.5 * unit + noise
    prev = w0["w"].astype(np.float64)
    for h in history:
        noise = h["weights"]["w"] - prev - 0.5 / 64
        assert abs(noise.std() / (cfg["dp_noise_multiplier"] * 0.5) - 1) < 0.05
        prev = h["weights"]["w"].astype(np.float64)


def test_model_train_with_dp_rounds(tmp_path, servers, mode):
    task = DenseTask(32)
    net, w0 = task.net, task.w0
    server = servers(dp_config(tmp_path, w0, eps=1e4, delta=1e-3, clip=0.05, rounds=2,
                               threshold=1))
    cb = FederatedLearningCallback(FederatedClient(server.address, "m", TIMEOUT), data_size=32)
    task.train(2, [cb])
    assert cb.rounds == [(1, True), (2, True)] and server.completed == 2
    got = server.global_model()
    step = math.sqrt(sum(np.sum((got[k].astype(np.float64) - w0[k]) ** 2) for k in w0))
    # two rounds, each moving the model by at most the clip 0.05 plus its noise: n values of
    # N(0, (z * clip)^2) (eps 1e4: z small), whose norm stays below (sqrt(n) + 5) * z * clip
    # but with probability about exp(-12.5) (the noise is drawn from the OS's entropy)
    n = sum(w0[k].size for k in w0)
    noise = (math.sqrt(n) + 5) * dp_noise_multiplier(1e4, 1e-3) * 0.05
    assert 0.01 < step <= 0.1 + 2 * noise, (step, noise)
    np.testing.assert_array_equal(network_weights(net)["weight"], got["weight"])


def test_dp_config_checks(tmp_path):
    w0 = init_weights()
    with pytest.raises(ValueError, match="'encrypt.dp_encrypt.dp_delta' must be in"):
        load_config(dp_config(tmp_path, w0, delta=1.5))
    with pytest.raises(ValueError, match="'encrypt.dp_encrypt.dp_norm_clip' must be positive"):
        load_config(dp_config(tmp_path, w0, clip=0))
    with pytest.raises(TypeError, match="'encrypt.dp_encrypt.dp_eps' must be a number"):
        load_config(dp_config(tmp_path, w0, eps="big"))
    with pytest.raises(ValueError, match="is given but encrypt_type is not DP_ENCRYPT"):
        load_config(config(tmp_path, w0, encrypt={"dp_encrypt": {"dp_eps": 5.0}}))
    with pytest.raises(ValueError, match="too small"):
        dp_noise_multiplier(1e-9, 1e-5)
