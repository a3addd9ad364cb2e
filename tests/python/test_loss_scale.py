"""Loss scaling in training (issue #20, mixed precision): nn.TrainOneStepWithLossScaleCell with
Tensor and update-cell scale_sense, DynamicLossScaleUpdateCell / FixedLossScaleUpdateCell,
mycel.train's FixedLossScaleManager / DynamicLossScaleManager, in PYNATIVE and GRAPH mode.

The oracle is a numpy loop: the gradient of a linear model's mean squared error is written
out, and the scale follows the documented rule (lowered on overflow, raised after
scale_window good steps). A forced overflow (an inf in the batch, so inf/NaN gradients) must
skip the update: the parameters and the optimizer's state (momentum, Adam moments, step)
are compared bit for bit with their values before the step."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import mycel as ms  # noqa: E402
from mycel import nn  # noqa: E402
from mycel.train import DynamicLossScaleManager, FixedLossScaleManager  # noqa: E402
from test_nn_layer_grads import T, mode, rand  # noqa: E402,F401


def _dense_net():
    ms.set_seed(3)
    return nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())


def _state(cell):
    return [p.asnumpy().copy() for p in cell._state]


def _batches():
    x = rand(4, 3, seed=1)
    y = rand(4, 2, seed=2)
    bad = x.copy()
    bad[1, 2] = np.inf
    return x, y, bad


def test_dynamic_update_cell_skips_overflow_and_moves_the_scale(mode):
    net = _dense_net()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    upd = nn.DynamicLossScaleUpdateCell(loss_scale_value=1024.0, scale_factor=2, scale_window=3)
    step = nn.TrainOneStepWithLossScaleCell(net, opt, scale_sense=upd)
    x, y, bad = _batches()
    w, b = (p.asnumpy().astype(np.float64) for p in net.trainable_params())
    v_w, v_b = np.zeros_like(w), np.zeros_like(b)
    scale, good = 1024.0, 0
    for i, data in enumerate([x, x, bad, x, x, x, x, bad, x]):
        before = _state(step)
        loss, overflow, used = step(T(data), T(y))
        after = _state(step)
        assert float(used.asnumpy()) == scale  # the scale this step ran with
        overflowed = not np.isfinite(data).all()
        assert bool(overflow.asnumpy()) == overflowed, i
        if overflowed:
            # Skipped: parameters, moments and every other state exactly as before.
            for a, c in zip(before, after):
                np.testing.assert_array_equal(a, c)
            scale, good = max(scale / 2, 1.0), 0
        else:
            # numpy's momentum step on the unscaled gradient of mean((x w^T + b - y)^2).
            r = data @ w.T + b - y
            np.testing.assert_allclose(float(loss.asnumpy()), (r ** 2).mean(), rtol=1e-5)
            gw = 2 * r.T @ data / r.size
            gb = 2 * r.sum(0) / r.size
            v_w, v_b = 0.9 * v_w + gw, 0.9 * v_b + gb
            w, b = w - 0.05 * v_w, b - 0.05 * v_b
            good += 1
            if good == 3:
                scale, good = scale * 2, 0
        assert float(step.scale_sense.asnumpy()) == scale, i
        np.testing.assert_allclose(net.trainable_params()[0].asnumpy(), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(net.trainable_params()[1].asnumpy(), b, rtol=1e-5, atol=1e-6)
    assert scale == 512.0  # 1024, lowered twice, raised once after 3 good steps


def test_scale_never_drops_below_one(mode):
    net = _dense_net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepWithLossScaleCell(net, opt, nn.DynamicLossScaleUpdateCell(4.0, 4, 10))
    _, y, bad = _batches()
    for want in (1.0, 1.0):
        step(T(bad), T(y))
        assert float(step.scale_sense.asnumpy()) == want


def test_adam_state_untouched_on_overflow(mode):
    net = _dense_net()
    opt = nn.Adam(net.trainable_params(), 0.01)
    step = nn.TrainOneStepWithLossScaleCell(net, opt, nn.FixedLossScaleUpdateCell(256.0))
    x, y, bad = _batches()
    step(T(x), T(y))
    before = _state(step)
    assert len(before) > 4  # weights, moments, beta powers / step
    _, overflow, _ = step(T(bad), T(y))
    assert bool(overflow.asnumpy())
    for a, c in zip(before, _state(step)):
        np.testing.assert_array_equal(a, c)
    assert float(step.scale_sense.asnumpy()) == 256.0  # fixed
    _, overflow, _ = step(T(x), T(y))
    assert not bool(overflow.asnumpy())
    assert not np.array_equal(before[0], _state(step)[0])


def test_tensor_scale_sense_equals_unscaled_training(mode):
    # A fixed scale changes nothing but the arithmetic's range: the same weights as
    # TrainOneStepCell (scales are powers of two, so exactly).
    x, y, _ = _batches()
    runs = []
    for scaled in (False, True):
        net = _dense_net()
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
        if scaled:
            step = nn.TrainOneStepWithLossScaleCell(net, opt, ms.Tensor(np.float32(64.0)))
        else:
            step = nn.TrainOneStepCell(net, opt)
        for _ in range(3):
            out = step(T(x), T(y))
        runs.append([p.asnumpy() for p in net.trainable_params()])
        if scaled:
            assert float(out[2].asnumpy()) == 64.0 and not bool(out[1].asnumpy())
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def test_overflow_methods():
    net = _dense_net()
    step = nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1),
                                            nn.DynamicLossScaleUpdateCell(8.0, 2, 5))
    grads = (T(rand(2, 3)), T(np.array([1.0, np.inf], np.float32)))
    status, same = step.start_overflow_check(None, grads)
    assert same is grads
    assert bool(step.get_overflow_status(status, grads).asnumpy())
    assert not bool(step.get_overflow_status(status, grads[:1]).asnumpy())
    assert bool(step.process_loss_scale(ms.Tensor(True)).asnumpy())
    assert float(step.scale_sense.asnumpy()) == 4.0  # the update cell ran


def test_set_sense_scale_and_argument_errors():
    net = _dense_net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepWithLossScaleCell(net, opt, ms.Tensor(np.array([8.0], np.float32)))
    assert float(step.scale_sense.asnumpy()) == 8.0
    step.set_sense_scale(ms.Tensor(np.float32(2.0)))
    assert float(step.scale_sense.asnumpy()) == 2.0
    with pytest.raises(ValueError, match="scale_sense"):
        nn.TrainOneStepWithLossScaleCell(net, opt, ms.Tensor(np.ones((2,), np.float32)))
    with pytest.raises(TypeError, match="scale_sense"):
        nn.TrainOneStepWithLossScaleCell(net, opt, 8.0)
    with pytest.raises(ValueError, match="scale_window"):
        nn.DynamicLossScaleUpdateCell(8.0, 2, 0)
    with pytest.raises(ValueError, match="scale_factor"):
        nn.DynamicLossScaleUpdateCell(8.0, 1, 10)
    with pytest.raises(ValueError, match="loss_scale"):
        nn.FixedLossScaleUpdateCell(0.5)


def test_managers():
    fixed = FixedLossScaleManager(128.0, drop_overflow_update=False)
    assert fixed.get_loss_scale() == 128.0 and fixed.get_update_cell() is None
    cell = FixedLossScaleManager(64, drop_overflow_update=True).get_update_cell()
    assert isinstance(cell, nn.FixedLossScaleUpdateCell) and cell.get_loss_scale() == 64.0

    dyn = DynamicLossScaleManager(init_loss_scale=2 ** 10, scale_factor=2, scale_window=3)
    cell = dyn.get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell)
    assert (cell.get_loss_scale(), cell.scale_factor, cell.scale_window) == (1024.0, 2.0, 3)
    # The host rule: good steps 1-3 raise it once, an overflow halves it, 3 more raise it.
    seen = []
    for overflow in (False, False, False, True, False, False, False, False):
        dyn.update_loss_scale(overflow)
        seen.append(dyn.get_loss_scale())
    assert seen == [1024, 1024, 2048, 1024, 1024, 1024, 2048, 2048]
    with pytest.raises(ValueError, match="scale_window"):
        DynamicLossScaleManager(scale_window=0)
    with pytest.raises(TypeError, match="drop_overflow_update"):
        FixedLossScaleManager(8.0, drop_overflow_update=1)


def test_model_with_loss_scale_manager_skips_overflowing_batches(mode):
    net = nn.Dense(3, 2)
    loss = nn.MSELoss()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    model = ms.Model(net, loss, opt,
                     loss_scale_manager=DynamicLossScaleManager(2 ** 12, 2, scale_window=100))
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    x, y, bad = _batches()
    model.train(1, [(T(x), T(y))])
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    model.train(1, [(T(bad), T(y))])
    for a, p in zip(before, net.trainable_params()):
        np.testing.assert_array_equal(a, p.asnumpy())
    assert float(model.train_network.scale_sense.asnumpy()) == 2 ** 11
