"""Graph-mode benchmarks for one framework per process: `graph_bench.py mycel|torch`.
Prints one JSON object of measurements; bench/run.py runs it for each framework and writes
RESULTS.md.

  compile time   first-call compile time of a LeNet-5 forward and of a 20-layer MLP forward,
                 each in a fresh process (`graph_bench.py compile FRAMEWORK MODEL`): the time
                 of the first call minus the median of later calls. mycel: the first call in
                 GRAPH mode (parse, specialise, optimise, build the VM program, run).
                 PyTorch: torch.jit.script(model) plus the first call of the scripted module.
                 (TorchScript's profiling executor optimises the graph again on the 2nd and
                 3rd calls; that extra time is not counted.) Median of COMPILE_RUNS processes.
  forward time   LeNet-5 forward at batch 1 and 64 (float32, 1x32x32 input): mycel GRAPH,
                 mycel PYNATIVE and PyTorch eager, median of repeats after a warm-up.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.abspath(os.path.dirname(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
COMPILE_RUNS = 3
MLP_LAYERS, MLP_WIDTH = 20, 128


# ---- the models ----------------------------------------------------------------------------

def mycel_models():
    import mycel as ms
    from mycel import nn

    sys.path.insert(0, os.path.join(ROOT, "examples"))
    from lenet import LeNet5

    def mlp():
        layers = []
        for i in range(MLP_LAYERS):
            layers.append(nn.Dense(MLP_WIDTH, MLP_WIDTH))
            if i + 1 < MLP_LAYERS:
                layers.append(nn.ReLU())
        return nn.SequentialCell(layers)

    return ms, {"lenet": lambda: LeNet5(padding=0), "mlp": mlp}


def torch_models():
    import torch
    from torch import nn

    class LeNet5(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = torch.max_pool2d(torch.relu(self.conv1(x)), 2, 2)
            x = torch.max_pool2d(torch.relu(self.conv2(x)), 2, 2)
            x = torch.flatten(x, 1)
            x = torch.relu(self.fc1(x))
            x = torch.relu(self.fc2(x))
            return self.fc3(x)

    def mlp():
        layers = []
        for i in range(MLP_LAYERS):
            layers.append(nn.Linear(MLP_WIDTH, MLP_WIDTH))
            if i + 1 < MLP_LAYERS:
                layers.append(nn.ReLU())
        return nn.Sequential(*layers)

    return torch, {"lenet": LeNet5, "mlp": mlp}


def model_input(model, batch=1):
    shape = (batch, 1, 32, 32) if model == "lenet" else (batch, MLP_WIDTH)
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


# ---- one fresh-process compile measurement ------------------------------------------------

def steady(fn, n=20):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compile_once(framework, model):
    """In this (fresh) process: the first call's time minus a later call's, in ms."""
    x = model_input(model)
    if framework == "mycel":
        ms, models = mycel_models()
        ms._mycel.set_num_threads(THREADS)
        net = models[model]()
        xt = ms.Tensor(x)
        ms.set_context(mode=ms.GRAPH_MODE)
        t0 = time.perf_counter()
        net(xt)
        first = time.perf_counter() - t0
        later = steady(lambda: net(xt))
    else:
        torch, models = torch_models()
        torch.set_num_threads(THREADS)
        net = models[model]().eval()
        xt = torch.from_numpy(x)
        with torch.no_grad():
            t0 = time.perf_counter()
            scripted = torch.jit.script(net)
            scripted(xt)
            first = time.perf_counter() - t0
            later = steady(lambda: scripted(xt))
    return {"compile_ms": (first - later) * 1e3, "first_ms": first * 1e3,
            "later_ms": later * 1e3}


def compile_times(framework):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = {}
    for model in ("lenet", "mlp"):
        runs = []
        for _ in range(COMPILE_RUNS):
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "compile",
                                framework, model], capture_output=True, text=True, env=env)
            if p.returncode != 0:
                out[f"{model}_compile_error"] = p.stderr.strip().splitlines()[-1]
                break
            runs.append(json.loads(p.stdout.strip().splitlines()[-1])["compile_ms"])
        else:
            out[f"{model}_compile_ms"] = statistics.median(runs)
    return out


# ---- forward throughput --------------------------------------------------------------------

def timeit(fn, batch):
    """Median seconds per call: 7 repeats of enough calls to take ~30 ms."""
    fn()
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    number = max(1, min(2000, int(0.03 / one)))
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def bench_mycel():
    ms, models = mycel_models()
    ms._mycel.set_num_threads(THREADS)
    r = compile_times("mycel")
    net = models["lenet"]()
    for batch in (1, 64):
        x = ms.Tensor(model_input("lenet", batch))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        r[f"lenet_b{batch}_pynative_us"] = timeit(lambda: net(x), batch) * 1e6
        ms.set_context(mode=ms.GRAPH_MODE)
        r[f"lenet_b{batch}_graph_us"] = timeit(lambda: net(x), batch) * 1e6
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return r


def bench_torch():
    torch, models = torch_models()
    torch.set_num_threads(THREADS)
    r = compile_times("torch")
    net = models["lenet"]().eval()
    with torch.no_grad():
        for batch in (1, 64):
            x = torch.from_numpy(model_input("lenet", batch))
            r[f"lenet_b{batch}_eager_us"] = timeit(lambda: net(x), batch) * 1e6
    return r


if __name__ == "__main__":
    if sys.argv[1] == "compile":
        sys.path.insert(0, os.path.join(ROOT, "python"))
        print(json.dumps(compile_once(sys.argv[2], sys.argv[3])))
    else:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        result = {"mycel": bench_mycel, "torch": bench_torch}[sys.argv[1]]()
        print(json.dumps(result))
