// clone_graph and inline_call (ir/clone.h): one Cloner copies the CNodes of a set of source
// graphs into destination graphs (new graphs, or the caller when inlining), remapping
// inputs through a node map and graph-valued constants through a graph map.
#include "ir/clone.h"

#include <unordered_set>
#include <vector>

#include "base/error.h"
#include "ir/manager.h"
#include "ir/source_files.h"

namespace mycel::ir {

std::vector<FuncGraph*> nested_graphs(FuncGraph* g) {
  // A nested graph is reached through a graph constant used by g's statements; without one
  // (the common case for an inlined helper) there is nothing to scan the module for.
  bool refers = false;
  auto is_graph_ref = [](Node* in) {
    if (!in->is_value()) return false;
    ValueKind k = static_cast<ValueNode*>(in)->value().kind();
    return k == ValueKind::Graph || k == ValueKind::Closure || k == ValueKind::Tuple ||
           k == ValueKind::List || k == ValueKind::Dict;
  };
  for (CNode* n : g->module()->toposort(g)) {
    for (Node* in : n->inputs()) refers = refers || is_graph_ref(in);
    if (refers) break;
  }
  refers = refers || is_graph_ref(g->output());
  if (!refers) return {};
  Manager mng(*g->module(), g);
  std::vector<FuncGraph*> out;
  std::unordered_set<FuncGraph*> seen{g};
  std::vector<FuncGraph*> work{g};
  for (size_t k = 0; k < work.size(); ++k)
    for (FuncGraph* c : mng.children(work[k]))
      if (seen.insert(c).second) {
        work.push_back(c);
        out.push_back(c);
      }
  return out;
}

namespace {

class Cloner {
 public:
  explicit Cloner(Module& m) : m_(m) {}

  std::unordered_map<Node*, Node*> map;                  // old node -> new node
  std::unordered_map<FuncGraph*, FuncGraph*> graph_map;  // copied graph -> copy
  std::unordered_map<FuncGraph*, FuncGraph*> dest;       // source graph -> where its nodes go
  std::vector<FuncGraph*> sources;                       // the keys of dest, in order

  // A new graph for `g`, with parameters, flags and signature.
  FuncGraph* new_copy(FuncGraph* g) {
    FuncGraph* ng = m_.new_graph(g->name(), g->span());
    for (Parameter* p : g->params()) {
      Parameter* np = m_.add_param(ng, p->name(), p->span());
      np->set_abstract(p->abstract());  // remapped in copy_nodes, once every copy exists
      map[p] = np;
    }
    ng->signature() = g->signature();
    ng->is_loop = g->is_loop;
    ng->no_inline = g->no_inline;
    graph_map[g] = ng;
    add_source(g, ng);
    return ng;
  }

  void add_source(FuncGraph* src, FuncGraph* to) {
    dest[src] = to;
    sources.push_back(src);
  }

  // Copies every CNode owned by a graph of `dest` reachable from the source graphs.
  void copy_nodes() {
    std::vector<CNode*> todo;
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (FuncGraph* src : sources) {
      stack.push_back(src->output());
      if (graph_map.count(src))
        for (Parameter* p : src->params()) map[p]->set_abstract(remap_abs(p->abstract()));
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (n == nullptr || !n->is_cnode() || !dest.count(n->graph()) || !seen.insert(n).second)
        continue;
      auto* c = static_cast<CNode*>(n);
      todo.push_back(c);
      for (Node* in : c->inputs()) stack.push_back(in);
    }
    for (CNode* c : todo) {  // placeholders: the old inputs, patched below
      CNode* nc = m_.cnode(dest[c->graph()], c->inputs(), c->span());
      nc->set_name(c->name());
      nc->set_abstract(remap_abs(c->abstract()));
      map[c] = nc;
    }
    for (CNode* c : todo) {
      std::vector<Node*> in;
      in.reserve(c->size());
      for (Node* x : c->inputs()) in.push_back(remap(x));
      static_cast<CNode*>(map[c])->set_inputs(std::move(in));
    }
  }

  Node* remap(Node* n) {
    if (n == nullptr) return n;
    auto it = map.find(n);
    if (it != map.end()) return it->second;
    if (!n->is_value()) return n;  // a node of an outer graph
    auto* v = static_cast<ValueNode*>(n);
    bool changed = false;
    Value nv = remap_value(v->value(), &changed);
    if (!changed) return n;
    ValueNode* nn = m_.value(nv, v->span());
    nn->set_name(v->name());
    nn->set_abstract(remap_abs(v->abstract()));
    map[n] = nn;
    return nn;
  }

  Value remap_value(const Value& v, bool* changed) {
    switch (v.kind()) {
      case ValueKind::Graph: {
        auto it = graph_map.find(v.as_graph());
        if (it == graph_map.end()) return v;
        *changed = true;
        return Value::graph(it->second);
      }
      case ValueKind::Closure: {
        bool c = false;
        Value fn = remap_value(v.as_closure().fn, &c);
        std::vector<Value> args = remap_values(v.as_closure().args, &c);
        if (!c) return v;
        *changed = true;
        return Value::closure(fn, std::move(args));
      }
      case ValueKind::Tuple:
      case ValueKind::List: {
        bool c = false;
        std::vector<Value> items = remap_values(v.items(), &c);
        if (!c) return v;
        *changed = true;
        return v.is(ValueKind::Tuple) ? Value::tuple(std::move(items))
                                      : Value::list(std::move(items));
      }
      case ValueKind::Dict: {
        bool c = false;
        std::vector<Value> vals = remap_values(v.as_dict().values, &c);
        if (!c) return v;
        *changed = true;
        return Value::dict(v.as_dict().keys, std::move(vals));
      }
      default:
        return v;
    }
  }

  std::vector<Value> remap_values(const std::vector<Value>& vs, bool* changed) {
    std::vector<Value> out;
    out.reserve(vs.size());
    for (const Value& x : vs) out.push_back(remap_value(x, changed));
    return out;
  }

  // The abstract with function candidates and known values naming copied graphs renamed.
  AbsPtr remap_abs(const AbsPtr& a) {
    if (!a || graph_map.empty()) return a;
    bool changed = false;
    Abstract b = *a;
    if (b.value) b.value = remap_value(*b.value, &changed);
    for (AbsPtr& e : b.elems) {
      AbsPtr ne = remap_abs(e);
      changed = changed || ne != e;
      e = ne;
    }
    for (FuncCandidate& f : b.funcs) {
      f.fn = remap_value(f.fn, &changed);
      for (AbsPtr& e : f.bound) {
        AbsPtr ne = remap_abs(e);
        changed = changed || ne != e;
        e = ne;
      }
    }
    if (!changed) return a;
    return std::make_shared<const Abstract>(std::move(b));
  }

 private:
  Module& m_;
};

}  // namespace

FuncGraph* clone_graph(FuncGraph* g, std::unordered_map<Node*, Node*>* map) {
  MC_ASSERT(g != nullptr && g->output() != nullptr, "clone_graph: graph without output");
  Module& m = *g->module();
  std::vector<FuncGraph*> nested = nested_graphs(g);
  Cloner cl(m);
  FuncGraph* copy = cl.new_copy(g);
  for (FuncGraph* h : nested) cl.new_copy(h);
  cl.copy_nodes();
  for (FuncGraph* src : cl.sources)
    if (cl.graph_map.count(src)) cl.graph_map[src]->set_output(cl.remap(src->output()));
  if (map != nullptr)
    for (auto& [o, n] : cl.map) (*map)[o] = n;
  return copy;
}

Node* inline_call(FuncGraph* caller, CNode* call) {
  MC_ASSERT(call != nullptr && call->called_graph() != nullptr,
            "inline_call: the callee is not a graph constant");
  return inline_call(caller, call, nested_graphs(call->called_graph()));
}

Node* inline_call(FuncGraph* caller, CNode* call, const std::vector<FuncGraph*>& nested) {
  MC_ASSERT(caller != nullptr && call != nullptr && call->graph() == caller);
  FuncGraph* callee = call->called_graph();
  MC_ASSERT(callee != nullptr, "inline_call: the callee is not a graph constant");
  MC_ASSERT(callee->output() != nullptr, "inline_call: @", callee->name(), " has no output");
  MC_ASSERT(call->size() - 1 == callee->params().size(), "inline_call: @", callee->name(),
            " takes ", callee->params().size(), " arguments, the call passes ", call->size() - 1);
  Cloner cl(*caller->module());
  for (size_t i = 0; i < callee->params().size(); ++i)
    cl.map[callee->param(i)] = call->input(i + 1);
  cl.add_source(callee, caller);
  for (FuncGraph* h : nested) cl.new_copy(h);
  cl.copy_nodes();
  for (FuncGraph* src : cl.sources)
    if (cl.graph_map.count(src)) cl.graph_map[src]->set_output(cl.remap(src->output()));
  // The copies of library code name the user's call (ir/source_files.h).
  for (auto& [from, to] : cl.map)
    if (from->is_cnode() && to->is_cnode() && to != from)
      to->set_span(inlined_span(to->span(), call->span()));
  return cl.remap(callee->output());
}

}  // namespace mycel::ir
