"""Transposed convolution over any number of trailing axes (MindSpore's Conv3DTranspose),
composed from op-table primitives.

For input x [N, C, in...] and weight [C, O / group, k...], every input element spreads
x * w over the output positions i * stride + j * dilation - pad_before (j over the kernel):
one MatMul per group makes the products for all kernel offsets ([N, O / group, (in, k)...]),
and one matmul per axis with a constant 0/1 [in * k, out] matrix adds each (i, j) pair into
its output position (col2im, separable), positions outside [0, out) dropped. The output
length is (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + output_padding + 1.
Gradients are the matmuls' own.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.function.pool_nd_func import _along_last
from mycel.ops.primitive import constexpr


@constexpr
def _col2im(length, k, stride, dilation, before, after, output_padding, dtype):
    out = (length - 1) * stride - before - after + dilation * (k - 1) + output_padding + 1
    if out <= 0:
        raise ValueError(f"For 'Conv3DTranspose', the output length {out} is not positive.")
    m = np.zeros((length * k, out))
    for i in range(length):
        for j in range(k):
            z = i * stride + j * dilation - before
            if 0 <= z < out:
                m[i * k + j, z] = 1.0
    np_dt = np.float64 if dtype == _C.float64 else np.float32
    return _C.Tensor(m.astype(np_dt))


def conv_transpose_nd(x, w, strides, pads, dilations, group, output_padding):
    """[N, O, out...] (module text); pads is ((before, after), ...) per spatial axis."""
    nd = len(strides)
    n, c = x.shape[0], x.shape[1]
    spatial = tuple(x.shape[2:])
    kernel = tuple(w.shape[2:])
    og = w.shape[1]
    cg = c // group
    s = 1
    for v in spatial:
        s *= v
    kk = 1
    for v in kernel:
        kk *= v
    work = _C.float64 if x.dtype == _C.float64 else _C.float32
    xs = prim("Reshape")(prim("Cast")(x, work), (n, c, s))
    xs = prim("Transpose")(xs, (0, 2, 1))  # [N, S, C]
    ws = prim("Cast")(w, work)
    perm = (0,) + tuple(1 + nd + a for a in range(1)) + tuple(
        v for a in range(nd) for v in (1 + a, 2 + nd + a))
    outs = ()
    for g in range(group):
        xg = prim("Reshape")(xs[:, :, g * cg:(g + 1) * cg], (n * s, cg))
        wg = prim("Reshape")(ws[g * cg:(g + 1) * cg], (cg, og * kk))
        cols = prim("Reshape")(prim("MatMul")(xg, wg), (n,) + spatial + (og,) + kernel)
        # [N, in..., O_g, k...] -> [N, O_g, in_0, k_0, in_1, k_1, ...]
        cols = prim("Transpose")(cols, perm)
        y = prim("Reshape")(cols, (n, og) + tuple(spatial[a] * kernel[a] for a in range(nd)))
        for a in range(nd):
            m = _col2im(spatial[a], kernel[a], strides[a], dilations[a], pads[a][0], pads[a][1],
                        output_padding[a], work)
            y = _along_last(y, nd - a, m)
        outs = outs + (y,)
    y = outs[0] if group == 1 else prim("Concat", axis=1)(outs)
    return prim("Cast")(y, x.dtype)
