// On-device training's gradient kernels (lite/grad_kernels.h) against central finite
// differences of the forward reference kernels, for every op, its attributes (strides, pads,
// dilation, groups, broadcasting, transposes) and fused activations; and one training step of
// lite::TrainModel against the softmax cross-entropy gradient worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "base/error.h"
#include "lite/grad_kernels.h"
#include "lite/kernels.h"
#include "lite/model_file.h"
#include "lite/train.h"
#include "lite_test_models.h"

namespace mycel::lite {
namespace {

using testing::random_values;

struct GradCase {
  Graph g;
  std::vector<std::vector<float>> x;  // one per node input
};

// A graph of one node `op` whose inputs are graph inputs of `shapes`, filled with random values.
GradCase one_node(OpType op, OpAttrs a, const std::vector<Dims>& shapes, uint32_t seed = 1) {
  GradCase c;
  std::vector<int> in;
  for (size_t i = 0; i < shapes.size(); ++i) {
    TensorDesc t;
    t.name = "in" + std::to_string(i);
    t.shape = shapes[i];
    in.push_back(c.g.add_tensor(t));
    c.x.push_back(random_values(static_cast<size_t>(numel(shapes[i])), seed + uint32_t(i)));
  }
  c.g.inputs = in;
  c.g.outputs = {testing::add_node(c.g, "y", op, a, in)};
  infer_shapes(c.g);
  return c;
}

std::vector<float> run_forward(const GradCase& c) {
  const NodeDesc& n = c.g.nodes[0];
  const bool gemm =
      n.op == OpType::Conv2D || n.op == OpType::FullyConnected || n.op == OpType::MatMul;
  auto k = gemm ? make_ref_kernel(c.g, n) : make_kernel(c.g, n, true);
  std::vector<const float*> in;
  for (const auto& v : c.x) in.push_back(v.data());
  std::vector<float> y(static_cast<size_t>(numel(c.g.tensors[n.outputs[0]].shape)));
  k->run(in.data(), y.data());
  return y;
}

// L = sum(r * y): backward's gradient with dy = r against (L(x + eps) - L(x - eps)) / 2 eps,
// for every element of the inputs below `grad_inputs`.
void check_grad(GradCase c, float eps = 1e-2f, size_t grad_inputs = 99) {
  const NodeDesc& n = c.g.nodes[0];
  std::vector<float> y = run_forward(c);
  const std::vector<float> r = random_values(y.size(), 77);
  std::vector<std::vector<float>> dx(c.x.size());
  std::vector<float*> dxp;
  std::vector<const float*> xp;
  std::vector<Dims> shapes;
  for (size_t i = 0; i < c.x.size(); ++i) {
    dx[i].assign(c.x[i].size(), 0.f);
    dxp.push_back(i < grad_inputs ? dx[i].data() : nullptr);
    xp.push_back(c.x[i].data());
    shapes.push_back(c.g.tensors[n.inputs[i]].shape);
  }
  backward(n, shapes, c.g.tensors[n.outputs[0]].shape, xp.data(), y.data(), r.data(), dxp.data());
  auto loss = [&] {
    std::vector<float> out = run_forward(c);
    double l = 0;
    for (size_t i = 0; i < out.size(); ++i) l += double(r[i]) * out[i];
    return l;
  };
  for (size_t i = 0; i < c.x.size() && i < grad_inputs; ++i)
    for (size_t j = 0; j < c.x[i].size(); ++j) {
      const float keep = c.x[i][j];
      c.x[i][j] = keep + eps;
      const double up = loss();
      c.x[i][j] = keep - eps;
      const double down = loss();
      c.x[i][j] = keep;
      const double want = (up - down) / (2.0 * eps);
      ASSERT_NEAR(dx[i][j], want, 2e-3 + 2e-2 * std::fabs(want))
          << op_type_name(n.op) << ": input " << i << " element " << j;
    }
}

TEST(LiteGrad, Conv2D) {
  OpAttrs a;
  a.stride[0] = 2, a.dilation[1] = 2, a.group = 2, a.act = Act::Tanh;
  a.pad[0] = 1, a.pad[1] = 0, a.pad[2] = 2, a.pad[3] = 1;
  check_grad(one_node(OpType::Conv2D, a, {{2, 4, 7, 6}, {6, 2, 3, 3}, {6}}));
  OpAttrs same;
  same.pad_same = true, same.stride[1] = 2;
  check_grad(one_node(OpType::Conv2D, same, {{1, 3, 5, 6}, {2, 3, 3, 2}}));
}

TEST(LiteGrad, FullyConnectedAndMatMul) {
  OpAttrs fc;
  fc.act = Act::Sigmoid;
  check_grad(one_node(OpType::FullyConnected, fc, {{3, 5}, {4, 5}, {4}}));
  for (int t = 0; t < 4; ++t) {
    OpAttrs mm;
    mm.transpose_a = t & 1, mm.transpose_b = t & 2;
    Dims A = mm.transpose_a ? Dims{5, 3} : Dims{3, 5}, B = mm.transpose_b ? Dims{4, 5} : Dims{5, 4};
    check_grad(one_node(OpType::MatMul, mm, {A, B}));
  }
}

TEST(LiteGrad, Pool) {
  // Max pooling: distinct values 0.01 apart, so no perturbation changes a window's maximum.
  for (bool ceil : {false, true}) {
    OpAttrs a;
    a.pool = PoolKind::Max, a.kernel[0] = a.kernel[1] = 3, a.stride[0] = a.stride[1] = 2;
    a.pad[0] = a.pad[2] = 1, a.ceil_mode = ceil;
    GradCase c = one_node(OpType::Pool, a, {{2, 3, 6, 5}});
    for (size_t i = 0; i < c.x[0].size(); ++i)
      c.x[0][i] = 0.01f * static_cast<float>((i * 37) % c.x[0].size());
    check_grad(c, 1e-3f);
  }
  for (bool count_pad : {false, true}) {
    OpAttrs a;
    a.pool = PoolKind::Avg, a.kernel[0] = 2, a.kernel[1] = 3, a.stride[0] = a.stride[1] = 2;
    a.pad[0] = a.pad[1] = a.pad[2] = a.pad[3] = 1, a.count_include_pad = count_pad;
    check_grad(one_node(OpType::Pool, a, {{2, 2, 5, 6}}));
  }
}

TEST(LiteGrad, EltwiseWithBroadcasting) {
  const EltKind kinds[] = {EltKind::Add, EltKind::Sub, EltKind::Mul, EltKind::Div};
  for (EltKind k : kinds) {
    OpAttrs a;
    a.elt = k, a.act = k == EltKind::Div ? Act::Tanh : Act::None;
    GradCase c = one_node(OpType::Eltwise, a, {{2, 3, 4}, {3, 1}});
    for (float& v : c.x[1]) v = 1.f + 0.5f * v;  // divisors in [0.5, 1.5]
    check_grad(c);
    check_grad(one_node(OpType::Eltwise, a, {{2, 1, 4}, {3, 4}}));
  }
}

TEST(LiteGrad, Activations) {
  const Act acts[] = {Act::ReLU, Act::ReLU6, Act::Sigmoid, Act::Tanh};
  for (Act act : acts) {
    OpAttrs a;
    a.act = act;
    GradCase c = one_node(OpType::Act, a, {{3, 7}});
    // Away from the kinks at 0 and 6: values in +-[0.1, 8].
    for (float& v : c.x[0]) v = (v < 0 ? -0.1f : 0.1f) + 7.9f * v;
    check_grad(c);
  }
}

TEST(LiteGrad, ReshapeTransposeSoftmax) {
  OpAttrs rs;
  rs.shape = {6, -1};
  check_grad(one_node(OpType::Reshape, rs, {{2, 3, 4}}));
  OpAttrs tr;
  tr.perm = {2, 0, 1};
  check_grad(one_node(OpType::Transpose, tr, {{2, 3, 4}}));
  OpAttrs sm;
  sm.axis = 1;
  check_grad(one_node(OpType::Softmax, sm, {{2, 5, 3}}));
  sm.axis = -1;
  check_grad(one_node(OpType::Softmax, sm, {{4, 6}}));
}

TEST(LiteGrad, BiasAddAndBatchNorm) {
  check_grad(one_node(OpType::BiasAdd, OpAttrs{}, {{2, 3, 4, 2}, {3}}));
  check_grad(one_node(OpType::BiasAdd, OpAttrs{}, {{5, 3}, {3}}));
  GradCase bn = one_node(OpType::BatchNorm, OpAttrs{}, {{2, 3, 4}, {3}, {3}, {3}, {3}});
  for (float& v : bn.x[4]) v = v * v + 0.5f;  // variances
  check_grad(bn, 1e-2f, 3);                   // x, scale, bias (the statistics are not trained)
}

// One SGD step of a FullyConnected classifier: dW = (softmax(z) - onehot(y))^T x / B.
TEST(LiteGrad, TrainStepMatchesTheHandWorkedGradient) {
  Graph g;
  TensorDesc x;
  x.name = "x";
  x.shape = {4, 3};
  g.inputs = {g.add_tensor(x)};
  const int w = testing::add_weight(g, "w", {5, 3}, 3), b = testing::add_weight(g, "b", {5}, 4);
  g.tensors[w].trainable = g.tensors[b].trainable = true;
  g.outputs = {testing::add_node(g, "z", OpType::FullyConnected, OpAttrs{}, {0, w, b})};
  g.loss = Loss::SoftmaxCrossEntropy;
  infer_shapes(g);
  const std::string path = ::testing::TempDir() + "/lite_train_fc.ms";
  {
    const std::string bytes = write_model(g, "test");
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  }
  TrainCfg cfg;
  cfg.learning_rate = 0.5f;
  TrainModel model;
  model.Build(path, {}, cfg);
  std::vector<Tensor> in = model.GetInputs();
  const std::vector<float> xv = random_values(12, 5);
  std::memcpy(in[0].MutableData(), xv.data(), 12 * sizeof(float));
  Tensor labels("y", DType::Int32, {4});
  const int32_t ys[] = {0, 4, 2, 4};
  std::memcpy(labels.MutableData(), ys, sizeof ys);

  const float* w0 = g.tensors[w].f32();
  const float* b0 = g.tensors[b].f32();
  std::vector<double> dw(15, 0.0), db(5, 0.0);
  double want_loss = 0;
  for (int s = 0; s < 4; ++s) {
    double z[5], sum = 0;
    for (int o = 0; o < 5; ++o) {
      z[o] = b0[o];
      for (int k = 0; k < 3; ++k) z[o] += double(w0[o * 3 + k]) * xv[s * 3 + k];
      sum += std::exp(z[o]);
    }
    want_loss += (std::log(sum) - z[ys[s]]) / 4;
    for (int o = 0; o < 5; ++o) {
      const double d = (std::exp(z[o]) / sum - (o == ys[s])) / 4;
      db[o] += d;
      for (int k = 0; k < 3; ++k) dw[o * 3 + k] += d * xv[s * 3 + k];
    }
  }
  EXPECT_NEAR(model.TrainStep(in, labels), want_loss, 1e-5);
  const Graph& after = model.graph();
  for (int i = 0; i < 15; ++i)
    EXPECT_NEAR(after.tensors[w].f32()[i], w0[i] - 0.5 * dw[i], 1e-5) << "w " << i;
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(after.tensors[b].f32()[i], b0[i] - 0.5 * db[i], 1e-5) << "b " << i;
  EXPECT_EQ(model.Steps(), 1);

  auto value_error = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind() == ErrorKind::Value ? std::string(e.what()) : std::string();
    }
    return std::string();
  };
  static_cast<int32_t*>(labels.MutableData())[2] = 5;
  EXPECT_NE(value_error([&] { model.TrainStep(in, labels); }).find("outside [0, 5)"),
            std::string::npos);
  cfg.optimizer = "Lion";
  EXPECT_NE(value_error([&] { model.Build(path, {}, cfg); }).find("SGD, Momentum or Adam"),
            std::string::npos);
  cfg.optimizer = "Adam", cfg.trainable = {"x"};
  EXPECT_NE(value_error([&] { model.Build(path, {}, cfg); }).find("not a trainable weight"),
            std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mycel::lite
