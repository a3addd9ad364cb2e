"""Automatic parallelism (parallel_mode="auto_parallel") on real ranks (Gloo, loopback): the
strategy search chooses the strategies, the semi-automatic rewrite applies them, and training
must equal the serial run. For the MLP and the transformer block of auto_parallel_nets.py at
2 and 4 ranks (and LeNet-5, whose convolutions, pools and Flatten the search lays out
too), each rank runs the serial network (stand-alone) as the oracle, then the same
network under auto_parallel with search_mode="dynamic_programming" and
"recursive_programming" (no annotations) and with "sharding_propagation" (from one MatMul
the user split by columns; LeNet's second convolution split by output channels), in GRAPH
mode and
float64: the loss, every gradient (each rank's slice of it) and 10 Momentum steps must equal
the serial run to 1e-10, and the plan must shard some weight (the search did something)."""
import textwrap

import pytest

from spmd_check import run_worker

WORKER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context, reset_auto_parallel_context, search

    net_name = sys.argv[1]
    sys.path.insert(0, sys.argv[2])
    from spmd_check import compare, train_record
    from auto_parallel_nets import MLP, mlp_data, Block, block_data, LeNet, lenet_data
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    search.set_profile(search.load_profile(sys.argv[2] + "/../golden/parallel/profile.json"))


    def make(annotate):
        if net_name == "mlp":
            net = MLP(16, 32, 8)
            loss = nn.WithLossCell(net, nn.MSELoss())
            if annotate:
                net.mm1.shard(((1, 1), (1, n)))
            return net, loss, mlp_data(8, 16, 8)
        if net_name == "lenet":
            net = LeNet()
            loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                         reduction="mean"))
            if annotate:
                net.conv2.conv2d.shard(((1, 1, 1, 1), (n, 1, 1, 1)))
            return net, loss, lenet_data()
        net = Block()
        if annotate:
            net.q.shard(((1, 1), (1, n)))
        return net, net, block_data()


    def run(annotate=False):
        return train_record(*make(annotate))


    serial = run()
    out = {}
    for mode in ("dynamic_programming", "sharding_propagation", "recursive_programming"):
        set_auto_parallel_context(parallel_mode="auto_parallel", search_mode=mode,
                                  device_num=n, full_batch=True)
        par = run(annotate=mode == "sharding_propagation")
        reset_auto_parallel_context()
        diffs, sliced = compare(serial, par, rank)
        out[mode] = {"diffs": diffs, "sliced": sliced, "plan": search.last_plan()}
    print("RESULT", json.dumps(out))
""")


@pytest.mark.parametrize("n, net", [(2, "mlp"), (4, "mlp"), (2, "block"), (4, "block"),
                                    (2, "lenet"), (4, "lenet")])
def test_auto_parallel_training_equals_the_serial_run(tmp_path, n, net):
    results = run_worker(tmp_path, WORKER, n, net, timeout=400)
    plans = set()
    for kind, r in results:
        assert kind == "RESULT"
        for mode, res in r.items():
            for what, d in res["diffs"].items():
                assert d <= 1e-10, (mode, what, d)
            assert res["sliced"], (mode, res["plan"])  # some weight holds a slice
            assert f"({mode}, {n} devices)" in res["plan"]
            plans.add((mode, res["plan"]))
    assert len(plans) == 3, plans  # every rank planned alike (deterministic)
