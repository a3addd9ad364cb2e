// The stream format of StandardNormal and UniformReal, shared by the optimised kernels
// (kernels/cpu/random.cc) and the references (kernels/ref/random.cc).
//
// An op producing n elements reserves ceil(n / P) Philox counters from its stream (key,
// offset); element i is computed from the four words of philox(key, 0, offset + i / P) alone,
// so its value does not depend on how the work is split across threads.
//
//   StandardNormal, every dtype: P = 2. u1 = uniform_double(w0, w1), u2 = uniform_double(w2,
//     w3) (53 bits each); Box-Muller: r = sqrt(-2 ln(1 - u1)), t = 2 pi u2; element 2c is
//     r cos t, element 2c + 1 is r sin t, computed in double and rounded to the dtype.
//   UniformReal, Float32/Float16/BFloat16: P = 4, element 4c + j from word j, keeping as many
//     top bits as the dtype has significand bits (24 / 11 / 8), so every value is exact and
//     lies in [0, 1) (rounding a wider uniform could give 1.0).
//   UniformReal, Float64: P = 2, element 2c + j = uniform_double(w[2j], w[2j + 1]).
#pragma once

#include <cstdint>

#include "tensor/dtype.h"

namespace mycel::random_format {

inline int64_t per_call(bool normal, DType t) { return normal || t == DType::Float64 ? 2 : 4; }

inline float uniform_f32(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
inline float uniform_f16(uint32_t w) { return static_cast<float>(w >> 21) * 0x1p-11f; }
inline float uniform_bf16(uint32_t w) { return static_cast<float>(w >> 24) * 0x1p-8f; }

}  // namespace mycel::random_format
