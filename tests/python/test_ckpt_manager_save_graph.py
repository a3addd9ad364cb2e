"""train.callback._CheckpointManager (the checkpoint files of a prefix; ModelCheckpoint's
keep_checkpoint_per_n_minutes), train.serialization._save_graph (the last compiled graph as
text) and Cell.init_parameters_data."""
import os
import time

import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel import Tensor, nn
from mycel.train.callback import CheckpointConfig, ModelCheckpoint, _CheckpointManager
from mycel.train.serialization import _save_graph


def _touch(path, mtime):
    with open(path, "w"):
        pass
    os.utime(path, (mtime, mtime))


def test_checkpoint_manager(tmp_path):
    now = time.time()
    d = str(tmp_path)
    for i, age in ((1, 300), (2, 200), (3, 30), (4, 20)):
        _touch(os.path.join(d, f"net-{i}_1.ckpt"), now - age)
    _touch(os.path.join(d, "net_1-5_1.ckpt"), now - 10)  # a second run's name
    _touch(os.path.join(d, "other-1_1.ckpt"), now)
    _touch(os.path.join(d, "net-x_1.ckpt"), now)
    m = _CheckpointManager()
    m.update_ckpoint_filelist(d, "net")
    names = [os.path.basename(f) for f in m.ckpoint_filelist]
    assert names == ["net-1_1.ckpt", "net-2_1.ckpt", "net-3_1.ckpt", "net-4_1.ckpt",
                     "net_1-5_1.ckpt"]
    assert m.ckpoint_num == 5
    m.remove_oldest_ckpoint_file()
    assert not os.path.exists(os.path.join(d, "net-1_1.ckpt")) and m.ckpoint_num == 4
    m.keep_one_ckpoint_per_minutes(1, now)  # of the last minute's files the oldest stays
    m.update_ckpoint_filelist(d, "net")
    assert [os.path.basename(f) for f in m.ckpoint_filelist] == ["net-2_1.ckpt",
                                                                  "net-3_1.ckpt"]
    m.remove_ckpoint_file(os.path.join(d, "net-3_1.ckpt"))
    assert m.ckpoint_num == 1 and os.path.exists(os.path.join(d, "other-1_1.ckpt"))


def test_model_checkpoint_keeps_one_per_n_minutes(tmp_path):
    net = nn.Dense(2, 1)
    data = ds.NumpySlicesDataset({"x": np.ones((8, 2), np.float32),
                                          "y": np.zeros((8, 1), np.float32)},
                                         shuffle=False).batch(2)
    cfg = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=0,
                           keep_checkpoint_per_n_minutes=1)
    assert cfg.keep_checkpoint_per_n_minutes == 1
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    model.train(1, data, callbacks=[ModelCheckpoint("m", str(tmp_path), cfg)])
    # four saves within a minute: before each, all but the oldest of the last minute go
    files = sorted(os.listdir(tmp_path))
    assert files == ["m-1_1.ckpt", "m-1_4.ckpt"], files


def test_save_graph_and_init_parameters_data(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(3, 2)
    with pytest.raises(RuntimeError, match="no compiled graph"):
        _save_graph(net, str(tmp_path / "g.meta"))
    net(Tensor(np.ones((4, 3), np.float32)))
    _save_graph(network=net, file_name=str(tmp_path / "g.meta"))
    text = (tmp_path / "g.meta").read_text()
    assert "MatMul" in text or "Dense" in text or "BiasAdd" in text, text[:500]
    with pytest.raises(TypeError):
        _save_graph(object(), "x")
    got = net.init_parameters_data()
    assert set(got) == set(net.get_parameters()) and all(k is v for k, v in got.items())


class _TwoInputs(nn.Cell):
    def construct(self, x, y):
        return x * 2, y


def test_get_mindir_inputs(tmp_path):
    from mycel.train.serialization import _get_mindir_inputs
    ms.set_context(mode=ms.GRAPH_MODE)
    f = str(tmp_path / "two")
    ms.export(_TwoInputs(), Tensor(np.zeros(1, np.float16)), Tensor(np.zeros((10, 20), np.int32)),
              file_name=f, file_format="MINDIR")
    got = _get_mindir_inputs(f + ".mindir")
    assert [(t.shape, t.dtype) for t in got] == [((1,), ms.float16), ((10, 20), ms.int32)]
    assert not got[1].asnumpy().any()
    ms.export(nn.Dense(10, 2), Tensor(np.ones((32, 10), np.float32)), file_name=f + "1",
              file_format="MINDIR")
    one = _get_mindir_inputs(f + "1.mindir")
    assert one.shape == (32, 10) and one.dtype == ms.float32


def test_file_system_appends_and_a_corrupted_checkpoint_fails_its_crc(tmp_path):
    from mycel.common.file_system import FileSystem
    net = nn.Dense(3, 2)
    path = str(tmp_path / "c.ckpt")
    ms.save_checkpoint(net, path, crc_check=True)
    size = os.path.getsize(path)
    fs = FileSystem()
    with fs.open(path, *fs.create_args) as f:
        f.write(b"111")
    assert os.path.getsize(path) == size + 3 and fs.exists(path)
    with fs.open(path, *fs.open_args) as f:
        assert f.read()[-3:] == b"111"
    with pytest.raises(ValueError):
        ms.load_checkpoint(path, crc_check=True)
    fs.remove(path)
    assert not fs.exists(path)


def test_register_file_systems():
    from mycel.common.file_system import (FileSystem, _register_basic_file_system,
                                          _register_mindio_file_system)
    fs = FileSystem()
    fs.create, fs.open = None, None
    assert _register_basic_file_system(fs) is True
    assert fs.create is open and fs.create_args == ("ab",) and fs.open is open
    assert fs.open_args == ("rb",) and fs.backend == "basic"
    assert _register_mindio_file_system(fs) is False  # no MindIO backend: fs unchanged
    assert fs.backend == "basic"

