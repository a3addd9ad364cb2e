#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/kernels.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {

float act_one(float v, Act a) {
  switch (a) {
    case Act::None:
      return v;
    case Act::ReLU:
      return v > 0.f ? v : 0.f;
    case Act::ReLU6:
      return std::min(std::max(v, 0.f), 6.f);
    case Act::Sigmoid:
      return 1.f / (1.f + std::exp(-v));
    case Act::Tanh:
      return std::tanh(v);
  }
  return v;
}

// [outer, mid, inner] around axis `axis` of `d`.
void split3(const Dims& d, size_t axis, int64_t* outer, int64_t* mid, int64_t* inner) {
  *outer = 1, *inner = 1;
  for (size_t i = 0; i < axis; ++i) *outer *= d[i];
  *mid = d[axis];
  for (size_t i = axis + 1; i < d.size(); ++i) *inner *= d[i];
}

struct PoolKernel : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    const OpAttrs& a = n.a;
    const Dims& x = in[0];
    const int64_t H = x[2], W = x[3], OH = out[2], OW = out[3];
    const bool avg = a.pool == PoolKind::Avg;
    // Planes per task: about 2^15 window reads, so a small pool never wakes the workers.
    const int64_t grain = std::max<int64_t>(
        1, (int64_t{1} << 15) / std::max<int64_t>(1, OH * OW * a.kernel[0] * a.kernel[1]));
    parallel_for(0, x[0] * x[1], grain, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const float* s = src[0] + p * H * W;
        float* d = dst + p * OH * OW;
        for (int64_t oh = 0; oh < OH; ++oh) {
          for (int64_t ow = 0; ow < OW; ++ow) {
            const PoolWindow pw = pool_window(a, H, W, oh, ow);
            float acc = avg ? 0.f : -std::numeric_limits<float>::infinity();
            for (int64_t h = pw.hs; h < pw.he; ++h)
              for (int64_t w = pw.ws; w < pw.we; ++w)
                acc = avg ? acc + s[h * W + w] : std::max(acc, s[h * W + w]);
            if (avg) acc = pw.count > 0 ? acc / static_cast<float>(pw.count) : 0.f;
            d[oh * OW + ow] = acc;
          }
        }
      }
    });
  }
};

// Pooling of an NHWC input (lite/layout.h) into an NHWC or NCHW output: the window's
// channels innermost, so the reads and the max or sum run along contiguous channels. An
// nChw16c input (into nChw16c or NCHW) is N * C/16 NHWC images of 16 channels each.
struct PoolNhwcKernel : NodeKernel {
  Layout from, to;
  PoolNhwcKernel(const Graph& g, const NodeDesc& node)
      : NodeKernel(g, node),
        from(g.tensors[node.inputs[0]].layout),
        to(g.tensors[node.outputs[0]].layout) {}
  void run(const float* const* src, float* dst) override {
    const int64_t C = in[0][1], OH = out[2], OW = out[3];
    const int64_t B = from == Layout::Blocked16 ? 16 : C;  // channels per image
    const int64_t CB = C / B;                              // images per sample
    const bool avg = n.a.pool == PoolKind::Avg;
    const float init = avg ? 0.f : -std::numeric_limits<float>::infinity();
    const Dims x{in[0][0] * CB, B, in[0][2], in[0][3]}, y{out[0] * CB, B, OH, OW};
    pool_nhwc(n.a, x, y, src[0], init,
              [&](float* acc, const PoolWindow& pw, int64_t b, int64_t oh, int64_t ow) {
                if (avg)
                  for (int64_t c = 0; c < B; ++c)
                    acc[c] = pw.count > 0 ? acc[c] / static_cast<float>(pw.count) : 0.f;
                if (to != Layout::Nchw) {
                  std::copy(acc, acc + B, dst + ((b * OH + oh) * OW + ow) * B);
                  return;
                }
                const int64_t s = b / CB, c0 = b % CB * B;  // sample, first channel
                for (int64_t c = 0; c < B; ++c)
                  dst[((s * C + c0 + c) * OH + oh) * OW + ow] = acc[c];
              });
  }
};

struct EltwiseKernel : NodeKernel {
  using NodeKernel::NodeKernel;
  static float op(EltKind k, float x, float y) {
    switch (k) {
      case EltKind::Add:
        return x + y;
      case EltKind::Sub:
        return x - y;
      case EltKind::Mul:
        return x * y;
      case EltKind::Div:
        return x / y;
    }
    return 0.f;
  }
  void run(const float* const* src, float* dst) override {
    const int64_t total = numel(out);
    const EltKind k = n.a.elt;
    if (in[0] == out && in[1] == out) {
      for (int64_t i = 0; i < total; ++i) dst[i] = op(k, src[0][i], src[1][i]);
    } else {
      // Broadcast: each input's strides over the output's dimensions (0 where broadcast).
      const size_t r = out.size();
      std::vector<int64_t> sa(r, 0), sb(r, 0), idx(r, 0);
      for (int which = 0; which < 2; ++which) {
        const Dims& d = in[which];
        std::vector<int64_t>& s = which ? sb : sa;
        int64_t st = 1;
        for (size_t i = d.size(); i-- > 0;) {
          size_t o = i + (r - d.size());
          s[o] = d[i] == 1 ? 0 : st;
          st *= d[i];
        }
      }
      int64_t ia = 0, ib = 0;
      for (int64_t i = 0; i < total; ++i) {
        dst[i] = op(k, src[0][ia], src[1][ib]);
        for (size_t j = r; j-- > 0;) {
          ia += sa[j], ib += sb[j];
          if (++idx[j] < out[j]) break;
          ia -= sa[j] * out[j], ib -= sb[j] * out[j];
          idx[j] = 0;
        }
      }
    }
    apply_act(dst, total, n.a.act);
  }
};

struct ActKernel : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    const int64_t total = numel(out);
    if (dst != src[0]) std::memcpy(dst, src[0], total * sizeof(float));
    apply_act(dst, total, n.a.act);
  }
};

struct CopyKernel : NodeKernel {  // Reshape: the same bytes under another shape
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    if (dst != src[0]) std::memcpy(dst, src[0], numel(out) * sizeof(float));
  }
};

struct TransposeKernel : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    const Dims& x = in[0];
    const size_t r = x.size();
    std::vector<int64_t> xs(r, 1), s(r), idx(r, 0);
    for (size_t i = r; i-- > 1;) xs[i - 1] = xs[i] * x[i];
    for (size_t i = 0; i < r; ++i) s[i] = xs[n.a.perm[i]];
    const int64_t total = numel(out);
    int64_t off = 0;
    for (int64_t i = 0; i < total; ++i) {
      dst[i] = src[0][off];
      for (size_t j = r; j-- > 0;) {
        off += s[j];
        if (++idx[j] < out[j]) break;
        off -= s[j] * out[j];
        idx[j] = 0;
      }
    }
  }
};

struct SoftmaxKernel : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    int64_t r = static_cast<int64_t>(out.size());
    int64_t outer, mid, inner;
    split3(out, static_cast<size_t>(n.a.axis < 0 ? n.a.axis + r : n.a.axis), &outer, &mid, &inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const float* s = src[0] + o * mid * inner + i;
        float* d = dst + o * mid * inner + i;
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t k = 0; k < mid; ++k) m = std::max(m, s[k * inner]);
        double sum = 0;
        for (int64_t k = 0; k < mid; ++k) sum += d[k * inner] = std::exp(s[k * inner] - m);
        const float inv = static_cast<float>(1.0 / sum);
        for (int64_t k = 0; k < mid; ++k) d[k * inner] *= inv;
      }
  }
};

// BiasAdd (y = x + b) and BatchNorm (y = (x - mean) / sqrt(var + eps) * scale + shift): a
// per-channel affine map over [N, C, inner].
struct ChannelAffineKernel : NodeKernel {
  using NodeKernel::NodeKernel;
  void run(const float* const* src, float* dst) override {
    int64_t outer, c, inner;
    split3(out, 1, &outer, &c, &inner);
    std::vector<float> mul(c, 1.f), add(c);
    for (int64_t j = 0; j < c; ++j) {
      if (n.op == OpType::BiasAdd) {
        add[j] = src[1][j];
      } else {
        mul[j] = src[1][j] / std::sqrt(src[4][j] + n.a.epsilon);
        add[j] = src[2][j] - src[3][j] * mul[j];
      }
    }
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < c; ++j) {
        const float* s = src[0] + (o * c + j) * inner;
        float* d = dst + (o * c + j) * inner;
        for (int64_t i = 0; i < inner; ++i) d[i] = s[i] * mul[j] + add[j];
      }
  }
};

}  // namespace

void apply_act(float* p, int64_t n, Act a) {
  if (a == Act::None) return;
  if (a == Act::ReLU) {
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] > 0.f ? p[i] : 0.f;
    return;
  }
  for (int64_t i = 0; i < n; ++i) p[i] = act_one(p[i], a);
}

std::unique_ptr<Kernel> make_own_kernel(const Graph& g, const NodeDesc& n) {
  switch (n.op) {
    case OpType::Pool:
      if (g.tensors[n.inputs[0]].layout != Layout::Nchw)
        return std::make_unique<PoolNhwcKernel>(g, n);
      return std::make_unique<PoolKernel>(g, n);
    case OpType::Eltwise:
      return std::make_unique<EltwiseKernel>(g, n);
    case OpType::Act:
      return std::make_unique<ActKernel>(g, n);
    case OpType::Reshape:
      return std::make_unique<CopyKernel>(g, n);
    case OpType::Transpose:
      return std::make_unique<TransposeKernel>(g, n);
    case OpType::Softmax:
      return std::make_unique<SoftmaxKernel>(g, n);
    case OpType::BiasAdd:
    case OpType::BatchNorm:
      return std::make_unique<ChannelAffineKernel>(g, n);
    default:
      break;
  }
  MC_ASSERT(false, "no own kernel for ", op_type_name(n.op));
}

std::unique_ptr<Kernel> make_kernel(const Graph& g, const NodeDesc& n, bool reference, bool bf16) {
  if (is_int8_node(g, n)) return make_int8_kernel(g, n, reference);
  if (is_u8(g.tensors[n.inputs[0]])) return make_u8_kernel(g, n);
  switch (n.op) {
    case OpType::Conv2D:
    case OpType::FullyConnected:
    case OpType::MatMul:
      return reference ? make_ref_kernel(g, n) : make_dnnl_kernel(g, n, bf16);
    default:
      return make_own_kernel(g, n);
  }
}

}  // namespace mycel::lite
