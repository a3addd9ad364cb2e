// Rewrite: a node whose inputs are all constants (and whose output is not a graph output) is
// run once, by the runtime's own kernel, and its output becomes a constant holding the
// result; the node is removed. Nodes are visited in order, so chains fold in one walk.
#include "converter/passes/passes.h"
#include "lite/kernels.h"

namespace mycel::converter::passes {

void fold_constants(lite::Graph& g) {
  std::vector<char> dead(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const lite::NodeDesc& n = g.nodes[i];
    bool all_const = true;
    for (int t : n.inputs) all_const = all_const && g.tensors[t].constant;
    const int out = n.outputs[0];
    if (!all_const || is_graph_output(g, out)) continue;
    std::vector<const float*> in;
    for (int t : n.inputs) in.push_back(g.tensors[t].f32());
    std::vector<float> result(g.tensors[out].nbytes() / sizeof(float));
    lite::make_kernel(g, n, false)->run(in.data(), result.data());
    g.set_constant(out, g.tensors[out].shape, std::move(result));
    dead[i] = 1;
  }
  remove_nodes(g, dead);
}

}  // namespace mycel::converter::passes
