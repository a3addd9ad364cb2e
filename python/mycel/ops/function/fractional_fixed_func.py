"""Fractional max pooling with a fixed window size (``ops.fractional_max_pool2d/3d``,
``nn.FractionalMaxPool2d/3d``; MindSpore's FractionalMaxPoolWithFixedKsize, PyTorch's
fractional_max_pool), composed from op-table primitives.

Along each spatial axis of size n, output o takes the window [s_o, s_o + k) where, for a
sample u in [0, 1) drawn per (batch, channel) and axis and alpha = (n - k) / (out - 1),
    s_o = floor((o + u) * alpha) - floor(u * alpha)  (o < out - 1),  s_{out-1} = n - k
(Graham's pseudo-random sequence, computed in the input's float type as PyTorch does). Each
output is the window's maximum, the first one in row-major window order; `indices` are its
flat position in the input plane (h * W + w, or t * H * W + h * W + w). The values are read
back by GatherD at those positions, so the gradient goes to each window's chosen element.
The samples are `_random_samples` [N, C, dims] when given (the last axis ordered (w, h) in
2-d and (t, h, w) in 3-d, as PyTorch's), else drawn uniformly with mycel's generator.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import array_func as _a
from mycel.ops.function import math_func as _m
from mycel.ops.function import random_func as _r
from mycel.ops.primitive import constexpr


def _tuple(op, name, v, dims):
    vals = (v,) * dims if isinstance(v, int) and not isinstance(v, bool) else v
    if not isinstance(vals, (tuple, list)) or len(vals) != dims:
        raise ValueError(f"For '{op}', '{name}' must be an int or {dims} ints, but got {v!r}.")
    return tuple(vals)


@constexpr
def _plan(op, shape, dims, kernel_size, output_size, output_ratio):
    """(batched [N, C, *spatial] shape, kernel, output sizes) after MindSpore's checks."""
    if len(shape) not in (dims + 1, dims + 2):
        raise ValueError(f"For '{op}', the input must be {dims + 1}-d or {dims + 2}-d, but got "
                         f"shape {tuple(shape)}.")
    full = tuple(shape) if len(shape) == dims + 2 else (1,) + tuple(shape)
    ks = _tuple(op, "kernel_size", kernel_size, dims)
    if any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise ValueError(f"For '{op}', 'kernel_size' must hold positive ints, but got "
                         f"{kernel_size!r}.")
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'output_ratio' must be "
                         f"given.")
    spatial = full[2:]
    if output_size is not None:
        out = _tuple(op, "output_size", output_size, dims)
    else:
        ratio = _tuple(op, "output_ratio", output_ratio, dims)
        if any(not 0 < r < 1 for r in ratio):
            raise ValueError(f"For '{op}', 'output_ratio' must be in (0, 1), but got "
                             f"{output_ratio!r}.")
        out = tuple(int(n * r) for n, r in zip(spatial, ratio))
    for n, k, o in zip(spatial, ks, out):
        if isinstance(o, bool) or not isinstance(o, int) or o < 1 or o + k - 1 > n:
            raise ValueError(f"For '{op}', an output size {o} with kernel {k} does not fit an "
                             f"input of size {n} (output + kernel - 1 must be at most the "
                             f"input; input shape {tuple(shape)}).")
    return full, ks, out


@constexpr
def _steps(out, dtype):
    """0, 1, ..., out - 2 in dtype."""
    return _C.Tensor(np.arange(out - 1, dtype=np.float64)).astype(dtype)


def _intervals(u, n, k, out, dtype):
    """[N, C, out] int64 window starts for samples u [N, C] (module docstring)."""
    last = _a.fill(_C.int64, tuple(u.shape) + (1,), n - k)
    if out == 1:
        return last
    alpha = (n - k) / (out - 1)
    uu = _a.expand_dims(u, -1)
    seq = _m.floor((_steps(out, dtype) + uu) * alpha) - _m.floor(uu * alpha)
    return _a.concat((_a.cast(seq, _C.int64), last), -1)


def fractional_max_pool_nd(op, x, dims, kernel_size, output_size, output_ratio,
                           return_indices, random_samples):
    """The pooled values (and flat indices with return_indices) of x [N, C, *spatial] or
    [C, *spatial] over its last `dims` axes (module docstring)."""
    full, ks, out = _plan(op, x.shape, dims, kernel_size, output_size, output_ratio)
    floats = (_C.float16, _C.float32, _C.float64)
    # integer inputs (FractionalMaxPool3DWithFixedKsize) come with their samples, whose
    # float type places the windows
    if x.dtype not in floats and not (random_samples is not None and
                                      x.dtype in (_C.int32, _C.int64)):
        raise TypeError(f"For '{op}', the input must be float16, float32 or float64, but got "
                        f"{x.dtype}.")
    xb = _a.reshape(x, full)
    n, c = full[0], full[1]
    spatial = full[2:]
    work = x.dtype if x.dtype in floats else random_samples.dtype
    work = _C.float32 if work == _C.float16 else work
    if random_samples is None:
        samples = _r.uniform((n, c, dims), _C.Tensor(0.0, work), _C.Tensor(1.0, work))
    else:
        if tuple(random_samples.shape) != (n, c, dims):
            raise ValueError(f"For '{op}', '_random_samples' must have shape {(n, c, dims)}, "
                             f"but got {tuple(random_samples.shape)}.")
        samples = _a.cast(random_samples, work)
    order = (1, 0) if dims == 2 else (0, 1, 2)  # which sample column drives spatial axis d
    flat = None
    stride = math.prod(spatial)
    for d in range(dims):
        stride //= spatial[d]
        u = _a.reshape(_a.strided_slice(samples, (0, 0, order[d]), (n, c, order[d] + 1),
                                        (1, 1, 1)), (n, c))
        starts = _intervals(u, spatial[d], ks[d], out[d], work)
        pos = _a.expand_dims(starts, -1) + _a.arange(0, ks[d], 1, dtype=_C.int64)
        # pos [N, C, out_d, k_d] placed on axes (2 + d) and (2 + dims + d) of
        # [N, C, *out, *k]
        shape = [n, c] + [1] * (2 * dims)
        shape[2 + d], shape[2 + dims + d] = out[d], ks[d]
        term = _a.reshape(pos * stride, tuple(shape))
        flat = term if flat is None else flat + term
    windows = math.prod(ks)
    idx = _a.reshape(_a.broadcast_to(flat, (n, c) + out + ks), (n, c, math.prod(out),
                                                                 windows))
    plane = _a.reshape(xb, (n, c, math.prod(spatial)))
    vals = _a.reshape(_a.gather_d(plane, 2, _a.reshape(idx, (n, c, -1))),
                      (n, c, math.prod(out), windows))
    pick = _a.expand_dims(_m.argmax(vals, -1), -1)
    chosen = _a.reshape(_a.gather_d(idx, 3, pick), (n, c, math.prod(out)))
    y = _a.reshape(_a.gather_d(plane, 2, chosen), (n, c) + out)
    lead = tuple(x.shape[:-dims])
    y = _a.reshape(y, lead + out)
    if return_indices:
        return y, _a.reshape(chosen, lead + out)
    return y


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """2-d fractional max pooling of [N, C, H, W] or [C, H, W] input (module docstring)."""
    return fractional_max_pool_nd("fractional_max_pool2d", input, 2, kernel_size, output_size,
                                  output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """3-d fractional max pooling of [N, C, D, H, W] or [C, D, H, W] input."""
    return fractional_max_pool_nd("fractional_max_pool3d", input, 3, kernel_size, output_size,
                                  output_ratio, return_indices, _random_samples)
