"""The lite converter on ONNX files (`mycel_convert --fmk=ONNX`): torchvision's ResNet-18 and
MobileNetV2 (random weights and BatchNorm statistics, eval, exported by torch.onnx.export)
convert to .ms files whose outputs, run by the lite runtime, equal PyTorch's to 1e-4."""
import numpy as np
import pytest
import torch

from mycel import lite
from test_onnx_import import _export, _randomise_bn


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
