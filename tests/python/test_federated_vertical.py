"""Vertical federated learning (mycel.federated.vertical): the communicator and its refusals,
private set intersection (exact on known overlaps, ids never in the clear, malformed peers
refused) and split learning (the same losses as the network trained centrally, only
embeddings and their gradients on the wire), in both modes."""
import multiprocessing
import threading

import numpy as np
import pytest

import mycel as ms
from mycel import _mycel as _C
from mycel import nn
from mycel.federated.vertical import (RunPSI, ServerConfig, SplitFollower, SplitLeader,
                                      VerticalFederatedCommunicator)

TIMEOUT = 20.0


def pair(timeout=TIMEOUT):
    """A leader and a follower communicator on free loopback ports, launched."""
    lc, fc = ServerConfig("leader", "127.0.0.1:0"), ServerConfig("follower", "127.0.0.1:0")
    leader = VerticalFederatedCommunicator(lc, fc, timeout).launch()
    follower = VerticalFederatedCommunicator(fc, lc, timeout).launch()
    return leader, follower


@pytest.fixture
def comms():
    made = []

    def make(timeout=TIMEOUT):
        made.extend(pair(timeout))
        return made[-2], made[-1]
    yield make
    for c in made:
        c.stop()


def in_thread(fn, *args):
    """Runs fn(*args) in a thread; the returned join() gives its result or raises its error."""
    out = {}

    def run():
        try:
            out["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 (handed to the caller)
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()

    def join():
        t.join(60)
        assert not t.is_alive()
        if "error" in out:
            raise out["error"]
        return out["value"]
    return join


# ---- the communicator ----

def test_tensors_cross_in_order(comms):
    leader, follower = comms()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    follower.send_tensors("leader", {"x": a, "y": ms.Tensor(np.ones(2, np.float64))})
    follower.send_tensors("leader", {"z": np.array([7], np.int32)})
    first, second = leader.receive("follower"), leader.receive("follower")
    assert list(first) == ["x", "y"] and list(second) == ["z"]
    np.testing.assert_array_equal(first["x"], a)
    assert first["y"].dtype == np.float64 and second["z"].tolist() == [7]
    leader.send_tensors("follower", {"back": a * 2})
    np.testing.assert_array_equal(follower.receive("leader")["back"], a * 2)


def raw_sender(comm, name):
    host, port = comm.http_server_config.server_address.split(":")
    return _C._federated._Client(host, int(port), name, TIMEOUT)


def test_strangers_replays_reordering_and_garbage_are_refused(comms):
    leader, follower = comms()
    x = {"x": np.ones(3, np.float32)}
    stranger = raw_sender(leader, "mallory")
    status, reason, *_ = stranger.call("vflMessage", iteration=1, weights=x)
    assert status == "unauthorized" and "mallory" in reason
    peer = raw_sender(leader, "follower")
    assert peer.call("vflMessage", iteration=1, weights=x)[0] == "ok"
    replay = peer.last_request
    status, reason, *_ = peer.post("/vflMessage", replay)
    assert status == "rejected" and "replay" in reason
    status, reason, *_ = peer.call("vflMessage", iteration=5, weights=x)
    assert status == "rejected" and "5 where 2" in reason
    status, reason, *_ = peer.post("/vflMessage", b"MCFL\x01\x0cjunk")
    assert status == "malformed"
    status, reason, *_ = peer.call("startFLJob", iteration=2, weights=x)  # no such endpoint
    assert status == "rejected" and "HTTP 404" in reason
    status, reason, *_ = peer.post("/vflMessage", peer.last_request)  # of another kind
    assert status == "malformed" and "not a vertical message" in reason
    events = leader.events()
    assert len(events) == 6 and "mallory" in events[0] and "HTTP 404" in events[4]
    # only the one good message was taken, and the endpoint still works
    np.testing.assert_array_equal(leader.receive("follower")["x"], x["x"])
    assert peer.call("vflMessage", iteration=2, weights={"y": np.zeros(1)})[0] == "ok"
    assert list(leader.receive("follower")) == ["y"]


def test_communicator_argument_errors(comms):
    leader, follower = comms(timeout=0.3)
    with pytest.raises(ValueError, match="the peer is 'follower'"):
        leader.send_tensors("someone", {"x": np.ones(1)})
    with pytest.raises(TypeError, match="non-empty dict"):
        leader.send_tensors("follower", {})
    with pytest.raises(RuntimeError, match="no message from 'follower'"):
        leader.receive("follower")
    with pytest.raises(ValueError, match="host:port"):
        ServerConfig("a", "localhost")
    with pytest.raises(ValueError, match="different names"):
        VerticalFederatedCommunicator(ServerConfig("a", "127.0.0.1:0"),
                                      ServerConfig("a", "127.0.0.1:0"))
    with pytest.raises(RuntimeError, match="launch"):
        VerticalFederatedCommunicator(ServerConfig("a", "127.0.0.1:0"),
                                      ServerConfig("b", "127.0.0.1:0")).receive("b")


# ---- private set intersection ----

def psi_both(leader_ids, follower_ids, comms, threads=(1, 1), bucket=0):
    comms()
    done = in_thread(RunPSI, follower_ids, "follower", "leader", bucket, threads[1])
    mine = RunPSI(leader_ids, "leader", "follower", bucket, threads[0])
    return mine, done()


def test_psi_finds_exactly_the_known_overlap(comms):
    rng = np.random.default_rng(0)
    universe = [f"user{i:05d}" for i in rng.permutation(3000)]
    common = universe[:700]
    leader_ids = common + universe[700:1500]
    follower_ids = universe[1500:2600] + common
    rng.shuffle(leader_ids)
    rng.shuffle(follower_ids)
    mine, theirs = psi_both(leader_ids, follower_ids, comms, threads=(2, 1))
    assert mine == theirs == sorted(common)


def test_psi_empty_overlap_duplicates_and_bytes(comms):
    mine, theirs = psi_both(["a", "b", "c"], ["d", "e"], comms)
    assert mine == theirs == []
    dup = ["x", "y", "x", "z", "y"]
    mine, theirs = psi_both(dup, ["y", "y", "w", "x"], comms, bucket=3)
    assert mine == theirs == ["x", "y"]
    mine, theirs = psi_both([b"\x00\xff", b"ab"], [b"ab", b"\x00\xff", b"q"], comms)
    assert mine == theirs == [b"\x00\xff", b"ab"]
    mine, theirs = psi_both([], ["a"], comms)
    assert mine == theirs == []


def test_psi_buckets_must_match(comms):
    comms()
    done = in_thread(RunPSI, ["a"], "follower", "leader", 2, 1)
    with pytest.raises(ValueError, match="expected the message 'psi/1/blinded'"):
        RunPSI(["a"], "leader", "follower", 1, 1)
    with pytest.raises(ValueError, match="expected the message 'psi/2/blinded'"):
        done()


def test_psi_ids_never_cross_in_the_clear(comms):
    """A peer driven by hand sees only distinct 32-byte group elements, none of which holds or
    hashes to an id; returning them blinded by nothing gives no match."""
    leader, follower = comms()
    ids = [f"secret-user-{i}" for i in range(50)]
    done = in_thread(RunPSI, ids, "leader", "follower", 0, 1)
    msg = follower.receive("leader")
    assert list(msg) == ["psi/0/blinded"]
    pts = msg["psi/0/blinded"]
    assert pts.dtype == np.uint8 and pts.shape == (50, 32)
    raw = pts.tobytes()
    assert not any(i.encode() in raw or i[-6:].encode() in raw for i in ids)
    assert len({bytes(p) for p in pts}) == 50
    # a second run blinds with a fresh secret: the same ids give other points
    follower.send_tensors("leader", {"psi/0/blinded": pts[:3]})
    follower.receive("leader")  # the leader's answer to our three points
    follower.send_tensors("leader", {"psi/0/double": pts})  # "blinded" by nothing
    assert done() == []
    again = in_thread(RunPSI, ids, "leader", "follower", 0, 1)
    pts2 = follower.receive("leader")["psi/0/blinded"]
    assert not {bytes(p) for p in pts} & {bytes(p) for p in pts2}
    follower.send_tensors("leader", {"psi/0/blinded": pts2[:0]})
    follower.send_tensors("leader", {"psi/0/double": pts2})
    follower.receive("leader")
    assert again() == []


BAD_BLINDED = [
    ({"wrong-name": np.zeros((2, 32), np.uint8)}, "expected the message 'psi/0/blinded'"),
    ({"psi/0/blinded": np.zeros((2, 32), np.float32)}, "must be UInt8 of shape"),
    ({"psi/0/blinded": np.zeros((2, 31), np.uint8)}, "must be UInt8 of shape"),
    ({"psi/0/blinded": np.full((2, 32), 0xFF, np.uint8)}, "not a valid Ristretto255"),
    ({"psi/0/blinded": np.zeros((1, 32), np.uint8)}, "not a valid Ristretto255"),
    ({"psi/0/blinded": np.zeros((1, 32), np.uint8), "extra": np.zeros(1)}, "one entry"),
]


@pytest.mark.parametrize("message, reason", BAD_BLINDED)
def test_psi_refuses_a_malformed_peer(comms, message, reason):
    leader, follower = comms()
    done = in_thread(RunPSI, ["a", "b"], "leader", "follower", 0, 1)
    follower.receive("leader")
    follower.send_tensors("leader", message)
    with pytest.raises(ValueError, match=reason):
        done()


def test_psi_refuses_an_answer_of_the_wrong_size(comms):
    leader, follower = comms()
    done = in_thread(RunPSI, ["a", "b", "c"], "leader", "follower", 0, 1)
    pts = follower.receive("leader")["psi/0/blinded"]
    follower.send_tensors("leader", {"psi/0/blinded": pts[:1]})  # valid points
    follower.receive("leader")
    follower.send_tensors("leader", {"psi/0/double": pts[:2]})
    with pytest.raises(ValueError, match="returned 2 twice-blinded points for our 3 ids"):
        done()


def test_run_psi_argument_errors(comms):
    comms()
    with pytest.raises(ValueError, match="no launched"):
        RunPSI(["a"], "leader", "nobody")
    with pytest.raises(TypeError, match="list of str"):
        RunPSI("abc", "leader", "follower")
    with pytest.raises(TypeError, match="str or bytes"):
        RunPSI([1, 2], "leader", "follower")
    with pytest.raises(ValueError, match="thread_num"):
        RunPSI(["a"], "leader", "follower", 0, 0)


# ---- split learning ----

D_LEADER, D_FOLLOWER, D_EMB, CLASSES, BATCH, STEPS = 6, 5, 4, 3, 16, 12


def users(seed, n=120, overlap=80):
    """Synthetic vertical data: the leader's and the follower's rows of overlapping users (ids
    shuffled differently on each side), with `overlap` common users. Each party's features are
    its own draw; the labels (the leader's) depend on both parties' features."""
    rng = np.random.default_rng(seed)
    ids = [f"id{i:04d}" for i in range(n + (n - overlap))]
    common = ids[:overlap]
    lead = common + ids[overlap:n]
    foll = common + ids[n:]
    xl = {i: rng.normal(size=D_LEADER).astype(np.float32) for i in lead}
    xf = {i: rng.normal(size=D_FOLLOWER).astype(np.float32) for i in foll}
    w = rng.normal(size=(D_LEADER + D_FOLLOWER, CLASSES))
    y = {i: int(np.argmax(np.concatenate([xl[i], xf.get(i, np.zeros(D_FOLLOWER))]) @ w))
         for i in lead}
    rng.shuffle(lead)
    rng.shuffle(foll)
    return (lead, xl, y), (foll, xf), sorted(common)


class Top(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(2 * D_EMB, CLASSES)
        self.concat = ms.ops.Concat(1)

    def construct(self, mine, theirs):
        return self.dense(self.concat((mine, theirs)))


class Central(nn.Cell):
    """The same network on one machine, with its loss: both parties' features joined."""

    def __init__(self, bottom_l, bottom_f, top):
        super().__init__()
        self.bottom_l, self.bottom_f, self.top = bottom_l, bottom_f, top
        self.loss = loss_fn()

    def construct(self, xl, xf, label):
        return self.loss(self.top(self.bottom_l(xl), self.bottom_f(xf)), label)


def networks(seed):
    ms.set_seed(seed)
    return (nn.SequentialCell(nn.Dense(D_LEADER, 8), nn.ReLU(), nn.Dense(8, D_EMB)),
            nn.SequentialCell(nn.Dense(D_FOLLOWER, 8), nn.Tanh(), nn.Dense(8, D_EMB)), Top())


def copy_into(dst, src):
    for a, b in zip(dst.get_parameters(), src.get_parameters()):
        a.set_data(ms.Tensor(b.asnumpy()))


def loss_fn():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def central_losses(xl, xf, y, seed):
    bl, bf, top = networks(seed)
    net = Central(bl, bf, top)
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    out = []
    for s in range(STEPS):
        i = slice((s * BATCH) % len(y), (s * BATCH) % len(y) + BATCH)
        out.append(float(step(ms.Tensor(xl[i]), ms.Tensor(xf[i]), ms.Tensor(y[i])).asnumpy()))
    return out


class Recording(VerticalFederatedCommunicator):
    """A communicator that keeps every message it receives: what crossed the wire."""

    def __init__(self, inner):
        self.__dict__.update(inner.__dict__)
        self.seen = []

    def receive(self, target_server_name):
        msg = super().receive(target_server_name)
        self.seen.append(msg)
        return msg


def test_split_learning_matches_central_training_and_only_the_cut_crosses(comms, mode):
    (lead_ids, xl_by_id, y_by_id), (foll_ids, xf_by_id), common = users(seed=1)
    leader_comm, follower_comm = comms()
    # each party: its own ids to the intersection, then its own rows in that order
    done = in_thread(RunPSI, foll_ids, "follower", "leader", 0, 1)
    order = RunPSI(lead_ids, "leader", "follower", 0, 1)
    assert order == done() == common
    xl = np.stack([xl_by_id[i] for i in order])
    y = np.array([y_by_id[i] for i in order], np.int32)
    xf = np.stack([xf_by_id[i] for i in order])

    leader_comm, follower_comm = Recording(leader_comm), Recording(follower_comm)
    bl, _, top = networks(seed=7)
    _, bf, _ = networks(seed=7)
    leader = SplitLeader(bl, top, loss_fn(),
                         nn.Momentum(bl.trainable_params() + top.trainable_params(), 0.1, 0.9),
                         leader_comm)
    follower = SplitFollower(bf, nn.Momentum(bf.trainable_params(), 0.1, 0.9), follower_comm)
    losses = []
    for s in range(STEPS):
        i = slice((s * BATCH) % len(y), (s * BATCH) % len(y) + BATCH)
        follower.forward_one_step(xf[i])                             # the follower's party
        losses.append(float(leader.train_one_step(xl[i], y[i]).asnumpy()))  # the leader's
        follower.backward_one_step()
    expected = central_losses(xl, xf, y, seed=7)
    np.testing.assert_allclose(losses, expected, rtol=0, atol=1e-5)
    assert losses[-1] < losses[0]
    # on the wire: the follower sent embeddings only, the leader their gradients only
    assert len(leader_comm.seen) == len(follower_comm.seen) == STEPS
    for got, grad in zip(leader_comm.seen, follower_comm.seen):
        assert list(got) == ["embedding"] and got["embedding"].shape == (BATCH, D_EMB)
        assert list(grad) == ["embedding_grad"] and grad["embedding_grad"].shape == (BATCH, D_EMB)
        for arr in (got["embedding"], grad["embedding_grad"]):
            assert arr.dtype == np.float32
            assert not np.isin(arr, xf).any() and not np.isin(arr, xl).any()


def test_split_parties_refuse_wrong_messages(comms):
    leader_comm, follower_comm = comms(timeout=5.0)
    bl, bf, top = networks(seed=3)
    leader = SplitLeader(bl, top, loss_fn(), nn.SGD(bl.trainable_params() +
                                                     top.trainable_params(), 0.1), leader_comm)
    follower = SplitFollower(bf, nn.SGD(bf.trainable_params(), 0.1), follower_comm)
    x = np.zeros((4, D_LEADER), np.float32)
    y = np.zeros(4, np.int32)
    follower_comm.send_tensors("leader", {"raw_features": np.zeros((4, D_FOLLOWER))})
    with pytest.raises(ValueError, match="expected the message {'embedding'}"):
        leader.train_one_step(x, y)
    follower_comm.send_tensors("leader", {"embedding": np.zeros((3, D_EMB), np.float32)})
    with pytest.raises(ValueError, match="a float batch of 4 rows"):
        leader.train_one_step(x, y)
    follower.forward_one_step(np.zeros((4, D_FOLLOWER), np.float32))
    leader_comm.receive("follower")
    leader_comm.send_tensors("follower", {"embedding_grad": np.zeros((4, 2), np.float32)})
    with pytest.raises(ValueError, match="float32\\[4, 4\\]"):
        follower.backward_one_step()
    with pytest.raises(RuntimeError, match="without forward_one_step"):
        follower.backward_one_step()
    with pytest.raises(ValueError, match="not this party's"):
        SplitFollower(bf, nn.SGD(bl.trainable_params(), 0.1), follower_comm)


# ---- the parties in separate processes ----

def follower_process(leader_address, follower_ids, xf_by_id, result):
    """The follower's whole job in its own process: it knows only its ids and features."""
    ms.set_context(mode=ms.GRAPH_MODE)
    me = ServerConfig("follower", "127.0.0.1:0")
    comm = VerticalFederatedCommunicator(me, ServerConfig("leader", leader_address),
                                         TIMEOUT).launch()
    try:
        comm.send_tensors("leader", {"hello": np.array([int(me.server_address.split(":")[1])])})
        order = RunPSI(follower_ids, "follower", "leader", 0, 2)
        xf = np.stack([xf_by_id[i] for i in order])
        _, bf, _ = networks(seed=7)
        follower = SplitFollower(bf, nn.Momentum(bf.trainable_params(), 0.1, 0.9), comm)
        for s in range(STEPS):
            i = slice((s * BATCH) % len(order), (s * BATCH) % len(order) + BATCH)
            follower.forward_one_step(xf[i])
            follower.backward_one_step()
        result.put(("ok", order))
    except BaseException as e:  # noqa: BLE001 (reported to the test)
        result.put(("error", repr(e)))
    finally:
        comm.stop()


def test_split_learning_across_processes():
    """The follower runs in another process with only its own data; the leader's side here
    never holds the follower's features, yet trains to the central losses."""
    (lead_ids, xl_by_id, y_by_id), (foll_ids, xf_by_id), common = users(seed=2)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    ctx = multiprocessing.get_context("spawn")
    result = ctx.Queue()
    lc = ServerConfig("leader", "127.0.0.1:0")
    follower_cfg = ServerConfig("follower", "127.0.0.1:1")  # its port: from its hello
    comm = VerticalFederatedCommunicator(lc, follower_cfg, 120.0).launch()
    proc = ctx.Process(target=follower_process,
                       args=(lc.server_address, foll_ids, xf_by_id, result))
    proc.start()
    try:
        hello = comm.receive("follower")
        assert list(hello) == ["hello"]
        follower_cfg.server_address = f"127.0.0.1:{int(hello['hello'][0])}"
        order = RunPSI(lead_ids, "leader", "follower", 0, 1)
        assert order == common
        xl = np.stack([xl_by_id[i] for i in order])
        y = np.array([y_by_id[i] for i in order], np.int32)
        bl, _, top = networks(seed=7)
        leader = SplitLeader(bl, top, loss_fn(), nn.Momentum(
            bl.trainable_params() + top.trainable_params(), 0.1, 0.9), Recording(comm))
        losses = []
        for s in range(STEPS):
            i = slice((s * BATCH) % len(y), (s * BATCH) % len(y) + BATCH)
            losses.append(float(leader.train_one_step(xl[i], y[i]).asnumpy()))
        status, value = result.get(timeout=120)
        assert status == "ok", value
        assert value == common
        for msg in leader.communicator.seen:
            assert list(msg) == ["embedding"] and msg["embedding"].shape == (BATCH, D_EMB)
    finally:
        proc.join(60)
        comm.stop()
        ms.set_context(mode=old)
    # the oracle (the test, not the leader) joins both parties' data and trains centrally
    xf = np.stack([xf_by_id[i] for i in common])
    np.testing.assert_allclose(losses, central_losses(xl, xf, y, seed=7), rtol=0, atol=1e-5)
