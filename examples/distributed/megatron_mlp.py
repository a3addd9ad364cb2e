"""A Megatron-style MLP trained with semi-automatic parallelism (mycel's MindSpore-style
``Primitive.shard``): the first MatMul's weight split by columns over the ranks, the second's
by rows, so each rank holds 1/N of each weight and the partial sums of the second MatMul are
reduced by an AllReduce the compiler inserts. Every rank also trains the same network
unsharded (stand-alone) and the script checks that both give the same losses.

    python -m mycel.run --worker_num 2 --local_worker_num 2 examples/distributed/megatron_mlp.py
"""
import argparse

import numpy as np

import mycel as ms
from mycel import nn, ops, Parameter, Tensor
from mycel.communication import init, get_rank, get_group_size


class MLP(nn.Cell):
    def __init__(self, weights, n):
        super().__init__()
        w1, w2 = weights
        self.w1 = Parameter(Tensor(w1, ms.float32), name="w1")
        self.w2 = Parameter(Tensor(w2, ms.float32), name="w2")
        self.mm1, self.mm2, self.relu = ops.MatMul(), ops.MatMul(), ops.ReLU()
        if n > 1:
            self.mm1.shard(((1, 1), (1, n)))  # column split: h is split by columns
            self.mm2.shard(((1, n), (n, 1)))  # row split: partial sums, then an AllReduce

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


def train(n, weights, data, steps):
    net = MLP(weights, n)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    return [float(step(x, y).asnumpy()) for x, y in data[:steps]], net


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--hidden", type=int, default=512)
    a = p.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    rank, n = get_rank(), get_group_size()
    rng = np.random.default_rng(0)
    d_in, d_out = 64, 16
    weights = (rng.standard_normal((d_in, a.hidden)) * 0.1,
               rng.standard_normal((a.hidden, d_out)) * 0.1)
    data = [(Tensor(rng.standard_normal((32, d_in)), ms.float32),
             Tensor(rng.standard_normal((32, d_out)), ms.float32)) for _ in range(a.steps)]
    serial, _ = train(1, weights, data, a.steps)  # stand-alone: the reference
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                                 full_batch=True)
    sharded, net = train(n, weights, data, a.steps)
    diff = max(abs(s - p) / max(abs(s), 1e-12) for s, p in zip(serial, sharded))
    if rank == 0:
        print(f"rank 0 holds w1 {tuple(net.w1.shape)} of {weights[0].shape}, "
              f"w2 {tuple(net.w2.shape)} of {weights[1].shape}")
        print(f"loss {sharded[0]:.5f} -> {sharded[-1]:.5f} over {a.steps} steps; "
              f"largest relative difference from stand-alone training: {diff:.2e}")
    assert diff < 1e-4, diff


if __name__ == "__main__":
    main()
