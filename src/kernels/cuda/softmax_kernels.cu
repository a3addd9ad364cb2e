// Softmax, LogSoftmax and the softmax cross entropies (see softmax_kernels.h), in the stable
// form of the CPU kernel: m = the row's maximum (NaN ignored; 0 when it is -inf or the row
// is all NaN), s = sum exp(x - m); softmax = exp(x - m) / s, log_softmax = x - (m + log s).
// Rows along the last axis take one block each (block reductions); a softmax over another
// axis takes one thread per (outer, inner) column, reading along len with stride inner
// (coalesced across neighbouring columns). 16-bit floats compute in float.
#include "device/cuda/cuda_common.cuh"
#include "kernels/cuda/reduce_block.cuh"
#include "kernels/cuda/softmax_kernels.h"

namespace mycel::cuda {

namespace {

template <class T>
using sacc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr unsigned kBlock = 256;

__device__ inline float exp_c(float v) { return expf(v); }
__device__ inline double exp_c(double v) { return exp(v); }
__device__ inline float log_c(float v) { return logf(v); }
__device__ inline double log_c(double v) { return log(v); }

template <class C>
__device__ inline C fix_max(C m) {
  return m > static_cast<C>(-INFINITY) ? m : C(0);
}

// (m, log s) of row r of `len` elements at x + base, stride 1, over the whole block.
template <class T, class C>
__device__ inline void row_stats(const T* x, int64_t len, C* m_out, C* s_out) {
  C m = MaxOp::identity<C>();
  for (int64_t k = threadIdx.x; k < len; k += blockDim.x)
    m = MaxOp()(m, static_cast<C>(load(x[k])));
  m = fix_max(block_reduce(m, MaxOp()));
  C s = 0;
  for (int64_t k = threadIdx.x; k < len; k += blockDim.x)
    s += exp_c(static_cast<C>(load(x[k])) - m);
  s = block_reduce(s, SumOp());
  *m_out = m;
  *s_out = s;
}

template <class T>
__global__ void softmax_rows_kernel(const T* x, T* y, int64_t rows, int64_t len, bool log) {
  using C = sacc_t<T>;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * len;
    T* yr = y + r * len;
    C m, s;
    row_stats(xr, len, &m, &s);
    if (log) {
      const C shift = m + log_c(s);
      for (int64_t k = threadIdx.x; k < len; k += blockDim.x)
        yr[k] = cast_to<T>(static_cast<C>(load(xr[k])) - shift);
    } else {
      const C inv = C(1) / s;
      for (int64_t k = threadIdx.x; k < len; k += blockDim.x)
        yr[k] = cast_to<T>(exp_c(static_cast<C>(load(xr[k])) - m) * inv);
    }
  }
}

template <class T>
__global__ void softmax_cols_kernel(const T* x, T* y, int64_t outer, int64_t len, int64_t inner,
                                    bool log) {
  using C = sacc_t<T>;
  MC_CUDA_KERNEL_LOOP(col, outer * inner) {
    const int64_t o = col / inner, j = col % inner;
    const T* xc = x + o * len * inner + j;
    T* yc = y + o * len * inner + j;
    C m = MaxOp::identity<C>();
    for (int64_t k = 0; k < len; ++k) m = MaxOp()(m, static_cast<C>(load(xc[k * inner])));
    m = fix_max(m);
    C s = 0;
    for (int64_t k = 0; k < len; ++k) s += exp_c(static_cast<C>(load(xc[k * inner])) - m);
    if (log) {
      const C shift = m + log_c(s);
      for (int64_t k = 0; k < len; ++k)
        yc[k * inner] = cast_to<T>(static_cast<C>(load(xc[k * inner])) - shift);
    } else {
      const C inv = C(1) / s;
      for (int64_t k = 0; k < len; ++k)
        yc[k * inner] = cast_to<T>(exp_c(static_cast<C>(load(xc[k * inner])) - m) * inv);
    }
  }
}

template <class T, class L>
__global__ void sparse_ce_kernel(const T* logits, const L* labels, T* out, double* row_loss,
                                 int64_t n, int64_t c, bool grad) {
  using C = sacc_t<T>;
  for (int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    const T* xr = logits + r * c;
    C m, s;
    row_stats(xr, c, &m, &s);
    const C shift = m + log_c(s);
    const int64_t l = static_cast<int64_t>(labels[r]);
    const bool valid = l >= 0 && l < c;
    if (grad) {
      const C inv_n = C(1) / static_cast<C>(n);
      T* o = out + r * c;
      for (int64_t k = threadIdx.x; k < c; k += blockDim.x) {
        const C p = exp_c(static_cast<C>(load(xr[k])) - shift);
        const C v = valid ? (k == l ? (p - C(1)) * inv_n : p * inv_n) : static_cast<C>(NAN);
        o[k] = cast_to<T>(v);
      }
    } else if (threadIdx.x == 0) {
      row_loss[r] = valid ? -static_cast<double>(static_cast<C>(load(xr[l])) - shift) : NAN;
    }
  }
}

// out[] = sum(row_loss) / n, one block, fixed order.
template <class T>
__global__ void mean_loss_kernel(const double* row_loss, T* out, int64_t n) {
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += row_loss[i];
  s = block_reduce(s, SumOp());
  if (threadIdx.x == 0) *out = cast_to<T>(s / static_cast<double>(n));
}

template <class T>
__global__ void softmax_ce_kernel(const T* logits, const T* labels, T* loss, T* dlogits, int64_t n,
                                  int64_t c) {
  using C = sacc_t<T>;
  for (int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    const T* xr = logits + r * c;
    const T* yr = labels + r * c;
    C m, s;
    row_stats(xr, c, &m, &s);
    const C shift = m + log_c(s);
    C part = 0;
    for (int64_t k = threadIdx.x; k < c; k += blockDim.x) {
      const C logp = static_cast<C>(load(xr[k])) - shift;
      const C y = static_cast<C>(load(yr[k]));
      part -= y * logp;
      dlogits[r * c + k] = cast_to<T>(exp_c(logp) - y);
    }
    part = block_reduce(part, SumOp());
    if (threadIdx.x == 0) loss[r] = cast_to<T>(part);
  }
}


unsigned row_grid(int64_t rows) {
  return static_cast<unsigned>(rows < 65535LL * 16 ? rows : 65535LL * 16);
}

}  // namespace

void launch_softmax(int code, const void* x, void* y, int64_t outer, int64_t len, int64_t inner,
                    bool log, cudaStream_t s) {
  if (outer * len * inner == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    if (inner == 1) {
      softmax_rows_kernel<T><<<row_grid(outer), kBlock, 0, s>>>(
          static_cast<const T*>(x), static_cast<T*>(y), outer, len, log);
    } else {
      softmax_cols_kernel<T><<<grid_for(outer * inner), kBlock, 0, s>>>(
          static_cast<const T*>(x), static_cast<T*>(y), outer, len, inner, log);
    }
  });
}

void launch_sparse_softmax_ce(int code, const void* logits, int label_code, const void* labels,
                              void* out, double* row_loss, int64_t n, int64_t c, bool grad,
                              cudaStream_t s) {
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    if (n > 0) {
      if (label_code == kInt32) {
        sparse_ce_kernel<T, int32_t><<<row_grid(n), kBlock, 0, s>>>(
            static_cast<const T*>(logits), static_cast<const int32_t*>(labels),
            static_cast<T*>(out), row_loss, n, c, grad);
      } else {
        sparse_ce_kernel<T, int64_t><<<row_grid(n), kBlock, 0, s>>>(
            static_cast<const T*>(logits), static_cast<const int64_t*>(labels),
            static_cast<T*>(out), row_loss, n, c, grad);
      }
    }
    if (!grad) mean_loss_kernel<T><<<1, kBlock, 0, s>>>(row_loss, static_cast<T*>(out), n);
  });
}

void launch_softmax_ce(int code, const void* logits, const void* labels, void* loss, void* dlogits,
                       int64_t n, int64_t c, cudaStream_t s) {
  if (n == 0) return;
  dispatch_float_code(code, [&](auto tag) {
    using T = decltype(tag);
    softmax_ce_kernel<T><<<row_grid(n), kBlock, 0, s>>>(
        static_cast<const T*>(logits), static_cast<const T*>(labels), static_cast<T*>(loss),
        static_cast<T*>(dlogits), n, c);
  });
}

}  // namespace mycel::cuda
