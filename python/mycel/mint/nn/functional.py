"""``mindspore.mint.nn.functional``: PyTorch-style functional layers composed from mycel's
ops (no new kernels; both modes and gradients come from the ops used). Argument names and
defaults are PyTorch's (``dim``, ``negative_slope``, ``padding`` as numbers, ``num_classes``).
The in-place forms (``relu_``, ``hardtanh_``) write into their input with Assign, as mycel's
in-place Tensor methods do (python/mycel/common/_inplace.py): no gradient flows through the
write."""
from mycel import _mycel as _C
from mycel import ops as _ops

__all__ = ["relu", "relu_", "relu6", "gelu", "silu", "sigmoid", "tanh", "elu", "selu", "mish",
           "softplus", "softsign", "hardswish", "hardsigmoid", "hardtanh", "hardtanh_",
           "leaky_relu", "logsigmoid", "softmax", "log_softmax", "dropout", "linear", "conv2d",
           "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "layer_norm", "group_norm",
           "batch_norm", "embedding", "one_hot", "pad", "interpolate", "normalize",
           "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"]

relu = _ops.relu
relu6 = _ops.relu6
silu = _ops.silu
sigmoid = _ops.sigmoid
tanh = _ops.tanh
selu = _ops.selu
mish = _ops.mish
softsign = _ops.softsign
hardswish = _ops.hardswish
hardsigmoid = _ops.hardsigmoid
adaptive_avg_pool2d = _ops.adaptive_avg_pool2d
interpolate = _ops.interpolate


def relu_(input):  # noqa: A002
    """relu(input) written into input."""
    return input.copy_(_ops.relu(input))


def gelu(input, approximate="none"):  # noqa: A002
    """GELU; approximate "tanh" uses the tanh approximation."""
    return _ops.gelu(input, approximate)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    out = _ops.elu(input, alpha)
    return input.copy_(out) if inplace else out


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """log(1 + exp(beta x)) / beta, x itself where beta x > threshold."""
    return _ops.softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """input clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError(f"For 'hardtanh', min_val ({min_val}) must not exceed max_val "
                         f"({max_val}).")
    return _ops.clamp(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    """hardtanh(input) written into input."""
    return input.copy_(hardtanh(input, min_val, max_val))


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    """x where x >= 0, negative_slope * x elsewhere."""
    out = _ops.where(_ops.ge(input, 0), input, _ops.mul(input, negative_slope))
    return input.copy_(out) if inplace else out


def logsigmoid(input):  # noqa: A002
    """log(sigmoid(x)) = -softplus(-x)."""
    return _ops.neg(_ops.softplus(_ops.neg(input)))


def softmax(input, dim=None, dtype=None):  # noqa: A002
    """softmax along dim (the last when None)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.softmax(input, -1 if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):  # noqa: A002
    """log(softmax) along dim (the last when None)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.log_softmax(input, -1 if dim is None else dim)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p) when
    training; input itself otherwise."""
    if not training or p == 0:
        return input
    out = _ops.dropout(input, p, True)
    return input.copy_(out) if inplace else out


def linear(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias (weight: [out, in])."""
    return _ops.dense(input, weight, bias)


def _pair_padding(padding):
    """conv2d's padding (int, pair, "same", "valid") as ops.conv2d's (pad_mode, padding)."""
    if isinstance(padding, str):
        return padding, 0
    if isinstance(padding, (tuple, list)):
        return "pad", (padding[0], padding[0], padding[1], padding[1])
    return "pad", padding


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-D convolution of NCHW input by weight [out, in / groups, kh, kw]."""
    mode, pad = _pair_padding(padding)
    return _ops.conv2d(input, weight, bias, stride, mode, pad, dilation, groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """2-D max pooling (stride defaults to kernel_size)."""
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                           return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """2-D average pooling (stride defaults to kernel_size)."""
    return _ops.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad, divisor_override)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalizes over the trailing normalized_shape dims, then weight * x + bias."""
    return _ops.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalizes each of num_groups channel groups of (N, C, ...) input over its channels
    and positions (biased variance), then weight[c] * x + bias[c]."""
    shape = input.shape
    n, c = shape[0], shape[1]
    if c % num_groups != 0:
        raise ValueError(f"For 'group_norm', the channels ({c}) must be divisible by "
                         f"num_groups ({num_groups}).")
    x = _ops.reshape(input, (n, num_groups, -1))
    mean = _ops.mean(x, -1, True)
    var = _ops.mean(_ops.square(_ops.sub(x, mean)), -1, True)
    x = _ops.reshape(_ops.div(_ops.sub(x, mean), _ops.sqrt(_ops.add(var, eps))), shape)
    affine_shape = (c,) + (1,) * (len(shape) - 2)
    if weight is not None:
        x = _ops.mul(x, _ops.reshape(weight, affine_shape))
    if bias is not None:
        x = _ops.add(x, _ops.reshape(bias, affine_shape))
    return x


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):
    """Batch normalization over the channels (dim 1), with batch statistics when training
    (running statistics updated with PyTorch's momentum)."""
    return _ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False):
    """The rows of weight at the indices input."""
    if max_norm is not None or scale_grad_by_freq:
        raise ValueError("For 'embedding', max_norm and scale_grad_by_freq are not supported.")
    return _ops.gather(weight, input, 0)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot rows of the class indices tensor (num_classes: max + 1 when -1)."""
    if num_classes == -1:
        num_classes = int(_ops.amax(tensor).asnumpy()) + 1
    return _ops.one_hot(tensor, num_classes, 1, 0, -1).astype(_C.int64)


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """input padded by pad = (last dim before, after, previous dim before, after, ...)."""
    return _ops.pad(input, pad, mode, value)


def normalize(input, p=2.0, dim=1, eps=1e-12):  # noqa: A002
    """input / max(||input||_p along dim, eps)."""
    n = _ops.pow(_ops.sum(_ops.pow(_ops.abs(input), p), dim, True), 1.0 / p)
    return _ops.div(input, _ops.maximum(n, eps))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """Cross entropy of logits input against class indices or probabilities target."""
    return _ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):  # noqa: A002
    """Negative log-likelihood of log-probabilities input at the class indices target."""
    return _ops.nll_loss(input, target, weight, ignore_index, reduction)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    """(input - target)^2, reduced."""
    return _ops.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """|input - target|, reduced."""
    return _ops.l1_loss(input, target, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):  # noqa: A002
    """Huber-like loss with the quadratic part below beta, reduced."""
    return _ops.smooth_l1_loss(input, target, beta, reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):  # noqa: A002
    """-(t log p + (1 - t) log(1 - p)) of probabilities input, reduced."""
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",  # noqa: A002
                                     pos_weight=None):
    """binary_cross_entropy of sigmoid(input), computed stably."""
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, reduction="mean", log_target=False):  # noqa: A002
    """KL divergence of target from the log-probabilities input, reduced."""
    return _ops.kl_div(input, target, reduction, log_target)


hardshrink = _ops.hardshrink
pixel_shuffle = _ops.pixel_shuffle
adaptive_max_pool2d = _ops.adaptive_max_pool2d
adaptive_avg_pool1d = _ops.adaptive_avg_pool1d


def glu(input, dim=-1):  # noqa: A002
    """a * sigmoid(b), a and b the two halves of input along dim (its size must be even)."""
    n = input.shape[dim]
    if n % 2 != 0:
        raise ValueError(f"For 'glu', the size of dim {dim} must be even, but got {n}.")
    a = _ops.narrow(input, dim, 0, n // 2)
    b = _ops.narrow(input, dim, n // 2, n // 2)
    return _ops.mul(a, _ops.sigmoid(b))


def prelu(input, weight):  # noqa: A002
    """max(0, x) + weight * min(0, x), weight of one value or one per channel (dim 1)."""
    w = weight
    if len(input.shape) >= 2 and weight.shape[0] != 1:
        w = _ops.reshape(weight, (weight.shape[0],) + (1,) * (len(input.shape) - 2))
    return _ops.where(_ops.gt(input, 0), input, _ops.mul(input, w))


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-D convolution of NCL input by weight [out, in / groups, k]; padding an int, "same"
    or "valid"."""
    if isinstance(padding, str):
        return _ops.conv1d(input, weight, bias, stride, padding, 0, dilation, groups)
    if isinstance(padding, (tuple, list)):
        padding = padding[0]
    return _ops.conv1d(input, weight, bias, stride, "pad", padding, dilation, groups)


__all__ += ["hardshrink", "pixel_shuffle", "adaptive_max_pool2d", "adaptive_avg_pool1d", "glu",
            "prelu", "conv1d"]
