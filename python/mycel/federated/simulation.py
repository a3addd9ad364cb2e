"""Simulating many federated clients on one machine: lightweight clients, each with its own
data shard and state, run round after round in a few processes.

A simulated client is any object with ``client_id``, ``data_size`` and ``train(weights)``:
given the global model ({name: ndarray}) it returns its trained weights, or None to drop out
of the round (it then uploads nothing). It keeps whatever state it likes between rounds (a
shard cursor, an optimizer's moments, a random generator).
"""
import multiprocessing

import numpy as np

from mycel.federated.client import FederatedClient, RequestRejected, ServerFinished


def simulate(server_address, clients, rounds, timeout=60.0, on_round=None,
             encrypt_type="NOT_ENCRYPT", clients_per_round=None, seed=0):
    """Runs ``rounds`` rounds for ``clients`` in this process: every client asks to join;
    those admitted train one after another and upload; then the round's close is awaited.
    With ``encrypt_type="PW_ENCRYPT"`` (secure aggregation) the admitted clients share their
    secrets before training, and those that uploaded send their shares for unmasking after
    the uploads; a client whose ``train`` returns None has then dropped out after sharing.
    With ``clients_per_round`` k, each round only a random k of the clients (drawn anew each
    round from ``seed``'s generator) ask to join: the client fraction of FedAvg.
    Returns one dict per round: iteration (the round closed), joined, uploaded, refused
    ([(client_id, reason)] of uploads the server refused, e.g. stale ones), weights (the
    global model after it) and clients (the ids of those that joined). Stops early when the server has finished, or when
    ``on_round(entry)``, called after each round, returns True.

    A client id stays bound to its registration while the server runs, so the clients of
    one server are simulated by one call (or one call per process)."""
    conns = {c.client_id: FederatedClient(server_address, c.client_id, timeout,
                                          encrypt_type=encrypt_type) for c in clients}
    secure = encrypt_type == "PW_ENCRYPT"
    if clients_per_round is not None and not 0 < clients_per_round <= len(clients):
        raise ValueError(f"simulate: clients_per_round must be in [1, {len(clients)}], got "
                         f"{clients_per_round!r}.")
    rng = np.random.default_rng(seed)
    history = []
    for _ in range(rounds):
        joined, wait_round = [], None
        asking = clients if clients_per_round is None else \
            [clients[i] for i in rng.choice(len(clients), clients_per_round, replace=False)]
        try:
            for c in asking:
                conn = conns[c.client_id]
                try:
                    _, weights = conn.start_fl_job(c.data_size)
                    joined.append((c, conn, weights))
                except RequestRejected as e:
                    if e.status != "rejected":
                        raise
                    wait_round = e.iteration
        except ServerFinished:
            break
        uploaded, refused, done = 0, [], []
        for c, conn, _ in joined if secure else ():
            try:
                conn.share_secrets(c.data_size)
            except RequestRejected as e:
                refused.append((c.client_id, e.reason))
        for c, conn, weights in joined:
            new = c.train(weights)
            if new is None:
                continue
            try:
                conn.update_model(new, c.data_size)
                uploaded += 1
                done.append((c, conn))
            except RequestRejected as e:
                refused.append((c.client_id, e.reason))
        for c, conn in done if secure else ():
            try:
                conn.reconstruct_secrets()
            except RequestRejected as e:
                refused.append((c.client_id, e.reason))
        probe = joined[0][1] if joined else conns[clients[0].client_id]
        iteration, weights = probe.get_model(None if joined else wait_round)
        history.append(dict(iteration=iteration, joined=len(joined), uploaded=uploaded,
                            refused=refused, weights=weights,
                            clients=[c.client_id for c, _, _ in joined]))
        if on_round is not None and on_round(history[-1]):
            break
    return history


def _run_part(args):
    server_address, make_clients, part, parts, rounds, timeout, encrypt_type = args
    history = simulate(server_address, make_clients(part, parts), rounds, timeout,
                       encrypt_type=encrypt_type)
    return [{k: v for k, v in h.items() if k != "weights"} for h in history]


def simulate_in_processes(server_address, make_clients, processes, rounds, timeout=60.0,
                          encrypt_type="NOT_ENCRYPT"):
    """Runs ``simulate`` in ``processes`` fresh processes (spawned): process i builds its
    clients with ``make_clients(i, processes)`` (a module-level function, so it can be
    pickled). Returns each process's history (without the weights)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes) as pool:
        return pool.map(_run_part, [(server_address, make_clients, i, processes, rounds, timeout,
                                     encrypt_type)
                                    for i in range(processes)])
