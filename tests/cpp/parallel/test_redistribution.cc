// Redistribution plans, run on simulated meshes (one process, a buffer per device): the
// Megatron moves and other hand-written cases, then random pairs of layouts on meshes of up
// to 64 devices. The oracle is the layout's own slice of the global tensor (check_holds).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "parallel/redistribution.h"
#include "parallel/sim_mesh.h"
#include "parallel_test_util.h"

namespace mycel::parallel {
namespace {

std::vector<double> iota_tensor(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

// Plans from -> to, runs the plan on a simulated mesh holding a tensor laid out as `from`,
// and checks every device then holds its slice under `to`. Returns the plan.
std::vector<Move> plan_and_run(const TensorLayout& from, const TensorLayout& to,
                               uint64_t seed = 1) {
  std::vector<Move> plan = plan_redistribution(from, to);
  std::vector<double> full = iota_tensor(from.shape());
  std::mt19937_64 rng(seed);
  SimMesh sim = SimMesh::scatter(from, full, rng);
  EXPECT_EQ(check_holds(sim, from, full), "");
  sim.run(plan);
  EXPECT_EQ(check_holds(sim, to, full), "") << from.to_string() << " -> " << to.to_string();
  return plan;
}

Move move(MoveKind k, Axes axes, int dim = -1, int concat_dim = -1) {
  return Move{k, std::move(axes), dim, concat_dim};
}

const DeviceMesh kMesh({2, 4}, {"dp", "mp"});
constexpr int dp = 0, mp = 1;

TEST(Redistribution, MegatronColumnToRowIsOneAllToAll) {
  // A [8,16] float weight split by columns over mp becomes split by rows.
  TensorLayout col(kMesh, {8, 16}, {{}, {mp}});
  TensorLayout row(kMesh, {8, 16}, {{mp}, {}});
  std::vector<Move> plan = plan_and_run(col, row);
  ASSERT_EQ(plan, (std::vector<Move>{move(MoveKind::AllToAll, {mp}, 0, 1)}));
  // A 8x4 float slice, 3/4 of it sent.
  EXPECT_DOUBLE_EQ(plan[0].bytes, 3.0 / 4 * 8 * 4 * 4);
  EXPECT_EQ(plan[0].to_string(kMesh), "AllToAll(dim 0, concat 1, axes (mp)) 96 B");
}

TEST(Redistribution, PartialSumsResolve) {
  // The row-parallel MatMul's output: partial over mp.
  TensorLayout partial(kMesh, {4, 8}, {{dp}, {}}, {mp});
  TensorLayout replicated(kMesh, {4, 8}, {{dp}, {}});
  EXPECT_EQ(plan_and_run(partial, replicated),
            (std::vector<Move>{move(MoveKind::AllReduce, {mp})}));
  // Split by the partial axis: one ReduceScatter, half the bytes of the AllReduce.
  TensorLayout split(kMesh, {4, 8}, {{dp}, {mp}});
  std::vector<Move> rs = plan_and_run(partial, split);
  EXPECT_EQ(rs, (std::vector<Move>{move(MoveKind::ReduceScatter, {mp}, 1)}));
  EXPECT_DOUBLE_EQ(rs[0].bytes, plan_redistribution(partial, replicated)[0].bytes / 2);
  // Partial over both axes to fully split rows (dp then mp): one ReduceScatter of both.
  TensorLayout both(kMesh, {8, 8}, {{}, {}}, {dp, mp});
  EXPECT_EQ(plan_and_run(both, TensorLayout(kMesh, {8, 8}, {{dp, mp}, {}})),
            (std::vector<Move>{move(MoveKind::ReduceScatter, {dp, mp}, 0)}));
  // Partial over dp, to be split by dp on a dimension that mp splits first: reducing now
  // (then gathering mp and splitting locally) sends less than gathering the partial values
  // and ReduceScattering four times the data afterwards.
  TensorLayout by_mp(kMesh, {8, 8}, {{mp}, {}}, {dp});
  std::vector<Move> early = plan_and_run(by_mp, TensorLayout(kMesh, {8, 8}, {{dp}, {}}));
  EXPECT_EQ(early,
            (std::vector<Move>{move(MoveKind::AllReduce, {dp}), move(MoveKind::AllGather, {mp}, 0),
                               move(MoveKind::Split, {dp}, 0)}));
  const double s = 2 * 8 * 4;                      // the 2x8 float slice
  EXPECT_DOUBLE_EQ(plan_bytes(early), s + 3 * s);  // not 3 s + (1/2) 4 s
  // And back: replicated to partial is local.
  EXPECT_EQ(plan_and_run(replicated, partial), (std::vector<Move>{move(MoveKind::Partial, {mp})}));
  EXPECT_EQ(plan_redistribution(replicated, partial)[0].bytes, 0);
}

TEST(Redistribution, SplitsMoveBetweenDimensions) {
  // Dimension 0 split over the whole mesh moves to dimension 1 in one AllToAll.
  TensorLayout rows(kMesh, {8, 16}, {{dp, mp}, {}});
  TensorLayout cols(kMesh, {8, 16}, {{}, {dp, mp}});
  EXPECT_EQ(plan_and_run(rows, cols),
            (std::vector<Move>{move(MoveKind::AllToAll, {dp, mp}, 1, 0)}));
  // Only the minor axis moves: dp stays on dimension 0.
  EXPECT_EQ(plan_and_run(rows, TensorLayout(kMesh, {8, 16}, {{dp}, {mp}})),
            (std::vector<Move>{move(MoveKind::AllToAll, {mp}, 1, 0)}));
  // The axes swap dimensions.
  TensorLayout swapped(kMesh, {8, 16}, {{mp}, {dp}});
  std::vector<Move> plan = plan_and_run(TensorLayout(kMesh, {8, 16}, {{dp}, {mp}}), swapped);
  EXPECT_EQ(plan.size(), 3u);
  // The order of two axes on one dimension changes: gather both, then split again.
  EXPECT_EQ(plan_and_run(rows, TensorLayout(kMesh, {8, 16}, {{mp, dp}, {}})),
            (std::vector<Move>{move(MoveKind::AllGather, {dp, mp}, 0),
                               move(MoveKind::Split, {mp, dp}, 0)}));
}

TEST(Redistribution, GatherAndSplitAndNothing) {
  TensorLayout rep(kMesh, {8, 4}, {{}, {}});
  TensorLayout split(kMesh, {8, 4}, {{mp, dp}, {}});
  std::vector<Move> down = plan_and_run(rep, split);
  EXPECT_EQ(down, (std::vector<Move>{move(MoveKind::Split, {mp, dp}, 0)}));
  EXPECT_EQ(plan_bytes(down), 0);
  std::vector<Move> up = plan_and_run(split, rep);
  EXPECT_EQ(up, (std::vector<Move>{move(MoveKind::AllGather, {mp, dp}, 0)}));
  EXPECT_DOUBLE_EQ(plan_bytes(up), 7.0 * 4 * 4);  // 7 other devices' 1x4 floats
  EXPECT_TRUE(plan_redistribution(split, split).empty());
  // A 0-d tensor: only partial and replicated states.
  TensorLayout scalar(kMesh, {}, {}, {dp, mp});
  EXPECT_EQ(plan_and_run(scalar, TensorLayout(kMesh, {}, {}, {dp})),
            (std::vector<Move>{move(MoveKind::AllReduce, {mp})}));
}

TEST(Redistribution, CheaperMovesArePreferred) {
  // Column -> row split by AllToAll costs less than an AllGather followed by a Split.
  TensorLayout col(kMesh, {8, 16}, {{}, {mp}});
  TensorLayout row(kMesh, {8, 16}, {{mp}, {}});
  TensorLayout rep(kMesh, {8, 16}, {{}, {}});
  double gather_split =
      plan_bytes(plan_redistribution(col, rep)) + plan_bytes(plan_redistribution(rep, row));
  EXPECT_LT(plan_bytes(plan_redistribution(col, row)), gather_split);
  // Partial -> split by ReduceScatter costs less than AllReduce then Split.
  TensorLayout partial(kMesh, {8, 16}, {{}, {}}, {mp});
  double reduce_split = plan_bytes(plan_redistribution(partial, rep));
  EXPECT_LT(plan_bytes(plan_redistribution(partial, row)), reduce_split);
  // A Split comes before the sending moves, so they send less.
  TensorLayout partial_dp(kMesh, {8, 16}, {{}, {}}, {dp});
  std::vector<Move> plan = plan_and_run(partial_dp, TensorLayout(kMesh, {8, 16}, {{dp}, {mp}}));
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].kind, MoveKind::Split);
  EXPECT_DOUBLE_EQ(plan[1].bytes, 0.5 * 8 * 4 * 4);
}

TEST(Redistribution, BadPlansAndMovesAreValueErrors) {
  TensorLayout a(kMesh, {8, 16}, {{}, {mp}});
  EXPECT_NE(value_error([&] {
              plan_redistribution(a, TensorLayout(kMesh, {8, 8}, {{}, {}}));
            }).find("different tensors"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              plan_redistribution(a, TensorLayout(DeviceMesh({8}), {8, 16}, {{}, {}}));
            }).find("different meshes"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              apply_move(a, move(MoveKind::AllGather, {dp}, 1));
            }).find("the axes must be the last ones splitting dimension 1"),
            std::string::npos);
  EXPECT_NE(
      value_error([&] { apply_move(a, move(MoveKind::AllReduce, {mp})); }).find("must be partial"),
      std::string::npos);
  EXPECT_NE(value_error([&] {
              apply_move(a, move(MoveKind::Split, {mp}, 0));
            }).find("neither split a dimension nor be partial"),
            std::string::npos);
  EXPECT_NE(
      value_error([&] { apply_move(a, move(MoveKind::Split, {dp}, 2)); }).find("out of range"),
      std::string::npos);
  TensorLayout odd(kMesh, {3, 16}, {{}, {mp}});
  EXPECT_NE(value_error([&] {
              apply_move(odd, move(MoveKind::AllToAll, {mp}, 0, 1));
            }).find("cannot be split evenly"),
            std::string::npos);
}

// A random layout on `mesh` for a tensor of `ndim` dimensions: each mesh axis splits a random
// dimension (after the axes already there), is partial, or replicates. The shape is filled in
// later, when both layouts of a pair are known.
struct Draft {
  TensorMap map;
  Axes partial;
};

Draft random_draft(const DeviceMesh& mesh, int ndim, std::mt19937_64& rng) {
  Draft d{TensorMap(static_cast<size_t>(ndim)), {}};
  Axes order(static_cast<size_t>(mesh.ndim()));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int a : order) {
    int pick = std::uniform_int_distribution<int>(-2, ndim)(rng);  // -2, -1, ndim: no split
    if (pick == -2 && rng() % 2) {
      d.partial.push_back(a);
    } else if (pick >= 0 && pick < ndim) {
      d.map[static_cast<size_t>(pick)].push_back(a);
    }
  }
  return d;
}

// The plain route from -> to: AllReduce the partial axes `to` does not keep, AllGather every
// dimension whole, Split as `to` does, then Partial.
std::vector<Move> plain_route(const TensorLayout& from, const TensorLayout& to) {
  std::vector<Move> plan;
  Axes reduce, partial;
  for (int a : from.partial()) {
    if (!to.is_partial(a)) reduce.push_back(a);
  }
  for (int a : to.partial()) {
    if (!from.is_partial(a)) partial.push_back(a);
  }
  if (!reduce.empty()) plan.push_back(move(MoveKind::AllReduce, reduce));
  for (int d = 0; d < from.ndim(); ++d) {
    if (!from.map()[static_cast<size_t>(d)].empty()) {
      plan.push_back(move(MoveKind::AllGather, from.map()[static_cast<size_t>(d)], d));
    }
  }
  for (int d = 0; d < to.ndim(); ++d) {
    if (!to.map()[static_cast<size_t>(d)].empty()) {
      plan.push_back(move(MoveKind::Split, to.map()[static_cast<size_t>(d)], d));
    }
  }
  if (!partial.empty()) plan.push_back(move(MoveKind::Partial, partial));
  TensorLayout cur = from;
  for (Move& m : plan) {
    m.bytes = move_bytes(cur, m, 4);
    cur = apply_move(cur, m);
  }
  EXPECT_EQ(cur, to);
  return plan;
}

TEST(Redistribution, RandomPairsOnMeshesOfUpTo64Devices) {
  std::mt19937_64 rng(20261126);
  const int kCases = 20000;
  int max_devices = 0, moves = 0, with_partial = 0, cheaper = 0;
  std::set<MoveKind> kinds;
  for (int c = 0; c < kCases; ++c) {
    int axes = std::uniform_int_distribution<int>(1, 3)(rng);
    Shape dims;
    int64_t n = 1;
    for (int a = 0; a < axes; ++a) {
      static const int64_t kSizes[] = {1, 2, 2, 3, 4, 4, 8};
      int64_t s = kSizes[rng() % 7];
      if (n * s > 64) s = 1;
      dims.push_back(s);
      n *= s;
    }
    std::vector<int64_t> ranks(static_cast<size_t>(n));
    std::iota(ranks.begin(), ranks.end(), 0);
    if (rng() % 2) std::shuffle(ranks.begin(), ranks.end(), rng);
    DeviceMesh mesh(dims, {}, ranks);
    max_devices = std::max<int>(max_devices, static_cast<int>(n));

    int ndim = std::uniform_int_distribution<int>(0, 3)(rng);
    Draft a = random_draft(mesh, ndim, rng), b = random_draft(mesh, ndim, rng);
    Shape shape;
    for (int d = 0; d < ndim; ++d) {  // divisible by both layouts' splits, by construction
      int64_t ka = mesh.group_size(a.map[static_cast<size_t>(d)]);
      int64_t kb = mesh.group_size(b.map[static_cast<size_t>(d)]);
      shape.push_back(std::lcm(ka, kb) * std::uniform_int_distribution<int64_t>(1, 2)(rng));
    }
    TensorLayout from(mesh, shape, a.map, a.partial), to(mesh, shape, b.map, b.partial);
    with_partial += !a.partial.empty() || !b.partial.empty();

    std::vector<Move> plan = plan_redistribution(from, to);
    ASSERT_LE(plan.size(), 2u * static_cast<size_t>(mesh.ndim()))
        << from.to_string() << " -> " << to.to_string();
    moves += static_cast<int>(plan.size());
    for (const Move& m : plan) kinds.insert(m.kind);
    std::vector<double> full = iota_tensor(shape);  // then random small integers
    for (double& x : full) x = static_cast<double>(static_cast<int>(rng() % 201) - 100);
    SimMesh sim = SimMesh::scatter(from, full, rng);
    ASSERT_EQ(check_holds(sim, from, full), "");
    sim.run(plan);
    std::string err = check_holds(sim, to, full);
    ASSERT_EQ(err, "") << "case " << c << ": " << from.to_string() << " -> " << to.to_string();
    // Never dearer than the plain route, which lands on the same slices.
    std::vector<Move> plain = plain_route(from, to);
    ASSERT_LE(plan_bytes(plan), plan_bytes(plain) * (1 + 1e-12))
        << "case " << c << ": " << from.to_string() << " -> " << to.to_string();
    cheaper += plan_bytes(plan) < plan_bytes(plain);
    SimMesh again = SimMesh::scatter(from, full, rng);
    again.run(plain);
    ASSERT_EQ(check_holds(again, to, full), "") << "plain route, case " << c;
  }
  EXPECT_EQ(max_devices, 64);  // the generator reaches the largest mesh
  EXPECT_GT(with_partial, kCases / 4);
  EXPECT_GT(moves, kCases);         // not mostly empty plans
  EXPECT_EQ(kinds.size(), 6u);      // every kind of move ran
  EXPECT_GT(cheaper, kCases / 10);  // and the plans often beat the plain route
}

}  // namespace
}  // namespace mycel::parallel
