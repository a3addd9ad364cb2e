"""mycel.train.Model, its callbacks and metrics, in both modes, against hand-written oracles.

A linearly separable 3-class problem (NumpySlicesDataset, 96 samples, batches of 32) trains a
small Dense network: Model.train must learn it and give the same step losses as a hand-written
nn.TrainOneStepCell loop; Model.eval's Accuracy and Loss equal numpy over the network's weights;
callbacks see MindSpore's hook order and cb_params; LossMonitor, TimeMonitor, ModelCheckpoint
and ProgressBar write what they should. The mode-parity check trains LeNet-5 (examples/lenet.py)
on the first 20 batches of the real Fashion-MNIST in GRAPH and PYNATIVE mode.
"""
import io
import math
import os
import re
import sys

import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel import nn
from mycel.train import (Accuracy, Callback, CheckpointConfig, Loss, LossMonitor, Metric,
                         Model, ModelCheckpoint, ProgressBar, TimeMonitor)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
FASHION = "/usr/share/datasets/fashion-mnist"
N, BATCH, STEPS = 96, 32, 3          # 3 steps per epoch


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    """Runs the test in each mode and restores PYNATIVE afterwards."""
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def blobs(n=N, seed=0):
    """Three well separated Gaussian blobs in R^4: features float32 [n, 4], labels int32 [n]."""
    rng = np.random.RandomState(seed)
    centers = 3.0 * np.eye(3, 4, dtype=np.float32)
    y = (np.arange(n) % 3).astype(np.int32)
    x = (centers[y] + 0.5 * rng.randn(n, 4)).astype(np.float32)
    return x, y


def dataset(x, y, batch=BATCH):
    """(data, label) batches in order."""
    return ds.NumpySlicesDataset((x, y), ["data", "label"], shuffle=False).batch(batch)


class Net(nn.Cell):
    """One Dense layer 4 -> 3 (logits)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc(x)


def make_model(seed=1, lr=0.1, **kw):
    """(net, Model) with cross-entropy and Momentum, the net initialised from `seed`."""
    ms.set_seed(seed)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return net, Model(net, nn.CrossEntropyLoss(), opt, **kw)


def np_logits(net, x):
    """The Dense layer in numpy, from the net's current weights."""
    return x @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy()


def np_cross_entropy(logits, y):
    """Mean softmax cross-entropy of integer labels (float64)."""
    z = logits.astype(np.float64)
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


class Recorder(Callback):
    """Records every train hook with (epoch, step, batch_num) and the step losses."""

    def __init__(self):
        self.events, self.losses = [], []

    def _log(self, name, ctx):
        p = ctx.original_args()
        self.events.append((name, p.cur_epoch_num, p.cur_step_num, p.batch_num))

    def on_train_begin(self, ctx):
        self._log("begin", ctx)

    def on_train_epoch_begin(self, ctx):
        self._log("epoch_begin", ctx)

    def on_train_step_begin(self, ctx):
        self._log("step_begin", ctx)

    def on_train_step_end(self, ctx):
        self._log("step_end", ctx)
        self.losses.append(float(ctx.original_args().net_outputs.asnumpy()))

    def on_train_epoch_end(self, ctx):
        self._log("epoch_end", ctx)

    def on_train_end(self, ctx):
        self._log("end", ctx)


def expected_events(epochs, steps, stop_at=None):
    """MindSpore's hook order for `epochs` epochs of `steps` steps (stopping after step
    `stop_at` when given)."""
    ev, s = [("begin", 0, 0, steps)], 0
    for e in range(1, epochs + 1):
        ev.append(("epoch_begin", e, s, steps))
        for _ in range(steps):
            s += 1
            ev += [("step_begin", e, s, steps), ("step_end", e, s, steps)]
            if s == stop_at:
                break
        ev.append(("epoch_end", e, s, steps))
        if s == stop_at:
            break
    return ev + [("end", e, s, steps)]


# ----- training, eval, predict -----

def test_train_learns_and_eval_matches_numpy(mode):
    x, y = blobs()
    net, model = make_model(metrics={"acc": Accuracy(), "loss": Loss()})
    rec = Recorder()
    model.train(8, dataset(x, y), callbacks=rec)
    assert len(rec.losses) == 8 * STEPS
    assert rec.losses[-1] < 0.2 * rec.losses[0]
    xv, yv = blobs(100, seed=1)                  # 100 = 3 batches of 32 and one of 4
    got = model.eval(dataset(xv, yv))
    logits = np_logits(net, xv)
    want_loss = np.mean([np_cross_entropy(logits[i:i + BATCH], yv[i:i + BATCH])
                         for i in range(0, 100, BATCH)])   # MindSpore: mean of batch means
    assert got["acc"] == pytest.approx(np.mean(logits.argmax(1) == yv), abs=1e-12)
    assert got["acc"] >= 0.95
    assert got["loss"] == pytest.approx(want_loss, rel=1e-5)


def test_eval_with_metric_names(mode):
    x, y = blobs()
    net, model = make_model(metrics={"accuracy", "loss"})
    got = model.eval(dataset(x, y))
    logits = np_logits(net, x)
    assert set(got) == {"accuracy", "loss"}
    assert got["accuracy"] == pytest.approx(np.mean(logits.argmax(1) == y), abs=1e-12)
    assert got["loss"] == pytest.approx(
        np.mean([np_cross_entropy(logits[i:i + BATCH], y[i:i + BATCH])
                 for i in range(0, N, BATCH)]), rel=1e-5)


def test_train_losses_equal_hand_written_loop(mode):
    x, y = blobs()
    net_a, model = make_model()
    rec = Recorder()
    model.train(2, dataset(x, y), callbacks=[rec])

    ms.set_seed(1)
    net_b = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net_b, nn.CrossEntropyLoss()),
                               nn.Momentum(net_b.trainable_params(), 0.1, 0.9))
    step.set_train()
    losses = []
    for _ in range(2):
        for data, label in dataset(x, y).create_tuple_iterator():
            losses.append(float(step(data, label).asnumpy()))
    np.testing.assert_allclose(rec.losses, losses, rtol=1e-6)
    np.testing.assert_allclose(net_a.fc.weight.asnumpy(), net_b.fc.weight.asnumpy(), rtol=1e-6)
    # The first loss is the initial network's: numpy cross-entropy from the same seed.
    ms.set_seed(1)
    fresh = Net()
    assert rec.losses[0] == pytest.approx(np_cross_entropy(np_logits(fresh, x[:BATCH]),
                                                           y[:BATCH]), rel=1e-5)


def test_model_without_loss_fn_or_optimizer(mode):
    """Model(WithLossCell, optimizer=...) and Model(TrainOneStepCell) train as Model(net, loss,
    opt) does; an eval_network with eval_indexes picks (loss, outputs, label) from its output."""
    x, y = blobs()
    _, ref = make_model()
    want = Recorder()
    ref.train(2, dataset(x, y), callbacks=want)

    class EvalNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net, self.loss = net, nn.CrossEntropyLoss()

        def construct(self, data, label):
            logits = self.net(data)
            return logits, label, self.loss(logits, label)

    for wrap in ("step_cell", "loss_cell"):
        ms.set_seed(1)
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        loss_cell = nn.WithLossCell(net, nn.CrossEntropyLoss())
        if wrap == "loss_cell":
            model = Model(loss_cell, optimizer=opt, metrics={"acc": Accuracy(), "loss": Loss()},
                          eval_network=EvalNet(net), eval_indexes=[2, 0, 1])
        else:
            model = Model(nn.TrainOneStepCell(loss_cell, opt))
        got = Recorder()
        model.train(2, dataset(x, y), callbacks=got)
        np.testing.assert_allclose(got.losses, want.losses, rtol=1e-6)
    res = model.eval(dataset(x, y))                # the loss_cell Model, after training
    logits = np_logits(net, x)
    assert res["acc"] == pytest.approx(np.mean(logits.argmax(1) == y), abs=1e-12)
    assert res["loss"] == pytest.approx(
        np.mean([np_cross_entropy(logits[i:i + BATCH], y[i:i + BATCH])
                 for i in range(0, N, BATCH)]), rel=1e-5)
    with pytest.raises(ValueError, match="Model.*'eval_indexes'.*eval_network"):
        Model(net, nn.CrossEntropyLoss(), eval_indexes=[0, 1, 2])


def test_predict(mode):
    x, _ = blobs(10)
    net, model = make_model()
    out = model.predict(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), np_logits(net, x), rtol=1e-5, atol=1e-6)


def test_train_on_iterable_of_tensors(mode):
    """A plain list of (data, label) tuples is a dataset too (batch_num = its length)."""
    x, y = blobs()
    batches = [(ms.Tensor(x[i:i + BATCH]), ms.Tensor(y[i:i + BATCH])) for i in range(0, N, BATCH)]
    _, model = make_model()
    rec = Recorder()
    model.train(2, batches, callbacks=rec)
    assert rec.events == expected_events(2, STEPS)


class _OneShotIterator:
    """A user's dataset class that iterates itself once until reset() (MindSpore's dataset
    stubs and many hand-written loaders): Model rewinds it after each epoch and evaluation."""

    def __init__(self, batches):
        self.batches, self.i, self.resets = batches, 0, 0

    def __len__(self):
        return len(self.batches)

    def __iter__(self):
        return self

    def __next__(self):
        if self.i == len(self.batches):
            raise StopIteration
        self.i += 1
        return self.batches[self.i - 1]

    def reset(self):
        self.i = 0
        self.resets += 1


def test_train_and_eval_reset_a_self_iterating_dataset(mode):
    x, y = blobs()
    batches = [(ms.Tensor(x[i:i + BATCH]), ms.Tensor(y[i:i + BATCH])) for i in range(0, N, BATCH)]
    data = _OneShotIterator(batches)
    net, model = make_model(metrics={"acc": Accuracy()})
    rec = Recorder()
    model.train(2, data, callbacks=rec)
    assert rec.events == expected_events(2, STEPS)  # the second epoch saw every batch again
    assert data.resets == 2
    got = model.eval(data)["acc"]
    assert got == pytest.approx(np.mean(np_logits(net, x).argmax(1) == y))
    assert data.resets == 3


def test_fit_evaluates_each_epoch(mode, capsys):
    """fit is one training run (one on_train_begin/end) with an eval before every
    valid_frequency-th on_train_epoch_end, whose metrics the callbacks see."""
    x, y = blobs()
    net, model = make_model(metrics={"accuracy"})
    rec = Recorder()
    seen = []

    class Eval(Callback):
        def on_eval_end(self, ctx):
            seen.append(("eval_end", ctx.original_args().metrics["accuracy"]))

        def on_train_epoch_end(self, ctx):
            seen.append(("epoch_end", getattr(ctx.original_args(), "eval_results", None)))

    model.fit(4, dataset(x, y), dataset(x, y), valid_frequency=2, callbacks=[rec, Eval()])
    assert rec.events == expected_events(4, STEPS)
    assert [e for e, _ in model.eval_results] == [2, 4]
    acc = model.eval_results[-1][1]["accuracy"]
    assert acc == pytest.approx(np.mean(np_logits(net, x).argmax(1) == y), abs=1e-12)
    assert seen[0] == ("epoch_end", None) and seen[-2:] == [("eval_end", acc),
                                                             ("epoch_end", {"accuracy": acc})]
    assert re.findall(r"eval epoch (\d+): \{'accuracy': ", capsys.readouterr().out) == ["2", "4"]
    with pytest.raises(ValueError, match="Model.fit.*'valid_frequency'.*0"):
        model.fit(1, dataset(x, y), dataset(x, y), valid_frequency=0)
    with pytest.raises(ValueError, match="Model.fit.*needs a Model with metrics"):
        make_model()[1].fit(1, dataset(x, y), dataset(x, y))


# ----- callbacks -----

def test_hook_order_and_cb_params(mode):
    x, y = blobs()
    _, model = make_model()
    rec = Recorder()

    class Params(Callback):
        def on_train_step_end(self, ctx):
            p = ctx.original_args()
            assert p.epoch_num == 2 and p.batch_num == STEPS and p.mode == "train"
            assert isinstance(p.net_outputs, ms.Tensor) and p.net_outputs.shape == ()
            assert p.train_network is model.train_network

    model.train(2, dataset(x, y), callbacks=[rec, Params()])
    assert rec.events == expected_events(2, STEPS)


def test_legacy_hook_names(mode):
    x, y = blobs()
    _, model = make_model()
    calls = []

    class Legacy(Callback):
        def begin(self, ctx):
            calls.append("begin")

        def epoch_begin(self, ctx):
            calls.append("epoch_begin")

        def step_begin(self, ctx):
            calls.append("step_begin")

        def step_end(self, ctx):
            calls.append("step_end")

        def epoch_end(self, ctx):
            calls.append("epoch_end")

        def end(self, ctx):
            calls.append("end")

    model.train(1, dataset(x, y), callbacks=Legacy())
    assert calls == ["begin", "epoch_begin"] + ["step_begin", "step_end"] * STEPS + \
        ["epoch_end", "end"]


def test_request_stop(mode):
    x, y = blobs()
    _, model = make_model()
    rec = Recorder()

    class Stop(Callback):
        def on_train_step_end(self, ctx):
            if ctx.original_args().cur_step_num == 4:
                ctx.request_stop()

    model.train(5, dataset(x, y), callbacks=[rec, Stop()])
    assert rec.events == expected_events(5, STEPS, stop_at=4)


def test_loss_monitor_output(mode, capsys):
    x, y = blobs()
    _, model = make_model()
    rec = Recorder()
    model.train(2, dataset(x, y), callbacks=[rec, LossMonitor()])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 * STEPS
    for i, line in enumerate(lines):
        m = re.fullmatch(r"epoch: (\d+) step: (\d+), loss is (\d+\.\d+)", line)
        assert m, line
        assert (int(m[1]), int(m[2])) == (i // STEPS + 1, i % STEPS + 1)
        assert float(m[3]) == pytest.approx(rec.losses[i], abs=1e-6)
    model.train(2, dataset(x, y), callbacks=LossMonitor(per_print_times=2))
    steps = [re.search(r"epoch: (\d+) step: (\d+)", s).groups()
             for s in capsys.readouterr().out.splitlines()]
    assert steps == [("1", "2"), ("2", "1"), ("2", "3")]          # global steps 2, 4, 6


def test_loss_monitor_steps_on_a_dataset_without_size(capsys):
    """An iterable with no length: batch_num is unknown in the first epoch, yet the step
    within the epoch is right from the start."""
    x, y = blobs()

    class Batches:
        def __iter__(self):
            return iter([(ms.Tensor(x[i:i + BATCH]), ms.Tensor(y[i:i + BATCH]))
                         for i in range(0, N, BATCH)])

    _, model = make_model()
    model.train(2, Batches(), callbacks=LossMonitor())
    steps = [re.search(r"epoch: (\d+) step: (\d+)", s).groups()
             for s in capsys.readouterr().out.splitlines()]
    assert steps == [(str(e), str(k)) for e in (1, 2) for k in range(1, STEPS + 1)]


def test_loss_monitor_nan_loss_stops(mode):
    x, y = blobs()
    x[40] = np.nan                                 # in the second batch
    _, model = make_model()
    with pytest.raises(ValueError, match=r"epoch: 1 step: 2: the loss is nan"):
        model.train(1, dataset(x, y), callbacks=LossMonitor())


def test_time_monitor_prints(capsys):
    x, y = blobs()
    _, model = make_model()
    model.train(2, dataset(x, y), callbacks=TimeMonitor())
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line in lines:
        m = re.fullmatch(r"epoch time: (\d+\.\d+) ms, per step time: (\d+\.\d+) ms", line)
        assert m, line
        assert float(m[2]) == pytest.approx(float(m[1]) / STEPS, abs=2e-3)


def test_model_checkpoint_files_keep_max_and_reload(mode, tmp_path):
    x, y = blobs()
    net, model = make_model()
    cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2)
    ckpt = ModelCheckpoint(prefix="net", directory=str(tmp_path), config=cfg)
    model.train(2, dataset(x, y), callbacks=ckpt)
    # Saved after global steps 2 (epoch 1 step 2), 4 (2_1) and 6 (2_3); the oldest removed.
    # (GRAPH mode also writes the compiled graph once, net-graph.meta, as MindSpore)
    graph = ["net-graph.meta"] if mode == "graph" else []
    assert sorted(os.listdir(tmp_path)) == ["net-2_1.ckpt", "net-2_3.ckpt"] + graph
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-2_3.ckpt")
    params = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    assert {"fc.weight", "fc.bias"} <= set(params)
    ms.set_seed(7)
    fresh = Net()
    not_loaded, _ = ms.load_param_into_net(fresh, params)
    assert not not_loaded
    xt = ms.Tensor(x[:10])
    np.testing.assert_array_equal(fresh(xt).asnumpy(), net(xt).asnumpy())


def test_model_checkpoint_saves_at_the_end(tmp_path):
    x, y = blobs()
    _, model = make_model()
    cfg = CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=10)
    model.train(2, dataset(x, y), callbacks=ModelCheckpoint("m", str(tmp_path), cfg))
    assert sorted(os.listdir(tmp_path)) == ["m-2_1.ckpt", "m-2_3.ckpt"]    # steps 4 and 6
    # keep_checkpoint_max=0 without keep_checkpoint_per_n_minutes keeps one file, as in
    # MindSpore (CheckpointConfig makes it 1)
    cfg = CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=0)
    assert cfg.keep_checkpoint_max == 1
    model.train(2, dataset(x, y), callbacks=ModelCheckpoint("one", str(tmp_path), cfg))
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("one")) == ["one-2_3.ckpt"]


class FakeTTY(io.StringIO):
    """A terminal, as far as ProgressBar can tell."""

    def isatty(self):
        return True


def test_progress_bar_not_a_terminal():
    x, y = blobs()
    _, model = make_model()
    out = io.StringIO()
    model.train(2, dataset(x, y), callbacks=ProgressBar(stream=out))
    text = out.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) == 2
    for e, line in enumerate(lines, 1):
        assert re.fullmatch(rf"epoch {e}/2: loss \d+\.\d{{4}}, \d+\.\d s, [\d,]+ samples/s",
                            line), line


def test_progress_bar_terminal_redraws():
    x, y = blobs()
    _, model = make_model()
    out = FakeTTY()
    model.train(2, dataset(x, y), callbacks=ProgressBar(stream=out, width=10))
    text = out.getvalue()
    assert text.count("\n") == 2
    for e, epoch_text in enumerate(text.split("\n")[:2], 1):
        draws = epoch_text.split("\r")[1:]
        assert len(draws) >= 2                  # the bar, then the epoch's summary line
        assert f"epoch {e}/2 [##########] 3/3 loss" in draws[-2]
        assert draws[-1].startswith(f"epoch {e}/2: loss ")


# ----- metrics -----

def test_accuracy_one_hot_and_multilabel():
    rng = np.random.RandomState(3)
    logits = rng.randn(20, 5).astype(np.float32)
    labels = rng.randint(0, 5, 20)
    want = np.mean(logits.argmax(1) == labels)
    a, b = Accuracy(), Accuracy()
    a.update(ms.Tensor(logits[:12]), ms.Tensor(labels[:12].astype(np.int32)))
    a.update(logits[12:], labels[12:])
    b.update(ms.Tensor(logits), ms.Tensor(np.eye(5, dtype=np.float32)[labels]))   # one-hot
    assert a.eval() == pytest.approx(want) and b.eval() == pytest.approx(want)
    a.clear()
    with pytest.raises(RuntimeError, match="Accuracy.eval.*update"):
        a.eval()

    prob = rng.rand(20, 3).astype(np.float32)
    truth = (rng.rand(20, 3) > 0.5).astype(np.float32)
    truth[:8] = prob[:8] > 0.5                  # some samples fully right
    m = Accuracy("multilabel")
    m.update(ms.Tensor(prob), ms.Tensor(truth))
    assert m.eval() == pytest.approx(np.mean(np.all((prob > 0.5) == (truth > 0.5), axis=1)))


def test_loss_metric():
    m = Loss()
    for v in (0.5, ms.Tensor(np.float32(1.5)), np.array([2.5])):
        m.update(v)
    assert m.eval() == pytest.approx(1.5)
    m.clear()
    with pytest.raises(RuntimeError, match="Loss.eval.*update"):
        m.eval()
    m.update(np.array([1.0, 2.0, 6.0]))  # per-sample losses count as their mean (MindSpore's)
    m.update(ms.Tensor(np.float32(1.0)))
    assert m.eval() == pytest.approx(2.0)
    with pytest.raises(ValueError, match=r"Loss.update.*scalar.*\[2, 2\]"):
        m.update(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"Loss.update.*\[0\]"):
        m.update(np.ones(0))


def test_metric_errors():
    with pytest.raises(TypeError, match="Accuracy.*eval_type.*'top5'"):
        Accuracy("top5")
    with pytest.raises(ValueError, match=r"Accuracy.update.*\[4, 3\].*\[5\]"):
        Accuracy().update(np.zeros((4, 3)), np.zeros(5))
    with pytest.raises(ValueError, match="Accuracy.update.*2 inputs"):
        Accuracy().update(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"multilabel.*\(4, 3\).*\(4, 2\)"):
        Accuracy("multilabel").update(np.zeros((4, 3)), np.zeros((4, 2)))
    with pytest.raises(NotImplementedError):
        Metric()
    # labels of the logits' rank must be one-hot (MindSpore's rule): no silent argmax
    with pytest.raises(ValueError, match=r"Accuracy.update.*\[4, 3\].*one-hot"):
        Accuracy().update(np.zeros((4, 3)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="one-hot"):
        Accuracy().update(np.zeros((2, 3)), np.array([[0.9, 0.1, 0.0], [0.0, 0.2, 0.8]]))


# ----- errors -----

def test_model_errors(tmp_path):
    x, y = blobs()
    net, model = make_model()
    data = dataset(x, y)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match=f"Model.train.*'epoch'.*{re.escape(repr(bad))}"):
            model.train(bad, data)
    with pytest.raises(ValueError, match="Model.train.*'initial_epoch'.*3"):
        model.train(2, data, initial_epoch=3)
    with pytest.raises(TypeError, match="each callback must be a Callback.*object"):
        model.train(1, data, callbacks=[LossMonitor(), object()])
    with pytest.raises(TypeError, match="Model.train.*dataset.*int"):
        model.train(1, 5)
    with pytest.raises(ValueError, match="Model.eval.*needs metrics"):
        model.eval(data)
    with pytest.raises(KeyError, match="unknown metric name 'bogus'"):
        Model(net, nn.CrossEntropyLoss(), model._optimizer, metrics={"bogus"})
    with pytest.raises(TypeError, match="metric 'acc' must be a Metric.*str"):
        Model(net, nn.CrossEntropyLoss(), metrics={"acc": "accuracy"})
    with pytest.raises(TypeError, match="'metrics' must be a dict or a set.*str"):
        Model(net, nn.CrossEntropyLoss(), metrics="accuracy")
    with pytest.raises(TypeError, match="Model.*'network' must be a Cell.*function"):
        Model(lambda v: v)
    with pytest.raises(TypeError, match="Model.*'optimizer'.*str"):
        Model(net, nn.CrossEntropyLoss(), "sgd")
    with pytest.raises(ValueError, match="Model.*'amp_level'.*'O9'"):
        Model(net, amp_level="O9")
    with pytest.raises(ValueError, match="LossMonitor.*per_print_times.*-1"):
        LossMonitor(-1)
    # steps and seconds both given: steps decide, as in MindSpore (not an error)
    both = CheckpointConfig(save_checkpoint_steps=2, save_checkpoint_seconds=10)
    assert (both.save_checkpoint_steps, both.save_checkpoint_seconds) == (2, None)
    with pytest.raises(ValueError, match="CheckpointConfig"):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    with pytest.raises(ValueError, match="CheckpointConfig.*keep_checkpoint_max.*-2"):
        CheckpointConfig(keep_checkpoint_max=-2)
    with pytest.raises(ValueError, match="ModelCheckpoint.*prefix.*'a/b'"):
        ModelCheckpoint(prefix="a/b")
    with pytest.raises(TypeError, match="ModelCheckpoint.*config.*dict"):
        ModelCheckpoint(config={"save_checkpoint_steps": 1})


# ----- mode parity on real data -----

def test_graph_and_pynative_give_the_same_losses():
    """LeNet-5 with Momentum on the first 20 batches of 64 Fashion-MNIST training images: the
    20 step losses agree between the modes to 1e-5 relative."""
    from lenet import LeNet5, fashion_mnist

    class First(Callback):
        def __init__(self, n):
            self.n, self.losses = n, []

        def on_train_step_end(self, ctx):
            self.losses.append(float(ctx.original_args().net_outputs.asnumpy()))
            if len(self.losses) == self.n:
                ctx.request_stop()

    losses = {}
    try:
        for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            ms.set_context(mode=m)
            ms.set_seed(1)
            net = LeNet5()
            model = Model(net, nn.CrossEntropyLoss(),
                          nn.Momentum(net.trainable_params(), 0.01, 0.9))
            first = First(20)
            model.train(1, fashion_mnist(FASHION, "train", 64, shuffle=False), callbacks=first)
            losses[m] = first.losses
            assert ("_mycel_graph" in vars(model.train_network)) == (m == ms.GRAPH_MODE)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(losses[ms.GRAPH_MODE]) == 20
    assert losses[ms.PYNATIVE_MODE][-1] < losses[ms.PYNATIVE_MODE][0]
    assert math.isclose(losses[ms.PYNATIVE_MODE][0], math.log(10), rel_tol=0.1)
    np.testing.assert_allclose(losses[ms.GRAPH_MODE], losses[ms.PYNATIVE_MODE], rtol=1e-5)


def test_initial_epoch_of_a_wrong_type_is_a_type_error():
    x, y = blobs()
    _, model = make_model()
    for bad in ("1", 1.0, True):
        with pytest.raises(TypeError, match="Model.train.*'initial_epoch' must be an int"):
            model.train(2, dataset(x, y), initial_epoch=bad)
    with pytest.raises(ValueError, match="'initial_epoch' must be in"):
        model.train(2, dataset(x, y), initial_epoch=-1)


def test_model_argument_rules_as_mindspore():
    """Unknown metric names are KeyErrors; metrics need a loss_fn or an eval_network;
    eval_indexes is a list of three; metrics is a dict or a set."""
    from mycel import nn
    from mycel.train import Model
    net, loss = nn.ReLU(), nn.SoftmaxCrossEntropyWithLogits()
    with pytest.raises(KeyError, match="top1"):
        Model(net, loss, metrics={"top1"})
    with pytest.raises(ValueError, match="eval_network"):
        Model(net, metrics={"top_1_accuracy"})
    with pytest.raises(ValueError, match="eval_indexes"):
        Model(net, eval_network=net, eval_indexes=(1, 2, 3), metrics={"top_1_accuracy"})
    for bad in ((), ["top_1_accuracy"], "acc"):
        with pytest.raises(TypeError, match="dict or a set"):
            Model(net, loss, metrics=bad)
    m = Model(net, loss, metrics={"top_1_accuracy", "top_5_accuracy"})
    assert set(m._metric_fns) == {"top_1_accuracy", "top_5_accuracy"}


def test_predict_on_the_lite_backend_matches_the_network(mode):
    # MindSpore's Model.predict(backend='lite'): the network exported, converted and run by
    # the lite runtime; rebuilt when the inputs' shapes or the weights change
    x, y = blobs(10)
    net, model = make_model()
    got = model.predict(ms.Tensor(x), backend="lite")
    np.testing.assert_allclose(got.asnumpy(), np_logits(net, x), rtol=1e-5, atol=1e-6)
    first = model._lite_predict[1]
    model.predict(ms.Tensor(x), backend="lite")
    assert model._lite_predict[1] is first  # same shapes and weights: built once
    got = model.predict(ms.Tensor(x[:3]), backend="lite")  # another batch size
    np.testing.assert_allclose(got.asnumpy(), np_logits(net, x[:3]), rtol=1e-5, atol=1e-6)
    model.train(1, dataset(*blobs()))
    got = model.predict(ms.Tensor(x), backend="lite")  # trained weights, not the old ones
    np.testing.assert_allclose(got.asnumpy(), np_logits(net, x), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="backend.*'gpu'"):
        model.predict(ms.Tensor(x), backend="gpu")
    with pytest.raises(ValueError, match="backend.*0"):
        model.predict(ms.Tensor(x), backend=0)
    with pytest.raises(ValueError, match="config"):
        model.predict(ms.Tensor(x), config=object())
    with pytest.raises(TypeError, match="input 0 is ndarray"):
        model.predict(x, backend="lite")


def test_sink_mode_on_an_iterable_of_batches(mode):
    # MindSpore sinks any dataset; a mycel sink over a user's iterable loops in Python and
    # gives the weights of step-by-step training
    x, y = blobs()
    batches = [(ms.Tensor(x[i:i + BATCH]), ms.Tensor(y[i:i + BATCH])) for i in range(0, N, BATCH)]
    net_a, model_a = make_model()
    model_a.train(2, batches, dataset_sink_mode=False)
    net_b, model_b = make_model()
    rec = Recorder()
    model_b.train(2, _OneShotIterator(batches), callbacks=rec, dataset_sink_mode=True)
    for a, b in zip(net_a.trainable_params(), net_b.trainable_params()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
    # one sink per epoch: the step count jumps by the epoch's batches
    ends = [e for e in rec.events if e[0] == "step_end"]
    assert [(e[1], e[2]) for e in ends] == [(1, STEPS), (2, 2 * STEPS)]
    # sink_size=2 over 3 epochs: 6 steps, two passes of the 3 batches
    net_c, model_c = make_model()
    model_c.train(3, batches, dataset_sink_mode=True, sink_size=2)
    net_d, model_d = make_model()
    model_d.train(2, batches, dataset_sink_mode=False)
    for c, d in zip(net_c.trainable_params(), net_d.trainable_params()):
        np.testing.assert_allclose(c.asnumpy(), d.asnumpy(), rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="no batches"):
        model_c.train(1, [], dataset_sink_mode=True)
    with pytest.raises(ValueError, match="infinite dataset"):
        model_c.train(1, iter(batches), dataset_sink_mode=True)
    with pytest.raises(TypeError, match="Dataset"):
        model_c.train(1, 3, dataset_sink_mode=True)
