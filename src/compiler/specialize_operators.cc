// The specialiser's rules for Python's operators outside the op table: binary operators on
// scalars (folded, or run by the executor), sequences (concatenation, repetition, comparison),
// structs and host objects (their dunder methods), tensors (the prims of
// specialize_prims.cc); `is` and `in`; fold_scalar. Moved out of specialize_builtins.cc as
// one concern; the helpers both use are declared in specialize_impl.h.
#include <optional>

#include "base/error.h"
#include "compiler/specialize_impl.h"
#include "runtime/vm.h"

namespace mycel::ir::spec {

namespace {

// The scalar kind of a binary arithmetic result (Python: bool+bool -> int).
ValueKind arith_kind(ValueKind a, ValueKind b, Builtin op) {
  if (op == Builtin::TrueDiv) return ValueKind::Float;
  if (a == ValueKind::Float || b == ValueKind::Float) return ValueKind::Float;
  if ((op == Builtin::BitAnd || op == Builtin::BitOr || op == Builtin::BitXor) &&
      a == ValueKind::Bool && b == ValueKind::Bool)
    return ValueKind::Bool;
  return ValueKind::Int;
}

bool is_compare(Builtin b) {
  return b == Builtin::Lt || b == Builtin::Le || b == Builtin::Gt || b == Builtin::Ge ||
         b == Builtin::Eq || b == Builtin::Ne;
}

// The dunder method names of a binary operator on a struct (nullptr: not dispatched).
std::pair<const char*, const char*> struct_dunders(Builtin b) {
  switch (b) {
    case Builtin::Add:
      return {"__add__", "__radd__"};
    case Builtin::Sub:
      return {"__sub__", "__rsub__"};
    case Builtin::Mul:
      return {"__mul__", "__rmul__"};
    case Builtin::TrueDiv:
      return {"__truediv__", "__rtruediv__"};
    default:
      return {nullptr, nullptr};
  }
}

// The operator module's function for a binary builtin (nullptr: none).
const char* operator_function(Builtin b) {
  switch (b) {
    case Builtin::Add:
      return "add";
    case Builtin::Sub:
      return "sub";
    case Builtin::Mul:
      return "mul";
    case Builtin::TrueDiv:
      return "truediv";
    case Builtin::FloorDiv:
      return "floordiv";
    case Builtin::Mod:
      return "mod";
    case Builtin::Pow:
      return "pow";
    case Builtin::MatMul:
      return "matmul";
    case Builtin::BitAnd:
      return "and_";
    case Builtin::BitOr:
      return "or_";
    case Builtin::BitXor:
      return "xor";
    case Builtin::LShift:
      return "lshift";
    case Builtin::RShift:
      return "rshift";
    case Builtin::Lt:
      return "lt";
    case Builtin::Le:
      return "le";
    case Builtin::Gt:
      return "gt";
    case Builtin::Ge:
      return "ge";
    default:
      return nullptr;
  }
}

// Whether two items are equal as Python's == decides it in a sequence comparison; nullopt
// when only the run time knows (a tensor, a scalar known at run time).
std::optional<bool> items_equal(const AbsPtr& x, const AbsPtr& y) {
  if (x->value && y->value) {
    const Value &u = *x->value, &v = *y->value;
    if (u.is_scalar() && v.is_scalar() && !u.is(ValueKind::Str) && !v.is(ValueKind::Str))
      return fold_scalar(Builtin::Eq, u, v).as_bool();
    return u == v;
  }
  if (is_seq_abs(x) && is_seq_abs(y)) {
    if (x->kind != y->kind || x->elems.size() != y->elems.size()) return false;
    for (size_t i = 0; i < x->elems.size(); ++i) {
      std::optional<bool> e = items_equal(x->elems[i], y->elems[i]);
      if (!e || !*e) return e;
    }
    return true;
  }
  return std::nullopt;
}

// Python's order of two sequences of one kind (tuples, or lists): the first pair of items
// that differ decides, else the lengths. Decided at compile time, so the items up to the
// deciding pair must be known then.
bool seq_order(Builtin b, const AbsPtr& x, const AbsPtr& y) {
  const size_t n = std::min(x->elems.size(), y->elems.size());
  for (size_t i = 0; i < n; ++i) {
    const AbsPtr &u = x->elems[i], &v = y->elems[i];
    std::optional<bool> eq = items_equal(u, v);
    MC_CHECK(eq.has_value(), Type, "'", builtin_name(b), "' between '", x->to_string(), "' and '",
             y->to_string(), "': item ", i, " (", u->to_string(), " and ", v->to_string(),
             ") is known only at run time; in graph mode the input element must be scalar "
             "constants up to the items that decide a sequence comparison");
    if (*eq) continue;
    if (is_seq_abs(u) && u->kind == v->kind) return seq_order(b, u, v);
    MC_CHECK(u->value && v->value, Type, "'", builtin_name(b), "' not supported between '",
             u->to_string(), "' and '", v->to_string(), "' in a sequence comparison");
    return fold_scalar(b, *u->value, *v->value).as_bool();
  }
  return fold_scalar(b, Value::integer(static_cast<int64_t>(x->elems.size())),
                     Value::integer(static_cast<int64_t>(y->elems.size())))
      .as_bool();
}

}  // namespace

// Python semantics on two constant scalars: the executor's own implementation, so that
// folding and running agree.
Value fold_scalar(Builtin op, const Value& x, const Value& y) {
  const Value args[2] = {x, y};
  return vm::run_builtin(op, args, nullptr);
}

Node* Specializer::is_rule(Builtin b, const std::vector<Node*>& args, const SourceSpan& sp) {
  const AbsPtr &x = args[0]->abstract(), &y = args[1]->abstract();
  bool same;
  if (x->value && y->value)
    same = *x->value == *y->value;
  else if ((x->kind == AbsKind::Scalar && x->stype == ValueKind::None) ||
           (y->kind == AbsKind::Scalar && y->stype == ValueKind::None))
    same = false;  // one side is None, the other is not known to be
  else
    MC_THROW(Type, "'is' between values known only at run time is not supported");
  return constant(Value::boolean(b == Builtin::Is ? same : !same), sp);
}

Node* Specializer::in_rule(Builtin b, const std::vector<Node*>& args, const SourceSpan& sp) {
  const AbsPtr &x = args[0]->abstract(), &s = args[1]->abstract();
  MC_CHECK(x->value.has_value(), Type,
           "'in' needs a value known at compile time on the left in graph mode");
  bool found = false;
  if (s->kind == AbsKind::Dict) {
    for (const Value& k : s->keys) found = found || k == *x->value;
  } else if (s->value && s->value->is_sequence()) {
    for (const Value& e : s->value->items()) {
      if (e.is_scalar() && x->value->is_scalar())
        found = found || fold_scalar(Builtin::Eq, e, *x->value).as_bool();
      else
        found = found || e == *x->value;
    }
  } else if (s->value && s->value->is(ValueKind::Str) && x->value->is(ValueKind::Str)) {
    found = s->value->as_str().find(x->value->as_str()) != std::string::npos;
  } else {
    // Python's words for a number on the right
    if (s->kind == AbsKind::Scalar && s->stype != ValueKind::Str) {
      const char* t = s->stype == ValueKind::Int     ? "int"
                      : s->stype == ValueKind::Float ? "float"
                      : s->stype == ValueKind::Bool  ? "bool"
                                                     : "NoneType";
      MC_THROW(Type, "argument of type '", t, "' is not iterable");
    }
    MC_THROW(Type, "'in' on ", s->to_string(), " is not supported in graph mode");
  }
  return constant(Value::boolean(b == Builtin::In ? found : !found), sp);
}

// Python's binary operators: on tensors the op-table prims, on scalars folded or run by the
// executor, on sequences concatenation and repetition, on host objects their dunder method.
Node* Specializer::binary_rule(Ctx* c, Builtin b, const std::vector<Node*>& args,
                               const SourceSpan& sp) {
  MC_ASSERT(args.size() == 2, "unhandled builtin ", builtin_name(b));
  const AbsPtr& x = args[0]->abstract();
  const AbsPtr& y = args[1]->abstract();
  // A struct operand (a sparse tensor): its class's dunder method, reflected when it is on the
  // right (before the tensor rules: dense * csr is the CSRTensor's __rmul__).
  if (auto [fwd, rev] = struct_dunders(b); fwd != nullptr) {
    std::optional<Value> xc = struct_class(host_, src_, x);
    std::optional<Value> yc = xc ? std::nullopt : struct_class(host_, src_, y);
    if (xc || yc) {
      const char* dunder = xc ? fwd : rev;
      const Value& cls = xc ? *xc : *yc;
      MC_CHECK(host_.call_builtin(src_, "hasattr", {cls, Value::string(dunder)}).as_bool(), Type,
               "unsupported operand types for ", builtin_def(b).symbol, ": '", x->to_string(),
               "' and '", y->to_string(), "'");
      Node* fn = eval_value(host_.getattr(src_, cls, dunder), sp, c);
      return xc ? call(c, fn, {args[0], args[1]}, {}, sp) : call(c, fn, {args[1], args[0]}, {}, sp);
    }
  }
  if (b == Builtin::Mod && x->value && x->value->is(ValueKind::Str)) {
    // "%d items" % n: Python's formatting, now on a constant, else at run time (JIT fallback)
    if (y->value && !y->value->is(ValueKind::Tensor))
      return eval_value(host_.call_builtin(src_, "mod", {*x->value, *y->value}), sp, c);
    std::optional<Value> cls = graph_method(host_, src_, "PercentFormat");
    MC_ASSERT(cls.has_value(), "mycel.common.graph_methods has no PercentFormat");
    Value fmt = host_.call(src_, *cls, {*x->value}, {});
    warn(sp, "'%' formatting runs in the Python interpreter at run time (JIT fallback)");
    return emit_builtin(c, Builtin::PyExecute, {constant(fmt, sp), args[1]}, Abstract::any(), sp);
  }
  if (x->kind == AbsKind::Tensor || y->kind == AbsKind::Tensor) {
    if ((b == Builtin::Eq || b == Builtin::Ne) &&
        ((x->kind == AbsKind::Scalar && x->stype == ValueKind::None) ||
         (y->kind == AbsKind::Scalar && y->stype == ValueKind::None)))
      return constant(Value::boolean(b == Builtin::Ne), sp);
    // &, |, ^ other than on two bools: the Tensor method (bitwise_and, ...), composed in
    // Python (ops/function/bitwise_func.py); the operations commute, so the tensor side
    // is the receiver.
    auto is_bool = [](const AbsPtr& v) {
      return (v->kind == AbsKind::Tensor && v->dtype == DType::Bool) ||
             (v->kind == AbsKind::Scalar && v->stype == ValueKind::Bool);
    };
    if ((b == Builtin::BitAnd || b == Builtin::BitOr || b == Builtin::BitXor) &&
        !(is_bool(x) && is_bool(y))) {
      const bool x_tensor = x->kind == AbsKind::Tensor;
      const char* name = b == Builtin::BitAnd  ? "bitwise_and"
                         : b == Builtin::BitOr ? "bitwise_or"
                                               : "bitwise_xor";
      Node* method = getattr(c, x_tensor ? args[0] : args[1], name, sp);
      return call(c, method, {x_tensor ? args[1] : args[0]}, {}, sp);
    }
    return binary_tensor_op(c, b, args[0], args[1], sp);
  }
  if (is_scalar_abs(x) && is_scalar_abs(y)) {
    if (x->value && y->value) return constant(fold_scalar(b, *x->value, *y->value), sp);
    ValueKind k = is_compare(b) ? ValueKind::Bool : arith_kind(x->stype, y->stype, b);
    return emit_builtin(c, b, args, Abstract::scalar(k), sp);
  }
  if (b == Builtin::Add && is_seq_abs(x) && x->kind == y->kind) {
    std::vector<Node*> items = unpack(c, args[0], sp);
    for (Node* n : unpack(c, args[1], sp)) items.push_back(n);
    return make_seq(c, x->kind == AbsKind::List, items, sp);
  }
  if (is_seq_abs(x) && x->kind == y->kind && is_compare(b)) {
    if (b == Builtin::Eq || b == Builtin::Ne) {
      std::optional<bool> eq = items_equal(x, y);
      if (eq) return constant(Value::boolean(*eq == (b == Builtin::Eq)), sp);
    } else {
      return constant(Value::boolean(seq_order(b, x, y)), sp);
    }
  }
  if (b == Builtin::Mul && (is_seq_abs(x) || is_seq_abs(y))) {
    const AbsPtr& k = is_seq_abs(x) ? y : x;  // the repeat count
    MC_CHECK(!(k->kind == AbsKind::Scalar && k->stype == ValueKind::Float) &&
                 k->kind != AbsKind::Tensor && !is_seq_abs(k),
             Type, "can't multiply sequence by non-int of type '",
             k->kind == AbsKind::Scalar ? "float" : k->to_string(), "'");
    if (is_seq_abs(y) && !is_seq_abs(x)) return binary_rule(c, b, {args[1], args[0]}, sp);
  }
  if (b == Builtin::Mul && is_seq_abs(x) && y->value && y->value->is(ValueKind::Int)) {
    std::vector<Node*> one = unpack(c, args[0], sp), items;
    for (int64_t r = 0; r < y->value->as_int(); ++r)
      items.insert(items.end(), one.begin(), one.end());
    return make_seq(c, x->kind == AbsKind::List, items, sp);
  }
  if (x->value && y->value) {
    const Value& u = *x->value;
    const Value& v = *y->value;
    if (b == Builtin::Eq || b == Builtin::Ne) {
      bool eq = u == v;
      return constant(Value::boolean(b == Builtin::Eq ? eq : !eq), sp);
    }
    if (b == Builtin::Add && u.is(ValueKind::Str) && v.is(ValueKind::Str))
      return constant(Value::string(u.as_str() + v.as_str()), sp);
    // A host object's operator (re.M | re.I, a class's __add__ or __radd__): Python's own
    // rule, run now by the operator module's function.
    if (u.is(ValueKind::PyObj) || v.is(ValueKind::PyObj))
      if (const char* op = operator_function(b))
        return eval_value(host_.call_builtin(src_, op, {u, v}), sp, c);
  }
  if ((b == Builtin::Eq || b == Builtin::Ne) && x->kind != y->kind)
    return constant(Value::boolean(b == Builtin::Ne), sp);
  MC_THROW(Type, "unsupported operand types for ", builtin_name(b), ": '", x->to_string(),
           "' and '", y->to_string(), "'");
}

}  // namespace mycel::ir::spec
