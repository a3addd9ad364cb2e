"""The metrics MAE, MSE and TopKCategoricalAccuracy (with Top1/Top5) against numpy over
several batches, by name in Model.eval, and their errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor
from mycel import dataset as ds
from mycel.train import (MAE, MSE, TopKCategoricalAccuracy, Top1CategoricalAccuracy,
                         Top5CategoricalAccuracy, Model)


def batches(rng, shape, n=3):
    return [(rng.standard_normal(shape), rng.standard_normal(shape)) for _ in range(n)]


def test_mae_mse_sum_over_elements_average_over_samples():
    rng = np.random.default_rng(0)
    data = batches(rng, (4, 3))
    mae, mse = MAE(), MSE()
    for p, y in data:
        mae.update(Tensor(p.astype(np.float32)), Tensor(y.astype(np.float32)))
        mse.update(p, y)  # numpy inputs too
    d = np.concatenate([y.astype(np.float32) - p.astype(np.float32) for p, y in data])
    np.testing.assert_allclose(mae.eval(), np.abs(d).sum() / 12, rtol=1e-6)
    d = np.concatenate([y - p for p, y in data])
    np.testing.assert_allclose(mse.eval(), (d * d).sum() / 12, rtol=1e-12)
    mae.clear()
    with pytest.raises(RuntimeError, match="no sample"):
        mae.eval()
    with pytest.raises(ValueError, match="as many elements"):
        mse.update(np.ones((2, 3)), np.ones(5))


def test_top_k_categorical_accuracy():
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((50, 10))
    labels = rng.integers(0, 10, 50)
    order = np.argsort(-logits, axis=1)
    for k, metric in ((1, Top1CategoricalAccuracy()), (3, TopKCategoricalAccuracy(3)),
                      (5, Top5CategoricalAccuracy())):
        metric.update(logits[:20], labels[:20])
        metric.update(Tensor(logits[20:]), np.eye(10)[labels[20:]])  # one-hot labels
        want = np.mean([labels[i] in order[i, :k] for i in range(50)])
        assert metric.eval() == pytest.approx(want)
    with pytest.raises(ValueError, match="'k' must be a positive int"):
        TopKCategoricalAccuracy(0)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_model_eval_by_name(mode):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((12, 4)).astype(np.float32)
    y = rng.standard_normal((12, 3)).astype(np.float32)
    net = nn.Dense(4, 3)
    model = Model(net, nn.MSELoss(), metrics={"mae", "mse", "top_1_categorical_accuracy"})
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    got = model.eval(data)
    p = net(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got["mae"], np.abs(y - p).sum() / 12, rtol=1e-5)
    np.testing.assert_allclose(got["mse"], ((y - p) ** 2).sum() / 12, rtol=1e-5)
    assert got["top_1_categorical_accuracy"] == pytest.approx(
        np.mean(p.argmax(1) == y.argmax(1)))
