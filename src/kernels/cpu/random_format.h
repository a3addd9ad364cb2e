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
//   RandomPoisson: one counter per element (P = 1), whatever the dtype. Element i (rate
//     rate[i mod rate.numel()]) takes the uniforms of philox(key, j, offset + i), j = 0, 1, ...
//     in turn, two per call: uniform_double(w0, w1), then uniform_double(w2, w3). The count
//     is poisson_draw below, rounded (saturating) to the dtype. A rate that is negative, NaN
//     or infinite has no count: NaN in a float dtype, -1 in an integer one (poisson_count).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "base/poisson_draw.h"
#include "tensor/dtype.h"
#include "tensor/random.h"

namespace mycel::random_format {

inline int64_t per_call(bool normal, DType t) { return normal || t == DType::Float64 ? 2 : 4; }

inline float uniform_f32(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
inline float uniform_f16(uint32_t w) { return static_cast<float>(w >> 21) * 0x1p-11f; }
inline float uniform_bf16(uint32_t w) { return static_cast<float>(w >> 24) * 0x1p-8f; }

// The uniforms of one RandomPoisson element, in [0, 1), in the order given above.
class ElementUniforms {
 public:
  ElementUniforms(uint64_t key, uint64_t counter) : key_(key), counter_(counter) {}
  double next() {
    if (half_ == 2) {
      words_ = philox(key_, call_++, counter_);
      half_ = 0;
    }
    const double u = uniform_double(words_[2 * half_], words_[2 * half_ + 1]);
    ++half_;
    return u;
  }

 private:
  uint64_t key_, counter_, call_ = 0;
  Philox4 words_{};
  int half_ = 2;
};

// A Poisson count of a prepared rate (finite, >= 0): base/poisson_draw.h's sampler (Knuth's
// method below 10, Hoermann's PTRS from 10 on), shared with the CUDA kernel so that both draw
// the same counts.
inline double poisson_draw(const poisson::Rate& r, ElementUniforms& u) {
  return poisson::draw(r, u);
}

// The element's value in dtype T: poisson_draw for a finite rate >= 0, else "no count".
template <class T>
T poisson_count(const poisson::Rate& r, ElementUniforms& u) {
  if (!(std::isfinite(r.lam) && r.lam >= 0.0)) {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(-1);
    else
      return T(std::numeric_limits<float>::quiet_NaN());
  }
  return saturate_cast<T>(poisson_draw(r, u));
}
template <class T>
T poisson_count(double lam, ElementUniforms& u) {
  return poisson_count<T>(poisson::prepare(lam), u);
}

}  // namespace mycel::random_format
