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

__device__ inline void flag_csr(int64_t* err, int op, int64_t v) {
  volatile int64_t* e = err;
  e[1] = v;
  e[0] = 1 + op;
}

// One block per row r of A (grid-stride over rows); thread t handles columns t, t + blockDim...
template <class T, class P, class I>
__global__ void csrmm_kernel(const P* ptr, const I* col, const T* val, const T* d, T* out,
                             int64_t rows, int64_t k, int64_t n, int64_t nnz, bool transpose,
                             int64_t* err, int op) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t b = static_cast<int64_t>(ptr[r]), e = static_cast<int64_t>(ptr[r + 1]);
    if (threadIdx.x == 0) {
      if (b > e) flag_csr(err, op, e);
      if (r == 0 && b != 0) flag_csr(err, op, b);
      if (r == rows - 1 && e != nnz) flag_csr(err, op, e);
    }
    const bool bad = b > e || b < 0 || e > nnz;  // flagged above; the row is left 0
    const int64_t jb = bad ? 0 : b, je = bad ? 0 : e;
    for (int64_t c = threadIdx.x; c < n; c += blockDim.x) {
      T acc = T(0);
      for (int64_t j = jb; j < je; ++j) {
        const int64_t q = static_cast<int64_t>(col[j]);
        if (q < 0 || q >= k) {
          if (c == threadIdx.x && threadIdx.x == 0) flag_csr(err, op, q);
          continue;
        }
        if (transpose)
          atomicAdd(out + q * n + c, val[j] * d[r * n + c]);
        else
          acc += val[j] * d[q * n + c];
      }
      if (!transpose) out[r * n + c] = acc;
    }
  }
}

// One thread per (entry j, column c): out[dst[j], c] += val[j] * d[src[j], c].
template <class T, class D, class S>
__global__ void coomm_kernel(const D* dst, const S* src, const T* val, const T* d, T* out,
                             int64_t dst_bound, int64_t src_bound, int64_t n, int64_t total,
                             int64_t* err, int op) {
  MC_CUDA_KERNEL_LOOP(idx, total) {
    const int64_t j = idx / n, c = idx % n;
    const int64_t r = static_cast<int64_t>(dst[j]), q = static_cast<int64_t>(src[j]);
    if (r < 0 || r >= dst_bound || q < 0 || q >= src_bound) {
      if (c == 0) flag_csr(err, op, r < 0 || r >= dst_bound ? r : q);
      continue;
    }
    atomicAdd(out + r * n + c, val[j] * d[q * n + c]);
  }
}

}  // namespace

void launch_csrmm(int code, const void* ptr, bool ptr64, const void* col, bool col64,
                  const void* val, const void* d, void* out, int64_t rows, int64_t k, int64_t n,
                  int64_t nnz, bool transpose, int64_t* err, int op, cudaStream_t stream) {
  if (rows == 0 || n == 0) return;
  const int threads = n >= 256 ? 256 : n >= 64 ? 64 : 32;
  const unsigned blocks = static_cast<unsigned>(rows < 65535 ? rows : 65535);
  auto go = [&](auto t, auto p, auto c) {
    using T = decltype(t);
    using P = decltype(p);
    using C = decltype(c);
    csrmm_kernel<T, P, C><<<blocks, threads, 0, stream>>>(
        static_cast<const P*>(ptr), static_cast<const C*>(col), static_cast<const T*>(val),
        static_cast<const T*>(d), static_cast<T*>(out), rows, k, n, nnz, transpose, err, op);
  };
  auto with_col = [&](auto t, auto p) {
    if (col64)
      go(t, p, int64_t{});
    else
      go(t, p, int32_t{});
  };
  auto with_ptr = [&](auto t) {
    if (ptr64)
      with_col(t, int64_t{});
    else
      with_col(t, int32_t{});
  };
  if (code == kFloat64)
    with_ptr(double{});
  else if (code == kFloat32)
    with_ptr(float{});
}

void launch_coomm(int code, const void* dst, bool dst64, const void* src, bool src64,
                  const void* val, const void* d, void* out, int64_t dst_bound, int64_t src_bound,
                  int64_t n, int64_t nnz, int64_t* err, int op, cudaStream_t stream) {
  const int64_t total = nnz * n;
  if (total == 0) return;
  auto go = [&](auto t, auto di, auto si) {
    using T = decltype(t);
    using D = decltype(di);
    using S = decltype(si);
    coomm_kernel<T, D, S><<<grid_for(total), 256, 0, stream>>>(
        static_cast<const D*>(dst), static_cast<const S*>(src), static_cast<const T*>(val),
        static_cast<const T*>(d), static_cast<T*>(out), dst_bound, src_bound, n, total, err, op);
  };
  auto with_src = [&](auto t, auto di) {
    if (src64)
      go(t, di, int64_t{});
    else
      go(t, di, int32_t{});
  };
  auto with_dst = [&](auto t) {
    if (dst64)
      with_src(t, int64_t{});
    else
      with_src(t, int32_t{});
  };
  if (code == kFloat64)
    with_dst(double{});
  else if (code == kFloat32)
    with_dst(float{});
}

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
