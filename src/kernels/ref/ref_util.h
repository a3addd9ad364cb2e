// Helpers of the reference kernels, which compute in double on flat row-major copies: that
// keeps them obviously correct, and they are the oracle the optimised kernels are tested
// against.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace mycel::ref {

// Element offset, in a tensor with broadcast strides `st` (broadcast_strides), of row-major
// index i of `shape`.
inline int64_t offset_of(int64_t i, const Shape& shape, const Shape& st) {
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    off += (i % shape[d]) * st[d];
    i /= shape[d];
  }
  return off;
}

inline std::vector<double> to_double(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.element_as_double(i);
  return v;
}

// Writes v into the contiguous floating-point tensor out, rounding to its dtype.
inline void store(const Tensor& out, const std::vector<double>& v) {
  dispatch_float(out.dtype(), "reference kernel", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

// store(out[k], the k-th vector) for each output of a kernel with several.
template <class Outs, class... V>
void store_all(const Outs& out, const V&... v) {
  size_t k = 0;
  (store(out[k++], v), ...);
}

}  // namespace mycel::ref
