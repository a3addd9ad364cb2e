// Precision switches of a device type's kernels: MindSpore's
// `device_context.gpu.op_precision.matmul_allow_tf32(bool)` / `conv_allow_tf32(bool)`.
//
// The user sets them from Python (mycel.device_context.gpu.op_precision, through the
// bindings); the device kernels read them here each time they launch, so a change applies to
// the next op in either mode. They live in the tensor layer beside the DeviceBackend
// interface because both the setter (the front end) and the reader (kernels/cuda) are above
// it and neither may see the other; nothing here names CUDA. Every build records them (a CPU
// build has no kernel that reads them, so programs that set them run unchanged without a
// GPU). Both default to off: float32 MatMul and convolution then compute in full float32 and
// match the CPU within float32 tolerances; on, the GPU may round their inputs to TF32 (10
// mantissa bits) inside the tensor cores.
#pragma once

#include "tensor/device.h"

namespace mycel {

struct OpPrecision {
  bool matmul_allow_tf32 = false;  // float32 MatMul/BatchMatMul may use TF32 tensor cores
  bool conv_allow_tf32 = false;    // float32 convolutions (forward and both gradients) likewise
};

// The switches of the kernels of `type` (thread-safe; the CPU's are recorded but unused).
OpPrecision op_precision(DeviceType type);
void set_op_precision(DeviceType type, const OpPrecision& p);

}  // namespace mycel
