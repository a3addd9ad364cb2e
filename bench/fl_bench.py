"""Federated-learning benchmarks (bench/run.py --only federated): prints one JSON object.

`fl_bench.py throughput`: aggregation throughput of the C++ server. A model of 1,000,000
float32 parameters (one 1000x1000 matrix); CLIENTS clients, each in its own Python thread
(the HTTP exchange and encoding run in C++ without the GIL), join a round and upload at once;
client updates per second = uploads / (time from the first upload's start to the round's
close), the best of ROUNDS rounds. Each upload is decoded, checked (names, shapes, finite
values) and added in float64 on the server. With `--secure` the rounds are PW_ENCRYPT (secure
aggregation, threshold half the clients): keys and shares are exchanged first, then the clock
runs from the uploads' start (each client masks its update with its self mask and a pairwise
mask per other client, ChaCha20, in its thread) to the round's close (the server sums the
ring elements, rebuilds the self-mask seeds from the reconstruction shares and removes the
masks).

`fl_bench.py scale [--clients 1000]`: one round of CLIENTS simulated clients (one process,
mycel.federated.simulate) on a model of LeNet-5's size (61,706 float32 parameters); each
client's training is a constant shift (numpy), so the round's time is the protocol's and the
server's: register, startFLJob (the model down), updateModel (the model up), FedAvg. Reported:
seconds per round, and the bytes the server received and sent in the round (its metrics file).
With `--compress` the round runs with download_compress_type QUANT and upload_compress_type
DIFF_SPARSE_QUANT at upload_sparse_rate 0.4 (MindSpore Federated's default).

`fl_bench.py lenet [--clients 100] [--max-rounds 150] [--target 0.85]`: the issue's
acceptance run. CLIENTS simulated clients (mycel.federated.simulate, one process), each with
two classes of Fashion-MNIST (the training set sorted by label and cut into 2 * CLIENTS
shards of equal size; each client takes two shards of different classes), train LeNet-5
(examples/lenet.py, GRAPH mode) for one local epoch per round (batch 50, SGD lr 0.01,
momentum 0.9, its own optimizer state kept between rounds); all clients take part in every
round (`--clients-per-round K`: a random K of them, drawn anew each round, as `make bench`
runs it with K = 10; `--eval-every N`: the test set every N rounds) and the server averages
by sample count. Reported: the test accuracy of the global
model after each round, and the rounds it took to reach the target; next to it, centralized
training of the same network and optimizer on all the data: the epochs it takes.
`--fresh-momentum` starts each client's Momentum at zero every round; `--lr-half-life H`
halves the clients' lr every H rounds (not below `--lr-min`); `--mean-of K`: the target counts
as reached at the first test where the mean of the last K tests reaches it (single tests
swing by points as the drawn clients' classes change), and `--hold R` trains R more rounds and
reports their lowest test (`bench/run.py` runs K = 3, R = 50, 20 clients a round, half-life
300, floor 0.004, FedAvgM with server lr 0.1 and momentum 0.9).
`--server-lr LR --server-momentum M` aggregate by FedAvgM (the aggregation: section: the
round's average moves the model through a server velocity, v = M * v + (avg - w), w += LR * v).
`--compress` runs the rounds with the compression above; `--dp-eps E` with DP_ENCRYPT
(dp_eps E per round, dp_delta 0.01, dp_norm_clip 1.0) and reports the epsilon spent after the
last round; `--no-central` leaves the centralized run out.
"""
import argparse
import gzip
import json
import os
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
DATA = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
MEAN, STD = 0.2860, 0.3530
LR = 0.01

import mycel as ms  # noqa: E402
from mycel import nn  # noqa: E402
from mycel.federated import (FLServer, FederatedClient, load_weights,  # noqa: E402
                             network_weights, simulate)


def save(path, weights):
    ms.save_checkpoint([{"name": k, "data": ms.Tensor(v)} for k, v in weights.items()], path)
    return path


COMPRESSION = {"download_compress_type": "QUANT", "upload_compress_type": "DIFF_SPARSE_QUANT",
               "upload_sparse_rate": 0.4}


def server_config(tmp, weights, rounds, threshold, window_ms=600000, **extra):
    return {**extra, "fl_name": "bench", "fl_iteration_num": rounds,
            "http_server_address": "127.0.0.1:0", "checkpoint_dir": os.path.join(tmp, "ckpt"),
            "feature_map": save(os.path.join(tmp, "init.ckpt"), weights),
            "round": {"start_fl_job_threshold": threshold,
                      "start_fl_job_time_window": window_ms, "update_model_ratio": 1.0,
                      "update_model_time_window": window_ms}}


def throughput(clients=16, rounds=3, secure=False):
    w0 = {"w": np.zeros((1000, 1000), np.float32)}
    best = 0.0
    kind = "PW_ENCRYPT" if secure else "NOT_ENCRYPT"
    with tempfile.TemporaryDirectory() as tmp:
        cfg = server_config(tmp, w0, rounds, clients)
        if secure:
            cfg["encrypt"] = {"encrypt_type": kind, "pw_encrypt": {
                "reconstruct_secrets_threshold": clients // 2}}
        server = FLServer(cfg, log_to_stderr=False).start()
        conns = [FederatedClient(server.address, f"c{i}", timeout=120, encrypt_type=kind)
                 for i in range(clients)]
        probe = FederatedClient(server.address, "probe", timeout=120)
        update = {"w": np.ones((1000, 1000), np.float32)}

        def upload(c):
            c.update_model(update, 10)
            if secure:
                c.reconstruct_secrets()
        for _ in range(rounds):
            for c in conns:
                c.start_fl_job(data_size=10)
            for c in conns if secure else ():
                c.share_secrets(10)
            start = threading.Barrier(clients + 1)
            threads = [threading.Thread(target=lambda c=c: (start.wait(), upload(c)))
                       for c in conns]
            for t in threads:
                t.start()
            start.wait()
            t0 = time.perf_counter()
            probe.get_model(iteration=conns[0].iteration)  # not a client of the round
            elapsed = time.perf_counter() - t0
            for t in threads:
                t.join(120)
            best = max(best, clients / elapsed)
        server.stop()
    return {"params": 1000000, "clients": clients, "updates_per_s": best,
            "mb_per_update": 4.0, "encrypt_type": kind}


class ShiftClient:
    def __init__(self, cid):
        self.client_id, self.data_size = cid, 10

    def train(self, weights):
        return {k: v + 1e-3 for k, v in weights.items()}


def scale(clients, compress=False):
    rng = np.random.default_rng(0)
    shapes = {"conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5),
              "fc1.weight": (120, 400), "fc1.bias": (120,), "fc2.weight": (84, 120),
              "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,)}
    w0 = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = server_config(tmp, w0, 1, clients,
                            **({"compression": COMPRESSION} if compress else {}))
        cfg["summary"] = {"metrics_file": os.path.join(tmp, "metrics.json")}
        with FLServer(cfg, log_to_stderr=False) as server:
            sims = [ShiftClient(f"c{i}") for i in range(clients)]
            t0 = time.perf_counter()
            simulate(server.address, sims, 1, timeout=600)
            elapsed = time.perf_counter() - t0
        with open(cfg["summary"]["metrics_file"]) as f:
            metrics = json.loads(f.readline())
    return {"clients": clients, "params": int(sum(v.size for v in w0.values())),
            "compress": compress, "seconds_per_round": elapsed, "upload_bytes": metrics["uploadBytes"],
            "download_bytes": metrics["downloadBytes"]}


def read_idx(name, offset):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def fashion():
    def images(name):
        x = read_idx(name, 16).reshape(-1, 1, 28, 28).astype(np.float32) / 255
        return (x - MEAN) / STD
    return (images("train-images-idx3-ubyte.gz"),
            read_idx("train-labels-idx1-ubyte.gz", 8).astype(np.int32),
            images("t10k-images-idx3-ubyte.gz"),
            read_idx("t10k-labels-idx1-ubyte.gz", 8).astype(np.int32))


def accuracy(net, x, y):
    net.set_train(False)
    correct = 0
    for i in range(0, len(y), 1000):
        logits = net(ms.Tensor(x[i:i + 1000])).asnumpy()
        correct += int((logits.argmax(1) == y[i:i + 1000]).sum())
    net.set_train(True)
    return correct / len(y)


class LeNetClient:
    """One simulated client: its two shards, its own shuffling and Momentum state (kept
    between rounds, or fresh each round with ``fresh_momentum``); ``lr()`` gives the
    learning rate of the round it trains in."""

    def __init__(self, cid, x, y, step, net, opt, seed, lr=lambda: LR, fresh_momentum=False):
        self.client_id, self.x, self.y, self.data_size = cid, x, y, len(y)
        self.step, self.net, self.opt = step, net, opt
        self.moments = None
        self.rng = np.random.default_rng(seed)
        self.lr, self.fresh_momentum = lr, fresh_momentum

    def train(self, weights):
        load_weights(self.net, weights)
        self.opt.learning_rate.set_data(ms.Tensor(np.float32(self.lr())))
        moments = self.opt.moments if hasattr(self.opt, "moments") else []
        if self.moments is not None and not self.fresh_momentum:  # this client's state
            for m, v in zip(moments, self.moments):
                m.set_data(ms.Tensor(v))
        else:
            for m in moments:
                m.set_data(ms.Tensor(np.zeros(m.shape, np.float32)))
        order = self.rng.permutation(self.data_size)
        for i in range(0, self.data_size, 50):
            idx = order[i:i + 50]
            self.step(ms.Tensor(self.x[idx]), ms.Tensor(self.y[idx]))
        self.moments = [m.asnumpy() for m in moments]
        return network_weights(self.net)


def round_lr(r, half_life, lr_min):
    """The clients' learning rate in round r (1-based): LR halved every ``half_life`` rounds,
    never below ``lr_min``; constant LR without a half-life."""
    return LR if not half_life else max(lr_min, LR * 0.5 ** ((r - 1) / half_life))


def lenet(clients, max_rounds, target, compress=False, dp_eps=None, central=True,
          per_round=None, eval_every=1, half_life=None, lr_min=0.0, fresh_momentum=False,
          mean_of=1, hold=0, server_lr=1.0, server_momentum=0.0):
    from lenet import LeNet5
    ms.set_context(mode=ms.GRAPH_MODE)
    xs, ys, xt, yt = fashion()
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), LR, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    w0 = network_weights(net)
    order = np.argsort(ys, kind="stable")
    shards = np.array_split(order, 2 * clients)
    rng = np.random.default_rng(0)
    perm = rng.permutation(2 * clients)
    sims, now = [], [1]  # now[0]: the round the clients train in

    def lr():
        return round_lr(now[0], half_life, lr_min)
    for i in range(clients):
        idx = np.concatenate([shards[perm[2 * i]], shards[perm[2 * i + 1]]])
        sims.append(LeNetClient(f"client{i}", xs[idx], ys[idx], step, net, opt, seed=i, lr=lr,
                                fresh_momentum=fresh_momentum))
    accs, evaluated, reached, t0 = [], [], [None], time.perf_counter()

    def evaluate(entry):  # the target: the mean of the last `mean_of` tests reaches it
        now[0] = entry["iteration"] + 1
        if entry["iteration"] % eval_every:
            return False
        evaluated.append(entry["iteration"])
        load_weights(net, entry["weights"])
        accs.append(accuracy(net, xt, yt))
        window = accs[-mean_of:]
        print(f"round {entry['iteration']}: test accuracy {accs[-1]:.4f}, mean of last "
              f"{len(window)} {sum(window) / len(window):.4f}", file=sys.stderr, flush=True)
        if reached[0] is None and len(window) == mean_of and sum(window) / mean_of >= target:
            reached[0] = entry["iteration"]
        return reached[0] is not None and entry["iteration"] >= reached[0] + hold
    extra = {"compression": COMPRESSION} if compress else {}
    if server_lr != 1.0 or server_momentum != 0.0:
        extra["aggregation"] = {"server_learning_rate": server_lr,
                                "server_momentum": server_momentum}
    if dp_eps is not None:
        extra["encrypt"] = {"encrypt_type": "DP_ENCRYPT", "dp_encrypt": {
            "dp_eps": dp_eps, "dp_delta": 0.01, "dp_norm_clip": 1.0}}
    with tempfile.TemporaryDirectory() as tmp, \
            FLServer(server_config(tmp, w0, max_rounds, per_round or clients, **extra),
                     log_to_stderr=False) as srv:
        simulate(srv.address, sims, max_rounds, timeout=600, on_round=evaluate,
                 clients_per_round=per_round)
        epsilons = [float(e.split("epsilon: ")[1]) for e in srv.events() if "epsilon: " in e]
    fed_s = time.perf_counter() - t0
    after = [a for r, a in zip(evaluated, accs) if reached[0] is not None and r > reached[0]]
    out = {"clients": clients, "target": target, "rounds_to_target": reached[0],
           "mean_of": mean_of, "hold_rounds": hold, "min_accuracy_after": min(after, default=None),
           "lr_half_life": half_life, "lr_min": lr_min, "fresh_momentum": fresh_momentum,
           "accuracy_per_round": accs, "evaluated_rounds": evaluated,
           "clients_per_round": per_round or clients, "federated_seconds": fed_s,
           "compress": compress, "server_lr": server_lr, "server_momentum": server_momentum,
           "dp_eps": dp_eps, "epsilon_spent": epsilons[-1] if epsilons else None}
    if not central:
        return out
    # centralized: the same network, optimizer and batch on all the data
    ms.set_seed(0)
    cnet = LeNet5()
    load_weights(cnet, w0)
    copt = nn.Momentum(cnet.trainable_params(), LR, 0.9)
    cstep = nn.TrainOneStepCell(nn.WithLossCell(cnet, loss), copt)
    central, epochs_to_target = [], None
    for epoch in range(1, 11):
        perm = rng.permutation(len(ys))
        for i in range(0, len(ys), 50):
            idx = perm[i:i + 50]
            cstep(ms.Tensor(xs[idx]), ms.Tensor(ys[idx]))
        central.append(accuracy(cnet, xt, yt))
        if central[-1] >= target:
            epochs_to_target = epoch
            break
    return {**out, "central_epochs_to_target": epochs_to_target, "central_accuracy": central}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["throughput", "scale", "lenet"])
    ap.add_argument("--secure", action="store_true", help="throughput with PW_ENCRYPT")
    ap.add_argument("--compress", action="store_true", help="QUANT and DIFF_SPARSE_QUANT")
    ap.add_argument("--dp-eps", type=float, help="lenet with DP_ENCRYPT at this dp_eps")
    ap.add_argument("--no-central", action="store_true", help="lenet without centralized")
    ap.add_argument("--clients-per-round", type=int, help="lenet: a random subset per round")
    ap.add_argument("--eval-every", type=int, default=1, help="lenet: test every N rounds")
    ap.add_argument("--clients", type=int)
    ap.add_argument("--max-rounds", type=int, default=150)
    ap.add_argument("--target", type=float, default=0.85)
    ap.add_argument("--lr-half-life", type=float, help="lenet: halve the lr every N rounds")
    ap.add_argument("--lr-min", type=float, default=0.0, help="lenet: the lr's floor")
    ap.add_argument("--fresh-momentum", action="store_true",
                    help="lenet: clients start each round with zero momentum")
    ap.add_argument("--mean-of", type=int, default=1,
                    help="lenet: the target is reached when the mean of the last K tests is")
    ap.add_argument("--hold", type=int, default=0,
                    help="lenet: rounds to keep training after the target (its minimum reported)")
    ap.add_argument("--server-lr", type=float, default=1.0, help="lenet: FedAvgM's server lr")
    ap.add_argument("--server-momentum", type=float, default=0.0,
                    help="lenet: FedAvgM's server momentum (0: FedAvg)")
    a = ap.parse_args()
    if a.what == "throughput":
        out = throughput(secure=a.secure)
    elif a.what == "scale":
        out = scale(a.clients or 1000, a.compress)
    else:
        out = lenet(a.clients or 100, a.max_rounds, a.target, a.compress, a.dp_eps,
                    not a.no_central, a.clients_per_round, a.eval_every, a.lr_half_life,
                    a.lr_min, a.fresh_momentum, a.mean_of, a.hold, a.server_lr,
                    a.server_momentum)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
