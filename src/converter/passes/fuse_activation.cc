// Rewrite: y = Act(z) with z = Conv2D / FullyConnected / Eltwise(...) that has no activation
// yet and whose output the Act alone reads becomes that node with the activation fused
// (oneDNN post-op for convolutions, the epilogue of the others).
#include "converter/passes/passes.h"

namespace mycel::converter::passes {

void fuse_activation(lite::Graph& g) {
  std::vector<int> producer = producers(g);
  std::vector<char> dead(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const lite::NodeDesc& n = g.nodes[i];
    if (n.op != lite::OpType::Act) continue;
    const int x = n.inputs[0], p = producer[x];
    if (p < 0 || sole_reader(g, x) != static_cast<int>(i)) continue;
    lite::NodeDesc& prod = g.nodes[p];
    if (prod.op != lite::OpType::Conv2D && prod.op != lite::OpType::FullyConnected &&
        prod.op != lite::OpType::Eltwise)
      continue;
    if (prod.a.act != lite::Act::None) continue;
    prod.a.act = n.a.act;
    absorb(g, p, static_cast<int>(i), producer, dead);
  }
  remove_nodes(g, dead);
}

}  // namespace mycel::converter::passes
