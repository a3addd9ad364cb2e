"""Fractional max pooling with a fixed kernel size (MindSpore 2.x's ``ops.fractional_max_pool2d``
/ ``ops.fractional_max_pool3d`` and ``nn.FractionalMaxPool2d`` / ``nn.FractionalMaxPool3d``;
the primitives FractionalMaxPoolWithFixedKsize and FractionalMaxPool3DWithFixedKsize), composed
from table ops (the TF-style FractionalMaxPool with pooling ratios is fractional_pool_func.py).

Each pooled dimension of size n with output size m and kernel k starts its windows at
seq[i] = int((i + u) alpha) - int(u alpha) for i < m - 1 and seq[m - 1] = n - k, with
alpha = (n - k) / (m - 1) and u in [0, 1) one random sample per (batch, channel, dimension),
computed in the samples' dtype as MindSpore's CPU kernels do. Their sample order: 2-D (W, H),
3-D (D, H, W). Each output is the maximum of its k-window (the first maximum in row-major
scan order; a NaN never wins, as the kernels compare with '>' from -inf), and the index is
its flat position in the input's pooled dimensions (int64). The windows are read with
GatherElements on the flattened input, one per kernel offset, so gradients flow to the
chosen elements.
"""
import itertools
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import random_func as _r
from mycel.ops.primitive import constexpr

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _tuple(op, name, v, nd, kind, what):
    if isinstance(v, kind) and not isinstance(v, bool):
        return (v,) * nd
    if isinstance(v, (tuple, list)) and len(v) == nd and \
            all(isinstance(e, kind) and not isinstance(e, bool) for e in v):
        return tuple(v)
    raise TypeError(f"For '{op}', '{name}' must be {what} or a tuple of {nd}, but got {v!r}.")


@constexpr
def _plan(op, nd, shape, dtype, kernel_size, output_size, output_ratio, samples_shape):
    """(batched shape [N, C, *spatial], output spatial sizes, kernel sizes)."""
    if dtype not in (_C.float16, _C.float32, _C.float64, _C.int32, _C.int64):
        raise TypeError(f"For '{op}', the input must be float16, float32, float64, int32 or "
                        f"int64, but got {dtype}.")
    if len(shape) not in (nd + 1, nd + 2):
        raise ValueError(f"For '{op}', the input must be {nd + 1}-D or {nd + 2}-D, but got "
                         f"shape {tuple(shape)}.")
    full = tuple(shape) if len(shape) == nd + 2 else (1,) + tuple(shape)
    spatial = full[2:]
    k = _tuple(op, "kernel_size", kernel_size, nd, int, "an int")
    if any(v <= 0 for v in k):
        raise ValueError(f"For '{op}', 'kernel_size' must be positive, but got {k}.")
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'output_ratio' must be "
                         f"given.")
    if output_size is not None:
        out = _tuple(op, "output_size", output_size, nd, int, "an int")
    else:
        ratio = _tuple(op, "output_ratio", output_ratio, nd, numbers.Real, "a float")
        if any(not 0 < r < 1 for r in ratio):
            raise ValueError(f"For '{op}', 'output_ratio' must be in (0, 1), but got {ratio}.")
        out = tuple(int(n * r) for n, r in zip(spatial, ratio))
    for n, m, kk in zip(spatial, out, k):
        if m <= 0 or m + kk - 1 > n:
            raise ValueError(f"For '{op}', each output size plus kernel size - 1 must be at "
                             f"most the input size, but got output {out}, kernel {k} and "
                             f"input {spatial}.")
    if samples_shape is not None and tuple(samples_shape) != (full[0], full[1], nd):
        raise ValueError(f"For '{op}', '_random_samples' must have shape "
                         f"{(full[0], full[1], nd)}, but got {tuple(samples_shape)}.")
    return full, out, k


@constexpr
def _offsets(k):
    """Every kernel offset, in row-major order."""
    return tuple(itertools.product(*[range(kk) for kk in k]))


@constexpr
def _lowest(dtype):
    """The start of the running maximum: -inf, or the integer dtype's least value."""
    if dtype in (_C.float16, _C.float32, _C.float64):
        return float("-inf")
    return float(np.iinfo(np.int64 if dtype == _C.int64 else np.int32).min)


@constexpr
def _steps(m, dtype):
    np_dtype = {_C.float16: np.float16, _C.float64: np.float64}.get(dtype, np.float32)
    return _C.Tensor(np.arange(m - 1, dtype=np_dtype))


def _intervals(u, n, m, k):
    """[N, C, m] int64 window starts from samples u [N, C] (module docstring)."""
    last = prim("Fill")(_C.int64, tuple(u.shape) + (1,), float(n - k))
    if m == 1:
        return last
    alpha = float(np.array(n - k, np.float64) / (m - 1))
    ue = prim("ExpandDims")(u, -1)
    first = prim("Floor")(prim("Mul")(prim("Add")(_steps(m, u.dtype), ue), alpha))
    seq = prim("Sub")(first, prim("Floor")(prim("Mul")(ue, alpha)))
    return prim("Concat", axis=-1)((prim("Cast")(seq, _C.int64), last))


def _pool(op, nd, x, kernel_size, output_size, output_ratio, return_indices, samples,
          order):
    x = as_tensor(x)
    s_shape = None if samples is None else as_tensor(samples).shape
    full, out, k = _plan(op, nd, x.shape, x.dtype, kernel_size, output_size, output_ratio,
                         s_shape)
    batched = prim("Reshape")(x, full)
    n, c, spatial = full[0], full[1], full[2:]
    if samples is None:
        samples = _r.rand((n, c, nd), dtype=_C.float32)
    samples = as_tensor(samples)
    if samples.dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For '{op}', '_random_samples' must be float16, float32 or float64, "
                        f"but got {samples.dtype}.")
    seqs = [None] * nd
    for j, dim in enumerate(order):  # sample j drives spatial dimension dim
        u = prim("Reshape")(prim("Gather")(samples, _C.Tensor(np.array([j], np.int64)), 2),
                            (n, c))
        seqs[dim] = _intervals(u, spatial[dim], out[dim], k[dim])
    strides = [int(np.prod(spatial[d + 1:])) for d in range(nd)]
    flat = prim("Reshape")(batched, (n, c, -1))
    best, arg = None, None
    for offs in _offsets(k):
        idx = None
        for d in range(nd):
            shape = [n, c] + [1] * nd
            shape[2 + d] = out[d]
            term = prim("Reshape")(prim("Mul")(prim("Add")(seqs[d], offs[d]), strides[d]),
                                   tuple(shape))
            idx = term if idx is None else prim("Add")(idx, term)
        idx = prim("Reshape")(prim("BroadcastTo", shape=(n, c) + tuple(out))(idx), (n, c, -1))
        v = prim("GatherD")(flat, idx, 2)
        if best is None:
            best, arg = prim("Fill")(x.dtype, tuple(v.shape), _lowest(x.dtype)), idx
        take = prim("Greater")(v, best)
        best = prim("Select")(take, v, best)
        arg = prim("Select")(take, idx, arg)
    out_shape = tuple(x.shape[:-nd]) + tuple(out)
    y = prim("Reshape")(best, out_shape)
    if return_indices:
        return y, prim("Reshape")(arg, out_shape)
    return y


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """Fractional max pooling of input [N, C, H, W] or [C, H, W] with a kernel of kernel_size
    (an int or (kH, kW)) to output_size (an int or (oH, oW)) or output_ratio of the input's
    size; _random_samples [N, C, 2] in [0, 1) (W's, then H's; drawn when None). Returns y, or
    (y, int64 argmax over H * W) with return_indices (module docstring)."""
    return _pool("FractionalMaxPool2d", 2, input, kernel_size, output_size, output_ratio,
                 return_indices, _random_samples, (1, 0))


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """Fractional max pooling of input [N, C, D, H, W] or [C, D, H, W] with a kernel of
    kernel_size (an int or (kD, kH, kW)) to output_size or output_ratio of the input's size;
    _random_samples [N, C, 3] in [0, 1) (D's, H's, W's; drawn when None). Returns y, or
    (y, int64 argmax over D * H * W) with return_indices (module docstring)."""
    return _pool("FractionalMaxPool3d", 3, input, kernel_size, output_size, output_ratio,
                 return_indices, _random_samples, (0, 1, 2))
