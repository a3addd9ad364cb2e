"""MindSpore 2.x's ``mindspore.runtime``: execution, memory and stream controls, as far as they
mean something for mycel.

Execution
  ``launch_blocking()``: every kernel finishes before its op returns. mycel's CPU kernels
  always do; the call records the request (``get_context("pynative_synchronize")`` is then
  True). On a GPU, mycel launches asynchronously and does not yet synchronize after every
  kernel: the call warns there (``mycel.hal.synchronize()`` waits for the queued work).
  ``dispatch_threads_num(n)``: MindSpore's op-dispatch pipeline threads. mycel dispatches ops
  on the calling thread (no pipeline): the value is checked and recorded only.
  ``set_cpu_affinity(enable_affinity, affinity_cpu_list=None)``: binds the process (all its
  threads, kernels' OpenMP workers included) to the listed CPUs (ints or "a-b" ranges; None:
  keep the current set), and with False restores the CPUs it had before the first binding.
  ``module_to_cpu_dict`` (per-module thread binding) is refused: mycel has no such modules.
  ``synchronize()``: waits for the work queued on the current device.
Memory (the host caching allocator on CPU, the device's caching allocator on a GPU)
  ``memory_allocated()`` bytes in use; ``max_memory_allocated()`` their peak since the last
  reset; ``memory_reserved()`` bytes held (in use + cached); ``memory_stats()`` all three;
  ``memory_summary()`` them as text; ``reset_peak_memory_stats()`` /
  ``reset_max_memory_allocated()`` restart the peak; ``empty_cache()`` returns cached blocks
  to the system. ``max_memory_reserved()`` and ``reset_max_memory_reserved()`` are refused
  (the allocators keep no peak of reserved bytes), as is ``set_memory`` (device memory-pool
  sizes: mycel's pools grow on demand).
Streams and events (``Stream``, ``Event``, ``current_stream``, ...) are refused: mycel's CPU
backend has no streams, and its GPU backend one stream per device that programs cannot choose.
Refused calls raise NotImplementedError naming what mycel does instead.
"""
import os
import warnings

from mycel import _mycel as _C
from mycel import context as _context

__all__ = ["launch_blocking", "dispatch_threads_num", "set_cpu_affinity", "synchronize",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "memory_stats", "memory_summary", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "empty_cache",
           "set_memory", "Stream", "Event", "StreamCtx", "current_stream", "default_stream",
           "set_cur_stream", "communication_stream"]

_settings = {"dispatch_threads_num": None, "original_affinity": None}


def _on_gpu():
    return _context.get_context("device_target") == "GPU"


def launch_blocking():
    """Every kernel finishes before its op returns (module docstring)."""
    _context.set_context(pynative_synchronize=True)
    if _on_gpu():
        warnings.warn("mycel.runtime.launch_blocking: GPU kernels still launch "
                      "asynchronously in mycel; call mycel.hal.synchronize() where you need "
                      "them finished.", stacklevel=2)


def dispatch_threads_num(num_threads):
    """Checks and records MindSpore's dispatch thread count (a positive int); mycel
    dispatches on the calling thread."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
        raise TypeError(f"For 'dispatch_threads_num', num_threads must be a positive int, but "
                        f"got {num_threads!r}.")
    _settings["dispatch_threads_num"] = num_threads


def _cpus(spec):
    """The set of CPU ids of a list of ints and "a-b" ranges."""
    if not isinstance(spec, (list, tuple)):
        raise TypeError(f"For 'set_cpu_affinity', affinity_cpu_list must be a list of CPU ids "
                        f"or \"a-b\" ranges, but got {type(spec).__name__}.")
    out = set()
    for item in spec:
        if isinstance(item, int) and not isinstance(item, bool) and item >= 0:
            out.add(item)
            continue
        if isinstance(item, str) and item.count("-") == 1:
            lo, hi = item.split("-")
            if lo.strip().isdigit() and hi.strip().isdigit() and int(lo) <= int(hi):
                out.update(range(int(lo), int(hi) + 1))
                continue
        raise ValueError(f"For 'set_cpu_affinity', {item!r} is not a CPU id or an \"a-b\" "
                         f"range.")
    available = os.sched_getaffinity(0) if _settings["original_affinity"] is None \
        else _settings["original_affinity"]
    if not out or not out <= set(available):
        raise ValueError(f"For 'set_cpu_affinity', the CPUs {sorted(out)} are not a non-empty "
                         f"subset of the CPUs this process may use {sorted(available)}.")
    return out


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None):
    """Binds the process to affinity_cpu_list (None: keep the current CPUs) when
    enable_affinity, restores the CPUs it had before when not (module docstring)."""
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"For 'set_cpu_affinity', enable_affinity must be a bool, but got "
                        f"{type(enable_affinity).__name__}.")
    if module_to_cpu_dict is not None:
        raise NotImplementedError("set_cpu_affinity: module_to_cpu_dict binds MindSpore's "
                                  "runtime modules' threads; mycel has no such modules (its "
                                  "kernels run on the calling thread and OpenMP workers, bound "
                                  "with the process by affinity_cpu_list).")
    if _settings["original_affinity"] is None:
        _settings["original_affinity"] = frozenset(os.sched_getaffinity(0))
    if not enable_affinity:
        os.sched_setaffinity(0, _settings["original_affinity"])
        return
    if affinity_cpu_list is not None:
        os.sched_setaffinity(0, _cpus(affinity_cpu_list))


def synchronize():
    """Waits until the work queued on the current device is done."""
    _C._synchronize()


def _stats():
    if _on_gpu():
        return _C._device_memory_stats("GPU", _context.get_context("device_id"))
    return _C.memory_stats()


def memory_allocated():
    """Bytes of tensor memory in use on the current device."""
    return int(_stats()["in_use"])


def max_memory_allocated():
    """The peak of memory_allocated() since the last reset."""
    return int(_stats()["peak_in_use"])


def memory_reserved():
    """Bytes the current device's caching allocator holds (in use + cached)."""
    s = _stats()
    return int(s["in_use"] + s["cached"])


def memory_stats():
    """{'allocated_bytes', 'max_allocated_bytes', 'reserved_bytes', 'cached_bytes'}."""
    s = _stats()
    return {"allocated_bytes": int(s["in_use"]), "max_allocated_bytes": int(s["peak_in_use"]),
            "reserved_bytes": int(s["in_use"] + s["cached"]), "cached_bytes": int(s["cached"])}


def memory_summary():
    """memory_stats() as a few lines of text."""
    s = memory_stats()
    device = "GPU" if _on_gpu() else "CPU (host caching allocator)"
    lines = [f"mycel memory summary, {device}:"]
    lines += [f"  {k:<20} {v:>16,d} bytes" for k, v in s.items()]
    return "\n".join(lines)


def reset_peak_memory_stats():
    """Restarts the peak of allocated memory from the current use."""
    if _on_gpu():
        raise NotImplementedError("reset_peak_memory_stats: mycel resets the peak of the host "
                                  "allocator only; the GPU allocator's peak cannot be reset.")
    _C.reset_peak_memory()


reset_max_memory_allocated = reset_peak_memory_stats


def _refused(name, why):
    def f(*args, **kwargs):
        raise NotImplementedError(f"mycel.runtime.{name}: {why}")
    f.__name__ = name
    f.__doc__ = f"Refused: {why}"
    return f


max_memory_reserved = _refused("max_memory_reserved", "mycel's allocators keep no peak of "
                               "reserved bytes; memory_reserved() gives the current value.")
reset_max_memory_reserved = _refused("reset_max_memory_reserved", "mycel's allocators keep no "
                                     "peak of reserved bytes.")
set_memory = _refused("set_memory", "mycel's memory pools grow on demand; there are no sizes "
                      "to set (context max_device_memory bounds auto_parallel's planning).")


def empty_cache():
    """Returns the allocator's cached blocks to the system."""
    _C.empty_cache()


_NO_STREAMS = ("mycel has no user-visible streams (its CPU kernels run on the calling thread; "
               "its GPU backend uses one stream per device); use synchronize().")
Stream = _refused("Stream", _NO_STREAMS)
Event = _refused("Event", _NO_STREAMS)
StreamCtx = _refused("StreamCtx", _NO_STREAMS)
current_stream = _refused("current_stream", _NO_STREAMS)
default_stream = _refused("default_stream", _NO_STREAMS)
set_cur_stream = _refused("set_cur_stream", _NO_STREAMS)
communication_stream = _refused("communication_stream", _NO_STREAMS)
