"""Devices on a machine without a GPU (make test): where tensors live, set_context's device
options and their errors, mycel.hal. The GPU side runs in tests/gpu (scripts/gpu_check.sh)."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops


def test_tensors_live_on_the_cpu():
    x = Tensor(np.ones((2, 3), np.float32))
    assert x.device == "CPU"
    assert (x + 1).device == "CPU"
    assert x.move_to("CPU").device == "CPU"


def test_gpu_target_without_a_gpu_is_a_clear_error():
    assert ms.hal.device_count("GPU") == 0
    assert not ms.hal.is_available("GPU")
    assert ms.hal.is_available("CPU")
    with pytest.raises(RuntimeError, match="device_target 'GPU' needs"):
        ms.set_context(device_target="GPU")
    assert ms.get_context("device_target") == "CPU"  # unchanged by the failed call
    with pytest.raises(RuntimeError, match="device_target 'GPU' needs"):
        Tensor(np.ones(3, np.float32)).move_to("GPU")
    # The context still works on the CPU afterwards.
    np.testing.assert_array_equal(ops.exp(Tensor(np.zeros(2, np.float32))).asnumpy(), [1, 1])


@pytest.mark.parametrize("kwargs, match", [
    ({"device_target": "TPU"}, "device_target must be 'CPU' or 'GPU'"),
    ({"device_target": "Ascend"}, "device_target must be 'CPU' or 'GPU'"),
    ({"device_id": -1}, "device_id must be a non-negative int"),
    ({"device_id": 1.5}, "device_id must be a non-negative int"),
])
def test_bad_device_options_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ms.set_context(**kwargs)


def test_cpu_target_and_hal():
    ms.set_context(device_target="CPU", device_id=0)
    assert ms.get_context("device_target") == "CPU"
    ms.hal.synchronize()  # nothing queued on the CPU: returns at once
    s = ms.hal.memory_stats("CPU")
    assert set(s) == {"in_use", "peak_in_use", "cached"}
    with pytest.raises(ValueError):
        ms.hal.device_count("NPU")
