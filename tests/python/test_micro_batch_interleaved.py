"""nn.MicroBatchInterleaved (MindSpore's): the batch split along axis 0 into interleave_num
slices, the network run on each, the outputs summed.

- PYNATIVE and GRAPH mode, float64: the loss and every gradient of an MLP's mean-MSE loss
  through MicroBatchInterleaved equal numpy's sum over the slices (the forward and the
  backward written out by hand), to 1e-12;
- the errors: a batch that is not a multiple, a bad interleave_num, a network that is not a
  Cell;
- semi_auto_parallel on 2 and 4 Gloo ranks (a Megatron MLP, column then row split, inside
  MicroBatchInterleaved): the loss, every gradient slice and 10 Momentum steps equal the
  serial run of the same wrapper to 1e-10."""
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import nn
from auto_parallel_nets import MLP, mlp_data, mlp_numpy
from spmd_check import run_worker


@pytest.mark.parametrize("k", [1, 2, 4])
def test_the_slices_outputs_are_summed(mode, k):
    net = MLP(5, 7, 3)
    loss_cell = nn.WithLossCell(net, nn.MSELoss())
    x, y = mlp_data(8, 5, 3)
    inter = nn.MicroBatchInterleaved(loss_cell, interleave_num=k)
    value, grads = ms.value_and_grad(inter, None, net.trainable_params())(x, y)
    xs, ys = x.asnumpy(), y.asnumpy()
    want_loss, want_grads = 0.0, [0.0] * 4
    for i in range(k):
        rows = slice(i * 8 // k, (i + 1) * 8 // k)
        loss, g = mlp_numpy(net, xs[rows], ys[rows])
        want_loss += loss
        want_grads = [a + b for a, b in zip(want_grads, g)]
    np.testing.assert_allclose(value.asnumpy(), want_loss, rtol=1e-12, atol=1e-12)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)


def test_the_errors(mode):
    loss_cell = nn.WithLossCell(MLP(5, 7, 3), nn.MSELoss())
    x, y = mlp_data(6, 5, 3)
    with pytest.raises(ValueError, match=r"For 'MicroBatchInterleaved', the batch size 6 of an "
                                         r"input of shape \(6, 5\) is not a multiple of "
                                         r"interleave_num 4"):
        nn.MicroBatchInterleaved(loss_cell, 4)(x, y)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="'interleave_num' must be a positive int"):
            nn.MicroBatchInterleaved(loss_cell, bad)
    with pytest.raises(TypeError, match="'network' must be a Cell"):
        nn.MicroBatchInterleaved(lambda a: a, 2)
    assert isinstance(nn.MicroBatchInterleaved(loss_cell), nn.Cell)  # interleave_num=2


WORKER = textwrap.dedent("""
    import json, sys
    import mycel as ms
    from mycel import nn
    from mycel.communication import init, get_rank, get_group_size
    from mycel.parallel import set_auto_parallel_context, reset_auto_parallel_context

    sys.path.insert(0, sys.argv[2])
    from spmd_check import compare, train_record
    from auto_parallel_nets import MLP, mlp_data
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()


    def run(sharded):
        net = MLP(6, 16, 4)
        if sharded:
            net.mm1.shard(((1, 1), (1, n)))
            net.mm2.shard(((1, n), (n, 1)))
        loss = nn.MicroBatchInterleaved(nn.WithLossCell(net, nn.MSELoss()), 2)
        return train_record(net, loss, mlp_data(8, 6, 4))


    serial = run(False)
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                              full_batch=True)
    par = run(True)
    reset_auto_parallel_context()
    diffs, sliced = compare(serial, par, rank)
    print("RESULT", json.dumps({"diffs": diffs, "sliced": sliced}))
""")


@pytest.mark.parametrize("n", [2, 4])
def test_sharded_interleaved_training_equals_the_serial_run(tmp_path, n):
    for kind, r in run_worker(tmp_path, WORKER, n, "mlp", timeout=300):
        assert kind == "RESULT"
        for what, d in r["diffs"].items():
            assert d <= 1e-10, (what, d)
        assert r["sliced"] == ["w1", "b1", "w2"], r["sliced"]

