// expand_vjp: the AD pass. Each vjp whose target reaches no other vjp is replaced by a call
// of the K transform of its target (compiler/ad/k_transform.h):
//
//   %t = vjp(partial(@f, %c...), make_tuple(%w...), %x...)
//     ->
//   %r = @K_f(%c..., %x...)
//   %t = make_tuple(getitem(%r, 0), @vjp_bprop)
//   graph @vjp_bprop(%dout) {                        (nested: reads %r, %c, %w)
//     %dd = getitem(%r, 1)(%dout)                    one cotangent per parameter of f
//     return make_tuple(%dd[k], ..., %d_w...)        the x's, then each weight's: the sum of
//   }                                                the cotangents of the captures that are
//                                                    that weight (zeros if none)
//
// Function values among %c and %x (a pullback made outside the gradient that uses it) are
// passed as K's forward calls them: their K (KValues below). A vjp whose function values
// are built from another vjp's pullback waits for the next round.
//
// Once no vjp is left, each custom_vjp(f, bprop, x...) (a Cell with its own bprop) becomes the
// plain call f(x...).
//
// Innermost first: a vjp inside another's target is expanded first, in this call or the
// next; the pipeline (compiler/pipeline.cc) optimises and lifts between rounds, so the outer
// target is a plain lifted program again when its turn comes. Pre: lifted, specialised IR.
// Post: specialised IR with free variables in the new bprop graphs (lift follows).
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/ad/k_transform.h"
#include "compiler/passes/pass_util.h"
#include "ir/walk.h"

namespace mycel::compiler {

using namespace ir;

namespace {

// Whether values of abstract a hold a function value (a closure, a pullback).
bool holds_func(const AbsPtr& a) {
  if (!a) return false;
  if (a->kind == AbsKind::Func) return true;
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List || a->kind == AbsKind::Dict)
    for (const AbsPtr& e : a->elems)
      if (holds_func(e)) return true;
  return false;
}

// The function values a differentiated graph receives (its captures and arguments: a
// pullback of ops.vjp made outside a gradient and called inside it) as K's forward calls
// them: K(g) for each graph g in them, whose call returns (out, bprop). Built where the
// value is built, from the same pieces: graph constants, partial, tuples, getitem, depend,
// switch. A function value made otherwise (returned by a call, a parameter of a loop) is a
// TypeError naming the line.
class KValues {
 public:
  // `nodes`: the live IR's CNodes, where the callers of a graph are found.
  KValues(Module& m, KTransform& k, const std::vector<CNode*>& nodes) : m_(m), k_(k) {
    for (CNode* c : nodes) {
      size_t first = 0;  // the input passing the graph's first parameter
      FuncGraph* g = nullptr;
      if (FuncGraph* h = graph_of(c->callee())) {
        g = h, first = 1;
      } else if ((c->is_builtin(Builtin::Partial) || c->is_builtin(Builtin::Vjp)) &&
                 c->size() > 1 && graph_of(c->input(1)) != nullptr) {
        g = graph_of(c->input(1)), first = c->is_builtin(Builtin::Vjp) ? 3 : 2;
      }
      if (g != nullptr) sites_[g].push_back({c, first});
      for (size_t i = g != nullptr ? 2 : 1; i < c->size(); ++i)  // a graph passed as a value
        if (FuncGraph* h = graph_of(c->input(i)); h != nullptr && !(g && i == 1))
          escapes_.insert(h);
    }
  }

  // Whether x's function values are built from a vjp not yet expanded (its pullback): the
  // vjp taking x waits for the next round, when they are plain graphs (`graphs_with_vjp`:
  // graphs holding a vjp or vmap, which K cannot take yet either).
  bool waits(Node* x, const std::unordered_set<FuncGraph*>& graphs_with_vjp) {
    std::vector<Node*> stack{x};
    std::unordered_set<Node*> seen;
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || !holds_func(n->abstract())) continue;
      std::vector<FuncGraph*> gs;
      if (const Value* v = detail::const_value(n)) graphs_in(*v, gs);
      for (FuncGraph* g : gs)
        for (FuncGraph* h : m_.reachable_graphs(g))
          if (graphs_with_vjp.count(h)) return true;
      if (n->is_param()) {  // what the callers pass
        for (auto [c, i] : sites(static_cast<Parameter*>(n))) stack.push_back(c->input(i));
        continue;
      }
      if (!n->is_cnode()) continue;
      auto* c = static_cast<CNode*>(n);
      if (c->is_builtin(Builtin::Vjp) || c->is_builtin(Builtin::Vmap)) return true;
      for (size_t i = 0; i < c->size(); ++i) stack.push_back(c->input(i));
    }
    return false;
  }

  // `use`: the gradient's line, which errors name.
  Node* of(Node* x, const SourceSpan& use) {
    if (!holds_func(x->abstract())) return x;
    auto it = done_.find(x);
    if (it != done_.end()) return it->second;
    Node* r = x->is_param() ? k_param(static_cast<Parameter*>(x), use) : make(x, use);
    done_[x] = r;
    return r;
  }

 private:
  static FuncGraph* graph_of(Node* n) {
    const Value* v = detail::const_value(n);
    return v != nullptr && v->is(ValueKind::Graph) ? v->as_graph() : nullptr;
  }

  // Where p's value comes from: (node, input) for each caller of p's graph; empty when not
  // every caller passes it (a closure called with it, the graph passed around as a value).
  std::vector<std::pair<CNode*, size_t>> sites(Parameter* p) {
    FuncGraph* g = p->graph();
    auto it = sites_.find(g);
    if (it == sites_.end() || escapes_.count(g)) return {};
    size_t k = 0;
    while (k < g->params().size() && g->param(k) != p) ++k;
    std::vector<std::pair<CNode*, size_t>> r;
    for (auto [c, first] : it->second) {
      if (first + k >= c->size()) return {};  // bound later, by a call of the closure
      r.push_back({c, first + k});
    }
    return r;
  }

  // A function-valued parameter p: a parameter after it receives K of what every caller
  // passes for p (K's forward inside the graph calls that one).
  Node* k_param(Parameter* p, const SourceSpan& use) {
    std::vector<std::pair<CNode*, size_t>> at = sites(p);
    if (at.empty()) unsupported(p, use, "a parameter its callers do not all pass");
    FuncGraph* g = p->graph();
    Parameter* q = m_.add_param(g, p->name() + "_k", p->span());
    q->set_abstract(k_.k_abs(p->abstract()));
    std::vector<Parameter*> ps;
    for (Parameter* x : g->params())
      if (x != q) {
        ps.push_back(x);
        if (x == p) ps.push_back(q);
      }
    g->set_params(std::move(ps));
    done_[p] = q;  // before the callers' values (a recursive graph passes it on)
    for (auto [c, i] : at) {
      Node* kv = of(c->input(i), use);
      std::vector<Node*> in = c->inputs();
      in.insert(in.begin() + static_cast<std::ptrdiff_t>(i) + 1, kv);
      c->set_inputs(std::move(in));
    }
    return q;
  }

  [[noreturn]] static void unsupported(Node* x, const SourceSpan& use, const char* what) {
    throw Error(ErrorKind::Type,
                str("cannot differentiate through a function value that a differentiated "
                    "function receives from outside (",
                    what,
                    "): graph mode differentiates through closures, tuples of them and "
                    "ops.vjp's pullbacks made in the function that takes the gradient; make "
                    "it there (",
                    span_location(use), ")\n", span_excerpt(use)));
    (void)x;
  }

  FuncGraph* k_of(FuncGraph* g) {
    normalize_calls(m_, g);
    follow_writes(m_, g);
    return k_.k_graph(g);
  }

  Node* make(Node* x, const SourceSpan& use) {
    if (const Value* v = detail::const_value(x)) {
      Value kv;
      if (v->is(ValueKind::Graph)) {
        kv = Value::graph(k_of(v->as_graph()));
      } else if (v->is(ValueKind::Closure) && v->as_closure().fn.is(ValueKind::Graph)) {
        kv =
            Value::closure(Value::graph(k_of(v->as_closure().fn.as_graph())), v->as_closure().args);
      } else {
        return x;
      }
      ValueNode* n = m_.value(kv, x->span());
      n->set_abstract(kv.is(ValueKind::Graph) ? Abstract::func({FuncCandidate{kv, {}, nullptr}})
                                              : Abstract::constant(kv));
      return n;
    }
    auto* c = x->is_cnode() ? static_cast<CNode*>(x) : nullptr;
    const bool structural =
        c != nullptr && (c->is_builtin(Builtin::Partial) || c->is_builtin(Builtin::MakeTuple) ||
                         c->is_builtin(Builtin::MakeList) || c->is_builtin(Builtin::GetItem) ||
                         c->is_builtin(Builtin::Depend) || c->is_builtin(Builtin::Switch));
    if (!structural) unsupported(x, use, "the result of a call");
    std::vector<Node*> in{c->callee()};
    for (size_t i = 1; i < c->size(); ++i) in.push_back(of(c->input(i), use));
    CNode* r = m_.cnode(c->graph(), std::move(in), c->span());
    r->set_abstract(k_.k_abs(c->abstract()));
    return r;
  }

  Module& m_;
  KTransform& k_;
  std::unordered_map<Node*, Node*> done_;
  std::unordered_map<FuncGraph*, std::vector<std::pair<CNode*, size_t>>> sites_;
  std::unordered_set<FuncGraph*> escapes_;  // graphs passed as values (callers unknown)
};

}  // namespace

bool expand_vjp(Module& m, FuncGraph* root) {
  detail::Walk w = detail::walk(root);
  std::vector<CNode*> vjps;
  std::unordered_set<FuncGraph*> with_vjp;
  for (CNode* c : w.nodes) {
    if (c->is_builtin(Builtin::Vjp)) vjps.push_back(c);
    // A vmap inside a target is expanded first too (compiler/vmap/vmap.h).
    if (c->is_builtin(Builtin::Vjp) || c->is_builtin(Builtin::Vmap)) with_vjp.insert(c->graph());
  }
  if (vjps.empty()) {
    // Differentiation is done: custom_vjp(f, bprop, x...) -> f(x...).
    bool changed = false;
    for (CNode* c : w.nodes)
      if (c->is_builtin(Builtin::CustomVjp)) {
        std::vector<Node*> in{c->input(1)};
        in.insert(in.end(), c->inputs().begin() + 3, c->inputs().end());
        c->set_inputs(std::move(in));
        changed = true;
      }
    if (changed && m.manager() != nullptr) m.manager()->invalidate();
    return changed;
  }
  detail::PassManager mng(m, root);
  KTransform k(m);
  KValues kv(m, k, w.nodes);
  // Decided before any is expanded: a vjp whose target holds another waits, and so does one
  // receiving a function value built from another's pullback (the next round, once that one
  // is expanded and lifted, passes the K of its plain graphs: KValues).
  std::unordered_set<CNode*> later;
  for (CNode* v : vjps) {
    FuncGraph* target = nullptr;
    std::vector<Node*> caps;
    const bool closure = as_closure(v->input(1), &target, &caps);
    MC_ASSERT(closure, "expand_vjp: the vjp's function is not a graph or a closure");
    bool wait = false;
    for (FuncGraph* h : m.reachable_graphs(target)) wait = wait || with_vjp.count(h) > 0;
    for (size_t i = 3; i < v->size(); ++i) caps.push_back(v->input(i));
    for (Node* x : caps) wait = wait || kv.waits(x, with_vjp);
    if (wait) later.insert(v);
  }
  bool changed = false;
  for (CNode* v : vjps) {
    if (later.count(v)) continue;
    FuncGraph* target = nullptr;
    std::vector<Node*> caps;
    as_closure(v->input(1), &target, &caps);
    normalize_calls(m, target);
    follow_writes(m, target);
    FuncGraph* kg = k.k_graph(target);

    FuncGraph* s = v->graph();
    IrBuilder b(m, s);
    std::vector<Node*> call{m.value(Value::graph(kg), v->span())};
    call[0]->set_abstract(Abstract::func({FuncCandidate{Value::graph(kg), {}, nullptr}}));
    // K_f calls the function values it receives as K's forward does: (out, bprop).
    for (Node* x : caps) call.push_back(kv.of(x, v->span()));
    size_t nargs = v->size() - 3;
    for (size_t i = 0; i < nargs; ++i) call.push_back(kv.of(v->input(3 + i), v->span()));
    CNode* r = m.cnode(s, std::move(call), v->span());
    const AbsPtr& out_abs = v->abstract()->elems[0];
    AbsPtr bp_abs = Abstract::func({FuncCandidate{Value::builtin(Builtin::Vjp), {}, nullptr}});
    r->set_abstract(Abstract::tuple({out_abs, bp_abs}));
    Node* out = b.tuple_get(r, 0);
    Node* bp = b.tuple_get(r, 1);

    FuncGraph* ad = m.new_graph("vjp_bprop", v->span());
    IrBuilder a(m, ad);
    Parameter* dout = m.add_param(ad, "dout", v->span());
    dout->set_abstract(cot_abs(out_abs));
    std::vector<AbsPtr> cots;
    for (Parameter* p : target->params()) cots.push_back(cot_abs(p->abstract()));
    CNode* dd = m.cnode(ad, {bp, dout}, v->span());
    dd->set_abstract(Abstract::tuple(cots));
    std::vector<Node*> res;
    for (size_t i = 0; i < nargs; ++i) res.push_back(cot_item(a, dd, caps.size() + i));
    Node* wt = v->input(2);
    std::vector<Node*> weights;
    if (wt->is_cnode()) {
      auto* t = static_cast<CNode*>(wt);
      weights.assign(t->inputs().begin() + 1, t->inputs().end());
    } else {
      const Value* tv = detail::const_value(wt);
      MC_ASSERT(tv && tv->is(ValueKind::Tuple) && tv->items().empty(),
                "expand_vjp: the weights are not a make_tuple");
    }
    for (Node* wn : weights) {
      Node* sum = nullptr;
      for (size_t i = 0; i < caps.size(); ++i)
        if (caps[i] == wn) {
          Node* di = cot_item(a, dd, i);
          sum = sum == nullptr ? di : a.add(sum, di);
        }
      res.push_back(sum != nullptr ? sum : zero_cot(a, cot_abs(wn->abstract())));
    }
    ad->set_output(a.make_tuple(res));
    Node* adref = m.value(Value::graph(ad), v->span());
    adref->set_abstract(Abstract::func({FuncCandidate{Value::graph(ad), {}, nullptr}}));
    CNode* t = m.call_builtin(s, Builtin::MakeTuple, {out, adref}, v->span());
    t->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::MakeTuple)));
    t->set_abstract(Abstract::tuple({out_abs, adref->abstract()}));
    mng->replace(v, t);
    changed = true;
  }
  mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
