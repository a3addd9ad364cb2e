"""Pipeline parallelism (nn.PipelineCell, Cell.pipeline_stage, pipeline_stages,
pipeline_config) on real ranks (Gloo, loopback), float64. Each rank first runs the serial
network (stand-alone) on the whole batch as the oracle, then the pipelined one: 2 stages x
4 micro-batches on 2 ranks (and 2 stages x 2 data-parallel ranks on 4), an MLP and LeNet,
both schedules, both context modes: the loss, every gradient of the rank's stage and 10
Momentum steps equal the serial run to 1e-10. The recorded events show the schedule's order
(GPipe: all forwards first; 1F1B: at most S micro-batches in flight on the first stage).
Without processes: the schedules' properties for S up to 4 and M up to 8, and the API's
errors."""
import json
import textwrap

import numpy as np
import pytest

import mycel as ms

from distributed import run_gloo

WORKER = textwrap.dedent("""
    import json, os, sys, traceback
    os.environ["MYCEL_COMM_TIMEOUT"] = "120"
    import numpy as np
    import mycel as ms
    from mycel import nn, Tensor
    from mycel.communication import init, release, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context

    out_dir, kind, scheduler, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    rng = np.random.default_rng(3)
    if kind == "mlp":
        X, Y = rng.standard_normal((16, 12)), rng.standard_normal((16, 4))
    else:
        X = rng.standard_normal((8, 1, 28, 28))
        Y = rng.integers(0, 10, (8,)).astype(np.int32)
    F64 = ms.float64


    def backbone():
        ms.set_seed(0)
        if kind == "mlp":
            cells = [nn.Dense(12, 16, dtype=F64), nn.Tanh(), nn.Dense(16, 16, dtype=F64),
                     nn.Tanh(), nn.Dense(16, 16, dtype=F64), nn.Tanh(),
                     nn.Dense(16, 4, dtype=F64)]
            cut = 3
        else:  # LeNet as a chain of cells
            cells = [nn.Conv2d(1, 6, 5, pad_mode="valid", dtype=F64), nn.ReLU(),
                     nn.MaxPool2d(kernel_size=2, stride=2),
                     nn.Conv2d(6, 16, 5, pad_mode="valid", dtype=F64), nn.ReLU(),
                     nn.MaxPool2d(kernel_size=2, stride=2), nn.Flatten(),
                     nn.Dense(256, 120, dtype=F64), nn.ReLU(), nn.Dense(120, 84, dtype=F64),
                     nn.ReLU(), nn.Dense(84, 10, dtype=F64)]
            cut = 6
        for i, c in enumerate(cells):
            c.pipeline_stage = 0 if i < cut else 1
        return nn.SequentialCell(cells)


    def loss_fn():
        if kind == "mlp":
            return nn.MSELoss()
        return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


    def inputs():
        return Tensor(X, F64), Tensor(Y, F64 if kind == "mlp" else ms.int32)


    out = {}
    try:
        # The oracle: the serial network on the whole batch.
        net = nn.WithLossCell(backbone(), loss_fn())
        weights = net.trainable_params()
        loss, grads = ms.value_and_grad(net, None, weights)(*inputs())
        serial = {"loss": float(loss.asnumpy()),
                  "grads": {p.name: g.asnumpy().tolist() for p, g in zip(weights, grads)}}
        step = nn.TrainOneStepCell(net, nn.Momentum(weights, 0.05, 0.9))
        serial["losses"] = [float(step(*inputs()).asnumpy()) for _ in range(10)]
        serial["weights"] = {p.name: p.asnumpy().tolist() for p in weights}

        set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                                  pipeline_config={"pipeline_scheduler": scheduler},
                                  pipeline_result_broadcast=True)
        pc = nn.PipelineCell(nn.WithLossCell(backbone(), loss_fn()), 4)
        mine = pc.trainable_params()
        pc._build(inputs())
        micro = pc._micro(inputs())
        loss, grads = pc._runner.step([m[0] for m in micro], [m[1] for m in micro])
        got = {"stage": pc.stage, "events": [e[:2] for e in pc.events],
               "grads": {p.name: g.asnumpy().tolist() for p, g in zip(pc._runner.weights,
                                                                      grads)}}
        got["forward"] = float(pc(*inputs()).asnumpy())
        step = nn.TrainOneStepCell(pc, nn.Momentum(mine, 0.05, 0.9))
        got["losses"] = [float(step(*inputs()).asnumpy()) for _ in range(10)]
        got["weights"] = {p.name: p.asnumpy().tolist() for p in mine}
        # Each stage saves its own parameters only (the other stages' copies here are
        # stale); the integrated save, one file for all, is refused.
        ms.save_checkpoint(pc, f"{out_dir}/stage_{rank}.ckpt", integrated_save=False)
        try:
            ms.save_checkpoint(pc, f"{out_dir}/all_{rank}.ckpt")
            got["integrated"] = "saved"
        except ValueError as e:
            got["integrated"] = str(e)
        set_auto_parallel_context(pipeline_result_broadcast=False)
        got["unbroadcast"] = float(pc(*inputs()).asnumpy())
        out = {"serial": serial, "pipeline": got}
    except Exception:
        out["error"] = traceback.format_exc()
    release()
    with open(f"{out_dir}/result_{rank}.json", "w") as f:
        json.dump(out, f)
""")


def _run(tmp_path, n, kind, scheduler, mode):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    runs = run_gloo(script, n, [tmp_path, kind, scheduler, mode], timeout=300)
    for code, text in runs:
        assert code == 0, text[-3000:]
    results = [json.loads((tmp_path / f"result_{r}.json").read_text()) for r in range(n)]
    for r in results:
        assert "error" not in r, r["error"]
    return results


def _check(results, scheduler, checkpoints):
    """Every rank's loss, gradients and trained weights equal the serial run; the events
    follow the schedule."""
    seen = set()
    for r in results:
        serial, got = r["serial"], r["pipeline"]
        assert got["grads"], "a stage without parameters"
        for name, g in got["grads"].items():
            np.testing.assert_allclose(g, serial["grads"][name], rtol=1e-10, atol=1e-10,
                                       err_msg=name)
            seen.add(name)
        np.testing.assert_allclose(got["losses"], serial["losses"], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got["forward"], serial["losses"][0], rtol=1e-10)
        # Without pipeline_result_broadcast only the last stage has the loss.
        assert (got["unbroadcast"] == 0) == (got["stage"] == 0)
        for name, w in got["weights"].items():
            np.testing.assert_allclose(w, serial["weights"][name], rtol=1e-10, atol=1e-10,
                                       err_msg=name)
        assert "integrated_save=False" in got["integrated"], got["integrated"]
        _check_order(got["events"], got["stage"], 2, 4, scheduler)
    assert seen == set(results[0]["serial"]["grads"]), "every parameter is on some stage"
    # The stages' checkpoints hold their own trained parameters: together, the serial ones.
    saved = {}
    for rank, r in enumerate(results):
        ckpt = ms.load_checkpoint(str(checkpoints / f"stage_{rank}.ckpt"))
        assert set(ckpt) == set(r["pipeline"]["weights"]), (rank, sorted(ckpt))
        saved.update({k: v.asnumpy() for k, v in ckpt.items()})
    serial = results[0]["serial"]["weights"]
    assert set(saved) == set(serial)
    for name, w in saved.items():
        np.testing.assert_allclose(w, serial[name], rtol=1e-10, atol=1e-10, err_msg=name)


def _check_order(events, stage, stages, micro, scheduler):
    kinds = [k for k, _ in events]
    assert sorted(map(tuple, events)) == sorted([("F", i) for i in range(micro)] +
                                                [("B", i) for i in range(micro)])
    if scheduler == "gpipe":
        assert kinds == ["F"] * micro + ["B"] * micro
    else:
        flight = np.cumsum([1 if k == "F" else -1 for k in kinds])
        assert flight.max() == stages - stage  # warm-up fills, 1F1B keeps it there
        assert kinds[:stages - stage] == ["F"] * (stages - stage)


@pytest.mark.parametrize("scheduler", ["1f1b", "gpipe"])
@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_mlp_two_stages_equals_serial(tmp_path, scheduler, mode):
    _check(_run(tmp_path, 2, "mlp", scheduler, mode), scheduler, tmp_path)


@pytest.mark.parametrize("scheduler", ["1f1b", "gpipe"])
def test_lenet_two_stages_equals_serial(tmp_path, scheduler):
    _check(_run(tmp_path, 2, "lenet", scheduler, "graph"), scheduler, tmp_path)


@pytest.mark.parametrize("kind", ["mlp", "lenet"])
def test_two_stages_times_two_data_parallel_equals_serial(tmp_path, kind):
    results = _run(tmp_path, 4, kind, "1f1b", "graph")
    assert [r["pipeline"]["stage"] for r in results] == [0, 0, 1, 1]
    _check(results, "1f1b", tmp_path)


# Without processes.

def test_schedules_run_each_micro_batch_once_and_bound_the_stash():
    from mycel.parallel.pipeline import schedule
    for stages in range(1, 5):
        for micro in range(stages, 9):
            for s in range(stages):
                for kind in ("gpipe", "1f1b"):
                    order = schedule(kind, stages, s, micro)
                    assert sorted(order) == sorted([("F", i) for i in range(micro)] +
                                                   [("B", i) for i in range(micro)])
                    done = set()
                    for k, i in order:  # a backward follows its forward; in order
                        assert k == "F" or ("F", i) in done
                        done.add((k, i))
                    flight = np.cumsum([1 if k == "F" else -1 for k, _ in order]).max()
                    assert flight == (micro if kind == "gpipe" else stages - s)


def test_bubble_formula():
    from mycel.parallel.pipeline import bubble
    # Two stages, unit-time forward and backward, GPipe's timeline for M = 2.
    events = {0: [("F", 0, 0, 1), ("F", 1, 1, 2), ("B", 0, 4, 5), ("B", 1, 5, 6)],
              1: [("F", 0, 1, 2), ("F", 1, 2, 3), ("B", 0, 3, 4), ("B", 1, 4, 5)]}
    idle, ideal = bubble(events, 2, 2)
    assert ideal == pytest.approx(1 / 3)
    assert idle == {0: pytest.approx(1 / 3), 1: pytest.approx(1 / 3)}


@pytest.fixture
def pipeline_context():
    from mycel.parallel import reset_auto_parallel_context
    yield
    reset_auto_parallel_context()


def _net(stages=(0, 1)):
    from mycel import nn
    cells = [nn.Dense(4, 4), nn.Dense(4, 2)]
    for c, s in zip(cells, stages):
        if s is not None:
            c.pipeline_stage = s
    return nn.WithLossCell(nn.SequentialCell(cells), nn.MSELoss())


def test_api_errors(pipeline_context):
    from mycel import nn
    from mycel.parallel import set_auto_parallel_context
    with pytest.raises(TypeError, match="pipeline_stage"):
        nn.Dense(2, 2).pipeline_stage = 1.0
    with pytest.raises(ValueError, match="at least 0"):
        nn.Dense(2, 2).pipeline_stage = -1
    with pytest.raises(ValueError, match="pipeline_scheduler"):
        set_auto_parallel_context(pipeline_config={"pipeline_scheduler": "zb"})
    with pytest.raises(ValueError, match="pipeline_config"):
        set_auto_parallel_context(pipeline_config={"stages": 2})
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                              device_num=2)
    with pytest.raises(ValueError, match=r"'micro_size' \(1\) must be at least "
                                         r"pipeline_stages \(2\)"):
        nn.PipelineCell(_net(), 1)
    with pytest.raises(ValueError, match="pipeline_stage 2 of cell '1' is out of range"):
        nn.PipelineCell(_net((0, 2)), 4)
    with pytest.raises(ValueError, match="parameter '0.weight' .* has no pipeline_stage"):
        nn.PipelineCell(_net((None, 1)), 4)
    with pytest.raises(TypeError, match="nn.WithLossCell"):
        nn.PipelineCell(nn.Dense(2, 2), 4)
    set_auto_parallel_context(pipeline_stages=3, device_num=4)
    with pytest.raises(ValueError, match=r"pipeline_stages \(3\) must divide the device "
                                         r"number \(4\)"):
        nn.PipelineCell(_net((0, 2)), 4)
    set_auto_parallel_context(parallel_mode="stand_alone", pipeline_stages=2, device_num=2)
    with pytest.raises(ValueError, match="semi_auto_parallel"):
        nn.PipelineCell(_net(), 4)


def test_split_errors(pipeline_context):
    """One stage in one process: the chain's rules and the batch check."""
    import mycel as ms
    from mycel import nn, ops, Tensor

    class Skip(nn.Cell):  # an op between the cells: not a chain
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Dense(4, 4), nn.Dense(4, 2)

        def construct(self, x):
            return self.b(ops.tanh(self.a(x)))

    net = Skip()
    net.pipeline_stage = 0
    net.a.pipeline_stage = 0
    pc = nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss()), 2)
    x, y = Tensor(np.ones((4, 4), np.float32)), Tensor(np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="cell 'b' .* is not given the output"):
        pc(x, y)
    pc = nn.PipelineCell(_net((0, 0)), 3)
    with pytest.raises(ValueError, match=r"batch size 4 .* not a multiple of micro_size \(3\)"):
        pc(x, y)
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_replay_of_equal_stages_gives_the_ideal_bubble():
    """Unit-time forwards and backwards on every stage, replayed through either schedule:
    the bubble is exactly (S-1)/(M+S-1) on every stage, and GPipe's and 1F1B's spans agree."""
    from mycel.parallel.pipeline import bubble, replay, schedule
    for stages in (2, 3, 4):
        for micro in (stages, 2 * stages, 8):
            for kind in ("gpipe", "1f1b"):
                flat = {s: [(k, i, 0.0, 1.0 if k == "F" else 2.0)
                            for k, i in schedule(kind, stages, s, micro)]
                        for s in range(stages)}
                idle, ideal = bubble(replay(flat, stages, micro, kind), stages, micro)
                for s in range(stages):
                    assert idle[s] == pytest.approx(ideal), (kind, stages, micro, s)
