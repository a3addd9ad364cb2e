"""mycel.mint (MindSpore 2.x's torch-style namespace) against PyTorch, in PYNATIVE and GRAPH
mode (jit): torch signatures (dim/keepdim, max with dim, clamp's overloads, equal,
allclose), creation functions, mint.nn.functional and the mint.nn layers on the same weights
(forward and gradients)."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import mint, nn, ops, Tensor

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(autouse=True)
def _restore_mode():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _run(mode, fn, *args):
    """fn(*args) eagerly, or compiled by jit in GRAPH mode."""
    ms.set_context(mode=mode)
    if mode == ms.GRAPH_MODE:
        return ms.jit(fn)(*args)
    return fn(*args)


def _np(x):
    return x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)


def _close(got, want, tol=1e-5):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    got = _np(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)
Y = RNG.standard_normal((3, 4, 5)).astype(np.float32)


def f_reductions(x):
    return (mint.sum(x, 1), mint.sum(x, (0, 2), True), mint.mean(x, -1, True),
            mint.prod(x, 2), mint.amax(x, 1), mint.amin(x, (1, 2), True),
            mint.std(x, 1), mint.var(x, 2, correction=0, keepdim=True),
            mint.logsumexp(x, 1), mint.cumsum(x, 2), mint.norm(x, 2, 1), mint.norm(x, 1, -1))


@pytest.mark.parametrize("mode", MODES)
def test_reductions_match_torch(mode):
    got = _run(mode, f_reductions, Tensor(X))
    t = torch.tensor(X)
    want = (t.sum(1), t.sum((0, 2), True), t.mean(-1, True), t.prod(2), t.amax(1),
            t.amin((1, 2), True), t.std(1), t.var(2, correction=0, keepdim=True),
            t.logsumexp(1), t.cumsum(2), t.norm(2, 1), t.norm(1, -1))
    for g, w in zip(got, want):
        _close(g, w, 1e-4)


def f_max_min(x, y):
    v, i = mint.max(x, 1)
    v2, i2 = mint.min(x, 2, True)
    return v, i, v2, i2, mint.max(x), mint.max(x, y), mint.argmax(x, 2), mint.argmin(x)


@pytest.mark.parametrize("mode", MODES)
def test_max_min_overloads(mode):
    v, i, v2, i2, m, mm, am, an = _run(mode, f_max_min, Tensor(X), Tensor(Y))
    t, u = torch.tensor(X), torch.tensor(Y)
    tv, ti = t.max(1)
    tv2, ti2 = t.min(2, True)
    _close(v, tv)
    _close(i, ti)
    _close(v2, tv2)
    _close(i2, ti2)
    _close(m, t.max())
    _close(mm, torch.max(t, u))
    _close(am, t.argmax(2))
    _close(an, t.argmin())


def f_clamp(x, lo, hi):
    return mint.clamp(x, lo, hi), mint.clamp(x, min=0.5), mint.clamp(x, -0.2, 0.3), \
        mint.clamp(x, max=hi)


@pytest.mark.parametrize("mode", MODES)
def test_clamp_overloads(mode):
    lo, hi = Tensor(np.float32(-0.5)), Tensor(np.float32(0.5))
    a, b, c, d = _run(mode, f_clamp, Tensor(X), lo, hi)
    t = torch.tensor(X)
    _close(a, t.clamp(-0.5, 0.5))
    _close(b, t.clamp(min=0.5))
    _close(c, t.clamp(-0.2, 0.3))
    _close(d, t.clamp(max=0.5))


def f_clamp_mixed(x, lo):
    return mint.clamp(x, lo, 4)


@pytest.mark.parametrize("mode", MODES)
def test_clamp_mixed_bounds_is_a_type_error(mode):
    with pytest.raises(TypeError, match="Failed calling clamp with"):
        _run(mode, f_clamp_mixed, Tensor(X), Tensor(np.float32(0)))
    with pytest.raises(ValueError, match="at least one"):
        mint.clamp(Tensor(X))


def f_equal(x, y):
    return mint.equal(x, x), mint.equal(x, y), mint.allclose(x, x + 1e-7), \
        mint.allclose(x, y), mint.allclose(x, y, 1.0, 10.0)


@pytest.mark.parametrize("mode", MODES)
def test_equal_and_allclose(mode):
    got = _run(mode, f_equal, Tensor(X), Tensor(Y))
    t, u = torch.tensor(X), torch.tensor(Y)
    want = (torch.equal(t, t), torch.equal(t, u), torch.allclose(t, t + 1e-7),
            torch.allclose(t, u), torch.allclose(t, u, 1.0, 10.0))
    assert [bool(g) for g in got] == list(want)
    assert mint.equal(Tensor(X), Tensor(X[:1])) is False  # shapes differ


def f_arith(x, y):
    return mint.add(x, y, alpha=2), mint.sub(x, y, alpha=0.5), mint.mul(x, y), mint.div(x, 2.0)


@pytest.mark.parametrize("mode", MODES)
def test_arithmetic_alpha(mode):
    got = _run(mode, f_arith, Tensor(X), Tensor(Y))
    t, u = torch.tensor(X), torch.tensor(Y)
    for g, w in zip(got, (torch.add(t, u, alpha=2), torch.sub(t, u, alpha=0.5), t * u, t / 2)):
        _close(g, w)


def f_shapes(x, y, idx):
    parts = mint.split(x, 2, 1)
    chunks = mint.chunk(x, 3, 2)
    s, i = mint.sort(x, 1, True)
    return (mint.cat((x, y), 1), mint.stack((x, y), 0), parts[0], parts[1], chunks[2],
            mint.transpose(x, 0, 2), mint.gather(x, 2, idx), s, i, mint.argsort(x, -1),
            mint.narrow(x, 2, 1, 3), mint.squeeze(mint.unsqueeze(x, 1), 1),
            mint.softmax(x, 1), mint.log_softmax(x, -1))


@pytest.mark.parametrize("mode", MODES)
def test_shape_functions(mode):
    idx = RNG.integers(0, 5, (3, 4, 2)).astype(np.int64)
    got = _run(mode, f_shapes, Tensor(X), Tensor(Y), Tensor(idx))
    t, u = torch.tensor(X), torch.tensor(Y)
    ts, ti = t.sort(1, True)
    want = (torch.cat((t, u), 1), torch.stack((t, u), 0), t.split(2, 1)[0], t.split(2, 1)[1],
            t.chunk(3, 2)[2], t.transpose(0, 2), t.gather(2, torch.tensor(idx)), ts, ti,
            t.argsort(-1), t.narrow(2, 1, 3), t, t.softmax(1), t.log_softmax(-1))
    for g, w in zip(got, want):
        _close(g, w)


def test_creation():
    _close(mint.zeros(2, 3), torch.zeros(2, 3))
    _close(mint.ones((2, 3), dtype=ms.int32), torch.ones((2, 3), dtype=torch.int32))
    _close(mint.eye(3, 4), torch.eye(3, 4))
    _close(mint.full_like(Tensor(X), 7.0), torch.full_like(torch.tensor(X), 7.0))
    _close(mint.arange(1, 10, 3), torch.arange(1, 10, 3))
    _close(mint.linspace(0, 1, 5), torch.linspace(0, 1, 5))
    assert mint.zeros(2, 3).dtype == ms.float32


IMG = RNG.standard_normal((2, 6, 7, 7)).astype(np.float32)


def f_functional(x):
    F = mint.nn.functional
    return (F.hardtanh(x, -0.5, 0.5), F.leaky_relu(x, 0.2), F.logsigmoid(x),
            F.normalize(x, 2.0, 1), F.group_norm(x, 3), F.layer_norm(x, (7, 7)),
            F.max_pool2d(x, 2), F.avg_pool2d(x, 3, 2), F.gelu(x, "tanh"), F.softmax(x, 1),
            F.relu6(x), F.elu(x, 0.5))


@pytest.mark.parametrize("mode", MODES)
def test_functional_matches_torch(mode):
    got = _run(mode, f_functional, Tensor(IMG))
    t = torch.tensor(IMG)
    F = torch.nn.functional
    want = (F.hardtanh(t, -0.5, 0.5), F.leaky_relu(t, 0.2), F.logsigmoid(t),
            F.normalize(t, 2.0, 1), F.group_norm(t, 3), F.layer_norm(t, (7, 7)),
            F.max_pool2d(t, 2), F.avg_pool2d(t, 3, 2), F.gelu(t, approximate="tanh"),
            F.softmax(t, 1), F.relu6(t), F.elu(t, 0.5))
    for g, w in zip(got, want):
        _close(g, w, 1e-4)


def f_conv_linear(x, w, b, lw, lb):
    F = mint.nn.functional
    y = F.conv2d(x, w, b, 1, 1)
    z = F.conv2d(x, w, None, 2, (0, 1))
    return y, z, F.linear(mint.flatten(y, 1), lw, lb)


@pytest.mark.parametrize("mode", MODES)
def test_conv2d_padding_and_linear(mode):
    w = RNG.standard_normal((4, 6, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    lw = RNG.standard_normal((5, 4 * 49)).astype(np.float32)
    lb = RNG.standard_normal(5).astype(np.float32)
    y, z, out = _run(mode, f_conv_linear, *map(Tensor, (IMG, w, b, lw, lb)))
    F = torch.nn.functional
    t = torch.tensor(IMG)
    ty = F.conv2d(t, torch.tensor(w), torch.tensor(b), 1, 1)
    _close(y, ty, 1e-4)
    _close(z, F.conv2d(t, torch.tensor(w), None, 2, (0, 1)), 1e-4)
    _close(out, F.linear(ty.flatten(1), torch.tensor(lw), torch.tensor(lb)), 1e-3)


def test_hardtanh_inplace_writes_input():
    x = Tensor(X.copy())
    out = mint.nn.functional.hardtanh_(x, -0.1, 0.1)
    _close(x, np.clip(X, -0.1, 0.1))
    _close(out, np.clip(X, -0.1, 0.1))
    with pytest.raises(ValueError, match="min_val"):
        mint.nn.functional.hardtanh(Tensor(X), 1.0, 0.0)


def _torch_layer_pair(kind):
    torch.manual_seed(0)
    if kind == "linear":
        return mint.nn.Linear(6, 3), torch.nn.Linear(6, 3), (4, 6)
    if kind == "conv":
        return (mint.nn.Conv2d(6, 4, 3, padding=1, stride=2), torch.nn.Conv2d(6, 4, 3, padding=1,
                                                                            stride=2), (2, 6, 7, 7))
    if kind == "groupnorm":
        return mint.nn.GroupNorm(3, 6), torch.nn.GroupNorm(3, 6), (2, 6, 5, 5)
    return mint.nn.LayerNorm((5, 5)), torch.nn.LayerNorm((5, 5)), (2, 6, 5, 5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["linear", "conv", "groupnorm", "layernorm"])
def test_layers_match_torch_forward_and_grad(mode, kind):
    ms.set_context(mode=mode)
    cell, tmod, shape = _torch_layer_pair(kind)
    with torch.no_grad():  # random affine weights, the same on both sides
        for p in tmod.parameters():
            p.copy_(torch.randn(p.shape))
    names = {"weight": "weight", "bias": "bias"}
    for name, p in cell.parameters_and_names():
        key = name.split(".")[-1]
        src = dict(tmod.named_parameters())[names[key]]
        p.set_data(Tensor(src.detach().numpy()))
    x = RNG.standard_normal(shape).astype(np.float32)
    xt = torch.tensor(x, requires_grad=True)
    yt = tmod(xt)
    (yt * yt).sum().backward()

    def loss(v):
        y = cell(v)
        return (y * y).sum()

    out = cell(Tensor(x))
    _close(out, yt, 1e-4)
    gx = ms.grad(loss)(Tensor(x))
    _close(gx, xt.grad, 1e-3)


def test_batchnorm_momentum_is_torchs():
    bn, tbn = mint.nn.BatchNorm2d(3, momentum=0.3), torch.nn.BatchNorm2d(3, momentum=0.3)
    x = RNG.standard_normal((4, 3, 5, 5)).astype(np.float32)
    bn.set_train(True)
    _close(bn(Tensor(x)), tbn(torch.tensor(x)), 1e-4)
    _close(bn.moving_mean, tbn.running_mean, 1e-5)
    _close(bn.moving_variance, tbn.running_var, 1e-4)
    bn.set_train(False)
    tbn.eval()
    _close(bn(Tensor(x)), tbn(torch.tensor(x)), 1e-4)


def test_optim_adamw_matches_torch():
    w0 = RNG.standard_normal((3, 2)).astype(np.float32)
    p = ms.Parameter(Tensor(w0), "w")
    opt = mint.optim.AdamW([p], lr=0.1, betas=(0.8, 0.9), weight_decay=0.05)
    tp = torch.tensor(w0, requires_grad=True)
    topt = torch.optim.AdamW([tp], lr=0.1, betas=(0.8, 0.9), weight_decay=0.05)
    for step in range(3):
        g = np.full((3, 2), 0.1 * (step + 1), np.float32)
        opt((Tensor(g),))
        tp.grad = torch.tensor(g)
        topt.step()
    _close(p, tp, 1e-5)


def test_namespace_is_importable_as_mindspore_names():
    from mycel.mint import clamp  # noqa: F401  (as ``from mindspore.mint import clamp``)
    assert ms.mint is mint
    assert mint.nn.functional is mint.functional
    for name in ("add", "equal", "zeros_like", "allclose", "all", "sum", "max", "cat"):
        assert name in mint.__all__


def f_more(a, b, v, x):
    g0, g1 = mint.meshgrid(v, mint.arange(0.0, 2.0, 0.5), indexing="xy")
    s, m = mint.std_mean(x, 1)
    return (mint.mm(a, b), mint.mv(a, v), mint.t(a), mint.diff(x, 1, 2), s, m,
            mint.take(x, mint.arange(0, 7)), g0, g1,
            mint.linalg.vector_norm(x, 3, 1), mint.linalg.matrix_norm(x), mint.linalg.inv(
                mint.mm(a, mint.t(a)) + mint.eye(4)), mint.special.logit(mint.sigmoid(x), 1e-6),
            mint.special.erfc(x), mint.count_nonzero(x > 0.5, 1), mint.count_nonzero(x > 0))


@pytest.mark.parametrize("mode", MODES)
def test_more_functions_match_torch(mode):
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    b = RNG.standard_normal((3, 2)).astype(np.float32)
    v = RNG.standard_normal(3).astype(np.float32)
    got = _run(mode, f_more, *map(Tensor, (a, b, v, X)))
    ta, tb, tv, tx = map(torch.tensor, (a, b, v, X))
    g0, g1 = torch.meshgrid(tv, torch.arange(0.0, 2.0, 0.5), indexing="xy")
    s, m = torch.std_mean(tx, 1)
    want = (ta.mm(tb), ta.mv(tv), ta.t(), tx.diff(1, 2), s, m, tx.take(torch.arange(0, 7)), g0,
            g1, torch.linalg.vector_norm(tx, 3, 1), torch.linalg.matrix_norm(tx),
            torch.linalg.inv(ta.mm(ta.t()) + torch.eye(4)),
            torch.special.logit(torch.sigmoid(tx), 1e-6), torch.special.erfc(tx),
            torch.count_nonzero(tx > 0.5, 1), torch.count_nonzero(tx > 0))
    for g, w in zip(got, want):
        _close(g, w, 1e-4)
    with pytest.raises(ValueError, match="'mm'"):
        mint.mm(Tensor(X), Tensor(a))


def f_extra(x, v, w, pw, cw):
    F = mint.nn.functional
    return (mint.select(x, 1, -1), mint.unbind(x, 2)[3], mint.dot(v, v), mint.hstack((v, v)),
            mint.dstack((x[0], x[1])), mint.diag(v, 1), mint.diag(v, -2), mint.diag(x[0]),
            mint.arcsinh(x), mint.fix(x * 3), F.glu(x, 1), F.prelu(w, pw), F.conv1d(w, cw, None,
                                                                                1, 1))


@pytest.mark.parametrize("mode", MODES)
def test_extra_functions_match_torch(mode):
    v = RNG.standard_normal(3).astype(np.float32)
    w = RNG.standard_normal((2, 4, 6)).astype(np.float32)
    pw = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    cw = RNG.standard_normal((5, 4, 3)).astype(np.float32)
    got = _run(mode, f_extra, *map(Tensor, (X, v, w, pw, cw)))
    tx, tv, tw, tpw, tcw = map(torch.tensor, (X, v, w, pw, cw))
    F = torch.nn.functional
    want = (tx.select(1, -1), tx.unbind(2)[3], tv.dot(tv), torch.hstack((tv, tv)),
            torch.dstack((tx[0], tx[1])), torch.diag(tv, 1), torch.diag(tv, -2),
            torch.diag(tx[0]), torch.arcsinh(tx), torch.fix(tx * 3), F.glu(tx, 1),
            F.prelu(tw, tpw), F.conv1d(tw, tcw, None, 1, 1))
    for g, wt in zip(got, want):
        _close(g, wt, 1e-4)


def test_extra_layers_and_random():
    torch.manual_seed(0)
    glu, tglu = mint.nn.GLU(1), torch.nn.GLU(1)
    _close(glu(Tensor(X)), tglu(torch.tensor(X)))
    prelu = mint.nn.PReLU(4, 0.1)
    w = RNG.standard_normal((2, 4, 6)).astype(np.float32)
    _close(prelu(Tensor(w)), torch.nn.PReLU(4, 0.1)(torch.tensor(w)))
    conv, tconv = mint.nn.Conv1d(4, 3, 3, padding=1), torch.nn.Conv1d(4, 3, 3, padding=1)
    conv.weight.set_data(Tensor(tconv.weight.detach().numpy()))
    conv.bias.set_data(Tensor(tconv.bias.detach().numpy()))
    _close(conv(Tensor(w)), tconv(torch.tensor(w)), 1e-4)
    ms.set_seed(3)
    z = mint.normal(2.0, 0.5, (4000,)).asnumpy()
    assert abs(z.mean() - 2.0) < 0.05 and abs(z.std() - 0.5) < 0.05
    z = mint.normal(Tensor(np.full((2000,), -1.0, np.float32)), Tensor(np.float32(3.0)))
    assert z.shape == (2000,) and abs(z.asnumpy().mean() + 1.0) < 0.3
    assert np.all(mint.empty(2, 3).asnumpy() == 0) and mint.empty_like(Tensor(X)).shape == X.shape
    with pytest.raises(IndexError, match="select"):
        mint.select(Tensor(X), 1, 4)
    with pytest.raises(ValueError, match="glu"):
        mint.nn.functional.glu(Tensor(X), 2)


def _ravel_and_pads(x):
    return (mint.ravel(x), mint.nn.ConstantPad1d((1, 2), 0.5)(x),
            mint.nn.ZeroPad2d((1, 0, 2, 1))(x), mint.nn.ReflectionPad1d(1)(x),
            mint.nn.ReplicationPad1d((2, 1))(x))


@pytest.mark.parametrize("mode", MODES)
def test_ravel_and_padding_cells(mode):
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    got = _run(mode, _ravel_and_pads, Tensor(x))
    t = torch.tensor(x)
    want = (torch.ravel(t), torch.nn.ConstantPad1d((1, 2), 0.5)(t),
            torch.nn.ZeroPad2d((1, 0, 2, 1))(t), torch.nn.ReflectionPad1d(1)(t),
            torch.nn.ReplicationPad1d((2, 1))(t))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())


def _int_sums(x):
    return mint.sum(x), mint.sum(x, 1), mint.prod(x, 1), mint.sum(x, 1, dtype=ms.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int16, np.int32, np.uint8])
def test_sum_and_prod_of_integers_accumulate_in_int64(mode, dtype):
    # torch.sum/prod: bool and integer inputs give int64 (an int8 sum of 100s does not wrap)
    x = np.full((2, 3), 1 if dtype == np.bool_ else 100).astype(dtype)
    x[0, 0] = 0
    got = _run(mode, _int_sums, Tensor(x))
    t = torch.tensor(x)
    want = (torch.sum(t), torch.sum(t, 1), torch.prod(t, 1), torch.sum(t, 1, dtype=torch.float32))
    for g, w in zip(got, want):
        assert str(g.dtype).lower() == str(w.dtype).split(".")[1], (g.dtype, w.dtype)
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())
