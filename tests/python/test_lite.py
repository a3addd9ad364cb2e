"""mycel.lite: networks exported by mycel.export, converted (build/mycel_convert, python -m
mycel.lite.convert, mycel.lite.Converter) and run by the lite runtime (mycel.lite.Model, the
C API from a C program, build/mycel_benchmark). The oracle is the network's own forward in
each mode; outputs must agree to 1e-4 relative. Also what the converter's passes leave, the
unsupported-operator report, the options not built yet, and damaged files."""
import os
import re
import subprocess
import sys
import zlib

import numpy as np
import pytest

import mycel as ms
import mycel.lite as mslite
from mycel import nn, ops
from lenet import LeNet5  # examples/lenet.py

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=old)


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


def _convert(net, x, path):
    """Exports net at x's shape, converts it; returns the .ms path."""
    net.set_train(False)
    ms.export(net, ms.Tensor(x), file_name=str(path), file_format="MINDIR")
    mslite.Converter().convert(fmk_type=mslite.FmkType.MINDIR, model_file=str(path) + ".mindir",
                               output_file=str(path))
    return str(path) + ".ms"


def _build(ms_path, threads=1):
    ctx = mslite.Context()
    ctx.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(ms_path, mslite.ModelType.MINDIR_LITE, ctx)
    return model


def _close(got, want):
    want = np.asarray(want)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


def _ops(model):
    return [(op, act) for _, op, act in model._model.ops()]


def _predict(model, x):
    return model.predict([x])[0].get_data_to_numpy()


def test_lenet_batch_1_and_resized_to_32(mode, tmp_path):
    ms.set_seed(1)
    net = LeNet5()
    x1, x32 = _rand(1, 1, 28, 28, seed=1), _rand(32, 1, 28, 28, seed=2)
    model = _build(_convert(net, x1, tmp_path / "lenet"))
    # Bias and ReLU fused into the convolutions and the fully connected layers.
    assert _ops(model) == [("Conv2D", "ReLU"), ("Pool", ""), ("Conv2D", "ReLU"), ("Pool", ""),
                           ("Reshape", ""), ("FullyConnected", "ReLU"),
                           ("FullyConnected", "ReLU"), ("FullyConnected", "")]
    [inp] = model.get_inputs()
    assert inp.shape == [1, 1, 28, 28]
    inp.set_data_from_numpy(x1)
    _close(model.predict([inp])[0].get_data_to_numpy(), net(ms.Tensor(x1)).asnumpy())
    model.resize(model.get_inputs(), [[32, 1, 28, 28]])
    assert model.get_inputs()[0].shape == [32, 1, 28, 28]
    out = model.predict([x32])
    assert out[0].shape == [32, 10]
    _close(out[0].get_data_to_numpy(), net(ms.Tensor(x32)).asnumpy())


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(20, 32)
        self.fc2 = nn.Dense(32, 16)
        self.fc3 = nn.Dense(16, 3)
        self.tanh = nn.Tanh()
        self.sigmoid = nn.Sigmoid()

    def construct(self, x):
        h = self.tanh(self.fc1(x * 0.5 - 1.0))
        return self.fc3(self.sigmoid(self.fc2(h)))


def test_mlp(mode, tmp_path):
    ms.set_seed(2)
    net = MLP()
    x = _rand(4, 20, seed=3)
    model = _build(_convert(net, x, tmp_path / "mlp"))
    assert _ops(model) == [("Eltwise", ""), ("Eltwise", ""), ("FullyConnected", "Tanh"),
                           ("FullyConnected", "Sigmoid"), ("FullyConnected", "")]
    _close(_predict(model, x), net(ms.Tensor(x)).asnumpy())


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, has_bias=False)  # pad_mode "same"
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.pool = nn.AvgPool2d(2, 2)
        self.conv2 = nn.Conv2d(8, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.bn2 = nn.BatchNorm2d(4)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 2 * 2, 5)
        self.softmax = nn.Softmax()

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        x = self.relu(self.bn2(self.conv2(x)))
        return self.softmax(self.fc(self.flatten(x)))


def test_conv_batchnorm_net(mode, tmp_path):
    ms.set_seed(3)
    net = ConvBN()
    # Statistics that are not the identity, so folding them matters.
    for bn in (net.bn, net.bn2):
        c = bn.moving_mean.shape[0]
        bn.moving_mean.set_data(ms.Tensor(_rand(c, seed=4)))
        bn.moving_variance.set_data(ms.Tensor(np.abs(_rand(c, seed=5)) + 0.5))
        bn.gamma.set_data(ms.Tensor(_rand(c, seed=6)))
        bn.beta.set_data(ms.Tensor(_rand(c, seed=7)))
    x = _rand(2, 3, 8, 8, seed=8)
    model = _build(_convert(net, x, tmp_path / "convbn"))
    # Both BatchNorms folded into their convolutions, the ReLUs fused.
    assert _ops(model) == [("Conv2D", "ReLU"), ("Pool", ""), ("Conv2D", "ReLU"),
                           ("Reshape", ""), ("FullyConnected", ""), ("Softmax", "")]
    _close(_predict(model, x), net(ms.Tensor(x)).asnumpy())
    x5 = _rand(5, 3, 8, 8, seed=9)
    model.resize(model.get_inputs(), [[5, 3, 8, 8]])
    _close(_predict(model, x5), net(ms.Tensor(x5)).asnumpy())


class DenseBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 5)
        self.bn = nn.BatchNorm1d(5)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.fc(x)))


def test_dense_batchnorm_folds_into_fully_connected(mode, tmp_path):
    """MatMul with a constant matrix becomes FullyConnected, its bias and the BatchNorm after
    it fold into its weights, the ReLU fuses: one node."""
    ms.set_seed(12)
    net = DenseBN()
    net.bn.moving_mean.set_data(ms.Tensor(_rand(5, seed=1)))
    net.bn.moving_variance.set_data(ms.Tensor(np.abs(_rand(5, seed=2)) + 0.5))
    net.bn.gamma.set_data(ms.Tensor(_rand(5, seed=3)))
    net.bn.beta.set_data(ms.Tensor(_rand(5, seed=4)))
    x = _rand(4, 6, seed=5)
    model = _build(_convert(net, x, tmp_path / "densebn"))
    assert _ops(model) == [("FullyConnected", "ReLU")]
    _close(_predict(model, x), net(ms.Tensor(x)).asnumpy())


class Folds(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(_rand(3, 4, seed=10)), name="w")

    def construct(self, x):
        y = ops.transpose(ops.transpose(x, (0, 2, 1)), (0, 2, 1))
        return ops.relu(y + self.w * 2.0)


def test_constant_folding_and_transpose_elimination(mode, tmp_path):
    net = Folds()
    x = _rand(2, 3, 4, seed=11)
    model = _build(_convert(net, x, tmp_path / "folds"))
    assert _ops(model) == [("Eltwise", "ReLU")]  # w * 2 folded, the transposes gone
    _close(_predict(model, x), net(ms.Tensor(x)).asnumpy())


class TwoOutputs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        y = self.fc(x)
        return ops.relu(y), ops.sigmoid(y)


def test_two_outputs_of_one_layer(mode, tmp_path):
    """A tuple result gives two outputs; the layer both read keeps its output (no fusion)."""
    net = TwoOutputs()
    x = _rand(2, 4, seed=14)
    model = _build(_convert(net, x, tmp_path / "two"))
    assert _ops(model) == [("FullyConnected", ""), ("Act", "ReLU"), ("Act", "Sigmoid")]
    outs = model.predict([x])
    assert len(outs) == 2
    for got, want in zip(outs, net(ms.Tensor(x))):
        _close(got.get_data_to_numpy(), want.asnumpy())


class Unsupported(nn.Cell):
    def construct(self, x):
        y = ops.exp(x)
        return ops.square(y) + ops.exp(y)


def test_every_unsupported_operator_in_one_error(tmp_path):
    x = _rand(2, 3)
    ms.export(Unsupported(), ms.Tensor(x), file_name=str(tmp_path / "u"), file_format="MINDIR")
    with pytest.raises(ValueError) as e:
        mslite.Converter().convert(fmk_type=mslite.FmkType.MINDIR,
                                   model_file=str(tmp_path / "u.mindir"),
                                   output_file=str(tmp_path / "u"))
    msg = str(e.value)
    assert "2 unsupported operator(s)" in msg
    assert re.search(r"Exp \(nodes '[^']+', '[^']+'\)", msg), msg
    assert re.search(r"Square \(node '[^']+'\)", msg), msg
    assert not (tmp_path / "u.ms").exists()


@pytest.mark.parametrize("flag, what", [
    ("--trainModel=maybe", "--trainModel=maybe: must be true or false"),
    ("--codegen=rust", "the code generator writes C only"),
    ("--fp16=half", "--fp16=half: expected on or off"),
    ("--fmk=CAFFE", "--fmk=CAFFE is not a known format (MINDIR, ONNX)"),
    ("--bogus=1", "unknown flag --bogus"),
])
def test_options_not_built_yet_are_errors(flag, what, tmp_path, capsys):
    from mycel.lite import convert
    args = ["--modelFile=m.mindir", f"--outputFile={tmp_path / 'o'}"]
    args.insert(0, flag if flag.startswith("--fmk") else "--fmk=MINDIR")
    if not flag.startswith("--fmk"):
        args.append(flag)
    assert convert.main(args) == 1
    assert what in capsys.readouterr().err
    with pytest.raises(ValueError, match="cannot read the quantization config"):
        mslite.Converter().convert(mslite.FmkType.MINDIR, "m.mindir", str(tmp_path / "o"),
                                   config_file="q.cfg")


def _lenet_ms(tmp_path):
    ms.set_seed(5)
    net = LeNet5()
    x = _rand(1, 1, 28, 28, seed=12)
    return net, x, _convert(net, x, tmp_path / "lenet")


def test_damaged_source_model_is_an_error(tmp_path):
    x = _rand(2, 4)
    ms.export(nn.Dense(4, 3), ms.Tensor(x), file_name=str(tmp_path / "d"), file_format="MINDIR")
    data = (tmp_path / "d.mindir").read_bytes()
    (tmp_path / "d.mindir").write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match="d.mindir"):
        mslite.Converter().convert(mslite.FmkType.MINDIR, str(tmp_path / "d.mindir"),
                                   str(tmp_path / "d"))
    assert not (tmp_path / "d.ms").exists()


def test_damaged_and_foreign_files(tmp_path):
    _, x, path = _lenet_ms(tmp_path)
    good = open(path, "rb").read()

    def build(data, verify=True):
        p = tmp_path / "bad.ms"
        p.write_bytes(data)
        ctx = mslite.Context()
        ctx.verify_checksum = verify
        model = mslite.Model()
        model.build_from_file(str(p), context=ctx)
        return model

    with pytest.raises(ValueError, match="truncated"):
        build(good[:-100])
    flipped = bytearray(good)
    flipped[-5] ^= 0x40  # a weight
    with pytest.raises(ValueError, match="checksum mismatch"):
        build(bytes(flipped))
    build(bytes(flipped), verify=False).predict([x])  # trusted: loads (a weight changed)
    with pytest.raises(ValueError, match="not a mycel lite model file"):
        build((tmp_path / "lenet.mindir").read_bytes())
    newer = bytearray(good)
    newer[12] = 9
    newer[8:12] = zlib.crc32(bytes(newer[12:])).to_bytes(4, "little")
    with pytest.raises(ValueError, match="format version 9; this runtime reads version 1"):
        build(bytes(newer))
    with pytest.raises(RuntimeError, match="cannot read"):  # as every mycel file reader
        mslite.Model().build_from_file(str(tmp_path / "missing.ms"))
    with pytest.raises(ValueError, match="MINDIR_LITE"):
        mslite.Model().build_from_file(path, mslite.ModelType.MINDIR)


def test_bad_inputs_and_context(tmp_path):
    _, x, path = _lenet_ms(tmp_path)
    model = _build(path)
    with pytest.raises(ValueError, match=r"must have shape \[1, 1, 28, 28\]"):
        model.predict([x[:, :, :27]])
    with pytest.raises(ValueError, match="has 1 input"):
        model.predict([x, x])
    with pytest.raises(TypeError, match="lite Tensor or a numpy array"):
        model.predict([[1.0]])
    with pytest.raises(ValueError, match="For 'Conv2D'"):
        model.resize(model.get_inputs(), [[1, 3, 28, 28]])  # 3 channels for a 1-channel conv
    _predict(model, x)  # the model kept its shapes
    ctx = mslite.Context()
    ctx.cpu.thread_num = -1
    with pytest.raises(TypeError, match="thread_num"):
        mslite.Model().build_from_file(path, context=ctx)
    ctx = mslite.Context()
    ctx.cpu.precision_mode = "force_fp16"
    with pytest.raises(ValueError, match="no float16 arithmetic"):
        mslite.Model().build_from_file(path, context=ctx)


def _run(cmd, **kw):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, **kw)


def test_command_lines_convert_and_benchmark(tmp_path):
    ms.set_seed(6)
    net = LeNet5()
    net.set_train(False)
    x = _rand(1, 1, 28, 28, seed=13)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "lenet"), file_format="MINDIR")
    flags = ["--fmk=MINDIR", f"--modelFile={tmp_path / 'lenet.mindir'}"]
    r = _run([os.path.join(BUILD, "mycel_convert"), *flags, f"--outputFile={tmp_path / 'a'}"])
    assert r.returncode == 0, r.stderr
    assert re.search(r"differs from the source model by [0-9.e+-]+%", r.stdout), r.stdout
    r = _run([sys.executable, "-m", "mycel.lite.convert", *flags,
              f"--outputFile={tmp_path / 'b'}"])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.ms").read_bytes() == (tmp_path / "b.ms").read_bytes()

    # Inputs as raw float32, the reference in MindSpore Lite benchmark's text form.
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    want = net(ms.Tensor(x)).asnumpy()
    name = _build(str(tmp_path / "a.ms")).get_outputs()[0].name

    def reference(values, file):
        (tmp_path / file).write_text(f"{name} 2 1 10\n" + " ".join(map(repr, values.ravel().tolist())) + "\n")
        return str(tmp_path / file)

    args = [f"--modelFile={tmp_path / 'a.ms'}", "--loopCount=5", "--numThreads=1",
            f"--inDataFile={tmp_path / 'x.bin'}"]
    r = _run([os.path.join(BUILD, "mycel_benchmark"), *args,
              f"--benchmarkDataFile={reference(want, 'ref.txt')}"])
    assert r.returncode == 0, r.stdout + r.stderr
    lo, mean, p99 = map(float, re.search(r"min ([0-9.]+), mean ([0-9.]+), p99 ([0-9.]+)",
                                         r.stdout).groups())
    assert 0 < lo <= mean and lo <= p99
    assert re.search(r"Peak memory: arena [0-9.]+ MB, process peak RSS [0-9.]+ MB", r.stdout)
    err = float(re.search(r"mean relative error ([0-9.e+-]+)%", r.stdout).group(1))
    assert err < 1e-2
    # A reference 1% off fails the check (threshold 0.5%), from Python's command line too.
    r = _run([sys.executable, "-m", "mycel.lite.benchmark", *args,
              f"--benchmarkDataFile={reference(want * 1.01, 'off.txt')}"])
    assert r.returncode == 1 and "Accuracy check FAILED" in r.stdout, r.stdout + r.stderr
    r = _run([os.path.join(BUILD, "mycel_benchmark"), f"--modelFile={tmp_path / 'a.ms'}",
              f"--inDataFile={tmp_path / 'x.bin'},{tmp_path / 'x.bin'}"])
    assert r.returncode == 2 and "names 2 file(s); the model has 1 input" in r.stderr
    # --timeProfiling=true: one line per node, each naming its op and output.
    r = _run([os.path.join(BUILD, "mycel_benchmark"), *args, "--timeProfiling=true"])
    assert r.returncode == 0, r.stdout + r.stderr
    nodes = re.findall(r"^ +[0-9.]+ +[0-9.]+ +[0-9.]+%  (\w+) '([^']+)' -> float32 \[", r.stdout,
                       re.M)
    assert len(nodes) == len({n for _, n in nodes}) > 0, r.stdout
    assert {op for op, _ in nodes} >= {"Conv2D", "FullyConnected"}, r.stdout
    r = _run([os.path.join(BUILD, "mycel_benchmark"), *args, "--timeProfiling=yes"])
    assert r.returncode == 2 and "--timeProfiling=yes: expected true or false" in r.stderr


C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "lite/mycel_lite_c.h"

int main(int argc, char** argv) {
  MycelLiteModel* m = mycel_lite_model_create();
  if (mycel_lite_model_build_from_file(m, "/nonexistent.ms", 1) != MYCEL_LITE_ERROR) return 3;
  printf("error: %s\n", mycel_lite_last_error(m));
  if (mycel_lite_model_build_from_file(m, argv[1], 1) != MYCEL_LITE_OK) {
    printf("%s\n", mycel_lite_last_error(m));
    return 4;
  }
  int64_t dims[8];
  size_t ndim = 0, n = 1;
  mycel_lite_input_shape(m, 0, dims, 8, &ndim);
  for (size_t i = 0; i < ndim; ++i) n *= (size_t)dims[i];
  float* x = malloc(n * sizeof(float));
  FILE* f = fopen(argv[2], "rb");
  if (fread(x, sizeof(float), n, f) != n) return 5;
  fclose(f);
  const float* inputs[1] = {x};
  if (mycel_lite_predict(m, inputs, 1) != MYCEL_LITE_OK) return 6;
  const float* y = mycel_lite_output(m, 0, dims, 8, &ndim);
  printf("%s %zu %lld %lld\n", mycel_lite_input_name(m, 0), ndim, (long long)dims[0],
         (long long)dims[1]);
  for (int64_t i = 0; i < dims[0] * dims[1]; ++i) printf("%.9g ", y[i]);
  printf("\n");
  /* Batch 3 (the image three times): the same row three times. */
  int64_t shape3[4] = {3, 1, 28, 28};
  const int64_t* shapes[1] = {shape3};
  size_t ndims[1] = {4};
  if (mycel_lite_resize(m, shapes, ndims) != MYCEL_LITE_OK) return 7;
  float* x3 = malloc(3 * n * sizeof(float));
  for (size_t i = 0; i < 3 * n; ++i) x3[i] = x[i % n];
  const float* inputs3[1] = {x3};
  if (mycel_lite_predict(m, inputs3, 1) != MYCEL_LITE_OK) return 8;
  y = mycel_lite_output(m, 0, dims, 8, &ndim);
  printf("%lld %lld\n", (long long)dims[0], (long long)dims[1]);
  for (int64_t i = 0; i < dims[0] * dims[1]; ++i) printf("%.9g ", y[i]);
  printf("\n");
  free(x3);
  free(x);
  mycel_lite_model_destroy(m);
  return 0;
}
"""


def test_c_api_from_a_c_program(tmp_path):
    net, x, path = _lenet_ms(tmp_path)
    (tmp_path / "main.c").write_text(C_PROGRAM)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    r = _run(["cc", "-std=c11", "-Wall", "-Werror", "-o", str(tmp_path / "prog"),
              str(tmp_path / "main.c"), "-I", os.path.join(ROOT, "src"), "-L", BUILD,
              "-lmycel_lite", f"-Wl,-rpath,{BUILD}"])
    assert r.returncode == 0, r.stderr
    r = _run([str(tmp_path / "prog"), path, str(tmp_path / "x.bin")])
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "cannot read" in lines[0] and "/nonexistent.ms" in lines[0]
    assert lines[1].split()[1:] == ["2", "1", "10"]
    want = net(ms.Tensor(x)).asnumpy()
    got = np.array([float(v) for v in lines[2].split()], np.float32).reshape(1, 10)
    _close(got, want)
    assert lines[3].split() == ["3", "10"]
    got3 = np.array([float(v) for v in lines[4].split()], np.float32).reshape(3, 10)
    _close(got3, np.repeat(want, 3, axis=0))


def test_fuzz_corpus_runs(tmp_path):
    """The seeds of fuzz_lite_model (fuzz/corpus/lite_model, fuzz/make_corpus.py) load and
    run; inputs of fixed findings ("regress-*") load or fail with a typed error."""
    d = os.path.join(ROOT, "fuzz", "corpus", "lite_model")
    names = sorted(os.listdir(d))
    assert [n for n in names if n.endswith(".ms")] and \
        sum(os.path.getsize(os.path.join(d, n)) for n in names) < 200_000
    for n in names:
        try:
            model = _build(os.path.join(d, n))
            model.predict([t.get_data_to_numpy() for t in model.get_inputs()])
        except (ValueError, TypeError, RuntimeError):
            assert n.startswith("regress-"), n


def test_models_predict_on_several_threads(tmp_path):
    """Two models of one file, each on its own thread (predict releases the GIL), give what
    one gives alone."""
    import threading
    net, x, path = _lenet_ms(tmp_path)
    want = _predict(_build(path), x)
    models = [_build(path) for _ in range(2)]
    results = [[], []]

    def work(k):
        for _ in range(50):
            results[k].append(_predict(models[k], x))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert len(r) == 50
        for got in r:
            np.testing.assert_array_equal(got, want)


def test_runtime_library_links_only_the_runtime(tmp_path):
    """libmycel_lite.so needs oneDNN, zlib, OpenMP and the C/C++ runtime only (no Python, no
    protobuf), holds nothing of the compiler's layers (mycel::lite and base only), and is at
    most 2 MB stripped (the issue's target, oneDNN apart)."""
    lib = os.path.join(BUILD, "libmycel_lite.so")
    dyn = _run(["readelf", "-d", lib]).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn))
    allowed = ("libdnnl.so", "libz.so", "libgomp.so", "libstdc++.so", "libm.so", "libgcc_s.so",
               "libc.so", "ld-linux")
    assert needed and all(n.startswith(allowed) for n in needed), needed
    symbols = _run(["nm", "-C", lib]).stdout
    assert "mycel::lite::Model::Build" in symbols
    layers = set(re.findall(r"mycel::([a-z_]+)::", symbols))
    assert not layers & {"ir", "compiler", "runtime", "frontend", "serialize", "converter",
                         "python", "ops", "kernels", "tensor", "device"}, layers
    stripped = tmp_path / "lib.so"
    assert _run(["strip", "-o", str(stripped), lib]).returncode == 0
    assert stripped.stat().st_size <= 2 * 1024 * 1024
