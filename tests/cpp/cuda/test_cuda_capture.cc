// Whole-step capture on a GPU (runtime/vm_capture.h over device/cuda/cuda_capture.h): CUDA
// stream capture, the allocator's private pool, device-resident Philox draws. Oracle: the
// same Executable run op by op on the GPU, bit for bit (the same kernels run either way).
// The device-independent logic is tested on the CPU with a fake device
// (tests/cpp/runtime/test_capture.cc).
#include <gtest/gtest.h>

#include "../runtime/test_vm_util.h"
#include "runtime/vm_capture.h"
#include "tensor/capture.h"
#include "tensor/random.h"

namespace mycel::vmtest {
namespace {

using vm::CaptureRunner;
using vm::Executable;

class CudaCapture : public ::testing::Test {
 protected:
  void SetUp() override { set_default_device(gpu_); }
  void TearDown() override { set_default_device(Device::cpu()); }
  Tensor dev(const Tensor& t) { return t.to(gpu_); }
  static Tensor host(const Value& v) { return v.as_tensor().cpu(); }
  const Device gpu_ = Device::cuda(0);
};

Attrs attrs1(std::string_view k, AttrValue v) {
  Attrs a;
  a.set(k, std::move(v));
  return a;
}

Tensor scalar(double v) { return Tensor::scalar(Scalar::from_float(v), DType::Float32); }

// y = x @ w; loss = sum(y * y); w <- w - 0.01 * x^T @ (2 y): returns (loss, y).
FuncGraph* train_step(Builder& b, const Shape& xs, const Shape& ws) {
  FuncGraph* g = b.graph("step", {f32(xs), f32(ws)});
  Node* x = b.param(g, 0);
  Node* w = b.param(g, 1);
  Node* y = b.prim(g, OpId::MatMul, {x, w});
  Node* loss = b.prim(g, OpId::ReduceSum, {b.prim(g, OpId::Mul, {y, y})},
                      attrs1("axis", std::vector<int64_t>{}));
  Node* two_y = b.prim(g, OpId::Mul, {y, b.c(tv(scalar(2.0)))});
  Node* xt = b.prim(g, OpId::Transpose, {x}, attrs1("perm", std::vector<int64_t>{1, 0}));
  Node* grad = b.prim(g, OpId::MatMul, {xt, two_y});
  Node* neww = b.prim(g, OpId::Sub, {w, b.prim(g, OpId::Mul, {grad, b.c(tv(scalar(0.01)))})});
  g->effects.push_back(b.prim(g, OpId::Assign, {w, neww}));
  g->set_output(b.builtin(g, Builtin::MakeTuple, {loss, y},
                          Abstract::tuple({loss->abstract(), y->abstract()})));
  return g;
}

TEST_F(CudaCapture, TrainingStepsReplayAsOpByOp) {
  Builder b;
  auto exe = Executable::compile(train_step(b, {33, 20}, {20, 7}));
  Tensor w0 = dev(make_tensor({20, 7}, 1)), w2 = dev(make_tensor({20, 7}, 1));
  CaptureRunner runner(*exe, "step");
  std::vector<std::pair<Tensor, Tensor>> kept;
  for (int step = 0; step < 6; ++step) {
    Tensor x = dev(make_tensor({33, 20}, 10 + static_cast<uint32_t>(step)));
    Value want = exe->run({tv(x), tv(w0)}, nullptr);
    Value got = runner.run({tv(x), tv(w2)}, nullptr);
    EXPECT_TRUE(bit_equal(host(got.items()[0]), host(want.items()[0]))) << step;
    EXPECT_TRUE(bit_equal(host(got.items()[1]), host(want.items()[1]))) << step;
    EXPECT_TRUE(bit_equal(w2.cpu(), w0.cpu())) << step;
    kept.emplace_back(got.items()[1].as_tensor(), host(got.items()[1]));
  }
  for (auto& [t, was] : kept) EXPECT_TRUE(bit_equal(t.cpu(), was));
  vm::CaptureStats s = runner.stats();
  EXPECT_EQ(s.captures, 1) << s.last_reason;
  EXPECT_EQ(s.replays, 5);
  EXPECT_EQ(s.fallbacks, 0) << s.last_reason;
}

TEST_F(CudaCapture, ReplaysKeepDeviceMemoryFlat) {
  Builder b;
  auto exe = Executable::compile(train_step(b, {64, 64}, {64, 64}));
  Tensor w = dev(make_tensor({64, 64}, 4)), x = dev(make_tensor({64, 64}, 5));
  CaptureRunner runner(*exe);
  for (int i = 0; i < 3; ++i) runner.run({tv(x), tv(w)}, nullptr);
  DeviceBackend& be = backend_for(gpu_);
  be.synchronize(0);
  const int64_t in_use = be.memory_stats(0).in_use;
  for (int i = 0; i < 10; ++i) runner.run({tv(x), tv(w)}, nullptr);
  be.synchronize(0);
  EXPECT_EQ(be.memory_stats(0).in_use, in_use);
  EXPECT_EQ(runner.stats().captures, 1) << runner.stats().last_reason;
}

TEST_F(CudaCapture, RandomDrawsAdvanceAsOpByOp) {
  Builder b;
  FuncGraph* g = b.graph("noisy", {f32({1000})});
  Attrs shape = attrs1("shape", std::vector<int64_t>{1000});
  Node* n = b.prim(g, OpId::StandardNormal, {}, shape);
  Node* u = b.prim(g, OpId::UniformReal, {}, shape);
  g->set_output(b.prim(g, OpId::Add, {b.prim(g, OpId::Mul, {n, u}), b.param(g, 0)}));
  auto exe = Executable::compile(g);
  Tensor x = dev(make_tensor({1000}, 3));
  std::vector<Tensor> want, got;
  set_global_seed(11);
  for (int i = 0; i < 5; ++i) want.push_back(host(exe->run({tv(x)}, nullptr)));
  const uint64_t offset = random_state().offset;
  set_global_seed(11);
  CaptureRunner runner(*exe);
  for (int i = 0; i < 5; ++i) got.push_back(host(runner.run({tv(x)}, nullptr)));
  EXPECT_EQ(random_state().offset, offset);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(bit_equal(got[i], want[i])) << "call " << i;
  EXPECT_FALSE(bit_equal(got[3], got[4]));
  EXPECT_EQ(runner.stats().captures, 1) << runner.stats().last_reason;
}

TEST_F(CudaCapture, HostCopiesInACaptureThrowAndTheDeviceGoesOn) {
  CaptureBackend* cb = capture_backend(DeviceType::CUDA);
  ASSERT_NE(cb, nullptr);
  Tensor x = dev(make_tensor({8}, 1));
  cb->begin_capture(0);
  EXPECT_THROW(x.cpu(), Error);
  EXPECT_THROW(make_tensor({8}, 2).to(gpu_), Error);
  std::string why;
  std::unique_ptr<CapturedGraph> graph = cb->end_capture(0, &why);
  graph.reset();
  EXPECT_TRUE(bit_equal(x.cpu(), make_tensor({8}, 1)));  // out of capture: works again
}

TEST_F(CudaCapture, AStepThatReadsATensorFallsBack) {
  Builder b;
  FuncGraph* g = b.graph("r", {f32({4})});
  Node* s = b.prim(g, OpId::ReduceSum, {b.param(g, 0)}, attrs1("axis", std::vector<int64_t>{}));
  Node* v = b.builtin(g, Builtin::TensorToScalar, {s}, Abstract::scalar(ValueKind::Float));
  Node* t = b.builtin(g, Builtin::ScalarToTensor, {v, b.c(Value::dtype(DType::Float32))}, f32({}));
  g->set_output(b.prim(g, OpId::Mul, {b.param(g, 0), t}));
  auto exe = Executable::compile(g);
  CaptureRunner runner(*exe);
  Tensor x = dev(make_tensor({4}, 7));
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(bit_equal(host(runner.run({tv(x)}, nullptr)), host(exe->run({tv(x)}, nullptr))));
  EXPECT_EQ(runner.stats().captures, 0);
  EXPECT_EQ(runner.stats().fallbacks, 1);
}

}  // namespace
}  // namespace mycel::vmtest
