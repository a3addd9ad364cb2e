"""MindSpore's numpy-style Tensor methods that delegate to mycel.numpy (common/tensor.py
attaches them to Tensor):

- ``resize(*new_shape)``: a new tensor of new_shape holding self's elements in C order,
  truncated, or followed by zeros when new_shape is larger (numpy's ndarray.resize, which
  MindSpore's returns rather than changing self);
- ``choose(choices, mode='clip')``: as mindspore.numpy.choose(self, choices, mode);
- ``searchsorted(v, side='left', sorter=None)``: as mindspore.numpy.searchsorted(self, v).
"""
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import array_func as _a, math_func as _m


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
    """choices[self[i]][i]: self's ints pick among the choices (broadcast together); out of
    range indices are clipped or wrapped by mode (mindspore.numpy.choose)."""
    if mode not in ("clip", "wrap"):
        raise ValueError(f"For 'Tensor.choose', mode must be 'clip' or 'wrap', but got "
                         f"{mode!r}.")
    cs = [c if isinstance(c, _C.Tensor) else _C.Tensor(c) for c in choices]
    n = len(cs)
    idx = self.astype(_C.int64)
    idx = _m.remainder(idx, n) if mode == "wrap" else _m.clamp(idx, 0, n - 1)
    shape = tuple(np.broadcast_shapes(tuple(idx.shape), *[tuple(c.shape) for c in cs]))
    stacked = _a.stack(tuple(_a.broadcast_to(c, shape) for c in cs), 0)
    picked = _a.gather_elements(stacked, 0, _a.expand_dims(_a.broadcast_to(idx, shape), 0))
    return _a.squeeze(picked, 0)


def searchsorted(self, v, side="left", sorter=None):
    """Where v's elements go in the sorted 1-d self to keep it sorted (side 'left': before
    equal elements, 'right': after); sorter orders self first."""
    if side not in ("left", "right"):
        raise ValueError(f"For 'Tensor.searchsorted', side must be 'left' or 'right', but got "
                         f"{side!r}.")
    a = self if sorter is None else _a.gather(self, _C.Tensor(sorter).astype(_C.int64)
                                              if not isinstance(sorter, _C.Tensor)
                                              else sorter.astype(_C.int64), 0)
    v = v if isinstance(v, _C.Tensor) else _C.Tensor(v)
    cmp = _m.less if side == "left" else _m.less_equal
    return _m.sum(cmp(a, _a.expand_dims(v.astype(a.dtype), -1)).astype(_C.int64), -1)


METHODS = {"resize": resize, "choose": choose, "searchsorted": searchsorted}
