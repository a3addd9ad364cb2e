"""mycel.shard(fn, in_strategy, out_strategy, parameter_plan) and Cell.shard (MindSpore 2.x's;
python/mycel/parallel/shard.py): layout hints on a Cell's or a function's inputs and outputs.

- stand-alone, PYNATIVE and GRAPH mode: a sharded MLP's output, loss and gradients equal
  numpy's (the hints change no value), also called inside another Cell (nn.WithLossCell);
  a sharded function likewise;
- the errors: a strategy that does not divide the tensor names the shard call's line;
  malformed strategies; parameter_plan is not built;
- on 2 and 4 Gloo ranks, GRAPH mode, float64, the whole batch on every rank: the MLP with
  only ``net.shard(in_strategy=((n, 1),))`` (its input's rows split) trains equal to the
  serial run (loss, gradients, 10 Momentum steps, 1e-10) in auto_parallel with
  sharding_propagation, where the search propagates the rows split to both MatMuls (data
  parallelism), and in semi_auto_parallel, where the rewrite propagates it."""
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import nn
from auto_parallel_nets import MLP, mlp_data, mlp_numpy
from spmd_check import run_worker


def test_a_sharded_cell_computes_what_it_did(mode):
    net = MLP(5, 7, 3)
    x, y = mlp_data(8, 5, 3)
    assert net.shard(((2, 1),), out_strategy=((2, 1),)) is net
    assert isinstance(net, MLP) and type(net).__name__ == "MLP"
    loss_cell = nn.WithLossCell(net, nn.MSELoss())
    value, grads = ms.value_and_grad(loss_cell, None, net.trainable_params())(x, y)
    want_loss, want_grads = mlp_numpy(net, x.asnumpy(), y.asnumpy())
    np.testing.assert_allclose(value.asnumpy(), want_loss, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)
    # Sharded again: the new hints replace the old (one subclass per class).
    net.shard(((4, 1),))
    assert type(net).__mro__[1] is MLP
    np.testing.assert_allclose(loss_cell(x, y).asnumpy(), want_loss, rtol=1e-12)


def _product(a, b):
    return a * b + 1


def test_a_sharded_function(mode):
    f = ms.shard(_product, ((2, 1), None), out_strategy=((1, 2),))
    x, y = mlp_data(4, 6, 6)
    np.testing.assert_allclose(f(x, y).asnumpy(), x.asnumpy() * y.asnumpy() + 1, rtol=1e-15)


def test_the_errors(mode):
    net = MLP(5, 7, 3)
    x, _ = mlp_data(6, 5, 3)
    net.shard(((4, 1),))  # 6 rows in 4
    with pytest.raises(ValueError, match=r"For 'shard' \(.*test_shard.py:\d+\), in_strategy "
                                         r"\(4, 1\) does not divide the tensor's shape \(6, 5\)"):
        net(x)
    net.shard(((2, 1, 1),))
    with pytest.raises(ValueError, match=r"in_strategy \(2, 1, 1\) has 3 entries but the "
                                         r"tensor has shape \(6, 5\)"):
        net(x)
    with pytest.raises(TypeError, match="'in_strategy' must be a tuple"):
        net.shard([(2, 1)])
    with pytest.raises(ValueError, match="tuple of positive ints"):
        net.shard(((0, 1),))
    with pytest.raises(ValueError, match="'parameter_plan' is not built"):
        net.shard(((2, 1),), parameter_plan={"w1": (1, 2)})
    with pytest.raises(TypeError, match="'fn' must be a Cell or a function"):
        ms.shard(3, ((1,),))


WORKER = textwrap.dedent("""
    import json, sys
    import mycel as ms
    from mycel import nn
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context, reset_auto_parallel_context, search

    sys.path.insert(0, sys.argv[2])
    from spmd_check import compare, train_record
    from auto_parallel_nets import MLP, mlp_data
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    search.set_profile(search.load_profile(sys.argv[2] + "/../golden/parallel/profile.json"))


    def run(sharded):
        net = MLP(6, 16, 4)
        if sharded:
            net.shard(((n, 1),))
        return train_record(net, nn.WithLossCell(net, nn.MSELoss()), mlp_data(8, 6, 4))


    serial = run(False)
    out = {}
    for mode in ("auto_parallel", "semi_auto_parallel"):
        set_auto_parallel_context(parallel_mode=mode, search_mode="sharding_propagation",
                                  device_num=n, full_batch=True)
        par = run(True)
        reset_auto_parallel_context()
        diffs, sliced = compare(serial, par, rank)
        out[mode] = {"diffs": diffs, "sliced": sliced,
                     "plan": search.last_plan() if mode == "auto_parallel" else ""}
    print("RESULT", json.dumps(out))
""")


@pytest.mark.parametrize("n", [2, 4])
def test_a_sharded_input_trains_equal_to_the_serial_run(tmp_path, n):
    for kind, r in run_worker(tmp_path, WORKER, n, "mlp", timeout=300):
        assert kind == "RESULT"
        for mode, res in r.items():
            for what, d in res["diffs"].items():
                assert d <= 1e-10, (mode, what, d)
        plan = r["auto_parallel"]["plan"]
        # The hint is the user's op; the search propagated its rows split to both MatMuls.
        assert f"Reshape [8,6] (({n}, 1),) user" in plan, plan
        assert f"MatMul [8,6] [6,16] (({n}, 1), (1, 1))" in plan, plan
        assert f"MatMul [8,16] [16,4] (({n}, 1), (1, 1))" in plan, plan
