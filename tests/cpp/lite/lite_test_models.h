// Small lite graphs built directly (no converter) for the runtime's tests, and what those
// tests share: running a graph through a written file, expecting a validation error.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "base/error.h"
#include "lite/arena.h"
#include "lite/graph.h"
#include "lite/model.h"
#include "lite/model_file.h"

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

// Attributes of a k x k window (Pool; a Conv2D's comes from its weight) with stride s, pad p
// on every side and a fused activation.
inline OpAttrs window(int64_t k, int64_t s, int64_t p, Act act = Act::None) {
  OpAttrs a;
  a.kernel[0] = a.kernel[1] = k;
  a.stride[0] = a.stride[1] = s;
  a.pad[0] = a.pad[1] = a.pad[2] = a.pad[3] = p;
  a.act = act;
  return a;
}

// Writes g as a file, builds it with `ctx`, runs it on x (its one input) and returns every
// output; `ran` gets the graph as the model runs it (exec_graph: shapes, layouts, folded
// residual Adds).
inline std::vector<std::vector<float>> run_model_outputs(const Graph& g,
                                                         const std::vector<float>& x,
                                                         const Context& ctx, Graph* ran = nullptr) {
  const std::string bytes = write_model(g, "test");
  Model m;
  m.Build(bytes.data(), bytes.size(), ctx);
  if (ran) *ran = m.exec_graph();
  std::vector<Tensor> in = m.GetInputs(), out;
  std::memcpy(in[0].MutableData(), x.data(), in[0].DataSize());
  m.Predict(in, &out);
  std::vector<std::vector<float>> r;
  for (const Tensor& t : out) {
    const float* p = static_cast<const float*>(t.Data());
    r.emplace_back(p, p + t.ElementNum());
  }
  return r;
}

// Output 0 of g on x, by the reference kernels or the optimised ones.
inline std::vector<float> run_model(const Graph& g, const std::vector<float>& x, bool reference,
                                    Graph* loaded = nullptr) {
  Context ctx;
  ctx.reference = reference;
  return run_model_outputs(g, x, ctx, loaded)[0];
}

// The tensors alive at each node of g (its inputs and output) have disjoint ranges in `plan`,
// but for a folded Add's input and output (lite/fuse.h), which may share one.
inline void expect_live_tensors_disjoint(const Graph& g, const ArenaPlan& plan) {
  for (const NodeDesc& n : g.nodes) {
    std::vector<int> live = n.inputs;
    live.push_back(n.outputs[0]);
    for (int p : live)
      for (int q : live) {
        if (p == q || g.tensors[p].constant || g.tensors[q].constant) continue;
        if (n.a.sum && (p == n.outputs[0] || q == n.outputs[0]) &&
            (p == n.inputs.back() || q == n.inputs.back()))
          continue;
        const int64_t p0 = plan.offset[p], p1 = p0 + static_cast<int64_t>(g.tensors[p].nbytes());
        const int64_t q0 = plan.offset[q], q1 = q0 + static_cast<int64_t>(g.tensors[q].nbytes());
        EXPECT_TRUE(p1 <= q0 || q1 <= p0)
            << n.name << ": " << g.tensors[p].name << " / " << g.tensors[q].name;
      }
  }
}

// lite::validate rejects g with a message containing `what`.
inline void expect_invalid(const Graph& g, const std::string& what) {
  try {
    validate(g, "m.ms");
    ADD_FAILURE() << "no error for " << what;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

}  // namespace mycel::lite::testing
