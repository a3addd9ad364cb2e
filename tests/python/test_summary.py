"""mycel.train.summary: SummaryRecord's event files (read back with the protoc-generated
summary_pb2 and checked against numpy / an independent CRC-32C), the summary operators in
GRAPH and PYNATIVE mode, and SummaryCollector under Model.train."""
import io
import json
import os
import re
import struct

import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Tensor
from mycel import _mycel as _C
from mycel.train import lineage_pb2, summary_pb2
from mycel.train.summary import SummaryRecord
from mycel.train.summary.summary_record import (_cache_summary_tensor_data,
                                                _get_summary_tensor_data)
from mycel.train.summary._summary_adapter import _calc_histogram_bins

MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


def _crc32c_bitwise(data):
    """CRC-32C computed bit by bit (the oracle for the table-driven C++ one)."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_events(path, message=None):
    """Every Event (or `message`) of the file, checking each record's framing and CRCs."""
    events = []
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while pos < len(blob):
        header = blob[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", blob[pos + 8:pos + 12])
        assert hcrc == _masked(_crc32c_bitwise(header))
        data = blob[pos + 12:pos + 12 + length]
        (dcrc,) = struct.unpack("<I", blob[pos + 12 + length:pos + 16 + length])
        assert dcrc == _masked(_crc32c_bitwise(data))
        events.append((message or summary_pb2.Event).FromString(data))
        pos += 16 + length
    assert pos == len(blob)
    return events


@pytest.fixture(autouse=True)
def _empty_channel():
    _get_summary_tensor_data()
    yield
    _get_summary_tensor_data()


def test_crc32c_matches_the_bitwise_definition():
    assert _C._crc32c(b"123456789") == 0xE3069283
    data = bytes(range(256)) * 3
    assert _C._crc32c(data) == _crc32c_bitwise(data)
    assert _C._masked_crc32c(data) == _masked(_crc32c_bitwise(data))


def test_record_writer_framing_and_errors(tmp_path):
    path = str(tmp_path / "r.bin")
    w = _C._RecordWriter(path, "test")
    ev = summary_pb2.Event(wall_time=1.5, version="v")
    w.write(ev.SerializeToString())
    w.close()
    assert read_events(path)[0].version == "v"
    with pytest.raises(RuntimeError, match="closed"):
        w.write(b"x")
    with pytest.raises(RuntimeError, match="cannot open"):
        _C._RecordWriter(str(tmp_path / "no" / "dir" / "f"), "test")


def test_scalar_tensor_histogram_image_values(tmp_path):
    rng = np.random.default_rng(0)
    hist = rng.normal(size=200).astype(np.float32)
    hist[:3] = [np.nan, np.inf, -np.inf]
    image = rng.random((2, 3, 4, 5)).astype(np.float32)  # values in [0, 1): scaled by 255
    tensor = np.arange(6, dtype=np.int32).reshape(2, 3)
    with SummaryRecord(str(tmp_path), file_suffix="_T") as rec:
        rec.add_value("scalar", "s", Tensor(np.array(2.5, np.float32)))
        rec.add_value("tensor", "t", Tensor(tensor))
        rec.add_value("histogram", "h", Tensor(hist))
        rec.add_value("image", "i", Tensor(image))
        rec.record(7)
        path = rec.log_dir
    assert path.endswith("_T") and ".out.events.summary." in os.path.basename(path)
    first, event = read_events(path)
    assert first.version == "MindSpore.Event:1"
    assert event.step == 7
    values = {v.tag: v for v in event.summary.value}
    assert values["s"].scalar_value == 2.5
    t = values["t"].tensor
    assert list(t.dims) == [2, 3] and t.data_type == summary_pb2.DT_INT32
    np.testing.assert_array_equal(np.array(t.float_data), tensor.reshape(-1))
    h = values["h"].histogram
    finite = hist[np.isfinite(hist)]
    assert (h.count, h.nan_count, h.pos_inf_count, h.neg_inf_count) == (200, 1, 1, 1)
    assert h.min == pytest.approx(finite.min()) and h.max == pytest.approx(finite.max())
    assert h.sum == pytest.approx(finite.astype(np.float64).sum(), rel=1e-6)
    assert len(h.buckets) == _calc_histogram_bins(finite.size) == 20
    edges = np.linspace(finite.min(), finite.max(), 21)
    np.testing.assert_array_equal([b.count for b in h.buckets],
                                  np.histogram(finite.astype(np.float64), edges)[0])
    np.testing.assert_allclose([b.left for b in h.buckets], edges[:-1], rtol=1e-6)
    img = values["i"].image
    from PIL import Image
    decoded = np.asarray(Image.open(io.BytesIO(img.encoded_image)))
    expected = np.concatenate([image[0], image[1]], axis=2).transpose(1, 2, 0)
    assert (img.height, img.width, img.colorspace) == (4, 10, 3)
    np.testing.assert_array_equal(decoded, np.rint(expected * 255).astype(np.uint8))


def test_histogram_bins_rule():
    assert [_calc_histogram_bins(n) for n in (0, 1, 5, 6, 10, 11, 880, 881, 10 ** 6)] == \
        [1, 2, 2, 3, 3, 2, 89, 90, 90]


def test_channel_values_keep_the_latest_and_eval_mode_drops_them(tmp_path):
    with SummaryRecord(str(tmp_path)) as rec:
        _cache_summary_tensor_data([{"name": "x[:Scalar]", "data": Tensor(1.0)}])
        _cache_summary_tensor_data([{"name": "x[:Scalar]", "data": Tensor(3.0)}])
        rec.record(1)
        rec.set_mode("eval")
        _cache_summary_tensor_data([{"name": "x[:Scalar]", "data": Tensor(5.0)}])
        rec.record(2)
        path = rec.log_dir
    events = read_events(path)
    assert len(events) == 2 and events[1].summary.value[0].scalar_value == 3.0


def test_argument_errors(tmp_path):
    for bad in (None, 32):
        with pytest.raises(TypeError):
            SummaryRecord(bad)
    with pytest.raises(ValueError):
        SummaryRecord("")
    with pytest.raises(TypeError, match="raise_exception"):
        SummaryRecord(str(tmp_path), raise_exception=1)
    with pytest.raises(ValueError, match="tensor_format"):
        SummaryRecord(str(tmp_path), export_options={"tensor_format": "npz"})
    with SummaryRecord(str(tmp_path)) as rec:
        with pytest.raises(TypeError):
            rec.record("1")
        with pytest.raises(TypeError, match="Tensor"):
            rec.add_value("scalar", "s", 1.0)
        with pytest.raises(ValueError):
            rec.add_value("scalar", "", Tensor(1.0))
        with pytest.raises(ValueError, match="NCHW"):
            rec.add_value("image", "i", Tensor(np.ones((2, 4, 5, 5), np.float32)))
        with pytest.raises(ValueError, match="no elements"):
            rec.add_value("scalar", "s", Tensor(np.ones((0,), np.float32)))
        with pytest.raises(RuntimeError, match="only one instance"):
            SummaryRecord(str(tmp_path / "other"))
        with pytest.raises(TypeError, match="train_network"):
            rec.record(1, train_network=1)
    assert rec.record(2) is False  # closed: nothing written
    SummaryRecord(str(tmp_path / "other")).close()  # the first is closed: allowed now


def test_export_npy(tmp_path):
    with SummaryRecord(str(tmp_path), export_options={"tensor_format": "npy"}) as rec:
        rec.add_value("tensor", "w", Tensor(np.arange(4.0)))
        rec.record(3)
    found = [os.path.join(r, f) for r, _, fs in os.walk(str(tmp_path)) for f in fs
             if f.endswith(".npy")]
    assert len(found) == 1 and found[0].endswith("w_3.npy")
    np.testing.assert_array_equal(np.load(found[0]), np.arange(4.0))


class _SummaryNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scalar = ops.ScalarSummary()
        self.tensor = ops.TensorSummary()
        self.hist = ops.HistogramSummary()
        self.image = ops.ImageSummary()

    def construct(self, x):
        y = x * 2.0
        self.image("image", y)
        self.tensor("tensor", y)
        self.hist("histogram", y)
        self.scalar("scalar", y[0, 0, 0, 0])
        return y + 1.0


@pytest.mark.parametrize("mode", MODES)
def test_summary_ops_record_each_step(tmp_path, mode):
    ms.set_context(mode=mode)
    net = _SummaryNet()
    inputs = [np.full((1, 1, 2, 2), i + 0.25, np.float32) for i in range(3)]
    with SummaryRecord(str(tmp_path)) as rec:
        for i, x in enumerate(inputs):
            out = net(Tensor(x))
            np.testing.assert_allclose(out.asnumpy(), 2 * x + 1)
            rec.record(i)
        path = rec.log_dir
    events = read_events(path)[1:]
    assert [e.step for e in events] == [0, 1, 2]
    for e, x in zip(events, inputs):
        values = {v.tag: v for v in e.summary.value}
        assert set(values) == {"image", "tensor", "histogram", "scalar"}
        assert values["scalar"].scalar_value == pytest.approx(2 * x[0, 0, 0, 0])
        np.testing.assert_allclose(values["tensor"].tensor.float_data, (2 * x).reshape(-1))
        assert values["histogram"].histogram.sum == pytest.approx(float((2 * x).sum()))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind, tag, value, error", [
    ("ScalarSummary", None, Tensor(1.0), TypeError),
    ("ScalarSummary", "", Tensor(1.0), ValueError),
    ("ScalarSummary", "t", 123, TypeError),
    ("ScalarSummary", "t", Tensor(np.ones(3, np.float32)), ValueError),
    ("ImageSummary", "t", Tensor(np.ones(2, np.float32)), ValueError),
    ("ImageSummary", "t", Tensor(np.ones((1, 2, 3, 3), np.float32)), ValueError),
    ("TensorSummary", "t", Tensor(0.0), ValueError),
    ("HistogramSummary", "t", Tensor(0.0), ValueError),
])
def test_summary_op_errors(mode, kind, tag, value, error):
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = getattr(ops, kind)()
            self.tag = tag
            self.value = value

        def construct(self, x):
            self.op(self.tag, self.value)
            return x + 1.0

    with pytest.raises(error, match=kind):
        Net()(Tensor(1.0))


@pytest.mark.parametrize("mode", MODES)
def test_summary_collector_in_model_train(tmp_path, mode):
    ms.set_context(mode=mode)
    import mycel.dataset as ds
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    collector = ms.SummaryCollector(str(tmp_path), collect_freq=2,
                                    collect_specified_data={"histogram_regular": "^weight"},
                                    custom_lineage_data={"run": "t"})
    model.train(2, data, callbacks=[collector])
    files = [f for f in os.listdir(str(tmp_path)) if f.endswith("_MS")]
    assert len(files) == 1
    events = read_events(os.path.join(str(tmp_path), files[0]))[1:]
    losses = {e.step: v.scalar_value for e in events for v in e.summary.value
              if v.tag == "loss/auto"}
    assert sorted(losses) == [1, 2, 4, 6, 8]
    hist_tags = {v.tag for e in events for v in e.summary.value if v.HasField("histogram")}
    assert hist_tags == {"weight/auto"}
    # step 1's loss: the first batch through the initial weights (numpy)
    expected = np.mean((x[:4] @ w0.T + b0 - y[:4]) ** 2)
    assert losses[1] == pytest.approx(expected, rel=1e-5)
    assert all(np.isfinite(v) for v in losses.values())
    lineage = read_events(os.path.join(str(tmp_path), files[0][:-len("_MS")] + "_lineage"),
                          lineage_pb2.LineageEvent)
    assert [e.WhichOneof("what") for e in lineage] == ["dataset_graph", "train_lineage",
                                                       "user_defined_info"]
    train = lineage[1].train_lineage
    assert train.hyper_parameters.optimizer == "SGD"
    assert train.hyper_parameters.learning_rate == pytest.approx(0.05)
    assert train.hyper_parameters.loss_function == "MSELoss"
    assert (train.hyper_parameters.epoch, train.hyper_parameters.batch_size) == (2, 4)
    assert train.train_dataset.train_dataset_size == 16
    assert train.algorithm.network == "Dense"
    assert train.algorithm.loss == pytest.approx(losses[8], rel=1e-6)
    assert dict(lineage[2].user_defined_info.map_str) == {"run": "t"}
    # the collector closed its record: another may be opened
    SummaryRecord(str(tmp_path / "next")).close()


def _regression_data(n=16):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


@pytest.mark.parametrize("mode", MODES)
def test_summary_landscape_from_a_collected_run(tmp_path, mode):
    """The PCA landscape of a 3-step interval: its plane holds the whole path, so the loss at
    each projected path point is the loss of that step's checkpoint (numpy); the random
    landscape's centre is the final parameters' loss."""
    ms.set_context(mode=mode)
    import mycel.dataset as ds
    from mycel.train.metrics import Loss
    from mycel.train.serialization import load_checkpoint
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    landscape = {"landscape_size": 3, "unit": "step", "num_samples": 16,
                 "create_landscape": {"train": True, "result": True}, "intervals": [[2, 3, 4]]}
    collector = ms.SummaryCollector(str(tmp_path), collect_freq=100,
                                    collect_specified_data={"collect_landscape": landscape})
    model.train(1, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4),
                callbacks=[collector])
    meta = json.load(open(str(tmp_path / "ckpt_dir" / "train_metadata.json")))
    assert sorted(meta["model_params_file_map"]) == ["2", "3", "4"]
    assert meta["step_per_epoch"] == 4

    def numpy_loss(step):
        p = load_checkpoint(meta["model_params_file_map"][str(step)])
        pred = x @ p["weight"].asnumpy().T + p["bias"].asnumpy()
        return float(np.mean((pred - y) ** 2))

    def callback_fn():
        network = nn.Dense(3, 1)
        m = ms.Model(network, nn.MSELoss(), metrics={"Loss": Loss()})
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(16)
        return m, network, data, {"Loss": Loss()}

    out = tmp_path / "landscape"
    ms.SummaryLandscape(str(tmp_path)).gen_landscapes_with_multi_process(
        callback_fn, device_ids=[0], output=str(out))
    files = [f for f in os.listdir(str(out)) if f.endswith("_MS")]
    events = read_events(str(out / files[0]))[1:]
    values = {v.tag: v.loss_landscape for e in events for v in e.summary.value}
    assert set(values) == {"landscape_[2, 4]", "landscape_[4]"}
    pca = values["landscape_[2, 4]"]
    assert pca.metadata.decomposition == "PCA" and list(pca.loss_path.intervals) == [2, 3, 4]
    assert list(pca.landscape.z.dims) == [3, 3] and len(pca.landscape.x.float_data) == 3
    np.testing.assert_allclose(pca.loss_path.points.z.float_data,
                               [numpy_loss(s) for s in (2, 3, 4)], rtol=1e-4)
    assert pca.convergence_point.z.float_data[0] == pytest.approx(numpy_loss(4), rel=1e-4)
    rnd = values["landscape_[4]"]
    assert rnd.metadata.decomposition == "Random"
    assert rnd.convergence_point.z.float_data[0] == pytest.approx(numpy_loss(4), rel=1e-4)
    # the centre of the 3x3 random grid is (0, 0): the final parameters
    assert rnd.landscape.z.float_data[4] == pytest.approx(numpy_loss(4), rel=1e-4)


def test_summary_landscape_argument_errors(tmp_path):
    sl = ms.SummaryLandscape(str(tmp_path))
    for options, expected in [({"landscape_size": None}, "['int']"),
                              ({"create_landscape": None}, "['dict']"),
                              ({"intervals": None}, "['list']")]:
        with pytest.raises(TypeError, match=re.escape(expected)):
            sl.gen_landscapes_with_multi_process(lambda: None, collect_landscape=options,
                                                 device_ids=[0])
    with pytest.raises(ValueError, match="between 3 and 256"):
        sl.gen_landscapes_with_multi_process(lambda: None, {"landscape_size": 2}, [0])
    with pytest.raises(FileNotFoundError, match="train_metadata.json"):
        sl.gen_landscapes_with_multi_process(lambda: None, None, [0])


class _NetWithSummary(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 1)
        self.summary = ops.ScalarSummary()

    def construct(self, x):
        out = self.dense(x)
        self.summary("out_mean", out.mean())
        return out


def test_summary_op_inside_a_trained_network_same_in_both_modes(tmp_path):
    """A summary op in the forward pass of Model.train's gradient step records each step's
    value; GRAPH and PYNATIVE record the same values and train to the same weights."""
    import mycel.dataset as ds
    x, y = _regression_data()
    init = _NetWithSummary()
    w0, b0 = init.dense.weight.asnumpy().copy(), init.dense.bias.asnumpy().copy()
    results = []
    for mode in MODES:
        ms.set_context(mode=mode)
        net = _NetWithSummary()
        net.dense.weight.set_data(Tensor(w0))
        net.dense.bias.set_data(Tensor(b0))
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
        folder = tmp_path / str(mode)
        collector = ms.SummaryCollector(str(folder), collect_freq=1, keep_default_action=False,
                                        collect_specified_data={"collect_metric": True})
        model.train(1, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4),
                    callbacks=[collector])
        name = [f for f in os.listdir(str(folder)) if f.endswith("_MS")][0]
        events = read_events(str(folder / name))[1:]
        means = {e.step: v.scalar_value for e in events for v in e.summary.value
                 if v.tag == "out_mean"}
        results.append((means, net.dense.weight.asnumpy()))
    (graph_means, graph_w), (py_means, py_w) = results
    assert sorted(graph_means) == [1, 2, 3, 4]
    # step 1's forward pass uses the initial weights (numpy)
    assert graph_means[1] == pytest.approx(float(np.mean(x[:4] @ w0.T + b0)), rel=1e-5)
    for step in graph_means:
        assert graph_means[step] == pytest.approx(py_means[step], rel=1e-5)
    np.testing.assert_allclose(graph_w, py_w, rtol=1e-5)


def test_summary_collector_through_fit_and_eval(tmp_path):
    """An eval inside fit nests in the training run (the record stays open, train values go
    on); Model.eval alone records the eval lineage."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    import mycel.dataset as ds
    from mycel.train.metrics import Loss
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05),
                     metrics={"Loss": Loss()})

    def data():
        return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)

    collector = ms.SummaryCollector(str(tmp_path / "fit"), collect_freq=2,
                                    custom_lineage_data={"k": 1})
    model.fit(2, data(), data(), callbacks=[collector])
    folder = tmp_path / "fit"
    name = [f for f in os.listdir(str(folder)) if f.endswith("_MS")][0]
    events = read_events(str(folder / name))[1:]
    losses = sorted(e.step for e in events for v in e.summary.value if v.tag == "loss/auto")
    assert losses == [1, 2, 4, 6, 8, 8]  # every 2 steps over both epochs, and at the end
    lineage = read_events(str(folder / name)[:-len("_MS")] + "_lineage",
                          lineage_pb2.LineageEvent)
    assert sorted(e.WhichOneof("what") for e in lineage) == [
        "dataset_graph", "evaluation_lineage", "evaluation_lineage", "train_lineage",
        "user_defined_info"]
    (custom,) = [e for e in lineage if e.HasField("user_defined_info")]
    assert dict(custom.user_defined_info.map_int32) == {"k": 1}
    SummaryRecord(str(tmp_path / "after")).close()  # closed at the end of fit

    collector = ms.SummaryCollector(str(tmp_path / "eval"))
    model.eval(data(), callbacks=[collector])
    folder = tmp_path / "eval"
    name = [f for f in os.listdir(str(folder)) if f.endswith("_MS")][0]
    (event,) = read_events(str(folder / name)[:-len("_MS")] + "_lineage",
                           lineage_pb2.LineageEvent)
    metrics = model.eval(data())
    assert json.loads(event.evaluation_lineage.metric) == pytest.approx(metrics)
    assert event.evaluation_lineage.valid_dataset.valid_dataset_size == 16


def test_summary_collector_counts_epochs_in_sink_mode(tmp_path):
    """In dataset sink mode each step_end is a sink (an epoch here): collect_freq counts
    epochs, and the first is always collected."""
    ms.set_context(mode=ms.GRAPH_MODE)
    import mycel.dataset as ds
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    collector = ms.SummaryCollector(str(tmp_path), collect_freq=2, keep_default_action=False,
                                    collect_specified_data={"collect_metric": True})
    model.train(5, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4),
                callbacks=[collector], dataset_sink_mode=True)
    name = [f for f in os.listdir(str(tmp_path)) if f.endswith("_MS")][0]
    events = read_events(str(tmp_path / name))[1:]
    steps = [e.step for e in events for v in e.summary.value if v.tag == "loss/auto"]
    assert steps == [4, 8, 16, 20]  # epochs 1, 2 and 4 (4 steps each), then the end


@pytest.mark.parametrize("mode", MODES)
def test_summary_collector_records_the_training_graph(tmp_path, mode):
    """GRAPH mode: one graph event, the training step (forward MatMul/BiasAdd, the loss, the
    gradients, the optimizer's update) with the weights as parameters; PYNATIVE: none."""
    ms.set_context(mode=mode)
    import mycel.dataset as ds
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    collector = ms.SummaryCollector(str(tmp_path), keep_default_action=False,
                                    collect_specified_data={"collect_graph": True})
    model.train(1, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4),
                callbacks=[collector])
    name = [f for f in os.listdir(str(tmp_path)) if f.endswith("_MS")][0]
    graphs = [e.graph_def for e in read_events(str(tmp_path / name)) if e.HasField("graph_def")]
    if mode == ms.PYNATIVE_MODE:
        assert graphs == []
        return
    (graph,) = graphs
    ops_used = {n.op_type for n in graph.node}
    assert {"MatMul", "BiasAdd"} <= ops_used
    params = [p.name for p in graph.parameters]
    assert any(p.endswith("weight") for p in params) and any(p.endswith("bias") for p in params)
    known = {n.name for n in graph.node} | set(params) | {c.key for c in graph.const_vals}
    assert all(i.name in known for n in graph.node for i in n.input)
    assert graph.outputs[0].name in known


class _LoopNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scalar = ops.ScalarSummary()
        self.tensor = ops.TensorSummary()

    def construct(self, x, n):
        i = 0
        while i < n:
            x = x * 2
            self.scalar("loop", x.sum())
            i += 1
        if x.sum() > 10:
            self.tensor("big", x)
        else:
            self.tensor("small", x)
        return x


@pytest.mark.parametrize("mode", MODES)
def test_summary_ops_in_loops_and_branches(mode):
    """In a loop the last iteration's value is kept; only the branch taken publishes."""
    ms.set_context(mode=mode)
    net = _LoopNet()
    for n, tag in ((2, "small"), (4, "big")):
        net(Tensor(np.ones(2, np.float32)), Tensor(n))
        values = {k: v.asnumpy() for k, v in _get_summary_tensor_data().items()}
        assert set(values) == {"loop[:Scalar]", f"{tag}[:Tensor]"}
        assert values["loop[:Scalar]"] == 2.0 * 2 ** n
        np.testing.assert_array_equal(values[f"{tag}[:Tensor]"], np.full(2, 2.0 ** n))


def test_summary_collector_records_the_dataset_graph(tmp_path):
    """The training pipeline (source -> map -> batch) as a DatasetGraph lineage record: the
    batch node with its batch size, its child the map with its operation, the source."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    import mycel.dataset as ds
    import mycel.dataset.transforms as T
    x, y = _regression_data()
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)
    data = data.map(operations=[T.TypeCast(ms.float32)], input_columns=["y"]).batch(4)
    net = nn.Dense(3, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    collector = ms.SummaryCollector(str(tmp_path), keep_default_action=False,
                                    collect_specified_data={"collect_dataset_graph": True})
    model.train(1, data, callbacks=[collector])
    name = [f for f in os.listdir(str(tmp_path)) if f.endswith("_MS")][0]
    lineage = read_events(str(tmp_path / name)[:-len("_MS")] + "_lineage",
                          lineage_pb2.LineageEvent)
    (graph,) = [e.dataset_graph for e in lineage if e.HasField("dataset_graph")]
    assert graph.parameter.mapStr["op_type"] == "BatchDataset"
    assert graph.parameter.mapInt["batch_size"] == 4
    (mapped,) = graph.children
    assert mapped.parameter.mapStr["op_type"] == "MapDataset"
    assert list(mapped.parameter.mapStrList["input_columns"].strValue) == ["y"]
    assert [o.operationParam.mapStr["op_type"] for o in mapped.operations] == ["TypeCast"]
    (source,) = mapped.children
    assert source.parameter.mapStr["op_type"] == "NumpySlicesDataset"


@pytest.mark.parametrize("mode", MODES)
def test_private_channels_feed_their_own_records(tmp_path, mode):
    """Operators bound to a channel feed the record made on it, beside another open record;
    nothing reaches the process's channel."""
    from mycel.common._summary_channel import SummaryChannel
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self, channel):
            super().__init__()
            self.summary = ops.ScalarSummary(channel=channel)

        def construct(self, x):
            self.summary("v", x.sum())
            return x

    channels = [SummaryChannel(), SummaryChannel()]
    nets = [Net(c) for c in channels]
    records = [SummaryRecord(str(tmp_path / str(i)), channel=c) for i, c in enumerate(channels)]
    for i, (net, rec) in enumerate(zip(nets, records)):
        net(Tensor(np.full(2, i + 1.0, np.float32)))
        rec.record(1)
        rec.close()
    assert _get_summary_tensor_data() == {}
    for i, rec in enumerate(records):
        (event,) = read_events(rec.log_dir)[1:]
        assert event.summary.value[0].scalar_value == 2.0 * (i + 1)


def test_collect_tensor_freq_sets_the_tensor_summaries_apart(tmp_path):
    """collect_freq=2 for the rest, collect_tensor_freq=3 for TensorSummary values."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    import mycel.dataset as ds

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 1)
            self.tensor = ops.TensorSummary()
            self.scalar = ops.ScalarSummary()

        def construct(self, x):
            out = self.dense(x)
            self.tensor("out", out)
            self.scalar("mean", out.mean())
            return out

    x, y = _regression_data(24)
    net = Net()
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    collector = ms.SummaryCollector(str(tmp_path), collect_freq=2, collect_tensor_freq=3,
                                    keep_default_action=False,
                                    collect_specified_data={"collect_metric": True})
    model.train(1, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4),
                callbacks=[collector])
    name = [f for f in os.listdir(str(tmp_path)) if f.endswith("_MS")][0]
    events = read_events(str(tmp_path / name))[1:]
    tensor_steps = [e.step for e in events for v in e.summary.value if v.tag == "out"]
    mean_steps = [e.step for e in events for v in e.summary.value if v.tag == "mean"]
    assert tensor_steps == [1, 3, 6]
    assert mean_steps == [1, 2, 4, 6]


def test_records_opened_in_the_same_second_keep_their_files(tmp_path):
    paths = []
    for i in range(3):
        with SummaryRecord(str(tmp_path)) as rec:
            rec.add_value("scalar", "i", Tensor(np.float32(i)))
            rec.record(i)
            paths.append(rec.log_dir)
    assert len(set(paths)) == 3
    for i, path in enumerate(paths):
        assert read_events(path)[1].summary.value[0].scalar_value == i
