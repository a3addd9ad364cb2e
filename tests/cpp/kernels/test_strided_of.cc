// The operand descriptors of the CUDA kernels (device/cuda/strided_of.h), checked on the CPU:
// for shapes with size-1 dims, broadcasts, transposes and steps, the offsets a kernel computes
// from the merged descriptor (Strided<K>::offsets' row-major walk, done here on the host) must
// be those of the plain walk over the original shape and strides, at every element; layouts
// that merge must come out as one dim (the kernels' fast path); too many unmergeable dims are a
// RuntimeError.
#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <random>
#include <vector>

#include "device/cuda/strided_of.h"

namespace mycel::cuda {
namespace {

// Strided<K>::offsets (strided_desc.h, device code) on the host.
template <int K>
std::array<int64_t, K> walk(const Strided<K>& s, int64_t linear) {
  std::array<int64_t, K> off{};
  for (int d = s.ndim - 1; d >= 0; --d) {
    const int64_t i = linear % s.size[d];
    linear /= s.size[d];
    for (int k = 0; k < K; ++k) off[static_cast<size_t>(k)] += i * s.stride[k][d];
  }
  return off;
}

// The offsets of element `linear` (row-major over shape) without any merging.
int64_t plain(const Shape& shape, const Shape& strides, int64_t linear) {
  int64_t off = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    off += (linear % shape[d]) * strides[d];
    linear /= shape[d];
  }
  return off;
}

Shape contiguous(const Shape& shape) {
  Shape st(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) st[d - 1] = st[d] * shape[d];
  return st;
}

// A random layout of `shape`: contiguous, a permuted contiguous buffer (a transpose), every
// stride doubled (a step-2 slice), or broadcast (stride 0) on some dims.
Shape layout(const Shape& shape, std::mt19937& rng) {
  const int kind = static_cast<int>(rng() % 4);
  Shape st = contiguous(shape);
  if (kind == 1 && shape.size() > 1) {
    std::vector<size_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), size_t{0});
    std::shuffle(perm.begin(), perm.end(), rng);
    Shape ps(shape.size()), pst;
    for (size_t d = 0; d < shape.size(); ++d) ps[d] = shape[perm[d]];
    pst = contiguous(ps);
    for (size_t d = 0; d < shape.size(); ++d) st[perm[d]] = pst[d];
  } else if (kind == 2) {
    for (int64_t& v : st) v *= 2;
  } else if (kind == 3) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (rng() % 2) st[d] = 0;
  }
  return st;
}

template <int K>
void check_random(uint32_t seed) {
  std::mt19937 rng(seed);
  for (int round = 0; round < 400; ++round) {
    const size_t rank = rng() % 7;
    Shape shape;
    for (size_t d = 0; d < rank; ++d) shape.push_back(static_cast<int64_t>(1 + rng() % 4));
    std::array<Shape, K> st;
    std::array<const Shape*, K> ptr;
    for (int k = 0; k < K; ++k) {
      st[static_cast<size_t>(k)] = layout(shape, rng);
      ptr[static_cast<size_t>(k)] = &st[static_cast<size_t>(k)];
    }
    const Strided<K> s = strided_of<K>(shape, ptr);
    int64_t n = 1;
    for (int64_t v : shape) n *= v;
    int64_t merged = 1;
    for (int d = 0; d < s.ndim; ++d) merged *= s.size[d];
    ASSERT_EQ(merged, n) << "round " << round << " shape " << shape;
    for (int64_t i = 0; i < n; ++i) {
      const std::array<int64_t, K> got = walk(s, i);
      for (int k = 0; k < K; ++k)
        ASSERT_EQ(got[static_cast<size_t>(k)], plain(shape, st[static_cast<size_t>(k)], i))
            << "round " << round << " shape " << shape << " operand " << k << " element " << i;
    }
  }
}

TEST(CudaStridedOf, OffsetsEqualThePlainWalk) {
  check_random<1>(1);
  check_random<2>(2);
  check_random<3>(3);
}

TEST(CudaStridedOf, CommonLayoutsTakeTheOneDimFastPath) {
  const Shape shape{3, 1, 4, 5};
  const Shape c = contiguous(shape);
  const Shape zero(shape.size(), 0);  // a one-element operand broadcast everywhere
  const Strided<2> both = strided_of<2>(shape, {&c, &c});
  EXPECT_EQ(both.ndim, 1);
  EXPECT_EQ(both.size[0], 60);
  const Strided<2> scalar = strided_of<2>(shape, {&c, &zero});
  EXPECT_EQ(scalar.ndim, 1);
  EXPECT_EQ(scalar.stride[1][0], 0);
  // A row broadcast over the rows cannot merge with them: two dims.
  const Shape row{0, 0, 5, 1};
  EXPECT_EQ((strided_of<2>(shape, {&c, &row}).ndim), 2);
  // A one-element tensor: no dims at all, every offset 0.
  const Shape one{1, 1}, one_st{1, 1};
  EXPECT_EQ((strided_of<1>(one, {&one_st}).ndim), 0);
}

TEST(CudaStridedOf, TooManyUnmergeableDimsAreARuntimeError) {
  // 13 dims of 2, one operand contiguous and one reversed: no two neighbours merge.
  Shape shape(13, 2);
  Shape c = contiguous(shape), r(13, 0);
  for (size_t d = 0; d < 13; ++d) r[d] = c[12 - d];
  try {
    strided_of<2>(shape, {&c, &r});
    FAIL() << "13 unmergeable dims accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("at most 12 dimensions"), std::string::npos) << e.what();
  }
  Shape twelve(12, 2), c12 = contiguous(twelve), r12(12, 0);
  for (size_t d = 0; d < 12; ++d) r12[d] = c12[11 - d];
  EXPECT_EQ((strided_of<2>(twelve, {&c12, &r12}).ndim), 12);
}

}  // namespace
}  // namespace mycel::cuda
