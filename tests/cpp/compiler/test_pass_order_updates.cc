// order_updates: before/after IR text. Readers of a written tensor run before the update;
// readers that depend on it, other writers and constants are left alone.
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::order_updates;

TEST(PassOrderUpdates, IndependentReadersRunBeforeTheUpdate) {
  expect_rewrite(order_updates, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %y = Mul(%w, %x) : f32[3]
      %u = Assign(%w, %x) : f32[3]
      %z = Add(%u, %y) : f32[3]
      return %z
    }
  )",
                 R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %y = Mul(%w, %x) : f32[3]
      %1 = depend(%w, %y) : f32[3]
      %u = Assign(%1, %x) : f32[3]
      %z = Add(%u, %y) : f32[3]
      return %z
    }
  )");
}

TEST(PassOrderUpdates, ReadersThatDependOnTheUpdateAndOtherWritersAreLeft) {
  // %r reads %w but needs %u's result (through %v): it cannot run first. %a2 writes %w too:
  // writers keep their data order.
  expect_unchanged(order_updates, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u = Assign(%w, %x) : f32[3]
      %v = Neg(%u) : f32[3]
      %r = Add(%w, %v) : f32[3]
      %a2 = AssignAdd(%w, %r) : f32[3]
      return %a2
    }
  )");
}

TEST(PassOrderUpdates, AReaderOfAnEarlierUpdatesResultRunsBeforeTheNextUpdate) {
  // %u1's result is %w's storage (an update returns its variable): %r reads it as %u1 left
  // it, so it runs before %u2 writes %w again (it did not: %r read the AssignAdd's value).
  expect_rewrite(order_updates, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u1 = Assign(%w, %x) : f32[3]
      %r = Mul(%u1, %x) : f32[3]
      %d = depend(%w, %u1) : f32[3]
      %u2 = AssignAdd(%d, %x) : f32[3]
      %t = make_tuple(%r, %u2) : tuple(f32[3], f32[3])
      return %t
    }
  )",
                 R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u1 = Assign(%w, %x) : f32[3]
      %d = depend(%w, %u1) : f32[3]
      %r = Mul(%u1, %x) : f32[3]
      %1 = depend(%d, %r) : f32[3]
      %u2 = AssignAdd(%1, %x) : f32[3]
      %t = make_tuple(%r, %u2) : tuple(f32[3], f32[3])
      return %t
    }
  )");
}

TEST(PassOrderUpdates, EveryWrittenInputOfAMultiOutputUpdate) {
  expect_rewrite(order_updates, R"(
    graph @f(%w: f32[2], %m: f32[2], %v: f32[2], %g: f32[2], %s: f32[]) {
      %rm = Exp(%m) : f32[2]
      %rv = Exp(%v) : f32[2]
      %a = Adam{use_locking=False, use_nesterov=False}(%w, %m, %v, %s, %s, %s, %s, %s, %s, %g) : tuple(f32[2], f32[2], f32[2])
      %t = make_tuple(%a, %rm, %rv) : tuple(tuple(f32[2], f32[2], f32[2]), f32[2], f32[2])
      return %t
    }
  )",
                 R"(
    graph @f(%w: f32[2], %m: f32[2], %v: f32[2], %g: f32[2], %s: f32[]) {
      %1 = depend(%m, %rm) : f32[2]
      %rm = Exp(%m) : f32[2]
      %2 = depend(%v, %rv) : f32[2]
      %rv = Exp(%v) : f32[2]
      %a = Adam{use_locking=False, use_nesterov=False}(%w, %1, %2, %s, %s, %s, %s, %s, %s, %g) : tuple(f32[2], f32[2], f32[2])
      %t = make_tuple(%a, %rm, %rv) : tuple(tuple(f32[2], f32[2], f32[2]), f32[2], f32[2])
      return %t
    }
  )");
}

TEST(PassOrderUpdates, ReadersOfAViewRunBeforeTheUpdate) {
  // The executor may run Reshape as a view of %n: Gather reads %n's storage too.
  expect_rewrite(order_updates, R"(
    graph @f(%n: i32[1], %lr: f32[3]) {
      %s = Reshape{shape=()}(%n) : i32[]
      %g = Gather{axis=0, batch_dims=0}(%lr, %s) : f32[]
      %u = AssignAdd(%n, %n) : i32[1]
      %t = make_tuple(%g, %u) : tuple(f32[], i32[1])
      return %t
    }
  )",
                 R"(
    graph @f(%n: i32[1], %lr: f32[3]) {
      %s = Reshape{shape=()}(%n) : i32[]
      %g = Gather{axis=0, batch_dims=0}(%lr, %s) : f32[]
      %1 = depend(%n, %s, %g) : i32[1]
      %u = AssignAdd(%1, %n) : i32[1]
      %t = make_tuple(%g, %u) : tuple(f32[], i32[1])
      return %t
    }
  )");
}

TEST(PassOrderUpdates, ProgramOrderThroughTheSpecialisersDepends) {
  // The specialiser reads %w after %u1 as depend(%w, %u1) (%r) and writes it again through
  // the same node. %y reads %r before %u2 in the program: it runs first, although the
  // written input %r itself already precedes %u2.
  expect_rewrite(order_updates, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u1 = Assign(%w, %x) : f32[3]
      %r = depend(%w, %u1) : f32[3]
      %y = Mul(%r, %x) : f32[3]
      %u2 = AssignAdd(%r, %x) : f32[3]
      %t = make_tuple(%y, %u2) : tuple(f32[3], f32[3])
      return %t
    }
  )",
                 R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u1 = Assign(%w, %x) : f32[3]
      %r = depend(%w, %u1) : f32[3]
      %y = Mul(%r, %x) : f32[3]
      %1 = depend(%r, %y) : f32[3]
      %u2 = AssignAdd(%1, %x) : f32[3]
      %t = make_tuple(%y, %u2) : tuple(f32[3], f32[3])
      return %t
    }
  )");
}

TEST(PassOrderUpdates, ReadersOfTheRootThroughAViewTheUpdateAlreadyFollows) {
  // The written input is depend(%w, %v): %v, a view of %w, precedes the update, but %y reads
  // %w's storage through it and must run first too.
  expect_rewrite(order_updates, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %v = Reshape{shape=(1, 3)}(%w) : f32[1, 3]
      %y = Neg(%v) : f32[1, 3]
      %d = depend(%w, %v) : f32[3]
      %u = Assign(%d, %x) : f32[3]
      %t = make_tuple(%y, %u) : tuple(f32[1, 3], f32[3])
      return %t
    }
  )",
                 R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %v = Reshape{shape=(1, 3)}(%w) : f32[1, 3]
      %y = Neg(%v) : f32[1, 3]
      %d = depend(%w, %v) : f32[3]
      %1 = depend(%d, %y) : f32[3]
      %u = Assign(%1, %x) : f32[3]
      %t = make_tuple(%y, %u) : tuple(f32[1, 3], f32[3])
      return %t
    }
  )");
}

// The state an update writes beyond its outputs (OpDef::writes): ApplyMomentum's
// accumulation, read before the update in the source, is read before it in the graph.
TEST(PassOrderUpdates, StateWrittenBeyondTheOutputs) {
  expect_rewrite(order_updates, R"(
    graph @f(%w: f32[2], %acc: f32[2], %g: f32[2], %s: f32[]) {
      %r = Neg(%acc) : f32[2]
      %u = ApplyMomentum{use_nesterov=False, use_locking=False, gradient_scale=1.0}(%w, %acc, %s, %g, %s) : f32[2]
      %t = make_tuple(%u, %r) : tuple(f32[2], f32[2])
      return %t
    }
  )",
                 R"(
    graph @f(%w: f32[2], %acc: f32[2], %g: f32[2], %s: f32[]) {
      %1 = depend(%acc, %r) : f32[2]
      %r = Neg(%acc) : f32[2]
      %u = ApplyMomentum{use_nesterov=False, use_locking=False, gradient_scale=1.0}(%w, %1, %s, %g, %s) : f32[2]
      %t = make_tuple(%u, %r) : tuple(f32[2], f32[2])
      return %t
    }
  )");
}

}  // namespace
}  // namespace mycel::passtest
