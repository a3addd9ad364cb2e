"""Data parallelism (set_auto_parallel_context(parallel_mode=DATA_PARALLEL)) on real ranks:
20 steps of Model.train at 2 and 4 processes (Gloo and MPI), in GRAPH and PYNATIVE mode,
in float32 and float64, give the weights of serial training on the global batch: the
dataset shards itself by rank, rank 0's initial parameters are broadcast (every rank starts
from different ones), and the gradients are all-reduced in several buckets and averaged.
Also the context's settings and errors, the reducer's buckets, and checkpoints in data
parallelism (rank 0 writes the whole one; integrated_save=False writes one per rank)."""
import json
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel.parallel import context as pctx
from distributed import run_gloo, run_mpi

WORKER = textwrap.dedent("""
    import json, sys, warnings
    warnings.filterwarnings("error", message=".*JIT fallback")
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Parameter, Tensor
    from mycel import dataset as ds
    from mycel.communication import init, get_rank, get_group_size

    serial = sys.argv[2] == "serial"
    STEPS, BATCH = 20, 8            # global batch of 8 rows per step

    class MLP(nn.Cell):
        def __init__(self, dtype, seed):
            super().__init__()
            rng = np.random.default_rng(seed)
            t = ms.float64 if dtype == "float64" else ms.float32
            def p(shape, name):
                return Parameter(Tensor(rng.standard_normal(shape) * 0.3, t), name)
            self.w1, self.b1 = p((5, 16), "w1"), p((16,), "b1")
            self.w2, self.b2 = p((16, 3), "w2"), p((3,), "b2")

        def construct(self, x):
            h = ops.relu(ops.matmul(x, self.w1) + self.b1)
            return ops.matmul(h, self.w2) + self.b2

    def train(mode, dtype):
        ms.set_context(mode=mode)
        rank = 0 if serial else get_rank()
        net = MLP(dtype, seed=100 + rank)  # different on every rank: rank 0's is broadcast
        rng = np.random.default_rng(7)
        x = rng.standard_normal((STEPS * BATCH, 5)).astype(dtype)
        y = rng.standard_normal((STEPS * BATCH, 3)).astype(dtype)
        n = 1 if serial else get_group_size()
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(BATCH // n)
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
        model = ms.Model(net, nn.MSELoss(), opt)
        model.train(1, data)
        return {p.name: p.asnumpy().tolist() for p in net.trainable_params()}

    if not serial:
        init()
        # Buckets of at most 256 bytes (float32): w1 (320 bytes) alone, then b1 and w2 (64 +
        # 192) in one, b2 alone; in float64 each alone.
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, parameter_broadcast=True,
                                     comm_fusion={"allreduce": {"mode": "size",
                                                                "config": 256 / 2**20}})
    out = {}
    for mode, m in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
        for dtype in ("float32", "float64"):
            out[f"{m} {dtype}"] = train(mode, dtype)
    rank = 0 if serial else get_rank()
    with open(f"{sys.argv[1]}/result_{rank}.json", "w") as f:
        json.dump(out, f)
""")


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serial")
    script = folder / "worker.py"
    script.write_text(WORKER)
    [(code, text)] = run_gloo(script, 1, [folder, "serial"])
    assert code == 0, text
    return json.loads((folder / "result_0.json").read_text())


@pytest.mark.parametrize("backend,n", [("gloo", 2), ("gloo", 4), ("mpi", 2), ("mpi", 4)])
def test_data_parallel_training_equals_serial_training(tmp_path, serial, backend, n):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    args = [tmp_path, "parallel"]
    runs = run_gloo(script, n, args) if backend == "gloo" else run_mpi(script, n, args)
    for code, text in runs:
        assert code == 0, text
    for r in range(n):
        got = json.loads((tmp_path / f"result_{r}.json").read_text())
        for run, params in serial.items():
            tol = 1e-12 if run.endswith("float64") else 1e-5
            for name, want in params.items():
                np.testing.assert_allclose(np.array(got[run][name]), np.array(want), rtol=tol,
                                           atol=tol, err_msg=f"rank {r} {run} {name}")


def test_serial_training_moved_the_weights(serial):
    # Guards the comparison: 20 steps changed every parameter (from rank 0's seed).
    rng = np.random.default_rng(100)
    w1 = rng.standard_normal((5, 16)) * 0.3
    assert np.abs(np.array(serial["graph float64"]["w1"]) - w1).max() > 1e-3


def test_context_settings_and_errors():
    try:
        ms.set_auto_parallel_context(gradients_mean=True, device_num=4)
        assert ms.get_auto_parallel_context("gradients_mean") is True
        assert ms.get_auto_parallel_context("device_num") == 4
        with pytest.raises(ValueError, match="'search_mode' must be one of"):
            ms.set_auto_parallel_context(search_mode="recursive")
        with pytest.raises(ValueError, match="must be one of"):
            ms.set_auto_parallel_context(parallel_mode="model_parallel")
        with pytest.raises(ValueError, match="unknown option 'no_such'"):
            ms.set_auto_parallel_context(no_such=1)
        with pytest.raises(TypeError, match="'gradients_mean' must be a bool"):
            ms.set_auto_parallel_context(gradients_mean=1)
        with pytest.raises(ValueError, match="mode 'size' needs config"):
            ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size"}})
        # Outside a job, data parallel mode changes nothing (no reducer, no shard).
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
        assert not pctx.is_data_parallel()
        assert pctx.dataset_shard() is None
    finally:
        ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.get_auto_parallel_context("device_num") == 1


def test_fusion_buckets_follow_comm_fusion():
    try:
        assert pctx.fusion_buckets([100, 200, 300]) == [[0, 1, 2]]  # auto: 64 MB
        ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size",
                                                                "config": 250 / 2**20}})
        assert pctx.fusion_buckets([100, 200, 300, 10]) == [[0], [1], [2], [3]]
        assert pctx.fusion_buckets([100, 100, 300, 10]) == [[0, 1], [2], [3]]
        ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "index",
                                                                "config": [2, 3]}})
        assert pctx.fusion_buckets([1] * 5) == [[0, 1], [2], [3, 4]]
    finally:
        ms.reset_auto_parallel_context()


def test_the_distributed_example_trains_through_the_launcher(tmp_path):
    # examples/distributed/train_lenet.py, as the README runs it: one epoch on 2 processes.
    from test_launcher import launch
    from distributed import free_port
    r = launch(["--worker_num", 2, "--local_worker_num", 2, "--master_port", free_port(),
                "--log_dir", tmp_path / "logs", "examples/distributed/train_lenet.py",
                "--epochs", 1, "--out", tmp_path], timeout=300)
    assert r.returncode == 0, r.stderr
    log = (tmp_path / "logs" / "worker_0.log").read_text()
    acc = float(log.split("summary: test accuracy ")[1].split(",")[0])
    assert acc > 0.8, log
    assert (tmp_path / "lenet5_dp.ckpt").exists()
    assert "summary" not in (tmp_path / "logs" / "worker_1.log").read_text()  # rank 0 reports


SAVE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, Parameter, Tensor
    from mycel import dataset as ds
    from mycel.communication import init, get_rank, release
    init()
    r, out = get_rank(), sys.argv[1]
    ms.set_auto_parallel_context(parallel_mode="data_parallel")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.full((2, 3), r + 1.0, np.float32)), "w")

    net = Net()
    ms.save_checkpoint(net, f"{out}/whole_{r}.ckpt")  # rank 0 writes for every rank
    ms.save_checkpoint(net, f"{out}/own_{r}.ckpt", integrated_save=False)  # each its own
    # A dataset told its shard explicitly reads that one, whatever the rank.
    told = ds.NumpySlicesDataset({"x": np.arange(8)}, shuffle=False, num_shards=1, shard_id=0)
    rows = [int(row["x"]) for row in told.create_dict_iterator(num_epochs=1, output_numpy=True)]
    with open(f"{out}/rows_{r}.json", "w") as f:
        json.dump(rows, f)
    release()
""")


def test_rank_0_writes_the_checkpoint_and_integrated_save_false_writes_one_per_rank(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(SAVE)
    for code, text in run_gloo(script, 2, [tmp_path]):
        assert code == 0, text
    from mycel.train import load_checkpoint
    assert (tmp_path / "whole_0.ckpt").exists() and not (tmp_path / "whole_1.ckpt").exists()
    for r in range(2):
        w = load_checkpoint(str(tmp_path / f"own_{r}.ckpt"))["w"].asnumpy()
        np.testing.assert_array_equal(w, np.full((2, 3), r + 1.0, np.float32))
        assert json.loads((tmp_path / f"rows_{r}.json").read_text()) == list(range(8))


SHARDS = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import dataset as ds
    from mycel.communication import init, get_rank
    init()
    ms.set_auto_parallel_context(parallel_mode="data_parallel")
    data = ds.NumpySlicesDataset({"x": np.arange(40)}, shuffle=True)   # no seed set anywhere
    epochs = [[int(row["x"]) for row in data.create_dict_iterator(num_epochs=1,
                                                                   output_numpy=True)]
              for _ in range(2)]
    with open(f"{sys.argv[1]}/rows_{get_rank()}.json", "w") as f:
        json.dump(epochs, f)
""")


@pytest.mark.parametrize("n", [2, 4])
def test_unseeded_shuffled_shards_partition_the_data(tmp_path, n):
    script = tmp_path / "worker.py"
    script.write_text(SHARDS)
    for code, text in run_gloo(script, n, [tmp_path]):
        assert code == 0, text
    rows = [json.loads((tmp_path / f"rows_{r}.json").read_text()) for r in range(n)]
    for e in range(2):
        got = sorted(x for r in range(n) for x in rows[r][e])
        assert got == list(range(40)), f"epoch {e}: the shards overlap or miss rows"
        assert all(len(rows[r][e]) == 40 // n for r in range(n))
    assert rows[0][0] != sorted(rows[0][0])  # shuffled


OVERLAP = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Parameter, Tensor
    from mycel.communication import init, get_rank
    from mycel.nn import grad_reducer as gr

    events = []
    ready, finish = gr._OverlapStep.ready, gr._OverlapStep.finish

    def logged_ready(self, i, g):
        before = sum(q is not None for q in self._queued)
        ready(self, i, g)
        events.append(("ready", i))
        if sum(q is not None for q in self._queued) > before:
            events.append(("queued", i))

    def logged_finish(self):
        events.append(("finish",))
        return finish(self)

    gr._OverlapStep.ready, gr._OverlapStep.finish = logged_ready, logged_finish

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(3)
            self.w = [Parameter(Tensor(rng.standard_normal((8, 8)) * 0.3, ms.float32), f"w{k}")
                      for k in range(3)]
            self.w0, self.w1, self.w2 = self.w

        def construct(self, x):
            return ops.matmul(ops.tanh(ops.matmul(ops.tanh(ops.matmul(x, self.w0)), self.w1)),
                              self.w2)

    def make_step(net, kind):
        loss = nn.WithLossCell(net, nn.MSELoss())
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        if kind == "sens":
            return nn.TrainOneStepCell(loss, opt, sens=4.0)
        if kind == "loss_scale":
            return nn.TrainOneStepWithLossScaleCell(
                loss, opt, nn.DynamicLossScaleUpdateCell(2.0**10, 2, 100))
        return nn.TrainOneStepCell(loss, opt)

    def batches():  # both ranks' batches, rank r's at [r]
        rngs = [np.random.default_rng(r) for r in range(2)]
        return [[(rng.standard_normal((4, 8)), rng.standard_normal((4, 8))) for rng in rngs]
                for _ in range(2)]

    kind = sys.argv[2]
    init()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True,
                                 comm_fusion={"allreduce": {"mode": "size", "config": 1e-6}})
    net = MLP()
    step = make_step(net, kind)
    for both in batches():
        x, y = both[get_rank()]
        step(Tensor(x, ms.float32), Tensor(y, ms.float32))
    # Serial training on the global batch (both ranks' rows) gives the same weights.
    ms.reset_auto_parallel_context()
    ref = MLP()
    ref_step = make_step(ref, kind)
    for both in batches():
        ref_step(Tensor(np.concatenate([b[0] for b in both]), ms.float32),
                 Tensor(np.concatenate([b[1] for b in both]), ms.float32))
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=p.name)
    with open(f"{sys.argv[1]}/events_{get_rank()}.json", "w") as f:
        json.dump(events, f)
""")


@pytest.mark.parametrize("kind", ["plain", "sens", "loss_scale"])
def test_pynative_buckets_start_while_the_backward_runs(tmp_path, kind):
    # One bucket per weight: the last layer's gradient is computed first and its AllReduce
    # is queued before the backward has computed the first layer's; the reducer's call
    # then only waits for the queued buckets (finish). Also with a sens and with loss
    # scaling (the scale is applied after the reduction). Each worker checks its weights
    # against serial training on the global batch.
    script = tmp_path / "worker.py"
    script.write_text(OVERLAP)
    for code, text in run_gloo(script, 2, [tmp_path, kind]):
        assert code == 0, text
    for r in range(2):
        events = [tuple(e) for e in json.loads((tmp_path / f"events_{r}.json").read_text())]
        steps = [events[:7], events[7:]]
        assert len(events) == 14, events
        for ev in steps:
            readies = [e[1] for e in ev if e[0] == "ready"]
            assert readies == [2, 1, 0], ev  # in the backward's order
            assert ev.index(("queued", 2)) < ev.index(("ready", 0)), ev
            assert ev[-1] == ("finish",), ev


AGREE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, Parameter, Tensor
    from mycel.communication import init, release, get_rank, management
    from mycel.ops.function._util import prim

    init()
    r = get_rank()
    res = {}
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    # Ranks whose parameters differ disagree when their reducers are made, not in a step.
    try:
        nn.DistributedGradReducer([Parameter(Tensor(np.zeros(4 + r, np.float32)), "w")])
        res["differ"] = None
    except ValueError as e:
        res["differ"] = str(e)
    # The agreed buckets reduce as before, in both modes (a bucket of one parameter keeps its
    # shape; two parameters are one flat bucket).
    params = [Parameter(Tensor(np.zeros((2, 3), np.float32)), "a"),
              Parameter(Tensor(np.zeros(5, np.float32)), "b"),
              Parameter(Tensor(np.zeros(1, np.float64)), "c")]
    grads = tuple(Tensor(np.full(p.shape, float(r + 1) * (i + 1), p.asnumpy().dtype))
                  for i, p in enumerate(params))
    for mode, name in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
        ms.set_context(mode=mode)
        reducer = nn.DistributedGradReducer(params)
        res[name] = [g.asnumpy().tolist() for g in reducer(grads)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    # An agreed AllReduce given another shape than agreed is checked as any call.
    fp = management._agree_on_call("AllReduce", ms.float32, (3,))
    agreed = prim("AllReduce", op="sum", group="hccl_world_group", agreed=fp)
    res["agreed"] = agreed(Tensor(np.full(3, r + 1.0, np.float32))).asnumpy().tolist()
    res["other"] = agreed(Tensor(np.full(2, r + 1.0, np.float32))).asnumpy().tolist()
    # An agreed call skips the check: a rank that checks the same call while the other does
    # not waits for a message that never comes, and fails after the timeout.
    x = Tensor(np.ones(3, np.float32))
    try:
        (agreed if r == 0 else prim("AllReduce", op="sum", group="hccl_world_group"))(x)
        res["skip"] = None
    except RuntimeError as e:
        res["skip"] = str(e)
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump(res, f)
""")


def test_the_reducer_agrees_on_its_buckets_once_and_its_steps_skip_the_check(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(AGREE)
    runs = run_gloo(script, 2, [tmp_path], env={"MYCEL_COMM_TIMEOUT": "5"}, timeout=120)
    for code, text in runs:
        assert code == 0, text
    for r in range(2):
        res = json.loads((tmp_path / f"result_{r}.json").read_text())
        assert "rank 0 called AllReduce(Float32[4]); rank 1 called AllReduce(Float32[5])" in \
            res["differ"]
        want = [np.full((2, 3), 1.5).tolist(), np.full(5, 3.0).tolist(), [4.5]]
        assert res["pynative"] == want and res["graph"] == want
        assert res["agreed"] == [3.0] * 3 and res["other"] == [3.0] * 2
        assert "AllReduce" in res["skip"] and "timeout 5 s" in res["skip"], res["skip"]
