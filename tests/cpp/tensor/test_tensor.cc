// Tensor layout, views, copies and casts.
#include <gtest/gtest.h>

#include <cmath>

#include "tensor/tensor.h"

namespace mycel {
namespace {

Tensor iota(const Shape& shape, DType dt = DType::Float32) {
  Tensor t = Tensor::empty(shape, DType::Float64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = static_cast<double>(i);
  return t.cast(dt);
}

TEST(Tensor, EmptyZerosFull) {
  Tensor t = Tensor::zeros({2, 3}, DType::Float32);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.element_as_double(5), 0.0);
  Tensor f = Tensor::full({4}, Scalar::from_float(2.5), DType::Float16);
  EXPECT_EQ(f.element_as_double(3), 2.5);
  Tensor z = Tensor::empty({0, 3}, DType::Int32);
  EXPECT_EQ(z.numel(), 0);
  Tensor s = Tensor::scalar(Scalar::from_int(7), DType::Int64);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.item().to_int(), 7);
}

TEST(Tensor, NegativeDimensionIsAValueError) {
  try {
    Tensor::empty({2, -1}, DType::Float32);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
  }
}

TEST(Tensor, ReshapeOfContiguousIsAView) {
  Tensor t = iota({2, 6});
  Tensor v = t.reshape({3, -1});
  EXPECT_EQ(v.shape(), (Shape{3, 4}));
  EXPECT_EQ(v.storage(), t.storage());
  EXPECT_EQ(v.element_as_double(7), 7.0);
}

TEST(Tensor, ReshapeOfTransposedCopies) {
  Tensor t = iota({2, 3}).permute({1, 0});
  EXPECT_FALSE(t.is_contiguous());
  Tensor r = t.reshape({6});
  EXPECT_NE(r.storage(), t.storage());
  // Transposed order: 0 3 1 4 2 5
  double want[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.element_as_double(i), want[i]);
  EXPECT_THROW(t.view({6}), Error);
}

TEST(Tensor, ViewMergesAndSplitsCompatibleDims) {
  Tensor t = iota({4, 6}).slice(1, 0, 6, 1);  // contiguous
  EXPECT_NO_THROW(t.view({2, 2, 3, 2}));
  Tensor s = iota({4, 6}).slice(0, 0, 4, 2);  // rows 0 and 2: stride 12
  Tensor v = s.view({2, 2, 3});
  EXPECT_EQ(v.element_as_double(3), 3.0);   // row 0, element 3
  EXPECT_EQ(v.element_as_double(9), 15.0);  // row 2, element 3
}

TEST(Tensor, BadReshapeNamesShapes) {
  try {
    iota({2, 3}).reshape({4, 2});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[4, 2]"), std::string::npos);
  }
}

TEST(Tensor, PermuteRejectsRepeatedAxes) {
  try {
    iota({2, 3, 4}).permute({0, 1, 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("repeats axis"), std::string::npos);
  }
}

TEST(Tensor, SliceWithNegativeStep) {
  Tensor t = iota({5});
  Tensor r = t.slice(0, 4, -1, -2);  // 4, 2, 0
  EXPECT_EQ(r.numel(), 3);
  EXPECT_EQ(r.element_as_double(0), 4.0);
  EXPECT_EQ(r.element_as_double(2), 0.0);
  EXPECT_EQ(r.contiguous().element_as_double(1), 2.0);
}

TEST(Tensor, ExpandAndCopyBroadcast) {
  Tensor row = iota({1, 3});
  Tensor e = row.expand({4, 3});
  EXPECT_EQ(e.strides()[0], 0);
  Tensor dst = Tensor::empty({4, 3}, DType::Int32);
  dst.copy_from(row);
  EXPECT_EQ(dst.element_as_double(10), 1.0);
  EXPECT_THROW(row.expand({4, 2}), Error);
}

TEST(Tensor, CastConvertsEveryPair) {
  for (DType a : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                  DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    for (DType b : {DType::Int32, DType::Float32, DType::Float16, DType::Bool}) {
      Tensor t = iota({5}, a).cast(b);
      EXPECT_EQ(t.dtype(), b);
      double want = a == DType::Bool ? 1.0 : 4.0;  // iota(5) in bool is 0,1,1,1,1
      if (b == DType::Bool) want = 1.0;
      EXPECT_EQ(t.element_as_double(4), want) << a << " -> " << b;
    }
  }
}

TEST(Tensor, HalfAndBFloat16RoundTrip) {
  // Exactly representable: zero, ones, the largest finite, the smallest normal and subnormal.
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f, 0x1p-24f}) {
    EXPECT_EQ(static_cast<float>(float16(v)), v) << v;
  }
  EXPECT_EQ(static_cast<float>(float16(3.0e-8f)), 0x1p-24f);  // rounds up to the subnormal
  EXPECT_EQ(static_cast<float>(float16(2.0e-8f)), 0.0f);      // below half of it: zero
  EXPECT_TRUE(std::isinf(static_cast<float>(float16(70000.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16(NAN))));
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f)), 1.0f);
  EXPECT_EQ(static_cast<float>(bfloat16(3.140625f)), 3.140625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(NAN))));
  // Round to nearest even: 1 + 2^-8 is halfway between bfloat16 neighbours 1 and 1 + 2^-7.
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + 0x1p-8f)), 1.0f);
}

TEST(Tensor, ItemNeedsOneElement) {
  EXPECT_THROW(iota({2}).item(), Error);
  EXPECT_EQ(iota({1, 1}).item().to_double(), 0.0);
}

TEST(Tensor, PrintsLikeMindSpore) {
  Tensor t = Tensor::empty({3}, DType::Float32);
  float v[] = {4, 10, 18};
  std::copy(v, v + 3, t.data<float>());
  EXPECT_EQ(t.to_string(), "[ 4. 10. 18.]");
  EXPECT_EQ(t.repr(),
            "Tensor(shape=[3], dtype=Float32, value= [ 4.00000000e+00,  1.00000000e+01,  "
            "1.80000000e+01])");
}

}  // namespace
}  // namespace mycel
