// A tensor seen as [outer, len, inner] around one axis: the view the kernels that work along
// a single axis take of their contiguous input (CumSum/CumProd and Sort on the CPU and CUDA,
// Argmax/Argmin on CUDA; the CPU's Argmax keeps the same three lines inline, as moving them
// changed GCC's inlining of kernels/cpu/reduce.cc's loops). Element (o, r, i) is at
// (o * len + r) * inner + i. A 0-d tensor is [1, 1, 1] (normalize_axis accepts axis 0 / -1).
#pragma once

#include <cstdint>
#include <string_view>

#include "tensor/tensor.h"

namespace mycel {

struct AxisLayout {
  int64_t outer = 1, len = 1, inner = 1;
};

// The layout of x around axis `axis` (negative counts from the end; checked, naming `op`).
inline AxisLayout axis_layout(const Tensor& x, int64_t axis, std::string_view op) {
  const int64_t nd = x.ndim();
  const int64_t a = normalize_axis(axis, nd, op);
  AxisLayout l;
  for (int64_t d = 0; d < nd; ++d) (d < a ? l.outer : d == a ? l.len : l.inner) *= x.dim(d);
  return l;
}

}  // namespace mycel
