// cse: before/after IR text; effects are never merged.
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::cse;

TEST(PassCse, DuplicateExpressionsMerge) {
  expect_rewrite(cse, R"(
    graph @f(%x: f32[2], %y: f32[2]) {
      %a = Mul(%x, %y) : f32[2]
      %b = Mul(%x, %y) : f32[2]
      %c = Exp(%a) : f32[2]
      %d = Exp(%b) : f32[2]
      %e = Add(%c, %d) : f32[2]
      return %e
    }
  )",
                 R"(
    graph @f(%x: f32[2], %y: f32[2]) {
      %a = Mul(%x, %y) : f32[2]
      %c = Exp(%a) : f32[2]
      %e = Add(%c, %c) : f32[2]
      return %e
    }
  )");
}

TEST(PassCse, EqualConstantsMergeSoTheirUsersMerge) {
  // Each `2` and each `Transpose{...}` is its own ValueNode in the parsed text.
  expect_rewrite(cse, R"(
    graph @f(%x: i64, %t: f32[2, 3]) {
      %a = add(%x, 2) : i64
      %b = add(%x, 2) : i64
      %p = Transpose{perm=(1, 0)}(%t) : f32[3, 2]
      %q = Transpose{perm=(1, 0)}(%t) : f32[3, 2]
      %u = Transpose{perm=(0, 1)}(%t) : f32[2, 3]
      %r = make_tuple(%a, %b, %p, %q, %u) : tuple(i64, i64, f32[3, 2], f32[3, 2], f32[2, 3])
      return %r
    }
  )",
                 R"(
    graph @f(%x: i64, %t: f32[2, 3]) {
      %a = add(%x, 2) : i64
      %p = Transpose{perm=(1, 0)}(%t) : f32[3, 2]
      %u = Transpose{perm=(0, 1)}(%t) : f32[2, 3]
      %r = make_tuple(%a, %a, %p, %p, %u) : tuple(i64, i64, f32[3, 2], f32[3, 2], f32[2, 3])
      return %r
    }
  )");
}

TEST(PassCse, RandomInplaceAndPrintAreNeverMerged) {
  expect_unchanged(cse, R"(
    graph @f(%x: f32[4]) {
      %a = StandardNormal{shape=(4,), seed=0, seed2=0, dtype=f32}() : f32[4]
      %b = StandardNormal{shape=(4,), seed=0, seed2=0, dtype=f32}() : f32[4]
      %d1 = Dropout{keep_prob=0.5, Seed0=0, Seed1=0}(%x) : tuple(f32[4], f32[4])
      %d2 = Dropout{keep_prob=0.5, Seed0=0, Seed1=0}(%x) : tuple(f32[4], f32[4])
      %p1 = print("x", %x) : none
      %p2 = print("x", %x) : none
      %r = make_tuple(%a, %b, %d1, %d2, %p1, %p2)
           : tuple(f32[4], f32[4], tuple(f32[4], f32[4]), tuple(f32[4], f32[4]), none, none)
      return %r
    }
  )",
                   /*merges_constants=*/true);
  // BatchNorm updates its running statistics in place.
  expect_unchanged(cse, R"(
    graph @f(%x: f32[2, 3], %s: f32[3], %b: f32[3], %m: f32[3], %v: f32[3]) {
      %a = BatchNorm{is_training=True, epsilon=0.00001, momentum=0.1, data_format="NCHW"}(
               %x, %s, %b, %m, %v) : tuple(f32[2, 3], f32[3], f32[3], f32[3], f32[3])
      %c = BatchNorm{is_training=True, epsilon=0.00001, momentum=0.1, data_format="NCHW"}(
               %x, %s, %b, %m, %v) : tuple(f32[2, 3], f32[3], f32[3], f32[3], f32[3])
      %r = make_tuple(%a, %c) : tuple(tuple(f32[2, 3], f32[3], f32[3], f32[3], f32[3]),
                                      tuple(f32[2, 3], f32[3], f32[3], f32[3], f32[3]))
      return %r
    }
  )",
                   /*merges_constants=*/true);
}

TEST(PassCse, PureGraphCallsMergeImpureOnesDoNot) {
  expect_rewrite(cse, R"(
    graph @f(%x: f32[2]) {
      %a = @pure(%x) : f32[2]
      %b = @pure(%x) : f32[2]
      %c = @noisy(%x) : f32[2]
      %d = @noisy(%x) : f32[2]
      %r = make_tuple(%a, %b, %c, %d) : tuple(f32[2], f32[2], f32[2], f32[2])
      return %r
    }
    graph @pure(%p: f32[2]) {
      %e = Exp(%p) : f32[2]
      return %e
    }
    graph @noisy(%q: f32[2]) {
      %s = print(%q) : none
      %t = make_tuple(%s, %q) : tuple(none, f32[2])
      %u = getitem(%t, 1) : f32[2]
      return %u
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %a = @pure(%x) : f32[2]
      %c = @noisy(%x) : f32[2]
      %d = @noisy(%x) : f32[2]
      %r = make_tuple(%a, %a, %c, %d) : tuple(f32[2], f32[2], f32[2], f32[2])
      return %r
    }
    graph @pure(%p: f32[2]) {
      %e = Exp(%p) : f32[2]
      return %e
    }
    graph @noisy(%q: f32[2]) {
      %s = print(%q) : none
      %t = make_tuple(%s, %q) : tuple(none, f32[2])
      %u = getitem(%t, 1) : f32[2]
      return %u
    }
  )");
}

TEST(PassCse, NodesOfDifferentGraphsStaySeparate) {
  // The Exp constants merge (a change), the Exp calls of the two graphs do not.
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %a = Exp(%x) : f32[2]
      %g = @inner(%x) : f32[2]
      %r = Add(%a, %g) : f32[2]
      return %r
    }
    graph @inner(%y: f32[2]) {
      %b = Exp(%x) : f32[2]
      %c = Mul(%b, %y) : f32[2]
      return %c
    }
  )");
  std::string before = c.text();
  c.run(cse);
  EXPECT_EQ(c.text(), before);
  EXPECT_FALSE(c.run(cse));
}

}  // namespace
}  // namespace mycel::passtest
