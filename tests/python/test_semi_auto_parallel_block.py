"""Semi-automatic parallelism on a transformer block (Gather embedding, LayerNorm,
multi-head attention, MLP, a sparse softmax cross-entropy loss: auto_parallel_nets.Block) on
real ranks (Gloo,
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
    from mycel import nn, Tensor
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context
    from mycel.parallel.context import dataset_shard

    config = sys.argv[1]
    sys.path.insert(0, sys.argv[2])
    from spmd_check import compare
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    from auto_parallel_nets import Block, block_data
    B, S, D, HEADS, F, V = 4, 3, 8, 4, 16, 10   # batch, sequence, model, heads, MLP, vocab
    TOKENS, LABELS = (t.asnumpy() for t in block_data(B, S, V))
    EMB = Block(B, S, D, HEADS, F, V).emb.asnumpy()  # the initial table


    def strategies(m, d):
        # m: the model-parallel ways, d: the data-parallel ways.
        return {"emb": ((1, m), (d,)), "ln": ((d, 1), (1,), (1,)) if d > 1 else None,
                "col": ((d, 1), (1, m)), "row": ((d, m), (m, 1)),
                "loss": ((d, 1), (d,)) if d > 1 else None}


    STRATEGY = {"megatron": strategies(n, 1), "dp_mp": strategies(2, 2)}


    def make(sharded):
        net = Block(B, S, D, HEADS, F, V)
        if sharded:
            s = STRATEGY[config]
            net.gather.shard(s["emb"])
            for mm in (net.q, net.k, net.v, net.m1):
                mm.shard(s["col"])
            for mm in (net.o, net.m2):
                mm.shard(s["row"])
            if s["ln"]:
                net.ln1.shard(s["ln"])
                net.ln2.shard(s["ln"])
            if s["loss"]:
                net.loss.shard(s["loss"])
        return net


    def run(sharded):
        net = make(sharded)
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
    moved = float(np.abs(serial["params"][0].asnumpy() - EMB).max())
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
