// Widening loads for the reduction and matmul kernels: element -> compute value, written so
// that GCC vectorises them (no branches; half.h's scalar conversion has branches, which stop
// the vectoriser). Both give the exact value, so results match half.h's conversions bit for
// bit.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "tensor/half.h"

namespace mycel::cpu {

// float16 -> float by bit manipulation, with masks instead of selects on integer compares.
inline float f16_to_float(uint16_t h) {
  uint32_t em = h & 0x7fffu;
  uint32_t u = (em << 13) + 0x38000000u;                    // normal: rebias 15 -> 127
  u += static_cast<uint32_t>(em >= 0x7c00u) * 0x38000000u;  // inf / nan: exponent to 255
  float sub = static_cast<float>(static_cast<int32_t>(em)) * 5.9604644775390625e-8f;
  uint32_t mask = 0u - static_cast<uint32_t>(em < 0x400u);  // zero / subnormal
  uint32_t r = (std::bit_cast<uint32_t>(sub) & mask) | (u & ~mask);
  return std::bit_cast<float>(r | (static_cast<uint32_t>(h & 0x8000u) << 16));
}

inline float bf16_to_float(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

// The value of v in type A: float16/bfloat16 through float; integers and bool to uint64 by
// sign extension (accumulators that wrap modulo 2^64); otherwise a plain conversion.
template <class A, class T>
inline A load_as(T v) {
  if constexpr (std::is_same_v<T, float16>) {
    return static_cast<A>(f16_to_float(v.bits));
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return static_cast<A>(bf16_to_float(v.bits));
  } else if constexpr (std::is_same_v<A, uint64_t> && !std::is_same_v<T, uint64_t>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<A>(v);
  }
}

}  // namespace mycel::cpu
