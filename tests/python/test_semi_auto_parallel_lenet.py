"""Semi-automatic parallelism on LeNet (nn.Conv2d, nn.MaxPool2d, nn.Flatten, nn.Dense,
nn.SoftmaxCrossEntropyWithLogits), its layers' primitives sharded, on real ranks (Gloo,
loopback), in GRAPH mode and float64. Each rank first runs the serial network (stand-alone)
as the oracle, then the sharded one: the loss, every gradient (each rank's slice of it) and
10 Momentum steps must equal the serial run to 1e-10.

  model  (2 ranks) the first convolution split by output channels, the second by input
         channels (partial sums), the first Dense by output features, the second by input
         features (partial sums);
  dp_mp  (4 ranks, a 2 x 2 mesh) the same with the batch split too: data x model, each
         rank given only its quarter of the batch (the default dataset strategy)."""
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
    rng = np.random.default_rng(5)
    X = rng.standard_normal((8, 1, 28, 28))
    Y = rng.integers(0, 10, (8,)).astype(np.int32)
    INIT = None


    class LeNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", dtype=ms.float64)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", dtype=ms.float64)
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(16 * 4 * 4, 120, dtype=ms.float64)
            self.fc2 = nn.Dense(120, 84, dtype=ms.float64)
            self.fc3 = nn.Dense(84, 10, dtype=ms.float64)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.relu(self.fc1(self.flatten(x)))
            return self.fc3(self.relu(self.fc2(x)))


    def shard(net, d, m):
        # d data-parallel ways, m model-parallel ways.
        net.conv1.conv2d.shard(((d, 1, 1, 1), (m, 1, 1, 1)))     # output channels
        net.conv2.conv2d.shard(((d, m, 1, 1), (1, m, 1, 1)))     # input channels: partial
        net.fc1.matmul.shard(((d, 1), (m, 1)))                   # output features
        net.fc2.matmul.shard(((d, m), (1, m)))                   # input features: partial


    def run(sharded):
        global INIT
        ms.set_seed(0)
        net = LeNet()
        if INIT is None:
            INIT = [p.asnumpy() for p in net.trainable_params()]
        for p, v in zip(net.trainable_params(), INIT):
            p.set_data(Tensor(v, ms.float64))
        if sharded:
            shard(net, *{"model": (1, n), "dp_mp": (2, 2)}[config])
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                    reduction="mean"))
        rows = slice(None)
        if sharded and config == "dp_mp":  # this rank's rows (dataset_strategy data_parallel)
            assert dataset_shard() == (n, rank)  # what a data set reads here
            rows = slice(rank * 8 // n, (rank + 1) * 8 // n)
        x, y = Tensor(X[rows], ms.float64), Tensor(Y[rows])
        value, grads = ms.value_and_grad(loss, None, net.trainable_params())(x, y)
        step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.02, 0.9))
        losses = [float(step(x, y).asnumpy()) for _ in range(10)]
        return dict(loss=float(value.asnumpy()), grads=[g.asnumpy() for g in grads],
                    losses=losses, params=net.trainable_params())


    serial = run(False)
    # model: every rank is given the whole batch; dp_mp: its quarter of it (MindSpore's
    # default, full_batch=False, dataset_strategy "data_parallel").
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                              full_batch=config == "model")
    par = run(True)
    diffs, sliced = compare(serial, par, rank)
    print("RESULT", json.dumps({"diffs": diffs, "sliced": sliced,
                                "losses": serial["losses"]}))
""")


@pytest.mark.parametrize("n, config", [(2, "model"), (4, "dp_mp")])
def test_sharded_lenet_equals_the_serial_run(tmp_path, n, config):
    for kind, r in run_worker(tmp_path, WORKER, n, config, timeout=300):
        assert kind == "RESULT"
        for what, d in r["diffs"].items():
            assert d <= 1e-10, (what, d)
        # The convolutions' and the Dense layers' weights hold slices (and the biases added
        # to split activations).
        want = {"conv1.weight", "conv2.weight", "fc1.weight", "fc2.weight"}
        assert want <= set(r["sliced"]), r["sliced"]
        assert r["losses"][-1] < r["losses"][0]  # it trained
