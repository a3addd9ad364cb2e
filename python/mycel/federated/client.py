"""The federated client: ``FederatedClient(server_address, client_id=...)`` with MindSpore
Federated's round messages. The transport is C++ (src/federated/client.h: HTTP through
cpp-httplib, a fresh random nonce per request, the registration token), so sending and
receiving models runs without the GIL.

With ``encrypt_type="PW_ENCRYPT"`` the client takes part in secure aggregation (Bonawitz et
al.; src/federated/secagg.h): ``start_fl_job`` also sends its fresh public keys,
``update_model`` exchanges the Shamir shares of its secrets and uploads the update masked into
the ring of integers modulo 2^32, and ``get_model`` first sends the shares that let the server
unmask the round's sum (``share_secrets`` and ``reconstruct_secrets`` are those steps alone).

A DP_ENCRYPT server tells its clients, in the startFLJob reply, the noise multiplier and the
clipping norm: ``update_model`` then uploads the global model plus the clipped update plus
Gaussian noise (mycel.federated.privacy), whatever the client's encrypt_type. A server with
compression (src/federated/compress.h) sends 8-bit models, which the client decodes, and
tells it the upload_sparse_rate of DIFF_SPARSE_QUANT uploads, which it encodes.
"""
import os
import time
import uuid

import numpy as np

from mycel import _mycel as _C
from mycel.federated.privacy import privatize

_PLAN_ENTRY = ""  # the startFLJob reply's DP and compression plan (src/federated/wire.h)
_RANGE = "\x00range"  # the suffix of a quantized parameter's range entry (compress.h)


def _decode_model(weights):
    """A downloaded model: 8-bit codes (download QUANT) decoded to float32."""
    if any(k.endswith(_RANGE) for k in weights):
        return _C._federated._dequantize(weights)
    return weights


class RequestRejected(ValueError):
    """The server refused a request. ``status`` is 'rejected' (a stale round, a full round, a
    bad or replayed update), 'unauthorized' (unknown client, wrong token) or 'malformed';
    ``reason`` is the server's; ``iteration`` the round the server is in."""

    def __init__(self, what, status, reason, iteration):
        super().__init__(f"FederatedClient: {what} was refused ({status}): {reason}")
        self.status, self.reason, self.iteration = status, reason, iteration


class ServerFinished(RuntimeError):
    """The server has run all its rounds (fl_iteration_num); get_model() still answers."""


def _as_arrays(weights):
    if not isinstance(weights, dict):
        raise TypeError(f"FederatedClient: weights must be a dict of name to array, got "
                        f"{type(weights).__name__}.")
    out = {}
    for name, v in weights.items():
        if not isinstance(name, str):
            raise TypeError(f"FederatedClient: a weight name must be a str, got {name!r}.")
        out[name] = np.ascontiguousarray(v.asnumpy() if hasattr(v, "asnumpy") else v)
    return out


def _split_address(address):
    host, sep, port = str(address).rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"FederatedClient: server_address must be 'HOST:PORT', got "
                         f"{address!r}.")
    return host, int(port)


class FederatedClient:
    """One federated-learning client.

    Args:
        server_address (str): the server's 'HOST:PORT' (FLServer.address).
        client_id (str): this client's id (default: a random UUID). Registration with the
            server happens on first use; after a server restart the client registers again.
        timeout (float): seconds to wait for the server on any request, and for a round to
            close in get_model(). Default 60.
        ca_cert_path (str): for a server with enable_ssl, the CA certificate (PEM) that signed
            its certificate; the client then speaks HTTPS and refuses any other server.
        encrypt_type (str): the server's encrypt_type: 'NOT_ENCRYPT' (default) or
            'PW_ENCRYPT' (secure aggregation: the server sees only masked updates).

    A round: ``iteration, weights = start_fl_job(data_size=n)``, train from ``weights``,
    ``update_model(new_weights, data_size=n)``, then ``iteration, weights = get_model()``.
    Refusals raise RequestRejected; a finished server raises ServerFinished.
    """

    def __init__(self, server_address, client_id=None, timeout=60.0, ca_cert_path=None,
                 encrypt_type="NOT_ENCRYPT"):
        if encrypt_type not in ("NOT_ENCRYPT", "PW_ENCRYPT"):
            raise ValueError(f"FederatedClient: encrypt_type must be 'NOT_ENCRYPT' or "
                             f"'PW_ENCRYPT', got {encrypt_type!r}.")
        self.encrypt_type = encrypt_type
        self._secure = None  # this round's secure-aggregation state (PW_ENCRYPT)
        self._secure_step = None  # the last step done: keys, shares, upload, reveal
        self._dp = None  # DP_ENCRYPT: (noise multiplier, clip norm)
        self._sparse_rate = 0.0  # DIFF_SPARSE_QUANT uploads' rate (0: plain uploads)
        self._global = None  # the model of the round this client joined, as it got it
        self._noise = np.random.default_rng()  # seeded from the OS's entropy
        host, port = _split_address(server_address)
        self.client_id = str(client_id) if client_id is not None else uuid.uuid4().hex
        self.timeout = float(timeout)
        self._c = _C._federated._Client(host, port, self.client_id, self.timeout,
                                        os.fspath(ca_cert_path) if ca_cert_path else "")
        self._registered = False
        self.iteration = 0  # the round this client joined last (0: none)

    def _register(self):
        status, reason, it, token, _ = self._c.call("register")
        if status != "ok":
            raise RequestRejected("register", status, reason, it)
        self._c.set_token(token)
        self._registered = True

    def _call(self, kind, **kw):
        if not self._registered:
            self._register()
        reply = self._c.call(kind, **kw)
        if reply[0] == "unauthorized" and reply[1].startswith("unknown client"):
            self._register()  # the server restarted and forgot its clients
            reply = self._c.call(kind, **kw)
        status, reason, it, _, weights = reply
        if status == "finished":
            raise ServerFinished(f"FederatedClient: {reason}")
        if status not in ("ok", "not ready"):
            raise RequestRejected(kind, status, reason, it)
        return status, it, weights

    def start_fl_job(self, data_size):
        """Asks to join the current round with ``data_size`` samples; returns (iteration,
        {name: ndarray}), the round and the global model to train from."""
        if isinstance(data_size, bool) or not isinstance(data_size, (int, np.integer)) \
                or data_size <= 0:
            raise ValueError(f"FederatedClient.start_fl_job: data_size must be a positive "
                             f"int, got {data_size!r}.")
        _, it, weights = self._call("startFLJob", data_size=int(data_size))
        plan = weights.pop(_PLAN_ENTRY, None)
        weights = _decode_model(weights)
        self._dp = None if plan is None or plan[0] == 0 else (float(plan[0]), float(plan[1]))
        self._sparse_rate = 0.0 if plan is None else float(plan[2])
        self._global = weights
        if self.encrypt_type == "PW_ENCRYPT" and (self._secure is None or it != self.iteration):
            self._secure = _C._federated._SecAggClient(self.client_id)
            self._call("exchangeKeys", iteration=it, weights=self._secure.keys())
            self._secure_step = "keys"
        self.iteration = it
        return it, weights

    def _wait(self, kind):
        """Polls a get* message of the round this client joined until its phase has ended."""
        deadline = time.monotonic() + self.timeout
        while True:
            left_ms = int((deadline - time.monotonic()) * 1000)
            status, _, weights = self._call(kind, iteration=self.iteration,
                                            wait_ms=max(left_ms, 1))
            if status == "ok":
                return weights
            if left_ms <= 0:
                raise RuntimeError(f"FederatedClient: {kind} of round {self.iteration} got no "
                                   f"answer within {self.timeout} s.")

    def share_secrets(self, data_size):
        """PW_ENCRYPT: waits for the round's key list, then sends the Shamir shares of this
        client's secrets, each sealed for its holder. ``update_model`` does it when not done."""
        if self._secure_step != "keys":
            raise RuntimeError("FederatedClient.share_secrets: join a round with "
                               "encrypt_type='PW_ENCRYPT' first (start_fl_job).")
        payload = self._secure.shares(self._wait("getKeys"), int(data_size))
        self._call("shareSecrets", iteration=self.iteration, weights=payload)
        self._secure_step = "shares"

    def reconstruct_secrets(self):
        """PW_ENCRYPT: once the round's uploads are in, sends this client's shares of the
        survivors' self-mask seeds and of the dropped clients' mask keys. ``get_model`` does
        it when not done."""
        if self._secure_step != "upload":
            raise RuntimeError("FederatedClient.reconstruct_secrets: upload a masked update "
                               "first (update_model).")
        self._secure_step = "reveal"
        payload = self._secure.reveal(self._wait("getClientList"))
        self._call("reconstructSecrets", iteration=self.iteration, weights=payload)

    def update_model(self, weights, data_size):
        """Uploads this client's trained weights ({name: ndarray or Tensor}) for the round it
        joined, weighted by ``data_size`` samples. Raises RequestRejected when refused."""
        if isinstance(data_size, bool) or not isinstance(data_size, (int, np.integer)) \
                or data_size <= 0:
            raise ValueError(f"FederatedClient.update_model: data_size must be a positive "
                             f"int, got {data_size!r}.")
        if self.iteration == 0:
            raise RuntimeError("FederatedClient.update_model: join a round first "
                               "(start_fl_job).")
        weights = _as_arrays(weights)
        if self._dp is not None:
            weights = privatize(weights, self._global, *self._dp, self._noise)
        if self._sparse_rate > 0:
            weights = _C._federated._sparse_diff(weights, self._global, self._sparse_rate)
        if self.encrypt_type == "PW_ENCRYPT":
            if self._secure_step == "keys":
                self.share_secrets(data_size)
            if self._secure_step != "shares":
                raise RuntimeError("FederatedClient.update_model: with PW_ENCRYPT, join a round "
                                   "first (start_fl_job); a round takes one update.")
            self._secure.accept_shares(self._wait("getSecrets"))
            weights = self._secure.mask(weights)
            self._secure_step = "upload"
        self._call("updateModel", iteration=self.iteration, data_size=int(data_size),
                   weights=weights)

    def get_model(self, iteration=None):
        """The global model once round ``iteration`` (default: the round this client joined)
        has closed: (completed round, {name: ndarray}). Waits up to ``timeout`` seconds. With
        PW_ENCRYPT, a client that uploaded this round first sends its shares
        (reconstruct_secrets)."""
        wanted = self.iteration if iteration is None else int(iteration)
        if self._secure_step == "upload" and wanted == self.iteration:
            self.reconstruct_secrets()
        deadline = time.monotonic() + self.timeout
        while True:
            left_ms = int((deadline - time.monotonic()) * 1000)
            status, it, weights = self._call("getModel", iteration=wanted,
                                             wait_ms=max(left_ms, 1))
            if status == "ok":
                return it, _decode_model(weights)
            if left_ms <= 0:
                raise RuntimeError(f"FederatedClient.get_model: round {wanted} did not close "
                                   f"within {self.timeout} s.")
