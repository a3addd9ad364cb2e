"""mycel.amp (issue #20, mixed precision), in PYNATIVE and GRAPH mode:

- auto_mixed_precision's levels: which cells compute in bfloat16 (or float16), what stays
  float32, outputs against the float32 network within bfloat16's precision, Parameter names
  and dtypes unchanged;
- LeNet-5 (a Fashion-MNIST subset) and a small Transformer encoder (synthetic sequences)
  trained with O2 in bfloat16 follow the float32 loss curve within 2% (the mean loss of every
  10-step window);
- build_train_network and Model(amp_level=...) pick the training step by level and manager;
- all_finite, StaticLossScaler and DynamicLossScaler against numpy and the documented rule;
- the bfloat16 compute ops (MatMul, BatchMatMul, Conv2D and its gradients, elementwise,
  Cast) against PyTorch computing in bfloat16."""
import os
import re
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import mycel as ms  # noqa: E402
from mycel import amp, nn, ops  # noqa: E402
from mycel.train import DynamicLossScaleManager, FixedLossScaleManager  # noqa: E402
from test_nn_layer_grads import T, mode, rand  # noqa: E402,F401

FASHION = "/usr/share/datasets/fashion-mnist"


class _Net(nn.Cell):
    """conv - BN - relu - dense - LayerNorm - dense: every list of the levels."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, pad_mode="same")
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.body = nn.SequentialCell([nn.Dense(4 * 6 * 6, 16), nn.LayerNorm((16,))])
        self.head = nn.Dense(16, 3)

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))
        return self.head(self.body(self.flatten(x)))


def _net():
    ms.set_seed(11)
    return _Net()


def _inner(cell):
    """The cell an amp wrapper runs (the cell itself when not wrapped)."""
    return cell._op if isinstance(cell, amp._OutputTo) else cell


def test_levels_mark_the_right_cells():
    names = [p.name for p in _net().get_parameters()]
    net = amp.auto_mixed_precision(_net(), "O1")
    assert isinstance(net.conv, amp._OutputTo) and isinstance(net.head, amp._OutputTo)
    assert _inner(net.conv)._mixed_precision_type == ms.bfloat16
    assert _inner(net.body[0])._mixed_precision_type == ms.bfloat16
    assert net.bn._mixed_precision_type is None and net.body[1]._mixed_precision_type is None
    assert net.body.cell_list[0] is net.body[0]  # the container runs the wrapper

    net = amp.auto_mixed_precision(_net(), "O2")
    assert net._mixed_precision_type == ms.bfloat16
    assert isinstance(net.bn, amp._OutputTo) and isinstance(net.body[1], amp._OutputTo)
    assert _inner(net.bn)._mixed_precision_type == ms.float32
    assert _inner(net.body[1])._mixed_precision_type == ms.float32
    assert net.head._mixed_precision_type == ms.bfloat16
    assert [p.name for p in net.get_parameters()] == names
    assert all(p.dtype == ms.float32 for p in net.get_parameters())  # master weights

    net = amp.auto_mixed_precision(_net(), "O3", ms.float16)
    assert all(c._mixed_precision_type == ms.float16 for _, c in net.cells_and_names())
    assert amp.auto_mixed_precision(net, "O1") is net  # already set up: unchanged
    assert amp.auto_mixed_precision(_net(), "O0")._mixed_precision_type is None


def test_custom_mixed_precision_and_lists(mode):
    assert amp.get_white_list() == list(amp.AMP_WHITE_LIST)
    assert nn.LayerNorm in amp.get_black_list() and nn.BatchNorm2d in amp.get_black_list()
    x = T(rand(5, 2, 6, 6, seed=3))
    want = _net()(x).asnumpy()
    net = amp.custom_mixed_precision(_net(), white_list=[nn.Conv2d])
    assert isinstance(net.conv, amp._OutputTo) and not isinstance(net.head, amp._OutputTo)
    assert net.head._mixed_precision_type is None
    out = net(x)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=0.05, atol=0.05 * np.abs(want).max())
    net = amp.custom_mixed_precision(_net(), black_list=[nn.Dense], dtype=ms.float16)
    assert net.conv._mixed_precision_type == ms.float16
    assert _inner(net.head)._mixed_precision_type == ms.float32
    assert net(x).dtype == ms.float16
    with pytest.raises(ValueError, match="exactly one"):
        amp.custom_mixed_precision(_net(), white_list=[nn.Dense], black_list=[nn.LayerNorm])
    with pytest.raises(TypeError, match="Cell classes"):
        amp.custom_mixed_precision(_net(), white_list=["Dense"])


@pytest.mark.parametrize("level,out_dtype", [("O1", ms.float32), ("O2", ms.bfloat16),
                                             ("O3", ms.bfloat16)])
def test_levels_compute_close_to_float32(mode, level, out_dtype):
    x = T(rand(5, 2, 6, 6, seed=3))
    want = _net()(x).asnumpy()
    got = amp.auto_mixed_precision(_net(), level)(x)
    assert got.dtype == out_dtype
    got = got.astype(ms.float32).asnumpy()
    # bfloat16 keeps 8 significant bits: a few roundings through the layers.
    np.testing.assert_allclose(got, want, rtol=0.05, atol=0.05 * np.abs(want).max())
    assert np.abs(got - want).max() > 0  # it did compute in bfloat16


def test_float16_is_storage(mode):
    x = T(rand(5, 2, 6, 6, seed=3))
    want = _net()(x).asnumpy()
    got = amp.auto_mixed_precision(_net(), "O2", ms.float16)(x)
    assert got.dtype == ms.float16
    np.testing.assert_allclose(got.astype(ms.float32).asnumpy(), want, rtol=0.01,
                               atol=0.01 * np.abs(want).max())


def _lenet_losses(level, steps=60, batch=32):
    from lenet import LeNet5, fashion_mnist
    data = []
    for i, (x, y) in enumerate(fashion_mnist(FASHION, "train", batch, shuffle=False)):
        if i == steps:
            break
        data.append((x, y))
    ms.set_seed(1)
    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = amp.build_train_network(net, opt, loss, level=level)  # O0: the float32 step
    out = []
    for x, y in data:
        r = step(x, y)
        out.append(float((r[0] if isinstance(r, tuple) else r).asnumpy()))
    return np.array(out)


def test_lenet_o2_bf16_follows_the_float32_loss_curve(mode):
    fp32 = _lenet_losses("O0")
    bf16 = _lenet_losses("O2")
    w32 = fp32.reshape(-1, 10).mean(1)
    w16 = bf16.reshape(-1, 10).mean(1)
    assert w32[-1] < 0.75 * w32[0]  # it learns
    np.testing.assert_array_less(np.abs(w16 / w32 - 1), 0.02)
    assert not np.array_equal(fp32, bf16)  # and the O2 run did compute in bfloat16


class _Encoder(nn.Cell):
    """A small Transformer encoder classifier: Dense embedding, one encoder layer, mean over
    the sequence, Dense head."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Dense(8, 32)
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.head = nn.Dense(32, 4)

    def construct(self, x):
        return self.head(self.layer(self.emb(x)).mean(1))


def test_transformer_encoder_o2_bf16_follows_the_float32_loss_curve(mode):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((30, 16, 10, 8)).astype(np.float32)
    ys = ((xs[..., 0].mean(-1) > 0) + 2 * (xs[..., 1].mean(-1) > 0)).astype(np.int32)
    curves = []
    for level in ("O0", "O2"):
        ms.set_seed(1)
        net = _Encoder()
        opt = nn.Adam(net.trainable_params(), 1e-3)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = amp.build_train_network(net, opt, loss, level=level)
        if level == "O2":
            assert net(T(xs[0])).dtype == ms.bfloat16  # LayerNorms in float32, the rest bf16
        out = [step(T(x), T(y)) for x, y in zip(xs, ys)]
        curves.append(np.array([float((r[0] if isinstance(r, tuple) else r).asnumpy())
                                for r in out]))
    w32, w16 = (c.reshape(-1, 10).mean(1) for c in curves)
    assert w32[-1] < w32[0]
    np.testing.assert_array_less(np.abs(w16 / w32 - 1), 0.02)


def test_transformer_encoder_o2_fused_follows_the_float32_loss_curve(monkeypatch, capsys):
    # O2 with graph-kernel fusion (GRAPH mode): the bfloat16 chains run as generated kernels
    # that round each op as the op kernels do, so the curve stays with float32's and with the
    # unfused O2 run's.
    monkeypatch.setenv("MYCEL_LOG_COMPILE", "1")
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((30, 16, 10, 8)).astype(np.float32)
    ys = ((xs[..., 0].mean(-1) > 0) + 2 * (xs[..., 1].mean(-1) > 0)).astype(np.int32)
    old = ms.get_context("mode")
    curves = []
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        for level, fused in (("O0", False), ("O2", False), ("O2", True)):
            ms.set_context(enable_graph_kernel=fused)
            ms.set_seed(1)
            net = _Encoder()
            opt = nn.Adam(net.trainable_params(), 1e-3)
            loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            step = amp.build_train_network(net, opt, loss, level=level)
            capsys.readouterr()
            out = [step(T(x), T(y)) for x, y in zip(xs, ys)]
            clusters = [int(n) for n in re.findall(r"(\d+) fused clusters", capsys.readouterr().err)]
            assert (sum(clusters) > 0) == fused, clusters
            curves.append(np.array([float((r[0] if isinstance(r, tuple) else r).asnumpy())
                                    for r in out]))
    finally:
        ms.set_context(mode=old, enable_graph_kernel=False)
    w32, w16, w16f = (c.reshape(-1, 10).mean(1) for c in curves)
    np.testing.assert_array_less(np.abs(w16f / w32 - 1), 0.02)
    np.testing.assert_allclose(curves[2], curves[1], rtol=0.01)


def test_build_train_network_picks_the_step():
    loss = nn.MSELoss()

    def build(**kw):
        net = nn.Dense(3, 2)
        return amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), loss, **kw)

    assert type(build(level="O0")) is nn.TrainOneStepCell
    step = build(level="O2")  # O2's default manager: dynamic loss scale
    assert isinstance(step, nn.TrainOneStepWithLossScaleCell)
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 24
    assert step.network._backbone._mixed_precision_type == ms.bfloat16
    step = build(level="O2", loss_scale_manager=FixedLossScaleManager(64.0, False))
    assert type(step) is nn.TrainOneStepCell and step.sens == 64.0
    step = build(level="O3", cast_model_type=ms.float16)
    assert type(step) is nn.TrainOneStepCell
    assert step.network._backbone._mixed_precision_type == ms.float16
    step = build(level="O1", loss_scale_manager=DynamicLossScaleManager(8.0))
    assert isinstance(step, nn.TrainOneStepWithLossScaleCell)
    with pytest.raises(ValueError, match="boost_level"):
        build(level="O2", boost_level="O1")
    with pytest.raises(ValueError, match="unsupported arguments: bad"):
        build(level="O2", bad=1)
    with pytest.raises(ValueError, match="level"):
        build(level="O4")
    with pytest.raises(TypeError, match="optimizer"):
        amp.build_train_network(nn.Dense(3, 2), None, loss)
    with pytest.raises(TypeError, match="loss_scale_manager"):
        build(level="O2", loss_scale_manager=1.0)


def test_auto_mixed_precision_errors():
    with pytest.raises(ValueError, match="amp_level"):
        amp.auto_mixed_precision(_net(), "O5")
    with pytest.raises(ValueError, match="dtype"):
        amp.auto_mixed_precision(_net(), "O2", ms.float32)
    with pytest.raises(TypeError, match="network"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    with pytest.raises(ValueError, match="amp_level"):
        ms.Model(_net(), amp_level="O9")


def test_model_amp_level_o2_trains_and_evaluates(mode):
    x = rand(16, 2, 6, 6, seed=5)
    y = np.random.default_rng(6).integers(0, 3, 16).astype(np.int32)
    net = _net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9),
                     metrics={"loss": ms.train.Loss()}, amp_level="O2")
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    before = model.eval([(T(x), T(y))])["loss"]
    model.train(5, [(T(x), T(y))])
    after = model.eval([(T(x), T(y))])["loss"]
    assert after < before


def _finite_cases():
    big = np.full((3, 4), 3e38, np.float32)
    yield [rand(3, 4), rand(5)], True
    yield [rand(3, 4), np.array([1.0, np.inf], np.float32)], False
    yield [np.array([np.nan], np.float32), rand(2)], False
    yield [big, big], True  # large but finite: no overflow from the check itself
    yield [np.array([-np.inf], np.float32)], False


def test_all_finite(mode):
    check = ms.jit(_all_finite) if mode == ms.GRAPH_MODE else _all_finite
    for arrays, want in _finite_cases():
        got = check(tuple(T(a) for a in arrays))
        assert got.dtype == ms.bool_ and bool(got.asnumpy()) == want
    assert bool(amp.all_finite(T(np.ones(3, np.float32)), amp.init_status()).asnumpy())
    assert bool(amp.all_finite([T(np.array([1, 2], np.int32))]).asnumpy())


def _all_finite(grads):
    return amp.all_finite(grads)


def test_static_loss_scaler():
    s = amp.StaticLossScaler(1024)
    g = (T(rand(3)), T(rand(2, 2)))
    scaled = s.scale(g)
    assert isinstance(scaled, tuple)
    for a, b in zip(scaled, g):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy() * 1024)
    for a, b in zip(s.unscale(scaled), g):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert s.adjust(ms.Tensor(False)) is False
    assert float(s.scale_value.asnumpy()) == 1024.0
    with pytest.raises(ValueError, match="scale_value"):
        amp.StaticLossScaler(0)


def test_dynamic_loss_scaler_rule(mode):
    s = amp.DynamicLossScaler(scale_value=2.0 ** 10, scale_factor=2, scale_window=3)
    adjust = ms.jit(_adjust) if mode == ms.GRAPH_MODE else _adjust
    scale, counter = 2.0 ** 10, 0
    for finite in [True, True, True, False, True, True, False, False, True, True, True]:
        adjust(s, ms.Tensor(finite))
        if finite:  # MindSpore's rule: grows on the scale_window-th good step in a row
            scale = scale * 2 if counter == 2 else scale
            counter = (counter + 1) % 3
        else:
            scale, counter = max(scale / 2, 1.0), 0
        assert float(s.scale_value.asnumpy()) == scale
        assert int(s.counter.asnumpy()) == counter
    loss = T(np.float32(3.0))
    assert float(s.scale(loss).asnumpy()) == 3.0 * scale
    assert float(s.unscale(s.scale(loss)).asnumpy()) == 3.0
    with pytest.raises(ValueError, match="scale_window"):
        amp.DynamicLossScaler(8.0, 2, 0)


def _adjust(scaler, finite):
    scaler.adjust(finite)
    return finite


def test_functional_loop_with_loss_scaler():
    # MindSpore's functional recipe (PYNATIVE: the update sits under a tensor condition):
    # scale the loss, unscale the gradients, update only when they are finite, adjust.
    net = nn.Dense(3, 2)
    opt = nn.SGD(net.trainable_params(), 0.1)
    scaler = amp.DynamicLossScaler(2.0 ** 8, 2, 100)

    def forward(x, y):
        return scaler.scale(((net(x) - y) ** 2).mean())

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
    x, y = T(rand(4, 3)), T(rand(4, 2))
    bad = rand(4, 3)
    bad[0, 0] = np.nan
    for data in (x, T(bad)):
        before = [p.asnumpy().copy() for p in net.trainable_params()]
        loss, grads = grad_fn(data, y)
        grads = scaler.unscale(grads)
        finite = amp.all_finite(grads)
        if finite:
            opt(grads)
        scaler.adjust(finite)
        changed = any(not np.array_equal(a, p.asnumpy())
                      for a, p in zip(before, net.trainable_params()))
        assert changed == bool(finite.asnumpy())
    assert float(scaler.scale_value.asnumpy()) == 2.0 ** 7


# ---- the bfloat16 compute ops against PyTorch in bfloat16 ----

def _bf16_pair(a):
    """(mycel bf16 Tensor, torch bf16 tensor) of the same values."""
    t = torch.from_numpy(a).to(torch.bfloat16)
    return T(a).astype(ms.bfloat16), t


def _close(got, want, tol=2e-2):
    g = got.astype(ms.float32).asnumpy()
    w = want.float().numpy()
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(np.abs(w).max(), 1e-3))


def test_bf16_matmul_against_torch(mode):
    for sa, sb in [((64, 300), (300, 48)), ((3, 17, 40), (3, 40, 9)), ((2, 1, 8, 16), (3, 16, 5))]:
        a, ta = _bf16_pair(rand(*sa, seed=1))
        b, tb = _bf16_pair(rand(*sb, seed=2))
        fn = ms.jit(ops.matmul) if mode == ms.GRAPH_MODE else ops.matmul
        got = fn(a, b)
        assert got.dtype == ms.bfloat16
        _close(got, torch.matmul(ta, tb))


def test_bf16_conv2d_and_gradients_against_torch(mode):
    # 32 channels: every pass runs on oneDNN's bf16 kernels (LeNet's narrow layers run
    # converted to float32; both are covered by the kernel cases).
    xa, wa = rand(4, 32, 12, 12, seed=3), rand(32, 32, 3, 3, seed=4) * 0.1
    conv = nn.Conv2d(32, 32, 3, pad_mode="pad", padding=1, has_bias=False)
    conv.weight.set_data(T(wa))
    conv.to_float(ms.bfloat16)
    x, tx = _bf16_pair(xa)
    tx.requires_grad_(True)
    tw = torch.from_numpy(wa).to(torch.bfloat16).requires_grad_(True)
    ty = F.conv2d(tx, tw, padding=1)
    cot = rand(*ty.shape, seed=5)
    (ty.float() * torch.from_numpy(cot)).sum().backward()

    def loss(x):
        return (conv(x).astype(ms.float32) * T(cot)).sum()

    y = conv(x)
    assert y.dtype == ms.bfloat16
    _close(y, ty.detach())
    gx, gw = ms.value_and_grad(loss, 0, conv.trainable_params())(x)[1]
    assert gx.dtype == ms.bfloat16 and gw[0].dtype == ms.float32  # master weight's grad
    _close(gx, tx.grad)
    _close(gw[0], tw.grad.float(), tol=3e-2)  # sums over 4 * 12 * 12 positions


def test_bf16_elementwise_and_cast_against_torch(mode):
    n = 3001  # several blocks of the bf16 elementwise path, and a tail
    a, ta = _bf16_pair(rand(n, seed=6))
    b, tb = _bf16_pair(rand(n, seed=7))
    s, ts = _bf16_pair(rand(1, seed=8))
    cases = [(lambda u, v: u + v, a, b, ta + tb), (lambda u, v: u * v, a, b, ta * tb),
             (lambda u, v: u - v, a, s, ta - ts), (lambda u, v: u / v, s, b, ts / tb),
             (lambda u, v: ops.maximum(u, v), a, b, torch.maximum(ta, tb))]
    for f, u, v, want in cases:
        fn = ms.jit(f) if mode == ms.GRAPH_MODE else f
        got = fn(u, v)
        assert got.dtype == ms.bfloat16
        _close(got, want, tol=1e-2)
    m = rand(40, 75, seed=9)
    x, tx = _bf16_pair(m)
    xt = x.transpose(1, 0)  # strided
    for f, want in [(ops.relu, F.relu(tx.T)), (ops.gelu, F.gelu(tx.T)),
                    (ops.exp, torch.exp(tx.T)), (ops.tanh, torch.tanh(tx.T))]:
        fn = ms.jit(f) if mode == ms.GRAPH_MODE else f
        _close(fn(xt), want, tol=1e-2)
    # Cast float32 <-> bfloat16 rounds to nearest even, as torch; NaN and inf survive.
    v = np.concatenate([rand(997, seed=10) * 1e3,
                        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4e38, 1e-40],
                                 np.float32)])
    got = T(v).astype(ms.bfloat16)
    want = torch.from_numpy(v).to(torch.bfloat16)
    np.testing.assert_array_equal(got.astype(ms.float32).asnumpy(), want.float().numpy())
    np.testing.assert_array_equal(T(v[::3]).astype(ms.bfloat16).astype(ms.float32).asnumpy(),
                                  want.float().numpy()[::3])


@pytest.mark.parametrize("shape,fmt", [((4096, 128), "NCHW"), ((37, 300), "NCHW"),
                                       ((3, 5, 7, 9), "NCHW"), ((2, 6, 5, 300), "NHWC")])
def test_bf16_bias_add_against_torch_bit_for_bit(mode, shape, fmt):
    # The bfloat16 BiasAdd (through float blocks, rows longer than a block included) adds in
    # float32 and rounds once, as torch's bfloat16 add.
    c = shape[-1] if fmt == "NHWC" else shape[1]
    x, tx = _bf16_pair(rand(*shape, seed=21) * 5)
    b, tb = _bf16_pair(rand(c, seed=22))
    bshape = [1] * len(shape)
    bshape[-1 if fmt == "NHWC" else 1] = c
    op = ops.BiasAdd(data_format=fmt)
    fn = ms.jit(lambda u, v: op(u, v)) if mode == ms.GRAPH_MODE else op
    got = fn(x, b)
    assert got.dtype == ms.bfloat16
    np.testing.assert_array_equal(got.astype(ms.float32).asnumpy(),
                                  (tx + tb.reshape(bshape)).float().numpy())
