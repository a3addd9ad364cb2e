"""Every mycel.nn layer against its PyTorch equivalent on the same weights and inputs: the
forward output and the gradients w.r.t. the input and every trainable parameter, of the
loss sum(out * cot) for a fixed random cotangent, in PYNATIVE and GRAPH mode, float32 and
(where cheap) float64. BatchNorm's moving statistics after a training step are compared with
torch's running statistics. Then the new layers' construction, repr and argument errors,
and Cell.to_float (mixed precision) against a float32 run."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import nn

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    """Runs the test in one mode and restores PYNATIVE afterwards."""
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def T(a):
    """A mycel Tensor of numpy data (its dtype kept)."""
    return ms.Tensor(np.ascontiguousarray(a))


def same_pad(size, k, s, d=1):
    """TF/MindSpore 'same' padding (before, after) of one axis."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


# ---- the table ------------------------------------------------------------------------------
#
# A case builds (net, x, torch_fn, state): the mycel cell, its input (numpy), and the torch
# computation of the same thing as torch_fn(x, *params) with params the torch copies of
# net.trainable_params() in order. `state` pairs the mycel Parameters that the step updates
# in place (BatchNorm's moving statistics) with the torch tensors torch_fn updates.

class Case:
    """One row: a builder (dtype -> (net, x, torch_fn, state)), whether it also runs in
    float64, whether the input gets a gradient, the float32 tolerance."""

    def __init__(self, name, build, f64=True, grad_x=True, tol=1e-5):
        self.name, self.build, self.f64, self.grad_x, self.tol = name, build, f64, grad_x, tol


def _np_dtype(dtype):
    return np.float64 if dtype == ms.float64 else np.float32


def dense(has_bias=True, activation=None, x_shape=(4, 5), fn=None):
    def build(dtype):
        net = nn.Dense(5, 3, has_bias=has_bias, activation=activation, dtype=dtype)
        act = fn or (lambda y: y)
        return net, rand(*x_shape, seed=1, dtype=_np_dtype(dtype)), \
            lambda x, w, b=None: act(F.linear(x, w, b)), []
    return build


def conv(kernel_size=3, **kw):
    def build(dtype):
        net = nn.Conv2d(4, 6, kernel_size, dtype=dtype, **kw)
        x = rand(2, 4, 9, 8, seed=2, dtype=_np_dtype(dtype))
        (kh, kw_), s, d = net.kernel_size, net.stride, net.dilation

        def ref(x, w, b=None):
            if net.pad_mode == "same":
                ph, pw = same_pad(9, kh, s[0], d[0]), same_pad(8, kw_, s[1], d[1])
                x = F.pad(x, (pw[0], pw[1], ph[0], ph[1]))
            elif net.pad_mode == "pad":
                top, bottom, left, right = net.padding
                x = F.pad(x, (left, right, top, bottom))
            return F.conv2d(x, w, b, stride=s, dilation=d, groups=net.group)
        return net, x, ref, []
    return build


def cell(make, ref, shape=(2, 3, 4, 5)):
    """A parameter-free cell."""
    def build(dtype):
        return make(), rand(*shape, seed=3, dtype=_np_dtype(dtype)), ref, []
    return build


def max_pool_same(x, k, s):
    ph, pw = same_pad(x.shape[2], k, s), same_pad(x.shape[3], k, s)
    return F.max_pool2d(F.pad(x, (pw[0], pw[1], ph[0], ph[1]), value=-math.inf), k, s)


def batch_norm(cls, x_shape, train, use_batch_statistics=None):
    def build(dtype):
        c = x_shape[1]
        npd = _np_dtype(dtype)
        net = cls(c, momentum=0.8, gamma_init=T(rand(c, seed=4, dtype=npd)),
                  beta_init=T(rand(c, seed=5, dtype=npd)),
                  moving_mean_init=T(rand(c, seed=6, dtype=npd)),
                  moving_var_init=T(np.abs(rand(c, seed=7, dtype=npd)) + 0.5),
                  use_batch_statistics=use_batch_statistics, dtype=dtype)
        net.set_train(train)
        rm = torch.from_numpy(net.moving_mean.asnumpy().copy())
        rv = torch.from_numpy(net.moving_variance.asnumpy().copy())
        batch = train if use_batch_statistics is None else use_batch_statistics

        def ref(x, w, b):
            return F.batch_norm(x, rm, rv, w, b, training=batch, momentum=0.2, eps=1e-5)
        x = rand(*x_shape, seed=8, dtype=npd) * 2 + 1
        return net, x, ref, [(net.moving_mean, rm), (net.moving_variance, rv)]
    return build


def layer_norm(normalized_shape, begin):
    def build(dtype):
        npd = _np_dtype(dtype)
        net = nn.LayerNorm(normalized_shape, begin, begin, epsilon=1e-6, dtype=dtype,
                           gamma_init=T(rand(*normalized_shape, seed=9, dtype=npd)),
                           beta_init=T(rand(*normalized_shape, seed=10, dtype=npd)))
        return net, rand(2, 3, 4, 5, seed=11, dtype=npd), \
            lambda x, w, b: F.layer_norm(x, normalized_shape, w, b, eps=1e-6), []
    return build


def embedding(use_one_hot):
    def build(dtype):
        net = nn.Embedding(7, 4, use_one_hot=use_one_hot, embedding_table=T(rand(7, 4, seed=12)))
        ids = np.array([[0, 3, 6], [3, 3, 1]], np.int32)
        return net, ids, lambda x, w: F.embedding(x.long(), w), []
    return build


def sequential(dtype):
    net = nn.SequentialCell(nn.Conv2d(2, 4, 3, has_bias=True, dtype=dtype),
                            nn.BatchNorm2d(4, dtype=dtype), nn.ReLU(), nn.MaxPool2d(2, 2),
                            nn.Flatten(), nn.Dense(4 * 3 * 3, 5, dtype=dtype), nn.GELU())
    net.set_train()
    bn = net[1]
    rm, rv = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    if dtype == ms.float32:
        rm, rv = rm.float(), rv.float()

    def ref(x, cw, cb, gamma, beta, dw, db):
        y = F.conv2d(F.pad(x, (1, 1, 1, 1)), cw, cb)
        y = F.batch_norm(y, rm, rv, gamma, beta, training=True, momentum=0.1, eps=1e-5)
        y = F.max_pool2d(F.relu(y), 2, 2).flatten(1)
        return F.gelu(F.linear(y, dw, db), approximate="tanh")
    return net, rand(3, 2, 6, 6, seed=13, dtype=_np_dtype(dtype)), ref, \
        [(bn.moving_mean, rm), (bn.moving_variance, rv)]


class _Stack(nn.Cell):
    """A CellList of Dense layers iterated in construct, with a shared activation."""

    def __init__(self, dtype):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4, dtype=dtype) for _ in range(3)])
        self.act = nn.Tanh()

    def construct(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return x


def cell_list(dtype):
    def ref(x, *ps):
        for w, b in zip(ps[::2], ps[1::2]):
            x = torch.tanh(F.linear(x, w, b))
        return x
    return _Stack(dtype), rand(3, 4, seed=14, dtype=_np_dtype(dtype)), ref, []


CASES = [
    Case("dense", dense()),
    Case("dense-nobias", dense(has_bias=False)),
    Case("dense-relu", dense(activation="relu", fn=F.relu)),
    Case("dense-tanh-3d", dense(activation="tanh", x_shape=(2, 3, 5), fn=torch.tanh), f64=False),
    Case("conv-valid", conv(pad_mode="valid"), tol=1e-4),
    Case("conv-same", conv(pad_mode="same", has_bias=True), tol=1e-4),
    Case("conv-same-stride2", conv(pad_mode="same", stride=2), tol=1e-4, f64=False),
    Case("conv-pad-stride", conv(pad_mode="pad", padding=(1, 2, 0, 1), stride=(2, 1),
                                 has_bias=True), tol=1e-4, f64=False),
    Case("conv-dilation", conv(pad_mode="valid", dilation=2), tol=1e-4, f64=False),
    Case("conv-group-bias", conv(pad_mode="valid", group=2, has_bias=True), tol=1e-4),
    Case("conv-k31-same", conv(kernel_size=(3, 1), pad_mode="same", has_bias=True), tol=1e-4,
         f64=False),
    Case("maxpool-k2s2", cell(lambda: nn.MaxPool2d(2, 2), lambda x: F.max_pool2d(x, 2, 2))),
    Case("maxpool-same", cell(lambda: nn.MaxPool2d(3, 2, "same"),
                              lambda x: max_pool_same(x, 3, 2)), f64=False),
    Case("avgpool-k2s2", cell(lambda: nn.AvgPool2d(2, 2), lambda x: F.avg_pool2d(x, 2, 2))),
    Case("avgpool-pad", cell(lambda: nn.AvgPool2d(3, 2, "pad", 1, count_include_pad=False),
                             lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
         f64=False),
    Case("relu", cell(nn.ReLU, F.relu)),
    Case("sigmoid", cell(nn.Sigmoid, torch.sigmoid)),
    Case("tanh", cell(nn.Tanh, torch.tanh)),
    Case("gelu-tanh", cell(nn.GELU, lambda x: F.gelu(x, approximate="tanh"))),
    Case("gelu-erf", cell(lambda: nn.GELU(approximate=False), F.gelu)),
    Case("softmax", cell(nn.Softmax, lambda x: F.softmax(x, -1))),
    Case("softmax-axis1", cell(lambda: nn.Softmax(1), lambda x: F.softmax(x, 1)), f64=False),
    Case("flatten", cell(nn.Flatten, lambda x: x.flatten(1))),
    Case("dropout-eval", cell(lambda: nn.Dropout(p=0.3), lambda x: x), f64=False),
    Case("bn1d-train", batch_norm(nn.BatchNorm1d, (6, 3), True)),
    Case("bn1d-3d-train", batch_norm(nn.BatchNorm1d, (4, 3, 5), True), f64=False),
    Case("bn1d-eval", batch_norm(nn.BatchNorm1d, (6, 3), False), f64=False),
    Case("bn2d-train", batch_norm(nn.BatchNorm2d, (4, 3, 5, 6), True)),
    Case("bn2d-eval", batch_norm(nn.BatchNorm2d, (4, 3, 5, 6), False)),
    Case("bn2d-moving-stats-in-train", batch_norm(nn.BatchNorm2d, (4, 3, 5, 6), True, False),
         f64=False),
    Case("bn2d-batch-stats-in-eval", batch_norm(nn.BatchNorm2d, (4, 3, 5, 6), False, True),
         f64=False),
    Case("layernorm", layer_norm((5,), -1)),
    Case("layernorm-2axes", layer_norm((4, 5), -2), f64=False),
    Case("embedding", embedding(False), f64=False, grad_x=False),
    Case("embedding-one-hot", embedding(True), f64=False, grad_x=False),
    Case("sequential", sequential, tol=1e-4),
    Case("cell-list", cell_list),
]

PARAMS = [pytest.param(c, ms.float32, id=c.name) for c in CASES] + \
    [pytest.param(c, ms.float64, id=c.name + "-f64") for c in CASES if c.f64]


def mycel_step(net, x, cot, grad_x):
    """(out, dx or None, parameter grads) of sum(net(x) * cot) through mycel.value_and_grad."""
    weights = net.trainable_params()
    cot = T(cot)

    def loss_fn(x):
        out = net(x)
        return (out * cot).sum(), out

    fn = ms.value_and_grad(loss_fn, grad_position=0 if grad_x else None,
                           weights=weights or None, has_aux=True)
    (_, out), grads = fn(T(x))
    if grad_x and weights:
        dx, dws = grads
    elif grad_x:
        dx, dws = grads, ()
    else:
        dx, dws = None, grads
    return out, dx, list(dws)


def torch_step(ref, x, params, grad_x, dtype):
    """(out, dx, parameter grads, cot) of sum(ref(x, *params) * cot) in torch, with cot a
    random tensor of the output's shape."""
    xt = torch.from_numpy(x).requires_grad_(grad_x)
    ps = [torch.from_numpy(p.asnumpy().copy()).requires_grad_() for p in params]
    out = ref(xt, *ps)
    cot = rand(*out.shape, seed=99, dtype=dtype)
    (out * torch.from_numpy(cot)).sum().backward()
    return out.detach(), xt.grad, [p.grad for p in ps], cot


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_layer_forward_and_gradients_match_torch(mode, case, dtype):
    net, x, ref, state = case.build(dtype)
    weights = net.trainable_params()
    out_t, dx_t, dws_t, cot = torch_step(ref, x, weights, case.grad_x, _np_dtype(dtype))
    out, dx, dws = mycel_step(net, x, cot, case.grad_x)

    tol = case.tol if dtype == ms.float32 else 1e-10
    assert out.dtype == dtype and out.shape == tuple(out_t.shape)
    np.testing.assert_allclose(out.asnumpy(), out_t.numpy(), rtol=tol, atol=tol)
    if case.grad_x:
        assert dx.dtype == dtype
        np.testing.assert_allclose(dx.asnumpy(), dx_t.numpy(), rtol=tol, atol=tol)
    assert len(dws) == len(dws_t) == len(weights)
    for p, g, g_t in zip(weights, dws, dws_t):
        assert g.dtype == p.dtype and g.shape == p.shape, p.name
        np.testing.assert_allclose(g.asnumpy(), g_t.numpy(), rtol=tol, atol=tol, err_msg=p.name)
    for p, t in state:  # BatchNorm's moving statistics vs torch's running ones
        np.testing.assert_allclose(p.asnumpy(), t.numpy(), rtol=tol, atol=tol, err_msg=p.name)


def test_dropout_training_mask_matches_gradient(mode):
    """In training the gradient goes through the same mask as the output: dx = cot * mask /
    keep_prob where out = x * mask / keep_prob."""
    net = nn.Dropout(p=0.4).set_train()
    x, cot = rand(50, 40, seed=20) + 5, rand(50, 40, seed=21)
    out, dx, _ = mycel_step(net, x, cot, True)
    mask = out.asnumpy() != 0
    assert 0.5 < mask.mean() < 0.7
    np.testing.assert_allclose(out.asnumpy(), x * mask / 0.6, rtol=1e-6)
    np.testing.assert_allclose(dx.asnumpy(), cot * mask / 0.6, rtol=1e-6)


def test_batch_norm_moving_stats_over_steps(mode):
    """Three training steps, then evaluation with the moving statistics, against torch."""
    net = nn.BatchNorm2d(3, momentum=0.7).set_train()
    tb = torch.nn.BatchNorm2d(3, momentum=0.3).train()
    for i in range(3):
        x = rand(4, 3, 2, 3, seed=30 + i) * (i + 1)
        np.testing.assert_allclose(net(T(x)).asnumpy(), tb(torch.from_numpy(x)).detach(),
                                   rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(net.moving_mean.asnumpy(), tb.running_mean, rtol=1e-5)
    np.testing.assert_allclose(net.moving_variance.asnumpy(), tb.running_var, rtol=1e-5)
    net.set_train(False)
    tb.eval()
    x = rand(2, 3, 2, 3, seed=40)
    np.testing.assert_allclose(net(T(x)).asnumpy(), tb(torch.from_numpy(x)).detach(),
                               rtol=1e-5, atol=1e-5)


# ---- the new layers: construction, repr, errors ---------------------------------------------

def test_gelu_defaults_repr_and_errors():
    assert nn.GELU().approximate is True
    assert repr(nn.GELU(approximate=False)) == "GELU<approximate=False>"
    assert isinstance(nn.get_activation("gelu"), nn.GELU)
    assert isinstance(nn.Dense(2, 2, activation="gelu").activation, nn.GELU)
    with pytest.raises(TypeError, match="'approximate' must be a bool"):
        nn.GELU(approximate="tanh")


def test_batch_norm_parameters_and_repr():
    bn = nn.BatchNorm2d(4)
    assert [n for n, _ in bn.parameters_and_names()] == ["gamma", "beta", "moving_mean",
                                                         "moving_variance"]
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    assert [p.name for p in bn.untrainable_params()] == ["moving_mean", "moving_variance"]
    np.testing.assert_array_equal(bn.gamma.asnumpy(), np.ones(4, np.float32))
    np.testing.assert_array_equal(bn.moving_variance.asnumpy(), np.ones(4, np.float32))
    np.testing.assert_array_equal(bn.beta.asnumpy(), np.zeros(4, np.float32))
    assert bn.momentum == 0.9 and bn.eps == 1e-5 and bn.use_batch_statistics is None
    assert repr(bn).startswith("BatchNorm2d<num_features=4, eps=1e-05, momentum=0.9, gamma=")
    assert nn.BatchNorm1d(3, affine=False).trainable_params() == []
    seq = nn.SequentialCell(nn.Dense(2, 3), nn.BatchNorm1d(3))
    assert [p.name for p in seq.get_parameters()][2:] == ["1.gamma", "1.beta", "1.moving_mean",
                                                          "1.moving_variance"]


def test_batch_norm_errors(mode):
    with pytest.raises(ValueError, match="'num_features' must be a positive int"):
        nn.BatchNorm2d(0)
    with pytest.raises(ValueError, match=r"'momentum' must be in \[0.0, 1.0\], but got 1.5"):
        nn.BatchNorm2d(3, momentum=1.5)
    with pytest.raises(ValueError, match="'eps' must be in"):
        nn.BatchNorm1d(3, eps=0)
    with pytest.raises(TypeError, match="'affine' must be a bool"):
        nn.BatchNorm1d(3, affine=1)
    with pytest.raises(TypeError, match="'use_batch_statistics' must be a bool"):
        nn.BatchNorm1d(3, use_batch_statistics="yes")
    with pytest.raises(ValueError, match="data_format"):
        nn.BatchNorm2d(3, data_format="NHWC")
    with pytest.raises(ValueError, match="unknown initializer name"):
        nn.BatchNorm2d(3, gamma_init="gaussian")
    with pytest.raises(ValueError, match=r"'BatchNorm2d', the input must be 4-d, but got shape "
                                         r"\(2, 3\)"):
        nn.BatchNorm2d(3)(T(rand(2, 3)))
    with pytest.raises(ValueError, match=r"'BatchNorm1d', the input must be 2-d or 3-d"):
        nn.BatchNorm1d(3)(T(rand(2, 3, 4, 5)))
    with pytest.raises(ValueError, match=r"channel dimension \(shape\[1\] = 4\) must equal "
                                         r"num_features \(3\)"):
        nn.BatchNorm2d(3)(T(rand(2, 4, 5, 5)))


def test_layer_norm_construction_and_errors(mode):
    ln = nn.LayerNorm((4,))
    assert ln.begin_norm_axis == -1 and ln.begin_params_axis == -1 and ln.epsilon == 1e-7
    assert [p.name for p in ln.trainable_params()] == ["gamma", "beta"]
    assert ln.gamma.shape == (4,)
    assert repr(ln) == ("LayerNorm<normalized_shape=(4,), begin_norm_axis=-1, "
                        "begin_params_axis=-1, epsilon=1e-07>")
    # begin_norm_axis=1: statistics over C, H, W; the parameters cover only W.
    ln = nn.LayerNorm([5], begin_norm_axis=1, begin_params_axis=-1, epsilon=1e-5,
                      gamma_init=T(rand(5, seed=1)), beta_init=T(rand(5, seed=2)))
    x = rand(2, 3, 4, 5, seed=3)
    ref = F.layer_norm(torch.from_numpy(x), (3, 4, 5), eps=1e-5) * torch.from_numpy(
        ln.gamma.asnumpy()) + torch.from_numpy(ln.beta.asnumpy())
    np.testing.assert_allclose(ln(T(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="normalized_shape must be a tuple or a list"):
        nn.LayerNorm(4)
    with pytest.raises(ValueError, match="'normalized_shape' must be a positive int"):
        nn.LayerNorm((4, 0))
    with pytest.raises(TypeError, match="'begin_norm_axis' must be an int"):
        nn.LayerNorm((4,), begin_norm_axis=1.0)
    with pytest.raises(ValueError, match="'epsilon' must be in"):
        nn.LayerNorm((4,), epsilon=-1e-5)
    with pytest.raises(ValueError, match=r"'LayerNorm', the 'gamma' shape must be \[5\]"):
        nn.LayerNorm((4,))(T(rand(2, 5)))


def test_embedding_construction_and_errors(mode):
    ms.set_seed(3)
    emb = nn.Embedding(1000, 20)
    assert emb.embedding_table.shape == (1000, 20) and emb.embedding_table.name == \
        "embedding_table"
    assert emb.dtype == ms.int32 and emb.use_one_hot is False
    assert abs(float(emb.embedding_table.asnumpy().std()) - 0.01) < 5e-4  # 'normal': N(0, 0.01)
    emb = nn.Embedding(5, 3, padding_idx=2)
    np.testing.assert_array_equal(emb.embedding_table.asnumpy()[2], np.zeros(3, np.float32))
    assert emb.embedding_table.asnumpy()[1].any()
    assert repr(emb).startswith("Embedding<vocab_size=5, embedding_size=3, use_one_hot=False")
    out = emb(T(np.array([[1, 2, 4]], np.int64)))
    assert out.shape == (1, 3, 3)
    np.testing.assert_array_equal(out.asnumpy()[0], emb.embedding_table.asnumpy()[[1, 2, 4]])
    with pytest.raises(ValueError, match="'vocab_size' must be a positive int"):
        nn.Embedding(0, 3)
    with pytest.raises(TypeError, match="'use_one_hot' must be a bool"):
        nn.Embedding(5, 3, use_one_hot=1)
    with pytest.raises(TypeError, match="dtype must be an integer dtype"):
        nn.Embedding(5, 3, dtype=ms.float32)
    with pytest.raises(ValueError, match=r"padding_idx must be in \[0, 5\), but got 5"):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(TypeError, match="ids must be an int32 or int64 tensor, but got Float32"):
        emb(T(rand(2, 3)))
    with pytest.raises(IndexError, match="out of range"):
        emb(T(np.array([1, 7], np.int32)))


def test_cell_repr_lists_sub_cells():
    seq = nn.SequentialCell(nn.Dense(2, 3, activation="relu"), nn.Flatten())
    assert repr(seq) == ("SequentialCell<\n"
                         "  (0): Dense<\n"
                         "    input_channels=2, output_channels=3, has_bias=True\n"
                         "    (activation): ReLU<>\n"
                         "    >\n"
                         "  (1): Flatten<>\n"
                         "  >")


# ---- Cell.to_float --------------------------------------------------------------------------

class _Net(nn.Cell):
    """Conv -> BatchNorm -> ReLU -> Flatten -> Dense, for mixed precision."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(3)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(3 * 5 * 5, 4)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.bn(self.conv(x)))))


def _grads(net, x):
    weights = net.trainable_params()
    fn = ms.value_and_grad(lambda x: net(x).astype(ms.float32).sum(), 0, weights)
    return fn(x)


@pytest.mark.parametrize("dst,tol", [(ms.float16, 1e-2), (ms.bfloat16, 5e-2)],
                         ids=["float16", "bfloat16"])
def test_to_float_runs_in_dst_type(mode, dst, tol):
    ms.set_seed(5)
    net = _Net()
    x = T(rand(2, 2, 5, 5, seed=50))
    ref = net(x).asnumpy()
    (ref_loss, (ref_dx, ref_dw)) = _grads(net, x)
    assert net.to_float(dst) is net
    assert all(c._mixed_precision_type == dst for _, c in net.cells_and_names())
    out = net(x)
    assert out.dtype == dst
    np.testing.assert_allclose(out.astype(ms.float32).asnumpy(), ref, rtol=tol, atol=tol)
    loss, (dx, dw) = _grads(net, x)
    np.testing.assert_allclose(loss.asnumpy(), ref_loss.asnumpy(), rtol=tol, atol=tol * 10)
    assert dx.dtype == ms.float32  # through the input cast, back to the input's dtype
    np.testing.assert_allclose(dx.asnumpy(), ref_dx.asnumpy(), rtol=tol, atol=tol * 3)
    for p, g, r in zip(net.trainable_params(), dw, ref_dw):
        assert p.dtype == ms.float32 and g.dtype == ms.float32, p.name  # master weights
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=tol * 3, atol=tol * 3,
                                   err_msg=p.name)
    # The cell's attributes are its Parameters again after the call.
    assert isinstance(net.fc.weight, ms.Parameter) and net.fc.weight.dtype == ms.float32


def _close(a, b, tol):
    """|a - b| within tol of b's largest magnitude (half precision keeps ~3 digits); at
    least tol * 0.05, for gradients that vanish in float32 (a conv bias before BatchNorm)."""
    a, b = a.astype(ms.float32).asnumpy(), b.asnumpy()
    np.testing.assert_allclose(a, b, rtol=0, atol=tol * max(np.abs(b).max(), 0.05))


@pytest.mark.parametrize("dst,tol", [(ms.float16, 1e-2), (ms.bfloat16, 4e-2)],
                         ids=["float16", "bfloat16"])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_to_float_every_layer(mode, case, dst, tol):
    """Each layer under to_float(float16 or bfloat16): an output of that dtype, float32
    gradients (input and parameters), all close to the float32 run's: every layer has
    half-precision kernels, forward and backward."""
    net, x, _, _ = case.build(ms.float32)
    cot = rand(*net(T(x)).shape, seed=98)
    out32, dx32, dws32 = mycel_step(net, x, cot, case.grad_x)
    net.to_float(dst)
    out, dx, dws = mycel_step(net, x, cot, case.grad_x)
    assert out.dtype == dst
    _close(out, out32, tol)
    if case.grad_x:
        assert dx.dtype == ms.float32
        _close(dx, dx32, 2 * tol)
    for p, g, g32 in zip(net.trainable_params(), dws, dws32):
        assert g.dtype == ms.float32, p.name
        _close(g, g32, 2 * tol)


def test_to_float_of_a_sub_cell_and_back_to_float32(mode):
    ms.set_seed(6)
    net = _Net()
    x = T(rand(2, 2, 5, 5, seed=51))
    ref = net(x).asnumpy()
    net.conv.to_float(ms.float16)  # conv computes in float16; BatchNorm promotes back
    out = net(x)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-2, atol=1e-2)
    assert not np.array_equal(out.asnumpy(), ref)  # float16 rounding shows
    net.to_float(ms.float16)
    net.fc.to_float(ms.float32)  # the last layer casts its float16 input back
    out = net(x)
    assert out.dtype == ms.float32 and net.bn._mixed_precision_type == ms.float16
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-2, atol=1e-2)


def test_to_float_casts_only_floating_inputs(mode):
    emb = nn.Embedding(6, 3, embedding_table=T(rand(6, 3, seed=52))).to_float(ms.float16)
    ids = np.array([0, 5, 2], np.int32)
    out = emb(T(ids))
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), emb.embedding_table.asnumpy()[ids], rtol=1e-3)
    ln = nn.LayerNorm((4,)).to_float(ms.float16)
    out = ln(T(rand(3, 4, seed=53)))
    assert out.dtype == ms.float16
    f64 = nn.Dense(4, 2, dtype=ms.float64).to_float(ms.float32)
    assert f64(T(rand(3, 4, seed=54, dtype=np.float64))).dtype == ms.float32


@pytest.mark.parametrize("dst", [ms.float16, ms.bfloat16], ids=["float16", "bfloat16"])
def test_to_float_batch_norm_keeps_float32_statistics(mode, dst):
    """BatchNorm under to_float: half-precision output, and its float32 moving statistics
    updated in place (not cast copies), as in a float32 step."""
    x = T(rand(4, 3, 2, 3, seed=55) + 2)
    ref = nn.BatchNorm2d(3).set_train()
    ref_out = ref(x)
    bn = nn.BatchNorm2d(3).set_train().to_float(dst)
    out = bn(x)
    assert out.dtype == dst and bn.moving_mean.dtype == ms.float32
    _close(out, ref_out, 2e-2)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), ref.moving_mean.asnumpy(), rtol=1e-2)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), ref.moving_variance.asnumpy(),
                               rtol=2e-2)
    assert (bn.moving_mean.asnumpy() > 0.1).all()


def test_to_float_errors():
    with pytest.raises(ValueError, match="'dst_type' must be float16, bfloat16 or float32, "
                                         "but got Int32"):
        nn.Dense(2, 2).to_float(ms.int32)
    with pytest.raises(ValueError, match="'dst_type' must be"):
        nn.Dense(2, 2).to_float("float16")
