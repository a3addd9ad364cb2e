"""Power-average pooling and max unpooling (MindSpore 2.x ``ops.lp_pool1d/2d`` and
``ops.max_unpool1d/2d/3d``), composed of existing primitives, so their gradients are those
primitives' (no kernel of their own).

lp_pool: (sum over the window of x^p)^(1/p), computed as AvgPool(x^p) times the window's
size, then the p-th root of its sign-kept positive part, as MindSpore defines it (a window
whose sum is negative gives 0 rather than NaN for even p).

max_unpool: the inverse of max pooling with indices: a zero tensor of the unpooled size
with x[n, c, i] written at the flat spatial index indices[n, c, i] of its (n, c) plane. The
unpooled size is (in - 1) * stride - 2 * padding + kernel_size per spatial axis unless
output_size gives it. An index outside the plane is an error (the scatter refuses it)."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import math_func as _m
from mycel.ops.function.index_add_func import tensor_scatter_elements
from mycel.ops.primitive import constexpr


@constexpr
def _tuple_n(v, n, arg, op):
    if isinstance(v, bool) or not isinstance(v, (int, tuple, list)):
        raise TypeError(f"For '{op}', '{arg}' must be an int or a tuple of {n} ints, but got "
                        f"{type(v).__name__}.")
    t = (v,) * n if isinstance(v, int) else tuple(v)
    if len(t) != n or any(isinstance(i, bool) or not isinstance(i, int) for i in t):
        raise ValueError(f"For '{op}', '{arg}' must be an int or a tuple of {n} ints, but got "
                         f"{v!r}.")
    return t


def _lp_pool(op, x, norm_type, kernel_size, stride, ceil_mode, n):
    x = as_tensor(x)
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type <= 0:
        raise ValueError(f"For '{op}', 'norm_type' must be a positive number, but got "
                         f"{norm_type!r}.")
    ks = _tuple_n(kernel_size, n, "kernel_size", op)
    st = ks if stride is None else _tuple_n(stride, n, "stride", op)
    rank = len(x.shape)
    if rank not in (n + 1, n + 2):
        raise ValueError(f"For '{op}', the input must be {n + 1}-d or {n + 2}-d, but got shape "
                         f"{tuple(x.shape)}.")
    batched = x if rank == n + 2 else prim("ExpandDims")(x, 0)
    if n == 1:  # the 2-d pool on a unit height
        batched = prim("ExpandDims")(batched, 2)
        ks, st = (1,) + ks, (1,) + st
    avg = prim("AvgPool", kernel_size=ks, strides=st, pad_mode="valid", pad=(0, 0, 0, 0),
               ceil_mode=ceil_mode, count_include_pad=True)(_m.pow(batched, float(norm_type)))
    size = 1
    for k in ks:
        size *= k
    total = _m.mul(_m.mul(prim("Sign")(avg), prim("ReLU")(prim("Abs")(avg))), float(size))
    out = _m.pow(total, 1.0 / float(norm_type))
    if n == 1:
        out = prim("Squeeze", axis=(2,))(out)
    return out if rank == n + 2 else prim("Squeeze", axis=(0,))(out)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over [N, C, L] or [C, L] input."""
    return _lp_pool("lp_pool1d", x, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over [N, C, H, W] or [C, H, W] input."""
    return _lp_pool("lp_pool2d", x, norm_type, kernel_size, stride, ceil_mode, 2)


@constexpr
def _unpool_shape(op, in_spatial, ks, st, pad, output_size):
    n = len(in_spatial)
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in zip(in_spatial, st, pad, ks))
    if output_size is None or output_size == ():
        out = default
    else:
        out = tuple(output_size)[-n:]
        if len(tuple(output_size)) not in (n, n + 1, n + 2) or any(
                o < d - s or o > d + s for o, d, s in zip(out, default, st)):
            raise ValueError(f"For '{op}', output_size {tuple(output_size)} must give the "
                             f"{n} spatial sizes, each within a stride of {default}.")
    if any(o <= 0 for o in out):
        raise ValueError(f"For '{op}', the unpooled size {out} must be positive (input "
                         f"{in_spatial}, kernel_size {ks}, stride {st}, padding {pad}).")
    return out


def _max_unpool(op, x, indices, kernel_size, stride, padding, output_size, n):
    x, idx = as_tensor(x), as_tensor(indices)
    if tuple(x.shape) != tuple(idx.shape):
        raise ValueError(f"For '{op}', x and indices must have one shape, but got "
                         f"{tuple(x.shape)} and {tuple(idx.shape)}.")
    if idx.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', indices must be int32 or int64, but got {idx.dtype}.")
    rank = len(x.shape)
    if rank not in (n + 1, n + 2):
        raise ValueError(f"For '{op}', the input must be {n + 1}-d or {n + 2}-d, but got shape "
                         f"{tuple(x.shape)}.")
    ks = _tuple_n(kernel_size, n, "kernel_size", op)
    st = ks if stride is None or stride == 0 else _tuple_n(stride, n, "stride", op)
    pad = _tuple_n(padding, n, "padding", op)
    lead = tuple(x.shape)[:rank - n]
    out_sp = _unpool_shape(op, tuple(x.shape)[rank - n:], ks, st, pad, output_size)
    plane = 1
    for o in out_sp:
        plane *= o
    flat_x = prim("Reshape")(x, lead + (-1,))
    flat_i = prim("Reshape")(idx, lead + (-1,))
    zeros = prim("Fill")(x.dtype, lead + (plane,), 0.0)
    out = tensor_scatter_elements(zeros, flat_i, flat_x, axis=len(lead))
    return prim("Reshape")(out, lead + out_sp)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d with indices: [N, C, L] or [C, L]."""
    return _max_unpool("max_unpool1d", x, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d with indices: [N, C, H, W] or [C, H, W]."""
    return _max_unpool("max_unpool2d", x, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d with indices: [N, C, D, H, W] or [C, D, H, W]."""
    return _max_unpool("max_unpool3d", x, indices, kernel_size, stride, padding, output_size, 3)


__all__ = ["lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]
