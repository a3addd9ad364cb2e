// Rewrite: Transpose(Transpose(x, p), q), the inner read by the outer alone, becomes
// Transpose(x, r) with r[i] = p[q[i]]; a Transpose whose permutation is the identity (and
// whose output is not a graph output) is removed, its readers reading its input.
#include <algorithm>

#include "converter/passes/passes.h"

namespace mycel::converter::passes {

namespace {
bool identity(const lite::Dims& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}
}  // namespace

void eliminate_transposes(lite::Graph& g) {
  std::vector<int> producer = producers(g);
  std::vector<char> dead(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    lite::NodeDesc& n = g.nodes[i];
    if (n.op != lite::OpType::Transpose) continue;
    const int x = n.inputs[0], p = producer[x];
    if (p >= 0 && !dead[p] && g.nodes[p].op == lite::OpType::Transpose &&
        sole_reader(g, x) == static_cast<int>(i)) {
      const lite::Dims& inner = g.nodes[p].a.perm;
      lite::Dims r(n.a.perm.size());
      for (size_t k = 0; k < r.size(); ++k) r[k] = inner[n.a.perm[k]];
      n.a.perm = r;
      n.inputs[0] = g.nodes[p].inputs[0];
      dead[p] = 1;
    }
    const int out = n.outputs[0];
    if (identity(n.a.perm) && !is_graph_output(g, out)) {
      for (lite::NodeDesc& m : g.nodes)
        std::replace(m.inputs.begin(), m.inputs.end(), out, n.inputs[0]);
      dead[i] = 1;
    }
  }
  remove_nodes(g, dead);
}

}  // namespace mycel::converter::passes
