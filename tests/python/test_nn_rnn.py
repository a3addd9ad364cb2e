"""The recurrent layers (RNNCell, LSTMCell, GRUCell, RNN, LSTM, GRU) against PyTorch's on the
same weights (the parameter names are the same): outputs, final states, and the gradients
w.r.t. the input, the initial states and every Parameter, through test_nn_layers_more's
harness, in PYNATIVE and GRAPH mode. Stacked and bidirectional layers, batch_first, no bias,
relu, per-sample seq_length (torch: packed sequences), sequences longer than GRAPH mode
unrolls (a compiled loop), dropout between layers, parameter names, argument errors."""

import numpy as np
import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import mycel as ms
from mycel import nn

from test_nn_layer_grads import T, mode, rand  # noqa: F401
from test_nn_layers_more import Case, check_case

I, H = 4, 5
LENGTHS = np.array([5, 2, 4], np.int64)


def flat(out):
    """(output, h_n) or (output, (h_n, c_n)) as a flat tuple."""
    out, h = out
    return (out,) + (tuple(h) if isinstance(h, tuple) else (h,))


def seq(name, cls, tcls, shape=(5, 3, I), n_states=0, lengths=None, tol=1e-5, **kw):
    """A sequence-layer case; n_states initial states are inputs with gradients (h_0, and
    c_0 for LSTM); lengths makes the last input seq_length."""
    lstm = cls is nn.LSTM
    tkw = {("bias" if k == "has_bias" else k): v for k, v in kw.items()}
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    batch = shape[0] if kw.get("batch_first") else shape[1]

    def inputs(npd):
        xs = [rand(*shape, seed=1, dtype=npd)]
        xs += [rand(layers, batch, H, seed=2 + i, dtype=npd) for i in range(n_states)]
        return xs + ([lengths] if lengths is not None else [])

    def call(net, x, *rest):
        states = rest[:n_states]
        hx = None if not states else (tuple(states) if lstm else states[0])
        sl = rest[n_states] if lengths is not None else None
        return flat(net(x, hx, sl))

    def tcall(m, x, *rest):
        states = rest[:n_states]
        hx = None if not states else (tuple(states) if lstm else states[0])
        if lengths is None:
            return flat(m(x, hx))
        packed = pack_padded_sequence(x, torch.from_numpy(lengths),
                                      batch_first=m.batch_first, enforce_sorted=False)
        out, h = m(packed, hx)
        out, _ = pad_packed_sequence(out, batch_first=m.batch_first,
                                     total_length=x.shape[1 if m.batch_first else 0])
        return flat((out, h))

    return Case(name, lambda dt: cls(I, H, dtype=dt, **kw), lambda: tcls(I, H, **tkw), inputs,
                n_grad=1 + n_states, call=call, tcall=tcall, n_out=3 if lstm else 2, tol=tol,
                f64=True)


def cell(name, cls, tcls, with_state=True, **kw):
    lstm = cls is nn.LSTMCell
    tkw = {("bias" if k == "has_bias" else k): v for k, v in kw.items()}
    n_states = (2 if lstm else 1) if with_state else 0

    def inputs(npd):
        return [rand(3, I, seed=1, dtype=npd)] + \
            [rand(3, H, seed=2 + i, dtype=npd) for i in range(n_states)]

    def call(net, x, *states):
        hx = None if not states else (tuple(states) if lstm else states[0])
        out = net(x, hx)
        return tuple(out) if lstm else (out,)

    def tcall(m, x, *states):
        hx = None if not states else (tuple(states) if lstm else states[0])
        out = m(x, hx)
        return tuple(out) if lstm else (out,)

    return Case(name, lambda dt: cls(I, H, dtype=dt, **kw), lambda: tcls(I, H, **tkw), inputs,
                n_grad=1 + n_states, call=call, tcall=tcall, n_out=2 if lstm else 1, f64=True)


CASES = [
    cell("rnncell", nn.RNNCell, torch.nn.RNNCell),
    cell("rnncell-relu-zero-state", nn.RNNCell, torch.nn.RNNCell, False,
         nonlinearity="relu"),
    cell("lstmcell", nn.LSTMCell, torch.nn.LSTMCell),
    cell("lstmcell-no-bias-zero-state", nn.LSTMCell, torch.nn.LSTMCell, False, has_bias=False),
    cell("grucell", nn.GRUCell, torch.nn.GRUCell),
    cell("grucell-no-bias", nn.GRUCell, torch.nn.GRUCell, has_bias=False),
    seq("rnn", nn.RNN, torch.nn.RNN),
    seq("rnn-relu-2l-bi-batch-first-h0", nn.RNN, torch.nn.RNN, shape=(3, 5, I), n_states=1,
        nonlinearity="relu", num_layers=2, bidirectional=True, batch_first=True),
    seq("lstm-2l-bi-h0c0", nn.LSTM, torch.nn.LSTM, n_states=2, num_layers=2,
        bidirectional=True),
    seq("lstm-no-bias-batch-first", nn.LSTM, torch.nn.LSTM, shape=(3, 6, I),
        has_bias=False, batch_first=True),
    seq("gru-3l-bi", nn.GRU, torch.nn.GRU, num_layers=3, bidirectional=True),
    seq("gru-h0", nn.GRU, torch.nn.GRU, n_states=1),
    seq("rnn-seq-length-bi", nn.RNN, torch.nn.RNN, lengths=LENGTHS, bidirectional=True),
    seq("lstm-seq-length-2l-bi-h0c0", nn.LSTM, torch.nn.LSTM, n_states=2, lengths=LENGTHS,
        num_layers=2, bidirectional=True),
    seq("gru-seq-length-batch-first", nn.GRU, torch.nn.GRU, shape=(3, 5, I), lengths=LENGTHS,
        batch_first=True, bidirectional=True),
    # Longer than GRAPH mode unrolls: a compiled loop writing its outputs step by step.
    seq("lstm-long-bi", nn.LSTM, torch.nn.LSTM, shape=(70, 2, I), n_states=2,
        bidirectional=True, tol=1e-4),
    seq("gru-long-seq-length", nn.GRU, torch.nn.GRU, shape=(70, 3, I),
        lengths=np.array([70, 3, 41], np.int64), bidirectional=True, tol=1e-4),
]

PARAMS = [pytest.param(c, ms.float32, id=c.name) for c in CASES] + \
    [pytest.param(c, ms.float64, id=c.name + "-f64") for c in CASES if c.f64]


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_layer_forward_and_gradients_match_torch(mode, case, dtype):
    check_case(case, dtype)


def test_parameter_names_and_shapes():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    tnet = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert [p.name for p in net.get_parameters()] == [n for n, _ in tnet.named_parameters()]
    for p, (_, tp) in zip(net.get_parameters(), tnet.named_parameters()):
        assert p.shape == tuple(tp.shape)
    assert [p.name for p in nn.GRUCell(3, 4, has_bias=False).get_parameters()] == \
        ["weight_ih", "weight_hh"]
    w = nn.RNN(3, 16).weight_hh_l0.asnumpy()  # U(-1/sqrt(hidden), 1/sqrt(hidden))
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.2
    assert "hidden_size=4, num_layers=2" in repr(net)


def test_dropout_between_layers_only_in_training(mode):
    net = nn.GRU(I, H, num_layers=2, dropout=0.5)
    x = T(rand(6, 3, I, seed=3))
    net.set_train(False)
    eval_out, eval_h = net(x)
    ref = nn.GRU(I, H, num_layers=2)
    for p, q in zip(ref.get_parameters(), net.get_parameters()):
        p.set_data(q)
    ref_out, _ = ref(x)
    np.testing.assert_allclose(eval_out.asnumpy(), ref_out.asnumpy(), rtol=1e-6, atol=1e-6)
    net.set_train(True)
    train_out, train_h = net(x)
    # The first layer sees no dropout: its final state is the same in training.
    np.testing.assert_allclose(train_h.asnumpy()[0], eval_h.asnumpy()[0], rtol=1e-6,
                               atol=1e-6)
    assert np.abs(train_out.asnumpy() - eval_out.asnumpy()).max() > 1e-3


@pytest.mark.parametrize("steps", [6, 63, 64, 70])
def test_to_float_computes_in_half_precision(mode, steps):
    """to_float casts the Parameters the layer reads (by name), so the whole step runs in
    float16 and stays close to the float32 result."""
    net = nn.LSTM(I, H, bidirectional=True)
    x = T(rand(steps, 3, I, seed=5))
    want, (want_h, _) = net(x)
    net.to_float(ms.float16)
    got, (got_h, _) = net(x)
    assert got.dtype == got_h.dtype == ms.float16
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), atol=1e-2)
    np.testing.assert_allclose(got_h.asnumpy(), want_h.asnumpy(), atol=1e-2)


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, "nonlinearity must be"),
    (lambda: nn.LSTM(3, 0), ValueError, "'hidden_size' must be a positive int"),
    (lambda: nn.GRU(3, 4, dropout=1.0), ValueError, r"dropout must be a float in \[0, 1\)"),
    (lambda: nn.GRU(3, 4, num_layers=1.5), TypeError, "'num_layers' must be an int"),
    (lambda: nn.LSTM(3, 4, batch_first=1), TypeError, "'batch_first' must be a bool"),
    (lambda: nn.LSTMCell(3.0, 4), TypeError, "'input_size' must be an int"),
])
def test_construction_errors(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: nn.LSTM(I, H)(T(rand(3, I))), ValueError, "'LSTM', the input must be 3-d"),
    (lambda: nn.GRU(I, H)(T(rand(2, 3, I + 1))), ValueError, "with input_size 4"),
    (lambda: nn.RNN(I, H)(T(np.ones((2, 3, I), np.int32))), TypeError, "floating-point"),
    (lambda: nn.RNN(I, H, num_layers=2)(T(rand(2, 3, I)), T(rand(1, 3, H))), ValueError,
     r"hx must have shape \(2, 3, 5\)"),
    (lambda: nn.LSTM(I, H)(T(rand(2, 3, I)), (T(rand(1, 3, H)), T(rand(1, 2, H)))),
     ValueError, r"hx\[1\] must have shape \(1, 3, 5\)"),
    (lambda: nn.GRU(I, H)(T(rand(2, 3, I)), None, T(np.array([1, 2], np.int32))), ValueError,
     r"seq_length must be an int32 or int64 tensor of shape \(3,\)"),
    (lambda: nn.GRU(I, H)(T(rand(2, 3, I)), None, T(np.ones(3, np.float32))), ValueError,
     "seq_length must be an int32 or int64"),
    (lambda: nn.GRUCell(I, H)(T(rand(2, 3, I))), ValueError,
     r"'GRUCell', the input must be 2-d \[batch, input_size\]"),
    (lambda: nn.LSTMCell(I, H)(T(rand(3, I)), (T(rand(3, H)), T(rand(2, H)))), ValueError,
     r"hx\[1\] must have shape \(3, 5\)"),
])
def test_call_errors(mode, call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
