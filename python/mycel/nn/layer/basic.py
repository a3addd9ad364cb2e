"""Basic layers (MindSpore 2.x ``mindspore.nn``): Dense, Flatten, Dropout.

Defaults are MindSpore 2.x's: Dense's weight_init=None means HeUniform(math.sqrt(5)) (U(-1/
sqrt(in), 1/sqrt(in))) and bias_init=None means Uniform(1/sqrt(in_channels)); MindSpore 1.x
used 'normal' (sigma 0.01) and 'zeros'. Pass those explicitly for the old behaviour.

``construct`` methods use only op handles and attributes of self, so each layer compiles in
GRAPH mode; conditions on flags (has_bias, training, input rank) are constants there and fold
away at compile time."""
import math
import numbers

from mycel import _mycel as _C
from mycel.common.initializer import initializer, HeUniform, Uniform
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.nn.layer.activation import get_activation
from mycel.ops import operations as P
from mycel.ops.function._util import prim
from mycel.ops.primitive import Primitive
from mycel.ops.primitive import constexpr


@constexpr
def _rows_shape(shape):
    """(-1, last dim): the 2-d shape Dense computes in."""
    return (-1, shape[-1])


@constexpr
def _dense_out_shape(shape, out_channels):
    return tuple(shape[:-1]) + (out_channels,)


class Dense(Cell):
    """y = activation(x @ weight.T + bias), weight [out_channels, in_channels]. Inputs of any
    rank >= 2 are multiplied along their last axis."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=_C.float32):
        super().__init__()
        self.in_channels = _check.positive_int(in_channels, "in_channels", "Dense")
        self.out_channels = _check.positive_int(out_channels, "out_channels", "Dense")
        self.has_bias = _check.bool_(has_bias, "has_bias", "Dense")
        if isinstance(weight_init, _C.Tensor) and tuple(weight_init.shape) != (
                out_channels, in_channels):
            raise ValueError(f"For 'Dense', weight_init's shape must be ({out_channels}, "
                             f"{in_channels}), but got {tuple(weight_init.shape)}.")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, (out_channels, in_channels), dtype),
                                name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, _C.Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(f"For 'Dense', bias_init's shape must be ({out_channels},), "
                                 f"but got {tuple(bias_init.shape)}.")
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
        if activation is None or isinstance(activation, (Cell, Primitive)):
            self.activation = activation
        elif isinstance(activation, str):
            self.activation = get_activation(activation, "Dense")
        else:
            raise TypeError(f"For 'Dense', activation must be a str, a Cell, a Primitive or "
                            f"None, but got "
                            f"{type(activation).__name__}.")
        self.activation_flag = self.activation is not None
        # Its own primitives (as MindSpore's), so that `dense.matmul.shard(...)` shards this
        # layer only.
        self.matmul = P.MatMul(transpose_b=True)
        self.bias_add = P.BiasAdd()
        self.reshape = prim("Reshape")

    def construct(self, x):
        x_shape = x.shape
        if len(x_shape) != 2:
            x = self.reshape(x, _rows_shape(x_shape))
        x = self.matmul(x, self.weight)
        if self.has_bias:
            x = self.bias_add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(x_shape) != 2:
            x = self.reshape(x, _dense_out_shape(x_shape, self.out_channels))
        return x

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"has_bias={self.has_bias}")


@constexpr
def _flatten_shape(shape, start_dim, end_dim):
    rank = len(shape)
    start = start_dim + rank if start_dim < 0 else start_dim
    end = end_dim + rank if end_dim < 0 else end_dim
    if rank == 0:
        return (1,)
    if not (0 <= start < rank and 0 <= end < rank) or start > end:
        raise ValueError(f"For 'Flatten', start_dim {start_dim} and end_dim {end_dim} do not "
                         f"fit an input of rank {rank} (need start_dim <= end_dim).")
    n = 1
    for d in shape[start:end + 1]:
        n = -1 if d < 0 or n < 0 else n * d  # a dynamic dim (set_inputs) is -1: so is n
    return tuple(shape[:start]) + (n,) + tuple(shape[end + 1:])


class Flatten(Cell):
    """Merges the axes start_dim..end_dim (default 1..-1: [N, ...] -> [N, prod(...)])."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for name, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"For 'Flatten', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
        self.start_dim, self.end_dim = int(start_dim), int(end_dim)
        self.reshape = prim("Reshape")

    def construct(self, x):
        return self.reshape(x, _flatten_shape(x.shape, self.start_dim, self.end_dim))


class Dropout(Cell):
    """In training (set_train()), zeroes each element with probability p and scales the rest
    by 1/(1-p); in evaluation it is the identity. MindSpore 2.x: give p (default 0.5); the
    older keep_prob = 1 - p is still accepted."""

    def __init__(self, keep_prob=None, p=None, dtype=_C.float32):
        super().__init__()
        if keep_prob is not None and p is not None:
            raise ValueError("For 'Dropout', give either keep_prob or p, not both.")
        if keep_prob is not None:
            if isinstance(keep_prob, bool) or not isinstance(keep_prob, numbers.Real):
                raise TypeError(f"For 'Dropout', keep_prob must be a float, but got "
                                f"{type(keep_prob).__name__}.")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"For 'Dropout', the 'keep_prob' must be a number in range "
                                 f"(0, 1], but got {keep_prob}.")
            self.keep_prob = float(keep_prob)
            self.p = 1.0 - self.keep_prob
        else:
            p = 0.5 if p is None else p
            if isinstance(p, bool) or not isinstance(p, numbers.Real):
                raise TypeError(f"For 'Dropout', p must be a float, but got "
                                f"{type(p).__name__}.")
            if not 0 <= p < 1:
                raise ValueError(f"For 'Dropout', the 'p' must be a number in range [0, 1), "
                                 f"but got {p}.")
            self.keep_prob = 1.0 - float(p)
            self.p = float(p)  # as given: 1 - (1 - 0.1) is 0.09999999999999998
        self.dropout = prim("Dropout", keep_prob=self.keep_prob)

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        out, _ = self.dropout(x)
        return out

    def extend_repr(self):
        return f"p={self.p}"


__all__ = ["Dense", "Flatten", "Dropout"]
