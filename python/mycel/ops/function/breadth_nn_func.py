"""More of MindSpore 2.x's neural-network functions, composed from op-table primitives (both
modes; gradients from the ops they are built of): activations (leaky_relu, prelu, glu,
hardtanh, logsigmoid, softmin, tanhshrink, rrelu, fast_gelu, gumbel_softmax), channel
dropout (dropout1d/2d/3d), group_norm, embedding, channel_shuffle, upsample, the losses
hinge_embedding_loss and multilabel_margin_loss, fold (col2im) and affine_grid.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, number_arg, host_bytes
from mycel.ops.function import array_func as _a, random_func as _r
from mycel.ops.function import nn_func as _nnf
from mycel.ops.function.array_ext_func import narrow as _narrow
from mycel.ops.function.resample_func import interpolate
from mycel.ops.composite import stop_gradient
from mycel.ops.primitive import constexpr

__all__ = ["leaky_relu", "prelu", "glu", "hardtanh", "logsigmoid", "softmin", "tanhshrink",
           "rrelu", "fast_gelu", "gumbel_softmax", "dropout1d", "dropout2d", "dropout3d",
           "group_norm", "embedding", "channel_shuffle", "upsample",
           "hinge_embedding_loss", "multilabel_margin_loss", "fold", "affine_grid"]

FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


@constexpr
def _need_float(dt, op):
    if dt not in FLOATS:
        raise TypeError(f"For '{op}', the input must be a float tensor, but got {dt}.")
    return True


def leaky_relu(input, alpha=0.2):  # noqa: A002 (MindSpore's argument names)
    """x where x >= 0, alpha * x below (alpha a number)."""
    x = _t(input, "leaky_relu")
    return prim("Select")(prim("GreaterEqual")(x, 0.0), x, x * alpha)


@constexpr
def _prelu_shape(xs, ws):
    if len(ws) != 1:
        raise ValueError(f"For 'prelu', weight must be 1-D, but got shape {tuple(ws)}.")
    c = xs[1] if len(xs) >= 2 else 1
    if ws[0] not in (1, c):
        raise ValueError(f"For 'prelu', weight must have 1 or {c} (channel) elements, but got "
                         f"{ws[0]}.")
    if len(xs) < 2:
        return (1,) * len(xs) if len(xs) else ()
    return (1, ws[0]) + (1,) * (len(xs) - 2)


def prelu(x, weight):
    """x where x > 0, weight * x otherwise; weight has 1 element or one per channel (axis
    1)."""
    x, w = _t(x, "prelu", "x"), _t(weight, "prelu", "weight")
    _need_float(x.dtype, "prelu")
    wv = prim("Reshape")(w, _prelu_shape(x.shape, w.shape))
    return prim("Select")(prim("Greater")(x, 0.0), x, x * wv)


@constexpr
def _half(shape, axis, op):
    nd = len(shape)
    if not -nd <= axis < nd:
        raise ValueError(f"For '{op}', axis {axis} is out of range for rank {nd}.")
    ax = axis % nd
    if shape[ax] % 2:
        raise ValueError(f"For '{op}', the size of axis {axis} must be even, but got "
                         f"{shape[ax]}.")
    return ax, shape[ax] // 2


def glu(x, axis=-1):
    """a * sigmoid(b), a and b the halves of x along axis."""
    x = _t(x, "glu", "x")
    _need_float(x.dtype, "glu")
    ax, h = _half(x.shape, axis, "glu")
    return _narrow(x, ax, 0, h) * prim("Sigmoid")(_narrow(x, ax, h, h))


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """x clamped to [min_val, max_val]."""
    x = _t(input, "hardtanh")
    if number_arg(min_val, "hardtanh", "min_val") > number_arg(max_val, "hardtanh", "max_val"):
        raise ValueError(f"For 'hardtanh', min_val ({min_val}) must not exceed max_val "
                         f"({max_val}).")
    return prim("Minimum")(prim("Maximum")(x, float(min_val)), float(max_val))


def logsigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    x = _t(x, "logsigmoid", "x")
    _need_float(x.dtype, "logsigmoid")
    return prim("Minimum")(x, 0.0) - prim("Log1p")(prim("Exp")(-prim("Abs")(x)))


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along axis."""
    x = _t(x, "softmin", "x")
    if dtype is not None:
        x = prim("Cast")(x, dtype)
    _need_float(x.dtype, "softmin")
    return _nnf.softmax(-x, axis)


def tanhshrink(input):  # noqa: A002
    """x - tanh(x)."""
    x = _t(input, "tanhshrink")
    _need_float(x.dtype, "tanhshrink")
    return x - prim("Tanh")(x)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    """x where x >= 0, a * x below, a drawn uniformly from [lower, upper] per element."""
    x = _t(input, "rrelu")
    _need_float(x.dtype, "rrelu")
    if number_arg(lower, "rrelu", "lower") > number_arg(upper, "rrelu", "upper"):
        raise ValueError(f"For 'rrelu', lower ({lower}) must not exceed upper ({upper}).")
    a = prim("Cast")(_r.rand(*x.shape), x.dtype) * (upper - lower) + lower
    return prim("Select")(prim("GreaterEqual")(x, 0.0), x, x * a)


def fast_gelu(x):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)) (MindSpore's FastGeLU)."""
    x = _t(x, "fast_gelu", "x")
    _need_float(x.dtype, "fast_gelu")
    ax = prim("Abs")(x)
    return x / (1.0 + prim("Exp")(ax * -1.702)) * prim("Exp")((x - ax) * 0.851)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1); hard: the one-hot of its argmax in
    the forward pass with the soft gradient (straight through)."""
    x = _t(logits, "gumbel_softmax", "logits")
    _need_float(x.dtype, "gumbel_softmax")
    if number_arg(tau, "gumbel_softmax", "tau") <= 0:
        raise ValueError(f"For 'gumbel_softmax', tau must be positive, but got {tau}.")
    u = prim("Cast")(_r.rand(*x.shape), x.dtype)
    tiny = 1e-20
    g = -prim("Log")(-prim("Log")(u + tiny) + tiny)
    y = _nnf.softmax((x + g) / tau, dim)
    if not hard:
        return y
    nd = x.ndim
    idx = prim("Argmax", axis=dim, output_type=_C.int64)(y)
    onehot = _a.one_hot(idx, x.shape[dim], 1.0, 0.0, dim % nd)
    onehot = prim("Cast")(onehot, x.dtype)
    return stop_gradient(onehot - y) + y


@constexpr
def _channel_mask_shape(shape, nd, op):
    if len(shape) not in (nd + 1, nd + 2):
        raise ValueError(f"For '{op}', the input must be {nd + 1}-D or {nd + 2}-D, but got "
                         f"shape {tuple(shape)}.")
    keep = len(shape) - nd
    return tuple(shape[:keep]) + (1,) * nd


def _channel_dropout(x, p, training, nd, op):
    x = _t(x, op)
    if not 0.0 <= number_arg(p, op, "p") <= 1.0:
        raise ValueError(f"For '{op}', p must be in [0, 1], but got {p}.")
    mshape = _channel_mask_shape(x.shape, nd, op)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    u = _r.rand(*mshape)
    keep = prim("Cast")(prim("GreaterEqual")(u, float(p)), x.dtype)
    return x * keep * (1.0 / (1.0 - p))


def dropout1d(input, p=0.5, training=True):  # noqa: A002
    """Zeros whole channels of an (N, C, L) or (C, L) input with probability p, scaling the
    rest by 1 / (1 - p)."""
    return _channel_dropout(input, p, training, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    """dropout1d for (N, C, H, W) or (C, H, W) input."""
    return _channel_dropout(input, p, training, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True):  # noqa: A002
    """dropout1d for (N, C, D, H, W) or (C, D, H, W) input."""
    return _channel_dropout(input, p, training, 3, "dropout3d")


@constexpr
def _group_plan(shape, groups):
    if len(shape) < 2:
        raise ValueError(f"For 'group_norm', the input must be at least 2-D, but got shape "
                         f"{tuple(shape)}.")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0 or \
            shape[1] % groups:
        raise ValueError(f"For 'group_norm', num_groups must be a positive int dividing the "
                         f"channels {shape[1]}, but got {groups!r}.")
    return (shape[0], groups, -1), (shape[1],) + (1,) * (len(shape) - 2)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """Normalises each of num_groups channel groups of (N, C, ...) input over its channels
    and positions (biased variance), then weight[c] * x + bias[c]."""
    x = _t(input, "group_norm")
    _need_float(x.dtype, "group_norm")
    gshape, ashape = _group_plan(x.shape, num_groups)
    g = prim("Reshape")(x, gshape)
    mean = prim("ReduceMean", keep_dims=True)(g, (-1,))
    var = prim("ReduceMean", keep_dims=True)(prim("Square")(g - mean), (-1,))
    y = prim("Reshape")((g - mean) * prim("Rsqrt")(var + eps), x.shape)
    if weight is not None:
        y = y * prim("Reshape")(weight, ashape)
    if bias is not None:
        y = y + prim("Reshape")(bias, ashape)
    return y


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False):
    """The rows of weight at the indices input. Rows of padding_idx get no gradient; with
    max_norm, rows whose norm_type-norm exceeds it are rescaled to max_norm (in the result;
    MindSpore also rewrites weight in place, which a composite cannot). scale_grad_by_freq
    is not supported (ValueError)."""
    idx, w = _t(input, "embedding"), _t(weight, "embedding", "weight")
    if scale_grad_by_freq:
        raise ValueError("For 'embedding', scale_grad_by_freq=True is not supported.")
    if idx.dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For 'embedding', input must be int32 or int64, but got {idx.dtype}.")
    rows = prim("Gather")(w, idx, 0)
    if max_norm is not None:
        p = float(norm_type)
        n = prim("Pow")(prim("ReduceSum", keep_dims=True)(
            prim("Pow")(prim("Abs")(rows), p), (-1,)), 1.0 / p)
        scale = stop_gradient(prim("Select")(prim("Greater")(n, float(max_norm)),
                                             float(max_norm) / (n + 1e-7),
                                             prim("OnesLike")(n)))
        rows = rows * scale
    if padding_idx is not None:
        pid = padding_idx % w.shape[0]
        pad = prim("ExpandDims")(prim("Equal")(idx, pid), -1)
        rows = prim("Select")(prim("BroadcastTo", shape=rows.shape)(pad), stop_gradient(rows),
                              rows)
    return rows


@constexpr
def _shuffle_plan(shape, groups):
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
        raise TypeError(f"For 'channel_shuffle', groups must be a positive int, but got "
                        f"{groups!r}.")
    if len(shape) < 3 or shape[1] % groups:
        raise ValueError(f"For 'channel_shuffle', the input must be at least 3-D with channels "
                         f"divisible by groups {groups}, but got shape {tuple(shape)}.")
    n, c = shape[0], shape[1]
    rest = tuple(shape[2:])
    return (n, groups, c // groups) + rest, (0, 2, 1) + tuple(range(3, 3 + len(rest)))


def channel_shuffle(x, groups):
    """Channels (axis 1) regrouped: [N, g, C/g, ...] transposed to [N, C/g, g, ...]."""
    x = _t(x, "channel_shuffle", "x")
    view, perm = _shuffle_plan(x.shape, groups)
    return prim("Reshape")(prim("Transpose")(prim("Reshape")(x, view), perm), x.shape)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa
             recompute_scale_factor=None):
    """ops.interpolate under MindSpore's older name."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def _reduce(x, reduction, op):
    if reduction == "mean":
        return prim("ReduceMean")(x, ())
    if reduction == "sum":
        return prim("ReduceSum")(x, ())
    if reduction == "none":
        return x
    raise ValueError(f"For '{op}', reduction must be 'mean', 'sum' or 'none', but got "
                     f"{reduction!r}.")


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """x where the target is 1, max(0, margin - x) where it is -1, reduced."""
    x, y = _t(inputs, "hinge_embedding_loss", "inputs"), _t(targets, "hinge_embedding_loss",
                                                              "targets")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"For 'hinge_embedding_loss', margin must be a float, but got "
                        f"{type(margin).__name__}.")
    y = prim("Cast")(y, x.dtype)
    pos = prim("Select")(prim("Equal")(y, 1.0), x, prim("ZerosLike")(x))
    neg = prim("Select")(prim("Equal")(y, -1.0), prim("Maximum")(float(margin) - x, 0.0),
                         prim("ZerosLike")(x))
    return _reduce(pos + neg, reduction, "hinge_embedding_loss")


@constexpr
def _mlm_check(xs, ys, ydt):
    if len(xs) not in (1, 2) or tuple(xs) != tuple(ys):
        raise ValueError(f"For 'MultilabelMarginLoss', input and target must have the same "
                         f"shape (C) or (N, C), but got {tuple(xs)} and {tuple(ys)}.")
    if ydt not in (_C.int32, _C.int64):
        raise TypeError(f"For 'MultilabelMarginLoss', target must be int32 or int64, but got "
                        f"{ydt}.")
    return xs[-1]


def multilabel_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """For each sample, sum over its target classes j (target's entries up to the first -1)
    and the other classes i of max(0, 1 - (x[j] - x[i])), divided by C."""
    x, y = _t(input, "MultilabelMarginLoss"), _t(target, "MultilabelMarginLoss", "target")
    c = _mlm_check(x.shape, y.shape, y.dtype)
    one = x.ndim == 1
    if one:
        x, y = prim("ExpandDims")(x, 0), prim("ExpandDims")(y, 0)
    y = prim("Cast")(y, _C.int64)
    # entries before the first -1 are labels
    neg = prim("Cast")(prim("Less")(y, 0), _C.int64)
    valid = prim("Equal")(prim("CumSum")(neg, 1), 0)
    ys = prim("Select")(valid, y, prim("ZerosLike")(y))
    is_target = prim("ReduceMax")(prim("Cast")(prim("LogicalAnd")(
        prim("ExpandDims")(valid, -1),
        prim("Equal")(prim("ExpandDims")(ys, -1), _classes(c))), _C.int32), (1,))  # [N, C]
    xj = _a.gather_d(x, 1, ys)  # [N, C]: x at the labels
    margin = 1.0 - (prim("ExpandDims")(xj, -1) - prim("ExpandDims")(x, 1))  # [N, j, i]
    keep = prim("LogicalAnd")(prim("ExpandDims")(valid, -1),
                              prim("ExpandDims")(prim("Equal")(is_target, 0), 1))
    h = prim("Select")(keep, prim("Maximum")(margin, 0.0), prim("ZerosLike")(margin))
    loss = prim("ReduceSum")(h, (1, 2)) / float(c)
    if one and reduction == "none":
        return prim("Reshape")(loss, ())
    return _reduce(loss, reduction, "MultilabelMarginLoss")


@constexpr
def _classes(c):
    return _C.Tensor(np.arange(c, dtype=np.int64).reshape(1, 1, c))


@constexpr
def _fold_plan(shape, output_size, kernel_size, dilation, padding, stride):
    def two(v, name):
        v = (v, v) if isinstance(v, int) else tuple(v)
        if len(v) != 2 or any(not isinstance(e, int) or isinstance(e, bool) for e in v):
            raise TypeError(f"For 'fold', {name} must be an int or a pair of ints, but got "
                            f"{v!r}.")
        return v
    oh, ow = two(output_size, "output_size")
    kh, kw = two(kernel_size, "kernel_size")
    dh, dw = two(dilation, "dilation")
    ph, pw = two(padding, "padding")
    sh, sw = two(stride, "stride")
    if len(shape) not in (2, 3):
        raise ValueError(f"For 'fold', the input must be 2-D or 3-D (N, C*kh*kw, L), but got "
                         f"shape {tuple(shape)}.")
    ck, L = shape[-2], shape[-1]
    if ck % (kh * kw):
        raise ValueError(f"For 'fold', input.shape[-2] ({ck}) must be divisible by "
                         f"kernel_size product {kh * kw}.")
    bh = (oh + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    bw = (ow + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if bh * bw != L:
        raise ValueError(f"For 'fold', input.shape[-1] ({L}) must equal the number of blocks "
                         f"{bh} * {bw}.")
    H, W = oh + 2 * ph, ow + 2 * pw
    ki, kj, bi, bj = np.meshgrid(np.arange(kh), np.arange(kw), np.arange(bh), np.arange(bw),
                                 indexing="ij")
    pos = (bi * sh + ki * dh) * W + (bj * sw + kj * dw)  # [kh, kw, bh, bw] flat padded index
    return (ck // (kh * kw), _C.Tensor(pos.reshape(-1, 1).astype(np.int64)), H, W,
            (ph, pw, oh, ow))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """col2im: sums the sliding blocks of input (N, C * kh * kw, L) back into (N, C, H, W)
    (the inverse arrangement of unfold; overlaps add up)."""
    x = _t(input, "fold")
    c, pos, H, W, (ph, pw, oh, ow) = _fold_plan(x.shape, output_size, kernel_size, dilation,
                                                padding, stride)
    batched = x.ndim == 3
    if not batched:
        x = prim("ExpandDims")(x, 0)
    n = x.shape[0]
    cols = prim("Transpose")(prim("Reshape")(x, (n * c, -1)), (1, 0))  # [kh*kw*L, N*C]
    img = prim("ScatterNd")(pos, cols, (H * W, n * c))
    img = prim("Reshape")(prim("Transpose")(img, (1, 0)), (n, c, H, W))
    img = prim("StridedSlice")(img, (0, 0, ph, pw), (n, c, ph + oh, pw + ow), (1, 1, 1, 1))
    return img if batched else prim("Reshape")(img, (c, oh, ow))


@constexpr
def _base_grid(size, align_corners, dtype):
    if len(size) not in (4, 5):
        raise ValueError(f"For 'affine_grid', size must be (N, C, H, W) or (N, C, D, H, W), "
                         f"but got {tuple(size)}.")

    def lin(n):
        if n <= 1:
            return np.zeros(max(n, 0))
        host_bytes("affine_grid", 16 * n)
        v = np.linspace(-1.0, 1.0, n)
        return v if align_corners else v * (n - 1) / n
    spatial = tuple(size[2:])
    axes = [lin(n) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # D, H, W order
    coords = [m for m in reversed(mesh)]  # x (W), y (H), z (D)
    base = np.stack(coords + [np.ones_like(mesh[0])], -1).reshape(-1, len(spatial) + 1)
    return _C.Tensor(np.ascontiguousarray(base)).astype(dtype), spatial


def affine_grid(theta, size, align_corners=False):
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta (N, 2, 3)
    (or (N, 3, 4)) over the normalised output coordinates in [-1, 1]."""
    th = _t(theta, "affine_grid", "theta")
    _need_float(th.dtype, "affine_grid")
    base, spatial = _base_grid(tuple(size), align_corners, th.dtype)
    nsp = len(spatial)
    if th.ndim != 3 or th.shape[1] != nsp or th.shape[2] != nsp + 1 or th.shape[0] != size[0]:
        raise ValueError(f"For 'affine_grid', theta must be (N, {nsp}, {nsp + 1}) with N = "
                         f"size[0], but got shape {th.shape} for size {tuple(size)}.")
    n = th.shape[0]
    b = prim("BroadcastTo", shape=(n,) + base.shape)(base)
    grid = prim("BatchMatMul")(b, prim("Transpose")(th, (0, 2, 1)))
    return prim("Reshape")(grid, (n,) + spatial + (nsp,))
