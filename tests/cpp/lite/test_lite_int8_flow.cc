// Int8 activations flowing between layers (lite/quant.h): the uint8 kernels of Pool, Reshape
// and Add against direct integer loops, the int8 convolution and FullyConnected reading and
// writing uint8 against their references (exactly) and float32, what the converter keeps
// uint8, and the checks that reject uint8 where no kernel takes it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "base/error.h"
#include "converter/converter.h"
#include "converter/quant.h"
#include "lite/kernels.h"
#include "lite/model.h"
#include "lite/model_file.h"
#include "lite/quant.h"
#include "lite_test_models.h"

namespace mycel::lite {
namespace {

using converter::QuantConfig;
using converter::Sample;
using namespace testing;  // lite's (lite_test_models.h)

std::vector<uint8_t> random_codes(size_t n, uint32_t seed) {
  std::vector<float> v = random_values(n, seed);
  std::vector<uint8_t> c(n);
  for (size_t i = 0; i < n; ++i) c[i] = static_cast<uint8_t>(std::lround((v[i] + 1.f) * 127.5f));
  return c;
}

// Marks tensor t a uint8 activation with (scale, zero point).
void make_u8(Graph& g, int t, float scale, int64_t zp) {
  g.tensors[t].dtype = DType::UInt8;
  g.tensors[t].quant = Quant{{scale}, {zp}, -1, 8};
}

// Runs node 0 of g (shapes inferred) on the given input buffers into `out` bytes.
void run_node(const Graph& g, std::vector<const void*> in, void* out) {
  std::vector<const float*> p;
  for (const void* v : in) p.push_back(static_cast<const float*>(v));
  make_kernel(g, g.nodes[0], false)->run(p.data(), static_cast<float*>(out));
}

// Element (b, c, h, w) of an NHWC [N, C, H, W] buffer.
int64_t nhwc(const Dims& d, int64_t b, int64_t c, int64_t h, int64_t w) {
  return ((b * d[2] + h) * d[3] + w) * d[1] + c;
}

TEST(LiteInt8Flow, PoolOnCodesEqualsIntegerLoops) {
  for (PoolKind kind : {PoolKind::Max, PoolKind::Avg})
    for (bool include_pad : {true, false})
      for (bool to_float : {false, true}) {
        Graph g = one_input({2, 5, 7, 6});
        OpAttrs a;
        a.pool = kind;
        a.kernel[0] = a.kernel[1] = 3;
        a.stride[0] = a.stride[1] = 2;
        a.pad[0] = a.pad[1] = a.pad[2] = a.pad[3] = 1;
        a.ceil_mode = true;
        a.count_include_pad = include_pad;
        const int y = add_node(g, "pool", OpType::Pool, a, {g.inputs[0]});
        g.outputs = {y};
        infer_shapes(g);
        make_u8(g, g.inputs[0], 0.05f, 37);
        if (!to_float) make_u8(g, y, 0.05f, 37);
        const Dims x = g.tensors[g.inputs[0]].shape, o = g.tensors[y].shape;
        std::vector<uint8_t> xs = random_codes(static_cast<size_t>(numel(x)), 5);
        std::vector<uint8_t> got(static_cast<size_t>(numel(o)));
        std::vector<float> gotf(static_cast<size_t>(numel(o)));
        run_node(g, {xs.data()}, to_float ? static_cast<void*>(gotf.data()) : got.data());
        for (int64_t b = 0; b < o[0]; ++b)
          for (int64_t c = 0; c < o[1]; ++c)
            for (int64_t oh = 0; oh < o[2]; ++oh)
              for (int64_t ow = 0; ow < o[3]; ++ow) {
                int64_t best = 0, sum = 0, cnt = 0;
                for (int64_t i = 0; i < 3; ++i)
                  for (int64_t j = 0; j < 3; ++j) {
                    const int64_t h = oh * 2 - 1 + i, w = ow * 2 - 1 + j;
                    const bool inside = h >= 0 && h < x[2] && w >= 0 && w < x[3];
                    // count_include_pad counts the padded window only up to the padded input
                    const bool counted = inside || (include_pad && h < x[2] + 1 && w < x[3] + 1);
                    if (inside) best = std::max<int64_t>(best, xs[nhwc(x, b, c, h, w)]);
                    sum += inside ? xs[nhwc(x, b, c, h, w)] : (counted ? 37 : 0);
                    cnt += counted;
                  }
                const int64_t want = kind == PoolKind::Max ? best : (sum + cnt / 2) / cnt;
                if (to_float)
                  ASSERT_EQ(gotf[((b * o[1] + c) * o[2] + oh) * o[3] + ow],
                            0.05f * static_cast<float>(want - 37));
                else
                  ASSERT_EQ(got[nhwc(o, b, c, oh, ow)], want) << b << c << oh << ow;
              }
      }
}

TEST(LiteInt8Flow, MaxPoolWindowsOnCodesEqualDirectLoops) {
  // The separable uint8 max pool over other windows: LeNet's 2x2/2, a 2x3 window with stride
  // (2, 1) padded left and right, a 3x3/1 one padded on every side, on 6 and 40 channels.
  struct Win {
    int64_t kh, kw, sh, sw, pt, pb, pl, pr;
  };
  for (const Win& v :
       {Win{2, 2, 2, 2, 0, 0, 0, 0}, Win{2, 3, 2, 1, 0, 0, 1, 1}, Win{3, 3, 1, 1, 1, 1, 1, 1}})
    for (int64_t C : {6, 40}) {
      Graph g = one_input({2, C, 9, 10});
      OpAttrs a;
      a.kernel[0] = v.kh, a.kernel[1] = v.kw, a.stride[0] = v.sh, a.stride[1] = v.sw;
      a.pad[0] = v.pt, a.pad[1] = v.pb, a.pad[2] = v.pl, a.pad[3] = v.pr;
      const int y = add_node(g, "pool", OpType::Pool, a, {g.inputs[0]});
      g.outputs = {y};
      infer_shapes(g);
      make_u8(g, g.inputs[0], 0.05f, 11);
      make_u8(g, y, 0.05f, 11);
      const Dims x = g.tensors[g.inputs[0]].shape, o = g.tensors[y].shape;
      const std::vector<uint8_t> xs = random_codes(static_cast<size_t>(numel(x)), 8);
      std::vector<uint8_t> got(static_cast<size_t>(numel(o)));
      run_node(g, {xs.data()}, got.data());
      for (int64_t b = 0; b < o[0]; ++b)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t oh = 0; oh < o[2]; ++oh)
            for (int64_t ow = 0; ow < o[3]; ++ow) {
              int64_t best = 0;
              for (int64_t i = 0; i < v.kh; ++i)
                for (int64_t j = 0; j < v.kw; ++j) {
                  const int64_t h = oh * v.sh - v.pt + i, w = ow * v.sw - v.pl + j;
                  if (h >= 0 && h < x[2] && w >= 0 && w < x[3])
                    best = std::max<int64_t>(best, xs[nhwc(x, b, c, h, w)]);
                }
              ASSERT_EQ(got[nhwc(o, b, c, oh, ow)], best) << C << " " << oh << " " << ow;
            }
    }
}

TEST(LiteInt8Flow, AddRescalesCodesExactly) {
  for (Act act : {Act::None, Act::ReLU, Act::ReLU6}) {
    Graph g = one_input({2, 3, 4, 5});
    TensorDesc other;
    other.name = "x2";
    other.shape = {2, 3, 4, 5};
    g.inputs.push_back(g.add_tensor(other));
    OpAttrs a;
    a.elt = EltKind::Add;
    a.act = act;
    const int y = add_node(g, "add", OpType::Eltwise, a, {g.inputs[0], g.inputs[1]});
    g.outputs = {y};
    infer_shapes(g);
    make_u8(g, g.inputs[0], 0.03f, 120);
    make_u8(g, g.inputs[1], 0.011f, 3);
    const size_t n = 120;
    std::vector<uint8_t> xa = random_codes(n, 1), xb = random_codes(n, 2), got(n);
    std::vector<float> gotf(n);
    run_node(g, {xa.data(), xb.data()}, gotf.data());
    make_u8(g, y, 0.04f, 90);
    run_node(g, {xa.data(), xb.data()}, got.data());
    const double sy = 0.04f;  // the multipliers of the float32 scales' ratios
    const int64_t ma = std::llround(double{0.03f} / sy * (1 << 24));
    const int64_t mb = std::llround(double{0.011f} / sy * (1 << 24));
    const int64_t six = 90 + std::lround(6.0 / 0.04);
    const Dims d = {2, 3, 4, 5};
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = (xa[i] - 120) * ma + (xb[i] - 3) * mb;
      int64_t q = ((v + (1 << 23)) >> 24) + 90;  // floor((v + half) / 2^24)
      q = std::clamp<int64_t>(q, act == Act::None ? 0 : 90, act == Act::ReLU6 ? six : 255);
      ASSERT_EQ(got[i], q) << i;
    }
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {  // float32 out: logical order
      const int64_t w = i % 5, h = (i / 5) % 4, c = (i / 20) % 3, b = i / 60;
      const int64_t p = nhwc(d, b, c, h, w);
      float want = 0.03f * static_cast<float>(xa[p] - 120) + 0.011f * static_cast<float>(xb[p] - 3);
      if (act != Act::None) want = std::max(want, 0.f);
      if (act == Act::ReLU6) want = std::min(want, 6.f);
      ASSERT_EQ(gotf[i], want) << i;
    }
  }
}

TEST(LiteInt8Flow, ReshapeReordersCodesToLogicalOrder) {
  Graph g = one_input({2, 3, 2, 2});
  OpAttrs a;
  a.shape = {0, -1};
  const int y = add_node(g, "flat", OpType::Reshape, a, {g.inputs[0]});
  g.outputs = {y};
  infer_shapes(g);
  make_u8(g, g.inputs[0], 0.5f, 10);
  const Dims x = {2, 3, 2, 2};
  std::vector<uint8_t> xs = random_codes(24, 9), got(24);
  std::vector<float> gotf(24);
  run_node(g, {xs.data()}, gotf.data());
  make_u8(g, y, 0.5f, 10);
  run_node(g, {xs.data()}, got.data());
  for (int64_t i = 0; i < 24; ++i) {
    const int64_t p = nhwc(x, i / 12, (i / 4) % 3, (i / 2) % 2, i % 2);
    ASSERT_EQ(got[i], xs[p]);
    ASSERT_EQ(gotf[i], 0.5f * static_cast<float>(xs[p] - 10));
  }
}

// x -> conv(ReLU) -> max pool -> conv -> Add(pool) ReLU -> avg pool -> flatten -> FC ->
// Softmax: every activation between the first conv and the FC kept uint8. 24 channels: the
// vectorised requantization (16 at a time) and its scalar tail.
Graph residual_net() {
  Graph g = one_input({2, 3, 12, 12});
  int t =
      add_node(g, "conv1", OpType::Conv2D, window(3, 1, 1, Act::ReLU),
               {g.inputs[0], add_weight(g, "w1", {24, 3, 3, 3}, 1), add_weight(g, "b1", {24}, 2)});
  const int p = add_node(g, "maxpool", OpType::Pool, window(2, 2, 0), {t});
  t = add_node(g, "conv2", OpType::Conv2D, window(3, 1, 1),
               {p, add_weight(g, "w2", {24, 24, 3, 3}, 3), add_weight(g, "b2", {24}, 4)});
  OpAttrs add;
  add.elt = EltKind::Add;
  add.act = Act::ReLU;
  t = add_node(g, "add", OpType::Eltwise, add, {t, p});
  OpAttrs ap = window(3, 3, 0);
  ap.pool = PoolKind::Avg;
  t = add_node(g, "avgpool", OpType::Pool, ap, {t});  // [2, 24, 2, 2]
  OpAttrs rs;
  rs.shape = {0, -1};
  t = add_node(g, "flat", OpType::Reshape, rs, {t});
  t = add_node(g, "fc", OpType::FullyConnected, OpAttrs{},
               {t, add_weight(g, "fw", {10, 96}, 5), add_weight(g, "fb", {10}, 6)});
  g.outputs = {add_node(g, "prob", OpType::Softmax, OpAttrs{}, {t})};
  infer_shapes(g);
  return g;
}

std::vector<Sample> samples(const Graph& g, int count, uint32_t seed) {
  std::vector<Sample> out;
  for (int s = 0; s < count; ++s)
    out.push_back(
        {random_values(static_cast<size_t>(numel(g.tensors[g.inputs[0]].shape)), seed + s)});
  return out;
}

TEST(LiteInt8Flow, ConverterKeepsActivationsUint8AndKernelsMatchReferences) {
  const Graph fp = residual_net();
  Graph q = fp;
  QuantConfig c;
  c.type = QuantConfig::Type::Full;
  std::ostringstream log;
  converter::full_quantize(q, c, samples(fp, 8, 100), log);
  EXPECT_NE(log.str().find("; 6 activation(s) kept uint8"), std::string::npos) << log.str();
  for (const NodeDesc& n : q.nodes) {
    const bool u8 = n.name != "fc" && n.name != "prob";
    EXPECT_EQ(q.tensors[n.outputs[0]].dtype, u8 ? DType::UInt8 : DType::Float32) << n.name;
  }
  // The max pool and flatten keep their input's parameters; the FC's bias is at its scale.
  EXPECT_EQ(q.tensors[q.nodes[1].outputs[0]].quant.scale,
            q.tensors[q.nodes[0].outputs[0]].quant.scale);
  for (uint32_t s = 0; s < 3; ++s) {
    const std::vector<float> x = samples(fp, 1, 500 + s)[0][0];
    const std::vector<float> fast = run_model(q, x, false), ref = run_model(q, x, true);
    const std::vector<float> f32 = run_model(fp, x, true);
    ASSERT_EQ(fast, ref);
    for (size_t i = 0; i < f32.size(); ++i) EXPECT_NEAR(fast[i], f32[i], 0.03f) << i;
  }
}

TEST(LiteInt8Flow, Uint8WhereNoKernelTakesItIsAnError) {
  Graph q = residual_net();
  QuantConfig c;
  c.type = QuantConfig::Type::Full;
  std::ostringstream log;
  converter::full_quantize(q, c, samples(q, 4, 7), log);
  const int fc_out = q.nodes[6].outputs[0], pool_out = q.nodes[1].outputs[0];
  Graph bad = q;
  make_u8(bad, fc_out, 0.1f, 0);  // read by Softmax
  expect_invalid(bad, "node 'prob' (Softmax) cannot read uint8 activation 'fc'");
  bad = q;
  bad.tensors[pool_out].quant.scale[0] *= 2.f;
  expect_invalid(bad, "its uint8 output 'maxpool' must keep its input's parameters");
  bad = q;
  make_u8(bad, bad.outputs[0], 0.1f, 0);
  expect_invalid(bad, "graph output 'prob' is uint8");
  bad = q;
  make_u8(bad, bad.inputs[0], 0.1f, 0);
  expect_invalid(bad, "graph input 'x' is uint8");
  bad = q;
  bad.tensors[pool_out].quant.zero_point[0] = 256;
  expect_invalid(bad, "zero point 256 outside [0, 255]");
  bad = q;
  bad.nodes[3].a.act = Act::Sigmoid;  // the Add's activation is no clamp
  expect_invalid(bad, "node 'add' (Eltwise) cannot read uint8 activation");
  bad = q;
  bad.tensors[bad.nodes[0].outputs[0]].dtype = DType::Int8;
  expect_invalid(bad, "activations are float32 or (between int8 nodes) uint8");
}

// One int8 node built by hand (lite/quant.h): input x uint8 (NHWC codes) or float32 with
// (sx, zx); Int8 weights [O, ...] from `w` with per-channel scales; an Int32 bias `bias`;
// output uint8 (sy, zy) or float32. The node's value scale s = sx * sw[o] (/ sy) comes out as
// `out_scale` times a per-channel factor in [0.5, 1.5].
struct Int8Case {
  OpType op = OpType::Conv2D;
  Dims x, w;
  OpAttrs a;
  int64_t zx = 0;
  bool in_u8 = true, out_u8 = true;
  int64_t zy = 0;
  double out_scale = 1e-3;
  std::vector<int8_t> wq;
  std::vector<int32_t> bias;
};

Graph int8_graph(const Int8Case& c) {
  Graph g = one_input(c.x);
  const float sx = 0.02f;
  g.tensors[g.inputs[0]].quant = Quant{{sx}, {c.zx}, -1, 8};
  if (c.in_u8) g.tensors[g.inputs[0]].dtype = DType::UInt8;
  const int64_t O = c.w[0];
  std::vector<float> sw(O);
  const float sy = 0.05f;
  for (int64_t o = 0; o < O; ++o)
    sw[o] =
        static_cast<float>(c.out_scale * (c.out_u8 ? sy : 1.0) / sx * (0.5 + double(o % 7) / 6));
  auto constant = [&](const std::string& name, DType dt, Dims shape, const void* p, size_t bytes,
                      Quant q) {
    TensorDesc t;
    t.name = name, t.dtype = dt, t.shape = std::move(shape), t.constant = true;
    auto buf = std::make_shared<std::vector<uint8_t>>(bytes);
    std::memcpy(buf->data(), p, bytes);
    t.data = buf->data(), t.owned = buf, t.quant = std::move(q);
    return g.add_tensor(t);
  };
  std::vector<int64_t> zeros(O, 0);
  std::vector<float> sb(O);
  for (int64_t o = 0; o < O; ++o) sb[o] = sx * sw[o];
  std::vector<int> in{g.inputs[0], constant("w", DType::Int8, c.w, c.wq.data(), c.wq.size(),
                                            Quant{sw, zeros, 0, 8})};
  in.push_back(
      constant("b", DType::Int32, {O}, c.bias.data(), 4 * c.bias.size(), Quant{sb, zeros, 0, 32}));
  const int y = add_node(g, "node", c.op, c.a, in);
  g.outputs = {y};
  infer_shapes(g);
  if (c.out_u8) make_u8(g, y, sy, c.zy);
  return g;
}

// The optimised kernel (one oneDNN primitive, requantization fused) equals the reference
// byte for byte: the codes (uint8 output) or the float32 values.
void expect_int8_node_exact(Int8Case c, uint32_t seed) {
  const int64_t nw = numel(c.w), O = c.w[0];
  if (c.wq.empty()) {
    const std::vector<uint8_t> r = random_codes(static_cast<size_t>(nw), seed + 1);
    for (uint8_t v : r) c.wq.push_back(static_cast<int8_t>(int{v} - 128));
  }
  if (c.bias.empty()) {
    const std::vector<uint8_t> r = random_codes(static_cast<size_t>(O), seed + 2);
    for (uint8_t v : r) c.bias.push_back((int{v} - 128) * 997);
  }
  const Graph g = int8_graph(c);
  ASSERT_TRUE(is_int8_node(g, g.nodes[0]));
  const size_t nx = static_cast<size_t>(numel(c.x));
  std::vector<uint8_t> xu = random_codes(nx, seed);
  std::vector<float> xf(nx);
  for (size_t i = 0; i < nx; ++i) xf[i] = (float(xu[i]) - float(c.zx)) * 0.02f * 1.1f;
  const void* x = c.in_u8 ? static_cast<const void*>(xu.data()) : xf.data();
  const TensorDesc& y = g.tensors[g.outputs[0]];
  const size_t bytes = static_cast<size_t>(numel(y.shape)) * (c.out_u8 ? 1 : 4);
  std::vector<uint8_t> fast(bytes, 1), ref(bytes, 2);
  std::vector<const float*> p;
  for (int t : g.nodes[0].inputs)
    p.push_back(t == g.inputs[0] ? static_cast<const float*>(x) : g.tensors[t].f32());
  make_kernel(g, g.nodes[0], false)->run(p.data(), reinterpret_cast<float*>(fast.data()));
  make_kernel(g, g.nodes[0], true)->run(p.data(), reinterpret_cast<float*>(ref.data()));
  if (!c.out_u8) {
    const float *f = reinterpret_cast<const float*>(fast.data()),
                *r = reinterpret_cast<const float*>(ref.data());
    for (size_t i = 0; i < bytes / 4; ++i) ASSERT_EQ(f[i], r[i]) << "element " << i;
    return;
  }
  int inside = 0;
  for (size_t i = 0; i < bytes; ++i) {
    ASSERT_EQ(int{fast[i]}, int{ref[i]}) << "element " << i;
    inside += ref[i] != 0 && ref[i] != 255;
  }
  EXPECT_GT(inside, static_cast<int>(bytes / 4)) << "the codes should mostly not saturate";
}

Int8Case conv_case(Dims x, Dims w, int64_t stride, int64_t pad, int64_t dil, int64_t group,
                   Act act) {
  Int8Case c;
  c.x = std::move(x), c.w = std::move(w);
  c.a.stride[0] = c.a.stride[1] = stride;
  c.a.dilation[0] = c.a.dilation[1] = dil;
  for (int64_t& p : c.a.pad) p = pad;
  c.a.group = group;
  c.a.act = act;
  return c;
}

TEST(LiteInt8Flow, FusedRequantizationEqualsTheReferenceExactly) {
  // Padded, zero point 0: oneDNN pads the uint8 input where it lies.
  Int8Case c = conv_case({2, 16, 9, 9}, {24, 16, 3, 3}, 1, 1, 1, 1, Act::ReLU);
  c.zy = 0, c.out_scale = 2e-3;
  expect_int8_node_exact(c, 10);
  // Padded, zero point 37: staged into a buffer bordered with 37; stride 2; no clamp, zp_y 90.
  c = conv_case({1, 8, 10, 11}, {16, 8, 3, 3}, 2, 1, 1, 1, Act::None);
  c.zx = 37, c.zy = 90;
  expect_int8_node_exact(c, 20);
  // Depthwise (the MobileNet case), ReLU6 as a clamp at the code of 6.
  c = conv_case({1, 32, 14, 14}, {32, 1, 3, 3}, 1, 1, 1, 32, Act::ReLU6);
  c.zy = 3, c.out_scale = 2e-2;
  expect_int8_node_exact(c, 30);
  // Groups and dilation, float32 output with ReLU; a 1x1 one with Sigmoid (applied after).
  c = conv_case({2, 8, 9, 9}, {8, 2, 3, 3}, 1, 2, 2, 4, Act::ReLU);
  c.zx = 5, c.out_u8 = false;
  expect_int8_node_exact(c, 40);
  c = conv_case({1, 24, 6, 6}, {40, 24, 1, 1}, 1, 0, 1, 1, Act::Sigmoid);
  c.zx = 200, c.out_u8 = false;
  expect_int8_node_exact(c, 50);
  // A float32 input, quantized by the kernel.
  c = conv_case({1, 3, 12, 12}, {8, 3, 3, 3}, 2, 1, 1, 1, Act::ReLU);
  c.in_u8 = false, c.zx = 128, c.zy = 0;
  expect_int8_node_exact(c, 60);
  // One input channel (lite/conv_1ch.h on CPUs with AVX-512 VBMI and VNNI): LeNet's first
  // layer from float32; a uint8 input, 3 channels out, odd widths; 8 channels of an 8x8 kernel.
  c = conv_case({2, 1, 28, 28}, {6, 1, 5, 5}, 1, 2, 1, 1, Act::ReLU);
  c.in_u8 = false, c.zx = 120;
  expect_int8_node_exact(c, 90);
  c = conv_case({1, 1, 13, 37}, {3, 1, 3, 7}, 1, 1, 1, 1, Act::None);
  c.zx = 9, c.zy = 100;
  expect_int8_node_exact(c, 100);
  c = conv_case({2, 1, 21, 19}, {8, 1, 8, 8}, 1, 0, 1, 1, Act::ReLU6);
  c.zy = 4, c.out_scale = 5e-4;
  expect_int8_node_exact(c, 110);
}

TEST(LiteInt8Flow, SumsPastFloatPrecisionFollowTheDefinedOrder) {
  // Sums of codes near 2^27 and biases near 2^26: float32 holds neither exactly, so the
  // value is float(A) + float(comp), each rounded, as lite/kernels_int8.cc defines it.
  for (bool out_u8 : {false, true}) {
    Int8Case c;
    c.op = OpType::FullyConnected;
    c.x = {3, 4608}, c.w = {64, 4608};
    c.zx = 60, c.out_u8 = out_u8, c.zy = 10;
    c.wq.assign(64 * 4608, 0);
    for (size_t i = 0; i < c.wq.size(); ++i) c.wq[i] = static_cast<int8_t>(120 + i % 8);
    for (int o = 0; o < 64; ++o) c.bias.push_back((o % 2 ? 1 : -1) * ((1 << 26) + 12345 * o));
    // |value| ~ 2^27 codes times s lands the outputs inside [0, 255].
    c.out_scale = out_u8 ? 150.0 / (1 << 27) : 1e-6;
    expect_int8_node_exact(c, 70);
    c.op = OpType::Conv2D;
    c.x = {1, 512, 5, 5}, c.w = {64, 512, 3, 3};
    c.a = OpAttrs{};
    for (int64_t& p : c.a.pad) p = 1;
    c.zx = 0;
    expect_int8_node_exact(c, 80);
  }
}

}  // namespace
}  // namespace mycel::lite
