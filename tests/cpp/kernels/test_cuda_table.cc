// The CUDA kernel table (kernels/cuda/defs/*.def), checked on any machine: every op either has
// a CUDA kernel or is listed here as running on the CPU with copies on a GPU (the
// dispatcher's fallback). A new op without a CUDA kernel fails until it is added to the list.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernels/kernel_table.h"
#include "ops/op_table.h"
#if defined(MYCEL_CUDA)
#include <dlfcn.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cufft_status.h"
#endif

namespace mycel {
namespace {

#if defined(MYCEL_CUDA)
// An op added without a CUDA kernel must be listed here (with why) or fail.
// The collectives: the communicators work on host buffers (comm/communicator.h); a device
// collective library (NCCL, not in Debian) is the seam where they would get device kernels.
// RandomPoisson (added for MindSpore's P.RandomPoisson) has no CUDA kernel yet: its draws
// call libm's exp, log and lgamma, whose device versions differ in the last ulps, so a GPU
// kernel would not draw the CPU's counts bit for bit until those are shared formulas; it runs
// on host copies, and so do the selection ops (Unique, MaskedSelect, MaskedScatter, NonZero).
const std::set<std::string> kCpuFallback = {
    "AllReduce", "AllGather", "ReduceScatter", "AlltoAll", "Broadcast", "Barrier", "Send",
    "Receive", "RandomPoisson",
    // The complex-number ops: complex tensors run on the host (runtime/eager.cc) except for
    // the ops the CUDA dtype rule names (kernels/cuda/cuda_table.cc: FFTN, through cuFFT).
    "Real", "Imag", "Conj", "Angle", "ComplexAbs", "Complex"};

TEST(CudaTable, FallbackListNamesRealOps) {
  for (const std::string& name : kCpuFallback) EXPECT_NE(find_op(name), nullptr) << name;
}

TEST(CudaTable, EveryOpHasACudaKernelOrIsListedAsFallback) {
  std::span<const KernelFn> t = cuda::kernel_table();
  ASSERT_EQ(t.size(), kNumOps);
  for (const OpDef& op : op_table()) {
    bool has = t[static_cast<size_t>(op.id)] != nullptr;
    EXPECT_NE(has, kCpuFallback.count(op.name) > 0)
        << op.name
        << (has ? " has a CUDA kernel: take it off the fallback list"
                : " has no CUDA kernel: write one or list it as a fallback");
  }
}

// libcufft is loaded with dlopen, its functions resolved by name (kernels/cuda/cufft_lib.h):
// where the library can be opened (this needs no GPU), every name resolves.
TEST(CudaTable, CufftLoadsWhereTheLibraryIs) {
  void* lib = dlopen("libcufft.so.12", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) lib = dlopen("libcufft.so", RTLD_NOW | RTLD_LOCAL);
  EXPECT_EQ(cuda::cufft_available(), lib != nullptr);
  if (lib) dlclose(lib);
}
#else
TEST(CudaTable, BuiltWithoutCuda) {
  EXPECT_EQ(device_kernel(op_def(OpId::Add), DeviceType::CUDA), nullptr);
}
#endif

}  // namespace
}  // namespace mycel
