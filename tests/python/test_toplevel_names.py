"""MindSpore's top-level names that sit on other parts of mycel: get_current_device,
set_recursion_limit (GRAPH mode's call-depth limit, src/ir/depth.h) and the type objects of
non-tensor values (list_, tuple_, type_none, number, uint, Int, QuantDtype)."""
import numpy as np
import pytest

import mycel as ms
from mycel.common import dtype as mstype


def _depth(n):
    if n == 0:
        return 0
    return 1 + _depth(n - 1)


@ms.jit
def _nested(x):
    return x + _depth(40)  # 41 calls specialised inside one another at compile time


def test_set_recursion_limit_bounds_graph_compilation():
    x = ms.Tensor(np.zeros(2, np.float32))
    try:
        ms.set_recursion_limit(20)
        with pytest.raises(RecursionError, match="nests calls too deeply.*limit is 20"):
            _nested(x)
        ms.set_recursion_limit(100)
        assert np.array_equal(_nested(x).asnumpy(), [40.0, 40.0])
    finally:
        ms.set_recursion_limit()
    with pytest.raises(ValueError, match="set_recursion_limit"):
        ms.set_recursion_limit(0)
    with pytest.raises(TypeError, match="set_recursion_limit"):
        ms.set_recursion_limit(2.5)
    with pytest.raises(TypeError, match="set_recursion_limit"):
        ms.set_recursion_limit(True)


def test_get_current_device():
    dev = ms.get_current_device()
    assert dev == ("CPU", 0)
    assert dev.device_target == ms.get_context("device_target")
    assert dev.device_id == ms.get_context("device_id")
    ms.set_device("CPU", 0)
    assert tuple(ms.get_current_device()) == ("CPU", 0)


def test_type_objects():
    for t, py in ((ms.list_, list), (ms.tuple_, tuple), (ms.type_none, type(None))):
        assert ms.dtype_to_pytype(t) is py and mstype.dtype_to_pytype(t) is py
        assert ms.get_py_obj_dtype(py) is t and mstype.get_py_obj_dtype(py) is t
    assert ms.get_py_obj_dtype([1, 2]) is ms.list_ and ms.get_py_obj_dtype((1,)) is ms.tuple_
    assert ms.get_py_obj_dtype(None) is ms.type_none
    assert ms.dtype_to_pytype(ms.string) is str
    assert ms.dtype_to_pytype(ms.complex64) is complex
    assert repr(ms.list_) == "List" and ms.number is not ms.uint
    assert ms.Int(8) == ms.int8 and ms.Int(64) == ms.int64
    with pytest.raises(ValueError, match="'Int'"):
        ms.Int(12)
    with pytest.raises(NotImplementedError, match="get_py_obj_dtype"):
        mstype.get_py_obj_dtype(type)


def test_quant_dtype():
    q = ms.QuantDtype
    assert q.INT8.num_bits == 8 and q.INT8.is_signed
    assert q.UINT4.num_bits == 4 and not q.UINT4.is_signed
    assert q.INT16.num_bits == 16 and str(q.UINT16) == "UINT16"
    assert q("INT2") is q.INT2


def test_set_deterministic_switches_the_mode():
    """What it changes is the GPU dispatch (tests/cpp/runtime/test_device_dispatch.cc's
    fake device, and the GPU check); here: the setting, its errors, and that CPU results
    are the same bits either way."""
    x = ms.Tensor(np.random.default_rng(0).standard_normal((64, 8)).astype(np.float32))
    ids = ms.Tensor(np.arange(64, dtype=np.int32) % 5)
    before = ms.ops.unsorted_segment_sum(x, ids, 5).asnumpy()
    try:
        ms.set_deterministic(True)
        assert ms.get_context("deterministic") == "ON"
        after = ms.ops.unsorted_segment_sum(x, ids, 5).asnumpy()
        assert np.array_equal(before, after)
        np.testing.assert_allclose(after, [x.asnumpy()[ids.asnumpy() == k].sum(0)
                                           for k in range(5)], rtol=1e-5, atol=1e-5)
    finally:
        ms.set_deterministic(False)
    assert ms.get_context("deterministic") == "OFF"
    ms.set_context(deterministic="ON")
    assert ms.get_context("deterministic") == "ON"
    ms.set_context(deterministic="OFF")
    with pytest.raises(TypeError, match="set_deterministic"):
        ms.set_deterministic(1)
    with pytest.raises(ValueError, match="deterministic"):
        ms.set_context(deterministic="yes")
