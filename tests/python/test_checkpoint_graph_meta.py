"""ModelCheckpoint writes prefix-graph.meta (the training network's compiled graph, as
MindSpore's) once, at its first step end, when the network runs in GRAPH mode; in PYNATIVE
mode there is no graph and no file. The checkpoints beside it are unchanged."""
import os

import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel import nn
from mycel.train import CheckpointConfig, Model, ModelCheckpoint


def _train(tmp_path, mode):
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        rng = np.random.RandomState(0)
        x = rng.randn(32, 4).astype(np.float32)
        y = (np.arange(32) % 3).astype(np.int32)
        data = ds.NumpySlicesDataset((x, y), ["data", "label"], shuffle=False).batch(16)
        net = nn.Dense(4, 3)
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      nn.Momentum(net.trainable_params(), 0.1, 0.9))
        ck = ModelCheckpoint(prefix="net", directory=str(tmp_path),
                             config=CheckpointConfig(save_checkpoint_steps=2))
        model.train(2, data, callbacks=[ck], dataset_sink_mode=False)
    finally:
        ms.set_context(mode=old)


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def test_graph_meta_written_once_in_graph_mode(tmp_path, mode):
    _train(tmp_path, mode)
    files = sorted(os.listdir(tmp_path))
    ckpts = [f for f in files if f.endswith(".ckpt")]
    assert ckpts == ["net-1_2.ckpt", "net-2_2.ckpt"]
    if mode == ms.GRAPH_MODE:
        assert "net-graph.meta" in files
        text = open(tmp_path / "net-graph.meta", encoding="utf-8").read()
        # the program text of the compiled training step: its momentum update among its ops
        assert text.startswith("@entry") and "ApplyMomentum" in text, text[:300]
    else:
        assert "net-graph.meta" not in files
