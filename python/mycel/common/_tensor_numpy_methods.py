"""MindSpore's numpy-style Tensor methods that delegate to mycel.numpy (common/tensor.py
attaches them to Tensor):

- ``resize(*new_shape)``: a new tensor of new_shape holding self's elements in C order,
  truncated, or followed by zeros when new_shape is larger (numpy's ndarray.resize, which
  MindSpore's returns rather than changing self);
- ``choose(choices, mode='clip')``: mindspore.numpy.choose(self, choices, mode);
- ``searchsorted(v, side='left', sorter=None)``: mindspore.numpy.searchsorted(self, v, ...).

mycel.numpy is imported when a method is called (mycel.numpy imports mycel.common).
"""
import numbers

from mycel.ops.function import array_func as _a


def resize(self, *new_shape):
    """self's elements (C order) in a tensor of new_shape, cut or padded with zeros."""
    if len(new_shape) == 1 and isinstance(new_shape[0], (list, tuple)):
        new_shape = tuple(new_shape[0])
    if not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0
               for d in new_shape):
        raise ValueError(f"For 'Tensor.resize', new_shape must be non-negative ints, but got "
                         f"{new_shape!r}.")
    size = 1
    for d in new_shape:
        size *= int(d)
    flat = _a.reshape(self, (-1,))
    n = flat.shape[0]
    if size <= n:
        flat = flat[:size]
    else:
        flat = _a.concat((flat, _a.zeros((size - n,), self.dtype)), 0)
    return _a.reshape(flat, tuple(int(d) for d in new_shape))


def choose(self, choices, mode="clip"):
    """choices[self[i]][i] (mindspore.numpy.choose)."""
    from mycel import numpy as mnp
    return mnp.choose(self, choices, mode)


def searchsorted(self, v, side="left", sorter=None):
    """Where v's elements go in the sorted 1-d self (mindspore.numpy.searchsorted)."""
    from mycel import numpy as mnp
    return mnp.searchsorted(self, v, side, sorter)


METHODS = {"resize": resize, "choose": choose, "searchsorted": searchsorted}
