// dce: before/after IR text: unused parameters and tuple outputs of called graphs.
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::dce;

TEST(PassDce, UnusedParameterAndItsArgumentsGo) {
  expect_rewrite(dce, R"(
    graph @f(%x: f32[2], %unused: f32[2]) {
      %e = Exp(%x) : f32[2]
      %a = @g(%x, %e) : f32[2]
      %b = @g(%e, %x) : f32[2]
      %r = Add(%a, %b) : f32[2]
      return %r
    }
    graph @g(%p: f32[2], %q: f32[2]) {
      %n = Neg(%p) : f32[2]
      return %n
    }
  )",
                 R"(
    graph @f(%x: f32[2], %unused: f32[2]) {
      %e = Exp(%x) : f32[2]
      %a = @g(%x) : f32[2]
      %b = @g(%e) : f32[2]
      %r = Add(%a, %b) : f32[2]
      return %r
    }
    graph @g(%p: f32[2]) {
      %n = Neg(%p) : f32[2]
      return %n
    }
  )");
}

TEST(PassDce, GraphsUsedAsValuesKeepTheirSignature) {
  expect_unchanged(dce, R"(
    graph @f(%c: bool, %x: f32[2]) {
      %s = switch(%c, @a, @b) : func
      %r = %s(%x, %x) : f32[2]
      %p = partial(@a, %x) : func
      %t = make_tuple(%r, %p) : tuple(f32[2], func)
      return %t
    }
    graph @a(%u: f32[2], %v: f32[2]) {
      return %u
    }
    graph @b(%w: f32[2], %z: f32[2]) {
      return %z
    }
  )");
}

TEST(PassDce, LoopParameterOnlyPassedAlongGoes) {
  // %k is only handed back to @loop at its own position: dead.
  expect_rewrite(dce, R"(
    graph @f(%n: i64, %x: f32[2]) {
      %r = @loop(%n, %x) : i64
      return %r
    }
    graph @loop(%i: i64, %k: f32[2]) {
      %c = lt(%i, 10) : bool
      %s = switch(%c, @body, @exit) : func
      %o = %s() : i64
      return %o
    }
    graph @body() {
      %j = add(%i, 1) : i64
      %t = @loop(%j, %k) : i64
      return %t
    }
    graph @exit() {
      return %i
    }
  )",
                 R"(
    graph @f(%n: i64, %x: f32[2]) {
      %r = @loop(%n) : i64
      return %r
    }
    graph @loop(%i: i64) {
      %c = lt(%i, 10) : bool
      %s = switch(%c, @body, @exit) : func
      %o = %s() : i64
      return %o
    }
    graph @body() {
      %j = add(%i, 1) : i64
      %t = @loop(%j) : i64
      return %t
    }
    graph @exit() {
      return %i
    }
  )");
}

TEST(PassDce, RemovalCascadesToCallers) {
  expect_rewrite(dce, R"(
    graph @f(%x: f32[2]) {
      %a = @g(%x, %x) : f32[2]
      return %a
    }
    graph @g(%p: f32[2], %q: f32[2]) {
      %b = @h(%p, %q) : f32[2]
      return %b
    }
    graph @h(%u: f32[2], %v: f32[2]) {
      %n = Neg(%u) : f32[2]
      return %n
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %a = @g(%x) : f32[2]
      return %a
    }
    graph @g(%p: f32[2]) {
      %b = @h(%p) : f32[2]
      return %b
    }
    graph @h(%u: f32[2]) {
      %n = Neg(%u) : f32[2]
      return %n
    }
  )");
}

TEST(PassDce, UnreadTupleOutputsBecomeNone) {
  expect_rewrite(dce, R"(
    graph @f(%x: f32[2]) {
      %a = @g(%x) : tuple(f32[2], f32[2], f32[2])
      %b = @g(%x) : tuple(f32[2], f32[2], f32[2])
      %e0 = getitem(%a, 0) : f32[2]
      %e2 = getitem(%b, -1) : f32[2]
      %r = Add(%e0, %e2) : f32[2]
      return %r
    }
    graph @g(%p: f32[2]) {
      %u = Exp(%p) : f32[2]
      %v = Log(%p) : f32[2]
      %w = Neg(%p) : f32[2]
      %t = make_tuple(%u, %v, %w) : tuple(f32[2], f32[2], f32[2])
      return %t
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %a = @g(%x) : tuple(f32[2], none, f32[2])
      %e0 = getitem(%a, 0) : f32[2]
      %b = @g(%x) : tuple(f32[2], none, f32[2])
      %e2 = getitem(%b, -1) : f32[2]
      %r = Add(%e0, %e2) : f32[2]
      return %r
    }
    graph @g(%p: f32[2]) {
      %u = Exp(%p) : f32[2]
      %w = Neg(%p) : f32[2]
      %t = make_tuple(%u, None, %w) : tuple(f32[2], none, f32[2])
      return %t
    }
  )");
  // A call whose tuple escapes (returned whole) keeps every element.
  expect_unchanged(dce, R"(
    graph @f(%x: f32[2]) {
      %a = @g(%x) : tuple(f32[2], f32[2])
      return %a
    }
    graph @g(%p: f32[2]) {
      %u = Exp(%p) : f32[2]
      %t = make_tuple(%u, %p) : tuple(f32[2], f32[2])
      return %t
    }
  )");
}

}  // namespace
}  // namespace mycel::passtest
