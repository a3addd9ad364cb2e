// Rewrite: none of the ops; shapes are inferred again (lite::infer_shapes, the same rules the
// runtime checks a file with), nodes whose output no live node or graph output reads are
// dropped, and the tensor table keeps only the tensors still named, renumbered in order.
#include "converter/passes/passes.h"

namespace mycel::converter::passes {

void infer_and_prune(lite::Graph& g) {
  lite::infer_shapes(g);
  std::vector<char> live(g.tensors.size(), 0), dead(g.nodes.size(), 0);
  for (int t : g.outputs) live[t] = 1;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    if (!live[g.nodes[i].outputs[0]]) {
      dead[i] = 1;
      continue;
    }
    for (int t : g.nodes[i].inputs) live[t] = 1;
  }
  remove_nodes(g, dead);
  for (int t : g.inputs) live[t] = 1;
  std::vector<int> remap(g.tensors.size(), -1);
  std::vector<lite::TensorDesc> kept;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (!live[t]) continue;
    remap[t] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.tensors[t]));
  }
  g.tensors = std::move(kept);
  auto fix = [&](std::vector<int>& v) {
    for (int& t : v) t = remap[t];
  };
  for (lite::NodeDesc& n : g.nodes) fix(n.inputs), fix(n.outputs);
  fix(g.inputs);
  fix(g.outputs);
}

}  // namespace mycel::converter::passes
