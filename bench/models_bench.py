"""Training-step benchmark of mycel.models' presets against PyTorch eager: one setting per
process, prints one JSON object (bench/run.py --only models runs every setting and writes
RESULTS.md).

    models_bench.py mycel MODEL unfused|fused|bf16|bf16_fused
    models_bench.py mycel MODEL SETTING,SETTING,...   (interleaved in one process)
    models_bench.py torch MODEL THREADS

Models, fixed batch, the same layers in both frameworks:
  resnet18     mycel.models.resnet18(num_classes=10) / torchvision's resnet18(num_classes=10),
               batch 16 of 3x64x64 images, training mode (BatchNorm batch statistics)
  transformer  mycel.models.TransformerEncoderClassifier(vocab 1000, 2 classes, d_model 128,
               4 heads, 2 post-norm layers, feed-forward 512, GELU, dropout 0.1) and the same
               network written with torch.nn (Embedding, LayerNorm, TransformerEncoderLayer
               with batch_first), batch 32 x 128 tokens
One step: forward, cross-entropy (mean), backward, Momentum(0.01, 0.9) update. mycel in GRAPH
mode through nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt), with
set_context(enable_graph_kernel=...) per setting; bf16: amp.build_train_network(..., "O2")
(bfloat16 compute, LayerNorm/BatchNorm and the loss in float32, the dynamic loss scale's
overflow check and skip every step). PyTorch: loss.backward(), optimizer.step(). Reported: ms
per step, the best of the PLAN's passes after its warm-up steps (mycel: 3 passes of 10 steps;
PyTorch, whose steps are longer: 2 passes of 2 steps; the machine is shared). Several mycel
settings named at once (comma-separated) are built in one process and their passes interleaved
(pass 1 of each, then pass 2 of each, ...: 8 passes of 4 steps), so their ratios are taken
under the same load;
the result is then {"ms": {setting: ms}, "cpu_ms": {setting: process CPU ms per step}}.
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
# (warm-up steps, passes, steps per pass): PyTorch's steps are the longer ones here (several
# seconds on this shared machine), so it runs fewer.
PLAN = {"mycel": (2, 3, int(os.environ.get("MODELS_BENCH_STEPS", "10"))),
        "torch": (1, 2, int(os.environ.get("MODELS_BENCH_TORCH_STEPS", "2")))}
# Interleaved settings: more, shorter passes (about as many steps), so that each setting's best
# pass is likelier to fall in a quiet moment of the shared machine.
INTERLEAVED = (2, 8, 4)
RESNET = dict(batch=16, size=64, classes=10)
TRANSFORMER = dict(batch=32, seq=128, vocab=1000, classes=2, d_model=128, nhead=4, layers=2,
                   ff=512, dropout=0.1)


def data(model):
    rng = np.random.default_rng(0)
    if model == "resnet18":
        c = RESNET
        x = rng.standard_normal((c["batch"], 3, c["size"], c["size"])).astype(np.float32)
        return x, rng.integers(0, c["classes"], c["batch"]).astype(np.int32)
    c = TRANSFORMER
    ids = rng.integers(0, c["vocab"], (c["batch"], c["seq"])).astype(np.int32)
    return ids, rng.integers(0, c["classes"], c["batch"]).astype(np.int32)


def timed(step, sync, plan):
    warmup, rounds, steps = plan
    for _ in range(warmup):
        sync(step())
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            out = step()
        sync(out)
        best = min(best, (time.perf_counter() - t0) / steps * 1e3)
    return best


def mycel_step(model, setting):
    """(step, sync): one training step of `model` in `setting`, compiled here (one step)."""
    import mycel as ms
    from mycel import amp, models, nn
    ms._mycel.set_num_threads(THREADS)
    # ("unfused" ends with "fused" too: the setting names are matched whole.)
    ms.set_context(mode=ms.GRAPH_MODE, enable_graph_kernel=setting in ("fused", "bf16_fused"))
    ms.set_seed(1)
    if model == "resnet18":
        net = models.resnet18(num_classes=RESNET["classes"])
    else:
        c = TRANSFORMER
        net = models.TransformerEncoderClassifier(
            c["vocab"], c["classes"], c["d_model"], c["nhead"], c["layers"], c["ff"],
            max_len=c["seq"], dropout=c["dropout"])
    net.set_train()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if setting.startswith("bf16"):
        step = amp.build_train_network(net, opt, loss, level="O2")
    else:
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    x, y = (ms.Tensor(a) for a in data(model))

    def sync(out):
        (out[0] if isinstance(out, tuple) else out).asnumpy()
    # One step now: the program compiles on its first call, with the context of that moment,
    # so it must run before another setting's mycel_step changes enable_graph_kernel
    # (interleaved settings built in one process otherwise all compiled as the last one).
    sync(step(x, y))
    return (lambda: step(x, y)), sync


def mycel_main(model, setting):
    return {"ms": timed(*mycel_step(model, setting), PLAN["mycel"])}


def mycel_interleaved(model, settings):
    """The settings' steps built in one process, their passes interleaved: ({setting: ms},
    {setting: process CPU ms}), each the best pass (CPU time, all threads together, is the
    steadier measure of the work on a loaded machine)."""
    warmup, rounds, steps = INTERLEAVED
    runs = {s: mycel_step(model, s) for s in settings}
    best = {s: float("inf") for s in settings}
    cpu = dict(best)
    for step, sync in runs.values():
        for _ in range(warmup):
            sync(step())
    for _ in range(rounds):
        for s, (step, sync) in runs.items():
            c0 = time.process_time()
            best[s] = min(best[s], timed(step, sync, (0, 1, steps)))
            cpu[s] = min(cpu[s], (time.process_time() - c0) / steps * 1e3)
    return best, cpu


def torch_main(model, threads):
    import torch
    from torch import nn
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    if model == "resnet18":
        import torchvision
        net = torchvision.models.resnet18(num_classes=RESNET["classes"])
    else:
        c = TRANSFORMER

        class Classifier(nn.Module):
            def __init__(self):
                super().__init__()
                self.tok = nn.Embedding(c["vocab"], c["d_model"])
                self.pos = nn.Embedding(c["seq"], c["d_model"])
                self.norm = nn.LayerNorm(c["d_model"])
                self.dropout = nn.Dropout(c["dropout"])
                layer = nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["ff"],
                                                   c["dropout"], activation="gelu",
                                                   batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, c["layers"])
                self.head = nn.Linear(c["d_model"], c["classes"])
                self.register_buffer("positions", torch.arange(c["seq"]))

            def forward(self, ids):
                x = self.dropout(self.norm(self.tok(ids) + self.pos(self.positions)))
                return self.head(self.encoder(x).mean(1))
        net = Classifier()
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x, y = data(model)
    x, y = torch.from_numpy(x), torch.from_numpy(y).long()
    if model == "transformer":
        x = x.long()

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss
    return {"ms": timed(step, lambda loss: loss.item(), PLAN["torch"])}


if __name__ == "__main__":
    framework, model, setting = sys.argv[1:4]
    if framework == "mycel" and "," in setting:
        wall, cpu = mycel_interleaved(model, setting.split(","))
        result = {"ms": wall, "cpu_ms": cpu}
    elif framework == "mycel":
        result = mycel_main(model, setting)
    else:
        result = torch_main(model, int(setting))
    print(json.dumps(result))
