"""`make demo`: trains LeNet-5 on the real Fashion-MNIST data with mycel, the MindSpore way.

The network (examples/lenet.py) trains with Momentum SGD and cross-entropy through
mycel.train.Model, in GRAPH mode by default (each training step is one compiled graph), with a
progress bar on a terminal. After every epoch it evaluates on the 10k test images. Then it saves
a checkpoint, exports the inference graph with its weights (MINDIR), loads the exported file
into an nn.GraphCell, checks that it predicts exactly what the network predicts, and prints a
summary.

Options: --epochs N (5), --batch-size N (64), --mode graph|pynative, --lr F (0.01),
--momentum F (0.9), --data DIR, --out DIR (checkpoint and export; default a temporary one),
--seed N, --device CPU|GPU (GPU: set_context(device_target="GPU"), a CUDA build and an
NVIDIA GPU).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import mycel as ms  # noqa: E402
from mycel import nn  # noqa: E402
import mycel.dataset  # noqa: E402,F401
from mycel.train import Callback, Model, ProgressBar  # noqa: E402
from lenet import LeNet5, fashion_mnist  # noqa: E402

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"


class EvalEveryEpoch(Callback):
    """Evaluates on the test set after every training epoch (outside the timed training)."""

    def __init__(self, model, dataset):
        self.model, self.dataset = model, dataset
        self.train_time, self.accuracy, self._t0 = 0.0, 0.0, 0.0

    def on_train_epoch_begin(self, run_context):
        self._t0 = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        self.train_time += time.perf_counter() - self._t0
        self.accuracy = self.model.eval(self.dataset)["accuracy"]
        epoch = run_context.original_args().cur_epoch_num
        print(f"  test accuracy after epoch {epoch}: {self.accuracy:.4f}", flush=True)


def predictions(predict, dataset):
    """Predicted classes of every test image, and the labels."""
    pred, labels = [], []
    for x, y in dataset.create_tuple_iterator(num_epochs=1):
        pred.append(predict(x).asnumpy().argmax(1))
        labels.append(y.asnumpy())
    return np.concatenate(pred), np.concatenate(labels)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--mode", choices=["graph", "pynative"], default="graph")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--out", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", choices=["CPU", "GPU"], default="CPU")
    args = ap.parse_args()

    t_start = time.perf_counter()
    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE,
                   device_target=args.device)
    ms.set_seed(args.seed)
    ms.dataset.config.set_seed(args.seed)
    train = fashion_mnist(args.data, "train", args.batch_size, shuffle=True)
    test = fashion_mnist(args.data, "test", 1000, shuffle=False)
    print(f"mycel {ms.__version__}: LeNet-5 on Fashion-MNIST ({args.data}), {args.mode.upper()} "
          f"mode on {args.device}, {args.epochs} epochs, batch {args.batch_size}, Momentum SGD lr {args.lr} "
          f"momentum {args.momentum}", flush=True)

    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), args.lr, args.momentum)
    model = Model(net, nn.CrossEntropyLoss(), opt, metrics={"accuracy"})
    evaluate = EvalEveryEpoch(model, test)
    model.train(args.epochs, train, callbacks=[ProgressBar(), evaluate])
    acc = evaluate.accuracy
    samples = args.epochs * train.get_dataset_size() * args.batch_size

    out = args.out or tempfile.mkdtemp(prefix="mycel-demo-")
    os.makedirs(out, exist_ok=True)
    ckpt = os.path.join(out, "lenet5.ckpt")
    ms.save_checkpoint(net, ckpt)
    twin = LeNet5()
    not_loaded, _ = ms.load_param_into_net(twin, ms.load_checkpoint(ckpt))
    assert not not_loaded, f"checkpoint misses {not_loaded}"
    example = next(test.create_tuple_iterator(num_epochs=1))[0]
    ms.export(net, example, file_name=os.path.join(out, "lenet5"), file_format="MINDIR")
    graph = nn.GraphCell(ms.load(os.path.join(out, "lenet5.mindir")))
    p_net, labels = predictions(model.predict, test)
    p_exp, _ = predictions(graph, test)
    p_ckpt, _ = predictions(twin, test)
    same = int((p_net == p_exp).sum())
    exp_acc = float((p_exp == labels).mean())
    print(f"checkpoint: {ckpt} (reloaded: {int((p_ckpt == p_net).sum())}/{len(labels)} "
          f"predictions equal)")
    print(f"export:     {os.path.join(out, 'lenet5.mindir')} (reloaded as GraphCell: "
          f"{same}/{len(labels)} predictions equal, accuracy {exp_acc:.4f})")
    print(f"summary: test accuracy {acc:.4f}, {samples / evaluate.train_time:,.0f} samples/s "
          f"training, "
          f"wall time {time.perf_counter() - t_start:.1f} s")
    if same != len(labels):
        sys.exit("the exported network's predictions differ from the network's")


if __name__ == "__main__":
    main()
