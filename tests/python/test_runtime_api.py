"""mycel.runtime (MindSpore's mindspore.runtime) on CPU: launch_blocking, dispatch threads,
CPU affinity (checked with os.sched_getaffinity), the host allocator's memory statistics
against the bytes of tensors made and freed, and the refused stream/event API."""
import gc
import os

import numpy as np
import pytest

import mycel as ms
from mycel import ops, runtime as rt


def test_launch_blocking_records_the_request():
    before = ms.get_context("pynative_synchronize")
    try:
        rt.launch_blocking()
        assert ms.get_context("pynative_synchronize") is True
        x = ops.ones((2, 2), ms.float32) * 3  # CPU ops still run and finish
        assert np.allclose(x.asnumpy(), 3.0)
    finally:
        ms.set_context(pynative_synchronize=before)


def test_dispatch_threads_num_checks_its_argument():
    rt.dispatch_threads_num(4)
    for bad in (0, -1, 2.5, True, "4"):
        with pytest.raises(TypeError, match="dispatch_threads_num"):
            rt.dispatch_threads_num(bad)


def test_memory_stats_follow_allocations():
    gc.collect()
    rt.reset_peak_memory_stats()
    base = rt.memory_allocated()
    nbytes = 4 * 512 * 1024
    x = ops.zeros((512, 1024), ms.float32) + 1
    grown = rt.memory_allocated()
    assert grown - base >= nbytes
    assert rt.max_memory_allocated() >= grown
    assert rt.memory_reserved() >= grown
    stats = rt.memory_stats()
    assert stats["allocated_bytes"] == rt.memory_allocated()
    assert stats["reserved_bytes"] == stats["allocated_bytes"] + stats["cached_bytes"]
    assert "allocated_bytes" in rt.memory_summary()
    del x
    gc.collect()
    assert rt.memory_allocated() <= grown - nbytes
    assert rt.max_memory_allocated() >= grown  # the peak stays until reset
    rt.reset_max_memory_allocated()
    assert rt.max_memory_allocated() == rt.memory_allocated()
    rt.empty_cache()
    assert rt.memory_stats()["cached_bytes"] <= stats["cached_bytes"] + nbytes


def test_cpu_affinity_binds_and_restores():
    original = os.sched_getaffinity(0)
    one = min(original)
    try:
        rt.set_cpu_affinity(True, [one])
        assert os.sched_getaffinity(0) == {one}
        assert np.allclose((ops.ones((64, 64), ms.float32) @ ops.ones((64, 64), ms.float32))
                           .asnumpy(), 64.0)
        rt.set_cpu_affinity(True, [f"{one}-{one}"])
        assert os.sched_getaffinity(0) == {one}
        rt.set_cpu_affinity(False)
        assert os.sched_getaffinity(0) == original
    finally:
        os.sched_setaffinity(0, original)
    with pytest.raises(ValueError, match="not a non-empty subset"):
        rt.set_cpu_affinity(True, [max(original) + 4096])
    with pytest.raises(ValueError, match="not a CPU id"):
        rt.set_cpu_affinity(True, ["a-b"])
    with pytest.raises(TypeError):
        rt.set_cpu_affinity("yes")
    with pytest.raises(NotImplementedError, match="module_to_cpu_dict"):
        rt.set_cpu_affinity(True, None, {"main": [0]})


@pytest.mark.parametrize("name", ["Stream", "Event", "current_stream", "default_stream",
                                  "set_cur_stream", "communication_stream",
                                  "max_memory_reserved", "set_memory"])
def test_refused_calls_say_why(name):
    with pytest.raises(NotImplementedError, match=f"mycel.runtime.{name}"):
        getattr(rt, name)()


def test_synchronize_returns():
    rt.synchronize()
