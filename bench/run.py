"""`make bench`: runs every benchmark, each framework in its own process in the same run, and
writes bench/RESULTS.md with the numbers side by side and mycel's ratio to the reference.

`python3 bench/run.py --only SECTION` (graph, grad, train, amp, data, distributed, parallel,
pipeline, optimizer, privacy, armour, federated, search, recompute, simgrid, lite, vmap, fft,
sparse, ...:
see SECTIONS) runs one
section and replaces it in the existing RESULTS.md, keeping the others as they are; the
section says which command produced it. The federated section's LeNet run is long (up to
FL_BENCH_MAX_ROUNDS rounds, default 600, each a fifth of an epoch of Fashion-MNIST over 20
of the 100 clients; then FL_BENCH_SIDE_ROUNDS rounds, default 100, with compression and with
DP at two budgets)."""
import argparse
import datetime
import json
import os
import platform
import statistics
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


DIST_ROUNDS = 5
DP_ROUNDS = 3


def dist_section(produced_by):
    """All-reduce latency and bandwidth between 2 processes on the loopback: mycel over Gloo
    and over Open MPI, against torch.distributed's gloo backend."""
    print(f"bench: distributed ({DIST_ROUNDS} rounds of: mycel Gloo, torch gloo, mycel MPI, "
          f"TCP ping-pong; then {DP_ROUNDS} of data-parallel LeNet: mycel Gloo, mycel MPI, "
          "torch DDP; 2 processes each) ...", flush=True)
    modes = ("mycel", "torch", "mycel-mpi", "pingpong")
    got = {m: [] for m in modes}
    load = [os.getloadavg()[0]]  # the machine may be shared: reported with the numbers
    for _ in range(DIST_ROUNDS):  # interleaved, so a slow moment of the machine hits all
        for m in modes:
            got[m].append(run("dist_bench.py", m))
    dp_modes = ("mycel", "mycel-mpi", "torch")
    dp = {m: [] for m in dp_modes}
    for _ in range(DP_ROUNDS):
        for m in dp_modes:
            dp[m].append(run("dp_bench.py", m)["samples_per_s"])
    load.append(os.getloadavg()[0])

    def med(mode, key):
        return statistics.median(r[key] for r in got[mode])

    def spread(mode, key):
        vals = [r[key] for r in got[mode]]
        return f"{fmt(min(vals))}–{fmt(max(vals))}"

    lat_t, bw_t = med("torch", "latency_us"), med("torch", "bw_gbps")
    ref_lat = "PyTorch gloo `dist.all_reduce`, µs"
    ref_bw = "PyTorch gloo `dist.all_reduce`, GB/s"
    rows = [  # (label, mode, key, reference name, reference, higher is better, target)
        ("All-reduce latency, 4 B (1 float32), sum, 2 processes, mycel Gloo PYNATIVE "
         "`ops.AllReduce()(x)`, µs/call", "mycel", "latency_us", ref_lat, lat_t, False,
         "≥ 1.0×"),
        ("All-reduce bandwidth, 64 MiB float32, sum, 2 processes, mycel Gloo PYNATIVE, GB/s "
         "(algorithm bandwidth)", "mycel", "bw_gbps", ref_bw, bw_t, True, "≥ 1.0×"),
        ("Extra row, other transport: all-reduce latency, 4 B, mycel **MPI** backend "
         "(mpirun, shared memory) vs PyTorch **gloo**, µs/call", "mycel-mpi", "latency_us",
         ref_lat, lat_t, False, "— (backends differ)"),
        ("Extra row, other transport: all-reduce bandwidth, 64 MiB, mycel **MPI** backend "
         "(mpirun, shared memory) vs PyTorch **gloo**, GB/s", "mycel-mpi", "bw_gbps", ref_bw,
         bw_t, True, "— (backends differ)"),
    ]
    lines = [
        "## Distributed",
        "",
        f"Produced by {produced_by} (bench/dist_bench.py, whose docstring has the details). "
        "All-reduce (sum) of float32 between 2 processes on one machine, on the loopback "
        "address only, 1 compute thread per process (OMP_NUM_THREADS=1, "
        "torch.set_num_threads(1); PyTorch's ProcessGroupGloo keeps its own worker threads, as "
        "for any user). mycel: `ops.AllReduce()(x)` in PYNATIVE mode, the per-call path a user "
        "sees (a new output tensor per call, after the ranks check that they make the same call: "
        "MYCEL_COMM_CHECK, on by default; an input of up to 1 KiB travels with the check, so "
        "the 4-byte row is one all-gather), on the Gloo backend (ranks started with the "
        "environment `mycel.run` sets: MS_WORKER_NUM, RANK_ID, MS_SCHED_HOST=127.0.0.1, a "
        "free MS_SCHED_PORT) and on the MPI backend (`mpirun --allow-run-as-root "
        "--oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo --mca "
        "oob_tcp_if_include lo -np 2`; the backend's non-blocking all-reduce, "
        "`MPI_Iallreduce`, runs Open MPI's ring algorithm, which the backend chooses unless "
        "`OMPI_MCA_coll_libnbc_iallreduce_algorithm` says otherwise: the default one was 2× "
        "slower on 64 MiB here). "
        "PyTorch " + str(got["torch"][0].get("torch_version", "")) + ": "
        "`torch.distributed.all_reduce(t)` (in place) with the gloo backend, "
        "`init_method=tcp://127.0.0.1:PORT`, GLOO_SOCKET_IFNAME=lo. Latency: one float32 "
        "(4 bytes), 200 warm-up calls, then 5 repeats of 200 calls, each repeat after a "
        "barrier; the median of the repeats' µs/call. Bandwidth: 64 MiB (16M float32), 3 "
        "warm-up calls, then 7 calls each after a barrier; algorithm bandwidth = 64 MiB / "
        "the median call time (GB/s = 1e9 bytes/s). Both ranks time; rank 0's numbers are "
        "reported. Each job (mycel Gloo, PyTorch gloo, mycel MPI, mycel MPI ring) ran "
        f"{DIST_ROUNDS} times, interleaved, each in fresh processes on free ports; the "
        "table has the median over the jobs, the range over the jobs is in brackets. The "
        "MPI rows compare a different transport (Open MPI's shared-memory BTL, busy-polling) "
        "with the same PyTorch gloo numbers; they are not a like-for-like comparison. "
        "Speed ratio: the reference's time over mycel's (latency), mycel's GB/s over the "
        "reference's (bandwidth); > 1 means mycel is faster. The 1-minute load average was "
        f"{load[0]:.1f} when the run started and {load[1]:.1f} when it ended (2 cores; above "
        "2, other work shared them and every time here is inflated and noisy, so compare "
        "the frameworks within this run only).",
        "",
        "| benchmark | mycel | reference | reference value | speed ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    for label, mode, key, ref_name, ref, higher, target in rows:
        mine = med(mode, key)
        ratio = mine / ref if higher else ref / mine
        ref_mode = "torch"
        lines.append(f"| {label} | {fmt(mine)} [{spread(mode, key)}] | {ref_name} | "
                     f"{fmt(ref)} [{spread(ref_mode, key)}] | {ratio:.2f} | {target} |")
    rtt = med("pingpong", "rtt_us")
    lines += [
        "",
        f"Context, measured in the same run: a 4-byte TCP round trip between two plain Python "
        f"processes on the loopback (blocking sockets, TCP_NODELAY; `dist_bench.py pingpong`) "
        f"takes {fmt(rtt)} µs [{spread('pingpong', 'rtt_us')}] on this machine (when the "
        "machine is otherwise idle, most of that time goes to waking a sleeping CPU, so "
        "each thread hand-off in a call adds to the latency rows). Both frameworks move "
        "the bytes with the same libgloo: PyTorch's 2-rank all-reduce runs Gloo's ring in two "
        "steps (reduce-scatter, then all-gather), each a message each way; mycel's 4-byte "
        "call is the one all-gather of its call check, and at 64 MiB (two ranks) it runs the "
        "ring's two steps fused segment by segment on Gloo's transport: each rank reduces "
        "one half of the buffer and sends each reduced 1 MiB segment back as soon as it is "
        "done, so the all-gather overlaps the reduce-scatter (the same bytes on the wire as "
        "the ring; comm/gloo_comm.cc; up to 1 MiB, two ranks exchange their buffers in one "
        "step). About one round trip is the floor under both latency rows. mycel's "
        "rank 1 measured "
        f"{fmt(med('mycel', 'peer_latency_us'))} µs and {fmt(med('mycel', 'peer_bw_gbps'))} "
        f"GB/s, PyTorch's rank 1 {fmt(med('torch', 'peer_latency_us'))} µs and "
        f"{fmt(med('torch', 'peer_bw_gbps'))} GB/s (medians over the jobs).",
        "",
    ]
    return lines + dp_rows(dp)


def dp_rows(dp):
    """The data-parallel LeNet rows (bench/dp_bench.py), best of the rounds."""
    torch_sps = max(dp["torch"])
    lines = [
        "Data-parallel training (bench/dp_bench.py, same run): LeNet-5 on Fashion-MNIST at 2 "
        "processes of 1 thread each on the loopback, global batch 64 (32 per process), "
        "Momentum SGD, cross-entropy; mycel GRAPH mode with `set_auto_parallel_context("
        "parallel_mode=\"data_parallel\", gradients_mean=True)` (TrainOneStepCell "
        "all-reduces the gradients in buckets, overlapping the backward pass) against "
        "PyTorch's DistributedDataParallel on gloo. LeNet's 62k gradients are one bucket "
        "in both (comm_fusion's 64 MB; DDP's first bucket takes up to 1 MiB); mycel's ranks "
        "agree on its AllReduce once, when the reducer is made, so a step costs one exchange "
        "of 247 KB and no call check. Global samples/s over 300 steps after 20, "
        f"the best of 3 passes, the best of {DP_ROUNDS} interleaved jobs. On Gloo both "
        "frameworks pay the transport's hand-offs between threads (about 1 ms per message "
        "after computing, on this virtual machine, where waking an idle CPU is slow); MPI "
        "polls from the calling thread.",
        "",
        "| benchmark | mycel | reference | reference value | speed ratio | target |",
        "|---|---|---|---|---|---|",
        f"| Data-parallel LeNet-5 training, 2 processes × 1 thread, mycel on Gloo, samples/s "
        f"| {fmt(max(dp['mycel']))} | PyTorch DDP (gloo) | {fmt(torch_sps)} | "
        f"{max(dp['mycel']) / torch_sps:.2f} | ≥ 1.5× |",
        f"| Extra row, other transport: the same, mycel on **MPI**, samples/s "
        f"| {fmt(max(dp['mycel-mpi']))} | PyTorch DDP (gloo) | {fmt(torch_sps)} | "
        f"{max(dp['mycel-mpi']) / torch_sps:.2f} | — (backends differ) |",
        "",
    ]
    return lines


def amp_section():
    """Mixed precision: a training step in bfloat16 (amp O2) against float32, mycel GRAPH."""
    print("bench: mixed precision (mycel GRAPH, float32 and amp O2 bfloat16) ...", flush=True)
    my = run("amp_bench.py")
    lines = [
        "## Mixed precision",
        "",
        "Produced by bench/amp_bench.py. One training step (forward, cross-entropy, backward, "
        "Momentum update) in GRAPH mode, float32 (`nn.TrainOneStepCell`) against "
        "`amp.build_train_network(..., level=\"O2\")` in bfloat16 (with the dynamic loss "
        "scale's overflow check and skip in every step). Transformer-style MLP: two pre-norm "
        "feed-forward blocks (LayerNorm, Dense 512->2048, GeLU, Dense 2048->512, residual) "
        "and a Dense head on 1024 tokens; LeNet-5 at batch 64 (its convolutions are too narrow "
        "for the bf16 kernels to win, so they stay float32 inside O2). ms per step, the best of "
        "3 passes of 20 steps. Speed ratio: float32's time over bfloat16's.",
        "",
        "| model | float32 ms/step | O2 bfloat16 ms/step | speed ratio | target |",
        "|---|---|---|---|---|",
    ]
    for key, label, target in (("mlp", "Transformer-style MLP, 1024 tokens, d=512", "≥ 1.5"),
                               ("lenet", "LeNet-5, batch 64", "-")):
        a, b = my[f"{key}_fp32_ms"], my[f"{key}_o2_bf16_ms"]
        lines.append(f"| {label} | {a:.2f} | {b:.2f} | {a / b:.2f} | {target} |")
    lines.append("")
    return lines


def _table(title, prose, columns, rows):
    """A RESULTS.md section: heading, prose, then a table of `rows` under `columns`."""
    return ([f"## {title}", "", prose, "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)] + ["| " + " | ".join(r) + " |" for r in rows] + [""])


def sink_section():
    """Data sink: LeNet-5 with Model.train step by step against dataset_sink_mode."""
    print("bench: data sink (LeNet-5, mycel GRAPH, step by step vs sink) ...", flush=True)
    my = run("sink_bench.py")
    same = "identical" if my["max_weight_diff"] == 0 else f"differ by {my['max_weight_diff']:.3g}"
    rows = [[label, f"{my[f'step_{k}']:.2f}", f"{my[f'sink_{k}']:.2f}",
             f"{my[f'step_{k}'] / my[f'sink_{k}']:.2f}"]
            for k, label in (("min_ms", "LeNet ms/step, fastest of 15 rounds of 100 steps"),
                             ("median_ms", "LeNet ms/step, median round"),
                             ("epoch_s", f"LeNet, one epoch ({my['steps']} steps), s"),
                             ("tiny_min_ms", "Dense(4, 2) ms/step, fastest of 15 rounds of "
                                             "500 steps"),
                             ("tiny_median_ms", "Dense(4, 2) ms/step, median round"))]
    return _table(
        "Data sink",
        "Produced by bench/sink_bench.py. LeNet-5 on Fashion-MNIST (batch 64, Momentum) with "
        "`Model.train` in GRAPH mode: step by step (each batch handed to Python, which calls "
        "the compiled step) against `dataset_sink_mode=True` (the compiled step loops in C++ "
        "over the data engine's batches). Rounds alternate between the two; the epochs start "
        f"from the same weights and read the same batches, and their weights are {same}. "
        "The Dense(4, 2) step on batches of 8 shows the per-step overhead the sink removes "
        "(the Python iteration, the batch's Python Tensors, the Cell call, the signature "
        "lookup). Speed ratio: step by step's time over the sink's. The machine is shared and "
        "loaded, so the fastest round is the measure; the rest show the noise.",
        ["measure", "step by step", "sink", "speed ratio"], rows)


def thor_section():
    """THOR against Momentum: LeNet-5 test accuracy per epoch on Fashion-MNIST."""
    print("bench: THOR vs Momentum (LeNet-5, Fashion-MNIST, accuracy per epoch) ...", flush=True)
    my = run("thor_bench.py")
    sched = (f"lr {my['thor_lr']} x {my['thor_lr_decay']} per epoch")
    rows = []
    for name, label in (("momentum", "Momentum, lr 0.01"), ("momentum_schedule",
                                                          f"Momentum, {sched}"),
                        ("thor", f"THOR, {sched}")):
        c = my[name]
        rows.append([label] + [f"{a:.4f}" for a in c["accuracy"]] +
                    [str(c["epochs_to_target"] or f"> {my['epochs']}"),
                     f"{sum(c['epoch_s']) / len(c['epoch_s']):.1f}"])
    return _table(
        "THOR",
        "Produced by bench/thor_bench.py. LeNet-5 on Fashion-MNIST, batch 32, GRAPH mode: "
        "Momentum 0.9 (at the quick-start's constant lr 0.01, and at THOR's learning-rate "
        "schedule) against `nn.thor` through `ConvertModelUtils.convert_to_thor_model` "
        f"(momentum 0.9, damping {my['thor_damping']} x {my['thor_damping_decay']} per epoch, "
        f"frequency {my['thor_frequency']}), all from the same initial weights. Test accuracy "
        "after each epoch; the epoch at which each first reaches "
        f"{my['target']:.0%}; seconds per epoch (this machine is shared).",
        ["optimizer"] + [f"epoch {i + 1}" for i in range(my["epochs"])] +
        [f"epochs to {my['target']:.0%}", "s/epoch"], rows)


def parallel_section():
    """Tensor parallelism (semi_auto_parallel, Megatron MLP) against data parallelism and one
    process: throughput and memory per rank at 2 and 4 processes."""
    print("bench: tensor vs data parallelism (MLP 1024-4096-1024; serial, dp 2/4, tp 2/4) ...",
          flush=True)
    runs = [("serial", 1), ("dp", 2), ("tp", 2), ("dp", 4), ("tp", 4)]
    got = {r: run("tp_bench.py", r[0], str(r[1])) for r in runs}
    serial = got[("serial", 1)]["samples_per_s"]
    lines = [
        "## Tensor parallelism",
        "",
        "bench/tp_bench.py (its docstring has the details): a two-layer MLP 1024 → 4096 → "
        "1024 (GeLU, MSE, Momentum), global batch 64, float32, mycel GRAPH mode, 1 thread per "
        "process, Gloo on the loopback. Data parallel: each process holds every weight and "
        "its momentum, runs 64/N rows and all-reduces the gradients (32 MiB a step). Tensor "
        "parallel (`semi_auto_parallel`, the first MatMul split by columns, the second by "
        "rows): each process holds 1/N of both weights and their momentum, runs the whole "
        "batch and all-reduces 256 KiB of partial sums forward and of the input gradient "
        "backward. Global samples/s (best of 3 passes of 10 steps); weights + momentum held "
        "by rank 0; its peak resident memory. This machine has 2 cores: at 4 processes they "
        "share them. There is no tensor-parallel baseline in Debian's PyTorch.",
        "",
        "| run | samples/s | vs one process | weights + state per rank, MiB | peak RSS per "
        "rank, MiB |",
        "|---|---|---|---|---|",
    ]
    for (mode, n) in runs:
        r = got[(mode, n)]
        name = {"serial": "one process", "dp": f"data parallel, {n} processes",
                "tp": f"tensor parallel, {n} processes"}[mode]
        lines.append(f"| {name} | {fmt(r['samples_per_s'])} | "
                     f"{r['samples_per_s'] / serial:.2f} | {fmt(r['state_mb'])} | "
                     f"{fmt(r['peak_rss_mb'])} |")
    lines.append("")
    return lines


def pipeline_section():
    """Pipeline parallelism: each stage's measured idle fraction against (S-1)/(M+S-1)."""
    print("bench: pipeline bubble (2 stages on 2 processes, GPipe and 1F1B, M = 2, 4, 8) ...",
          flush=True)
    load = os.getloadavg()[0]
    lines = [
        "## Pipeline parallelism",
        "",
        "bench/pipeline_bench.py (its docstring has the details): `nn.PipelineCell`, 2 stages "
        "on 2 processes (Gloo, loopback, 1 thread each), an MLP of 8 Dense layers 1024 wide "
        "(4 per stage), float32, 512 rows per micro-batch. A stage's idle fraction is 1 - "
        "(time in its stage programs, the gradient sums included) / (the step's span over "
        "both stages), from the recorded events of the step with the shortest span of 5; "
        "the ideal for equal stages is (S-1)/(M+S-1). A stage's backward recomputes its "
        "forward (about 3 forward times), the same on both stages, so the ideal holds for "
        "both schedules. Replayed: the same measured durations run through the schedule "
        "with no latency (`pipeline.replay`), the schedule's own bubble; the difference is "
        "communication and process wake-ups, large on a loaded machine. The stages do equal "
        "work (11 MatMuls in each backward: stage 0 computes no gradient of its input, and "
        "stage 1's first Dense is frozen); `unequal` rows train every layer, so stage 0's "
        "backward is one MatMul (1/12) lighter: for them the replay, not the formula, is the "
        "ideal of the schedule. On a loaded machine a program's time includes its "
        "preemptions (busy time inflated), so a ratio below 1 is noise, not a schedule "
        "better than the ideal: measure on a quiet machine. Load average when "
        f"measured: {load:.1f} on {os.cpu_count()} cores.",
        "",
        "| schedule | M | stages | ideal | idle, stage 0 | idle, stage 1 | mean | mean / ideal | "
        "replayed mean | replayed / ideal | step ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for sched, m, unequal in [(s, m, False) for s in ("gpipe", "1f1b") for m in (2, 4, 8)] + [
            (s, 4, True) for s in ("gpipe", "1f1b")]:
        r = run("pipeline_bench.py", sched, str(m), *(["--unequal"] if unequal else []))
        mean, again = sum(r["idle"]) / 2, sum(r["replayed"]) / 2
        lines.append(f"| {sched} | {m} | {'unequal' if unequal else 'equal'} | "
                     f"{r['ideal']:.3f} | {r['idle'][0]:.3f} | "
                     f"{r['idle'][1]:.3f} | {mean:.3f} | {mean / r['ideal']:.2f} | "
                     f"{again:.3f} | {again / r['ideal']:.2f} | {r['span_ms']:.0f} |")
    lines.append("")
    return lines


def optimizer_section():
    """Optimizer parallelism against plain data parallelism: weights and state per rank,
    memory, step."""
    print("bench: optimizer parallelism (MLP 1024-4096-1024, Adam; dp, state-sharded and "
          "weight-sharded at 2 and 4 processes) ...", flush=True)
    lines = [
        "## Optimizer parallelism",
        "",
        "bench/optimizer_bench.py (its docstring has the details): data parallelism of an MLP "
        "1024 → 4096 → 1024 with Adam, float32, 32 rows per rank, GRAPH mode, 1 thread per "
        "process, Gloo on the loopback; plain (whole gradients all-reduced, whole state) "
        "against `enable_parallel_optimizer=True` in data_parallel (state sharded, ZeRO-1: "
        "gradients reduce-scattered, each rank keeps its rows of the state, weights "
        "all-gathered after the update) and in semi_auto_parallel without strategies "
        "(weights sharded, ZeRO-3: each rank keeps its rows of the weights and the state, "
        "each weight all-gathered before its use in the forward, gradients reduce-scattered "
        "by AD; the biases, under the 64 KB threshold, stay whole). Rank 0's weights and "
        "optimizer state held between steps, its peak resident memory (the process, "
        "including the whole initial weights built before the first compile slices them), "
        "the executor's peak during one step above what it held before the step (gathered "
        "weights, gradients, activations) and ms per step (best of 3 passes of 5).",
        "",
        "| processes | optimizer | weights per rank, MiB | state per rank, MiB | "
        "step peak, MiB | peak RSS, MiB | ms/step |",
        "|---|---|---|---|---|---|---|",
    ]
    names = {"dp": "whole (data parallel)", "sharded": "state sharded (ZeRO-1)",
             "weights": "weights + state sharded (ZeRO-3)"}
    for n in (2, 4):
        for mode in ("dp", "sharded", "weights"):
            r = run("optimizer_bench.py", mode, str(n))
            lines.append(f"| {n} | {names[mode]} | {r['weights_mb']:.1f} | "
                         f"{r['state_mb']:.1f} | {r['step_peak_mb']:.0f} | "
                         f"{r['peak_rss_mb']:.0f} | {r['step_ms']:.0f} |")
    lines.append("")
    return lines


def privacy_section():
    """Differential privacy: DP-SGD LeNet-5 accuracy at eps 2, 4, 8 and the DP step's time."""
    print("bench: differential privacy (DP-SGD LeNet-5 at eps 2, 4, 8; a few minutes) ...",
          flush=True)
    my = run("privacy_bench.py")
    lines = [
        "## Differential privacy",
        "",
        f"Produced by bench/privacy_bench.py (`make bench`, or `python3 bench/run.py --only "
        f"privacy` for this section alone) on {datetime.date.today()}, {platform.machine()}, "
        f"{os.cpu_count()} cores; its docstring has the details. LeNet-5 on "
        f"Fashion-MNIST, mycel GRAPH mode, batch {my['batch']}, {my['epochs']} epochs, "
        f"Momentum(lr {my['lr']}, 0.9); DP-SGD by `DPModel` with per-example clipping "
        f"(micro_batches = batch size, C = {my['clip']}) and Gaussian noise whose multiplier "
        f"is the smallest giving the target eps (delta {my['delta']:g}, RDP accountant, "
        "q = batch/60000) after all the steps; eps as the `RDPMonitor` callback of the run "
        "reports it. Test accuracy on the 10,000 test images.",
        "",
        "| run | noise multiplier | eps (monitor) | test accuracy | training s |",
        "|---|---|---|---|---|",
        f"| non-private | - | ∞ | {my['plain']['accuracy']:.4f} | "
        f"{my['plain']['train_s']:.0f} |",
    ]
    for target in ("2", "4", "8"):
        r = my[f"eps{target}"]
        lines.append(f"| DP-SGD, target eps {target} | {r['sigma']:.3f} | {r['eps']:.3f} | "
                     f"{r['accuracy']:.4f} | {r['train_s']:.0f} |")
    a, b = my["plain_step_ms"], my["dp_step_ms"]
    lines += ["",
              f"Step time, batch {my['batch']} (best of 3 passes of 20 steps): ordinary "
              f"`TrainOneStepCell` {a:.2f} ms, DP step ({my['batch']} per-example gradients, "
              f"clipping, noise) {b:.2f} ms, {b / a:.1f}× the ordinary step.",
              ""]
    return lines


ARMOUR_ROUNDS = 2


def armour_section(produced_by):
    """Adversarial examples per second (mycel.armour) against the PyTorch oracle."""
    print("bench: adversarial attacks (mycel GRAPH/PYNATIVE, then the PyTorch oracle) ...",
          flush=True)
    best, ref = {}, {}
    for _ in range(ARMOUR_ROUNDS):
        for threads in ("1", "2"):
            env = dict(BENCH_THREADS=threads, OMP_NUM_THREADS=threads)
            for result, script_arg in ((best, "mycel"), (ref, "torch")):
                for k, v in run("armour_bench.py", script_arg, **env).items():
                    result[k] = max(result.get(k, 0.0), v)
    lines = [
        "## Adversarial attacks",
        "",
        f"Produced by {produced_by} (bench/armour_bench.py): "
        "adversarial examples per second for LeNet-5 "
        "(28x28, fixed random weights shared by both frameworks) at batch 128 of "
        "Fashion-MNIST test images, one-hot labels and softmax cross entropy; FGSM (eps 0.1) "
        "and PGD-20 (eps 0.1, eps_iter 0.01, l-inf) from `mycel.armour.adv_robustness.attacks`"
        " against the PyTorch oracle the tests check them against "
        "(tests/python/armour_oracles.py: eager autograd for the input gradient, numpy for "
        "the update, as mycel's attacks). 128 over the median time of a call; each framework "
        f"at its best of 1 and 2 threads and of {ARMOUR_ROUNDS} rounds, each setting in its "
        "own process, the frameworks interleaved. "
        "Speed ratio: mycel's examples/s over PyTorch's.",
        "",
        "| attack | mycel GRAPH | mycel PYNATIVE | PyTorch oracle | ratio GRAPH | "
        "ratio PYNATIVE |",
        "|---|---|---|---|---|---|",
    ]
    for key, label in (("fgsm", "FGSM, examples/s"), ("pgd20", "PGD-20, examples/s")):
        g, p, t = best[f"{key}_graph"], best[f"{key}_pynative"], ref[key]
        lines.append(f"| {label} | {fmt(g)} | {fmt(p)} | {fmt(t)} | {g / t:.2f} | "
                     f"{p / t:.2f} |")
    lines.append("")
    lines += armour_quality_rows(run("armour_bench.py", "quality"))
    return lines + armour_training_rows(run("armour_bench.py", "training"))


def armour_quality_rows(q):
    """Each attack's success rate and perturbation next to its oracle's, and each detector's
    ROC-AUC on FGSM examples (bench/armour_bench.py quality)."""
    lines = [
        "Attack quality (`armour_bench.py quality`, tests/python/armour_quality.py): the tests' "
        "LeNet-5 (trained briefly in PyTorch, weights copied into mycel) on the first 32 "
        "correctly classified Fashion-MNIST test images (the first n of them where n is "
        "smaller), the tests' settings; success: a changed label (JSMA: the target label); "
        "perturbation: mean l2 norm of adv - x; pixels equal: share of pixels within 1e-5 of "
        "the PyTorch oracle's (tests/python/armour_oracles.py, written from the papers). "
        "Issue 23's bars: FGSM identical but for rounding-flipped signs (< 0.1% of pixels), "
        "iterative attacks >= 98% of pixels, C&W and DeepFool mean l2 within 5% of the "
        "oracle's. The black-box attacks see the model only through `BlackModel.predict` and "
        "have no oracle.",
        "",
        "| attack | settings | n | mode | success mycel / oracle | mean l2 mycel / oracle | "
        "pixels equal |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in q["attacks"]:
        if "oracle_rate" in r:
            rate = f"{r['rate']:.3f} / {r['oracle_rate']:.3f}"
            norm = f"{r['norm']:.4f} / {r['oracle_norm']:.4f}"
            same = f"{100 * r['same_pixels']:.2f}%"
        else:
            rate, norm, same = f"{r['rate']:.3f} / -", f"{r['norm']:.4f} / -", "-"
        lines.append(f"| {r['attack']} | {r['settings']} | {r['n']} | {r['mode']} | {rate} | "
                     f"{norm} | {same} |")
    lines += [
        "",
        "Detectors on FGSM examples (eps 0.1) of the 200 test images after the first 200, "
        "against those 200 benign images; detectors fitted on the first 200 (MagNet's "
        "autoencoder trained in mycel to remove noise, as in tests/python/"
        "test_armour_defenses.py). ROC-AUC of the detector's score; flagged: share detected "
        "at the fitted threshold. Issue 23's bar: ROC-AUC >= 0.9 for MagNet. "
        "`SimilarityDetector` judges a stream of queries, not single inputs, so it has no "
        "ROC-AUC here (test_armour_defenses.py checks it on a HopSkipJump attack's queries).",
        "",
        "| detector | ROC-AUC | adversarial flagged | benign flagged |",
        "|---|---|---|---|",
    ]
    for r in q["detectors"]:
        lines.append(f"| {r['detector']} | {r['auc']:.3f} | {r['flagged_adv']:.2f} | "
                     f"{r['flagged_benign']:.2f} |")
    return lines + [""]


def armour_training_rows(tr):
    """Natural against PGD adversarial training (bench/armour_bench.py training)."""
    gain = tr["pgd_pgd20"] - tr["natural_pgd20"]
    drop = tr["natural_clean"] - tr["pgd_clean"]
    lines = [
        f"Adversarial training (`armour_bench.py training`, mycel GRAPH mode): LeNet-5 from "
        f"the same initial weights, {tr['epochs']} epochs over the 60,000 Fashion-MNIST "
        "training images in [0, 1], batch 64, Momentum 0.01/0.9, natural "
        "(`AdversarialDefense`) against `ProjectedAdversarialDefense` (eps 0.1, eps_iter "
        f"0.025, nb_iter 5, replace_ratio {tr['replace_ratio']}: that share of each batch "
        "replaced by PGD examples); clean accuracy on the 10,000 test "
        "images, accuracy under PGD-20 (eps 0.1, eps_iter 0.01) on the first 2,000. Issue 23's "
        "bar: +20 points under PGD, clean accuracy within 3 points.",
        "",
        "| training | clean accuracy | PGD-20 accuracy | training time, s |",
        "|---|---|---|---|",
    ]
    for key, label in (("natural", "natural"), ("pgd", "PGD adversarial")):
        lines.append(f"| {label} | {tr[key + '_clean']:.4f} | {tr[key + '_pgd20']:.4f} | "
                     f"{tr[key + '_train_s']:.0f} |")
    lines += ["", f"PGD-20 accuracy gain {gain * 100:+.1f} points, clean accuracy change "
              f"{-drop * 100:+.1f} points.", ""]
    return lines


def federated_section():
    """Federated learning: the server's aggregation throughput, and 100 non-IID clients
    training LeNet-5 by FedAvg to 85% test accuracy next to centralized training."""
    print("bench: federated (aggregation throughput, 1,000 clients per round) ...", flush=True)
    tp = run("fl_bench.py", "throughput")
    tps = run("fl_bench.py", "throughput", "--secure")
    sc = run("fl_bench.py", "scale", "--clients", "1000")
    scc = run("fl_bench.py", "scale", "--clients", "1000", "--compress")
    rounds = os.environ.get("FL_BENCH_MAX_ROUNDS", "600")
    print(f"bench: federated (100 clients, 20 a round, LeNet-5, up to {rounds} rounds; long) ...",
          flush=True)
    # 20 clients a round, the clients' lr halved every 300 rounds (floor 0.004), FedAvgM on the
    # server (momentum 0.9, lr 0.1: the average of ~10 rounds' updates at FedAvg's speed): the
    # target is met when the mean of the last 3 tests (30 rounds) reaches it, then 50 more
    # rounds show how it holds.
    recipe = ("--clients", "100", "--clients-per-round", "20", "--eval-every", "10",
              "--lr-half-life", "300", "--lr-min", "0.004", "--server-lr", "0.1",
              "--server-momentum", "0.9")
    fl = run("fl_bench.py", "lenet", *recipe, "--mean-of", "3", "--hold", "50",
             "--max-rounds", rounds)
    accs, evaluated = fl["accuracy_per_round"], fl["evaluated_rounds"]
    side = int(os.environ.get("FL_BENCH_SIDE_ROUNDS", "100"))
    print(f"bench: federated (LeNet-5, {side} rounds with compression, with DP) ...", flush=True)
    common = (*recipe, "--max-rounds", str(side), "--target", "1.0", "--no-central")
    comp = run("fl_bench.py", "lenet", "--compress", *common)
    dps = [run("fl_bench.py", "lenet", "--dp-eps", eps, *common) for eps in ("1000", "100")]

    def last3(accuracies):  # single evaluations swing by several points between rounds
        return sum(accuracies[-3:]) / len(accuracies[-3:])
    plain_side = last3([a for r, a in zip(evaluated, accs) if r <= side])
    lines = [
        "## Federated learning",
        "",
        "Produced by bench/fl_bench.py (its docstring has the setup). Aggregation: "
        f"{tp['clients']} clients upload a model of {tp['params']:,} float32 parameters "
        f"({tp['mb_per_update']:.0f} MB) at once; the C++ server decodes, checks and averages "
        "them; with secure aggregation (PW_ENCRYPT, threshold half the clients) each client "
        "also masks its update (a self mask and a pairwise ChaCha20 mask per other client) and "
        "the server removes the masks, inside the timed span. 1,000 clients: compressed is "
        "download QUANT and upload DIFF_SPARSE_QUANT at rate 0.4.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| client updates per second, 1M parameters, plain FedAvg | {tp['updates_per_s']:.1f} |",
        f"| client updates per second, 1M parameters, secure aggregation (PW_ENCRYPT, "
        f"masking included) | {tps['updates_per_s']:.1f} |",
        f"| one round of {sc['clients']:,} simulated clients, {sc['params']:,} parameters (s), "
        f"plain / compressed | {sc['seconds_per_round']:.2f} / {scc['seconds_per_round']:.2f} |",
        f"| bytes per round of those clients, up / down (no compression) | "
        f"{sc['upload_bytes']:,} / {sc['download_bytes']:,} |",
        f"| bytes per round, up / down (DIFF_SPARSE_QUANT rate 0.4, QUANT) | "
        f"{scc['upload_bytes']:,} / {scc['download_bytes']:,} |",
        f"| rounds to {fl['target']:.0%} test accuracy (the first round at which the mean of "
        f"the last 3 tests, 10 rounds apart, reaches it), 100 non-IID clients (2 classes each), "
        f"20 a round, LeNet-5, FedAvgM (server momentum 0.9, server lr 0.1) | "
        f"{fl['rounds_to_target'] or f'not reached in {evaluated[-1]}'} |",
        f"| lowest test in the {fl['hold_rounds']} rounds after it | "
        f"{'-' if fl['min_accuracy_after'] is None else round(fl['min_accuracy_after'], 3)} |",
        f"| accuracy at rounds {evaluated[0]}, {evaluated[min(9, len(accs) - 1)]}, "
        f"{evaluated[-1]} | {accs[0]:.3f}, {accs[min(9, len(accs) - 1)]:.3f}, {accs[-1]:.3f} |",
        f"| federated wall time (s) | {fl['federated_seconds']:.0f} |",
        f"| centralized: epochs to {fl['target']:.0%} (same network and optimizer) | "
        f"{fl['central_epochs_to_target'] or 'not reached in 10'} |",
        "",
        f"The same 100 clients and recipe, for {side} rounds: test accuracy (the mean of the "
        "last three tests, 10 rounds apart) plain, with compression, and with local DP "
        "(dp_delta 0.01, dp_norm_clip 1.0; epsilon spent after the last round by the RDP "
        "accountant).",
        "",
        "| run | epsilon spent | accuracy |",
        "|---|---|---|",
        f"| plain FedAvg | - | {plain_side:.3f} |",
        f"| compressed (up DIFF_SPARSE_QUANT 0.4, down QUANT) | - | "
        f"{last3(comp['accuracy_per_round']):.3f} |",
    ] + [f"| DP_ENCRYPT, dp_eps {d['dp_eps']:g} per round | {d['epsilon_spent']:.1f} | "
         f"{last3(d['accuracy_per_round']):.3f} |" for d in dps] + [""]
    return lines


def search_section():
    """The strategy search (auto_parallel): the chosen plan's predicted step time against the
    measured one, and its measured step time against the fastest hand-set plan, at 2 and 4
    processes; the collective model against the calibration's AllReduce timings."""
    print("bench: strategy search (MLP 1024-4096-1024; auto vs hand-set plans at 2 and 4) ...",
          flush=True)
    sys.path.insert(0, HERE)
    from search_bench import hand_plans
    lines = [
        "## Strategy search",
        "",
        "bench/search_bench.py (its docstring has the details): the MLP 1024 → 4096 → 1024 "
        "(GeLU, MSE, Momentum), global batch 64, float32, every rank given the whole batch, "
        "1 thread per process, Gloo on the loopback. `auto`: parallel_mode=\"auto_parallel\", "
        "search_mode=\"dynamic_programming\" on the committed profile "
        "(python/mycel/parallel/profile.json, from `python -m mycel.parallel.calibrate`); the "
        "others semi_auto_parallel with hand-set strategies. Step time: the best of 3 passes "
        "of 10 steps. This machine has 2 cores shared with other work: the measured times "
        "are noisy (a plan the search chose equal to a hand-set one, \"auto (= name)\", runs "
        "the same program: their gap is the noise), and at 4 processes the ranks share the "
        "cores, which the model (one device per rank) does not know.",
        "",
        "| processes | plan | strategies | predicted ms | measured ms | vs fastest hand-set |",
        "|---|---|---|---|---|---|",
    ]
    for n in (2, 4):
        auto = run("search_bench.py", "auto", str(n))
        hand = {name: run("search_bench.py", name, str(n)) for name in hand_plans(n)}
        fastest = min(r["step_ms"] for r in hand.values())
        chosen = " ".join(ln[ln.index(" ((") + 1:] for ln in auto["plan"].splitlines()[1:3])
        same = [k for k, (s1, s2) in hand_plans(n).items() if f"{s1} {s2}" == chosen]
        name = f"auto (= {same[0]})" if same else "auto"
        lines.append(f"| {n} | {name} | {chosen} | {fmt(auto['predicted_ms'])} | "
                     f"{fmt(auto['step_ms'])} | {auto['step_ms'] / fastest:.2f} |")
        for name, r in hand.items():
            s1, s2 = hand_plans(n)[name]
            lines.append(f"| {n} | {name} | {s1} {s2} | | {fmt(r['step_ms'])} | "
                         f"{r['step_ms'] / fastest:.2f} |")
    with open(os.path.join(HERE, "..", "python", "mycel", "parallel", "profile.json")) as f:
        prof = json.load(f)
    lines += ["", "The collective model at 2 ranks (an AllReduce of s bytes: the better of "
              "ring and recursive doubling, both α + s·β at 2 ranks; α = "
              f"{prof['alpha'] * 1e3:.3g} ms, 1/β = {1e-9 / prof['beta']:.3g} GB/s fitted) "
              "against the calibration's medians:", "",
              "| bytes | measured ms | model ms | model / measured |", "|---|---|---|---|"]
    for size, t in prof["check"]["allreduce_2_ranks_s"].items():
        model = prof["alpha"] + int(size) * prof["beta"]
        lines.append(f"| {size} | {t * 1e3:.3g} | {model * 1e3:.3g} | {model / t:.2f} |")
    lines.append("")
    return lines + search_mode_lines()


def search_mode_lines():
    """Planning time and predicted step by search mode, towers of layers at 1,024 devices."""
    print("bench: strategy search by mode (towers of 1, 2 and 48 layers, 1,024 devices) ...",
          flush=True)
    rows = run("search_plan_bench.py")["rows"]
    lines = ["The search modes at 1,024 devices (bench/search_plan_bench.py: towers of "
             "transformer layers, model 256, MLP 1024, batch 4 x 32, float32; `plan s`: "
             "search.plan's wall time, the compile with the search and one unsharded run; "
             "`step ms`: the plan's predicted step; dynamic programming on the small towers "
             "only):", "", "| layers | search_mode | plan s | step ms |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['layers']} | {r['mode']} | {r['plan_s']:.3g} | "
                     f"{r['step_ms']:.4g} |")
    at = {(r["layers"], r["mode"]): r for r in rows}
    per_layer = (at[2, "dynamic_programming"]["plan_s"] -
                 at[1, "dynamic_programming"]["plan_s"])
    rec = at[48, "recursive_programming"]["plan_s"]
    better = all(at[k, "recursive_programming"]["step_ms"] <=
                 at[k, "dynamic_programming"]["step_ms"] for k in (1, 2))
    lines += ["", f"Dynamic programming grows by about {per_layer:.2g} s a layer here (48 "
              f"layers: about {48 * per_layer / 60:.2g} minutes); the recursive search plans 48 "
              f"layers in {rec:.2g} s. " + (
                  "On these towers its plans cost less than dynamic programming's, whose "
                  "fan-out (the residual stream) is costed as a lower bound (the recursive "
                  "search's sweeps cost it exactly). " if better else "") +
              "On the MLP and the block of the golden plans the two are equal at 1 to 1,024 "
              "devices (test_auto_parallel.py)."]
    return lines + [""]


def recompute_section():
    """Recompute: a deep MLP's training step with and without Cell.recompute() (GRAPH mode):
    peak bytes and step time."""
    print("bench: recompute (24-layer MLP, batch 4096, with and without) ...", flush=True)
    load = os.getloadavg()[0]
    r = run("recompute_bench.py")
    act = r["activation_bytes"]
    lines = ["## Recompute", "",
             f"bench/recompute_bench.py: an MLP of {r['layers']} Dense({r['width']}, "
             f"{r['width']}) + tanh layers in 6 blocks, batch {r['batch']}, float32, MSE, "
             "Momentum, nn.TrainOneStepCell in GRAPH mode; `recompute`: every block under "
             "Cell.recompute() (the block outputs kept, the rest computed again in the "
             "backward). Peak: the host allocator's bytes above those in use before the call "
             f"(one layer's activation is {act / 2**20:.3g} MiB), for the gradients alone "
             "(ops.grad of the loss cell) and for the training step; time: the median of 10 "
             "steps.", "",
             "| variant | gradients: peak MiB (activations) | training step: peak MiB "
             "(activations) | step ms |", "|---|---|---|---|"]
    for name in ("plain", "recompute"):
        v = r[name]
        lines.append(f"| {name} | {v['grad_peak_bytes'] / 2**20:.4g} "
                     f"({v['grad_peak_bytes'] / act:.3g}) | {v['step_peak_bytes'] / 2**20:.4g} "
                     f"({v['step_peak_bytes'] / act:.3g}) | {fmt(v['step_ms'])} |")
    lines += ["", "The training step frees activations as the gradients alone do: the "
              "executor computes each weight's gradient (the input of its optimizer update) "
              "as soon as its layer's activation gradient is (runtime/vm_compile.cc, "
              "hoist_sinks), so recompute lowers the step's peak too. Load average when "
              f"measured: {load:.1f} on {os.cpu_count()} cores."]
    lines.append("")
    return lines


def simgrid_section():
    """The collective cost model against SimGrid's SMPI implementations of its algorithms."""
    print("bench: the collective model against SimGrid SMPI (64 to 1,024 ranks) ...", flush=True)
    r = run("simgrid_bench.py")
    ranks = sorted({row["ranks"] for row in r["rows"]})
    kinds = list(dict.fromkeys(row["kind"] for row in r["rows"]))
    lines = ["## Collective model against SimGrid", "",
             "bench/simgrid_bench.py (its docstring has the details): each collective of the cost "
             "model (src/parallel/cost_model.h) against SimGrid's SMPI, MPICH's and Open MPI's "
             "implementations of the same algorithms, replayed at 64 to 1,024 ranks in one "
             "process on a cluster whose private full-duplex links carry the profile's "
             f"α = {r['alpha'] * 1e3:.3g} ms and 1/β = {1e-9 / r['beta']:.3g} GB/s (one "
             "message host to host: α + s·β; CM02, no TCP factors). N: the bytes of the whole "
             "tensor (the model's s per device is N, for AllGather N/p). `model`: the "
             "algorithm the model chooses (the least of its formulas, what the search "
             "uses); `SimGrid`: the fastest simulated; `error`: model / SimGrid − 1. "
             "`worst formula`: the largest |formula / simulated − 1| over the algorithms.", "",
             "Error of the model's choice against SimGrid's best, the largest over N (and, in "
             "brackets, the largest over every algorithm of |formula / simulated − 1|):", "",
             "| collective | " + " | ".join(f"{n} ranks" for n in ranks) + " |",
             "|---|" + "---|" * len(ranks)]

    def worst_formula(row):
        return max(abs(row["model"][a] / t - 1) for a, t in row["simulated"].items())

    for kind in kinds:
        cells = []
        for n in ranks:
            rows = [row for row in r["rows"] if row["kind"] == kind and row["ranks"] == n]
            err = max(abs(row["model_s"] / row["simgrid_s"] - 1) for row in rows)
            cells.append(f"{err * 100:.3f}% ({max(worst_formula(row) for row in rows) * 100:.3f}%)")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines += ["", "| collective | ranks | N | model: algorithm, ms | SimGrid: algorithm, ms | "
              "error | each algorithm: formula / simulated ms |", "|---|---|---|---|---|---|---|"]
    for row in r["rows"]:
        algs = " · ".join(
            f"{a} {row['model'][a] * 1e3:.4g} / "
            + (f"{row['simulated'][a] * 1e3:.4g}" if a in row["simulated"] else "—")
            for a in row["model"])
        lines.append(
            f"| {row['kind']} | {row['ranks']} | {row['size']} | {row['model_choice']}, "
            f"{row['model_s'] * 1e3:.4g} | {row['simgrid_best']}, {row['simgrid_s'] * 1e3:.4g} | "
            f"{(row['model_s'] / row['simgrid_s'] - 1) * 100:+.2f}% | {algs} |")
    # What the model said before it knew halving-doubling (Rabenseifner's AllReduce).
    old = [(row, min(t for a, t in row["model"].items() if a != "halving-doubling"))
           for row in r["rows"] if row["kind"] == "AllReduce"]
    worst = max(old, key=lambda o: o[1] / o[0]["simgrid_s"])
    lines += ["", ("—: not simulated (MYCEL_SIMGRID_MAX_RING). " if any(
                  len(row["simulated"]) < len(row["model"]) for row in r["rows"]) else "")
              + "Before the model knew AllReduce's "
              "halving-doubling (a reduce-scatter by recursive halving, then an all-gather by "
              "recursive doubling: SMPI's rab_rdb, MPICH's choice for large messages), its "
              "best of ring and doubling was "
              f"{worst[1] / worst[0]['simgrid_s']:.2f}× SimGrid's best at "
              f"{worst[0]['ranks']} ranks and N = {worst[0]['size']} "
              f"({worst[1] * 1e3:.4g} ms against {worst[0]['simgrid_s'] * 1e3:.4g} ms). "
              "On private full-duplex links the formulas hold (no step waits on another "
              "rank's, no link is shared); what they leave out is contention: behind one "
              "shared backbone of the same bandwidth an 8-rank ring's large steps take 8 "
              "times longer (tests/python/test_parallel_plan_simgrid.py), so the model is "
              "optimistic on an oversubscribed network."]
    lines.append("")
    return lines


def lite_section():
    """mycel lite: LeNet-5, ResNet-18 and MobileNetV2 batch-1 latency in fp32, bf16 and int8
    against PyTorch eager and TorchScript at PyTorch's best thread count; load time; the
    runtime library's size."""
    print("bench: mycel lite (LeNet-5 fp32/bf16/int8 via mycel_benchmark and Python, then "
          "torch eager and TorchScript at 1 and 2 threads) ...", flush=True)
    my, th = run("lite_bench.py", "mycel"), run("lite_bench.py", "torch")
    eager_t = min((1, 2), key=lambda t: th[f"eager_{t}"])
    script_t = min((1, 2), key=lambda t: th[f"script_{t}"])
    eager64_t = min((1, 2), key=lambda t: th[f"eager64_{t}"])
    eager, script = th[f"eager_{eager_t}"], th[f"script_{script_t}"]
    fp32 = my["fp32"]
    lines = [
        "## mycel lite",
        "",
        f"Produced by bench/lite_bench.py (`make bench`, or `python3 bench/run.py --only lite` "
        f"for this section alone) on {datetime.date.today()}, {platform.machine()}, "
        f"{os.cpu_count()} cores (a busy shared machine: means wander, minima are steadier); "
        "its docstring has the details. LeNet-5 (1x28x28, seeded random weights) exported by "
        "mycel.export, converted by mycel_convert; int8: full quantization (MAX_MIN, "
        "per-channel, bias correction) on 32 calibration images. mycel lite runs one thread; "
        f"PyTorch at its best of 1 and 2 threads (eager: {eager_t}, TorchScript: {script_t}). "
        "`mycel_benchmark`: C++ latency, median of 3 runs' means (min in brackets); Python: "
        "`Model.predict` per call, numpy in and out, as PyTorch is timed. Speed ratio: "
        "PyTorch's time over lite's Python time (> 1: lite faster).",
        "",
        "| LeNet-5, batch 1 | mycel_benchmark µs | Python µs | vs PyTorch eager "
        f"({eager:.1f} µs) | vs TorchScript ({script:.1f} µs) | vs lite fp32 | .ms bytes |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in ("fp32", "bf16", "int8"):
        r = my[v]
        lines.append(f"| {v} | {r['tool_mean_us']:.1f} ({r['tool_min_us']:.1f}) | "
                     f"{r['python_us']:.1f} | {eager / r['python_us']:.2f} | "
                     f"{script / r['python_us']:.2f} | "
                     f"{fp32['tool_min_us'] / r['tool_min_us']:.2f} (min) | {r['file_bytes']} |")
    lines += ["",
              "| batch 1, 1x3x224x224 | lite fp32 ms | lite bf16 ms | lite int8 ms | "
              "PyTorch eager ms | TorchScript ms | fp32 vs eager | int8 vs fp32 (min) | "
              "int8 top-1 agreement | load ms |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for name in ("resnet18", "mobilenet_v2"):
        r = my[name]
        te = min(th[f"{name}_eager_{t}"] for t in (1, 2)) / 1e3
        ts = min(th[f"{name}_script_{t}"] for t in (1, 2)) / 1e3
        f, b, q = (r[v]["tool_mean_us"] / 1e3 for v in ("fp32", "bf16", "int8"))
        fm, qm = r["fp32"]["tool_min_us"] / 1e3, r["int8"]["tool_min_us"] / 1e3
        lines.append(f"| {name} | {f:.1f} ({fm:.1f}) | {b:.1f} | {q:.1f} ({qm:.1f}) | {te:.1f} | "
                     f"{ts:.1f} | {te / f:.2f} | {fm / qm:.2f} | {r['int8_top1_agree']:.0f}% "
                     f"(4 calibration images) | {r['load_ms']:.1f} |")
    e64 = th[f"eager64_{eager64_t}"]
    lines += [
        "",
        f"Batch 64 (Python, µs per call): lite fp32 {fp32['b64_us']:.0f}, bf16 "
        f"{my['bf16']['b64_us']:.0f}, int8 {my['int8']['b64_us']:.0f}; PyTorch eager "
        f"{e64:.0f} ({eager64_t} thread(s)).",
        "",
        f"Load (`Model.build_from_file` of the fp32 file: map, check, kernels, arena): "
        f"{my['load_ms']:.3f} ms. `libmycel_lite.so` stripped: {my['lib_stripped_kb']:.0f} KB "
        "(oneDNN, zlib and libgomp are shared libraries apart; target ≤ 2 MB).",
        "",
        "ResNet-18 and MobileNetV2: mycel_benchmark's mean (min in brackets; int8 vs fp32 "
        "compares the minima, as LeNet's row does) against PyTorch, each at its best "
        "of 1 and 2 threads (lite fp32 used "
        f"{', '.join(str(my[n]['fp32'].get('threads', 1)) for n in ('resnet18', 'mobilenet_v2'))}"
        "), PyTorch called from Python (at these sizes Python's overhead is "
        "negligible). Targets: fp32 ≥ 1.5× PyTorch; int8 ≥ 2× lite's own fp32.",
        "",
    ]
    return lines


def vmap_section():
    """vmap: per-example gradients of a small MLP, batched against a Python loop, and against
    functorch's vmap (Debian's torch 1.13: functorch, no torch.func)."""
    print("bench: vmap per-example gradients (mycel GRAPH/PYNATIVE, then functorch) ...",
          flush=True)
    my, th = run("vmap_bench.py", "mycel"), run("vmap_bench.py", "torch")
    lines = [
        "## vmap",
        "",
        "Produced by bench/vmap_bench.py (`python3 bench/run.py --only vmap`); its docstring has "
        "the details. Per-example gradients of the four weights of an MLP 32-64-10 (tanh, "
        "squared error) over 64 examples, ms per batch (median). mycel: `vmap(grad(loss))`, "
        "one graph batched by the IR transform, against a Python loop over the examples of the "
        "same gradient (GRAPH: compiled once; PYNATIVE: eager). PyTorch: functorch's "
        "`vmap(grad(loss))` against a loop of `torch.autograd.grad`.",
        "",
        "| mode | mycel vmap ms | mycel loop ms | vmap speed-up (target ≥ 10×) | "
        "functorch vmap ms | torch loop ms | mycel vmap vs functorch |",
        "|---|---|---|---|---|---|---|",
    ]
    for mode in ("graph", "pynative"):
        v, lp = my[f"vmap_{mode}_ms"], my[f"loop_{mode}_ms"]
        lines.append(f"| {mode.upper()} | {v:.3f} | {lp:.2f} | {lp / v:.1f}× | "
                     f"{th['vmap_ms']:.3f} | {th['loop_ms']:.2f} | {th['vmap_ms'] / v:.2f} |")
    lines.append("")
    return lines


def fusion_section():
    """Graph-kernel fusion: memory-bound chains fused and unfused against PyTorch eager, and the
    bytes per second they reach against this machine's bandwidth measured in the same run."""
    print("bench: graph-kernel fusion (mycel fused/unfused, then torch eager) ...", flush=True)
    my, th = run("fusion_bench.py", "mycel"), run("fusion_bench.py", "torch")
    copy_bytes = 2 * 4 * 64 * 1024 * 1024
    # (x * 1.5 is one op: it runs its Mul kernel in both settings; the better of the two)
    copy_ms = min(my["copy_fused_ms"], my["copy_unfused_ms"])
    copy_cpu = min(my["copy_fused_cpu_ms"], my["copy_unfused_cpu_ms"])
    bw = copy_bytes / (copy_ms / 1e3) / 1e9
    np_bw = copy_bytes / (my["numpy_copy_ms"] / 1e3) / 1e9
    threads = os.environ.get('BENCH_THREADS', '2')
    lines = [
        "## Graph-kernel fusion",
        "",
        f"Produced by bench/fusion_bench.py (`python3 bench/run.py --only fusion`) on "
        f"{datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"{threads} threads for mycel; PyTorch eager at its best of "
        "1 and 2 threads; float32, ms per call (best of 5 rounds of 5 calls; the rounds "
        "interleave fused, unfused and the copy, so they share the load). "
        "mycel in GRAPH mode with `set_context(enable_graph_kernel=True)` (fused) and without. "
        f"Memory bandwidth measured in the same run, by a kernel on the same {threads} threads: "
        f"{bw:.1f} GB/s (`x * 1.5` over 64M floats, 512 MB moved: one op, so its Mul kernel), "
        f"numpy's copy (one thread) {np_bw:.1f} GB/s. GB/s: the bytes a fused kernel must move "
        "at least (inputs once, outputs once; Adam: p, m, v, g read, p, m, v written; LayerNorm: "
        "x and the mask read, the output written) over the time, STREAM's convention for the "
        "copy and the chains alike (the reads of cache lines before writes are not counted). "
        "CPU: process CPU time per call (both threads), the steadier measure under load. "
        "Matrix products stay with oneDNN; what fuses: docs/architecture.md, \"Graph kernels\".",
        "",
        "| workload | fused ms | unfused ms | fused vs unfused | fused vs unfused (CPU) | "
        "PyTorch eager ms | fused vs PyTorch | fused GB/s | of bandwidth | of bandwidth (CPU) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    labels = {"adam": "Adam update, 10M parameters",
              "layernorm": "LayerNorm + GELU + dropout, [4096, 1024]",
              "lnonly": "LayerNorm alone, [4096, 1024]",
              "attention": "softmax attention, 16 x 128 x 64"}
    for name, label in labels.items():
        f, u = my[f"{name}_fused_ms"], my[f"{name}_unfused_ms"]
        fc, uc = my[f"{name}_fused_cpu_ms"], my[f"{name}_unfused_cpu_ms"]
        t = min(th[f"{name}_1_ms"], th[f"{name}_2_ms"])
        nbytes = {"adam": 7 * 4 * 10_000_000,
                  "layernorm": 4 * (3 * 4096 * 1024 + 2 * 1024),
                  "lnonly": 4 * (2 * 4096 * 1024 + 2 * 1024)}.get(name)
        gbs = f"{nbytes / (f / 1e3) / 1e9:.1f}" if nbytes else "-"
        share = f"{100 * nbytes / (f / 1e3) / 1e9 / bw:.0f}%" if nbytes else "-"
        # the same ratio in CPU time: bytes per CPU second against the copy's
        share_cpu = (f"{100 * (nbytes / fc) / (copy_bytes / copy_cpu):.0f}%" if nbytes else "-")
        lines.append(f"| {label} | {f:.2f} | {u:.2f} | {u / f:.2f} | {uc / fc:.2f} | {t:.2f} | "
                     f"{t / f:.2f} | {gbs} | {share} | {share_cpu} |")
    lines += ["", f"1-minute load average at the end of mycel's run: {my['load']:.1f} "
              f"({os.cpu_count()} cores).", ""]
    return lines


def models_section():
    """Training steps of mycel.models' ResNet-18 and Transformer encoder against PyTorch eager:
    mycel GRAPH mode with and without graph-kernel fusion and (Transformer) amp O2 bfloat16,
    each model's settings in one process with their passes interleaved."""
    print("bench: model training steps (mycel settings, then torch at 1 and 2 threads) ...",
          flush=True)
    settings = {"resnet18": ("unfused", "fused"),
                "transformer": ("unfused", "fused", "bf16", "bf16_fused")}
    # Each model's settings interleaved in one process: its ratios (fused vs unfused,
    # bfloat16 vs float32) under the same load.
    load0 = os.getloadavg()[0]
    my, cpus = {}, {}
    for m, ss in settings.items():
        r = run("models_bench.py", "mycel", m, ",".join(ss))
        my.update({(m, s): ms for s, ms in r["ms"].items()})
        cpus[m] = r["cpu_ms"]
    cpu = cpus["transformer"]
    rcpu = cpus["resnet18"]
    th = {m: min(run("models_bench.py", "torch", m, t)["ms"] for t in ("1", "2"))
          for m in settings}
    load1 = os.getloadavg()[0]
    labels = {"resnet18": "ResNet-18, batch 16, 3x64x64",
              "transformer": "Transformer encoder, batch 32 x 128 tokens"}
    rows = []
    for m, ss in settings.items():
        for s in ss:
            t = my[(m, s)]
            bf16 = s.startswith("bf16")
            unfused = my[(m, "bf16" if bf16 else "unfused")]
            rows.append([labels[m], {"unfused": "float32", "fused": "float32, fused",
                                     "bf16": "O2 bfloat16", "bf16_fused": "O2 bfloat16, fused"}[s],
                         f"{t:.1f}", f"{unfused / t:.2f}", f"{th[m]:.1f}", f"{th[m] / t:.2f}",
                         f"{my[(m, 'unfused')] / t:.2f}" if bf16 else "-"])
    return _table(
        "Model training steps",
        f"Produced by bench/models_bench.py (`python3 bench/run.py --only models`) on "
        f"{datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"{os.environ.get('BENCH_THREADS', '2')} threads for mycel; PyTorch eager at its best "
        "of 1 and 2 threads; each model's mycel settings built in one process with their "
        "passes interleaved (8 passes of 4 steps each), so its ratios are taken under the "
        "same load (a shared machine: steps vary by up to 2x between runs "
        "under other jobs' load). One training step (forward, "
        "cross-entropy, backward, Momentum update) on a fixed batch: mycel GRAPH mode "
        "(`nn.TrainOneStepCell`; O2: `amp.build_train_network(..., level=\"O2\")` with the "
        "dynamic loss scale), fused = `set_context(enable_graph_kernel=True)`; PyTorch: "
        "torchvision's resnet18 and the same encoder in torch.nn. ms per step, best of the 8 "
        "passes (PyTorch: 2 of 2 steps; the module docstring has the details). "
        "Targets: ≥ 1.5x PyTorch; fusion never slower than unfused; O2 bfloat16 ≥ 1.5x "
        "float32 on the Transformer. Process CPU time per step in the same runs (both "
        "threads; the steadier measure of the work under load): ResNet-18 unfused "
        f"{rcpu['unfused']:.1f} ms, fused {rcpu['fused']:.1f} ms (fused "
        f"{rcpu['unfused'] / rcpu['fused']:.2f}x unfused); the Transformer "
        + ", ".join(f"{s} {cpu[s]:.1f} ms" for s in settings["transformer"])
        + f" (O2 bfloat16 {cpu['unfused'] / cpu['bf16']:.2f}x and fused "
        f"{cpu['unfused'] / cpu['bf16_fused']:.2f}x float32's; float32 fused "
        f"{cpu['unfused'] / cpu['fused']:.2f}x unfused). The 1-minute load average was "
        f"{load0:.1f} when the section started and {load1:.1f} when it ended (2 cores: above "
        "2, other jobs shared them).",
        ["model", "mycel setting", "mycel ms/step", "vs unfused", "PyTorch ms/step",
         "vs PyTorch", "vs float32"], rows)


def _interleaved_section(script, name, heading, what, first_column, description):
    """A section whose script runs mycel and PyTorch in one process, one compute thread each,
    interleaved round by round (fft_bench.py, sparse_bench.py): the table of its results."""
    print(f"bench: {name} (mycel and {what} interleaved, one thread) ...", flush=True)
    load0 = os.getloadavg()[0]
    date = f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
    r = run(script)
    load = os.getloadavg()[0]
    lines = [
        heading,
        "",
        f"Produced by bench/{script} (`python3 bench/run.py --only {name}`, "
        f"{date}; load average {load0:.2f} before and {load:.2f} at the end of the run on "
        f"{os.cpu_count()} cores: the machine may be shared). " + description + " Speed "
        "ratio: PyTorch's time over mycel's (> 1: mycel faster); rounds: the lowest and highest "
        "ratio of single rounds (the noise).",
        "",
        f"| {first_column} | mycel ms | PyTorch ms | speed ratio | rounds | max rel. difference |",
        "|---|---|---|---|---|---|",
    ]
    for v in r.values():
        lines.append(f"| {v['label']} | {v['mycel_ms']:.3f} | {v['torch_ms']:.3f} | "
                     f"{v['torch_ms'] / v['mycel_ms']:.2f} | "
                     f"{v['ratio_min']:.2f}-{v['ratio_max']:.2f} | {v['max_rel_diff']:.1e} |")
    lines.append("")
    return lines


def fft_section():
    """The FFT against torch.fft."""
    return _interleaved_section(
        "fft_bench.py", "fft", "## FFT", "torch.fft", "transform",
        "mycel and torch.fft in one process, one compute thread each, interleaved round by "
        "round; ms of process CPU time per call (median of rounds), the result read back as a "
        "numpy array.")


def sparse_section():
    """Sparse x dense products against torch.sparse.mm."""
    return _interleaved_section(
        "sparse_bench.py", "sparse", "## Sparse products", "torch.sparse", "product",
        "float32, mycel and torch.sparse.mm in one process, one compute thread each, "
        "interleaved round by round; ms of process CPU time per call (median of rounds), "
        "results read back as numpy arrays. mycel: ops.csr_mm through the fused CSRMM op / "
        "SparseTensorDenseMatmul (unsorted COO) through the fused COOMM op, and ms.grad of sum(csr_mm(A, B) * W) by "
        "the values and B; PyTorch: torch.sparse.mm of a CSR tensor / of a COO tensor made in "
        "the call from the same unsorted indices, and the same gradient through a COO tensor.")


SECTIONS = {  # --only NAME: (the section's heading in RESULTS.md, its function)
    "fft": ("## FFT", fft_section),
    "sparse": ("## Sparse products", sparse_section),
    "amp": ("## Mixed precision", amp_section),
    "armour": ("## Adversarial attacks", armour_section),
    "graph": ("## Graph mode", graph_section),
    "grad": ("## Automatic differentiation", grad_section),
    "train": ("## Training throughput", train_section),
    "data": ("## Data pipeline", data_section),
    "distributed": ("## Distributed", dist_section),
    "parallel": ("## Tensor parallelism", parallel_section),
    "pipeline": ("## Pipeline parallelism", pipeline_section),
    "optimizer": ("## Optimizer parallelism", optimizer_section),
    "privacy": ("## Differential privacy", privacy_section),
    "federated": ("## Federated learning", federated_section),
    "search": ("## Strategy search", search_section),
    "recompute": ("## Recompute", recompute_section),
    "simgrid": ("## Collective model against SimGrid", simgrid_section),
    "lite": ("## mycel lite", lite_section),
    "sink": ("## Data sink", sink_section),
    "thor": ("## THOR", thor_section),
    "vmap": ("## vmap", vmap_section),
    "fusion": ("## Graph-kernel fusion", fusion_section),
    "models": ("## Model training steps", models_section),
}


def replace_section(path, heading, new_lines):
    """RESULTS.md with the section titled `heading` replaced by new_lines (appended when it
    has none); every other section kept as it is."""
    with open(path) as f:
        old = f.read().split("\n")
    starts = [i for i, line in enumerate(old) if line.startswith("## ")] + [len(old)]
    out, replaced = old[:starts[0]], False
    for a, b in zip(starts, starts[1:]):
        if old[a].strip() == heading:
            out += new_lines + ([""] if new_lines and new_lines[-1] != "" else [])
            replaced = True
        else:
            out += old[a:b]
    if not replaced:
        if out and out[-1] != "":
            out.append("")
        out += new_lines
    return "\n".join(out)


def main_only(name):
    """Runs one section and writes it into the existing RESULTS.md."""
    heading, section = SECTIONS[name]
    produced_by = (f"`python3 bench/run.py --only {name}` on {datetime.date.today()}, "
                   f"{platform.machine()}, {os.cpu_count()} cores (this section only; the "
                   "other sections are from the `make bench` run named at the top)")
    lines = section(produced_by) if name in ("distributed", "armour") else section()
    path = os.path.join(HERE, "RESULTS.md")
    text = replace_section(path, heading, lines)
    with open(path, "w") as f:
        f.write(text)
    print("\n".join(lines))
    print(f"wrote section '{heading[3:]}' of {path}")


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
    lines += amp_section()
    lines += data_section()
    lines += armour_section("the same `make bench` run")
    lines += dist_section("the same `make bench` run")
    lines += parallel_section()
    lines += pipeline_section()
    lines += optimizer_section()
    lines += privacy_section()
    lines += federated_section()
    lines += search_section()
    lines += recompute_section()
    lines += simgrid_section()
    lines += lite_section()
    lines += sink_section()
    lines += thor_section()
    lines += vmap_section()
    lines += fusion_section()
    lines += models_section()
    lines += fft_section()
    lines += sparse_section()
    path = os.path.join(HERE, "RESULTS.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {path}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", choices=sorted(SECTIONS),
                    help="run only this section and replace it in the existing RESULTS.md "
                         "(default: every benchmark, RESULTS.md written anew)")
    args = ap.parse_args()
    if args.only:
        main_only(args.only)
    else:
        main()
