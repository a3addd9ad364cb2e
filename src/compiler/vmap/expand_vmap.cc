// expand_vmap: the batching pass (design in compiler/vmap/vmap.h). Each vmap whose target
// reaches no vjp or vmap is replaced by a call of the batched target:
//
//   %y = vmap(partial(@W, %c...), (B, in_axes, out_axes), %x...)
//     ->
//   %r = @V_W(%c..., move_to_front(%x)...)        V_W: W batched (batch_graph.h)
//   %y = to_out_axes(%r)
#include <unordered_set>

#include "base/error.h"
#include "compiler/ad/k_transform.h"
#include "compiler/passes/pass_util.h"
#include "compiler/vmap/batch.h"
#include "compiler/vmap/batch_graph.h"
#include "compiler/vmap/vmap.h"

namespace mycel::compiler {

using namespace ir;

namespace {

// x (batched abstract a) with each tensor's batch moved from its in_axes axis to axis 0.
Node* to_front(IrBuilder& b, Node* x, const AbsPtr& a, const Value& axes, BDims* d) {
  if (axes.is(ValueKind::None)) {
    *d = BDims::leaf(false);
    return x;
  }
  if (axes.is(ValueKind::Tuple)) {
    std::vector<Node*> el;
    std::vector<BDims> ds;
    for (size_t i = 0; i < axes.items().size(); ++i) {
      BDims e;
      el.push_back(to_front(b, seq_item(b, x, i), a->elems[i], axes.items()[i], &e));
      ds.push_back(e);
    }
    *d = BDims::of(std::move(ds));
    if (!d->any()) *d = BDims::leaf(false);
    if (a->kind == AbsKind::Tuple) return b.make_tuple(el);
    std::vector<AbsPtr> ea;
    for (Node* n : el) ea.push_back(n->abstract());
    return b.builtin(Builtin::MakeList, el, Abstract::list(std::move(ea)));
  }
  *d = BDims::leaf(true);
  return move_axis(b, x, axes.as_int(), 0);
}

// The batched result r (per-example abstract a, batched as d) with each tensor's batch moved
// to its out_axes axis (broadcast first when unbatched).
Node* to_out(IrBuilder& b, Node* r, const AbsPtr& a, const BDims& d, const Value& axes,
             int64_t size, const CNode* v) {
  if (axes.is(ValueKind::Tuple)) {
    std::vector<Node*> el;
    for (size_t i = 0; i < axes.items().size(); ++i) {
      BDims e = d.seq ? d.elems[i] : BDims::leaf(false);
      el.push_back(to_out(b, seq_item(b, r, i), a->elems[i], e, axes.items()[i], size, v));
    }
    if (a->kind == AbsKind::Tuple) return b.make_tuple(el);
    std::vector<AbsPtr> ea;
    for (Node* n : el) ea.push_back(n->abstract());
    return b.builtin(Builtin::MakeList, el, Abstract::list(std::move(ea)));
  }
  if (axes.is(ValueKind::None)) {
    if (d.any())
      throw Error(ErrorKind::Value,
                  str("vmap: out_axes is None for an output that depends on the batched inputs "
                      "(",
                      a->to_string(), "); give it an axis (", span_location(v->span()), ")"));
    return r;
  }
  Node* x = broadcast_dims(b, r, a, d, BDims::leaf(true), size);
  return move_axis(b, x, 0, axes.as_int());
}

}  // namespace

bool expand_vmap(Module& m, FuncGraph* root) {
  detail::Walk w = detail::walk(root);
  std::vector<CNode*> vmaps;
  std::unordered_set<FuncGraph*> inner;
  for (CNode* c : w.nodes) {
    if (c->is_builtin(Builtin::Vmap)) vmaps.push_back(c);
    if (c->is_builtin(Builtin::Vmap) || c->is_builtin(Builtin::Vjp)) inner.insert(c->graph());
  }
  if (vmaps.empty()) return false;
  detail::PassManager mng(m, root);
  bool changed = false;
  for (CNode* v : vmaps) {
    FuncGraph* target = nullptr;
    std::vector<Node*> caps;
    const bool closure = as_closure(v->input(1), &target, &caps);
    MC_ASSERT(closure, "expand_vmap: the target is not a graph or a closure");
    bool nested = false;
    for (FuncGraph* h : m.reachable_graphs(target)) nested = nested || inner.count(h) > 0;
    if (nested) continue;
    normalize_calls(m, target);

    const Value& spec = *detail::const_value(v->input(2));
    const int64_t size = spec.items()[0].as_int();
    const std::vector<Value>& in_axes = spec.items()[1].items();
    IrBuilder b(m, v->graph(), v->span());
    std::vector<BDims> dims(caps.size(), BDims::leaf(false));
    std::vector<Node*> args(caps.begin(), caps.end());
    for (size_t i = 0; i < in_axes.size(); ++i) {
      Node* x = v->input(3 + i);
      BDims d;
      args.push_back(to_front(b, x, x->abstract(), in_axes[i], &d));
      dims.push_back(d);
    }
    Batcher bt(m, size);
    Batcher::Batched r = bt.batch(target, dims);
    std::vector<Node*> call{m.value(Value::graph(r.g), v->span())};
    call[0]->set_abstract(Abstract::func({FuncCandidate{Value::graph(r.g), {}, nullptr}}));
    for (size_t i = 0; i < args.size(); ++i)
      call.push_back(
          broadcast_dims(b, args[i], target->param(i)->abstract(), dims[i], r.params[i], size));
    const AbsPtr& out_abs = target->output()->abstract();
    CNode* y = m.cnode(v->graph(), std::move(call), v->span());
    y->set_abstract(batched_abs(out_abs, r.out, size));
    Node* out = to_out(b, y, out_abs, r.out, spec.items()[2], size, v);
    MC_ASSERT(*out->abstract() == *v->abstract(), "expand_vmap: made ",
              out->abstract()->to_string(), " for ", v->abstract()->to_string());
    mng->replace(v, out);
    changed = true;
  }
  mng->invalidate();
  return changed;
}

}  // namespace mycel::compiler
