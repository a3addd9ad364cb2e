// Checked size arithmetic (tensor/size.h) and its users: Tensor construction, the inference
// of ops that multiply or add dimensions, and reshape targets.
#include <gtest/gtest.h>

#include <string>

#include "runtime/eager.h"
#include "tensor/size.h"
#include "tensor/tensor.h"

namespace mycel {
namespace {

constexpr int64_t k62 = int64_t{1} << 62;

// The message of the ValueError f throws; fails the test if it throws nothing else.
template <class F>
std::string value_error(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value) << e.message();
    return e.message();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(CheckedSize, CountsAndBytes) {
  EXPECT_EQ(checked_numel({}, "t"), 1);
  EXPECT_EQ(checked_numel({2, 3, 4}, "t"), 24);
  EXPECT_EQ(checked_nbytes({2, 3}, 8, "t"), 48);
  EXPECT_EQ(checked_numel({k62, 1}, "t"), k62);
  EXPECT_EQ(checked_nbytes({k62}, 1, "t"), k62);
  EXPECT_EQ(checked_nbytes({INT64_MAX}, 1, "t"), INT64_MAX);
  // A 0 anywhere: 0 elements, however large the other dimensions (as numpy).
  EXPECT_EQ(checked_numel({k62, k62, 0}, "t"), 0);
  EXPECT_EQ(checked_nbytes({0, k62, k62}, 8, "t"), 0);
}

TEST(CheckedSize, OverflowAndNegativeAreValueErrorsNamingWhat) {
  EXPECT_NE(value_error([] {
              checked_numel({k62, 4}, "Tile");
            }).find("For 'Tile'"),
            std::string::npos);
  value_error([] { checked_numel({int64_t{1} << 32, int64_t{1} << 32}, "t"); });
  value_error([] { checked_numel({3, int64_t{1} << 32, int64_t{1} << 32}, "t"); });
  EXPECT_NE(value_error([] { checked_nbytes({k62}, 4, "Fill"); }).find("byte size"),
            std::string::npos);
  value_error([] { checked_nbytes({INT64_MAX}, 2, "t"); });
  EXPECT_NE(value_error([] { checked_numel({2, -3}, "t"); }).find("negative"), std::string::npos);
  value_error([] { checked_mul(k62, 4, "t"); });
  value_error([] { checked_add(INT64_MAX, 1, "t"); });
  EXPECT_EQ(checked_mul(k62, 1, "t"), k62);
  EXPECT_EQ(checked_add(k62, k62 - 1, "t"), INT64_MAX);
}

TEST(CheckedSize, TensorEmptyRejectsSizesThatWrap) {
  // 2**62 float32 elements are 2**64 bytes: the unchecked product wrapped to a 0-byte buffer.
  value_error([] { Tensor::empty({k62}, DType::Float32); });
  value_error([] { Tensor::zeros({int64_t{1} << 32, int64_t{1} << 32}, DType::Float32); });
  EXPECT_EQ(Tensor::empty({0, k62}, DType::Float32).numel(), 0);
}

TEST(CheckedSize, StridesOfEmptyShapesWithHugeDimensionsSaturate) {
  // [0, 2^62, 2^62] is a valid empty shape; its contiguous strides must not overflow (UB).
  Shape st = contiguous_strides({0, k62, k62});
  EXPECT_EQ(st[2], 1);
  EXPECT_EQ(st[1], k62);
  EXPECT_EQ(st[0], INT64_MAX);
  Tensor t = Tensor::empty({0, k62, k62}, DType::Float32);
  EXPECT_EQ(t.numel(), 0);
}

TEST(CheckedSize, ReshapeTargetsThatWrap) {
  // (2**62 + 3) * 4 wraps to 12.
  value_error([] { infer_reshape({12}, {k62 + 3, 4}, "Reshape"); });
  value_error([] { infer_reshape({12}, {k62, k62, -1}, "Reshape"); });
  EXPECT_EQ(infer_reshape({0}, {k62, k62, 0}, "Reshape"), (Shape{k62, k62, 0}));
}

TEST(CheckedSize, InferenceOfEveryOpChecksItsOutputs) {
  Tensor x = Tensor::zeros({4}, DType::Float32);
  Attrs tile;
  tile.set("multiples", std::vector<int64_t>{k62});
  // Tile's 4 * 2**62 wrapped to a (0,) shape.
  value_error([&] { run_op1(OpId::Tile, {x}, tile); });
  Attrs fill;
  fill.set("shape", std::vector<int64_t>{k62});
  fill.set("dtype", DType::Float32);
  fill.set("value", 0.0);
  EXPECT_NE(value_error([&] { run_op1(OpId::Fill, {}, fill); }).find("Fill"), std::string::npos);
  Attrs pad;
  pad.set("paddings", std::vector<int64_t>{INT64_MAX, 1});
  value_error([&] { run_op1(OpId::Pad, {x}, pad); });
  // A variadic op on no inputs: the same error from infer_op as from the eager dispatcher.
  TensorMeta none[1];
  Attrs cat;
  cat.set("axis", int64_t{0});
  EXPECT_NE(value_error([&] {
              infer_op(op_def(OpId::Concat), std::span<const TensorMeta>(none, 0),
                       make_attrs(op_def(OpId::Concat), cat));
            }).find("must not be empty"),
            std::string::npos);
}

}  // namespace
}  // namespace mycel
