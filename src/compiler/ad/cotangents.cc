// What the K transform (k_transform.cc) works with: the cotangent abstracts (ad.h: cot_abs,
// zero_cot, cot_item, carries_cot, differentiable) and closures (k_transform.h: as_closure,
// normalize_calls, which makes calls of closures direct calls first).
#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/ad/ir_builder.h"
#include "compiler/ad/k_transform.h"
#include "compiler/passes/pass_util.h"
#include "ir/manager.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir {

// ---------------------------------------------------------------- cotangent abstracts

namespace {
const AbsPtr& none_abs() {
  static const AbsPtr a = Abstract::constant(Value());
  return a;
}
}  // namespace

AbsPtr cot_abs(const AbsPtr& a) {
  if (!a) return none_abs();
  switch (a->kind) {
    case AbsKind::Tensor:
      return has_cotangent(a->dtype) ? Abstract::tensor(a->dtype, a->shape) : none_abs();
    case AbsKind::Tuple:
    case AbsKind::List:
    case AbsKind::Dict: {
      std::vector<AbsPtr> el;
      for (const AbsPtr& e : a->elems) el.push_back(cot_abs(e));
      return Abstract::tuple(std::move(el));
    }
    case AbsKind::Func:  // None or a tuple over the captured values, at run time
    case AbsKind::Any:   // a cotangent of such (a gradient differentiated again)
      return Abstract::any();
    default:
      return none_abs();
  }
}

Node* zero_cot(IrBuilder& b, const AbsPtr& a, Node* like) {
  if (a->kind == AbsKind::Tensor) {
    if (is_dynamic(a->shape)) {
      MC_CHECK(like != nullptr && like->abstract() && like->abstract()->kind == AbsKind::Tensor,
               Value, "a zero gradient of the dynamic shape ", a->to_string(),
               " is needed where no tensor of that shape is at hand; this program cannot be "
               "differentiated with dynamic shapes.");
      return b.cast(b.zeros_like(like), a->dtype);
    }
    Attrs at;
    at.set("dtype", a->dtype);
    at.set("shape", std::vector<int64_t>(a->shape.begin(), a->shape.end()));
    at.set("value", 0.0);
    return b.prim(OpId::Fill, {}, at);
  }
  if (a->kind == AbsKind::Tuple) {
    std::vector<Node*> el;
    const bool tuple_like = like != nullptr && like->abstract() &&
                            like->abstract()->kind == AbsKind::Tuple &&
                            like->abstract()->elems.size() == a->elems.size();
    for (size_t i = 0; i < a->elems.size(); ++i)
      el.push_back(zero_cot(b, a->elems[i], tuple_like ? b.tuple_get(like, i) : nullptr));
    return b.make_tuple(el);
  }
  return b.constant(Value());
}

Node* cot_item(IrBuilder& b, Node* x, size_t i, const AbsPtr& want) {
  if (compiler::detail::is_builtin_call(x, Builtin::MakeTuple))
    return static_cast<CNode*>(x)->input(i + 1);
  if (x->abstract()->kind == AbsKind::Any)
    return b.builtin(Builtin::GetItem, {x, b.constant(Value::integer(static_cast<int64_t>(i)))},
                     want ? want : Abstract::any());
  return b.tuple_get(x, i);
}

bool carries_cot(const AbsPtr& a) {
  if (!a) return false;
  if (a->kind == AbsKind::Func || a->kind == AbsKind::Any) return true;
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List || a->kind == AbsKind::Dict)
    for (const AbsPtr& e : a->elems)
      if (carries_cot(e)) return true;
  return differentiable(a);
}

bool differentiable(const AbsPtr& a) {
  if (!a) return false;
  if (a->kind == AbsKind::Tensor) return has_cotangent(a->dtype);
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List || a->kind == AbsKind::Dict)
    for (const AbsPtr& e : a->elems)
      if (differentiable(e)) return true;
  return false;
}

namespace {

using compiler::detail::const_value;
using compiler::detail::is_builtin_call;

}  // namespace

FuncGraph* graph_const(const Node* n) {
  const Value* v = const_value(n);
  return v && v->is(ValueKind::Graph) ? v->as_graph() : nullptr;
}

ValueNode* graph_ref(Module& m, FuncGraph* g, SourceSpan sp) {
  ValueNode* v = m.value(Value::graph(g), sp);
  v->set_abstract(Abstract::func({FuncCandidate{Value::graph(g), {}, nullptr}}));
  return v;
}

bool as_closure(Node* f, FuncGraph** g, std::vector<Node*>* caps) {
  if (FuncGraph* h = graph_const(f)) {
    *g = h;
    caps->clear();
    return true;
  }
  if (is_builtin_call(f, Builtin::Partial)) {
    auto* p = static_cast<CNode*>(f);
    if (FuncGraph* h = graph_const(p->input(1))) {
      *g = h;
      caps->assign(p->inputs().begin() + 2, p->inputs().end());
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------- normalisation

bool normalize_calls(Module& m, FuncGraph* root) {
  bool changed = false;
  for (FuncGraph* g : m.reachable_graphs(root)) {
    for (CNode* c : m.toposort(g)) {
      Node* callee = c->callee();
      FuncGraph* h = nullptr;
      std::vector<Node*> caps;
      // partial(@h, caps...)(x...) -> @h(caps..., x...)
      if (is_builtin_call(callee, Builtin::Partial) && as_closure(callee, &h, &caps)) {
        std::vector<Node*> in{graph_ref(m, h, callee->span())};
        in.insert(in.end(), caps.begin(), caps.end());
        in.insert(in.end(), c->inputs().begin() + 1, c->inputs().end());
        c->set_inputs(std::move(in));
        changed = true;
        continue;
      }
      // switch(k, F1, F2)(x...) with closures Fi = partial(@Ai, ci...) ->
      // switch(k, @A1', @A2')(c1..., c2..., x...), Ai' taking both capture lists.
      if (!is_builtin_call(callee, Builtin::Switch)) continue;
      auto* sw = static_cast<CNode*>(callee);
      FuncGraph* a[2];
      std::vector<Node*> cap[2];
      if (!as_closure(sw->input(2), &a[0], &cap[0]) || !as_closure(sw->input(3), &a[1], &cap[1]))
        continue;
      if (cap[0].empty() && cap[1].empty()) continue;
      std::vector<Node*> args(c->inputs().begin() + 1, c->inputs().end());
      FuncGraph* w[2];
      for (int k = 0; k < 2; ++k) {
        w[k] = m.new_graph(a[k]->name() + "_sw", a[k]->span());
        std::vector<Node*> own[2];
        for (int j = 0; j < 2; ++j)
          for (Node* x : cap[j]) {
            Parameter* p = m.add_param(w[k], x->name(), x->span());
            p->set_abstract(x->abstract());
            own[j].push_back(p);
          }
        std::vector<Node*> call{graph_ref(m, a[k])};
        call.insert(call.end(), own[k].begin(), own[k].end());
        for (Node* x : args) {
          Parameter* p = m.add_param(w[k], x->name(), x->span());
          p->set_abstract(x->abstract());
          call.push_back(p);
        }
        CNode* r = m.cnode(w[k], std::move(call), c->span());
        r->set_abstract(c->abstract());
        w[k]->set_output(r);
      }
      CNode* nsw = m.call_builtin(
          g, Builtin::Switch, {sw->input(1), graph_ref(m, w[0]), graph_ref(m, w[1])}, sw->span());
      nsw->callee()->set_abstract(Abstract::constant(Value::builtin(Builtin::Switch)));
      nsw->set_abstract(Abstract::func({FuncCandidate{Value::graph(w[0]), {}, nullptr},
                                        FuncCandidate{Value::graph(w[1]), {}, nullptr}}));
      std::vector<Node*> in{nsw};
      in.insert(in.end(), cap[0].begin(), cap[0].end());
      in.insert(in.end(), cap[1].begin(), cap[1].end());
      in.insert(in.end(), args.begin(), args.end());
      c->set_inputs(std::move(in));
      changed = true;
    }
  }
  if (changed && m.manager() != nullptr) m.manager()->invalidate();
  return changed;
}

}  // namespace mycel::ir
