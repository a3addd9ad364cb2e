"""Optimizer options MindSpore programs use: parameter groups with 'order_params',
is_group_lr and the learning-rate names, per-parameter weight_decay/decay_flags;
Adam(use_amsgrad=True) against torch.optim.Adam(amsgrad=True); ProximalAdagrad against its
update in numpy; ParameterUpdate; the primitives Shape, SameTypeShape, Print and
SparseGatherV2; the nn.wrap module paths. Training runs in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor
from mycel.ops import operations as P


class Lin(nn.Cell):
    def __init__(self, w0):
        super().__init__()
        self.w = ms.Parameter(Tensor(w0), "w")
        self.b = ms.Parameter(Tensor(np.zeros(w0.shape[1], np.float32)), "b")

    def construct(self, x):
        return ((ops.matmul(x, self.w) + self.b) ** 2).sum()


W0 = np.random.RandomState(0).randn(3, 4).astype(np.float32)
X = np.random.RandomState(1).randn(5, 3).astype(np.float32)


def test_order_params_sets_the_parameters_order_and_groups_keep_their_rates():
    net = Lin(W0)
    w, b = net.w, net.b
    opt = nn.SGD([{"params": [w], "lr": 0.5}, {"params": [b], "weight_decay": 0.1},
                  {"order_params": [b, w]}], learning_rate=0.1)
    assert opt.is_group and opt.is_group_lr and opt.is_group_params_ordered
    assert [p.name for p in opt.parameters] == ["b", "w"]
    assert opt.decay_flags == (True, False)
    np.testing.assert_allclose([float(d.asnumpy()) for d in opt.weight_decay], [0.1, 0.0])
    assert opt.get_lr_parameter(w).name == "learning_rate_group_0"
    assert opt.get_lr_parameter(b).name == "learning_rate"
    # one step: each parameter moves by its own group's rate (gradients given in b, w order)
    gw, gb = np.ones_like(W0), np.ones(4, np.float32)
    opt((Tensor(gb), Tensor(gw)))
    np.testing.assert_allclose(w.asnumpy(), W0 - 0.5 * gw, rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), -0.1 * gb, rtol=1e-6)  # decay of 0 is 0
    with pytest.raises(ValueError):
        nn.SGD([{"params": [w]}, {"order_params": [w, b]}])
    plain = nn.SGD([{"params": [w], "weight_decay": 0.1}, {"params": [b]}])
    assert not plain.is_group_lr and not plain.is_group_params_ordered


def _train(opt_fn, steps=5):
    net = Lin(W0)
    step = nn.TrainOneStepCell(net, opt_fn(net.trainable_params()))
    for _ in range(steps):
        step(Tensor(X))
    return net.w.asnumpy(), net.b.asnumpy()


def test_adam_amsgrad_matches_torch(mode):
    w, b = _train(lambda ps: nn.Adam(ps, learning_rate=0.1, use_amsgrad=True))
    tw = torch.tensor(W0, requires_grad=True)
    tb = torch.zeros(4, requires_grad=True)
    topt = torch.optim.Adam([tw, tb], lr=0.1, amsgrad=True, eps=1e-8)
    for _ in range(5):
        topt.zero_grad()
        ((torch.tensor(X) @ tw + tb) ** 2).sum().backward()
        topt.step()
    # eps enters slightly differently (MindSpore adds it before the bias correction)
    np.testing.assert_allclose(w, tw.detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(b, tb.detach().numpy(), atol=1e-5)
    with pytest.raises(ValueError):
        nn.Adam(Lin(W0).trainable_params(), use_amsgrad=True, use_nesterov=True)


def test_proximal_adagrad_matches_numpy(mode):
    lr, l1, l2, acc = 0.1, 0.05, 0.1, 0.1
    w, b = _train(lambda ps: nn.ProximalAdagrad(ps, accum=acc, learning_rate=lr, l1=l1, l2=l2))
    rw, rb = W0.astype(np.float64), np.zeros(4)
    aw, ab = np.full_like(rw, acc), np.full_like(rb, acc)
    x = X.astype(np.float64)
    for _ in range(5):
        r = 2 * (x @ rw + rb)
        gw, gb = x.T @ r, r.sum(0)
        out = []
        for p, a, g in ((rw, aw, gw), (rb, ab, gb)):
            a += g * g
            v = p - lr * g / np.sqrt(a)
            out.append(np.sign(v) * np.maximum(np.abs(v) - lr * l1, 0) / (1 + lr * l2))
        rw, rb = out
    np.testing.assert_allclose(w, rw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, rb, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        nn.ProximalAdagrad(Lin(W0).trainable_params(), accum=0.0)


class _Prims(nn.Cell):
    def __init__(self):
        super().__init__()
        self.shape = P.Shape()
        self.same = P.SameTypeShape()
        self.gather = P.SparseGatherV2()

    def construct(self, x, idx):
        s = self.shape(x)
        return self.same(x, x) * s[0], self.gather(x, idx, 1)


def test_shape_sametypeshape_sparsegatherv2(mode):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([3, 0], np.int32)
    a, g = _Prims()(Tensor(x), Tensor(idx))
    np.testing.assert_array_equal(a.asnumpy(), x * 3)
    np.testing.assert_array_equal(g.asnumpy(), x[:, [3, 0]])
    with pytest.raises(TypeError):
        P.SameTypeShape()(Tensor(x), Tensor(x.astype(np.int32)))
    with pytest.raises(ValueError):
        P.SameTypeShape()(Tensor(x), Tensor(x[:2]))


def test_print_prints_in_both_modes(mode, capfd):
    class Pr(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = P.Print()

        def construct(self, x):
            self.p("value:", x)
            return x + 1

    Pr()(Tensor(np.array([7.0], np.float32)))
    assert "value:" in capfd.readouterr().out


def test_parameter_update_and_wrap_module_paths(mode):
    from mycel.nn.wrap.cell_wrapper import WithLossCell, ParameterUpdate  # noqa: F401
    from mycel.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell  # noqa: F401
    from mycel.nn.wrap.grad_reducer import DistributedGradReducer  # noqa: F401
    p = ms.Parameter(Tensor(np.zeros(3, np.float32)), "lr")
    nn.ParameterUpdate(p)(Tensor(np.array([0.2, 0.02, 0.002], np.float32)))
    np.testing.assert_allclose(p.asnumpy(), [0.2, 0.02, 0.002])
    with pytest.raises(TypeError):
        nn.ParameterUpdate(np.array([1]))


def _adafactor_ref(w0, b0, x, steps, lr=None, eps=(1e-30, 1e-3), clip=1.0, dr=0.8, beta1=0.9,
                   wd=0.0, scale=True, rel=True, warm=False):
    """AdaFactor (Shazeer and Stern 2018) in float64 numpy on the loss sum((x w + b)^2)."""
    ps = [w0.astype(np.float64), b0.astype(np.float64)]
    st = [dict(r=np.zeros(ps[0].shape[:-1]), c=np.zeros(ps[0].shape[-1:]),
               m=np.zeros(ps[0].shape)),
          dict(v=np.zeros(ps[1].shape), m=np.zeros(ps[1].shape))]
    xx = x.astype(np.float64)
    for t in range(1, steps + 1):
        r = 2 * (xx @ ps[0] + ps[1])
        gs = [xx.T @ r, r.sum(0)]
        for p, g, s in zip(ps, gs, st):
            a = min(1e-6 * t if warm else 1e-2, 1 / np.sqrt(t)) if rel else lr
            if scale:
                a *= max(eps[1], np.sqrt(np.mean(p * p)))
            b2 = 1 - t ** (-dr)
            u = g * g + eps[0]
            if p.ndim >= 2:
                s["r"] = b2 * s["r"] + (1 - b2) * u.mean(-1)
                s["c"] = b2 * s["c"] + (1 - b2) * u.mean(-2)
                row = 1 / np.sqrt(s["r"] / s["r"].mean(-1, keepdims=True))
                up = row[..., None] * (1 / np.sqrt(s["c"]))[..., None, :] * g
            else:
                s["v"] = b2 * s["v"] + (1 - b2) * u
                up = g / np.sqrt(s["v"])
            up = up / max(1.0, np.sqrt(np.mean(up * up)) / clip) * a
            if beta1 > 0:
                s["m"] = beta1 * s["m"] + (1 - beta1) * up
                up = s["m"]
            p -= wd * a * p + up
    return ps


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.05, rel=False, wd=0.1),
                                dict(warm=True, beta1=0.0, scale=False)])
def test_adafactor_matches_the_paper_in_numpy(mode, kw):
    args = dict(learning_rate=kw.get("lr"), relative_step=kw.get("rel", True),
                weight_decay=kw.get("wd", 0.0), warmup_init=kw.get("warm", False),
                beta1=kw.get("beta1", 0.9), scale_parameter=kw.get("scale", True))
    b0 = np.random.RandomState(2).randn(4).astype(np.float32)
    net = Lin(W0)
    net.b.set_data(Tensor(b0))
    step = nn.TrainOneStepCell(net, nn.AdaFactor(net.trainable_params(), **args))
    for _ in range(4):
        step(Tensor(X))
    rw, rb = _adafactor_ref(W0, b0, X, 4, **kw)
    np.testing.assert_allclose(net.w.asnumpy(), rw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.b.asnumpy(), rb, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        nn.AdaFactor(Lin(W0).trainable_params(), learning_rate=0.1)  # needs relative_step=False


def test_functional_tuple_helpers(mode):
    import mycel.ops.functional as F

    class Mean(nn.Cell):
        def construct(self, x):
            shape = P.Shape()(x)
            axes = F.make_range(0, F.tuple_len(shape))
            return P.ReduceSum()(x, axes) / F.shape_mul(shape)

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_allclose(Mean()(Tensor(x)).asnumpy(), x.mean(), rtol=1e-6)
    assert F.make_range(3) == (0, 1, 2) and F.make_range(1, 7, 3) == (1, 4)


def test_adam_lazy_and_offload_are_adam_for_dense_gradients(mode):
    ref = _train(lambda ps: nn.Adam(ps, learning_rate=0.05))
    for kw in (dict(use_lazy=True), dict(use_offload=True)):
        got = _train(lambda ps: nn.Adam(ps, learning_rate=0.05, **kw))
        np.testing.assert_array_equal(got[0], ref[0])
    got = _train(lambda ps: nn.AdamOffload(ps, learning_rate=0.05))
    np.testing.assert_array_equal(got[0], ref[0])
    got = _train(lambda ps: nn.LazyAdam(ps, learning_rate=0.05))
    np.testing.assert_array_equal(got[0], ref[0])
    ps = Lin(W0).trainable_params()
    with pytest.raises(ValueError):
        nn.Adam(ps, use_lazy=True, use_offload=True)
    with pytest.raises(ValueError):
        nn.Adam(ps, use_lazy=True, use_amsgrad=True)
