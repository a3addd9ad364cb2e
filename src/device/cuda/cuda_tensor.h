// Host-side helpers for CUDA kernels' .cc wrappers: from mycel tensors to the plain data the
// .cu launchers take.
#pragma once

#include <cuda_runtime.h>
#include <array>

#include "base/error.h"
#include "device/cuda/strided_desc.h"
#include "device/cuda/strided_of.h"  // strided_of
#include "tensor/tensor.h"

namespace mycel::cuda {

// The dtype code of cuda_common.cuh (DType's underlying value).
inline int code(DType t) { return static_cast<int>(t); }

// The strides of t broadcast to `shape` (stride 0 where t's dim is 1 or missing).
Shape broadcast_strides_to(const Tensor& t, const Shape& shape);

}  // namespace mycel::cuda
