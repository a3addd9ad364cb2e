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
// Once no vjp is left, each custom_vjp(f, bprop, x...) (a Cell with its own bprop) becomes the
// plain call f(x...).
//
// Innermost first: a vjp inside another's target is expanded first, in this call or the
// next; the pipeline (compiler/pipeline.cc) optimises and lifts between rounds, so the outer
// target is a plain lifted program again when its turn comes. Pre: lifted, specialised IR.
// Post: specialised IR with free variables in the new bprop graphs (lift follows).
#include <unordered_set>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/ad/k_transform.h"
#include "compiler/passes/pass_util.h"

namespace mycel::compiler {

using namespace ir;

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
  bool changed = false;
  for (CNode* v : vjps) {
    FuncGraph* target = nullptr;
    std::vector<Node*> caps;
    const bool closure = as_closure(v->input(1), &target, &caps);
    MC_ASSERT(closure, "expand_vjp: the vjp's function is not a graph or a closure");
    bool inner = false;
    for (FuncGraph* h : m.reachable_graphs(target)) inner = inner || with_vjp.count(h) > 0;
    if (inner) continue;
    normalize_calls(m, target);
    follow_writes(m, target);
    FuncGraph* kg = k.k_graph(target);

    FuncGraph* s = v->graph();
    IrBuilder b(m, s);
    std::vector<Node*> call{m.value(Value::graph(kg), v->span())};
    call[0]->set_abstract(Abstract::func({FuncCandidate{Value::graph(kg), {}, nullptr}}));
    call.insert(call.end(), caps.begin(), caps.end());
    size_t nargs = v->size() - 3;
    for (size_t i = 0; i < nargs; ++i) call.push_back(v->input(3 + i));
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
