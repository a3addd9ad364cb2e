"""Neural-network functions: activations, softmax, convolution, pooling, normalisation,
dropout and losses (MindSpore 2.x names and arguments)."""
from mycel.ops.function._util import prim, pair, as_tensor, number_arg
from mycel.ops.primitive import constexpr
from mycel.ops.function import math_func as _m
from mycel._mycel import Tensor as _Tensor

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
    """exp(input) / sum(exp(input)) along axis."""
    if not isinstance(axis, (int, tuple, list)):  # (tuple() of it named no op)
        raise TypeError(f"For 'softmax', axis must be an int or a tuple of ints, but got "
                        f"{type(axis).__name__}.")
    return prim("Softmax", axis=(axis,) if isinstance(axis, int) else tuple(axis))(input)


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


