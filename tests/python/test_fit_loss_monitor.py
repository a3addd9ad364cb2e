"""Model.fit with LossMonitor prints each evaluation at the epoch's end, "Eval result: epoch E,
metrics: {...}" (MindSpore's LossMonitor.on_train_epoch_end, reading cb_params.metrics).
Analytic values: inputs 0 through a Dense without bias predict 0 for labels 3, whatever the
weights, so mse = 9 and mae = 3."""
import re

import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel import nn
from mycel.train import LossMonitor, Model


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_fit_prints_eval_metrics(mode, capsys):
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        x = np.zeros((64, 1), np.float32)
        y = np.full((64, 1), 3.0, np.float32)
        train = ds.NumpySlicesDataset((x, y), ["data", "label"], shuffle=False).batch(16)
        valid = ds.NumpySlicesDataset((x, y), ["data", "label"], shuffle=False).batch(32)
        net = nn.Dense(1, 1, has_bias=False)
        model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9),
                      metrics={"mse", "mae"})
        capsys.readouterr()
        model.fit(2, train, valid, callbacks=[LossMonitor(0)], dataset_sink_mode=False)
        out = capsys.readouterr().out
    finally:
        ms.set_context(mode=old)
    lines = re.findall(r"Eval result: epoch (\d), metrics: (\{.*\})", out)
    assert [e for e, _ in lines] == ["1", "2"], out
    for _, metrics in lines:
        assert eval(metrics) == {"mse": 9.0, "mae": 3.0}  # noqa: S307 (a dict we printed)
