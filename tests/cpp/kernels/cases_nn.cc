// Kernel test cases for the nn family (see kernel_cases.h).
#include <cmath>
#include <limits>

#include "kernel_cases.h"
#include "ops/infer_nn.h"

namespace mycel::test {

namespace {

bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }
double rtol_for(DType t) { return is_half(t) ? 1e-2 : t == DType::Float64 ? 1e-9 : 1e-4; }
double atol_for(DType t) { return is_half(t) ? 2e-2 : t == DType::Float64 ? 1e-9 : 1e-5; }
std::string label_of(const Shape& s, DType t, const std::string& extra) {
  return shape_str(s) + " " + std::string(dtype_name(t)) + (extra.empty() ? "" : " " + extra);
}

// ---- convolution ----

struct ConvCfg {
  Shape x, w;
  Attrs attrs;  // everything but out_channel / kernel_size, which come from w
  DType t = DType::Float32;
  std::string label;
};

void add_conv(std::vector<KernelCase>& out, ConvCfg cfg) {
  cfg.attrs.set("out_channel", cfg.w[0]);
  cfg.attrs.set("kernel_size", std::vector<int64_t>{cfg.w[2], cfg.w[3]});
  Attrs full = make_attrs(*find_op("Conv2D"), cfg.attrs);
  ConvGeom g = conv_geometry("Conv2D", cfg.x, cfg.w, full);
  double rtol = rtol_for(cfg.t), atol = is_half(cfg.t)            ? 5e-2
                                        : cfg.t == DType::Float64 ? 1e-9
                                                                  : 1e-4;
  std::string label = label_of(cfg.x, cfg.t, cfg.label);
  KernelCase fwd{"Conv2D", {{cfg.x, cfg.t}, {cfg.w, cfg.t}}, cfg.attrs, rtol, atol, {}, label};
  out.push_back(fwd);
  KernelCase bi = fwd;
  bi.op = "Conv2DBackpropInput";
  bi.inputs = {{g.y_shape(), cfg.t}, {cfg.w, cfg.t}};
  bi.attrs.set("input_size", std::vector<int64_t>(cfg.x.begin(), cfg.x.end()));
  out.push_back(bi);
  KernelCase bf = fwd;
  bf.op = "Conv2DBackpropFilter";
  bf.inputs = {{g.y_shape(), cfg.t}, {cfg.x, cfg.t}};
  bf.attrs.set("filter_size", std::vector<int64_t>(cfg.w.begin(), cfg.w.end()));
  bf.rtol = rtol * 10;  // sums over the whole batch
  bf.atol = atol * 10;
  out.push_back(bf);
}

void conv_cases(std::vector<KernelCase>& v) {
  using S = std::string;
  // LeNet's layers, and its "pad"/"same" 28x28 variants.
  add_conv(v, {{4, 1, 32, 32}, {6, 1, 5, 5}, A({}), DType::Float32, "lenet conv1"});
  add_conv(v, {{3, 6, 14, 14}, {16, 6, 5, 5}, A({}), DType::Float32, "lenet conv2"});
  // Above kSerialWork multiply-adds (base/parallel.h): oneDNN threads these.
  add_conv(v, {{8, 6, 14, 14}, {16, 6, 5, 5}, A({}), DType::Float32, "lenet conv2 threaded"});
  add_conv(v, {{2, 1, 28, 28},
               {6, 1, 5, 5},
               A({{"pad_mode", S("pad")}, {"pad", ints({2})}}),
               DType::Float32,
               "pad 2"});
  add_conv(v, {{2, 1, 28, 28}, {6, 1, 5, 5}, A({{"pad_mode", S("same")}}), DType::Float32, "same"});
  // Odd sizes, "same" with stride 2 (asymmetric padding), 4-value pads.
  add_conv(v, {{2, 3, 17, 19},
               {8, 3, 3, 3},
               A({{"pad_mode", S("same")}, {"stride", ints({2})}}),
               DType::Float32,
               "same stride 2"});
  add_conv(v, {{2, 4, 13, 11},
               {5, 4, 3, 3},
               A({{"pad_mode", S("pad")},
                  {"pad", ints({1, 2, 0, 3})},
                  {"stride", ints({2, 1})},
                  {"dilation", ints({1, 2})}}),
               DType::Float32,
               "pad 4 values, dilation"});
  add_conv(v, {{2, 3, 16, 15},
               {4, 3, 3, 2},
               A({{"stride", ints({1, 1, 2, 3})}, {"dilation", ints({1, 1, 2, 2})}}),
               DType::Float32,
               "4-value stride and dilation"});
  add_conv(v, {{3, 5, 9, 9},
               {7, 5, 3, 3},
               A({{"pad_mode", S("same")}, {"dilation", ints({2})}}),
               DType::Float32,
               "same dilation 2"});
  // Groups, depthwise, 1x1, more channels (oneDNN's blocked layouts).
  add_conv(v, {{2, 4, 9, 9},
               {6, 2, 3, 3},
               A({{"group", i64(2)}, {"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "group 2"});
  add_conv(v, {{2, 8, 10, 10},
               {8, 1, 3, 3},
               A({{"group", i64(8)}, {"pad_mode", S("same")}}),
               DType::Float32,
               "depthwise"});
  add_conv(v, {{2, 6, 7, 7},
               {12, 1, 3, 3},
               A({{"group", i64(6)}}),
               DType::Float32,
               "depthwise multiplier 2"});
  add_conv(
      v,
      {{3, 16, 8, 8}, {32, 16, 1, 1}, A({{"stride", ints({2})}}), DType::Float32, "1x1 stride 2"});
  add_conv(v, {{4, 32, 12, 12},
               {32, 32, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "32 channels"});
  add_conv(v, {{8, 3, 64, 64},
               {16, 3, 3, 3},
               A({{"pad_mode", S("same")}}),
               DType::Float32,
               "3 channels, large"});
  add_conv(v, {{0, 3, 8, 8}, {4, 3, 3, 3}, A({}), DType::Float32, "empty batch"});
  // Enough work to split the images across threads (run_dnnl_by_images), an odd batch: shares
  // of different sizes, the filter gradient summed over them.
  add_conv(v, {{5, 16, 12, 12},
               {32, 16, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "odd batch split across threads"});
  // Outputs of at most 4 positions (the batched sgemm path): ResNet's last stage, with
  // strides, asymmetric pads, dilation, 1x1, a single position, a batch over several chunks.
  add_conv(v, {{5, 40, 2, 2},
               {48, 40, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "2x2 output"});
  add_conv(v, {{3, 24, 4, 3},
               {32, 24, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1, 0, 0, 2})}, {"stride", ints({2})}}),
               DType::Float32,
               "stride 2, asymmetric pads, 2x2 output"});
  add_conv(v, {{4, 16, 5, 5},
               {8, 16, 3, 2},
               A({{"dilation", ints({2, 3})}}),
               DType::Float32,
               "dilated, 1x2 output"});
  add_conv(v, {{6, 32, 4, 4},
               {64, 32, 1, 1},
               A({{"stride", ints({2})}}),
               DType::Float32,
               "1x1 stride 2, 2x2 output"});
  add_conv(v, {{7, 8, 3, 3}, {5, 8, 3, 3}, A({}), DType::Float32, "single output position"});
  add_conv(v, {{600, 64, 2, 2},
               {8, 64, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "2x2 output, images in two chunks"});
  add_conv(v, {{2, 6, 2, 2},
               {4, 3, 3, 3},
               A({{"group", i64(2)}, {"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "group 2, 2x2 output (oneDNN)"});
  // Filter gradients of outputs up to 16 positions with kernels larger than 1x1 take the
  // batched sgemm too (the forward and data gradient of these stay on oneDNN): ResNet-18's
  // 4x4 stage, a 3x3 output with stride 2, and a 1x1 kernel on 4x4 that stays on oneDNN.
  add_conv(v, {{5, 40, 4, 4},
               {24, 40, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float32,
               "4x4 output"});
  add_conv(v, {{3, 12, 7, 6},
               {20, 12, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1, 0, 1, 1})}, {"stride", ints({2})}}),
               DType::Float32,
               "stride 2, asymmetric pads, 3x3 output"});
  add_conv(v, {{4, 24, 8, 8},
               {32, 24, 1, 1},
               A({{"stride", ints({2})}}),
               DType::Float32,
               "1x1 stride 2, 4x4 output (oneDNN)"});
  // Other dtypes.
  add_conv(v, {{3, 4, 9, 8},
               {6, 2, 3, 2},
               A({{"group", i64(2)},
                  {"pad_mode", S("pad")},
                  {"pad", ints({1, 0, 2, 1})},
                  {"stride", ints({2, 1})},
                  {"dilation", ints({1, 2})}}),
               DType::Float64,
               "group 2 pad dilation"});
  add_conv(v, {{2, 3, 11, 10},
               {5, 3, 3, 3},
               A({{"pad_mode", S("same")}, {"stride", ints({2})}}),
               DType::Float64,
               "same stride 2"});
  add_conv(v, {{4, 8, 16, 16},
               {8, 8, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float64,
               "parallel over images"});
  add_conv(v, {{0, 3, 8, 8}, {4, 3, 3, 3}, A({}), DType::Float64, "empty batch"});
  add_conv(v, {{2, 3, 10, 10}, {4, 3, 3, 3}, A({{"pad_mode", S("same")}}), DType::Float16, ""});
  add_conv(v, {{2, 3, 10, 10}, {4, 3, 3, 3}, A({{"pad_mode", S("valid")}}), DType::BFloat16, ""});
  // bfloat16: LeNet's layers (threaded too) and narrow groups run converted to float32;
  // 32 channels per group and more run on oneDNN's bf16 primitives (bf16_wins), all passes.
  add_conv(v, {{2, 32, 9, 9},
               {32, 32, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::BFloat16,
               "oneDNN bf16"});
  add_conv(v, {{3, 64, 11, 10},
               {64, 32, 3, 3},
               A({{"pad_mode", S("pad")},
                  {"pad", ints({1, 2, 0, 1})},
                  {"stride", ints({2})},
                  {"group", i64(2)}}),
               DType::BFloat16,
               "oneDNN bf16 stride groups"});
  add_conv(v, {{4, 1, 32, 32}, {6, 1, 5, 5}, A({}), DType::BFloat16, "lenet conv1"});
  add_conv(v, {{8, 6, 14, 14}, {16, 6, 5, 5}, A({}), DType::BFloat16, "lenet conv2 threaded"});
  add_conv(v, {{2, 8, 11, 10},
               {8, 4, 3, 3},
               A({{"pad_mode", S("pad")},
                  {"pad", ints({1, 2, 0, 1})},
                  {"stride", ints({2})},
                  {"dilation", ints({2})},
                  {"group", i64(2)}}),
               DType::BFloat16,
               "pad stride dilation groups"});
  // float16 (AMP's other type; cuDNN's half convolutions on the GPU, float32 on the CPU):
  // LeNet's layers, channels past a tensor-core tile, uneven pads, strides, dilation, groups.
  add_conv(v, {{4, 1, 32, 32}, {6, 1, 5, 5}, A({}), DType::Float16, "lenet conv1"});
  add_conv(v, {{8, 6, 14, 14}, {16, 6, 5, 5}, A({}), DType::Float16, "lenet conv2"});
  add_conv(v, {{2, 32, 9, 9},
               {32, 32, 3, 3},
               A({{"pad_mode", S("pad")}, {"pad", ints({1})}}),
               DType::Float16,
               "32 channels"});
  add_conv(v, {{2, 8, 11, 10},
               {8, 4, 3, 3},
               A({{"pad_mode", S("pad")},
                  {"pad", ints({1, 2, 0, 1})},
                  {"stride", ints({2})},
                  {"dilation", ints({2})},
                  {"group", i64(2)}}),
               DType::Float16,
               "pad stride dilation groups"});
}

// ---- pooling ----

void add_pool(std::vector<KernelCase>& out, const char* op, Shape x, Attrs attrs, DType t,
              std::string label, Gen gen = Gen::Normal) {
  const OpDef* def = find_op(op);
  PoolGeom g = pool_geometry(op, x, make_attrs(*def, attrs));
  std::string grad_op = std::string(op) + "Grad";
  std::string l = label_of(x, t, label);
  double rtol = rtol_for(t), atol = atol_for(t);
  InputSpec xs{x, t, gen, 0, 3};
  out.push_back({op, {xs}, attrs, rtol, atol, {}, l});
  out.push_back({grad_op, {xs, {g.y_shape(), t}, {g.y_shape(), t}}, attrs, rtol, atol, {}, l});
  // MaxPoolGradGrad(x, out, ddx): ddx read at each window's argmax, the same as MaxPoolGrad's.
  if (std::string(op) == "MaxPool") {
    out.push_back({"MaxPoolGradGrad", {xs, {g.y_shape(), t}, {x, t}}, attrs, rtol, atol, {}, l});
  }
}

void pool_cases(std::vector<KernelCase>& v) {
  using S = std::string;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    add_pool(v, op, {4, 6, 28, 28}, A({{"kernel_size", ints({2})}, {"strides", ints({2})}}),
             DType::Float32, "lenet 2x2");
    add_pool(v, op, {2, 3, 11, 13},
             A({{"kernel_size", ints({3})}, {"strides", ints({2})}, {"pad_mode", S("same")}}),
             DType::Float32, "same 3x3 s2");
    add_pool(v, op, {2, 3, 10, 9},
             A({{"kernel_size", ints({3})},
                {"strides", ints({2})},
                {"pad_mode", S("pad")},
                {"pad", ints({1})},
                {"ceil_mode", true}}),
             DType::Float32, "pad 1 ceil");
    add_pool(v, op, {2, 3, 10, 9},
             A({{"kernel_size", ints({3})},
                {"strides", ints({2})},
                {"pad_mode", S("pad")},
                {"pad", ints({1})},
                {"ceil_mode", true},
                {"count_include_pad", false}}),
             DType::Float32, "pad 1 ceil, pad not counted");
    add_pool(v, op, {2, 2, 12, 11},
             A({{"kernel_size", ints({1, 1, 4, 3})},
                {"strides", ints({1, 1, 3, 2})},
                {"pad_mode", S("pad")},
                {"pad", ints({0, 2, 1, 1})}}),
             DType::Float32, "4-value kernel, strides and pads");
    add_pool(v, op, {3, 2, 9, 9},
             A({{"kernel_size", ints({2, 3})}, {"strides", ints({2})}, {"ceil_mode", true}}),
             DType::Float32, "valid ceil");
    add_pool(v, op, {2, 3, 8, 8}, A({{"kernel_size", ints({3})}, {"strides", ints({1})}}),
             DType::Float32, "overlapping windows, ties", Gen::Int);
    add_pool(v, op, {2, 3, 9, 10},
             A({{"kernel_size", ints({2})},
                {"strides", ints({1})},
                {"pad_mode", S("pad")},
                {"pad", ints({1})}}),
             DType::Float32, "2x2 stride 1 pad 1", Gen::Int);
    add_pool(v, op, {2, 3, 13, 11}, A({{"kernel_size", ints({3})}, {"strides", ints({3})}}),
             DType::Float32, "3x3 stride 3");
    add_pool(v, op, {8, 16, 64, 64}, A({{"kernel_size", ints({2})}, {"strides", ints({2})}}),
             DType::Float32, "large");
    add_pool(v, op, {0, 3, 8, 8}, A({{"kernel_size", ints({2})}, {"strides", ints({2})}}),
             DType::Float32, "empty");
    add_pool(v, op, {2, 3, 9, 7},
             A({{"kernel_size", ints({3})}, {"strides", ints({2})}, {"pad_mode", S("same")}}),
             DType::Float64, "same");
    add_pool(v, op, {2, 3, 9, 7}, A({{"kernel_size", ints({2})}, {"strides", ints({2})}}),
             DType::Float16, "", Gen::Int);
    add_pool(v, op, {2, 3, 9, 7},
             A({{"kernel_size", ints({3})},
                {"strides", ints({1})},
                {"pad_mode", S("pad")},
                {"pad", ints({1})}}),
             DType::BFloat16, "pad 1", Gen::Int);
    add_pool(v, op, {4, 6, 28, 28}, A({{"kernel_size", ints({2})}, {"strides", ints({2})}}),
             DType::BFloat16, "lenet 2x2");
  }
  // Overlapping windows (stride < kernel) with ties and padding, in float64, for the max family.
  add_pool(v, "MaxPool", {2, 3, 9, 11},
           A({{"kernel_size", ints({3})},
              {"strides", ints({1, 2})},
              {"pad_mode", S("pad")},
              {"pad", ints({1, 0, 0, 1})}}),
           DType::Float64, "overlapping pad ties", Gen::Int);
  add_pool(v, "MaxPool", {1, 2, 7, 5}, A({{"kernel_size", ints({4, 3})}, {"strides", ints({1})}}),
           DType::Float64, "overlapping valid");
  add_pool(v, "MaxPool", {2, 2, 11, 9},
           A({{"kernel_size", ints({3})}, {"strides", ints({2})}, {"pad_mode", S("same")}}),
           DType::Float64, "same odd ties", Gen::Int);
}

// ---- softmax and losses ----

// Normal data with some large magnitudes and -inf: a softmax that does not subtract the
// maximum overflows.
Tensor extreme(const Shape& s, DType t) {
  Tensor x = make_input({s, DType::Float64, Gen::Normal}, 91);
  double* p = x.data<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (i % 13 == 2) p[i] *= 80;
    if (i % 29 == 5) p[i] = -std::numeric_limits<double>::infinity();
  }
  return x.cast(t);
}

void softmax_cases(std::vector<KernelCase>& v) {
  struct SmCase {
    Shape s;
    int64_t axis;
    DType t;
  };
  const SmCase cs[] = {{{7, 33}, -1, DType::Float32},     {{3, 1031}, 1, DType::Float32},
                       {{4, 5, 6}, 1, DType::Float32},    {{5, 3, 17}, 0, DType::Float32},
                       {{600, 1000}, -1, DType::Float32}, {{64, 40, 130}, 1, DType::Float32},
                       {{}, 0, DType::Float32},           {{0, 5}, -1, DType::Float32},
                       {{5, 0}, -1, DType::Float32},      {{6, 19}, -1, DType::Float64},
                       {{4, 7, 5}, 1, DType::Float64},    {{6, 19}, -1, DType::Float16},
                       {{3, 9, 4}, 1, DType::BFloat16},   {{33, 1031}, -1, DType::Float16},
                       {{4, 1031}, -1, DType::BFloat16},  {{64, 40, 130}, 1, DType::BFloat16}};
  for (const SmCase& c : cs) {
    std::string l = label_of(c.s, c.t, "axis " + std::to_string(c.axis));
    v.push_back({"Softmax",
                 {{c.s, c.t}},
                 A({{"axis", ints({c.axis})}}),
                 rtol_for(c.t),
                 atol_for(c.t),
                 {},
                 l});
    v.push_back({"LogSoftmax",
                 {{c.s, c.t}},
                 A({{"axis", i64(c.axis)}}),
                 rtol_for(c.t),
                 atol_for(c.t),
                 {},
                 l});
  }
  v.push_back({"Softmax",
               {},
               A({{"axis", i64(-1)}}),
               1e-4,
               1e-6,
               [] {
                 return std::vector<Tensor>{extreme({9, 70}, DType::Float32)};
               },
               "large values and -inf, last axis"});
  v.push_back({"Softmax",
               {},
               A({{"axis", i64(0)}}),
               1e-4,
               1e-6,
               [] {
                 return std::vector<Tensor>{extreme({70, 9}, DType::Float32)};
               },
               "large values and -inf, axis 0"});
  v.push_back({"LogSoftmax",
               {},
               A({{"axis", i64(-1)}}),
               1e-4,
               1e-4,
               [] {
                 return std::vector<Tensor>{extreme({9, 70}, DType::Float32)};
               },
               "large values and -inf"});
  // Several contiguous axes (MindSpore's Softmax(axis=(0, 1))): one softmax over their product.
  struct MultiCase {
    Shape s;
    std::vector<int64_t> axes;
    DType t;
  };
  const MultiCase ms[] = {{{4, 5, 6}, {1, 2}, DType::Float32},
                          {{3, 4, 5}, {0, 1}, DType::Float64},
                          {{2, 33, 40}, {-2, -1}, DType::Float16},
                          {{2, 3, 4, 5}, {2, 1}, DType::Float32}};
  for (const MultiCase& c : ms)
    v.push_back({"Softmax",
                 {{c.s, c.t}},
                 A({{"axis", AttrValue(c.axes)}}),
                 rtol_for(c.t),
                 atol_for(c.t),
                 {},
                 label_of(c.s, c.t, "contiguous axes")});
  v.push_back({"Softmax", {{{3, 4}, DType::Int32, Gen::Int}}, A({}), 1e-4, 1e-6, {}, "int input"});

  struct CeCase {
    int64_t n, c;
    DType t;
  };
  const CeCase ce[] = {{7, 10, DType::Float32},     {33, 1031, DType::Float32},
                       {2000, 100, DType::Float32}, {5, 3, DType::Float64},
                       {6, 9, DType::Float16},      {6, 9, DType::BFloat16}};
  for (const CeCase& c : ce) {
    std::string l = label_of({c.n, c.c}, c.t, "");
    for (bool grad : {false, true}) {
      for (DType lt : {DType::Int32, DType::Int64}) {
        v.push_back({"SparseSoftmaxCrossEntropyWithLogits",
                     {{{c.n, c.c}, c.t}, {{c.n}, lt, Gen::Int, 0, c.c}},
                     A({{"is_grad", grad}}),
                     rtol_for(c.t),
                     atol_for(c.t),
                     {},
                     l + (grad ? " grad " : " loss ") + std::string(dtype_name(lt))});
      }
    }
    v.push_back({"SoftmaxCrossEntropyWithLogits",
                 {{{c.n, c.c}, c.t}, {{c.n, c.c}, c.t, Gen::Positive}},
                 A({}),
                 rtol_for(c.t),
                 is_half(c.t) ? 5e-2 : atol_for(c.t),
                 {},
                 l});
  }
}

// ---- normalisation ----

void norm_cases(std::vector<KernelCase>& v) {
  struct BnCase {
    Shape x;
    DType t, p;
  };
  const BnCase bn[] = {{{4, 3, 5, 7}, DType::Float32, DType::Float32},
                       {{33, 7}, DType::Float32, DType::Float32},
                       {{16, 16, 40, 40}, DType::Float32, DType::Float32},
                       {{4000, 100}, DType::Float32, DType::Float32},
                       {{2, 5, 3, 1}, DType::Float32, DType::Float32},
                       {{3, 4, 5, 6}, DType::Float64, DType::Float64},
                       {{9, 6}, DType::Float64, DType::Float64},
                       {{3, 4, 5, 6}, DType::Float16, DType::Float32},
                       {{9, 6}, DType::BFloat16, DType::Float32},
                       {{3, 4, 5, 6}, DType::Float16, DType::Float16}};
  for (const BnCase& c : bn) {
    Shape ch{c.x[1]};
    for (bool training : {false, true}) {
      std::string l = label_of(c.x, c.t,
                               std::string(training ? "training" : "inference") + " params " +
                                   std::string(dtype_name(c.p)));
      double atol = is_half(c.t) ? 3e-2 : c.t == DType::Float64 ? 1e-9 : 1e-4;
      v.push_back({"BatchNorm",
                   {{c.x, c.t}, {ch, c.p}, {ch, c.p}, {ch, c.p}, {ch, c.p, Gen::Positive}},
                   A({{"is_training", training}, {"momentum", 0.2}, {"epsilon", 1e-3}}),
                   rtol_for(c.t),
                   atol,
                   {},
                   l});
      v.push_back({"BatchNormGrad",
                   {{c.x, c.t}, {c.x, c.t}, {ch, c.p}, {ch, c.p}, {ch, c.p, Gen::Positive}},
                   A({{"is_training", training}}),
                   rtol_for(c.t) * 10,
                   atol * 10,
                   {},
                   l});
    }
  }

  struct LnCase {
    Shape x;
    int64_t bna, bpa;
    DType t, p;
  };
  const LnCase ln[] = {{{4, 7, 33}, 1, 1, DType::Float32, DType::Float32},
                       {{4, 7, 33}, -1, -1, DType::Float32, DType::Float32},
                       {{4, 7, 33}, 1, 2, DType::Float32, DType::Float32},
                       {{4, 7, 33}, 2, 1, DType::Float32, DType::Float32},
                       {{600, 1000}, 1, 1, DType::Float32, DType::Float32},
                       {{5, 1031}, -1, -1, DType::Float32, DType::Float32},
                       {{0, 8}, 1, 1, DType::Float32, DType::Float32},
                       {{3, 5, 6}, 1, 1, DType::Float64, DType::Float64},
                       {{3, 5, 6}, 2, 2, DType::Float16, DType::Float32},
                       {{3, 5, 6}, 2, 2, DType::BFloat16, DType::BFloat16},
                       // bfloat16 activations, float32 parameters (O2's LayerNorm): the
                       // vectorised rows, their tails, and parameters in segments of a row.
                       {{64, 128}, -1, -1, DType::BFloat16, DType::Float32},
                       {{7, 300}, 1, 1, DType::BFloat16, DType::Float32},
                       {{4, 7, 33}, 1, 2, DType::BFloat16, DType::Float32}};
  for (const LnCase& c : ln) {
    int64_t nd = static_cast<int64_t>(c.x.size());
    int64_t bna = c.bna < 0 ? c.bna + nd : c.bna, bpa = c.bpa < 0 ? c.bpa + nd : c.bpa;
    Shape ps(c.x.begin() + bpa, c.x.end()), stat;
    for (int64_t d = 0; d < nd; ++d) stat.push_back(d < bna ? c.x[static_cast<size_t>(d)] : 1);
    DType st = is_half(c.t) ? DType::Float32 : c.t;
    Attrs a = A({{"begin_norm_axis", i64(c.bna)}, {"begin_params_axis", i64(c.bpa)}});
    std::string l = label_of(
        c.x, c.t, "norm axis " + std::to_string(c.bna) + " params axis " + std::to_string(c.bpa));
    double atol = is_half(c.t) ? 3e-2 : c.t == DType::Float64 ? 1e-9 : 1e-4;
    Attrs fa = a;
    fa.set("epsilon", 1e-5);
    v.push_back({"LayerNorm", {{c.x, c.t}, {ps, c.p}, {ps, c.p}}, fa, rtol_for(c.t), atol, {}, l});
    v.push_back({"LayerNormGrad",
                 {{c.x, c.t}, {c.x, c.t}, {ps, c.p}, {stat, st}, {stat, st, Gen::Positive}},
                 a,
                 rtol_for(c.t) * 10,
                 atol * 10,
                 {},
                 l});
  }
}

void dropout_cases(std::vector<KernelCase>& v) {
  struct DoCase {
    Shape s;
    double keep;
    DType t;
  };
  const DoCase cs[] = {{{1031}, 0.5, DType::Float32},     {{7, 33}, 0.8, DType::Float32},
                       {{600, 500}, 0.9, DType::Float32}, {{3, 5}, 1.0, DType::Float32},
                       {{0, 4}, 0.5, DType::Float32},     {{}, 0.5, DType::Float32},
                       {{9, 11}, 0.3, DType::Float64},    {{9, 11}, 0.7, DType::Float16},
                       {{9, 11}, 0.7, DType::BFloat16},   {{65}, 0.9, DType::Float32},
                       {{1031}, 0.5, DType::BFloat16},    {{300, 77}, 0.9, DType::BFloat16}};
  for (const DoCase& c : cs) {
    v.push_back({"Dropout",
                 {{c.s, c.t}},
                 A({{"keep_prob", c.keep}, {"Seed0", i64(5)}, {"Seed1", i64(11)}}),
                 rtol_for(c.t),
                 atol_for(c.t),
                 {},
                 label_of(c.s, c.t, "keep " + std::to_string(c.keep))});
  }
}

}  // namespace

std::vector<KernelCase> nn_cases() {
  std::vector<KernelCase> v;
  conv_cases(v);
  pool_cases(v);
  softmax_cases(v);
  norm_cases(v);
  dropout_cases(v);
  return v;
}

}  // namespace mycel::test
