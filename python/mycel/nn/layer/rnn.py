"""Recurrent layers (MindSpore 2.x ``mindspore.nn``): RNNCell, LSTMCell, GRUCell and the
sequence layers RNN, LSTM, GRU (num_layers, has_bias, batch_first, dropout between layers,
bidirectional, initial states, per-sample seq_length), composed of MatMul and elementwise
ops.

Parameters are MindSpore's (and PyTorch's): weight_ih [G * hidden, input], weight_hh [G *
hidden, hidden], bias_ih and bias_hh [G * hidden], with G = 1 (RNN), 4 (LSTM: gates i, f, g,
o) or 3 (GRU: r, z, n); the sequence layers name them weight_ih_l{k}, ... and
weight_ih_l{k}_reverse for the backward direction. All start U(-1/sqrt(hidden),
1/sqrt(hidden)). The step rules:

    RNN:  h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)            (or relu)
    LSTM: i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh)
          c' = sigmoid(f) c + sigmoid(i) tanh(g),  h' = sigmoid(o) tanh(c')
    GRU:  r = sigmoid(xr + hr), z = sigmoid(xz + hz), n = tanh(xn + r hn),  h' = n + z (h - n)
          (x* = x W_ih^T + b_ih and h* = h W_hh^T + b_hh split in three)

The input projection of all time steps is one matmul (the step and the loop live in
ops/function/rnn_func.py, shared with ops.LSTM); the time loop is a Python for-loop over
the static sequence length. GRAPH mode unrolls it up to 63 steps (the outputs kept as a
tuple and stacked); longer sequences compile to a real loop (the specialiser broadens a loop
entered 64 times), whose state is tensors only: the step index is an int tensor and the
outputs are written with TensorScatterUpdate, which copies the output buffer each step (cost
grows with the square of the length). With seq_length, steps at or past a sample's length
keep its state and output zeros, and the reverse direction runs over each sample's sequence
reversed within its length (GatherD).
"""
import math
import numbers

from mycel import _mycel as _C
from mycel.common.initializer import initializer, Uniform
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# ---- the recurrence (ops/function/rnn_func.py, shared with ops.LSTM and friends) ----------
from mycel.ops.function.rnn_func import _cell, _run, _project  # noqa: E402


# ---- checks ----------------------------------------------------------------------------------

def _uniform_params(cell, names_shapes, hidden_size, dtype):
    init = Uniform(1 / math.sqrt(hidden_size))
    for name, shape in names_shapes:
        setattr(cell, name, Parameter(initializer(init, shape, dtype), name=name))


def _mode_of(cls, nonlinearity):
    if cls in ("LSTM", "LSTMCell"):
        return "LSTM"
    if cls in ("GRU", "GRUCell"):
        return "GRU"
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"For '{cls}', nonlinearity must be 'tanh' or 'relu', but got "
                         f"{nonlinearity!r}.")
    return "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


@constexpr
def _check_x(cls, shape, dtype, rank, input_size):
    if len(shape) != rank or shape[-1] != input_size:
        want = "[batch, input_size]" if rank == 2 else "[seq_len, batch, input_size]"
        raise ValueError(f"For '{cls}', the input must be {rank}-d {want} with input_size "
                         f"{input_size}, but got shape {tuple(shape)}.")
    if not dtype.is_floating_point:
        raise TypeError(f"For '{cls}', the input must be a floating-point tensor, but got "
                        f"{dtype}.")


@constexpr
def _check_state(cls, name, shape, want):
    if tuple(shape) != tuple(want):
        raise ValueError(f"For '{cls}', {name} must have shape {tuple(want)}, but got "
                         f"{tuple(shape)}.")


@constexpr
def _check_lengths(cls, shape, dtype, batch):
    if tuple(shape) != (batch,) or dtype not in (_C.int32, _C.int64):
        raise ValueError(f"For '{cls}', seq_length must be an int32 or int64 tensor of shape "
                         f"({batch},), but got {dtype} of shape {tuple(shape)}.")


def _initial(cls, mode, hx, shape, dtype):
    """The initial state (zeros when hx is None) after checking hx's shape(s)."""
    if hx is None:
        h = _a.zeros(shape, dtype)
        return (h, h) if mode == "LSTM" else h
    if mode == "LSTM":
        _check_state(cls, "hx[0]", hx[0].shape, shape)
        _check_state(cls, "hx[1]", hx[1].shape, shape)
        return hx[0], hx[1]
    _check_state(cls, "hx", hx.shape, shape)
    return hx


# ---- cells -----------------------------------------------------------------------------------

class _RNNCellBase(Cell):
    def __init__(self, cls, input_size, hidden_size, has_bias, nonlinearity, dtype):
        super().__init__()
        self.input_size = _check.positive_int(input_size, "input_size", cls)
        self.hidden_size = _check.positive_int(hidden_size, "hidden_size", cls)
        self.has_bias = _check.bool_(has_bias, "has_bias", cls)
        self._mode = _mode_of(cls, nonlinearity)
        self._cls = cls
        g = _GATES[self._mode] * hidden_size
        shapes = [("weight_ih", (g, input_size)), ("weight_hh", (g, hidden_size))]
        if has_bias:
            shapes += [("bias_ih", (g,)), ("bias_hh", (g,))]
        _uniform_params(self, shapes, hidden_size, dtype)
        if not has_bias:
            self.bias_ih = self.bias_hh = None

    def construct(self, x, hx=None):
        _check_x(self._cls, x.shape, x.dtype, 2, self.input_size)
        state = _initial(self._cls, self._mode, hx, (x.shape[0], self.hidden_size), x.dtype)
        gx = _m.dense(x, self.weight_ih, self.bias_ih)
        return _cell(self._mode, gx, state, self.weight_hh, self.bias_hh)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"has_bias={self.has_bias}")


class RNNCell(_RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) ('relu' with
    nonlinearity='relu'). construct(x [batch, input_size], hx [batch, hidden] or None for
    zeros) -> h'."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=_C.float32):
        super().__init__("RNNCell", input_size, hidden_size, has_bias, nonlinearity, dtype)


class LSTMCell(_RNNCellBase):
    """One LSTM step (gates i, f, g, o). construct(x [batch, input_size], hx = (h, c) each
    [batch, hidden], or None for zeros) -> (h', c')."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=_C.float32):
        super().__init__("LSTMCell", input_size, hidden_size, has_bias, "tanh", dtype)


class GRUCell(_RNNCellBase):
    """One GRU step (gates r, z, n). construct(x [batch, input_size], hx [batch, hidden] or
    None for zeros) -> h'."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=_C.float32):
        super().__init__("GRUCell", input_size, hidden_size, has_bias, "tanh", dtype)


# ---- sequence layers -------------------------------------------------------------------------

class _RNNBase(Cell):
    def __init__(self, cls, input_size, hidden_size, num_layers, has_bias, batch_first, dropout,
                 bidirectional, nonlinearity, dtype):
        super().__init__()
        self.input_size = _check.positive_int(input_size, "input_size", cls)
        self.hidden_size = _check.positive_int(hidden_size, "hidden_size", cls)
        self.num_layers = _check.positive_int(num_layers, "num_layers", cls)
        self.has_bias = _check.bool_(has_bias, "has_bias", cls)
        self.batch_first = _check.bool_(batch_first, "batch_first", cls)
        self.bidirectional = _check.bool_(bidirectional, "bidirectional", cls)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real) or \
                not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', dropout must be a float in [0, 1), but got "
                             f"{dropout!r}.")
        self.dropout = float(dropout)
        self._mode = _mode_of(cls, nonlinearity)
        self._cls = cls
        self.num_directions = 2 if bidirectional else 1
        g = _GATES[self._mode] * hidden_size
        names = []
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * self.num_directions
            for suffix in ("", "_reverse")[:self.num_directions]:
                k = f"l{layer}{suffix}"
                shapes = [(f"weight_ih_{k}", (g, width)), (f"weight_hh_{k}", (g, hidden_size))]
                if has_bias:
                    shapes += [(f"bias_ih_{k}", (g,)), (f"bias_hh_{k}", (g,))]
                _uniform_params(self, shapes, hidden_size, dtype)
                names.append(tuple(n for n, _ in shapes) + (None, None))
        # Read by name in construct (getattr), so that to_float casts them as it casts
        # attributes.
        self._param_names = tuple(names)
        self.dropout_op = prim("Dropout", keep_prob=1.0 - self.dropout)

    def _weights_of(self, k):
        """(weight_ih, weight_hh, bias_ih, bias_hh) of layer-direction k (biases None without
        has_bias)."""
        names = self._param_names[k]
        b_ih = None if names[2] is None else getattr(self, names[2])
        b_hh = None if names[3] is None else getattr(self, names[3])
        return getattr(self, names[0]), getattr(self, names[1]), b_ih, b_hh

    def _layer(self, layer, x, states, lengths):
        """One layer, both directions: (output [T, B, D * H], final states)."""
        outs, finals = (), ()
        for d in range(self.num_directions):
            k = layer * self.num_directions + d
            w_ih, w_hh, b_ih, b_hh = self._weights_of(k)
            out, final = _run(self._mode, _project(x, w_ih, b_ih), states[k], w_hh, b_hh,
                              lengths, d == 1)
            outs = outs + (out,)
            finals = finals + (final,)
        return (outs[0] if len(outs) == 1 else _a.concat(outs, -1)), finals

    def construct(self, x, hx=None, seq_length=None):
        cls = self._cls
        _check_x(cls, x.shape, x.dtype, 3, self.input_size)
        if self.batch_first:
            x = _a.transpose(x, (1, 0, 2))
        n = self.num_layers * self.num_directions
        state = _initial(cls, self._mode, hx, (n, x.shape[1], self.hidden_size), x.dtype)
        if seq_length is not None:
            _check_lengths(cls, seq_length.shape, seq_length.dtype, x.shape[1])
        states = ()
        for k in range(n):
            states = states + (((state[0][k], state[1][k]) if self._mode == "LSTM" else
                                state[k]),)
        finals = ()
        for layer in range(self.num_layers):
            if layer > 0 and self.training and self.dropout > 0:
                x = self.dropout_op(x)[0]
            x, fin = self._layer(layer, x, states, seq_length)
            finals = finals + fin
        if self.batch_first:
            x = _a.transpose(x, (1, 0, 2))
        if self._mode == "LSTM":
            hs, cs = (), ()
            for f in finals:
                hs, cs = hs + (f[0],), cs + (f[1],)
            return x, (_a.stack(hs, 0), _a.stack(cs, 0))
        return x, _a.stack(finals, 0)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Multi-layer Elman RNN (tanh or relu). construct(x [seq_len, batch, input_size] ([batch,
    seq_len, input_size] with batch_first), hx [num_layers * num_directions, batch, hidden]
    or None for zeros, seq_length [batch] int or None) -> (output [seq_len, batch,
    num_directions * hidden], h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh",
                 has_bias=True, batch_first=False, dropout=0.0, bidirectional=False,
                 dtype=_C.float32):
        super().__init__("RNN", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, nonlinearity, dtype)


class LSTM(_RNNBase):
    """Multi-layer LSTM. construct(x, hx = (h_0, c_0) or None, seq_length=None) -> (output,
    (h_n, c_n)); shapes as RNN's."""

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=_C.float32):
        super().__init__("LSTM", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, "tanh", dtype)


class GRU(_RNNBase):
    """Multi-layer GRU. construct(x, hx=None, seq_length=None) -> (output, h_n); shapes as
    RNN's."""

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=_C.float32):
        super().__init__("GRU", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, "tanh", dtype)


__all__ = ["RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"]
