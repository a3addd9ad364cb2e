"""``mindspore.mint.nn``: layers with PyTorch's constructor arguments, each a subclass of the
mycel.nn layer that computes it (so parameters, checkpoints and both modes are the same):
``Linear(in_features, out_features, bias=True)`` is ``nn.Dense``, ``Conv2d(..., padding=0,
groups=1, bias=True)`` is ``nn.Conv2d`` with pad_mode "pad", ``BatchNorm2d(momentum=0.1)``
passes MindSpore's momentum 1 - 0.1, ``LayerNorm(eps=1e-5, elementwise_affine=True)``,
``Dropout(p)``, ``Embedding(num_embeddings, embedding_dim)``, ``LeakyReLU(negative_slope)``,
``Softmax(dim)``, ``GELU(approximate="none")``; ``GroupNorm`` and ``LayerNorm`` hold
PyTorch's ``weight`` and ``bias`` Parameters (mycel.nn's hold MindSpore's gamma and beta); the layers whose arguments already agree are
mycel.nn's own (ReLU, SiLU, Sigmoid, Tanh, Flatten, Hardtanh, MSELoss, L1Loss,
CrossEntropyLoss, BCEWithLogitsLoss, AdaptiveAvgPool2d, Upsample, SequentialCell, CellList).
``mint.nn.functional`` holds the functional forms."""
from mycel import nn as _nn
from mycel.mint.nn import functional  # noqa: F401
from mycel.nn.cell import Cell as _Cell

# The same arguments as PyTorch's.
from mycel.nn import (ReLU, SiLU, Sigmoid, Tanh, Flatten, Hardtanh, MSELoss,  # noqa: F401
                      L1Loss, CrossEntropyLoss, BCEWithLogitsLoss, AdaptiveAvgPool2d, Upsample,
                      SequentialCell, CellList, ELU, Mish)

# the N-d padding cells (nn/layer/padding_nd.py), torch's arguments
from mycel.nn.layer.padding_nd import (ConstantPad1d, ConstantPad2d, ConstantPad3d,  # noqa: F401,E402
                                       ZeroPad1d, ZeroPad2d, ZeroPad3d, ReflectionPad1d,
                                       ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
                                       ReplicationPad2d, ReplicationPad3d)

Sequential = SequentialCell
ModuleList = CellList


class Linear(_nn.Dense):
    """y = x @ weight.T + bias; weight [out_features, in_features]."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        kw = {} if dtype is None else {"dtype": dtype}
        super().__init__(in_features, out_features, weight_init, bias_init, bias, **kw)
        self.in_features, self.out_features = in_features, out_features


class Conv2d(_nn.Conv2d):
    """2-D convolution with PyTorch's arguments: padding an int, a pair, "same" or "valid";
    bias on by default; padding_mode "zeros" only."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f"For 'mint.nn.Conv2d', padding_mode '{padding_mode}' is not "
                             f"supported (only 'zeros').")
        mode, pad = functional._pair_padding(padding)
        kw = {} if dtype is None else {"dtype": dtype}
        super().__init__(in_channels, out_channels, kernel_size, stride, mode, pad, dilation,
                         groups, bias, **kw)


class BatchNorm2d(_nn.BatchNorm2d):
    """Batch normalization of NCHW input; momentum is PyTorch's (the weight of the batch)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        kw = {} if dtype is None else {"dtype": dtype}
        super().__init__(num_features, eps, 1.0 - momentum, affine,
                         use_batch_statistics=None if track_running_stats else True, **kw)


class BatchNorm1d(_nn.BatchNorm1d):
    """Batch normalization of [N, C] or [N, C, L] input; PyTorch's momentum."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        kw = {} if dtype is None else {"dtype": dtype}
        super().__init__(num_features, eps, 1.0 - momentum, affine,
                         use_batch_statistics=None if track_running_stats else True, **kw)


def _affine(shape, dtype, affine, bias=True):
    """(weight, bias) Parameters of `shape` (ones, zeros), None where not affine."""
    from mycel import _mycel as _C
    from mycel.common.initializer import initializer
    from mycel.common.parameter import Parameter
    dt = dtype or _C.float32
    w = Parameter(initializer("ones", shape, dt), "weight") if affine else None
    b = Parameter(initializer("zeros", shape, dt), "bias") if affine and bias else None
    return w, b


class GroupNorm(_Cell):
    """Normalizes each of num_groups groups of the channels of (N, C, ...) input over the
    group's channels and positions, then weight[c] * x + bias[c] when affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"For 'mint.nn.GroupNorm', num_channels ({num_channels}) must be "
                             f"divisible by num_groups ({num_groups}).")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight, self.bias = _affine((num_channels,), dtype, affine)

    def construct(self, x):
        return functional.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class LayerNorm(_Cell):
    """Normalizes over the trailing normalized_shape dims; weight and bias of that shape when
    elementwise_affine."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.weight, self.bias = _affine(self.normalized_shape, dtype, elementwise_affine, bias)

    def construct(self, x):
        return functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class Dropout(_nn.Dropout):
    """Zeroes elements with probability p in training."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__(p=p)


class Embedding(_nn.Embedding):
    """A table of num_embeddings rows of embedding_dim, looked up by index."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx=padding_idx)


class LeakyReLU(_nn.LeakyReLU):
    """x where x >= 0, negative_slope * x elsewhere."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(negative_slope)


class Softmax(_nn.Softmax):
    """softmax along dim."""

    def __init__(self, dim=None):
        super().__init__(-1 if dim is None else dim)


class GELU(_nn.GELU):
    """GELU, exact unless approximate="tanh"."""

    def __init__(self, approximate="none"):
        super().__init__(approximate=approximate == "tanh")


class Identity(_Cell):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


class MaxPool2d(_Cell):
    """2-D max pooling; stride defaults to kernel_size."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.args = (kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    def construct(self, x):
        k, s, p, d, c, r = self.args
        return functional.max_pool2d(x, k, s, p, d, c, r)


class AvgPool2d(_Cell):
    """2-D average pooling; stride defaults to kernel_size."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.args = (kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)

    def construct(self, x):
        k, s, p, c, i, d = self.args
        return functional.avg_pool2d(x, k, s, p, c, i, d)


from mycel.nn import BCELoss, KLDivLoss  # noqa: E402,F401  (PyTorch's arguments)


class GLU(_Cell):
    """a * sigmoid(b) of the two halves of the input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def construct(self, x):
        return functional.glu(x, self.dim)


class PReLU(_Cell):
    """max(0, x) + weight * min(0, x); weight: num_parameters values (1, or one per channel)
    initialised to init."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        from mycel import _mycel as _C
        from mycel.common.initializer import initializer
        from mycel.common.parameter import Parameter
        self.weight = Parameter(initializer(init, (num_parameters,), dtype or _C.float32),
                                "weight")

    def construct(self, x):
        return functional.prelu(x, self.weight)


class Conv1d(_nn.Conv1d):
    """1-D convolution with PyTorch's arguments: padding an int, "same" or "valid"; bias on
    by default; padding_mode "zeros" only."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f"For 'mint.nn.Conv1d', padding_mode '{padding_mode}' is not "
                             f"supported (only 'zeros').")
        mode, pad = (padding, 0) if isinstance(padding, str) else ("pad", padding)
        kw = {} if dtype is None else {"dtype": dtype}
        super().__init__(in_channels, out_channels, kernel_size, stride, mode, pad, dilation,
                         groups, bias, **kw)
