// Own device code of the linalg family: the naive batched matmul (integers, and the float
// fallback) and BiasAdd. See linalg_kernels.h.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/linalg_kernels.h"

namespace mycel::cuda {

namespace {

template <class T>
__global__ void matmul_naive_kernel(const T* A, const T* B, T* Y, int64_t total, int64_t M,
                                    int64_t N, int64_t K, bool ta, bool tb, int64_t sa,
                                    int64_t sb) {
  MC_CUDA_KERNEL_LOOP(idx, total) {
    const int64_t j = idx % N;
    const int64_t i = (idx / N) % M;
    const int64_t t = idx / (M * N);
    const T* a = A + t * sa;
    const T* b = B + t * sb;
    if constexpr (std::is_integral_v<T>) {
      uint64_t s = 0;
      for (int64_t k = 0; k < K; ++k) {
        const T av = ta ? a[k * M + i] : a[i * K + k];
        const T bv = tb ? b[j * K + k] : b[k * N + j];
        s += static_cast<uint64_t>(static_cast<int64_t>(av)) *
             static_cast<uint64_t>(static_cast<int64_t>(bv));
      }
      Y[idx] = static_cast<T>(static_cast<int64_t>(s));
    } else {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      C s = 0;
      for (int64_t k = 0; k < K; ++k) {
        const C av = static_cast<C>(load(ta ? a[k * M + i] : a[i * K + k]));
        const C bv = static_cast<C>(load(tb ? b[j * K + k] : b[k * N + j]));
        s += av * bv;
      }
      Y[idx] = cast_to<T>(s);
    }
  }
}

template <class T>
__global__ void bias_add_kernel(const T* x, const T* b, T* y, int64_t n, int64_t channels,
                                int64_t inner) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    const int64_t c = (i / inner) % channels;
    if constexpr (is_half_v<T>)
      y[i] = cast_to<T>(load(x[i]) + load(b[c]));
    else
      y[i] = static_cast<T>(x[i] + b[c]);  // integers wrap to T's width, as on the CPU
  }
}

}  // namespace

void launch_matmul_naive(int code, const void* A, const void* B, void* Y, int64_t batches,
                         int64_t M, int64_t N, int64_t K, bool ta, bool tb, int64_t stride_a,
                         int64_t stride_b, cudaStream_t stream) {
  const int64_t total = batches * M * N;
  if (total == 0) return;
  dispatch_code(code, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      matmul_naive_kernel<T><<<grid_for(total), 256, 0, stream>>>(
          static_cast<const T*>(A), static_cast<const T*>(B), static_cast<T*>(Y), total, M, N, K,
          ta, tb, stride_a, stride_b);
    }
  });
}

void launch_bias_add(int code, const void* x, const void* b, void* y, int64_t n, int64_t channels,
                     int64_t inner, cudaStream_t stream) {
  if (n == 0) return;
  dispatch_code(code, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      bias_add_kernel<T><<<grid_for(n), 256, 0, stream>>>(static_cast<const T*>(x),
                                                          static_cast<const T*>(b),
                                                          static_cast<T*>(y), n, channels, inner);
    }
  });
}

}  // namespace mycel::cuda
