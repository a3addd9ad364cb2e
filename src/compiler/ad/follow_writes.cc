// follow_writes (k_transform.h): before differentiation, every node of a graph that is
// ordered after an Assign or AssignAdd (through the state) and reads the storage it wrote
// reads the write's result instead:
//
//   %u = AssignAdd(%w, %v)   %s = depend(0, %u)   %r = depend(%w, %s)   %c = @g(%w, %s)
//     ->  %r = depend(%u, %s, %w)   %c = @g(%u, %s)
//
// (a CNode read x becomes depend(u, x), keeping x's own order). The specialiser reads a
// Parameter after the program's last effect as depend(w, state), and passes it to the calls
// of a branch, a loop's next iteration or its exit: the same storage as the update's result
// (an update returns its variable, and the read is ordered after the write, so it sees the
// written value either way; order_updates runs the reads that are not ordered after it
// before it), so no value changes, but the gradient of the read now flows through the write
// as in PYNATIVE and PyTorch's functional program (AssignAdd's rule: to the variable and the
// value; Assign's: to the value) instead of stopping at the weight's old value. The latest
// write a node is ordered after is taken. A write a graph makes in a function value called
// at run time is not seen here: KGraph's check_unfollowed_writes refuses a read the
// gradient would then miss.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "compiler/ad/k_transform.h"
#include "compiler/passes/pass_util.h"
#include "ir/manager.h"
#include "ops/op_table.h"

namespace mycel::ir {

namespace {

// Whether c writes its variable (input 1) as Assign or AssignAdd, whose results carry the
// gradient on (their rules); other updates (the optimizers') are not differentiable.
bool differentiable_write(const CNode* c) {
  const PrimData* p = c->prim();
  return p != nullptr && (p->op->id == OpId::Assign || p->op->id == OpId::AssignAdd) &&
         c->size() == 3;
}

bool follow_in(Module& m, FuncGraph* g) {
  std::vector<CNode*> order = m.toposort(g);
  std::unordered_map<const Node*, int> index;
  std::vector<const Node*> roots;  // the storages written here
  for (size_t i = 0; i < order.size(); ++i) {
    index[order[i]] = static_cast<int>(i);
    if (!differentiable_write(order[i])) continue;
    const Node* r = compiler::detail::storage_root(order[i]->input(1));
    if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
  }
  bool changed = false;
  for (const Node* r : roots) {
    // last[i]: the position of the latest write of r that order[i] depends on (-1: none).
    std::vector<int> last(order.size(), -1);
    auto last_of = [&](const Node* n) {
      auto it = index.find(n);
      return it == index.end() ? -1 : last[static_cast<size_t>(it->second)];
    };
    for (size_t i = 0; i < order.size(); ++i) {
      CNode* c = order[i];
      // The latest write c is ordered after; a depend's order inputs are not reads.
      int after = -1;
      for (size_t k = 1; k < c->size(); ++k) after = std::max(after, last_of(c->input(k)));
      const size_t reads =
          c->is_builtin(Builtin::Depend) ? std::min<size_t>(c->size(), 2) : c->size();
      for (size_t k = 1; after >= 0 && k < reads; ++k) {
        Node* x = c->input(k);
        if (last_of(x) >= after || compiler::detail::storage_root(x) != r) continue;
        Node* u = order[static_cast<size_t>(after)];
        if (c->is_builtin(Builtin::Depend)) {
          // depend(x, s...) -> depend(u, s..., x)
          std::vector<Node*> in{c->callee(), u};
          in.insert(in.end(), c->inputs().begin() + 2, c->inputs().end());
          in.push_back(x);
          c->set_inputs(std::move(in));
        } else if (x->is_cnode()) {
          // f(..., x, ...) -> f(..., depend(u, x), ...): x's own order inputs kept
          CNode* d = m.call_builtin(g, Builtin::Depend, {u, x}, x->span());
          d->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::Depend)));
          d->set_abstract(x->abstract());
          c->set_input(k, d);
        } else {
          c->set_input(k, u);
        }
        changed = true;
      }
      int l = -1;
      for (size_t k = 1; k < c->size(); ++k) l = std::max(l, last_of(c->input(k)));
      if (differentiable_write(c) && compiler::detail::storage_root(c->input(1)) == r)
        l = static_cast<int>(i);
      last[i] = l;
    }
  }
  return changed;
}

}  // namespace

bool follow_writes(Module& m, FuncGraph* root) {
  bool changed = false;
  for (FuncGraph* g : m.reachable_graphs(root)) changed = follow_in(m, g) || changed;
  if (changed && m.manager() != nullptr) m.manager()->invalidate();
  return changed;
}

}  // namespace mycel::ir
