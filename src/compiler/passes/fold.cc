// fold: constant folding. In each graph, in topological order (so chains fold in one run):
//
//   Prim(c1, ..., cn)             -> c       when every input is a constant tensor of at most
//                                            kMaxFoldNumel elements, so is every output, and
//                                            the op has no effect (kEffectFlags); run at
//                                            compile time by the eager dispatcher (run_op).
//                                            Multi-output ops fold to a constant tuple.
//   op(k1, k2)                    -> k       scalar builtins (add ... rshift, not, truth,
//                                            cast_scalar) on constant scalars, with Python's
//                                            semantics; cases Python raises on (x // 0, int
//                                            overflow of int64) are left to run time.
//   scalar_to_tensor(k, dtype)    -> constant 0-d tensor;  tensor_to_scalar(c) -> scalar
//   getitem(make_tuple(a, b), 1)  -> b       (make_list too; make_dict by constant key)
//   getitem((k0, k1), 1)          -> k1      a constant tuple, list or dict
//   len(make_tuple(a, b))         -> 2       (make_list, a constant sequence too)
//   partial(@g, c...)(x...)       -> @g(c..., x...)   a closure called where it is made (what
//                                            AD's bprops become once getitem folds), so
//                                            inline can take it
//
// A fold that would raise (an index out of range, a kernel error) is not done: the error is
// reported at run time with the user's line. The new constant's abstract is
// Abstract::constant of its value and must match the node's dtype and shape.
// Pre: specialised IR. Post: the same program with the folded nodes unreachable.
#include <optional>

#include "base/error.h"
#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"
#include "runtime/eager.h"
#include "runtime/vm.h"
#include "tensor/dynamic_shape.h"

namespace mycel::compiler {

using namespace ir;

namespace {

constexpr int64_t kMaxFoldNumel = int64_t{1} << 16;

bool is_int_like(const Value& v) { return v.is(ValueKind::Int) || v.is(ValueKind::Bool); }

// When a builtin folds: the `fold` column of ir/builtins.def names one of these predicates
// on its constant arguments.
using Args = std::vector<const Value*>;

// Every argument a scalar or a string.
bool fold_scalars(const Args& in) {
  for (const Value* v : in)
    if (!v->is_scalar() && !v->is(ValueKind::Str)) return false;
  return true;
}

// Identity is defined for None and the bools; `1 is 1` is CPython's choice.
bool fold_identity(const Args& in) {
  return in.size() == 2 && ((in[0]->is_none() || in[1]->is_none()) ||
                            (in[0]->is(ValueKind::Bool) && in[1]->is(ValueKind::Bool)));
}

// Plain data: scalars, strings, None and tuples/lists of them.
bool is_data(const Value& v) {
  if (v.is_scalar() || v.is(ValueKind::Str) || v.is_none()) return true;
  if (!v.is_sequence()) return false;
  for (const Value& e : v.items())
    if (!is_data(e)) return false;
  return true;
}

bool fold_data(const Args& in) {
  for (const Value* v : in)
    if (!is_data(*v)) return false;
  return true;
}

bool fold_to_tensor(const Args& in) {
  return in.size() == 2 && in[0]->is_scalar() && in[1]->is(ValueKind::DType);
}

bool fold_to_scalar(const Args& in) {
  return in.size() == 1 && in[0]->is(ValueKind::Tensor) && in[0]->as_tensor().numel() == 1;
}

bool no_fold(const Args&) { return false; }

using FoldPredicate = bool (*)(const Args&);
constexpr FoldPredicate kFolds[] = {
#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags) &fold,
#include "ir/builtins.def"
#undef BUILTIN
};

// Scalar builtins fold through the executor's own implementation (vm::run_builtin), so
// compile time and run time agree on Python's semantics; where Python would raise (division
// by zero, overflow) nothing folds and the error happens at run time, on that path only.
std::optional<Value> fold_builtin(Builtin b, const Args& in) {
  if (!kFolds[static_cast<size_t>(b)](in)) return std::nullopt;
  std::vector<Value> args;
  for (const Value* v : in) args.push_back(*v);
  try {
    return vm::run_builtin(b, args, nullptr);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) throw;
    return std::nullopt;
  }
}

// ---------------------------------------------------------------- structure

// getitem on make_tuple / make_list / make_dict or on a constant sequence or dict.
Node* fold_getitem(Module& m, CNode* c) {
  if (c->size() != 3) return nullptr;
  Node* seq = c->input(1);
  const Value* key = detail::const_value(c->input(2));
  if (key == nullptr) return nullptr;
  auto index = [&](size_t n) -> std::optional<size_t> {
    if (!is_int_like(*key)) return std::nullopt;
    int64_t i = key->as_int();
    if (i < 0) i += static_cast<int64_t>(n);
    if (i < 0 || i >= static_cast<int64_t>(n)) return std::nullopt;
    return static_cast<size_t>(i);
  };
  if (seq->is_cnode()) {
    auto* s = static_cast<CNode*>(seq);
    if (s->is_builtin(Builtin::MakeTuple) || s->is_builtin(Builtin::MakeList)) {
      auto i = index(s->size() - 1);
      return i ? s->input(*i + 1) : nullptr;
    }
    if (s->is_builtin(Builtin::MakeDict)) {
      for (size_t k = 1; k + 1 < s->size(); k += 2) {
        const Value* kv = detail::const_value(s->input(k));
        if (kv == nullptr) return nullptr;
        if (*kv == *key) return s->input(k + 1);
      }
    }
    return nullptr;
  }
  const Value* sv = detail::const_value(seq);
  if (sv == nullptr) return nullptr;
  std::optional<Value> elem;
  if (sv->is_sequence()) {
    if (auto i = index(sv->items().size())) elem = sv->items()[*i];
  } else if (sv->is(ValueKind::Dict)) {
    const DictData& d = sv->as_dict();
    for (size_t k = 0; k < d.keys.size(); ++k)
      if (d.keys[k] == *key) elem = d.values[k];
  }
  if (!elem) return nullptr;
  ValueNode* v = m.value(*elem, c->span());
  v->set_abstract(Abstract::constant(*elem));
  return v;
}

// len of make_tuple / make_list or of a constant sequence (the AD's own len of a tuple of
// cotangents, known once its structure folded: compiler/ad/k_transform.cc, cot_pad).
Node* fold_len(Module& m, CNode* c) {
  if (c->size() != 2) return nullptr;
  Node* seq = c->input(1);
  std::optional<size_t> n;
  if (detail::is_builtin_call(seq, Builtin::MakeTuple) ||
      detail::is_builtin_call(seq, Builtin::MakeList))
    n = static_cast<CNode*>(seq)->size() - 1;
  else if (const Value* sv = detail::const_value(seq); sv != nullptr && sv->is_sequence())
    n = sv->items().size();
  if (!n) return nullptr;
  Value r = Value::integer(static_cast<int64_t>(*n));
  ValueNode* v = m.value(r, c->span());
  v->set_abstract(Abstract::constant(r));
  return v;
}

bool small_tensor_abs(const AbsPtr& a) {
  if (a == nullptr) return false;
  // A dynamic shape (-1 dims) is never small: its size is known at run time only.
  if (a->kind == AbsKind::Tensor) return !is_dynamic(a->shape) && numel(a->shape) <= kMaxFoldNumel;
  if (a->kind == AbsKind::Tuple) {
    for (const AbsPtr& e : a->elems)
      if (e == nullptr || e->kind != AbsKind::Tensor || is_dynamic(e->shape) ||
          numel(e->shape) > kMaxFoldNumel)
        return false;
    return true;
  }
  return false;
}

bool same_meta(const Tensor& t, const AbsPtr& a) {
  return a != nullptr && a->kind == AbsKind::Tensor && a->dtype == t.dtype() &&
         a->shape == t.shape();
}

Node* fold_prim(Module& m, CNode* c, const PrimData& p) {
  if ((p.op->flags & kEffectFlags) != 0 || !small_tensor_abs(c->abstract())) return nullptr;
  std::vector<Tensor> inputs;
  for (size_t i = 1; i < c->size(); ++i) {
    const Value* v = detail::const_value(c->input(i));
    if (v == nullptr || !v->is(ValueKind::Tensor) || v->as_tensor().numel() > kMaxFoldNumel)
      return nullptr;
    inputs.push_back(v->as_tensor());
  }
  TensorList out;
  try {
    out = run_op(*p.op, inputs, p.attrs);
  } catch (const Error&) {
    return nullptr;  // left to run time, where the error names the user's line
  }
  // Constants never alias each other: a view of an input becomes its own copy.
  std::vector<Value> values;
  for (const Tensor& t : out) {
    bool aliases = false;
    for (const Tensor& in : inputs) aliases = aliases || t.storage() == in.storage();
    values.push_back(Value::tensor(aliases ? t.clone() : t));
  }
  const AbsPtr& a = c->abstract();
  Value result;
  if (a->kind == AbsKind::Tensor) {
    if (values.size() != 1 || !same_meta(values[0].as_tensor(), a)) return nullptr;
    result = values[0];
  } else {
    if (values.size() != a->elems.size()) return nullptr;
    for (size_t i = 0; i < values.size(); ++i)
      if (!same_meta(values[i].as_tensor(), a->elems[i])) return nullptr;
    result = Value::tuple(std::move(values));
  }
  ValueNode* v = m.value(result, c->span());
  v->set_abstract(Abstract::constant(result));
  return v;
}

Node* fold_node(Module& m, CNode* c) {
  const Value* callee = detail::const_value(c->callee());
  if (callee == nullptr) return nullptr;
  if (callee->is(ValueKind::Prim)) return fold_prim(m, c, callee->as_prim());
  if (!callee->is(ValueKind::Builtin)) return nullptr;
  Builtin b = callee->as_builtin();
  if (b == Builtin::GetItem) return fold_getitem(m, c);
  if (b == Builtin::Len) return fold_len(m, c);
  std::vector<const Value*> in;
  for (size_t i = 1; i < c->size(); ++i) {
    const Value* v = detail::const_value(c->input(i));
    if (v == nullptr) return nullptr;
    in.push_back(v);
  }
  std::optional<Value> r = fold_builtin(b, in);
  if (!r) return nullptr;
  if (r->is(ValueKind::Tensor) && !same_meta(r->as_tensor(), c->abstract())) return nullptr;
  ValueNode* v = m.value(*r, c->span());
  v->set_abstract(Abstract::constant(*r));
  return v;
}

}  // namespace

namespace {
// partial(@g, c...)(x...) -> @g(c..., x...), in place.
bool call_partial_directly(CNode* c) {
  if (!detail::is_builtin_call(c->callee(), Builtin::Partial)) return false;
  auto* p = static_cast<CNode*>(c->callee());
  const Value* g = detail::const_value(p->input(1));
  if (g == nullptr || !g->is(ValueKind::Graph)) return false;
  std::vector<Node*> in(p->inputs().begin() + 1, p->inputs().end());
  in.insert(in.end(), c->inputs().begin() + 1, c->inputs().end());
  c->set_inputs(std::move(in));
  return true;
}
}  // namespace

bool fold(Module& m, FuncGraph* root) {
  detail::RewritePass pass(m, root);
  // A tensor an op writes in place stays computed: a constant would be one buffer that
  // every call writes (`z = ops.zeros(3); ops.assign_add(z, x)` returned x + x the second
  // time), where the program makes a fresh one per call. Nor does an op reading a constant
  // that an op writes (a global Tensor) run at compile time: it would read the value from
  // before every write.
  const std::unordered_set<const Node*> written = detail::written_storages(pass.w.nodes);
  return pass.run([&](CNode* c) {
    bool edited = call_partial_directly(c);
    if (written.count(c) != 0) return edited;
    for (size_t i = 1; i < c->size(); ++i)
      if (written.count(detail::storage_root(c->input(i))) != 0) return edited;
    if (Node* r = fold_node(m, c)) pass.rw.replace(c, r);
    return edited;
  });
}

}  // namespace mycel::compiler
