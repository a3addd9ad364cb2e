// kernels/broadcast_pair.h, the host helpers of the CPU and CUDA MaskedSelect/MaskedScatter
// kernels, on host tensors: the common shape, the broadcast values (against the index
// arithmetic of broadcasting), no copy of an operand already of that shape, and a Value
// error naming the op for shapes that cannot broadcast.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "base/error.h"
#include "kernels/broadcast_pair.h"

namespace mycel {
namespace {

Tensor iota(Shape s, DType dt) {
  Tensor t = Tensor::empty(s, DType::Float64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = static_cast<double>(i + 1);
  return t.cast(dt);
}

TEST(BroadcastPair, BothBroadcastToTheCommonShape) {
  const Tensor x = iota({4}, DType::Float32);      // x[j] = j + 1
  const Tensor m = iota({2, 3, 1}, DType::Int64);  // m[a, b, 0] = 3a + b + 1
  const auto [bx, bm] = broadcast_pair(x, m, "MaskedSelect");
  const Shape want{2, 3, 4};
  EXPECT_EQ(bx.shape(), want);
  EXPECT_EQ(bm.shape(), want);
  EXPECT_TRUE(bx.is_contiguous());
  EXPECT_TRUE(bm.is_contiguous());
  EXPECT_EQ(bx.dtype(), DType::Float32);
  EXPECT_EQ(bm.dtype(), DType::Int64);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t j = 0; j < 4; ++j) {
        const int64_t flat = (a * 3 + b) * 4 + j;
        EXPECT_EQ(bx.element_as_double(flat), static_cast<double>(j + 1)) << flat;
        EXPECT_EQ(bm.element_as_double(flat), static_cast<double>(3 * a + b + 1)) << flat;
      }
}

TEST(BroadcastPair, AnOperandOfTheCommonShapeIsNotCopied) {
  const Tensor x = iota({3, 5}, DType::Float64);
  const Tensor m = iota({5}, DType::Bool);
  const auto [bx, bm] = broadcast_pair(x, m, "MaskedScatter");
  EXPECT_EQ(bx.storage(), x.storage());
  EXPECT_NE(bm.storage(), m.storage());
  EXPECT_EQ(bm.shape(), (Shape{3, 5}));
  const auto [sx, sm] = broadcast_pair(x, x, "MaskedScatter");
  EXPECT_EQ(sx.storage(), x.storage());
  EXPECT_EQ(sm.storage(), x.storage());
}

TEST(BroadcastPair, ExpandedToOneShape) {
  const Tensor m = iota({3, 1}, DType::Int32);  // m[a, 0] = a + 1
  const Tensor e = expanded_to(m, {2, 3, 4}, "MaskedScatter");
  EXPECT_EQ(e.shape(), (Shape{2, 3, 4}));
  EXPECT_TRUE(e.is_contiguous());
  for (int64_t i = 0; i < e.numel(); ++i)
    EXPECT_EQ(e.element_as_double(i), static_cast<double>((i / 4) % 3 + 1)) << i;
  EXPECT_EQ(expanded_to(m, {3, 1}, "MaskedScatter").storage(), m.storage());
  try {
    expanded_to(m, {2, 4}, "MaskedScatter");
    FAIL() << "no error";
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::Value);
    EXPECT_NE(err.message().find("MaskedScatter"), std::string::npos) << err.message();
  }
}

TEST(BroadcastPair, ZeroDimensionalAndEmpty) {
  const auto [a, b] = broadcast_pair(iota({}, DType::Float32), iota({2, 2}, DType::Bool), "Op");
  EXPECT_EQ(a.shape(), (Shape{2, 2}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(a.element_as_double(i), 1.0);
  const auto [c, d] = broadcast_pair(iota({0, 3}, DType::Float32), iota({3}, DType::Bool), "Op");
  EXPECT_EQ(c.shape(), (Shape{0, 3}));
  EXPECT_EQ(d.shape(), (Shape{0, 3}));
}

TEST(BroadcastPair, ShapesThatCannotBroadcastAreAValueErrorNamingTheOp) {
  try {
    broadcast_pair(iota({2, 3}, DType::Float32), iota({4}, DType::Bool), "MaskedSelect");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(e.message().find("MaskedSelect"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("cannot broadcast"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace mycel
