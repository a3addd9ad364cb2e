// A device's fused MatMul epilogue: y = act(op(a) op(b) + bias) in one library call, for the
// graph compiler's MatMul -> BiasAdd (-> ReLU | GeLU) clusters on a device, or y = op(a) op(b)
// with the bias gradient (the sum of an operand over the product's reduction axis) computed
// in the same call, for a Dense layer's backward: its weight gradient and ReduceSum
// (codegen/matmul_epilogue.h; cuBLASLt's CUBLASLT_EPILOGUE_BIAS / RELU_BIAS / GELU_BIAS /
// BGRADA / BGRADB on CUDA). It is not an op: the cluster's ops are its reference, and its
// graph kernel runs them one by one wherever no device function is installed or the
// function declines.
//
// A backend installs its function explicitly (kernels/cuda's install_cuda), never at static
// initialisation; nothing here names a backend.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace mycel {

enum class MatmulEpilogue : uint8_t {
  Bias,      // y = a b + bias
  ReluBias,  // y = relu(a b + bias)
  GeluBias,  // y = gelu(a b + bias), GeLU's tanh approximation (GeLU{approximate="tanh"})
  // y = a^T b (ta, not tb) and `bias` (an output) = the sum of b over its rows: the bias
  // gradient of b = dy [K, N] (bias [N]) beside the weight gradient x^T dy.
  BiasGradA,
  // y = a^T b (ta, not tb) and `bias` (an output) = the sum of a over its rows: the bias
  // gradient of a = dy [K, M] (bias [M]) beside the weight gradient dy^T x.
  BiasGradB,
};

// The fused product on the tensors' device: a [M,K] ([K,M] when ta), b [K,N] ([N,K] when
// tb), bias [N] (an output of [N] or [M] for the BiasGrad kinds), all contiguous, on one
// device, of one floating dtype; y [M,N] of that dtype, allocated on that device. Returns false,
// having queued nothing, when it does not apply (a dtype, size or alignment the library does not
// take); the caller then runs the ops.
using FusedMatmulFn = bool (*)(const Tensor& a, const Tensor& b, const Tensor& bias, bool ta,
                               bool tb, MatmulEpilogue epilogue, const Tensor& y);

// The function of a device type, or nullptr (always nullptr for the CPU).
FusedMatmulFn fused_matmul(DeviceType type);
void install_fused_matmul(DeviceType type, FusedMatmulFn fn);

}  // namespace mycel
