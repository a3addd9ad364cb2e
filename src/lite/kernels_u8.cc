// The kernels of the ops that pass uint8 activations between int8 layers (lite/quant.h):
// Pool, Reshape and Eltwise Add reading uint8 codes (rank 4: NHWC) and writing uint8 codes or,
// where a float op or the graph's output reads the result, float32 (logical NCHW order).
//   - Max pool: the largest code of the window (an empty window: code 0); average pool: the
//     window's codes summed in integers, padding counted as the zero point (real zero) under
//     count_include_pad, divided by the count rounding half up (an empty window: the zero
//     point). The output keeps the input's parameters.
//   - Reshape: the codes in the output's order (NHWC <-> logical), parameters kept.
//   - Add: q = clamp(round_fixed((qa - za) * Ma + (qb - zb) * Mb) + zy) with the fixed-point
//     multipliers Ma = fixed_mult(sa / sy), Mb = fixed_mult(sb / sy), a fused ReLU/ReLU6 as
//     the clamp; float32 output: sa (qa - za) + sb (qb - zb), then the activation.
// Integer arithmetic throughout: these kernels are their own exact references (the tests
// compare them with direct integer loops). A max pool to uint8 runs separably (each output
// row's window rows reduced to one row by bytewise max, then each output pixel's columns of
// it), and Add's loop is built for AVX-512 and AVX2 too (target_clones, chosen at load by
// the CPU): the same integer expressions, vectorised.
#include <algorithm>
#include <cstring>
#include <vector>

#include "base/error.h"
#include "lite/kernels.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {

const uint8_t* codes(const float* p) { return reinterpret_cast<const uint8_t*>(p); }
uint8_t* codes(float* p) { return reinterpret_cast<uint8_t*>(p); }

// Where element `i` (row-major over d) of a uint8 activation lies: NHWC for rank 4.
int64_t u8_pos(const Dims& d, int64_t i) {
  if (d.size() != 4) return i;
  const int64_t W = d[3], H = d[2], C = d[1];
  const int64_t w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, b = i / (W * H * C);
  return ((b * H + h) * W + w) * C + c;
}

struct U8Node : NodeKernel {
  float sx = 1.f;
  int32_t zx = 0;
  bool out_u8 = false;
  U8Node(const Graph& g, const NodeDesc& node) : NodeKernel(g, node) {
    const Quant& q = g.tensors[n.inputs[0]].quant;
    sx = q.scale[0], zx = static_cast<int32_t>(q.zero_point[0]);
    out_u8 = is_u8(g.tensors[n.outputs[0]]);
  }
  float real(int32_t code) const { return sx * static_cast<float>(code - zx); }
};

#define MC_U8_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// y[i] = max(y[i], x[i]) over n bytes.
MC_U8_CLONES void max_into(const uint8_t* x, int64_t n, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(y[i], x[i]);
}

// Add's uint8 output: clamp(fixed_round((a - za) ma + (b - zb) mb) + zy, lo, hi) (int64).
MC_U8_CLONES void add_codes(const uint8_t* a, const uint8_t* b, int64_t n, int32_t za, int32_t zb,
                            int64_t ma, int64_t mb, int32_t zy, int32_t lo, int32_t hi,
                            uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = fixed_round((a[i] - za) * ma + (b[i] - zb) * mb) + zy;
    y[i] = static_cast<uint8_t>(std::min<int64_t>(std::max<int64_t>(v, lo), hi));
  }
}

struct U8Pool : U8Node {
  std::vector<uint8_t> rowmax, span;  // a max pool's rows: [W, C] each
  U8Pool(const Graph& g, const NodeDesc& node) : U8Node(g, node) {
    if (n.a.pool != PoolKind::Max || !out_u8) return;
    rowmax.resize(static_cast<size_t>(in[0][3] * in[0][1]));
    span.resize(rowmax.size());
  }

  // Max pool, uint8 out, separably: per output row, the window's input rows (clipped to the
  // input) reduced bytewise into `rowmax` (code 0 for none, an empty window's result); then
  // span[w] = the max of rowmax over columns [w, w + kernel) clipped to the input, so an output
  // pixel whose window starts inside the input copies its span; one starting in the left
  // padding takes the max of its columns directly.
  void max_pool(const uint8_t* x, uint8_t* y) {
    const int64_t N = in[0][0], C = in[0][1], H = in[0][2], W = in[0][3], OH = out[2], OW = out[3],
                  K = n.a.kernel[1];
    for (int64_t b = 0; b < N; ++b)
      for (int64_t oh = 0; oh < OH; ++oh) {
        const PoolWindow rows = pool_window(n.a, H, W, oh, 0);
        std::fill(rowmax.begin(), rowmax.end(), uint8_t{0});
        for (int64_t h = rows.hs; h < rows.he; ++h)
          max_into(x + (b * H + h) * W * C, W * C, rowmax.data());
        std::copy(rowmax.begin(), rowmax.end(), span.begin());
        for (int64_t k = 1; k < K && k < W; ++k)
          max_into(rowmax.data() + k * C, (W - k) * C, span.data());
        uint8_t* yr = y + (b * OH + oh) * OW * C;
        for (int64_t ow = 0; ow < OW; ++ow) {
          const PoolWindow pw = pool_window(n.a, H, W, oh, ow);
          uint8_t* yp = yr + ow * C;
          const int64_t start = ow * n.a.stride[1] - n.a.pad[2];
          if (start >= 0 && start < W) {
            std::memcpy(yp, span.data() + start * C, static_cast<size_t>(C));
            continue;
          }
          std::fill(yp, yp + C, uint8_t{0});
          for (int64_t w = pw.ws; w < pw.we; ++w) {
            const uint8_t* r = rowmax.data() + w * C;
            for (int64_t c = 0; c < C; ++c) yp[c] = std::max(yp[c], r[c]);
          }
        }
      }
  }

  void run(const float* const* src, float* dst) override {
    const int64_t C = in[0][1], OH = out[2], OW = out[3];
    const bool avg = n.a.pool == PoolKind::Avg;
    if (!avg && out_u8) return max_pool(codes(src[0]), codes(dst));
    pool_nhwc(n.a, in[0], out, codes(src[0]), int64_t{0},
              [&](int64_t* acc, const PoolWindow& pw, int64_t b, int64_t oh, int64_t ow) {
                if (avg) {
                  const int64_t inside = (pw.he - pw.hs) * (pw.we - pw.ws);
                  const int64_t pad = pw.count > inside ? (pw.count - inside) * zx : 0;
                  for (int64_t c = 0; c < C; ++c)
                    acc[c] = pw.count > 0 ? (acc[c] + pad + pw.count / 2) / pw.count : zx;
                }
                for (int64_t c = 0; c < C; ++c) {
                  if (out_u8)
                    codes(dst)[((b * OH + oh) * OW + ow) * C + c] = static_cast<uint8_t>(acc[c]);
                  else
                    dst[((b * C + c) * OH + oh) * OW + ow] = real(static_cast<int32_t>(acc[c]));
                }
              });
  }
};

struct U8Reshape : U8Node {
  std::vector<int64_t> from;  // per output position, the input position (empty: same order)
  U8Reshape(const Graph& g, const NodeDesc& node) : U8Node(g, node) {
    const Dims& y = out;
    if (in[0].size() != 4 && (y.size() != 4 || !out_u8)) return;
    from.resize(static_cast<size_t>(numel(y)));
    for (int64_t i = 0; i < numel(y); ++i) from[out_u8 ? u8_pos(y, i) : i] = u8_pos(in[0], i);
  }
  void run(const float* const* src, float* dst) override {
    const uint8_t* x = codes(src[0]);
    const int64_t total = numel(out);
    if (out_u8) {
      if (from.empty()) {
        if (codes(dst) != x) std::memcpy(dst, x, static_cast<size_t>(total));
      } else {
        for (int64_t j = 0; j < total; ++j) codes(dst)[j] = x[from[j]];
      }
      return;
    }
    for (int64_t j = 0; j < total; ++j) dst[j] = real(x[from.empty() ? j : from[j]]);
  }
};

struct U8Add : U8Node {
  float sb = 1.f;
  int32_t zb = 0, zy = 0, lo = 0, hi = 255;
  int64_t ma = 0, mb = 0;
  U8Add(const Graph& g, const NodeDesc& node) : U8Node(g, node) {
    MC_CHECK(in[0] == out && in[1] == out, Value, "For 'Add' (uint8 node '", n.name,
             "'): the inputs ", dims_str(in[0]), " and ", dims_str(in[1]),
             " must have the output's shape ", dims_str(out));
    const Quant& qb = g.tensors[n.inputs[1]].quant;
    sb = qb.scale[0], zb = static_cast<int32_t>(qb.zero_point[0]);
    if (!out_u8) return;
    const Quant& qy = g.tensors[n.outputs[0]].quant;
    zy = static_cast<int32_t>(qy.zero_point[0]);
    u8_act_range(n.a.act, qy.scale[0], zy, &lo, &hi);
    ma = fixed_mult(static_cast<double>(sx) / qy.scale[0]);
    mb = fixed_mult(static_cast<double>(sb) / qy.scale[0]);
  }
  void run(const float* const* src, float* dst) override {
    const uint8_t *a = codes(src[0]), *b = codes(src[1]);
    const int64_t total = numel(out);
    if (out_u8) return add_codes(a, b, total, zx, zb, ma, mb, zy, lo, hi, codes(dst));
    for (int64_t i = 0; i < total; ++i) {
      const int64_t p = u8_pos(out, i);
      dst[i] = real(a[p]) + sb * static_cast<float>(b[p] - zb);
    }
    apply_act(dst, total, n.a.act);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_u8_kernel(const Graph& g, const NodeDesc& n) {
  switch (n.op) {
    case OpType::Pool:
      return std::make_unique<U8Pool>(g, n);
    case OpType::Reshape:
      return std::make_unique<U8Reshape>(g, n);
    case OpType::Eltwise:
      return std::make_unique<U8Add>(g, n);
    default:
      break;
  }
  MC_ASSERT(false, "no uint8 kernel for ", op_type_name(n.op));
}

}  // namespace mycel::lite
