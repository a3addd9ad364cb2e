// Device-side machinery of the elementwise CUDA kernels (include from .cu files only):
//
//   - unary_kernel / binary_kernel: one grid-stride loop each over a contiguous output, the
//     inputs located through a Strided<K> descriptor. A descriptor that merged to one dim
//     (every operand contiguous, or a one-element operand broadcast with stride 0: the
//     common cases) takes the fast path i * stride, without the div/mod walk;
//   - functors: `template <class C> __device__ static R f(C...)` (or __host__ __device__: the
//     forms of kernels/elementwise_forms.h, shared with the CPU), applied to the inputs
//     loaded as acc_t<T> (float for the 16-bit floats), the result stored back with
//     round-to-nearest-even: the CPU kernels' compute_t<T> rules;
//   - dtype filters for the host launchers, so that each op instantiates its kernel only
//     for the dtypes it supports (compile time).
//
// Integer +, -, *, negation wrap (two's complement): kernels/elementwise_forms.h, as on the CPU.
#pragma once

#if !defined(__CUDACC__)
#error "elementwise_loops.h holds device code: include it from .cu files only"
#endif

#include <cstdint>
#include <type_traits>

#include "device/cuda/cuda_common.cuh"
#include "kernels/elementwise_forms.h"

namespace mycel::cuda::ew {

// ---- element access -----------------------------------------------------------------------

// acc_t<T> -> T, rounding to nearest even for the 16-bit floats (as the CPU's float16(float)).
template <class T>
__device__ inline T store(acc_t<T> v) {
  if constexpr (std::is_same_v<T, half_t>)
    return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, bf16_t>)
    return __float2bfloat16_rn(v);
  else
    return static_cast<T>(v);
}

// The K element offsets of row-major index i: the fast path when the descriptor has one dim.
template <int K>
__device__ inline void offsets_of(const Strided<K>& s, int64_t i, int64_t (&off)[K]) {
  if (s.ndim == 1) {
#pragma unroll
    for (int k = 0; k < K; ++k) off[k] = i * s.stride[k][0];
  } else {
    s.offsets(i, off);
  }
}

// ---- wrapping integer arithmetic ----------------------------------------------------------

// The host/device forms of kernels/elementwise_forms.h, shared with the CPU loops.
using mycel::ew::wide_unsigned_t;
using mycel::ew::wrap_add;
using mycel::ew::wrap_mul;
using mycel::ew::wrap_neg;
using mycel::ew::wrap_sub;

// ---- kernels ------------------------------------------------------------------------------

// The result type of Op on T: bool for comparisons (Op::kCompare), T otherwise.
template <class Op, class T>
using result_t = std::conditional_t<Op::kCompare, bool, T>;

template <class Op, class T>
__global__ void unary_kernel(T* y, const T* x, Strided<1> s, int64_t n) {
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[1];
    offsets_of(s, i, off);
    y[i] = store<T>(Op::f(load(x[off[0]])));
  }
}

template <class Op, class T>
__global__ void binary_kernel(result_t<Op, T>* o, const T* a, const T* b, Strided<2> s,
                              int64_t n) {
  using R = result_t<Op, T>;
  MC_CUDA_KERNEL_LOOP(i, n) {
    int64_t off[2];
    offsets_of(s, i, off);
    if constexpr (std::is_same_v<R, bool>)
      o[i] = Op::f(load(a[off[0]]), load(b[off[1]]));
    else
      o[i] = store<R>(Op::f(load(a[off[0]]), load(b[off[1]])));
  }
}

template <class Op, class T>
void run_unary(void* y, const void* x, const Strided<1>& s, int64_t n, cudaStream_t stream) {
  unary_kernel<Op, T><<<grid_for(n), 256, 0, stream>>>(static_cast<T*>(y),
                                                       static_cast<const T*>(x), s, n);
}

template <class Op, class T>
void run_binary(void* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
                cudaStream_t stream) {
  binary_kernel<Op, T><<<grid_for(n), 256, 0, stream>>>(
      static_cast<result_t<Op, T>*>(o), static_cast<const T*>(a), static_cast<const T*>(b), s,
      n);
}

// ---- dtype filters ------------------------------------------------------------------------
// Calls f(T{}) for dtype code `code` when T is in the family; other codes do nothing (the
// .cc wrapper has already raised mycel's unsupported-dtype error for them).

template <class T>
inline constexpr bool is_float_v = is_half_v<T> || std::is_floating_point_v<T>;

template <class F>
inline void for_all(int code, F&& f) {
  dispatch_code(code, f);
}

template <class F>
inline void for_number(int code, F&& f) {
  dispatch_code(code, [&](auto v) {
    if constexpr (!std::is_same_v<decltype(v), bool>) f(v);
  });
}

template <class F>
inline void for_float(int code, F&& f) {
  dispatch_code(code, [&](auto v) {
    if constexpr (is_float_v<decltype(v)>) f(v);
  });
}

}  // namespace mycel::cuda::ew
