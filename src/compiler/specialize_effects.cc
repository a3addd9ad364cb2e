// The specialiser's program order of effects (MindSpore's auto-monad, done by data edges;
// "State" in specialize.h): each context carries a state, the last effect so far, and the
// walk orders after it every read that an effect may have changed -- a Parameter's weight, a
// tensor an update wrote or a call with effects took -- with depend(x, state), hands the
// state to the graphs it calls as a token argument, and follows the state of a callee with
// effects. A tensor that Assign/AssignAdd wrote -- computed, or a parameter of a called graph
// (an input of the differentiated function), not one of the entry's (a weight) -- reads as
// that update from then on (updated_), so the gradient flows through the write. A weight's
// later reads stay depend(w, state); under a gradient, follow_writes (compiler/ad) makes them
// read the write's result once the program is inlined.
//
// Apart from the walk (specialize.cc) because it is one concern with its own bookkeeping
// (Ctx::state/token/effects, written_, updated_), used by the builtins, prims and calls
// alike; its declarations are the "program order of effects" parts of specialize_impl.h.
#include "compiler/specialize_impl.h"

namespace mycel::ir::spec {

bool Specializer::is_graph_param(const Node* n) const {
  while (n->is_cnode() && static_cast<const CNode*>(n)->is_builtin(Builtin::Depend))
    n = static_cast<const CNode*>(n)->input(1);
  return n->is_param();
}

namespace {
const Node* strip_depends(const Node* n) {
  while (n->is_cnode() && static_cast<const CNode*>(n)->is_builtin(Builtin::Depend) &&
         static_cast<const CNode*>(n)->size() > 1)
    n = static_cast<const CNode*>(n)->input(1);
  return n;
}
}  // namespace

bool Specializer::read_after_effects(const Node* n) const {
  return is_graph_param(n) || written_.count(strip_depends(n)) != 0;
}

void Specializer::mark_written(const Node* n) { written_.insert(strip_depends(n)); }

Node* Specializer::read_weight(Ctx* c, const Value& param) {
  return after_state(c, weight(param), {});
}

Node* Specializer::latest_value(const Ctx* c, Node* x) const {
  for (;;) {
    auto it = updated_.find(strip_depends(x));
    if (it == updated_.end()) return x;
    const Ctx* k = c;
    while (k != nullptr && k->out != it->second->graph()) k = k->parent;
    if (k == nullptr) return x;
    x = it->second;
  }
}

void Specializer::note_update(Node* var, Node* r) {
  if (var == nullptr) return;
  const Node* v = strip_depends(var);
  if (v->is_param() && v->graph() == entry_) return;  // a weight: see updated_
  updated_[v] = r;
}

Node* Specializer::after_state(Ctx* c, Node* x, const SourceSpan& sp) {
  if (c == nullptr || c->state == nullptr) return x;
  x = latest_value(c, x);
  if (x->is_cnode()) {
    auto* d = static_cast<CNode*>(x);
    if (d->is_builtin(Builtin::Depend) && d->size() == 3 && d->input(2) == c->state) return x;
  }
  return emit_builtin(c, Builtin::Depend, {x, c->state}, x->abstract(), sp);
}

void Specializer::took_effect(Ctx* c, Node* n) {
  c->state = n;
  c->token = nullptr;
  c->effects = true;
}

void Specializer::after_call(Ctx* c, const Ctx* k, Node* call) {
  if (k == nullptr || !k->effects || is_bottom(call)) return;
  took_effect(c, call);
  // The callee may have written a tensor passed to it (its parameter): read it again after.
  auto* cn = static_cast<CNode*>(call);
  for (size_t i = 1; i < cn->size(); ++i) {
    const Node* in = cn->input(i);
    if (in->abstract() && in->abstract()->kind == AbsKind::Tensor) mark_written(in);
  }
  // A callee returning its parameter j after Assign/AssignAdd wrote it (ops.assign_add(y, v)
  // returns y): the caller's argument j reads as the call's result from now on (updated_).
  const FuncGraph* g = k->out;
  if (g->output() == nullptr || cn->size() != g->params().size() + 1) return;
  const Node* v = strip_depends(g->output());
  bool wrote = false;
  while (v->is_cnode()) {
    const PrimData* p = static_cast<const CNode*>(v)->prim();
    if (p == nullptr || (p->op->id != OpId::Assign && p->op->id != OpId::AssignAdd)) break;
    v = strip_depends(static_cast<const CNode*>(v)->input(1));
    wrote = true;
  }
  if (!wrote) return;
  for (size_t j = 0; j < g->params().size(); ++j)
    if (g->param(j) == v) note_update(cn->input(j + 1), call);
}

void Specializer::pass_state(Ctx* c, std::vector<Node*>& args, std::vector<AbsPtr>* abs,
                             const SourceSpan& sp) {
  if (c->state == nullptr) return;
  // The token is an int whose value nobody reads (0), known only at run time so that no
  // pass folds it away: its data edge to the state is what orders the callee.
  if (c->token == nullptr)
    c->token = emit_builtin(c, Builtin::Depend, {constant(Value::integer(0), sp), c->state},
                            Abstract::scalar(ValueKind::Int), sp);
  args.push_back(c->token);
  if (abs != nullptr) abs->push_back(c->token->abstract());
}

const std::vector<CNode*>& Specializer::source_order(FuncGraph* g) {
  auto it = source_order_.find(g);
  if (it != source_order_.end()) return it->second;
  std::vector<CNode*> order;
  // A keyword argument is part of its call's syntax, evaluated with the call.
  for (CNode* n : scopes_.region(g))
    if (!n->is_builtin(Builtin::MakeKwarg)) order.push_back(n);
  return source_order_[g] = std::move(order);
}

}  // namespace mycel::ir::spec
