// DeviceMesh (coordinates, groups, rank lists) and TensorLayout (slices, validation).
#include <gtest/gtest.h>

#include <set>

#include "parallel/layout.h"
#include "parallel_test_util.h"

namespace mycel::parallel {
namespace {

TEST(DeviceMesh, CoordinatesFollowTheRankList) {
  // Rank list: the matrix position i holds rank 10 + (7 - i).
  std::vector<int64_t> ranks;
  for (int64_t i = 0; i < 8; ++i) ranks.push_back(17 - i);
  DeviceMesh mesh({2, 4}, {"dp", "mp"}, ranks);
  EXPECT_EQ(mesh.size(), 8);
  EXPECT_EQ(mesh.coords(17), (Shape{0, 0}));
  EXPECT_EQ(mesh.coords(12), (Shape{1, 1}));  // position 5
  EXPECT_EQ(mesh.rank_of({1, 3}), 10);
  EXPECT_EQ(mesh.axis("mp"), 1);
  EXPECT_EQ(mesh.axis_name(0), "dp");
  for (int64_t r : ranks) EXPECT_EQ(mesh.rank_of(mesh.coords(r)), r);
}

TEST(DeviceMesh, GroupsAreInGroupOrder) {
  DeviceMesh mesh({2, 3, 2});
  // Rank 7 = coordinates (1, 0, 1). Along axis 1: (1, k, 1) for k = 0..2.
  EXPECT_EQ(mesh.group(7, {1}), (std::vector<int64_t>{7, 9, 11}));
  // Along (2, 0): axis 2 most significant: (0,0,0) (1,0,0) (0,0,1) (1,0,1) with axis 1 = 0.
  EXPECT_EQ(mesh.group(7, {2, 0}), (std::vector<int64_t>{0, 6, 1, 7}));
  EXPECT_EQ(mesh.group(7, {0, 2}), (std::vector<int64_t>{0, 1, 6, 7}));
  EXPECT_EQ(mesh.group(7, {}), (std::vector<int64_t>{7}));
  EXPECT_EQ(mesh.group_size({0, 1}), 6);
  // Every device sits at its group index in its group, and the groups partition the mesh.
  for (const Axes& axes : {Axes{}, Axes{0}, Axes{1}, Axes{2, 1}, Axes{1, 0, 2}}) {
    std::set<int64_t> seen;
    for (const auto& g : mesh.groups(axes)) {
      ASSERT_EQ(static_cast<int64_t>(g.size()), mesh.group_size(axes));
      for (size_t j = 0; j < g.size(); ++j) {
        EXPECT_EQ(mesh.group_index(g[j], axes), static_cast<int64_t>(j));
        EXPECT_EQ(mesh.group(g[j], axes), g);
        EXPECT_TRUE(seen.insert(g[j]).second);
      }
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), mesh.size());
  }
}

TEST(DeviceMesh, BadInputIsAValueError) {
  EXPECT_NE(value_error([] { DeviceMesh({2, 0}); }).find("at least 1 device"), std::string::npos);
  EXPECT_NE(value_error([] {
              DeviceMesh({2, 2}, {"dp"});
            }).find("1 axis names"),
            std::string::npos);
  EXPECT_NE(value_error([] {
              DeviceMesh({2, 2}, {"dp", "dp"});
            }).find("used twice"),
            std::string::npos);
  EXPECT_NE(value_error([] { DeviceMesh({2}, {"None"}); }).find("\"None\""), std::string::npos);
  EXPECT_NE(value_error([] {
              DeviceMesh({2, 2}, {}, std::vector<int64_t>{0, 1, 2});
            }).find("rank list has 3"),
            std::string::npos);
  EXPECT_NE(value_error([] {
              DeviceMesh({2}, {}, std::vector<int64_t>{3, 3});
            }).find("twice"),
            std::string::npos);
  EXPECT_NE(
      value_error([] { DeviceMesh({2}, {}, std::vector<int64_t>{}); }).find("rank list has 0"),
      std::string::npos);
  EXPECT_NE(value_error([] {
              DeviceMesh({1 << 10, 1 << 11});
            }).find("more than 1048576"),
            std::string::npos);
  DeviceMesh mesh({2, 2}, {"dp", "mp"});
  EXPECT_NE(value_error([&] { mesh.index_of(4); }).find("rank 4 is not in mesh [2,2]"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              mesh.group(0, {1, 1});
            }).find("mp is used twice"),
            std::string::npos);
  EXPECT_NE(value_error([&] { mesh.group(0, {2}); }).find("out of range"), std::string::npos);
  EXPECT_NE(value_error([&] { mesh.axis("sp"); }).find("no axis is named 'sp'"), std::string::npos);
  EXPECT_NE(value_error([&] { mesh.rank_of({0, 2}); }).find("outside"), std::string::npos);
}

TEST(TensorLayout, SlicesOfAMultiAxisSplit) {
  DeviceMesh mesh({2, 4}, {"dp", "mp"});
  // Dimension 0 cut into 8 blocks by (mp, dp): mp most significant; dimension 1 whole.
  TensorLayout l(mesh, {16, 6}, {{1, 0}, {}});
  EXPECT_EQ(l.slice_shape(), (Shape{2, 6}));
  EXPECT_EQ(l.slice_numel(), 12);
  EXPECT_EQ(l.dim_of(0), 0);
  EXPECT_EQ(l.splits(0), 8);
  // Rank 6 = (dp 1, mp 2): block 2 * 2 + 1 = 5.
  EXPECT_EQ(l.slice_offsets(6), (Shape{10, 0}));
  std::set<int64_t> starts;
  for (int64_t r = 0; r < 8; ++r) starts.insert(l.slice_offsets(r)[0]);
  EXPECT_EQ(starts, (std::set<int64_t>{0, 2, 4, 6, 8, 10, 12, 14}));

  TensorLayout p(mesh, {4, 8}, {{}, {1}}, {0});
  EXPECT_TRUE(p.is_partial(0));
  EXPECT_EQ(p.dim_of(0), -1);
  EXPECT_EQ(p.slice_offsets(7), (Shape{0, 6}));  // mp 3
  EXPECT_EQ(p.to_string(), "shape [4,8] map [(),(mp)] partial (dp) on mesh [2,4] (dp,mp)");
}

TEST(TensorLayout, BadLayoutsAreValueErrors) {
  DeviceMesh mesh({2, 3}, {"dp", "mp"});
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {4, 4}, {{}, {1}});
            })
                .find("dimension 1 of shape [4,4] (4) cannot be split evenly into 3 parts "
                      "by mesh axes (mp)"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {4, 6}, {{1}, {1}});
            }).find("mp is used twice"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {4, 6}, {{0, 0}, {}});
            }).find("dp is used twice"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {4, 6}, {{0}, {}}, {0});
            }).find("mesh axis dp cannot both split dimension 0 and hold partial sums"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {4, 6}, {{}});
            }).find("1 entries"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {4, 6}, {{}, {2}});
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(value_error([&] {
              TensorLayout(mesh, {-2, 6}, {{}, {}});
            }).find("negative"),
            std::string::npos);
}

}  // namespace
}  // namespace mycel::parallel
