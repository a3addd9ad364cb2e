"""mycel.hal: the device functions of MindSpore's ``mindspore.hal`` for GPUs.

``is_available("GPU")`` and ``device_count("GPU")`` say whether this build has a CUDA backend
and how many GPUs the driver reports; ``synchronize()`` waits for the work queued on the
current device (ops on a GPU return before their kernels finish; ``asnumpy()`` and
``item()`` wait by themselves); ``memory_stats(device_target, device_id)`` reports the
caching allocator's bytes in use, peak and cached.
"""
from mycel import _mycel as _C


def is_available(device_target="GPU"):
    """Whether ops can run on device_target ("CPU" always; "GPU" with CUDA and a GPU)."""
    return device_target == "CPU" or (device_target == "GPU" and _C._gpu_count() > 0)


def device_count(device_target="GPU"):
    """How many devices of device_target this process can use."""
    if device_target == "CPU":
        return 1
    if device_target != "GPU":
        raise ValueError(f"For 'device_count', device_target must be 'CPU' or 'GPU', "
                         f"but got {device_target!r}.")
    return _C._gpu_count()


def synchronize():
    """Waits until the work queued on the current device is done."""
    _C._synchronize()


def memory_stats(device_target="GPU", device_id=0):
    """{'in_use', 'peak_in_use', 'cached'} bytes of a device's caching allocator."""
    return _C._device_memory_stats(device_target, device_id)
