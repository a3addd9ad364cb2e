// The optimizer shard's layout (spmd.h, optimizer_shard_layout; ZeRO-3): which mesh axes a
// weight's dimension 0 is further split over, given how its readers use it, and that the
// redistribution back to the readers' layout gives every simulated device exactly its use
// slice (gathered) while each holds 1/k of it between steps.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "parallel/redistribution.h"
#include "parallel/sim_mesh.h"
#include "parallel/spmd.h"

namespace mycel::parallel {
namespace {

// Runs cut -> use on a simulated mesh holding the tensor laid out as `cut`: every device
// must then hold its slice under `use`, by AllGathers only.
void gathers_back(const TensorLayout& cut, const TensorLayout& use) {
  int64_t n = 1;
  for (int64_t d : cut.shape()) n *= d;
  std::vector<double> full(static_cast<size_t>(n));
  std::iota(full.begin(), full.end(), 1.0);
  std::mt19937_64 rng(3);
  SimMesh sim = SimMesh::scatter(cut, full, rng);
  std::vector<Move> plan = plan_redistribution(cut, use);
  for (const Move& m : plan) EXPECT_EQ(m.kind, MoveKind::AllGather) << cut.to_string();
  sim.run(plan);
  EXPECT_EQ(check_holds(sim, use, full), "") << cut.to_string() << " -> " << use.to_string();
}

TEST(OptimizerShard, AWholeWeightIsSplitOverEveryDevice) {
  DeviceMesh mesh({4});
  TensorLayout use(mesh, {8, 3}, {{}, {}});
  auto [cut, axes] = optimizer_shard_layout(use, -1);
  EXPECT_EQ(axes, Axes({0}));
  EXPECT_EQ(cut.map(), TensorMap({{0}, {}}));
  EXPECT_EQ(cut.slice_shape(), Shape({2, 3}));
  gathers_back(cut, use);
}

TEST(OptimizerShard, AModelParallelWeightIsSplitOverItsDataParallelAxis) {
  DeviceMesh mesh({2, 2});
  // Split by columns over axis 1 (Megatron): replicated along axis 0, which now splits rows.
  TensorLayout cols(mesh, {8, 4}, {{}, {1}});
  auto [cut, axes] = optimizer_shard_layout(cols, -1);
  EXPECT_EQ(axes, Axes({0}));
  EXPECT_EQ(cut.map(), TensorMap({{0}, {1}}));
  gathers_back(cut, cols);
  // Split by rows over axis 1: axis 0 splits each block's rows further.
  TensorLayout rows(mesh, {8, 4}, {{1}, {}});
  auto [cut2, axes2] = optimizer_shard_layout(rows, -1);
  EXPECT_EQ(axes2, Axes({0}));
  EXPECT_EQ(cut2.map(), TensorMap({{1, 0}, {}}));
  EXPECT_EQ(cut2.slice_shape(), Shape({2, 4}));
  gathers_back(cut2, rows);
}

TEST(OptimizerShard, TheShardSizeTakesTheTrailingFreeAxes) {
  DeviceMesh mesh({2, 2});
  TensorLayout use(mesh, {8, 3}, {{}, {}});
  auto [cut, axes] = optimizer_shard_layout(use, 2);
  EXPECT_EQ(axes, Axes({1}));
  EXPECT_EQ(cut.map(), TensorMap({{1}, {}}));
  gathers_back(cut, use);
  // A size no trailing axes multiply to is ignored (as MindSpore): all the free axes.
  auto [cut3, axes3] = optimizer_shard_layout(use, 3);
  EXPECT_EQ(axes3, Axes({0, 1}));
  gathers_back(cut3, use);
}

TEST(OptimizerShard, NoShardWhereDimensionZeroDoesNotDivideOrNothingIsFree) {
  DeviceMesh mesh({4});
  TensorLayout odd(mesh, {6, 2}, {{}, {}});
  auto [same, none] = optimizer_shard_layout(odd, -1);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(same, odd);
  TensorLayout scalar(mesh, {}, {});
  EXPECT_TRUE(optimizer_shard_layout(scalar, -1).second.empty());
  TensorLayout used(mesh, {8, 4}, {{}, {0}});  // the only axis splits it already
  EXPECT_TRUE(optimizer_shard_layout(used, -1).second.empty());
  DeviceMesh one({1, 4});  // an axis of size 1 is never a shard axis
  auto [cut, axes] = optimizer_shard_layout(TensorLayout(one, {8}, {{}}), -1);
  EXPECT_EQ(axes, Axes({1}));
}

}  // namespace
}  // namespace mycel::parallel
