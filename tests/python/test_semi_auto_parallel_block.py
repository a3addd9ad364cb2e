"""Semi-automatic parallelism on a transformer block (Gather embedding, LayerNorm,
multi-head attention, MLP, a sparse softmax cross-entropy loss) on real ranks (Gloo,
loopback), in GRAPH mode and float64. Each rank first runs the serial network (stand-alone)
as the oracle, then the sharded one: the loss, every gradient (each rank's slice of it) and
10 Momentum steps must equal the serial run to 1e-10.

  megatron  (2 and 4 ranks) the embedding table split by columns (the LayerNorm after it
            reads it whole), Q/K/V split by columns so each rank holds whole heads, the
            output projection and the MLP's second MatMul split by rows (partial sums), the
            rest propagated;
  dp_mp     (4 ranks, a 2 x 2 mesh) the same with the batch split too, both LayerNorms and
            the loss sharded along the batch (the loss's local means scaled and summed),
            and each rank given only its half of the batch (dataset_strategy)."""
import textwrap

import pytest

from spmd_check import run_worker

WORKER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Tensor, Parameter
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context
    from mycel.parallel.context import dataset_shard

    config = sys.argv[1]
    sys.path.insert(0, sys.argv[2])
    from spmd_check import compare
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    B, S, D, HEADS, F, V = 4, 3, 8, 4, 16, 10   # batch, sequence, model, heads, MLP, vocab
    DH = D // HEADS
    rng = np.random.default_rng(11)
    INIT = {"emb": rng.standard_normal((V, D)),
            "wq": rng.standard_normal((D, D)) * 0.4, "wk": rng.standard_normal((D, D)) * 0.4,
            "wv": rng.standard_normal((D, D)) * 0.4, "wo": rng.standard_normal((D, D)) * 0.4,
            "g1": 1 + 0.1 * rng.standard_normal(D), "be1": 0.1 * rng.standard_normal(D),
            "g2": 1 + 0.1 * rng.standard_normal(D), "be2": 0.1 * rng.standard_normal(D),
            "w1": rng.standard_normal((D, F)) * 0.4, "w2": rng.standard_normal((F, D)) * 0.4,
            "head": rng.standard_normal((D, V)) * 0.4}
    TOKENS = rng.integers(0, V, (B * S,)).astype(np.int32)
    LABELS = rng.integers(0, V, (B * S,)).astype(np.int32)


    def strategies(m, d):
        # m: the model-parallel ways, d: the data-parallel ways.
        return {"emb": ((1, m), (d,)), "ln": ((d, 1), (1,), (1,)) if d > 1 else None,
                "col": ((d, 1), (1, m)), "row": ((d, m), (m, 1)),
                "loss": ((d, 1), (d,)) if d > 1 else None}


    STRATEGY = {"megatron": strategies(n, 1), "dp_mp": strategies(2, 2)}


    class Block(nn.Cell):
        def __init__(self, sharded):
            super().__init__()
            for name, value in INIT.items():
                setattr(self, name, Parameter(Tensor(value, ms.float64), name=name))
            self.gather = ops.Gather()
            self.ln1 = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
            self.ln2 = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
            self.q, self.k, self.v = ops.MatMul(), ops.MatMul(), ops.MatMul()
            self.o, self.m1, self.m2 = ops.MatMul(), ops.MatMul(), ops.MatMul()
            self.proj = ops.MatMul()
            self.scores = ops.BatchMatMul(transpose_b=True)
            self.mix = ops.BatchMatMul()
            self.softmax = ops.Softmax(axis=-1)
            self.loss = ops.SparseSoftmaxCrossEntropyWithLogits()
            if sharded:
                s = STRATEGY[config]
                self.gather.shard(s["emb"])
                for mm in (self.q, self.k, self.v, self.m1):
                    mm.shard(s["col"])
                for mm in (self.o, self.m2):
                    mm.shard(s["row"])
                if s["ln"]:
                    self.ln1.shard(s["ln"])
                    self.ln2.shard(s["ln"])
                if s["loss"]:
                    self.loss.shard(s["loss"])

        def heads(self, t):  # [B*S, D] -> [B, HEADS, S, DH]
            return ops.transpose(ops.reshape(t, (B, S, HEADS, DH)), (0, 2, 1, 3))

        def construct(self, tokens, labels):
            x = self.gather(self.emb, tokens, 0)                         # [B*S, D]
            h = self.ln1(x, self.g1, self.be1)[0]
            q, k, v = self.heads(self.q(h, self.wq)), self.heads(self.k(h, self.wk)), \\
                self.heads(self.v(h, self.wv))
            p = self.softmax(self.scores(q, k) * (1.0 / np.sqrt(DH)))   # [B, HEADS, S, S]
            ctx = ops.reshape(ops.transpose(self.mix(p, v), (0, 2, 1, 3)), (B * S, D))
            x = x + self.o(ctx, self.wo)
            h = self.ln2(x, self.g2, self.be2)[0]
            x = x + self.m2(ops.tanh(self.m1(h, self.w1)), self.w2)
            return self.loss(self.proj(x, self.head), labels)


    def run(sharded):
        net = Block(sharded)
        rows = slice(None)
        if sharded and config == "dp_mp":  # this rank's half of the batch, the shard a data
            shards, k = dataset_shard()     # set reads here (the strategy's device matrix is
            assert shards == 2              # [2 repeats, 2 slices]: rank r reads r % 2)
            rows = slice(k * B * S // 2, (k + 1) * B * S // 2)
        t, y = Tensor(TOKENS[rows]), Tensor(LABELS[rows])
        value, grads = ms.value_and_grad(net, None, net.trainable_params())(t, y)
        step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.05, 0.9))
        losses = [float(step(t, y).asnumpy()) for _ in range(10)]
        return dict(loss=float(value.asnumpy()), grads=[g.asnumpy() for g in grads],
                    losses=losses, params=net.trainable_params())


    serial = run(False)
    # dp_mp: each rank is given its half of the batch (dataset_strategy splits the rows in
    # 2, the other mesh axis repeats them); megatron: the whole batch.
    data = {"full_batch": True} if config == "megatron" else \
        {"dataset_strategy": ((2,), (2,))}
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n, **data)
    par = run(True)
    diffs, sliced = compare(serial, par, rank)
    moved = float(np.abs(serial["params"][0].asnumpy() - INIT["emb"]).max())
    print("RESULT", json.dumps({"diffs": diffs, "sliced": sliced, "moved": moved,
                                "losses": serial["losses"]}))
""")


def _results(tmp_path, n, config):
    return run_worker(tmp_path, WORKER, n, config, timeout=300)


@pytest.mark.parametrize("n, config", [(2, "megatron"), (4, "megatron"), (4, "dp_mp")])
def test_sharded_transformer_block_equals_the_serial_run(tmp_path, n, config):
    for kind, r in _results(tmp_path, n, config):
        assert kind == "RESULT"
        for what, d in r["diffs"].items():
            assert d <= 1e-10, (what, d)
        # The split weights hold slices: the embedding table by columns, Q/K/V and the MLP's
        # first weight by columns, the output projection and the MLP's second by rows.
        assert {"emb", "wq", "wk", "wv", "wo", "w1", "w2"} <= set(r["sliced"]), r["sliced"]
        assert r["moved"] > 1e-3 and r["losses"][-1] < r["losses"][0]  # it trained
