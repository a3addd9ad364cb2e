"""MindSpore's elementwise functions of sparse tensors, ``ops.coo_<f>`` and ``ops.csr_<f>``
(abs, acos, ..., tanh: the function applied to the stored values, the pattern kept, as
MindSpore documents them; so coo_cos of a stored value v is cos(v) and positions not stored
stay implicit zeros), and the conversions ``ops.csr_to_coo``, ``ops.dense_to_sparse_coo`` and
``ops.dense_to_sparse_csr``. COOTensor and CSRTensor are Python containers
(common/sparse_tensor.py), so these run in PYNATIVE mode (the dense-to-sparse conversions
read the number of non-zeros on the host).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.common.sparse_tensor import COOTensor, CSRTensor
from mycel.ops.function import math_func as _m, unary_func as _u, nn_func as _nn
from mycel.ops.function import math_ext_func as _x

# name -> the elementwise function of the values (MindSpore's list)
_UNARY = {
    "abs": _m.abs, "acos": _m.acos, "acosh": _m.acosh, "asin": _m.asin, "asinh": _m.asinh,
    "atan": _m.atan, "atanh": _m.atanh, "ceil": _m.ceil, "cos": _m.cos, "cosh": _m.cosh,
    "exp": _m.exp, "expm1": _m.expm1, "floor": _m.floor, "inv": _u.inv,
    "isfinite": _x.isfinite, "isinf": _x.isinf, "isnan": _x.isnan, "log": _m.log,
    "log1p": _m.log1p, "neg": _m.neg, "relu": _nn.relu, "relu6": _nn.relu6,
    "round": _m.round, "sigmoid": _m.sigmoid, "sin": _m.sin, "sinh": _m.sinh,
    "softsign": _u.softsign, "sqrt": _m.sqrt, "square": _m.square, "tan": _m.tan,
    "tanh": _m.tanh,
}

__all__ = ["csr_to_coo", "dense_to_sparse_coo", "dense_to_sparse_csr"]


def _coo_fn(name, fn):
    def f(x):
        if not isinstance(x, COOTensor):
            raise TypeError(f"For 'coo_{name}', the input must be a COOTensor, but got "
                            f"{type(x).__name__}.")
        return COOTensor(x.indices, fn(x.values), x.shape)
    f.__name__ = f.__qualname__ = f"coo_{name}"
    f.__doc__ = (f"coo_{name}(x): the COOTensor x with {name} applied to its stored values "
                 f"(the same indices and shape).")
    return f


def _csr_fn(name, fn):
    def f(x):
        if not isinstance(x, CSRTensor):
            raise TypeError(f"For 'csr_{name}', the input must be a CSRTensor, but got "
                            f"{type(x).__name__}.")
        return CSRTensor(x.indptr, x.indices, fn(x.values), x.shape)
    f.__name__ = f.__qualname__ = f"csr_{name}"
    f.__doc__ = (f"csr_{name}(x): the CSRTensor x with {name} applied to its stored values "
                 f"(the same indptr, indices and shape).")
    return f


for _name, _fn in _UNARY.items():
    globals()[f"coo_{_name}"] = _coo_fn(_name, _fn)
    globals()[f"csr_{_name}"] = _csr_fn(_name, _fn)
    __all__ += [f"coo_{_name}", f"csr_{_name}"]


def csr_to_coo(tensor):
    """The CSRTensor as a COOTensor of the same values, indices [N, 2] (row, column) int32."""
    if not isinstance(tensor, CSRTensor):
        raise TypeError(f"For 'csr_to_coo', the input must be a CSRTensor, but got "
                        f"{type(tensor).__name__}.")
    return tensor.to_coo()


def _dense_2d(op, tensor):
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got "
                        f"{type(tensor).__name__}.")
    if tensor.ndim != 2:
        raise ValueError(f"For '{op}', the input must be 2-D, but got shape "
                         f"{tuple(tensor.shape)}.")
    a = tensor.asnumpy()
    rows, cols = np.nonzero(a)
    return a, rows, cols


def dense_to_sparse_coo(tensor):
    """The non-zero elements of the 2-D tensor as a COOTensor (row-major order; indices int64
    [N, 2])."""
    a, rows, cols = _dense_2d("dense_to_sparse_coo", tensor)
    idx = np.stack([rows, cols], axis=1).astype(np.int64).reshape(-1, 2)
    return COOTensor(_C.Tensor(idx), _C.Tensor(a[rows, cols]).astype(tensor.dtype),
                     tuple(tensor.shape))


def dense_to_sparse_csr(tensor):
    """The non-zero elements of the 2-D tensor as a CSRTensor (indptr and indices int64)."""
    a, rows, cols = _dense_2d("dense_to_sparse_csr", tensor)
    ptr = np.zeros(a.shape[0] + 1, np.int64)
    np.add.at(ptr, rows + 1, 1)
    return CSRTensor(_C.Tensor(np.cumsum(ptr)), _C.Tensor(cols.astype(np.int64)),
                     _C.Tensor(a[rows, cols]).astype(tensor.dtype), tuple(tensor.shape))
