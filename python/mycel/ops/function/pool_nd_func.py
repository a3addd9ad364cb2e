"""Average pooling over any number of trailing axes (MindSpore's AvgPool3D, ops.avg_pool3d,
ops.avg_pool1d), composed from op-table primitives.

A box average is separable: the box sum is one matmul per pooled axis with a [L, out] 0/1
matrix (element l is in window i), and the divisor, the box's element count (padding counted
or not, as count_include_pad says) or divisor_override, is a product of per-axis counts, a
constant [out...] tensor. Window i of an axis covers [i * stride - pad_before, ... + kernel);
with ceil_mode the last window may run past the end if it starts inside the input or its
leading padding; with count_include_pad the count takes the positions inside [-pad_before,
L + pad_after) (PyTorch's and MindSpore's rule), else only those inside the input. The sum
is divided by the count (an exact division, as the kernels do); a window with no element
gives 0. float16 is computed in float32. Gradients are the matmuls' own.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, host_bytes
from mycel.ops.primitive import constexpr


def _axis_plan(length, k, s, p0, p1, ceil_mode, include_pad):
    span = length + p0 + p1 - k
    if span < 0:
        raise ValueError(f"For the average pooling, the window {k} is larger than the padded "
                         f"input {length + p0 + p1}.")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= length + p0:
        out -= 1
    host_bytes("avg_pool", 8 * length * out + 64 * out)  # the matrix and the loop over out
    ones = np.zeros((length, out))
    counts = np.zeros(out)
    for i in range(out):
        start = i * s - p0
        lo, hi = max(start, 0), min(start + k, length)
        ones[lo:hi, i] = 1.0
        counts[i] = (min(start + k, length + p1) - start) if include_pad else max(hi - lo, 0)
    return ones, counts


@constexpr
def _plan(shape, kernel, stride, pads, ceil_mode, include_pad, divisor, dtype):
    """(per-axis 0/1 matrices, divisor tensor [out...]) for the trailing len(kernel) axes."""
    mats, counts = [], []
    nd = len(kernel)
    for a in range(nd):
        m, c = _axis_plan(shape[len(shape) - nd + a], kernel[a], stride[a], pads[a][0],
                          pads[a][1], ceil_mode, include_pad)
        mats.append(m)
        counts.append(c)
    div = np.ones(())
    for c in counts:
        div = np.multiply.outer(div, c)
    if divisor:
        div = np.full(div.shape, float(divisor))
    div = np.where(div > 0, div, 1.0)
    np_dt = np.float64 if dtype == _C.float64 else np.float32
    return (tuple(_C.Tensor(m.astype(np_dt)) for m in mats), _C.Tensor(div.astype(np_dt)))


def _along_last(x, k_from_end, matrix):
    """x with its axis -k_from_end multiplied by matrix [L, out] (moved last and back)."""
    nd = len(x.shape)
    axis = nd - k_from_end
    perm = tuple(i for i in range(nd) if i != axis) + (axis,)
    back = tuple(perm.index(i) for i in range(nd))
    y = prim("Transpose")(x, perm)
    lead = tuple(y.shape[:-1])
    y = prim("MatMul")(prim("Reshape")(y, (-1, y.shape[-1])), matrix)
    y = prim("Reshape")(y, lead + (matrix.shape[1],))
    return prim("Transpose")(y, back)


def avg_pool_nd(x, kernel, stride, pads, ceil_mode=False, count_include_pad=True,
                divisor_override=0):
    """Average pooling of x over its last len(kernel) axes; pads is ((before, after), ...)
    per pooled axis."""
    work = _C.float64 if x.dtype == _C.float64 else _C.float32
    mats, div = _plan(tuple(x.shape), tuple(kernel), tuple(stride), tuple(pads),
                      bool(ceil_mode), bool(count_include_pad), divisor_override or 0, work)
    y = prim("Cast")(x, work)
    nd = len(kernel)
    for a in range(nd):
        y = _along_last(y, nd - a, mats[a])
    return prim("Cast")(y / div, x.dtype)


def same_pads(shape, kernel, stride):
    """TensorFlow's SAME padding per axis: out = ceil(L / stride), the odd one after."""
    pads = []
    for length, k, s in zip(shape[len(shape) - len(kernel):], kernel, stride):
        out = -(-length // s)
        total = max((out - 1) * s + k - length, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


def _tuple(v, n, name, op):
    vals = (v,) * n if isinstance(v, int) and not isinstance(v, bool) else tuple(v)
    if len(vals) != n or any(isinstance(e, bool) or not isinstance(e, int) for e in vals):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of {n} ints, but got "
                        f"{v!r}.")
    return vals


def avg_pool3d(input_x, kernel_size=1, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average pooling over the last three axes of [N, C, D, H, W] (MindSpore's
    ops.avg_pool3d); padding: an int or 6 ints (front, back, top, bottom, left, right)."""
    k = _tuple(kernel_size, 3, "kernel_size", "avg_pool3d")
    s = k if stride is None else _tuple(stride, 3, "stride", "avg_pool3d")
    p = _tuple(padding, 6, "padding", "avg_pool3d") if not isinstance(padding, int) else \
        (padding,) * 6
    if len(input_x.shape) != 5:
        raise ValueError(f"For 'avg_pool3d', the input must be 5-D, but got shape "
                         f"{tuple(input_x.shape)}.")
    return avg_pool_nd(input_x, k, s, ((p[0], p[1]), (p[2], p[3]), (p[4], p[5])), ceil_mode,
                       count_include_pad, divisor_override or 0)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Average pooling over the last axis of [N, C, L] (MindSpore's ops.avg_pool1d); padding:
    an int or (left, right)."""
    k = _tuple(kernel_size, 1, "kernel_size", "avg_pool1d")
    s = _tuple(stride, 1, "stride", "avg_pool1d")
    p = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if len(input_x.shape) != 3:
        raise ValueError(f"For 'avg_pool1d', the input must be 3-D, but got shape "
                         f"{tuple(input_x.shape)}.")
    return avg_pool_nd(input_x, k, s, ((p[0], p[1]),), ceil_mode, count_include_pad)


__all__ = ["avg_pool3d", "avg_pool1d"]
