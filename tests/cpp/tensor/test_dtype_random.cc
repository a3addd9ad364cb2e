// dtype promotion, the caching allocator and the Philox generator.
#include <gtest/gtest.h>

#include <set>

#include "tensor/allocator.h"
#include "tensor/dtype.h"
#include "tensor/random.h"

namespace mycel {
namespace {

TEST(DType, Promotion) {
  EXPECT_EQ(promote_types(DType::Int32, DType::Float32), DType::Float32);
  EXPECT_EQ(promote_types(DType::Int8, DType::UInt8), DType::Int16);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int8), DType::Int8);
  EXPECT_EQ(promote_types(DType::Float64, DType::Float16), DType::Float64);
  EXPECT_EQ(promote_with_scalar(DType::Float16, ScalarKind::Float), DType::Float16);
  EXPECT_EQ(promote_with_scalar(DType::Int32, ScalarKind::Float), DType::Float32);
  EXPECT_EQ(promote_with_scalar(DType::Int32, ScalarKind::Int), DType::Int32);
  EXPECT_EQ(promote_with_scalar(DType::Bool, ScalarKind::Int), DType::Int64);
}

TEST(DType, WideUnsignedPromoteOnlyWithBoolAndThemselves) {
  for (DType u : {DType::UInt16, DType::UInt32, DType::UInt64}) {
    EXPECT_TRUE(is_integral(u) && is_unsigned(u) && !is_floating(u) && !is_bool(u));
    EXPECT_EQ(promote_types(u, u), u);
    EXPECT_EQ(promote_types(DType::Bool, u), u);
    EXPECT_EQ(promote_types(u, DType::Bool), u);
    for (DType o : {DType::Int8, DType::UInt8, DType::Int64, DType::Float16, DType::Float64}) {
      EXPECT_FALSE(promotable(u, o));
      try {
        promote_types(o, u);
        FAIL() << dtype_name(o) << " with " << dtype_name(u);
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Type);
      }
    }
  }
  EXPECT_FALSE(promotable(DType::UInt16, DType::UInt64));
  EXPECT_TRUE(is_unsigned(DType::UInt8) && !is_unsigned(DType::Int64));
  EXPECT_TRUE(is_floating(DType::Float64) && !is_floating(DType::UInt64));
  EXPECT_EQ(promote_with_scalar(DType::UInt32, ScalarKind::Int), DType::UInt32);
}

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i), back;
    ASSERT_TRUE(dtype_from_name(dtype_name(t), &back));
    EXPECT_EQ(back, t);
    ASSERT_TRUE(dtype_from_name(dtype_numpy_name(t), &back));
    EXPECT_EQ(back, t);
  }
  DType t;
  EXPECT_FALSE(dtype_from_name("complex32", &t));
}

TEST(DType, ComplexPromotionAndPredicates) {
  for (DType c : {DType::Complex64, DType::Complex128}) {
    EXPECT_TRUE(is_complex(c) && !is_floating(c) && !is_integral(c) && !is_unsigned(c));
    EXPECT_EQ(promote_types(c, c), c);
    EXPECT_EQ(promote_types(DType::Bool, c), c);
    EXPECT_EQ(promote_types(c, DType::Int64), c);
    EXPECT_EQ(promote_with_scalar(c, ScalarKind::Float), c);
    EXPECT_EQ(promote_with_scalar(c, ScalarKind::Int), c);
    EXPECT_FALSE(promotable(c, DType::UInt32));
  }
  EXPECT_EQ(dtype_size(DType::Complex64), 8u);
  EXPECT_EQ(dtype_size(DType::Complex128), 16u);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Float32), DType::Complex64);
  EXPECT_EQ(promote_types(DType::Float16, DType::Complex64), DType::Complex64);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Float64), DType::Complex128);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Complex128), DType::Complex128);
  EXPECT_EQ(complex_part_dtype(DType::Complex64), DType::Float32);
  EXPECT_EQ(complex_dtype_of(DType::Float64), DType::Complex128);
}

TEST(DType, ComplexCastsTakeTheRealPart) {
  const complex64 z(-3.75f, 2.5f);
  EXPECT_EQ((saturate_cast<int8_t>(z)), -3);
  EXPECT_EQ((saturate_cast<float>(z)), -3.75f);
  EXPECT_EQ((saturate_cast<uint8_t>(complex64(300.f, 0.f))), 255);
  EXPECT_TRUE((saturate_cast<bool>(complex64(0.f, 1.f))));
  EXPECT_FALSE((saturate_cast<bool>(complex64(0.f, 0.f))));
  EXPECT_EQ((saturate_cast<complex128>(int16_t{-7})), complex128(-7.0, 0.0));
  EXPECT_EQ((saturate_cast<complex64>(complex128(0.1, -0.2))), complex64(0.1f, -0.2f));
}

TEST(DType, DispatchAllRefusesComplexWithTypeError) {
  try {
    dispatch_all(DType::Complex128, "Sigmoid", [](auto) { return 0; });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Type);
    EXPECT_NE(std::string(e.what()).find("For 'Sigmoid'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Complex128"), std::string::npos);
  }
  EXPECT_EQ(dispatch_any(DType::Complex64, "x",
                         [](auto tag) { return sizeof(typename decltype(tag)::type); }),
            8u);
}

TEST(DType, DispatchRejectsFamilyWithTypeError) {
  try {
    dispatch_float(DType::Int32, "Exp", [](auto) { return 0; });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Type);
    EXPECT_NE(std::string(e.what()).find("For 'Exp'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Int32"), std::string::npos);
  }
}

TEST(Allocator, ReusesFreedBlocksAndTracksPeak) {
  empty_cache();
  reset_peak_memory();
  int64_t base = allocator_stats().in_use;
  void* a = host_alloc(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_GE(allocator_stats().in_use - base, 1000);
  host_free(a, 1000);
  void* b = host_alloc(1000);
  EXPECT_EQ(a, b);  // same size class comes back from the cache
  host_free(b, 1000);
  EXPECT_EQ(allocator_stats().in_use, base);
  EXPECT_GE(allocator_stats().peak_in_use - base, 1000);
}

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswers) {
  Philox4 z = philox(0, 0, 0);
  EXPECT_EQ(z, (Philox4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  Philox4 f = philox(~0ull, ~0ull, ~0ull);
  EXPECT_EQ(f, (Philox4{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  // key (0xa4093822, 0x299f31d0), counter (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)
  Philox4 p = philox(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull);
  EXPECT_EQ(p, (Philox4{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, GlobalStreamsAdvanceAndReseed) {
  set_global_seed(7);
  RandomStream a = next_random_stream(0, 0, 100);
  RandomStream b = next_random_stream(0, 0, 100);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(b.offset, a.offset + 100);
  set_global_seed(7);
  RandomStream c = next_random_stream(0, 0, 100);
  EXPECT_EQ(c.offset, a.offset);
  RandomStream s1 = next_random_stream(3, 4, 100), s2 = next_random_stream(3, 4, 100);
  EXPECT_EQ(s1.key, s2.key);
  EXPECT_EQ(s1.offset, s2.offset);
  EXPECT_NE(next_random_stream(3, 5, 1).key, s1.key);
}

TEST(Philox, UniformsAreInRange) {
  std::set<uint32_t> seen;
  for (uint64_t i = 0; i < 1000; ++i) {
    Philox4 r = philox(42, 0, i);
    float u = uniform_float(r[0]);
    EXPECT_GE(u, 0.0f);
    EXPECT_LT(u, 1.0f);
    double d = uniform_double(r[1], r[2]);
    EXPECT_GE(d, 0.0);
    EXPECT_LT(d, 1.0);
    seen.insert(r[3]);
  }
  EXPECT_GT(seen.size(), 990u);
}

}  // namespace
}  // namespace mycel
