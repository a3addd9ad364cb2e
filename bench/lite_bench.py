"""mycel lite benchmark for one framework per process: `lite_bench.py mycel|torch`. Prints one
JSON object; bench/run.py (`--only lite`) runs it for each framework and writes RESULTS.md.

  mycel   LeNet-5 (examples/lenet.py, batch 1, 1x28x28, seeded random weights) exported by
          mycel.export and converted by mycel_convert to float32 and to full int8 (MAX_MIN,
          per-channel, bias correction, calibrated on 32 seeded normal images); batch-1
          latency of float32, bf16 (the float32 file, --enableFp16=true) and int8, one
          thread: build/mycel_benchmark's mean and min (C++, --loopCount=LOOPS after 200
          warm-up runs; the median of 3 runs' means), and Python's `Model.predict` per call
          (numpy in, numpy out; the median of 5 passes of LOOPS calls), and at batch 64
          (the model resized; 5 passes of 100 calls). Load time:
          `Model.build_from_file` (map, check, kernels, arena), the median of 20. Sizes: the
          .ms files and build/libmycel_lite.so stripped (`strip -o`), with oneDNN apart.
          ResNet-18 and MobileNetV2 (torchvision, random weights and BatchNorm statistics,
          1x3x224x224) exported by torch.onnx.export and converted (--fmk=ONNX) to fp32 and
          int8 (MAX_MIN on 4 random images): mycel_benchmark over BIG_LOOPS runs at its best of
          1 and 2 threads (--numThreads); load time.
  torch   the same network in PyTorch, eager under torch.no_grad() and TorchScript
          (torch.jit.freeze(torch.jit.script(model))), at 1 and 2 threads
          (torch.set_num_threads); per call from Python, the median of 5 passes of LOOPS calls
          (eager at batch 64 too: 100 calls); ResNet-18 and MobileNetV2 likewise, 3 passes of
          BIG_LOOPS calls.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
BUILD = os.path.join(ROOT, "build")
LOOPS = 2000
BIG_LOOPS = 20  # ResNet-18, MobileNetV2


def per_call_us(fn, passes=5, loops=LOOPS):
    for _ in range(200):
        fn()
    times = []
    for _ in range(passes):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        times.append((time.perf_counter() - t0) / loops * 1e6)
    return statistics.median(times)


def benchmark_tool(path, bf16=False, loops=LOOPS, warm=200, threads=1):
    """mycel_benchmark's mean and min latency in us (the median of 3 runs' means)."""
    means, mins = [], []
    for _ in range(3):
        out = subprocess.run(
            [os.path.join(BUILD, "mycel_benchmark"), f"--modelFile={path}",
             f"--numThreads={threads}",
             f"--loopCount={loops}", f"--warmUpLoopCount={warm}"] +
            (["--enableFp16=true"] if bf16 else []),
            capture_output=True, text=True, check=True).stdout
        m = re.search(r"min ([0-9.]+), mean ([0-9.]+)", out)
        mins.append(float(m.group(1)) * 1e3)
        means.append(float(m.group(2)) * 1e3)
    return statistics.median(means), min(mins)


def torchvision_model(name):
    """torchvision's `name`, random weights and BatchNorm statistics (seeded), eval."""
    import torch
    import torchvision
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
    from test_onnx_import import _randomise_bn  # the ONNX tests' statistics
    torch.manual_seed(0)
    return _randomise_bn(getattr(torchvision.models, name)(weights=None), 1).eval()


def big_models(d):
    """ResNet-18 and MobileNetV2 (1x3x224x224) through ONNX: fp32, bf16, int8 (MAX_MIN on 4
    calibration images); mycel_benchmark over BIG_LOOPS runs and the load time."""
    import torch
    import mycel.lite as mslite
    out = {}
    rs = np.random.RandomState(0)
    for name in ("resnet18", "mobilenet_v2"):
        model = torchvision_model(name)
        onnx = os.path.join(d, f"{name}.onnx")
        with torch.no_grad():
            torch.onnx.export(model, torch.randn(1, 3, 224, 224), onnx, opset_version=13)
        conv = mslite.Converter()
        conv.convert(mslite.FmkType.ONNX, onnx, os.path.join(d, f"{name}_fp32"))
        m = mslite.Model()
        m.build_from_file(os.path.join(d, f"{name}_fp32.ms"))
        cal = os.path.join(d, f"{name}_cal")
        os.mkdir(cal)
        for i in range(4):
            rs.randn(1, 3, 224, 224).astype(np.float32).tofile(os.path.join(cal, f"{i}.bin"))
        cfg = os.path.join(d, f"{name}.cfg")
        with open(cfg, "w") as f:
            f.write("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n"
                    f"[data_preprocess_param]\ncalibrate_path={m.get_inputs()[0].name}:{cal}\n"
                    "calibrate_size=4\n[full_quant_param]\nactivation_quant_method=MAX_MIN\n")
        t0 = time.perf_counter()
        conv.convert(mslite.FmkType.ONNX, onnx, os.path.join(d, f"{name}_int8"), config_file=cfg)
        convert_s = time.perf_counter() - t0
        agree = re.search(r"top-1 agreement ([0-9.]+)%", conv.report)
        r = {"int8_convert_s": convert_s, "int8_top1_agree": float(agree.group(1))}
        for variant, file in (("fp32", "fp32"), ("bf16", "fp32"), ("int8", "int8")):
            path = os.path.join(d, f"{name}_{file}.ms")
            # Each at its best of 1 and 2 threads, as PyTorch.
            mean, best, threads = min(
                benchmark_tool(path, variant == "bf16", BIG_LOOPS, 3, t) + (t,) for t in (1, 2))
            r[variant] = dict(tool_mean_us=mean, tool_min_us=best, threads=threads,
                              file_bytes=os.path.getsize(path))
        loads = []
        for _ in range(5):
            t0 = time.perf_counter()
            mslite.Model().build_from_file(os.path.join(d, f"{name}_fp32.ms"))
            loads.append((time.perf_counter() - t0) * 1e3)
        r["load_ms"] = statistics.median(loads)
        out[name] = r
    return out


def mycel():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import mycel as ms
    import mycel.lite as mslite
    from lenet import LeNet5
    ms.set_seed(0)
    net = LeNet5()
    net.set_train(False)
    rs = np.random.RandomState(0)
    x = rs.randn(1, 1, 28, 28).astype(np.float32)
    d = tempfile.mkdtemp(prefix="lite_bench")
    ms.export(net, ms.Tensor(x), file_name=os.path.join(d, "lenet"), file_format="MINDIR")
    conv = mslite.Converter()
    conv.convert(mslite.FmkType.MINDIR, os.path.join(d, "lenet.mindir"),
                 os.path.join(d, "fp32"))
    ctx = mslite.Context(thread_num=1)
    model = mslite.Model()
    model.build_from_file(os.path.join(d, "fp32.ms"), context=ctx)
    name = model.get_inputs()[0].name
    os.mkdir(os.path.join(d, "cal"))
    for i in range(32):
        rs.randn(1, 1, 28, 28).astype(np.float32).tofile(os.path.join(d, "cal", f"{i:02d}.bin"))
    with open(os.path.join(d, "q.cfg"), "w") as f:
        f.write("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n"
                f"[data_preprocess_param]\ncalibrate_path={name}:{os.path.join(d, 'cal')}\n"
                "calibrate_size=32\ninput_type=BIN\n[full_quant_param]\n"
                "activation_quant_method=MAX_MIN\nper_channel=true\nbias_correction=true\n")
    conv.convert(mslite.FmkType.MINDIR, os.path.join(d, "lenet.mindir"),
                 os.path.join(d, "int8"), config_file=os.path.join(d, "q.cfg"))
    out = {}
    for variant, file, precision in (("fp32", "fp32.ms", "preferred_fp32"),
                                     ("bf16", "fp32.ms", "preferred_bf16"),
                                     ("int8", "int8.ms", "preferred_fp32")):
        path = os.path.join(d, file)
        mean, best = benchmark_tool(path, variant == "bf16")
        ctx = mslite.Context(thread_num=1)
        ctx.cpu.precision_mode = precision
        model = mslite.Model()
        model.build_from_file(path, context=ctx)
        py = per_call_us(lambda: model.predict([x])[0].get_data_to_numpy())
        model.resize(model.get_inputs(), [[64, 1, 28, 28]])
        x64 = rs.randn(64, 1, 28, 28).astype(np.float32)
        b64 = per_call_us(lambda: model.predict([x64])[0].get_data_to_numpy(), loops=100)
        out[variant] = dict(tool_mean_us=mean, tool_min_us=best, python_us=py, b64_us=b64,
                            file_bytes=os.path.getsize(path))
    loads = []
    for _ in range(20):
        t0 = time.perf_counter()
        mslite.Model().build_from_file(os.path.join(d, "fp32.ms"), context=ctx)
        loads.append((time.perf_counter() - t0) * 1e3)
    out["load_ms"] = statistics.median(loads)
    stripped = os.path.join(d, "libmycel_lite.stripped.so")
    subprocess.run(["strip", "-o", stripped, os.path.join(BUILD, "libmycel_lite.so")], check=True)
    out["lib_stripped_kb"] = os.path.getsize(stripped) / 1024
    out.update(big_models(d))
    return out


def torch_():
    import torch
    from torch import nn

    model = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10)).eval()
    x, x64 = torch.randn(1, 1, 28, 28), torch.randn(64, 1, 28, 28)
    scripted = torch.jit.freeze(torch.jit.script(model))
    out = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with torch.no_grad():
            out[f"eager_{threads}"] = per_call_us(lambda: model(x).numpy())
            out[f"script_{threads}"] = per_call_us(lambda: scripted(x).numpy())
            out[f"eager64_{threads}"] = per_call_us(lambda: model(x64).numpy(), loops=100)
    xb = torch.randn(1, 3, 224, 224)
    for name in ("resnet18", "mobilenet_v2"):
        big = torchvision_model(name)
        big_script = torch.jit.freeze(torch.jit.script(big))
        for threads in (1, 2):
            torch.set_num_threads(threads)
            with torch.no_grad():
                out[f"{name}_eager_{threads}"] = per_call_us(lambda: big(xb).numpy(), 3,
                                                             BIG_LOOPS)
                out[f"{name}_script_{threads}"] = per_call_us(lambda: big_script(xb).numpy(), 3,
                                                              BIG_LOOPS)
    return out


if __name__ == "__main__":
    print(json.dumps(mycel() if sys.argv[1] == "mycel" else torch_()))
