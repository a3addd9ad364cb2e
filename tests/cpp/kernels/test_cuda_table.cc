// The CUDA kernel table (kernels/cuda/defs/*.def), checked on any machine: every op either has
// a CUDA kernel or is listed here as running on the CPU with copies on a GPU (the
// dispatcher's fallback). A new op without a CUDA kernel fails until it is added to the list.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "kernels/kernel_table.h"
#include "ops/op_table.h"
#if defined(MYCEL_CUDA)
#include <dlfcn.h>

#include "kernels/cuda/complex.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cufft_status.h"
#include "ops/complex_ops.h"
#endif

namespace mycel {
namespace {

#if defined(MYCEL_CUDA)
// An op added without a CUDA kernel must be listed here (with why) or fail.
// The collectives: the communicators work on host buffers (comm/communicator.h); a device
// collective library (NCCL, not in Debian) is the seam where they would get device kernels.
// (RandomPoisson has one: its sampler is base/poisson_draw.h, shared with the CPU, so the GPU
// draws the CPU's counts.)
const std::set<std::string> kCpuFallback = {"AllReduce", "AllGather", "ReduceScatter", "AlltoAll",
                                            "Broadcast", "Barrier",   "Send",          "Receive"};
// Complex tensors are a dtype question, not an op one: an op runs on complex64/complex128 on
// the device where the CUDA dtype rule says its kernel takes them (kernels/cuda/complex.h's
// cuda_takes_complex: the complex-number ops, the elementwise ops with complex loops, casts
// and copies, FFTN through cuFFT), and on host copies otherwise (runtime/eager.cc); the
// list of those is ComplexOnHost below.

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

// The ops with complex CPU kernels (kernels/cpu/complex.h, fills, Select) that still run on
// host copies for complex tensors on a GPU: their CUDA kernels are not built for complex, so
// the CUDA rule must decline them. The elementwise ones are ops/complex_ops.h's rows marked
// HOST (checked below, with the rows marked CUDA, which the rule takes).
const std::set<std::string> kComplexOnHost = {"ReduceProd", "OnesLike", "Fill", "Select",
                                              "BiasAdd"};

TEST(CudaTable, ComplexOnHostNamesTheOpsTheRuleDeclines) {
  for (const OpDef& op : op_table()) {
    if (kComplexOnHost.count(op.name)) {
      EXPECT_FALSE(device_takes_dtype(op, DeviceType::CUDA, DType::Complex64)) << op.name;
      EXPECT_FALSE(cuda::cuda_takes_complex(op)) << op.name;
    }
  }
#define MC_ROW(Op, Loop, Out, Dev) \
  EXPECT_EQ(cuda::cuda_takes_complex(op_def(OpId::Op)), std::string_view(#Dev) == "CUDA") << #Op;
  MC_COMPLEX_UNARY_OPS(MC_ROW)
  MC_COMPLEX_BINARY_OPS(MC_ROW)
  MC_COMPLEX_PART_OPS(MC_ROW)
#undef MC_ROW
  EXPECT_FALSE(cuda::cuda_takes_complex(op_def(OpId::Atan)));  // a row marked HOST
  for (OpId id : {OpId::Mul, OpId::ReduceSum, OpId::MatMul, OpId::Cast, OpId::Transpose})
    EXPECT_TRUE(cuda::cuda_takes_complex(op_def(id))) << op_def(id).name;
  EXPECT_TRUE(cuda::cuda_takes_complex(op_def(OpId::Complex)));
  EXPECT_EQ(cuda::cuda_takes_complex(op_def(OpId::FFTN)), cuda::cufft_available());
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
