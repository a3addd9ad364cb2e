// graph_kernel_expand: the first step of the graph_kernel pass (graph_kernel.cc). Training-mode
// BatchNorm and BatchNormGrad are opaque op kernels, so the ReLU, Add and ReluGrad around them
// fused into clusters that stopped at them, and the fused ResNet step made as many passes over
// memory as the unfused one. Where a neighbour would fuse (the cost rule below), this step
// writes them as prims the clusters can take: their batch statistics as reductions, the rest
// elementwise (float32, the channel axis 1: NCHW or [N, C]; A = the axes but 1, m = the
// number of elements each channel reduces, K = x's shape with 1 on A):
//
//   (y, bm, bv, sm, si) = BatchNorm{is_training}(x, scale, bias, rm, rv)  ->
//     x64 = Cast{f64}(x); s1 = ReduceSum{A, keep}(x64); s2 = ReduceSum{A, keep}(Square(x64))
//     mean = s1 / m; var = Maximum(s2 / m - mean^2, 0); inv = 1 / Sqrt(var + eps)   (f64, K)
//     a = f32(inv * scale); b = f32(bias - mean * inv * scale)
//     y = x * a + b                                              (one kernel with ReLU, Add)
//     Assign(rm, (1 - mom) rm + mom mean); Assign(rv, (1 - mom) rv + mom var m / (m - 1))
//     bm, sm = f32(mean); bv = f32(var); si = f32(inv)             (reshaped to [C])
//   (dx, dscale, dbias) = BatchNormGrad{is_training}(dy, x, scale, sm, si)  ->
//     t = x - sm; sdy = ReduceSum{A, keep}(dy); sdt = ReduceSum{A, keep}(dy * t)   (one pass)
//     k = scale si; dbias = sdy; dscale = sdt si                            (f64 per channel)
//     dx = f32(k) dy + f32(-k sdy / m) + f32(-k si^2 sdt / m) (x - sm)    (one kernel)
//
// the op kernels' formulas (kernels/cpu/norm.cc) in their order, the sums in double (the
// gradient's rounded once to float32): the forward's one-pass variance sums x^2 in float64,
// whose cancellation is far below float32's rounding. The running statistics' Assigns are kept
// alive by a depend on the graph's output. The per-channel chains read one sum through a
// depend on the other, so that they start after both: an order the fuser's position rule
// needs (graph_kernel.cc: a cluster's outside inputs come before its first node), no work at
// run time. (The x-shaped chains need none: the fuser's order puts the per-channel values
// first; and dy, made by the statistics kernel, dies at the dx kernel, which can store dx
// into it.) f32(k) is read through such a depend too: known before the sums, its product
// with dy joined the statistics kernel, which then stored k dy beside dy where dy has another
// user (a residual block's shortcut), an x-sized pass out and back in.
//
// And a dense layer's bias before a reshape (nn.Dense on a sequence: [B, T, K] -> [B*T, K],
// MatMul, BiasAdd, back to [B, T, N]) where a user of the reshape fuses (GeLU, ReLU):
//
//   Reshape{s}(BiasAdd(a[M, N], b[N]))  ->  Add(Reshape{s}(a), b)        (s ends with N)
//
// the same sums in the reshape's shape, which join the user's kernel (the Reshape of the
// MatMul's result is a view); only where the BiasAdd has no other user.
//
// Cost rule (BatchNorm): the op kernels make their passes per channel while the channel is in
// cache; the expansion pays off only when it saves a pass over memory, so a BatchNorm expands
// when y has a user that fuses (ReLU, the residual Add), a BatchNormGrad when dy is made by a
// node that fuses (ReluGrad) or dx has a user that does. Only nodes whose results are all taken by
// getitem, whose running statistics are read by nothing else, with static shapes and m > 1.
#pragma once

#include "ir/anf.h"
#include "ir/manager.h"

namespace mycel::compiler {

// Rewrites g's BatchNorm / BatchNormGrad nodes and dense biases as above; returns whether it
// changed g. The caller invalidates the manager afterwards.
bool expand_for_graph_kernel(ir::Module& m, ir::Manager& mng, ir::FuncGraph* g);

}  // namespace mycel::compiler
