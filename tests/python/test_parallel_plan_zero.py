"""The strategy search costs the optimizer shard (issue #18: enable_parallel_optimizer,
ZeRO-3, search.h): on 2 Gloo ranks (loopback, GRAPH mode, float64) an auto_parallel MLP is
planned and rewritten with the optimizer shard, and the plan's predicted collectives (how
many AllGathers and ReduceScatters, the bytes of their inputs on one device) equal those of
the rewritten program (its IR, MYCEL_DUMP_IR, the last pass), and the weights' bytes it
predicts per device equal what the rank's Parameters hold. Two plans: the search's own
(Megatron: the MatMul weights split, so only the biases are sharded; Add's bprop does not
read the bias, so no second gather) and the user's data parallelism (every weight whole, so
every weight sharded; the second MatMul's bprop reads w2 for the gradient of h, so the
backward gathers w2 again, while x, the first MatMul's other input, wants no gradient, so w1
is gathered once). And a parameter_plan (Cell.shard) is costed as the layout the weight
holds: the plan's weight bytes equal the Parameters' where the plan keeps a weight whole
that the search alone splits."""
import textwrap

from spmd_check import run_worker

WORKER = textwrap.dedent("""
    import glob, json, os, re, sys
    sys.path.insert(0, sys.argv[2])
    from spmd_check import graph_job
    import mycel as ms
    from mycel import nn
    from mycel.parallel import set_auto_parallel_context, search
    from auto_parallel_nets import MLP, mlp_data

    rank, n = graph_job()
    BYTES = {"f64": 8, "f32": 4}


    def collectives(folder):
        # (count, input bytes on this rank) of the AllGathers and ReduceScatters of the last
        # pass's IR.
        last = sorted(glob.glob(os.path.join(folder, "*.ir")))[-1]
        out = {"AllGather": [0, 0], "ReduceScatter": [0, 0]}
        for kind, size, dtype, dims in re.findall(
                r"= (AllGather|ReduceScatter)\\{[^}]*rank_size=(\\d+)[^}]*\\}\\([^)]*\\) : "
                r"(f64|f32)\\[([0-9, ]*)\\]", open(last).read()):
            elems = 1
            for d in dims.split(","):
                elems *= int(d)
            b = elems * BYTES[dtype]
            out[kind][0] += 1
            out[kind][1] += b // int(size) if kind == "AllGather" else b * int(size)
        return out


    res = {}
    for config in ("search", "user_dp", "parameter_plan"):
        set_auto_parallel_context(parallel_mode="auto_parallel", device_num=n,
                                  search_mode="dynamic_programming", full_batch=True,
                                  enable_parallel_optimizer=config != "parameter_plan",
                                  parallel_optimizer_config={"parallel_optimizer_threshold": 0})
        net = MLP(16, 32, 8)
        if config == "user_dp":
            net.mm1.shard(((n, 1), (1, 1)))
            net.mm2.shard(((n, 1), (1, 1)))
        if config == "parameter_plan":
            # w1 kept whole where the search alone splits it by columns (Megatron).
            net.shard(((1, 1),), parameter_plan={"w1": (1, 1)})
        step = ms.value_and_grad(nn.WithLossCell(net, nn.MSELoss()), None,
                                 net.trainable_params())
        folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"ir_{config}_{rank}")
        os.environ["MYCEL_DUMP_IR"] = folder
        step(*mlp_data(4096, 16, 8))
        del os.environ["MYCEL_DUMP_IR"]
        plan = search.last_plan_details()
        res[config] = {"plan": plan, "ir": collectives(folder),
                       "held": sum(p.nbytes for p in net.trainable_params()),
                       "sharded": sorted(p.name for p in net.trainable_params()
                                         if getattr(p, "_spmd_opt_axes", None)),
                       "sliced": sorted(p.name for p in net.trainable_params()
                                        if getattr(p, "_spmd_layout", None) is not None)}
        set_auto_parallel_context(parallel_mode="stand_alone", enable_parallel_optimizer=False)
    print("RESULT", json.dumps(res))
""")


def test_the_plan_s_optimizer_shard_equals_the_rewritten_program(tmp_path):
    for kind, r in run_worker(tmp_path, WORKER, 2, "zero", timeout=600):
        assert kind == "RESULT", r
        for config, sharded, regathered in (("search", ["b1", "b2"], []),
                                            ("user_dp", ["b1", "b2", "w1", "w2"], ["w2"])):
            c = r[config]
            z, ir = c["plan"]["optimizer_shard"], c["ir"]
            assert c["sharded"] == sharded, c
            assert z["weights"] == len(sharded), c
            assert [z["all_gathers"], z["all_gather_bytes"]] == ir["AllGather"], c
            assert [z["reduce_scatters"], z["reduce_scatter_bytes"]] == ir["ReduceScatter"], c
            assert z["all_gathers"] == len(sharded) + len(regathered), c
            assert z["reduce_scatters"] == len(sharded), c
            # Memory: the weights each rank holds between steps, predicted and measured.
            assert c["plan"]["weight_bytes"] == c["held"], c
            assert c["plan"]["optimizer_shard_ms"] > 0, c
            assert {"AllGather (optimizer shard)", "ReduceScatter (optimizer shard)"} <= set(
                c["plan"]["collectives_ms"]), c
        # A parameter_plan is costed: the plan holds w1 whole, as the rewrite does (the
        # search alone splits it: "search" above, where w1 holds half).
        c = r["parameter_plan"]
        assert "w1" not in c["sliced"] and "w1" in r["search"]["sliced"], (c, r["search"])
        assert c["plan"]["weight_bytes"] == c["held"], c
        assert c["plan"]["optimizer_shard"]["weights"] == 0, c
        # Data parallelism with every weight sharded over 2 ranks: half the weights' bytes.
        whole = (16 * 32 + 32 + 32 * 8 + 8) * 8
        assert r["user_dp"]["held"] == whole // 2, r["user_dp"]
