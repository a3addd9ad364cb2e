// The recursive search (rec_search.h) on hand-made models whose answers are computed by hand,
// and the refinements it asks for (strategies.h). The search on real programs is tested from
// Python (tests/python/test_auto_parallel.py: golden plans against dynamic programming's,
// 48 layers at 1,024 devices; test_auto_parallel_train.py: training equal to serial).
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/op_table.h"
#include "parallel/cost_model.h"
#include "parallel/rec_search.h"
#include "parallel/strategies.h"
#include "parallel_test_util.h"

namespace mycel::parallel {
namespace {

TEST(RecSearch, RefinementsMultiplyOneLoopDimension) {
  Attrs a = make_attrs(op_def(OpId::MatMul), {});
  OpCall call{OpId::MatMul, a, {{8, 6}, {6, 16}}, ""};
  EXPECT_EQ(unsplit_strategy(call, 8), Strategy({{1, 1}, {1, 1}}));
  // (m, k, n) = (1, 1, 2) by 2 on 8 devices: m, k or n doubled, in that order.
  std::vector<Strategy> r = refine_strategy(call, {{1, 1}, {1, 2}}, 2, 8);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], Strategy({{2, 1}, {1, 2}}));
  EXPECT_EQ(r[1], Strategy({{1, 2}, {2, 2}}));
  EXPECT_EQ(r[2], Strategy({{1, 1}, {1, 4}}));
  // k = 2 cannot double (6 is not divisible by 4); m and n can.
  r = refine_strategy(call, {{1, 2}, {2, 1}}, 2, 8);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], Strategy({{2, 2}, {2, 1}}));
  EXPECT_EQ(r[1], Strategy({{1, 2}, {2, 2}}));
  // Past the devices: none.
  EXPECT_TRUE(refine_strategy(call, {{2, 1}, {1, 4}}, 2, 8).empty());
  // Every refinement is a candidate dynamic programming enumerates.
  std::vector<Strategy> all = enumerate_strategies(call, 8);
  for (const Strategy& s : refine_strategy(call, {{2, 1}, {1, 1}}, 2, 8))
    EXPECT_NE(std::find(all.begin(), all.end(), s), all.end()) << strategy_str(s);
}

// Ops with two loop dimensions; a candidate is its splits (d0, d1). own = work / devices used;
// an edge costs `weight` × |d1 of the producer − d1 of the consumer| (plus the same of d0
// when `both`).
class Model final : public RecCosts {
 public:
  Model(std::vector<double> work, std::vector<std::pair<int64_t, int64_t>> start, double weight,
        bool both = false)
      : work_(std::move(work)), weight_(weight), both_(both) {
    for (const auto& s : start) cands_.push_back({s});
  }
  std::vector<int> refine(size_t v, int c, int64_t f) override {
    auto [d0, d1] = cands_[v][static_cast<size_t>(c)];
    std::vector<int> out;
    for (auto s : {std::make_pair(d0 * f, d1), std::make_pair(d0, d1 * f)}) {
      cands_[v].push_back(s);
      out.push_back(static_cast<int>(cands_[v].size() - 1));
    }
    return out;
  }
  double own(size_t v, int c) const override {
    auto [d0, d1] = cands_[v][static_cast<size_t>(c)];
    return work_[v] / static_cast<double>(d0 * d1);
  }
  double edge(size_t e, int t, int s) override {
    auto [a0, a1] = cands_[e][static_cast<size_t>(t)];  // edge e: op e -> op e+1
    auto [b0, b1] = cands_[e + 1][static_cast<size_t>(s)];
    const auto gap = [](int64_t x, int64_t y) {
      return static_cast<double>(x > y ? x - y : y - x);
    };
    return weight_ * (gap(a1, b1) + (both_ ? gap(a0, b0) : 0));
  }
  std::pair<int64_t, int64_t> of(size_t v, int c) const {
    return cands_[v][static_cast<size_t>(c)];
  }

 private:
  std::vector<double> work_;
  double weight_;
  bool both_;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> cands_;
};

TEST(RecSearch, FollowsAFixedNeighbourLevelByLevel) {
  // Op 0 is the user's, split (1, 4); op 1 is free. Level 1 (factor 2): keeping costs
  // 1 + 10·3 = 31, d0 doubled 0.5 + 30, d1 doubled 0.5 + 10·2 = 20.5: d1. Level 2: d1
  // again (0.25 + 0) beats d0 (0.25 + 20) and keeping (0.5 + 20).
  Model m({1, 1}, {{1, 4}, {1, 1}}, 10);
  RecGraph g{2, {{0, 1}}, {true, false}};
  std::vector<int> c = recursive_partition(g, m, {2, 2});
  EXPECT_EQ(c[0], 0);
  EXPECT_EQ(m.of(1, c[1]), std::make_pair(int64_t{1}, int64_t{4}));
}

TEST(RecSearch, CheapEdgesLetEveryOpSplitItsFirstDimension) {
  // No edge cost: every op halves its work at each level, the earlier option (d0) on ties.
  Model m({4, 2, 1}, {{1, 1}, {1, 1}, {1, 1}}, 0);
  RecGraph g{3, {{0, 1}, {1, 2}}, {false, false, false}};
  std::vector<int> c = recursive_partition(g, m, {2, 2, 2});
  for (size_t v = 0; v < 3; ++v) EXPECT_EQ(m.of(v, c[v]), std::make_pair(int64_t{8}, int64_t{1}));
}

TEST(RecSearch, KeepingWinsWhenSplittingCostsMore) {
  // Next to the fixed, unsplit op 0, splitting op 1 saves 0.5 of its work but costs 10 on
  // the edge either way: it keeps (1, 1).
  Model m({1, 1}, {{1, 1}, {1, 1}}, 10, true);
  RecGraph g{2, {{0, 1}}, {true, false}};
  std::vector<int> c = recursive_partition(g, m, {2});
  EXPECT_EQ(m.of(1, c[1]), std::make_pair(int64_t{1}, int64_t{1}));
  // With refine_only (fully_use_devices) it must refine: d0, the earlier of the tie.
  Model k({1, 1}, {{1, 1}, {1, 1}}, 10, true);
  RecGraph only{2, {{0, 1}}, {true, false}, true};
  c = recursive_partition(only, k, {2});
  EXPECT_EQ(k.of(1, c[1]), std::make_pair(int64_t{2}, int64_t{1}));
}

TEST(RecSearch, TheProfileCarriesTheSearchBounds) {
  CostProfile p = profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, 1, 4, 16});
  EXPECT_TRUE(p.fully_use_devices);
  EXPECT_EQ(p.approx_keep, 4);
  EXPECT_EQ(p.slice_align, 16);
  EXPECT_FALSE(profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0}).fully_use_devices);
  EXPECT_NE(value_error([] {
              profile_from({1e9, 2e9, 1e-4, 1e-9, 1, 0, -1, 0, 0});
            }).find("must not be negative"),
            std::string::npos);
}

}  // namespace
}  // namespace mycel::parallel
