"""Communication compression over HTTP (the compression: section; src/federated/compress.h):
8-bit downloads within half a quantization step of the global model, DIFF_SPARSE_QUANT uploads
averaged to the weighted mean (rate 1: within the quantization; rate < 1: unbiased, checked on
average over clients), the bytes per round measured by the server's metrics against plain
rounds, bad compressed uploads refused, the config, and Model.train in both modes.

Loopback only; every wait has a timeout; every server a test starts is stopped by it."""
import json

import numpy as np
import pytest

import mycel as ms
from mycel import _mycel as _C
from mycel.federated import (FederatedClient, FederatedLearningCallback, load_config,
                             network_weights, simulate)

from test_federated import (TIMEOUT, DenseTask, assert_weights_equal, config,  # noqa: F401
                            mode, servers)


class Fixed:
    def __init__(self, cid, update, size):
        self.client_id, self.update, self.data_size = cid, update, size

    def train(self, weights):
        return self.update


def model_weights(seed=0):
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((100, 50)).astype(np.float32),
            "b": rng.standard_normal(50).astype(np.float32)}


def run_round(tmp_path, servers, w0, clients, compression):
    metrics = tmp_path / "metrics.json"
    server = servers(config(tmp_path, w0, rounds=1, threshold=len(clients),
                            compression=compression, summary={"metrics_file": str(metrics)}))
    history = simulate(server.address, clients, 1, timeout=TIMEOUT)
    assert history[0]["uploaded"] == len(clients) and history[0]["refused"] == []
    return server, json.loads(metrics.read_text().splitlines()[0])


def weighted_mean(clients, key):
    return (sum(c.data_size * c.update[key].astype(np.float64) for c in clients)
            / sum(c.data_size for c in clients))


def clients_near(w0, n, scale, seed=1):
    rng = np.random.default_rng(seed)
    return [Fixed(f"c{i}", {k: (v + scale * rng.standard_normal(v.shape)).astype(np.float32)
                            for k, v in w0.items()}, int(rng.integers(5, 50)))
            for i in range(n)]


def test_quantized_downloads_and_uploads_at_rate_one(tmp_path, servers):
    w0 = model_weights()
    clients = clients_near(w0, 4, 0.05)
    (tmp_path / "plain").mkdir()
    (tmp_path / "quant").mkdir()
    _, plain = run_round(tmp_path / "plain", servers, w0, clients, {})
    server, quant = run_round(tmp_path / "quant", servers, w0, clients, {
        "download_compress_type": "QUANT", "upload_compress_type": "DIFF_SPARSE_QUANT",
        "upload_sparse_rate": 1.0})
    got = server.global_model()
    for k in w0:
        # clients train from the 8-bit download (half a step of w0's range off) and upload
        # 8-bit differences (half a step of the differences' range off)
        down = (w0[k].max() - w0[k].min()) / 255 / 2
        up = max(np.ptp(c.update[k] - w0[k]) for c in clients) / 255 / 2
        np.testing.assert_allclose(got[k], weighted_mean(clients, k), rtol=0,
                                   atol=down + up + 1e-6)
    # bytes: models and uploads about a quarter of the plain round's
    assert quant["downloadBytes"] < 0.3 * plain["downloadBytes"]
    assert quant["uploadBytes"] < 0.3 * plain["uploadBytes"]
    # what a client gets: float32 within half a step of the server's model
    it, w = FederatedClient(server.address, "reader", TIMEOUT).get_model(iteration=1)
    for k in w0:
        assert w[k].dtype == np.float32 and w[k].shape == w0[k].shape
        np.testing.assert_allclose(w[k], got[k], rtol=0,
                                   atol=(got[k].max() - got[k].min()) / 255 / 2 + 1e-6)


def test_sparse_uploads_are_smaller_and_unbiased(tmp_path, servers):
    w0 = model_weights(2)
    # 40 clients with one common shift plus their own noise: the sparse average is unbiased,
    # so it lands near the weighted mean (each value is kept by about 40 * rate clients)
    clients = clients_near(w0, 40, 0.02, seed=3)
    for c in clients:
        c.update = {k: v + 0.1 for k, v in c.update.items()}
    (tmp_path / "plain").mkdir()
    (tmp_path / "sparse").mkdir()
    _, plain = run_round(tmp_path / "plain", servers, w0, clients, {})
    server, sparse = run_round(tmp_path / "sparse", servers, w0, clients, {
        "upload_compress_type": "DIFF_SPARSE_QUANT", "upload_sparse_rate": 0.5})
    assert sparse["uploadBytes"] < 0.5 * 0.3 * plain["uploadBytes"]
    err = np.concatenate([(server.global_model()[k] - weighted_mean(clients, k)).ravel()
                          for k in w0])
    shift = np.concatenate([(weighted_mean(clients, k) - w0[k]).ravel() for k in w0])
    assert abs(err.mean()) < 0.01 * abs(shift.mean())  # no bias
    assert np.abs(err).max() < np.abs(shift).max()  # noisy, but on the scale of the update


def test_bad_compressed_uploads_are_refused(tmp_path, servers):
    w0 = model_weights()
    server = servers(config(tmp_path, w0, rounds=1, threshold=2, compression={
        "upload_compress_type": "DIFF_SPARSE_QUANT", "upload_sparse_rate": 0.5}))
    a = FederatedClient(server.address, "a", TIMEOUT)
    a.start_fl_job(4)
    status, reason, *_ = a._c.call("updateModel", iteration=1, data_size=4, weights=w0)
    assert status == "rejected" and "has no UInt8 seed" in reason  # a plain upload
    good = _C._federated._sparse_diff(w0, w0, 0.5)
    bad = dict(good)
    bad["w"] = good["w"][:-1]
    status, reason, *_ = a._c.call("updateModel", iteration=1, data_size=4, weights=bad)
    assert status == "rejected" and "the seed's mask" in reason
    bad = dict(good)
    bad["w\x00range"] = np.array([1.0, np.inf], np.float32)
    status, reason, *_ = a._c.call("updateModel", iteration=1, data_size=4, weights=bad)
    assert status == "rejected" and "not a finite [min, max]" in reason
    assert_weights_equal(server.global_model(), w0)
    assert server.completed == 0
    a.update_model(w0, 4)  # a good one is taken


def test_compression_config(tmp_path):
    w0 = model_weights()
    cfg = load_config(config(tmp_path, w0, compression={
        "upload_compress_type": "DIFF_SPARSE_QUANT", "upload_sparse_rate": 0.3,
        "download_compress_type": "QUANT"}))
    assert cfg["upload_sparse_rate"] == 0.3 and cfg["download_compress_type"] == "QUANT"
    with pytest.raises(ValueError, match="'compression.upload_compress_type' must be one of"):
        load_config(config(tmp_path, w0, compression={"upload_compress_type": "ZIP"}))
    with pytest.raises(ValueError, match="'compression.upload_sparse_rate' must be in"):
        load_config(config(tmp_path, w0, compression={"upload_sparse_rate": 0}))
    with pytest.raises(ValueError, match="'compression' is not available with PW_ENCRYPT"):
        ms.federated.FLServer(config(tmp_path, w0, threshold=3, compression={
            "download_compress_type": "QUANT"}, encrypt={"encrypt_type": "PW_ENCRYPT"}),
            log_to_stderr=False).start()


def test_model_train_with_compressed_rounds(tmp_path, servers, mode):
    task = DenseTask(32)
    net, w0 = task.net, task.w0
    server = servers(config(tmp_path, w0, rounds=2, threshold=1, compression={
        "download_compress_type": "QUANT", "upload_compress_type": "DIFF_SPARSE_QUANT",
        "upload_sparse_rate": 1.0}))
    cb = FederatedLearningCallback(FederatedClient(server.address, "m", TIMEOUT), data_size=32)
    task.train(2, [cb])
    assert cb.rounds == [(1, True), (2, True)] and server.completed == 2
    got = server.global_model()
    # the network holds the decoded 8-bit download of the final model
    span = {k: got[k].max() - got[k].min() for k in got}
    for k, v in network_weights(net).items():
        np.testing.assert_allclose(v, got[k], rtol=0, atol=span[k] / 255 / 2 + 1e-6)
    assert not np.allclose(got["weight"], w0["weight"], atol=1e-3)  # it trained
