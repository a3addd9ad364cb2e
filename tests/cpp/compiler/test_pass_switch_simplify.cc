// switch_simplify: before/after IR text.
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::switch_simplify;

TEST(PassSwitchSimplify, ConstantTrueChoosesFirstBranchAndCallBecomesDirect) {
  expect_rewrite(switch_simplify, R"(
    graph @f(%x: f32[2]) {
      %s = switch(True, @then, @else) : func
      %r = %s(%x) : f32[2]
      return %r
    }
    graph @then(%a: f32[2]) {
      %n = Neg(%a) : f32[2]
      return %n
    }
    graph @else(%b: f32[2]) {
      return %b
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %r = @then(%x) : f32[2]
      return %r
    }
    graph @then(%a: f32[2]) {
      %n = Neg(%a) : f32[2]
      return %n
    }
  )");
}

TEST(PassSwitchSimplify, ConstantFalseAndIntConditions) {
  expect_rewrite(switch_simplify, R"(
    graph @f(%x: i64, %y: i64) {
      %a = switch(False, %x, %y) : i64
      %b = switch(0, %x, %y) : i64
      %c = switch(7, %x, %y) : i64
      %t = make_tuple(%a, %b, %c) : tuple(i64, i64, i64)
      return %t
    }
  )",
                 R"(
    graph @f(%x: i64, %y: i64) {
      %t = make_tuple(%y, %y, %x) : tuple(i64, i64, i64)
      return %t
    }
  )");
}

TEST(PassSwitchSimplify, SameBranchesOnRuntimeCondition) {
  expect_rewrite(switch_simplify, R"(
    graph @f(%c: bool, %x: f32[2]) {
      %s = switch(%c, %x, %x) : f32[2]
      %k = switch(%c, 3, 3) : i64=3
      %t = make_tuple(%s, %k) : tuple(f32[2], i64=3)
      return %t
    }
  )",
                 R"(
    graph @f(%c: bool, %x: f32[2]) {
      %t = make_tuple(%x, 3) : tuple(f32[2], i64=3)
      return %t
    }
  )");
}

TEST(PassSwitchSimplify, RuntimeConditionIsKept) {
  expect_unchanged(switch_simplify, R"(
    graph @f(%c: bool, %x: f32[2]) {
      %s = switch(%c, @then, @else) : func
      %r = %s(%x) : f32[2]
      return %r
    }
    graph @then(%a: f32[2]) {
      %n = Neg(%a) : f32[2]
      return %n
    }
    graph @else(%b: f32[2]) {
      return %b
    }
  )");
}

TEST(PassSwitchSimplify, NestedSwitchInOutputResolves) {
  expect_rewrite(switch_simplify, R"(
    graph @f(%x: i64, %y: i64) {
      %s = switch(True, %x, %y) : i64
      %u = switch(False, %y, %s) : i64
      return %u
    }
  )",
                 R"(
    graph @f(%x: i64, %y: i64) {
      return %x
    }
  )");
}

}  // namespace
}  // namespace mycel::passtest
