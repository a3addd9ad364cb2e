"""Differential-privacy benchmark: LeNet-5 on Fashion-MNIST trained by DP-SGD
(mycel.armour.privacy.diff_privacy.DPModel, per-example clipping: micro_batches = batch size)
at target eps of 2, 4 and 8 (delta 1e-5, RDP accountant), next to the same training without
privacy; and the time of one DP step against one ordinary step. mycel GRAPH mode; prints one
JSON object (bench/run.py runs it and writes RESULTS.md).

Settings: batch 128 (drop the remainder), EPOCHS epochs, Momentum(lr 0.05, 0.9), clipping
bound C = 1.0; the noise multiplier of each run is the smallest (by bisection, to 0.1%) whose
eps after all the steps, from the RDP monitor with the default orders, is at most the target;
the monitor is a callback of the run and its final eps is reported. The accountant assumes
Poisson sampling at q = 128/60000; the batches are shuffled fixed-size slices, as in
MindArmour, Opacus and TF Privacy's tutorials. Step times: ms per step, the best of 3 passes
of 20 steps after a warm-up.
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
DATA = "/usr/share/datasets/fashion-mnist"
BATCH, EPOCHS, DELTA, CLIP, LR = 128, 3, 1e-5, 1.0, 0.05
TARGETS = (2.0, 4.0, 8.0)


def noise_for(target_eps, steps):
    """The smallest noise multiplier whose eps after `steps` steps is <= target_eps."""
    from mycel.armour.privacy.diff_privacy import RDPMonitor
    def eps(sigma):
        mon = RDPMonitor(60000, BATCH, initial_noise_multiplier=sigma, target_delta=DELTA,
                         noise_decay_mode=None)
        return mon.privacy_spent(steps)[0]
    lo, hi = 0.3, 20.0
    while hi / lo > 1.001:
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if eps(mid) > target_eps else (lo, mid)
    return hi


def main():
    import mycel as ms
    import mycel.dataset  # noqa: F401
    from mycel import nn, Tensor
    from mycel.armour.privacy.diff_privacy import (DPModel, NoiseMechanismsFactory,
                                                   PrivacyMonitorFactory)
    from mycel.train import Model
    from lenet import LeNet5, fashion_mnist
    ms._mycel.set_num_threads(THREADS)
    ms.set_context(mode=ms.GRAPH_MODE)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    test = fashion_mnist(DATA, "test", 1000)
    steps = EPOCHS * (60000 // BATCH)
    out = {"batch": BATCH, "epochs": EPOCHS, "delta": DELTA, "clip": CLIP, "lr": LR}

    def train(dp_sigma):
        ms.set_seed(1)
        ms.dataset.config.set_seed(1)
        net = LeNet5()
        opt = nn.Momentum(net.trainable_params(), LR, 0.9)
        data = fashion_mnist(DATA, "train", BATCH, shuffle=True, drop_remainder=True)
        callbacks, monitor = [], None
        if dp_sigma is None:
            model = Model(net, loss, opt, metrics={"accuracy"})
        else:
            mech = NoiseMechanismsFactory.create("Gaussian", norm_bound=CLIP,
                                                 initial_noise_multiplier=dp_sigma)
            model = DPModel(micro_batches=BATCH, norm_bound=CLIP, noise_mech=mech, network=net,
                            loss_fn=loss, optimizer=opt, metrics={"accuracy"})
            monitor = PrivacyMonitorFactory.create(
                "rdp", num_samples=60000, batch_size=BATCH, initial_noise_multiplier=dp_sigma,
                target_delta=DELTA, noise_decay_mode=None, per_print_times=0)
            callbacks = [monitor]
        t0 = time.perf_counter()
        model.train(EPOCHS, data, callbacks=callbacks)
        seconds = time.perf_counter() - t0
        acc = model.eval(test)["accuracy"]
        return acc, seconds, (monitor.eps if monitor else None), model.train_network

    acc, sec, _, plain_step = train(None)
    out["plain"] = {"accuracy": acc, "train_s": sec}
    for target in TARGETS:
        sigma = noise_for(target, steps)
        acc, sec, eps, dp_step = train(sigma)
        out[f"eps{target:g}"] = {"sigma": sigma, "eps": eps, "accuracy": acc, "train_s": sec}
        print(json.dumps({f"eps{target:g}": out[f"eps{target:g}"]}), file=sys.stderr,
              flush=True)

    x = Tensor(np.random.RandomState(0).randn(BATCH, 1, 28, 28).astype(np.float32))
    y = Tensor(np.random.RandomState(1).randint(0, 10, BATCH).astype(np.int32))
    for key, step in (("plain_step_ms", plain_step), ("dp_step_ms", dp_step)):
        step.set_train(True)
        for _ in range(3):
            step(x, y)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(20):
                step(x, y)
            best = min(best, (time.perf_counter() - t0) / 20 * 1e3)
        out[key] = best
    print(json.dumps(out))


if __name__ == "__main__":
    main()
