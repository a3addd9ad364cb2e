// simplify: before/after IR text, and the rewrites that must not happen.
#include "compiler/passes/pass_util.h"
#include "ops/op_table.h"
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::simplify;

TEST(PassSimplify, MultiplyByOneAndAddZero) {
  PassCase c(R"(
    graph @f(%x: f32[2, 3], %one: f32[3], %zero: f32[], %one_s: f32[]) {
      %a = Mul(%x, %one) : f32[2, 3]
      %b = Mul(%one, %a) : f32[2, 3]
      %d = Add(%b, %zero) : f32[2, 3]
      %e = Add(%zero, %d) : f32[2, 3]
      %g = Sub(%e, %zero) : f32[2, 3]
      %h = Div(%g, %one_s) : f32[2, 3]
      return %h
    }
  )",
             {{"one", tensor_f32({3}, {1})},
              {"zero", tensor_f32({}, {0})},
              {"one_s", tensor_f32({}, {1})}});
  EXPECT_TRUE(c.run(simplify));
  EXPECT_EQ(c.text(), canon("graph @f(%x: f32[2, 3]) {\n  return %x\n}\n"));
}

TEST(PassSimplify, AWeightStaysComputedWhenTheProgramUpdatesState) {
  // %a = w * 1 is a fresh value: as w itself it would see the later Assign.
  PassCase c(R"(
    graph @f(%x: f32[3], %w: f32[3], %one: f32[]) {
      %a = Mul(%w, %one) : f32[3]
      %u = Assign(%w, %x) : f32[3]
      %t = make_tuple(%a, %u) : tuple(f32[3], f32[3])
      return %t
    }
  )",
             {{"one", tensor_f32({}, {1})}});
  EXPECT_FALSE(c.run(simplify));
}

TEST(PassSimplify, AnOpWhoseResultAnUpdateWritesIsNotReplaced) {
  // `y = y * 1.0 + 0.0; a = y * 1; ops.assign(y, x); return a`: Add(m, 0) taken for m would
  // make the Assign write m, and a = s * 1 taken for s would read the Assign's value (a must
  // hold the old one). Only the unrelated n * 1 goes.
  PassCase c(R"(
    graph @f(%x: f32[3], %y: f32[3], %one: f32[], %zero: f32[]) {
      %m = Mul(%y, %one) : f32[3]
      %s = Add(%m, %zero) : f32[3]
      %a = Mul(%s, %one) : f32[3]
      %u = Assign(%s, %x) : f32[3]
      %n = Neg(%x) : f32[3]
      %k = Mul(%n, %one) : f32[3]
      %t = make_tuple(%a, %u, %k) : tuple(f32[3], f32[3], f32[3])
      return %t
    }
  )",
             {{"one", tensor_f32({}, {1})}, {"zero", tensor_f32({}, {0})}});
  EXPECT_TRUE(c.run(simplify));
  const std::string out = c.text();
  EXPECT_EQ(out.find("%k ="), std::string::npos) << out;
  for (const char* kept :
       {"%m = Mul(%y,", "%s = Add(%m,", "%a = Mul(%s,", "Assign(%s, %x)", "make_tuple(%a, %u, %n)"})
    EXPECT_NE(out.find(kept), std::string::npos) << kept << "\n" << out;
}

TEST(PassSimplify, TheSiblingRewritesOfAWrittenResultStay) {
  // z - 0, z / 1, Cast to z's dtype, a Reshape to z's shape, Neg(Neg(z)): each result is
  // written, so taking z for it would write z, which the output returns.
  for (const char* op : {"Sub(%z, %zero)", "Div(%z, %one)", "Cast{dtype=f32}(%z)",
                         "Reshape{shape=(3,)}(%z)", "Neg(%nz)"}) {
    PassCase c(str(R"(
      graph @f(%x: f32[3], %y: f32[3], %one: f32[], %zero: f32[]) {
        %z = Mul(%y, %y) : f32[3]
        %nz = Neg(%z) : f32[3]
        %w = )",
                   op, R"( : f32[3]
        %u = Assign(%w, %x) : f32[3]
        %t = make_tuple(%z, %u) : tuple(f32[3], f32[3])
        return %t
      }
    )"),
               {{"one", tensor_f32({}, {1})}, {"zero", tensor_f32({}, {0})}});
    EXPECT_FALSE(c.run(simplify)) << op << "\n" << c.text();
  }
}

TEST(PassSimplify, AReadOfAnUpdatesResultIsNotTakenForTheResult) {
  // The Assign's result is y's storage, which the AssignAdd writes: a = u * 1 must stay a
  // fresh value (it was u, and read the AssignAdd's value).
  PassCase c(R"(
    graph @f(%x: f32[3], %y: f32[3], %one: f32[]) {
      %v = Mul(%y, %y) : f32[3]
      %u = Assign(%v, %x) : f32[3]
      %d = depend(%u, %u) : f32[3]
      %a = Mul(%d, %one) : f32[3]
      %u2 = AssignAdd(%d, %x) : f32[3]
      %t = make_tuple(%a, %u2) : tuple(f32[3], f32[3])
      return %t
    }
  )",
             {{"one", tensor_f32({}, {1})}});
  EXPECT_FALSE(c.run(simplify)) << c.text();
}

TEST(PassSimplify, BroadcastingOrPromotionIsNotLost) {
  // x * 1 where 1 broadcasts x to a larger shape: the result is not x.
  PassCase bcast(R"(
    graph @f(%x: f32[3], %one: f32[2, 3]) {
      %a = Mul(%x, %one) : f32[2, 3]
      return %a
    }
  )",
                 {{"one", tensor_f32({2, 3}, {1})}});
  EXPECT_FALSE(bcast.run(simplify));
  EXPECT_TRUE(bcast.root->output()->is_cnode());
  // Integer x divided by 1 gives floats: not x.
  PassCase div(R"(
    graph @f(%x: i32[3], %one: i32[]) {
      %a = Div(%x, %one) : f32[3]
      return %a
    }
  )",
               {{"one", tensor_of(DType::Int32, {}, 1)}});
  EXPECT_FALSE(div.run(simplify));
  // Not all ones / zero on the wrong side.
  PassCase other(R"(
    graph @f(%x: f32[2], %k: f32[2], %zero: f32[2]) {
      %a = Mul(%x, %k) : f32[2]
      %b = Sub(%zero, %a) : f32[2]
      %c = Div(%zero, %b) : f32[2]
      return %c
    }
  )",
                 {{"k", tensor_f32({2}, {1, 2})}, {"zero", tensor_f32({2}, {0})}});
  std::string before = other.text();
  EXPECT_FALSE(other.run(simplify));
  EXPECT_EQ(other.text(), before);
}

TEST(PassSimplify, DoubleNegation) {
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2]) {
      %a = Neg(%x) : f32[2]
      %b = Neg(%a) : f32[2]
      %c = Neg(%b) : f32[2]
      %r = make_tuple(%a, %c) : tuple(f32[2], f32[2])
      return %r
    }
  )",
                 R"(
    graph @f(%x: f32[2]) {
      %a = Neg(%x) : f32[2]
      %c = Neg(%x) : f32[2]
      %r = make_tuple(%a, %c) : tuple(f32[2], f32[2])
      return %r
    }
  )");
}

TEST(PassSimplify, TransposeOfTranspose) {
  // (1, 2, 0) then (2, 0, 1) is the identity.
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2, 3, 4]) {
      %a = Transpose{perm=(1, 2, 0)}(%x) : f32[3, 4, 2]
      %b = Transpose{perm=(2, 0, 1)}(%a) : f32[2, 3, 4]
      return %b
    }
  )",
                 R"(
    graph @f(%x: f32[2, 3, 4]) {
      return %x
    }
  )");
  // (1, 2, 0) twice is (2, 0, 1); negative axes are normalised.
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2, 3, 4]) {
      %a = Transpose{perm=(1, -1, 0)}(%x) : f32[3, 4, 2]
      %b = Transpose{perm=(1, 2, 0)}(%a) : f32[4, 2, 3]
      return %b
    }
  )",
                 R"(
    graph @f(%x: f32[2, 3, 4]) {
      %b = Transpose{perm=(2, 0, 1)}(%x) : f32[4, 2, 3]
      return %b
    }
  )");
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2, 3]) {
      %a = Transpose{perm=(0, 1)}(%x) : f32[2, 3]
      return %a
    }
  )",
                 "graph @f(%x: f32[2, 3]) {\n  return %x\n}\n");
}

TEST(PassSimplify, OpsCarryingAShardingStrategyStay) {
  // mycel.shard's layout hint (a Reshape to the same shape carrying a strategy) and a
  // sharded Transpose stay, and neither is merged into the op reading it; unmarked, the
  // same program simplifies to %x and Reshape(%x).
  const std::string text = R"(
    graph @f(%x: f32[2, 3]) {
      %a = Reshape{shape=(2, 3)}(%x) : f32[2, 3]
      %b = Reshape{shape=(6,)}(%a) : f32[6]
      %c = Transpose{perm=(1, 0)}(%x) : f32[3, 2]
      %d = Transpose{perm=(1, 0)}(%c) : f32[2, 3]
      %r = make_tuple(%b, %d) : tuple(f32[6], f32[2, 3])
      return %r
    }
  )";
  PassCase plain(text);
  EXPECT_TRUE(plain.run(simplify));
  PassCase c(text);
  for (ir::CNode* n : compiler::detail::walk(c.root).nodes) {
    const ir::PrimData* p = n->prim();
    if (p == nullptr || n->name() == "b" || n->name() == "d") continue;
    Attrs a = p->attrs;
    a.set(kStrategyAttr, std::vector<int64_t>{1, 2, 2, 1});  // ((2, 1),)
    ir::Value prim = ir::Value::prim(*p->op, std::move(a));
    ir::ValueNode* callee = c.m.value(prim);
    callee->set_abstract(ir::Abstract::constant(prim));
    n->set_input(0, callee);
  }
  const std::string marked = c.text();
  EXPECT_FALSE(c.run(simplify));
  EXPECT_EQ(c.text(), marked);
}

TEST(PassSimplify, ReshapeChains) {
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2, 3]) {
      %a = Reshape{shape=(6,)}(%x) : f32[6]
      %b = Reshape{shape=(3, -1)}(%a) : f32[3, 2]
      %c = Reshape{shape=(2, 3)}(%x) : f32[2, 3]
      %r = make_tuple(%b, %c) : tuple(f32[3, 2], f32[2, 3])
      return %r
    }
  )",
                 R"(
    graph @f(%x: f32[2, 3]) {
      %b = Reshape{shape=(3, -1)}(%x) : f32[3, 2]
      %r = make_tuple(%b, %x) : tuple(f32[3, 2], f32[2, 3])
      return %r
    }
  )");
  // ExpandDims then Squeeze of the same axis: x; of another shape: one Reshape.
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2, 3]) {
      %a = ExpandDims{axis=1}(%x) : f32[2, 1, 3]
      %b = Squeeze{axis=(1,)}(%a) : f32[2, 3]
      %c = Flatten(%a) : f32[2, 3]
      %d = ExpandDims{axis=0}(%a) : f32[1, 2, 1, 3]
      %r = make_tuple(%b, %c, %d) : tuple(f32[2, 3], f32[2, 3], f32[1, 2, 1, 3])
      return %r
    }
  )",
                 R"(
    graph @f(%x: f32[2, 3]) {
      %d = Reshape{shape=(1, 2, 1, 3)}(%x) : f32[1, 2, 1, 3]
      %r = make_tuple(%x, %x, %d) : tuple(f32[2, 3], f32[2, 3], f32[1, 2, 1, 3])
      return %r
    }
  )");
}

TEST(PassSimplify, CastAndBroadcastToSameType) {
  expect_rewrite(simplify, R"(
    graph @f(%x: f32[2, 3]) {
      %a = Cast{dtype=f32}(%x) : f32[2, 3]
      %b = BroadcastTo{shape=(2, -1)}(%a) : f32[2, 3]
      %c = Tile{multiples=(1, 1)}(%b) : f32[2, 3]
      %d = Cast{dtype=f16}(%c) : f16[2, 3]
      return %d
    }
  )",
                 R"(
    graph @f(%x: f32[2, 3]) {
      %d = Cast{dtype=f16}(%x) : f16[2, 3]
      return %d
    }
  )");
}

}  // namespace
}  // namespace mycel::passtest

namespace mycel::passtest {
namespace {

TEST(PassSimplify, OnesLikeReadsOnlyTheType) {
  PassCase c(R"(
    graph @f(%x: f32[2, 3]) {
      %a = Exp(%x) : f32[2, 3]
      %o = OnesLike(%a) : f32[2, 3]
      %z = ZerosLike(%a) : f32[2, 3]
      %s = Add(%o, %z) : f32[2, 3]
      return %s
    }
  )");
  EXPECT_TRUE(c.run(compiler::simplify));
  EXPECT_EQ(c.text(), canon(R"(
    graph @f(%x: f32[2, 3]) {
      %o = Fill{dtype=f32, shape=(2, 3), value=1.0}() : f32[2, 3]
      %z = Fill{dtype=f32, shape=(2, 3), value=0.0}() : f32[2, 3]
      %s = Add(%o, %z) : f32[2, 3]
      return %s
    }
  )"));
}

}  // namespace
}  // namespace mycel::passtest
