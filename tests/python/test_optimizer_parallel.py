"""Optimizer parallelism (enable_parallel_optimizer=True in data parallelism) on real ranks
(Gloo, loopback), float64, both context modes: 10 steps of Momentum and of Adam equal plain
data parallelism (which all-reduces whole gradients and keeps whole state) to 1e-10, on 2
and 4 ranks; each rank's optimizer state is 1/N of the replicated state for the
parameters whose dimension 0 divides by N, whole for the others (measured in bytes).
Optimizers whose update is not elementwise are refused."""
import json
import textwrap

import numpy as np
import pytest

from distributed import run_gloo

WORKER = textwrap.dedent("""
    import json, os, sys, traceback
    os.environ["MYCEL_COMM_TIMEOUT"] = "120"
    import numpy as np
    import mycel as ms
    from mycel import nn, Tensor
    from mycel.communication import init, release, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context
    from mycel.parallel.optimizer_shard import state_bytes

    out_dir, mode, opt_name = sys.argv[1], sys.argv[2], sys.argv[3]
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    rng = np.random.default_rng(7)
    X, Y = rng.standard_normal((8 * n, 12)), rng.standard_normal((8 * n, 3))
    rows = slice(rank * 8, (rank + 1) * 8)
    F64 = ms.float64


    def train(sharded):
        # Threshold 0 KB: these small parameters shard too (MindSpore's default is 64 KB).
        set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True,
                                  enable_parallel_optimizer=sharded,
                                  parallel_optimizer_config={"parallel_optimizer_threshold": 0})
        ms.set_seed(0)
        # Dense weights are (out, in): 16 rows divide by 2 and 4, 3 rows do not; the
        # biases (16,) divide, (3,) does not.
        net = nn.SequentialCell([nn.Dense(12, 16, dtype=F64), nn.Tanh(),
                                 nn.Dense(16, 3, dtype=F64)])
        params = net.trainable_params()
        if opt_name == "momentum":
            opt = nn.Momentum(params, 0.05, 0.9)
        else:
            opt = nn.Adam(params, 0.01)
        full = state_bytes(opt)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        losses = [float(step(Tensor(X[rows], F64), Tensor(Y[rows], F64)).asnumpy())
                  for _ in range(10)]
        per_param = {}
        for s in opt.get_parameters():
            i = getattr(s, "_state_of", None)
            if i is not None:
                per_param.setdefault(params[i].name, 0)
                per_param[params[i].name] += s.asnumpy().nbytes
        return {"losses": losses, "weights": {p.name: p.asnumpy().tolist() for p in params},
                "state_before": full, "state": state_bytes(opt), "per_param": per_param}


    out = {}
    try:
        out["plain"] = train(False)
        out["sharded"] = train(True)
        if rank == 0:
            set_auto_parallel_context(enable_parallel_optimizer=True)
            net = nn.WithLossCell(nn.Dense(4, 2, dtype=F64), nn.MSELoss())
            try:
                nn.TrainOneStepCell(net, nn.LARS(nn.Momentum(net.trainable_params(), 0.1,
                                                             0.9)))
            except ValueError as e:
                out["lars"] = str(e)
    except Exception:
        out["error"] = traceback.format_exc()
    release()
    with open(f"{out_dir}/result_{rank}.json", "w") as f:
        json.dump(out, f)
""")


@pytest.mark.parametrize("n,mode,opt", [(2, "graph", "momentum"), (2, "pynative", "adam"),
                                        (4, "graph", "adam"), (4, "pynative", "momentum")])
def test_sharded_optimizer_equals_data_parallel(tmp_path, n, mode, opt):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    runs = run_gloo(script, n, [tmp_path, mode, opt], timeout=300)
    for code, text in runs:
        assert code == 0, text[-3000:]
    results = [json.loads((tmp_path / f"result_{r}.json").read_text()) for r in range(n)]
    for r in results:
        assert "error" not in r, r["error"]
        plain, sharded = r["plain"], r["sharded"]
        np.testing.assert_allclose(sharded["losses"], plain["losses"], rtol=1e-10, atol=1e-12)
        for name, w in plain["weights"].items():
            np.testing.assert_allclose(sharded["weights"][name], w, rtol=1e-10, atol=1e-12,
                                       err_msg=name)
        # Memory: 1/N of the state of the parameters whose dimension 0 divides by N.
        for name, b in plain["per_param"].items():
            divides = name.startswith("0.")  # the (16, 12) weight and the (16,) bias
            assert sharded["per_param"][name] == (b // n if divides else b), name
        assert sharded["state_before"] == plain["state"]
        assert sharded["state"] < plain["state"]
    # Weights are equal on every rank (the all-gather put every rank's rows back).
    for r in results[1:]:
        assert r["sharded"]["weights"] == results[0]["sharded"]["weights"]
    assert "not elementwise" in results[0]["lars"]
