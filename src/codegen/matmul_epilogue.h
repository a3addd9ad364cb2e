// MatMul epilogue graph kernels: a GraphKernel graph that holds MatMul -> BiasAdd, optionally
// followed by ReLU or GeLU{approximate="tanh"} (made by compiler/passes/matmul_epilogue.cc for
// programs that run on a device), runs as one call of the device's fused MatMul
// (kernels/fused_matmul.h: cuBLASLt's bias epilogues on CUDA):
//
//   graph @GraphKernel#MatmulEpilogue_0(%x0: f32[M, K], %x1: f32[N, K], %x2: f32[N]) {
//     %m = MatMul{transpose_a=False, transpose_b=True}(%x0, %x1) : f32[M, N]
//     %b = BiasAdd{data_format="NCHW"}(%m, %x2) : f32[M, N]
//     %r = ReLU(%b) : f32[M, N]
//     return %r
//   }
//
// or a Dense layer's weight and bias gradients, MatMul{transpose_a=True, transpose_b=False}
// of dy and x (either order) with ReduceSum{axis=(0,)} of dy, returned as a pair:
//
//   graph @GraphKernel#MatmulEpilogue_1(%x0: f32[M, N], %x1: f32[M, K]) {
//     %w = MatMul{transpose_a=True, transpose_b=False}(%x0, %x1) : f32[N, K]
//     %s = ReduceSum{axis=(0,), keep_dims=False}(%x0) : f32[N]
//     return make_tuple(%w, %s)
//   }
//
// Its kernel (a vm::FusedKernel) calls the device function when the three tensors are on one
// device that has one and it accepts them; otherwise (host tensors, tensors on different
// devices, no device function, a dtype or alignment it declines) it runs the graph's ops one
// by one through the eager runtime (run_op: placement, the device's or the CPU's kernels),
// which is what the graph computes. So the kernel is always correct, and is faster where the
// device fuses.
#pragma once

#include <memory>
#include <string_view>

#include "ir/anf.h"
#include "runtime/vm.h"

namespace mycel::codegen {

inline constexpr std::string_view kMatmulEpiloguePrefix = "GraphKernel#MatmulEpilogue_";
inline bool is_matmul_epilogue(const ir::FuncGraph* g) {
  return g->name().starts_with(kMatmulEpiloguePrefix);
}

// The kernel of an epilogue graph (is_matmul_epilogue); an internal error if the graph is not
// of the form above.
std::shared_ptr<const vm::FusedKernel> matmul_epilogue_kernel(const ir::FuncGraph* g);

}  // namespace mycel::codegen
