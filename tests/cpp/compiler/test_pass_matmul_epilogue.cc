// matmul_epilogue: which MatMul -> BiasAdd (-> activation) chains become epilogue calls, and
// the epilogue kernel (codegen/matmul_epilogue.h): the device's fused function where one is
// installed (a fake device: host memory tagged as CUDA:0, a fake fused function), the ops one
// by one otherwise (host tensors, a declining function), both equal to running the ops.
#include <cstdlib>
#include <cstring>

#include "codegen/loop_ir.h"
#include "codegen/matmul_epilogue.h"
#include "kernels/fused_matmul.h"
#include "pass_test_util.h"
#include "runtime/eager.h"
#include "tensor/device.h"

namespace mycel::passtest {
namespace {

using compiler::matmul_epilogue;

constexpr ir::VerifyOptions kLifted{.specialized = true, .lifted = true};

void expect_epilogue(const std::string& before, const std::string& after) {
  PassCase c(before);
  EXPECT_TRUE(c.run(matmul_epilogue, kLifted));
  EXPECT_EQ(c.text(), canon(after));
  EXPECT_FALSE(c.run(matmul_epilogue, kLifted)) << c.text();
}

void expect_unchanged(const std::string& before) {
  PassCase c(before);
  EXPECT_FALSE(c.run(matmul_epilogue, kLifted)) << c.text();
  EXPECT_EQ(c.text(), canon(before));
}

TEST(PassMatmulEpilogue, DenseWithReluIsOneCall) {
  expect_epilogue(R"(
    graph @f(%x: f32[5, 8], %w: f32[3, 8], %b: f32[3]) {
      %m = MatMul{transpose_a=False, transpose_b=True}(%x, %w) : f32[5, 3]
      %h = BiasAdd{data_format="NCHW"}(%m, %b) : f32[5, 3]
      %y = ReLU(%h) : f32[5, 3]
      %z = Mul(%y, %y) : f32[5, 3]
      return %z
    }
  )",
                  R"(
    graph @f(%x: f32[5, 8], %w: f32[3, 8], %b: f32[3]) {
      %0 = @GraphKernel_MatmulEpilogue_0(%x, %w, %b) : f32[5, 3]
      %z = Mul(%0, %0) : f32[5, 3]
      return %z
    }

    graph @GraphKernel_MatmulEpilogue_0(%x0: f32[5, 8], %x1: f32[3, 8], %x2: f32[3]) {
      %m = MatMul{transpose_a=False, transpose_b=True}(%x0, %x1) : f32[5, 3]
      %h = BiasAdd{data_format="NCHW"}(%m, %x2) : f32[5, 3]
      %y = ReLU(%h) : f32[5, 3]
      return %y
    }
  )");
}

TEST(PassMatmulEpilogue, ABiasAddReadTwiceKeepsItsUsersOutside) {
  // The BiasAdd has two users: the bias epilogue alone; GeLU's exact form never joins.
  expect_epilogue(R"(
    graph @f(%x: bf16[4, 6], %w: bf16[6, 2], %b: bf16[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : bf16[4, 2]
      %h = BiasAdd{data_format="NCHW"}(%m, %b) : bf16[4, 2]
      %g = GeLU{approximate="none"}(%h) : bf16[4, 2]
      %r = make_tuple(%g, %h) : tuple(bf16[4, 2], bf16[4, 2])
      return %r
    }
  )",
                  R"(
    graph @f(%x: bf16[4, 6], %w: bf16[6, 2], %b: bf16[2]) {
      %0 = @GraphKernel_MatmulEpilogue_0(%x, %w, %b) : bf16[4, 2]
      %g = GeLU{approximate="none"}(%0) : bf16[4, 2]
      %r = make_tuple(%g, %0) : tuple(bf16[4, 2], bf16[4, 2])
      return %r
    }

    graph @GraphKernel_MatmulEpilogue_0(%x0: bf16[4, 6], %x1: bf16[6, 2], %x2: bf16[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x0, %x1) : bf16[4, 2]
      %h = BiasAdd{data_format="NCHW"}(%m, %x2) : bf16[4, 2]
      return %h
    }
  )");
}

TEST(PassMatmulEpilogue, TanhGeluJoins) {
  expect_epilogue(R"(
    graph @f(%x: f16[4, 6], %w: f16[6, 2], %b: f16[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : f16[4, 2]
      %h = BiasAdd{data_format="NCHW"}(%m, %b) : f16[4, 2]
      %g = GeLU{approximate="tanh"}(%h) : f16[4, 2]
      return %g
    }
  )",
                  R"(
    graph @f(%x: f16[4, 6], %w: f16[6, 2], %b: f16[2]) {
      %0 = @GraphKernel_MatmulEpilogue_0(%x, %w, %b) : f16[4, 2]
      return %0
    }

    graph @GraphKernel_MatmulEpilogue_0(%x0: f16[4, 6], %x1: f16[6, 2], %x2: f16[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x0, %x1) : f16[4, 2]
      %h = BiasAdd{data_format="NCHW"}(%m, %x2) : f16[4, 2]
      %g = GeLU{approximate="tanh"}(%h) : f16[4, 2]
      return %g
    }
  )");
}

TEST(PassMatmulEpilogue, WhatDoesNotFitStays) {
  // The product is read elsewhere too.
  expect_unchanged(R"(
    graph @f(%x: f32[4, 6], %w: f32[6, 2], %b: f32[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : f32[4, 2]
      %h = BiasAdd{data_format="NCHW"}(%m, %b) : f32[4, 2]
      %r = make_tuple(%h, %m) : tuple(f32[4, 2], f32[4, 2])
      return %r
    }
  )");
  // float64 (no epilogue in the library's float64 GEMM here).
  expect_unchanged(R"(
    graph @f(%x: f64[4, 6], %w: f64[6, 2], %b: f64[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : f64[4, 2]
      %h = BiasAdd{data_format="NCHW"}(%m, %b) : f64[4, 2]
      return %h
    }
  )");
  // No BiasAdd: an Add of a vector is left to the op kernels.
  expect_unchanged(R"(
    graph @f(%x: f32[4, 6], %w: f32[6, 2], %b: f32[2]) {
      %m = MatMul{transpose_a=False, transpose_b=False}(%x, %w) : f32[4, 2]
      %h = Add(%m, %b) : f32[4, 2]
      return %h
    }
  )");
}

TEST(PassMatmulEpilogue, DenseGradientsAreOneCallWithTwoResults) {
  // dW = dy^T x and db = sum(dy, 0): the bias gradient of the MatMul's first operand.
  expect_epilogue(R"(
    graph @f(%dy: f32[5, 3], %x: f32[5, 8]) {
      %w = MatMul{transpose_a=True, transpose_b=False}(%dy, %x) : f32[3, 8]
      %s = ReduceSum{axis=(0,), keep_dims=False}(%dy) : f32[3]
      %r = make_tuple(%w, %s) : tuple(f32[3, 8], f32[3])
      return %r
    }
  )",
                  R"(
    graph @f(%dy: f32[5, 3], %x: f32[5, 8]) {
      %0 = @GraphKernel_MatmulEpilogue_0(%dy, %x) : tuple(f32[3, 8], f32[3])
      %1 = getitem(%0, 0) : f32[3, 8]
      %2 = getitem(%0, 1) : f32[3]
      %r = make_tuple(%1, %2) : tuple(f32[3, 8], f32[3])
      return %r
    }

    graph @GraphKernel_MatmulEpilogue_0(%x0: f32[5, 3], %x1: f32[5, 8]) {
      %w = MatMul{transpose_a=True, transpose_b=False}(%x0, %x1) : f32[3, 8]
      %s = ReduceSum{axis=(0,), keep_dims=False}(%x0) : f32[3]
      %3 = make_tuple(%w, %s) : tuple(f32[3, 8], f32[3])
      return %3
    }
  )");
}

TEST(PassMatmulEpilogue, BiasGradientsThatDoNotFitStay) {
  // The sum over axis 1, a product without transpose_a, a sum kept as [1, N].
  expect_unchanged(R"(
    graph @f(%dy: f32[5, 3], %x: f32[5, 8]) {
      %w = MatMul{transpose_a=True, transpose_b=False}(%dy, %x) : f32[3, 8]
      %s = ReduceSum{axis=(1,), keep_dims=False}(%dy) : f32[5]
      %r = make_tuple(%w, %s) : tuple(f32[3, 8], f32[5])
      return %r
    }
  )");
  expect_unchanged(R"(
    graph @f(%dy: f32[5, 3], %x: f32[3, 8]) {
      %w = MatMul{transpose_a=False, transpose_b=False}(%dy, %x) : f32[5, 8]
      %s = ReduceSum{axis=(0,), keep_dims=False}(%dy) : f32[3]
      %r = make_tuple(%w, %s) : tuple(f32[5, 8], f32[3])
      return %r
    }
  )");
  expect_unchanged(R"(
    graph @f(%dy: f32[5, 3], %x: f32[5, 8]) {
      %w = MatMul{transpose_a=True, transpose_b=False}(%dy, %x) : f32[3, 8]
      %s = ReduceSum{axis=(0,), keep_dims=True}(%dy) : f32[1, 3]
      %r = make_tuple(%w, %s) : tuple(f32[3, 8], f32[1, 3])
      return %r
    }
  )");
}

// ---- the kernel -----------------------------------------------------------------------------

// Host memory tagged as CUDA:0.
class FakeDevice final : public DeviceBackend {
 public:
  int device_count() override { return 1; }
  void* allocate(int, size_t n) override { return std::malloc(n); }
  void release(int, void* p, size_t) override { std::free(p); }
  void copy_h2d(int, void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void copy_d2h(int, void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void copy_d2d(int, void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void strided_copy(const Tensor& dst, const Tensor& src) override {
    host_view(dst).copy_from(host_view(src));
  }
  void synchronize(int) override {}
  AllocatorStats memory_stats(int) override { return {}; }
  void reset_peak_memory(int) override {}
  void empty_cache(int) override {}
  static Tensor host_view(const Tensor& t) {
    auto st = Storage::wrap(
        t.storage()->data(), t.storage()->nbytes(), [](void*) {}, nullptr);
    return Tensor::make_view(st, t.dtype(), t.shape(), t.strides(), t.offset());
  }
};

Attrs A0(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  Attrs a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

int g_calls = 0;
bool g_accept = true;
MatmulEpilogue g_seen = MatmulEpilogue::Bias;

// A fused function that computes on the host what the device would (the ops, in float64,
// rounded once), and records its calls.
bool fake_fused(const Tensor& a, const Tensor& b, const Tensor& bias, bool ta, bool tb,
                MatmulEpilogue e, const Tensor& y) {
  ++g_calls;
  g_seen = e;
  if (!g_accept) return false;
  auto h = [](const Tensor& t) { return FakeDevice::host_view(t).cast(DType::Float64); };
  Attrs mm = make_attrs(*find_op("MatMul"), {});
  mm.set("transpose_a", ta);
  mm.set("transpose_b", tb);
  Tensor r = run_op1(*find_op("MatMul"), std::vector<Tensor>{h(a), h(b)}, mm);
  if (e == MatmulEpilogue::BiasGradA || e == MatmulEpilogue::BiasGradB) {
    const Tensor& summed = e == MatmulEpilogue::BiasGradA ? b : a;
    FakeDevice::host_view(bias).copy_from(
        run_op1(OpId::ReduceSum, {h(summed)}, A0({{"axis", std::vector<int64_t>{0}}})));
    FakeDevice::host_view(y).copy_from(r);
    return true;
  }
  r = run_op1(OpId::BiasAdd, {r, h(bias)});
  if (e == MatmulEpilogue::ReluBias) r = run_op1(OpId::ReLU, {r});
  FakeDevice::host_view(y).copy_from(r);
  return true;
}

class EpilogueKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = device_backend(DeviceType::CUDA);
    saved_fn_ = fused_matmul(DeviceType::CUDA);
    install_device_backend(DeviceType::CUDA, &fake_);
    g_calls = 0;
    g_accept = true;
  }
  void TearDown() override {
    set_default_device(Device::cpu());
    install_fused_matmul(DeviceType::CUDA, saved_fn_);
    install_device_backend(DeviceType::CUDA, saved_);
  }

  // The epilogue kernel of a Dense with ReLU ([5, 8] x [3, 8]^T + [3]), and the graph's
  // inputs.
  std::shared_ptr<const vm::FusedKernel> kernel() {
    case_ = std::make_unique<PassCase>(R"(
      graph @f(%x: f32[5, 8], %w: f32[3, 8], %b: f32[3]) {
        %m = MatMul{transpose_a=False, transpose_b=True}(%x, %w) : f32[5, 3]
        %h = BiasAdd{data_format="NCHW"}(%m, %b) : f32[5, 3]
        %y = ReLU(%h) : f32[5, 3]
        return %y
      }
    )");
    EXPECT_TRUE(case_->run(matmul_epilogue, kLifted));
    for (const auto& g : case_->m.graphs())
      if (codegen::is_matmul_epilogue(g.get())) return codegen::matmul_epilogue_kernel(g.get());
    ADD_FAILURE() << "no epilogue graph";
    return nullptr;
  }

  static std::vector<Tensor> inputs() {
    std::vector<Tensor> in;
    for (Shape s : {Shape{5, 8}, Shape{3, 8}, Shape{3}}) {
      Tensor t = Tensor::empty(s, DType::Float32);
      for (int64_t i = 0; i < t.numel(); ++i)
        t.data<float>()[i] = static_cast<float>(((i * 7 + s[0]) % 11) - 5) / 4.0f;
      in.push_back(t);
    }
    return in;
  }

  // relu(x w^T + b) by the ops on the host.
  static Tensor expected(const std::vector<Tensor>& in) {
    Attrs mm = make_attrs(*find_op("MatMul"), {});
    mm.set("transpose_b", true);
    Tensor r = run_op1(*find_op("MatMul"), std::vector<Tensor>{in[0], in[1]}, mm);
    return run_op1(OpId::ReLU, {run_op1(OpId::BiasAdd, {r, in[2]})});
  }

  static std::vector<ir::Value> values(const std::vector<Tensor>& in) {
    std::vector<ir::Value> v;
    for (const Tensor& t : in) v.push_back(ir::Value::tensor(t));
    return v;
  }

  static void expect_equal(const Tensor& got, const Tensor& want) {
    Tensor g = got.device().is_cpu() ? got : FakeDevice::host_view(got).clone();
    ASSERT_EQ(g.shape(), want.shape());
    for (int64_t i = 0; i < want.numel(); ++i)
      EXPECT_NEAR(g.element_as_double(i), want.element_as_double(i), 1e-5) << i;
  }

  FakeDevice fake_;
  DeviceBackend* saved_ = nullptr;
  FusedMatmulFn saved_fn_ = nullptr;
  std::unique_ptr<PassCase> case_;
};

TEST_F(EpilogueKernel, HostTensorsRunTheOps) {
  install_fused_matmul(DeviceType::CUDA, &fake_fused);
  auto k = kernel();
  std::vector<Tensor> in = inputs();
  ir::Value y = k->run(values(in));
  EXPECT_EQ(g_calls, 0);
  EXPECT_TRUE(y.as_tensor().device().is_cpu());
  expect_equal(y.as_tensor(), expected(in));
}

TEST_F(EpilogueKernel, DeviceTensorsMakeOneFusedCall) {
  install_fused_matmul(DeviceType::CUDA, &fake_fused);
  auto k = kernel();
  std::vector<Tensor> in = inputs();
  std::vector<Tensor> dev;
  for (const Tensor& t : in) dev.push_back(t.to(Device::cuda(0)));
  ir::Value y = k->run(values(dev));
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_seen, MatmulEpilogue::ReluBias);
  EXPECT_EQ(y.as_tensor().device(), Device::cuda(0));
  expect_equal(y.as_tensor(), expected(in));
}

TEST_F(EpilogueKernel, ADecliningOrMissingFunctionRunsTheOps) {
  auto k = kernel();
  std::vector<Tensor> in = inputs();
  std::vector<Tensor> dev;
  for (const Tensor& t : in) dev.push_back(t.to(Device::cuda(0)));
  install_fused_matmul(DeviceType::CUDA, &fake_fused);
  g_accept = false;
  ir::Value y = k->run(values(dev));
  EXPECT_EQ(g_calls, 1);
  expect_equal(y.as_tensor(), expected(in));  // the ops (the CPU fallback of the fake device)
  install_fused_matmul(DeviceType::CUDA, nullptr);
  ir::Value y2 = k->run(values(dev));
  EXPECT_EQ(g_calls, 1);
  expect_equal(y2.as_tensor(), expected(in));
}

TEST_F(EpilogueKernel, DenseGradientsOnTheDeviceAreOneFusedCall) {
  install_fused_matmul(DeviceType::CUDA, &fake_fused);
  PassCase c(R"(
    graph @f(%x: f32[5, 8], %dy: f32[5, 3]) {
      %w = MatMul{transpose_a=True, transpose_b=False}(%x, %dy) : f32[8, 3]
      %s = ReduceSum{axis=(0,), keep_dims=False}(%dy) : f32[3]
      %r = make_tuple(%w, %s) : tuple(f32[8, 3], f32[3])
      return %r
    }
  )");
  ASSERT_TRUE(c.run(matmul_epilogue, kLifted));
  std::shared_ptr<const vm::FusedKernel> k;
  for (const auto& g : c.m.graphs())
    if (codegen::is_matmul_epilogue(g.get())) k = codegen::matmul_epilogue_kernel(g.get());
  ASSERT_NE(k, nullptr);
  std::vector<Tensor> in = inputs();  // [5, 8], [3, 8], [3]: use the first two's data
  Tensor x = in[0];
  Tensor dy = in[1].reshape({8, 3}).slice(0, 0, 5, 1).contiguous();
  Attrs mm = make_attrs(*find_op("MatMul"), {});
  mm.set("transpose_a", true);
  Tensor want_w = run_op1(*find_op("MatMul"), std::vector<Tensor>{x, dy}, mm);
  Tensor want_s = run_op1(OpId::ReduceSum, {dy}, A0({{"axis", std::vector<int64_t>{0}}}));
  for (bool device : {false, true}) {
    g_calls = 0;
    std::vector<Tensor> args{x, dy};
    if (device) {
      for (Tensor& t : args) t = t.to(Device::cuda(0));
    }
    ir::Value r = k->run(values(args));
    EXPECT_EQ(g_calls, device ? 1 : 0);
    if (device) {
      EXPECT_EQ(g_seen, MatmulEpilogue::BiasGradA);  // the sum of the second operand
    }
    expect_equal(r.items()[0].as_tensor(), want_w);
    expect_equal(r.items()[1].as_tensor(), want_s);
  }
}

}  // namespace
}  // namespace mycel::passtest
