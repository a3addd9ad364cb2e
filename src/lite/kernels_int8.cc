// The int8 kernels of Conv2D and FullyConnected (lite/quant.h describes the int8 node): the
// uint8 input (a float32 one quantized with its calibrated scale and zero point) is
// multiplied by the per-channel int8 weights with int32 accumulation, and written as float32
//   y[o] = (sum (q_x - zp_x) * q_w[o] + bias[o]) * scale_x * scale_w[o], then the activation,
// or requantized to a uint8 output (scale_y, zp_y), the activation a clamp:
//   q_y[o] = clamp(round((sum (q_x - zp_x) * q_w[o] + bias[o]) * m[o]) + zp_y),
//   m[o] = scale_x * scale_w[o] / scale_y.
// The optimised kernels run oneDNN's u8 x s8 -> s32 primitives (VNNI on these CPUs) on
// sum q_x * q_w and subtract zp_x * sum q_w[o] after (a convolution's input is quantized into
// a buffer already padded with zp_x, so padding is real zero); the references sum
// (q_x - zp_x) * q_w directly. Both share the quantization and the epilogue: they agree
// exactly.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/dnnl_util.h"
#include "lite/kernels.h"
#include "lite/quant.h"

namespace mycel::lite {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// What an int8 node's kernels share: the input's quantization, the weights and the epilogue.
struct Int8Node : NodeKernel {
  float inv_sx = 1.f;
  int32_t zx = 0;
  const int8_t* w = nullptr;   // as stored: [O, I/group, kh, kw] or [N, K]
  std::vector<int64_t> bias;   // the int32 bias per output channel (0 without one)
  std::vector<int64_t> comp;   // bias[o] - zx * sum of w[o]
  std::vector<float> mult;     // scale_x * scale_w[o]
  int64_t per_out = 0;         // weights per output channel
  bool in_u8 = false;          // the input is a uint8 activation (NHWC for a convolution)
  bool out_u8 = false;         // the output is one: requantized with `requant`, zy, [lo, hi]
  std::vector<float> requant;  // mult[o] / scale_y
  int32_t zy = 0, lo = 0, hi = 255;
  std::vector<int32_t> comp32;  // comp in int32 (the optimised kernels: sums checked to fit)

  Int8Node(const Graph& g, const NodeDesc& node) : NodeKernel(g, node) {
    const TensorDesc &x = g.tensors[n.inputs[0]], &wt = g.tensors[n.inputs[1]];
    const TensorDesc& y = g.tensors[n.outputs[0]];
    const float sx = x.quant.scale[0];
    in_u8 = is_u8(x), out_u8 = is_u8(y);
    inv_sx = 1.f / sx;
    zx = static_cast<int32_t>(x.quant.zero_point[0]);
    w = static_cast<const int8_t*>(wt.data);
    const int64_t O = wt.shape[0];
    per_out = numel(wt.shape) / std::max<int64_t>(O, 1);
    bias.assign(O, 0);
    if (n.inputs.size() == 3) {
      const int32_t* b = static_cast<const int32_t*>(g.tensors[n.inputs[2]].data);
      for (int64_t o = 0; o < O; ++o) bias[o] = b[o];
    }
    comp.resize(O);
    mult.resize(O);
    for (int64_t o = 0; o < O; ++o) {
      int64_t sum = 0;
      for (int64_t k = 0; k < per_out; ++k) sum += w[o * per_out + k];
      comp[o] = bias[o] - int64_t{zx} * sum;
      mult[o] = sx * wt.quant.scale[wt.quant.scale.size() == 1 ? 0 : o];
    }
    comp32.assign(comp.begin(), comp.end());
    if (!out_u8) return;
    const float sy = y.quant.scale[0];
    zy = static_cast<int32_t>(y.quant.zero_point[0]);
    u8_act_range(n.a.act, sy, zy, &lo, &hi);
    requant.resize(O);
    for (int64_t o = 0; o < O; ++o) requant[o] = mult[o] / sy;
  }

  uint8_t q(float v) const { return quantize_u8(v, inv_sx, zx); }
  // The float32 output of channel o from its integer total.
  float dequant(int64_t total, int64_t o) const { return static_cast<float>(total) * mult[o]; }
  // The uint8 output of channel o from its integer total (the activation a clamp).
  uint8_t requantize(int64_t total, int64_t o) const {
    return static_cast<uint8_t>(quantize_code(static_cast<float>(total), requant[o],
                                              static_cast<float>(zy), static_cast<float>(lo),
                                              static_cast<float>(hi)));
  }
  // The same over `rows` rows of O channels of int32 sums (acc + comp32), as the optimised
  // kernels write them; 16 channels at a time with SSE2 (x86-64's baseline), whose min, max,
  // add and multiply are the scalar function's operations lane by lane (MAXPS returns its
  // second operand for a NaN, as quantize_code's comparisons do), so the results are equal.
  void requantize_rows(const int32_t* acc, int64_t rows, uint8_t* y) const {
    const int64_t O = static_cast<int64_t>(requant.size());
    const int32_t* c = comp32.data();
    const float* m = requant.data();
    const float z = static_cast<float>(zy), l = static_cast<float>(lo), h = static_cast<float>(hi);
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t* a = acc + r * O;
      uint8_t* d = y + r * O;
      int64_t o = 0;
#if defined(__SSE2__)
      const __m128 z4 = _mm_set1_ps(z), l4 = _mm_set1_ps(l), h4 = _mm_set1_ps(h);
      const __m128 lim = _mm_set1_ps(512.f), nlim = _mm_set1_ps(-512.f);
      const __m128 magic = _mm_set1_ps(12582912.f);
      for (; o + 16 <= O; o += 16) {
        __m128i q[4];
        for (int k = 0; k < 4; ++k) {
          const __m128i s4 =
              _mm_add_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + o + 4 * k)),
                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + o + 4 * k)));
          __m128 t = _mm_mul_ps(_mm_cvtepi32_ps(s4), _mm_loadu_ps(m + o + 4 * k));
          t = _mm_min_ps(_mm_max_ps(t, nlim), lim);
          t = _mm_add_ps(_mm_sub_ps(_mm_add_ps(t, magic), magic), z4);
          q[k] = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(t, l4), h4));
        }
        _mm_storeu_si128(
            reinterpret_cast<__m128i*>(d + o),
            _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3])));
      }
#endif
      for (; o < O; ++o)
        d[o] = static_cast<uint8_t>(
            static_cast<int32_t>(quantize_code(static_cast<float>(a[o] + c[o]), m[o], z, l, h)));
    }
  }

  // Whether every total fits int32 (|q_x - zp_x| <= 255, |q_w| <= 128): the optimised kernels
  // then sum in int32 as oneDNN does; otherwise the node runs on the reference.
  bool fits_int32() const {
    int64_t worst = 0;
    for (size_t o = 0; o < comp.size(); ++o)
      worst = std::max(worst, std::abs(bias[o]) + std::abs(comp[o] - bias[o]));
    return 255 * 128 * per_out + worst < (int64_t{1} << 31);
  }
};

struct RefInt8Conv : Int8Node {
  using Int8Node::Int8Node;
  void run(const float* const* src, float* dst) override {
    const OpAttrs& a = n.a;
    const Dims& x = in[0];
    const int64_t N = x[0], C = x[1], H = x[2], W = x[3], O = out[1], OH = out[2], OW = out[3];
    const int64_t CG = in[1][1], KH = in[1][2], KW = in[1][3], OG = O / a.group;
    const uint8_t* xu = reinterpret_cast<const uint8_t*>(src[0]);
    uint8_t* yu = reinterpret_cast<uint8_t*>(dst);
    auto code = [&](int64_t b, int64_t c, int64_t h, int64_t w) -> int64_t {
      return in_u8 ? xu[((b * H + h) * W + w) * C + c] : q(src[0][((b * C + c) * H + h) * W + w]);
    };
    for (int64_t b = 0; b < N; ++b)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t acc = bias[o];
            const int64_t c0 = (o / OG) * CG;
            for (int64_t c = 0; c < CG; ++c)
              for (int64_t kh = 0; kh < KH; ++kh)
                for (int64_t kw = 0; kw < KW; ++kw) {
                  const int64_t h = oh * a.stride[0] - a.pad[0] + kh * a.dilation[0];
                  const int64_t ww = ow * a.stride[1] - a.pad[2] + kw * a.dilation[1];
                  if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                  const int64_t qx = code(b, c0 + c, h, ww) - zx;
                  acc += qx * w[((o * CG + c) * KH + kh) * KW + kw];
                }
            if (out_u8)
              yu[((b * OH + oh) * OW + ow) * O + o] = requantize(acc, o);
            else
              dst[((b * O + o) * OH + oh) * OW + ow] = dequant(acc, o);
          }
    if (!out_u8) apply_act(dst, numel(out), a.act);
  }
};

struct RefInt8Fc : Int8Node {
  using Int8Node::Int8Node;
  void run(const float* const* src, float* dst) override {
    const int64_t M = out[0], N = out[1], K = in[0][1];
    const uint8_t* xu = reinterpret_cast<const uint8_t*>(src[0]);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = bias[j];
        for (int64_t k = 0; k < K; ++k) {
          const int64_t qx = in_u8 ? xu[i * K + k] : q(src[0][i * K + k]);
          acc += (qx - zx) * w[j * K + k];
        }
        if (out_u8)
          reinterpret_cast<uint8_t*>(dst)[i * N + j] = requantize(acc, j);
        else
          dst[i * N + j] = dequant(acc, j);
      }
    if (!out_u8) apply_act(dst, M * N, n.a.act);
  }
};

// oneDNN's int8 convolution on a zp-padded NHWC uint8 buffer (so the primitive has no
// padding; oneDNN's plain-layout int8 convolution is its slow reference), int32 NHWC output,
// the epilogue writing NCHW float32 or NHWC uint8. A float32 input is quantized into the
// buffer, a uint8 one copied row by row (an unpadded one is read where it lies); the buffer's
// border is written once.
struct DnnlInt8Conv : Int8Node {
  dnnl::convolution_forward prim;
  memory src_m, wei_m, dst_m;
  std::vector<uint8_t> xq;
  std::vector<int32_t> acc;
  int64_t Hp = 0, Wp = 0, work = 0;

  DnnlInt8Conv(const Graph& g, const NodeDesc& node) : Int8Node(g, node) {
    try {
      make();
    } catch (const dnnl::error& e) {
      MC_THROW(Runtime, "For 'Conv2D' (int8 node '", n.name, "'): oneDNN: ", e.what());
    }
  }

  void make() {
    const OpAttrs& a = n.a;
    const Dims &x = in[0], &wd = in[1];
    const int64_t G = a.group;
    Hp = x[2] + a.pad[0] + a.pad[1], Wp = x[3] + a.pad[2] + a.pad[3];
    memory::dims xd{x[0], x[1], Hp, Wp}, yd{out[0], out[1], out[2], out[3]};
    memory::dims kd = G > 1 ? memory::dims{G, wd[0] / G, wd[1], wd[2], wd[3]}
                            : memory::dims{wd[0], wd[1], wd[2], wd[3]};
    memory::desc s(xd, memory::data_type::u8, Tag::nhwc);
    memory::desc k(kd, memory::data_type::s8, Tag::any);
    memory::desc y(yd, memory::data_type::s32, Tag::nhwc);
    auto d = dnnl::convolution_forward::desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, s, k, y,
        {a.stride[0], a.stride[1]}, {a.dilation[0] - 1, a.dilation[1] - 1}, {0, 0}, {0, 0});
    dnnl::convolution_forward::primitive_desc pd(d, dnnl_engine());
    prim = dnnl::convolution_forward(pd);
    xq.resize(static_cast<size_t>(numel(Dims{x[0], x[1], Hp, Wp})));
    acc.resize(static_cast<size_t>(numel(out)));
    src_m = memory(s, dnnl_engine(), xq.data());
    dst_m = memory(y, dnnl_engine(), acc.data());
    memory wei_user({kd, memory::data_type::s8, G > 1 ? Tag::goihw : Tag::oihw}, dnnl_engine(),
                    const_cast<int8_t*>(w));
    wei_m = memory(pd.weights_desc(), dnnl_engine());
    dnnl::reorder(wei_user, wei_m).execute(dnnl_stream(), wei_user, wei_m);
    dnnl_stream().wait();
    work = numel(out) * per_out;
    std::memset(xq.data(), zx, xq.size());
  }

  bool padded() const { return n.a.pad[0] || n.a.pad[1] || n.a.pad[2] || n.a.pad[3]; }

  // The uint8 NHWC input of the primitive, zp-padded.
  void stage_input(const float* x) {
    const OpAttrs& a = n.a;
    const int64_t N = in[0][0], C = in[0][1], H = in[0][2], W = in[0][3];
    if (in_u8) {
      const uint8_t* xu = reinterpret_cast<const uint8_t*>(x);
      if (!padded()) {
        src_m.set_data_handle(const_cast<uint8_t*>(xu));
        return;
      }
      for (int64_t b = 0; b < N; ++b)
        for (int64_t h = 0; h < H; ++h)
          std::memcpy(xq.data() + ((b * Hp + h + a.pad[0]) * Wp + a.pad[2]) * C,
                      xu + (b * H + h) * W * C, static_cast<size_t>(W * C));
      return;
    }
    const float inv = inv_sx;  // locals: the uint8 stores may alias members
    const int32_t z = zx;
    for (int64_t b = 0; b < N; ++b)
      for (int64_t c = 0; c < C; ++c) {
        const float* xp = x + (b * C + c) * H * W;
        for (int64_t h = 0; h < H; ++h) {
          uint8_t* row = xq.data() + ((b * Hp + h + a.pad[0]) * Wp + a.pad[2]) * C + c;
          for (int64_t ww = 0; ww < W; ++ww) row[ww * C] = quantize_u8(xp[h * W + ww], inv, z);
        }
      }
  }

  void run(const float* const* src, float* dst) override {
    SerialBelow serial(work);
    const OpAttrs& a = n.a;
    const int64_t N = in[0][0];
    const int64_t O = out[1], OHW = out[2] * out[3];
    stage_input(src[0]);
    prim.execute(dnnl_stream(),
                 {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}});
    dnnl_stream().wait();
    if (out_u8) {  // NHWC uint8, channels innermost
      requantize_rows(acc.data(), N * OHW, reinterpret_cast<uint8_t*>(dst));
      return;
    }
    for (int64_t bo = 0; bo < N * O; ++bo) {  // int32 sums (checked to fit)
      const int64_t o = bo % O;
      const int32_t c = static_cast<int32_t>(comp[o]);
      const float m = mult[o];
      const int32_t* r = acc.data() + (bo / O) * OHW * O + o;
      float* y = dst + bo * OHW;
      for (int64_t p = 0; p < OHW; ++p) y[p] = static_cast<float>(r[p * O] + c) * m;
    }
    apply_act(dst, numel(out), a.act);
  }
};

// FullyConnected through oneDNN's u8 x s8 -> s32 gemm.
struct DnnlInt8Fc : Int8Node {
  std::vector<uint8_t> xq;
  std::vector<int32_t> acc;
  DnnlInt8Fc(const Graph& g, const NodeDesc& node) : Int8Node(g, node) {
    xq.resize(static_cast<size_t>(numel(in[0])));
    acc.resize(static_cast<size_t>(numel(out)));
  }
  void run(const float* const* src, float* dst) override {
    const int64_t M = out[0], N = out[1], K = in[0][1];
    SerialBelow serial(M * N * K);
    const uint8_t* x = reinterpret_cast<const uint8_t*>(src[0]);
    if (!in_u8) {
      const float inv = inv_sx;  // locals: the uint8 stores may alias members
      const int32_t z = zx;
      for (int64_t i = 0; i < M * K; ++i) xq[i] = quantize_u8(src[0][i], inv, z);
      x = xq.data();
    }
    const int32_t zero = 0;
    dnnl_status_t st =
        dnnl_gemm_u8s8s32('N', 'T', 'F', M, N, K, 1.f, x, K, 0, w, K, 0, 0.f, acc.data(), N, &zero);
    MC_CHECK(st == dnnl_success, Runtime, "For 'FullyConnected' (int8 node '", n.name,
             "'): dnnl_gemm_u8s8s32 failed (", static_cast<int>(st), ")");
    if (out_u8) {
      requantize_rows(acc.data(), M, reinterpret_cast<uint8_t*>(dst));
      return;
    }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        dst[i * N + j] = static_cast<float>(acc[i * N + j] + comp32[j]) * mult[j];
    apply_act(dst, M * N, n.a.act);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_int8_kernel(const Graph& g, const NodeDesc& n, bool reference) {
  const bool conv = n.op == OpType::Conv2D;
  if (reference || !dnnl_can_run(g, n)) {
    if (conv) return std::make_unique<RefInt8Conv>(g, n);
    return std::make_unique<RefInt8Fc>(g, n);
  }
  if (conv) {
    auto k = std::make_unique<DnnlInt8Conv>(g, n);
    if (k->fits_int32()) return k;
    return std::make_unique<RefInt8Conv>(g, n);
  }
  auto k = std::make_unique<DnnlInt8Fc>(g, n);
  if (k->fits_int32()) return k;
  return std::make_unique<RefInt8Fc>(g, n);
}

}  // namespace mycel::lite
