"""`make demo`: trains a classifier on the real Fashion-MNIST data with mycel's eager API.

This stage of mycel has tensors, the op table and fast CPU kernels, but no autodiff yet, so
the demo writes the backward pass of a 784-256-10 MLP by hand from mycel ops (matmul,
SparseSoftmaxCrossEntropyWithLogits with is_grad, reductions) and trains it with momentum SGD.
It evaluates on the 10k test images after every epoch and prints a summary.

Options: --epochs N (5), --batch-size N (64), --lr F (0.01), --data DIR.
"""
import argparse
import gzip
import os
import struct
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mycel as ms  # noqa: E402
from mycel import ops  # noqa: E402
from mycel.ops import operations as P  # noqa: E402

DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """An idx file (gzipped or plain) as a numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4:
        raise ValueError(f"{path}: truncated idx header")
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte idx file")
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    body = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise ValueError(f"{path}: expected {int(np.prod(dims))} values, found {body.size}")
    return body.reshape(dims)


def load(data_dir, split):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"))
    x = (images.reshape(len(images), -1).astype(np.float32) / 255.0 - 0.2860) / 0.3530
    return x, labels.astype(np.int32)


class MLP:
    """784-256-10 with ReLU; parameters and momentum buffers are mycel Tensors."""

    def __init__(self, rng):
        def he(fan_in, shape):
            return ms.Tensor(rng.standard_normal(shape).astype(np.float32) *
                             np.float32(np.sqrt(2.0 / fan_in)))
        self.params = {
            "w1": he(784, (784, 256)), "b1": ms.Tensor(np.zeros(256, np.float32)),
            "w2": he(256, (256, 10)), "b2": ms.Tensor(np.zeros(10, np.float32)),
        }
        self.velocity = {k: ops.zeros_like(v) for k, v in self.params.items()}
        self.loss_op = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=False)
        self.grad_op = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)
        self.matmul_tn = P.MatMul(transpose_a=True)
        self.matmul_nt = P.MatMul(transpose_b=True)

    def forward(self, x):
        p = self.params
        h = ops.relu(ops.matmul(x, p["w1"]) + p["b1"])
        return h, ops.matmul(h, p["w2"]) + p["b2"]

    def train_step(self, x, y, lr, momentum=0.9):
        p = self.params
        h, logits = self.forward(x)
        loss = self.loss_op(logits, y)
        dlogits = self.grad_op(logits, y)              # (softmax - onehot) / N
        grads = {
            "w2": self.matmul_tn(h, dlogits),
            "b2": ops.sum(dlogits, 0),
        }
        dh = self.matmul_nt(dlogits, p["w2"]) * (h > 0)  # ReLU backward
        grads["w1"] = self.matmul_tn(x, dh)
        grads["b1"] = ops.sum(dh, 0)
        for k in p:
            v = self.velocity[k] * momentum + grads[k]
            self.velocity[k] = v
            p[k] = p[k] - v * lr
        return loss

    def accuracy(self, x, y, batch=1000):
        correct = 0
        for i in range(0, len(x), batch):
            _, logits = self.forward(ms.Tensor(x[i:i + batch]))
            correct += int((ops.argmax(logits, 1).asnumpy() == y[i:i + batch]).sum())
        return correct / len(x)


def progress(epoch, step, steps, loss, start):
    if not sys.stdout.isatty():
        return
    width = 30
    done = int(width * step / steps)
    rate = step / max(time.perf_counter() - start, 1e-9)
    sys.stdout.write(f"\repoch {epoch} [{'#' * done}{'.' * (width - done)}] {step}/{steps} "
                     f"loss {loss:.4f} {rate:.0f} steps/s")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    ms.set_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    xtr, ytr = load(args.data, "train")
    xte, yte = load(args.data, "test")
    print(f"Fashion-MNIST: {len(xtr)} training and {len(xte)} test images from {args.data}")
    model = MLP(rng)
    steps = len(xtr) // args.batch_size
    t_start = time.perf_counter()
    train_time, acc = 0.0, 0.0
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(xtr))
        t0 = time.perf_counter()
        total = 0.0
        for s in range(steps):
            idx = order[s * args.batch_size:(s + 1) * args.batch_size]
            loss = model.train_step(ms.Tensor(xtr[idx]), ms.Tensor(ytr[idx]), args.lr)
            if s % 50 == 0 or s == steps - 1:
                lv = float(loss)
                total = lv
                progress(epoch, s + 1, steps, lv, t0)
        train_time += time.perf_counter() - t0
        if sys.stdout.isatty():
            sys.stdout.write("\n")
        acc = model.accuracy(xte, yte)
        print(f"epoch {epoch}: last loss {total:.4f}, test accuracy {acc * 100:.2f}%")
    samples = steps * args.batch_size * args.epochs
    print(f"summary: test accuracy {acc * 100:.2f}% after {args.epochs} epochs, "
          f"{samples / train_time:.0f} samples/s training, wall time "
          f"{time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
