"""mycel.device_context.gpu: the GPU (CUDA) backend: ``device_count()``, ``is_available()``
and the ``op_precision`` settings of its kernels."""
from mycel import _mycel as _C
from mycel.device_context.gpu import op_precision  # noqa: F401


def device_count():
    """The number of GPUs this process can use (0 when the build has no CUDA backend or the
    driver reports no GPU)."""
    return _C._gpu_count()


def is_available():
    """Whether ops can run on a GPU: the build has the CUDA backend and a GPU is present."""
    return _C._gpu_count() > 0


__all__ = ["device_count", "is_available", "op_precision"]
