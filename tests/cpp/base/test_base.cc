// SmallVector, parallel_for and the error tiers.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "base/small_vector.h"
#include "ops/attrs.h"

namespace mycel {
namespace {

TEST(SmallVector, InlineThenHeap) {
  SmallVector<int64_t, 2> v;
  for (int64_t i = 0; i < 10; ++i) v.push_back(i);
  EXPECT_EQ(v.size(), 10u);
  EXPECT_EQ(v[9], 9);
  SmallVector<int64_t, 2> w = v;
  EXPECT_EQ(w, v);
  SmallVector<int64_t, 2> m = std::move(w);
  EXPECT_EQ(m, v);
  m.insert(m.begin() + 1, 42);
  EXPECT_EQ(m[1], 42);
  EXPECT_EQ(m[2], 1);
  m.erase(m.begin());
  EXPECT_EQ(m[0], 42);
  SmallVector<int64_t, 4> s{1, 2};
  SmallVector<int64_t, 4> s2 = std::move(s);
  EXPECT_EQ(s2.size(), 2u);
  EXPECT_EQ(s2[1], 2);
}

TEST(Parallel, CoversRangeExactlyOnce) {
  std::vector<std::atomic<int>> hits(100000);
  parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i]++;
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(Parallel, ExceptionsReachTheCaller) {
  EXPECT_THROW(parallel_for(0, 100000, 10,
                            [&](int64_t b, int64_t) {
                              if (b > 0) MC_THROW(Value, "boom");
                            }),
               Error);
}

TEST(Parallel, SerialBelowDropsToOneThreadForSmallWork) {
  int saved = omp_get_max_threads();
  omp_set_num_threads(2);  // whatever the machine has
  int before = omp_get_max_threads();
  {
    SerialBelow small(kSerialWork - 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
  {
    SerialBelow large(kSerialWork);
    EXPECT_EQ(omp_get_max_threads(), before);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
  omp_set_num_threads(saved);
}

TEST(Errors, InternalErrorsSayWhere) {
  try {
    MC_ASSERT(1 == 2, "detail ", 5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
    std::string m = e.what();
    EXPECT_NE(m.find("internal error at"), std::string::npos);
    EXPECT_NE(m.find("test_base.cc"), std::string::npos);
    EXPECT_NE(m.find("detail 5"), std::string::npos);
  }
}

TEST(Attrs, SetGetAndPrint) {
  Attrs a;
  a.set("axis", std::vector<int64_t>{1});
  a.set("keep_dims", true);
  a.set("keep_dims", false);
  EXPECT_EQ(a.items().size(), 2u);
  EXPECT_FALSE(a.get_bool("keep_dims"));
  EXPECT_EQ(attr_value_str(a.get("axis")), "(1,)");
  EXPECT_THROW(a.get_int("axis"), Error);
}

}  // namespace
}  // namespace mycel
