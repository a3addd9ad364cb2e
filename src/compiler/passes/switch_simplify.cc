// switch_simplify: a switch whose choice is known at compile time is replaced by the chosen
// branch.
//
//   switch(True, a, b)   -> a          (also a constant int, by its truth value)
//   switch(False, a, b)  -> b
//   switch(c, x, x)      -> x          (the same node, or equal constants)
//
// A resolved `switch(c, @then, @else)()` thus becomes a direct call `@then()`, which
// inline_graphs can then inline.
// Pre: specialised IR. Post: no switch with a constant condition or equal branches is
// reachable from root; the replaced node keeps the branch's own abstract.
#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

// The branch a switch node resolves to at compile time, or null.
Node* resolved_branch(CNode* c) {
  if (c->size() != 4) return nullptr;
  Node* cond = c->input(1);
  Node* a = c->input(2);
  Node* b = c->input(3);
  if (a == b) return a;
  const Value* va = detail::const_value(a);
  const Value* vb = detail::const_value(b);
  if (va != nullptr && vb != nullptr && *va == *vb) return a;
  const Value* vc = detail::const_value(cond);
  if (vc == nullptr) return nullptr;
  if (vc->is(ValueKind::Bool) || vc->is(ValueKind::Int)) return vc->as_int() != 0 ? a : b;
  return nullptr;
}

}  // namespace

bool switch_simplify(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  detail::Walk w = detail::walk(root);
  detail::Rewriter rw;
  for (CNode* c : w.nodes) {
    rw.update_inputs(c);
    if (!c->is_builtin(Builtin::Switch)) continue;
    if (Node* chosen = resolved_branch(c)) rw.replace(c, chosen);
  }
  if (!rw.finish(w.graphs)) return false;
  mng->invalidate();
  return true;
}

}  // namespace mycel::compiler
