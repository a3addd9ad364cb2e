// fold: constant folding. In each graph, in topological order (so chains fold in one run):
//
//   Prim(c1, ..., cn)             -> c       when every input is a constant tensor of at most
//                                            kMaxFoldNumel elements, so is every output, and
//                                            the op is neither F_RANDOM nor F_INPLACE; run at
//                                            compile time by the eager dispatcher (run_op).
//                                            Multi-output ops fold to a constant tuple.
//   op(k1, k2)                    -> k       scalar builtins (add ... rshift, not, truth,
//                                            cast_scalar) on constant scalars, with Python's
//                                            semantics; cases Python raises on (x // 0, int
//                                            overflow of int64) are left to run time.
//   scalar_to_tensor(k, dtype)    -> constant 0-d tensor;  tensor_to_scalar(c) -> scalar
//   getitem(make_tuple(a, b), 1)  -> b       (make_list too; make_dict by constant key)
//   getitem((k0, k1), 1)          -> k1      a constant tuple, list or dict
//
// A fold that would raise (an index out of range, a kernel error) is not done: the error is
// reported at run time with the user's line. The new constant's abstract is
// Abstract::constant of its value and must match the node's dtype and shape.
// Pre: specialised IR. Post: the same program with the folded nodes unreachable.
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "base/error.h"
#include "compiler/passes.h"
#include "compiler/passes/pass_util.h"
#include "runtime/eager.h"

namespace mycel::compiler {

using namespace ir;

namespace {

constexpr int64_t kMaxFoldNumel = int64_t{1} << 16;

// ---------------------------------------------------------------- Python scalar semantics

bool is_num(const Value& v) { return v.is_scalar(); }
bool is_int_like(const Value& v) { return v.is(ValueKind::Int) || v.is(ValueKind::Bool); }

std::optional<bool> truth(const Value& v) {
  switch (v.kind()) {
    case ValueKind::None:
      return false;
    case ValueKind::Bool:
    case ValueKind::Int:
      return v.as_int() != 0;
    case ValueKind::Float:
      return v.as_float() != 0;
    case ValueKind::Str:
      return !v.as_str().empty();
    case ValueKind::Tuple:
    case ValueKind::List:
      return !v.items().empty();
    case ValueKind::Dict:
      return !v.as_dict().keys.empty();
    default:
      return std::nullopt;
  }
}

// Python's float // and % (Objects/floatobject.c: float_divmod).
std::pair<double, double> float_divmod(double vx, double wx) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return {floordiv, mod};
}

// Python == between constants of the kinds folded here, or nullopt when unknown.
std::optional<bool> py_eq(const Value& a, const Value& b) {
  if (is_num(a) && is_num(b)) {
    if (is_int_like(a) && is_int_like(b)) return a.as_int() == b.as_int();
    return a.as_float() == b.as_float();
  }
  if (a.is(ValueKind::Str) && b.is(ValueKind::Str)) return a.as_str() == b.as_str();
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  bool a_simple = is_num(a) || a.is(ValueKind::Str);
  bool b_simple = is_num(b) || b.is(ValueKind::Str);
  if (a_simple && b_simple) return false;  // a number and a string
  return std::nullopt;
}

std::optional<Value> arith(Builtin op, const Value& a, const Value& b) {
  if (op == Builtin::Add && a.is(ValueKind::Str) && b.is(ValueKind::Str))
    return Value::string(a.as_str() + b.as_str());
  if (!is_num(a) || !is_num(b)) return std::nullopt;
  bool ints = is_int_like(a) && is_int_like(b);
  if (ints) {
    int64_t x = a.as_int(), y = b.as_int(), r = 0;
    switch (op) {
      case Builtin::Add:
        if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
        return Value::integer(r);
      case Builtin::Sub:
        if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
        return Value::integer(r);
      case Builtin::Mul:
        if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
        return Value::integer(r);
      case Builtin::FloorDiv:
      case Builtin::Mod: {
        if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1)) return std::nullopt;
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          q -= 1;
          m += y;
        }
        return Value::integer(op == Builtin::FloorDiv ? q : m);
      }
      case Builtin::Pow: {
        if (y < 0) break;  // a float result, below
        int64_t acc = 1, base = x;
        for (int64_t e = y; e > 0; e >>= 1) {
          if ((e & 1) && __builtin_mul_overflow(acc, base, &acc)) return std::nullopt;
          if (e > 1 && __builtin_mul_overflow(base, base, &base)) return std::nullopt;
        }
        return Value::integer(acc);
      }
      case Builtin::BitAnd:
      case Builtin::BitOr:
      case Builtin::BitXor: {
        int64_t v = op == Builtin::BitAnd ? (x & y) : op == Builtin::BitOr ? (x | y) : (x ^ y);
        if (a.is(ValueKind::Bool) && b.is(ValueKind::Bool)) return Value::boolean(v != 0);
        return Value::integer(v);
      }
      case Builtin::LShift:
        if (y < 0 || y >= 63) return std::nullopt;
        if (x != 0 && (x > (std::numeric_limits<int64_t>::max() >> y) ||
                       x < (std::numeric_limits<int64_t>::min() >> y)))
          return std::nullopt;
        return Value::integer(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
      case Builtin::RShift:
        if (y < 0) return std::nullopt;
        return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : (x >> y));
      default:
        break;
    }
  }
  if (op == Builtin::BitAnd || op == Builtin::BitOr || op == Builtin::BitXor ||
      op == Builtin::LShift || op == Builtin::RShift)
    return std::nullopt;  // TypeError on floats: left to run time
  double x = a.as_float(), y = b.as_float();
  switch (op) {
    case Builtin::Add:
      return Value::real(x + y);
    case Builtin::Sub:
      return Value::real(x - y);
    case Builtin::Mul:
      return Value::real(x * y);
    case Builtin::TrueDiv:
      if (y == 0) return std::nullopt;
      return Value::real(x / y);
    case Builtin::FloorDiv:
    case Builtin::Mod: {
      if (y == 0) return std::nullopt;
      auto [q, m] = float_divmod(x, y);
      return Value::real(op == Builtin::FloorDiv ? q : m);
    }
    case Builtin::Pow: {
      if (x == 0 && y < 0) return std::nullopt;              // ZeroDivisionError
      if (x < 0 && y != std::floor(y)) return std::nullopt;  // a complex result
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) return std::nullopt;
      return Value::real(r);
    }
    default:
      return std::nullopt;
  }
}

std::optional<Value> compare(Builtin op, const Value& a, const Value& b) {
  if (op == Builtin::Eq || op == Builtin::Ne) {
    std::optional<bool> eq = py_eq(a, b);
    if (!eq) return std::nullopt;
    return Value::boolean(op == Builtin::Eq ? *eq : !*eq);
  }
  if (op == Builtin::Is || op == Builtin::IsNot) {
    // Identity is defined for the singletons None, True and False only.
    bool sa = a.is_none() || a.is(ValueKind::Bool), sb = b.is_none() || b.is(ValueKind::Bool);
    if (!(sa && sb) && !a.is_none() && !b.is_none()) return std::nullopt;
    bool same = a.kind() == b.kind() && a == b;
    return Value::boolean(op == Builtin::Is ? same : !same);
  }
  if (op == Builtin::In || op == Builtin::NotIn) {
    const std::vector<Value>* elems = nullptr;
    if (b.is_sequence()) elems = &b.items();
    if (b.is(ValueKind::Dict)) elems = &b.as_dict().keys;
    if (elems == nullptr) return std::nullopt;
    bool found = false;
    for (const Value& e : *elems) {
      std::optional<bool> eq = py_eq(a, e);
      if (!eq) return std::nullopt;
      found = found || *eq;
    }
    return Value::boolean(op == Builtin::In ? found : !found);
  }
  int c;  // -1, 0, 1
  if (is_int_like(a) && is_int_like(b)) {
    c = a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int();
  } else if (is_num(a) && is_num(b)) {
    double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return Value::boolean(false);
    c = x < y ? -1 : x > y;
  } else if (a.is(ValueKind::Str) && b.is(ValueKind::Str)) {
    int k = a.as_str().compare(b.as_str());
    c = k < 0 ? -1 : k > 0;
  } else {
    return std::nullopt;
  }
  switch (op) {
    case Builtin::Lt:
      return Value::boolean(c < 0);
    case Builtin::Le:
      return Value::boolean(c <= 0);
    case Builtin::Gt:
      return Value::boolean(c > 0);
    case Builtin::Ge:
      return Value::boolean(c >= 0);
    default:
      return std::nullopt;
  }
}

std::optional<Value> unary(Builtin op, const Value& a) {
  switch (op) {
    case Builtin::Not:
    case Builtin::Truth: {
      std::optional<bool> t = truth(a);
      if (!t) return std::nullopt;
      return Value::boolean(op == Builtin::Not ? !*t : *t);
    }
    case Builtin::Neg:
      if (is_int_like(a)) {
        if (a.as_int() == std::numeric_limits<int64_t>::min()) return std::nullopt;
        return Value::integer(-a.as_int());
      }
      if (a.is(ValueKind::Float)) return Value::real(-a.as_float());
      return std::nullopt;
    case Builtin::Pos:
      if (is_int_like(a)) return Value::integer(a.as_int());
      if (a.is(ValueKind::Float)) return a;
      return std::nullopt;
    case Builtin::Invert:
      if (is_int_like(a)) return Value::integer(~a.as_int());
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// cast_scalar(x, T): T is a dtype (bool / an integer / a float dtype) or "bool"/"int"/"float".
std::optional<Value> cast_scalar(const Value& x, const Value& to) {
  if (!is_num(x)) return std::nullopt;
  char kind;
  if (to.is(ValueKind::DType)) {
    DType t = to.as_dtype();
    kind = is_bool(t) ? 'b' : is_integral(t) ? 'i' : 'f';
  } else if (to.is(ValueKind::Str) &&
             (to.as_str() == "bool" || to.as_str() == "int" || to.as_str() == "float")) {
    kind = to.as_str()[0];
  } else {
    return std::nullopt;
  }
  if (kind == 'b') return Value::boolean(*truth(x));
  if (kind == 'f') return Value::real(x.as_float());
  if (is_int_like(x)) return Value::integer(x.as_int());
  double f = std::trunc(x.as_float());
  if (!std::isfinite(f) || f < -9.2233720368547758e18 || f >= 9.2233720368547758e18)
    return std::nullopt;
  return Value::integer(static_cast<int64_t>(f));
}

std::optional<Value> fold_builtin(Builtin b, const std::vector<const Value*>& in) {
  switch (b) {
    case Builtin::Add:
    case Builtin::Sub:
    case Builtin::Mul:
    case Builtin::TrueDiv:
    case Builtin::FloorDiv:
    case Builtin::Mod:
    case Builtin::Pow:
    case Builtin::BitAnd:
    case Builtin::BitOr:
    case Builtin::BitXor:
    case Builtin::LShift:
    case Builtin::RShift:
      return in.size() == 2 ? arith(b, *in[0], *in[1]) : std::nullopt;
    case Builtin::Lt:
    case Builtin::Le:
    case Builtin::Gt:
    case Builtin::Ge:
    case Builtin::Eq:
    case Builtin::Ne:
    case Builtin::Is:
    case Builtin::IsNot:
    case Builtin::In:
    case Builtin::NotIn:
      return in.size() == 2 ? compare(b, *in[0], *in[1]) : std::nullopt;
    case Builtin::Neg:
    case Builtin::Pos:
    case Builtin::Invert:
    case Builtin::Not:
    case Builtin::Truth:
      return in.size() == 1 ? unary(b, *in[0]) : std::nullopt;
    case Builtin::Cast:
      return in.size() == 2 ? cast_scalar(*in[0], *in[1]) : std::nullopt;
    case Builtin::ScalarToTensor: {
      if (in.size() != 2 || !is_num(*in[0]) || !in[1]->is(ValueKind::DType)) return std::nullopt;
      const Value& x = *in[0];
      Scalar s = x.is(ValueKind::Bool)  ? Scalar::from_bool(x.as_bool())
                 : x.is(ValueKind::Int) ? Scalar::from_int(x.as_int())
                                        : Scalar::from_float(x.as_float());
      return Value::tensor(Tensor::scalar(s, in[1]->as_dtype()));
    }
    case Builtin::TensorToScalar: {
      if (in.size() != 1 || !in[0]->is(ValueKind::Tensor) || in[0]->as_tensor().numel() != 1)
        return std::nullopt;
      Scalar s = in[0]->as_tensor().item();
      if (s.kind == ScalarKind::Bool) return Value::boolean(s.i != 0);
      if (s.kind == ScalarKind::Int) return Value::integer(s.i);
      return Value::real(s.f);
    }
    default:
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

bool small_tensor_abs(const AbsPtr& a) {
  if (a == nullptr) return false;
  if (a->kind == AbsKind::Tensor) return numel(a->shape) <= kMaxFoldNumel;
  if (a->kind == AbsKind::Tuple) {
    for (const AbsPtr& e : a->elems)
      if (e == nullptr || e->kind != AbsKind::Tensor || numel(e->shape) > kMaxFoldNumel)
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
  if ((p.op->flags & (F_RANDOM | F_INPLACE)) != 0 || !small_tensor_abs(c->abstract()))
    return nullptr;
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

bool fold(Module& m, FuncGraph* root) {
  detail::PassManager mng(m, root);
  detail::Walk w = detail::walk(root);
  detail::Rewriter rw;
  for (CNode* c : w.nodes) {
    rw.update_inputs(c);
    if (Node* r = fold_node(m, c)) rw.replace(c, r);
  }
  if (!rw.finish(w.graphs)) return false;
  mng->invalidate();
  return true;
}

}  // namespace mycel::compiler
