"""Activation cells (MindSpore 2.x ``mindspore.nn``): ReLU, Sigmoid, Tanh, GELU, Softmax,
LogSoftmax, SiLU, Mish, LeakyReLU, ELU, PReLU, HSigmoid, HSwish, Hardtanh, Softsign,
Tanhshrink, and get_activation(name) for the ``activation=`` argument of Dense. Each holds its
primitives as attributes and calls them in ``construct``, so it compiles in GRAPH mode.

The activations without an op of their own are compositions of elementwise ops (their
gradients follow from the ops'); Mish, ELU, HSigmoid and HSwish call the functions of
ops/function/compat_func.py."""
import numbers

from mycel import _mycel as _C
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim
from mycel.ops.function.unary_func import softsign
from mycel.ops.function.nn_func import threshold as _threshold
from mycel.ops.function.nn_func import _softmax_over_axes as _softmax_axes
from mycel.ops.function.compat_func import mish, elu, hardsigmoid, hardswish
from mycel.ops.primitive import constexpr


class ReLU(Cell):
    """max(x, 0), elementwise."""

    def __init__(self):
        super().__init__()
        self.relu = prim("ReLU")

    def construct(self, input):  # noqa: A002
        return self.relu(input)


class Sigmoid(Cell):
    """1 / (1 + exp(-x)), elementwise."""

    def __init__(self):
        super().__init__()
        self.sigmoid = prim("Sigmoid")

    def construct(self, input_x):
        return self.sigmoid(input_x)


class Tanh(Cell):
    """tanh(x), elementwise."""

    def __init__(self):
        super().__init__()
        self.tanh = prim("Tanh")

    def construct(self, x):
        return self.tanh(x)


class GELU(Cell):
    """Gaussian error linear unit, x * P(X <= x) for X ~ N(0, 1), elementwise.

    approximate=True (MindSpore's default) computes the tanh approximation
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))); False the exact
    0.5 * x * (1 + erf(x / sqrt(2))), which is PyTorch's default."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = _check.bool_(approximate, "approximate", "GELU")
        self.gelu = prim("GeLU", approximate="tanh" if approximate else "none")

    def construct(self, x):
        return self.gelu(x)

    def extend_repr(self):
        return f"approximate={self.approximate}"


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis` (an int or a tuple of ints; default -1). Over several
    axes the normalisation runs over all their elements together (the Softmax op for one
    axis, a composition over ReduceMax/ReduceSum for more)."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, (tuple, list)) and len(axis) == 1:
            axis = axis[0]
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        if not axes or any(isinstance(a, bool) or not isinstance(a, int) for a in axes):
            raise TypeError(f"For 'Softmax', axis must be an int or a non-empty tuple of ints, "
                            f"but got {axis!r}.")
        self.axis = axis
        self._axes = axes if len(axes) > 1 else None
        self.softmax = prim("Softmax", axis=axes[:1])

    def construct(self, input):  # noqa: A002
        if self._axes is None:
            return self.softmax(input)
        return _softmax_axes(input, self._axes, "Softmax")


class LogSoftmax(Cell):
    """log(softmax(x)) along `axis` (an int; default -1), computed as one stable op."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'LogSoftmax', axis must be an int, but got {axis!r}.")
        self.axis = axis
        self.log_softmax = prim("LogSoftmax", axis=axis)

    def construct(self, x):
        return self.log_softmax(x)


class SiLU(Cell):
    """x * sigmoid(x), elementwise (the swish activation)."""

    def __init__(self):
        super().__init__()
        self.silu = prim("SiLU")

    def construct(self, input):  # noqa: A002
        return self.silu(input)


class Mish(Cell):
    """x * tanh(softplus(x)), elementwise (ops.mish)."""

    def construct(self, x):
        return mish(x)


def _float(value, name, cls):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}.")
    return float(value)


class LeakyReLU(Cell):
    """x where x > 0, else alpha * x (MindSpore's default alpha is 0.2; PyTorch's 0.01)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = _float(alpha, "alpha", "LeakyReLU")
        self.greater = prim("Greater")
        self.select = prim("Select")
        self.cast = prim("Cast")

    def construct(self, x):
        # alpha in x's dtype (MindSpore's rule): integer inputs keep their dtype, alpha
        # truncated toward zero.
        alpha = self.cast(self.alpha, x.dtype)
        return self.select(self.greater(x, 0), x, x * alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class ELU(Cell):
    """x where x > 0, else alpha * (exp(x) - 1) (default alpha 1.0; ops.elu)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _float(alpha, "alpha", "ELU")

    def construct(self, input_x):
        return elu(input_x, self.alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class HSigmoid(Cell):
    """Hard sigmoid: relu6(x + 3) / 6, elementwise (ops.hardsigmoid)."""

    def construct(self, input_x):
        return hardsigmoid(input_x)


class HSwish(Cell):
    """Hard swish: x * relu6(x + 3) / 6, elementwise (ops.hardswish)."""

    def construct(self, x):
        return hardswish(x)


class Hardtanh(Cell):
    """x clamped to [min_val, max_val] (default [-1, 1]); min_val must be below max_val."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = _float(min_val, "min_val", "Hardtanh")
        self.max_val = _float(max_val, "max_val", "Hardtanh")
        if self.min_val >= self.max_val:
            raise ValueError(f"For 'Hardtanh', min_val must be less than max_val, but got "
                             f"min_val={min_val} and max_val={max_val}.")
        self.maximum = prim("Maximum")
        self.minimum = prim("Minimum")

    def construct(self, x):
        return self.minimum(self.maximum(x, self.min_val), self.max_val)

    def extend_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


class Threshold(Cell):
    """x where x > threshold, else value (``ops.threshold``; torch's nn.Threshold)."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = _float(threshold, "threshold", "Threshold")
        self.value = _float(value, "value", "Threshold")

    def construct(self, x):
        return _threshold(x, self.threshold, self.value)

    def extend_repr(self):
        return f"threshold={self.threshold}, value={self.value}"


class Softsign(Cell):
    """x / (1 + |x|), elementwise (``ops.softsign``)."""

    def construct(self, x):
        return softsign(x)


class Tanhshrink(Cell):
    """x - tanh(x), elementwise."""

    def __init__(self):
        super().__init__()
        self.tanh = prim("Tanh")

    def construct(self, x):
        return x - self.tanh(x)


@constexpr
def _prelu_weight_shape(shape, channel):
    """The shape that broadcasts PReLU's weight [channel] along the input's channel axis (1,
    or 0 for a 1-d input)."""
    rank = len(shape)
    if rank == 0:
        raise ValueError("For 'PReLU', the input must have at least 1 dimension, but got a "
                         "scalar.")
    axis = 1 if rank >= 2 else 0
    if channel != 1 and shape[axis] != channel:
        raise ValueError(f"For 'PReLU', the input's channel dimension (shape[{axis}] = "
                         f"{shape[axis]}) must equal channel ({channel}); input shape {shape}.")
    return (channel,) + (1,) * (rank - axis - 1)


def _prelu_init(channel, w):
    """PReLU's initial weight as a float32 Tensor of shape (channel,)."""
    if isinstance(w, (list, tuple)):
        if len(w) != channel or not all(isinstance(v, numbers.Real) and
                                        not isinstance(v, bool) for v in w):
            raise ValueError(f"For 'PReLU', a list 'w' must hold 'channel' ({channel}) floats, "
                             f"but got {w!r}.")
        return _C.Tensor([float(v) for v in w], _C.float32)
    if isinstance(w, _C.Tensor):
        if w.dtype not in (_C.float16, _C.float32):
            raise ValueError(f"For 'PReLU', a tensor 'w' must be float16 or float32, but got "
                             f"{w.dtype}.")
        if tuple(w.shape) != (channel,):
            raise ValueError(f"For 'PReLU', a tensor 'w' must have shape ({channel},) (the "
                             f"'channel'), but got {tuple(w.shape)}.")
        return _C.Tensor.copy(w)
    if isinstance(w, numbers.Real) and not isinstance(w, bool):
        return _C.Tensor([float(w)] * channel, _C.float32)
    raise TypeError(f"For 'PReLU', 'w' must be a float, a list of floats or a Tensor, but got "
                    f"{type(w).__name__}.")


class PReLU(Cell):
    """x where x > 0, else w * x, with a learnable slope per channel: the Parameter ``w``
    (named 'a', as in MindSpore) of shape (channel,), initialised to `w` (a float, a list of
    `channel` floats or a Tensor). channel is 1 (one slope shared by every element) or the
    input's channel count (axis 1, or axis 0 of a 1-d input)."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        self.channel = _check.positive_int(channel, "channel", "PReLU")
        self.w = Parameter(_prelu_init(self.channel, w), name="a")
        self.greater = prim("Greater")
        self.select = prim("Select")
        self.reshape = prim("Reshape")

    def construct(self, x):
        w = self.reshape(self.w.astype(x.dtype), _prelu_weight_shape(x.shape, self.channel))
        return self.select(self.greater(x, 0.0), x, x * w)

    def extend_repr(self):
        return f"channel={self.channel}"


_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU, "softmax": Softmax,
                "logsoftmax": LogSoftmax, "silu": SiLU, "mish": Mish, "leakyrelu": LeakyReLU,
                "elu": ELU, "prelu": PReLU, "hsigmoid": HSigmoid, "hswish": HSwish,
                "hardtanh": Hardtanh, "softsign": Softsign, "tanhshrink": Tanhshrink}


def get_activation(name, prim_name=None):
    """The activation cell registered as `name` (the class name in lower case: 'relu',
    'sigmoid', 'tanh', 'gelu', 'softmax', 'logsoftmax', 'silu', 'mish', 'leakyrelu', 'elu',
    'prelu', 'hsigmoid', 'hswish', 'hardtanh', 'softsign', 'tanhshrink'), or None for None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For 'get_activation', the name must be a str, but got "
                        f"{type(name).__name__}.")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"For '{prim_name or 'get_activation'}', the activation must be one of "
                       f"{sorted(_ACTIVATIONS)}, but got {name!r}.")
    return cls()


__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "LogSoftmax", "SiLU", "Mish",
           "LeakyReLU", "ELU", "PReLU", "HSigmoid", "HSwish", "Hardtanh", "Softsign",
           "Tanhshrink", "get_activation"]
