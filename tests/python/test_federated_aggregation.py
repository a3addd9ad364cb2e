"""Server momentum (FedAvgM, the aggregation: section; src/federated/model.h ServerMomentum):
the global model after each round against a numpy reference of v = m * v + (avg - w),
w += lr * v; a server restarted between rounds continues the same sequence (the velocity is in
the round checkpoint); lr 1 with momentum 0 is plain FedAvg; the config's checks.

Loopback only; every wait has a timeout; every server a test starts is stopped by it."""
import numpy as np
import pytest

import mycel as ms
from mycel.federated import load_config, simulate

from test_federated import (TIMEOUT, assert_weights_equal, config, init_weights,  # noqa: F401
                            servers)


class Scripted:
    """A client that uploads a fixed function of the global model it got: w * scale + shift."""

    def __init__(self, cid, scale, shift, size):
        self.client_id, self.scale, self.shift, self.data_size = cid, scale, shift, size

    def train(self, weights):
        return {k: (v * self.scale + self.shift[k]).astype(np.float32)
                for k, v in weights.items()}


def make_clients(w0):
    rng = np.random.default_rng(7)
    return [Scripted(f"c{i}", s, {k: rng.standard_normal(v.shape).astype(np.float32)
                                  for k, v in w0.items()}, n)
            for i, (s, n) in enumerate([(0.9, 10), (1.1, 30), (0.5, 60)])]


def reference(w0, clients, rounds, lr, momentum):
    """The global model after each round, in numpy: FedAvg's weighted mean (float64, rounded to
    float32 as the server sends it), then the momentum step (float64 velocity)."""
    w = {k: v.copy() for k, v in w0.items()}
    v = {k: np.zeros(x.shape) for k, x in w0.items()}
    total = sum(c.data_size for c in clients)
    out = []
    for _ in range(rounds):
        ups = [c.train(w) for c in clients]
        nxt = {}
        for k in w:
            avg = (sum(c.data_size * u[k].astype(np.float64) for c, u in zip(clients, ups))
                   / total).astype(np.float32)
            v[k] = momentum * v[k] + (avg.astype(np.float64) - w[k])
            nxt[k] = (w[k] + lr * v[k]).astype(np.float32)
        w = nxt
        out.append(w)
    return out


def fedavgm(lr, momentum):
    return {"aggregation": {"server_learning_rate": lr, "server_momentum": momentum}}


@pytest.mark.parametrize("lr,momentum", [(1.0, 0.9), (0.3, 0.7), (1.5, 0.0)])
def test_fedavgm_rounds_equal_the_numpy_reference(tmp_path, servers, lr, momentum):
    w0 = init_weights()
    clients = make_clients(w0)
    server = servers(config(tmp_path, w0, rounds=4, threshold=3, **fedavgm(lr, momentum)))
    history = simulate(server.address, clients, 4, timeout=TIMEOUT)
    want = reference(w0, clients, 4, lr, momentum)
    assert [h["iteration"] for h in history] == [1, 2, 3, 4]
    for h, ref in zip(history, want):
        for k in w0:
            np.testing.assert_allclose(h["weights"][k], ref[k], rtol=1e-5, atol=1e-5)
    # momentum changes the trajectory: after round 2 it differs from plain FedAvg
    plain = reference(w0, clients, 2, 1.0, 0.0)[1]
    if momentum > 0:
        assert not np.allclose(history[1]["weights"]["w"], plain["w"], atol=1e-3)


def test_default_aggregation_is_plain_fedavg(tmp_path, servers):
    w0 = init_weights()
    clients = make_clients(w0)
    server = servers(config(tmp_path, w0, rounds=2, threshold=3, **fedavgm(1.0, 0.0)))
    history = simulate(server.address, clients, 2, timeout=TIMEOUT)
    for h, ref in zip(history, reference(w0, clients, 2, 1.0, 0.0)):
        for k in w0:
            np.testing.assert_allclose(h["weights"][k], ref[k], rtol=1e-6, atol=1e-6)
    saved = ms.load_checkpoint(str(tmp_path / "ckpt" / "fl_global.ckpt"))
    assert not any(k.startswith("fl_velocity/") for k in saved)  # no momentum, no velocity


def test_a_restarted_fedavgm_server_continues_with_its_velocity(tmp_path, servers):
    w0 = init_weights()
    clients = make_clients(w0)
    cfg = config(tmp_path, w0, rounds=4, threshold=3, **fedavgm(0.5, 0.9))
    first = servers(cfg)
    simulate(first.address, clients, 2, timeout=TIMEOUT)
    first.stop()
    saved = ms.load_checkpoint(str(tmp_path / "ckpt" / "fl_global.ckpt"))
    assert saved["fl_velocity/w"].asnumpy().dtype == np.float64
    again = servers(cfg)
    assert again.completed == 2
    history = simulate(again.address, clients, 2, timeout=TIMEOUT)
    want = reference(w0, clients, 4, 0.5, 0.9)
    assert [h["iteration"] for h in history] == [3, 4]
    for h, ref in zip(history, want[2:]):
        for k in w0:
            np.testing.assert_allclose(h["weights"][k], ref[k], rtol=1e-5, atol=1e-5)


def test_aggregation_config_checks_name_the_key(tmp_path):
    w0 = init_weights()
    out = load_config(config(tmp_path, w0, **fedavgm(1, 0.9)))
    assert out["server_learning_rate"] == 1.0 and out["server_momentum"] == 0.9
    for bad, kind, key in (({"server_momentum": 1.0}, ValueError, "server_momentum"),
                           ({"server_momentum": -0.1}, ValueError, "server_momentum"),
                           ({"server_learning_rate": 0}, ValueError, "server_learning_rate"),
                           ({"server_learning_rate": "1"}, TypeError, "server_learning_rate"),
                           ({"momentum": 0.9}, ValueError, "aggregation.momentum")):
        with pytest.raises(kind, match=key):
            load_config(config(tmp_path, w0, aggregation=bad))
