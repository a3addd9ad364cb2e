"""mycel.shard(fn, in_strategy, out_strategy, parameter_plan) and Cell.shard (MindSpore 2.x's;
python/mycel/parallel/shard.py): layout hints on a Cell's or a function's inputs and outputs.

- stand-alone, PYNATIVE and GRAPH mode: a sharded MLP's output, loss and gradients equal
  numpy's (the hints change no value), also called inside another Cell (nn.WithLossCell);
  a sharded function likewise;
- the errors: a strategy that does not divide the tensor names the shard call's line;
  malformed strategies and parameter plans (unknown names, rows that do not fit);
- on 2 and 4 Gloo ranks, GRAPH mode, float64, the whole batch on every rank: the MLP with
  only ``net.shard(in_strategy=((n, 1),))`` (its input's rows split) trains equal to the
  serial run (loss, gradients, 10 Momentum steps, 1e-10) in auto_parallel with
  sharding_propagation, where the search propagates the rows split to both MatMuls (data
  parallelism), and in semi_auto_parallel, where the rewrite propagates it; and with only
  ``parameter_plan`` (w1 split by columns, w2 by rows) in semi_auto_parallel, Megatron
  from the weights' layouts, equal to the serial run."""
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
    # parameter_plan: names of the Cell's parameters, rows that fit them, before a compile.
    with pytest.raises(ValueError, match=r"'parameter_plan' names 'w9', which is not a "
                                         r"parameter of the MLP \(it has \['b1', 'b2', 'w1', "
                                         r"'w2'\]\)"):
        net.shard(((2, 1),), parameter_plan={"w9": (1, 2)})
    with pytest.raises(ValueError, match=r"test_shard.py:\d+\), the parameter_plan of "
                                         r"'self.w1' \(1, 2\) does not divide the tensor's "
                                         r"shape \(5, 7\)"):
        net.shard(((2, 1),), parameter_plan={"self.w1": (1, 2)})
    with pytest.raises(ValueError, match=r"the parameter_plan of 'b1' \(1, 1\) has 2 "
                                         r"entries but the tensor has shape \(7,\)"):
        net.shard(((2, 1),), parameter_plan={"b1": (1, 1)})
    with pytest.raises(ValueError, match="tuple of positive ints"):
        net.shard(((2, 1),), parameter_plan={"b1": (0,)})
    with pytest.raises(ValueError, match="must be a tuple of positive ints, but got None"):
        net.shard(((2, 1),), parameter_plan={"b1": None})
    with pytest.raises(TypeError, match="keys of 'parameter_plan' must be parameter names"):
        net.shard(((2, 1),), parameter_plan={1: (7,)})
    with pytest.raises(TypeError, match="'parameter_plan' must be a dict"):
        net.shard(((2, 1),), parameter_plan=[("b1", (7,))])
    assert getattr(net.b1, "_spmd_plan", None) is None  # nothing recorded by a failed call
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


    config = sys.argv[1]


    def run(sharded):
        net = MLP(6, 16, 4)
        if sharded and config == "plan":  # Megatron by the weights' own layouts only
            net.shard(((1, 1),), parameter_plan={"self.w1": (1, n), "w2": (n, 1)})
        elif sharded:
            net.shard(((n, 1),))
        return train_record(net, nn.WithLossCell(net, nn.MSELoss()), mlp_data(8, 6, 4))


    serial = run(False)
    out = {}
    for mode in (("semi_auto_parallel",) if config == "plan" else
                 ("auto_parallel", "semi_auto_parallel")):
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
def test_a_parameter_plan_lays_the_weights_out(tmp_path, n):
    # w1 split by columns and w2 by rows, no op sharded: the rewrite lays the weights out
    # first, the MatMuls and the bias Add propagate their splits (b1 takes its part), the
    # second MatMul's partial sums are all-reduced: Megatron, equal to the serial run.
    for kind, r in run_worker(tmp_path, WORKER, n, "plan", timeout=300):
        assert kind == "RESULT"
        res = r["semi_auto_parallel"]
        for what, d in res["diffs"].items():
            assert d <= 1e-10, (what, d)
        assert res["sliced"] == ["w1", "b1", "w2"], res["sliced"]


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
