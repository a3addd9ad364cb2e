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
    """Converts a model file to a lite ``.ms`` file. ``weight_fp16`` (MindSpore Lite's
    property; ``mycel_convert --fp16=on``) stores float weights as float16, half the bytes,
    widened to float32 at load. ``train_model = True`` (MindSpore Lite's attribute) writes a
    training model: weights not folded, the network's parameters marked trainable, softmax
    cross-entropy over output 0 named as its loss (``Model.build_from_file(...,
    train=True)``). After each conversion the source model and the converted one run on the
    same inputs (a FULL_QUANT config's calibration samples, else random ones) and the
    difference is printed (and kept in ``report``)."""

    def __init__(self):
        self.report = ""
        self.weight_fp16 = False
        self.train_model = False  # True: a training model (``--trainModel=true``)

    def convert(self, fmk_type, model_file, output_file, weight_file="", config_file=None):
        """Reads ``model_file`` (of ``fmk_type``), writes ``output_file + '.ms'``. Every
        operator the lite runtime lacks is reported in one ValueError. ``config_file``: a
        quantization config in MindSpore Lite's INI form (``[common_quant_param]``
        ``quant_type=FULL_QUANT|WEIGHT_QUANT``, ``bit_num=8``; ``[data_preprocess_param]``
        ``calibrate_path=<input>:<folder of .bin>``, ``calibrate_size``, ``input_type=BIN``;
        ``[full_quant_param]`` ``activation_quant_method=MAX_MIN|KL``, ``per_channel``,
        ``bias_correction``); a bad one is a ValueError naming the section, key and line."""
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
        if self.weight_fp16:
            args.append("--fp16=on")
        _, self.report = _mycel._lite.convert_main(args)
        print(self.report, end="")
