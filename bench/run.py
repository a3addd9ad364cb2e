"""`make bench`: runs every benchmark, each framework in its own process in the same run, and
writes bench/RESULTS.md with the numbers side by side and mycel's ratio to the reference."""
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(script, *args, **extra_env):
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("BENCH_THREADS", "2"))
    env.update(extra_env)
    out = subprocess.run([sys.executable, os.path.join(HERE, script), *args],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"benchmark {script} {' '.join(args)} failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt(v):
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def graph_section():
    """The GRAPH-mode rows: compile time and LeNet-5 forward, side by side with PyTorch."""
    print("bench: graph mode (mycel GRAPH/PYNATIVE, then torch eager and torch.jit.script) ...",
          flush=True)
    my, th = run("graph_bench.py", "mycel"), run("graph_bench.py", "torch")
    script = "torch.jit.script"
    rows = []
    for model, label in (("lenet", "LeNet-5 forward"), ("mlp", "20-layer MLP forward")):
        key = f"{model}_compile_ms"
        ref = th.get(key)
        rows.append((f"{label}: first-call compile, ms", my[key],
                     script if ref is not None else
                     f"{script} failed: {th.get(model + '_compile_error', '?')}",
                     ref, "< 50 ms"))
    for batch in (1, 64):
        eager = th[f"lenet_b{batch}_eager_us"]
        rows.append((f"LeNet-5 forward, batch {batch}, GRAPH, µs/call",
                     my[f"lenet_b{batch}_graph_us"], "PyTorch eager", eager,
                     "≥ 2× PyTorch eager" if batch == 1 else "≥ PyTorch eager"))
        rows.append((f"LeNet-5 forward, batch {batch}, PYNATIVE, µs/call",
                     my[f"lenet_b{batch}_pynative_us"], "PyTorch eager", eager,
                     "≥ PyTorch eager"))
    lines = [
        "## Graph mode",
        "",
        "Produced by the same `make bench` run (bench/graph_bench.py). Compile time: in a fresh "
        "process, the time of the first call minus the median of later calls, the median of "
        "3 processes; mycel: the first GRAPH-mode call (parse, specialise, optimise, VM "
        "program, run); PyTorch: `torch.jit.script(model)` plus the scripted module's first "
        "call (its profiling executor optimises again on calls 2-3; not counted). The "
        "20-layer MLP is Dense(128, 128) x 20 with ReLU between, in a SequentialCell. "
        "Forward: LeNet-5 (1x32x32 input, float32), median of 7 repeats after a warm-up; "
        "PyTorch eager under torch.no_grad(). Speed ratio: the reference's time over "
        "mycel's (> 1 means mycel is faster).",
        "",
        "| benchmark | mycel | reference | reference value | speed ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    for label, mine, ref_name, ref, target in rows:
        ratio = "n/a" if ref is None else f"{ref / mine:.2f}"
        lines.append(f"| {label} | {fmt(mine)} | {ref_name} | "
                     f"{'n/a' if ref is None else fmt(ref)} | {ratio} | {target} |")
    lines.append("")
    return lines


def grad_section():
    """Automatic differentiation: a LeNet-5 training step and tanh's third derivative."""
    print("bench: autodiff (mycel GRAPH/PYNATIVE, then torch at 4 thread settings) ...",
          flush=True)
    my = run("grad_bench.py", "mycel")
    # PyTorch's OpenMP pool and OpenBLAS's pool compete for the cores: take its best setting.
    best, best_setting = {}, {}
    for threads in ("1", "2"):
        for blas in ("1", "2"):
            th = run("grad_bench.py", "torch", BENCH_THREADS=threads, OMP_NUM_THREADS=threads,
                     OPENBLAS_NUM_THREADS=blas)
            for k, v in th.items():
                if k not in best or v < best[k]:
                    best[k], best_setting[k] = v, f"{threads} threads, OpenBLAS {blas}"
    rows = []
    for mode, target in (("graph", "≥ 1.5× PyTorch"), ("pynative", "≥ 1.0× PyTorch")):
        rows.append((f"LeNet-5 training step (fwd + bwd, batch 64), {mode.upper()}, ms",
                     my[f"lenet_step_{mode}_ms"],
                     f"PyTorch eager ({best_setting['lenet_step_ms']})",
                     best["lenet_step_ms"], target))
    for mode in ("graph", "pynative"):
        rows.append((f"10,000 × grad(grad(grad(tanh)))(2.0), {mode.upper()}, s",
                     my[f"tanh3_{mode}_s"], f"PyTorch autograd ({best_setting['tanh3_s']})",
                     best["tanh3_s"], "≥ 2× PyTorch" if mode == "graph" else "n/a"))
    lines = [
        "## Automatic differentiation",
        "",
        "Produced by the same `make bench` run (bench/grad_bench.py). Training step: LeNet-5, "
        "batch 64, forward + cross-entropy + gradients of all weights, no optimizer update; "
        "mycel `value_and_grad(loss, None, net.trainable_params())` (GRAPH: one compiled "
        "graph; PYNATIVE: the eager forward recorded into IR, the cached backward graph run on "
        "its values); PyTorch eager with `torch.autograd.grad`, at its best of torch threads "
        "1/2 x OpenBLAS threads 1/2. tanh: 10,000 calls of the third derivative of tanh at a "
        "0-d float32 tensor; PyTorch nests `torch.autograd.grad(create_graph=True)`. Speed "
        "ratio: the reference's time over mycel's (> 1 means mycel is faster).",
        "",
        "| benchmark | mycel | reference | reference value | speed ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    for label, mine, ref_name, ref, target in rows:
        lines.append(f"| {label} | {fmt(mine)} | {ref_name} | {fmt(ref)} | {ref / mine:.2f} | "
                     f"{target} |")
    lines.append("")
    return lines


def train_section():
    """Training throughput on Fashion-MNIST: LeNet-5 and an MLP, full steps with Momentum."""
    print("bench: training (mycel GRAPH, PYNATIVE, then torch at 4 thread settings) ...",
          flush=True)
    my = {m: run("train_bench.py", "mycel", m) for m in ("graph", "pynative")}
    best, best_setting, best_mem = {}, {}, {}
    for threads in ("1", "2"):
        for blas in ("1", "2"):
            th = run("train_bench.py", "torch", BENCH_THREADS=threads, OMP_NUM_THREADS=threads,
                     OPENBLAS_NUM_THREADS=blas)
            for k in ("lenet_samples_per_s", "mlp_samples_per_s"):
                if th[k] > best.get(k, 0):
                    best[k], best_setting[k] = th[k], f"{threads} threads, OpenBLAS {blas}"
                    best_mem[k] = th["peak_mb"]
    lines = [
        "## Training throughput",
        "",
        "Produced by the same `make bench` run (bench/train_bench.py). Fashion-MNIST training "
        "images, batch 64, full steps (forward, cross-entropy, backward, Momentum update with "
        "lr 0.01, momentum 0.9) over 300 batches prepared in memory beforehand, after 20 warm-up "
        "steps. mycel: `nn.TrainOneStepCell` in GRAPH mode (one compiled graph per step) and in "
        "PYNATIVE mode; PyTorch eager with `loss.backward()` and `torch.optim.SGD`, at its best "
        "of torch threads 1/2 x OpenBLAS threads 1/2, each setting in its own process. Peak "
        "memory: the process's maximum resident set (both models trained in one process, so it "
        "is the larger of the two plus the framework). Speed ratio: mycel's samples/s over "
        "PyTorch's.",
        "",
        "| model | mycel mode | mycel samples/s | PyTorch samples/s (setting) | speed ratio | "
        "target | peak MB mycel / PyTorch |",
        "|---|---|---|---|---|---|---|",
    ]
    names = {"lenet": "LeNet-5", "mlp": "MLP 784-512-256-10"}
    for model in ("lenet", "mlp"):
        k = f"{model}_samples_per_s"
        for mode, target in (("graph", "≥ 1.5"), ("pynative", "≥ 1.0")):
            lines.append(f"| {names[model]} | {mode.upper()} | {my[mode][k]:,.0f} | "
                         f"{best[k]:,.0f} ({best_setting[k]}) | {my[mode][k] / best[k]:.2f} | "
                         f"{target} | {my[mode]['peak_mb']:.0f} / {best_mem[k]:.0f} |")
    lines.append("")
    return lines


def data_section():
    """Data-pipeline throughput: mycel's dataset engine against torch's DataLoader."""
    print("bench: data pipelines (mycel, then torch DataLoader; 1 and 2 workers) ...",
          flush=True)
    my, th = run("data_bench.py", "mycel"), run("data_bench.py", "torch")
    workloads = [
        ("fashion", "Fashion-MNIST: rescale + normalize + CHW, batch 64", "Tensor"),
        ("fashion_numpy", "Fashion-MNIST: rescale + normalize + CHW, batch 64", "numpy"),
        ("folder", "JPEG folder: decode + resize 256 + crop 224 + flip + normalize, batch 32",
         "Tensor"),
        ("folder_pil", "JPEG folder, as above with PIL's bicubic resize on both sides",
         "Tensor"),
    ]
    lines = [
        "## Data pipeline",
        "",
        "Produced by the same `make bench` run (bench/data_bench.py, whose docstring has the "
        "details). The same work on both sides: mycel's `mycel.dataset` pipeline "
        "(`config.set_num_parallel_workers(n)`: n threads for each op, the ops running "
        "concurrently) against PyTorch's `DataLoader(num_workers=n)` (n worker processes "
        "besides the main one) with torchvision's datasets and transforms. Fashion-MNIST: the "
        "60,000 training images, shuffled, scaled to [0, 1], normalised (0.2860, 0.3530), CHW "
        "float32, batches of 64 (remainder dropped); mycel `FashionMnistDataset` -> map "
        "[Rescale, Normalize, HWC2CHW], TypeCast(int32) on the label -> batch; PyTorch "
        "`FashionMNIST` with ToTensor + Normalize. JPEG folder: 2,000 generated JPEGs "
        "(300-500 px a side, quality 90, 10 classes), shuffled, decoded, shorter side resized "
        "to 256 (bilinear), random 224 crop, random horizontal flip, scaled and normalised "
        "with ImageNet's mean/std, CHW float32, batches of 32; mycel `ImageFolderDataset` -> "
        "map [Decode, Resize, RandomCrop, RandomHorizontalFlip, Rescale, Normalize, HWC2CHW]; "
        "PyTorch `ImageFolder` (PIL) with Resize, RandomCrop, RandomHorizontalFlip, ToTensor, "
        "Normalize (both decode with libjpeg-turbo; PIL's downscale is antialiased, mycel's "
        "bilinear is OpenCV's, fewer taps per pixel). The PIL-bicubic rows do the same "
        "arithmetic on both sides: mycel `Resize(256, Inter.PILCUBIC)` (PIL's resampling, "
        "tested equal to PIL's output to within 1) against torchvision "
        "`Resize(256, InterpolationMode.BICUBIC)`. A pass is one epoch from a fresh iterator "
        "(new threads / new worker processes), consumed as mycel Tensors "
        "(\"numpy\": `output_numpy=True`) or torch tensors; images/s of the best of 3 passes. "
        "Reading the Fashion-MNIST files is construction, not timed in the epochs: mycel "
        f"{my['fashion_construct_s']:.2f} s (decompressing the .gz files; "
        f"{my['fashion_reconstruct_s'] * 1000:.1f} ms from its per-process cache when built "
        f"again), torchvision {th['fashion_construct_s']:.2f} s (the raw files, un-gzipped "
        "beforehand). Speed ratio: mycel's images/s over PyTorch's.",
        "",
        "| workload | mycel output | workers | mycel images/s | PyTorch images/s | "
        "speed ratio | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, label, output in workloads:
        ref = key.replace("_numpy", "")
        for w in (1, 2):
            mine, theirs = my[f"{key}_w{w}"], th[f"{ref}_w{w}"]
            lines.append(f"| {label} | {output} | {w} | {mine:,.0f} | {theirs:,.0f} | "
                         f"{mine / theirs:.2f} | ≥ 2× |")
    lines.append("")
    return lines


def main():
    print("bench: eager ops (mycel with oneDNN's sgemm interleaved, then torch) ...", flush=True)
    my, th = run("ops_bench.py", "mycel"), run("ops_bench.py", "torch")
    # (label, key, reference name, reference value, higher_is_better, target)
    rows = [
        ("Eager 1-element add from Python, µs/call (100k calls)", "add1_us", "PyTorch",
         th["add1_us"], False, "≤ PyTorch"),
        ("`import` time, s", "import_s", "PyTorch", th["import_s"], False, "< 0.3 s"),
        ("MatMul 1024³ float32, GFLOP/s", "matmul1024_gflops", "oneDNN sgemm",
         my["onednn1024_gflops"], True, "within 10% of oneDNN"),
        ("MatMul 4096³ float32, GFLOP/s", "matmul4096_gflops", "oneDNN sgemm",
         my["onednn4096_gflops"], True, "within 10% of oneDNN"),
        ("MatMul 1024³ float32, GFLOP/s", "matmul1024_gflops", "PyTorch",
         th["matmul1024_gflops"], True, "≥ PyTorch"),
        ("MatMul 4096³ float32, GFLOP/s", "matmul4096_gflops", "PyTorch",
         th["matmul4096_gflops"], True, "≥ PyTorch"),
        ("LeNet convs fwd + dx + dw, batch 64, ms", "lenet_conv_fwdbwd_ms", "PyTorch",
         th["lenet_conv_fwdbwd_ms"], False, "≥ PyTorch speed"),
        ("Chain of 10 elementwise ops on 1M float32, ms", "chain10_ms", "PyTorch",
         th["chain10_ms"], False, "≥ PyTorch speed"),
    ]
    lines = [
        "# Benchmarks",
        "",
        f"Produced by `make bench` (python3 bench/run.py) on {datetime.date.today()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, "
        f"{os.environ.get('BENCH_THREADS', '2')} threads for every framework. "
        "Each framework runs in its own process in the same run (oneDNN's sgemm is called "
        "through ctypes inside mycel's process, interleaved with mycel's MatMul); each number "
        "is a median of repeats after a warm-up (the per-call add: the best of 9 runs of 100k "
        "calls, as Python's timeit reports). Speed ratio: mycel's speed over the reference's "
        "(> 1 means mycel is faster).",
        "",
        "| benchmark | mycel | reference | reference value | speed ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    for label, key, ref_name, ref, higher, target in rows:
        mine = my[key]
        ratio = mine / ref if higher else ref / mine
        lines.append(f"| {label} | {fmt(mine)} | {ref_name} | {fmt(ref)} | {ratio:.2f} | "
                     f"{target} |")
    lines.append("")
    lines += graph_section()
    lines += grad_section()
    lines += train_section()
    lines += data_section()
    path = os.path.join(HERE, "RESULTS.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
