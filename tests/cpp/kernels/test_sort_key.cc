// The radix keys of the CUDA Sort/TopK kernels (kernels/cuda/sort_key.h), checked on the CPU:
// over values covering every class (infinities, zeros of both signs, subnormals, NaNs of both
// signs, the integer extremes), key order must be exactly the CPU kernel's comparison
// (kernels/cpu/sort_scan.cc: a < b, NaN the largest, +0 == -0), ties included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cuda/sort_key.h"
#include "tensor/half.h"

namespace mycel::cuda {
namespace {

template <class C>
bool lt_nan_last(C a, C b) {
  return a < b || (b != b && a == a);
}

template <class T, class U>
U key_of(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return float_sort_key<U>(bits_of<U>(v), std::isnan(v), v == T(0));
  else
    return int_sort_key<U>(static_cast<U>(v), std::is_signed_v<T>);
}

template <class T, class U>
void expect_order(const std::vector<T>& vals) {
  for (size_t i = 0; i < vals.size(); ++i) {
    for (size_t j = 0; j < vals.size(); ++j) {
      const T a = vals[i], b = vals[j];
      const U ka = key_of<T, U>(a), kb = key_of<T, U>(b);
      EXPECT_EQ(ka < kb, lt_nan_last(a, b)) << +a << " vs " << +b;
      EXPECT_EQ(ka == kb, !lt_nan_last(a, b) && !lt_nan_last(b, a)) << +a << " vs " << +b;
    }
  }
}

template <class T>
std::vector<T> float_values() {
  using L = std::numeric_limits<T>;
  return {
      -L::infinity(), -L::max(), T(-2.5),         T(-1),          -L::min(),       -L::denorm_min(),
      T(-0.0),        T(0.0),    L::denorm_min(), L::min(),       T(1e-3),         T(1),
      T(2.5),         L::max(),  L::infinity(),   L::quiet_NaN(), -L::quiet_NaN(), T(1),
      T(-0.0)};
}

TEST(SortKey, Float32MatchesTheCpuComparison) {
  expect_order<float, uint32_t>(float_values<float>());
}

TEST(SortKey, Float64MatchesTheCpuComparison) {
  expect_order<double, uint64_t>(float_values<double>());
}

// The 16-bit floats: their bits, NaN and zero tested in float (as scan_sort.cu does), in the
// order of their float values.
template <class H>
void expect_half_order() {
  std::vector<H> vals;
  for (float f : float_values<float>()) vals.push_back(H(f));
  for (const H& a : vals) {
    for (const H& b : vals) {
      const float fa = static_cast<float>(a), fb = static_cast<float>(b);
      const uint16_t ka = float_sort_key<uint16_t>(a.bits, std::isnan(fa), fa == 0.0f);
      const uint16_t kb = float_sort_key<uint16_t>(b.bits, std::isnan(fb), fb == 0.0f);
      EXPECT_EQ(ka < kb, lt_nan_last(fa, fb)) << fa << " vs " << fb;
      EXPECT_EQ(ka == kb, !lt_nan_last(fa, fb) && !lt_nan_last(fb, fa)) << fa << " vs " << fb;
    }
  }
}

TEST(SortKey, HalfFloatsMatchTheCpuComparison) {
  expect_half_order<float16>();
  expect_half_order<bfloat16>();
}

TEST(SortKey, IntegersMatchTheirOrder) {
  expect_order<int8_t, uint8_t>({-128, -127, -1, 0, 1, 5, 126, 127, 0, -1});
  expect_order<uint8_t, uint8_t>({0, 1, 127, 128, 255, 1});
  expect_order<int16_t, uint16_t>({-32768, -300, -1, 0, 1, 300, 32767});
  expect_order<int32_t, uint32_t>({std::numeric_limits<int32_t>::min(), -70000, -1, 0, 1, 70000,
                                   std::numeric_limits<int32_t>::max()});
  expect_order<int64_t, uint64_t>({std::numeric_limits<int64_t>::min(), -(int64_t{1} << 40), -1, 0,
                                   1, int64_t{1} << 40, std::numeric_limits<int64_t>::max()});
}

}  // namespace
}  // namespace mycel::cuda
