"""nn.GradAccumulationCell (issue #20, training algorithms): split into k micro-batches, the
averaged gradients equal the full batch's gradient of the mean loss (to 1e-6), and a training
step through it equals one on the whole batch; PYNATIVE and GRAPH mode."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import mycel as ms  # noqa: E402
from mycel import nn, ops  # noqa: E402
from test_nn_layer_grads import T, mode, rand  # noqa: E402,F401


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 16)
        self.fc2 = nn.Dense(16, 5)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _net():
    ms.set_seed(7)
    return nn.WithLossCell(_Mlp(), nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                    reduction="mean"))


def _data(n=12):
    x = rand(n, 6, seed=4)
    y = np.random.default_rng(5).integers(0, 5, n).astype(np.int32)
    return T(x), T(y)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 12])
def test_accumulated_gradients_equal_the_full_batch(mode, k):
    net = _net()
    x, y = _data()
    weights = net.trainable_params()
    loss_full, g_full = ops.value_and_grad(net, None, weights)(x, y)
    acc = nn.GradAccumulationCell(net, k)
    loss_acc, g_acc = ops.value_and_grad(acc, None, weights)(x, y)
    np.testing.assert_allclose(loss_acc.asnumpy(), loss_full.asnumpy(), rtol=1e-6, atol=1e-6)
    for a, b in zip(g_acc, g_full):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)


def test_accumulated_gradients_against_numpy_micro_batches(mode):
    # The oracle: the mean of the micro-batches' gradients, each taken separately.
    net = _net()
    x, y = _data()
    weights = net.trainable_params()
    grad_fn = ops.value_and_grad(net, None, weights)
    xs, ys = x.asnumpy(), y.asnumpy()
    parts = [grad_fn(T(xs[i:i + 4]), T(ys[i:i + 4]))[1] for i in range(0, 12, 4)]
    want = [np.mean([p[j].asnumpy().astype(np.float64) for p in parts], axis=0)
            for j in range(len(weights))]
    _, got = ops.value_and_grad(nn.GradAccumulationCell(net, 3), None, weights)(x, y)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-6, atol=1e-6)


def test_training_step_equals_full_batch_step(mode):
    x, y = _data()
    runs = []
    for k in (None, 3):
        net = _net()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        body = net if k is None else nn.GradAccumulationCell(net, k)
        step = nn.TrainOneStepCell(body, opt)
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        runs.append((losses, [p.asnumpy() for p in net.trainable_params()]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-6, atol=1e-6)
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_errors(mode):
    net = _net()
    with pytest.raises(ValueError, match="micro_size"):
        nn.GradAccumulationCell(net, 0)
    with pytest.raises(ValueError, match="micro_size"):
        nn.GradAccumulationCell(net, True)
    with pytest.raises(TypeError, match="network"):
        nn.GradAccumulationCell(lambda x: x, 2)
    x, y = _data(10)
    with pytest.raises(ValueError, match="not a multiple of micro_size 4"):
        nn.GradAccumulationCell(net, 4)(x, y)
