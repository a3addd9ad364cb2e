// The int8 kernels of Conv2D and FullyConnected (lite/quant.h describes the int8 node): the
// uint8 input (a float32 one quantized with its calibrated scale and zero point) is
// multiplied by the per-channel int8 weights with int32 accumulation. With A the sum of
// q_x * q_w[o] over the window (padding read as the zero point zp_x) and
// comp[o] = bias[o] - zp_x * sum q_w[o], the layer's value is
//   v[o] = (float(A) + float(comp[o])) * s,
// written as float32 with s = scale_x * scale_w[o], then the activation, or requantized to a
// uint8 output (scale_y, zp_y) with s = scale_x * scale_w[o] / scale_y, the activation a
// clamp: q_y = requantize_code(v, zp_y, lo, hi) (lite/quant.h).
// The optimised kernels are single oneDNN primitives that do all of it (u8 x s8 convolution or
// inner product, comp as an int32 bias, s as per-channel output scales, the clamp and the
// zero point as eltwise post-ops, uint8 or float32 destination): brgconv with AMX or VNNI on
// these CPUs. A convolution reads its uint8 NHWC input where it lies and lets oneDNN pad it
// when zp_x is 0 (every input after a ReLU) or there is no padding; otherwise (and for a
// float32 input, quantized here) it stages the input into a buffer padded with zp_x. The
// references compute the same expression with direct integer loops: they agree exactly.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "lite/conv_1ch.h"
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
  const int8_t* w = nullptr;    // as stored: [O, I/group, kh, kw] or [N, K]
  std::vector<int64_t> bias;    // the int32 bias per output channel (0 without one)
  std::vector<int64_t> comp;    // bias[o] - zx * sum of w[o]
  std::vector<int32_t> comp32;  // the same in int32, oneDNN's bias (when `fits`)
  std::vector<float> scale;     // s[o]: scale_x * scale_w[o], over scale_y for a uint8 output
  int64_t per_out = 0;          // weights per output channel
  bool in_u8 = false;           // the input is a uint8 activation (NHWC for a convolution)
  bool out_u8 = false;          // the output is one: zy, the clamp [lo, hi]
  int32_t zy = 0, lo = 0, hi = 255;
  bool fits = true;  // every sum and comp fit int32 (else the node runs on the reference)

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
    const float sy = out_u8 ? y.quant.scale[0] : 1.f;
    if (out_u8) {
      zy = static_cast<int32_t>(y.quant.zero_point[0]);
      u8_act_range(n.a.act, sy, zy, &lo, &hi);
    }
    comp.resize(O);
    scale.resize(O);
    // |q_x| <= 255 and |q_w| <= 128: the sums of codes stay within 255 * 128 * per_out.
    fits = 255 * 128 * per_out < (int64_t{1} << 31);
    for (int64_t o = 0; o < O; ++o) {
      int64_t sum = 0;
      for (int64_t k = 0; k < per_out; ++k) sum += w[o * per_out + k];
      comp[o] = bias[o] - int64_t{zx} * sum;
      fits = fits && comp[o] >= INT32_MIN && comp[o] <= INT32_MAX;
      scale[o] = sx * wt.quant.scale[wt.quant.scale.size() == 1 ? 0 : o];
      if (out_u8) scale[o] /= sy;
    }
    comp32.assign(comp.begin(), comp.end());
  }

  uint8_t q(float v) const { return quantize_u8(v, inv_sx, zx); }
  // Channel o's value from its sum of codes A: float32 of the layer (float output), or the
  // uint8 code (uint8 output).
  float value(int64_t A, int64_t o) const {
    return (static_cast<float>(A) + static_cast<float>(comp[o])) * scale[o];
  }
  uint8_t code(int64_t A, int64_t o) const {
    return static_cast<uint8_t>(requantize_code(value(A, o), static_cast<float>(zy),
                                                static_cast<float>(lo), static_cast<float>(hi)));
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
    auto code_at = [&](int64_t b, int64_t c, int64_t h, int64_t w) -> int64_t {
      if (h < 0 || h >= H || w < 0 || w >= W) return zx;  // padding
      return in_u8 ? xu[((b * H + h) * W + w) * C + c] : q(src[0][((b * C + c) * H + h) * W + w]);
    };
    for (int64_t b = 0; b < N; ++b)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            int64_t A = 0;
            const int64_t c0 = (o / OG) * CG;
            for (int64_t c = 0; c < CG; ++c)
              for (int64_t kh = 0; kh < KH; ++kh)
                for (int64_t kw = 0; kw < KW; ++kw) {
                  const int64_t h = oh * a.stride[0] - a.pad[0] + kh * a.dilation[0];
                  const int64_t ww = ow * a.stride[1] - a.pad[2] + kw * a.dilation[1];
                  A += code_at(b, c0 + c, h, ww) * w[((o * CG + c) * KH + kh) * KW + kw];
                }
            if (out_u8)
              yu[((b * OH + oh) * OW + ow) * O + o] = code(A, o);
            else
              dst[((b * O + o) * OH + oh) * OW + ow] = value(A, o);
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
        int64_t A = 0;
        for (int64_t k = 0; k < K; ++k)
          A += int64_t{in_u8 ? xu[i * K + k] : q(src[0][i * K + k])} * w[j * K + k];
        if (out_u8)
          reinterpret_cast<uint8_t*>(dst)[i * N + j] = code(A, j);
        else
          dst[i * N + j] = value(A, j);
      }
    if (!out_u8) apply_act(dst, M * N, n.a.act);
  }
};

// The attributes of an int8 primitive: per-channel output scales (dst dimension 1), and the
// requantization's clamp and zero point as eltwise post-ops, or (float32 output) the
// activation when oneDNN's equals apply_act (None, ReLU, ReLU6; `act_after` otherwise).
dnnl::primitive_attr int8_attr(const Int8Node& k, bool* act_after) {
  dnnl::primitive_attr attr;
  attr.set_output_scales(1 << 1, k.scale);
  dnnl::post_ops po;
  *act_after = false;
  if (k.out_u8) {
    if (k.lo != 0 || k.hi != 255)
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, static_cast<float>(k.lo - k.zy),
                        static_cast<float>(k.hi - k.zy));
    if (k.zy != 0)
      po.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, static_cast<float>(k.zy));
  } else if (k.n.a.act == Act::ReLU) {
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  } else if (k.n.a.act == Act::ReLU6) {
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 6.f);
  } else {
    *act_after = k.n.a.act != Act::None;
  }
  attr.set_post_ops(po);
  return attr;
}

// The int8 weights w, laid out as `user`, reordered once (at load) into the primitive's `want`.
memory prepack_weights(const memory::desc& user, const memory::desc& want, const int8_t* w) {
  memory u(user, dnnl_engine(), const_cast<int8_t*>(w)), m(want, dnnl_engine());
  dnnl::reorder(u, m).execute(dnnl_stream(), u, m);
  dnnl_stream().wait();
  return m;
}

std::unordered_map<int, memory> int8_args(const memory& src, const memory& wei, const memory& bias,
                                          const memory& dst) {
  return {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
}

bool slow_impl(const std::string& impl) {
  return impl.find("gemm") != std::string::npos || impl.find("ref") != std::string::npos;
}

// y[3 i + c] = (a, b, c)[c][i]: an RGB image's rows into NHWC (built for AVX-512 and AVX2 too,
// where it vectorises).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void interleave3(
    const uint8_t* __restrict a, const uint8_t* __restrict b, const uint8_t* __restrict c,
    int64_t n, uint8_t* __restrict y) {
  for (int64_t i = 0; i < n; ++i) y[3 * i] = a[i], y[3 * i + 1] = b[i], y[3 * i + 2] = c[i];
}

// oneDNN's int8 convolution, uint8 NHWC input (read in place, or staged: see the file's
// comment), weights reordered at load to the primitive's layout, int32 comp as the bias,
// destination uint8 NHWC or float32 NCHW (through an NHWC buffer and a reorder where oneDNN
// has no direct kernel for NCHW).
struct DnnlInt8Conv : Int8Node {
  dnnl::convolution_forward prim;
  std::optional<dnnl::reorder> dst_reorder;
  memory src_m, wei_m, bias_m, dst_m, dst_user;
  std::unordered_map<int, memory> args;
  std::optional<Conv1ch> direct;  // one input channel (lite/conv_1ch.h) instead of oneDNN
  std::vector<uint8_t> xq;        // the staged input
  std::vector<uint8_t> planar;    // a float32 input quantized (NCHW)
  bool stage = false, stage_padded = false, act_after = false;
  int64_t Hs = 0, Ws = 0, work = 0;

  DnnlInt8Conv(const Graph& g, const NodeDesc& node) : Int8Node(g, node) {
    if (!fits) return;
    try {
      make();
    } catch (const dnnl::error& e) {
      MC_THROW(Runtime, "For 'Conv2D' (int8 node '", n.name, "'): oneDNN: ", e.what());
    }
  }

  bool padded() const { return n.a.pad[0] || n.a.pad[1] || n.a.pad[2] || n.a.pad[3]; }

  void make() {
    const OpAttrs& a = n.a;
    const Dims &x = in[0], &wd = in[1];
    const int64_t G = a.group;
    if (out_u8 && Conv1ch::available() &&
        Conv1ch::takes(x[1], wd[0], wd[2], wd[3], a.stride, a.dilation, G))
      direct.emplace(w, wd[0], wd[2], wd[3], comp, scale, zy, lo, hi);
    stage_padded = direct || (padded() && zx != 0);
    stage = !in_u8 || stage_padded;
    Hs = x[2] + (stage_padded ? a.pad[0] + a.pad[1] : 0);
    Ws = x[3] + (stage_padded ? a.pad[2] + a.pad[3] : 0);
    if (direct) {
      xq.assign(static_cast<size_t>(x[0] * Hs * Ws + Conv1ch::kSlack), zx);
      if (!in_u8) planar.resize(static_cast<size_t>(numel(x)));
      return;
    }
    memory::dims xd{x[0], x[1], Hs, Ws}, yd{out[0], out[1], out[2], out[3]};
    memory::dims pl{0, 0}, pr{0, 0};
    if (!stage_padded) pl = {a.pad[0], a.pad[2]}, pr = {a.pad[1], a.pad[3]};
    memory::dims kd = G > 1 ? memory::dims{G, wd[0] / G, wd[1], wd[2], wd[3]}
                            : memory::dims{wd[0], wd[1], wd[2], wd[3]};
    memory::desc s(xd, memory::data_type::u8, Tag::nhwc);
    memory::desc k(kd, memory::data_type::s8, Tag::any);
    memory::desc b({wd[0]}, memory::data_type::s32, Tag::x);
    const dnnl::primitive_attr attr = int8_attr(*this, &act_after);
    const auto yt = out_u8 ? memory::data_type::u8 : memory::data_type::f32;
    const memory::desc y_user(yd, yt, out_u8 ? Tag::nhwc : Tag::nchw);
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    for (Tag yt_tag : {out_u8 ? Tag::nhwc : Tag::nchw, Tag::nhwc}) {
      auto d = dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, s, k, b,
          memory::desc(yd, yt, yt_tag), {a.stride[0], a.stride[1]},
          {a.dilation[0] - 1, a.dilation[1] - 1}, pl, pr);
      pd.emplace(d, attr, dnnl_engine());
      if (!slow_impl(pd->impl_info_str())) break;
    }
    prim = dnnl::convolution_forward(*pd);
    if (stage) xq.assign(static_cast<size_t>(numel(Dims{x[0], x[1], Hs, Ws})), zx);
    if (!in_u8) planar.resize(static_cast<size_t>(numel(x)));
    src_m = memory(s, dnnl_engine(), stage ? xq.data() : DNNL_MEMORY_NONE);
    bias_m = memory(b, dnnl_engine(), comp32.data());
    dst_user = memory(y_user, dnnl_engine(), DNNL_MEMORY_NONE);
    dst_m = dst_user;
    if (pd->dst_desc() != y_user) {
      dst_m = memory(pd->dst_desc(), dnnl_engine());
      dst_reorder.emplace(dst_m, dst_user);
    }
    wei_m = prepack_weights({kd, memory::data_type::s8, G > 1 ? Tag::goihw : Tag::oihw},
                            pd->weights_desc(), w);
    args = int8_args(src_m, wei_m, bias_m, dst_m);
    work = numel(out) * per_out;
  }

  // The staged input: a float32 NCHW one quantized, or a uint8 NHWC one copied row by row
  // inside the zp_x border (written once).
  void stage_input(const float* x) {
    const OpAttrs& a = n.a;
    const int64_t N = in[0][0], C = in[0][1], H = in[0][2], W = in[0][3];
    const int64_t top = stage_padded ? a.pad[0] : 0, left = stage_padded ? a.pad[2] : 0;
    if (in_u8) {
      const uint8_t* xu = reinterpret_cast<const uint8_t*>(x);
      for (int64_t b = 0; b < N; ++b)
        for (int64_t h = 0; h < H; ++h)
          std::memcpy(xq.data() + ((b * Hs + h + top) * Ws + left) * C, xu + (b * H + h) * W * C,
                      static_cast<size_t>(W * C));
      return;
    }
    // The whole input quantized where it lies (one vectorised pass), then copied into the
    // NHWC rows (row by row when C is 1).
    quantize_u8_row(x, N * C * H * W, inv_sx, zx, planar.data());
    for (int64_t b = 0; b < N; ++b)
      for (int64_t h = 0; h < H; ++h) {
        uint8_t* row = xq.data() + ((b * Hs + h + top) * Ws + left) * C;
        const uint8_t* p = planar.data() + (b * C * H + h) * W;
        if (C == 1) {
          std::memcpy(row, p, static_cast<size_t>(W));
          continue;
        }
        if (C == 3) {
          interleave3(p, p + H * W, p + 2 * H * W, W, row);
          continue;
        }
        for (int64_t ww = 0; ww < W; ++ww)
          for (int64_t c = 0; c < C; ++c) row[ww * C + c] = p[c * H * W + ww];
      }
  }

  void run(const float* const* src, float* dst) override {
    if (direct) {
      stage_input(src[0]);
      return direct->run(xq.data(), in[0][0], Hs, Ws, reinterpret_cast<uint8_t*>(dst));
    }
    SerialBelow serial(work);
    if (stage)
      stage_input(src[0]);
    else
      src_m.set_data_handle(const_cast<float*>(src[0]));
    dst_user.set_data_handle(dst);
    dnnl::stream& s = dnnl_stream();
    prim.execute(s, args);
    if (dst_reorder) dst_reorder->execute(s, dst_m, dst_user);
    s.wait();
    if (act_after) apply_act(dst, numel(out), n.a.act);
  }
};

// FullyConnected through oneDNN's int8 inner product (the same attributes); a float32 input
// is quantized into a buffer first.
struct DnnlInt8Fc : Int8Node {
  dnnl::inner_product_forward prim;
  memory src_m, wei_m, bias_m, dst_m;
  std::unordered_map<int, memory> args;
  std::vector<uint8_t> xq;
  bool act_after = false;

  DnnlInt8Fc(const Graph& g, const NodeDesc& node) : Int8Node(g, node) {
    if (!fits) return;
    try {
      make();
    } catch (const dnnl::error& e) {
      MC_THROW(Runtime, "For 'FullyConnected' (int8 node '", n.name, "'): oneDNN: ", e.what());
    }
  }

  void make() {
    const memory::dim M = out[0], N = out[1], K = in[0][1];
    memory::desc s({M, K}, memory::data_type::u8, Tag::nc);
    memory::desc k({N, K}, memory::data_type::s8, Tag::any);
    memory::desc b({N}, memory::data_type::s32, Tag::x);
    memory::desc y({M, N}, out_u8 ? memory::data_type::u8 : memory::data_type::f32, Tag::nc);
    const dnnl::primitive_attr attr = int8_attr(*this, &act_after);
    dnnl::inner_product_forward::primitive_desc pd({dnnl::prop_kind::forward_inference, s, k, b, y},
                                                   attr, dnnl_engine());
    prim = dnnl::inner_product_forward(pd);
    if (!in_u8) xq.resize(static_cast<size_t>(M * K));
    src_m = memory(s, dnnl_engine(), in_u8 ? DNNL_MEMORY_NONE : xq.data());
    bias_m = memory(b, dnnl_engine(), comp32.data());
    dst_m = memory(y, dnnl_engine(), DNNL_MEMORY_NONE);
    wei_m = prepack_weights({{N, K}, memory::data_type::s8, Tag::oi}, pd.weights_desc(), w);
    args = int8_args(src_m, wei_m, bias_m, dst_m);
  }

  void run(const float* const* src, float* dst) override {
    const int64_t M = out[0], N = out[1], K = in[0][1];
    SerialBelow serial(M * N * K);
    if (in_u8) {
      src_m.set_data_handle(const_cast<float*>(src[0]));
    } else {
      quantize_u8_row(src[0], M * K, inv_sx, zx, xq.data());
    }
    dst_m.set_data_handle(dst);
    prim.execute(dnnl_stream(), args);
    dnnl_stream().wait();
    if (act_after) apply_act(dst, M * N, n.a.act);
  }
};

}  // namespace

std::unique_ptr<Kernel> make_int8_kernel(const Graph& g, const NodeDesc& n, bool reference) {
  const bool conv = n.op == OpType::Conv2D;
  if (!reference && dnnl_can_run(g, n)) {
    std::unique_ptr<Int8Node> k;
    if (conv)
      k = std::make_unique<DnnlInt8Conv>(g, n);
    else
      k = std::make_unique<DnnlInt8Fc>(g, n);
    if (k->fits) return k;
  }
  if (conv) return std::make_unique<RefInt8Conv>(g, n);
  return std::make_unique<RefInt8Fc>(g, n);
}

}  // namespace mycel::lite
