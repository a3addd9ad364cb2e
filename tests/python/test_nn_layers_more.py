"""The activation, normalisation, attention and Transformer layers added for MindSpore 2.x
compatibility, against their PyTorch counterparts on the same weights (the mycel Parameters
copied into the torch module by name): the forward outputs and the gradients w.r.t. the
inputs and every trainable Parameter of sum(out_i * cot_i) for fixed random cotangents, in
PYNATIVE and GRAPH mode (float32, and float64 where noted). Then parameter names, modes
(training vs evaluation, dropout), cloning in the stacks, and argument errors naming the
layer."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import nn, ops

# The mode fixture and data helpers of the layer-gradient tests.
from test_nn_layer_grads import T, mode, rand  # noqa: E402,F401


def torch_name(name):
    """The torch parameter name of a mycel one (dense1/dense2 are torch's linear1/linear2;
    LayerNorm/GroupNorm gamma/beta and PReLU's 'a' are torch's weight/bias)."""
    name = name.replace("dense1.", "linear1.").replace("dense2.", "linear2.")
    head, _, last = name.rpartition(".")
    last = {"gamma": "weight", "beta": "bias", "a": "weight"}.get(last, last)
    return f"{head}.{last}" if head else last


def load_torch(net, tmod):
    """Copies net's Parameters into tmod (by torch_name) and checks that every trainable
    torch parameter has a trainable mycel counterpart and the other way round."""
    tparams = dict(tmod.named_parameters())
    mine = {torch_name(p.name): p for p in net.get_parameters()}
    trainable = {torch_name(p.name) for p in net.trainable_params()}
    assert trainable == set(tparams), (sorted(trainable), sorted(tparams))
    with torch.no_grad():
        for name, tp in tparams.items():
            assert tuple(tp.shape) == mine[name].shape, name
            tp.copy_(torch.from_numpy(mine[name].asnumpy().copy()))
    return tparams


class Case:
    """make(dtype) -> mycel cell; tmake() -> torch module; inputs(np dtype) -> numpy arrays
    (the first n_grad get gradients; the rest are masks); call/tcall(net, *inputs) -> tuple
    of outputs, of which the first n_out are compared."""

    def __init__(self, name, make, tmake, inputs, n_grad=1, call=None, tcall=None, n_out=1,
                 tol=1e-5, f64=False, train=False):
        self.name, self.make, self.tmake, self.inputs = name, make, tmake, inputs
        self.n_grad, self.n_out, self.tol, self.f64, self.train = n_grad, n_out, tol, f64, train
        self.call = call or (lambda net, *xs: (net(*xs),))
        self.tcall = tcall or (lambda m, *xs: (m(*xs),))


def mycel_step(case, net, xs, cots):
    """(outputs, input grads, {torch name: param grad}) through mycel.value_and_grad."""
    weights = net.trainable_params()
    cot = [T(c) for c in cots]

    def loss_fn(*args):
        outs = case.call(net, *args)
        loss = (outs[0] * cot[0]).sum()
        for i in range(1, case.n_out):
            loss = loss + (outs[i] * cot[i]).sum()
        return loss, outs

    fn = ms.value_and_grad(loss_fn, grad_position=tuple(range(case.n_grad)),
                           weights=weights or None, has_aux=True)
    (_, outs), grads = fn(*[T(x) for x in xs])
    dxs, dws = (grads[0], grads[1]) if weights else (grads, ())
    dxs = list(dxs) if isinstance(dxs, tuple) else [dxs]  # grad_position=(0,): the gradient
    return outs, dxs, {torch_name(p.name): g for p, g in zip(weights, dws)}


def torch_step(case, tmod, xs, npd):
    """(outputs, cotangents, input grads, {name: param grad}) of the torch module."""
    txs = [torch.from_numpy(x).requires_grad_(i < case.n_grad) for i, x in enumerate(xs)]
    outs = case.tcall(tmod, *txs)[:case.n_out]
    cots = [rand(*o.shape, seed=90 + i, dtype=npd) for i, o in enumerate(outs)]
    sum((o * torch.from_numpy(c)).sum() for o, c in zip(outs, cots)).backward()
    return ([o.detach().numpy() for o in outs], cots, [x.grad for x in txs[:case.n_grad]],
            {n: p.grad for n, p in tmod.named_parameters()})


# ---- the cases -------------------------------------------------------------------------------

def x_in(*shape, scale=1.0):
    return lambda npd: [rand(*shape, seed=1, dtype=npd) * scale]


def act(name, make, tmake, shape=(2, 3, 4, 5), scale=1.0, **kw):
    return Case(name, lambda dt: make(), tmake, x_in(*shape, scale=scale), **kw)


def prelu(channel, w):
    return Case(f"prelu-{channel}", lambda dt: nn.PReLU(channel, w),
                lambda: torch.nn.PReLU(channel), x_in(2, 3, 4, 5))


def norm(name, make, tmake, shape, train=False, f64=False):
    def make_(dt):
        net = make(dt)
        c = net.gamma.shape[0]
        net.gamma.set_data(T(rand(c, seed=2) + 1.0))
        net.beta.set_data(T(rand(c, seed=3)))
        return net
    return Case(name, make_, tmake, lambda npd: [rand(*shape, seed=4, dtype=npd) * 2 + 1],
                train=train, f64=f64)


L, S, N, E, H = 5, 4, 3, 8, 2


def causal(n):
    return np.triu(np.ones((n, n), bool), 1)


def padding_mask(n, s):
    m = np.zeros((n, s), bool)
    m[0, -1] = m[1, -2:] = True
    return m


def qkv(batch_first=False, kdim=E, vdim=E, unbatched=False, same_len=False):
    s = L if same_len else S

    def shape(t, e):
        if unbatched:
            return (t, e)
        return (N, t, e) if batch_first else (t, N, e)
    return lambda npd: [rand(*shape(L, E), seed=5, dtype=npd),
                        rand(*shape(s, kdim), seed=6, dtype=npd),
                        rand(*shape(s, vdim), seed=7, dtype=npd)]


def with_masks(base, *masks):
    return lambda npd: base(npd) + [m(npd) for m in masks]


def mha(name, inputs, kwargs=None, call=None, tcall=None, n_out=2, f64=False, **mkw):
    tkw = {k: v for k, v in mkw.items() if k != "has_bias"}
    tkw["bias"] = mkw.get("has_bias", True)

    def make(dt):
        net = nn.MultiheadAttention(E, H, dtype=dt, **mkw)
        if mkw.get("has_bias", True):  # non-zero biases, to check their gradients' routing
            net.in_proj_bias.set_data(T(rand(3 * E, seed=8)))
        return net
    kwargs = kwargs or {}
    return Case(name, make, lambda: torch.nn.MultiheadAttention(E, H, **tkw), inputs, n_grad=3,
                call=call or (lambda net, q, k, v: net(q, k, v, **kwargs)),
                tcall=tcall or (lambda m, q, k, v: m(q, k, v, **kwargs)), n_out=n_out,
                f64=f64)


def mha_masks(net, q, k, v, attn_mask, kpm):
    return net(q, k, v, key_padding_mask=kpm, attn_mask=attn_mask)


def torch_float_masks(m, q, k, v, attn_mask, kpm):
    """torch 1.13 cannot add a float key_padding_mask to a float attn_mask: merged here."""
    merged = attn_mask.view(N, H, L, S) + kpm.view(N, 1, 1, S)
    return m(q, k, v, attn_mask=merged.reshape(N * H, L, S))


FF = 16


def layer_case(name, make, tmake, inputs, n_grad, call, tcall, tol=1e-4):
    return Case(name, make, tmake, inputs, n_grad=n_grad, call=call, tcall=tcall, tol=tol)


def enc_layer(name, n_layers=0, **kw):
    tkw = {k: (F.gelu if v == "gelu" else v) for k, v in kw.items()}

    def make(dt):
        layer = nn.TransformerEncoderLayer(E, H, FF, 0.0, dtype=dt, **kw)
        return nn.TransformerEncoder(layer, n_layers, nn.LayerNorm((E,), epsilon=1e-5)) \
            if n_layers else layer

    def tmake():
        layer = torch.nn.TransformerEncoderLayer(E, H, FF, 0.0, **tkw)
        return torch.nn.TransformerEncoder(layer, n_layers, torch.nn.LayerNorm(E),
                                           enable_nested_tensor=False) if n_layers else layer
    bf = kw.get("batch_first", False)
    src = (N, L, E) if bf else (L, N, E)
    return layer_case(name, make, tmake,
                      lambda npd: [rand(*src, seed=9, dtype=npd), causal(L), padding_mask(N, L)],
                      1, lambda net, x, m, kpm: (net(x, m, kpm),),
                      lambda m_, x, m, kpm: (m_(x, m, src_key_padding_mask=kpm),))


def dec_layer(name, n_layers=0, **kw):
    tkw = {k: (F.gelu if v == "gelu" else v) for k, v in kw.items()}

    def make(dt):
        layer = nn.TransformerDecoderLayer(E, H, FF, 0.0, dtype=dt, **kw)
        return nn.TransformerDecoder(layer, n_layers, nn.LayerNorm((E,), epsilon=1e-5)) \
            if n_layers else layer

    def tmake():
        layer = torch.nn.TransformerDecoderLayer(E, H, FF, 0.0, **tkw)
        return torch.nn.TransformerDecoder(layer, n_layers, torch.nn.LayerNorm(E)) \
            if n_layers else layer
    return layer_case(
        name, make, tmake,
        lambda npd: [rand(L, N, E, seed=10, dtype=npd), rand(S, N, E, seed=11, dtype=npd),
                     causal(L), padding_mask(N, S)], 2,
        lambda net, t, mem, m, kpm: (net(t, mem, tgt_mask=m, memory_key_padding_mask=kpm),),
        lambda m_, t, mem, m, kpm: (m_(t, mem, tgt_mask=m, memory_key_padding_mask=kpm),))


def transformer(dt):
    return nn.Transformer(E, H, 1, 2, FF, 0.0, activation="gelu", dtype=dt)


CASES = [
    act("leakyrelu", nn.LeakyReLU, lambda: torch.nn.LeakyReLU(0.2)),
    act("leakyrelu-1.5", lambda: nn.LeakyReLU(1.5), lambda: torch.nn.LeakyReLU(1.5)),
    act("elu", nn.ELU, torch.nn.ELU),
    act("elu-0.5-large", lambda: nn.ELU(0.5), lambda: torch.nn.ELU(0.5), scale=60.0),
    act("hsigmoid", nn.HSigmoid, torch.nn.Hardsigmoid, scale=3.0),
    act("hswish", nn.HSwish, torch.nn.Hardswish, scale=3.0),
    act("softsign", nn.Softsign, torch.nn.Softsign),
    act("tanhshrink", nn.Tanhshrink, torch.nn.Tanhshrink),
    act("hardtanh", nn.Hardtanh, torch.nn.Hardtanh, scale=2.0),
    act("hardtanh-range", lambda: nn.Hardtanh(-0.5, 2.0), lambda: torch.nn.Hardtanh(-0.5, 2.0),
        scale=2.0),
    act("logsoftmax", nn.LogSoftmax, lambda: torch.nn.LogSoftmax(-1)),
    act("logsoftmax-axis1", lambda: nn.LogSoftmax(1), lambda: torch.nn.LogSoftmax(1)),
    act("silu", nn.SiLU, torch.nn.SiLU),
    act("mish", nn.Mish, torch.nn.Mish, scale=10.0),
    prelu(1, 0.25),
    prelu(3, [0.1, -0.2, 0.3]),
    norm("groupnorm", lambda dt: nn.GroupNorm(2, 6, dtype=dt), lambda: torch.nn.GroupNorm(2, 6),
         (3, 6, 4, 5), f64=True),
    norm("groupnorm-3d", lambda dt: nn.GroupNorm(3, 6, eps=1e-3, dtype=dt),
         lambda: torch.nn.GroupNorm(3, 6, eps=1e-3), (3, 6, 7)),
    norm("groupnorm-2d-one-group", lambda dt: nn.GroupNorm(1, 4, dtype=dt),
         lambda: torch.nn.GroupNorm(1, 4), (5, 4)),
    Case("groupnorm-no-affine", lambda dt: nn.GroupNorm(2, 4, affine=False, dtype=dt),
         lambda: torch.nn.GroupNorm(2, 4, affine=False), x_in(2, 4, 3, 3)),
    norm("instancenorm1d", lambda dt: nn.InstanceNorm1d(4, dtype=dt),
         lambda: torch.nn.InstanceNorm1d(4, affine=True), (3, 4, 7)),
    norm("instancenorm2d-train", lambda dt: nn.InstanceNorm2d(3, dtype=dt),
         lambda: torch.nn.InstanceNorm2d(3, affine=True), (2, 3, 5, 6), train=True, f64=True),
    norm("instancenorm2d-eval", lambda dt: nn.InstanceNorm2d(3, eps=1e-3, dtype=dt),
         lambda: torch.nn.InstanceNorm2d(3, eps=1e-3, affine=True), (2, 3, 5, 6)),
    norm("instancenorm3d", lambda dt: nn.InstanceNorm3d(2, dtype=dt),
         lambda: torch.nn.InstanceNorm3d(2, affine=True), (2, 2, 3, 4, 5)),
    mha("mha-self", qkv(same_len=True), f64=True),
    mha("mha-cross-kdim-vdim", qkv(kdim=5, vdim=6), kdim=5, vdim=6),
    mha("mha-batch-first-bool-masks", with_masks(qkv(batch_first=True, same_len=True),
                                                 lambda npd: causal(L),
                                                 lambda npd: padding_mask(N, L)),
        call=mha_masks, tcall=lambda m, q, k, v, am, kpm: m(q, k, v, key_padding_mask=kpm,
                                                             attn_mask=am),
        batch_first=True),
    mha("mha-float-masks", with_masks(qkv(), lambda npd: rand(N * H, L, S, seed=12, dtype=npd),
                                      lambda npd: rand(N, S, seed=13, dtype=npd)),
        call=mha_masks, tcall=torch_float_masks),
    mha("mha-bias-kv-zero-attn", with_masks(qkv(), lambda npd: padding_mask(N, S)),
        call=lambda net, q, k, v, kpm: net(q, k, v, key_padding_mask=kpm),
        tcall=lambda m, q, k, v, kpm: m(q, k, v, key_padding_mask=kpm),
        add_bias_kv=True, add_zero_attn=True),
    mha("mha-no-bias-per-head", qkv(), kwargs={"average_attn_weights": False}, has_bias=False),
    mha("mha-unbatched-3d-mask", with_masks(qkv(unbatched=True),
                                            lambda npd: rand(H, L, S, seed=14, dtype=npd)),
        call=lambda net, q, k, v, am: net(q, k, v, attn_mask=am),
        tcall=lambda m, q, k, v, am: m(q, k, v, attn_mask=am)),
    mha("mha-no-weights", qkv(), kwargs={"need_weights": False}, n_out=1),
    enc_layer("encoder-layer"),
    enc_layer("encoder-layer-norm-first-gelu-batch-first", norm_first=True, activation="gelu",
              batch_first=True),
    enc_layer("encoder-2-layers", n_layers=2),
    dec_layer("decoder-layer"),
    dec_layer("decoder-layer-norm-first", norm_first=True),
    dec_layer("decoder-2-layers", n_layers=2),
    layer_case("transformer", transformer,
               lambda: torch.nn.Transformer(E, H, 1, 2, FF, 0.0, activation=F.gelu),
               lambda npd: [rand(S, N, E, seed=15, dtype=npd), rand(L, N, E, seed=16, dtype=npd),
                            causal(L), padding_mask(N, S)], 2,
               lambda net, s, t, m, kpm: (net(s, t, tgt_mask=m, src_key_padding_mask=kpm,
                                              memory_key_padding_mask=kpm),),
               lambda m_, s, t, m, kpm: (m_(s, t, tgt_mask=m, src_key_padding_mask=kpm,
                                            memory_key_padding_mask=kpm),)),
]

PARAMS = [pytest.param(c, ms.float32, id=c.name) for c in CASES] + \
    [pytest.param(c, ms.float64, id=c.name + "-f64") for c in CASES if c.f64]


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_layer_forward_and_gradients_match_torch(mode, case, dtype):
    check_case(case, dtype)


def check_case(case, dtype):
    """Runs `case` in mycel and torch on the same weights and inputs and compares the outputs
    and the gradients w.r.t. the inputs and every trainable Parameter."""
    npd = np.float64 if dtype == ms.float64 else np.float32
    net = case.make(dtype)
    net.set_train(case.train)
    tmod = case.tmake().to(torch.float64 if dtype == ms.float64 else torch.float32)
    tmod.train(case.train)
    load_torch(net, tmod)
    xs = case.inputs(npd)
    outs_t, cots, dxs_t, dws_t = torch_step(case, tmod, xs, npd)
    outs, dxs, dws = mycel_step(case, net, xs, cots)

    tol = case.tol if dtype == ms.float32 else 1e-10
    for i, out_t in enumerate(outs_t):
        assert outs[i].dtype == dtype and outs[i].shape == out_t.shape, i
        np.testing.assert_allclose(outs[i].asnumpy(), out_t, rtol=tol, atol=tol, err_msg=str(i))
    if case.n_out == 1 and len(outs) == 2:  # need_weights=False
        assert outs[1] is None
    assert len(dxs) == len(dxs_t) == case.n_grad
    for i, (g, g_t) in enumerate(zip(dxs, dxs_t)):
        assert g.dtype == dtype, i
        np.testing.assert_allclose(g.asnumpy(), g_t.numpy(), rtol=tol, atol=tol,
                                   err_msg=f"input {i}")
    assert set(dws) == set(dws_t)
    for name, g in dws.items():
        np.testing.assert_allclose(g.asnumpy(), dws_t[name].numpy(), rtol=tol, atol=tol,
                                   err_msg=name)


def run(fn, *xs):
    """fn on numpy inputs (as Tensors) in the current mode (under jit in GRAPH mode), as
    numpy."""
    f = ms.jit(fn) if ms.get_context("mode") == ms.GRAPH_MODE else fn
    return f(*[T(x) for x in xs]).asnumpy()


# ---- parameters, modes, cloning ---------------------------------------------------------------

def names(cell):
    return [p.name for p in cell.get_parameters()]


def test_parameter_names_and_defaults():
    inorm = nn.InstanceNorm2d(3)
    assert names(inorm) == ["gamma", "beta", "mean", "variance"]
    assert [p.name for p in inorm.trainable_params()] == ["gamma", "beta"]
    assert inorm.momentum == 0.1 and inorm.eps == 1e-5
    assert nn.InstanceNorm1d(3, affine=False).trainable_params() == []
    gn = nn.GroupNorm(2, 4)
    assert names(gn) == ["gamma", "beta"] and gn.eps == 1e-5
    np.testing.assert_array_equal(gn.gamma.asnumpy(), np.ones(4, np.float32))
    prelu = nn.PReLU()
    assert names(prelu) == ["a"] and prelu.w.shape == (1,)
    np.testing.assert_array_equal(nn.PReLU(3, 0.1).w.asnumpy(), np.full(3, 0.1, np.float32))
    assert nn.LeakyReLU().alpha == 0.2
    assert names(nn.MultiheadAttention(8, 2)) == ["in_proj_weight", "in_proj_bias",
                                                  "out_proj.weight", "out_proj.bias"]
    assert names(nn.MultiheadAttention(8, 2, has_bias=False, add_bias_kv=True, kdim=4)) == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v",
        "out_proj.weight"]
    mha = nn.MultiheadAttention(8, 2, has_bias=False, kdim=4)
    assert mha.in_proj_weight is None and mha.in_proj_bias is None and mha.bias_k is None
    dec = nn.TransformerDecoderLayer(8, 2)
    assert dec.dim_feedforward == 2048 and dec.dropout_num == 0.1 and dec.layernorm_eps == 1e-5
    assert names(dec)[:6] == ["self_attn.in_proj_weight", "self_attn.in_proj_bias",
                              "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                              "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias"]
    assert names(dec)[8:] == ["dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias",
                              "norm1.gamma", "norm1.beta", "norm2.gamma", "norm2.beta",
                              "norm3.gamma", "norm3.beta"]
    for n in ("leakyrelu", "elu", "prelu", "hswish", "hsigmoid", "mish", "silu", "logsoftmax",
              "softsign", "tanhshrink", "hardtanh"):
        assert type(nn.get_activation(n)).__name__.lower() == n


def test_stacks_hold_independent_copies(mode):
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 3)
    assert len(enc.layers) == 3 and names(enc)[0] == "layers.0.self_attn.in_proj_weight"
    assert len(set(names(enc))) == len(names(enc)) == 3 * len(names(layer))
    w = [lay.self_attn.in_proj_weight for lay in enc.layers]
    for p in w:
        np.testing.assert_array_equal(p.asnumpy(), layer.self_attn.in_proj_weight.asnumpy())
    w[1].set_data(T(np.zeros((24, 8), np.float32)))
    assert w[0].asnumpy().any() and layer.self_attn.in_proj_weight.asnumpy().any()
    # Each copy is used: zeroing layer 1's weights changes the output.
    enc2 = nn.TransformerEncoder(layer, 3)
    x = T(rand(4, 2, 8, seed=20))
    assert not np.allclose(enc(x).asnumpy(), enc2(x).asnumpy())


def test_transformer_xavier_init_and_shapes(mode):
    ms.set_seed(1)
    net = nn.Transformer(8, 2, 2, 1, 16, 0.0, batch_first=True)
    for p in net.get_parameters():
        if p.ndim > 1:
            bound = np.sqrt(6.0 / (p.shape[0] + p.shape[1]))
            assert np.abs(p.asnumpy()).max() <= bound + 1e-6, p.name
    out = net(T(rand(2, 5, 8, seed=21)), T(rand(2, 3, 8, seed=22)))
    assert out.shape == (2, 3, 8)
    out = net(T(rand(5, 8, seed=21)), T(rand(3, 8, seed=22)))  # unbatched
    assert out.shape == (3, 8)


def test_instance_norm_same_in_train_and_eval_and_moving_stats_kept(mode):
    net = nn.InstanceNorm2d(3, gamma_init=T(rand(3, seed=23)), beta_init=T(rand(3, seed=24)))
    x = T(rand(2, 3, 4, 4, seed=25) * 3 + 2)
    train = net.set_train(True)(x).asnumpy()
    evl = net.set_train(False)(x).asnumpy()
    np.testing.assert_allclose(train, evl, rtol=1e-6)
    np.testing.assert_array_equal(net.moving_mean.asnumpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(net.moving_variance.asnumpy(), np.ones(3, np.float32))


def test_mha_dropout_applies_in_training_only(mode):
    ms.set_seed(2)
    net = nn.MultiheadAttention(8, 2, dropout=0.5)
    q = T(rand(6, 3, 8, seed=26))
    kw = {"average_attn_weights": False}
    _, w_eval = net(q, q, q, **kw)
    w_eval = w_eval.asnumpy()
    np.testing.assert_allclose(w_eval.sum(-1), 1.0, rtol=1e-5)
    _, w_train = net.set_train()(q, q, q, **kw)
    w_train = w_train.asnumpy()
    dropped = w_train == 0
    assert 0.3 < dropped.mean() < 0.7
    np.testing.assert_allclose(w_train[~dropped], 2 * w_eval[~dropped], rtol=1e-5)


def test_activation_cells_and_callables_in_layers(mode):
    """'relu', nn.ReLU(), ops.relu give the same layer output; 'gelu' is the exact GELU."""
    x = T(rand(4, 2, 8, seed=27))
    ref = nn.TransformerEncoderLayer(8, 2, 16, 0.0)
    outs = []
    for act in ("relu", nn.ReLU(), ops.relu):
        layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=act)
        for p, q in zip(ref.get_parameters(), layer.get_parameters()):
            q.set_data(p.copy())
        outs.append(layer(x).asnumpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    np.testing.assert_allclose(outs[2], outs[0], rtol=1e-6)
    assert isinstance(nn.TransformerEncoderLayer(8, 2, activation="gelu").activation, nn.GELU)
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation.approximate is False


# ---- argument errors ---------------------------------------------------------------------------

CONSTRUCTION_ERRORS = [
    (lambda: nn.LeakyReLU("0.2"), TypeError, "'LeakyReLU', 'alpha' must be a float"),
    (lambda: nn.ELU(alpha=None), TypeError, "'ELU', 'alpha' must be a float"),
    (lambda: nn.Hardtanh(1.0, -1.0), ValueError, "'Hardtanh', min_val must be less than"),
    (lambda: nn.LogSoftmax(1.5), TypeError, "'LogSoftmax', axis must be an int"),
    (lambda: nn.PReLU(0), ValueError, "'PReLU', 'channel' must be a positive int"),
    (lambda: nn.PReLU(3, [0.1, 0.2]), ValueError, r"'PReLU', a list 'w' must hold 'channel'"),
    (lambda: nn.PReLU(2, T(np.ones(3, np.float32))), ValueError, r"'PReLU', a tensor 'w' must "
                                                                 r"have shape \(2,\)"),
    (lambda: nn.PReLU(1, "x"), TypeError, "'PReLU', 'w' must be a float"),
    (lambda: nn.GroupNorm(4, 6), ValueError, r"'GroupNorm', num_channels \(6\) must be "
                                             r"divisible by num_groups \(4\)"),
    (lambda: nn.GroupNorm(0, 6), ValueError, "'GroupNorm', 'num_groups' must be a positive"),
    (lambda: nn.GroupNorm(2, 4, eps=0), ValueError, "'GroupNorm', 'eps' must be in"),
    (lambda: nn.GroupNorm(2, 4, affine=1), TypeError, "'GroupNorm', 'affine' must be a bool"),
    (lambda: nn.InstanceNorm2d(3.0), TypeError, "'InstanceNorm2d', 'num_features' must be an "
                                                "int"),
    (lambda: nn.InstanceNorm1d(3, momentum=1.5), ValueError, "'InstanceNorm1d', 'momentum' "
                                                             "must be in"),
    (lambda: nn.MultiheadAttention(10, 3), ValueError, r"'MultiheadAttention', 'embed_dim' "
                                                       r"\(10\) must be divisible"),
    (lambda: nn.MultiheadAttention(8, 2, dropout=1.0), ValueError, "'MultiheadAttention', "
                                                                   "'dropout' must be in"),
    (lambda: nn.MultiheadAttention(8, 2, batch_first=1), TypeError, "'MultiheadAttention', "
                                                                    "'batch_first' must be"),
    (lambda: nn.MultiheadAttention(8, 2, kdim=0), ValueError, "'MultiheadAttention', 'kdim'"),
    (lambda: nn.TransformerEncoderLayer(8, 3), ValueError, r"'TransformerEncoderLayer', "
                                                           r"'d_model' \(8\) must be divisible "
                                                           r"by 'nhead' \(3\)"),
    (lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"), ValueError,
     "'TransformerEncoderLayer', the activation must be 'relu' or 'gelu'"),
    (lambda: nn.TransformerDecoderLayer(8, 2, activation=3), TypeError,
     "'TransformerDecoderLayer', the activation must be a str, a Cell or a callable"),
    (lambda: nn.TransformerDecoderLayer(8, 2, layer_norm_eps=-1.0), ValueError,
     "'TransformerDecoderLayer', 'layer_norm_eps' must be positive"),
    (lambda: nn.TransformerEncoderLayer(8, 2, norm_first="no"), TypeError,
     "'TransformerEncoderLayer', 'norm_first' must be a bool"),
    (lambda: nn.TransformerEncoder(nn.TransformerDecoderLayer(8, 2, 16), 2), TypeError,
     "'TransformerEncoder', the layer must be a TransformerEncoderLayer"),
    (lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 0), ValueError,
     "'TransformerDecoder', 'num_layers' must be a positive int"),
    (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1, norm="ln"),
     TypeError, "'TransformerEncoder', norm must be a Cell or None"),
    (lambda: nn.Transformer(8, 2, dim_feedforward=0), ValueError,
     "'TransformerEncoderLayer', 'dim_feedforward' must be a positive int"),
]


@pytest.mark.parametrize("make,exc,msg", CONSTRUCTION_ERRORS,
                         ids=[f"{i}" for i in range(len(CONSTRUCTION_ERRORS))])
def test_construction_errors(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


def _mha_call(**kw):
    q = T(rand(5, 3, 8, seed=30))
    return lambda: nn.MultiheadAttention(8, 2)(q, q, q, **kw)


CALL_ERRORS = [
    (lambda: nn.GroupNorm(2, 4)(T(rand(2, 6, 3))), ValueError,
     r"'GroupNorm', the input's channel dimension \(shape\[1\] = 6\) must equal num_channels "
     r"\(4\)"),
    (lambda: nn.InstanceNorm2d(3)(T(rand(2, 3, 4))), ValueError,
     r"'InstanceNorm2d', the input must be 4-d"),
    (lambda: nn.InstanceNorm1d(3)(T(rand(2, 4, 5))), ValueError,
     r"'InstanceNorm1d', the input's channel dimension \(shape\[1\] = 4\) must equal "
     r"num_features \(3\)"),
    (lambda: nn.PReLU(3)(T(rand(2, 4, 5))), ValueError,
     r"'PReLU', the input's channel dimension \(shape\[1\] = 4\) must equal channel \(3\)"),
    (lambda: nn.MultiheadAttention(8, 2)(T(rand(5, 3, 8)), T(rand(4, 3, 6)), T(rand(4, 3, 8))),
     ValueError, "'MultiheadAttention', the last dimension of key must be 8"),
    (lambda: nn.MultiheadAttention(8, 2)(T(rand(5, 3, 8)), T(rand(4, 2, 8)), T(rand(4, 2, 8))),
     ValueError, "'MultiheadAttention', key and value must have the same sequence length"),
    (lambda: nn.MultiheadAttention(8, 2)(T(rand(5, 8)), T(rand(4, 3, 8)), T(rand(4, 3, 8))),
     ValueError, "'MultiheadAttention', query, key and value must all be 3-d"),
    (_mha_call(attn_mask=T(np.zeros((5, 5), np.int32))), TypeError,
     "'MultiheadAttention', attn_mask must be a bool or floating-point tensor, but got Int32"),
    (_mha_call(key_padding_mask=T(np.zeros((3, 5), np.int64))), TypeError,
     "'MultiheadAttention', key_padding_mask must be a bool or floating-point tensor"),
    (_mha_call(attn_mask=T(np.zeros((5, 4), bool))), ValueError,
     r"'MultiheadAttention', attn_mask must have shape \(5, 5\) or \(6, 5, 5\)"),
    (_mha_call(key_padding_mask=T(np.zeros((5, 3), bool))), ValueError,
     r"'MultiheadAttention', key_padding_mask must have shape \(3, 5\)"),
    (lambda: nn.Transformer(8, 2, 1, 1, 16)(T(rand(5, 2, 8)), T(rand(3, 4, 8))), ValueError,
     "'Transformer', src and tgt must have the same batch size"),
    (lambda: nn.Transformer(8, 2, 1, 1, 16)(T(rand(5, 2, 8)), T(rand(3, 2, 6))), ValueError,
     r"'Transformer', the feature size of src and tgt must equal d_model \(8\)"),
]


@pytest.mark.parametrize("call,exc,msg", CALL_ERRORS,
                         ids=[f"{i}" for i in range(len(CALL_ERRORS))])
def test_call_errors(mode, call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
