"""ONNX import for mycel lite: ``mycel.lite.load_onnx(file_name)`` turns an ONNX model (the
default domain, opsets 1 to 18) into the graph ``mycel.load`` returns for a MINDIR file, so
``nn.GraphCell`` runs it in either mode and the lite converter takes it as it takes a
``mycel.export`` file. The translation is mycel's (src/serialize/onnx_import.h); python3-onnx
is not needed."""
import numpy as np

from mycel import _mycel as _C
from mycel.train.export import _read_model_file


def load_onnx(file_name, input_shape=None, const_inputs=None):
    """Loads the ONNX model in `file_name` and returns a ``MindIRGraph`` for
    ``nn.GraphCell``.

    Its inputs are the ONNX graph's inputs that are not initializers, in file order, with
    the dtypes and static shapes of the file; float initializers become the graph's weights
    (``GraphCell``'s Parameters, by their ONNX names); integer ones and Constant nodes are
    constants, folded at load with what is computed from them alone.

    Args:
        file_name (str): the ``.onnx`` file.
        input_shape (dict, optional): ``{input name: shape}`` for inputs with symbolic
            dimensions (as MindSpore Lite's converter's ``input_shape``); the model is
            specialised to them.
        const_inputs (dict, optional): ``{input name: Tensor or numpy array}``: inputs frozen
            to these values, as constants (a shape or axes input the model takes at run
            time).

    Raises:
        ValueError: the file does not exist or does not parse as an ONNX model; it uses
            operators mycel cannot translate (all of them are listed, with their nodes), an
            attribute or value a translation does not map (naming the node), a data type
            mycel lacks, or a symbolic dimension not given in `input_shape`.
        TypeError: an argument of the wrong type.
    """
    if not isinstance(file_name, str):
        raise TypeError(f"For 'load_onnx', file_name must be a str, but got "
                        f"{type(file_name).__name__}.")
    shapes = {}
    for name, shape in (input_shape or {}).items():
        if not isinstance(name, str) or not all(isinstance(d, (int, np.integer)) for d in shape):
            raise TypeError("For 'load_onnx', input_shape must map input names to lists of "
                            f"ints, but got {name!r}: {shape!r}.")
        shapes[name] = [int(d) for d in shape]
    consts = {}
    for name, value in (const_inputs or {}).items():
        consts[name] = value if isinstance(value, _C.Tensor) else _C.Tensor(np.asarray(value))
    data = _read_model_file(file_name, "load_onnx")
    return _C._load_onnx(data, file_name, shapes, consts)
