"""Secure aggregation (encrypt_type PW_ENCRYPT; src/federated/secagg.h) over HTTP: the unmasked
aggregate against numpy's weighted mean, a chi-square test that what the server receives from
one client is uniform (and that the same test rejects the unmasked encoding), 20% of the
clients dropping out after sharing their secrets, too many dropouts failing the round with the
model kept, malformed secure-aggregation messages refused, the config, and Model.train taking
part through the callback in both modes.

Loopback only; every wait has a timeout; every server a test starts is stopped by it."""
import threading

import numpy as np
import pytest
import torch

import mycel as ms
from mycel.federated import (FederatedClient, FederatedLearningCallback, load_config,
                             network_weights, simulate)

from test_federated import (TIMEOUT, DenseTask, assert_weights_equal, config,  # noqa: F401
                            init_weights, mode, raw_client, servers)

PW = {"encrypt_type": "PW_ENCRYPT"}


def pw_config(tmp_path, weights, t, cipher_ms=20000, **kw):
    return config(tmp_path, weights, **kw,
                  encrypt={**PW, "pw_encrypt": {"reconstruct_secrets_threshold": t,
                                                "cipher_time_window": cipher_ms}})


class Fixed:
    """A simulated client that uploads a fixed update (None: it drops out after sharing)."""

    def __init__(self, cid, update, size):
        self.client_id, self.update, self.data_size = cid, update, size

    def train(self, weights):
        return self.update


def make_clients(w0, n, seed=1):
    rng = np.random.default_rng(seed)
    return [Fixed(f"c{i:02d}", {k: rng.standard_normal(v.shape).astype(np.float32)
                                for k, v in w0.items()}, int(rng.integers(5, 100)))
            for i in range(n)]


def weighted_mean(clients, key):
    live = [c for c in clients if c.update is not None]
    return (sum(c.data_size * c.update[key].astype(np.float64) for c in live)
            / sum(c.data_size for c in live))


def test_the_secure_aggregate_equals_plain_fedavg(tmp_path, servers):
    w0 = init_weights()
    clients = make_clients(w0, 6)
    (tmp_path / "plain").mkdir()
    (tmp_path / "pw").mkdir()
    plain = servers(config(tmp_path / "plain", w0, rounds=1, threshold=6))
    simulate(plain.address, clients, 1, timeout=TIMEOUT)
    secure = servers(pw_config(tmp_path / "pw", w0, t=4, rounds=1, threshold=6))
    history = simulate(secure.address, clients, 1, timeout=TIMEOUT, encrypt_type="PW_ENCRYPT")
    assert history[0]["uploaded"] == 6 and history[0]["refused"] == []
    got = secure.global_model()
    for k in w0:
        # fixed point with 20 fraction bits: each of 6 terms rounds by at most 2^-21
        np.testing.assert_allclose(got[k], weighted_mean(clients, k), rtol=0, atol=1e-5)
        np.testing.assert_allclose(got[k], plain.global_model()[k], rtol=0, atol=1e-5)
        assert got[k].dtype == np.float32
    assert any("secure aggregation of 6 update(s)" in e for e in secure.events())


class Recorder:
    """Wraps a client's transport and keeps the weights of each message it sends."""

    def __init__(self, inner):
        self.inner, self.sent = inner, []

    def call(self, kind, **kw):
        self.sent.append((kind, kw.get("weights")))
        return self.inner.call(kind, **kw)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def chi_square_p(values_u8, bins=256):
    counts = np.bincount(values_u8, minlength=bins).astype(np.float64)
    expected = values_u8.size / bins
    stat = ((counts - expected) ** 2 / expected).sum()
    return float(torch.special.gammaincc(torch.tensor((bins - 1) / 2, dtype=torch.float64),
                                         torch.tensor(stat / 2, dtype=torch.float64)))


def test_what_the_server_receives_from_a_client_is_uniform(tmp_path, servers):
    # A model of 16,384 float32 values that are far from uniform bytes: small, smooth numbers.
    w0 = {"w": np.linspace(-0.5, 0.5, 16384, dtype=np.float32).reshape(128, 128)}
    server = servers(pw_config(tmp_path, w0, t=2, rounds=1, threshold=3))
    conns = [FederatedClient(server.address, f"u{i}", TIMEOUT, encrypt_type="PW_ENCRYPT")
             for i in range(3)]
    conns[0]._c = Recorder(conns[0]._c)
    for c in conns:
        c.start_fl_job(10)
    for c in conns:
        c.share_secrets(10)
    for c in conns:
        c.update_model(w0, 10)
    for c in conns:
        c.reconstruct_secrets()
    sent = [w for kind, w in conns[0]._c.sent if kind == "updateModel"]
    assert len(sent) == 1 and sent[0]["w"].dtype == np.int32
    masked = sent[0]["w"].view(np.uint8).ravel()  # every byte of the upload
    p_bytes = chi_square_p(masked)
    p_top = chi_square_p((sent[0]["w"].view(np.uint32).ravel() >> 24).astype(np.int64))
    # Uniform bytes pass (a wrong verdict has probability 1e-4 per statistic: the masks come
    # from fresh random keys) ...
    assert p_bytes > 1e-4 and p_top > 1e-4, (p_bytes, p_top)
    # ... and the same test rejects the unmasked fixed-point encoding of the same update.
    plain = np.round(w0["w"].astype(np.float64) * 2 ** 20 / 3).astype(np.int64).astype(np.uint32)
    assert chi_square_p(plain.view(np.uint8).ravel()) < 1e-10
    # and the round still averages correctly (three equal updates: the update itself)
    np.testing.assert_allclose(conns[1].get_model()[1]["w"], w0["w"], atol=1e-5)


def test_a_fifth_dropping_out_after_sharing_still_gives_the_survivors_sum(tmp_path, servers):
    w0 = init_weights()
    clients = make_clients(w0, 10, seed=2)
    for c in clients[3], clients[8]:
        c.update = None  # they share their secrets, then drop out
    server = servers(pw_config(tmp_path, w0, t=6, rounds=1, threshold=10, ratio=0.8))
    history = simulate(server.address, clients, 1, timeout=TIMEOUT, encrypt_type="PW_ENCRYPT")
    assert history[0]["uploaded"] == 8 and history[0]["refused"] == []
    for k in w0:
        np.testing.assert_allclose(server.global_model()[k], weighted_mean(clients, k),
                                   rtol=0, atol=1e-5)
    assert any("8 masked update(s), 2 dropped" in e for e in server.events())


class TwoRounds(Fixed):
    """Drops out of round 1 (after sharing) when told to; uploads w0 + 1 in round 2."""

    def __init__(self, cid, w0, size, drop_first):
        super().__init__(cid, None, size)
        self.plan = [None if drop_first else {k: v - 1 for k, v in w0.items()},
                     {k: v + 1 for k, v in w0.items()}]

    def train(self, weights):
        return self.plan.pop(0)


def test_too_many_dropouts_fail_the_round_and_keep_the_model(tmp_path, servers):
    w0 = init_weights()
    clients = [TwoRounds(f"c{i}", w0, 10, drop_first=i < 3) for i in range(5)]
    # round 1: 2 of 5 upload, fewer than t = 3
    server = servers(pw_config(tmp_path, w0, t=3, rounds=2, threshold=5, update_ms=1500))
    history = simulate(server.address, clients, 2, timeout=TIMEOUT, encrypt_type="PW_ENCRYPT")
    assert [h["uploaded"] for h in history] == [2, 5]
    reasons = [r for _, r in history[0]["refused"]]
    assert len(reasons) == 2 and all("fewer than the reconstruct_secrets_threshold 3" in r
                                     for r in reasons), reasons
    assert any("round 1 failed: 2 client(s) uploaded, fewer than the "
               "reconstruct_secrets_threshold 3: the global model is kept" in e
               for e in server.events()), server.events()
    assert_weights_equal(history[0]["weights"], w0)
    # the next round runs normally
    assert history[1]["refused"] == [] and server.completed == 2
    for k in w0:
        np.testing.assert_allclose(server.global_model()[k], w0[k] + 1, atol=1e-5)


@pytest.fixture
def keyed(tmp_path, servers):
    """A PW_ENCRYPT server in round 1 with clients a, b, c admitted and keyed; a check that a
    refusal left the server up, the model unchanged and the reason in the log."""
    w0 = init_weights()
    server = servers(pw_config(tmp_path, w0, t=2, rounds=1, threshold=3))
    conns = [FederatedClient(server.address, n, TIMEOUT, encrypt_type="PW_ENCRYPT")
             for n in "abc"]
    for c in conns:
        c.start_fl_job(4)

    def unchanged(reason):
        assert any(reason in e for e in server.events()), (reason, server.events())
        assert_weights_equal(server.global_model(), w0)
        assert server.iteration == 1 and server.completed == 0
    return server, conns, w0, unchanged


def refused(conn, kind, weights, match):
    status, reason, *_ = conn._c.call(kind, iteration=1, data_size=4, weights=weights)
    assert status == "rejected" and match in reason, (status, reason)


def test_bad_secure_aggregation_messages_are_refused(keyed):
    server, (a, b, c), w0, unchanged = keyed
    keys = a._secure.keys()
    refused(a, "exchangeKeys", keys, "is not taking /exchangeKeys now")  # all three keyed
    unchanged("is not taking /exchangeKeys now")
    refused(a, "shareSecrets", {}, "carries 0 entries, not one for each of the 2 other")
    unchanged("carries 0 entries")
    for conn in (a, b, c):
        conn.share_secrets(4)
    refused(a, "shareSecrets", {}, "is not taking /shareSecrets now")  # all three shared
    # a plain float32 update, or a masked one of the wrong shape, where a masked one is due
    refused(a, "updateModel", w0, "must be Int32 of the model's shape")
    unchanged("must be Int32 of the model's shape")
    bad = {"w": np.zeros((4, 3), np.int32), "b": np.zeros(4, np.int32)}
    refused(a, "updateModel", bad, "must be Int32 of the model's shape")
    refused(a, "reconstructSecrets", {}, "is not taking /reconstructSecrets now")
    for conn in (a, b, c):
        conn.update_model(w0, 4)
    # shares of the wrong size, at another client's point, or of an unknown client
    good = a._secure.reveal(a._wait("getClientList"))
    refused(a, "reconstructSecrets", {"a": good["a"]},
            "carries 1 shares, not one for each of the 3")
    refused(a, "reconstructSecrets", {**good, "b": np.zeros(45, np.uint8)}, "has 45 bytes")
    refused(a, "reconstructSecrets", {**good, "b": np.zeros(44, np.uint8)},
            "a share at point 0")
    refused(a, "reconstructSecrets", b._secure.reveal(b._wait("getClientList")),
            "a share at point 2, the client's is 1")
    unchanged("a share at point 2, the client's is 1")
    refused(a, "reconstructSecrets", {"a": good["a"], "b": good["b"], "zed": good["c"]},
            "'zed', who did not share")
    # a stranger, and a client of a plain server
    stranger = raw_client(server, "mallory")
    assert stranger.call("getKeys", iteration=1)[0] == "unauthorized"
    for conn in (a, b, c):
        conn.reconstruct_secrets()
    it, new = a.get_model()
    np.testing.assert_allclose(new["w"], w0["w"], atol=1e-5)  # three equal updates


def test_secure_messages_on_a_plain_server_and_malformed_kinds(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, threshold=1))
    a = FederatedClient(server.address, "a", TIMEOUT)
    a.start_fl_job(1)
    status, reason, *_ = a._c.call("exchangeKeys", iteration=1, weights={})
    assert status == "rejected" and "encrypt_type is not PW_ENCRYPT" in reason
    body = bytearray(a._c.last_request)
    body[5] = 13  # one past the last kind
    status, reason, *_ = a._c.post("/exchangeKeys", bytes(body))
    assert status == "malformed" and "unknown kind 13" in reason
    assert_weights_equal(server.global_model(), w0)


def test_pw_config_keys(tmp_path):
    w0 = init_weights()
    cfg = load_config(pw_config(tmp_path, w0, t=3, threshold=5))
    assert cfg["encrypt_type"] == "PW_ENCRYPT" and cfg["reconstruct_secrets_threshold"] == 3
    assert cfg["cipher_time_window"] == 20000
    with pytest.raises(ValueError, match="encrypt.pw_encrypt.share_secrets_ratio"):
        load_config(config(tmp_path, w0, encrypt={**PW, "pw_encrypt": {
            "share_secrets_ratio": 1.5}}))
    with pytest.raises(ValueError, match="is given but encrypt_type is not PW_ENCRYPT"):
        load_config(config(tmp_path, w0, encrypt={"pw_encrypt": {"cipher_time_window": 5}}))
    with pytest.raises(ValueError, match="'reconstruct_secrets_threshold' must not exceed"):
        ms.federated.FLServer(pw_config(tmp_path, w0, t=4, threshold=3),
                              log_to_stderr=False).start()
    with pytest.raises(ValueError, match="'reconstruct_secrets_threshold' must be at least 2"):
        ms.federated.FLServer(pw_config(tmp_path, w0, t=1, threshold=3),
                              log_to_stderr=False).start()
    with pytest.raises(ValueError, match="encrypt_type must be"):
        FederatedClient("127.0.0.1:1", "x", encrypt_type="PW")


class Keep(ms.train.Callback):
    """Records the network's trained weights at each epoch's end, before the upload."""

    def __init__(self, net):
        self.net, self.trained = net, []

    def on_train_epoch_end(self, run_context):
        self.trained.append(network_weights(self.net))


def test_model_train_takes_part_in_secure_rounds(tmp_path, servers, mode):
    task = DenseTask(32)
    net, w0 = task.net, task.w0
    server = servers(pw_config(tmp_path, w0, t=2, rounds=2, threshold=2))
    peer_w = {k: np.full_like(v, 0.25) for k, v in w0.items()}
    errors = []

    def peer():  # a second client with fixed weights, in a thread of its own
        try:
            p = FederatedClient(server.address, "peer", TIMEOUT, encrypt_type="PW_ENCRYPT")
            for _ in range(2):
                p.start_fl_job(96)
                p.update_model(peer_w, 96)
                p.get_model()
        except Exception as e:  # reported by the main thread
            errors.append(e)
    t = threading.Thread(target=peer)
    t.start()
    client = FederatedClient(server.address, "model", TIMEOUT, encrypt_type="PW_ENCRYPT")
    cb = FederatedLearningCallback(client, data_size=32)
    keep = Keep(net)
    task.train(2, [keep, cb])
    t.join(TIMEOUT)
    assert not t.is_alive() and errors == []
    assert cb.rounds == [(1, True), (2, True)] and server.completed == 2
    for k in w0:  # round 2's model: the weighted mean of the trained net's and the peer's
        want = (32 * keep.trained[1][k].astype(np.float64) + 96 * peer_w[k]) / 128
        np.testing.assert_allclose(server.global_model()[k], want, atol=1e-5)
    assert_weights_equal(server.global_model(), network_weights(net))
