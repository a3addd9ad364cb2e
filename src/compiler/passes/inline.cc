// inline_graphs: a direct call of a graph constant is replaced by a copy of the callee's
// body (ir::inline_call), when
//
//   - the callee is a ValueNode graph, not the root, not marked no_inline, and not
//     recursive (it cannot reach itself through graph references);
//   - the call passes exactly one argument per parameter;
//   - every free variable of the callee is visible in the caller (owned by the caller or
//     by a graph enclosing it);
//   - policy: the callee is referenced once in the module (a branch of a resolved switch,
//     a helper used once) or is small (at most kMaxInlineNodes CNodes of its own).
//
//   %r = @f(%a, %b)          with  graph @f(%x, %y) { %t = Mul(%x, %y)  return %t }
//     ->
//   %t' = Mul(%a, %b)        and every use of %r uses %t'
//
// Calls inside callees are visited first (the graphs in reverse reachability order), so one
// run flattens chains of small helpers. Pre: specialised IR. Post: the same program; graphs
// no longer referenced are simply unreachable.
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"
#include "ir/clone.h"

namespace mycel::compiler {

using namespace ir;

namespace {

constexpr size_t kMaxInlineNodes = 32;

// Whether `x`, a node of some graph, is in scope in `g`: owned by g or an enclosing graph.
bool visible_in(Manager& mng, Node* x, FuncGraph* g) {
  for (FuncGraph* p = g; p != nullptr; p = mng.parent(p))
    if (x->graph() == p) return true;
  return false;
}

}  // namespace

bool inline_graphs(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  detail::Walk w = detail::walk(root);

  // How often each graph is referenced (as a callee or as a value) by live nodes.
  std::unordered_map<FuncGraph*, int> refs;
  auto count = [&](Node* n) {
    if (const Value* v = detail::const_value(n); v != nullptr && v->is(ValueKind::Graph))
      ++refs[v->as_graph()];
  };
  for (CNode* c : w.nodes)
    for (Node* in : c->inputs()) count(in);
  for (FuncGraph* g : w.graphs) count(g->output());

  // Every decision is taken on the unedited IR (the analyses are not recomputed per edit).
  std::unordered_map<FuncGraph*, bool> inlinable;
  auto can_inline = [&](FuncGraph* g) {
    auto it = inlinable.find(g);
    if (it != inlinable.end()) return it->second;
    bool ok = g != root && !g->no_inline && !mng->is_recursive(g) &&
              (refs[g] == 1 || m.toposort(g).size() <= kMaxInlineNodes);
    inlinable[g] = ok;
    return ok;
  };
  std::unordered_set<CNode*> todo;
  std::unordered_map<FuncGraph*, std::vector<CNode*>> body;
  for (CNode* c : w.nodes) {
    body[c->graph()].push_back(c);
    FuncGraph* g = c->called_graph();
    if (g == nullptr || !can_inline(g) || c->size() - 1 != g->params().size()) continue;
    bool scoped = true;
    for (Node* x : mng->free_vars(g)) scoped = scoped && visible_in(*mng, x, c->graph());
    if (scoped) todo.insert(c);
  }
  if (todo.empty()) return false;

  // Callees before callers (reverse discovery order), so chains flatten in one run; within
  // a graph in topological order, each call's arguments already rewired.
  detail::Rewriter rw;
  bool replaced = false;
  // The callee (and the graphs it reaches) rewired to this run's replacements before it is
  // copied: a copy must not revive a node already inlined away (a call whose result a
  // nested graph reads as a free variable would then run twice).
  auto refresh = [&](FuncGraph* callee) {
    if (!replaced) return;
    detail::Walk cw = detail::walk(callee);
    for (CNode* n : cw.nodes) rw.update_inputs(n);
    for (FuncGraph* g : cw.graphs) g->set_output(rw.resolve(g->output()));
  };
  for (auto it = w.graphs.rbegin(); it != w.graphs.rend(); ++it) {
    for (CNode* c : body[*it]) {
      rw.update_inputs(c);
      if (!todo.count(c)) continue;
      refresh(c->called_graph());
      rw.replace(c, inline_call(c->graph(), c));
      replaced = true;
    }
    (*it)->set_output(rw.resolve((*it)->output()));  // before a caller copies this graph
  }
  // Uses from other graphs (free variables) and from the copies.
  detail::Walk after = detail::walk(root);
  for (CNode* c : after.nodes) rw.update_inputs(c);
  rw.finish(after.graphs);
  mng->invalidate();
  return true;
}

}  // namespace mycel::compiler
