"""The recurrence math shared by nn.RNN / nn.LSTM / nn.GRU (nn/layer/rnn.py) and the
primitives ops.LSTM, ops.DynamicRNN and ops.DynamicGRUV2 (operations/rnn_ops.py): one
step of an RNN, LSTM or GRU cell and the time loop over a projected input, composed of
MatMul and elementwise ops (the step rules are in nn/layer/rnn.py's docstring).

The time loop is a Python for-loop over the static sequence length. GRAPH mode unrolls it up
to 63 steps (the outputs kept as a tuple and stacked); longer sequences compile to a real
loop (the specialiser broadens a loop entered 64 times) whose state is tensors only.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.context import get_context, GRAPH_MODE
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_UNROLL = 63  # GRAPH mode broadens a loop entered 64 times: 63 steps and the exit


# ---- one step --------------------------------------------------------------------------------

def _cell(mode, gx, state, w_hh, b_hh):
    """The next state of `mode` from the projected input gx [B, G * H] and the state (h, or
    (h, c) for LSTM)."""
    if mode == "LSTM":
        h, c = state
        i, f, g, o = _a.split(_m.add(gx, _m.dense(h, w_hh, b_hh)), h.shape[-1], -1)
        c2 = _m.add(_m.mul(_m.sigmoid(f), c), _m.mul(_m.sigmoid(i), _m.tanh(g)))
        return _m.mul(_m.sigmoid(o), _m.tanh(c2)), c2
    if mode == "GRU":
        hr, hz, hn = _a.split(_m.dense(state, w_hh, b_hh), state.shape[-1], -1)
        xr, xz, xn = _a.split(gx, state.shape[-1], -1)
        r = _m.sigmoid(_m.add(xr, hr))
        z = _m.sigmoid(_m.add(xz, hz))
        n = _m.tanh(_m.add(xn, _m.mul(r, hn)))
        return _m.add(n, _m.mul(z, _m.sub(state, n)))
    g = _m.add(gx, _m.dense(state, w_hh, b_hh))
    return prim("ReLU")(g) if mode == "RNN_RELU" else _m.tanh(g)


def _hidden(mode, state):
    return state[0] if mode == "LSTM" else state


def _keep(mode, mask, new, old):
    """new where mask [B, 1] holds, else old (state by state)."""
    if mode == "LSTM":
        return _m.select(mask, new[0], old[0]), _m.select(mask, new[1], old[1])
    return _m.select(mask, new, old)


# ---- the time loop ---------------------------------------------------------------------------

@constexpr
def _unrolled(steps):
    """Whether the loop keeps its outputs in a tuple: PYNATIVE, or GRAPH up to 63 steps."""
    return steps <= _UNROLL or get_context("mode") != GRAPH_MODE


@constexpr
def _reverse_index(steps):
    return _C.Tensor(np.arange(steps - 1, -1, -1, dtype=np.int32))


def _reverse_in_length(x, lengths):
    """x [T, B, F] with each sample b's first lengths[b] steps reversed (the rest kept)."""
    t = _a.arange(0, x.shape[0], dtype=lengths.dtype).reshape((-1, 1))
    idx = _m.select(_m.less(t, lengths), _m.sub(_m.sub(lengths, 1), t),
                    _a.broadcast_to(t, (x.shape[0], x.shape[1])))
    return _a.gather_d(x, 0, _a.broadcast_to(idx.expand_dims(2), x.shape))


def _step(mode, gx, ti, state, w_hh, b_hh, lengths):
    """(output, state) after step ti (an int tensor [1])."""
    new = _cell(mode, _a.gather(gx, ti, 0).squeeze(0), state, w_hh, b_hh)
    out = _hidden(mode, new)
    if lengths is None:
        return out, new
    mask = _m.less(ti, lengths).expand_dims(1)
    return _m.mul(out, mask.astype(out.dtype)), _keep(mode, mask, new, state)


def _run(mode, gx, state, w_hh, b_hh, lengths, reverse):
    """Runs one direction over gx [T, B, G * H] (the projected inputs) from `state`; gives
    (outputs [T, B, H], final state)."""
    steps = gx.shape[0]
    if reverse:
        gx = (_a.gather(gx, _reverse_index(steps), 0) if lengths is None else
              _reverse_in_length(gx, lengths))
    ti = _a.zeros((1,), _C.int32)
    if _unrolled(steps):
        outs = ()
        for _ in range(steps):
            out, state = _step(mode, gx, ti, state, w_hh, b_hh, lengths)
            outs = outs + (out,)
            ti = _m.add(ti, 1)
        output = _a.stack(outs, 0)
    else:
        h = _hidden(mode, state)
        output = _a.zeros((steps,) + h.shape, h.dtype)
        for _ in range(steps):
            out, state = _step(mode, gx, ti, state, w_hh, b_hh, lengths)
            output = _a.tensor_scatter_update(output, ti.reshape((1, 1)), out.expand_dims(0))
            ti = _m.add(ti, 1)
    if reverse:
        output = (_a.gather(output, _reverse_index(steps), 0) if lengths is None else
                  _reverse_in_length(output, lengths))
    return output, state


def _project(x, w_ih, b_ih):
    """x [T, B, I] @ w_ih^T + b_ih for all steps at once: [T, B, G * H]."""
    steps, batch = x.shape[0], x.shape[1]
    y = _m.dense(x.reshape((steps * batch, x.shape[2])), w_ih, b_ih)
    return y.reshape((steps, batch, w_ih.shape[0]))
