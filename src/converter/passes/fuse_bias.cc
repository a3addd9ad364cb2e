// Rewrite: MatMul(x, W) with W a constant matrix and x not transposed becomes
// FullyConnected(x, W') with W' = W when transpose_b, else W transposed once, here. Then
// BiasAdd(Conv2D/FullyConnected(...), b) with b constant, the producer's output read by the
// BiasAdd alone and no activation fused yet, becomes the producer with bias b (added to a bias
// it has); so does Add(FullyConnected(...), b) for a constant b of shape [N].
#include "converter/passes/passes.h"

namespace mycel::converter::passes {

namespace {

void matmul_to_fc(lite::Graph& g) {
  for (lite::NodeDesc& n : g.nodes) {
    if (n.op != lite::OpType::MatMul || n.a.transpose_a) continue;
    const lite::TensorDesc& w = g.tensors[n.inputs[1]];
    if (!w.constant || w.shape.size() != 2 || g.tensors[n.inputs[0]].shape.size() != 2) continue;
    if (!n.a.transpose_b) {
      const int64_t K = w.shape[0], N = w.shape[1];
      std::vector<float> v = values(g, n.inputs[1]), t(v.size());
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j) t[j * K + k] = v[k * N + j];
      n.inputs[1] = g.add_constant(w.name + "/transposed", {N, K}, std::move(t));
    }
    n.op = lite::OpType::FullyConnected;
    n.a = lite::OpAttrs{};
  }
}

}  // namespace

void fuse_bias(lite::Graph& g) {
  matmul_to_fc(g);
  std::vector<int> producer = producers(g);
  std::vector<char> dead(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const lite::NodeDesc& n = g.nodes[i];
    const bool bias_add = n.op == lite::OpType::BiasAdd;
    const bool add = n.op == lite::OpType::Eltwise && n.a.elt == lite::EltKind::Add &&
                     n.a.act == lite::Act::None;
    if (!bias_add && !add) continue;
    const int x = n.inputs[0], b = n.inputs[1], p = producer[x];
    if (p < 0 || !g.tensors[b].constant || sole_reader(g, x) != static_cast<int>(i)) continue;
    lite::NodeDesc& prod = g.nodes[p];
    const bool conv = prod.op == lite::OpType::Conv2D, fc = prod.op == lite::OpType::FullyConnected;
    if (!(conv && bias_add) && !fc) continue;
    if (prod.a.act != lite::Act::None) continue;
    const int64_t channels = g.tensors[prod.inputs[1]].shape[0];
    if (g.tensors[b].shape != lite::Dims{channels}) continue;
    std::vector<float> bias = values(g, b);
    if (prod.inputs.size() == 3) {
      if (!g.tensors[prod.inputs[2]].constant) continue;
      std::vector<float> old = values(g, prod.inputs[2]);
      for (size_t c = 0; c < bias.size(); ++c) bias[c] += old[c];
    }
    const int nb = g.add_constant(g.tensors[b].name + "/fused", {channels}, std::move(bias));
    prod.inputs.resize(3);
    prod.inputs[2] = nb;
    absorb(g, p, static_cast<int>(i), producer, dead);
  }
  remove_nodes(g, dead);
}

}  // namespace mycel::converter::passes
