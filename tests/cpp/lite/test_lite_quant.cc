// mycel lite's reduced precision: float16/bfloat16 conversions against their defining
// properties, the int8 kernels against their exact integer references and against float32,
// the quantization config's parser and errors, quantized and float16 files through the
// runtime, and the checks that reject inconsistent quantization parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
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
using testing::add_node;
using testing::add_weight;
using testing::one_input;
using testing::random_values;

float next_half_up(uint16_t h) { return half_to_float(static_cast<uint16_t>(h + 1)); }

TEST(LiteQuant, HalfRoundTripsEveryHalfAndRoundsToNearestEven) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), h) << "half " << h << " = " << f;
  }
  EXPECT_EQ(half_to_float(0x3c00), 1.f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.f, -24));
  EXPECT_EQ(half_to_float(0x7bff), 65504.f);
  // Random floats: the nearest half, ties to the even one; past 65520 infinity.
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> e(-26.f, 16.f);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::exp2(e(gen)) * (i % 2 ? -1.f : 1.f);
    const uint16_t h = float_to_half(x);
    const uint16_t mag = h & 0x7fff;
    const float got = std::fabs(half_to_float(h)), ax = std::fabs(x);
    ASSERT_EQ((h & 0x8000) != 0, x < 0);
    if (mag == 0x7c00) {
      ASSERT_GE(ax, 65520.f);
      continue;
    }
    const float up = next_half_up(mag), down = mag ? half_to_float(mag - 1) : -up;
    ASSERT_LE(std::fabs(got - ax), std::fabs(up - ax)) << x;
    ASSERT_LE(std::fabs(got - ax), std::fabs(down - ax)) << x;
  }
  EXPECT_EQ(float_to_half(65519.f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.f), 0x7c00);
  EXPECT_EQ(float_to_half(1.f + std::ldexp(1.f, -11)), 0x3c00);  // tie: to even
  EXPECT_EQ(float_to_half(1.f + 3 * std::ldexp(1.f, -11)), 0x3c02);
}

TEST(LiteQuant, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16_to_float(float_to_bf16(1.f)), 1.f);
  EXPECT_EQ(float_to_bf16(1.f + std::ldexp(1.f, -8)), 0x3f80);  // tie: to even
  EXPECT_EQ(float_to_bf16(1.f + 3 * std::ldexp(1.f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
  std::mt19937 gen(4);
  std::uniform_real_distribution<float> u(-100.f, 100.f);
  for (int i = 0; i < 100000; ++i) {
    const float x = u(gen);
    const float r = bf16_to_float(float_to_bf16(x));
    ASSERT_LE(std::fabs(r - x), std::fabs(x) * std::ldexp(1.f, -8)) << x;
  }
}

std::vector<Sample> samples_for(const Graph& g, int count, float lo, float hi, uint32_t seed) {
  std::vector<Sample> out;
  for (int s = 0; s < count; ++s) {
    std::vector<float> v =
        random_values(static_cast<size_t>(numel(g.tensors[g.inputs[0]].shape)), seed + s);
    for (float& x : v) x = lo + (x + 1.f) * 0.5f * (hi - lo);
    out.push_back({v});
  }
  return out;
}

// Quantizes g (one Conv2D or FullyConnected node) on calibration samples, then runs the
// optimised int8 kernel and its reference on fresh inputs: equal exactly; and both near the
// float32 node (the quantization error is bounded by the scales).
void expect_int8_exact(Graph g, float lo, float hi, bool per_channel, bool kl) {
  infer_shapes(g);
  const Graph fp = g;
  QuantConfig c;
  c.type = QuantConfig::Type::Full;
  c.per_channel = per_channel;
  c.method = kl ? QuantConfig::Method::KL : QuantConfig::Method::MaxMin;
  std::ostringstream log;
  converter::full_quantize(g, c, samples_for(g, 4, lo, hi, 11), log);
  const NodeDesc& n = g.nodes[0];
  ASSERT_TRUE(is_int8_node(g, n)) << log.str();
  std::vector<float> x = samples_for(g, 1, lo, hi, 99)[0][0];
  std::vector<const float*> in;
  for (int t : n.inputs)
    in.push_back(g.tensors[t].constant ? static_cast<const float*>(g.tensors[t].data) : x.data());
  const size_t m = static_cast<size_t>(numel(g.tensors[n.outputs[0]].shape));
  std::vector<float> fast(m, -7.f), ref(m, 7.f), f32(m);
  make_kernel(g, n, false)->run(in.data(), fast.data());
  make_kernel(g, n, true)->run(in.data(), ref.data());
  std::vector<const float*> fin;
  for (int t : fp.nodes[0].inputs)
    fin.push_back(fp.tensors[t].constant ? fp.tensors[t].f32() : x.data());
  make_kernel(fp, fp.nodes[0], true)->run(fin.data(), f32.data());
  double err = 0, norm = 0;
  for (size_t i = 0; i < m; ++i) {
    ASSERT_EQ(fast[i], ref[i]) << "element " << i;
    err += std::fabs(fast[i] - f32[i]), norm += std::fabs(f32[i]);
  }
  EXPECT_LT(err, 0.05 * norm) << "int8 far from float32";
}

Graph conv_graph(Dims x, Dims w, int64_t stride, int64_t pad, int64_t dil, int64_t group, Act act,
                 bool bias) {
  Graph g = one_input(std::move(x));
  OpAttrs a;
  a.stride[0] = a.stride[1] = stride;
  a.dilation[0] = a.dilation[1] = dil;
  for (int64_t& p : a.pad) p = pad;
  a.group = group;
  a.act = act;
  std::vector<int> in{g.inputs[0], add_weight(g, "w", w, 5)};
  if (bias) in.push_back(add_weight(g, "b", {w[0]}, 6));
  g.outputs = {add_node(g, "conv", OpType::Conv2D, a, in)};
  return g;
}

TEST(LiteQuant, Int8ConvEqualsItsReferenceExactly) {
  expect_int8_exact(conv_graph({1, 1, 28, 28}, {6, 1, 5, 5}, 1, 2, 1, 1, Act::ReLU, true), -0.8f,
                    2.0f, true, false);
  expect_int8_exact(conv_graph({2, 6, 12, 12}, {16, 6, 5, 5}, 1, 0, 1, 1, Act::None, true), 0.f,
                    3.f, true, true);
  expect_int8_exact(conv_graph({2, 8, 9, 11}, {8, 2, 3, 3}, 2, 1, 2, 4, Act::ReLU6, false), -1.f,
                    1.f, false, false);
  expect_int8_exact(conv_graph({1, 16, 7, 7}, {16, 1, 3, 3}, 1, 1, 1, 16, Act::None, true), -2.f,
                    0.5f, true, true);
}

TEST(LiteQuant, Int8FullyConnectedEqualsItsReferenceExactly) {
  for (Act act : {Act::None, Act::ReLU}) {
    Graph g = one_input({3, 400});
    OpAttrs a;
    a.act = act;
    g.outputs = {
        add_node(g, "fc", OpType::FullyConnected, a,
                 {g.inputs[0], add_weight(g, "w", {120, 400}, 7), add_weight(g, "b", {120}, 8)})};
    expect_int8_exact(g, -1.f, 4.f, act == Act::None, act == Act::ReLU);
  }
}

TEST(LiteQuant, KlClipsOutliersThatMaxMinKeeps) {
  Graph g = one_input({1, 1000});
  g.outputs = {add_node(g, "fc", OpType::FullyConnected, OpAttrs{},
                        {g.inputs[0], add_weight(g, "w", {4, 1000}, 7)})};
  infer_shapes(g);
  // A ReLU'd Gaussian bulk (sigma 0.3, half zeros) with a sparse tail of 8 outliers up to 50.
  std::vector<Sample> s(10, Sample{std::vector<float>(1000)});
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0.f, 0.3f);
  for (Sample& x : s)
    for (float& v : x[0]) v = std::max(0.f, normal(gen));
  for (int i = 0; i < 8; ++i) s[i][0][17 * i] = 5.f + 45.f * i / 7;
  QuantConfig c;
  c.type = QuantConfig::Type::Full;
  std::ostringstream log;
  Graph mm = g, kl = g;
  converter::full_quantize(mm, c, s, log);
  c.method = QuantConfig::Method::KL;
  converter::full_quantize(kl, c, s, log);
  const float s_mm = mm.tensors[0].quant.scale[0], s_kl = kl.tensors[0].quant.scale[0];
  const float lo = mm.tensors[0].quant.zero_point[0] * -s_mm;
  EXPECT_NEAR(s_mm, (50.f - lo) / 255.f, 1e-3f);
  EXPECT_LT(s_kl, s_mm / 3);  // the threshold drops most of the tail (not 50)
  EXPECT_GT(s_kl, 1.f / 255.f);
  EXPECT_EQ(kl.tensors[0].quant.zero_point[0], 0);
  // Two-sided tensors keep their MAX_MIN range under KL (a |x| histogram folds the sides).
  for (Sample& x : s) x[0][5] = -1.f;
  Graph mm2 = g, kl2 = g;
  c.method = QuantConfig::Method::MaxMin;
  converter::full_quantize(mm2, c, s, log);
  c.method = QuantConfig::Method::KL;
  converter::full_quantize(kl2, c, s, log);
  EXPECT_EQ(kl2.tensors[0].quant.scale, mm2.tensors[0].quant.scale);
}

TEST(LiteQuant, BiasCorrectionRemovesTheMeanError) {
  // Inputs with a large common offset: per-tensor weights and coarse activations leave a
  // systematic error per channel that bias correction removes on the calibration data.
  Graph g = conv_graph({1, 4, 10, 10}, {8, 4, 3, 3}, 1, 1, 1, 1, Act::None, true);
  infer_shapes(g);
  std::vector<Sample> s = samples_for(g, 8, 0.5f, 1.5f, 21);
  auto mean_error = [&](bool correct) {
    Graph q = g;
    QuantConfig c;
    c.type = QuantConfig::Type::Full;
    c.per_channel = false;
    c.bias_correction = correct;
    std::ostringstream log;
    converter::full_quantize(q, c, s, log);
    double total = 0;
    for (const Sample& x : s) {
      std::vector<float> yq(800), yf(800);
      const NodeDesc& n = q.nodes[0];
      std::vector<const float*> in{x[0].data(),
                                   static_cast<const float*>(q.tensors[n.inputs[1]].data),
                                   static_cast<const float*>(q.tensors[n.inputs[2]].data)};
      make_kernel(q, n, true)->run(in.data(), yq.data());
      std::vector<const float*> fin{x[0].data(), g.tensors[1].f32(), g.tensors[2].f32()};
      make_kernel(g, g.nodes[0], true)->run(fin.data(), yf.data());
      std::vector<double> per(8, 0.0);
      for (size_t i = 0; i < 800; ++i) per[i / 100] += yq[i] - yf[i];
      for (double p : per) total += std::fabs(p / 100);
    }
    return total / s.size() / 8;
  };
  const double before = mean_error(false), after = mean_error(true);
  EXPECT_LT(after, before);
  EXPECT_LT(after, 0.5 * std::max(before, 1e-6) + 1e-3);
}

TEST(LiteQuant, ConfigParsesMindSporeLiteSections) {
  QuantConfig c = converter::parse_quant_config(
      "# a comment\n[common_quant_param]\nquant_type=FULL_QUANT\nbit_num = 8\n\n"
      "[data_preprocess_param]\ncalibrate_path=x:/tmp/cal\ncalibrate_size=10\ninput_type=BIN\n"
      "[full_quant_param]\nactivation_quant_method=KL\nper_channel=false\nbias_correction=false\n",
      "q.cfg");
  EXPECT_EQ(c.type, QuantConfig::Type::Full);
  EXPECT_EQ(c.method, QuantConfig::Method::KL);
  EXPECT_FALSE(c.per_channel);
  EXPECT_FALSE(c.bias_correction);
  EXPECT_EQ(c.calibrate_size, 10);
  ASSERT_EQ(c.calibrate_path.size(), 1u);
  EXPECT_EQ(c.calibrate_path[0].first, "x");
  EXPECT_EQ(c.calibrate_path[0].second, "/tmp/cal");
  EXPECT_EQ(
      converter::parse_quant_config("[common_quant_param]\nquant_type=WEIGHT_QUANT\n", "w").type,
      QuantConfig::Type::Weight);
}

TEST(LiteQuant, ConfigErrorsNameSectionKeyAndLine) {
  auto error = [](const std::string& text) {
    try {
      converter::parse_quant_config(text, "q.cfg");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "[common_quant_param]\nquant_type=WEIGHT_QUANT\n";
  EXPECT_NE(error(head + "bit_nums=8\n")
                .find("q.cfg, line 3: [common_quant_param] bit_nums: unknown key"),
            std::string::npos);
  EXPECT_NE(error(head + "bit_num=4\n")
                .find("line 3: [common_quant_param] bit_num=4: expected an integer in [8, 8]"),
            std::string::npos);
  EXPECT_NE(
      error("[full_quant_param]\nactivation_quant_method=MEAN\n")
          .find("line 2: [full_quant_param] activation_quant_method=MEAN: expected MAX_MIN or KL"),
      std::string::npos);
  EXPECT_NE(error(head + "[full_quant_param]\nper_channel=yes\n")
                .find("line 4: [full_quant_param] per_channel=yes"),
            std::string::npos);
  EXPECT_NE(error(head + "[quant]\n").find("line 3: unknown section [quant]"), std::string::npos);
  EXPECT_NE(error("quant_type=FULL_QUANT\n").find("line 1: key 'quant_type' outside any [section]"),
            std::string::npos);
  EXPECT_NE(error(head + "quant_type=FULL_QUANT\n")
                .find("line 3: [common_quant_param] quant_type: given twice"),
            std::string::npos);
  EXPECT_NE(error(head + "garbage\n").find("line 3: 'garbage' is not key=value"),
            std::string::npos);
  EXPECT_NE(error("[common_quant_param]\nquant_type=FULL_QUANT\n").find("calibrate_path"),
            std::string::npos);
  EXPECT_NE(error("[common_quant_param]\nbit_num=8\n").find("quant_type is missing"),
            std::string::npos);
}

// The small convnet quantized (full int8), stored as float16 and as weight-only int8: each
// written, read back and run; int8 nodes through the optimised kernels equal the reference
// context exactly; every variant near float32.
TEST(LiteQuant, QuantizedAndHalfFilesRunNearFloat32) {
  const Graph g = testing::small_convnet(2);
  std::vector<Sample> s = samples_for(g, 6, -1.f, 1.f, 40);
  auto run = [&](const Graph& q, bool reference) {
    return std::make_pair(testing::run_model(q, s[0][0], reference), write_model(q, "test").size());
  };
  Graph opt = g;
  converter::optimize(opt);
  auto [f32, f32_size] = run(opt, true);
  Graph full = opt;
  QuantConfig c;
  c.type = QuantConfig::Type::Full;
  std::ostringstream log;
  converter::full_quantize(full, c, s, log);
  EXPECT_NE(log.str().find("Quantized 2 of"), std::string::npos) << log.str();
  auto [i8, i8_size] = run(full, false);
  EXPECT_EQ(i8, run(full, true).first);
  Graph half = opt;
  converter::store_fp16(half);
  auto [f16, f16_size] = run(half, false);
  Graph wq = opt;
  EXPECT_EQ(converter::quantize_weights(wq, c), 2);
  auto [w8, w8_size] = run(wq, false);
  size_t weights = 0;  // float32 weight bytes; float16 halves them (64-byte alignment aside)
  for (const TensorDesc& d : opt.tensors) weights += d.constant ? d.nbytes() : 0;
  EXPECT_GE(f32_size - f16_size, weights * 4 / 10);
  EXPECT_LT(w8_size, f16_size);
  for (size_t i = 0; i < f32.size(); ++i) {
    EXPECT_NEAR(f16[i], f32[i], 2e-3f);
    EXPECT_NEAR(w8[i], f32[i], 2e-2f);
    EXPECT_NEAR(i8[i], f32[i], 5e-2f);
  }
}

TEST(LiteQuant, Bf16ConvolutionNearFloat32) {
  Graph g = conv_graph({2, 8, 16, 16}, {16, 8, 3, 3}, 1, 1, 1, 1, Act::ReLU, true);
  infer_shapes(g);
  std::vector<float> x = random_values(2 * 8 * 16 * 16, 5);
  std::vector<const float*> in{x.data(), g.tensors[1].f32(), g.tensors[2].f32()};
  std::vector<float> y32(2 * 16 * 256), y16(y32.size(), -1.f);
  make_kernel(g, g.nodes[0], true)->run(in.data(), y32.data());
  make_kernel(g, g.nodes[0], false, true)->run(in.data(), y16.data());
  double diff = 0;
  for (size_t i = 0; i < y32.size(); ++i) {
    ASSERT_NEAR(y16[i], y32[i], 0.05f + 0.02f * std::fabs(y32[i]));
    diff += std::fabs(y16[i] - y32[i]);
  }
  EXPECT_GT(diff, 0.0);  // it did compute in bf16
}

// A bf16 FullyConnected equals the float product of x and W rounded to bfloat16 (float32
// accumulation: to 1e-4), plus the bias, then the activation.
TEST(LiteQuant, Bf16FullyConnectedIsTheProductOfBf16Operands) {
  for (Act act : {Act::None, Act::ReLU6}) {
    Graph g = one_input({3, 200});
    OpAttrs a;
    a.act = act;
    const int w = add_weight(g, "w", {40, 200}, 7), b = add_weight(g, "b", {40}, 8);
    g.outputs = {add_node(g, "fc", OpType::FullyConnected, a, {g.inputs[0], w, b})};
    infer_shapes(g);
    std::vector<float> x = random_values(600, 9);
    for (float& v : x) v *= 4.f;
    std::vector<const float*> in{x.data(), g.tensors[w].f32(), g.tensors[b].f32()};
    std::vector<float> y(120, -1.f);
    make_kernel(g, g.nodes[0], false, true)->run(in.data(), y.data());
    auto r = [](float v) { return static_cast<double>(bf16_to_float(float_to_bf16(v))); };
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 40; ++j) {
        double acc = g.tensors[b].f32()[j];
        for (int64_t k = 0; k < 200; ++k)
          acc += r(x[i * 200 + k]) * r(g.tensors[w].f32()[j * 200 + k]);
        if (act == Act::ReLU6) acc = std::min(std::max(acc, 0.0), 6.0);
        ASSERT_NEAR(y[i * 40 + j], acc, 1e-4 * (1 + std::fabs(acc))) << i << " " << j;
      }
  }
}

TEST(LiteQuant, InconsistentQuantizationParametersAreErrors) {
  Graph q = testing::small_convnet(1);
  converter::optimize(q);
  QuantConfig c;
  c.type = QuantConfig::Type::Full;
  std::ostringstream log;
  converter::full_quantize(q, c, samples_for(q, 2, -1.f, 1.f, 1), log);
  int conv = -1;
  for (size_t k = 0; k < q.nodes.size(); ++k)
    if (q.nodes[k].op == OpType::Conv2D) conv = static_cast<int>(k);
  ASSERT_GE(conv, 0);
  const int x = q.nodes[conv].inputs[0], w = q.nodes[conv].inputs[1], b = q.nodes[conv].inputs[2];
  Graph bad = q;
  bad.tensors[x].quant.zero_point[0] = 300;
  testing::expect_invalid(bad, "zero point 300 outside [0, 255]");
  bad = q;
  bad.tensors[w].quant.scale[1] = -1.f;
  testing::expect_invalid(bad, "quantization scale -1");
  bad = q;
  bad.tensors[w].quant.scale.pop_back();
  bad.tensors[w].quant.zero_point.pop_back();
  testing::expect_invalid(bad, "it needs one, or one per channel");
  bad = q;
  bad.tensors[w].quant.zero_point[0] = 3;
  testing::expect_invalid(bad, "symmetric");
  bad = q;
  bad.tensors[b].quant = Quant{};
  testing::expect_invalid(bad, "has no quantization parameters");
  bad = q;
  bad.tensors[b].dtype = DType::Int8;
  testing::expect_invalid(bad, "must be an Int32 constant");
  // Through a file: the same checks at load.
  std::string bytes = write_model(bad, "test");
  EXPECT_THROW(read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "m.ms"),
               Error);
}

}  // namespace
}  // namespace mycel::lite
