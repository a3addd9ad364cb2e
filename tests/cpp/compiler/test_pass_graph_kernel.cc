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

// The IR after graph_kernel, and the number of GraphKernel graphs it made.
std::pair<std::string, int> after_graph_kernel(const std::string& before) {
  PassCase c(before);
  EXPECT_TRUE(c.run(graph_kernel, kLifted));
  int kernels = 0;
  for (const auto& g : c.m.graphs()) kernels += codegen::is_graph_kernel(g.get());
  return {c.text(), kernels};
}

TEST(PassGraphKernel, TrainingBatchNormBeforeAReluBecomesStatisticsAndOneNormaliseKernel) {
  // Expanded (graph_kernel_expand.h): a kernel of both channel sums (in float64), per-channel
  // kernels (mean, variance, 1/sqrt, a and b of y = x * a + b, the running statistics), and
  // x * a + b with the ReLU in one kernel; the running statistics are Assigns the output
  // depends on. No BatchNorm is left.
  auto [text, kernels] = after_graph_kernel(R"(
    graph @f(%x: f32[4, 3, 4, 4], %s: f32[3], %b: f32[3], %m: f32[3], %v: f32[3]) {
      %bn = BatchNorm{is_training=True, epsilon=0.001, momentum=0.1, data_format="NCHW"}(%x, %s, %b, %m, %v) : tuple(f32[4, 3, 4, 4], f32[3], f32[3], f32[3], f32[3])
      %y = getitem(%bn, 0) : f32[4, 3, 4, 4]
      %r = ReLU(%y) : f32[4, 3, 4, 4]
      return %r
    }
  )");
  EXPECT_EQ(text, dedent(R"(
    graph @f(%x: f32[4, 3, 4, 4], %s: f32[3], %b: f32[3], %m: f32[3], %v: f32[3]) {
      %1 = @GraphKernel_0(%x) : tuple(f64[1, 3, 1, 1], f64[1, 3, 1, 1])
      %2 = getitem(%1, 0) : f64[1, 3, 1, 1]
      %3 = getitem(%1, 1) : f64[1, 3, 1, 1]
      %4 = depend(%2, %3) : f64[1, 3, 1, 1]
      %5 = Div(%3, tensor<f64[]>(64.0)) : f64[1, 3, 1, 1]
      %6 = Reshape{shape=(1, 3, 1, 1)}(%s) : f32[1, 3, 1, 1]
      %7 = Reshape{shape=(1, 3, 1, 1)}(%v) : f32[1, 3, 1, 1]
      %8 = Reshape{shape=(1, 3, 1, 1)}(%b) : f32[1, 3, 1, 1]
      %9 = Reshape{shape=(1, 3, 1, 1)}(%m) : f32[1, 3, 1, 1]
      %10 = @GraphKernel_1(%4, tensor<f64[]>(64.0), %5, tensor<f64[]>(0.0), tensor<f64[]>(0.001), tensor<f64[]>(1.0), %6, tensor<f64[]>(0.1), tensor<f64[]>(1.0158730158730158), %7, tensor<f64[]>(0.9), %8, %9) : tuple(f32[1, 3, 1, 1], f32[1, 3, 1, 1], f32[1, 3, 1, 1], f32[1, 3, 1, 1])
      %11 = getitem(%10, 0) : f32[1, 3, 1, 1]
      %12 = getitem(%10, 2) : f32[1, 3, 1, 1]
      %13 = @GraphKernel_2(%x, %11, %12) : f32[4, 3, 4, 4]
      %14 = getitem(%10, 3) : f32[1, 3, 1, 1]
      %15 = Reshape{shape=(3,)}(%14) : f32[3]
      %16 = Assign(%m, %15) : f32[3]
      %17 = getitem(%10, 1) : f32[1, 3, 1, 1]
      %18 = Reshape{shape=(3,)}(%17) : f32[3]
      %19 = Assign(%v, %18) : f32[3]
      %20 = depend(%13, %16, %19) : f32[4, 3, 4, 4]
      return %20
    }

    graph @GraphKernel_2(%x0: f32[4, 3, 4, 4], %x1: f32[1, 3, 1, 1], %x2: f32[1, 3, 1, 1]) {
      %21 = Mul(%x0, %x1) : f32[4, 3, 4, 4]
      %22 = Add(%21, %x2) : f32[4, 3, 4, 4]
      %r = ReLU(%22) : f32[4, 3, 4, 4]
      return %r
    }

    graph @GraphKernel_1(%x0.1: f64[1, 3, 1, 1], %x1.1: f64[], %x2.1: f64[1, 3, 1, 1], %x3: f64[], %x4: f64[], %x5: f64[], %x6: f32[1, 3, 1, 1], %x7: f64[], %x8: f64[], %x9: f32[1, 3, 1, 1], %x10: f64[], %x11: f32[1, 3, 1, 1], %x12: f32[1, 3, 1, 1]) {
      %23 = Div(%x0.1, %x1.1) : f64[1, 3, 1, 1]
      %24 = Square(%23) : f64[1, 3, 1, 1]
      %25 = Sub(%x2.1, %24) : f64[1, 3, 1, 1]
      %26 = Maximum(%25, %x3) : f64[1, 3, 1, 1]
      %27 = Add(%26, %x4) : f64[1, 3, 1, 1]
      %28 = Sqrt(%27) : f64[1, 3, 1, 1]
      %29 = Div(%x5, %28) : f64[1, 3, 1, 1]
      %30 = Cast{dtype=f64}(%x6) : f64[1, 3, 1, 1]
      %31 = Mul(%29, %30) : f64[1, 3, 1, 1]
      %32 = Cast{dtype=f32}(%31) : f32[1, 3, 1, 1]
      %33 = Cast{dtype=f64}(%x9) : f64[1, 3, 1, 1]
      %34 = Mul(%33, %x10) : f64[1, 3, 1, 1]
      %35 = Mul(%26, %x7) : f64[1, 3, 1, 1]
      %36 = Mul(%35, %x8) : f64[1, 3, 1, 1]
      %37 = Add(%34, %36) : f64[1, 3, 1, 1]
      %38 = Cast{dtype=f32}(%37) : f32[1, 3, 1, 1]
      %39 = Cast{dtype=f64}(%x11) : f64[1, 3, 1, 1]
      %40 = Mul(%23, %29) : f64[1, 3, 1, 1]
      %41 = Mul(%40, %30) : f64[1, 3, 1, 1]
      %42 = Sub(%39, %41) : f64[1, 3, 1, 1]
      %43 = Cast{dtype=f32}(%42) : f32[1, 3, 1, 1]
      %44 = Cast{dtype=f64}(%x12) : f64[1, 3, 1, 1]
      %45 = Mul(%44, %x10) : f64[1, 3, 1, 1]
      %46 = Mul(%23, %x7) : f64[1, 3, 1, 1]
      %47 = Add(%45, %46) : f64[1, 3, 1, 1]
      %48 = Cast{dtype=f32}(%47) : f32[1, 3, 1, 1]
      %49 = make_tuple(%32, %38, %43, %48) : tuple(f32[1, 3, 1, 1], f32[1, 3, 1, 1], f32[1, 3, 1, 1], f32[1, 3, 1, 1])
      return %49
    }

    graph @GraphKernel_0(%x0.2: f32[4, 3, 4, 4]) {
      %50 = Cast{dtype=f64}(%x0.2) : f64[4, 3, 4, 4]
      %51 = ReduceSum{axis=(0, 2, 3), keep_dims=True}(%50) : f64[1, 3, 1, 1]
      %52 = Square(%50) : f64[4, 3, 4, 4]
      %53 = ReduceSum{axis=(0, 2, 3), keep_dims=True}(%52) : f64[1, 3, 1, 1]
      %54 = make_tuple(%51, %53) : tuple(f64[1, 3, 1, 1], f64[1, 3, 1, 1])
      return %54
    }
  )"));
  EXPECT_EQ(kernels, 3);
}

TEST(PassGraphKernel, TrainingBatchNormGradAfterAReluGradSumsInOnePass) {
  auto [text, kernels] = after_graph_kernel(R"(
    graph @f(%g: f32[4, 3, 4, 4], %o: f32[4, 3, 4, 4], %x: f32[4, 3, 4, 4], %s: f32[3], %m: f32[3], %i: f32[3]) {
      %dy = ReluGrad(%g, %o) : f32[4, 3, 4, 4]
      %bg = BatchNormGrad{is_training=True, epsilon=0.001, data_format="NCHW"}(%dy, %x, %s, %m, %i) : tuple(f32[4, 3, 4, 4], f32[3], f32[3])
      %dx = getitem(%bg, 0) : f32[4, 3, 4, 4]
      %ds = getitem(%bg, 1) : f32[3]
      %db = getitem(%bg, 2) : f32[3]
      %r = make_tuple(%dx, %ds, %db) : tuple(f32[4, 3, 4, 4], f32[3], f32[3])
      return %r
    }
  )");
  EXPECT_EQ(text, dedent(R"(
    graph @f(%g: f32[4, 3, 4, 4], %o: f32[4, 3, 4, 4], %x: f32[4, 3, 4, 4], %s: f32[3], %m: f32[3], %i: f32[3]) {
      %1 = Reshape{shape=(1, 3, 1, 1)}(%s) : f32[1, 3, 1, 1]
      %2 = Reshape{shape=(1, 3, 1, 1)}(%i) : f32[1, 3, 1, 1]
      %3 = @GraphKernel_0(%1, %2) : tuple(f64[1, 3, 1, 1], f32[1, 3, 1, 1], f64[1, 3, 1, 1], f64[1, 3, 1, 1])
      %4 = getitem(%3, 1) : f32[1, 3, 1, 1]
      %5 = Reshape{shape=(1, 3, 1, 1)}(%m) : f32[1, 3, 1, 1]
      %6 = @GraphKernel_1(%g, %o, %x, %5) : tuple(f32[4, 3, 4, 4], f32[1, 3, 1, 1], f32[1, 3, 1, 1])
      %7 = getitem(%6, 1) : f32[1, 3, 1, 1]
      %8 = getitem(%6, 2) : f32[1, 3, 1, 1]
      %9 = depend(%4, %7, %8) : f32[1, 3, 1, 1]
      %10 = getitem(%6, 0) : f32[4, 3, 4, 4]
      %11 = getitem(%3, 2) : f64[1, 3, 1, 1]
      %12 = depend(%7, %8) : f32[1, 3, 1, 1]
      %13 = Cast{dtype=f64}(%12) : f64[1, 3, 1, 1]
      %14 = @GraphKernel_2(%11, %13, tensor<f64[]>(64.0)) : f32[1, 3, 1, 1]
      %15 = getitem(%3, 3) : f64[1, 3, 1, 1]
      %16 = depend(%8, %7) : f32[1, 3, 1, 1]
      %17 = getitem(%3, 0) : f64[1, 3, 1, 1]
      %18 = @GraphKernel_3(%16, %17) : tuple(f64[1, 3, 1, 1], f32[1, 3, 1, 1])
      %19 = getitem(%18, 0) : f64[1, 3, 1, 1]
      %20 = @GraphKernel_4(%15, %19, tensor<f64[]>(64.0)) : f32[1, 3, 1, 1]
      %21 = @GraphKernel_5(%9, %10, %14, %x, %5, %20) : f32[4, 3, 4, 4]
      %22 = getitem(%18, 1) : f32[1, 3, 1, 1]
      %23 = Reshape{shape=(3,)}(%22) : f32[3]
      %24 = Reshape{shape=(3,)}(%7) : f32[3]
      %r = make_tuple(%21, %23, %24) : tuple(f32[4, 3, 4, 4], f32[3], f32[3])
      return %r
    }

    graph @GraphKernel_5(%x0: f32[1, 3, 1, 1], %x1: f32[4, 3, 4, 4], %x2: f32[1, 3, 1, 1], %x3: f32[4, 3, 4, 4], %x4: f32[1, 3, 1, 1], %x5: f32[1, 3, 1, 1]) {
      %25 = Mul(%x0, %x1) : f32[4, 3, 4, 4]
      %26 = Add(%25, %x2) : f32[4, 3, 4, 4]
      %27 = Sub(%x3, %x4) : f32[4, 3, 4, 4]
      %28 = Mul(%x5, %27) : f32[4, 3, 4, 4]
      %29 = Add(%26, %28) : f32[4, 3, 4, 4]
      return %29
    }

    graph @GraphKernel_0(%x0.1: f32[1, 3, 1, 1], %x1.1: f32[1, 3, 1, 1]) {
      %30 = Cast{dtype=f64}(%x1.1) : f64[1, 3, 1, 1]
      %31 = Cast{dtype=f64}(%x0.1) : f64[1, 3, 1, 1]
      %32 = Mul(%31, %30) : f64[1, 3, 1, 1]
      %33 = Cast{dtype=f32}(%32) : f32[1, 3, 1, 1]
      %34 = Neg(%32) : f64[1, 3, 1, 1]
      %35 = Mul(%34, %30) : f64[1, 3, 1, 1]
      %36 = Mul(%35, %30) : f64[1, 3, 1, 1]
      %37 = make_tuple(%30, %33, %34, %36) : tuple(f64[1, 3, 1, 1], f32[1, 3, 1, 1], f64[1, 3, 1, 1], f64[1, 3, 1, 1])
      return %37
    }

    graph @GraphKernel_1(%x0.2: f32[4, 3, 4, 4], %x1.2: f32[4, 3, 4, 4], %x2.1: f32[4, 3, 4, 4], %x3.1: f32[1, 3, 1, 1]) {
      %dy = ReluGrad(%x0.2, %x1.2) : f32[4, 3, 4, 4]
      %38 = ReduceSum{axis=(0, 2, 3), keep_dims=True}(%dy) : f32[1, 3, 1, 1]
      %39 = Sub(%x2.1, %x3.1) : f32[4, 3, 4, 4]
      %40 = Mul(%dy, %39) : f32[4, 3, 4, 4]
      %41 = ReduceSum{axis=(0, 2, 3), keep_dims=True}(%40) : f32[1, 3, 1, 1]
      %42 = make_tuple(%dy, %38, %41) : tuple(f32[4, 3, 4, 4], f32[1, 3, 1, 1], f32[1, 3, 1, 1])
      return %42
    }

    graph @GraphKernel_2(%x0.3: f64[1, 3, 1, 1], %x1.3: f64[1, 3, 1, 1], %x2.2: f64[]) {
      %43 = Mul(%x0.3, %x1.3) : f64[1, 3, 1, 1]
      %44 = Div(%43, %x2.2) : f64[1, 3, 1, 1]
      %45 = Cast{dtype=f32}(%44) : f32[1, 3, 1, 1]
      return %45
    }

    graph @GraphKernel_4(%x0.4: f64[1, 3, 1, 1], %x1.4: f64[1, 3, 1, 1], %x2.3: f64[]) {
      %46 = Mul(%x0.4, %x1.4) : f64[1, 3, 1, 1]
      %47 = Div(%46, %x2.3) : f64[1, 3, 1, 1]
      %48 = Cast{dtype=f32}(%47) : f32[1, 3, 1, 1]
      return %48
    }

    graph @GraphKernel_3(%x0.5: f32[1, 3, 1, 1], %x1.5: f64[1, 3, 1, 1]) {
      %49 = Cast{dtype=f64}(%x0.5) : f64[1, 3, 1, 1]
      %50 = Mul(%49, %x1.5) : f64[1, 3, 1, 1]
      %51 = Cast{dtype=f32}(%50) : f32[1, 3, 1, 1]
      %52 = make_tuple(%49, %51) : tuple(f64[1, 3, 1, 1], f32[1, 3, 1, 1])
      return %52
    }
  )"));
  EXPECT_EQ(kernels, 6);
}

TEST(PassGraphKernel, ABatchNormWhoseResultFeedsNoFusibleNodeStaysAnOp) {
  // The cost rule: its op kernel makes the passes per channel in cache (Log does not fuse).
  expect_unchanged(graph_kernel, R"(
    graph @f(%x: f32[4, 3, 4, 4], %s: f32[3], %b: f32[3], %m: f32[3], %v: f32[3]) {
      %bn = BatchNorm{is_training=True, epsilon=0.001, momentum=0.1, data_format="NCHW"}(%x, %s, %b, %m, %v) : tuple(f32[4, 3, 4, 4], f32[3], f32[3], f32[3], f32[3])
      %y = getitem(%bn, 0) : f32[4, 3, 4, 4]
      %r = Log(%y) : f32[4, 3, 4, 4]
      return %r
    }
  )");
}

TEST(PassGraphKernel, SmallValuesComeBeforeTheLargeChainThatReadsThem) {
  // In DFS order %b (a value per column, from the reduction) comes after %p, the first node
  // of the chain that reads it, and %y could not join %p's cluster; rescheduled, the small
  // values come first and %p, %y and the ReLU are one kernel.
  auto [text, kernels] = after_graph_kernel(R"(
    graph @f(%x: f32[64, 32], %g: f32[1, 32]) {
      %s = ReduceSum{axis=(0,), keep_dims=True}(%x) : f32[1, 32]
      %a = Mul(%s, %g) : f32[1, 32]
      %p = Mul(%x, %a) : f32[64, 32]
      %b = Sub(%g, %s) : f32[1, 32]
      %y = Add(%p, %b) : f32[64, 32]
      %r = ReLU(%y) : f32[64, 32]
      return %r
    }
  )");
  EXPECT_EQ(text, canon(R"(
    graph @f(%x: f32[64, 32], %g: f32[1, 32]) {
      %s = ReduceSum{axis=(0,), keep_dims=True}(%x) : f32[1, 32]
      %a = Mul(%s, %g) : f32[1, 32]
      %b = Sub(%g, %s) : f32[1, 32]
      %1 = @GraphKernel_0(%x, %a, %b) : f32[64, 32]
      return %1
    }

    graph @GraphKernel_0(%x0: f32[64, 32], %x1: f32[1, 32], %x2: f32[1, 32]) {
      %p = Mul(%x0, %x1) : f32[64, 32]
      %y = Add(%p, %x2) : f32[64, 32]
      %r = ReLU(%y) : f32[64, 32]
      return %r
    }
  )"));
  EXPECT_EQ(kernels, 1);
}

TEST(PassGraphKernel, ADenseBiasMovesPastTheReshapeIntoItsUsersKernel) {
  // Reshape(BiasAdd(a, b)) -> Add(Reshape(a), b) where the reshape keeps the last axis and a
  // user fuses: the bias joins the ReLU's kernel (the Reshape of the MatMul is a view).
  auto [text, kernels] = after_graph_kernel(R"(
    graph @f(%x: f32[24, 8], %w: f32[8, 16], %b: f32[16]) {
      %a = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : f32[24, 16]
      %h = BiasAdd{data_format="NCHW"}(%a, %b) : f32[24, 16]
      %r = Reshape{shape=(4, 6, 16)}(%h) : f32[4, 6, 16]
      %y = ReLU(%r) : f32[4, 6, 16]
      return %y
    }
  )");
  EXPECT_EQ(text, canon(R"(
    graph @f(%x: f32[24, 8], %w: f32[8, 16], %b: f32[16]) {
      %a = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : f32[24, 16]
      %1 = Reshape{shape=(4, 6, 16)}(%a) : f32[4, 6, 16]
      %2 = @GraphKernel_0(%1, %b) : f32[4, 6, 16]
      return %2
    }

    graph @GraphKernel_0(%x0: f32[4, 6, 16], %x1: f32[16]) {
      %3 = Add(%x0, %x1) : f32[4, 6, 16]
      %y = ReLU(%3) : f32[4, 6, 16]
      return %y
    }
  )"));
  EXPECT_EQ(kernels, 1);
}

}  // namespace
}  // namespace mycel::passtest
