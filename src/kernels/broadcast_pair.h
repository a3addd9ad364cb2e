// Two tensors broadcast to their common shape: how MaskedSelect's kernels, which walk x and
// the mask element by element, take their (contiguous) inputs, on the CPU
// (kernels/cpu/array_select.cc) and on CUDA (kernels/cuda/array_select.cc, where expand and
// contiguous run on the device). Host code, one copy for both backends.
#pragma once

#include <utility>

#include "tensor/tensor.h"

namespace mycel {

// x and mask broadcast to their common shape (a Value error naming `op` when they cannot
// broadcast): one that needs broadcasting becomes a contiguous copy; one already of that
// shape is returned as it is (the same storage, as contiguous as it was).
inline std::pair<Tensor, Tensor> broadcast_pair(const Tensor& x, const Tensor& mask,
                                                const char* op) {
  const Shape s = broadcast_shapes(x.shape(), mask.shape(), op);
  return {x.shape() == s ? x : x.expand(s, op).contiguous(),
          mask.shape() == s ? mask : mask.expand(s, op).contiguous()};
}

}  // namespace mycel
