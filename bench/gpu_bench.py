"""GPU benchmark rows, one framework per process (scripts/gpu_check.sh runs both on the same
GPU in one run): `gpu_bench.py --out F` measures mycel (GRAPH mode, device_target="GPU");
`gpu_bench.py --torch --out F` measures PyTorch eager on cuda:0 (and a CUDA-graph replay of
the elementwise chain). Each writes a JSON object of rows {name: value}; --table A B prints
the markdown table of the two with ratios (mycel / PyTorch speed: > 1 means mycel is faster).

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
Each mycel "_graph" row checks its result against op by op's and that the step was captured
(its *_captured row), so a fallback to op by op cannot pass for a captured graph.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def rate(fn, sync, n, warmup=10, rounds=3):
    """Calls per second of fn over n calls, best of `rounds`, after warm-up."""
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
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU")
    ms.set_seed(1)
    sync = ms.hal.synchronize
    rng = np.random.RandomState(0)
    rows = {}
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    x = Tensor(rng.randn(64, 1, 28, 28).astype(np.float32)).move_to("GPU")
    y = Tensor(rng.randint(0, 10, 64).astype(np.int32)).move_to("GPU")
    rows["lenet_train_b64"] = 64 * rate(lambda: step(x, y), sync, 100)
    net.set_train(False)
    x1 = Tensor(rng.randn(1, 1, 28, 28).astype(np.float32)).move_to("GPU")
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
    v = Tensor(rng.randn(4096).astype(np.float32)).move_to("GPU")
    rows["chain100"] = rate(lambda: chain(v), sync, 200)
    _mycel_chain100_graph(rows, chain, v, sync)
    _mycel_lenet_infer_b1_graph(rows, net, x1, sync)
    rows.update(matmul_rows_mycel(ms, ops, Tensor, sync, rng))
    from mycel import amp
    ms.set_seed(1)
    net = LeNet5()
    step = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9), loss,
                                   level="O2")
    rows["lenet_train_b64_bf16"] = 64 * rate(lambda: step(x, y), sync, 100)
    xm = Tensor(rng.randn(256, 1024).astype(np.float32)).move_to("GPU")
    ym = Tensor(rng.randn(256, 1024).astype(np.float32)).move_to("GPU")
    for name, fused in (("mlp_train_b256", False), ("mlp_train_b256_fused", True)):
        ms.set_context(enable_graph_kernel=fused)
        ms.set_seed(1)
        mlp = nn.SequentialCell(nn.Dense(1024, 4096, activation="relu"),
                                nn.Dense(4096, 4096, activation=nn.GELU()),
                                nn.Dense(4096, 1024))
        mstep = nn.TrainOneStepCell(nn.WithLossCell(mlp, nn.MSELoss()),
                                    nn.Momentum(mlp.trainable_params(), 0.001, 0.9))
        rows[name] = 256 * rate(lambda: mstep(xm, ym), sync, 50)
    ms.set_context(enable_graph_kernel=False)
    return rows


MM = 4096
MM_FLOP = 2.0 * MM ** 3 / 1e12  # TFLOP per product


def matmul_rows_mycel(ms, ops, Tensor, sync, rng):
    from mycel.device_context.gpu import op_precision
    a = Tensor(rng.randn(MM, MM).astype(np.float32)).move_to("GPU")
    b = Tensor(rng.randn(MM, MM).astype(np.float32)).move_to("GPU")
    rows = {"mm4096_fp32": MM_FLOP * rate(lambda: ops.matmul(a, b), sync, 20, warmup=3)}
    op_precision.matmul_allow_tf32(True)
    try:
        rows["mm4096_tf32"] = MM_FLOP * rate(lambda: ops.matmul(a, b), sync, 20, warmup=3)
    finally:
        op_precision.matmul_allow_tf32(False)
    for name, dt in (("mm4096_bf16", ms.bfloat16), ("mm4096_fp16", ms.float16)):
        ah, bh = a.astype(dt), b.astype(dt)
        rows[name] = MM_FLOP * rate(lambda: ops.matmul(ah, bh), sync, 50, warmup=5)
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
    dev = torch.device("cuda:0")
    torch.manual_seed(1)
    sync = torch.cuda.synchronize
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
    a = torch.randn(MM, MM, device=dev)
    b = torch.randn(MM, MM, device=dev)
    old = torch.backends.cuda.matmul.allow_tf32
    try:
        for name, tf32 in (("mm4096_fp32", False), ("mm4096_tf32", True)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            rows[name] = MM_FLOP * rate(lambda: a @ b, sync, 20, warmup=3)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    for name, dt in (("mm4096_bf16", torch.bfloat16), ("mm4096_fp16", torch.float16)):
        ah, bh = a.to(dt), b.to(dt)
        rows[name] = MM_FLOP * rate(lambda: ah @ bh, sync, 50, warmup=5)
    net.train()

    def step_bf16():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = net(x)
        F.cross_entropy(out.float(), y).backward()
        opt.step()
    rows["lenet_train_b64_bf16"] = 64 * rate(step_bf16, sync, 100)
    mlp = tnn.Sequential(tnn.Linear(1024, 4096), tnn.ReLU(), tnn.Linear(4096, 4096),
                         tnn.GELU(approximate="tanh"), tnn.Linear(4096, 1024)).to(dev)
    mopt = torch.optim.SGD(mlp.parameters(), lr=0.001, momentum=0.9)
    xm = torch.randn(256, 1024, device=dev)
    ym = torch.randn(256, 1024, device=dev)

    def mlp_step():
        mopt.zero_grad(set_to_none=True)
        F.mse_loss(mlp(xm), ym).backward()
        mopt.step()
    rows["mlp_train_b256"] = 256 * rate(mlp_step, sync, 50)
    rows["device"] = torch.cuda.get_device_name(0)
    rows["torch"] = torch.__version__
    return rows


def table(mycel_file, torch_file):
    m = json.load(open(mycel_file))
    t = json.load(open(torch_file))
    units = {"lenet_train_b64": "samples/s", "lenet_infer_b1": "calls/s",
             "chain100": "calls/s", "chain100_graph": "calls/s", "mm4096_fp32": "TFLOP/s",
             "mm4096_tf32": "TFLOP/s", "mm4096_bf16": "TFLOP/s", "mm4096_fp16": "TFLOP/s",
             "lenet_train_b64_bf16": "samples/s", "mlp_train_b256": "samples/s",
             "mlp_train_b256_fused": "samples/s",
             "lenet_infer_b1_graph": "calls/s"}
    lines = [f"GPU: {t.get('device')}, PyTorch {t.get('torch')} (eager, CUDA 13)", "",
             "| row | mycel | PyTorch | mycel / PyTorch |", "|---|---|---|---|"]
    for k, unit in units.items():
        mv, tv = m.get(k), t.get(k, t.get(k.replace("_fused", "")))  # fused: vs eager
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--table", nargs=2)
    a = ap.parse_args()
    if a.table:
        table(*a.table)
        return
    rows = bench_torch() if a.torch else bench_mycel()
    print(json.dumps(rows, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    main()
