"""Neural-network functions: activations, softmax, convolution, pooling, normalisation,
dropout and losses (MindSpore 2.x names and arguments).

More of MindSpore 2.x's neural-network functions, composed from op-table primitives (both
modes; gradients from the ops they are built of): activations (leaky_relu, prelu, glu,
hardtanh, logsigmoid, softmin, tanhshrink, rrelu, fast_gelu, gumbel_softmax), channel
dropout (dropout1d/2d/3d), group_norm, embedding, channel_shuffle, upsample, the losses
hinge_embedding_loss and multilabel_margin_loss, fold (col2im) and affine_grid.
"""
from mycel.ops.function._util import prim, pair, as_tensor, number_arg, host_bytes
from mycel.ops.primitive import constexpr
from mycel.ops.function import math_func as _m
from mycel._mycel import Tensor as _Tensor
import numpy as np
from mycel import _mycel as _C
from mycel.ops.function import array_func as _a
from mycel.ops.function import random_func as _r
from mycel.ops.function.array_ext_func import narrow as _narrow
from mycel.ops.function.resample_func import interpolate
from mycel.ops.function._util import stop_gradient
from mycel.ops.function.array_ext_func import narrow

__all__ = ["prim", "pair", "as_tensor", "constexpr", "relu", "relu6", "gelu", "silu",
           "sigmoid", "tanh", "softplus", "softmax", "log_softmax", "conv2d", "conv1d",
           "conv_transpose2d", "max_pool2d", "avg_pool2d", "dropout", "batch_norm",
           "layer_norm", "threshold", "nll_loss", "cross_entropy", "mse_loss", "l1_loss",
           "binary_cross_entropy_with_logits", "leaky_relu", "prelu", "glu", "hardtanh",
           "logsigmoid", "softmin", "tanhshrink", "rrelu", "fast_gelu", "gumbel_softmax",
           "dropout1d", "dropout2d", "dropout3d", "group_norm", "embedding", "channel_shuffle",
           "upsample", "hinge_embedding_loss", "multilabel_margin_loss", "fold", "affine_grid",
           "mirror_pad", "intopk", "bidense", "col2im", "swiglu", "unfold"]


_relu = prim("ReLU")


def relu(input):  # noqa: A002
    """max(input, 0)."""
    return _relu(input)


def relu6(x):
    """min(max(x, 0), 6)."""
    return prim("ReLU6")(x)


def gelu(input_x, approximate="none"):
    """GELU; approximate 'none' (erf) or 'tanh'."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"For 'gelu', approximate must be 'none' or 'tanh', but got "
                         f"{approximate!r}.")
    return prim("GeLU", approximate=approximate)(input_x)


def silu(input):  # noqa: A002
    """input * sigmoid(input)."""
    return prim("SiLU")(input)


def sigmoid(input):  # noqa: A002
    """1 / (1 + exp(-input))."""
    return prim("Sigmoid")(input)


def tanh(input):  # noqa: A002
    """Hyperbolic tangent."""
    return prim("Tanh")(input)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """log(1 + exp(beta * input)) / beta, linear where beta * input > threshold."""
    x = as_tensor(input)
    bx = x if beta == 1 else _m.mul(x, beta)
    out = prim("Softplus")(bx)
    if beta != 1:
        out = _m.div(out, beta)
    return _m.select(_m.greater(bx, threshold), x, out)


def softmax(input, axis=-1):  # noqa: A002
    """exp(input) / sum(exp(input)) along axis (an int or a tuple of ints: over several axes
    together, the normalisation runs over all their elements)."""
    if not isinstance(axis, (int, tuple, list)):  # (tuple() of it named no op)
        raise TypeError(f"For 'softmax', axis must be an int or a tuple of ints, but got "
                        f"{type(axis).__name__}.")
    if isinstance(axis, (tuple, list)) and len(axis) > 1:
        return _softmax_over_axes(input, tuple(axis), "softmax")
    return prim("Softmax", axis=(axis,) if isinstance(axis, int) else tuple(axis))(input)


@constexpr
def _softmax_axes(op, rank, axes):
    """The axes normalised to [0, rank); a TypeError/ValueError naming op otherwise."""
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int):
            raise TypeError(f"For '{op}', axis must be an int or a tuple of ints, but got "
                            f"{axes!r}.")
        if not -rank <= a < max(rank, 1):
            raise ValueError(f"For '{op}', axis {a} is out of range for an input of rank "
                             f"{rank}.")
        out.append(a % max(rank, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"For '{op}', the axes {axes!r} repeat an axis.")
    return tuple(out)


def _softmax_over_axes(x, axes, op="Softmax"):
    """Softmax over several axes together: exp(x - max) / sum(exp(x - max)), the max and sum
    over all the axes' elements (MindSpore's Softmax with a tuple axis)."""
    x = as_tensor(x)
    axes = _softmax_axes(op, len(x.shape), axes)
    y = prim("Exp")(prim("Sub")(x, stop_gradient(prim("ReduceMax", keep_dims=True)(x, axes))))
    return prim("Div")(y, prim("ReduceSum", keep_dims=True)(y, axes))


def log_softmax(logits, axis=-1):
    """log(softmax(logits)) along axis, computed stably."""
    return prim("LogSoftmax", axis=axis)(logits)


def _conv_pad(pad_mode, padding):
    if pad_mode not in ("same", "valid", "pad"):
        raise ValueError(f"For 'conv2d', pad_mode must be 'same', 'valid' or 'pad', but got "
                         f"{pad_mode!r}.")
    if isinstance(padding, int):
        return (padding,) * 4
    padding = tuple(padding)
    if len(padding) == 2:
        return (padding[0], padding[0], padding[1], padding[1])
    return padding


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa
           groups=1):
    """2-d convolution of NCHW input with weight [out, in/groups, kh, kw]."""
    w = as_tensor(weight)
    if w.ndim != 4:  # (w.shape[0] of a 0-d weight: a bare IndexError)
        raise ValueError(f"For 'conv2d', weight must be 4-D [out, in/groups, kh, kw], but got "
                         f"shape {w.shape}.")
    pad = _conv_pad(pad_mode, padding)
    op = prim("Conv2D", out_channel=w.shape[0], kernel_size=tuple(w.shape[2:]),
              pad_mode=pad_mode, pad=pad, stride=pair(stride), dilation=pair(dilation),
              group=groups)
    out = op(input, w)
    return out if bias is None else _m.bias_add(out, bias)


@constexpr
def _check_rank(shape, rank, name):
    """A ValueError naming `name` unless the input `shape` has `rank` dims."""
    if len(shape) != rank:
        raise ValueError(f"For '{name}', the input must be {rank}-d, but got shape "
                         f"{tuple(shape)}.")


def _transposed_length(cls, size, k, stride, dilation, mode, before, after, out_pad):
    ek = dilation * (k - 1) + 1
    if mode == "same":
        n = size * stride
    elif mode == "valid":
        n = size * stride + max(ek - stride, 0)
    else:
        n = (size - 1) * stride + ek - before - after + out_pad
    if n < 1:
        raise ValueError(f"For '{cls}', the output length must be positive, but got {n} from "
                         f"input length {size}, kernel {k}, stride {stride}, dilation "
                         f"{dilation} and padding ({before}, {after}).")
    return n


@constexpr
def _conv_transpose_shape(shape, out_channels, kernel, stride, dilation, mode, pad, out_pad,
                          cls):
    """The output shape [N, out_channels, Ho, Wo] of a transposed convolution of input `shape`
    [N, C, H, W] (MindSpore's rule, per axis; ek = dilation * (kernel - 1) + 1):

        'same':  H * stride
        'valid': H * stride + max(ek - stride, 0)
        'pad':   (H - 1) * stride + ek - before - after + output_padding

    `pad` is (top, bottom, left, right), `out_pad` (h, w)."""
    _check_rank(shape, 4, cls)
    h = _transposed_length(cls, shape[2], kernel[0], stride[0], dilation[0], mode, pad[0],
                           pad[1], out_pad[0])
    w = _transposed_length(cls, shape[3], kernel[1], stride[1], dilation[1], mode, pad[2],
                           pad[3], out_pad[1])
    return (shape[0], out_channels, h, w)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,  # noqa
           groups=1):
    """1-d convolution of [N, C, L] input with weight [out, in/groups, k] (Conv2D on an
    inserted unit height); padding: an int or (left, right)."""
    x, w = as_tensor(input), as_tensor(weight)
    _check_rank(x.shape, 3, "conv1d")
    _check_rank(w.shape, 3, "conv1d")
    pad = (padding, padding) if isinstance(padding, int) else tuple(padding)
    out = conv2d(x.expand_dims(2), w.expand_dims(2), None, (1, stride), pad_mode,
                 (0, 0) + pad, (1, dilation), groups).squeeze(2)
    return out if bias is None else _m.bias_add(out, bias)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa
                     groups=1, dilation=1):
    """2-d transposed convolution (the input gradient of conv2d) of NCHW input with weight
    [in, out/groups, kh, kw]: output H = (H - 1) * stride - 2 * padding + dilation * (kh - 1)
    + output_padding + 1; padding and output_padding: an int or (h, w)."""
    x, w = as_tensor(input), as_tensor(weight)
    _check_rank(w.shape, 4, "conv_transpose2d")
    ph, pw = pair(padding)
    st, dil, opad = pair(stride), pair(dilation), pair(output_padding)
    if not all(0 <= p < max(s, d) for p, s, d in zip(opad, st, dil)):
        raise ValueError(f"For 'conv_transpose2d', output_padding {output_padding} must be "
                         f"non-negative and smaller than stride {st} or dilation {dil}.")
    ks = tuple(w.shape[2:])
    size = _conv_transpose_shape(x.shape, w.shape[1] * groups, ks, st, dil, "pad",
                                (ph, ph, pw, pw), opad, "conv_transpose2d")
    op = prim("Conv2DBackpropInput", out_channel=w.shape[0], kernel_size=ks, pad_mode="pad",
              pad=(ph, ph, pw, pw), stride=st, dilation=dil, group=groups)
    out = op(x, w, size)
    return out if bias is None else _m.bias_add(out, bias)


def _pool_args(name, kernel_size, stride, padding, ceil_mode):
    ks = pair(kernel_size)
    st = ks if stride is None else pair(stride)
    pad = _conv_pad("pad", padding) if padding else (0, 0, 0, 0)
    mode = "pad" if any(pad) else "valid"
    return dict(kernel_size=ks, strides=st, pad_mode=mode, pad=pad, ceil_mode=ceil_mode)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling over NCHW input (stride defaults to kernel_size)."""
    if dilation not in (1, (1, 1)):
        raise ValueError(f"For 'max_pool2d', only dilation 1 is supported, but got {dilation}.")
    if return_indices:
        raise ValueError("For 'max_pool2d', return_indices=True is not supported; the "
                         "gradient of max pooling is MaxPoolGrad, which needs no indices.")
    return prim("MaxPool", **_pool_args("max_pool2d", kernel_size, stride, padding,
                                        ceil_mode))(x)


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average pooling over NCHW input."""
    if divisor_override is not None:
        raise ValueError("For 'avg_pool2d', divisor_override is not supported.")
    return prim("AvgPool", count_include_pad=count_include_pad,
                **_pool_args("avg_pool2d", kernel_size, stride, padding, ceil_mode))(input_x)


def dropout(input, p=0.5, training=True, seed=None):  # noqa: A002
    """Zeroes elements with probability p and scales the rest by 1/(1-p) when training."""
    if not 0 <= number_arg(p, "dropout", "p") <= 1:
        raise ValueError(f"For 'dropout', p must be in [0, 1], but got {p}.")
    if not training or p == 0:
        return input
    if p == 1:
        return prim("ZerosLike")(input)
    seed0 = 0 if seed is None else int(seed)
    return prim("Dropout", keep_prob=1.0 - p, Seed0=seed0, Seed1=0)(input)[0]


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalisation over the channel axis (1); training updates the running
    statistics in place."""
    return prim("BatchNorm", is_training=training, epsilon=eps, momentum=momentum)(
        input_x, weight, bias, running_mean, running_var)[0]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalises over the trailing dims given by normalized_shape."""
    x = as_tensor(input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = x.ndim - len(shape)
    if weight is None:
        weight = prim("Fill")(x.dtype, shape, 1.0)
    if bias is None:
        bias = prim("Fill")(x.dtype, shape, 0.0)
    return prim("LayerNorm", begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)(
        x, weight, bias)[0]


# ---- losses ------------------------------------------------------------------------------

def _reduce(loss, reduction, name):
    if reduction == "mean":
        return _m.mean(loss)
    if reduction == "sum":
        return _m.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"For '{name}', reduction must be 'mean', 'sum' or 'none', but got "
                     f"{reduction!r}.")


def threshold(input, thr, value):  # noqa: A002
    """input where input > thr, else value (MindSpore's ops.threshold, torch's threshold)."""
    _need_tensor("threshold", "input", input)
    _need_number("threshold", "thr", thr)
    _need_number("threshold", "value", value)
    return _m.select(_m.greater(input, thr), input, _m.mul(prim("OnesLike")(input), value))


def _need_number(op, arg, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For '{op}', '{arg}' must be an int or a float, but got "
                        f"{type(v).__name__}.")


def _need_tensor(op, arg, v):
    if not isinstance(v, _Tensor):
        raise TypeError(f"For '{op}', the '{arg}' must be a Tensor, but got {type(v).__name__}.")


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of class indices `target` under log-probabilities `inputs`
    [N, C]."""
    x, t = as_tensor(inputs), as_tensor(target)
    picked = prim("GatherD")(x, prim("ExpandDims")(t, -1), 1)
    picked = prim("Squeeze", axis=(1,))(picked)
    keep = _m.not_equal(t, ignore_index)
    w = keep.astype(x.dtype)
    if weight is not None:
        safe_t = _m.select(keep, t, 0)
        w = _m.mul(w, prim("Gather")(as_tensor(weight), safe_t, 0))
    loss = _m.neg(_m.mul(picked, w))
    if reduction == "mean":
        return _m.div(_m.sum(loss), _m.sum(w))
    return _reduce(loss, reduction, "nll_loss")


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa
                  label_smoothing=0.0):
    """Cross entropy of logits [N, C] against class indices [N] or probabilities [N, C].
    input, target and weight must be Tensors (a TypeError otherwise, as MindSpore), input a
    floating one."""
    _need_tensor("cross_entropy", "input", input)
    _need_tensor("cross_entropy", "target", target)
    if weight is not None:
        _need_tensor("cross_entropy", "weight", weight)
    if not input.dtype.is_floating_point:
        raise TypeError(f"For 'cross_entropy', the 'input' must be a floating-point Tensor, "
                        f"but got {input.dtype}.")
    x, t = input, target
    logp = log_softmax(x, 1)
    if t.dtype.is_floating_point:  # probabilities
        if label_smoothing:
            t = _m.add(_m.mul(t, 1 - label_smoothing), label_smoothing / x.shape[1])
        if weight is not None:
            t = _m.mul(t, weight)
        return _reduce(_m.neg(_m.sum(_m.mul(logp, t), 1)), reduction, "cross_entropy")
    loss = nll_loss(logp, t, weight, ignore_index, reduction)
    if label_smoothing:
        smooth = _m.neg(_m.mean(logp, 1))
        smooth = _reduce(smooth, reduction, "cross_entropy")
        loss = _m.add(_m.mul(loss, 1 - label_smoothing), _m.mul(smooth, label_smoothing))
    return loss


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    """(input - target)^2, reduced."""
    return _reduce(_m.square(_m.sub(input, target)), reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """|input - target|, reduced."""
    return _reduce(_m.abs(_m.sub(input, target)), reduction, "l1_loss")


def binary_cross_entropy_with_logits(logits, label, weight=None, pos_weight=None,
                                     reduction="mean"):
    """Sigmoid cross entropy, computed stably: max(x,0) - x*y + log(1 + exp(-|x|))."""
    x, y = as_tensor(logits), as_tensor(label)
    if pos_weight is not None:
        lw = _m.add(_m.mul(_m.sub(pos_weight, 1), y), 1)
        loss = _m.add(_m.mul(_m.sub(1, y), x),
                      _m.mul(lw, _m.add(prim("Softplus")(_m.neg(_m.abs(x))),
                                        relu(_m.neg(x)))))
    else:
        loss = _m.add(_m.sub(relu(x), _m.mul(x, y)), prim("Softplus")(_m.neg(_m.abs(x))))
    if weight is not None:
        loss = _m.mul(loss, weight)
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")




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
    return softmax(-x, axis)


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
    y = softmax((x + g) / tau, dim)
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


def _reduce_loss(x, reduction, op):
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
    return _reduce_loss(pos + neg, reduction, "hinge_embedding_loss")


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
    return _reduce_loss(loss, reduction, "MultilabelMarginLoss")


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


@constexpr
def _mirror_plan(shape, paddings, mode):
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'MirrorPad', mode must be 'REFLECT' or 'SYMMETRIC', but got "
                         f"{mode!r}.")
    if isinstance(paddings, _C.Tensor):
        paddings = paddings.asnumpy().tolist()
    pads = [tuple(int(v) for v in p) for p in paddings]
    if len(pads) != len(shape):
        raise ValueError(f"For 'MirrorPad', paddings must have one (before, after) pair per "
                         f"dimension ({len(shape)}), but got {len(pads)}.")
    tables = []
    for n, (lo, hi) in zip(shape, pads):
        lim = n - 1 if mode == "REFLECT" else n
        if lo > lim or hi > lim or lo < 0 or hi < 0:
            raise ValueError(f"For 'MirrorPad', paddings {(lo, hi)} exceed the dimension {n} "
                             f"for mode {mode}.")
        if lo == 0 and hi == 0:
            tables.append(None)
            continue
        i = np.arange(-lo, n + hi)
        if mode == "REFLECT":
            i = np.abs(i)
            i = np.where(i >= n, 2 * (n - 1) - i, i)
        else:
            i = np.where(i < 0, -i - 1, i)
            i = np.where(i >= n, 2 * n - 1 - i, i)
        tables.append(_C.Tensor(i.astype(np.int64)))
    return tuple(tables)


def mirror_pad(input_x, paddings, mode="REFLECT"):
    """input_x padded by reflecting its borders ('REFLECT' leaves the edge out, 'SYMMETRIC'
    repeats it); paddings (rank, 2)."""
    x = _t(input_x, "MirrorPad", "input_x")
    tables = _mirror_plan(x.shape, paddings, mode)
    for ax, t in enumerate(tables):
        if t is not None:
            x = prim("Gather")(x, t, ax)
    return x


def intopk(x1, x2, k):
    """For each row i of x1 [N, C], whether the target class x2[i] is among its k largest
    entries (ties counted in the target's favour; never for non-finite scores)."""
    a, t = _t(x1, "InTopK", "x1"), _t(x2, "InTopK", "x2")
    if a.ndim != 2 or t.ndim != 1 or t.shape[0] != a.shape[0]:
        raise ValueError(f"For 'InTopK', x1 must be (N, C) and x2 (N,), but got {a.shape} and "
                         f"{t.shape}.")
    target = _a.gather_d(a, 1, prim("Reshape")(prim("Cast")(t, _C.int64), (-1, 1)))
    above = prim("ReduceSum")(prim("Cast")(prim("Greater")(a, target), _C.int32), (1,))
    finite = prim("Less")(prim("Abs")(prim("Reshape")(target, (-1,))), float("inf"))
    return prim("LogicalAnd")(prim("Less")(above, int(k)), finite)


def bidense(input1, input2, weight, bias=None):
    """The bilinear map y[..., o] = sum_ij x1[..., i] weight[o, i, j] x2[..., j] + bias[o]."""
    a, b = _t(input1, "bidense", "input1"), _t(input2, "bidense", "input2")
    w = _t(weight, "bidense", "weight")
    if w.ndim != 3:
        raise ValueError(f"For 'bidense', weight must be 3-D (out, in1, in2), but got shape "
                         f"{w.shape}.")
    o, i, j = w.shape
    lead = a.shape[:-1]
    a2 = prim("Reshape")(a, (-1, i))
    b2 = prim("Reshape")(b, (-1, j))
    t = prim("MatMul")(a2, prim("Reshape")(prim("Transpose")(w, (1, 0, 2)), (i, o * j)))
    t = prim("Reshape")(t, (-1, o, j))
    y = prim("ReduceSum")(t * prim("ExpandDims")(b2, 1), (2,))
    if bias is not None:
        y = y + bias
    return prim("Reshape")(y, lead + (o,))


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Sums the sliding blocks of input_x (N, C, kh * kw, L) back into (N, C, H, W) (fold of
    (N, C * kh * kw, L)); output_size (H, W) as a tuple or a 1-D int tensor."""
    x = _t(input_x, "col2im", "input_x")
    if x.ndim != 4:
        raise ValueError(f"For 'col2im', input_x must be 4-D (N, C, kh * kw, L), but got shape "
                         f"{x.shape}.")
    size = _pair_of(output_size)
    folded = prim("Reshape")(x, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3]))
    return fold(folded, size, kernel_size, dilation, padding_value, stride)


@constexpr
def _pair_of(v):
    if isinstance(v, _C.Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    v = (v, v) if isinstance(v, int) else tuple(int(e) for e in v)
    if len(v) != 2:
        raise ValueError(f"For 'col2im', output_size must have 2 elements, but got {v!r}.")
    return v


def swiglu(input, dim=-1):  # noqa: A002
    """silu(a) * b, a and b the halves of input along dim."""
    x = _t(input, "swiglu")
    ax, h = _half(x.shape, dim, "swiglu")
    return prim("SiLU")(narrow(x, ax, 0, h)) * narrow(x, ax, h, h)


@constexpr
def _unfold_plan(op, shape, kernel_size, dilation, padding, stride):
    def pair(v, name):
        v = (v, v) if isinstance(v, int) and not isinstance(v, bool) else v
        if not isinstance(v, (tuple, list)) or len(v) != 2 or \
                any(isinstance(e, bool) or not isinstance(e, int) for e in v):
            raise TypeError(f"For '{op}', {name} must be an int or two ints, but got {v!r}.")
        return tuple(v)
    k, d, p, s = (pair(kernel_size, "kernel_size"), pair(dilation, "dilation"),
                  pair(padding, "padding"), pair(stride, "stride"))
    if len(shape) != 4:
        raise ValueError(f"For '{op}', the input must be 4-D (N, C, H, W), but got shape "
                         f"{tuple(shape)}.")
    if min(k) < 1 or min(d) < 1 or min(s) < 1 or min(p) < 0:
        raise ValueError(f"For '{op}', kernel_size, dilation and stride must be >= 1 and "
                         f"padding >= 0, but got {k}, {d}, {s} and {p}.")
    out = tuple((shape[2 + a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) // s[a] + 1 for a in (0, 1))
    if min(out) < 1:
        raise ValueError(f"For '{op}', the kernel {k} with dilation {d} does not fit the input "
                         f"of shape {tuple(shape)} padded by {p}.")
    starts = tuple((i * d[0], j * d[1]) for i in range(k[0]) for j in range(k[1]))
    return k, s, p, out, starts


def unfold_blocks(op, x, kernel_size, dilation, padding, stride):
    """The sliding blocks of x (N, C, H, W) as (N, C, kh * kw, L): block element (i, j) of
    the block at output position (r, c) is x[n, ch, r * sh + i * dh - ph, c * sw + j * dw - pw]
    (0 in the padding); L = oh * ow positions in row-major order."""
    k, s, p, out, starts = _unfold_plan(op, x.shape, kernel_size, dilation, padding, stride)
    if p[0] or p[1]:
        x = _a.pad(x, (p[1], p[1], p[0], p[0]))
    n, c = x.shape[0], x.shape[1]
    cols = ()
    for a, b in starts:
        piece = _a.strided_slice(x, (0, 0, a, b),
                                 (n, c, a + (out[0] - 1) * s[0] + 1, b + (out[1] - 1) * s[1] + 1),
                                 (1, 1, s[0], s[1]))
        cols = cols + (piece,)
    blocks = _a.stack(cols, 2)  # (N, C, kh * kw, oh, ow)
    return _a.reshape(blocks, (n, c, k[0] * k[1], out[0] * out[1]))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The sliding blocks of a 4-D input (N, C, H, W) as columns (N, C * kh * kw, L), L the
    number of block positions (im2col; torch.nn.functional.unfold). Each of kernel_size,
    dilation, padding and stride is an int or a pair (height, width)."""
    x = as_tensor(input)
    cols = unfold_blocks("unfold", x, kernel_size, dilation, padding, stride)
    return _a.reshape(cols, (cols.shape[0], cols.shape[1] * cols.shape[2], cols.shape[3]))
