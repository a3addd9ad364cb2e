// lift: lambda lifting (MindSpore's cconv / LiftingClone). Every graph with free variables
// receives them as extra leading parameters, and every reference to it supplies them:
//
//   graph @f(%x) {                      graph @f(%x) {
//     %y = Exp(%x)                        %y = Exp(%x)
//     %g = @g                  ->         %p = partial(@g, %y)      (a reference: a closure)
//     %r = @g(%x)                         %r = @g(%y, %x)           (a direct call)
//     ...                                 ...
//   graph @g(%a) { Mul(%a, %y) }        graph @g(%y', %a) { Mul(%a, %y') }
//
// The captured values of a graph are the Manager's free variables: the nodes of other
// graphs its own nodes use, plus those of every graph it references that it does not own
// itself (to build partial(@h, ...) a graph must see h's captures, so they pass along
// through intermediate graphs; a loop body that refers to its header captures what the
// header captures). They are all read before the IR is rewritten, so the order in which
// graphs are visited does not matter. A recursive graph's reference to itself becomes
// partial(@g, its own new parameters).
//
// Pre: specialised IR, well scoped (a graph uses only nodes of graphs that enclose it); no
// graph with free variables inside a compound constant (a tuple of graphs). Post:
// verify(root, {.lifted = true}): no graph has free variables; the root's parameters are
// unchanged. This is the last pass: inline/dce/cse assume the un-lifted form.
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

namespace {

void check_no_nested_graphs(const Value& v,
                            const std::unordered_map<FuncGraph*, std::vector<Node*>>& caps) {
  auto check = [&](const Value& e) { check_no_nested_graphs(e, caps); };
  if (v.is(ValueKind::Closure)) {
    check(v.as_closure().fn);
    for (const Value& a : v.as_closure().args) check(a);
  } else if (v.is_sequence()) {
    for (const Value& a : v.items()) check(a);
  } else if (v.is(ValueKind::Dict)) {
    for (const Value& a : v.as_dict().values) check(a);
  } else if (v.is(ValueKind::Graph)) {
    auto it = caps.find(v.as_graph());
    MC_ASSERT(it == caps.end() || it->second.empty(), "lift: the constant ", v.to_string(),
              " holds a graph that captures variables");
  }
}

}  // namespace

bool lift(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  // The captures: the Manager's free variables (closed over referenced graphs).
  detail::Walk w = detail::walk(root);
  const std::vector<FuncGraph*>& graphs = w.graphs;
  std::unordered_map<FuncGraph*, std::vector<CNode*>> body;
  for (CNode* c : w.nodes) body[c->graph()].push_back(c);
  std::unordered_map<FuncGraph*, std::vector<Node*>> caps;
  for (FuncGraph* g : graphs) caps[g] = mng->free_vars(g);
  MC_ASSERT(caps[root].empty(), "lift: the root graph @", root->name(), " uses ", caps[root].size(),
            " node(s) of other graphs (first: %", caps[root].empty() ? "" : caps[root][0]->name(),
            ")");
  for (CNode* c : w.nodes)
    for (Node* in : c->inputs())
      if (const Value* v = detail::const_value(in); v && !v->is(ValueKind::Graph))
        check_no_nested_graphs(*v, caps);

  // New leading parameters.
  std::unordered_map<FuncGraph*, std::unordered_map<Node*, Node*>> param_of;
  bool changed = false;
  for (FuncGraph* g : graphs) {
    const std::vector<Node*>& fvs = caps[g];
    if (fvs.empty()) continue;
    changed = true;
    Signature old = g->signature();
    std::vector<Parameter*> old_params = g->params();
    std::vector<Parameter*> params;
    for (Node* x : fvs) {
      Parameter* p = m.add_param(g, x->name(), x->span());
      p->set_abstract(x->abstract());
      param_of[g][x] = p;
      params.push_back(p);
    }
    params.insert(params.end(), old_params.begin(), old_params.end());
    g->set_params(std::move(params));
    Signature& sig = g->signature();
    int shift = static_cast<int>(fvs.size());
    for (size_t i = 0; i < old.defaults.size(); ++i) sig.defaults[fvs.size() + i] = old.defaults[i];
    for (size_t i = 0; i < old.names.size(); ++i) sig.names[fvs.size() + i] = old.names[i];
    sig.vararg = old.vararg < 0 ? -1 : old.vararg + shift;
    sig.kwarg = old.kwarg < 0 ? -1 : old.kwarg + shift;
    sig.kwonly_begin = old.kwonly_begin < 0 ? -1 : old.kwonly_begin + shift;
  }
  if (!changed) return false;

  // Rewrite uses.
  for (FuncGraph* g : graphs) {
    auto view = [&](Node* x) -> Node* {
      if (x->graph() == g) return x;
      auto it = param_of[g].find(x);
      MC_ASSERT(it != param_of[g].end(), "lift: @", g->name(), " cannot see %", x->name());
      return it->second;
    };
    std::unordered_map<FuncGraph*, CNode*> closures;
    auto closure = [&](ValueNode* ref, FuncGraph* h, SourceSpan span) -> Node* {
      auto it = closures.find(h);
      if (it != closures.end()) return it->second;
      std::vector<Node*> args{ref};
      FuncCandidate cand{Value::graph(h), {}};
      for (Node* x : caps[h]) {
        args.push_back(view(x));
        cand.bound.push_back(x->abstract());
      }
      CNode* p = m.call_builtin(g, Builtin::Partial, std::move(args), span);
      p->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::Partial)));
      p->set_abstract(Abstract::func({std::move(cand)}));
      closures[h] = p;
      return p;
    };
    // A use of n in g: its lifted form, or null when unchanged.
    auto lifted = [&](Node* n, SourceSpan span) -> Node* {
      if (const Value* v = detail::const_value(n)) {
        if (v->is(ValueKind::Graph) && !caps[v->as_graph()].empty())
          return closure(static_cast<ValueNode*>(n), v->as_graph(), span);
        return nullptr;
      }
      return n->graph() == g ? nullptr : view(n);
    };
    for (CNode* c : body[g]) {
      for (size_t i = 1; i < c->size(); ++i)
        if (Node* r = lifted(c->input(i), c->span())) c->set_input(i, r);
      Node* callee = c->callee();
      FuncGraph* h = c->called_graph();
      if (h != nullptr && !caps[h].empty()) {
        std::vector<Node*> in{callee};
        for (Node* x : caps[h]) in.push_back(view(x));
        in.insert(in.end(), c->inputs().begin() + 1, c->inputs().end());
        c->set_inputs(std::move(in));
      } else if (Node* r = lifted(callee, c->span())) {
        c->set_input(0, r);
      }
    }
    if (Node* r = lifted(g->output(), g->output()->span())) g->set_output(r);
  }
  mng->invalidate();
  return true;
}

}  // namespace mycel::compiler
