// The device-independent half of GPU execution, on a machine without a GPU: a fake device
// backend (host memory tagged as CUDA:0, counting what it is asked to do) drives
// Tensor::to/copy_from/migrate, placement (place_inputs) and the CPU fallback of
// launch_kernel, with no CUDA kernels installed. The real backend runs the same paths in
// tests/cpp/cuda on a GPU.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>

#include "kernels/kernel_table.h"
#include "runtime/eager.h"
#include "tensor/device.h"

namespace mycel {
namespace {

class FakeDevice final : public DeviceBackend {
 public:
  int allocs = 0, releases = 0, h2d = 0, d2h = 0, strided = 0;
  int device_count() override { return 1; }
  void* allocate(int, size_t n) override {
    ++allocs;
    return std::malloc(n);
  }
  void release(int, void* p, size_t) override {
    ++releases;
    std::free(p);
  }
  void copy_h2d(int, void* d, const void* s, size_t n) override {
    ++h2d;
    std::memcpy(d, s, n);
  }
  void copy_d2h(int, void* d, const void* s, size_t n) override {
    ++d2h;
    std::memcpy(d, s, n);
  }
  void copy_d2d(int, void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void strided_copy(const Tensor& dst, const Tensor& src) override {
    ++strided;
    host_view(dst).copy_from(host_view(src));
  }
  void synchronize(int) override {}
  AllocatorStats memory_stats(int) override { return {}; }
  void reset_peak_memory(int) override {}
  void empty_cache(int) override {}

  // The same bytes seen as a host tensor (the fake's "device" memory is host memory).
  static Tensor host_view(const Tensor& t) {
    auto st = Storage::wrap(
        t.storage()->data(), t.storage()->nbytes(), [](void*) {}, nullptr);
    return Tensor::make_view(st, t.dtype(), t.shape(), t.strides(), t.offset());
  }
};

class DeviceDispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = device_backend(DeviceType::CUDA);
    install_device_backend(DeviceType::CUDA, &fake_);
  }
  void TearDown() override {
    set_default_device(Device::cpu());
    install_device_backend(DeviceType::CUDA, saved_);
  }
  FakeDevice fake_;
  DeviceBackend* saved_ = nullptr;
  const Device gpu_ = Device::cuda(0);
};

// Zeroes a fake-device tensor through its host view (the fake's memory is host memory).
void FakeDeviceZero(const Tensor& t) { FakeDevice::host_view(t).fill(Scalar::from_float(0.0)); }

Tensor iota(Shape s, DType t = DType::Float32) {
  Tensor x = Tensor::empty(s, DType::Float64);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<double>()[i] = static_cast<double>(i) - 3;
  return x.cast(t);
}

std::string diff(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return "shape/dtype";
  for (int64_t i = 0; i < a.numel(); ++i)
    if (a.element_as_double(i) != b.element_as_double(i)) return str("element ", i);
  return "";
}

TEST_F(DeviceDispatch, TensorsMoveAndConvertAcrossDevices) {
  Tensor h = iota({3, 4});
  Tensor g = h.to(gpu_);
  EXPECT_EQ(g.device(), gpu_);
  EXPECT_EQ(fake_.h2d, 1);
  EXPECT_TRUE(g.to(gpu_).same(g));  // already there: no copy
  Tensor back = g.permute({1, 0}).contiguous().cast(DType::Int32).cpu();
  EXPECT_EQ(back.device(), Device::cpu());
  EXPECT_EQ(diff(back, h.permute({1, 0}).contiguous().cast(DType::Int32)), "");
  EXPECT_GE(fake_.strided, 2);  // contiguous() and cast() ran on the device
  EXPECT_EQ(g.select(0, 1).select(0, 2).item().to_double(), 3.0);
  g.fill(Scalar::from_float(1.5));  // a host scalar broadcast into device memory
  EXPECT_EQ(g.cpu().element_as_double(11), 1.5);
  g.copy_from(iota({4}));  // host source, broadcast over rows
  EXPECT_EQ(diff(g.cpu(), iota({4}).expand({3, 4}).contiguous()), "");
}

TEST_F(DeviceDispatch, MigrationMovesEveryViewOfAStorage) {
  Tensor h = iota({2, 3});
  Tensor view = h.permute({1, 0});
  h.storage()->migrate(gpu_);
  EXPECT_EQ(h.device(), gpu_);
  EXPECT_EQ(view.device(), gpu_);  // the same Storage
  EXPECT_EQ(diff(view.cpu(), iota({2, 3}).permute({1, 0}).contiguous()), "");
  h.storage()->migrate(Device::cpu());
  EXPECT_EQ(view.device(), Device::cpu());
  EXPECT_EQ(diff(h, iota({2, 3})), "");
}

TEST_F(DeviceDispatch, DefaultDeviceMovesHostInputsOnceAndFallsBackToCpuKernels) {
  set_default_device(gpu_);
  Tensor a = iota({4, 5}), b = iota({5});
  Tensor c = run_op1(OpId::Add, {a, b});
  EXPECT_EQ(c.device(), gpu_);
  EXPECT_EQ(a.device(), gpu_);  // migrated in place: the next use copies nothing
  int h2d = fake_.h2d;
  Tensor d = run_op1(OpId::Mul, {a, a});
  EXPECT_EQ(fake_.h2d, h2d + 1);  // the fallback's result only: `a` is not copied again
  set_default_device(Device::cpu());
  Tensor want = run_op1(OpId::Add, {iota({4, 5}), iota({5})});
  EXPECT_EQ(diff(c.cpu(), want), "");
  EXPECT_EQ(diff(d.cpu(), run_op1(OpId::Mul, {iota({4, 5}), iota({4, 5})})), "");
  // An op with no tensor input runs on the default device.
  set_default_device(gpu_);
  Attrs fill;
  fill.set("shape", std::vector<int64_t>{2, 2});
  fill.set("value", 3.0);
  fill.set("dtype", DType::Float32);
  Tensor z = run_op1(OpId::Fill, {}, fill);
  EXPECT_EQ(z.device(), gpu_);
  EXPECT_EQ(z.cpu().element_as_double(3), 3.0);
}

TEST_F(DeviceDispatch, AnInputOnADeviceDecidesWhereTheOpRuns) {
  Tensor g = iota({3}).to(gpu_);
  Tensor h = iota({3});
  Tensor r = run_op1(OpId::Sub, {h, g});  // the context says CPU; one input is on the GPU
  EXPECT_EQ(r.device(), gpu_);
  EXPECT_EQ(h.device(), Device::cpu());  // copied, not migrated: the context is the CPU
  EXPECT_EQ(diff(r.cpu(), Tensor::zeros({3}, DType::Float32)), "");
}

TEST_F(DeviceDispatch, InPlaceUpdatesOnTheFallbackReachTheDeviceTensor) {
  Tensor var = iota({6}).to(gpu_);
  Tensor inc = iota({6}).to(gpu_);
  TensorList out = run_op(OpId::AssignAdd, {var, inc});
  EXPECT_TRUE(out[0].same(var));
  EXPECT_EQ(var.device(), gpu_);
  Tensor want = run_op1(OpId::Add, {iota({6}), iota({6})});
  EXPECT_EQ(diff(var.cpu(), want), "");
}

// The CPU kernels that are views and strided_copy (kernels/cuda/array.cc runs them on the
// GPU) give the host's results on a device.
TEST_F(DeviceDispatch, LayoutKernelsRunOnADevice) {
  Attrs tile, pad, perm;
  tile.set("multiples", std::vector<int64_t>{2, 1, 3});
  pad.set("paddings", std::vector<int64_t>{1, 0, 2, 1});
  pad.set("value", 0.5);
  perm.set("perm", std::vector<int64_t>{1, 0});
  const std::pair<OpId, const Attrs*> cases[] = {
      {OpId::Tile, &tile}, {OpId::Pad, &pad}, {OpId::Transpose, &perm}};
  for (const auto& [id, given] : cases) {
    const OpDef& op = op_def(id);
    Attrs attrs = make_attrs(op, *given);
    Tensor x = iota({3, 4});
    MetaList out = infer_op(op, std::vector<TensorMeta>{{x.dtype(), x.shape()}}, attrs);
    Tensor want = run_kernel(op, std::vector<Tensor>{x}, out, attrs)[0];
    std::vector<Tensor> in{x.to(gpu_)};
    std::vector<Tensor> got{Tensor::empty(out[0].shape, out[0].dtype, gpu_)};
    cpu_kernel(op)(KernelContext{op, in, got, attrs, gpu_});
    EXPECT_EQ(diff(got[0].cpu(), want), "") << op.name;
  }
  EXPECT_GT(fake_.strided, 0);
}

TEST_F(DeviceDispatch, DeviceMemoryIsGivenBack) {
  {
    Tensor g = iota({8}).to(gpu_);
    Tensor h = run_op1(OpId::Neg, {g});
  }
  EXPECT_GT(fake_.allocs, 0);
  EXPECT_EQ(fake_.allocs, fake_.releases);
}

// Bitwise equality of two tensors of any dtype (complex included), as host copies.
bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = a.cpu().contiguous(), y = b.cpu().contiguous();
  return x.dtype() == y.dtype() && x.shape() == y.shape() &&
         std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

// A fake device kernel: the CPU kernel on the host views of the fake's "device" tensors,
// counting its calls.
int g_fake_kernel_calls = 0;
void fake_device_kernel(const KernelContext& ctx) {
  ++g_fake_kernel_calls;
  std::vector<Tensor> in, out;
  for (const Tensor& t : ctx.in) in.push_back(FakeDevice::host_view(t));
  for (const Tensor& t : ctx.out) out.push_back(FakeDevice::host_view(t));
  cpu_kernel(ctx.op)(KernelContext{ctx.op, in, out, ctx.attrs, Device::cpu()});
}

// The device's dtype rule (kernels/kernel_table.h) decides whether an op on complex (or
// uint16/32/64) tensors runs its device kernel or the CPU kernel on host copies; both give
// the host's answer.
TEST_F(DeviceDispatch, TheDtypeRuleDecidesWhereComplexOpsRun) {
  static std::array<KernelFn, kNumOps> saved{}, fake{};
  for (const OpDef& op : op_table()) {
    saved[static_cast<size_t>(op.id)] = device_kernel(op, DeviceType::CUDA);
    fake[static_cast<size_t>(op.id)] = &fake_device_kernel;
  }
  install_device_kernels(DeviceType::CUDA, fake);
  const OpDef& neg = op_def(OpId::Neg);
  Tensor h = iota({7}, DType::Complex64);
  Tensor want = run_op1(OpId::Neg, {h});
  // No rule: complex runs on the host, real on the device.
  g_fake_kernel_calls = 0;
  EXPECT_FALSE(device_takes_dtype(neg, DeviceType::CUDA, DType::Complex64));
  EXPECT_TRUE(device_takes_dtype(neg, DeviceType::CUDA, DType::Float32));
  EXPECT_TRUE(same_bits(run_op1(OpId::Neg, {h.to(gpu_)}), want));
  EXPECT_EQ(g_fake_kernel_calls, 0);
  run_op1(OpId::Neg, {iota({7}).to(gpu_)});
  EXPECT_EQ(g_fake_kernel_calls, 1);
  // A rule taking complex for Neg only: Neg runs on the device, Square still on the host.
  install_device_dtype_rule(DeviceType::CUDA, [](const OpDef& op, DType t) {
    return op.id == OpId::Neg && is_complex(t);
  });
  g_fake_kernel_calls = 0;
  EXPECT_TRUE(device_takes_dtype(neg, DeviceType::CUDA, DType::Complex128));
  EXPECT_FALSE(device_takes_dtype(neg, DeviceType::CUDA, DType::UInt16));
  EXPECT_FALSE(device_takes_dtype(op_def(OpId::Square), DeviceType::CUDA, DType::Complex64));
  Tensor got = run_op1(OpId::Neg, {h.to(gpu_)});
  EXPECT_EQ(g_fake_kernel_calls, 1);
  EXPECT_EQ(got.device(), gpu_);
  EXPECT_TRUE(same_bits(got, want));
  Tensor sq = run_op1(OpId::Square, {h.to(gpu_)});
  EXPECT_EQ(g_fake_kernel_calls, 1);
  EXPECT_TRUE(same_bits(sq, run_op1(OpId::Square, {h})));
  install_device_dtype_rule(DeviceType::CUDA, nullptr);
  install_device_kernels(DeviceType::CUDA, saved);
}

// Deterministic mode: an op the device marks nondeterministic runs on the host with copies
// (its CPU kernel), another op keeps its device kernel; off again, the device kernel is back.
int g_device_calls = 0;
void counting_kernel(const KernelContext& ctx) {
  ++g_device_calls;
  for (const Tensor& t : ctx.out) FakeDeviceZero(t);
}

TEST_F(DeviceDispatch, DeterministicModeRunsNondeterministicDeviceKernelsOnTheHost) {
  static std::array<KernelFn, kNumOps> table{};
  table[static_cast<size_t>(OpId::UnsortedSegmentSum)] = &counting_kernel;
  table[static_cast<size_t>(OpId::Neg)] = &counting_kernel;
  static constexpr OpId kMarked[] = {OpId::UnsortedSegmentSum};
  static const std::array<KernelFn, kNumOps> none{};
  install_device_kernels(DeviceType::CUDA, table);
  mark_device_nondeterministic(DeviceType::CUDA, kMarked);
  EXPECT_TRUE(device_nondeterministic(op_def(OpId::UnsortedSegmentSum), DeviceType::CUDA));
  EXPECT_FALSE(device_nondeterministic(op_def(OpId::Neg), DeviceType::CUDA));
  EXPECT_FALSE(device_nondeterministic(op_def(OpId::UnsortedSegmentSum), DeviceType::CPU));
  Tensor x = iota({4, 3}).to(gpu_);
  Tensor ids = Tensor::empty({4}, DType::Int32);
  for (int i = 0; i < 4; ++i) ids.data<int32_t>()[i] = i % 2;
  Attrs seg;
  seg.set("num_segments", int64_t{2});
  Tensor want = run_op1(OpId::UnsortedSegmentSum, {iota({4, 3}), ids}, seg);
  ids = ids.to(gpu_);
  g_device_calls = 0;
  run_op1(OpId::UnsortedSegmentSum, {x, ids}, seg);
  EXPECT_EQ(g_device_calls, 1);  // off: the device kernel
  set_deterministic(true);
  EXPECT_TRUE(deterministic());
  Tensor got = run_op1(OpId::UnsortedSegmentSum, {x, ids}, seg);
  EXPECT_EQ(g_device_calls, 1);  // on: the host kernel, with the host's result
  EXPECT_EQ(got.device(), gpu_);
  EXPECT_EQ(diff(got.cpu(), want), "");
  run_op1(OpId::Neg, {x});
  EXPECT_EQ(g_device_calls, 2);  // an unmarked op keeps its device kernel
  set_deterministic(false);
  run_op1(OpId::UnsortedSegmentSum, {x, ids}, seg);
  EXPECT_EQ(g_device_calls, 3);
  mark_device_nondeterministic(DeviceType::CUDA, {});
  install_device_kernels(DeviceType::CUDA, none);
}

TEST(Devices, NoBackendIsARuntimeErrorNamingWhatIsMissing) {
  DeviceBackend* saved = device_backend(DeviceType::CUDA);
  install_device_backend(DeviceType::CUDA, nullptr);
  try {
    iota({2}).to(Device::cuda(0));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("no GPU backend"), std::string::npos) << e.what();
  }
  install_device_backend(DeviceType::CUDA, saved);
  EXPECT_EQ(device_name(Device::cuda(1)), "GPU:1");
  EXPECT_EQ(device_name(Device::cpu()), "CPU");
}

}  // namespace
}  // namespace mycel
