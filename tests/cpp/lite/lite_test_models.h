// Small lite graphs built directly (no converter) for the runtime's tests.
#pragma once

#include <random>

#include "lite/graph.h"

namespace mycel::lite::testing {

inline std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

// Appends node `op` reading `in`, writing a new tensor named `name`; returns that tensor.
inline int add_node(Graph& g, const std::string& name, OpType op, OpAttrs a, std::vector<int> in) {
  TensorDesc t;
  t.name = name;
  int out = g.add_tensor(t);
  g.nodes.push_back(NodeDesc{name, op, std::move(a), std::move(in), {out}});
  return out;
}

inline int add_weight(Graph& g, const std::string& name, Dims shape, uint32_t seed) {
  size_t n = static_cast<size_t>(numel(shape));
  return g.add_constant(name, shape, random_values(n, seed));
}

// A graph with one input "x" of `shape` and nothing else yet.
inline Graph one_input(Dims shape) {
  Graph g;
  TensorDesc x;
  x.name = "x";
  x.shape = std::move(shape);
  g.inputs = {g.add_tensor(x)};
  return g;
}

// x [N, 3, 9, 9] -> Conv(4, 3x3, pad 1, bias, ReLU) -> BatchNorm -> MaxPool 2x2 (ceil) ->
// Transpose twice (cancelling) -> Reshape [0, -1] -> FullyConnected(5) -> Add -> Softmax.
inline Graph small_convnet(int64_t batch = 2) {
  Graph g;
  g.name = "small";
  TensorDesc x;
  x.name = "x";
  x.shape = {batch, 3, 9, 9};
  int t = g.add_tensor(x);
  g.inputs = {t};
  OpAttrs conv;
  conv.pad[0] = conv.pad[1] = conv.pad[2] = conv.pad[3] = 1;
  conv.act = Act::ReLU;
  t = add_node(g, "conv", OpType::Conv2D, conv,
               {t, add_weight(g, "w", {4, 3, 3, 3}, 1), add_weight(g, "b", {4}, 2)});
  std::vector<float> var = random_values(4, 3);
  for (float& v : var) v = v * v + 0.5f;
  int vt = g.add_constant("var", {4}, var);
  t = add_node(g, "bn", OpType::BatchNorm, OpAttrs{},
               {t, add_weight(g, "gamma", {4}, 4), add_weight(g, "beta", {4}, 5),
                add_weight(g, "mean", {4}, 6), vt});
  OpAttrs pool;
  pool.kernel[0] = pool.kernel[1] = 2;
  pool.stride[0] = pool.stride[1] = 2;
  pool.ceil_mode = true;
  t = add_node(g, "pool", OpType::Pool, pool, {t});  // [N, 4, 5, 5]
  OpAttrs tr;
  tr.perm = {0, 2, 3, 1};
  t = add_node(g, "nhwc", OpType::Transpose, tr, {t});
  tr.perm = {0, 3, 1, 2};
  t = add_node(g, "nchw", OpType::Transpose, tr, {t});
  OpAttrs rs;
  rs.shape = {0, -1};
  t = add_node(g, "flat", OpType::Reshape, rs, {t});
  t = add_node(g, "fc", OpType::FullyConnected, OpAttrs{}, {t, add_weight(g, "fw", {5, 100}, 7)});
  OpAttrs add;
  add.elt = EltKind::Add;
  t = add_node(g, "add", OpType::Eltwise, add, {t, add_weight(g, "fb", {5}, 8)});
  t = add_node(g, "prob", OpType::Softmax, OpAttrs{}, {t});
  g.outputs = {t};
  infer_shapes(g);
  return g;
}

}  // namespace mycel::lite::testing
