// Device-side building blocks shared by the CUDA kernels (.cu files only):
//
//   - the element types by mycel's dtype code (DType's order: tensor/dtype.h), with 16-bit
//     floats as CUDA's __half / __nv_bfloat16 (the same bits as mycel's float16/bfloat16);
//   - cast_to<D>(x): the conversion rules of mycel's saturate_cast (tensor/dtype.h), which
//     the CPU kernels use, so GPU and CPU casts agree bit for bit on integers;
//   - Strided<K> (strided_desc.h): the element offsets of K operands over one shape;
//   - dispatch over dtype codes for host-side launchers.
//
// .cu files include this and no mycel header above tensor/: nvcc never parses the op table.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "device/cuda/strided_desc.h"

namespace mycel::cuda {

// DType's codes (tensor/dtype.h, MYCEL_DTYPES order).
enum DTypeCode : int {
  kBool = 0, kInt8, kUInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64
};

using half_t = __half;
using bf16_t = __nv_bfloat16;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, half_t> || std::is_same_v<T, bf16_t>;

// The type arithmetic is carried out in: float for the 16-bit floats, T otherwise.
template <class T>
using acc_t = std::conditional_t<is_half_v<T>, float, T>;

template <class T>
__host__ __device__ inline acc_t<T> load(T v) {
  if constexpr (std::is_same_v<T, half_t>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, bf16_t>)
    return __bfloat162float(v);
  else
    return v;
}

// saturate_cast's rules: float -> integer truncates, NaN -> 0, out of range saturates;
// integer -> narrower integer wraps; -> bool is x != 0; -> 16-bit floats via float, nearest
// even.
template <class D, class S>
__device__ inline D cast_to(S v) {
  using SC = acc_t<S>;
  const SC x = load(v);
  if constexpr (std::is_same_v<D, bool>) {
    return x != SC(0);
  } else if constexpr (std::is_floating_point_v<SC> && std::is_integral_v<D>) {
    constexpr SC lo = static_cast<SC>(std::numeric_limits<D>::min());
    constexpr SC hi = static_cast<SC>(std::numeric_limits<D>::max());
    if (!(x == x)) return D(0);
    return x <= lo ? std::numeric_limits<D>::min()
                   : (x >= hi ? std::numeric_limits<D>::max() : static_cast<D>(x));
  } else if constexpr (std::is_same_v<D, half_t>) {
    return __float2half_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<D, bf16_t>) {
    return __float2bfloat16_rn(static_cast<float>(x));
  } else {
    return static_cast<D>(x);
  }
}

// Calls f(T{}) -- a value of the element type of dtype code `code` -- from host code.
template <class F>
inline void dispatch_code(int code, F&& f) {
  switch (code) {
    case kBool: f(bool{}); break;
    case kInt8: f(int8_t{}); break;
    case kUInt8: f(uint8_t{}); break;
    case kInt16: f(int16_t{}); break;
    case kInt32: f(int32_t{}); break;
    case kInt64: f(int64_t{}); break;
    case kFloat16: f(half_t{}); break;
    case kBFloat16: f(bf16_t{}); break;
    case kFloat32: f(float{}); break;
    case kFloat64: f(double{}); break;
  }
}

// As dispatch_code, for the floating-point codes only (others: no call).
template <class F>
inline void dispatch_float_code(int code, F&& f) {
  switch (code) {
    case kFloat16: f(half_t{}); break;
    case kBFloat16: f(bf16_t{}); break;
    case kFloat32: f(float{}); break;
    case kFloat64: f(double{}); break;
    default: break;
  }
}

// Grid-stride loop over [0, n).
#define MC_CUDA_KERNEL_LOOP(i, n)                                                     \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

}  // namespace mycel::cuda
