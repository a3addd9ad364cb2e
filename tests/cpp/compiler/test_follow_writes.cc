// follow_writes (compiler/ad/k_transform.h): before/after IR text. A read ordered after an
// Assign/AssignAdd of the same storage reads the write's result; a read before it, or a
// write of another storage, is left alone.
#include "compiler/ad/k_transform.h"
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

bool follow(Module& m, FuncGraph* g) { return ir::follow_writes(m, g); }

TEST(FollowWrites, AReadOfAWeightAfterItsWriteReadsTheWrite) {
  // The specialiser reads the weight after the write as depend(w, state): the gradient of
  // %y would stop at w's old value. The old input stays an order input of the depend.
  expect_rewrite(follow, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %a = Mul(%w, %x) : f32[3]
      %v = Mul(%x, %x) : f32[3]
      %u = AssignAdd(%w, %v) : f32[3]
      %s = depend(0, %u) : i64
      %r = depend(%w, %s) : f32[3]
      %y = Mul(%r, %a) : f32[3]
      return %y
    }
  )",
                 R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %a = Mul(%w, %x) : f32[3]
      %v = Mul(%x, %x) : f32[3]
      %u = AssignAdd(%w, %v) : f32[3]
      %s = depend(0, %u) : i64
      %r = depend(%u, %s, %w) : f32[3]
      %y = Mul(%r, %a) : f32[3]
      return %y
    }
  )");
}

TEST(FollowWrites, TheLatestWriteAndACallAfterIt) {
  // Two writes: the read after both reads the second; the call of @g (a branch, a loop's
  // next iteration) ordered after the first write by the token takes its result.
  expect_rewrite(follow, R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u1 = Assign(%w, %x) : f32[3]
      %s1 = depend(0, %u1) : i64
      %c = @g(%w, %s1) : f32[3]
      %d1 = depend(%w, %s1) : f32[3]
      %u2 = AssignAdd(%d1, %x) : f32[3]
      %s2 = depend(0, %u2) : i64
      %r = depend(%w, %s2) : f32[3]
      %t = make_tuple(%c, %r) : tuple(f32[3], f32[3])
      return %t
    }
    graph @g(%p: f32[3], %k: i64) {
      %e = Exp(%p) : f32[3]
      return %e
    }
  )",
                 R"(
    graph @f(%x: f32[3], %w: f32[3]) {
      %u1 = Assign(%w, %x) : f32[3]
      %s1 = depend(0, %u1) : i64
      %c = @g(%u1, %s1) : f32[3]
      %d1 = depend(%u1, %s1, %w) : f32[3]
      %u2 = AssignAdd(%d1, %x) : f32[3]
      %s2 = depend(0, %u2) : i64
      %r = depend(%u2, %s2, %w) : f32[3]
      %t = make_tuple(%c, %r) : tuple(f32[3], f32[3])
      return %t
    }
    graph @g(%p: f32[3], %k: i64) {
      %e = Exp(%p) : f32[3]
      return %e
    }
  )");
}

TEST(FollowWrites, ReadsNotOrderedAfterTheWriteAndOtherStoragesStay) {
  // %a is not ordered after the write (order_updates runs it first: the old value); %r
  // reads another tensor; an optimizer's update is not differentiable and is not followed.
  expect_unchanged(follow, R"(
    graph @f(%x: f32[3], %w: f32[3], %z: f32[3], %m: f32[3], %lr: f32[], %mo: f32[]) {
      %a = Mul(%w, %x) : f32[3]
      %u = Assign(%w, %x) : f32[3]
      %s = depend(0, %u) : i64
      %r = depend(%z, %s) : f32[3]
      %o = ApplyMomentum{use_nesterov=False, use_locking=False, gradient_scale=1.0}(%z, %m, %lr, %x, %mo) : f32[3]
      %s2 = depend(0, %o) : i64
      %r2 = depend(%z, %s2) : f32[3]
      %t = make_tuple(%a, %r, %r2) : tuple(f32[3], f32[3], f32[3])
      return %t
    }
  )");
}

}  // namespace
}  // namespace mycel::passtest
