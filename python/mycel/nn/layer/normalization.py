"""Normalization layers (MindSpore 2.x ``mindspore.nn``): BatchNorm1d, BatchNorm2d, LayerNorm,
GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d.

BatchNorm keeps MindSpore's parameters and their roles: gamma and beta (trainable when
affine), moving_mean and moving_variance (requires_grad=False). MindSpore's momentum is the
weight of the old statistics, moving = momentum * moving + (1 - momentum) * batch (default
0.9); the BatchNorm op's attribute is the weight of the batch, as PyTorch's momentum, so the
layer passes 1 - momentum. In training (set_train(), or use_batch_statistics=True) the op
normalises with the batch statistics and updates the moving ones in place, with the
unbiased batch variance; this works in GRAPH mode too, where Parameters are graph inputs
sharing their storage. In evaluation it normalises with the moving statistics.

Under Cell.to_float(float16) BatchNorm casts its input but keeps its parameters: the op
takes a half-precision input with float32 parameters (and returns the input's dtype), and
must update the float32 moving statistics themselves, not cast copies.

GroupNorm and InstanceNorm normalise each sample on its own: the input [N, C, *] is viewed
as [N, G, C/G * prod(*)] (G = num_groups; G = C for InstanceNorm) and the LayerNorm op
normalises the last axis (biased variance), then gamma and beta [C] scale and shift each
channel. Both use these per-sample statistics in training and in evaluation alike.
InstanceNorm keeps MindSpore's moving_mean and moving_variance Parameters (named 'mean' and
'variance', requires_grad=False) so checkpoints carry over, but as in MindSpore (whose
InstanceNorm op updates a scratch copy of them) they are never updated nor read.
"""
import numbers

from mycel import _mycel as _C
from mycel.common.initializer import initializer
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


def _real(value, name, cls, low, high, low_open):
    """A float in [low, high] (low excluded when low_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}.")
    if not (low < value if low_open else low <= value) or value > high:
        interval = f"{'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"For '{cls}', '{name}' must be in {interval}, but got {value}.")
    return float(value)


def check_channels(shape, ranks, channels, cls, name="num_features"):
    """A ValueError unless the input [N, C, ...] has one of `ranks` dims (None: at least 2)
    and C = channels (the argument `name`). Called from constexpr helpers."""
    if (ranks is None and len(shape) < 2) or (ranks is not None and len(shape) not in ranks):
        want = "at least 2-d" if ranks is None else " or ".join(f"{r}-d" for r in ranks)
        raise ValueError(f"For '{cls}', the input must be {want}, but got shape {shape}.")
    if shape[1] != channels:
        raise ValueError(f"For '{cls}', the input's channel dimension (shape[1] = {shape[1]}) "
                         f"must equal {name} ({channels}); input shape {shape}.")


@constexpr
def _bn_shape4(shape, ranks, num_features, cls):
    """Checks the input's rank and channel count; the 4-d shape the BatchNorm op computes in
    ([N, C, L, 1] for [N, C, L]; [N, C, D * H, W] for [N, C, D, H, W]: the statistics are
    per channel either way), or None for a 4-d input."""
    check_channels(shape, ranks, num_features, cls)
    if len(shape) == 3:
        return tuple(shape) + (1,)
    if len(shape) == 5:
        return (shape[0], shape[1], shape[2] * shape[3], shape[4])
    return None


class _BatchNorm(Cell):
    """Batch normalisation over axis 1 of the input (the channels)."""

    _ranks = ()
    _to_float_params = False  # the op updates moving_mean/moving_variance in place

    # MindSpore's signature and defaults, shared by BatchNorm1d and BatchNorm2d.
    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=_C.float32):
        super().__init__()
        cls = type(self).__name__
        self.num_features = _check.positive_int(num_features, "num_features", cls)
        self.eps = _real(eps, "eps", cls, 0.0, float("inf"), True)
        self.momentum = _real(momentum, "momentum", cls, 0.0, 1.0, False)
        self.affine = _check.bool_(affine, "affine", cls)
        if use_batch_statistics is not None:
            _check.bool_(use_batch_statistics, "use_batch_statistics", cls)
        self.use_batch_statistics = use_batch_statistics
        self.data_format = _check.data_format(data_format, cls)
        shape = (self.num_features,)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=affine)
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dtype),
                                     name="moving_mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dtype),
                                         name="moving_variance", requires_grad=False)
        self.bn_train = prim("BatchNorm", is_training=True, epsilon=self.eps,
                             momentum=1.0 - self.momentum)
        self.bn_infer = prim("BatchNorm", is_training=False, epsilon=self.eps)
        self.reshape = prim("Reshape")

    def construct(self, x):
        shape = x.shape
        shape4 = _bn_shape4(shape, self._ranks, self.num_features, type(self).__name__)
        if shape4 is not None:
            x = self.reshape(x, shape4)
        use_batch = self.use_batch_statistics
        if use_batch is None:
            use_batch = self.training
        if use_batch:
            y = self.bn_train(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        else:
            y = self.bn_infer(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        if shape4 is not None:
            y = self.reshape(y, shape)
        return y

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of [N, C] or [N, C, L] input: statistics over every axis but C.

    y = gamma * (x - mean) / sqrt(var + eps) + beta, with the batch's (biased) statistics in
    training and moving_mean / moving_variance in evaluation; use_batch_statistics=True or
    False forces one of the two whatever the training flag."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of [N, C, H, W] input: statistics over N, H and W per channel
    (see BatchNorm1d for the formula, the modes and the momentum convention)."""

    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of [N, C, D, H, W] input: statistics over N, D, H and W per channel
    (computed as BatchNorm2d over [N, C, D * H, W]; see BatchNorm1d for the formula)."""

    _ranks = (5,)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=_C.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, "NCHW", dtype)


class LayerNorm(Cell):
    """Layer normalisation: y = gamma * (x - mean) / sqrt(var + epsilon) + beta, with the mean
    and (biased) variance over the axes begin_norm_axis..-1 of each sample.

    gamma and beta have shape normalized_shape, which must be x.shape[begin_params_axis:]
    (with the defaults, -1 and -1: the last axis, as PyTorch's LayerNorm(C)). The parameters
    are cast to the input's dtype, as MindSpore does."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=_C.float32):
        super().__init__()
        cls = "LayerNorm"
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For '{cls}', normalized_shape must be a tuple or a list of ints, "
                            f"but got {type(normalized_shape).__name__}.")
        self.normalized_shape = tuple(_check.positive_int(d, "normalized_shape", cls)
                                      for d in normalized_shape)
        for name, v in (("begin_norm_axis", begin_norm_axis),
                        ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"For '{cls}', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
        self.begin_norm_axis, self.begin_params_axis = int(begin_norm_axis), int(begin_params_axis)
        self.epsilon = _real(epsilon, "epsilon", cls, 0.0, float("inf"), True)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype),
                               name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), name="beta")
        self.layer_norm = prim("LayerNorm", begin_norm_axis=self.begin_norm_axis,
                               begin_params_axis=self.begin_params_axis, epsilon=self.epsilon)

    def construct(self, input_x):
        y, _, _ = self.layer_norm(input_x, self.gamma.astype(input_x.dtype),
                                  self.beta.astype(input_x.dtype))
        return y

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, "
                f"begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, epsilon={self.epsilon}")


@constexpr
def _group_shapes(shape, num_channels, num_groups, ranks, cls):
    """Checks the input [N, C, *] (its rank one of `ranks`, None: any rank >= 2, and C =
    num_channels); gives ([N, G, -1], the shape gamma/beta [C] broadcast as: (C, 1, ...))."""
    check_channels(shape, ranks, num_channels, cls,
                   "num_channels" if cls == "GroupNorm" else "num_features")
    return (shape[0], num_groups, -1), (num_channels,) + (1,) * (len(shape) - 2)


@constexpr
def _norm_axis_shape(shape):
    return (shape[-1],)


class _GroupStatsNorm(Cell):
    """y = (x - mean) / sqrt(var + eps) * gamma + beta with the statistics of each sample's
    group of channels (see the module docstring)."""

    _ranks = None

    def _init_norm(self, num_channels, num_groups, eps, affine, gamma_init, beta_init, dtype):
        cls = type(self).__name__
        self.eps = _real(eps, "eps", cls, 0.0, float("inf"), True)
        self.affine = _check.bool_(affine, "affine", cls)
        self._channels, self._groups = num_channels, num_groups
        shape = (num_channels,)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta",
                              requires_grad=affine)
        self.layer_norm = prim("LayerNorm", begin_norm_axis=-1, begin_params_axis=-1,
                               epsilon=self.eps)
        self.reshape = prim("Reshape")
        self.fill = prim("Fill")

    def construct(self, x):
        shape = x.shape
        grouped, param_shape = _group_shapes(shape, self._channels, self._groups, self._ranks,
                                             type(self).__name__)
        g = self.reshape(x, grouped)
        ones_shape = _norm_axis_shape(g.shape)
        y, _, _ = self.layer_norm(g, self.fill(x.dtype, ones_shape, 1.0),
                                  self.fill(x.dtype, ones_shape, 0.0))
        y = self.reshape(y, shape)
        gamma = self.reshape(self.gamma.astype(x.dtype), param_shape)
        beta = self.reshape(self.beta.astype(x.dtype), param_shape)
        return y * gamma + beta


class GroupNorm(_GroupStatsNorm):
    """Group normalisation of [N, C, *] input: the C = num_channels channels are split into
    num_groups groups (num_groups must divide num_channels) and each sample's group is
    normalised with its own mean and (biased) variance; gamma and beta [num_channels] then
    scale and shift each channel (trainable when affine). The same in training and
    evaluation."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=_C.float32):
        super().__init__()
        cls = "GroupNorm"
        self.num_groups = _check.positive_int(num_groups, "num_groups", cls)
        self.num_channels = _check.positive_int(num_channels, "num_channels", cls)
        if self.num_channels % self.num_groups:
            raise ValueError(f"For '{cls}', num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups}).")
        self._init_norm(self.num_channels, self.num_groups, eps, affine, gamma_init, beta_init,
                        dtype)

    def extend_repr(self):
        return (f"num_groups={self.num_groups}, num_channels={self.num_channels}, "
                f"eps={self.eps}, affine={self.affine}")


class _InstanceNorm(_GroupStatsNorm):
    """Instance normalisation: each sample's channel normalised on its own (GroupNorm with one
    channel per group), in training and evaluation alike."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=_C.float32):
        super().__init__()
        cls = type(self).__name__
        self.num_features = _check.positive_int(num_features, "num_features", cls)
        self.momentum = _real(momentum, "momentum", cls, 0.0, 1.0, False)
        self._init_norm(self.num_features, self.num_features, eps, affine, gamma_init,
                        beta_init, dtype)
        shape = (self.num_features,)
        self.moving_mean = Parameter(initializer("zeros", shape, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", shape, dtype), name="variance",
                                         requires_grad=False)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of [N, C, L] input: y = (x - mean) / sqrt(var + eps) * gamma +
    beta with the mean and (biased) variance over L of each sample and channel, in training
    and evaluation alike; gamma and beta [C] are trainable when affine. momentum is kept for
    MindSpore's signature (the moving statistics are not used; see the module docstring)."""

    _ranks = (3,)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of [N, C, H, W] input: statistics over H and W of each sample
    and channel (see InstanceNorm1d)."""

    _ranks = (4,)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of [N, C, D, H, W] input: statistics over D, H and W of each
    sample and channel (see InstanceNorm1d)."""

    _ranks = (5,)


__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d"]
