"""Vertical federated learning's transport and private set intersection, after MindSpore
Federated's ``ServerConfig``, ``VerticalFederatedCommunicator`` and ``RunPSI``.

Each party runs a ``VerticalFederatedCommunicator``: an HTTP endpoint of its own (C++,
src/federated/vertical.h) that takes the peer's messages, in order, into a queue, and a sender
that posts named tensors to the peer's endpoint. Nothing but what a party sends crosses.
``RunPSI`` finds the ids both parties hold without either sending an id in the clear
(ECDH-PSI over Ristretto255 with libsodium, src/federated/psi.h).

Authentication beyond names: each party makes a key pair once (``generate_party_keys``), keeps
its secret key and gives its public key to the peer (out of band, as an SSH host key). A
communicator given its ``secret_key`` and the peer's ``ServerConfig(..., public_key=...)``
tags every message it sends and refuses every message that does not carry the peer's tag
(libsodium: crypto_kx session keys, one per direction, and crypto_auth's HMAC-SHA-512-256 over
the whole message), so a party without the peer's secret key cannot speak for it, whatever
name it claims, and a tampered message is refused; a message sent more than
``replay_attack_time_diff`` ms from the receiver's clock is refused too (a replay from an
earlier session). The sender of a refused message gets a ValueError with the reason.
"""
import threading
import weakref

import numpy as np

from mycel import _mycel as _C

_launched = {}  # (local name, peer name) -> the launched communicator (weak)
_launched_lock = threading.Lock()


def _split_address(address, who):
    if not isinstance(address, str) or address.count(":") != 1:
        raise ValueError(f"{who}: server_address must be 'host:port', got {address!r}.")
    host, port = address.split(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{who}: server_address must be 'host:port' with a port in "
                         f"[0, 65535], got {address!r}.")
    return host, int(port)


def generate_party_keys():
    """A fresh key pair of a vertical party (X25519, libsodium's crypto_kx_keypair):
    ``(public_key, secret_key)``, 32 bytes each. The public key goes to the peer (its
    ServerConfig for this party), the secret key stays with this party's communicator."""
    return _C._federated._generate_party_keys()


class ServerConfig:
    """ServerConfig(server_name, server_address, public_key=None): a party's endpoint.
    ``server_address`` is 'host:port'; port 0 takes a free port when the communicator launches
    (the config then holds the real one, so a peer given the same object finds it).
    ``public_key`` (32 bytes, from generate_party_keys) is that party's public key: given in
    the remote config, together with the communicator's secret_key, messages both ways are
    authenticated."""

    def __init__(self, server_name, server_address, public_key=None):
        if not isinstance(server_name, str) or not server_name:
            raise ValueError(f"ServerConfig: server_name must be a non-empty str, got "
                             f"{server_name!r}.")
        _split_address(server_address, "ServerConfig")
        _check_key("ServerConfig", "public_key", public_key)
        self.server_name = server_name
        self.server_address = server_address
        self.public_key = public_key

    def __repr__(self):
        return f"ServerConfig({self.server_name!r}, {self.server_address!r})"


def _check_key(who, what, key):
    if key is None:
        return
    if not isinstance(key, bytes):
        raise TypeError(f"{who}: {what} must be bytes (generate_party_keys), got "
                        f"{type(key).__name__}.")
    if len(key) != 32:
        raise ValueError(f"{who}: {what} must have 32 bytes, got {len(key)}.")


class VerticalFederatedCommunicator:
    """VerticalFederatedCommunicator(http_server_config, remote_server_config, timeout=60.0,
    secret_key=None, replay_attack_time_diff=600000):
    one party's side of a vertical job. ``launch()`` starts serving http_server_config's
    address; ``send_tensors(target_server_name, tensors)`` posts {name: Tensor or ndarray} to
    the peer; ``receive(target_server_name)`` returns the peer's next message as {name:
    ndarray}, waiting up to ``timeout`` seconds. Only the peer named by remote_server_config is
    heard, its messages in order (a replayed or reordered message is refused, and so is one
    from anyone else); ``events()`` lists what was refused and why. ``stop()`` (or leaving a
    ``with`` block) closes the endpoint.

    With ``secret_key`` (this party's, from generate_party_keys) and the remote config's
    ``public_key``, every message is authenticated both ways (the module's docstring); one
    without the other is a ValueError. ``replay_attack_time_diff`` (ms, MindSpore's name) bounds
    the difference between an authenticated message's send time and this party's clock."""

    def __init__(self, http_server_config, remote_server_config, timeout=60.0, secret_key=None,
                 replay_attack_time_diff=600000):
        for c, what in ((http_server_config, "http_server_config"),
                        (remote_server_config, "remote_server_config")):
            if not isinstance(c, ServerConfig):
                raise TypeError(f"VerticalFederatedCommunicator: {what} must be a "
                                f"ServerConfig, got {type(c).__name__}.")
        if http_server_config.server_name == remote_server_config.server_name:
            raise ValueError("VerticalFederatedCommunicator: the local and remote servers need "
                             f"different names, both are {http_server_config.server_name!r}.")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not timeout > 0:
            raise ValueError(f"VerticalFederatedCommunicator: timeout must be a positive "
                             f"number of seconds, got {timeout!r}.")
        _check_key("VerticalFederatedCommunicator", "secret_key", secret_key)
        if (secret_key is None) != (remote_server_config.public_key is None):
            raise ValueError("VerticalFederatedCommunicator: authentication needs both this "
                             "party's secret_key and the remote ServerConfig's public_key "
                             f"(secret_key {'given' if secret_key else 'missing'}, public_key "
                             f"{'given' if remote_server_config.public_key else 'missing'}).")
        if isinstance(replay_attack_time_diff, bool) or \
                not isinstance(replay_attack_time_diff, int) or replay_attack_time_diff <= 0:
            raise ValueError(f"VerticalFederatedCommunicator: replay_attack_time_diff must be a "
                             f"positive int (ms), got {replay_attack_time_diff!r}.")
        self._local, self._remote, self._timeout = http_server_config, remote_server_config, \
            float(timeout)
        self._secret_key, self._replay_ms = secret_key, replay_attack_time_diff
        self._comm = None

    @property
    def http_server_config(self):
        """The local endpoint's config (its address holds the bound port once launched)."""
        return self._local

    @property
    def remote_server_config(self):
        """The peer's config."""
        return self._remote

    def launch(self):
        """Starts serving the local address; returns self."""
        if self._comm is not None:
            raise RuntimeError("VerticalFederatedCommunicator: launch() was called already.")
        host, port = _split_address(self._local.server_address, "VerticalFederatedCommunicator")
        self._comm = _C._federated._VflCommunicator(
            self._local.server_name, host, port, self._remote.server_name, self._timeout,
            self._secret_key or b"", self._remote.public_key or b"", self._replay_ms)
        self._local.server_address = f"{host}:{self._comm.port}"
        with _launched_lock:
            _launched[(self._local.server_name, self._remote.server_name)] = weakref.ref(self)
        return self

    def _check(self, target_server_name):
        if self._comm is None:
            raise RuntimeError("VerticalFederatedCommunicator: launch() it first.")
        if target_server_name != self._remote.server_name:
            raise ValueError(f"VerticalFederatedCommunicator: the peer is "
                             f"{self._remote.server_name!r}, not {target_server_name!r}.")

    def send_tensors(self, target_server_name, tensors):
        """Posts ``tensors`` ({name: Tensor or ndarray}) to the peer as its next message. A
        ValueError when the peer refuses it, a RuntimeError when it cannot be reached."""
        self._check(target_server_name)
        if not isinstance(tensors, dict) or not tensors:
            raise TypeError("VerticalFederatedCommunicator.send_tensors: tensors must be a "
                            "non-empty dict of name to Tensor or ndarray.")
        arrays = {}
        for name, v in tensors.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"VerticalFederatedCommunicator.send_tensors: a tensor name "
                                f"must be a non-empty str, got {name!r}.")
            arrays[name] = np.ascontiguousarray(v.asnumpy() if hasattr(v, "asnumpy") else v)
        host, port = _split_address(self._remote.server_address, "VerticalFederatedCommunicator")
        self._comm.send(host, port, arrays)

    def receive(self, target_server_name):
        """The peer's next message, {name: ndarray}; a RuntimeError after ``timeout``."""
        self._check(target_server_name)
        return self._comm.receive()

    def events(self):
        """The messages this endpoint refused, with the reasons."""
        return [] if self._comm is None else list(self._comm.events())

    def stop(self):
        """Closes the endpoint (messages still queued are dropped)."""
        if self._comm is not None:
            self._comm.stop()
            with _launched_lock:
                _launched.pop((self._local.server_name, self._remote.server_name), None)

    def __enter__(self):
        return self if self._comm is not None else self.launch()

    def __exit__(self, *exc):
        self.stop()


def RunPSI(input_data, comm_role, peer_comm_role, bucket_id=0, thread_num=1):  # noqa: N802
    """The ids of ``input_data`` that the peer also holds, by private set intersection
    (MindSpore Federated's RunPSI). Both parties call it at the same time, each with its own
    launched communicator: ``comm_role`` is this party's server_name and ``peer_comm_role``
    the peer's. ``input_data`` is a list of str (or bytes) ids; duplicates count once.
    ``bucket_id`` separates runs over different buckets of ids (both parties must use the
    same); ``thread_num`` threads share the group operations. Returns the common ids sorted (by
    their UTF-8 bytes), the same list on both sides; ids never cross in the clear, only their
    hashes blinded by each party's random secret."""
    with _launched_lock:
        ref = _launched.get((comm_role, peer_comm_role))
    comm = ref() if ref is not None else None
    if comm is None:
        raise ValueError(f"RunPSI: no launched VerticalFederatedCommunicator of server "
                         f"{comm_role!r} with peer {peer_comm_role!r}.")
    if isinstance(input_data, (str, bytes)) or not hasattr(input_data, "__iter__"):
        raise TypeError(f"RunPSI: input_data must be a list of str ids, got "
                        f"{type(input_data).__name__}.")
    ids, as_str = [], True
    for i in input_data:
        if isinstance(i, str):
            ids.append(i.encode("utf-8"))
        elif isinstance(i, bytes):
            ids.append(i)
            as_str = False
        else:
            raise TypeError(f"RunPSI: ids must be str or bytes, got {type(i).__name__}.")
    for v, what in ((bucket_id, "bucket_id"), (thread_num, "thread_num")):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"RunPSI: {what} must be an int, got {type(v).__name__}.")
    if bucket_id < 0:
        raise ValueError(f"RunPSI: bucket_id must be >= 0, got {bucket_id}.")
    host, port = _split_address(comm._remote.server_address, "RunPSI")
    common = _C._federated._run_psi(comm._comm, host, port, ids, int(bucket_id), int(thread_num))
    return [c.decode("utf-8") for c in common] if as_str else list(common)
