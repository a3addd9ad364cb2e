"""Debugging functions of MindSpore 2.x (its ops/function/debug_func.py)."""
import numpy as np
from mycel import _mycel as _C


__all__ = ["print_", "tensordump"]


def print_(*input_x):
    """Prints its arguments (tensors and strings) like ops.Print and returns None."""
    _print()(*input_x)


def _print():
    from mycel.ops.operations.host_ops import Print  # the primitive module imports this one
    return Print()


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def tensordump(file_name, tensor, mode="out"):
    """Saves tensor as a numpy .npy file (file_name with '.npy' appended when missing), as
    MindSpore's TensorDump does in PYNATIVE mode. mode ('out', 'in', 'all') is recorded by
    MindSpore for graph-mode dumps and accepted here."""
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"For 'tensordump', file_name must be a non-empty str, but got "
                        f"{file_name!r}.")
    if mode not in ("out", "in", "all"):
        raise ValueError(f"For 'tensordump', mode must be 'out', 'in' or 'all', but got "
                         f"{mode!r}.")
    path = file_name if file_name.endswith(".npy") else file_name + ".npy"
    np.save(path, _t(tensor, "tensordump", "tensor").asnumpy())
