"""Semi-automatic parallelism (parallel_mode="semi_auto_parallel", Primitive.shard) on real
ranks (Gloo, loopback): a Megatron-style MLP, its first MatMul split by columns and its
second by rows (the partial sums resolved by an AllReduce), and at 4 ranks the same MLP on a
2 x 2 mesh (batch split over one axis, the hidden layer over the other). Each rank first
runs the serial network (stand-alone, unsharded) as the oracle, then the sharded one, in
GRAPH mode and float64: the forward output, the loss, every gradient (each rank's slice of
it) and 10 Momentum steps of TrainOneStepCell (the losses and the trained slices) must equal
the serial run to 1e-10. Then the errors: a strategy that does not divide a dimension names
the op and the source line, PYNATIVE mode is refused; the context takes every search mode."""
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops
from mycel.parallel import context as pctx
from spmd_check import run_worker

WORKER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Tensor, Parameter
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context

    config = sys.argv[1]
    sys.path.insert(0, sys.argv[2])
    from spmd_check import compare
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    B, D, H, O = 8, 6, (15 if config == "bad" else 16), 4
    rng = np.random.default_rng(7)
    W1, B1 = rng.standard_normal((D, H)), rng.standard_normal(H)
    W2, B2 = rng.standard_normal((H, O)), rng.standard_normal(O)
    X, Y = rng.standard_normal((B, D)), rng.standard_normal((B, O))
    STRATEGIES = {  # (first MatMul, second MatMul, Softmax)
        "megatron": (((1, 1), (1, n)), ((1, n), (n, 1)), None),
        "dp_mp": (((2, 1), (1, 2)), ((2, 2), (2, 1)), None),
        # h split by columns, then by rows: an AlltoAll; the softmax (over axis 0) reads the
        # split rows whole: an AllGather.
        "alltoall": (((1, 1), (1, n)), ((n, 1), (1, 1)), None),
        # The partial sums reduce-scattered to the softmax's column split (dimension 1, so
        # transposed around the collective), the bias split alike, the output gathered.
        "reduce_scatter": (((1, 1), (1, n)), ((1, n), (n, 1)), ((1, n),)),
        "bad": (((1, 1), (1, n)), ((1, n), (n, 1)), None),
        # The row split's partial sums reduce-scattered by rows (out_strategy), not
        # all-reduced; the bias added to the split rows, the output gathered.
        "out_strategy": (((1, 1), (1, n)), ((1, n), (n, 1)), None, ((n, 1),)),
    }


    class MLP(nn.Cell):
        def __init__(self, sharded):
            super().__init__()
            self.w1 = Parameter(Tensor(W1, ms.float64), name="w1")
            self.b1 = Parameter(Tensor(B1, ms.float64), name="b1")
            self.w2 = Parameter(Tensor(W2, ms.float64), name="w2")
            self.b2 = Parameter(Tensor(B2, ms.float64), name="b2")
            self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
            self.add, self.relu = ops.Add(), ops.ReLU()
            self.softmax = ops.Softmax(axis=0)
            if sharded:
                s1, s2, s3, *out = STRATEGIES[config] + (None,)
                assert self.mm1.shard(s1) is self.mm1
                self.mm2.shard(s2, out_strategy=out[0])
                if s3:
                    self.softmax.shard(s3)

        def construct(self, x):
            h = self.relu(self.add(self.mm1(x, self.w1), self.b1))
            return self.softmax(self.mm2(h, self.w2)) + self.b2


    def run(sharded):
        net = MLP(sharded)
        loss = nn.WithLossCell(net, nn.MSELoss())
        x, y = Tensor(X, ms.float64), Tensor(Y, ms.float64)
        out = net(x).asnumpy()
        value, grads = ms.value_and_grad(loss, None, net.trainable_params())(x, y)
        step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.05, 0.9))
        losses = [float(step(x, y).asnumpy()) for _ in range(10)]
        return dict(out=out, loss=float(value.asnumpy()), grads=[g.asnumpy() for g in grads],
                    losses=losses, params=net.trainable_params())


    if config == "bad":
        set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                                  full_batch=True)
        try:
            run(True)
        except ValueError as e:
            print("ERROR", json.dumps(str(e)))
        sys.exit(0)
    serial = run(False)
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                              full_batch=True)
    import os, glob, re
    # The rewritten programs' IR, dumped beside this script: which collectives they use.
    dump = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"ir_{rank}")
    os.environ["MYCEL_DUMP_IR"] = dump
    par = run(True)
    del os.environ["MYCEL_DUMP_IR"]
    collectives = sorted({m for f in glob.glob(dump + "/*before_ad.ir")
                          for m in re.findall(r"(AllReduce|ReduceScatter|AllGather|AlltoAll)",
                                              open(f).read())})
    diffs, sliced = compare(serial, par, rank)
    moved = float(np.abs(serial["params"][0].asnumpy() - W1).max())
    print("RESULT", json.dumps({"diffs": diffs, "sliced": sliced, "moved": moved,
                                "collectives": collectives}))
""")


def _results(tmp_path, n, config):
    return run_worker(tmp_path, WORKER, n, config, timeout=240)


SLICED = {"megatron": ["w1", "b1", "w2"], "dp_mp": ["w1", "b1", "w2"],
          "alltoall": ["w1", "b1"], "reduce_scatter": ["w1", "b1", "w2", "b2"],
          "out_strategy": ["w1", "b1", "w2"]}


@pytest.mark.parametrize("n, config", [(2, "megatron"), (4, "megatron"), (4, "dp_mp"),
                                       (2, "alltoall"), (4, "reduce_scatter"),
                                       (2, "out_strategy"), (4, "out_strategy")])
def test_sharded_mlp_equals_the_serial_run(tmp_path, n, config):
    for kind, r in _results(tmp_path, n, config):
        assert kind == "RESULT"
        for what, d in r["diffs"].items():
            assert d <= 1e-10, (what, d)
        # The weights a strategy splits hold slices, and so do the biases added to a split
        # activation (the layout propagates through the Add).
        assert r["sliced"] == SLICED[config]
        # out_strategy: the row split's partial sums are reduce-scattered (the megatron
        # config all-reduces them), as the rewritten program before AD shows.
        if config == "out_strategy":
            assert "ReduceScatter" in r["collectives"], r["collectives"]
        if config == "megatron":
            assert "ReduceScatter" not in r["collectives"], r["collectives"]
        assert r["moved"] > 1e-3  # the 10 steps trained


def test_a_strategy_that_does_not_divide_names_the_op_and_line(tmp_path):
    for kind, msg in _results(tmp_path, 2, "bad"):
        assert kind == "ERROR"
        assert "For 'MatMul'" in msg and "(15) cannot be divided into 2 slices" in msg, msg
        assert "worker.py" in msg and "self.mm1(x, self.w1)" in msg, msg


def test_shard_and_the_context():
    mm = ops.MatMul()
    assert mm.in_strategy is None
    assert mm.shard(((1, 2), (2, 1))) is mm and mm.in_strategy == ((1, 2), (2, 1))
    with pytest.raises(TypeError, match="tuple of tuples"):
        mm.shard([[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="positive ints"):
        mm.shard(((1, 0), (2, 1)))
    assert mm.shard(((1, 2), (2, 1)), out_strategy=((2, 1),)).out_strategy == ((2, 1),)
    with pytest.raises(ValueError, match="needs an 'in_strategy'"):
        mm.shard(None, out_strategy=((2, 1),))
    with pytest.raises(ValueError, match="'out_strategy' must be positive"):
        mm.shard(((1, 2), (2, 1)), out_strategy=((0, 1),))
    try:
        pctx.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=2)
        assert pctx.get_auto_parallel_context("parallel_mode") == "semi_auto_parallel"
        pctx.set_auto_parallel_context(parallel_mode="auto_parallel",
                                       search_mode="recursive_programming")
        assert pctx.get_auto_parallel_context("search_mode") == "recursive_programming"
        pctx.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
        # How the inputs arrive: each rank's rows (MindSpore's default), whole, or a tuple.
        assert pctx.input_strategy() == "data_parallel"
        pctx.set_auto_parallel_context(full_batch=True)
        assert pctx.input_strategy() is None
        pctx.set_auto_parallel_context(full_batch=False, dataset_strategy=((2, 1), (2,)))
        assert pctx.input_strategy() == ((2, 1), (2,))
        with pytest.raises(ValueError, match="dimension 0 of the inputs, alike"):
            pctx.set_auto_parallel_context(dataset_strategy=((2, 2), (2,)))
        with pytest.raises(ValueError, match="tuple of tuples of positive ints"):
            pctx.set_auto_parallel_context(dataset_strategy=[[2, 1]])
    finally:
        pctx.reset_auto_parallel_context()


@pytest.mark.parametrize("parallel_mode", ["semi_auto_parallel", "auto_parallel"])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_sharding_needs_graph_mode_and_a_job(mode, parallel_mode):
    net = nn.Dense(3, 2)
    x = ms.Tensor(np.ones((2, 3), np.float32))
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=mode)
        pctx.set_auto_parallel_context(parallel_mode=parallel_mode)
        if mode == ms.PYNATIVE_MODE:
            with pytest.raises(ValueError, match=f"{parallel_mode} runs sharded networks in "
                                                 "GRAPH mode only"):
                net(x)
        else:
            with pytest.raises(RuntimeError, match="init()"):
                net(x)
    finally:
        pctx.reset_auto_parallel_context()
        ms.set_context(mode=old)


def test_the_megatron_example_trains_through_the_launcher(tmp_path):
    # examples/distributed/megatron_mlp.py, as the README runs it (fewer steps): it checks
    # itself against stand-alone training and fails otherwise.
    from test_launcher import launch
    from distributed import free_port
    r = launch(["--worker_num", 2, "--local_worker_num", 2, "--master_port", free_port(),
                "--log_dir", tmp_path / "logs", "examples/distributed/megatron_mlp.py",
                "--steps", 5, "--hidden", 100], timeout=300)
    assert r.returncode == 0, r.stderr
    log = (tmp_path / "logs" / "worker_0.log").read_text()
    assert "rank 0 holds w1 (64, 50) of (64, 100)" in log, log
