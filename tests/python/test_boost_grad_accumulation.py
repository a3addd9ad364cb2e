"""Model's gradient-accumulation option (MindSpore's boost grad_accumulation, issue #20):
k steps on batches of b rows equal one step on the k*b rows (to 1e-6), step by step and in
sink mode, in GRAPH and PYNATIVE mode; the steps between updates leave the weights and the
optimizer's state untouched; boost.GradientAccumulation against a numpy transcription; errors
for what is not built."""
import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel import boost, nn, Tensor
from mycel.train import Model
from test_grad_accumulation import _Mlp  # (6 -> 16 -> 5)

N = 48


def _data(batch):
    rng = np.random.default_rng(21)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    y = rng.integers(0, 5, N).astype(np.int32)
    return ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False).batch(batch)


def _model(k):
    ms.set_seed(5)
    net = _Mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    cfg = {"boost": {"mode": "manual", "grad_accumulation": True},
           "grad_accumulation": {"grad_accumulation_step": k}}
    kwargs = {"boost_level": "O1", "boost_config_dict": cfg} if k else {}
    return net, Model(net, loss, opt, **kwargs)


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("sink", [False, True], ids=["steps", "sink"])
def test_k_batches_equal_one_big_batch(mode, k, sink):
    big_net, big = _model(None)
    big.train(3, _data(4 * k))  # 3 epochs of N / (4k) big steps
    net, model = _model(k)
    model.train(3, _data(4), dataset_sink_mode=sink)
    for p, q in zip(net.trainable_params(), big_net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=p.name)
    ms.set_seed(5)
    moved = any(not np.allclose(p.asnumpy(), q.asnumpy())
                for p, q in zip(net.trainable_params(), _Mlp().trainable_params()))
    assert moved


def test_gradient_accumulation_against_numpy(mode):
    # Momentum v = mu v + g_mean; w -= lr v, applied on steps k, 2k, ... only.
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((3, 2))
    p = ms.Parameter(Tensor(w0, ms.float64), "w")
    opt = nn.Momentum([p], 0.5, 0.75)  # (rates exact in float32, the optimizer's scalars)
    acc = boost.GradientAccumulation(3, opt)
    grads = [rng.standard_normal((3, 2)) for _ in range(7)]
    w, v, total = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for i, g in enumerate(grads):
        loss = acc(Tensor(np.float64(i)), (Tensor(g, ms.float64),))
        assert float(loss.asnumpy()) == i
        total += g
        if (i + 1) % 3 == 0:
            v = 0.75 * v + total / 3
            w = w - 0.5 * v
            total = np.zeros_like(w0)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(opt.moments[0].asnumpy(), v, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(acc._grad_accumulation[0].asnumpy(), total, rtol=1e-12)


def test_boost_errors():
    net = _Mlp()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    with pytest.raises(ValueError, match="'grad_accumulation_step' must be a positive int"):
        Model(net, loss, opt, boost_level="O1", boost_config_dict={
            "boost": {"mode": "manual", "grad_accumulation": True},
            "grad_accumulation": {"grad_accumulation_step": 0}})
    with pytest.raises(ValueError, match="'less_bn' is not built"):
        Model(net, loss, opt, boost_level="O1",
              boost_config_dict={"boost": {"mode": "manual", "less_bn": True}})
    with pytest.raises(ValueError, match="mode 'auto'"):
        Model(net, loss, opt, boost_level="O2")
    with pytest.raises(ValueError, match="not built together with mixed precision"):
        Model(net, loss, opt, amp_level="O2", boost_level="O1", boost_config_dict={
            "boost": {"mode": "manual", "grad_accumulation": True},
            "grad_accumulation": {"grad_accumulation_step": 2}})
    with pytest.raises(TypeError, match="'optimizer' must be an nn Optimizer"):
        boost.GradientAccumulation(2, "sgd")
    # boost_level O0 uses no algorithm: the config is not read.
    Model(net, loss, opt, boost_config_dict={"boost": {"mode": "manual", "less_bn": True}})
