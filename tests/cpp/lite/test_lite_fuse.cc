// Residual Adds folded into their convolutions (lite/fuse.h) and the Winograd convolutions
// (kernels_dnnl.cc): which Adds fold, where the folded convolution writes (in the buffer of
// the Add's other input when it reads it last), and outputs equal to the reference context,
// which folds nothing and runs naive loops.
#include <gtest/gtest.h>

#include <cmath>

#include "lite/arena.h"
#include "lite/fuse.h"
#include "lite/kernels.h"
#include "lite/layout.h"
#include "lite_test_models.h"

namespace mycel::lite {
namespace {

using namespace testing;  // lite's (lite_test_models.h)

OpAttrs add_attrs(Act act = Act::None) {
  OpAttrs a;
  a.elt = EltKind::Add;
  a.act = act;
  return a;
}

int conv(Graph& g, const std::string& name, int x, int64_t cin, int64_t cout, int64_t k,
         Act act = Act::None, bool bias = true, int64_t stride = 1) {
  std::vector<int> in{x, add_weight(g, name + ".w", {cout, cin, k, k}, 11 + g.tensors.size())};
  if (bias) in.push_back(add_weight(g, name + ".b", {cout}, 12 + g.tensors.size()));
  return add_node(g, name, OpType::Conv2D, window(k, stride, k / 2, act), in);
}

// x [1, 16, H, H]:
//   a  = conv3x3(x) ReLU
//   z1 = ReLU(conv3x3(conv3x3(a) ReLU, no bias) + a)   a read last there: z1 in a's buffer
//   z2 = z1 + conv3x3(z1)               the convolution on the Add's right
//   z3 = conv1x1(z2) + z2               z2 read again by add5: copied, not aliased
//   z5 = z3 + z2                        no convolution input: stays
//   z4 = ReLU(conv3x3 s2(z3) + conv1x1 s2(z3))   two convolutions: the later one takes it
//   z7 = ReLU(conv3x3(z4) + z4)         z4 is the convolution's x too: not aliased
//   f = conv3x3(z5), z6 = f + z5        f is a graph output too: not folded
// Outputs: z7, z6, f. With `pooled`, f is no output and the outputs are global max pools of
// z7 and z6, so the activations can lie NHWC in the arena (graph outputs are NCHW, and an
// Add's tensors share one layout) and z6 folds too.
Graph residual_net(int64_t H, bool pooled = false) {
  Graph g = one_input({1, 16, H, H});
  const int a = conv(g, "a", g.inputs[0], 16, 16, 3, Act::ReLU);
  const int a2 = conv(g, "a2", a, 16, 16, 3, Act::ReLU);
  const int b = conv(g, "b", a2, 16, 16, 3, Act::None, false);
  const int z1 = add_node(g, "add1", OpType::Eltwise, add_attrs(Act::ReLU), {b, a});
  const int c = conv(g, "c", z1, 16, 16, 3);
  const int z2 = add_node(g, "add2", OpType::Eltwise, add_attrs(), {z1, c});
  const int d1 = conv(g, "d", z2, 16, 16, 1);
  const int z3 = add_node(g, "add3", OpType::Eltwise, add_attrs(), {d1, z2});
  const int z5 = add_node(g, "add5", OpType::Eltwise, add_attrs(), {z3, z2});
  const int ds = conv(g, "ds", z3, 16, 32, 1, Act::None, true, 2);
  const int e = conv(g, "e", z3, 16, 32, 3, Act::None, true, 2);
  const int z4 = add_node(g, "add4", OpType::Eltwise, add_attrs(Act::ReLU), {e, ds});
  const int h = conv(g, "h", z4, 32, 32, 3);
  const int z7 = add_node(g, "add7", OpType::Eltwise, add_attrs(Act::ReLU), {h, z4});
  const int f = conv(g, "f", z5, 16, 16, 3);
  const int z6 = add_node(g, "add6", OpType::Eltwise, add_attrs(), {f, z5});
  g.outputs = {z7, z6, f};
  if (pooled) {
    OpAttrs gmp = window(H / 2, H / 2, 0);
    g.outputs = {add_node(g, "p7", OpType::Pool, gmp, {z7}),
                 add_node(g, "p6", OpType::Pool, window(H, H, 0), {z6})};
  }
  infer_shapes(g);
  return g;
}

const NodeDesc* find(const Graph& g, const std::string& name) {
  for (const NodeDesc& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(LiteFuse, ResidualAddsFoldWhereTheyMay) {
  Graph g = residual_net(12);
  fold_residual_adds(g);
  for (const char* name : {"b+add1", "c+add2", "d+add3", "e+add4", "h+add7"}) {
    const NodeDesc* n = find(g, name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_TRUE(n->a.sum) << name;
  }
  EXPECT_EQ(find(g, "b+add1")->a.act, Act::ReLU);
  EXPECT_EQ(find(g, "b+add1")->inputs.size(), 3u);  // x, w, the added input (no bias)
  EXPECT_EQ(find(g, "c+add2")->inputs.size(), 4u);
  EXPECT_NE(find(g, "add5"), nullptr);  // no convolution input
  EXPECT_NE(find(g, "add6"), nullptr);  // f is a graph output too
  EXPECT_NE(find(g, "ds"), nullptr);    // the earlier of two convolutions stays
  EXPECT_EQ(g.nodes.size(), residual_net(12).nodes.size() - 5);
  // Aliasing: z1 takes a's buffer (a's last reader is the folded b); z3 does not take z2's
  // (add5 reads z2 later), nor z7 z4's (h reads it as its x).
  choose_layouts(g);
  const ArenaPlan plan = plan_arena(g);
  const NodeDesc& b = *find(g, "b+add1");
  const NodeDesc& d = *find(g, "d+add3");
  EXPECT_EQ(plan.offset[b.outputs[0]], plan.offset[b.inputs.back()]);
  EXPECT_NE(plan.offset[d.outputs[0]], plan.offset[d.inputs.back()]);
  const NodeDesc& h = *find(g, "h+add7");
  EXPECT_NE(plan.offset[h.outputs[0]], plan.offset[h.inputs.back()]);
  expect_live_tensors_disjoint(g, plan);
}

// Every output of the net against the reference, for H = 12 (direct convolutions) and 28 (the
// 3x3 stride-1 ones Winograd), NCHW in the arena (the Winograd y reordered around it, the
// added input reordered into it first) or (pooled) channels-last (nChw16c where Winograd runs,
// no reorder), in float32 and bf16 (looser; no Winograd).
TEST(LiteFuse, FoldedAndWinogradConvolutionsEqualTheReference) {
  for (int64_t H : {12, 28})
    for (bool pooled : {false, true})
      for (bool bf16 : {false, true}) {
        Graph g = residual_net(H, pooled);
        const std::vector<float> x = random_values(static_cast<size_t>(16 * H * H), 3);
        Context fast, ref;
        ref.reference = true;
        if (bf16) fast.precision = Precision::BFloat16;
        Graph ran;
        const auto got = run_model_outputs(g, x, fast, &ran), want = run_model_outputs(g, x, ref);
        ASSERT_NE(find(ran, "b+add1"), nullptr);
        // pooled: channels-last (nChw16c where Winograd runs: at 28 in float32), so the added
        // input is used in place (b) or copied (d), not reordered.
        const Layout want_layout = !pooled            ? Layout::Nchw
                                   : H == 28 && !bf16 ? Layout::Blocked16
                                                      : Layout::Nhwc;
        EXPECT_EQ(ran.tensors[find(ran, "d+add3")->outputs[0]].layout, want_layout);
        EXPECT_EQ(find(ran, "f+add6") != nullptr, pooled);
        ASSERT_EQ(got.size(), want.size());
        const float tol = bf16 ? 3e-2f : 1e-4f;
        for (size_t o = 0; o < got.size(); ++o) {
          float scale = 0;
          for (float v : want[o]) scale = std::max(scale, std::fabs(v));
          ASSERT_EQ(got[o].size(), want[o].size());
          for (size_t i = 0; i < got[o].size(); ++i)
            ASSERT_NEAR(got[o][i], want[o][i], tol * scale)
                << "H " << H << " pooled " << pooled << " bf16 " << bf16 << " output " << o
                << " at " << i;
        }
      }
}

// x [1, C, 30, 30] -> conv3x3 ReLU -> max pool 3x3 s1 -> conv3x3 + (the pool) ReLU -> avg pool
// 2x2 s2 -> conv3x3 -> global avg pool: with C = 16 the 30x30 convolutions are Winograd and
// the activations from c1 to the avg pool's output are nChw16c (the pools read and write it,
// the 15x15 direct convolution reads it and writes NHWC, no Winograd convolution touching its
// output); with C = 24 (not a multiple of 16) all NHWC.
// Both equal the reference.
TEST(LiteFuse, BlockedLayoutsAroundWinogradConvolutions) {
  for (int64_t C : {16, 24}) {
    Graph g = one_input({1, C, 30, 30});
    int t = conv(g, "c1", g.inputs[0], C, C, 3, Act::ReLU);
    const int p = add_node(g, "maxpool", OpType::Pool, window(3, 1, 1), {t});
    t = conv(g, "c2", p, C, C, 3);
    t = add_node(g, "add", OpType::Eltwise, add_attrs(Act::ReLU), {t, p});
    OpAttrs avg = window(2, 2, 0);
    avg.pool = PoolKind::Avg;
    t = add_node(g, "avgpool", OpType::Pool, avg, {t});
    t = conv(g, "c3", t, C, C, 3);
    OpAttrs gap = window(15, 15, 0);
    gap.pool = PoolKind::Avg;
    g.outputs = {add_node(g, "gap", OpType::Pool, gap, {t})};
    infer_shapes(g);
    const std::vector<float> x = random_values(static_cast<size_t>(C * 30 * 30), 4);
    Graph ran;
    const std::vector<float> fast = run_model(g, x, false, &ran), ref = run_model(g, x, true);
    const Layout want = C == 16 ? Layout::Blocked16 : Layout::Nhwc;
    for (const char* name : {"c1", "maxpool", "c2+add", "avgpool"})
      EXPECT_EQ(ran.tensors[find(ran, name)->outputs[0]].layout, want) << C << " " << name;
    EXPECT_EQ(ran.tensors[find(ran, "c3")->outputs[0]].layout, Layout::Nhwc);
    EXPECT_EQ(ran.tensors[find(ran, "gap")->outputs[0]].layout, Layout::Nchw);
    ASSERT_EQ(fast.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
      ASSERT_NEAR(fast[i], ref[i], 1e-4f * (1.f + std::fabs(ref[i]))) << C << " " << i;
  }
}

// Winograd convolutions alone (kernels_dnnl.cc: 3x3, stride 1, >= 784 output pixels) against
// the naive reference: pads, bias, activations, odd sizes, batch 2, a channel count not a
// multiple of 16.
TEST(LiteFuse, WinogradConvolutionsEqualTheReference) {
  struct Case {
    int64_t n, c, o, h, pad;
    Act act;
    bool bias;
  };
  for (const Case& k :
       {Case{1, 16, 32, 28, 1, Act::ReLU, true}, Case{2, 8, 16, 21, 1, Act::None, false},
        Case{1, 24, 40, 31, 0, Act::ReLU6, true}, Case{1, 3, 5, 30, 1, Act::Tanh, true}}) {
    Graph g = one_input({k.n, k.c, k.h, k.h});
    std::vector<int> in{g.inputs[0], add_weight(g, "w", {k.o, k.c, 3, 3}, 5)};
    if (k.bias) in.push_back(add_weight(g, "b", {k.o}, 6));
    g.outputs = {add_node(g, "conv", OpType::Conv2D, window(3, 1, k.pad, k.act), in)};
    infer_shapes(g);
    const std::vector<float> x = random_values(static_cast<size_t>(k.n * k.c * k.h * k.h), 7);
    const std::vector<float> fast = run_model(g, x, false), ref = run_model(g, x, true);
    ASSERT_EQ(fast.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
      ASSERT_NEAR(fast[i], ref[i], 1e-4f * (1.f + std::fabs(ref[i])))
          << k.c << "x" << k.h << " " << i;
  }
}

}  // namespace
}  // namespace mycel::lite
