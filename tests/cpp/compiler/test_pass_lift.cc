// lift: before/after IR text; afterwards no graph has free variables.
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::lift;

constexpr ir::VerifyOptions kLifted{.specialized = true, .lifted = true};

void expect_lifted(const std::string& before, const std::string& after) {
  PassCase c(before);
  EXPECT_TRUE(c.run(lift, kLifted));
  EXPECT_EQ(c.text(), canon(after));
  EXPECT_FALSE(c.run(lift, kLifted));
}

TEST(PassLift, ClosureReferenceAndDirectCall) {
  expect_lifted(R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g(%x) : f32[2]
      %t = make_tuple(%r, @g) : tuple(f32[2], func)
      return %t
    }
    graph @g(%a: f32[2]) {
      %m = Mul(%a, %y) : f32[2]
      return %m
    }
  )",
                R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g(%y, %x) : f32[2]
      %1 = partial(@g, %y) : func
      %t = make_tuple(%r, %1) : tuple(f32[2], func)
      return %t
    }
    graph @g(%y.1: f32[2], %a: f32[2]) {
      %m = Mul(%a, %y.1) : f32[2]
      return %m
    }
  )");
}

TEST(PassLift, SwitchBranchesBecomeClosures) {
  expect_lifted(R"(
    graph @f(%c: bool, %x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %s = switch(%c, @then, @else) : func
      %r = %s() : f32[2]
      return %r
    }
    graph @then() {
      %n = Neg(%y) : f32[2]
      return %n
    }
    graph @else() {
      return %x
    }
  )",
                R"(
    graph @f(%c: bool, %x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %1 = partial(@then, %y) : func
      %2 = partial(@else, %x) : func
      %s = switch(%c, %1, %2) : func
      %r = %s() : f32[2]
      return %r
    }
    graph @then(%y.1: f32[2]) {
      %n = Neg(%y.1) : f32[2]
      return %n
    }
    graph @else(%x.1: f32[2]) {
      return %x.1
    }
  )");
}

TEST(PassLift, RecursiveLoopCapturingAnOuterValue) {
  // @loop captures %n of @f; @body refers to @loop, so it captures %n too and passes it on.
  expect_lifted(R"(
    graph @f(%n: i64) {
      %r = @loop(0, 0) : i64
      return %r
    }
    graph @loop(%i: i64, %acc: i64) {
      %c = lt(%i, %n) : bool
      %s = switch(%c, @body, @exit) : func
      %o = %s() : i64
      return %o
    }
    graph @body() {
      %j = add(%i, 1) : i64
      %a = add(%acc, %i) : i64
      %t = @loop(%j, %a) : i64
      return %t
    }
    graph @exit() {
      return %acc
    }
  )",
                R"(
    graph @f(%n: i64) {
      %r = @loop(%n, 0, 0) : i64
      return %r
    }
    graph @loop(%n.1: i64, %i: i64, %acc: i64) {
      %c = lt(%i, %n.1) : bool
      %1 = partial(@body, %i, %acc, %n.1) : func
      %2 = partial(@exit, %acc) : func
      %s = switch(%c, %1, %2) : func
      %o = %s() : i64
      return %o
    }
    graph @body(%i.1: i64, %acc.1: i64, %n.2: i64) {
      %j = add(%i.1, 1) : i64
      %a = add(%acc.1, %i.1) : i64
      %t = @loop(%n.2, %j, %a) : i64
      return %t
    }
    graph @exit(%acc.2: i64) {
      return %acc.2
    }
  )");
}

TEST(PassLift, SelfReferenceBecomesPartialOfOwnParameters) {
  expect_lifted(R"(
    graph @f(%x: f32[2]) {
      %r = @g(%x) : func
      return %r
    }
    graph @g(%a: f32[2]) {
      %m = Mul(%a, %x) : f32[2]
      %t = make_tuple(%m, @g) : tuple(f32[2], func)
      return %t
    }
  )",
                R"(
    graph @f(%x: f32[2]) {
      %r = @g(%x, %x) : func
      return %r
    }
    graph @g(%x.1: f32[2], %a: f32[2]) {
      %m = Mul(%a, %x.1) : f32[2]
      %1 = partial(@g, %x.1) : func
      %t = make_tuple(%m, %1) : tuple(f32[2], func)
      return %t
    }
  )");
}

TEST(PassLift, CapturesPassThroughIntermediateGraphs) {
  // @h captures %y of @f; @g (nested in @f) only refers to @h, so it receives %y to build
  // the closure.
  expect_lifted(R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g() : func
      return %r
    }
    graph @g() {
      return @h
    }
    graph @h(%a: f32[2]) {
      %m = Mul(%a, %y) : f32[2]
      return %m
    }
  )",
                R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g(%y) : func
      return %r
    }
    graph @g(%y.1: f32[2]) {
      %1 = partial(@h, %y.1) : func
      return %1
    }
    graph @h(%y.2: f32[2], %a: f32[2]) {
      %m = Mul(%a, %y.2) : f32[2]
      return %m
    }
  )");
}

TEST(PassLift, NodeOnlyANestedGraphUsesIsLiftedToo) {
  // %y of @f is used by @g only (not reachable from @f's output through @f's own nodes).
  expect_lifted(R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g() : f32[2]
      return %r
    }
    graph @g() {
      %n = Neg(%y) : f32[2]
      return %n
    }
  )",
                R"(
    graph @f(%x: f32[2]) {
      %y = Exp(%x) : f32[2]
      %r = @g(%y) : f32[2]
      return %r
    }
    graph @g(%y.1: f32[2]) {
      %n = Neg(%y.1) : f32[2]
      return %n
    }
  )");
}

TEST(PassLift, NothingToLift) {
  PassCase c(R"(
    graph @f(%x: f32[2]) {
      %r = @g(%x) : f32[2]
      return %r
    }
    graph @g(%a: f32[2]) {
      %m = Neg(%a) : f32[2]
      return %m
    }
  )");
  std::string before = c.text();
  EXPECT_FALSE(c.run(lift, kLifted));
  EXPECT_EQ(c.text(), before);
}

}  // namespace
}  // namespace mycel::passtest
