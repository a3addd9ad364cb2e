// cse: common subexpression elimination.
//
//   1. Equal constants merge: every use of a ValueNode whose value (Value ==: tensors by
//      identity, floats bitwise) and abstract equal an earlier one's uses that earlier node.
//   2. Within each graph, in topological order, two CNodes with the same inputs (by
//      identity, callee included, after step 1) merge: the later one's uses use the first.
//
//   %a = Mul(%x, %y)           %a = Mul(%x, %y)
//   %b = Mul(%x, %y)     ->    %c = Add(%a, %a)
//   %c = Add(%a, %b)
//
// Never merged: calls with effects (prims with kEffectFlags: random, in-place, collective;
// print, py_execute, raise, host objects), calls of graphs that contain such calls (transitively),
// calls whose callee is not a constant (a closure's effects are unknown), and values an op
// writes in place (AssignAdd(z, y) after z = x - y and z1 = x - y must not change z1). Merging is
// per graph: a node of an inner graph is not merged with one of its enclosing graph. Pre:
// specialised IR. Post: the same program with fewer nodes.
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

struct InputsHash {
  size_t operator()(const std::vector<Node*>& in) const {
    size_t h = in.size();
    for (Node* n : in) h = h * 1000003u ^ std::hash<Node*>()(n);
    return h;
  }
};

// Whether graph g (and what it can call) is free of effects. Memoised; a graph being
// visited counts as pure so recursion terminates (its other nodes decide).
class Purity {
 public:
  Purity() = default;
  bool graph_pure(FuncGraph* g) {
    auto it = memo_.find(g);
    if (it != memo_.end()) return it->second;
    memo_[g] = true;
    bool pure = true;
    detail::Walk w = detail::walk(g);
    std::unordered_set<FuncGraph*> inside(w.graphs.begin(), w.graphs.end());
    for (CNode* c : w.nodes) {
      const Value* v = detail::const_value(c->callee());
      // A computed callee made inside is one of the reached graphs; one captured from
      // outside (a free variable of g) could be anything.
      if (v == nullptr ? !inside.count(c->callee()->graph()) : detail::is_effectful_callee(*v))
        pure = false;
    }
    memo_[g] = pure;
    return pure;
  }

 private:
  std::unordered_map<FuncGraph*, bool> memo_;
};

bool mergeable(CNode* c, Purity& purity) {
  const Value* v = detail::const_value(c->callee());
  if (v == nullptr || detail::is_effectful_callee(*v)) return false;
  if (v->is(ValueKind::Graph)) {
    // A function argument could be anything; keep such calls.
    for (size_t i = 1; i < c->size(); ++i) {
      const AbsPtr& a = c->input(i)->abstract();
      if (a == nullptr || a->kind == AbsKind::Func || a->kind == AbsKind::Any) return false;
    }
    return purity.graph_pure(v->as_graph());
  }
  return v->is(ValueKind::Prim) || v->is(ValueKind::Builtin);
}

// The nodes that an op of `nodes` writes in place (OpDef::writes), through depends.
std::unordered_set<Node*> written(const std::vector<CNode*>& nodes) {
  std::unordered_set<Node*> out;
  for (CNode* c : nodes) {
    const Value* v = detail::const_value(c->callee());
    if (v == nullptr || !v->is(ValueKind::Prim)) continue;
    const OpDef& op = *v->as_prim().op;
    for (size_t i = 0; i + 1 < c->size(); ++i) {
      if (!writes_input(op, i)) continue;
      Node* x = c->input(i + 1);
      while (detail::is_builtin_call(x, Builtin::Depend)) x = static_cast<CNode*>(x)->input(1);
      out.insert(x);
    }
  }
  return out;
}

}  // namespace

bool cse(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  bool changed = false;

  // 1. Constants.
  std::unordered_map<Value, std::vector<ValueNode*>, ValueHash> canon;
  auto canonical = [&](ValueNode* v) -> ValueNode* {
    auto& list = canon[v->value()];
    for (ValueNode* u : list)
      if (abs_equal(u->abstract(), v->abstract())) return u;
    list.push_back(v);
    return v;
  };
  detail::Walk w = detail::walk(root);
  for (CNode* c : w.nodes) {
    for (size_t i = 0; i < c->size(); ++i) {
      Node* in = c->input(i);
      if (!in->is_value()) continue;
      ValueNode* u = canonical(static_cast<ValueNode*>(in));
      if (u != in) {
        c->set_input(i, u);
        changed = true;
      }
    }
  }
  for (FuncGraph* g : w.graphs) {
    if (g->output()->is_value()) {
      ValueNode* u = canonical(static_cast<ValueNode*>(g->output()));
      if (u != g->output()) {
        g->set_output(u);
        changed = true;
      }
    }
  }

  // 2. CNodes, graph by graph.
  Purity purity;
  const std::unordered_set<Node*> targets = written(w.nodes);
  std::unordered_map<FuncGraph*, std::unordered_map<std::vector<Node*>, CNode*, InputsHash>> seen;
  detail::Rewriter rw;
  for (CNode* c : w.nodes) {
    rw.update_inputs(c);
    if (!mergeable(c, purity) || targets.count(c)) continue;
    auto [it, inserted] = seen[c->graph()].emplace(c->inputs(), c);
    if (inserted || it->second == c || targets.count(it->second)) continue;
    if (!abs_equal(it->second->abstract(), c->abstract())) continue;
    rw.replace(c, it->second);
  }
  changed = rw.finish(w.graphs) || changed;
  if (changed) mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
