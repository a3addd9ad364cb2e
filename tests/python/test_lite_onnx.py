"""The lite converter on ONNX files (`mycel_convert --fmk=ONNX`): torchvision's ResNet-18 and
MobileNetV2 (random weights and BatchNorm statistics, eval, exported by torch.onnx.export)
convert to .ms files whose outputs, run by the lite runtime, equal PyTorch's to 1e-4."""
import re

import numpy as np
import pytest
import torch

from mycel import lite
from test_onnx_import import _export, _randomise_bn

RTOL = 0.05  # int8 vs float32 logits, relative L2 (measured: 1.1% ResNet-18, 0.5% MobileNetV2)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2"])
def test_torchvision_models_convert_and_run(name, tmp_path, capsys):
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = _randomise_bn(getattr(torchvision.models, name)(weights=None), 1).eval()
    x = torch.randn(1, 3, 224, 224)
    want = _export(model, x, tmp_path / "m.onnx")
    lite.Converter().convert(lite.FmkType.ONNX, str(tmp_path / "m.onnx"), str(tmp_path / "m"))
    report = capsys.readouterr().out
    assert "ops lowered" in report and "Accuracy:" in report, report
    m = lite.Model()
    m.build_from_file(str(tmp_path / "m.ms"), lite.ModelType.MINDIR_LITE)
    got = m.predict([x.numpy()])[0].get_data_to_numpy()
    assert got.shape == want.shape == (1, 1000)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())


def test_unsupported_onnx_operators_are_listed(tmp_path):
    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 1) + torch.erf(x)
    x = torch.randn(2, 3)
    with torch.no_grad():
        torch.onnx.export(Net(), x, str(tmp_path / "u.onnx"), opset_version=13)
    with pytest.raises(ValueError, match="unsupported operator"):
        lite.Converter().convert(lite.FmkType.ONNX, str(tmp_path / "u.onnx"),
                                 str(tmp_path / "u"))


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2"])
def test_torchvision_models_int8_near_float32(name, tmp_path, capsys):
    """FULL_QUANT (MAX_MIN, per channel, bias correction) on 4 seeded images keeps every
    activation uint8 from the first convolution to the classifier's input; on 3 other images the
    int8 logits stay within RTOL of float32's (relative L2): ~20 requantized 8-bit layers
    (each rounding to 1/255 of its range) accumulate about 1%, with margin left for seeds."""
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = _randomise_bn(getattr(torchvision.models, name)(weights=None), 1).eval()
    rs = np.random.RandomState(0)
    x = torch.randn(1, 3, 224, 224)
    _export(model, x, tmp_path / "m.onnx")
    conv = lite.Converter()
    conv.convert(lite.FmkType.ONNX, str(tmp_path / "m.onnx"), str(tmp_path / "f32"))
    m32 = lite.Model()
    m32.build_from_file(str(tmp_path / "f32.ms"), lite.ModelType.MINDIR_LITE)
    cal = tmp_path / "cal"
    cal.mkdir()
    for i in range(4):
        rs.randn(1, 3, 224, 224).astype(np.float32).tofile(str(cal / f"{i}.bin"))
    cfg = tmp_path / "q.cfg"
    cfg.write_text("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n"
                   f"[data_preprocess_param]\ncalibrate_path={m32.get_inputs()[0].name}:{cal}\n"
                   "calibrate_size=4\ninput_type=BIN\n[full_quant_param]\n"
                   "activation_quant_method=MAX_MIN\n")
    capsys.readouterr()
    conv.convert(lite.FmkType.ONNX, str(tmp_path / "m.onnx"), str(tmp_path / "i8"),
                 config_file=str(cfg))
    report = capsys.readouterr().out
    kept = int(re.search(r"(\d+) activation\(s\) kept uint8", report).group(1))
    nodes = int(re.search(r"(\d+) after the passes", report).group(1))
    assert kept == nodes - 1, report  # every activation but the output (the logits)
    m8 = lite.Model()
    m8.build_from_file(str(tmp_path / "i8.ms"), lite.ModelType.MINDIR_LITE)
    for _ in range(3):
        img = rs.randn(1, 3, 224, 224).astype(np.float32)
        want = m32.predict([img])[0].get_data_to_numpy()
        got = m8.predict([img])[0].get_data_to_numpy()
        err = np.linalg.norm(got - want) / np.linalg.norm(want)
        print(name, "int8 relative L2 error", err)
        assert err < RTOL, err
