#include "compiler/passes/pass_util.h"

#include <unordered_set>
#include <utility>

#include "ir/walk.h"

namespace mycel::compiler::detail {

using namespace ir;

Walk walk(FuncGraph* root) {
  Walk w;
  std::unordered_set<FuncGraph*> graph_seen{root};
  std::unordered_set<Node*> done;
  std::vector<FuncGraph*> found;
  w.graphs.push_back(root);
  // Iterative post-order DFS; a node is emitted after all its inputs.
  std::vector<std::pair<Node*, size_t>> stack;
  for (size_t k = 0; k < w.graphs.size(); ++k) {
    stack.push_back({w.graphs[k]->output(), 0});
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i == 0 && done.count(n)) {
        stack.pop_back();
        continue;
      }
      if (n->is_value()) {
        done.insert(n);
        found.clear();
        graphs_in(static_cast<ValueNode*>(n)->value(), found);
        for (FuncGraph* g : found)
          if (graph_seen.insert(g).second) w.graphs.push_back(g);
        stack.pop_back();
        continue;
      }
      if (!n->is_cnode()) {
        done.insert(n);
        stack.pop_back();
        continue;
      }
      auto* c = static_cast<CNode*>(n);
      if (i < c->size()) {
        Node* in = c->input(i++);
        if (!done.count(in)) stack.push_back({in, 0});
        continue;
      }
      done.insert(c);
      w.nodes.push_back(c);
      stack.pop_back();
    }
  }
  return w;
}

}  // namespace mycel::compiler::detail
