"""Weight initializers, MindSpore 2.x's ``mindspore.common.initializer``.

``initializer(init, shape, dtype)`` returns a Tensor of `shape` filled by `init`: an
Initializer instance (``Normal(sigma=0.01)``, ``HeUniform(math.sqrt(5))``, ...), its
registered name ('normal', 'zeros', 'ones', 'he_uniform', 'xavier_uniform', ...: the class
name in lower case and its aliases), a number (a Constant) or a Tensor (copied; its shape must
be `shape`). Unlike MindSpore the tensor is filled at once (MindSpore defers the fill to the
first use); the values have the same distribution.

Random initializers draw from mycel's global generator (the UniformReal and StandardNormal
ops), so ``mycel.set_seed(s)`` makes a network's initial weights reproducible.

Fans follow MindSpore (and PyTorch): for a 2-d shape [out, in] fan_in = in, fan_out = out;
for a conv weight [out, in/group, kh, kw] fan_in = in/group * kh * kw and fan_out = out * kh
* kw. The He/Kaiming gain for 'leaky_relu' with slope a is sqrt(2 / (1 + a^2)), so
HeUniform(math.sqrt(5)) -- the default weight init of nn.Dense and nn.Conv2d in MindSpore 2.x
-- is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), the same as PyTorch's default.
"""
import math
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.common.dtype import dtype_to_nptype

_INITIALIZER_ALIAS = {}


def _register(*aliases):
    """Registers a class under its lower-case name and `aliases` (MindSpore's _register)."""
    def wrap(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _INITIALIZER_ALIAS[name] = cls
        return cls
    return wrap


def _check_shape(shape):
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"For 'initializer', the shape must be an int or a tuple/list of ints, "
                        f"but got {shape!r}.")
    if any(d < 0 for d in shape):
        raise ValueError(f"For 'initializer', the shape must not contain negative values, but "
                         f"got {tuple(shape)}.")
    return tuple(int(d) for d in shape)


def _calculate_fan_in_and_fan_out(shape):
    """(fan_in, fan_out) of a weight shape; needs at least 2 dimensions."""
    if len(shape) < 2:
        raise ValueError(f"'fan_in' and 'fan_out' can not be computed for tensor with fewer "
                         f"than 2 dimensions, but got dimensions {len(shape)}.")
    receptive = 1
    for d in shape[2:]:
        receptive *= d
    return shape[1] * receptive, shape[0] * receptive


def _calculate_gain(nonlinearity, param=None):
    """The recommended gain of a nonlinearity (torch.nn.init.calculate_gain's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, numbers.Real):
            raise ValueError(f"For 'HeUniform'/'HeNormal', negative_slope must be a number, "
                             f"but got {slope!r}.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity!r}: expected one of 'linear', "
                     f"'conv2d', 'sigmoid', 'tanh', 'relu', 'leaky_relu', 'selu'.")


def _fan(shape, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', but got {mode!r}.")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


def _uniform(shape, low, high):
    u = _C.OpHandle("UniformReal", {})(shape).asnumpy().astype(np.float64)
    return low + (high - low) * u


def _normal(shape, mean, sigma):
    return mean + sigma * _C.OpHandle("StandardNormal", {})(shape).asnumpy().astype(np.float64)


def _assignment(arr, num):
    """Fills the numpy array `arr` with `num` (a number or an array of its shape) in place and
    returns it: MindSpore's helper for Initializer subclasses (``_assignment(arr, 2)``)."""
    arr[...] = num
    return arr


class Initializer:
    """Base class of the initializers. A subclass written as MindSpore's implements
    ``_initialize(self, arr)``, filling the numpy array `arr` (of the target shape and
    dtype) in place (``_assignment`` helps); mycel's own initializers, the classes of this
    module, return their values from ``_initialize(shape)`` instead."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, shape):
        raise NotImplementedError

    def _values(self, shape, np_dtype=np.float64):
        """The values for `shape`, by either convention of _initialize."""
        if getattr(type(self)._initialize, "__module__", None) == __name__:
            return self._initialize(shape)
        arr = np.zeros(shape, np_dtype)
        self._initialize(arr)  # (MindSpore's convention: fills arr; a return value is unused)
        return arr

    def __call__(self, arr):
        """Fills the numpy array `arr` in place (MindSpore's Initializer.__call__)."""
        arr[...] = self._values(tuple(arr.shape), arr.dtype)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


@_register("zeros")
class Zero(Initializer):
    """All zeros."""

    def _initialize(self, shape):
        return np.zeros(shape)


@_register("ones")
class One(Initializer):
    """All ones."""

    def _initialize(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    """All `value`."""

    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            raise TypeError(f"For 'Constant', value must be a number, but got "
                            f"{type(value).__name__}.")
        super().__init__(value=value)
        self.value = value

    def _initialize(self, shape):
        return np.full(shape, self.value)


@_register()
class Normal(Initializer):
    """N(mean, sigma^2); MindSpore's default sigma is 0.01."""

    def __init__(self, sigma=0.01, mean=0.0):
        if sigma < 0:
            raise ValueError(f"For 'Normal', sigma must be non-negative, but got {sigma}.")
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, shape):
        return _normal(shape, self.mean, self.sigma)


@_register()
class Uniform(Initializer):
    """U(-scale, scale); MindSpore's default scale is 0.07."""

    def __init__(self, scale=0.07):
        if scale < 0:
            raise ValueError(f"For 'Uniform', scale must be non-negative, but got {scale}.")
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, shape):
        return _uniform(shape, -self.scale, self.scale)


@_register("truncatedNormal", "truncated_normal")
class TruncatedNormal(Initializer):
    """N(mean, sigma^2) restricted to [mean + a*sigma, mean + b*sigma] (values outside are
    redrawn): a and b count standard deviations, as scipy's truncnorm(a, b, loc=mean,
    scale=sigma) that MindSpore samples with. Defaults: sigma=0.01, a=-2, b=2."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        if not a < b:
            raise ValueError(f"For 'TruncatedNormal', a must be less than b, but got a={a}, "
                             f"b={b}.")
        if sigma < 0:
            raise ValueError(f"For 'TruncatedNormal', sigma must be non-negative, but got "
                             f"{sigma}.")
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, shape):
        lo, hi = self.mean + self.a * self.sigma, self.mean + self.b * self.sigma
        out = _normal(shape, self.mean, self.sigma).reshape(-1)
        for _ in range(100):
            bad = (out < lo) | (out > hi)
            if not bad.any():
                break
            out[bad] = _normal((int(bad.sum()),), self.mean, self.sigma)
        return np.clip(out, lo, hi).reshape(shape)


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, shape):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _uniform(shape, -bound, bound)


@_register("xavier_normal")
class XavierNormal(Initializer):
    """N(0, s^2) with s = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, shape):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        return _normal(shape, 0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)))


@_register("he_uniform")
class HeUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(3 / fan) (Kaiming); MindSpore's defaults:
    negative_slope=0, mode='fan_in', nonlinearity='leaky_relu'."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity
        _calculate_gain(nonlinearity, negative_slope)  # validates early
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"For 'HeUniform', mode must be 'fan_in' or 'fan_out', but got "
                             f"{mode!r}.")

    def _initialize(self, shape):
        gain = _calculate_gain(self.nonlinearity, self.negative_slope)
        bound = gain * math.sqrt(3.0 / _fan(shape, self.mode))
        return _uniform(shape, -bound, bound)


@_register("he_normal")
class HeNormal(Initializer):
    """N(0, s^2) with s = gain / sqrt(fan) (Kaiming); defaults as HeUniform."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity
        _calculate_gain(nonlinearity, negative_slope)
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"For 'HeNormal', mode must be 'fan_in' or 'fan_out', but got "
                             f"{mode!r}.")

    def _initialize(self, shape):
        gain = _calculate_gain(self.nonlinearity, self.negative_slope)
        return _normal(shape, 0.0, gain / math.sqrt(_fan(shape, self.mode)))


@_register()
class Identity(Initializer):
    """The 2-d identity (ones on the main diagonal of a [rows, cols] matrix); other ranks are
    a ValueError."""

    def _initialize(self, shape):
        if len(shape) != 2:
            raise ValueError(f"For 'Identity', the shape must be 2-d, but got {shape}.")
        return np.eye(shape[0], shape[1])


@_register()
class Dirac(Initializer):
    """The Dirac delta of a 3-d, 4-d or 5-d convolution weight [out, in, *kernel]: with
    `groups` groups of out/groups output channels, channel d of each group passes input
    channel d through at the kernel's centre (so the convolution is an identity on the first
    min(out/groups, in) channels); out must divide by `groups`."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _initialize(self, shape):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"For 'Dirac', the shape must be 3-d, 4-d or 5-d, but got "
                             f"{shape}.")
        if shape[0] % self.groups != 0:
            raise ValueError(f"For 'Dirac', shape[0] ({shape[0]}) must be divisible by groups "
                             f"({self.groups}).")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for d in range(min(per_group, shape[1])):
                out[(g * per_group + d, d) + centre] = 1.0
        return out


@_register()
class Sparse(Initializer):
    """A 2-d [rows, cols] matrix of N(0, sigma^2) values with ceil(sparsity * rows) zeros in
    each column at random rows (Martens' sparse initialisation); other ranks are a
    ValueError."""

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity, self.sigma = sparsity, sigma

    def _initialize(self, shape):
        if len(shape) != 2:
            raise ValueError(f"For 'Sparse', the shape must be 2-d, but got {shape}.")
        rows, cols = shape
        zeros = int(math.ceil(self.sparsity * rows))
        out = _normal(shape, 0.0, self.sigma)
        for c in range(cols):
            order = np.argsort(_uniform((rows,), 0.0, 1.0))
            out[order[:zeros], c] = 0.0
        return out


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`: the Q of the QR factorisation of a normal
    matrix [shape[0], prod(shape[1:])] (sign-corrected so the draw is uniform), reshaped;
    needs at least 2 dimensions."""

    def __init__(self, gain=1.):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, shape):
        if len(shape) < 2:
            raise ValueError(f"For 'Orthogonal', the shape must have at least 2 dimensions, "
                             f"but got {shape}.")
        rows = shape[0]
        cols = int(np.prod(shape[1:]))
        flat = _normal((rows, cols), 0.0, 1.0)
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return self.gain * q.reshape(shape)


@_register("variancescaling")
class VarianceScaling(Initializer):
    """Values scaled to the weight's fans: n = fan_in, fan_out or their mean (`mode`), and
    'truncated_normal' (N(0, s^2) truncated at 2 s, s = sqrt(scale / n) / 0.87962566, so
    the truncated variance is scale / n), 'untruncated_normal' (s = sqrt(scale / n)) or
    'uniform' (U(-l, l), l = sqrt(3 scale / n)). scale must be > 0."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        if scale <= 0.:
            raise ValueError(f"For 'VarianceScaling', scale must be greater than 0, but got "
                             f"{scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For 'VarianceScaling', mode must be 'fan_in', 'fan_out' or "
                             f"'fan_avg', but got {mode!r}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"For 'VarianceScaling', distribution must be 'uniform', "
                             f"'truncated_normal' or 'untruncated_normal', but got "
                             f"{distribution!r}.")
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, shape):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, n[self.mode])
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * scale)
            return _uniform(shape, -limit, limit)
        if self.distribution == "untruncated_normal":
            return _normal(shape, 0.0, math.sqrt(scale))
        sigma = math.sqrt(scale) / .87962566103423978
        return TruncatedNormal(sigma=sigma)._initialize(shape)


def initializer(init, shape=None, dtype=None):
    """A Tensor of `shape` and `dtype` (default float32) filled by `init`: an Initializer, its
    registered name (case-insensitive), a number or a Tensor (whose own dtype is kept when
    dtype is not given, as in MindSpore)."""
    if dtype is not None and not isinstance(dtype, _C.DType):
        raise TypeError(f"For 'initializer', dtype must be a mycel dtype, but got "
                        f"{type(dtype).__name__}.")
    if isinstance(init, _C.Tensor):
        # MindSpore returns a Tensor init as it is: its dtype stays unless one is given.
        if shape is not None and tuple(init.shape) != _check_shape(shape):
            raise ValueError(f"For 'initializer', the shape of the init tensor "
                             f"{tuple(init.shape)} must equal shape {_check_shape(shape)}.")
        return init.copy() if dtype is None else init.copy().astype(dtype)
    dtype = _C.float32 if dtype is None else dtype
    if shape is None:
        raise ValueError("For 'initializer', shape must be given unless init is a Tensor.")
    shape = _check_shape(shape)
    if isinstance(init, str):
        cls = _INITIALIZER_ALIAS.get(init.lower(), _INITIALIZER_ALIAS.get(init))
        if cls is None:
            raise ValueError(f"For 'initializer', unknown initializer name {init!r}; known: "
                             f"{', '.join(sorted(_INITIALIZER_ALIAS))}.")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"For 'initializer', init must be an Initializer, a str, a number or a "
                        f"Tensor, but got {type(init).__name__}.")
    host = np.float64 if dtype == _C.float64 else np.float32
    try:  # a MindSpore-style subclass fills an array of the target dtype
        np_dtype = dtype_to_nptype(dtype)
    except TypeError:  # (a dtype numpy lacks: the float64 values are cast below)
        np_dtype = np.float64
    data = np.asarray(init._values(shape, np_dtype), dtype=np.float64).reshape(shape)
    return _C.Tensor(data.astype(host)).astype(dtype)


__all__ = ["Initializer", "initializer", "Zero", "One", "Constant", "Normal", "Uniform",
           "TruncatedNormal", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal",
           "Identity", "Dirac", "Sparse", "Orthogonal", "VarianceScaling"]
