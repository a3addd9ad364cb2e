"""GPU benchmark rows, one framework per process (scripts/gpu_check.sh runs both on the same
GPU in one run): `gpu_bench.py --out F` measures mycel (GRAPH mode, device_target="GPU");
`gpu_bench.py --torch --out F` measures PyTorch eager on cuda:0 (and a CUDA-graph replay of
the elementwise chain). Each writes a JSON object of rows {name: value}; --table A B prints
the markdown table of the rows either side produced, with ratios where both did (mycel /
PyTorch speed: > 1 means mycel is faster). `--device CPU --tiny` runs the same code on the
CPU at tiny sizes (scripts/gpu_check.sh --dry-run), so the script is known to work where
there is no GPU (the CUDA-graph rows need a GPU and are left out); its numbers mean nothing.

Rows:
  lenet_train_b64   LeNet-5 training steps (forward, cross-entropy, backward, Momentum SGD),
                    batch 64, fp32, random data prepared on the GPU first: samples/s
  lenet_infer_b1    LeNet-5 inference, batch 1: calls/s
  chain100          100 elementwise ops (alternating mul/add/relu) on a [4096] float32
                    tensor, one call: calls/s (launch overhead: the ops are tiny)
  chain100_graph    the same chain as one captured CUDA graph replayed (mycel: jit_level
                    "O2", runtime/vm_capture.h; PyTorch: torch.cuda.CUDAGraph)
  lenet_infer_b1_graph  LeNet-5 inference, batch 1, with jit_level "O2" (mycel only): calls/s
  mm4096_fp32       a 4096^3 MatMul in float32, TF32 off (mycel's default, PyTorch's
                    allow_tf32=False): TFLOP/s
  mm4096_tf32       the same with TF32 allowed (mycel: device_context.gpu.op_precision.
                    matmul_allow_tf32(True); PyTorch: torch.backends.cuda.matmul.allow_tf32)
  mm4096_bf16, mm4096_fp16   the same product in bfloat16 / float16 (float32 accumulation)
  lenet_train_b64_bf16   LeNet-5 training steps as lenet_train_b64 with mixed precision in
                    bfloat16 (mycel: amp.build_train_network level O2; PyTorch: autocast):
                    samples/s
  mlp_train_b256    an MLP (1024 -> 4096 -> 4096 -> 1024, ReLU, GeLU(tanh)) training step,
                    batch 256, fp32: samples/s
  mlp_train_b256_fused   the same with set_context(enable_graph_kernel=True): each Dense's
                    MatMul, BiasAdd and activation one cuBLASLt call with a bias epilogue
                    (mycel only; PyTorch's eager row is mlp_train_b256's)
  resnet18_train_fp32, resnet18_train_bf16
                    ResNet-18 training steps (mycel.models.resnet18 / the same network in
                    torch.nn), batch 64 of 3x224x224 images, 1000 classes, training-mode
                    BatchNorm: samples/s
  transformer_train_fp32, transformer_train_bf16
                    Transformer-encoder classifier training steps
                    (mycel.models.TransformerEncoderClassifier / the same network in torch.nn:
                    embeddings, 6 post-norm layers of d_model 512, 8 heads, feed-forward 2048,
                    GELU, dropout 0.1, mean pooling), batch 32 x 256 tokens: samples/s
Each mycel "_graph" row checks its result against op by op's and that the step was captured
(its *_captured row), so a fallback to op by op cannot pass for a captured graph.
A ResNet-18/Transformer training step: forward, cross-entropy (mean), backward,
Momentum(0.01, 0.9) / SGD with momentum. fp32 rows compute in float32 on both sides
(PyTorch's TF32 switched off, as mycel's default); bf16 rows: mycel's
amp.build_train_network(..., level="O2") (bfloat16 compute, BatchNorm/LayerNorm and the loss
in float32; no loss scale, which bfloat16's range does not need) and
torch.autocast(dtype=torch.bfloat16) around the forward and the loss. Each of these rows: a
few warm-up steps, then the best of 3 rounds of about TRAIN_SECONDS/3 s each (the round's
step count is set from one timed step), so each takes about 10 s whatever the speed.
"""
import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
# --device / --tiny (main sets them): where mycel and PyTorch run, and tiny sizes and counts
# for the CPU dry run.
DEVICE, TINY = "GPU", False
TRAIN_SECONDS = 6.0
RESNET = dict(batch=64, size=224, classes=1000)
TRANSFORMER = dict(batch=32, seq=256, vocab=8192, classes=2, d_model=512, nhead=8, layers=6,
                   ff=2048, dropout=0.1)
TINY_RESNET = dict(batch=2, size=32, classes=10)
TINY_TRANSFORMER = dict(batch=2, seq=16, vocab=100, classes=2, d_model=32, nhead=4, layers=1,
                        ff=64, dropout=0.1)
MLP_WIDTH = 4096  # the MLP rows' hidden width (TINY: 256)


def rate(fn, sync, n, warmup=10, rounds=3):
    """Calls per second of fn over n calls, best of `rounds`, after warm-up."""
    if TINY:
        n, warmup = max(2, n // 50), 2
    for _ in range(warmup):
        fn()
    sync()
    best = 0.0
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        best = max(best, n / (time.perf_counter() - t0))
    return best


def bench_mycel():
    import mycel as ms
    from mycel import nn, ops, Tensor
    from lenet import LeNet5
    ms.set_context(mode=ms.GRAPH_MODE, device_target=DEVICE)
    ms.set_seed(1)
    sync = ms.hal.synchronize
    rng = np.random.RandomState(0)
    rows = {}
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    x = Tensor(rng.randn(64, 1, 28, 28).astype(np.float32)).move_to(DEVICE)
    y = Tensor(rng.randint(0, 10, 64).astype(np.int32)).move_to(DEVICE)
    rows["lenet_train_b64"] = 64 * rate(lambda: step(x, y), sync, 100)
    net.set_train(False)
    x1 = Tensor(rng.randn(1, 1, 28, 28).astype(np.float32)).move_to(DEVICE)
    rows["lenet_infer_b1"] = rate(lambda: net(x1), sync, 200)

    @ms.jit
    def chain(v):
        for i in range(100):
            if i % 3 == 0:
                v = v * 1.0001
            elif i % 3 == 1:
                v = v + 0.001
            else:
                v = ops.relu(v)
        return v
    v = Tensor(rng.randn(4096).astype(np.float32)).move_to(DEVICE)
    rows["chain100"] = rate(lambda: chain(v), sync, 200)
    if DEVICE == "GPU":  # (CUDA-graph capture)
        _mycel_chain100_graph(rows, chain, v, sync)
        _mycel_lenet_infer_b1_graph(rows, net, x1, sync)
    rows.update(matmul_rows_mycel(ms, ops, Tensor, sync, rng))
    from mycel import amp
    ms.set_seed(1)
    net = LeNet5()
    step = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9), loss,
                                   level="O2")
    rows["lenet_train_b64_bf16"] = 64 * rate(lambda: step(x, y), sync, 100)
    xm = Tensor(rng.randn(256, 1024).astype(np.float32)).move_to(DEVICE)
    ym = Tensor(rng.randn(256, 1024).astype(np.float32)).move_to(DEVICE)
    w = MLP_WIDTH
    for name, fused in (("mlp_train_b256", False), ("mlp_train_b256_fused", True)):
        ms.set_context(enable_graph_kernel=fused)
        ms.set_seed(1)
        mlp = nn.SequentialCell(nn.Dense(1024, w, activation="relu"),
                                nn.Dense(w, w, activation=nn.GELU()),
                                nn.Dense(w, 1024))
        mstep = nn.TrainOneStepCell(nn.WithLossCell(mlp, nn.MSELoss()),
                                    nn.Momentum(mlp.trainable_params(), 0.001, 0.9))
        rows[name] = 256 * rate(lambda: mstep(xm, ym), sync, 50)
    ms.set_context(enable_graph_kernel=False)
    return rows


MM = 4096  # (TINY: 256)


def mm_flop():
    return 2.0 * MM ** 3 / 1e12  # TFLOP per product


def matmul_rows_mycel(ms, ops, Tensor, sync, rng):
    from mycel.device_context.gpu import op_precision
    a = Tensor(rng.randn(MM, MM).astype(np.float32)).move_to(DEVICE)
    b = Tensor(rng.randn(MM, MM).astype(np.float32)).move_to(DEVICE)
    rows = {"mm4096_fp32": mm_flop() * rate(lambda: ops.matmul(a, b), sync, 20, warmup=3)}
    op_precision.matmul_allow_tf32(True)
    try:
        rows["mm4096_tf32"] = mm_flop() * rate(lambda: ops.matmul(a, b), sync, 20, warmup=3)
    finally:
        op_precision.matmul_allow_tf32(False)
    for name, dt in (("mm4096_bf16", ms.bfloat16), ("mm4096_fp16", ms.float16)):
        ah, bh = a.astype(dt), b.astype(dt)
        rows[name] = mm_flop() * rate(lambda: ops.matmul(ah, bh), sync, 50, warmup=5)
    return rows


def _mycel_chain100_graph(rows, chain, v, sync):
    """chain100 at jit_level O2: one captured graph per call."""
    import mycel as ms
    graph = ms.jit(chain._mycel_fn, jit_level="O2")
    want = chain(v).asnumpy()
    np.testing.assert_allclose(graph(v).asnumpy(), want, rtol=1e-6)  # warm-up
    np.testing.assert_allclose(graph(v).asnumpy(), want, rtol=1e-6)  # captured
    rows["chain100_graph"] = rate(lambda: graph(v), sync, 200)
    rows["chain100_graph_captured"] = graph._graph.capture_stats()["captures"]


def _mycel_lenet_infer_b1_graph(rows, net, x1, sync):
    """lenet_infer_b1 with set_context(jit_level="O2") (the Cell's compiled construct)."""
    import mycel as ms
    want = net(x1).asnumpy()
    ms.set_context(jit_level="O2")
    try:
        for _ in range(2):  # warm-up, capture
            np.testing.assert_allclose(net(x1).asnumpy(), want, rtol=1e-5, atol=1e-6)
        rows["lenet_infer_b1_graph"] = rate(lambda: net(x1), sync, 200)
        stats = net._compiled_construct()._graph.capture_stats()
        rows["lenet_infer_b1_graph_captured"] = stats["captures"]
    finally:
        ms.set_context(jit_level="O1")


def bench_torch():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    gpu = DEVICE == "GPU"
    dev = torch.device("cuda:0" if gpu else "cpu")
    torch.manual_seed(1)
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    rows = {}

    class LeNet5(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(1, 6, 5, padding=2)
            self.conv2 = tnn.Conv2d(6, 16, 5)
            self.fc1 = tnn.Linear(400, 120)
            self.fc2 = tnn.Linear(120, 84)
            self.fc3 = tnn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    net = LeNet5().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 1, 28, 28, device=dev)
    y = torch.randint(0, 10, (64,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(net(x), y).backward()
        opt.step()
    rows["lenet_train_b64"] = 64 * rate(step, sync, 100)
    net.eval()
    x1 = torch.randn(1, 1, 28, 28, device=dev)

    def infer():
        with torch.no_grad():
            net(x1)
    rows["lenet_infer_b1"] = rate(infer, sync, 200)

    def chain(v):
        for i in range(100):
            v = v * 1.0001 if i % 3 == 0 else (v + 0.001 if i % 3 == 1 else torch.relu(v))
        return v
    v = torch.randn(4096, device=dev)
    rows["chain100"] = rate(lambda: chain(v), sync, 200)
    if gpu:
        _torch_chain100_graph(rows, chain, v, sync)
    a = torch.randn(MM, MM, device=dev)
    b = torch.randn(MM, MM, device=dev)
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        for name, tf32 in (("mm4096_fp32", False), ("mm4096_tf32", True)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            rows[name] = mm_flop() * rate(lambda: a @ b, sync, 20, warmup=3)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    for name, dt in (("mm4096_bf16", torch.bfloat16), ("mm4096_fp16", torch.float16)):
        if not gpu and dt == torch.float16:
            continue  # (the dry run: PyTorch's CPU matmul has no float16)
        ah, bh = a.to(dt), b.to(dt)
        rows[name] = mm_flop() * rate(lambda: ah @ bh, sync, 50, warmup=5)
    net.train()

    def step_bf16():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev.type, dtype=torch.bfloat16):
            out = net(x)
        F.cross_entropy(out.float(), y).backward()
        opt.step()
    rows["lenet_train_b64_bf16"] = 64 * rate(step_bf16, sync, 100)
    w = MLP_WIDTH
    mlp = tnn.Sequential(tnn.Linear(1024, w), tnn.ReLU(), tnn.Linear(w, w),
                         tnn.GELU(approximate="tanh"), tnn.Linear(w, 1024)).to(dev)
    mopt = torch.optim.SGD(mlp.parameters(), lr=0.001, momentum=0.9)
    xm = torch.randn(256, 1024, device=dev)
    ym = torch.randn(256, 1024, device=dev)

    def mlp_step():
        mopt.zero_grad(set_to_none=True)
        F.mse_loss(mlp(xm), ym).backward()
        mopt.step()
    rows["mlp_train_b256"] = 256 * rate(mlp_step, sync, 50)
    return rows


def _torch_chain100_graph(rows, chain, v, sync):
    """chain100 captured once as a torch.cuda.CUDAGraph and replayed."""
    import torch
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            chain(v)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        chain(v)
    rows["chain100_graph"] = rate(g.replay, sync, 200)


def train_rate(step, sync, samples):
    """Samples per second of training `step` (which returns its loss; sync(loss) waits for the
    device): warm-up steps, one timed step to size the rounds, then the best of 3 rounds."""
    for _ in range(1 if TINY else 3):
        loss = step()
    sync(loss)
    t0 = time.perf_counter()
    sync(step())
    n = max(1, min(500, int(TRAIN_SECONDS / 3 / (time.perf_counter() - t0))))
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            loss = step()
        sync(loss)
        best = max(best, samples * n / (time.perf_counter() - t0))
    return best


def train_data(model):
    """(inputs, labels, config) of `model`'s training batch, as numpy (seeded)."""
    rng = np.random.default_rng(0)
    if model == "resnet18":
        c = TINY_RESNET if TINY else RESNET
        x = rng.standard_normal((c["batch"], 3, c["size"], c["size"]), np.float32)
    else:
        c = TINY_TRANSFORMER if TINY else TRANSFORMER
        x = rng.integers(0, c["vocab"], (c["batch"], c["seq"])).astype(np.int32)
    return x, rng.integers(0, c["classes"], c["batch"]).astype(np.int32), c


def mycel_train_row(model, precision):
    """samples/s of mycel's `model` training step in `precision` ("fp32" or "bf16"), GRAPH mode
    on DEVICE."""
    import mycel as ms
    from mycel import amp, models, nn, Tensor
    from mycel.train.loss_scale_manager import FixedLossScaleManager
    ms.set_context(mode=ms.GRAPH_MODE, device_target=DEVICE)
    ms.set_seed(1)
    x, y, c = train_data(model)
    if model == "resnet18":
        net = models.resnet18(num_classes=c["classes"])
    else:
        net = models.TransformerEncoderClassifier(
            c["vocab"], c["classes"], c["d_model"], c["nhead"], c["layers"], c["ff"],
            max_len=c["seq"], dropout=c["dropout"])
    net.set_train()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if precision == "bf16":
        # A fixed scale of 1 without overflow skipping: the plain TrainOneStepCell around
        # the O2 network (bfloat16 needs no loss scale; torch.autocast uses none here).
        step = amp.build_train_network(
            net, opt, loss, level="O2", cast_model_type=ms.bfloat16,
            loss_scale_manager=FixedLossScaleManager(1.0, drop_overflow_update=False))
    else:
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    x, y = Tensor(x).move_to(DEVICE), Tensor(y).move_to(DEVICE)

    def sync(out):
        ms.hal.synchronize()
        (out[0] if isinstance(out, tuple) else out).asnumpy()
    return train_rate(lambda: step(x, y), sync, c["batch"])


def torch_resnet18(classes):
    """ResNet-18 in torch.nn, laid out as mycel.models.resnet18: 7x7/2 convolution, BatchNorm,
    ReLU, 3x3/2 max pooling, four stages of two basic blocks (widths 64-512, stride 2 in the
    first block of stages 2-4 with a 1x1/2 convolution and BatchNorm on its shortcut), global
    average pooling, Linear. Convolutions without bias."""
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.short = None
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                           nn.BatchNorm2d(cout))

        def forward(self, x):
            out = self.bn2(self.conv2(self.bn1(self.conv1(x)).relu()))
            return (out + (x if self.short is None else self.short(x))).relu()

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for i, width in enumerate((64, 128, 256, 512)):
        stride = 1 if i == 0 else 2
        layers += [Block(cin, width, stride), Block(width, width, 1)]
        cin = width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers)


def torch_transformer(c):
    """The Transformer-encoder classifier in torch.nn, as mycel.models'."""
    import torch
    from torch import nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(c["vocab"], c["d_model"])
            self.pos = nn.Embedding(c["seq"], c["d_model"])
            self.norm = nn.LayerNorm(c["d_model"])
            self.dropout = nn.Dropout(c["dropout"])
            layer = nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["ff"], c["dropout"],
                                               activation="gelu", batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, c["layers"], enable_nested_tensor=False)
            self.head = nn.Linear(c["d_model"], c["classes"])
            self.register_buffer("positions", torch.arange(c["seq"]))

        def forward(self, ids):
            x = self.dropout(self.norm(self.tok(ids) + self.pos(self.positions)))
            return self.head(self.encoder(x).mean(1))
    return Classifier()


def torch_train_row(model, precision):
    """samples/s of the PyTorch `model`'s eager training step in `precision`."""
    import torch
    import torch.nn.functional as F
    gpu = DEVICE == "GPU"
    dev = torch.device("cuda:0" if gpu else "cpu")
    torch.backends.cudnn.allow_tf32 = False  # float32 as mycel computes it
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(1)
    x, y, c = train_data(model)
    net = torch_resnet18(c["classes"]) if model == "resnet18" else torch_transformer(c)
    net = net.to(dev).train()
    x = torch.from_numpy(x).to(dev)
    x = x.long() if model == "transformer" else x
    y = torch.from_numpy(y).long().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    cast = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=precision == "bf16")

    def step():
        opt.zero_grad(set_to_none=True)
        with cast:
            loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss

    def sync(loss):
        if gpu:
            torch.cuda.synchronize()
        loss.item()
    return train_rate(step, sync, c["batch"])


def table(mycel_file, torch_file):
    """The markdown table of every row either side produced (a side that failed: "-")."""
    def load(f):
        try:
            with open(f) as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return {}
    m, t = load(mycel_file), load(torch_file)
    units = {"lenet_train_b64": "samples/s", "lenet_infer_b1": "calls/s",
             "chain100": "calls/s", "chain100_graph": "calls/s", "mm4096_fp32": "TFLOP/s",
             "mm4096_tf32": "TFLOP/s", "mm4096_bf16": "TFLOP/s", "mm4096_fp16": "TFLOP/s",
             "lenet_train_b64_bf16": "samples/s", "mlp_train_b256": "samples/s",
             "mlp_train_b256_fused": "samples/s",
             "lenet_infer_b1_graph": "calls/s", "resnet18_train_fp32": "samples/s",
             "resnet18_train_bf16": "samples/s", "transformer_train_fp32": "samples/s",
             "transformer_train_bf16": "samples/s"}
    skip = ("device", "torch", "chain100_graph_captured", "lenet_infer_b1_graph_captured")
    names = list(units) + [k for k in list(m) + list(t) if k not in units and k not in skip]
    lines = [f"GPU: {t.get('device', m.get('device'))}, PyTorch {t.get('torch')} (eager)", "",
             "| row | mycel | PyTorch | mycel / PyTorch |", "|---|---|---|---|"]
    for k in dict.fromkeys(names):
        unit = units.get(k, "calls/s")
        mv, tv = m.get(k), t.get(k, t.get(k.replace("_fused", "")))  # fused: vs eager
        if mv is None and tv is None:
            continue
        ratio = f"{mv / tv:.2f}x" if mv and tv else "-"
        digits = 1 if unit == "TFLOP/s" else 0
        fm = f"{mv:,.{digits}f} {unit}" if mv else "-"
        ft = f"{tv:,.{digits}f} {unit}" if tv else "-"
        lines.append(f"| {k} | {fm} | {ft} | {ratio} |")
    if m.get("chain100_graph") and m.get("chain100"):
        lines += ["", f"mycel chain100_graph / chain100 (captured vs op by op): "
                      f"{m['chain100_graph'] / m['chain100']:.2f}x (target >= 3x); captured: "
                      f"{m.get('chain100_graph_captured')}"]
    print("\n".join(lines))


def device_name(torch_side):
    if DEVICE != "GPU":
        return "CPU (dry run: the numbers mean nothing)"
    if torch_side:
        import torch
        return torch.cuda.get_device_name(0)
    return None


def main():
    global DEVICE, TINY, TRAIN_SECONDS, MM, MLP_WIDTH
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--table", nargs=2)
    ap.add_argument("--device", choices=["GPU", "CPU"], default="GPU")
    ap.add_argument("--tiny", action="store_true", help="tiny sizes and counts (dry run)")
    ap.add_argument("--rows", choices=["all", "base", "train"], default="all",
                    help="base: LeNet and chain100; train: ResNet-18 and Transformer")
    a = ap.parse_args()
    if a.table:
        table(*a.table)
        return
    DEVICE, TINY = a.device, a.tiny
    if TINY:
        TRAIN_SECONDS, MM, MLP_WIDTH = 1.5, 256, 256
    rows = {}

    def save():  # after each group: a side cut short still leaves its rows
        print(json.dumps(rows, indent=1), flush=True)
        if a.out:
            with open(a.out, "w") as f:
                json.dump(rows, f)
    if a.rows in ("all", "base"):
        rows.update(bench_torch() if a.torch else bench_mycel())
        save()
    failed = []
    if a.rows in ("all", "train"):
        for model in ("resnet18", "transformer"):
            for precision in ("fp32", "bf16"):
                name = f"{model}_train_{precision}"
                try:  # one row failing leaves the others measured
                    rows[name] = (torch_train_row if a.torch else mycel_train_row)(
                        model, precision)
                except Exception:  # noqa: BLE001 (reported, and the exit status says so)
                    traceback.print_exc()
                    failed.append(name)
                save()
    rows["device"] = device_name(a.torch) or rows.get("device")
    if a.torch:
        import torch
        rows["torch"] = torch.__version__
    save()
    if failed:
        sys.exit(f"gpu_bench: failed rows: {', '.join(failed)}")


if __name__ == "__main__":
    main()
