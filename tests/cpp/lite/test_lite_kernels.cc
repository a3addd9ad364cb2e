// The lite runtime's optimised kernels (oneDNN convolution with fused post-ops, sgemm) against
// their naive references over strides, pads, dilations, groups, activations and biases; the
// own kernels against values worked out by hand; the channels-last layout choice; the arena
// plan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "lite/arena.h"
#include "lite/kernels.h"
#include "lite/model.h"
#include "lite/model_file.h"
#include "lite_test_models.h"

namespace mycel::lite {
namespace {

using namespace testing;  // lite's (lite_test_models.h)

// Runs node 0 of g (inputs: graph input 0 random, constants as stored) with both kernels.
void expect_same(Graph& g, float tol = 1e-4f) {
  infer_shapes(g);
  const NodeDesc& n = g.nodes[0];
  std::vector<float> x = random_values(static_cast<size_t>(numel(g.tensors[n.inputs[0]].shape)), 9);
  std::vector<const float*> in;
  for (int t : n.inputs) in.push_back(g.tensors[t].constant ? g.tensors[t].f32() : x.data());
  size_t m = static_cast<size_t>(numel(g.tensors[n.outputs[0]].shape));
  std::vector<float> fast(m, -7.f), ref(m, 7.f);
  make_kernel(g, n, false)->run(in.data(), fast.data());
  make_kernel(g, n, true)->run(in.data(), ref.data());
  for (size_t i = 0; i < m; ++i)
    ASSERT_NEAR(fast[i], ref[i], tol * (1.f + std::fabs(ref[i]))) << "element " << i;
}

TEST(LiteKernels, ConvMatchesReference) {
  struct Case {
    Dims x, w;
    int64_t stride, dilation, pad, group;
    bool bias, same;
    Act act;
  };
  const Case cases[] = {
      {{1, 1, 28, 28}, {6, 1, 5, 5}, 1, 1, 2, 1, false, false, Act::ReLU},
      {{2, 6, 14, 14}, {16, 6, 5, 5}, 1, 1, 0, 1, true, false, Act::None},
      {{3, 4, 11, 9}, {8, 2, 3, 3}, 2, 1, 1, 2, true, false, Act::ReLU6},
      {{1, 8, 10, 10}, {8, 1, 3, 3}, 1, 2, 2, 8, true, false, Act::Sigmoid},  // depthwise
      {{2, 3, 7, 8}, {5, 3, 3, 2}, 2, 1, 0, 1, false, true, Act::Tanh},       // "same"
      {{1, 16, 5, 5}, {32, 16, 1, 1}, 1, 1, 0, 1, true, false, Act::None},
  };
  for (const Case& c : cases) {
    Graph g = one_input(c.x);
    OpAttrs a;
    a.stride[0] = a.stride[1] = c.stride;
    a.dilation[0] = a.dilation[1] = c.dilation;
    for (int64_t& p : a.pad) p = c.pad;
    a.group = c.group;
    a.pad_same = c.same;
    a.act = c.act;
    std::vector<int> in{g.inputs[0], add_weight(g, "w", c.w, 1)};
    if (c.bias) in.push_back(add_weight(g, "b", {c.w[0]}, 2));
    g.outputs = {add_node(g, "conv", OpType::Conv2D, a, in)};
    SCOPED_TRACE(dims_str(c.x) + " * " + dims_str(c.w));
    expect_same(g);
  }
}

TEST(LiteKernels, GemmMatchesReference) {
  for (int64_t m : {1, 7, 32})
    for (bool bias : {false, true}) {
      Graph g = one_input({m, 33});
      OpAttrs a;
      a.act = bias ? Act::ReLU : Act::None;
      std::vector<int> in{g.inputs[0], add_weight(g, "w", {19, 33}, 3)};
      if (bias) in.push_back(add_weight(g, "b", {19}, 4));
      g.outputs = {add_node(g, "fc", OpType::FullyConnected, a, in)};
      expect_same(g);
    }
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Graph g = one_input(ta ? Dims{12, 5} : Dims{5, 12});
      OpAttrs a;
      a.transpose_a = ta;
      a.transpose_b = tb;
      int w = add_weight(g, "w", tb ? Dims{9, 12} : Dims{12, 9}, 5);
      g.outputs = {add_node(g, "mm", OpType::MatMul, a, {g.inputs[0], w})};
      expect_same(g);
    }
}

TEST(LiteKernels, PoolByHand) {
  // 1x1x3x3 of 1..9, 2x2 windows, stride 2, ceil mode: windows {1,2,4,5}, {3,6}, {7,8}, {9}.
  Graph g = one_input({1, 1, 3, 3});
  OpAttrs a;
  a.kernel[0] = a.kernel[1] = a.stride[0] = a.stride[1] = 2;
  a.ceil_mode = true;
  a.pool = PoolKind::Avg;
  a.count_include_pad = false;
  g.outputs = {add_node(g, "p", OpType::Pool, a, {g.inputs[0]})};
  infer_shapes(g);
  ASSERT_EQ(g.tensors[g.outputs[0]].shape, (Dims{1, 1, 2, 2}));
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, y(4);
  const float* in[] = {x.data()};
  make_kernel(g, g.nodes[0], false)->run(in, y.data());
  EXPECT_EQ(y, (std::vector<float>{3.f, 4.5f, 7.5f, 9.f}));
  g.nodes[0].a.pool = PoolKind::Max;
  make_kernel(g, g.nodes[0], false)->run(in, y.data());
  EXPECT_EQ(y, (std::vector<float>{5.f, 6.f, 8.f, 9.f}));
}

TEST(LiteKernels, BroadcastSoftmaxTransposeByHand) {
  Graph g = one_input({2, 3});
  OpAttrs a;
  a.elt = EltKind::Sub;
  int c = g.add_constant("c", {2, 1}, {1.f, 2.f});
  g.outputs = {add_node(g, "sub", OpType::Eltwise, a, {g.inputs[0], c})};
  infer_shapes(g);
  std::vector<float> x{1, 2, 3, 4, 5, 6}, y(6);
  const float* in[] = {x.data(), g.tensors[c].f32()};
  make_kernel(g, g.nodes[0], false)->run(in, y.data());
  EXPECT_EQ(y, (std::vector<float>{0, 1, 2, 2, 3, 4}));

  Graph t = one_input({2, 3});
  OpAttrs p;
  p.perm = {1, 0};
  t.outputs = {add_node(t, "t", OpType::Transpose, p, {t.inputs[0]})};
  infer_shapes(t);
  make_kernel(t, t.nodes[0], false)->run(in, y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 4, 2, 5, 3, 6}));

  Graph s = one_input({2, 3});
  OpAttrs ax;
  ax.axis = 0;
  s.outputs = {add_node(s, "s", OpType::Softmax, ax, {s.inputs[0]})};
  infer_shapes(s);
  make_kernel(s, s.nodes[0], false)->run(in, y.data());
  const float e = 1.f / (1.f + std::exp(3.f));  // softmax of (a, a + 3) over axis 0
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(y[i], e, 1e-6);
    EXPECT_NEAR(y[i + 3], 1 - e, 1e-6);
  }
}

// x -> conv(ReLU6) -> max pool -> depthwise conv -> Add(pool) -> ReLU -> [Mul by a [16, 1, 1]
// constant] -> conv -> global avg pool -> flatten -> FC: the layouts chosen NHWC between the
// convolutions, NCHW where a node needs it (the flatten; the broadcasting Mul, and through
// the one-layout Act and Add what they touch); the model equals the reference context to
// 1e-4 with the channels-last tensors read and written in place.
void expect_layouts(bool with_mul) {
  Graph g = one_input({2, 3, 16, 16});
  int t =
      add_node(g, "conv1", OpType::Conv2D, window(3, 1, 1, Act::ReLU6),
               {g.inputs[0], add_weight(g, "w1", {16, 3, 3, 3}, 1), add_weight(g, "b1", {16}, 2)});
  const int p = add_node(g, "maxpool", OpType::Pool, window(3, 2, 1), {t});
  OpAttrs dw = window(3, 1, 1);
  dw.group = 16;
  t = add_node(g, "dw", OpType::Conv2D, dw, {p, add_weight(g, "w2", {16, 1, 3, 3}, 3)});
  OpAttrs add;
  add.elt = EltKind::Add;
  t = add_node(g, "add", OpType::Eltwise, add, {t, p});
  OpAttrs relu;
  relu.act = Act::ReLU;
  t = add_node(g, "relu", OpType::Act, relu, {t});
  OpAttrs mul;
  mul.elt = EltKind::Mul;
  const int side =
      with_mul ? add_node(g, "scale", OpType::Eltwise, mul, {t, add_weight(g, "s", {16, 1, 1}, 4)})
               : t;
  t = add_node(g, "conv2", OpType::Conv2D, window(3, 1, 1),
               {side, add_weight(g, "w3", {8, 16, 3, 3}, 5)});
  OpAttrs gap;
  gap.pool = PoolKind::Avg, gap.kernel[0] = gap.kernel[1] = 8, gap.stride[0] = gap.stride[1] = 8;
  t = add_node(g, "gap", OpType::Pool, gap, {t});
  OpAttrs rs;
  rs.shape = {0, -1};
  t = add_node(g, "flat", OpType::Reshape, rs, {t});
  g.outputs = {
      add_node(g, "fc", OpType::FullyConnected, OpAttrs{}, {t, add_weight(g, "fw", {5, 8}, 6)})};
  infer_shapes(g);
  std::vector<float> x = random_values(2 * 3 * 16 * 16, 7);
  Graph chosen;
  const std::vector<float> fast = run_model(g, x, false, &chosen), ref = run_model(g, x, true);
  for (const NodeDesc& n : chosen.nodes) {
    const bool nhwc =
        n.name == "conv1" || n.name == "conv2" ||
        (!with_mul && n.name != "scale" && n.name != "gap" && n.name != "flat" && n.name != "fc");
    EXPECT_EQ(chosen.tensors[n.outputs[0]].layout, nhwc ? Layout::Nhwc : Layout::Nchw) << n.name;
  }
  ASSERT_EQ(fast.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(fast[i], ref[i], 1e-4f * (1.f + std::fabs(ref[i]))) << i;
}

TEST(LiteLayout, ChannelsLastBetweenConvolutionsEqualsReference) {
  expect_layouts(false);
  expect_layouts(true);
}

TEST(LiteArena, LiveTensorsNeverOverlapAndDeadOnesAreReused) {
  Graph g = testing::small_convnet(4);
  ArenaPlan plan = plan_arena(g);
  size_t total = 0;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].constant) {
      EXPECT_EQ(plan.offset[t], -1);
      continue;
    }
    EXPECT_EQ(plan.offset[t] % 64, 0);
    total += g.tensors[t].nbytes();
  }
  EXPECT_LT(plan.bytes, total);           // the chain reuses memory
  expect_live_tensors_disjoint(g, plan);  // tensors alive at one node
}

}  // namespace
}  // namespace mycel::lite
