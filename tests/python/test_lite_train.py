"""On-device training of mycel lite (``--trainModel=true``, ``Model.build_from_file(...,
train=True)``, ``train_step``, ``export``). The oracle is mycel training the same network on
the same batches with the same optimizer (nn.SGD, nn.Momentum, nn.Adam over
nn.SoftmaxCrossEntropyWithLogits(sparse=True)), in each mode: the loss curves must agree to
1e-4 relative. Fine-tuning LeNet's last layer runs on real Fashion-MNIST images. Also
export (read back by the runtime and by mycel.load), the C API, and the errors."""
import os
import subprocess

import numpy as np
import pytest

import mycel as ms
import mycel.lite as mslite
from mycel import nn
from test_lite import mode  # noqa: F401 (the fixture: each test in both modes)
from lenet import LeNet5, fashion_mnist  # examples/lenet.py

DATA = "/usr/share/datasets/fashion-mnist"  # make demo's data (scripts/deps.sh installs it)
BATCH = 32


@pytest.fixture(scope="module")
def data():
    """Fashion-MNIST training samples as 30 batches of (images, int32 labels)."""
    out = []
    for item in fashion_mnist(DATA, "train", BATCH, shuffle=False).create_dict_iterator(num_epochs=1):
        out.append((item["image"].asnumpy(), item["label"].asnumpy().astype(np.int32)))
        if len(out) == 30:
            break
    assert len(out) == 30 and out[0][0].shape == (BATCH, 1, 28, 28)
    return out


@pytest.fixture(scope="module")
def batches(data):
    """The 320 samples (10 batches) fine-tuning runs on."""
    return data[20:]


@pytest.fixture(scope="module")
def pretrained(data):
    """LeNet's weights after 20 mycel Adam steps on other samples (the model to fine-tune)."""
    ms.set_seed(7)
    net = LeNet5()
    _mycel_curve(net, [p.name for p in net.get_parameters()], "Adam", 2e-3, data[:20], 1)
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def _lenet(weights):
    net = LeNet5()
    for p in net.get_parameters():
        p.set_data(ms.Tensor(weights[p.name]))
    return net


def _train_ms(net, path):
    """Exports net (inference form) at batch BATCH and converts it with --trainModel=true."""
    net.set_train(False)
    x = np.zeros((BATCH, 1, 28, 28), np.float32)
    ms.export(net, ms.Tensor(x), file_name=str(path), file_format="MINDIR")
    conv = mslite.Converter()
    conv.train_model = True
    conv.convert(fmk_type=mslite.FmkType.MINDIR, model_file=str(path) + ".mindir",
                 output_file=str(path))
    return str(path) + ".ms"


def _mycel_optimizer(name, params, lr):
    if name == "SGD":
        return nn.SGD(params, learning_rate=lr)
    if name == "Momentum":
        return nn.Momentum(params, learning_rate=lr, momentum=0.9)
    return nn.Adam(params, learning_rate=lr)


def _mycel_curve(net, trainable, optimizer, lr, data, epochs):
    for p in net.get_parameters():
        p.requires_grad = p.name in trainable
    params = [p for p in net.get_parameters() if p.requires_grad]
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               _mycel_optimizer(optimizer, params, lr))
    step.set_train(True)
    return [float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy())
            for _ in range(epochs) for x, y in data]


def _lite_model(path, optimizer, lr, trainable):
    cfg = mslite.TrainCfg(optimizer=optimizer, learning_rate=lr, trainable=trainable,
                          momentum=0.9 if optimizer == "Momentum" else 0.0)
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE, mslite.Context(), train=True,
                          train_cfg=cfg)
    return model


LAST = ["fc3.weight", "fc3.bias"]


@pytest.mark.parametrize("optimizer, lr", [("SGD", 0.02), ("Momentum", 0.005), ("Adam", 1e-3)])
def test_fine_tune_lenet_last_layer_on_fashion_mnist(mode, batches, pretrained, tmp_path,
                                                      optimizer, lr):
    net = _lenet(pretrained)
    path = _train_ms(net, tmp_path / "lenet_train")
    model = _lite_model(path, optimizer, lr, LAST)
    assert model.get_trainable_names() == LAST
    lite = [model.train_step([x], y) for _ in range(2) for x, y in batches]
    want = _mycel_curve(net, LAST, optimizer, lr, batches, 2)
    np.testing.assert_allclose(lite, want, rtol=1e-4)
    assert np.mean(lite[10:]) < np.mean(lite[:10]) - 0.01, lite  # the second epoch is better

    # The exported file holds the trained weights: the runtime's inference equals mycel's net.
    model.export(str(tmp_path / "tuned.ms"))
    tuned = mslite.Model()
    tuned.build_from_file(str(tmp_path / "tuned.ms"))
    x = batches[0][0]
    got = tuned.predict([x])[0].get_data_to_numpy()
    net.set_train(False)
    want = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
    # mycel.load reads it too: its weights are the trained parameters, under their names.
    cell = nn.GraphCell(ms.load(str(tmp_path / "tuned.ms")))
    params = {p.name: p.asnumpy() for p in net.get_parameters()}
    loaded = {p.name: p.asnumpy() for p in cell.get_parameters()}
    assert sorted(loaded) == sorted(params)
    for name in LAST:
        np.testing.assert_allclose(loaded[name], params[name], rtol=1e-5, atol=1e-6)
    got = cell(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


class Various(nn.Cell):
    """Ops beyond LeNet's for mycel.load of .ms files: BatchNorm (folded or kept), pooling
    with "same" padding, ReLU6, a transpose, softmax, division, two outputs."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.bn_in = nn.BatchNorm2d(3)
        self.avg = nn.AvgPool2d(3, 1, pad_mode="same")
        self.max = nn.MaxPool2d(2, 2, pad_mode="same")
        self.fc = nn.Dense(4 * 2 * 2, 5)
        self.flatten = nn.Flatten()

    def construct(self, x):
        h = self.max(self.avg(ms.ops.relu6(self.bn(self.conv(self.bn_in(x))))))
        z = self.fc(self.flatten(h))
        return ms.ops.softmax(z / (z * z + 1.0), -1), ms.ops.transpose(h, (0, 2, 3, 1))


@pytest.mark.parametrize("train_model", [False, True], ids=["inference", "training"])
def test_mycel_load_reads_ms_files(mode, tmp_path, train_model):
    ms.set_seed(11)
    net = Various()
    net.set_train(False)
    x = np.random.RandomState(3).randn(2, 3, 6, 6).astype(np.float32)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "v"), file_format="MINDIR")
    conv = mslite.Converter()
    conv.train_model = train_model
    conv.convert(fmk_type=mslite.FmkType.MINDIR, model_file=str(tmp_path / "v.mindir"),
                 output_file=str(tmp_path / "v"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "v.ms")))
    for got, want in zip(cell(ms.Tensor(x)), net(ms.Tensor(x))):
        want = want.asnumpy()
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4,
                                   atol=1e-4 * float(np.abs(want).max()))
    with pytest.raises(ValueError, match="must end with '.mindir' \\(or '.ms'\\)"):
        ms.load(str(tmp_path / "v.bin"))
    damaged = bytearray((tmp_path / "v.ms").read_bytes())
    damaged[-3] ^= 0x10
    (tmp_path / "d.ms").write_bytes(bytes(damaged))
    with pytest.raises(ValueError, match="checksum mismatch"):
        ms.load(str(tmp_path / "d.ms"))


def test_whole_lenet_with_adam(mode, batches, tmp_path):
    """Every layer trained: the gradients of convolution, pooling, ReLU, reshape and the
    fully connected layers, end to end."""
    ms.set_seed(8)
    net = LeNet5()
    path = _train_ms(net, tmp_path / "all")
    model = _lite_model(path, "Adam", 1e-3, None)
    names = sorted(p.name for p in net.get_parameters())
    assert sorted(model.get_trainable_names()) == names
    lite = [model.train_step([x], y) for x, y in batches[:6]]
    want = _mycel_curve(net, names, "Adam", 1e-3, batches[:6], 1)
    np.testing.assert_allclose(lite, want, rtol=1e-4)


def test_export_then_train_on(batches, tmp_path):
    """An exported model builds for training again and continues where it stopped (SGD
    without momentum keeps no state beyond the weights)."""
    ms.set_seed(9)
    net = LeNet5()
    path = _train_ms(net, tmp_path / "t")
    first = _lite_model(path, "SGD", 0.05, LAST)
    curve = [first.train_step([x], y) for x, y in batches]
    first2 = _lite_model(path, "SGD", 0.05, LAST)
    for x, y in batches[:5]:
        first2.train_step([x], y)
    first2.export(str(tmp_path / "half.ms"))
    second = _lite_model(str(tmp_path / "half.ms"), "SGD", 0.05, LAST)
    rest = [second.train_step([x], y) for x, y in batches[5:]]
    np.testing.assert_allclose(rest, curve[5:], rtol=1e-6)


def test_errors(batches, tmp_path):
    ms.set_seed(10)
    net = LeNet5()
    path = _train_ms(net, tmp_path / "e")
    x, y = batches[0]
    with pytest.raises(ValueError, match="not a trainable weight"):
        _lite_model(path, "SGD", 0.1, ["fc3.weight", "nope"])
    with pytest.raises(ValueError, match="SGD, Momentum or Adam"):
        _lite_model(path, "RMSProp", 0.1, None)
    with pytest.raises(TypeError, match="train_cfg must be a TrainCfg"):
        mslite.Model().build_from_file(path, train=True, train_cfg={"optimizer": "SGD"})
    model = _lite_model(path, "SGD", 0.1, LAST)
    with pytest.raises(ValueError, match=r"outside \[0, 10\)"):
        model.train_step([x], np.full(BATCH, 10))
    with pytest.raises(TypeError, match="integer class indices"):
        model.train_step([x], y.astype(np.float32))
    with pytest.raises(ValueError, match=r"labels must be int32 \[32\]"):
        model.train_step([x], y[:5])
    with pytest.raises(ValueError, match="must have shape"):
        model.train_step([x[:4]], y)
    with pytest.raises(ValueError, match="keeps the batch"):
        model.resize(model.get_inputs(), [[4, 1, 28, 28]])
    # An inference model is not a training model, and has no train_step.
    net.set_train(False)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "inf"), file_format="MINDIR")
    mslite.Converter().convert(fmk_type=mslite.FmkType.MINDIR,
                               model_file=str(tmp_path / "inf.mindir"),
                               output_file=str(tmp_path / "inf"))
    with pytest.raises(ValueError, match="not a training model"):
        mslite.Model().build_from_file(str(tmp_path / "inf.ms"), train=True)
    inference = mslite.Model()
    inference.build_from_file(str(tmp_path / "inf.ms"))
    with pytest.raises(ValueError, match="train=True"):
        inference.train_step([x], y)
    # Converter flags.
    from mycel.lite import convert
    base = ["--fmk=MINDIR", f"--modelFile={tmp_path / 'inf.mindir'}",
            f"--outputFile={tmp_path / 'o'}"]
    assert convert.main(base + ["--trainModel=maybe"]) == 1
    assert convert.main(base + ["--trainModel=true", "--codegen=c"]) == 1
    assert not os.path.exists(str(tmp_path / "o.ms"))


C_TRAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "lite/mycel_lite_c.h"

/* argv: model.ms images.bin labels.bin steps out.ms; prints one loss per step. */
int main(int argc, char** argv) {
  if (argc != 6) return 2;
  MycelLiteTrainCfg cfg;
  mycel_lite_train_cfg_init(&cfg);
  const char* names[2] = {"fc3.weight", "fc3.bias"};
  cfg.optimizer = "Adam";
  cfg.learning_rate = 1e-3f;
  cfg.trainable = names;
  cfg.num_trainable = 2;
  MycelLiteTrainModel* m = mycel_lite_train_model_create();
  cfg.optimizer = "Lamb";
  if (mycel_lite_train_model_build_from_file(m, argv[1], 1, &cfg) != MYCEL_LITE_VALUE_ERROR)
    return 3;
  printf("error: %s\n", mycel_lite_train_last_error(m));
  cfg.optimizer = "Adam";
  if (mycel_lite_train_model_build_from_file(m, argv[1], 1, &cfg) != MYCEL_LITE_OK) {
    printf("%s\n", mycel_lite_train_last_error(m));
    return 4;
  }
  const int steps = atoi(argv[4]);
  const size_t n = 32 * 28 * 28;
  float* x = malloc(n * sizeof(float));
  int32_t y[32];
  FILE* fx = fopen(argv[2], "rb");
  FILE* fy = fopen(argv[3], "rb");
  for (int s = 0; s < steps; ++s) {
    if (fread(x, sizeof(float), n, fx) != n || fread(y, sizeof(int32_t), 32, fy) != 32) return 5;
    const float* inputs[1] = {x};
    float loss = 0;
    if (mycel_lite_train_step(m, inputs, 1, y, 32, &loss) != MYCEL_LITE_OK) {
      printf("%s\n", mycel_lite_train_last_error(m));
      return 6;
    }
    printf("%.9g\n", loss);
  }
  fclose(fx);
  fclose(fy);
  if (mycel_lite_train_export(m, argv[5]) != MYCEL_LITE_OK) return 7;
  free(x);
  mycel_lite_train_model_destroy(m);
  return 0;
}
"""


def test_c_api_trains(batches, pretrained, tmp_path):
    """The C API (lite/mycel_lite_c.h) from a C program linked to libmycel_lite alone."""
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    build = os.path.join(root, "build")
    net = _lenet(pretrained)
    path = _train_ms(net, tmp_path / "c")
    (tmp_path / "main.c").write_text(C_TRAIN)
    (tmp_path / "x.bin").write_bytes(b"".join(x.astype("<f4").tobytes() for x, _ in batches))
    (tmp_path / "y.bin").write_bytes(b"".join(y.astype("<i4").tobytes() for _, y in batches))
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-o", str(tmp_path / "prog"),
                        str(tmp_path / "main.c"), "-I", os.path.join(root, "src"), "-L", build,
                        "-lmycel_lite", f"-Wl,-rpath,{build}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(tmp_path / "prog"), path, str(tmp_path / "x.bin"),
                        str(tmp_path / "y.bin"), "10", str(tmp_path / "out.ms")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "SGD, Momentum or Adam" in lines[0]
    losses = [float(v) for v in lines[1:]]
    want = _mycel_curve(net, LAST, "Adam", 1e-3, batches, 1)
    np.testing.assert_allclose(losses, want, rtol=1e-4)
    tuned = mslite.Model()
    tuned.build_from_file(str(tmp_path / "out.ms"))
    net.set_train(False)
    x = batches[0][0]
    want = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(tuned.predict([x])[0].get_data_to_numpy(), want, rtol=1e-4,
                               atol=1e-4 * float(np.abs(want).max()))
