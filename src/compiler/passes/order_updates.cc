// order_updates: an op that writes inputs in place (OpDef::writes: Assign, AssignAdd, the
// optimizers' updates with their state, BatchNorm's running statistics) is an update. The
// specialiser orders what comes after an effect in the source by data: a later read of the
// Parameter is depend(w, update), a later call takes the state token (specialize.h, "Program
// order"). What does not depend on the update came before it in the source, so in a graph every
// other reader of a written node that does not itself depend on the update runs before it. The pass
// makes that order an edge: the written input is wrapped in a depend on those readers:
//
//   %a = Neg(%w)   %b = MatMul(%x, %w)   %u = Assign(%w, %v)
//     ->  %u = Assign(depend(%w, %a, %b), %v)
//
// Readers are the CNodes of the update's graph that take the written node, or a view of it
// (F_VIEW prims, depend), as an input (a call passing it to a graph counts: the callee may
// read it), other than updates writing that
// same node, which keep their data order, and nodes the update already depends on. Updates are
// handled one at a time against the edges added so far, and a reader gets an edge only when the
// update does not already reach it, so no cycle can form (a program whose reads conflict keeps its
// data order). Pre: lifted IR (no free variables), the last pass before the executor. Post: the
// same values, updates ordered after their readers.
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

bool is_update(const CNode* c) {
  const PrimData* p = c->prim();
  return p != nullptr && p->op->writes != 0;
}

bool is_view(const CNode* c) {
  const PrimData* p = c->prim();
  return (p != nullptr && (p->op->flags & F_VIEW) != 0) || c->is_builtin(Builtin::Depend);
}

// The tensor a node stands for: depend(x, ...) is x, ordered after the other inputs (the
// specialiser reads a Parameter after the program's last effect as depend(w, effect)), and
// an update's result is the variable it wrote (the specialiser reads a weight after
// Assign(w, v) as that Assign: detail::storage_root).
const Node* root_of(const Node* n) { return detail::storage_root(n); }

// Whether c writes the tensor `root` (through an input OpDef::writes names).
bool writes(const CNode* c, const Node* root) {
  if (!is_update(c)) return false;
  for (size_t i = 1; i < c->size(); ++i)
    if (writes_input(*c->prim()->op, i - 1) && root_of(c->input(i)) == root) return true;
  return false;
}

class Orderer {
 public:
  Orderer(Module& m, FuncGraph* g) : m_(m), g_(g) {
    for (CNode* c : m.toposort(g)) {
      nodes_.push_back(c);
      for (size_t i = 0; i < c->size(); ++i) users_[c->input(i)].push_back(c);
    }
  }

  bool run() {
    bool changed = false;
    for (CNode* c : nodes_) {
      if (!is_update(c)) continue;
      for (size_t i = 1; i < c->size(); ++i)
        if (writes_input(*c->prim()->op, i - 1)) changed = order_before(c, i) || changed;
    }
    return changed;
  }

 private:
  // Makes the readers of c's input i that c does not reach run before c.
  bool order_before(CNode* c, size_t i) {
    Node* written = c->input(i);
    Node* root = const_cast<Node*>(root_of(written));
    if (root->is_value()) return false;
    std::unordered_set<Node*> after = reached_from(c), before = inputs_of(c);
    std::vector<Node*> readers;
    std::unordered_set<Node*> seen;
    // A view of the written tensor (Reshape, a slice, a depend...: the executor may alias the
    // storage) is read through its users too, also when the view itself runs before c; so is
    // the result of another update of it (Assign(w, v) is w; a multi-output update's result
    // only through its getitem of that output), the update itself keeping its data order.
    std::vector<Node*> aliases{root};
    for (size_t k = 0; k < aliases.size(); ++k) {
      const AbsPtr& ka = aliases[k]->abstract();
      const bool tuple = ka != nullptr && ka->kind == AbsKind::Tuple;
      for (CNode* u : users_[aliases[k]]) {
        if (tuple && root_of(u) != root) continue;
        if (u == c || after.count(u) || !seen.insert(u).second) continue;
        if (writes(u, root) || root_of(u) == root) {
          aliases.push_back(u);
          if (writes(u, root)) continue;
        } else if (is_view(u)) {
          aliases.push_back(u);
        }
        if (!before.count(u)) readers.push_back(u);
      }
    }
    if (readers.empty()) return false;
    std::vector<Node*> args{written};
    args.insert(args.end(), readers.begin(), readers.end());
    CNode* dep = m_.call_builtin(g_, Builtin::Depend, args, written->span());
    dep->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::Depend)));
    dep->set_abstract(written->abstract());
    c->set_input(i, dep);
    for (Node* a : args) users_[a].push_back(dep);
    users_[dep].push_back(c);
    return true;
  }

  // Every node that depends on c, through the edges known so far.
  std::unordered_set<Node*> reached_from(CNode* c) {
    std::unordered_set<Node*> out;
    std::vector<Node*> stack{c};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (CNode* u : users_[n])
        if (out.insert(u).second) stack.push_back(u);
    }
    return out;
  }

  // Every node of this graph that c depends on (readers already ordered before it).
  std::unordered_set<Node*> inputs_of(CNode* c) {
    std::unordered_set<Node*> out;
    std::vector<CNode*> stack{c};
    while (!stack.empty()) {
      CNode* n = stack.back();
      stack.pop_back();
      for (Node* in : n->inputs())
        if (in->is_cnode() && in->graph() == g_ && out.insert(in).second)
          stack.push_back(static_cast<CNode*>(in));
    }
    return out;
  }

  Module& m_;
  FuncGraph* g_;
  std::vector<CNode*> nodes_;
  std::unordered_map<Node*, std::vector<CNode*>> users_;
};

}  // namespace

bool order_updates(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  bool changed = false;
  for (FuncGraph* g : m.reachable_graphs(root)) changed = Orderer(m, g).run() || changed;
  if (changed) mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
