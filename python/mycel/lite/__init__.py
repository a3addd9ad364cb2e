"""mycel.lite: deploy a trained model without the framework, in MindSpore Lite's Python API.

``Converter`` turns a MINDIR file written by ``mycel.export`` into a ``.ms`` file (folding
constants and BatchNorm, fusing bias and activations); ``Model`` runs a ``.ms`` file on the
lite runtime (``libmycel_lite``, which needs neither Python nor mycel's compiler)::

    import mycel.lite as mslite
    mslite.Converter().convert(fmk_type=mslite.FmkType.MINDIR, model_file="lenet.mindir",
                               output_file="lenet")
    model = mslite.Model()
    model.build_from_file("lenet.ms", mslite.ModelType.MINDIR_LITE, mslite.Context())
    outputs = model.predict([image])          # numpy arrays or lite Tensors
    logits = outputs[0].get_data_to_numpy()

``load_onnx`` (``mycel.lite._onnx``) imports an ONNX model as the graph ``mycel.load`` gives
(for ``nn.GraphCell``).

Command lines: ``python -m mycel.lite.convert`` and ``python -m mycel.lite.benchmark`` take the
flags of ``build/mycel_convert`` and ``build/mycel_benchmark``.
"""
from mycel.lite.model import Context, DataType, Model, ModelType, Tensor  # noqa: F401
from mycel.lite.converter import Converter, FmkType  # noqa: F401
from mycel.lite._onnx import load_onnx  # noqa: F401

__all__ = ["Context", "DataType", "Model", "ModelType", "Tensor", "Converter", "FmkType",
           "load_onnx"]
