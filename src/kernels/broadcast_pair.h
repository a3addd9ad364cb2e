// Tensors broadcast to a common shape: how the selection kernels that walk x and a mask
// element by element (MaskedSelect, MaskedScatter) take their (contiguous) inputs, on the CPU
// (kernels/cpu/array_select.cc) and on CUDA (kernels/cuda/array_select.cc, where expand and
// contiguous run on the device). Host code, one copy for both backends.
#pragma once

#include <string_view>
#include <utility>

#include "tensor/tensor.h"

namespace mycel {

// t broadcast to shape s (a Value error naming `op` when it cannot be) as a contiguous copy,
// or t itself when it already has that shape (the same storage, as contiguous as it was).
inline Tensor expanded_to(const Tensor& t, const Shape& s, std::string_view op) {
  return t.shape() == s ? t : t.expand(s, op).contiguous();
}

// x and mask broadcast to their common shape (a Value error naming `op` when they cannot
// broadcast), each as expanded_to gives it.
inline std::pair<Tensor, Tensor> broadcast_pair(const Tensor& x, const Tensor& mask,
                                                const char* op) {
  const Shape s = broadcast_shapes(x.shape(), mask.shape(), op);
  return {expanded_to(x, s, op), expanded_to(mask, s, op)};
}

}  // namespace mycel
