// On a GPU machine: the fused MatMul epilogue (kernels/fused_matmul.h, cuBLASLt's
// BIAS / RELU_BIAS / GELU_BIAS) against the CPU reference kernels of MatMul, BiasAdd and
// ReLU / GeLU(tanh) on the same inputs, for float32, float16 and bfloat16, both transpose
// flags, odd sizes; and that it declines what it does not take (float64, a misaligned bias)
// without queuing anything.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../kernels/kernel_cases.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/fused_matmul.h"
#include "ops/op_table.h"
#include "runtime/eager.h"

namespace mycel::test {
namespace {

const Device kGpu = Device::cuda(0);

// One op's reference kernel on host tensors.
Tensor ref_op(const char* name, const std::vector<Tensor>& in, const Attrs& given) {
  const OpDef& op = *find_op(name);
  Attrs attrs = make_attrs(op, given);
  std::vector<TensorMeta> metas;
  for (const Tensor& t : in) metas.push_back({t.dtype(), t.shape()});
  MetaList out = infer_op(op, metas, attrs);
  return run_kernel(op, in, out, attrs, /*ref=*/true)[0];
}

// The reference: the ops' reference kernels on the host, each rounding to the dtype as the
// ops do.
Tensor reference(const Tensor& a, const Tensor& b, const Tensor& bias, bool ta, bool tb,
                 MatmulEpilogue e) {
  Tensor y = ref_op("MatMul", {a, b}, A({{"transpose_a", ta}, {"transpose_b", tb}}));
  y = ref_op("BiasAdd", {y, bias}, A({}));
  if (e == MatmulEpilogue::ReluBias) return ref_op("ReLU", {y}, A({}));
  if (e == MatmulEpilogue::GeluBias)
    return ref_op("GeLU", {y}, A({{"approximate", std::string("tanh")}}));
  return y;
}

TEST(CudaFusedMatmul, MatchesTheOpsOnTheCpu) {
  FusedMatmulFn fn = fused_matmul(DeviceType::CUDA);
  ASSERT_NE(fn, nullptr) << "install_cuda did not install the fused MatMul";
  std::string declined;
  for (DType t : {DType::Float32, DType::Float16, DType::BFloat16}) {
    const bool half = t != DType::Float32;
    const double rtol = half ? 2e-2 : 1e-4, atol = half ? 5e-2 : 1e-4;
    for (MatmulEpilogue e :
         {MatmulEpilogue::Bias, MatmulEpilogue::ReluBias, MatmulEpilogue::GeluBias}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          const int64_t M = 37, N = 24, K = 65;
          Tensor a = make_input({ta ? Shape{K, M} : Shape{M, K}, t}, 11);
          Tensor b = make_input({tb ? Shape{N, K} : Shape{K, N}, t}, 12);
          Tensor bias = make_input({{N}, t}, 13);
          Tensor y = Tensor::zeros({M, N}, t, kGpu);
          bool ok = fn(a.to(kGpu), b.to(kGpu), bias.to(kGpu), ta, tb, e, y);
          std::string what = std::string(dtype_name(t)) + " epilogue " +
                             std::to_string(static_cast<int>(e)) + (ta ? " ta" : "") +
                             (tb ? " tb" : "");
          if (!ok) {
            // Declining is allowed (the graph kernel then runs the ops), but nothing may have
            // been written, and Dense's layout (x w^T) must fuse.
            declined += " [" + what + "]";
            EXPECT_TRUE(ta || !tb) << "cuBLASLt declined Dense's layout: " << what;
            EXPECT_EQ(compare_tensors(y.cpu(), Tensor::zeros({M, N}, t), 0, 0), "") << what;
            continue;
          }
          EXPECT_EQ(compare_tensors(y.cpu(), reference(a, b, bias, ta, tb, e), rtol, atol), "")
              << what;
        }
      }
    }
  }
  if (!declined.empty()) std::printf("fused MatMul declined:%s\n", declined.c_str());
}

TEST(CudaFusedMatmul, BiasGradientsMatchTheOpsOnTheCpu) {
  // dW = a^T b with the sum over rows of b (BGRADA) or of a (BGRADB): a Dense layer's weight
  // and bias gradients in one call.
  FusedMatmulFn fn = fused_matmul(DeviceType::CUDA);
  ASSERT_NE(fn, nullptr);
  for (DType t : {DType::Float32, DType::Float16, DType::BFloat16}) {
    const bool half = t != DType::Float32;
    const double rtol = half ? 2e-2 : 1e-4, atol = half ? 1e-1 : 1e-4;
    for (MatmulEpilogue e : {MatmulEpilogue::BiasGradA, MatmulEpilogue::BiasGradB}) {
      const int64_t K = 67, M = 24, N = 40;
      Tensor a = make_input({{K, M}, t}, 21);
      Tensor b = make_input({{K, N}, t}, 22);
      const bool grad_a = e == MatmulEpilogue::BiasGradA;
      Tensor db = Tensor::zeros({grad_a ? N : M}, t, kGpu);
      Tensor y = Tensor::zeros({M, N}, t, kGpu);
      std::string what = std::string(dtype_name(t)) + (grad_a ? " BGRADA" : " BGRADB");
      if (!fn(a.to(kGpu), b.to(kGpu), db, true, false, e, y)) {
        std::printf("fused MatMul declined %s\n", what.c_str());
        EXPECT_EQ(compare_tensors(y.cpu(), Tensor::zeros({M, N}, t), 0, 0), "") << what;
        continue;
      }
      Tensor want = ref_op("MatMul", {a, b}, A({{"transpose_a", true}}));
      Tensor want_db = ref_op("ReduceSum", {grad_a ? b : a}, A({{"axis", ints({0})}}));
      EXPECT_EQ(compare_tensors(y.cpu(), want, rtol, atol), "") << what;
      EXPECT_EQ(compare_tensors(db.cpu(), want_db, rtol, atol), "") << what << " bias gradient";
    }
  }
}

TEST(CudaFusedMatmul, DeclinesWhatItDoesNotTake) {
  FusedMatmulFn fn = fused_matmul(DeviceType::CUDA);
  ASSERT_NE(fn, nullptr);
  Tensor a = make_input({{4, 6}, DType::Float64}, 1).to(kGpu);
  Tensor b = make_input({{6, 3}, DType::Float64}, 2).to(kGpu);
  Tensor bias = make_input({{3}, DType::Float64}, 3).to(kGpu);
  Tensor y = Tensor::zeros({4, 3}, DType::Float64, kGpu);
  EXPECT_FALSE(fn(a, b, bias, false, false, MatmulEpilogue::Bias, y));
  EXPECT_EQ(compare_tensors(y.cpu(), Tensor::zeros({4, 3}, DType::Float64), 0, 0), "");
  // A bias one element into its storage: 4-byte aligned.
  Tensor a32 = make_input({{4, 6}, DType::Float32}, 1).to(kGpu);
  Tensor b32 = make_input({{6, 3}, DType::Float32}, 2).to(kGpu);
  Tensor long_bias = make_input({{4}, DType::Float32}, 3).to(kGpu);
  Tensor shifted = long_bias.slice(0, 1, 4, 1);
  Tensor y32 = Tensor::zeros({4, 3}, DType::Float32, kGpu);
  EXPECT_FALSE(fn(a32, b32, shifted, false, false, MatmulEpilogue::Bias, y32));
}

}  // namespace
}  // namespace mycel::test
