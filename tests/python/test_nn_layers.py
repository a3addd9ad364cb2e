"""mycel.nn layers and mycel.common.initializer against PyTorch (torch.nn.functional with the
same weights), in PYNATIVE and in GRAPH mode; parameter names, initializer statistics,
argument errors."""
import math
from collections import OrderedDict

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import nn
from mycel.common import initializer as init
from lenet import LeNet5  # examples/lenet.py

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
MODE_IDS = ["pynative", "graph"]


@pytest.fixture(params=MODES, ids=MODE_IDS)
def mode(request):
    """Runs the test in one mode and restores PYNATIVE afterwards."""
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def t(a):
    return torch.from_numpy(np.array(a))


def w(p):
    """A Parameter's data as a torch tensor."""
    return torch.from_numpy(p.asnumpy().copy())


def check(out, ref, rtol=1e-5, atol=1e-5):
    assert isinstance(out, ms.Tensor)
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=rtol, atol=atol)


# ---- Dense ---------------------------------------------------------------------------------

@pytest.mark.parametrize("has_bias", [True, False])
def test_dense_matches_torch_linear(mode, has_bias):
    net = nn.Dense(5, 3, has_bias=has_bias)
    x = rand(4, 5)
    ref = F.linear(t(x), w(net.weight), w(net.bias) if has_bias else None)
    check(net(ms.Tensor(x)), ref)
    assert net.weight.shape == (3, 5)
    assert (net.bias is None) == (not has_bias)


@pytest.mark.parametrize("act,fn", [("relu", torch.relu), ("sigmoid", torch.sigmoid),
                                    ("tanh", torch.tanh), (nn.Softmax(), F.softmax)])
def test_dense_activation(mode, act, fn):
    net = nn.Dense(6, 4, activation=act)
    x = rand(3, 6, seed=1)
    ref = F.linear(t(x), w(net.weight), w(net.bias))
    ref = fn(ref, -1) if fn is F.softmax else fn(ref)
    check(net(ms.Tensor(x)), ref)


def test_dense_on_3d_input_uses_last_axis(mode):
    net = nn.Dense(4, 2)
    x = rand(2, 3, 4, seed=2)
    out = net(ms.Tensor(x))
    assert out.shape == (2, 3, 2)
    check(out, F.linear(t(x), w(net.weight), w(net.bias)))


def test_dense_with_given_weights():
    wt = rand(3, 2)
    net = nn.Dense(2, 3, weight_init=ms.Tensor(wt), bias_init="zeros")
    np.testing.assert_array_equal(net.weight.asnumpy(), wt)
    np.testing.assert_array_equal(net.bias.asnumpy(), np.zeros(3, np.float32))
    assert isinstance(net.weight, ms.Parameter)


def test_dense_errors():
    with pytest.raises(ValueError, match="in_channels"):
        nn.Dense(0, 3)
    with pytest.raises(TypeError, match="out_channels"):
        nn.Dense(3, 2.5)
    with pytest.raises(TypeError, match="has_bias"):
        nn.Dense(3, 2, has_bias=1)
    with pytest.raises(KeyError, match="activation"):
        nn.Dense(3, 2, activation="swishy")
    with pytest.raises(TypeError, match="activation"):
        nn.Dense(3, 2, activation=3)
    with pytest.raises(ValueError, match=r"weight_init's shape must be \(2, 3\)"):
        nn.Dense(3, 2, weight_init=ms.Tensor(rand(3, 2)))


# ---- Conv2d --------------------------------------------------------------------------------

def _same_pad(size, k, s, d):
    """TF/MindSpore 'same' padding (before, after) of one axis."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


@pytest.mark.parametrize("kw", [
    dict(pad_mode="valid"),
    dict(pad_mode="same"),
    dict(pad_mode="same", stride=2),
    dict(pad_mode="pad", padding=1),
    dict(pad_mode="pad", padding=(1, 2, 0, 1), stride=(2, 1)),
    dict(pad_mode="valid", dilation=2),
    dict(pad_mode="valid", group=2, has_bias=True),
    dict(pad_mode="same", has_bias=True, kernel_size=(3, 1)),
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_conv2d_matches_torch(mode, kw):
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    net = nn.Conv2d(4, 6, k, **kw)
    x = rand(2, 4, 9, 8, seed=3)
    kh, kw_ = net.kernel_size
    s, d = net.stride, net.dilation
    xt = t(x)
    if net.pad_mode == "same":
        ph, pw = _same_pad(9, kh, s[0], d[0]), _same_pad(8, kw_, s[1], d[1])
        xt = F.pad(xt, (pw[0], pw[1], ph[0], ph[1]))
    elif net.pad_mode == "pad":
        top, bottom, left, right = net.padding
        xt = F.pad(xt, (left, right, top, bottom))
    ref = F.conv2d(xt, w(net.weight), w(net.bias) if net.has_bias else None, stride=s,
                   dilation=d, groups=net.group)
    out = net(ms.Tensor(x))
    assert out.shape == tuple(ref.shape)
    check(out, ref, rtol=1e-4, atol=1e-4)


def test_conv2d_defaults_are_mindspore_2x():
    net = nn.Conv2d(3, 8, 3)
    assert net.pad_mode == "same" and net.stride == (1, 1) and net.padding == (0, 0, 0, 0)
    assert net.has_bias is False and net.bias is None
    assert net.weight.shape == (8, 3, 3, 3)
    assert net(ms.Tensor(rand(1, 3, 7, 7))).shape == (1, 8, 7, 7)


def test_conv2d_errors():
    with pytest.raises(ValueError, match="pad_mode"):
        nn.Conv2d(1, 1, 3, pad_mode="full")
    with pytest.raises(ValueError, match="padding must be zero when pad_mode is 'same'"):
        nn.Conv2d(1, 1, 3, padding=1)
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="kernel_size"):
        nn.Conv2d(1, 1, (3, 3, 3))
    with pytest.raises(ValueError, match="kernel_size"):
        nn.Conv2d(1, 1, 0)
    with pytest.raises(ValueError, match="data_format"):
        nn.Conv2d(1, 1, 3, data_format="NHWC")


# ---- pooling -------------------------------------------------------------------------------

@pytest.mark.parametrize("k,s,pad_mode", [(2, 2, "valid"), (3, 1, "valid"), (3, 2, "same"),
                                          (2, 2, "same")])
def test_maxpool2d_matches_torch(mode, k, s, pad_mode):
    net = nn.MaxPool2d(k, s, pad_mode)
    x = rand(2, 3, 7, 8, seed=4)
    xt = t(x)
    if pad_mode == "same":
        ph, pw = _same_pad(7, k, s, 1), _same_pad(8, k, s, 1)
        xt = F.pad(xt, (pw[0], pw[1], ph[0], ph[1]), value=-math.inf)
    ref = F.max_pool2d(xt, k, s)
    out = net(ms.Tensor(x))
    assert out.shape == tuple(ref.shape)
    check(out, ref)


@pytest.mark.parametrize("kw", [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=1),
                                dict(kernel_size=3, stride=2, pad_mode="pad", padding=1),
                                dict(kernel_size=3, stride=2, pad_mode="pad", padding=1,
                                     count_include_pad=False)],
                         ids=["k2s2", "k3s1", "pad1", "pad1-exclude"])
def test_avgpool2d_matches_torch(mode, kw):
    net = nn.AvgPool2d(**kw)
    x = rand(2, 3, 7, 8, seed=5)
    ref = F.avg_pool2d(t(x), kw["kernel_size"], kw["stride"], kw.get("padding", 0),
                       count_include_pad=kw.get("count_include_pad", True))
    check(net(ms.Tensor(x)), ref)


def test_pool_defaults_and_errors():
    net = nn.MaxPool2d()
    assert net.kernel_size == (1, 1) and net.stride == (1, 1) and net.pad_mode == "valid"
    with pytest.raises(ValueError, match="pad_mode"):
        nn.MaxPool2d(2, 2, "full")
    with pytest.raises(ValueError, match="stride"):
        nn.AvgPool2d(2, -1)
    with pytest.raises(ValueError, match="dilation"):
        nn.MaxPool2d(2, dilation=2)
    with pytest.raises(ValueError, match="padding must be zero"):
        nn.AvgPool2d(2, padding=1)


# ---- activations, Flatten ------------------------------------------------------------------

@pytest.mark.parametrize("cell,ref", [
    (nn.ReLU(), torch.relu), (nn.Sigmoid(), torch.sigmoid), (nn.Tanh(), torch.tanh),
    (nn.Softmax(), lambda x: F.softmax(x, -1)), (nn.Softmax(axis=1), lambda x: F.softmax(x, 1)),
    (nn.Softmax(axis=(0,)), lambda x: F.softmax(x, 0)),
], ids=["relu", "sigmoid", "tanh", "softmax", "softmax1", "softmax0"])
def test_activations_match_torch(mode, cell, ref):
    x = rand(2, 3, 4, seed=6)
    check(cell(ms.Tensor(x)), ref(t(x)))


def test_softmax_axis_type_error():
    with pytest.raises(TypeError, match="axis"):
        nn.Softmax(axis=1.0)
    # several axes are MindSpore's (test_prim_calling.py); a tuple needs ints
    with pytest.raises(TypeError, match="tuple of ints"):
        nn.Softmax(axis=(0, 2.0))
    with pytest.raises(TypeError, match="tuple of ints"):
        nn.Softmax(axis=())


@pytest.mark.parametrize("start,end", [(1, -1), (0, -1), (1, 2), (0, 1), (-2, -1)])
def test_flatten_matches_torch(mode, start, end):
    x = rand(2, 3, 4, 5, seed=7)
    out = nn.Flatten(start, end)(ms.Tensor(x))
    check(out, torch.flatten(t(x), start, end))


def test_flatten_bad_dims(mode):
    with pytest.raises((ValueError, TypeError), match="start_dim"):
        nn.Flatten(3, 1)(ms.Tensor(rand(2, 3, 4, 5)))
    with pytest.raises(TypeError, match="start_dim"):
        nn.Flatten(1.0)


# ---- Dropout -------------------------------------------------------------------------------

def test_dropout_eval_is_identity(mode):
    x = rand(4, 5)
    np.testing.assert_array_equal(nn.Dropout(p=0.3)(ms.Tensor(x)).asnumpy(), x)


@pytest.mark.parametrize("kw,p", [(dict(p=0.25), 0.25), (dict(keep_prob=0.6), 0.4),
                                  (dict(), 0.5)])
def test_dropout_training_statistics(mode, kw, p):
    d = nn.Dropout(**kw).set_train()
    x = ms.Tensor(np.ones((100000,), np.float32))
    a, b = d(x).asnumpy(), d(x).asnumpy()
    assert abs((a == 0).mean() - p) < 0.01
    np.testing.assert_allclose(a[a != 0], 1 / (1 - p), rtol=1e-6)
    assert (a != b).any()  # a fresh mask each call


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"'p' must be a number in range \[0, 1\)"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match=r"'keep_prob' must be a number in range \(0, 1\]"):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(ValueError, match="either keep_prob or p"):
        nn.Dropout(keep_prob=0.5, p=0.5)
    with pytest.raises(TypeError, match="p must be a float"):
        nn.Dropout(p="0.5")


# ---- containers ----------------------------------------------------------------------------

def test_sequential_cell_matches_torch(mode):
    seq = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3), nn.Softmax())
    x = rand(5, 4, seed=8)
    ref = F.linear(t(x), w(seq[0].weight), w(seq[0].bias)).relu()
    ref = F.softmax(F.linear(ref, w(seq[2].weight), w(seq[2].bias)), -1)
    check(seq(ms.Tensor(x)), ref)


def test_sequential_cell_forms_and_list_behaviour():
    a, b, c = nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 1)
    seq = nn.SequentialCell([a, b, c])
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c and list(seq) == [a, b, c]
    assert [n for n, _ in seq.parameters_and_names()] == ["0.weight", "0.bias", "2.weight",
                                                          "2.bias"]
    sub = seq[1:]
    assert isinstance(sub, nn.SequentialCell) and list(sub) == [b, c]
    seq = nn.SequentialCell(a, b)
    seq.append(c)
    assert len(seq) == 3 and seq[2] is c
    del seq[1]
    assert list(seq) == [a, c] and list(seq.name_cells()) == ["0", "1"]
    named = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in named.parameters_and_names()] == ["fc.weight", "fc.bias"]
    with pytest.raises(TypeError, match="must be a Cell"):
        nn.SequentialCell(a, 3)
    with pytest.raises(IndexError, match="out of range"):
        seq[5]


def test_cell_list_behaviour():
    layers = nn.CellList([nn.Dense(3, 3) for _ in range(3)])
    assert len(layers) == 3 and isinstance(layers[1], nn.Dense)
    layers.append(nn.ReLU())
    layers.insert(0, nn.Tanh())
    assert [type(c).__name__ for c in layers] == ["Tanh", "Dense", "Dense", "Dense", "ReLU"]
    assert [n for n, _ in layers.parameters_and_names()][:2] == ["1.weight", "1.bias"]
    with pytest.raises(TypeError, match="must be a Cell"):
        layers.append("relu")
    with pytest.raises(NotImplementedError):
        layers(ms.Tensor(rand(1, 3)))


class _Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3), nn.Dense(3, 3)])
        self.act = nn.Tanh()

    def construct(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return x


def test_cell_list_iterated_in_construct(mode):
    net = _Stack()
    x = rand(2, 3, seed=9)
    ref = t(x)
    for layer in net.layers:
        ref = torch.tanh(F.linear(ref, w(layer.weight), w(layer.bias)))
    check(net(ms.Tensor(x)), ref)


class _Pick(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3), nn.Dense(3, 2)])

    def construct(self, x):
        return self.layers[1](self.layers[0](x))


def test_cell_list_indexed_in_construct(mode):
    net = _Pick()
    x = rand(2, 3, seed=10)
    ref = F.linear(F.linear(t(x), w(net.layers[0].weight), w(net.layers[0].bias)),
                   w(net.layers[1].weight), w(net.layers[1].bias))
    check(net(ms.Tensor(x)), ref)


# ---- a whole network -----------------------------------------------------------------------

def test_lenet_matches_torch_and_names_parameters(mode):
    net = LeNet5()
    assert [n for n, _ in net.parameters_and_names()] == [
        "conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
        "fc3.weight", "fc3.bias"]
    assert [p.name for p in net.trainable_params()][2] == "fc1.weight"
    p = dict(net.parameters_and_names())
    x = rand(3, 1, 28, 28, seed=11)
    y = F.max_pool2d(F.relu(F.conv2d(t(x), w(p["conv1.weight"]), padding=2)), 2, 2)
    y = F.max_pool2d(F.relu(F.conv2d(y, w(p["conv2.weight"]))), 2, 2).flatten(1)
    y = F.relu(F.linear(y, w(p["fc1.weight"]), w(p["fc1.bias"])))
    y = F.relu(F.linear(y, w(p["fc2.weight"]), w(p["fc2.bias"])))
    y = F.linear(y, w(p["fc3.weight"]), w(p["fc3.bias"]))
    check(net(ms.Tensor(x)), y, rtol=1e-4, atol=1e-5)


def test_nested_parameter_names():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.features = nn.SequentialCell(nn.Conv2d(1, 2, 3), nn.ReLU())
            self.fc1 = nn.Dense(2, 2)

    names = [p.name for p in Net().get_parameters()]
    assert names == ["features.0.weight", "fc1.weight", "fc1.bias"]


# ---- initializers --------------------------------------------------------------------------

def _stats(tensor):
    a = tensor.asnumpy().astype(np.float64)
    return a, a.mean(), a.std()


def test_dense_and_conv_default_init_bounds():
    ms.set_seed(1)
    d = nn.Dense(400, 300)
    a, mean, std = _stats(d.weight)
    bound = 1 / math.sqrt(400)  # HeUniform(sqrt(5)): gain sqrt(1/3) * sqrt(3 / fan_in)
    assert a.max() <= bound and a.min() >= -bound and a.max() > 0.99 * bound
    assert abs(mean) < 2e-4 and abs(std - bound / math.sqrt(3)) < 1e-3
    b = d.bias.asnumpy()
    assert b.max() <= bound and b.min() >= -bound
    c = nn.Conv2d(16, 32, 5, has_bias=True)
    bound = 1 / math.sqrt(16 * 25)
    a, _, std = _stats(c.weight)
    assert a.max() <= bound and a.min() >= -bound and abs(std - bound / math.sqrt(3)) < 1e-3
    assert np.abs(c.bias.asnumpy()).max() <= bound


@pytest.mark.parametrize("name,shape,mean,std,bound", [
    ("normal", (500, 400), 0.0, 0.01, None),
    ("zeros", (3, 4), 0.0, 0.0, 0.0),
    ("ones", (3, 4), 1.0, 0.0, None),
    ("uniform", (500, 400), 0.0, 0.07 / math.sqrt(3), 0.07),
    ("xavier_uniform", (300, 500), 0.0, math.sqrt(6 / 800) / math.sqrt(3), math.sqrt(6 / 800)),
    ("xavier_normal", (300, 500), 0.0, math.sqrt(2 / 800), None),
    ("he_uniform", (300, 500), 0.0, math.sqrt(2 / 500), math.sqrt(6 / 500)),
    ("he_normal", (64, 32, 3, 3), 0.0, math.sqrt(2 / 288), None),
    ("truncatednormal", (500, 400), 0.0, 0.01 * 0.8796, 0.02),
])
def test_initializer_statistics(name, shape, mean, std, bound):
    ms.set_seed(2)
    tensor = init.initializer(name, shape, ms.float32)
    assert tensor.shape == shape and tensor.dtype == ms.float32
    a, m, s = _stats(tensor)
    assert abs(m - mean) < max(3 * std / math.sqrt(a.size), 1e-7)
    assert abs(s - std) < 0.02 * std + 1e-7
    if bound is not None:
        assert np.abs(a).max() <= bound + 1e-7


def test_initializer_objects_and_options():
    a = init.initializer(init.Normal(sigma=0.5, mean=2.0), (200, 200)).asnumpy()
    assert abs(a.mean() - 2.0) < 0.01 and abs(a.std() - 0.5) < 0.01
    a = init.initializer(init.HeUniform(math.sqrt(5)), (64, 100)).asnumpy()
    assert np.abs(a).max() <= 0.1 and np.abs(a).max() > 0.098
    a = init.initializer(init.HeNormal(mode="fan_out", nonlinearity="relu"), (100, 400))
    assert abs(a.asnumpy().std() - math.sqrt(2 / 100)) < 0.005
    a = init.initializer(init.XavierUniform(gain=2), (100, 300)).asnumpy()
    assert np.abs(a).max() <= 2 * math.sqrt(6 / 400)
    np.testing.assert_array_equal(init.initializer(init.Constant(3), (2, 2)).asnumpy(),
                                  np.full((2, 2), 3, np.float32))
    np.testing.assert_array_equal(init.initializer(1.5, [3], ms.float64).asnumpy(),
                                  np.full(3, 1.5))
    assert init.initializer("ones", 4, ms.int32).dtype == ms.int32
    src = ms.Tensor(rand(2, 3))
    out = init.initializer(src, (2, 3))
    np.testing.assert_array_equal(out.asnumpy(), src.asnumpy())
    ms.set_seed(7)
    a = init.initializer("normal", (10,)).asnumpy()
    ms.set_seed(7)
    np.testing.assert_array_equal(init.initializer("normal", (10,)).asnumpy(), a)


def test_initializer_errors():
    with pytest.raises(ValueError, match="unknown initializer name 'gaussian'"):
        init.initializer("gaussian", (2, 2))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.initializer("he_uniform", (5,))
    with pytest.raises(TypeError, match="shape"):
        init.initializer("zeros", (2, "3"))
    with pytest.raises(ValueError, match="negative"):
        init.initializer("zeros", (2, -3))
    with pytest.raises(TypeError, match="init must be"):
        init.initializer([1, 2], (2,))
    with pytest.raises(ValueError, match="must equal shape"):
        init.initializer(ms.Tensor(rand(2, 3)), (3, 2))
    with pytest.raises(ValueError, match="mode"):
        init.HeUniform(mode="fan_avg")
    with pytest.raises(ValueError, match="nonlinearity"):
        init.HeNormal(nonlinearity="swish")
    with pytest.raises(ValueError, match="sigma"):
        init.Normal(sigma=-1)
