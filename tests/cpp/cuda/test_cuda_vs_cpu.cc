// On a GPU machine (scripts/gpu_check.sh): every kernel case of tests/cpp/kernels runs on the
// GPU and is compared with mycel's CPU reference kernel on the same inputs. Inputs keep
// their layout on the device (a strided or broadcast view on the host is the same view of a
// copy of its whole storage on the GPU), so the CUDA kernels see the strides the CPU ones
// do. Ops without a CUDA kernel run through the dispatcher's CPU fallback, which this
// checks too; the coverage table printed at the end says which is which.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "../kernels/kernel_cases.h"
#include "kernels/cuda/cuda_kernels.h"
#include "ops/op_table.h"
#include "runtime/eager.h"

namespace mycel::test {
namespace {

const Device kGpu = Device::cuda(0);

// The same view of a device copy of t's whole storage.
Tensor to_gpu_same_layout(const Tensor& t) {
  auto st = Storage::allocate(t.storage()->nbytes(), kGpu);
  if (st->nbytes()) backend_for(kGpu).copy_h2d(0, st->data(), t.storage()->data(), st->nbytes());
  return Tensor::make_view(st, t.dtype(), t.shape(), t.strides(), t.offset());
}

class CudaVsCpu : public ::testing::TestWithParam<KernelCase> {};

TEST_P(CudaVsCpu, MatchesCpuReference) {
  const KernelCase& c = GetParam();
  const OpDef* op = find_op(c.op);
  ASSERT_NE(op, nullptr) << "unknown op " << c.op;
  Attrs attrs = make_attrs(*op, c.attrs);
  std::vector<TensorMeta> metas;
  std::vector<Tensor> ins = kernel_inputs(*op, c, &metas);
  MetaList out = infer_op(*op, metas, attrs);
  std::vector<Tensor> gins, hins;
  for (const Tensor& t : ins) {
    gins.push_back(to_gpu_same_layout(t));
    hins.push_back((op->flags & F_INPLACE) ? t.clone() : t);
  }
  TensorList want = run_kernel(*op, hins, out, attrs, /*ref=*/true);
  // Ops with no tensor input (Fill, Range, the random ops) run on the default device.
  set_default_device(kGpu);
  TensorList got;
  try {
    got = run_kernel(*op, gins, out, attrs);
  } catch (...) {
    set_default_device(Device::cpu());
    throw;
  }
  set_default_device(Device::cpu());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].device(), kGpu) << c.op << " output " << i << " is not on the GPU";
    std::string err = compare_tensors(got[i].cpu(), want[i], c.rtol, c.atol);
    EXPECT_EQ(err, "") << c.op << " " << c.label << " output " << i;
  }
  if (op->flags & F_INPLACE) {
    for (size_t i = 0; i < gins.size(); ++i) {
      std::string err = compare_tensors(gins[i].cpu(), hins[i], c.rtol, c.atol);
      EXPECT_EQ(err, "") << c.op << " " << c.label << " in-place input " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, CudaVsCpu, ::testing::ValuesIn(all_kernel_cases()), CaseName());

// ---- the device itself ---------------------------------------------------------------------

TEST(CudaDevice, RoundTripsEveryDtypeAndLayout) {
  for (DType t : {DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                  DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    Tensor h = make_input({{5, 7}, t, t == DType::Bool ? Gen::Bool : Gen::Int, -9, 10}, 3);
    Tensor g = h.to(kGpu);
    EXPECT_EQ(g.device(), kGpu);
    EXPECT_EQ(compare_tensors(g.cpu(), h, 0, 0), "") << dtype_name(t);
    // A transposed view made contiguous on the device, and a cast there.
    Tensor gt = g.permute({1, 0}).contiguous();
    EXPECT_EQ(compare_tensors(gt.cpu(), h.permute({1, 0}).contiguous(), 0, 0), "");
    Tensor gc = g.cast(DType::Float32);
    EXPECT_EQ(compare_tensors(gc.cpu(), h.cast(DType::Float32), 0, 0), "");
  }
}

TEST(CudaDevice, CastsSaturateAsOnTheHost) {
  Tensor h = Tensor::empty({6}, DType::Float32);
  float v[6] = {300.f, -300.f, 1e30f, -1e30f, std::nanf(""), -2.7f};
  std::copy(v, v + 6, h.data<float>());
  for (DType t : {DType::Int8, DType::UInt8, DType::Int32, DType::Int64, DType::Bool}) {
    EXPECT_EQ(compare_tensors(h.to(kGpu).cast(t).cpu(), h.cast(t), 0, 0), "") << dtype_name(t);
  }
}

TEST(CudaDevice, CopyFromBroadcastsAcrossDevices) {
  Tensor g = Tensor::zeros({4, 3}, DType::Float32, kGpu);
  Tensor row = make_input({{3}, DType::Float32}, 5);
  g.copy_from(row);  // host -> device, broadcast
  EXPECT_EQ(compare_tensors(g.cpu(), row.expand({4, 3}).contiguous(), 0, 0), "");
  g.fill(Scalar::from_float(2.5));
  EXPECT_EQ(g.cpu().element_as_double(11), 2.5);
  EXPECT_EQ(g.select(0, 2).select(0, 1).item().to_double(), 2.5);
}

TEST(CudaDevice, AllocatorReusesFreedBlocks) {
  DeviceBackend& b = backend_for(kGpu);
  b.synchronize(0);
  { Tensor a = Tensor::empty({1 << 20}, DType::Float32, kGpu); }
  int64_t cached = b.memory_stats(0).cached;
  EXPECT_GE(cached, int64_t{4} << 20);
  { Tensor a = Tensor::empty({1 << 20}, DType::Float32, kGpu); }
  EXPECT_EQ(b.memory_stats(0).cached, cached);  // served from the cache, given back to it
}

TEST(CudaDevice, OutOfMemoryIsARuntimeError) {
  try {
    Tensor a = Tensor::empty({int64_t{1} << 42}, DType::Float32, kGpu);  // 16 TiB
    FAIL() << "allocated 16 TiB";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("out of memory on GPU:0"), std::string::npos) << e.what();
  }
  // The device is still usable afterwards.
  Tensor ok = Tensor::full({3}, Scalar::from_int(1), DType::Int32, kGpu);
  EXPECT_EQ(ok.cpu().element_as_double(2), 1.0);
}

}  // namespace
}  // namespace mycel::test

// Installs the CUDA backend first; with no GPU every test would fail, so say so once, with
// CUDA's reason (no driver, a driver older than this runtime, no device), and print the
// driver's and the runtime's versions either way.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int driver = 0, runtime = 0, count = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const cudaError_t probe = cudaGetDeviceCount(&count);
  cudaGetLastError();
  std::fprintf(stderr, "mycel_cuda_tests: CUDA driver %d, runtime %d, %d device(s)%s%s\n", driver,
               runtime, count, probe == cudaSuccess ? "" : ": cudaGetDeviceCount: ",
               probe == cudaSuccess ? "" : cudaGetErrorString(probe));
  int n = mycel::cuda::install_cuda();
  if (n == 0) {
    std::fprintf(stderr, "mycel_cuda_tests: no CUDA device found\n");
    return 2;
  }
  int rc = RUN_ALL_TESTS();
  // The coverage table: which ops run a CUDA kernel, which the CPU fallback.
  int cuda = 0, host = 0;
  std::string fallback;
  for (const mycel::OpDef& op : mycel::op_table()) {
    if (mycel::device_kernel(op, mycel::DeviceType::CUDA)) {
      ++cuda;
    } else {
      ++host;
      fallback += std::string(" ") + op.name;
    }
  }
  std::printf("CUDA kernels: %d ops; CPU fallback: %d ops:%s\n", cuda, host, fallback.c_str());
  return rc;
}
