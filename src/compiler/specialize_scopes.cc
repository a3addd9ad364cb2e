// The scoping of the source IR (SourceScopes in specialize_impl.h): regions and free-variable
// owners of the front end's graphs.
//
// One walk per group: from the graph asked about, over every node reachable from the
// outputs and effects of the group's graphs, crossing into the graphs that own the nodes
// used (free variables) and into the graphs that constants refer to, each of which joins
// the group. A node belongs to its graph's region however it was reached, so a node of g
// read only by a graph nested in g (at any depth) is in g's region. Owners are then closed
// over references to a fixed point (loops refer back to their headers).
#include <algorithm>

#include "compiler/specialize_impl.h"
#include "ir/walk.h"

namespace mycel::ir::spec {

SourceScopes::Scope& SourceScopes::scope(FuncGraph* g) {
  auto it = scopes_.find(g);
  if (it != scopes_.end()) return it->second;
  analyse(g);
  return scopes_.at(g);
}

void SourceScopes::analyse(FuncGraph* root) {
  // The group, in discovery order. A graph analysed with an earlier group is complete: its
  // nodes are not walked again (the front end's groups never share nodes).
  std::vector<FuncGraph*> group{root};
  std::unordered_set<FuncGraph*> in_group{root};
  std::unordered_map<FuncGraph*, Scope>& s = scopes_;
  s[root];
  auto join = [&](FuncGraph* f) {
    if (s.count(f)) return;
    s[f];
    group.push_back(f);
    in_group.insert(f);
  };
  std::unordered_set<Node*> seen;
  std::vector<CNode*> stack;
  std::vector<FuncGraph*> found;
  // `in`, used by a node of `user` (or as its output or an effect).
  auto use = [&](FuncGraph* user, Node* in) {
    if (in == nullptr) return;
    if (in->is_value()) {
      found.clear();
      graphs_in(static_cast<ValueNode*>(in)->value(), found);
      for (FuncGraph* f : found) {
        if (f != user) s[user].refs.push_back(f);
        join(f);
      }
      return;
    }
    FuncGraph* o = in->graph();
    if (o != user) s[user].owners.insert(o);
    join(o);
    if (in->is_cnode() && in_group.count(o) && seen.insert(in).second)
      stack.push_back(static_cast<CNode*>(in));
  };
  for (size_t k = 0; k < group.size(); ++k) {
    FuncGraph* g = group[k];
    use(g, g->output());
    for (Node* e : g->effects) use(g, e);
    while (!stack.empty()) {
      CNode* c = stack.back();
      stack.pop_back();
      s[c->graph()].region.push_back(c);
      for (Node* in : c->inputs()) use(c->graph(), in);
    }
  }
  for (FuncGraph* g : group) {
    Scope& sc = s[g];
    std::sort(sc.region.begin(), sc.region.end(),
              [](const CNode* a, const CNode* b) { return a->id() < b->id(); });
    std::sort(sc.refs.begin(), sc.refs.end());
    sc.refs.erase(std::unique(sc.refs.begin(), sc.refs.end()), sc.refs.end());
  }
  // owners(g) gains owners(r) - {g} for each graph r that g refers to. Graphs are mostly
  // found after the graphs referring to them, so sweeping backwards settles most in one pass.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = group.size(); k-- > 0;) {
      FuncGraph* g = group[k];
      Scope& sc = s[g];
      for (FuncGraph* r : sc.refs)
        for (FuncGraph* o : s.at(r).owners)
          if (o != g && sc.owners.insert(o).second) changed = true;
    }
  }
}

}  // namespace mycel::ir::spec
