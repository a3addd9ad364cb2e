"""Distributed checkpoints (mycel.parallel.checkpoint) on real ranks (Gloo, loopback):

  1. a Megatron MLP trained 5 steps on 2 ranks (semi_auto_parallel) saves each rank's slices
     (integrated_save=False), a whole checkpoint (integrated_save=True: gathered, rank 0
     writes) and the strategy file;
  2. in this process (no job): load_distributed_checkpoint puts the 2 ranks' slices together
     into a stand-alone MLP, merge_sliced_parameter likewise, and both equal the integrated
     checkpoint and the serial run's 5 steps;
  3. on 4 ranks, with another strategy: rank 0 re-slices the 2-rank checkpoints for the
     4-rank layout (transform_checkpoints), every rank loads its file and trains 5 more steps:
     the result equals 10 serial steps (float64, 1e-10).
  4. on 2 ranks, a predict_strategy lays the checkpoints' weights out anew for prediction
     (w1 by rows, w2 by columns): each rank holds its block, and the forward of a network
     without strategies (its weights gathered where read) equals the serial one.
Then damaged and mismatched strategy files and checkpoints, and bad predict strategies,
are clear errors."""
import json
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor
from spmd_check import run_worker

COMMON = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Tensor, Parameter

    D, H, O, B = 6, 8, 4, 8
    rng = np.random.default_rng(3)
    W1, W2 = rng.standard_normal((D, H)), rng.standard_normal((H, O))
    X, Y = rng.standard_normal((B, D)), rng.standard_normal((B, O))


    class MLP(nn.Cell):
        def __init__(self, n=None):
            super().__init__()
            self.w1 = Parameter(Tensor(W1, ms.float64), name="w1")
            self.w2 = Parameter(Tensor(W2, ms.float64), name="w2")
            self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
            if n:
                self.mm1.shard(((1, 1), (1, n)))
                self.mm2.shard(((1, n), (n, 1)))

        def construct(self, x):
            return self.mm2(ops.tanh(self.mm1(x, self.w1)), self.w2)


    def train(net, steps):
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.SGD(net.trainable_params(), 0.1))
        for _ in range(steps):
            step(Tensor(X, ms.float64), Tensor(Y, ms.float64))
""")

WORKER = textwrap.dedent("""
    from mlp_common import *  # beside this script (the fixture writes it)
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context, transform_checkpoints
    from mycel.ops.operations.comm_ops import Barrier

    config = sys.argv[1]
    out = os.path.dirname(os.path.abspath(__file__))
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    kind = "_predict" if config == "predict" else ""
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                              full_batch=True, strategy_ckpt_config={
                                  "save_file": f"{out}/strategy_{n}{kind}.json"})
    net = MLP(None if config == "predict" else n)
    if config == "predict":  # the training slices laid out for prediction: w1 by rows now
        ms.load_distributed_checkpoint(
            net, [f"{out}/ckpt_2/rank_{r}/mlp.ckpt" for r in range(2)],
            predict_strategy={"w1": ([2], [[0], []]), "w2": ([2], [[], [0]])},
            train_strategy_filename=f"{out}/strategy_2.json")
        y = net(Tensor(X, ms.float64)).asnumpy()  # a program with no strategy of its own
        print("RESULT", json.dumps({"y": y.tolist(), "w1": net.w1.asnumpy().tolist(),
                                    "w2": net.w2.asnumpy().tolist()}))
    elif config == "save":
        train(net, 5)
        os.makedirs(f"{out}/ckpt_{n}/rank_{rank}", exist_ok=True)
        ms.save_checkpoint(net, f"{out}/ckpt_{n}/rank_{rank}/mlp.ckpt", integrated_save=False)
        ms.save_checkpoint(net, f"{out}/whole.ckpt")  # gathered; rank 0 writes
        print("RESULT", json.dumps({"w1": list(net.w1.shape)}))
    else:  # resume on this job's layout from the 2-rank checkpoints
        net(Tensor(X, ms.float64))  # compiles: the weights take their slices, the file its
        Barrier()()                 # layouts
        if rank == 0:
            transform_checkpoints(f"{out}/ckpt_2", f"{out}/ckpt_{n}", "mlp",
                                  f"{out}/strategy_2.json", f"{out}/strategy_{n}.json")
        Barrier()()
        mine = ms.load_checkpoint(f"{out}/ckpt_{n}/rank_{rank}/mlp{rank}.ckpt")
        ms.load_param_into_net(net, mine)
        train(net, 5)
        print("RESULT", json.dumps({"w1": net.w1.asnumpy().tolist(),
                                    "w2": net.w2.asnumpy().tolist(),
                                    "layout": [list(net.w1._spmd_layout[0]),
                                               net.w1._spmd_layout[1]]}))
""")


def _common(tmp):
    """The network and data module (COMMON), importable from `tmp`."""
    import importlib
    import sys
    (tmp / "mlp_common.py").write_text(COMMON)
    if str(tmp) not in sys.path:
        sys.path.insert(0, str(tmp))
    return importlib.import_module("mlp_common")


def _serial(steps):
    common = _common_module[0]
    net = common.MLP()
    common.train(net, steps)
    return net


_common_module = []


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dckpt")
    _common_module[:] = [_common(tmp)]
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        res = run_worker(tmp, WORKER, 2, "save")
        assert [r["w1"] for _, r in res] == [[6, 4], [6, 4]]  # each rank held half of w1
        yield tmp, _serial(5), _serial(10)
    finally:
        ms.set_context(mode=old)


def test_the_strategy_file_records_the_layouts(saved):
    tmp, _, _ = saved
    data = json.loads((tmp / "strategy_2.json").read_text())
    assert data["device_num"] == 2 and data["format"] == "mycel-strategy"
    layouts = ms.build_searched_strategy(str(tmp / "strategy_2.json"))
    assert layouts["w1"].global_shape == [6, 8] and layouts["w1"].tensor_map == [[], [0]]
    assert layouts["w2"].tensor_map == [[0], []]


def test_load_and_merge_give_the_serial_weights(saved):
    tmp, serial5, _ = saved
    files = [str(tmp / f"ckpt_2/rank_{r}/mlp.ckpt") for r in range(2)]
    net = _common_module[0].MLP()
    not_loaded = ms.load_distributed_checkpoint(net, files, train_strategy_filename=str(
        tmp / "strategy_2.json"))
    assert not_loaded == ([], [])
    whole = ms.load_checkpoint(str(tmp / "whole.ckpt"))
    strategy = ms.build_searched_strategy(str(tmp / "strategy_2.json"))
    for name in ("w1", "w2"):
        want = getattr(serial5, name).asnumpy()
        np.testing.assert_allclose(getattr(net, name).asnumpy(), want, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(whole[name].asnumpy(), want, rtol=1e-10, atol=1e-10)
        parts = [ms.load_checkpoint(f)[name] for f in files]
        merged = ms.merge_sliced_parameter(parts, strategy)
        np.testing.assert_allclose(merged.asnumpy(), want, rtol=1e-10, atol=1e-10)


def test_resharded_checkpoints_resume_on_four_ranks(saved):
    tmp, _, serial10 = saved
    got = [r for _, r in run_worker(tmp, WORKER, 4, "resume")]
    for rank, r in enumerate(got):  # each rank holds its block of the serial weights
        assert r["layout"] == [[4], [[], [0]]]  # w1 split over 4 now (2 in the checkpoints)
        w1 = serial10.w1.asnumpy()[:, rank * 2:(rank + 1) * 2]
        w2 = serial10.w2.asnumpy()[rank * 2:(rank + 1) * 2, :]
        np.testing.assert_allclose(np.array(r["w1"]), w1, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(np.array(r["w2"]), w2, rtol=1e-10, atol=1e-10)


def test_a_predict_strategy_lays_the_weights_out_for_prediction(saved):
    tmp, serial5, _ = saved
    want = serial5(Tensor(_common_module[0].X, ms.float64)).asnumpy()
    for rank, (_, r) in enumerate(run_worker(tmp, WORKER, 2, "predict")):
        # Each rank holds its block of the predict layout (w1's rows, w2's columns), and
        # the prediction program gathers what it reads: the serial network's output.
        np.testing.assert_allclose(np.array(r["w1"]), serial5.w1.asnumpy()[rank * 3:
                                                                          (rank + 1) * 3],
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(np.array(r["w2"]), serial5.w2.asnumpy()[:, rank * 2:
                                                                          (rank + 1) * 2],
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(np.array(r["y"]), want, rtol=1e-10, atol=1e-10)


def test_bad_files_are_clear_errors(saved, tmp_path):
    tmp, _, _ = saved
    files = [str(tmp / f"ckpt_2/rank_{r}/mlp.ckpt") for r in range(2)]
    net = _serial(0)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not a strategy file"):
        ms.load_distributed_checkpoint(net, files, train_strategy_filename=str(bad))
    bad.write_text(json.dumps({"format": "mycel-strategy", "version": 9, "parameters": {}}))
    with pytest.raises(ValueError, match="version 9"):
        ms.build_searched_strategy(str(bad))
    with pytest.raises(ValueError, match="for 2 devices, but 1 checkpoints"):
        ms.load_distributed_checkpoint(net, files[:1], train_strategy_filename=str(
            tmp / "strategy_2.json"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_distributed_checkpoint(net, [str(tmp_path / "nope.ckpt")])
    # Without the strategy, slices of different values are not mistaken for a whole tensor.
    with pytest.raises(ValueError, match="rank 1 holds a different value"):
        ms.load_distributed_checkpoint(net, files)
    strategy = str(tmp / "strategy_2.json")
    with pytest.raises(ValueError, match="predict_strategy names 'w9', which is not a "
                                         "parameter"):
        ms.load_distributed_checkpoint(net, files, {"w9": ([1], [[]])},
                                       train_strategy_filename=strategy)
    with pytest.raises(ValueError, match=r"the predict_strategy of 'w1' must be a layout "
                                         r"\(device_matrix, tensor_map\) over the job's 1 "
                                         r"devices"):
        ms.load_distributed_checkpoint(net, files, {"w1": ([2], [[0], []])},
                                       train_strategy_filename=strategy)
    with pytest.raises(TypeError, match="'predict_strategy' must be a dict"):
        ms.load_distributed_checkpoint(net, files, [("w1", ([1], [[], []]))],
                                       train_strategy_filename=strategy)
    with pytest.raises(ValueError, match="For 'load_distributed_checkpoint', 'dec_key' must be "
                                         "16 or 24 or 32 bytes long"):
        ms.load_distributed_checkpoint(net, files, dec_key=b"k")
    with pytest.raises(ValueError, match="'dec_mode' must be one of"):
        ms.load_distributed_checkpoint(net, files, dec_key=bytes(16), dec_mode="ECB")
    p = Parameter(Tensor(np.ones((2, 3))), name="w1")
    with pytest.raises(ValueError, match="no layout for 'w1'"):
        ms.merge_sliced_parameter([p, p], {})
