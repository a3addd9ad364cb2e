// Launch geometry, and Strided<K>: the element offsets of K operands that share a shape but not strides (a
// broadcast dim has stride 0), walked from a linear row-major index on the device. Plain data,
// passed to kernels by value; host code fills it with cuda_tensor.h's strided_of(), which
// drops size-1 dims and merges dims that are contiguous in every operand first.
#pragma once

#include <cstdint>

namespace mycel::cuda {

inline constexpr int kMaxDims = 12;

template <int K>
struct Strided {
  int ndim = 0;
  int64_t size[kMaxDims];
  int64_t stride[K][kMaxDims];

#if defined(__CUDACC__)
  __device__ inline void offsets(int64_t linear, int64_t (&off)[K]) const {
#pragma unroll
    for (int k = 0; k < K; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      int64_t i = linear % size[d];
      linear /= size[d];
#pragma unroll
      for (int k = 0; k < K; ++k) off[k] += i * stride[k][d];
    }
  }
#endif
};

// Launch geometry for n independent elements: `block`-thread blocks, the grid capped so that
// a grid-stride loop (MC_CUDA_KERNEL_LOOP) covers the rest.
inline unsigned grid_for(long long n, unsigned block = 256) {
  long long g = (n + block - 1) / block;
  if (g < 1) g = 1;
  if (g > 65535LL * 16) g = 65535LL * 16;
  return static_cast<unsigned>(g);
}

}  // namespace mycel::cuda
