"""Data-parallel LeNet-5 on Fashion-MNIST: every process of the job trains on its shard of
each global batch, and the gradients are averaged over the processes before every update,
so the job trains one model as one process would on the global batch.

    python -m mycel.run --worker_num 2 --local_worker_num 2 examples/distributed/train_lenet.py

(`mpirun -n 2 /usr/bin/python3 examples/distributed/train_lenet.py` runs it on Open MPI.) Each
rank's log is in the launcher's log folder (worker_<rank>.log); rank 0 evaluates on the test
set after every epoch and saves the checkpoint.

Options: --epochs N (2), --batch-size N (global, 64), --mode graph|pynative, --lr F (0.01),
--momentum F (0.9), --data DIR, --out DIR, --seed N.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, ".."))
import mycel as ms  # noqa: E402
from mycel import nn  # noqa: E402
from mycel.communication import init, get_rank, get_group_size, release  # noqa: E402
from mycel.dataset import FashionMnistDataset, transforms, vision  # noqa: E402
from mycel.train import Callback, Model  # noqa: E402
from lenet import LeNet5  # noqa: E402


def dataset(data_dir, usage, batch_size, shuffle, whole=False):
    """Fashion-MNIST batches; in data parallelism a training set reads this rank's shard
    (by default), `whole` reads every row (the test set, evaluated on one rank)."""
    shards = {"num_shards": 1, "shard_id": 0} if whole else {}
    ds = FashionMnistDataset(data_dir, usage=usage, shuffle=shuffle, **shards)
    ds = ds.map([vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize((0.2860,), (0.3530,)),
                 vision.HWC2CHW()], "image")
    ds = ds.map(transforms.TypeCast(ms.int32), "label")
    return ds.batch(batch_size, drop_remainder=True)


class Report(Callback):
    """Rank 0: test accuracy after every epoch and the training time."""

    def __init__(self, model, test):
        self.model, self.test, self.accuracy, self.train_time, self._t0 = model, test, 0.0, 0.0, 0

    def on_train_epoch_begin(self, run_context):
        self._t0 = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        self.train_time += time.perf_counter() - self._t0
        if get_rank() == 0:
            self.accuracy = self.model.eval(self.test)["accuracy"]
            epoch = run_context.original_args().cur_epoch_num
            print(f"  test accuracy after epoch {epoch}: {self.accuracy:.4f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--mode", choices=["graph", "pynative"], default="graph")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--out", default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    init()
    rank, size = get_rank(), get_group_size()
    if args.batch_size % size:
        sys.exit(f"--batch-size {args.batch_size} is not divisible by the {size} processes")
    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True, parameter_broadcast=True)
    ms.set_seed(args.seed + rank)            # each rank initialises differently ...
    ms.dataset.config.set_seed(args.seed)    # ... but all shuffle alike, so shards partition
    train = dataset(args.data, "train", args.batch_size // size, shuffle=True)
    test = dataset(args.data, "test", 1000, shuffle=False, whole=True)
    print(f"rank {rank}/{size}: LeNet-5 data parallel, {args.mode.upper()} mode, global batch "
          f"{args.batch_size} ({args.batch_size // size} per rank), {args.epochs} epochs",
          flush=True)

    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), args.lr, args.momentum)
    model = Model(net, nn.CrossEntropyLoss(), opt, metrics={"accuracy"})  # ... rank 0's wins
    report = Report(model, test)
    model.train(args.epochs, train, callbacks=[report])
    samples = args.epochs * train.get_dataset_size() * args.batch_size
    if rank == 0:
        out = args.out or tempfile.mkdtemp(prefix="mycel-dp-")
        os.makedirs(out, exist_ok=True)
        ckpt = os.path.join(out, "lenet5_dp.ckpt")
        ms.save_checkpoint(net, ckpt)
        print(f"summary: test accuracy {report.accuracy:.4f}, {samples / report.train_time:,.0f} "
              f"samples/s training over {size} processes, checkpoint {ckpt}", flush=True)
    release()


if __name__ == "__main__":
    main()
