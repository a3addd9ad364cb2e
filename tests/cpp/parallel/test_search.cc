// The strategy search's parts that need no program: the enumeration of candidate strategies
// per rule family (strategies.h) and the cost model's formulas (cost_model.h), each against
// hand computations. The searches themselves are tested on real programs from Python
// (tests/python/test_auto_parallel*.py: golden plans, sanity, training equal to serial).
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/op_table.h"
#include "parallel/cost_model.h"
#include "parallel/strategies.h"
#include "parallel_test_util.h"

namespace mycel::parallel {
namespace {

Attrs attrs_of(OpId op, const Attrs& given = {}) { return make_attrs(op_def(op), given); }

bool has(const std::vector<Strategy>& v, const Strategy& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(Strategies, SearchMeshIsThePrimeFactorsAscending) {
  EXPECT_EQ(search_mesh(1).shape(), Shape({1}));
  EXPECT_EQ(search_mesh(8).shape(), Shape({2, 2, 2}));
  EXPECT_EQ(search_mesh(12).shape(), Shape({2, 2, 3}));
  EXPECT_EQ(search_mesh(7).shape(), Shape({7}));
  EXPECT_NE(value_error([] { search_mesh(0); }).find("must be positive"), std::string::npos);
}

TEST(Strategies, MatMulCandidatesAreEveryFittingSplitOfMKN) {
  Attrs a = attrs_of(OpId::MatMul);
  OpCall call{OpId::MatMul, a, {{8, 6}, {6, 16}}, ""};
  std::vector<Strategy> c = enumerate_strategies(call, 4);
  EXPECT_EQ(c.front(), Strategy({{1, 1}, {1, 1}}));
  // (m, k, n) with m | 8, k | 6, n | 16 and m·k·n | 4: m, n in {1, 2, 4}, k in {1, 2}.
  // By hand: products 1 (1), 2 (3: m, k or n), 4 (m4, n4, m2n2, m2k2, k2n2): 9 in all.
  EXPECT_EQ(c.size(), 9u);
  EXPECT_TRUE(has(c, {{1, 1}, {1, 4}}));  // Megatron's column split
  EXPECT_TRUE(has(c, {{1, 2}, {2, 2}}));
  EXPECT_TRUE(has(c, {{4, 1}, {1, 1}}));   // data parallel
  EXPECT_FALSE(has(c, {{1, 4}, {4, 1}}));  // 6 is not divisible by 4
  // Lexicographic in (m, k, n): deterministic.
  EXPECT_EQ(c[1], Strategy({{1, 1}, {1, 2}}));
  EXPECT_EQ(enumerate_strategies(call, 4), c);
  // One device: the unsplit strategy only.
  EXPECT_EQ(enumerate_strategies(call, 1).size(), 1u);
}

TEST(Strategies, FamiliesKeepTheirDimensionsWhole) {
  Attrs sm;
  sm.set("axis", std::vector<int64_t>{-1});
  Attrs sa = attrs_of(OpId::Softmax, sm);
  OpCall softmax{OpId::Softmax, sa, {{4, 8}}, ""};
  std::vector<Strategy> c = enumerate_strategies(softmax, 8);
  for (const Strategy& s : c) EXPECT_EQ(s[0][1], 1) << strategy_str(s);  // the axis whole
  EXPECT_EQ(c.size(), 3u);                                               // rows in 1, 2 or 4
  Attrs ln;
  ln.set("begin_norm_axis", int64_t{1});
  ln.set("begin_params_axis", int64_t{1});
  Attrs la = attrs_of(OpId::LayerNorm, ln);
  OpCall layer_norm{OpId::LayerNorm, la, {{4, 8}, {8}, {8}}, ""};
  for (const Strategy& s : enumerate_strategies(layer_norm, 4)) {
    EXPECT_EQ(s[0][1], 1) << strategy_str(s);  // normalised dimension whole
    EXPECT_EQ(s[1], std::vector<int64_t>{1});
  }
}

TEST(Strategies, AtMostThreeMeshAxesAndNestingOnTheSearchMesh) {
  Attrs a = attrs_of(OpId::BatchMatMul);
  OpCall call{OpId::BatchMatMul, a, {{16, 16, 16}, {16, 16, 16}}, ""};
  for (const Strategy& s : enumerate_strategies(call, 16)) {
    LoopSpace l = loop_space(call, s);
    Shape m = device_matrix(call, l, 16);
    EXPECT_LE(std::count_if(m.begin(), m.end(), [](int64_t k) { return k > 1; }), kMaxStrategyAxes)
        << strategy_str(s);
  }
  // 12 devices lie on [2,2,3]: a split of 3 then 4 does not nest in it, 4 then 3 does.
  Attrs b = attrs_of(OpId::MatMul);
  OpCall mm{OpId::MatMul, b, {{12, 12}, {12, 12}}, ""};
  std::vector<Strategy> c = enumerate_strategies(mm, 12);
  EXPECT_TRUE(has(c, {{4, 1}, {1, 3}}));
  EXPECT_FALSE(has(c, {{3, 1}, {1, 4}}));
}

TEST(CostModel, CollectivesTakeTheBetterAlgorithm) {
  CostProfile p;
  p.alpha = 1e-3;
  p.beta = 1e-6;
  const double s = 1000;  // bytes per device, 1 ms to send whole
  // AllReduce over 4: ring 2·3·(1 + 0.25) = 7.5 ms, recursive doubling 2·(1 + 1) = 4 ms.
  EXPECT_NEAR(collective_seconds(MoveKind::AllReduce, 4, s, p), 4e-3, 1e-12);
  // Over 64 with 1 MB: ring 126·(1 + 1000/64) ms = 2094.75 ms, doubling 6·(1 + 1000) =
  // 6006 ms, halving-doubling 2·6·1 + 2·63/64·1000 = 1980.75 ms.
  EXPECT_NEAR(collective_seconds(MoveKind::AllReduce, 64, 1e6, p), 1980.75e-3, 1e-9);
  const std::vector<AlgorithmCost> ar = algorithm_seconds(MoveKind::AllReduce, 64, 1e6, p);
  ASSERT_EQ(ar.size(), 3u);
  EXPECT_STREQ(ar[0].name, "ring");
  EXPECT_NEAR(ar[0].seconds, 2094.75e-3, 1e-9);
  EXPECT_STREQ(ar[1].name, "doubling");
  EXPECT_NEAR(ar[1].seconds, 6006e-3, 1e-9);
  EXPECT_STREQ(ar[2].name, "halving-doubling");
  // AllGather over 4: ring 3·(1 + 1) = 6 ms, doubling 2·1 + 3·1 = 5 ms.
  EXPECT_NEAR(collective_seconds(MoveKind::AllGather, 4, s, p), 5e-3, 1e-12);
  // ReduceScatter over 4: ring 3·(1 + 0.25) = 3.75 ms, halving 2 + 0.75 = 2.75 ms.
  EXPECT_NEAR(collective_seconds(MoveKind::ReduceScatter, 4, s, p), 2.75e-3, 1e-12);
  // AllToAll over 4: pairwise 3·(1 + 0.25) = 3.75 ms, Bruck 2·(1 + 0.5) = 3 ms.
  EXPECT_NEAR(collective_seconds(MoveKind::AllToAll, 4, s, p), 3e-3, 1e-12);
  // Broadcast over 4: binomial 2·(1 + 1) = 4 ms, scatter-allgather 2·2·1 + 2·0.75 = 5.5 ms;
  // over 64 with 1 MB: binomial 6006 ms, scatter-allgather 1980.75 ms.
  EXPECT_NEAR(broadcast_seconds(4, s, p), 4e-3, 1e-12);
  EXPECT_NEAR(broadcast_seconds(64, 1e6, p), 1980.75e-3, 1e-9);
  EXPECT_TRUE(broadcast_algorithms(1, s, p).empty());
  EXPECT_TRUE(algorithm_seconds(MoveKind::Split, 4, s, p).empty());
  EXPECT_EQ(collective_seconds(MoveKind::Split, 4, s, p), 0);
  EXPECT_EQ(collective_seconds(MoveKind::AllReduce, 1, s, p), 0);
}

TEST(CostModel, ComputeIsTheLargerOfFlopsAndBytes) {
  CostProfile p;
  p.peak_flops = 1000;
  p.mem_bandwidth = 1000;
  Attrs a = attrs_of(OpId::MatMul);
  OpCall call{OpId::MatMul, a, {{8, 6}, {6, 16}}, ""};
  DeviceMesh mesh({1});
  TensorLayout x(mesh, {8, 6}, {{}, {}}), w(mesh, {6, 16}, {{}, {}}), y(mesh, {8, 16}, {{}, {}});
  std::vector<TensorLayout> in{x, w}, out{y};
  // flops 2·8·16·6 = 1536 over bytes (48 + 96 + 128)·4 = 1088.
  EXPECT_NEAR(compute_seconds(call, in, out, 4, p), 1.536, 1e-12);
  p.mem_bandwidth = 500;
  EXPECT_NEAR(compute_seconds(call, in, out, 4, p), 1088.0 / 500, 1e-12);
  // On a column split over 4: each device computes a quarter.
  DeviceMesh m4({4});
  TensorLayout w4(m4, {6, 16}, {{}, {0}}), y4(m4, {8, 16}, {{}, {0}}), x4(m4, {8, 6}, {{}, {}});
  std::vector<Shape> ins{x4.slice_shape(), w4.slice_shape()}, outs{y4.slice_shape()};
  EXPECT_EQ(op_flops(call, ins, outs), 1536.0 / 4);
  // Conv2D: 2·|out|·c_in·kh·kw of the slice.
  Attrs ca;
  ca.set("out_channel", int64_t{4});
  ca.set("kernel_size", std::vector<int64_t>{3, 3});
  Attrs conv = attrs_of(OpId::Conv2D, ca);
  OpCall c2{OpId::Conv2D, conv, {{2, 3, 8, 8}, {4, 3, 3, 3}}, ""};
  std::vector<Shape> cin{{2, 3, 8, 8}, {4, 3, 3, 3}}, cout{{2, 4, 6, 6}};
  EXPECT_EQ(op_flops(c2, cin, cout), 2.0 * 2 * 4 * 36 * 27);
}

TEST(CostModel, RedistributionSumsItsMovesAndProfilesAreChecked) {
  CostProfile p;
  p.alpha = 1e-3;
  p.beta = 1e-6;
  DeviceMesh mesh({2, 2});
  // Partial over axis 1 and split over axis 0 -> whole: AllReduce of the 2x8 slice (64 B)
  // over 2 (1 step: 1 ms + 64 us), then AllGather over 2 (1 ms + 64 us).
  TensorLayout from(mesh, {4, 8}, {{0}, {}}, {1}), to(mesh, {4, 8}, {{}, {}});
  EXPECT_NEAR(redistribution_seconds(from, to, 4, p), 2 * (1e-3 + 64e-6), 1e-12);
  EXPECT_EQ(redistribution_seconds(to, to, 4, p), 0);
  // A local split costs nothing.
  EXPECT_EQ(redistribution_seconds(to, TensorLayout(mesh, {4, 8}, {{0}, {1}}), 4, p), 0);
  CostProfile q = profile_from({1e9, 2e9, 1e-4, 1e-9, 2, 0});
  EXPECT_EQ(q.mem_bandwidth, 2e9);
  EXPECT_EQ(q.optimizer_factor, 2);
  EXPECT_NE(value_error([] { profile_from({1, 2, 3}); }).find("6 numbers"), std::string::npos);
  EXPECT_NE(value_error([] {
              profile_from({1e9, 2e9, 0, 1e-9, 2, 0});
            }).find("alpha 0"),
            std::string::npos);
}

// Per-axis profiles (cost_model.h): a move costs with its axes' α and β, the slowest of them
// where its groups span several; a profile without per-axis values costs as before.
TEST(CostModel, EachMeshAxisHasItsOwnLatencyAndByteCost) {
  CostProfile p;
  p.alpha = 1e-3;
  p.beta = 1e-6;
  p.axis_alpha = {2e-3, 5e-3};
  p.axis_beta = {9e-6, 7e-6};
  DeviceMesh mesh({2, 2});
  const TensorLayout whole(mesh, {4, 8}, {{}, {}});
  // Partial sums over one axis -> whole: an AllReduce of the whole 128 B over 2 devices,
  // best by recursive doubling in 1 step: α + 128·β of that axis.
  const TensorLayout over0(mesh, {4, 8}, {{}, {}}, {0}), over1(mesh, {4, 8}, {{}, {}}, {1});
  const std::vector<MoveCost> m0 = redistribution_costs(over0, whole, 4, p);
  ASSERT_EQ(m0.size(), 1u);
  EXPECT_EQ(m0[0].axes, Axes{0});
  EXPECT_NEAR(m0[0].seconds, 2e-3 + 128 * 9e-6, 1e-15);
  EXPECT_NEAR(redistribution_seconds(over1, whole, 4, p), 5e-3 + 128 * 7e-6, 1e-15);
  // Over both axes, one AllReduce over 4: the largest α (axis 1's) and the largest β (axis
  // 0's); doubling 2·(α + 128β) beats ring 6α + 192β and halving-doubling 4α + 192β.
  const TensorLayout over01(mesh, {4, 8}, {{}, {}}, {0, 1});
  const std::vector<MoveCost> m01 = redistribution_costs(over01, whole, 4, p);
  ASSERT_EQ(m01.size(), 1u);
  EXPECT_EQ(m01[0].axes, (Axes{0, 1}));
  EXPECT_NEAR(m01[0].seconds, 2 * (5e-3 + 128 * 9e-6), 1e-15);
  EXPECT_EQ(p.link({0, 1}), std::make_pair(5e-3, 9e-6));
  // The collectives and broadcasts take the axes too; none: the scalars.
  EXPECT_NEAR(collective_seconds(MoveKind::AllGather, 2, 1000, p, {1}), 5e-3 + 1000 * 7e-6, 1e-15);
  EXPECT_NEAR(broadcast_seconds(2, 1000, p, {0}), 2e-3 + 1000 * 9e-6, 1e-15);
  EXPECT_NEAR(collective_seconds(MoveKind::AllGather, 2, 1000, p), 1e-3 + 1000 * 1e-6, 1e-15);
  // A shorter list: the axes past its end take the scalars.
  CostProfile q;
  q.alpha = 1e-3;
  q.beta = 1e-6;
  q.axis_alpha = {2e-3};
  EXPECT_EQ(q.link({1}), std::make_pair(1e-3, 1e-6));
  EXPECT_EQ(q.link({0}), std::make_pair(2e-3, 1e-6));
  EXPECT_EQ(q.link({0, 1}), std::make_pair(2e-3, 1e-6));
  // No per-axis values, or each equal to the scalars: bit for bit the one-level costs.
  CostProfile u;
  u.alpha = 1e-3;
  u.beta = 1e-6;
  CostProfile same = u;
  same.axis_alpha = {1e-3, 1e-3};
  same.axis_beta = {1e-6, 1e-6};
  const TensorLayout split(mesh, {4, 8}, {{0}, {}}, {1});
  for (const TensorLayout& from : {over0, over1, over01, split}) {
    EXPECT_EQ(redistribution_seconds(from, whole, 4, same),
              redistribution_seconds(from, whole, 4, u));
  }
  EXPECT_EQ(redistribution_seconds(split, whole, 4, u), 2 * (1e-3 + 64e-6));
}

TEST(CostModel, PerAxisProfilesFromNumbersAreChecked) {
  CostProfile p = profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, 0, 0, 0, 1e-2, 2e-4, 1e-7, 3e-9});
  EXPECT_EQ(p.axis_alpha, (std::vector<double>{1e-2, 2e-4}));
  EXPECT_EQ(p.axis_beta, (std::vector<double>{1e-7, 3e-9}));
  EXPECT_TRUE(profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, 0, 0, 0}).axis_alpha.empty());
  EXPECT_NE(value_error([] {
              profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, 0, 0, 0, 1e-2});
            }).find("axis_alpha then k axis_beta"),
            std::string::npos);
  EXPECT_NE(value_error([] {
              profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, 0, 0, 0, 1e-2, 1e-3, 1e-7, 0});
            }).find("axis_beta[1] 0"),
            std::string::npos);
  EXPECT_NE(value_error([] {
              profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, 0, 0, 0, -1, 1e-7});
            }).find("axis_alpha[0] -1"),
            std::string::npos);
}

}  // namespace
}  // namespace mycel::parallel
