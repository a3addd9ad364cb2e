"""mycel lite's precision options on a trained LeNet-5 (Fashion-MNIST, `make demo`'s recipe:
Momentum SGD lr 0.01, batch 64, on 600 batches for 2 epochs to stay quick): full int8
post-training quantization (MAX_MIN and KL, per-channel and per-tensor weights, with and
without bias correction) keeps the test accuracy within 1 point of float32; weight-only int8,
float16 storage and bf16 compute stay within tight tolerances of float32. The oracle is the
float32 lite model (itself equal to mycel's network to 1e-4, tests/python/test_lite.py) and
the Fashion-MNIST labels. Also the converter's accuracy report and the config's errors, and
the conversion of networks exported in both modes."""
import gzip
import os
import re

import numpy as np
import pytest

import mycel as ms
import mycel.dataset
import mycel.lite as mslite
from mycel import nn
from mycel.train import Model
from lenet import LeNet5, fashion_mnist  # examples/lenet.py
from test_lite import mode  # noqa: F401  (the fixture: PYNATIVE and GRAPH)

DATA = "/usr/share/datasets/fashion-mnist"


def _idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        data = f.read()
    if data[2] == 8 and data[3] == 1:  # labels
        return np.frombuffer(data, np.uint8, offset=8).astype(np.int64)
    images = np.frombuffer(data, np.uint8, offset=16).reshape(-1, 1, 28, 28)
    return ((images / 255.0 - 0.2860) / 0.3530).astype(np.float32)  # as examples/lenet.py


def _convert(mindir, out, config=None, fp16=False):
    conv = mslite.Converter()
    conv.weight_fp16 = fp16
    conv.convert(mslite.FmkType.MINDIR, mindir, str(out), config_file=config and str(config))
    return str(out) + ".ms", conv.report


def _model(path, batch, precision="preferred_fp32"):
    ctx = mslite.Context()
    ctx.cpu.thread_num = 2
    ctx.cpu.precision_mode = precision
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE, ctx)
    model.resize(model.get_inputs(), [[batch, 1, 28, 28]])
    return model


def _logits(path, images, precision="preferred_fp32"):
    model = _model(path, 1000, precision)
    return np.concatenate([model.predict([images[i:i + 1000]])[0].get_data_to_numpy()
                           for i in range(0, len(images), 1000)])


@pytest.fixture(scope="module")
def lenet(tmp_path_factory):
    """A LeNet-5 trained by `make demo`'s recipe (examples/demo.py: GRAPH mode, seed 1, 5
    epochs of batch 64, Momentum 0.01/0.9, cross-entropy), exported at batch 1, converted to
    float32; 100 calibration images from the training set as .bin files; the test set."""
    d = tmp_path_factory.mktemp("lenet")
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    ms.dataset.config.set_seed(1)
    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    Model(net, nn.CrossEntropyLoss(), opt).train(5, fashion_mnist(DATA, "train", 64, shuffle=True))
    net.set_train(False)
    train_images = _idx("train-images-idx3-ubyte.gz")
    ms.export(net, ms.Tensor(train_images[:1]), file_name=str(d / "lenet"), file_format="MINDIR")
    ms.set_context(mode=old)
    mindir = str(d / "lenet.mindir")
    fp32, _ = _convert(mindir, d / "fp32")
    name = _model(fp32, 1).get_inputs()[0].name
    cal = d / "calib"
    cal.mkdir()
    for i, image in enumerate(train_images[-100:]):  # images the training above did not see
        image.tofile(cal / f"{i:03d}.bin")
    images, labels = _idx("t10k-images-idx3-ubyte.gz"), _idx("t10k-labels-idx1-ubyte.gz")
    logits = _logits(fp32, images)
    return dict(dir=d, mindir=mindir, fp32=fp32, name=name, cal=cal, images=images,
                labels=labels, logits=logits, acc=float((logits.argmax(1) == labels).mean()),
                size=os.path.getsize(fp32))


def _config(lenet, text, name="q.cfg"):
    path = lenet["dir"] / name
    path.write_text(text.format(input=lenet["name"], cal=lenet["cal"]))
    return path


FULL = """[common_quant_param]
quant_type=FULL_QUANT
bit_num=8

[data_preprocess_param]
calibrate_path={input}:{cal}
calibrate_size=100
input_type=BIN

[full_quant_param]
activation_quant_method=%s
per_channel=%s
bias_correction=%s
"""


@pytest.mark.parametrize("method, per_channel, bias_correction", [
    ("MAX_MIN", "true", "true"), ("KL", "true", "true"), ("MAX_MIN", "false", "false"),
    ("KL", "false", "true")])
def test_full_int8_keeps_accuracy_within_one_point(lenet, method, per_channel,
                                                   bias_correction):
    assert lenet["acc"] > 0.85, lenet["acc"]  # the float32 model learned (the demo: ~89%)
    cfg = _config(lenet, FULL % (method, per_channel, bias_correction))
    path, report = _convert(lenet["mindir"], lenet["dir"] / f"int8_{method}", cfg)
    assert re.search(r"Quantized 5 of \d+ nodes to int8 \(activations " + method, report), report
    m = re.search(r"Accuracy: output '[^']+' differs from the source model by ([0-9.e+-]+)% "
                  r"\(mean relative\), ([0-9.e+-]+)% \(max relative.*top-1 agreement "
                  r"([0-9.]+)% on 100 calibration input\(s\)", report)
    assert m, report
    assert float(m.group(1)) < 3 and float(m.group(3)) >= 95, report
    logits = _logits(path, lenet["images"])
    acc = float((logits.argmax(1) == lenet["labels"]).mean())
    assert abs(acc - lenet["acc"]) <= 0.01, (acc, lenet["acc"])
    assert os.path.getsize(path) < 0.35 * lenet["size"]


def test_weight_only_int8_and_fp16_near_float32(lenet):
    ref = lenet["logits"]
    cfg = _config(lenet, "[common_quant_param]\nquant_type=WEIGHT_QUANT\nbit_num=8\n", "w.cfg")
    w8, report = _convert(lenet["mindir"], lenet["dir"] / "w8", cfg)
    assert "Quantized the weights of 5 node(s)" in report, report
    f16, report16 = _convert(lenet["mindir"], lenet["dir"] / "f16", fp16=True)
    assert "differs from the source model" in report16
    assert os.path.getsize(f16) < 0.55 * lenet["size"]
    assert os.path.getsize(w8) < 0.3 * lenet["size"]
    scale = float(np.abs(ref).max())
    got16 = _logits(f16, lenet["images"])
    np.testing.assert_allclose(got16, ref, rtol=2e-3, atol=2e-3 * scale)
    got8 = _logits(w8, lenet["images"])
    assert float(np.abs(got8 - ref).max()) < 0.05 * scale
    for got in (got16, got8):
        acc = float((got.argmax(1) == lenet["labels"]).mean())
        assert abs(acc - lenet["acc"]) <= 0.003, (acc, lenet["acc"])


def test_bf16_context_near_float32(lenet):
    ref = lenet["logits"]
    got = _logits(lenet["fp32"], lenet["images"], "preferred_bf16")
    scale = float(np.abs(ref).max())
    assert 0 < float(np.abs(got - ref).max()) < 0.03 * scale  # bf16 inputs: 8-bit mantissas
    acc = float((got.argmax(1) == lenet["labels"]).mean())
    assert abs(acc - lenet["acc"]) <= 0.003, (acc, lenet["acc"])


@pytest.mark.parametrize("text, message", [
    ("[common_quant_param]\nquant_type=INT4\n",
     r"line 2: \[common_quant_param\] quant_type=INT4: expected FULL_QUANT or WEIGHT_QUANT"),
    ("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n[full_quant_param]\nmethod=KL\n",
     r"line 5: \[full_quant_param\] method: unknown key"),
    ("[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\n"
     "calibrate_path=nosuch:{cal}\ncalibrate_size=10\n", r"has no input 'nosuch'"),
    ("[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\n"
     "calibrate_path={input}:{cal}\ncalibrate_size=101\n", r"holds 100 \.bin file\(s\)"),
    ("[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\n"
     "calibrate_path={input}:{cal}\ncalibrate_size=10\ninput_type=IMAGE\n",
     r"line 6: \[data_preprocess_param\] input_type=IMAGE: expected BIN"),
])
def test_bad_configs_are_errors(lenet, text, message):
    cfg = _config(lenet, text, "bad.cfg")
    with pytest.raises(ValueError, match=message):
        _convert(lenet["mindir"], lenet["dir"] / "bad", cfg)
    assert not os.path.exists(lenet["dir"] / "bad.ms")


def test_wrong_calibration_file_size_is_an_error(lenet, tmp_path):
    (tmp_path / "a.bin").write_bytes(b"\0" * 100)
    cfg = tmp_path / "q.cfg"
    cfg.write_text(f"[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\n"
                   f"calibrate_path={lenet['name']}:{tmp_path}\ncalibrate_size=1\n")
    with pytest.raises(ValueError, match=r"must hold 3136 bytes"):
        _convert(lenet["mindir"], tmp_path / "bad", cfg)


class _Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.relu = nn.ReLU()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(8 * 6 * 6, 4)

    def construct(self, x):
        return self.fc(self.flat(self.relu(self.conv(x))))


def test_networks_exported_in_each_mode_quantize(mode, tmp_path):
    ms.set_seed(3)
    net = _Small()
    net.set_train(False)
    x = np.random.RandomState(0).randn(2, 3, 6, 6).astype(np.float32)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "s"), file_format="MINDIR")
    want = net(ms.Tensor(x)).asnumpy()
    cal = tmp_path / "cal"
    cal.mkdir()
    rs = np.random.RandomState(1)
    for i in range(8):
        rs.randn(2, 3, 6, 6).astype(np.float32).tofile(cal / f"{i}.bin")
    fp32, _ = _convert(str(tmp_path / "s.mindir"), tmp_path / "fp32")
    name = _model_any(fp32).get_inputs()[0].name
    cfg = tmp_path / "q.cfg"
    cfg.write_text((FULL % ("KL", "true", "true")).replace("size=100", "size=8")
                   .format(input=name, cal=cal))
    path, report = _convert(str(tmp_path / "s.mindir"), tmp_path / "int8", cfg)
    assert "on 8 calibration input(s)" in report, report
    model = _model_any(path)
    got = model.predict([x])[0].get_data_to_numpy()
    assert np.abs(got - want).max() < 0.05 * np.abs(want).max()
    half, _ = _convert(str(tmp_path / "s.mindir"), tmp_path / "half", fp16=True)
    got = _model_any(half).predict([x])[0].get_data_to_numpy()
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * np.abs(want).max())


def _model_any(path):
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE)
    return model
