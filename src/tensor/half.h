// float16 (IEEE binary16) and bfloat16 storage types. Arithmetic happens in float: kernels
// load with to_float, compute, and store with the constructor (round to nearest even).
#pragma once

#include <bit>
#include <cstdint>

namespace mycel {

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);  // inf or nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);  // normal: rebias 15 -> 127
  } else if (man == 0) {
    bits = sign;  // zero
  } else {
    // subnormal half: value = man * 2^-24; normalise it as a float
    float f = static_cast<float>(man) * 5.9604644775390625e-8f;
    bits = sign | std::bit_cast<uint32_t>(f);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t float_to_half_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {  // inf or nan (keep nan quiet)
    return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
  }
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (ax < 0x38800000u) {
    // result is subnormal or zero: add a magic number so the FPU rounds for us
    float r = std::bit_cast<float>(ax) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(r) - 0x3f000000u));
  }
  uint32_t odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + odd;  // rebias 127 -> 15 and round to nearest even
  return static_cast<uint16_t>(sign | (ax >> 13));
}

struct float16 {
  uint16_t bits = 0;
  float16() = default;
  float16(float f) : bits(float_to_half_bits(f)) {}  // NOLINT: implicit by design
  operator float() const { return half_bits_to_float(bits); }
  static float16 from_bits(uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }
};

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  // Round to nearest even; a NaN stays a (quiet) NaN. A select, not a branch, so that loops
  // converting float to bfloat16 vectorise.
  bfloat16(float f) {  // NOLINT: implicit by design
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (x >> 16) | 0x40u;
    bits = static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
  operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }
  static bfloat16 from_bits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2);

}  // namespace mycel
