// strided_of<K>(): the Strided<K> descriptor (strided_desc.h) of K operands over one shape,
// from their element strides: size-1 dims dropped, dims contiguous in every operand merged,
// so that most kernels see one dim (the fast path of elementwise_loops.h). Host code with no
// CUDA header, so that tests/cpp/kernels/test_strided_of.cc checks it on any machine against
// the plain row-major walk; cuda_tensor.h hands it to the kernels' host wrappers.
#pragma once

#include <array>
#include <cstdint>

#include "base/error.h"
#include "device/cuda/strided_desc.h"
#include "tensor/shape.h"

namespace mycel::cuda {

// The offsets of K operands over `shape`; strides[k] are operand k's element strides over
// `shape` (0 for broadcast dims). Size-1 dims are dropped and dims contiguous in every
// operand merged; a RuntimeError if more than kMaxDims remain.
template <int K>
Strided<K> strided_of(const Shape& shape, const std::array<const Shape*, K>& strides) {
  Strided<K> s;
  // Innermost first, as in tensor/strided.h, then reversed into row-major order.
  int64_t size[64];
  int64_t st[K][64];
  int n = 0;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    bool merge = n > 0;
    for (int k = 0; k < K && merge; ++k) merge = (*strides[k])[i] == st[k][n - 1] * size[n - 1];
    if (merge) {
      // dim i is contiguous with the faster dim n-1 in every operand: fold it in.
      size[n - 1] *= shape[i];
      continue;
    }
    MC_CHECK(n < 64, Runtime, "too many dimensions for a GPU kernel");
    size[n] = shape[i];
    for (int k = 0; k < K; ++k) st[k][n] = (*strides[k])[i];
    ++n;
  }
  MC_CHECK(n <= kMaxDims, Runtime, "a GPU kernel takes at most ", kMaxDims,
           " dimensions that cannot be merged, but got ", n, ".");
  s.ndim = n;
  for (int d = 0; d < n; ++d) {
    s.size[d] = size[n - 1 - d];
    for (int k = 0; k < K; ++k) s.stride[k][d] = st[k][n - 1 - d];
  }
  return s;
}

}  // namespace mycel::cuda
