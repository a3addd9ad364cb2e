// Naive references of the optimised lite kernels: direct loops in double, the oracle the
// tests compare the oneDNN kernels (and whole models, Context::reference) against.
#include <cmath>

#include "base/error.h"
#include "lite/kernels.h"

namespace mycel::lite {

namespace {

struct RefConv : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    const OpAttrs& a = n.a;
    const Dims &x = in[0], &w = in[1];
    const int64_t N = x[0], C = x[1], H = x[2], W = x[3], O = w[0], CG = w[1], KH = w[2], KW = w[3],
                  OH = out[2], OW = out[3], OG = O / a.group;
    for (int64_t b = 0; b < N; ++b)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            double acc = in.size() == 3 ? src[2][o] : 0.0;
            const int64_t c0 = (o / OG) * CG;
            for (int64_t c = 0; c < CG; ++c)
              for (int64_t kh = 0; kh < KH; ++kh)
                for (int64_t kw = 0; kw < KW; ++kw) {
                  int64_t h = oh * a.stride[0] - a.pad[0] + kh * a.dilation[0];
                  int64_t ww = ow * a.stride[1] - a.pad[2] + kw * a.dilation[1];
                  if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                  acc += double(src[0][((b * C + c0 + c) * H + h) * W + ww]) *
                         src[1][((o * CG + c) * KH + kh) * KW + kw];
                }
            dst[((b * O + o) * OH + oh) * OW + ow] = static_cast<float>(acc);
          }
    apply_act(dst, N * O * OH * OW, a.act);
  }
};

// FullyConnected (x W^T + b) and MatMul (op(A) op(B)).
struct RefGemm : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    const GemmShape s = gemm_shape(*this);
    const bool fc = s.fc, ta = s.ta, tb = s.tb;
    const int64_t M = s.M, N = s.N, K = s.K;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = fc && in.size() == 3 ? src[2][j] : 0.0;
        for (int64_t k = 0; k < K; ++k)
          acc += double(ta ? src[0][k * M + i] : src[0][i * K + k]) *
                 (tb ? src[1][j * K + k] : src[1][k * N + j]);
        dst[i * N + j] = static_cast<float>(acc);
      }
    if (fc) apply_act(dst, M * N, n.a.act);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_ref_kernel(const Graph& g, const NodeDesc& n) {
  if (n.op == OpType::Conv2D) return std::make_unique<RefConv>(g, n);
  MC_ASSERT(n.op == OpType::FullyConnected || n.op == OpType::MatMul, "no reference for ",
            op_type_name(n.op));
  return std::make_unique<RefGemm>(g, n);
}

}  // namespace mycel::lite
