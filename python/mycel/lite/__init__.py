from mycel.lite._onnx import load_onnx  # noqa: F401
