"""The converter's Python face (MindSpore Lite's ``Converter`` and ``FmkType``) over
src/converter (``_mycel._lite.convert_main``)."""
import enum

from mycel import _mycel


class FmkType(enum.Enum):
    """The source model's format: ``MINDIR`` (``mycel.export``) or ``ONNX`` (read by the
    importer ``mycel.lite.load_onnx`` uses, constant subgraphs folded)."""
    MINDIR = 3
    ONNX = 2


class Converter:
    """Converts a model file to a lite ``.ms`` file. After each conversion the source model
    and the converted one run on the same random inputs and the difference is printed.
    ``train_model = True`` (MindSpore Lite's attribute) writes a training model: weights not
    folded, the network's parameters marked trainable, softmax cross-entropy over output 0
    named as its loss (``Model.build_from_file(..., train=True)``)."""

    def __init__(self):
        self.report = ""
        self.train_model = False  # True: a training model (``--trainModel=true``)

    def convert(self, fmk_type, model_file, output_file, weight_file="", config_file=None):
        """Reads ``model_file`` (of ``fmk_type``), writes ``output_file + '.ms'``. Every
        operator the lite runtime lacks is reported in one ValueError. ``config_file``
        (quantization) is not built yet: giving one is a ValueError."""
        if not isinstance(fmk_type, FmkType):
            raise TypeError(f"For 'Converter.convert', fmk_type must be a FmkType, but got "
                            f"{fmk_type!r}.")
        if weight_file:
            raise ValueError("For 'Converter.convert', weight_file is not used: MINDIR files "
                             "from mycel.export and ONNX files hold their weights.")
        args = [f"--fmk={fmk_type.name}", f"--modelFile={model_file}",
                f"--outputFile={output_file}"]
        if config_file:
            args.append(f"--configFile={config_file}")
        if self.train_model:
            args.append("--trainModel=true")
        _, self.report = _mycel._lite.convert_main(args)
        print(self.report, end="")
