// Mixed precision's ops have half-type kernel cases (checked on any machine): every op that
// mycel.amp's levels run in float16/bfloat16 (the convolutions and their gradients, MatMul,
// pooling, softmax, the normalisations, activations, elementwise arithmetic, reductions,
// casts) has kernel cases in both float16 and bfloat16, which test_kernels_vs_ref runs on
// the CPU and tests/cpp/cuda on the GPU against the CPU reference, and (in a CUDA build) a
// CUDA kernel. An op added to this list without such cases fails here.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "kernel_cases.h"
#include "ops/op_table.h"
#if defined(MYCEL_CUDA)
#include "kernels/cuda/cuda_kernels.h"
#endif

namespace mycel::test {
namespace {

const char* const kAmpOps[] = {"Conv2D",
                               "Conv2DBackpropInput",
                               "Conv2DBackpropFilter",
                               "MatMul",
                               "BatchMatMul",
                               "BiasAdd",
                               "MaxPool",
                               "MaxPoolGrad",
                               "AvgPool",
                               "AvgPoolGrad",
                               "Softmax",
                               "LogSoftmax",
                               "BatchNorm",
                               "BatchNormGrad",
                               "LayerNorm",
                               "LayerNormGrad",
                               "ReLU",
                               "ReluGrad",
                               "GeLU",
                               "Sigmoid",
                               "Tanh",
                               "Add",
                               "Sub",
                               "Mul",
                               "Div",
                               "Neg",
                               "Exp",
                               "Sqrt",
                               "Cast",
                               "ReduceSum",
                               "ReduceMean",
                               "ReduceMax",
                               "Transpose",
                               "Reshape",
                               "Select",
                               "Maximum",
                               "Dropout",
                               "SoftmaxCrossEntropyWithLogits",
                               "SparseSoftmaxCrossEntropyWithLogits"};

// The dtypes of each op's cases' inputs (built inputs included).
std::map<std::string, std::set<DType>> case_dtypes() {
  std::map<std::string, std::set<DType>> m;
  for (const KernelCase& c : all_kernel_cases()) {
    if (c.make_inputs) {
      for (const Tensor& t : c.make_inputs()) m[c.op].insert(t.dtype());
    } else {
      for (const InputSpec& s : c.inputs) m[c.op].insert(s.dtype);
    }
  }
  return m;
}

TEST(AmpHalfCases, EveryAmpOpHasFloat16AndBFloat16Cases) {
  const auto m = case_dtypes();
  for (const char* op : kAmpOps) {
    ASSERT_NE(find_op(op), nullptr) << op;
    auto it = m.find(op);
    ASSERT_NE(it, m.end()) << op << " has no kernel cases";
    EXPECT_TRUE(it->second.count(DType::Float16)) << op << " has no float16 case";
    EXPECT_TRUE(it->second.count(DType::BFloat16)) << op << " has no bfloat16 case";
  }
}

#if defined(MYCEL_CUDA)
TEST(AmpHalfCases, EveryAmpOpHasACudaKernel) {
  std::span<const KernelFn> t = cuda::kernel_table();
  for (const char* op : kAmpOps) EXPECT_NE(t[static_cast<size_t>(find_op(op)->id)], nullptr) << op;
}
#endif

}  // namespace
}  // namespace mycel::test
