"""Recurrent primitives of MindSpore 2.x composed from table ops, with MindSpore's packed
weight layouts: LSTM (the CPU op of nn.LSTM: one flat weight), DynamicRNN (Ascend's LSTM:
[x, h] @ w with gates i, j, f, o) and DynamicGRUV2 (Ascend's GRU with the gate values as
outputs). The recurrence is nn.LSTM's (ops/function/rnn_func.py); the two Ascend ops, whose
outputs include every step's gates, run their own loop over the same projected inputs.
"""
from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.function import rnn_func as _rnn
from mycel.ops.function._util import prim
from mycel.ops.operations._compat_checks import (_check_int, _check_float, _check_bool,
                                                 _check_tensor)
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.primitive import constexpr

__all__ = ["LSTM", "DynamicRNN", "DynamicGRUV2"]

_F16_32 = (_C.float16, _C.float32)


# ------------------------------------------------------------------ LSTM
@constexpr
def _lstm_layout(layers, dirs, input_size, hidden, proj, has_bias, w_size):
    """The packed weight's pieces as (offset, shape) per layer-direction k = l * dirs + d:
    (w_ih [4H, in_l], w_hh [4H, P or H], w_proj [P, H] or None, bias [4H] or None,
    bias2 [4H] or None). The order is MindSpore's CPU op: every w_ih, then every w_hh, then
    every w_proj, then one bias per k (b_ih + b_hh); a weight with two biases per k (b_ih
    then b_hh, the GPU op's order) is also taken, the two added."""
    real = proj if proj > 0 else hidden
    gates = 4 * hidden
    ks = [(l, d) for l in range(layers) for d in range(dirs)]
    ins = [input_size if l == 0 else real * dirs for l, _ in ks]
    off = 0
    w_ih, w_hh, w_pr, b1, b2 = [], [], [], [], []
    for n_in in ins:
        w_ih.append((off, (gates, n_in)))
        off += gates * n_in
    for _ in ks:
        w_hh.append((off, (gates, real)))
        off += gates * real
    for _ in ks:
        w_pr.append((off, (proj, hidden)) if proj > 0 else None)
        off += proj * hidden
    plain = off
    one_bias = plain + (len(ks) * gates if has_bias else 0)
    two_bias = plain + 2 * len(ks) * gates
    if w_size not in (one_bias, two_bias) or (not has_bias and w_size != plain):
        raise ValueError(f"For 'LSTM', the packed weight must hold {one_bias} values (w_ih, "
                         f"w_hh{', w_proj' if proj else ''}"
                         f"{', bias' if has_bias else ''} of every layer and direction), but "
                         f"it holds {w_size}.")
    for i in range(len(ks)):
        b1.append((off + i * gates, (gates,)) if has_bias else None)
        b2.append((off + (len(ks) + i) * gates, (gates,))
                  if has_bias and w_size == two_bias else None)
    return tuple(zip(w_ih, w_hh, w_pr, b1, b2))


def _piece(flat, spec):
    if spec is None:
        return None
    off, shape = spec
    size = 1
    for s in shape:
        size *= s
    return _a.reshape(flat[off:off + size], shape)


def _lstm_proj_run(gx, h, c, w_hh, b, w_pr, reverse):
    """One direction of an LSTM with a projection: h = (o tanh(c)) w_proj^T."""
    steps = gx.shape[0]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    outs = [None] * steps
    for t in order:
        g = _m.add(gx[t], _m.dense(h, w_hh, b))
        i, f, gg, o = _a.split(g, c.shape[-1], -1)
        c = _m.add(_m.mul(_m.sigmoid(f), c), _m.mul(_m.sigmoid(i), _m.tanh(gg)))
        h = _m.dense(_m.mul(_m.sigmoid(o), _m.tanh(c)), w_pr, None)
        outs[t] = h
    return _a.stack(tuple(outs), 0), (h, c)


class LSTM(_Composed):
    """LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
    proj_size=0)(input, h, c, w) -> (output, h_n, c_n, reserve, state): MindSpore's CPU LSTM
    op. input [T, B, input_size]; h [L * D, B, P or H] and c [L * D, B, H] the initial states;
    w the flat packed weight (_lstm_layout; any shape, e.g. [n, 1, 1]) with the gates in the
    order i, f, g, o and weights [gates, inputs] as nn.LSTM's. output [T, B, D * (P or H)]
    (both directions concatenated), h_n and c_n like h and c, reserve and state [1, 1] zeros
    (MindSpore's placeholders). dropout is not applied (as MindSpore's CPU kernel). The step
    is nn.LSTM's."""

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
                 proj_size=0):
        op = "LSTM"
        self.input_size = _check_int(op, "input_size", input_size)
        self.hidden_size = _check_int(op, "hidden_size", hidden_size)
        self.num_layers = _check_int(op, "num_layers", num_layers)
        self.has_bias = _check_bool(op, "has_bias", has_bias)
        self.bidirectional = _check_bool(op, "bidirectional", bidirectional)
        self.dropout = _check_float(op, "dropout", dropout, non_negative=True)
        self.proj_size = _check_int(op, "proj_size", proj_size, positive=False)
        if not 0 <= self.dropout <= 1:
            raise ValueError(f"For '{op}', 'dropout' must be in [0, 1], but got {dropout}.")
        if not 0 <= self.proj_size < self.hidden_size:
            raise ValueError(f"For '{op}', 'proj_size' must be in [0, hidden_size), but got "
                             f"{proj_size}.")
        self.num_directions = 2 if bidirectional else 1
        super().__init__(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers,
                         has_bias=has_bias, bidirectional=bidirectional, dropout=dropout,
                         proj_size=proj_size)

    def __call__(self, input, h, c, w):  # noqa: A002 (MindSpore's argument name)
        op = "LSTM"
        for name, t in (("input", input), ("h", h), ("c", c), ("w", w)):
            _check_tensor(op, name, t, (_C.float16, _C.float32, _C.float64))
        dirs, hidden, proj = self.num_directions, self.hidden_size, self.proj_size
        _lstm_shapes(input.shape, h.shape, c.shape, self.input_size, self.num_layers * dirs,
                     hidden, proj)
        layout = _lstm_layout(self.num_layers, dirs, self.input_size, hidden, proj,
                              self.has_bias, _numel(w.shape))
        flat = _a.reshape(prim("Cast")(w, input.dtype), (-1,))
        x = input
        hs, cs = (), ()
        for layer in range(self.num_layers):
            outs = ()
            for d in range(dirs):
                k = layer * dirs + d
                w_ih, w_hh, w_pr, b1, b2 = (_piece(flat, s) for s in layout[k])
                bias = b1 if b2 is None else _m.add(b1, b2)
                gx = _rnn._project(x, w_ih, bias)
                if proj > 0:
                    out, (hn, cn) = _lstm_proj_run(gx, h[k], c[k], w_hh, None, w_pr, d == 1)
                else:
                    out, (hn, cn) = _rnn._run("LSTM", gx, (h[k], c[k]), w_hh, None, None,
                                              d == 1)
                outs = outs + (out,)
                hs, cs = hs + (hn,), cs + (cn,)
            x = outs[0] if dirs == 1 else _a.concat(outs, -1)
        zero = _a.zeros((1, 1), input.dtype)
        return x, _a.stack(hs, 0), _a.stack(cs, 0), zero, zero


@constexpr
def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@constexpr
def _lstm_shapes(x_shape, h_shape, c_shape, input_size, ld, hidden, proj):
    real = proj if proj > 0 else hidden
    if len(x_shape) != 3 or x_shape[2] != input_size:
        raise ValueError(f"For 'LSTM', 'input' must be [seq_len, batch, input_size] with "
                         f"input_size {input_size}, but got shape {tuple(x_shape)}.")
    want_h, want_c = (ld, x_shape[1], real), (ld, x_shape[1], hidden)
    if tuple(h_shape) != want_h or tuple(c_shape) != want_c:
        raise ValueError(f"For 'LSTM', 'h' and 'c' must be {want_h} and {want_c}, but got "
                         f"{tuple(h_shape)} and {tuple(c_shape)}.")
    return True


# ------------------------------------------------------------------ DynamicRNN
@constexpr
def _rnn_shapes(op, x_shape, w_shape, b_shape, h_shape, c_shape, gates):
    if len(x_shape) != 3:
        raise ValueError(f"For '{op}', 'x' must be [num_step, batch_size, input_size], but got "
                         f"shape {tuple(x_shape)}.")
    steps, batch, n_in = x_shape
    hidden = w_shape[1] // gates if len(w_shape) == 2 else -1
    if len(w_shape) != 2 or w_shape[1] % gates or w_shape[0] != n_in + hidden:
        raise ValueError(f"For '{op}', 'w' must be [input_size + hidden_size, {gates} * "
                         f"hidden_size] = [{n_in} + H, {gates}H], but got {tuple(w_shape)}.")
    if tuple(b_shape) != (gates * hidden,):
        raise ValueError(f"For '{op}', 'b' must be [{gates * hidden}], but got "
                         f"{tuple(b_shape)}.")
    for name, s in (("init_h", h_shape), ("init_c", c_shape)):
        if tuple(s) != (1, batch, hidden):
            raise ValueError(f"For '{op}', '{name}' must be [1, {batch}, {hidden}], but got "
                             f"{tuple(s)}.")
    return n_in, hidden


def _only(op, name, value, allowed):
    if value != allowed:
        raise ValueError(f"For '{op}', '{name}' supports only {allowed!r} (as MindSpore), but "
                         f"got {value!r}.")


class DynamicRNN(_Composed):
    """DynamicRNN(cell_type='LSTM', direction='UNIDIRECTIONAL', cell_depth=1,
    use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
    activation='tanh', forget_bias=0.0, is_training=True)(x, w, b, seq_length, init_h,
    init_c) -> (y, output_h, output_c, i, j, f, o, tanhc), each [num_step, batch, H]: an LSTM
    over x [num_step, batch, input_size] with w [input_size + H, 4H] applied to [x_t, h] and
    b [4H], the gate columns in the order i, j (the candidate), f, o:
        i = sigmoid(.), j = tanh(.), f = sigmoid(. + forget_bias), o = sigmoid(.),
        c_t = f c + i j,  tanhc = tanh(c_t),  h_t = o tanhc.
    y and output_h are every step's h, output_c every step's c, and i, j, f, o, tanhc every
    step's activated gates. seq_length must be None and the other options their defaults (the
    only ones MindSpore supports). float16 inputs compute in float32; the outputs take b's
    dtype."""

    def __init__(self, cell_type="LSTM", direction="UNIDIRECTIONAL", cell_depth=1,
                 use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0,
                 time_major=True, activation="tanh", forget_bias=0.0, is_training=True):
        op = "DynamicRNN"
        _check_int(op, "cell_depth", cell_depth)
        _check_int(op, "num_proj", num_proj, positive=False)
        for name, v in (("use_peephole", use_peephole), ("time_major", time_major),
                        ("is_training", is_training)):
            _check_bool(op, name, v)
        self.forget_bias = _check_float(op, "forget_bias", forget_bias)
        _check_float(op, "keep_prob", keep_prob)
        _check_float(op, "cell_clip", cell_clip)
        for name, v, ok in (("cell_type", cell_type, "LSTM"),
                            ("direction", direction, "UNIDIRECTIONAL"),
                            ("activation", activation, "tanh"), ("cell_depth", cell_depth, 1),
                            ("use_peephole", use_peephole, False), ("num_proj", num_proj, 0),
                            ("time_major", time_major, True),
                            ("keep_prob", float(keep_prob), 1.0)):
            _only(op, name, v, ok)
        if cell_clip >= 0:
            raise ValueError(f"For '{op}', 'cell_clip' supports only negative values (no "
                             f"clipping), but got {cell_clip}.")
        super().__init__(cell_type=cell_type, direction=direction, cell_depth=cell_depth,
                         use_peephole=use_peephole, keep_prob=keep_prob, cell_clip=cell_clip,
                         num_proj=num_proj, time_major=time_major, activation=activation,
                         forget_bias=forget_bias, is_training=is_training)

    def __call__(self, x, w, b, seq_length, init_h, init_c):
        op = "DynamicRNN"
        for name, t in (("x", x), ("w", w), ("b", b), ("init_h", init_h), ("init_c", init_c)):
            _check_tensor(op, name, t, _F16_32)
        if seq_length is not None:
            raise ValueError(f"For '{op}', 'seq_length' supports only None (as MindSpore).")
        n_in, hidden = _rnn_shapes(op, x.shape, w.shape, b.shape, init_h.shape, init_c.shape,
                                   4)
        f32 = _C.float32
        wc = prim("Cast")(w, f32)
        w_ih = _a.transpose(wc[:n_in], (1, 0))  # [4H, input]
        w_hh = _a.transpose(wc[n_in:], (1, 0))  # [4H, H]
        gx = _rnn._project(prim("Cast")(x, f32), w_ih, prim("Cast")(b, f32))
        h, c = prim("Cast")(init_h[0], f32), prim("Cast")(init_c[0], f32)
        seqs = ((), (), (), (), (), (), ())
        for t in range(x.shape[0]):
            g = _m.add(gx[t], _m.dense(h, w_hh, None))
            gi, gj, gf, go = _a.split(g, hidden, -1)
            i, j = _m.sigmoid(gi), _m.tanh(gj)
            f, o = _m.sigmoid(_m.add(gf, self.forget_bias)), _m.sigmoid(go)
            c = _m.add(_m.mul(f, c), _m.mul(i, j))
            tc = _m.tanh(c)
            h = _m.mul(o, tc)
            seqs = tuple(s + (v,) for s, v in zip(seqs, (h, c, i, j, f, o, tc)))
        hs, cs, i_s, j_s, f_s, o_s, tcs = (prim("Cast")(_a.stack(s, 0), b.dtype) for s in seqs)
        return hs, hs, cs, i_s, j_s, f_s, o_s, tcs


# ------------------------------------------------------------------ DynamicGRUV2
@constexpr
def _gru_shapes(x_shape, wi_shape, wh_shape, bi_shape, bh_shape, h_shape):
    op = "DynamicGRUV2"
    if len(x_shape) != 3:
        raise ValueError(f"For '{op}', 'x' must be [num_step, batch_size, input_size], but got "
                         f"shape {tuple(x_shape)}.")
    _, batch, n_in = x_shape
    hidden = wh_shape[0] if len(wh_shape) == 2 else -1
    if len(wi_shape) != 2 or tuple(wi_shape) != (n_in, 3 * hidden) or \
            tuple(wh_shape) != (hidden, 3 * hidden):
        raise ValueError(f"For '{op}', 'weight_input' must be [input_size, 3H] and "
                         f"'weight_hidden' [H, 3H], but got {tuple(wi_shape)} and "
                         f"{tuple(wh_shape)} for input_size {n_in}.")
    for name, s in (("bias_input", bi_shape), ("bias_hidden", bh_shape)):
        if s is not None and tuple(s) != (3 * hidden,):
            raise ValueError(f"For '{op}', '{name}' must be [{3 * hidden}] or None, but got "
                             f"{tuple(s)}.")
    if tuple(h_shape) != (batch, hidden):
        raise ValueError(f"For '{op}', 'init_h' must be [{batch}, {hidden}], but got "
                         f"{tuple(h_shape)}.")
    return hidden


def _shape_or_none(t):
    return None if t is None else t.shape


class DynamicGRUV2(_Composed):
    """DynamicGRUV2(direction='UNIDIRECTIONAL', cell_depth=1, keep_prob=1.0, cell_clip=-1.0,
    num_proj=0, time_major=True, activation='tanh', gate_order='rzh', reset_after=True,
    is_training=True)(x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length,
    init_h) -> (y, output_h, update, reset, new, hidden_new), each [num_step, batch, H]: a GRU
    over x [num_step, batch, input_size] with weight_input [input_size, 3H], weight_hidden
    [H, 3H] and the biases [3H] (or None), the gate columns in gate_order ('rzh': reset,
    update, new; 'zrh': update, reset, new):
        r = sigmoid(x W_ir + b_ir + h W_hr + b_hr),  z = sigmoid(x W_iz + b_iz + h W_hz + b_hz)
        hidden_new = h W_hn + b_hn,  n = tanh(x W_in + b_in + r hidden_new)
        h_t = (1 - z) n + z h.
    y and output_h are every step's h; update, reset, new and hidden_new every step's z, r, n
    and hidden_new. seq_length must be None and the other options their defaults (the only
    ones MindSpore supports). Computed in float32; the outputs take bias_input's dtype (else
    bias_hidden's, else init_h's)."""

    def __init__(self, direction="UNIDIRECTIONAL", cell_depth=1, keep_prob=1.0, cell_clip=-1.0,
                 num_proj=0, time_major=True, activation="tanh", gate_order="rzh",
                 reset_after=True, is_training=True):
        op = "DynamicGRUV2"
        _check_int(op, "cell_depth", cell_depth)
        _check_int(op, "num_proj", num_proj, positive=False)
        _check_float(op, "keep_prob", keep_prob)
        _check_float(op, "cell_clip", cell_clip)
        for name, v in (("time_major", time_major), ("reset_after", reset_after),
                        ("is_training", is_training)):
            _check_bool(op, name, v)
        if gate_order not in ("rzh", "zrh"):
            raise ValueError(f"For '{op}', 'gate_order' must be 'rzh' or 'zrh', but got "
                             f"{gate_order!r}.")
        for name, v, ok in (("direction", direction, "UNIDIRECTIONAL"),
                            ("activation", activation, "tanh"), ("cell_depth", cell_depth, 1),
                            ("num_proj", num_proj, 0), ("time_major", time_major, True),
                            ("reset_after", reset_after, True),
                            ("keep_prob", float(keep_prob), 1.0)):
            _only(op, name, v, ok)
        if cell_clip >= 0:
            raise ValueError(f"For '{op}', 'cell_clip' supports only negative values (no "
                             f"clipping), but got {cell_clip}.")
        self.gate_order = gate_order
        super().__init__(direction=direction, cell_depth=cell_depth, keep_prob=keep_prob,
                         cell_clip=cell_clip, num_proj=num_proj, time_major=time_major,
                         activation=activation, gate_order=gate_order, reset_after=reset_after,
                         is_training=is_training)

    def __call__(self, x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length,
                 init_h):
        op = "DynamicGRUV2"
        for name, t in (("x", x), ("weight_input", weight_input),
                        ("weight_hidden", weight_hidden), ("init_h", init_h)):
            _check_tensor(op, name, t, _F16_32)
        for name, t in (("bias_input", bias_input), ("bias_hidden", bias_hidden)):
            if t is not None:
                _check_tensor(op, name, t, _F16_32)
        if seq_length is not None:
            raise ValueError(f"For '{op}', 'seq_length' supports only None (as MindSpore).")
        hidden = _gru_shapes(x.shape, weight_input.shape, weight_hidden.shape,
                             _shape_or_none(bias_input), _shape_or_none(bias_hidden),
                             init_h.shape)
        out_dtype = init_h.dtype
        if bias_hidden is not None:
            out_dtype = bias_hidden.dtype
        if bias_input is not None:
            out_dtype = bias_input.dtype
        f32 = _C.float32
        b_i = None if bias_input is None else prim("Cast")(bias_input, f32)
        b_h = None if bias_hidden is None else prim("Cast")(bias_hidden, f32)
        gx = _rnn._project(prim("Cast")(x, f32),
                           _a.transpose(prim("Cast")(weight_input, f32), (1, 0)), b_i)
        w_hh = _a.transpose(prim("Cast")(weight_hidden, f32), (1, 0))  # [3H, H]
        h = prim("Cast")(init_h, f32)
        seqs = ((), (), (), (), ())
        for t in range(x.shape[0]):
            xa, xb, xn = _a.split(gx[t], hidden, -1)
            ha, hb, hn = _a.split(_m.dense(h, w_hh, b_h), hidden, -1)
            a, bgate = _m.sigmoid(_m.add(xa, ha)), _m.sigmoid(_m.add(xb, hb))
            r, z = (a, bgate) if self.gate_order == "rzh" else (bgate, a)
            n = _m.tanh(_m.add(xn, _m.mul(r, hn)))
            h = _m.add(n, _m.mul(z, _m.sub(h, n)))
            seqs = tuple(s + (v,) for s, v in zip(seqs, (h, z, r, n, hn)))
        hs, zs, rs, ns, hns = (prim("Cast")(_a.stack(s, 0), out_dtype) for s in seqs)
        return hs, hs, zs, rs, ns, hns
