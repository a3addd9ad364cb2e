// The IR's walks (ir/walk.h).
#include "ir/walk.h"

namespace mycel::ir {

void graphs_in(const Value& v, std::vector<FuncGraph*>& out) {
  switch (v.kind()) {
    case ValueKind::Graph:
      out.push_back(v.as_graph());
      break;
    case ValueKind::Closure:
      graphs_in(v.as_closure().fn, out);
      for (const Value& a : v.as_closure().args) graphs_in(a, out);
      break;
    case ValueKind::Tuple:
    case ValueKind::List:
      for (const Value& a : v.items()) graphs_in(a, out);
      break;
    case ValueKind::Dict:
      for (const Value& a : v.as_dict().values) graphs_in(a, out);
      break;
    default:
      break;
  }
}

std::vector<CNode*> toposort(FuncGraph* g, std::span<Node* const> roots, DependOrder order) {
  std::vector<CNode*> out;
  std::unordered_set<const Node*> seen;  // on the stack or emitted
  struct Open {
    CNode* c;
    size_t next;  // the next input to visit
    bool effects_first;
  };
  std::vector<Open> stack;
  auto push = [&](Node* n) {
    if (n == nullptr || !n->is_cnode() || n->graph() != g || !seen.insert(n).second) return;
    auto* c = static_cast<CNode*>(n);
    stack.push_back({c, 0, order == DependOrder::EffectsFirst && c->is_builtin(Builtin::Depend)});
  };
  for (Node* root : roots) {
    push(root);
    while (!stack.empty()) {
      Open& top = stack.back();
      if (top.next < top.c->size()) {
        size_t pos = top.next++;
        // depend with its effects first: callee, effects (inputs 2..), then x (input 1).
        if (top.effects_first && pos > 0) pos = pos + 1 < top.c->size() ? pos + 1 : 1;
        push(top.c->input(pos));  // may reallocate the stack: `top` is not used after it
        continue;
      }
      out.push_back(top.c);
      stack.pop_back();
    }
  }
  return out;
}

}  // namespace mycel::ir
