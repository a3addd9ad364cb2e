"""MindSpore's dataset module paths and settings: vision.transforms / vision.utils /
transforms.transforms / text.transforms, config's debug mode and kept settings, the iterators'
ITERATORS_LIST, vision.utils' image queries (against numpy and PIL), and the argument checks'
MindSpore wording."""
import gc
import importlib
import random
import time

import numpy as np
import pytest
from PIL import Image

import mycel.common.dtype as mstype
import mycel.dataset as ds
from mycel.dataset import config


@pytest.mark.parametrize("path,module", [
    ("mycel.dataset.vision.transforms", "mycel.dataset.vision"),
    ("mycel.dataset.vision.utils", "mycel.dataset.vision_utils"),
    ("mycel.dataset.transforms.transforms", "mycel.dataset.transforms"),
    ("mycel.dataset.text.transforms", "mycel.dataset.text"),
    ("mycel.dataset.engine.iterators", "mycel.dataset.iterators"),
])
def test_mindspore_module_paths(path, module):
    assert importlib.import_module(path) is importlib.import_module(module)


def test_vision_utils_enums_are_vision_enums():
    from mycel.dataset.vision.utils import Border, Inter
    assert Inter is ds.vision.Inter and Border is ds.vision.Border


def test_image_size_and_channels_numpy_and_pil():
    from mycel.dataset.vision import utils
    rgb = np.random.default_rng(0).integers(0, 255, (7, 5, 3), dtype=np.uint8)
    assert utils.get_image_size(rgb) == [7, 5]
    assert utils.get_image_num_channels(rgb) == 3
    assert utils.get_image_num_channels(rgb[:, :, 0]) == 1
    pil = Image.fromarray(rgb)
    assert utils.get_image_size(pil) == [7, 5]  # [H, W], where PIL's size is (W, H)
    assert utils.get_image_num_channels(pil) == 3
    assert utils.get_image_num_channels(pil.convert("L")) == 1
    assert ds.vision.get_image_size is utils.get_image_size
    with pytest.raises(TypeError, match="numpy.ndarray"):
        utils.get_image_size(1)
    with pytest.raises(RuntimeError, match="at least two dimensions, but got: 1"):
        utils.get_image_num_channels(np.zeros(3))


@pytest.fixture
def restore_config():
    saved = (config.get_debug_mode(), dict(config._settings), config.get_num_parallel_workers())
    yield
    config.set_debug_mode(saved[0])
    config._settings.update(saved[1])
    config.set_num_parallel_workers(saved[2])


def test_debug_mode_runs_rows_in_order(restore_config):
    seen = []

    def record(x):
        time.sleep(random.random() * 0.002)
        seen.append(int(x))
        return x

    config.set_num_parallel_workers(4)
    config.set_debug_mode(True)
    assert config.get_debug_mode() is True
    data = ds.NumpySlicesDataset(np.arange(40), shuffle=False).map(record, num_parallel_workers=4)
    # one epoch (an unbounded iterator works ahead into the next one)
    got = [int(r[0]) for r in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert got == list(range(40))
    assert seen == list(range(40))  # one worker: called in row order
    with pytest.raises(TypeError, match="debug_mode_flag isn.t of type boolean"):
        config.set_debug_mode(1)


@pytest.mark.parametrize("name,value", [
    ("enable_autotune", True), ("autotune_interval", 5), ("enable_shared_mem", False),
    ("fast_recovery", False), ("monitor_sampling_interval", 20), ("callback_timeout", 7),
    ("multiprocessing_timeout_interval", 9), ("enable_watchdog", False),
    ("auto_num_workers", True), ("auto_offload", True)])
def test_kept_settings_round_trip(restore_config, name, value):
    getattr(config, "set_" + name)(value)
    assert getattr(config, "get_" + name)() == value
    wrong = 1 if isinstance(value, bool) else "x"
    with pytest.raises(TypeError):
        getattr(config, "set_" + name)(wrong)


def test_iterators_list_tracks_live_iterators():
    from mycel.dataset.engine.iterators import ITERATORS_LIST
    ITERATORS_LIST.clear()
    data = ds.NumpySlicesDataset(np.arange(4), shuffle=False)
    a = data.create_tuple_iterator(num_epochs=1)
    b = data.create_dict_iterator(num_epochs=1)
    assert len(ITERATORS_LIST) == 2 and all(r() is not None for r in ITERATORS_LIST)
    del a
    gc.collect()
    assert len(ITERATORS_LIST) == 1 and ITERATORS_LIST[0]() is b
    del b
    gc.collect()
    assert ITERATORS_LIST == []


def test_argument_errors_carry_mindspore_wording():
    data = ds.NumpySlicesDataset(np.arange(4))
    # MindSpore's batch takes a bool as the int it is (its test_batch_12: True batches by 1)
    ordered = ds.NumpySlicesDataset(np.arange(4), shuffle=False)
    assert [r[0].tolist() for r in ordered.batch(True).create_tuple_iterator(
        num_epochs=1, output_numpy=True)] == [[0], [1], [2], [3]]
    with pytest.raises(ValueError, match=r"Input batch_size is not within the required interval"):
        data.batch(False)
    with pytest.raises(TypeError, match=r"batch: batch_size must be an int.*Argument batch_size "
                                        r"with value 2.0 is not of type \[<class 'int'>\]"):
        data.batch(2.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'pad_info'"):
        data.batch(2, pad_info={})
    with pytest.raises(ValueError, match=r"Input batch_size is not within the required interval "
                                         r"of \[1, 2147483647\]"):
        data.batch(2**31)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'column_order'"):
        data.batch(2, column_order=["a"])
    with pytest.raises(RuntimeError, match="Cannot batch tensors with different shapes"):
        list(ds.GeneratorDataset(lambda: iter([np.zeros(1), np.zeros(2)]), ["v"]).batch(2))


# ----- tensor and image transforms written in Python, against numpy -----

def _map(op, rows, outs=None):
    data = ds.NumpySlicesDataset({"x": np.asarray(rows)}, shuffle=False)
    data = data.map(op, ["x"], outs) if outs else data.map(op, ["x"])
    return [tuple(r) for r in data.create_tuple_iterator(output_numpy=True)]


def test_duplicate_fill_concatenate():
    T = ds.transforms
    rows = np.arange(6).reshape(2, 3)
    for (a, b), r in zip(_map(T.Duplicate(), rows, ["x", "y"]), rows):
        np.testing.assert_array_equal(a, r)
        np.testing.assert_array_equal(b, r)
    for (a,), r in zip(_map(T.Fill(-3), rows.astype(np.float32)), rows):
        np.testing.assert_array_equal(a, np.full(3, -3, np.float32))
        assert a.dtype == np.float32
    with pytest.raises(RuntimeError, match="same data type"):
        T.Fill("s")(np.zeros(2))
    cat = T.Concatenate(0, np.array([9, 8]), np.array([7]))
    for (a,), r in zip(_map(cat, rows), rows):
        np.testing.assert_array_equal(a, np.concatenate([[9, 8], r, [7]]))
    np.testing.assert_array_equal(T.Concatenate()(np.array([1, 2]), np.array([3])), [1, 2, 3])
    with pytest.raises(RuntimeError, match="datatype does not match"):
        T.Concatenate(0, np.array([1.5]))(np.array([1, 2]))
    with pytest.raises(ValueError, match="only 1D concatenation"):
        T.Concatenate(2)


def test_slice_pad_end_mask_unique():
    T = ds.transforms
    a = np.arange(24).reshape(4, 6)
    np.testing.assert_array_equal(T.Slice(1)(a), a[[1]])
    np.testing.assert_array_equal(T.Slice([0, 2], slice(1, 5, 2))(a), a[[0, 2]][:, 1:5:2])
    np.testing.assert_array_equal(T.Slice(None, [5, 0])(a), a[:, [5, 0]])
    np.testing.assert_array_equal(T.Slice(True)(a), a)
    with pytest.raises(IndexError):
        T.Slice(7)(a)
    np.testing.assert_array_equal(T.PadEnd([6, 3], -1)(a), np.pad(a[:, :3], ((0, 2), (0, 0)),
                                                                   constant_values=-1))
    np.testing.assert_array_equal(T.PadEnd([None, 8])(a), np.pad(a, ((0, 0), (0, 2))))
    with pytest.raises(RuntimeError, match="can not pad numeric and string"):
        T.PadEnd([8], "x")(np.arange(3))
    for rel, fn in (("EQ", np.equal), ("NE", np.not_equal), ("GT", np.greater),
                    ("GE", np.greater_equal), ("LT", np.less), ("LE", np.less_equal)):
        got = T.Mask(getattr(T.Relational, rel), 7, mstype.int32)(a)
        np.testing.assert_array_equal(got, fn(a, 7).astype(np.int32))
    x = np.array([[5, 1, 5], [3, 1, 9]])
    vals, idx, cnt = T.Unique()(x)
    np.testing.assert_array_equal(vals, [5, 1, 3, 9])
    np.testing.assert_array_equal(vals[idx], x.ravel())
    np.testing.assert_array_equal(cnt, [2, 2, 1, 1])


def test_flips_crop_invert():
    v = ds.vision
    rng = np.random.default_rng(5)
    img = rng.integers(0, 255, (2, 5, 7, 3), dtype=np.uint8)
    np.testing.assert_array_equal(v.HorizontalFlip()(img), img[:, :, ::-1])
    np.testing.assert_array_equal(v.VerticalFlip()(img[0]), img[0][::-1])
    np.testing.assert_array_equal(v.HorizontalFlip()(img[0, :, :, 0]), img[0, :, ::-1, 0])
    np.testing.assert_array_equal(v.Crop((1, 2), (3, 4))(img[0]), img[0, 1:4, 2:6])
    np.testing.assert_array_equal(v.Crop((0, 0), 2)(img), img[:, :2, :2])
    with pytest.raises(RuntimeError, match="exceeds image height"):
        v.Crop((4, 0), 2)(img[0])
    np.testing.assert_array_equal(v.Invert()(img), 255 - img.astype(np.int64))
    np.testing.assert_array_equal(np.array(v.Invert()(Image.fromarray(img[0]))), 255 - img[0])
    got = _map([v.HorizontalFlip(), v.Invert()], img)
    for (g,), r in zip(got, img):
        np.testing.assert_array_equal(g, 255 - r[:, ::-1])


def test_grayscale_is_pils_luminance():
    rng = np.random.default_rng(6)
    img = rng.integers(0, 255, (6, 9, 3), dtype=np.uint8)
    r, g, b = (img[:, :, k].astype(np.int64) for k in range(3))
    luma = (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16  # PIL's fixed-point ITU-R 601-2
    one = ds.vision.Grayscale()(img)
    assert one.shape == (6, 9, 1)
    np.testing.assert_array_equal(one[:, :, 0], luma)
    three = ds.vision.Grayscale(3)(Image.fromarray(img))
    np.testing.assert_array_equal(np.array(three), np.repeat(luma[:, :, None], 3, 2))
    with pytest.raises(ValueError, match="1 or 3"):
        ds.vision.Grayscale(2)


def test_apply_and_class_indexing_through_ops(tmp_path):
    data = ds.NumpySlicesDataset(np.arange(10), shuffle=False)
    out = data.apply(lambda d: d.repeat(2).batch(4))
    assert [len(r[0]) for r in out.create_tuple_iterator(output_numpy=True)] == [4, 4, 4, 4, 4]
    with pytest.raises(TypeError, match="must return a Dataset"):
        data.apply(lambda d: 3)
    for cls in ("b", "a"):
        (tmp_path / cls).mkdir()
        Image.fromarray(np.zeros((2, 2, 3), np.uint8)).save(tmp_path / cls / "x.png")
    folder = ds.ImageFolderDataset(str(tmp_path))
    assert folder.repeat(2).batch(1).get_class_indexing() == {"a": 0, "b": 1}
