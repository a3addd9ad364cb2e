"""Authenticated vertical parties (generate_party_keys, ServerConfig(public_key=...),
VerticalFederatedCommunicator(secret_key=...); src/federated/vertical.h): tensors and a PSI
cross between keyed parties; an impersonator with its own keys, a sender without a tag, a
message tampered with on the way (a proxy between the parties), an old session's message
replayed into a new one, and bad keys are each refused with a typed error, the receiver's
queue untouched. Loopback only; every wait has a timeout."""
import http.server
import threading
import time
import urllib.request

import numpy as np
import pytest

from mycel import _mycel as _C
from mycel.federated.vertical import (RunPSI, ServerConfig, VerticalFederatedCommunicator,
                                      generate_party_keys)

TIMEOUT = 20.0


@pytest.fixture
def keyed():
    """keyed(**leader_kw) -> (leader, follower, keys): a launched pair with keys both ways."""
    made = []

    def make(leader_timeout=TIMEOUT, **leader_kw):
        lpk, lsk = generate_party_keys()
        fpk, fsk = generate_party_keys()
        lc = ServerConfig("leader", "127.0.0.1:0", public_key=lpk)
        fc = ServerConfig("follower", "127.0.0.1:0", public_key=fpk)
        leader = VerticalFederatedCommunicator(ServerConfig("leader", "127.0.0.1:0"), fc,
                                               leader_timeout, secret_key=lsk,
                                               **leader_kw).launch()
        lc.server_address = leader.http_server_config.server_address
        follower = VerticalFederatedCommunicator(ServerConfig("follower", "127.0.0.1:0"), lc,
                                                 TIMEOUT, secret_key=fsk).launch()
        fc.server_address = follower.http_server_config.server_address
        made.extend([leader, follower])
        return leader, follower, dict(leader=(lpk, lsk), follower=(fpk, fsk), lc=lc, fc=fc)
    yield make
    for c in made:
        c.stop()


def test_keyed_parties_exchange_tensors_and_run_psi(keyed):
    leader, follower, _ = keyed()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    follower.send_tensors("leader", {"emb": a})
    np.testing.assert_array_equal(leader.receive("follower")["emb"], a)
    leader.send_tensors("follower", {"grad": a * 3})
    np.testing.assert_array_equal(follower.receive("leader")["grad"], a * 3)
    ids_l, ids_f = [f"u{i}" for i in range(0, 40)], [f"u{i}" for i in range(25, 70)]
    out = {}
    t = threading.Thread(target=lambda: out.update(f=RunPSI(ids_f, "follower", "leader")))
    t.start()
    got = RunPSI(ids_l, "leader", "follower")
    t.join(60)
    assert got == out["f"] == sorted(f"u{i}" for i in range(25, 40))
    assert leader.events() == [] and follower.events() == []


def test_an_impersonator_with_its_own_keys_is_refused(keyed):
    leader, _, keys = keyed(leader_timeout=1.0)
    _, mallory_sk = generate_party_keys()  # knows the leader's public key, not the follower's
    mallory = VerticalFederatedCommunicator(ServerConfig("follower", "127.0.0.1:0"), keys["lc"],
                                            TIMEOUT, secret_key=mallory_sk).launch()
    try:
        with pytest.raises(ValueError, match="unauthorized.*failed authentication"):
            mallory.send_tensors("leader", {"x": np.ones(2, np.float32)})
    finally:
        mallory.stop()
    # a sender with no key at all: the name alone does not do
    host, port = leader.http_server_config.server_address.split(":")
    raw = _C._federated._Client(host, int(port), "follower", TIMEOUT)
    status, reason, *_ = raw.call("vflMessage", iteration=1, weights={"x": np.ones(2)})
    assert status == "unauthorized" and "without an authentication tag" in reason
    events = leader.events()
    assert len(events) == 2 and "failed authentication" in events[0]
    with pytest.raises(RuntimeError, match="no message"):  # nothing reached the queue
        leader.receive("follower")


class Proxy:
    """An HTTP relay between the follower and the leader: it records each body and, while
    ``tamper`` is set, flips the last byte (inside the tensors) before forwarding it."""

    def __init__(self, target):
        self.target, self.bodies, self.tamper = target, [], False
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.bodies.append(body)
                if proxy.tamper:
                    body = body[:-1] + bytes([body[-1] ^ 1])
                req = urllib.request.Request(f"http://{proxy.target}{self.path}", data=body,
                                             method="POST")
                try:
                    with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
                        code, answer = r.status, r.read()
                except urllib.error.HTTPError as e:
                    code, answer = e.code, e.read()
                self.send_response(code)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_tampered_message_is_refused_and_the_untampered_one_taken(keyed):
    leader, follower, keys = keyed()
    proxy = Proxy(leader.http_server_config.server_address)
    try:
        keys["lc"].server_address = proxy.address  # the follower now sends through the proxy
        x = {"emb": np.linspace(0, 1, 8, dtype=np.float32)}
        proxy.tamper = True
        with pytest.raises(ValueError, match="failed authentication"):
            follower.send_tensors("leader", x)
        proxy.tamper = False
        follower.send_tensors("leader", x)  # message 1 again (a fresh nonce, time and tag)
        np.testing.assert_array_equal(leader.receive("follower")["emb"], x["emb"])
        assert len(proxy.bodies) == 2
        assert len(leader.events()) == 1 and "tampered" in leader.events()[0]
    finally:
        proxy.stop()


def test_an_old_sessions_message_replayed_into_a_new_session_is_refused(keyed):
    leader, follower, keys = keyed(replay_attack_time_diff=1000)
    proxy = Proxy(leader.http_server_config.server_address)
    try:
        keys["lc"].server_address = proxy.address
        follower.send_tensors("leader", {"emb": np.ones(3, np.float32)})
        leader.receive("follower")
    finally:
        proxy.stop()
    recorded = proxy.bodies[0]
    host, port = leader.http_server_config.server_address.split(":")
    raw = _C._federated._Client(host, int(port), "follower", TIMEOUT)
    status, reason, *_ = raw.post("/vflMessage", recorded)  # the same session: by its number
    assert status == "rejected" and "replay" in reason
    # a new session of the leader, same keys: sequence numbers start again at 1
    leader.stop()
    again = VerticalFederatedCommunicator(
        ServerConfig("leader", leader.http_server_config.server_address), keys["fc"], TIMEOUT,
        secret_key=keys["leader"][1], replay_attack_time_diff=1000).launch()
    try:
        time.sleep(1.3)
        status, reason, *_ = raw.post("/vflMessage", recorded)
        assert status == "rejected" and "replay_attack_time_diff" in reason
        assert len(again.events()) == 1
    finally:
        again.stop()


def test_key_arguments_are_checked():
    pk, sk = generate_party_keys()
    assert len(pk) == len(sk) == 32 and pk != sk and generate_party_keys()[0] != pk
    local, remote = ServerConfig("a", "127.0.0.1:0"), ServerConfig("b", "127.0.0.1:0")
    with pytest.raises(ValueError, match="needs both"):
        VerticalFederatedCommunicator(local, remote, secret_key=sk)  # no peer key
    with pytest.raises(ValueError, match="needs both"):
        VerticalFederatedCommunicator(local, ServerConfig("b", "127.0.0.1:0", public_key=pk))
    with pytest.raises(ValueError, match="32 bytes"):
        ServerConfig("b", "127.0.0.1:0", public_key=pk[:31])
    with pytest.raises(TypeError, match="secret_key must be bytes"):
        VerticalFederatedCommunicator(local, remote, secret_key=sk.hex())
    with pytest.raises(ValueError, match="replay_attack_time_diff"):
        VerticalFederatedCommunicator(local, ServerConfig("b", "127.0.0.1:0", public_key=pk),
                                      secret_key=sk, replay_attack_time_diff=0)
    bad = VerticalFederatedCommunicator(local, ServerConfig("b", "127.0.0.1:0",
                                                            public_key=bytes(32)),
                                        secret_key=sk)
    with pytest.raises(ValueError, match="not a valid X25519 key"):
        bad.launch()  # the identity point gives no shared key
