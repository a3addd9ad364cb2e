// graph_kernel: before/after IR text; the clusters' legality rules (shape family, reductions
// last, no cycle through an outside node, one-node clusters left alone).
#include "codegen/llvm_emit.h"
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

TEST(PassGraphKernel, LayerNormIsOneStagedKernel) {
  // Values read the row reductions (mean, variance) and a value per row (rsqrt of the
  // variance, shape [4, 1]) joins too: one kernel in three stages per row. The mean is read
  // in the kernel only (an internal output); the variance is also a result.
  PassCase c(R"(
    graph @f(%x: f32[4, 8], %g: f32[8]) {
      %m = ReduceMean{axis=(1,), keep_dims=True}(%x) : f32[4, 1]
      %d = Sub(%x, %m) : f32[4, 8]
      %q = Mul(%d, %d) : f32[4, 8]
      %v = ReduceMean{axis=(-1,), keep_dims=True}(%q) : f32[4, 1]
      %r = Rsqrt(%v) : f32[4, 1]
      %y = Mul(%d, %r) : f32[4, 8]
      %z = Mul(%y, %g) : f32[4, 8]
      %o = make_tuple(%z, %v) : tuple(f32[4, 8], f32[4, 1])
      return %o
    }
  )");
  codegen::LoopKernel lk = lowered(c);
  EXPECT_EQ(lk.text(),
            "kernel dims=[4,8] rows=1\n"
            "  in0 Float32 strides=[8,1]\n"
            "  in1 Float32 strides=[0,1]\n"
            "  v0 = load Float32 in0\n"
            "  v1 = load Float32 in1\n"
            "  v2 = reduced Float32 out2\n"
            "  v3 = sub Float32 v0 v2\n"
            "  v4 = mul Float32 v3 v3\n"
            "  v5 = reduced Float32 out0\n"
            "  v6 = rsqrt Float32 v5\n"
            "  v7 = mul Float32 v3 v6\n"
            "  v8 = mul Float32 v7 v1\n"
            "  out mean v4 Float32 strides=[1,0] numel=4 count=8\n"
            "  out store v8 Float32 strides=[8,1] numel=32 count=1\n"
            "  out mean v0 Float32 strides=[1,0] numel=4 count=8 internal\n");
  EXPECT_EQ(lk.row_dims, 1);
  EXPECT_TRUE(lk.parallel_outer());
}

TEST(PassGraphKernel, ChainsMeetingInANodeMergeIntoOneCluster) {
  // Adam's m and v chains start apart and meet in the parameter's update: one kernel.
  expect_fused(R"(
    graph @f(%p: f32[6], %m: f32[6], %v: f32[6], %g: f32[6]) {
      %a = Mul(%m, %g) : f32[6]
      %b = Add(%a, %g) : f32[6]
      %c = Mul(%v, %v) : f32[6]
      %e = Sqrt(%c) : f32[6]
      %u = Div(%b, %e) : f32[6]
      %q = Sub(%p, %u) : f32[6]
      %r = make_tuple(%q, %b, %c) : tuple(f32[6], f32[6], f32[6])
      return %r
    }
  )",
               R"(
    graph @f(%p: f32[6], %m: f32[6], %v: f32[6], %g: f32[6]) {
      %1 = @GraphKernel_0(%m, %g, %v, %p) : tuple(f32[6], f32[6], f32[6])
      %2 = getitem(%1, 2) : f32[6]
      %3 = getitem(%1, 0) : f32[6]
      %4 = getitem(%1, 1) : f32[6]
      %r = make_tuple(%2, %3, %4) : tuple(f32[6], f32[6], f32[6])
      return %r
    }

    graph @GraphKernel_0(%x0: f32[6], %x1: f32[6], %x2: f32[6], %x3: f32[6]) {
      %a = Mul(%x0, %x1) : f32[6]
      %b = Add(%a, %x1) : f32[6]
      %c = Mul(%x2, %x2) : f32[6]
      %e = Sqrt(%c) : f32[6]
      %u = Div(%b, %e) : f32[6]
      %q = Sub(%x3, %u) : f32[6]
      %5 = make_tuple(%b, %c, %q) : tuple(f32[6], f32[6], f32[6])
      return %5
    }
  )");
}

TEST(PassGraphKernel, ReductionsThatDropOrKeepOuterAxesDoNotStage) {
  // A row reduction that drops its axes, or one of the first axis, ends its chain: the
  // values read after it stay out (here ops of their own).
  expect_fused(R"(
    graph @f(%x: f32[3, 3]) {
      %a = Mul(%x, %x) : f32[3, 3]
      %s = ReduceSum{axis=(1,), keep_dims=False}(%a) : f32[3]
      %t = ReduceSum{axis=(0,), keep_dims=True}(%x) : f32[1, 3]
      %b = Add(%x, %s) : f32[3, 3]
      %c = Sub(%x, %t) : f32[3, 3]
      %r = make_tuple(%b, %c) : tuple(f32[3, 3], f32[3, 3])
      return %r
    }
  )",
               R"(
    graph @f(%x: f32[3, 3]) {
      %1 = @GraphKernel_0(%x) : f32[3]
      %b = Add(%x, %1) : f32[3, 3]
      %t = ReduceSum{axis=(0,), keep_dims=True}(%x) : f32[1, 3]
      %c = Sub(%x, %t) : f32[3, 3]
      %r = make_tuple(%b, %c) : tuple(f32[3, 3], f32[3, 3])
      return %r
    }

    graph @GraphKernel_0(%x0: f32[3, 3]) {
      %a = Mul(%x0, %x0) : f32[3, 3]
      %s = ReduceSum{axis=(1,), keep_dims=False}(%a) : f32[3]
      return %s
    }
  )");
}

TEST(PassGraphKernel, AnOutputStoredInPlaceUsesItsInputsPointer) {
  PassCase c(R"(
    graph @f(%x: f32[8, 16], %y: f32[8, 16]) {
      %a = Add(%x, %y) : f32[8, 16]
      %r = ReLU(%a) : f32[8, 16]
      return %r
    }
  )");
  codegen::LoopKernel lk = lowered(c);
  std::string own = codegen::emit_llvm(lk, "k");
  lk.outputs[0].in_place = 1;  // stored into y's buffer (GeneratedKernel::run, donated)
  EXPECT_EQ(lk.text(),
            "kernel dims=[128]\n"
            "  in0 Float32 strides=[1]\n"
            "  in1 Float32 strides=[1]\n"
            "  v0 = load Float32 in0\n"
            "  v1 = load Float32 in1\n"
            "  v2 = add Float32 v0 v1\n"
            "  v3 = relu Float32 v2\n"
            "  out store v3 Float32 strides=[1] numel=128 count=1 into in1\n");
  // The body reads and writes through parameter 1 (one pointer, so `noalias` holds) and
  // never touches the output's own parameter 2; the kernel without it stores through %p2.
  std::string in_place = codegen::emit_llvm(lk, "k");
  EXPECT_NE(own.find("float* %p2, i64"), std::string::npos) << own;
  EXPECT_EQ(in_place.find("float* %p2, i64"), std::string::npos) << in_place;
  EXPECT_NE(in_place.find("float* %p1, i64"), std::string::npos) << in_place;
}

}  // namespace
}  // namespace mycel::passtest
