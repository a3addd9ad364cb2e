// The lowering of x[index] (ops/indexing.h), which PYNATIVE and GRAPH share: the StridedSlice
// entries and masks, the Gather axis, the axes a False empties, and the errors.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ops/indexing.h"

namespace mycel {
namespace {

using Kind = IndexItem::Kind;

IndexItem int_item(int64_t v) {
  IndexItem it;
  it.kind = Kind::Int;
  it.value = v;
  return it;
}
IndexItem slice_item(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  IndexItem it;
  it.kind = Kind::Slice;
  it.has_start = start.has_value();
  it.has_stop = stop.has_value();
  it.start = start.value_or(0);
  it.stop = stop.value_or(0);
  it.step = step;
  return it;
}
IndexItem kind_item(Kind k, int64_t v = 0) {
  IndexItem it;
  it.kind = k;
  it.value = v;
  return it;
}
IndexItem tensor_item(DType t, Shape shape) {
  IndexItem it;
  it.kind = Kind::Tensor;
  it.dtype = t;
  it.shape = shape;
  return it;
}

// The message and kind of the error lower_index raises.
std::pair<ErrorKind, std::string> error_of(const Shape& x, const std::vector<IndexItem>& items) {
  try {
    lower_index(x, items);
  } catch (const Error& e) {
    return {e.kind(), e.message()};
  }
  return {ErrorKind::Internal, "no error"};
}

TEST(Indexing, BasicItemsAreOneStridedSlice) {
  // x[1, ::-2, None, ...] on (4, 5, 6, 3)
  IndexPlan p =
      lower_index({4, 5, 6, 3}, std::vector{int_item(-3), slice_item({}, {}, -2),
                                            kind_item(Kind::NewAxis), kind_item(Kind::Ellipsis)});
  ASSERT_TRUE(p.slice);
  EXPECT_EQ(p.begin, Shape({1, 0, 0, 0}));  // the int normalised
  EXPECT_EQ(p.strides, Shape({1, -2, 1, 1}));
  EXPECT_EQ(p.shrink_axis_mask, 0b0001);
  EXPECT_EQ(p.begin_mask, 0b0010);
  EXPECT_EQ(p.end_mask, 0b0010);
  EXPECT_EQ(p.new_axis_mask, 0b0100);
  EXPECT_EQ(p.ellipsis_mask, 0b1000);
  EXPECT_EQ(p.spec.out_shape, Shape({3, 1, 6, 3}));
  EXPECT_EQ(p.gather, IndexPlan::Gather::None);
  // The attributes are StridedSlice's, complete.
  Attrs a = make_attrs(op_def(OpId::StridedSlice), p.slice_attrs());
  EXPECT_EQ(strided_slice_spec({4, 5, 6, 3}, a, "StridedSlice").out_shape, p.spec.out_shape);
}

TEST(Indexing, NoSliceWithoutBasicItems) {
  EXPECT_FALSE(lower_index({3, 4}, std::vector<IndexItem>{}).slice);
  EXPECT_FALSE(lower_index({3, 4}, std::vector{kind_item(Kind::Ellipsis)}).slice);
  IndexPlan p = lower_index({3, 4}, std::vector{tensor_item(DType::Int32, {2, 2})});
  EXPECT_FALSE(p.slice);
  EXPECT_EQ(p.gather, IndexPlan::Gather::Index);
  EXPECT_EQ(p.axis, 0);
}

TEST(Indexing, IntegerTensorGathersAlongTheAxisItsSliceBecame) {
  // x[None, 1:, ..., t] on (5, 4, 3): t indexes the last axis, which is axis 3 of the
  // sliced result (1, 4, 4, 3).
  IndexPlan p = lower_index({5, 4, 3},
                            std::vector{kind_item(Kind::NewAxis), slice_item(1, {}, 1),
                                        kind_item(Kind::Ellipsis), tensor_item(DType::Int64, {2})});
  EXPECT_EQ(p.gather, IndexPlan::Gather::Index);
  EXPECT_EQ(p.items.size(), 1u);
  EXPECT_EQ(p.items[0], 3u);
  EXPECT_EQ(p.axis, 3);
  EXPECT_FALSE(p.flat);
  EXPECT_EQ(p.spec.out_shape, Shape({1, 4, 4, 3}));
  // An int before the tensor removes its axis: x[1, t] gathers along axis 0.
  EXPECT_EQ(lower_index({5, 4}, std::vector{int_item(1), tensor_item(DType::Int32, {})}).axis, 0);
}

TEST(Indexing, SeveralIntegerTensorsIndexTogether) {
  // x[t1, :, t2] on (5, 4, 3), t1 (2, 1) and t2 (6,): numpy puts B = (2, 6) first (the
  // tensors are apart); the sliced result is x itself, axes 0 and 2 brought first.
  IndexPlan p =
      lower_index({5, 4, 3}, std::vector{tensor_item(DType::Int32, {2, 1}), slice_item({}, {}, 1),
                                         tensor_item(DType::Int64, {6})});
  EXPECT_EQ(p.gather, IndexPlan::Gather::Index);
  EXPECT_TRUE(p.flat && p.front);
  EXPECT_EQ(p.index_shape, Shape({2, 6}));
  EXPECT_EQ(p.perm, Shape({0, 2, 1}));
  EXPECT_EQ(p.flat_shape, Shape({15, 4}));
  EXPECT_EQ(p.flat_strides, Shape({3, 1}));
  EXPECT_TRUE(p.back_perm.empty());
  // x[:, t1, t2] on (5, 4, 3): next to each other, so B = (2, 6) replaces axes 1 and 2.
  IndexPlan q =
      lower_index({5, 4, 3}, std::vector{slice_item({}, {}, 1), tensor_item(DType::Int32, {2, 1}),
                                         tensor_item(DType::Int64, {6})});
  EXPECT_FALSE(q.front);
  EXPECT_EQ(q.axis, 1);
  EXPECT_EQ(q.perm, Shape({1, 2, 0}));
  EXPECT_EQ(q.flat_shape, Shape({12, 5}));
  EXPECT_EQ(q.back_perm, Shape({2, 0, 1}));  // (2, 6, 5) -> (5, 2, 6)
  // x[0, :, t] on (2, 3, 4): the int counts as an advanced index, apart from t: B first.
  IndexPlan r = lower_index(
      {2, 3, 4}, std::vector{int_item(0), slice_item({}, {}, 1), tensor_item(DType::Int64, {5})});
  EXPECT_TRUE(r.flat && r.front);
  EXPECT_EQ(r.axes, (SmallVector<int64_t, 4>{1}));
  // x[t, 0] stays one Gather along axis 0.
  EXPECT_FALSE(lower_index({2, 3}, std::vector{tensor_item(DType::Int64, {5}), int_item(0)}).flat);
}

TEST(Indexing, MaskFlattensTheLeadingAxes) {
  IndexPlan p = lower_index({5, 4, 3}, std::vector{tensor_item(DType::Bool, {5, 4}), int_item(2)});
  EXPECT_EQ(p.gather, IndexPlan::Gather::Mask);
  EXPECT_EQ(p.mask_rank, 2);
  EXPECT_EQ(p.spec.out_shape, Shape({5, 4}));
  // After an int, the mask covers the axes that follow it.
  EXPECT_EQ(
      lower_index({5, 4, 3}, std::vector{int_item(0), tensor_item(DType::Bool, {4})}).mask_rank, 1);
}

TEST(Indexing, FalseEmptiesItsAxis) {
  IndexPlan p = lower_index({4}, std::vector{kind_item(Kind::Bool, 1), kind_item(Kind::Bool, 0)});
  EXPECT_EQ(p.spec.out_shape, Shape({1, 1, 4}));
  EXPECT_EQ(std::vector<int64_t>(p.empty_axes.begin(), p.empty_axes.end()),
            std::vector<int64_t>{1});
}

TEST(Indexing, ErrorsAreNumpysIndexErrors) {
  using V = std::vector<IndexItem>;
  auto [k1, m1] = error_of({3, 4}, V{int_item(3)});
  EXPECT_EQ(k1, ErrorKind::Index);
  EXPECT_EQ(m1, "index 3 is out of bounds for dimension 0 with size 3.");
  EXPECT_EQ(error_of({3, 4}, V{int_item(0), int_item(-5)}).second,
            "index -5 is out of bounds for dimension 1 with size 4.");
  IndexItem big = int_item(0);
  big.text = "100000000000000000000";
  EXPECT_EQ(error_of({3}, V{big}).second,
            "index 100000000000000000000 is out of bounds for dimension 0 with size 3.");
  EXPECT_EQ(error_of({3, 4}, V{int_item(0), int_item(0), int_item(0)}).second,
            "too many indices for a tensor of dimension 2: got 3.");
  EXPECT_EQ(error_of({3, 4}, V{kind_item(Kind::Ellipsis), kind_item(Kind::Ellipsis)}).second,
            "an index can only have a single ellipsis ('...').");
  EXPECT_EQ(
      error_of({3, 4}, V{tensor_item(DType::Int64, {2}), tensor_item(DType::Int64, {3})}).second,
      "shape mismatch: indexing tensors could not be broadcast together with shapes [2] "
      "[3].");
  EXPECT_EQ(
      error_of({3, 4}, V{tensor_item(DType::Bool, {3}), tensor_item(DType::Int64, {2})}).second,
      "a bool mask index cannot be combined with other tensor indices.");
  EXPECT_EQ(error_of({3, 4}, V{tensor_item(DType::Float32, {2})}).second,
            "tensors used as indices must be integer or bool tensors, but got Float32.");
  EXPECT_EQ(error_of({3, 4}, V{slice_item({}, {}, 1), tensor_item(DType::Bool, {4})}).second,
            "a bool mask index must come first (it masks the leading dimensions).");
  auto [k2, m2] = error_of({3, 4}, V{tensor_item(DType::Bool, {3, 5})});
  EXPECT_EQ(k2, ErrorKind::Index);
  EXPECT_NE(m2.find("does not match the indexed tensor"), std::string::npos) << m2;
  EXPECT_EQ(error_of({3}, V{slice_item({}, {}, 0)}).first, ErrorKind::Value);
}

}  // namespace
}  // namespace mycel
