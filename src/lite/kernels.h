// The lite runtime's float32 kernels, NCHW. One kernel object per node, made for the shapes
// that infer_shapes gave (and made again on Resize): it keeps what it prepared (oneDNN
// primitives, prepacked weights) and runs on the arena's buffers.
//
// Conv2D (oneDNN convolution, weights reordered once to the layout oneDNN picks, bias and
// activation as fused post-ops), FullyConnected and MatMul (oneDNN sgemm, then bias and
// activation in one pass) have naive references (kernels_ref.cc) that the tests compare
// against (Context::reference runs a whole model on them). The other ops have one plain
// implementation each (kernels_own.cc), used by both.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "base/parallel.h"

#include "lite/graph.h"

namespace mycel::lite {

class Kernel {
 public:
  virtual ~Kernel() = default;
  // `in` holds one pointer per node input (constants point into the model), `out` the
  // node's output buffer, both of the shapes the kernel was made for. A uint8 activation's
  // buffer (lite/quant.h) comes as the same pointer type and is read as bytes.
  virtual void run(const float* const* in, float* out) = 0;
};

// A kernel's copy of its node and of the shapes it was made for.
struct NodeKernel : Kernel {
  NodeDesc n;
  std::vector<Dims> in;
  Dims out;
  NodeKernel(const Graph& g, const NodeDesc& node) : n(node) {
    for (int t : n.inputs) in.push_back(g.tensors[t].shape);
    out = g.tensors[n.outputs[0]].shape;
  }
};

// How FullyConnected (x W^T: B transposed) and MatMul (op(A) op(B)) read their operands.
struct GemmShape {
  bool fc, ta, tb;
  int64_t M, N, K;
};
inline GemmShape gemm_shape(const NodeKernel& k) {
  const bool fc = k.n.op == OpType::FullyConnected;
  const bool ta = !fc && k.n.a.transpose_a, tb = fc || k.n.a.transpose_b;
  return {fc, ta, tb, k.out[0], k.out[1], ta ? k.in[0][0] : k.in[0][1]};
}

// Pooling's window of output (oh, ow) over an H x W plane: the input rows [hs, he) and
// columns [ws, we) it reads, and an average's divisor (with count_include_pad, the window
// clipped to the padded input, else to the input alone). The forward kernel and the gradient
// (grad_kernels.cc) share it.
struct PoolWindow {
  int64_t hs, he, ws, we, count;
};
inline PoolWindow pool_window(const OpAttrs& a, int64_t H, int64_t W, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * a.stride[0] - a.pad[0], w0 = ow * a.stride[1] - a.pad[2];
  PoolWindow p{h0 > 0 ? h0 : 0, h0 + a.kernel[0] < H ? h0 + a.kernel[0] : H, w0 > 0 ? w0 : 0,
               w0 + a.kernel[1] < W ? w0 + a.kernel[1] : W, 0};
  if (a.count_include_pad) {
    const int64_t hend = h0 + a.kernel[0] < H + a.pad[1] ? h0 + a.kernel[0] : H + a.pad[1];
    const int64_t wend = w0 + a.kernel[1] < W + a.pad[3] ? w0 + a.kernel[1] : W + a.pad[3];
    p.count = (hend - h0) * (wend - w0);
  } else {
    p.count = (p.he - p.hs) * (p.we - p.ws);
  }
  return p;
}

// An NHWC pooling's traversal, the float32 kernel's and the uint8 one's: for each output
// position (b, oh, ow), in parallel chunks of output rows, acc[c] starts at `init` and takes
// each input pixel of the window along the channels by sum (average) or max, then
// `done(acc, window, b, oh, ow)` writes it.
template <typename T, typename In, typename Done>
void pool_nhwc(const OpAttrs& a, const Dims& x, const Dims& y, const In* src, T init,
               const Done& done) {
  const int64_t C = x[1], H = x[2], W = x[3], OH = y[2], OW = y[3];
  const bool avg = a.pool == PoolKind::Avg;
  const int64_t grain = std::max<int64_t>(
      1, (int64_t{1} << 15) / std::max<int64_t>(1, OW * C * a.kernel[0] * a.kernel[1]));
  parallel_for(0, x[0] * OH, grain, [&](int64_t rb, int64_t re) {
    std::vector<T> acc(static_cast<size_t>(C));
    for (int64_t r = rb; r < re; ++r) {
      const int64_t b = r / OH, oh = r % OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const PoolWindow pw = pool_window(a, H, W, oh, ow);
        std::fill(acc.begin(), acc.end(), init);
        for (int64_t h = pw.hs; h < pw.he; ++h)
          for (int64_t w = pw.ws; w < pw.we; ++w) {
            const In* px = src + ((b * H + h) * W + w) * C;
            if (avg)
              for (int64_t c = 0; c < C; ++c) acc[c] += px[c];
            else
              for (int64_t c = 0; c < C; ++c) acc[c] = std::max<T>(acc[c], px[c]);
          }
        done(acc.data(), pw, b, oh, ow);
      }
    }
  });
}

// The kernel of node `n` of `g` (shapes inferred); `reference` picks the naive ones; `bf16`
// runs Conv2D and FullyConnected (constant weights) with bfloat16 inputs and weights (float32
// accumulation and output). An int8 node (lite/quant.h) gets its int8 kernel (or that
// kernel's reference), a node reading uint8 activations its uint8 kernel.
std::unique_ptr<Kernel> make_kernel(const Graph& g, const NodeDesc& n, bool reference,
                                    bool bf16 = false);

// The activation applied in place to n floats.
void apply_act(float* p, int64_t n, Act a);

// The kernels of the ops without an optimised variant (kernels_own.cc), and the naive
// references of those with one (kernels_ref.cc), and the optimised ones (kernels_dnnl.cc).
std::unique_ptr<Kernel> make_own_kernel(const Graph& g, const NodeDesc& n);
std::unique_ptr<Kernel> make_ref_kernel(const Graph& g, const NodeDesc& n);
std::unique_ptr<Kernel> make_dnnl_kernel(const Graph& g, const NodeDesc& n, bool bf16 = false);
// Int8 Conv2D / FullyConnected (kernels_int8.cc): one oneDNN int8 primitive with the
// requantization fused (or lite/conv_1ch.h for one input channel), or (reference) direct
// integer loops computing the same defined expression, so they agree exactly.
std::unique_ptr<Kernel> make_int8_kernel(const Graph& g, const NodeDesc& n, bool reference);
// Pool, Reshape and Eltwise Add on uint8 activations (kernels_u8.cc; lite/quant.h): integer
// kernels, their own references.
std::unique_ptr<Kernel> make_u8_kernel(const Graph& g, const NodeDesc& n);

}  // namespace mycel::lite
