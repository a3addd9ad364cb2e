"""Federated learning (mycel.federated, src/federated): the C++ server's rounds of FedAvg
against the weighted mean, windows, stragglers and dropouts, checkpoint-and-resume (also of a
killed server process), every kind of bad request (each refused with a logged reason, the
server still up and the model unchanged), the config, simulated non-IID Fashion-MNIST clients,
the training callback and FedProx in both modes.

Loopback only; every wait has a timeout; every server and process a test starts is stopped
by it; no test asserts a timing."""
import gzip
import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel import _mycel as _C
from mycel.federated import (FLServer, FederatedClient, FederatedLearningCallback, FedProxLoss,
                             RequestRejected, ServerFinished, load_config, simulate,
                             simulate_in_processes)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FASHION = "/usr/share/datasets/fashion-mnist"
TIMEOUT = 30.0


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def init_weights(seed=0):
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((3, 4)).astype(np.float32),
            "b": rng.standard_normal(4).astype(np.float32)}


def save_model(path, weights):
    ms.save_checkpoint([{"name": k, "data": ms.Tensor(v)} for k, v in weights.items()],
                       str(path))
    return str(path)


def config(tmp_path, weights, rounds=3, threshold=2, ratio=1.0, start_ms=20000,
           update_ms=20000, **extra):
    cfg = {"fl_name": "test", "fl_iteration_num": rounds,
           "http_server_address": "127.0.0.1:0", "checkpoint_dir": str(tmp_path / "ckpt"),
           "feature_map": save_model(tmp_path / "init.ckpt", weights),
           "round": {"start_fl_job_threshold": threshold, "start_fl_job_time_window": start_ms,
                     "update_model_ratio": ratio, "update_model_time_window": update_ms}}
    cfg.update(extra)
    return cfg


@pytest.fixture
def servers():
    """Starts FLServers for a test and stops every one of them afterwards."""
    started = []

    def start(cfg):
        s = FLServer(cfg, log_to_stderr=False).start()
        started.append(s)
        return s
    yield start
    for s in started:
        s.stop()


def client(server, name):
    return FederatedClient(server.address, client_id=name, timeout=TIMEOUT)


def assert_weights_equal(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


# ---- rounds -------------------------------------------------------------------------------

def test_fedavg_is_the_mean_weighted_by_sample_counts(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, threshold=3))
    rng = np.random.default_rng(1)
    sizes = [10, 25, 65]
    updates = [{k: rng.standard_normal(v.shape).astype(np.float32) for k, v in w0.items()}
               for _ in sizes]
    clients = [client(server, f"c{i}") for i in range(3)]
    for c, n in zip(clients, sizes):
        it, got = c.start_fl_job(data_size=n)
        assert it == 1
        assert_weights_equal(got, w0)
    for c, n, u in zip(clients, sizes, updates):
        c.update_model(u, data_size=n)
    it, new = clients[0].get_model()
    assert it == 1 and server.completed == 1 and server.iteration == 2
    for k in w0:
        want = sum(n * u[k].astype(np.float64) for n, u in zip(sizes, updates)) / sum(sizes)
        np.testing.assert_allclose(new[k], want, rtol=1e-6, atol=1e-6)
        assert new[k].dtype == np.float32
    assert_weights_equal(server.global_model(), new)
    assert any("FedAvg of 3 update(s), 100 sample(s)" in e for e in server.events())
    assert not os.path.exists(tmp_path / "metrics.json")  # no summary: no metrics file


def test_rounds_run_to_fl_iteration_num_then_finish(tmp_path, servers):
    w = init_weights()
    server = servers(config(tmp_path, w, rounds=2, threshold=1))
    c = client(server, "a")
    for t in (1, 2):
        it, got = c.start_fl_job(data_size=5)
        assert it == t
        c.update_model({k: v + t for k, v in got.items()}, data_size=5)
        it, w = c.get_model()
        assert it == t
    assert server.finished
    with pytest.raises(ServerFinished):
        c.start_fl_job(data_size=5)
    it, final = c.get_model()  # the final model is still served
    assert it == 2
    np.testing.assert_allclose(final["w"], init_weights()["w"] + 3, rtol=1e-6)


def test_a_full_round_refuses_more_clients(tmp_path, servers):
    server = servers(config(tmp_path, init_weights(), threshold=2))
    a, b, c = (client(server, n) for n in "abc")
    a.start_fl_job(data_size=1)
    b.start_fl_job(data_size=1)
    with pytest.raises(RequestRejected, match="admits no more clients") as e:
        c.start_fl_job(data_size=1)
    assert e.value.status == "rejected" and e.value.iteration == 1


def test_an_admission_window_closes_with_fewer_clients_than_the_threshold(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, threshold=5, start_ms=300))
    a, b = client(server, "a"), client(server, "b")
    a.start_fl_job(data_size=1)
    b.start_fl_job(data_size=3)
    a.update_model({k: np.zeros_like(v) for k, v in w0.items()}, data_size=1)
    b.update_model({k: np.full_like(v, 4) for k, v in w0.items()}, data_size=3)
    it, w = a.get_model()  # closes once the window is over and both have uploaded
    assert it == 1
    np.testing.assert_allclose(w["w"], np.full((3, 4), 3.0), rtol=1e-6)


def test_a_straggler_is_refused_as_stale_once_the_ratio_closed_the_round(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, threshold=3, ratio=0.6))  # ceil(0.6 * 3) = 2
    cs = [client(server, n) for n in "abc"]
    for c in cs:
        c.start_fl_job(data_size=2)
    cs[0].update_model({k: np.ones_like(v) for k, v in w0.items()}, data_size=2)
    cs[1].update_model({k: np.full_like(v, 3) for k, v in w0.items()}, data_size=2)
    it, w = cs[0].get_model()
    np.testing.assert_allclose(w["b"], np.full(4, 2.0))
    with pytest.raises(RequestRejected, match="stale iteration 1 \\(the round is 2\\)"):
        cs[2].update_model({k: np.full_like(v, 100) for k, v in w0.items()}, data_size=2)
    assert_weights_equal(server.global_model(), w)


def test_a_round_with_too_few_uploads_keeps_the_model_and_moves_on(tmp_path, servers):
    import json
    w0 = init_weights()
    metrics = tmp_path / "metrics.json"
    server = servers(config(tmp_path, w0, threshold=2, update_ms=300,
                            summary={"metrics_file": str(metrics)}))
    a, b = client(server, "a"), client(server, "b")
    a.start_fl_job(data_size=1)
    b.start_fl_job(data_size=1)  # b drops out
    a.update_model({k: np.full_like(v, 9) for k, v in w0.items()}, data_size=1)
    upload = a._c.last_request
    it, w = a.get_model()  # closes when the upload window ends
    assert it == 1 and server.iteration == 2
    assert_weights_equal(w, w0)
    assert any("1 of 2 required update(s): the global model is kept" in e
               for e in server.events())
    it, _ = a.start_fl_job(data_size=1)
    assert it == 2
    line = json.loads(metrics.read_text())
    assert line["currentIteration"] == 1 and line["iterationResult"] == "fail"
    assert (line["startFlJobClients"], line["updateModelClients"], line["samples"]) == (2, 1, 1)
    # the bytes of the round: at least a's upload, and the model in both startFLJob replies
    assert line["uploadBytes"] >= len(upload) and line["downloadBytes"] >= 2 * 16 * 4


# ---- checkpoint and resume ----------------------------------------------------------------

def test_a_restarted_server_resumes_after_its_last_round(tmp_path, servers):
    w0 = init_weights()
    cfg = config(tmp_path, w0, rounds=5, threshold=1)
    server = servers(cfg)
    c = client(server, "a")
    for t in (1, 2):
        _, w = c.start_fl_job(data_size=3)
        c.update_model({k: v * 0.5 + t for k, v in w.items()}, data_size=3)
        _, w = c.get_model()
    c.start_fl_job(data_size=3)  # round 3 open, not closed
    server.stop()
    saved = ms.load_checkpoint(str(tmp_path / "ckpt" / "fl_global.ckpt"))
    assert int(saved["fl_iteration"].asnumpy()) == 2
    np.testing.assert_array_equal(saved["w"].asnumpy(), w["w"])
    # byte for byte what save_checkpoint writes for the same entries (the C++ writer)
    ms.save_checkpoint([{"name": k, "data": ms.Tensor(v)} for k, v in w.items()] +
                       [{"name": "fl_iteration", "data": ms.Tensor(np.int64(2))}],
                       str(tmp_path / "same.ckpt"))
    assert (tmp_path / "ckpt" / "fl_global.ckpt").read_bytes() == \
        (tmp_path / "same.ckpt").read_bytes()

    again = servers(cfg)
    assert again.completed == 2 and again.iteration == 3
    assert_weights_equal(again.global_model(), w)
    c2 = FederatedClient(again.address, client_id="a", timeout=TIMEOUT)
    it, got = c2.start_fl_job(data_size=3)  # a new token: the restarted server forgot it
    assert it == 3
    assert_weights_equal(got, w)


def _read_address(proc, deadline):
    buf = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.5)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
            for line in buf.decode(errors="replace").splitlines():
                if line.startswith("mycel.federated: serving on "):
                    return line.rsplit(" ", 1)[1]
    raise AssertionError(f"the server did not start: {buf.decode(errors='replace')}")


def _launch(cfg_path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.Popen([sys.executable, "-m", "mycel.federated.server", "--config",
                             str(cfg_path)], stderr=subprocess.PIPE, env=env)
    try:
        return proc, _read_address(proc, time.monotonic() + 60)
    except BaseException:
        proc.kill()
        proc.wait(30)
        raise


def test_a_killed_launcher_process_resumes_from_its_last_completed_round(tmp_path):
    import yaml
    w0 = init_weights()
    cfg = config(tmp_path, w0, rounds=4, threshold=1)
    cfg_path = tmp_path / "fl.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    proc, address = _launch(cfg_path)
    try:
        c = FederatedClient(address, client_id="a", timeout=TIMEOUT)
        _, w = c.start_fl_job(data_size=2)
        c.update_model({k: v + 1 for k, v in w.items()}, data_size=2)
        _, after1 = c.get_model()
        c.start_fl_job(data_size=2)  # round 2 is under way when the server dies
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        proc, address = _launch(cfg_path)
        c = FederatedClient(address, client_id="a", timeout=TIMEOUT)
        it, got = c.start_fl_job(data_size=2)
        assert it == 2
        assert_weights_equal(got, after1)
        proc.send_signal(signal.SIGTERM)  # the launcher's clean stop
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


# ---- bad requests -------------------------------------------------------------------------

@pytest.fixture
def guarded(tmp_path, servers):
    """A server in round 1 with client 'a' admitted, and a check that a refusal left the
    server up, the model unchanged and the reason in the log."""
    w0 = init_weights()
    server = servers(config(tmp_path, w0, threshold=2, start_ms=600000, max_body_bytes=4096))
    a = client(server, "a")
    a.start_fl_job(data_size=4)

    def unchanged(reason):
        assert any(reason in e for e in server.events()), server.events()
        assert_weights_equal(server.global_model(), w0)
        assert server.iteration == 1 and server.completed == 0
        it, w = client(server, f"probe{len(server.events())}").get_model(iteration=0)  # still up
        assert it == 0
        assert_weights_equal(w, w0)
    return server, a, w0, unchanged


def raw_client(server, name, token=""):
    host, port = server.address.rsplit(":", 1)
    c = _C._federated._Client(host, int(port), name, TIMEOUT)
    c.set_token(token)
    return c


def test_an_unknown_client_or_a_wrong_token_is_unauthorized(guarded):
    server, a, w0, unchanged = guarded
    status, reason, *_ = raw_client(server, "mallory").call("updateModel", iteration=1,
                                                             data_size=1, weights=w0)
    assert status == "unauthorized" and "unknown client 'mallory'" in reason
    unchanged("unknown client 'mallory'")
    status, reason, *_ = raw_client(server, "a", token="0" * 64).call(
        "updateModel", iteration=1, data_size=4, weights=w0)
    assert status == "unauthorized"
    unchanged("wrong token for client 'a'")
    with pytest.raises(RequestRejected, match="already registered"):
        FederatedClient(server.address, client_id="a", timeout=TIMEOUT).start_fl_job(1)


def test_a_replayed_message_is_refused(guarded):
    server, a, w0, unchanged = guarded
    a.update_model({k: v + 1 for k, v in w0.items()}, data_size=4)
    before = server.global_model()
    status, reason, *_ = a._c.post("/updateModel", a._c.last_request)
    assert status == "rejected" and "nonce seen" in reason
    assert any("replayed message from client 'a' (nonce seen)" in e for e in server.events())
    assert_weights_equal(server.global_model(), before)


def test_a_stale_or_future_iteration_and_a_second_upload_are_refused(guarded):
    server, a, w0, unchanged = guarded
    for it in (5, 7):
        a.iteration = it
        with pytest.raises(RequestRejected, match="stale iteration"):
            a.update_model(w0, data_size=4)
    unchanged("stale iteration 5 (the round is 1)")
    a.iteration = 1
    with pytest.raises(RequestRejected, match="data_size 5 differs from the 4 announced"):
        a.update_model(w0, data_size=5)
    with pytest.raises(RequestRejected, match="data_size must be in \\[1, 1099511627776\\]"):
        client(server, "d").start_fl_job(data_size=2 ** 41)
    a.update_model(w0, data_size=4)
    with pytest.raises(RequestRejected, match="already uploaded"):
        a.update_model(w0, data_size=4)
    with pytest.raises(RequestRejected, match="was not admitted"):
        b = client(server, "b")
        b.iteration = 1
        b.update_model(w0, data_size=4)


@pytest.mark.parametrize("change, reason", [
    (lambda w: {**w, "extra": np.zeros(2, np.float32)}, "a parameter 'extra' the model does"),
    (lambda w: {"w": w["w"]}, "lacks the parameter 'b'"),
    (lambda w: {**w, "b": np.zeros(5, np.float32)}, "'b' has shape (5,), the model's is (4,)"),
    (lambda w: {**w, "w": w["w"].astype(np.float64)}, "'w' has dtype Float64"),
    (lambda w: {**w, "w": w["w"].astype(np.int32)}, "'w' has dtype Int32"),
    (lambda w: {**w, "b": np.array([0, np.nan, 0, 0], np.float32)}, "non-finite value"),
    (lambda w: {**w, "w": np.full((3, 4), np.inf, np.float32)}, "non-finite value"),
])
def test_a_bad_update_is_refused(guarded, change, reason):
    server, a, w0, unchanged = guarded
    with pytest.raises(RequestRejected) as e:
        a.update_model(change(w0), data_size=4)
    assert reason in e.value.reason and e.value.status == "rejected"
    unchanged(reason)


def test_an_oversized_body_is_refused(guarded):
    server, a, w0, unchanged = guarded
    with pytest.raises(RequestRejected, match="HTTP 413"):
        a.update_model({**w0, "w": np.zeros((3, 4000), np.float32)}, data_size=4)
    unchanged("HTTP 413 (the body is over max_body_bytes 4096)")


def test_malformed_bodies_are_refused(guarded):
    server, a, w0, unchanged = guarded
    a._c.call("getModel", iteration=0)
    good = bytes(a._c.last_request)
    bodies = [b"", b"garbage", b"MCFL", good[:-1], good + b"\0", b"XXXX" + good[4:],
              good[:4] + b"\x09" + good[5:], good[:5] + b"\x05" + good[6:],
              good[:6] + b"\xff\xff" + good[8:]]
    for body in bodies:
        status, reason, *_ = a._c.post("/getModel", body)
        assert status == "malformed", (body, status, reason)
        assert "malformed federated message" in reason
    # a startFLJob body sent to /updateModel
    a._c.call("startFLJob", data_size=1)
    status, reason, *_ = a._c.post("/updateModel", a._c.last_request)
    assert status == "malformed" and "does not match the endpoint" in reason
    # every 7th truncation and 300 random 3-byte changes of an update (from a client that is
    # not admitted, so a change that leaves it valid is refused too and the model stays)
    b = client(server, "b")
    b._register()
    assert b._c.call("updateModel", iteration=1, data_size=4, weights=w0)[0] == "rejected"
    upd = bytes(b._c.last_request)
    rng = np.random.default_rng(0)
    for cut in range(0, len(upd), 7):
        assert b._c.post("/updateModel", upd[:cut])[0] == "malformed"
    for _ in range(300):
        body = bytearray(upd)
        for i in rng.integers(0, len(body), 3):
            body[i] = rng.integers(0, 256)
        assert b._c.post("/updateModel", bytes(body))[0] in ("malformed", "unauthorized",
                                                             "rejected")
    unchanged("malformed federated message")


def test_client_argument_errors_and_an_unreachable_server(guarded):
    server, a, w0, unchanged = guarded
    with pytest.raises(TypeError, match="weights must be a dict"):
        a.update_model([w0["w"]], data_size=4)
    with pytest.raises(ValueError, match="data_size must be a positive int"):
        a.update_model(w0, data_size=True)
    with pytest.raises(ValueError, match="data_size must be a positive int"):
        client(server, "z").start_fl_job(data_size=0)
    with pytest.raises(TypeError, match="parameter 'w' has dtype object"):
        a.update_model({**w0, "w": np.array([None])}, data_size=4)
    c = _C._federated._Client("127.0.0.1", 9, "x", 0.2)  # nothing listens: no call is made
    assert c.client_id == "x"
    with pytest.raises(ValueError, match="client_id must have 1 to 256 bytes"):
        _C._federated._Client("127.0.0.1", 9, "", 1.0)
    with pytest.raises(RuntimeError, match="did not answer"):
        FederatedClient("127.0.0.1:9", client_id="x", timeout=0.3).start_fl_job(1)
    with pytest.raises(ValueError, match="server_address must be 'HOST:PORT'"):
        FederatedClient("localhost", client_id="x")


# ---- config -------------------------------------------------------------------------------

def test_config_checks_name_the_key(tmp_path):
    base = config(tmp_path, init_weights())
    assert load_config(base)["start_fl_job_threshold"] == 2
    bad = [({"fl_nmae": "x"}, ValueError, "'fl_nmae' is not a federated config key"),
           ({"fl_iteration_num": 0}, ValueError, "'fl_iteration_num' must be positive"),
           ({"fl_iteration_num": "3"}, TypeError, "'fl_iteration_num' must be an integer"),
           ({"round": {"update_model_ratio": 1.5}}, ValueError,
            "'round.update_model_ratio' must be in (0, 1]"),
           ({"round": {"start_fl_job_treshold": 2}}, ValueError,
            "'round.start_fl_job_treshold' is not a key"),
           ({"encrypt": {"encrypt_type": "HE_ENCRYPT"}}, ValueError,
            "'encrypt.encrypt_type' is 'HE_ENCRYPT'"),
           ({"enable_ssl": True}, ValueError, "'ssl.server_cert_path' is required"),
           ({"ssl": {"server_cert_path": "x"}}, ValueError, "'ssl' is given but enable_ssl"),
           ({"summary": {"failure_event_file": "f"}}, ValueError,
            "'summary.failure_event_file' is not a key"),
           ({"server_mode": "HYBRID_TRAINING"}, ValueError, "'server_mode' must be"),
           ({"http_server_address": "nohost"}, ValueError, "'http_server_address' must be"),
           ({"compression": {"upload_compress_type": "TOPK"}}, ValueError,
            "'compression.upload_compress_type' must be one of NO_COMPRESS, DIFF_SPARSE_QUANT")]
    for change, kind, text in bad:
        cfg = {**base, **change}
        if "round" in change:
            cfg["round"] = {**base["round"], **change["round"]}
        with pytest.raises(kind, match=text.replace("(", "\\(").replace(")", "\\)")
                           .replace("[", "\\[").replace("]", "\\]").replace(".", "\\.")):
            load_config(cfg)
    with pytest.raises(ValueError, match="'checkpoint_dir' is required"):
        load_config({k: v for k, v in base.items() if k != "checkpoint_dir"})
    example = os.path.join(ROOT, "examples", "federated", "fl.yaml")
    cfg = load_config(example)
    assert cfg["fl_iteration_num"] > 0 and cfg["host"] == "127.0.0.1"


def test_tls_rounds_and_certificate_checks(tmp_path, servers):
    key, crt = tmp_path / "server.key", tmp_path / "server.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(crt)], check=True, capture_output=True,
                   timeout=60)
    w0 = init_weights()
    server = servers(config(tmp_path, w0, threshold=1, enable_ssl=True,
                            ssl={"server_cert_path": str(crt), "server_key_path": str(key)}))
    c = FederatedClient(server.address, client_id="tls", timeout=TIMEOUT, ca_cert_path=crt)
    it, w = c.start_fl_job(data_size=2)
    c.update_model({k: v + 1 for k, v in w.items()}, data_size=2)
    it, w = c.get_model()
    assert it == 1
    np.testing.assert_allclose(w["b"], w0["b"] + 1, rtol=1e-6)
    with pytest.raises(RuntimeError, match="did not answer"):  # plain HTTP to a TLS server
        FederatedClient(server.address, client_id="plain", timeout=0.5).start_fl_job(1)
    other_key, other = tmp_path / "other.key", tmp_path / "other.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(other_key), "-out", str(other)],
                   check=True, capture_output=True, timeout=60)
    with pytest.raises(RuntimeError, match="did not answer"):  # a CA that did not sign it
        FederatedClient(server.address, client_id="x", timeout=0.5,
                        ca_cert_path=other).start_fl_job(1)
    key.write_text("not a key")
    with pytest.raises(ValueError, match="cannot be loaded"):
        FLServer(config(tmp_path, w0, enable_ssl=True,
                        ssl={"server_cert_path": str(crt), "server_key_path": str(key)}),
                 log_to_stderr=False).start()


def test_the_launcher_names_a_bad_key_and_a_port_in_use(tmp_path, servers):
    import yaml
    cfg = config(tmp_path, init_weights())
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**cfg, "fl_iteration": 3}))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-m", "mycel.federated.server", "--config", str(bad)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode != 0 and "'fl_iteration' is not a federated config key" in r.stderr
    busy = servers(cfg)
    port = busy.address.rsplit(":", 1)[1]
    with pytest.raises(RuntimeError, match=f"cannot listen on 127.0.0.1:{port}"):
        FLServer({**cfg, "http_server_address": f"127.0.0.1:{port}",
                  "checkpoint_dir": str(tmp_path / "other")}, log_to_stderr=False).start()


def test_the_server_refuses_a_model_that_is_not_float32(tmp_path):
    cfg = config(tmp_path, init_weights())
    save_model(tmp_path / "int.ckpt", {"w": np.zeros(3, np.int32)})
    cfg["feature_map"] = str(tmp_path / "int.ckpt")
    with pytest.raises(ValueError, match="has an entry 'w' that is of dtype Int32"):
        FLServer(cfg, log_to_stderr=False).start()
    cfg["feature_map"] = str(tmp_path / "missing.ckpt")
    with pytest.raises(ValueError, match="does not exist"):
        FLServer(cfg, log_to_stderr=False).start()


# ---- training: simulated clients, the callback, FedProx -----------------------------------

def read_idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


@pytest.fixture(scope="module")
def fashion():
    xs = read_idx(f"{FASHION}/train-images-idx3-ubyte.gz", 16).reshape(-1, 784)
    ys = read_idx(f"{FASHION}/train-labels-idx1-ubyte.gz", 8)
    xt = read_idx(f"{FASHION}/t10k-images-idx3-ubyte.gz", 16).reshape(-1, 784)[:2000]
    yt = read_idx(f"{FASHION}/t10k-labels-idx1-ubyte.gz", 8)[:2000]
    return (xs.astype(np.float32) / 255, ys.astype(np.int32),
            xt.astype(np.float32) / 255, yt.astype(np.int32))


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(784, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def numpy_loss(weights, names, x, y):
    """The global model's mean cross-entropy on (x, y), computed in numpy (the oracle)."""
    w1, b1, w2, b2 = (weights[n].astype(np.float64) for n in names)
    logits = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    logits -= logits.max(1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


class ShardClient:
    """A simulated client: two classes of Fashion-MNIST, its own shuffling generator and
    round count; it trains a shared network (loaded with the global model) for one local
    epoch."""

    def __init__(self, cid, x, y, step, net, seed):
        self.client_id, self.x, self.y = cid, x, y
        self.data_size = len(y)
        self.step, self.net = step, net
        self.rng = np.random.default_rng(seed)
        self.rounds = 0

    def train(self, weights):
        from mycel.federated import load_weights, network_weights
        load_weights(self.net, weights)
        order = self.rng.permutation(self.data_size)
        for i in range(0, self.data_size, 50):
            idx = order[i:i + 50]
            self.step(ms.Tensor(self.x[idx]), ms.Tensor(self.y[idx]))
        self.rounds += 1
        return network_weights(self.net)


def test_simulated_non_iid_clients_train_an_mlp_by_fedavg(tmp_path, servers, fashion, mode):
    xs, ys, xt, yt = fashion
    ms.set_seed(0)
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
    from mycel.federated import network_weights
    w0 = network_weights(net)
    names = list(w0)
    n_clients, rounds = 10, 3
    server = servers(config(tmp_path, w0, rounds=rounds, threshold=n_clients))
    clients = []
    for i in range(n_clients):  # client i holds classes i and (i + 1) % 10 only
        idx = np.concatenate([np.flatnonzero(ys == c)[100 * i: 100 * i + 100]
                              for c in (i, (i + 1) % 10)])
        clients.append(ShardClient(f"shard{i}", xs[idx], ys[idx], step, net, seed=i))
    history = simulate(server.address, clients, rounds, timeout=TIMEOUT)
    assert [h["iteration"] for h in history] == [1, 2, 3]
    assert all(h["joined"] == h["uploaded"] == n_clients for h in history)
    assert all(c.rounds == rounds for c in clients)
    losses = [numpy_loss(w0, names, xt, yt)] + [numpy_loss(h["weights"], names, xt, yt)
                                                 for h in history]
    assert losses[-1] < losses[0] - 0.3, losses
    assert_weights_equal(server.global_model(), history[-1]["weights"])


class DenseTask:
    """A Dense(4, 1) regression of n samples that Model.train fits with SGD (the federated
    tests' client): .net, .w0 (its initial weights), .model, .data, .train(epochs, cbs)."""

    def __init__(self, n=64, lr=0.05):
        from mycel.dataset import GeneratorDataset
        from mycel.federated import network_weights
        rng = np.random.default_rng(0)
        x = rng.standard_normal((n, 4)).astype(np.float32)
        y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32)).astype(np.float32)
        ms.set_seed(0)
        self.net = nn.Dense(4, 1)
        self.w0 = network_weights(self.net)
        self.model = ms.train.Model(self.net, nn.MSELoss(),
                                    nn.SGD(self.net.trainable_params(), lr))
        self.data = GeneratorDataset(
            lambda: ((x[i:i + 16], y[i:i + 16]) for i in range(0, n, 16)), ["x", "y"])

    def train(self, epochs, callbacks):
        self.model.train(epochs, self.data, callbacks=callbacks)


def test_model_train_takes_part_in_rounds_through_the_callback(tmp_path, servers, mode):
    from mycel.federated import network_weights
    task = DenseTask()
    net, w0, model, data = task.net, task.w0, task.model, task.data
    server = servers(config(tmp_path, w0, rounds=2, threshold=1))
    cb = FederatedLearningCallback(client(server, "model"), data_size=64)
    model.train(2, data, callbacks=[cb])  # an epoch per round
    assert cb.rounds == [(1, True), (2, True)]
    assert server.finished and server.completed == 2
    # with one client per round FedAvg is that client's model, loaded back into the network
    assert_weights_equal(server.global_model(), network_weights(net))
    assert not np.array_equal(network_weights(net)["weight"], w0["weight"])
    class Steps(ms.train.Callback):
        n = 0

        def on_train_step_end(self, run_context):
            Steps.n += 1
    model.train(2, data, callbacks=[cb, Steps()])  # the server has finished: training stops
    assert cb.rounds == [(1, True), (2, True)] and Steps.n == 1  # after the step under way


def test_fedprox_adds_the_proximal_term_to_loss_and_gradient(mode):
    rng = np.random.default_rng(3)
    ms.set_seed(0)
    dense = nn.Dense(3, 2)
    net = nn.WithLossCell(dense, nn.MSELoss())
    mu, lr = 0.7, 0.1
    prox = FedProxLoss(net, mu)
    w, b = dense.weight.asnumpy().astype(np.float64), dense.bias.asnumpy().astype(np.float64)
    anchor = {dense.weight.name: rng.standard_normal((2, 3)).astype(np.float32),
              dense.bias.name: rng.standard_normal(2).astype(np.float32)}
    prox.set_global(anchor)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    t = rng.standard_normal((5, 2)).astype(np.float32)
    aw, ab = anchor[dense.weight.name], anchor[dense.bias.name]
    err = x @ w.T + b - t
    want = (err ** 2).mean() + mu / 2 * (((w - aw) ** 2).sum() + ((b - ab) ** 2).sum())
    np.testing.assert_allclose(float(prox(ms.Tensor(x), ms.Tensor(t)).asnumpy()), want,
                               rtol=1e-5)
    step = nn.TrainOneStepCell(prox, nn.SGD(prox.trainable_params(), lr))
    step(ms.Tensor(x), ms.Tensor(t))
    gw = 2 * err.T @ x / err.size + mu * (w - aw)
    gb = 2 * err.sum(0) / err.size + mu * (b - ab)
    np.testing.assert_allclose(dense.weight.asnumpy(), w - lr * gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dense.bias.asnumpy(), b - lr * gb, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="mu must be a number >= 0"):
        FedProxLoss(net, -1.0)


class ShiftClient:
    """A numpy client for the process simulation: adds its own shift each round."""

    def __init__(self, cid, shift, size):
        self.client_id, self.shift, self.data_size = cid, shift, size

    def train(self, weights):
        return {k: v + self.shift for k, v in weights.items()}


def make_shift_clients(part, parts):
    return [ShiftClient(f"p{part}c{i}", float(part * 3 + i), 1 + part * 3 + i) for i in range(3)]


def test_clients_simulated_in_two_processes(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, rounds=2, threshold=6))
    histories = simulate_in_processes(server.address, make_shift_clients, processes=2, rounds=2,
                                      timeout=TIMEOUT)
    assert [[h["iteration"] for h in hist] for hist in histories] == [[1, 2], [1, 2]]
    shifts = np.arange(6, dtype=np.float64)
    mean_shift = (shifts * (1 + shifts)).sum() / (1 + shifts).sum()
    for k in w0:  # two rounds, each adds the sample-weighted mean shift
        np.testing.assert_allclose(server.global_model()[k], w0[k] + 2 * mean_shift, rtol=1e-5)


class FlakyClient(ShiftClient):
    """Drops out (uploads nothing) in the rounds listed."""

    def __init__(self, cid, shift, size, drop_rounds):
        super().__init__(cid, shift, size)
        self.drop_rounds, self.round = drop_rounds, 0

    def train(self, weights):
        self.round += 1
        return None if self.round in self.drop_rounds else super().train(weights)


def test_simulated_dropouts_and_stragglers_are_left_out_of_the_average(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, rounds=3, threshold=3, ratio=0.6))  # 2 of 3 close
    clients = [FlakyClient("a", 1.0, 1, ()), FlakyClient("b", 10.0, 1, (1,)),
               FlakyClient("c", 4.0, 3, ())]
    history = simulate(server.address, clients, 2, timeout=TIMEOUT)
    assert [(h["joined"], h["uploaded"]) for h in history] == [(3, 2), (3, 2)]
    after1 = w0["w"] + (1.0 * 1 + 4.0 * 3) / 4  # b dropped out of round 1
    np.testing.assert_allclose(history[0]["weights"]["w"], after1, rtol=1e-6)
    # round 2: a's and b's uploads close it; c, the last to upload, is a straggler
    assert history[1]["refused"] == [("c", "stale iteration 2 (the round is 3)")]
    np.testing.assert_allclose(history[1]["weights"]["w"], after1 + (1.0 + 10.0) / 2, rtol=1e-6)


def test_a_random_fraction_of_the_clients_takes_part_in_each_round(tmp_path, servers):
    w0 = init_weights()
    server = servers(config(tmp_path, w0, rounds=6, threshold=2))
    clients = [ShiftClient(f"s{i}", float(i), 1 + i) for i in range(6)]
    history = simulate(server.address, clients, 6, timeout=TIMEOUT, clients_per_round=2)
    assert [h["joined"] for h in history] == [2] * 6
    assert len({cid for h in history for cid in h["clients"]}) > 2  # drawn anew each round
    w = w0["w"].astype(np.float64)
    by_id = {c.client_id: c for c in clients}
    for h in history:  # each round adds the sample-weighted shift of the two that joined
        chosen = [by_id[cid] for cid in h["clients"]]
        w = w + sum(c.shift * c.data_size for c in chosen) / sum(c.data_size for c in chosen)
        np.testing.assert_allclose(h["weights"]["w"], w, rtol=1e-5)
    with pytest.raises(ValueError, match="clients_per_round must be in"):
        simulate(server.address, clients, 1, clients_per_round=7)


def test_fedprox_rounds_through_the_callback_anchor_each_round_at_the_global_model(
        tmp_path, servers, mode):
    from mycel.dataset import GeneratorDataset
    from mycel.federated import network_weights
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 3)).astype(np.float32)
    y = rng.standard_normal((32, 2)).astype(np.float32)
    ms.set_seed(0)
    dense = nn.Dense(3, 2)
    w0 = network_weights(dense)
    prox = FedProxLoss(nn.WithLossCell(dense, nn.MSELoss()), mu=0.5)
    assert [p.name for p in prox.trainable_params()] == ["weight", "bias"]  # names kept
    server = servers(config(tmp_path, w0, rounds=2, threshold=1))
    cb = FederatedLearningCallback(client(server, "prox"), data_size=32, network=dense,
                                   proximal=prox)
    model = ms.train.Model(nn.TrainOneStepCell(prox, nn.SGD(prox.trainable_params(), 0.1)))
    data = GeneratorDataset(lambda: ((x[i:i + 8], y[i:i + 8]) for i in range(0, 32, 8)),
                            ["x", "y"])

    def anchors():
        return {w.name: a.asnumpy() for w, a in zip(prox.weights, prox.anchors)}
    model.train(1, data, callbacks=[cb])
    assert_weights_equal(anchors(), w0)  # round 1 trained from w0
    after1 = server.global_model()
    model.train(1, data, callbacks=[cb])
    assert_weights_equal(anchors(), after1)  # round 2 from round 1's global model
    assert cb.rounds == [(1, True), (2, True)]
    assert_weights_equal(server.global_model(), network_weights(dense))
