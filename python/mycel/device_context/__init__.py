"""mycel.device_context: per-backend device queries and settings, as MindSpore 2.6's
``mindspore.device_context``.

- ``device_context.cpu.device_count()`` / ``is_available()``;
- ``device_context.gpu.device_count()`` / ``is_available()``;
- ``device_context.gpu.op_precision.matmul_allow_tf32(bool)`` and ``conv_allow_tf32(bool)``:
  whether float32 MatMul/BatchMatMul and convolutions on the GPU may use TF32 tensor cores
  (both off by default).

The settings are recorded in the C++ device context of the backend (``tensor/op_precision.h``)
and read by its kernels at each launch, in both modes; a build or machine without a GPU
records them too, so a program that sets them runs unchanged on the CPU.
"""
from mycel.device_context import cpu, gpu  # noqa: F401

__all__ = ["cpu", "gpu"]
