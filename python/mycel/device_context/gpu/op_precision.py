"""mycel.device_context.gpu.op_precision: numerical precision of the GPU's float32 MatMul and
convolution kernels (MindSpore 2.6's ``mindspore.device_context.gpu.op_precision``).

TF32 is the tensor cores' float32 mode on NVIDIA GPUs since Ampere: inputs are rounded to 10
mantissa bits (float16's) while accumulation and outputs stay float32, for several times the
throughput. Its products then carry a relative error near 2**-11 per input rather than float32's
2**-24, so it is off by default here for both op kinds (MindSpore's default for convolutions is
on); with it off, GPU results equal the CPU's float32 results within float32 tolerances.

The switches take effect for the next op launched, in PYNATIVE and GRAPH modes alike, and are
recorded even where there is no GPU (the CPU kernels ignore them). Only float32 ops are
affected: float16/bfloat16 always use the tensor cores with float32 accumulation, float64 never.
"""
from mycel import _mycel as _C


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the type of 'value' must be bool, but got "
                        f"{type(value).__name__}.")


def matmul_allow_tf32(value):
    """Whether float32 MatMul and BatchMatMul on the GPU may compute in TF32
    (cuBLASLt's ``CUBLAS_COMPUTE_32F_FAST_TF32``).

    Args:
        value (bool): True to allow TF32. Defaults to False when never called.

    Raises:
        TypeError: `value` is not a bool.

    Examples:
        >>> import mycel as ms
        >>> ms.device_context.gpu.op_precision.matmul_allow_tf32(True)
    """
    _check_bool("matmul_allow_tf32", value)
    _C._set_op_precision("GPU", "matmul_allow_tf32", value)


def conv_allow_tf32(value):
    """Whether float32 convolutions (Conv2D and its two gradients) on the GPU may use cuDNN's
    TF32 tensor-core algorithms.

    Args:
        value (bool): True to allow TF32. Defaults to False when never called.

    Raises:
        TypeError: `value` is not a bool.

    Examples:
        >>> import mycel as ms
        >>> ms.device_context.gpu.op_precision.conv_allow_tf32(True)
    """
    _check_bool("conv_allow_tf32", value)
    _C._set_op_precision("GPU", "conv_allow_tf32", value)


def is_matmul_allow_tf32():
    """Whether TF32 is allowed for the GPU's float32 MatMul (mycel's reader of the switch
    that ``matmul_allow_tf32`` sets; MindSpore has no reader)."""
    return _C._op_precision("GPU")["matmul_allow_tf32"]


def is_conv_allow_tf32():
    """Whether TF32 is allowed for the GPU's float32 convolutions (mycel's reader of the switch
    that ``conv_allow_tf32`` sets)."""
    return _C._op_precision("GPU")["conv_allow_tf32"]


__all__ = ["matmul_allow_tf32", "conv_allow_tf32", "is_matmul_allow_tf32", "is_conv_allow_tf32"]
