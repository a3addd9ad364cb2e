// The specialiser's rules for builtins and host callables: truth values, attributes,
// sequences (packing, unpacking, indexing, item assignment), dicts, slices, print and raise,
// and the Python builtins the compiler models (len, isinstance, range, zip, enumerate, int,
// float, print, ...). Python's operators (binary, `is`, `in`): specialize_operators.cc.
#include <cmath>
#include <optional>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/specialize_impl.h"
#include "runtime/vm.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir::spec {

namespace {

// Attribute `name` of Python module `module`, converted, or none when it has no such one.
std::optional<Value> module_attr(Host& host, Module& m, const char* module,
                                 const std::string& name) {
  Value mod = host.call_builtin(
      m, "__import__",
      {Value::string(module), Value::none(), Value::none(), Value::tuple({Value::string("*")})});
  if (!host.call_builtin(m, "hasattr", {mod, Value::string(name)}).as_bool()) return std::nullopt;
  return host.getattr(m, mod, name);
}

// xs[start:stop:step] = vals on the items of a list, as Python does it: a plain slice takes
// any number of items, an extended one (step other than 1) exactly as many as it selects.
std::vector<Node*> slice_assign(std::vector<Node*> items, const SliceData& s,
                                const std::vector<Node*>& vals) {
  const int64_t n = static_cast<int64_t>(items.size());
  auto get = [](const Value& e, int64_t dflt) { return e.is_none() ? dflt : e.as_int(); };
  const int64_t step = get(s.step, 1);
  MC_CHECK(step != 0, Value, "slice step cannot be zero");
  const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  auto clamp = [&](int64_t e) {
    if (e < 0) e += n;
    return std::max(lo, std::min(e, hi));
  };
  const int64_t start = s.start.is_none() ? (step > 0 ? 0 : n - 1) : clamp(get(s.start, 0));
  const int64_t stop = s.stop.is_none() ? (step > 0 ? n : -1) : clamp(get(s.stop, 0));
  if (step == 1) {
    std::vector<Node*> out(items.begin(), items.begin() + start);
    out.insert(out.end(), vals.begin(), vals.end());
    out.insert(out.end(), items.begin() + std::max(start, stop), items.end());
    return out;
  }
  std::vector<int64_t> at;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) at.push_back(i);
  MC_CHECK(vals.size() == at.size(), Value, "attempt to assign sequence of size ", vals.size(),
           " to extended slice of size ", at.size());
  for (size_t j = 0; j < at.size(); ++j) items[static_cast<size_t>(at[j])] = vals[j];
  return items;
}

}  // namespace

// Shared with specialize_operators.cc (specialize_impl.h says what they do).
bool is_scalar_abs(const AbsPtr& a) {
  return a->kind == AbsKind::Scalar && (a->stype == ValueKind::Bool || a->stype == ValueKind::Int ||
                                        a->stype == ValueKind::Float);
}
bool is_seq_abs(const AbsPtr& a) { return a->kind == AbsKind::Tuple || a->kind == AbsKind::List; }

std::optional<Value> graph_method(Host& host, Module& m, const std::string& name) {
  return module_attr(host, m, "mycel.common.graph_methods", name);
}

std::optional<Value> struct_class(Host& host, Module& m, const AbsPtr& a) {
  if (a->kind != AbsKind::Tuple || a->elems.empty()) return std::nullopt;
  const AbsPtr& k = a->elems[0];
  if (!k->value || !k->value->is(ValueKind::PyObj)) return std::nullopt;
  if (!host.call_builtin(m, "hasattr", {*k->value, Value::string("__mycel_graph_struct__")})
           .as_bool())
    return std::nullopt;
  return *k->value;
}

Node* Specializer::make_seq(Ctx* c, bool list, std::vector<Node*> items, const SourceSpan& sp) {
  // A Parameter or a written tensor packed into a tuple (f(*args), a primitive's arguments)
  // is read here, after the effects so far, as emit_prim reads it: an op that later unpacks
  // it must not see its value from before an update that ran in between.
  if (c != nullptr && c->state != nullptr)
    for (Node*& n : items)
      if (n->abstract() && n->abstract()->kind == AbsKind::Tensor && read_after_effects(n))
        n = after_state(c, n, sp);
  bool all_const = true;
  std::vector<AbsPtr> abs;
  std::vector<Value> vals;
  for (Node* n : items) {
    abs.push_back(n->abstract());
    if (n->abstract()->value && !n->abstract()->value->is(ValueKind::Tensor))
      vals.push_back(*n->abstract()->value);
    else
      all_const = false;
  }
  if (all_const) return constant(list ? Value::list(vals) : Value::tuple(vals), sp);
  return emit_builtin(c, list ? Builtin::MakeList : Builtin::MakeTuple, std::move(items),
                      list ? Abstract::list(abs) : Abstract::tuple(abs), sp);
}

std::vector<Node*> Specializer::unpack(Ctx* c, Node* seq, const SourceSpan& sp) {
  const AbsPtr& a = seq->abstract();
  std::vector<Node*> out;
  if (is_seq_abs(a)) {
    for (size_t i = 0; i < a->elems.size(); ++i)
      out.push_back(getitem(c, seq, constant(Value::integer(static_cast<int64_t>(i)), sp), sp));
    return out;
  }
  if (a->kind == AbsKind::Dict) {
    for (const Value& k : a->keys) out.push_back(constant(k, sp));
    return out;
  }
  if (a->kind == AbsKind::Tensor) {
    MC_CHECK(!a->shape.empty(), Type, "iteration over a 0-d tensor");
    check_static_dims(a->shape, 0, 1, "iteration over a tensor", "length");
    for (int64_t i = 0; i < a->shape[0]; ++i)
      out.push_back(getitem(c, seq, constant(Value::integer(i), sp), sp));
    return out;
  }
  if (a->value && a->value->is(ValueKind::Str)) {
    for (char ch : a->value->as_str()) out.push_back(constant(Value::string(std::string(1, ch))));
    return out;
  }
  if (a->value && a->value->is(ValueKind::PyObj)) {  // a CellList or another host sequence
    Value n = host_.call_builtin(src_, "len", {*a->value});
    MC_CHECK(n.is(ValueKind::Int), Type, "cannot unpack ", a->value->to_string());
    for (int64_t i = 0; i < n.as_int(); ++i)
      out.push_back(getitem(c, seq, constant(Value::integer(i), sp), sp));
    return out;
  }
  MC_THROW(Type, "cannot unpack a value of type ", a->to_string(),
           " in graph mode (its length must be known at compile time)");
}

Node* Specializer::truth(Ctx* c, Node* x, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  if (a->value) {
    // The executor's truth rule (host objects are true, as Python objects by default).
    const Value v[1] = {*a->value};
    return constant(vm::run_builtin(Builtin::Truth, v, nullptr), sp);
  }
  switch (a->kind) {
    case AbsKind::Scalar:
      if (a->stype == ValueKind::None) return constant(Value::boolean(false), sp);
      if (a->stype == ValueKind::Bool) return x;
      return emit_builtin(c, Builtin::Truth, {x}, Abstract::scalar(ValueKind::Bool), sp);
    case AbsKind::Tuple:
    case AbsKind::List:
    case AbsKind::Dict:
      return constant(Value::boolean(!a->elems.empty()), sp);
    case AbsKind::Tensor: {
      check_static_dims(a->shape, 0, a->shape.size(), "bool", "element count of the tensor");
      int64_t n = 1;
      for (int64_t d : a->shape) n *= d;
      MC_CHECK(n == 1, Value, "the truth value of a tensor with ", n,
               " elements is ambiguous (shape ", shape_str(a->shape),
               "); reduce it first, e.g. with .any() or .all()");
      ValueKind k = a->dtype == DType::Bool ? ValueKind::Bool
                    : is_floating(a->dtype) ? ValueKind::Float
                                            : ValueKind::Int;
      Node* s = emit_builtin(c, Builtin::TensorToScalar, {x}, Abstract::scalar(k), sp);
      if (k == ValueKind::Bool) return s;
      return emit_builtin(c, Builtin::Truth, {s}, Abstract::scalar(ValueKind::Bool), sp);
    }
    case AbsKind::Func:
      return constant(Value::boolean(true), sp);
    default:
      break;
  }
  MC_THROW(Type, "the truth value of ", a->to_string(), " is not known at compile time");
}

Node* Specializer::tensor_dim(Ctx* c, Node* x, size_t i, const SourceSpan& sp) {
  int64_t d = x->abstract()->shape[i];
  if (d >= 0) return constant(Value::integer(d), sp);
  return emit_builtin(c, Builtin::TensorDim,
                      {x, constant(Value::integer(static_cast<int64_t>(i)), sp)},
                      Abstract::dynamic_dim(), sp);
}

Node* Specializer::getattr(Ctx* c, Node* obj, const std::string& name, const SourceSpan& sp) {
  const AbsPtr& a = obj->abstract();
  if (a->kind == AbsKind::Tensor) {
    if (name == "shape") {  // a dynamic dimension is read at run time (MindSpore's ops.shape)
      std::vector<Node*> dims;
      for (size_t i = 0; i < a->shape.size(); ++i) dims.push_back(tensor_dim(c, obj, i, sp));
      return make_seq(c, false, std::move(dims), sp);
    }
    if (name == "dtype") return constant(Value::dtype(a->dtype), sp);
    if (name == "ndim") return constant(Value::integer(static_cast<int64_t>(a->shape.size())), sp);
    if (name == "size") {  // the product of the dimensions, at run time when one is dynamic
      Node* n = constant(Value::integer(1), sp);
      for (size_t i = 0; i < a->shape.size(); ++i)
        n = binary_rule(c, Builtin::Mul, {n, tensor_dim(c, obj, i, sp)}, sp);
      return n;
    }
    if (name == "T" || name == "mT" || name == "mH" || name == "H") {
      // T reverses every axis; mT swaps the last two, mH too and conjugates (complex), H is
      // mH of a matrix (as T of a 2-d tensor, conjugated).
      std::vector<int64_t> perm;
      const size_t n = a->shape.size();
      if (name == "H") {
        MC_CHECK(n == 2 || n == 0, Value,
                 "Tensor.H needs a 2-d (or 0-d) tensor, but the tensor has ", n, " dimensions");
      }
      if (name == "T" || name == "H") {
        for (size_t i = n; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
      } else {
        MC_CHECK(n >= 2, Value, "Tensor.", name,
                 " needs at least 2 dimensions, but the tensor has ", n);
        for (size_t i = 0; i + 2 < n; ++i) perm.push_back(static_cast<int64_t>(i));
        perm.push_back(static_cast<int64_t>(n - 1));
        perm.push_back(static_cast<int64_t>(n - 2));
      }
      Attrs at;
      at.set("perm", perm);
      Node* t = emit_prim(c, op_def(OpId::Transpose), at, {obj}, sp);
      if ((name == "mH" || name == "H") && is_complex(a->dtype))
        return emit_prim(c, op_def(OpId::Conj), Attrs(), {t}, sp);
      return t;
    }
    Value m = host_.tensor_method(src_, name);
    if (m.is(ValueKind::Graph)) {
      // A bound method: a partial application whose bound node the call reads back.
      Node* fn = eval_value(m, sp, c);
      FuncCandidate cand = fn->abstract()->funcs[0];
      cand.bound.push_back(a);
      return emit_builtin(c, Builtin::Partial, {fn, obj}, Abstract::func({cand}), sp);
    }
    return constant(m, sp);
  }
  if (a->value && a->value->is(ValueKind::PyObj)) {
    Value v = host_.getattr(src_, *a->value, name);
    Node* r = eval_value(v, sp, c);
    // An attribute made by mutable(...): a run-time value, as mutable() in graph code makes
    // it (gradients are taken of its tensors; its numbers are not folded).
    if (!v.is(ValueKind::PyObj) && host_.attr_is_mutable(*a->value, name))
      return emit_builtin(c, Builtin::Depend, {r}, broaden(r->abstract()), sp);
    // A Parameter read from a Cell under to_float(t) computes in t (the weight stays as is).
    if (host_.weight(v).has_value())
      if (std::optional<DType> t = host_.mixed_precision(*a->value, true))
        r = mixed_cast(c, r, *t, sp);
    return r;
  }
  if (std::optional<Value> cls = struct_class(host_, src_, a))
    return struct_attr(c, obj, *cls, name, sp);
  // A method of a dict, list or tuple (d.get(k), t.fromkeys(ks, v), xs.index(v)): its graph
  // code in mycel.common.graph_methods, bound to the value as a Tensor method is.
  if (a->kind == AbsKind::Dict || is_seq_abs(a)) {
    const char* type = a->kind == AbsKind::Dict   ? "dict"
                       : a->kind == AbsKind::List ? "list"
                                                  : "tuple";
    std::optional<Value> m = graph_method(host_, src_, str(type, "_", name));
    MC_CHECK(m.has_value(), Type, "AttributeError: '", type, "' object has no attribute '", name,
             "' in graph mode");
    Node* fn = eval_value(*m, sp, c);
    FuncCandidate cand = fn->abstract()->funcs[0];
    cand.bound.push_back(a);
    return emit_builtin(c, Builtin::Partial, {fn, obj}, Abstract::func({cand}), sp);
  }
  // A method of a constant string ("{}".format(x), s.upper()): Python's own, run by the host
  // at compile time on constants, at run time otherwise (the JIT fallback).
  if (a->value && a->value->is(ValueKind::Str))
    return eval_value(host_.getattr(src_, *a->value, name), sp, c);
  if (a->value && a->value->is(ValueKind::DType)) {
    DType t = a->value->as_dtype();
    if (name == "is_floating_point") return constant(Value::boolean(is_floating(t)), sp);
    if (name == "itemsize")
      return constant(Value::integer(static_cast<int64_t>(dtype_size(t))), sp);
  }
  MC_THROW(Type, "AttributeError: '", a->to_string(), "' has no attribute '", name,
           "' in graph mode");
}

bool Specializer::is_struct(const AbsPtr& a) { return struct_class(host_, src_, a).has_value(); }

bool Specializer::has_struct(const AbsPtr& a) {
  if (!a || (a->kind != AbsKind::Tuple && a->kind != AbsKind::List)) return false;
  if (struct_class(host_, src_, a)) return true;
  for (const AbsPtr& e : a->elems)
    if (has_struct(e)) return true;
  return false;
}

AbsPtr Specializer::broaden_arg(const AbsPtr& a) {
  if (!has_struct(a)) return broaden(a);
  const bool is_struct = struct_class(host_, src_, a).has_value();
  std::vector<AbsPtr> elems = a->elems;
  for (AbsPtr& e : elems)
    if (!is_struct || e->kind == AbsKind::Tensor) e = broaden_arg(e);
  return a->kind == AbsKind::Tuple ? Abstract::tuple(std::move(elems))
                                   : Abstract::list(std::move(elems));
}

// An attribute of a struct value (struct_class above): a field is its item; another is the
// class's: a property's getter called on the value, a function bound to it as a method.
Node* Specializer::struct_attr(Ctx* c, Node* obj, const Value& cls, const std::string& name,
                               const SourceSpan& sp) {
  const Value fields = host_.getattr(src_, cls, "__mycel_graph_struct__");
  MC_ASSERT(fields.is(ValueKind::Tuple), "__mycel_graph_struct__ must be a tuple of names");
  for (size_t i = 0; i < fields.items().size(); ++i)
    if (fields.items()[i].as_str() == name)
      return getitem(c, obj, constant(Value::integer(static_cast<int64_t>(i + 1)), sp), sp);
  MC_CHECK(host_.call_builtin(src_, "hasattr", {cls, Value::string(name)}).as_bool(), Type,
           "AttributeError: '", host_.getattr(src_, cls, "__name__").as_str(),
           "' object has no attribute '", name, "' in graph mode");
  const Value v = host_.getattr(src_, cls, name);
  if (v.is(ValueKind::PyObj) &&
      host_.call_builtin(src_, "hasattr", {v, Value::string("fget")}).as_bool()) {
    Node* getter = eval_value(host_.getattr(src_, v, "fget"), sp, c);
    return call(c, getter, {obj}, {}, sp);
  }
  Node* fn = eval_value(v, sp, c);
  const AbsPtr& fa = fn->abstract();
  if (fa->kind != AbsKind::Func || fa->funcs.size() != 1) return fn;  // a class constant
  FuncCandidate cand = fa->funcs[0];
  cand.bound.push_back(obj->abstract());
  return emit_builtin(c, Builtin::Partial, {fn, obj}, Abstract::func({cand}), sp);
}

Node* Specializer::getitem(Ctx* c, Node* x, Node* idx, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  const AbsPtr& ia = idx->abstract();
  if (a->kind == AbsKind::Tensor) return tensor_index(c, x, idx, sp);
  if (is_seq_abs(a)) {
    int64_t n = static_cast<int64_t>(a->elems.size());
    if (ia->value && (ia->value->is(ValueKind::Int) || ia->value->is(ValueKind::Bool))) {
      int64_t i = ia->value->as_int();
      MC_CHECK(i >= -n && i < n, Index,
               "IndexError: ", a->kind == AbsKind::Tuple ? "tuple" : "list", " index ", i,
               " out of range for length ", n);
      if (i < 0) i += n;
      if (a->value) {
        // A Parameter held in a constant sequence (an optimizer's tuple of parameters) is
        // read as the weight.
        const Value& item = a->value->items()[static_cast<size_t>(i)];
        if (item.is(ValueKind::PyObj) && host_.weight(item).has_value())
          return read_weight(c, item);
        return constant(item, sp);
      }
      if (x->is_cnode()) {
        auto* m = static_cast<CNode*>(x);
        if (m->is_builtin(Builtin::MakeTuple) || m->is_builtin(Builtin::MakeList))
          return m->input(static_cast<size_t>(i) + 1);
      }
      return emit_builtin(c, Builtin::GetItem, {x, constant(Value::integer(i), sp)},
                          a->elems[static_cast<size_t>(i)], sp);
    }
    if (ia->value && ia->value->is(ValueKind::Slice)) {
      const SliceData& s = ia->value->as_slice();
      auto get = [](const Value& v, int64_t dflt) { return v.is_none() ? dflt : v.as_int(); };
      int64_t step = get(s.step, 1);
      MC_CHECK(step != 0, Value, "slice step cannot be zero");
      int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
      auto clamp = [&](int64_t v) {
        if (v < 0) v += n;
        return std::max(lo, std::min(v, hi));
      };
      int64_t start = s.start.is_none() ? (step > 0 ? 0 : n - 1) : clamp(get(s.start, 0));
      int64_t stop = s.stop.is_none() ? (step > 0 ? n : -1) : clamp(get(s.stop, 0));
      std::vector<Node*> items;
      for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
        items.push_back(getitem(c, x, constant(Value::integer(i), sp), sp));
      return make_seq(c, a->kind == AbsKind::List, items, sp);
    }
    const bool int_tensor =
        ia->kind == AbsKind::Tensor && ia->shape.empty() && is_integral(ia->dtype);
    if ((ia->kind == AbsKind::Scalar && ia->stype == ValueKind::Int) || int_tensor) {
      // A run-time index (a loop counter): elements of one type are read by it.
      MC_CHECK(n > 0, Index, "IndexError: index into an empty sequence");
      AbsPtr j = a->elems[0];
      for (const AbsPtr& e : a->elems)
        if (j != nullptr) j = join(j, e);
      if (j != nullptr && !int_tensor) return emit_builtin(c, Builtin::GetItem, {x, idx}, j, sp);
      // Items of several kinds (cells, functions: MindSpore's switch_layer) or a 0-d integer
      // tensor index: graph_methods.select_item chooses the item at run time.
      std::optional<Value> f = graph_method(host_, src_, "select_item");
      MC_ASSERT(f.has_value(), "mycel.common.graph_methods has no select_item");
      return call(c, eval_value(*f, sp, c), {x, idx}, {}, sp);
    }
    MC_THROW(Type, "sequence indices must be integers or slices, not ", ia->to_string());
  }
  if (a->kind == AbsKind::Dict) {
    MC_CHECK(ia->value.has_value(), Type, "dict keys must be constants in graph mode");
    for (size_t i = 0; i < a->keys.size(); ++i)
      if (a->keys[i] == *ia->value) {
        if (a->value) return constant(a->value->as_dict().values[i], sp);
        if (x->is_cnode() && static_cast<CNode*>(x)->is_builtin(Builtin::MakeDict))
          return static_cast<CNode*>(x)->input(2 * i + 2);
        return emit_builtin(c, Builtin::GetItem, {x, idx}, a->elems[i], sp);
      }
    MC_THROW(Index, "KeyError: ", ia->value->to_string());
  }
  if (a->value && ia->value) {
    // Constants the host indexes (strings, CellLists, host containers).
    return eval_value(host_.call_builtin(src_, "getitem", {*a->value, *ia->value}), sp, c);
  }
  // A host container (a CellList) indexed at run time: graph_methods.select_item, which reads
  // its length and items at compile time and chooses among them at run time.
  if (a->value && a->value->is(ValueKind::PyObj) &&
      ((ia->kind == AbsKind::Scalar && ia->stype == ValueKind::Int) ||
       (ia->kind == AbsKind::Tensor && ia->shape.empty() && is_integral(ia->dtype))) &&
      host_.call_builtin(src_, "hasattr", {*a->value, Value::string("__len__")}).as_bool()) {
    std::optional<Value> f = graph_method(host_, src_, "select_item");
    MC_ASSERT(f.has_value(), "mycel.common.graph_methods has no select_item");
    return call(c, eval_value(*f, sp, c), {x, idx}, {}, sp);
  }
  MC_THROW(Type, "'", a->to_string(), "' object is not subscriptable in graph mode");
}

Node* Specializer::builtin(Ctx* c, Builtin b, std::vector<Node*> args, KwNodes kw,
                           const SourceSpan& sp) {
  int arity = builtin_arity(b);
  MC_CHECK(kw.empty() || b == Builtin::Print || b == Builtin::Grad, Type, builtin_name(b),
           "() takes no keyword arguments");
  MC_ASSERT(arity < 0 || static_cast<size_t>(arity) == args.size(), builtin_name(b), " arity");
  // One rule per builtin; the builtins not named are Python's binary operators.
  switch (b) {
    case Builtin::Switch:
      return switch_rule(c, args, sp);
    case Builtin::Partial:
      return partial_rule(c, args, sp);
    case Builtin::Truth:
      return truth(c, args[0], sp);
    case Builtin::Grad:
      return grad_call(c, std::move(args), std::move(kw), sp);
    case Builtin::VmapFn:
      return vmap_call(c, std::move(args), sp);
    case Builtin::CustomVjp:
      return custom_vjp_call(c, std::move(args), sp);
    case Builtin::StopGradient:
      if (!differentiable(args[0]->abstract())) return args[0];
      return emit_builtin(c, Builtin::StopGradient, {args[0]}, args[0]->abstract(), sp);
    case Builtin::Not:
      return not_rule(c, args[0], sp);
    case Builtin::Neg:
    case Builtin::Pos:
    case Builtin::Invert:
      return unary_rule(c, b, args, sp);
    case Builtin::MakeTuple:
      return make_seq(c, false, args, sp);
    case Builtin::MakeList:
      return make_seq(c, true, args, sp);
    case Builtin::MakeDict:
      return make_dict(c, args, sp);
    case Builtin::MakeSlice:
      return make_slice(args, sp);
    case Builtin::GetItem:
      return getitem(c, args[0], args[1], sp);
    case Builtin::SetItem:
      return setitem(c, args[0], args[1], args[2], sp);
    case Builtin::GetAttr:
      MC_CHECK(args[1]->abstract()->value && args[1]->abstract()->value->is(ValueKind::Str), Type,
               "attribute names must be constant strings");
      return getattr(c, args[0], args[1]->abstract()->value->as_str(), sp);
    case Builtin::Len: {
      Node* r = host_builtin(c, "len", args, {}, sp);
      MC_CHECK(r != nullptr, Type, "object of type ", args[0]->abstract()->to_string(),
               " has no len()");
      return r;
    }
    case Builtin::Is:
    case Builtin::IsNot:
      return is_rule(b, args, sp);
    case Builtin::In:
    case Builtin::NotIn:
      if (!args[0]->abstract()->value ||
          (is_seq_abs(args[1]->abstract()) && !args[1]->abstract()->value)) {
        // x, or the items, known only at run time: graph_methods.contains compares x with
        // each item.
        std::optional<Value> f = graph_method(host_, src_, "contains");
        MC_ASSERT(f.has_value(), "mycel.common.graph_methods has no contains");
        Node* r = call(c, eval_value(*f, sp, c), {args[0], args[1]}, {}, sp);
        return b == Builtin::In ? r : not_rule(c, r, sp);
      }
      return in_rule(b, args, sp);
    case Builtin::Print:
      return print_rule(c, std::move(args), kw, sp);
    case Builtin::Raise:
      return raise_rule(c, args, sp);
    case Builtin::PyExecute:
      return py_execute_rule(c, std::move(args), sp);
    default:
      return binary_rule(c, b, args, sp);
  }
}

Node* Specializer::switch_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp) {
  Node* cond = truth(c, args[0], sp);
  if (cond->abstract()->value) return cond->abstract()->value->as_bool() ? args[1] : args[2];
  const AbsPtr &x = args[1]->abstract(), &y = args[2]->abstract();
  AbsPtr j = join(x, y);
  MC_CHECK(j != nullptr, Type, "the two branches give different types: ", x->to_string(), " and ",
           y->to_string());
  return emit_builtin(c, Builtin::Switch, {cond, args[1], args[2]}, j, sp);
}

Node* Specializer::partial_rule(Ctx* c, const std::vector<Node*>& args_in, const SourceSpan& sp) {
  MC_CHECK(!args_in.empty() && args_in[0]->abstract()->kind == AbsKind::Func, Type,
           "partial() needs a function");
  std::vector<Node*> args = args_in;
  const AbsPtr& fa = args[0]->abstract();
  if (fa->value && fa->value->is(ValueKind::Closure) &&
      fa->value->as_closure().fn.is(ValueKind::Graph)) {
    // A bound method (a constant closure over a source graph): partial of its graph's value
    // and its bound values, so that what is emitted holds no source graph.
    const ClosureData& cl = fa->value->as_closure();
    std::vector<Node*> flat{eval_value(cl.fn, sp, c)};
    for (const Value& b : cl.args) flat.push_back(constant(b, sp));
    flat.insert(flat.end(), args.begin() + 1, args.end());
    args = std::move(flat);
  }
  std::vector<FuncCandidate> cands = args[0]->abstract()->funcs;
  for (FuncCandidate& f : cands)
    for (size_t i = 1; i < args.size(); ++i) f.bound.push_back(args[i]->abstract());
  return emit_builtin(c, Builtin::Partial, args, Abstract::func(cands), sp);
}

Node* Specializer::not_rule(Ctx* c, Node* x, const SourceSpan& sp) {
  Node* t = truth(c, x, sp);
  if (t->abstract()->value) return constant(Value::boolean(!t->abstract()->value->as_bool()), sp);
  return emit_builtin(c, Builtin::Not, {t}, Abstract::scalar(ValueKind::Bool), sp);
}

Node* Specializer::unary_rule(Ctx* c, Builtin b, const std::vector<Node*>& args,
                              const SourceSpan& sp) {
  const AbsPtr& a = args[0]->abstract();
  if (a->kind == AbsKind::Tensor) return unary_tensor_op(c, b, args[0], sp);
  if (std::optional<Value> cls = struct_class(host_, src_, a); cls && b == Builtin::Neg) {
    MC_CHECK(host_.call_builtin(src_, "hasattr", {*cls, Value::string("__neg__")}).as_bool(), Type,
             "bad operand type for unary -: '", a->to_string(), "'");
    return call(c, eval_value(host_.getattr(src_, *cls, "__neg__"), sp, c), {args[0]}, {}, sp);
  }
  MC_CHECK(is_scalar_abs(a), Type, "bad operand type for unary ", builtin_name(b), ": '",
           a->to_string(), "'");
  if (b == Builtin::Pos) return args[0];
  MC_CHECK(b != Builtin::Invert || a->stype != ValueKind::Float, Type,
           "bad operand type for unary ~: 'float'");
  if (a->value) {
    const Value& v = *a->value;
    if (b == Builtin::Neg)
      return constant(
          v.is(ValueKind::Float) ? Value::real(-v.as_float()) : Value::integer(-v.as_int()), sp);
    return constant(Value::integer(~v.as_int()), sp);
  }
  ValueKind k = a->stype == ValueKind::Float ? ValueKind::Float : ValueKind::Int;
  return emit_builtin(c, b, args, Abstract::scalar(k), sp);
}

Node* Specializer::make_dict(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp) {
  std::vector<Value> keys;
  std::vector<AbsPtr> vals;
  bool all_const = true;
  std::vector<Value> cvals;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    const AbsPtr &k = args[i]->abstract(), &v = args[i + 1]->abstract();
    MC_CHECK(k->value.has_value(), Type, "dict keys must be constants in graph mode");
    keys.push_back(*k->value);
    vals.push_back(v);
    if (v->value && !v->value->is(ValueKind::Tensor))
      cvals.push_back(*v->value);
    else
      all_const = false;
  }
  if (all_const) return constant(Value::dict(keys, cvals), sp);
  return emit_builtin(c, Builtin::MakeDict, args, Abstract::dict(keys, vals), sp);
}

Node* Specializer::make_slice(const std::vector<Node*>& args, const SourceSpan& sp) {
  Value bounds[3];
  for (size_t i = 0; i < 3; ++i) {
    const std::optional<Value>& v = args[i]->abstract()->value;
    MC_CHECK(v.has_value(), Type, "slice bounds must be known at compile time in graph mode");
    // Python's words (a float bound once reached the executor's as_int as an internal error)
    MC_CHECK(!v->is(ValueKind::Float) && !v->is(ValueKind::Str), Type,
             "slice indices must be integers or None or have an __index__ method, but got ",
             v->to_string());
    bounds[i] = *v;
    if (v->is(ValueKind::Tensor)) {
      // A constant one-element integer or bool tensor is an index (its __index__), as in
      // MindSpore's xs[:Tensor(3)]; any other tensor is refused in Python's words.
      const Tensor& t = v->as_tensor();
      MC_CHECK(t.numel() == 1 && (is_integral(t.dtype()) || t.dtype() == DType::Bool), Type,
               "slice indices must be integers or None or have an __index__ method, but got a "
               "tensor of ",
               t.dtype(), " with ", t.numel(), " elements");
      bounds[i] = Value::integer(t.item().to_int());
    }
  }
  return constant(Value::slice(bounds[0], bounds[1], bounds[2]), sp);
}

Node* Specializer::setitem(Ctx* c, Node* x, Node* key, Node* v, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  const AbsPtr& k = key->abstract();
  if (is_seq_abs(a)) {
    std::vector<Node*> items = unpack(c, x, sp);
    if (k->value && k->value->is(ValueKind::Slice)) {
      // xs[i:j:k] = v: v iterable (a sequence, or a tensor unpacked along its first axis)
      const AbsPtr& va = v->abstract();
      const SliceData& sl = k->value->as_slice();
      const bool extended = !sl.step.is_none() && sl.step.as_int() != 1;
      MC_CHECK(is_seq_abs(va) || va->kind == AbsKind::Tensor || va->kind == AbsKind::Dict ||
                   (va->value && va->value->is(ValueKind::Str)),
               Type,
               extended ? "must assign iterable to extended slice" : "can only assign an iterable",
               " (got ", va->to_string(), ")");
      return make_seq(c, a->kind == AbsKind::List,
                      slice_assign(std::move(items), sl, unpack(c, v, sp)), sp);
    }
    MC_CHECK(k->value && (k->value->is(ValueKind::Int) || k->value->is(ValueKind::Bool)), Type,
             "list index in an assignment must be a constant int in graph mode");
    int64_t i = k->value->as_int(), n = static_cast<int64_t>(items.size());
    MC_CHECK(i >= -n && i < n, Index, "IndexError: list assignment index out of range");
    items[static_cast<size_t>(i < 0 ? i + n : i)] = v;
    return make_seq(c, a->kind == AbsKind::List, items, sp);
  }
  if (a->kind == AbsKind::Dict) {
    MC_CHECK(k->value.has_value(), Type, "dict keys must be constants in graph mode");
    std::vector<Node*> kv;
    bool found = false;
    for (const Value& key_i : a->keys) {
      kv.push_back(constant(key_i, sp));
      if (key_i == *k->value) {
        kv.push_back(v);
        found = true;
      } else {
        kv.push_back(getitem(c, x, constant(key_i, sp), sp));
      }
    }
    if (!found) {
      kv.push_back(key);
      kv.push_back(v);
    }
    return make_dict(c, kv, sp);
  }
  if (a->kind == AbsKind::Tensor) return tensor_setitem(c, x, key, v, sp);
  MC_THROW(Type, "'", a->to_string(), "' does not support item assignment in graph mode");
}

Node* Specializer::print_rule(Ctx* c, std::vector<Node*> args, const KwNodes& kw,
                              const SourceSpan& sp) {
  for (auto& [k, v] : kw)
    MC_CHECK(k == "sep" || k == "end", Type, "print() got an unexpected keyword '", k, "'");
  MC_CHECK(kw.empty(), Type, "print() keywords are not supported in graph mode");
  // A struct (a sparse tensor) prints as its class's __repr__ makes it, not as its tuple.
  for (Node*& a : args)
    if (std::optional<Value> cls = struct_class(host_, src_, a->abstract()))
      a = call(c, eval_value(host_.getattr(src_, *cls, "__repr__"), sp, c), {a}, {}, sp);
  // print is an effect: after the state, and the state for what follows.
  if (!args.empty()) args[0] = after_state(c, args[0], sp);
  CNode* r = emit_builtin(c, Builtin::Print, args, Abstract::constant(Value::none()), sp);
  took_effect(c, r);
  return r;
}

Node* Specializer::raise_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp) {
  // args: the exception (a class or an instance), then its arguments. Known arguments are
  // formatted now (an f-string over known values is a constant string by now); others (a
  // tensor, an f-string over one) are formatted by the run-time raise from their values.
  std::string msg;    // the message as known at compile time
  std::string known;  // the known text since the last run-time part
  std::string name;   // the exception's class
  ErrorKind kind = ErrorKind::Runtime;
  std::vector<Node*> parts;  // the run-time raise's message parts
  auto append = [](std::string& to, const std::string& text) {
    if (!to.empty()) to.push_back(' ');
    to.append(text);
  };
  auto add = [&](const std::string& text) {
    append(msg, text);
    append(known, text);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    Node* n = args[i];
    const AbsPtr& x = n->abstract();
    if (x->value && x->value->is(ValueKind::PyObj)) {
      std::string t = host_.type_name(*x->value);
      std::string r = x->value->as_host()->repr();
      std::string cls = t == "type" ? r : t;
      if (i == 0) name = t == "type" ? exception_name(*x->value) : t;
      if (cls.find("ValueError") != std::string::npos) kind = ErrorKind::Value;
      if (cls.find("TypeError") != std::string::npos) kind = ErrorKind::Type;
      if (cls.find("IndexError") != std::string::npos) kind = ErrorKind::Index;
      if (t != "type") add(r);
    } else if (x->value && x->value->is(ValueKind::Str)) {
      add(x->value->as_str());
    } else if (x->value) {
      add(x->value->to_string());
    } else {
      // Known at run time only: at compile time, what it is.
      bool fmt = n->is_cnode() && static_cast<CNode*>(n)->is_builtin(Builtin::PyExecute);
      const AbsPtr& f = fmt ? static_cast<CNode*>(n)->input(1)->abstract() : nullptr;
      append(msg, f && f->value ? f->value->as_host()->repr() : str("<", x->to_string(), ">"));
      if (!known.empty()) parts.push_back(constant(Value::string(known), sp));
      known.clear();
      parts.push_back(n);
    }
  }
  bool certain = true;
  for (bool d : stack_dynamic_) certain = certain && !d;
  // As the run-time raise (runtime/vm_builtins.cc) does: a class other than these kinds' names
  // its message ("AssertionError: ..."; mycel.AssertionError in Python, src/python/module.cc).
  if (kind == ErrorKind::Runtime && name != "RuntimeError" && !name.empty())
    msg = msg.empty() ? name : name + ": " + msg;
  if (certain) fail(kind, sp, msg.empty() ? "exception raised in graph" : msg);
  // The run-time raise: raise(class name, message parts..., "\n" + the source location); the
  // executor joins the parts with spaces.
  std::string where = with_location("", sp);
  if (!known.empty() || parts.empty()) parts.push_back(constant(Value::string(known), sp));
  parts.insert(parts.begin(), constant(Value::string(name), sp));
  if (!where.empty()) parts.push_back(constant(Value::string(where), sp));
  return emit_builtin(c, Builtin::Raise, std::move(parts), nullptr, sp);
}

Node* Specializer::py_execute_rule(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  std::vector<Value> vals;
  bool all_const = true;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i]->abstract()->value)
      vals.push_back(*args[i]->abstract()->value);
    else
      all_const = false;
  }
  const AbsPtr& fn = args[0]->abstract();
  MC_CHECK(fn->value.has_value(), Type, "py_execute needs a constant callable");
  if (all_const) return eval_value(host_.call(src_, *fn->value, vals, {}), sp, c);
  warn(sp, "runs in the Python interpreter at run time (JIT fallback)");
  return emit_builtin(c, Builtin::PyExecute, std::move(args), Abstract::any(), sp);
}

}  // namespace mycel::ir::spec
