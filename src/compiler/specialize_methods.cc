// Bound methods as graph values (specialize_impl.h: source_graph, runtime_closures_). A
// Cell's bound method (`self._draw`) is a constant closure over the front end's graph of its
// function and `self`; every call of it specialises it through the constant, so the constant
// itself must not stay in the output module: patch_placeholders replaces one passed to a
// parameter that stands for it by None, and one chosen at run time (a switch between two
// methods) by the partial application of its one specialisation to `self`, recorded here
// when call_union specialises it.
#include "compiler/specialize_impl.h"

namespace mycel::ir::spec {

const FuncGraph* Specializer::source_graph(const Value& v) const {
  switch (v.kind()) {
    case ValueKind::Graph:
      return v.as_graph()->module() != &out_ ? v.as_graph() : nullptr;
    case ValueKind::Closure: {
      if (const FuncGraph* g = source_graph(v.as_closure().fn)) return g;
      for (const Value& a : v.as_closure().args)
        if (const FuncGraph* g = source_graph(a)) return g;
      return nullptr;
    }
    case ValueKind::Tuple:
    case ValueKind::List:
      for (const Value& e : v.items())
        if (const FuncGraph* g = source_graph(e)) return g;
      return nullptr;
    case ValueKind::Dict:
      for (const Value& e : v.as_dict().values)
        if (const FuncGraph* g = source_graph(e)) return g;
      return nullptr;
    default:
      return nullptr;
  }
}

void Specializer::note_runtime_closure(const FuncCandidate& cand, FuncGraph* spec) {
  if (source_graph(cand.fn) == nullptr || cand.context != nullptr) return;
  std::vector<Value> args;
  for (const AbsPtr& b : cand.bound) {
    if (!b->value) return;
    args.push_back(*b->value);
  }
  Value v = Value::closure(cand.fn, std::move(args));
  for (auto& [w, s] : runtime_closures_)
    if (w == v) {
      if (s != spec) s = nullptr;
      return;
    }
  runtime_closures_.emplace_back(std::move(v), spec);
}

Node* Specializer::runtime_closure(FuncGraph* where, const Value& v, const SourceSpan& sp) {
  if (!v.is(ValueKind::Closure)) return nullptr;
  for (const auto& [w, spec] : runtime_closures_) {
    if (!(w == v)) continue;
    if (spec == nullptr) return nullptr;
    FuncCandidate cand{Value::graph(spec), {}, nullptr};
    Node* g = out_.value(Value::graph(spec), sp);
    g->set_abstract(Abstract::func({FuncCandidate{Value::graph(spec), {}, nullptr}}));
    std::vector<Node*> in{constant(Value::builtin(Builtin::Partial), sp), g};
    for (const Value& a : v.as_closure().args) {
      in.push_back(constant(a, sp));
      cand.bound.push_back(in.back()->abstract());
    }
    CNode* n = out_.cnode(where, std::move(in), sp);
    n->set_abstract(Abstract::func({std::move(cand)}));
    return n;
  }
  return nullptr;
}

}  // namespace mycel::ir::spec
