// graph_kernel: before/after IR text; the clusters' legality rules (shape family, reductions
// last, no cycle through an outside node, one-node clusters left alone).
#include "codegen/loop_ir.h"
#include "pass_test_util.h"

namespace mycel::passtest {
namespace {

using compiler::graph_kernel;

constexpr ir::VerifyOptions kLifted{.specialized = true, .lifted = true};

// Runs the pass on `before`, expects `after`, then no change on a second run; every graph the
// pass made is a GraphKernel graph.
void expect_fused(const std::string& before, const std::string& after) {
  PassCase c(before);
  EXPECT_TRUE(c.run(graph_kernel, kLifted));
  EXPECT_EQ(c.text(), canon(after));
  int flagged = 0;
  for (const auto& g : c.m.graphs()) flagged += codegen::is_graph_kernel(g.get());
  EXPECT_GT(flagged, 0);
  EXPECT_FALSE(c.run(graph_kernel, kLifted)) << c.text();
}

// Runs the pass on c (which must make one GraphKernel graph) and returns its loop kernel.
codegen::LoopKernel lowered(PassCase& c) {
  EXPECT_TRUE(c.run(graph_kernel, kLifted));
  ir::FuncGraph* k = nullptr;
  for (const auto& g : c.m.graphs())
    if (codegen::is_graph_kernel(g.get())) k = g.get();
  EXPECT_NE(k, nullptr);
  return k != nullptr ? codegen::lower(k) : codegen::LoopKernel{};
}

TEST(PassGraphKernel, ChainWithReductionBecomesOneCallWithTwoResults) {
  expect_fused(R"(
    graph @f(%x: f32[4, 8], %m: f32[4, 1], %y: f32[8]) {
      %a = Sub(%x, %m) : f32[4, 8]
      %b = Mul(%a, %a) : f32[4, 8]
      %s = ReduceSum{axis=(1,), keep_dims=False}(%b) : f32[4]
      %c = Add(%a, %y) : f32[4, 8]
      %r = make_tuple(%c, %s) : tuple(f32[4, 8], f32[4])
      return %r
    }
  )",
               R"(
    graph @f(%x: f32[4, 8], %m: f32[4, 1], %y: f32[8]) {
      %1 = @GraphKernel_0(%x, %m, %y) : tuple(f32[4, 8], f32[4])
      %2 = getitem(%1, 0) : f32[4, 8]
      %3 = getitem(%1, 1) : f32[4]
      %r = make_tuple(%2, %3) : tuple(f32[4, 8], f32[4])
      return %r
    }

    graph @GraphKernel_0(%x0: f32[4, 8], %x1: f32[4, 1], %x2: f32[8]) {
      %a = Sub(%x0, %x1) : f32[4, 8]
      %c = Add(%a, %x2) : f32[4, 8]
      %b = Mul(%a, %a) : f32[4, 8]
      %s = ReduceSum{axis=(1,), keep_dims=False}(%b) : f32[4]
      %4 = make_tuple(%c, %s) : tuple(f32[4, 8], f32[4])
      return %4
    }
  )");
}

TEST(PassGraphKernel, OneResultNeedsNoTuple) {
  expect_fused(R"(
    graph @f(%x: f64[3], %y: f64[3]) {
      %a = Mul(%x, %y) : f64[3]
      %b = ReLU(%a) : f64[3]
      return %b
    }
  )",
               R"(
    graph @f(%x: f64[3], %y: f64[3]) {
      %0 = @GraphKernel_0(%x, %y) : f64[3]
      return %0
    }

    graph @GraphKernel_0(%x0: f64[3], %x1: f64[3]) {
      %a = Mul(%x0, %x1) : f64[3]
      %b = ReLU(%a) : f64[3]
      return %b
    }
  )");
}

TEST(PassGraphKernel, ANodeAfterAnOutsideUserOfTheClusterStartsItsOwn) {
  // %c reads %a and %p, and %p (not fusible) reads %a: joining %a's cluster would make the
  // call both feed and read %p. One-node clusters stay as they were.
  expect_unchanged(graph_kernel, R"(
    graph @f(%x: f32[2, 2], %w: f32[2, 2]) {
      %a = Mul(%x, %x) : f32[2, 2]
      %p = MatMul{transpose_a=False, transpose_b=False}(%a, %w) : f32[2, 2]
      %c = Add(%a, %p) : f32[2, 2]
      return %c
    }
  )");
}

TEST(PassGraphKernel, ShapesOutsideTheFamilyAndReducedValuesDoNotJoin) {
  // %b has another shape than %a and reads a reduction (reductions end a cluster); Log and
  // float16 do not fuse at all.
  expect_unchanged(graph_kernel, R"(
    graph @f(%x: f32[2, 3], %y: f32[3], %h: f16[3]) {
      %a = Mul(%x, %x) : f32[2, 3]
      %s = ReduceSum{axis=(0,), keep_dims=False}(%x) : f32[3]
      %b = Add(%s, %y) : f32[3]
      %e = Log(%b) : f32[3]
      %h2 = Add(%h, %h) : f16[3]
      %h3 = Mul(%h2, %h) : f16[3]
      %r = make_tuple(%a, %e, %h3) : tuple(f32[2, 3], f32[3], f16[3])
      return %r
    }
  )");
}

TEST(PassGraphKernel, LoweringMergesDimensionsAndBroadcasts) {
  PassCase c(R"(
    graph @f(%x: f32[4, 5, 6], %b: f32[6]) {
      %a = Add(%x, %b) : f32[4, 5, 6]
      %s = ReduceMax{axis=(0,), keep_dims=True}(%a) : f32[1, 5, 6]
      return %s
    }
  )");
  codegen::LoopKernel lk = lowered(c);
  // [4, 5*6]: x walks both dimensions, b only the inner one within each 6 (no merge), the max
  // reduces the outer one.
  EXPECT_EQ(lk.text(),
            "kernel dims=[4,5,6]\n"
            "  in0 Float32 strides=[30,6,1]\n"
            "  in1 Float32 strides=[0,0,1]\n"
            "  v0 = load Float32 in0\n"
            "  v1 = load Float32 in1\n"
            "  v2 = add Float32 v0 v1\n"
            "  out max v2 Float32 strides=[0,6,1] numel=30 count=4\n");
  EXPECT_FALSE(lk.parallel_outer());
}

TEST(PassGraphKernel, BFloat16ErfAndBothGeLUFormsLower) {
  // bfloat16 fuses (each op rounded in the emitter); Erf and GeLU fuse, GeLU's form by its
  // attribute; a bfloat16 Cast to float32 ends in a float32 value.
  PassCase c(R"(
    graph @f(%x: bf16[8, 3], %y: f32[3]) {
      %a = Erf(%x) : bf16[8, 3]
      %b = GeLU{approximate="tanh"}(%a) : bf16[8, 3]
      %g = GeLU{approximate="none"}(%b) : bf16[8, 3]
      %c = Cast{dtype=f32}(%g) : f32[8, 3]
      %d = Mul(%c, %y) : f32[8, 3]
      return %d
    }
  )");
  EXPECT_EQ(lowered(c).text(),
            "kernel dims=[8,3]\n"
            "  in0 BFloat16 strides=[3,1]\n"
            "  in1 Float32 strides=[0,1]\n"
            "  v0 = load BFloat16 in0\n"
            "  v1 = load Float32 in1\n"
            "  v2 = erf BFloat16 v0\n"
            "  v3 = gelu_tanh BFloat16 v2\n"
            "  v4 = gelu BFloat16 v3\n"
            "  v5 = cast Float32 v4\n"
            "  v6 = mul Float32 v5 v1\n"
            "  out store v6 Float32 strides=[3,1] numel=24 count=1\n");
}

TEST(PassGraphKernel, BFloat16MaxReductionsAndFloat64CastsStayUnfused) {
  // bfloat16 max/min reductions and casts between bfloat16 and anything but float32 are left
  // to the op kernels (one-node clusters stay as they are).
  expect_unchanged(graph_kernel, R"(
    graph @f(%x: bf16[4, 3], %z: f64[4, 3]) {
      %m = ReduceMax{axis=(0,), keep_dims=False}(%x) : bf16[3]
      %c = Cast{dtype=bf16}(%z) : bf16[4, 3]
      %e = Cast{dtype=f64}(%x) : f64[4, 3]
      %r = make_tuple(%m, %c, %e) : tuple(bf16[3], bf16[4, 3], f64[4, 3])
      return %r
    }
  )");
}

}  // namespace
}  // namespace mycel::passtest
