// Numerical checks of the array family's backward rules (see test_bprop_util.h), and of
// the rule table: NODIFF ops have no rule.
#include <set>

#include "test_bprop_util.h"

namespace mycel::bproptest {
namespace {

using V = std::vector<int64_t>;

Attrs at(const char* k, AttrValue v) {
  Attrs a;
  a.set(k, std::move(v));
  return a;
}
Attrs with(Attrs a, const char* k, AttrValue v) {
  a.set(k, std::move(v));
  return a;
}
Attrs slice(V b, V e, V s) { return with(with(at("begin", b), "end", e), "strides", s); }

}  // namespace

std::vector<Case> array_cases() {
  std::vector<Case> c;
  c.push_back(C("Reshape", OpId::Reshape, {f64({2, 3, 4})}, at("shape", V{6, 4})));
  c.push_back(C("Transpose", OpId::Transpose, {f64({2, 3, 4})}, at("perm", V{2, 0, 1})));
  c.push_back(C("Transpose_neg", OpId::Transpose, {f64({2, 3, 4})}, at("perm", V{-1, 0, -2})));
  c.push_back(C("ExpandDims", OpId::ExpandDims, {f64({2, 3})}, at("axis", int64_t{1})));
  c.push_back(C("Squeeze", OpId::Squeeze, {f64({2, 1, 3, 1})}, at("axis", V{1})));
  c.push_back(C("Squeeze_all", OpId::Squeeze, {f64({2, 1, 3, 1})}));
  c.push_back(C("Flatten", OpId::Flatten, {f64({2, 3, 4})}));
  c.push_back(C("BroadcastTo_row", OpId::BroadcastTo, {f64({3})}, at("shape", V{2, 3})));
  c.push_back(
      C("BroadcastTo_mid", OpId::BroadcastTo, {f64({2, 1, 3})}, at("shape", V{4, 2, 5, 3})));
  c.push_back(C("StridedSlice", OpId::StridedSlice, {f64({3, 4})}, slice({0, 1}, {2, 3}, {1, 1})));
  c.push_back(
      C("StridedSlice_step", OpId::StridedSlice, {f64({5, 6})}, slice({0, 5}, {5, 0}, {2, -2})));
  c.push_back(C("StridedSlice_masks", OpId::StridedSlice, {f64({3, 4, 2})},
                with(with(slice({1, 0, 0}, {2, 3, 2}, {1, 1, 1}), "shrink_axis_mask", int64_t{1}),
                     "end_mask", int64_t{2})));
  c.push_back(C("StridedSliceGrad", OpId::StridedSliceGrad, {f64({2, 2})},
                with(slice({0, 1}, {2, 3}, {1, 1}), "shapex", V{3, 4})));
  c.push_back(C("Concat_axis0", OpId::Concat, {f64({2, 3}), f64({1, 3}), f64({3, 3})}));
  c.push_back(
      C("Concat_axis_neg", OpId::Concat, {f64({2, 1}), f64({2, 4})}, at("axis", int64_t{-1})));
  c.push_back(C("Stack_axis0", OpId::Stack, {f64({2, 3}), f64({2, 3}), f64({2, 3})}));
  c.push_back(
      C("Stack_axis_last", OpId::Stack, {f64({2, 3}), f64({2, 3})}, at("axis", int64_t{-1})));
  c.push_back(C("Split_axis1", OpId::Split, {f64({2, 6})},
                with(at("axis", int64_t{1}), "output_num", int64_t{3})));
  c.push_back(
      C("Split_one_weighed", OpId::Split, {f64({4, 3})}, at("output_num", int64_t{2}), {1}));
  c.push_back(C("Tile", OpId::Tile, {f64({2, 3})}, at("multiples", V{2, 1})));
  c.push_back(C("Tile_rank_up", OpId::Tile, {f64({2, 3})}, at("multiples", V{2, 3, 2})));
  c.push_back(C("Pad", OpId::Pad, {f64({2, 3})}, at("paddings", V{1, 0, 2, 1})));
  c.push_back(C("Gather_axis0", OpId::Gather,
                {f64({5, 3}), fixed(ints(DType::Int32, {2, 2}, {4, 0, 4, 2}))}));
  c.push_back(C("Gather_axis1", OpId::Gather,
                {f64({2, 5, 3}), fixed(ints(DType::Int64, {3}, {1, 4, 1}))},
                at("axis", int64_t{1})));
  c.push_back(C("Gather_axis_last_2d_idx", OpId::Gather,
                {f64({2, 4}), fixed(ints(DType::Int32, {2, 3}, {0, 3, 3, 1, 0, 2}))},
                at("axis", int64_t{-1})));
  c.push_back(C("GatherD_dim1", OpId::GatherD,
                {f64({3, 4}), fixed(ints(DType::Int64, {3, 2}, {0, 3, 3, 3, 1, 2}))},
                at("dim", int64_t{1})));
  c.push_back(C("GatherD_dim0", OpId::GatherD,
                {f64({3, 4}), fixed(ints(DType::Int32, {2, 4}, {0, 2, 2, 1, 1, 1, 0, 2}))},
                at("dim", int64_t{0})));
  c.push_back(C("GatherDGrad", OpId::GatherDGrad,
                {fixed(ints(DType::Int64, {3, 2}, {0, 3, 3, 3, 1, 2})), f64({3, 2})},
                with(at("dim", int64_t{1}), "shape", V{3, 4})));
  c.push_back(C("UnsortedSegmentSum", OpId::UnsortedSegmentSum,
                {f64({4, 3}), fixed(ints(DType::Int32, {4}, {0, 2, 0, 1}))},
                at("num_segments", int64_t{3})));
  // ids outside [0, n) are skipped by the forward and get no gradient
  c.push_back(C("UnsortedSegmentSum_skipped_ids", OpId::UnsortedSegmentSum,
                {f64({2, 3, 2}), fixed(ints(DType::Int64, {2, 3}, {0, -1, 3, 1, 2, 5}))},
                at("num_segments", int64_t{3})));
  c.push_back(C("ScatterNd", OpId::ScatterNd,
                {fixed(ints(DType::Int32, {2, 2}, {0, 1, 2, 0})), f64({2, 4})},
                at("shape", V{3, 2, 4})));
  c.push_back(C("ScatterNd_full_index", OpId::ScatterNd,
                {fixed(ints(DType::Int64, {3, 2}, {0, 1, 2, 0, 1, 1})), f64({3})},
                at("shape", V{3, 2})));
  c.push_back(C("TensorScatterUpdate", OpId::TensorScatterUpdate,
                {f64({3, 4}), fixed(ints(DType::Int32, {2, 1}, {2, 0})), f64({2, 4})}));
  c.push_back(C("TensorScatterUpdate_elems", OpId::TensorScatterUpdate,
                {f64({3, 4}), fixed(ints(DType::Int64, {2, 2}, {1, 3, 0, 0})), f64({2})}));
  const Tensor mask = ints(DType::Bool, {3, 4}, {1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1});
  c.push_back(C("MaskedSelect", OpId::MaskedSelect, {f64({3, 4}), fixed(mask)}));
  c.push_back(C("MaskedSelect_broadcast", OpId::MaskedSelect,
                {f64({4}), fixed(ints(DType::Bool, {3, 1}, {1, 0, 1}))}));
  c.push_back(C("MaskedScatter", OpId::MaskedScatter, {f64({3, 4}), fixed(mask), f64({9})}));
  c.push_back(C("MaskedScatter_broadcast", OpId::MaskedScatter,
                {f64({3, 4}), fixed(ints(DType::Bool, {4}, {0, 1, 1, 0})), f64({2, 4})}));
  return c;
}

namespace {

class BpropArray : public testing::TestWithParam<Case> {};
TEST_P(BpropArray, MatchesFiniteDifferences) { check_case(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Bprop, BpropArray, testing::ValuesIn(array_cases()), case_name);

// NODIFF ops have no rule and every DIFF op has one.
TEST(BpropTable, NodiffOpsHaveNoRule) {
  std::string missing;
  for (const OpDef& op : op_table()) {
    ir::BpropFn f = ir::bprop_rule(op.id);
    if (op.grad == Grad::NODIFF) {
      EXPECT_EQ(f, nullptr) << op.name << " is NODIFF";
    }
    if (op.grad == Grad::DIFF && f == nullptr) missing.append(" ").append(op.name);
  }
  EXPECT_TRUE(missing.empty()) << "DIFF ops without a bprop rule:" << missing;
}

// Every op with a rule has at least one finite-difference case in a family's table, but
// Dropout, whose forward draws a new mask each run (BpropNNDropout checks its rule instead),
// and the communication ops, whose gradients sum over other processes' losses: their rules
// are checked on real ranks against analytic gradients (tests/python/test_collective_ops.py,
// test_pipeline_p2p.py).
TEST(BpropTable, EveryRuleHasAFiniteDifferenceCase) {
  std::set<OpId> covered{OpId::Dropout,  OpId::AllReduce, OpId::AllGather, OpId::ReduceScatter,
                         OpId::AlltoAll, OpId::Broadcast, OpId::Send,      OpId::Receive};
  for (auto* family : {elementwise_cases, reduce_cases, linalg_cases, nn_cases, array_cases}) {
    for (const Case& c : family()) covered.insert(c.op);
  }
  std::string missing;
  for (const OpDef& op : op_table()) {
    if (op.grad == Grad::DIFF && !covered.count(op.id)) missing.append(" ").append(op.name);
  }
  EXPECT_TRUE(missing.empty()) << "rules without a finite-difference case:" << missing;
}

}  // namespace
}  // namespace mycel::bproptest
