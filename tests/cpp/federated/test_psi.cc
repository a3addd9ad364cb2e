// Private set intersection without the network (federated/psi.h): two Party objects run the
// protocol's three steps by hand. The intersection is exact on known overlaps (with
// duplicates, empty sets, several threads), each party's points are fresh per run and hold no
// id, the blinding commutes, and bad points and counts are refused. The exchange over a
// communicator is tested from Python (tests/python/test_federated_vertical.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/error.h"
#include "federated/psi.h"

namespace mycel::federated::psi {
namespace {

std::vector<std::string> run_pair(const std::vector<std::string>& a,
                                  const std::vector<std::string>& b, int threads = 1,
                                  std::vector<std::string>* b_result = nullptr) {
  Party pa(a, 7, threads), pb(b, 7, 1);
  std::vector<Point> a_of_b = pa.blind_again(pb.blinded());  // A's answer to B
  std::vector<Point> b_of_a = pb.blind_again(pa.blinded());  // B's answer to A
  if (b_result) *b_result = pb.intersect(a_of_b, b_of_a);
  return pa.intersect(b_of_a, a_of_b);
}

// Whether f() throws a mycel ValueError.
template <class F>
bool value_error(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind() == ErrorKind::Value;
  }
  return false;
}

std::vector<std::string> ids(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back("user" + std::to_string(i));
  return out;
}

TEST(FederatedPsi, TheIntersectionIsExactAndTheSameOnBothSides) {
  std::vector<std::string> a = ids(0, 500), b = ids(300, 900), from_b;
  std::vector<std::string> got = run_pair(a, b, 3, &from_b);
  std::vector<std::string> want = ids(300, 500);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(from_b, want);
}

TEST(FederatedPsi, EmptyOverlapEmptySetsAndDuplicates) {
  EXPECT_TRUE(run_pair(ids(0, 50), ids(50, 90)).empty());
  EXPECT_TRUE(run_pair({}, ids(0, 5)).empty());
  EXPECT_TRUE(run_pair(ids(0, 5), {}).empty());
  std::vector<std::string> got = run_pair({"x", "y", "x", "x"}, {"y", "x", "y", "z"});
  EXPECT_EQ(got, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(Party({"a", "a", "b"}, 0, 1).blinded().size(), 2u);
}

TEST(FederatedPsi, PointsAreFreshPerRunAndPerBucket) {
  std::vector<std::string> a = ids(0, 20);
  Party p1(a, 0, 1), p2(a, 0, 1), p3(a, 1, 1);
  std::set<Point> s1(p1.blinded().begin(), p1.blinded().end());
  EXPECT_EQ(s1.size(), 20u);
  for (const Party* p : {&p2, &p3})
    for (const Point& x : p->blinded()) EXPECT_EQ(s1.count(x), 0u);
  // other buckets never match, even for the same ids
  Party q(a, 1, 1);
  EXPECT_TRUE(p1.intersect(q.blind_again(p1.blinded()), p1.blind_again(q.blinded())).empty());
}

TEST(FederatedPsi, BadPointsAndCountsAreRefused) {
  Party p(ids(0, 3), 0, 1);
  std::vector<Point> bad(1);
  bad[0].fill(0);  // the identity
  EXPECT_TRUE(value_error([&] { p.blind_again(bad); }));
  bad[0].fill(0xff);  // not a canonical encoding
  EXPECT_TRUE(value_error([&] { p.blind_again(bad); }));
  std::vector<Point> two(p.blinded().begin(), p.blinded().begin() + 2);
  EXPECT_TRUE(value_error([&] { p.intersect(two, {}); }));
  EXPECT_TRUE(value_error([&] { Party({"a"}, 0, 0); }));
  Param wrong = points_param("psi/0/blinded", two);
  wrong.dtype = DType::Int8;
  EXPECT_TRUE(value_error([&] { points_from(wrong, "psi/0/blinded"); }));
  EXPECT_TRUE(
      value_error([&] { points_from(points_param("psi/1/blinded", two), "psi/0/blinded"); }));
  EXPECT_EQ(points_from(points_param("psi/0/blinded", two), "psi/0/blinded"), two);
}

}  // namespace
}  // namespace mycel::federated::psi
