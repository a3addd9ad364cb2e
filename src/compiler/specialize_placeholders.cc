// The specialiser's placeholders for graph values: a graph value (a branch, a loop body, a
// lambda) is specialised only when called; until then it is a placeholder ValueNode, patched
// at the end once the run-time call chose its specialisation. Apart from the engine
// (specialize.cc) as a self-contained group: Specializer::stale_graph, add_placeholder,
// resolve_placeholder, resolve_through and patch_placeholders (declared in specialize_impl.h).
#include <unordered_set>

#include "compiler/specialize_impl.h"

namespace mycel::ir::spec {

// A graph value (a branch, a loop body, a lambda) is specialised only when called; until
// then it is a placeholder ValueNode. Direct calls use the specialised graph right away;
// placeholders that flow through switch/partial are patched once the run-time call chose
// their specialisation (patch_placeholders, at the end).
// Whether g was built by a context that a recursion's later round replaced: a placeholder
// it resolved is resolved again by the new round's call.
bool Specializer::stale_graph(const FuncGraph* g) const {
  auto it = ctx_of_out_.find(g);
  return it != ctx_of_out_.end() && it->second->stale;
}

void Specializer::add_placeholder(ValueNode* node, const Placeholder& ph) {
  Placeholder& p = placeholders_[node] = ph;
  placeholders_of_[ph.g].push_back(&p);
}

void Specializer::resolve_placeholder(FuncGraph* g, Ctx* pctx, FuncGraph* spec,
                                      const SourceSpan& sp, bool strict) {
  for (Placeholder* p : placeholders_of_[g]) {
    Placeholder& ph = *p;
    if (ph.pctx != pctx) continue;
    if (ph.owner->stale || ph.round != ph.owner->round) continue;
    if (ph.resolved != nullptr && ph.resolved != spec && !stale_graph(ph.resolved)) {
      // Direct calls with several signatures are fine; the value itself is then ambiguous,
      // an error only if something uses it at run time (patch_placeholders).
      if (strict || ph.strict)
        fail(ErrorKind::Type, sp,
             str("the function '", g->name(),
                 "' is called with different argument types where it is chosen at run "
                 "time; graph mode needs one signature per function value"));
      ph.ambiguous = true;
      continue;
    }
    ph.resolved = spec;
    ph.strict = ph.strict || strict;
  }
}

bool Specializer::resolve_through(Node* fn, FuncGraph* g, Ctx* pctx, FuncGraph* spec,
                                  const SourceSpan& sp, int depth) {
  if (depth > 32) return false;
  auto it = placeholders_.find(fn);
  if (it != placeholders_.end()) {
    Placeholder& ph = it->second;
    if (ph.g != g || ph.pctx != pctx) return false;
    if (ph.resolved != nullptr && ph.resolved != spec && (ph.strict || ph.ambiguous) &&
        !stale_graph(ph.resolved))
      fail(ErrorKind::Type, sp,
           str("the function '", g->name(),
               "' is called with different argument types where it is chosen at run time; "
               "graph mode needs one signature per function value"));
    ph.resolved = spec;
    ph.strict = true;
    ph.ambiguous = false;
    return true;
  }
  if (!fn->is_cnode()) return false;
  auto* c = static_cast<CNode*>(fn);
  if (c->is_builtin(Builtin::Switch))
    return resolve_through(c->input(2), g, pctx, spec, sp, depth + 1) |
           resolve_through(c->input(3), g, pctx, spec, sp, depth + 1);
  if (c->is_builtin(Builtin::Partial))
    return resolve_through(c->input(1), g, pctx, spec, sp, depth + 1);
  return false;
}

void Specializer::patch_placeholders() {
  // Every node reachable from the entry, across graphs: through inputs (a node only a nested
  // graph uses, such as a call returning a closure, included) and graph constants.
  std::vector<FuncGraph*> todo{entry_};
  std::unordered_set<FuncGraph*> seen{entry_};
  std::unordered_set<Node*> visited;
  std::vector<Node*> stack;
  auto visit_graph = [&](FuncGraph* target) {
    if (target != nullptr && target->module() == &out_ && seen.insert(target).second)
      todo.push_back(target);
  };
  auto resolved = [&](const Placeholder& ph, const char* what) {
    if (ph.ambiguous)
      fail(ErrorKind::Type, ph.span,
           str("the function '", ph.g->name(), "' is ", what,
               " but called with different argument types; graph mode needs one signature "
               "per function value"));
    if (ph.resolved == nullptr)
      fail(ErrorKind::Type, ph.span,
           str("the function '", ph.g->name(), "' is ", what,
               " that graph mode cannot resolve (returned, stored, or never called); call "
               "it inside the graph instead"));
    return ph.resolved;
  };
  // Input i of c is the argument of a direct graph call for a parameter that closure_param
  // replaced.
  auto dead_arg = [&](CNode* c, size_t i) {
    Node* f = c->input(0);
    if (i == 0 || !f->is_value() || !static_cast<ValueNode*>(f)->value().is(ValueKind::Graph))
      return false;
    FuncGraph* callee = static_cast<ValueNode*>(f)->value().as_graph();
    if (i - 1 >= callee->params().size()) return false;
    const Parameter* p = callee->param(i - 1);
    if (dead_params_.count(p) > 0) return true;
    // A parameter whose abstract is a constant holding a source graph (a copy the gradient
    // made of one that run_ctx replaced): the body reads the constant.
    const AbsPtr& pa = p->abstract();
    return pa && pa->value && source_graph(*pa->value) != nullptr;
  };
  for (size_t k = 0; k < todo.size(); ++k) {
    FuncGraph* g = todo[k];
    Node* o = g->output();
    if (o->is_value() && placeholders_.count(o)) {
      const Placeholder& ph = placeholders_[o];
      if (ph.resolved == nullptr || ph.ambiguous)
        fail(ErrorKind::Type, ph.span,
             str("the function '", ph.g->name(),
                 "' is returned but never called with one signature; graph mode cannot return "
                 "functions to Python"));
      Node* v = out_.value(Value::graph(ph.resolved), o->span());
      v->set_abstract(o->abstract());
      g->set_output(v);
      visit_graph(ph.resolved);
    } else if (const FuncGraph* f =
                   o->is_value() ? source_graph(static_cast<ValueNode*>(o)->value()) : nullptr) {
      // A branch returning a bound method chosen at run time: its specialisation's closure.
      Node* r = g == entry_ ? nullptr
                            : runtime_closure(g, static_cast<ValueNode*>(o)->value(), o->span());
      if (r == nullptr)
        fail(ErrorKind::Type, o->span(),
             str("the function '", f->name(),
                 "' (a method bound to an object) is returned, or chosen at run time and called "
                 "with several signatures; graph mode cannot return functions to Python, call "
                 "it inside the graph instead"));
      g->set_output(r);
    } else if (o->is_value() && static_cast<ValueNode*>(o)->value().is(ValueKind::Graph)) {
      visit_graph(static_cast<ValueNode*>(o)->value().as_graph());
    }
    stack.push_back(g->output());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!n->is_cnode() || !visited.insert(n).second) continue;
      auto* c = static_cast<CNode*>(n);
      visit_graph(c->graph());
      for (size_t i = 0; i < c->size(); ++i) {
        Node* in = c->input(i);
        const AbsPtr& ia = in->abstract();
        if (const FuncGraph* f = ia && ia->value ? source_graph(*ia->value) : nullptr) {
          // A bound method's constant (or a call that returns it), passed to a parameter
          // that stands for the constant: never read. Anywhere else it would run.
          if (dead_arg(c, i)) {
            c->set_input(i, constant(Value::none(), in->span()));
            continue;
          }
          Node* r =
              in->is_value()
                  ? runtime_closure(c->graph(), static_cast<ValueNode*>(in)->value(), in->span())
                  : nullptr;
          if (r == nullptr)
            fail(ErrorKind::Type, in->span(),
                 str("the function '", f->name(),
                     "' (a method bound to an object) is used as a value that graph mode "
                     "cannot resolve (stored or returned, or chosen at run time and called with "
                     "several signatures); call it inside the graph instead"));
          c->set_input(i, r);
          stack.push_back(r);
          continue;
        }
        if (!in->is_value()) {
          stack.push_back(in);
          continue;
        }
        auto it = placeholders_.find(in);
        FuncGraph* target = nullptr;
        if (it != placeholders_.end() && dead_arg(c, i)) {
          // Passed down to a parameter that stands for the closure itself: never read.
          Node* v = constant(Value::none(), in->span());
          c->set_input(i, v);
        } else if (it != placeholders_.end()) {
          target = resolved(it->second, "used as a value");
          Node* v = out_.value(Value::graph(target), in->span());
          v->set_abstract(in->abstract());
          c->set_input(i, v);
        } else if (static_cast<ValueNode*>(in)->value().is(ValueKind::Graph)) {
          target = static_cast<ValueNode*>(in)->value().as_graph();
        }
        visit_graph(target);
      }
    }
  }
}

}  // namespace mycel::ir::spec
