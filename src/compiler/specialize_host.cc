// The specialiser's rules for calls of host objects: the Python builtins it models (len,
// isinstance, range, zip, enumerate, int, float, bool, tuple, list, abs, max, min, print,
// getattr, ...), host callables resolved to graphs or prims, compile-time evaluation of host
// functions on constants, and the run-time JIT fallback.
#include <algorithm>
#include <optional>

#include "base/error.h"
#include "compiler/specialize_impl.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir::spec {

namespace {
// Whether a value of abstract a holds a floating-point tensor that is not of dtype t.
bool needs_cast(const AbsPtr& a, DType t) {
  if (a->kind == AbsKind::Tensor) return is_floating(a->dtype) && a->dtype != t;
  if (a->kind != AbsKind::Tuple && a->kind != AbsKind::List) return false;
  for (const AbsPtr& e : a->elems)
    if (needs_cast(e, t)) return true;
  return false;
}

// The compile-time value of a, where a dynamic dimension read from x.shape is its static
// value -1: a constant, such a dimension, or a tuple/list of them.
std::optional<Value> static_value(const AbsPtr& a) {
  if (a->value) return *a->value;
  if (a->kind == AbsKind::Scalar && a->dim) return Value::integer(-1);
  if (a->kind != AbsKind::Tuple && a->kind != AbsKind::List) return std::nullopt;
  std::vector<Value> items;
  for (const AbsPtr& e : a->elems) {
    std::optional<Value> v = static_value(e);
    if (!v) return std::nullopt;
    items.push_back(std::move(*v));
  }
  return a->kind == AbsKind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
}

// Whether a holds a dynamic dimension read from x.shape (an int or a tuple/list holding one).
bool holds_dynamic_dim(const AbsPtr& a) {
  if (a->kind == AbsKind::Scalar) return a->dim;
  if (a->kind != AbsKind::Tuple && a->kind != AbsKind::List) return false;
  for (const AbsPtr& e : a->elems)
    if (holds_dynamic_dim(e)) return true;
  return false;
}

// The compile-time value of a host call's argument: its constant, or a function that is a
// graph capturing nothing (the host passes the Python function it was parsed from).
std::optional<Value> const_arg(const AbsPtr& a) {
  if (a->value) return *a->value;
  if (a->kind == AbsKind::Func && a->funcs.size() == 1 && a->funcs[0].bound.empty() &&
      a->funcs[0].context == nullptr && a->funcs[0].fn.is(ValueKind::Graph))
    return a->funcs[0].fn;
  return std::nullopt;
}

bool all_const(const std::vector<Node*>& args, const KwNodes& kw) {
  for (Node* a : args)
    if (!const_arg(a->abstract())) return false;
  for (auto& [k, v] : kw)
    if (!const_arg(v->abstract())) return false;
  return true;
}
// Whether every function argument can be handed to host code (a graph parsed from a Python
// function can; a lambda made in graph code cannot, so its call keeps its graph form).
bool host_passable(Host& host, Module& m, const std::vector<Node*>& args, const KwNodes& kw) {
  auto ok = [&](Node* n) {
    std::optional<Value> v = const_arg(n->abstract());
    bool graph = v && (v->is(ValueKind::Graph) ||
                       (v->is(ValueKind::Closure) && v->as_closure().fn.is(ValueKind::Graph)));
    return !graph || host.graph_has_host_form(m, *v);
  };
  return std::all_of(args.begin(), args.end(), ok) &&
         std::all_of(kw.begin(), kw.end(), [&](const auto& e) { return ok(e.second); });
}

// An argument as a Python inference sees it: ("tensor", shape, dtype, value) for a tensor
// (-1 for a dynamic dimension; value the tensor when known at compile time, else None),
// ("value", v) for another constant; anything else is a TypeError.
Value infer_arg(const AbsPtr& a, const std::string& who) {
  if (a->kind == AbsKind::Tensor) {
    std::vector<Value> dims;
    for (int64_t d : a->shape) dims.push_back(Value::integer(d));
    std::optional<Value> known = const_arg(a);
    return Value::tuple({Value::string("tensor"), Value::tuple(std::move(dims)),
                         Value::dtype(a->dtype), known ? *known : Value()});
  }
  std::optional<Value> v = const_arg(a);
  MC_CHECK(v.has_value(), Type, "For '", who,
           "', a primitive run in Python takes tensors and values known at compile time, "
           "but got ",
           a->to_string(), ".");
  return Value::tuple({Value::string("value"), *v});
}

// The abstract of a Python inference's answer: (is_tuple, ((shape, dtype), ...)).
AbsPtr inferred_abstract(const Value& r, const std::string& who) {
  auto bad = [&] {
    MC_THROW(Type, "For '", who,
             "', the inference must give (is_tuple, ((shape, dtype), ...)), but gave ",
             r.to_string(), ".");
  };
  if (!r.is_sequence() || r.items().size() != 2 || !r.items()[1].is_sequence()) bad();
  std::vector<AbsPtr> outs;
  for (const Value& o : r.items()[1].items()) {
    if (!o.is_sequence() || o.items().size() != 2 || !o.items()[0].is_sequence() ||
        !o.items()[1].is(ValueKind::DType))
      bad();
    Shape shape;
    for (const Value& d : o.items()[0].items()) shape.push_back(d.as_int());
    outs.push_back(Abstract::tensor(o.items()[1].as_dtype(), std::move(shape)));
  }
  if (r.items()[0].as_bool()) return Abstract::tuple(std::move(outs));
  if (outs.size() != 1) bad();
  return outs[0];
}
}  // namespace

Node* Specializer::call_host(Ctx* c, Node* fn, std::vector<Node*> args, KwNodes kw,
                             const SourceSpan& sp) {
  const Value& h = *fn->abstract()->value;
  std::string name = host_.builtin_name(h);
  if (name == "GradOperation()") {  // an instance: GradOperation(flags...)(fn[, weights])
    MC_CHECK(!args.empty() || !kw.empty(), Type,
             "'GradOperation' requires a forward network or function as an input, while the "
             "input is empty.");
    MC_CHECK((args.size() == 1 || args.size() == 2) && kw.empty(), Type,
             "GradOperation(...) takes the function and optionally the weights");
    const AbsPtr& fa = args[0]->abstract();
    MC_CHECK(!(fa->value && fa->value->is(ValueKind::None)), Type,
             "For 'GradOperation', the first argument must be a 'Function' or 'Cell', but got "
             "None.");
    std::vector<Node*> a{args[0], args.size() == 2 ? args[1] : constant(Value(), sp)};
    for (const char* flag : {"get_all", "get_by_list", "sens_param"})
      a.push_back(constant(host_.getattr(src_, h, flag), sp));
    return make_grad_operation(c, std::move(a), sp);
  }
  if (!name.empty()) {
    Node* r = host_builtin(c, name, args, kw, sp);
    if (r != nullptr) return r;
  }
  Value callee = host_.callable(src_, h);
  if (!(callee == h)) {
    if (std::optional<DType> t = host_.mixed_precision(h, false)) {  // a Cell under to_float
      for (Node*& a : args) a = mixed_cast(c, a, *t, sp);
      for (auto& [k, v] : kw) v = mixed_cast(c, v, *t, sp);
    }
    // A Cell under recompute(), called outside any other: the ops of this call (its
    // sub-cells' and the functions they call included) form one scope.
    std::optional<bool> rc = recompute_scope_ == 0 ? host_.recompute(h) : std::nullopt;
    if (!rc) return call(c, eval_value(callee, sp, c), std::move(args), std::move(kw), sp);
    recompute_scope_ = 2 * ++recompute_calls_ + (*rc ? 1 : 0);
    struct Restore {
      int64_t& scope;
      ~Restore() { scope = 0; }
    } restore{recompute_scope_};
    return call(c, eval_value(callee, sp, c), std::move(args), std::move(kw), sp);
  }
  // A host effect (an object whose class sets __mycel_host_effect__, as the summary
  // operators' publisher, python/mycel/common/_summary_channel.py): the executor calls it each
  // time the step reaches it, in program order; never folded at compile time, even on
  // constant arguments, and no fallback warning (running in Python is its purpose).
  // (Asked of the object's class, so an instance's own __getattr__ never runs here.)
  const Value cls = host_.call_builtin(src_, "type", {h});
  const Value mark = Value::string("__mycel_host_effect__");
  if (kw.empty() && host_.call_builtin(src_, "hasattr", {cls, mark}).as_bool()) {
    args.insert(args.begin(), fn);
    Node* r = emit_builtin(c, Builtin::PyExecute, std::move(args), Abstract::any(), sp);
    // The program's state from here (auto-monad): callers, loops and a gradient's forward
    // keep it, so it runs even where nothing reads its value.
    took_effect(c, r);
    return r;
  }
  // A primitive declared in Python with its own __call__ and an inference (its class sets
  // __mycel_host_infer__, ops/custom_prim.py), as MindSpore runs a Python primitive on CPU:
  // the call is typed by the inference, asked now with each argument's shape and dtype, and
  // runs the primitive's __call__ in Python each time the step reaches it (the class's
  // _mycel_host_run, which checks the result against the inference). No gradient flows
  // through it (MindSpore's needs the primitive's registered bprop).
  const Value infer_mark = Value::string("__mycel_host_infer__");
  if (host_.call_builtin(src_, "hasattr", {cls, infer_mark}).as_bool()) {
    const std::string who = host_.type_name(h);
    MC_CHECK(kw.empty(), Type, "For '", who, "', the inputs are positional only.");
    std::vector<Value> descs{h};
    for (Node* a : args) descs.push_back(infer_arg(a->abstract(), who));
    AbsPtr out = inferred_abstract(
        host_.call(src_, host_.getattr(src_, cls, "__mycel_host_infer__"), descs, {}), who);
    args.insert(args.begin(), fn);
    args.insert(args.begin(), constant(host_.getattr(src_, cls, "_mycel_host_run"), sp));
    return emit_builtin(c, Builtin::PyExecute, std::move(args), std::move(out), sp);
  }
  if (all_const(args, kw) && host_passable(host_, src_, args, kw)) {
    std::vector<Value> vals;
    for (Node* a : args) vals.push_back(*const_arg(a->abstract()));
    Kwargs kv;
    for (auto& [k, v] : kw) kv.push_back({k, *const_arg(v->abstract())});
    return eval_value(host_.call(src_, h, vals, kv), sp, c);
  }
  // A @constexpr helper runs at compile time: a dynamic dimension (x.shape[i] under
  // set_inputs) reaches it as -1, its static value (MindSpore's static shape), as the shape
  // helpers of the library expect.
  if (host_.call_builtin(src_, "hasattr", {h, Value::string("__mycel_constexpr__")}).as_bool()) {
    std::vector<Value> vals;
    Kwargs kv;
    bool ok = true;
    for (Node* a : args)
      if (std::optional<Value> v = static_value(a->abstract()); ok && v)
        vals.push_back(std::move(*v));
      else
        ok = false;
    for (auto& [k, n] : kw)
      if (std::optional<Value> v = static_value(n->abstract()); ok && v)
        kv.push_back({k, std::move(*v)});
      else
        ok = false;
    if (ok) return eval_value(host_.call(src_, h, vals, kv), sp, c);
  }
  MC_CHECK(kw.empty(), Type, "calling '", host_.type_name(h),
           "' with keyword arguments on values known only at run time is not supported");
  warn(sp, str("'", h.as_host()->repr(),
               "' runs in the Python interpreter at run time (JIT fallback)"));
  args.insert(args.begin(), fn);
  Node* r = emit_builtin(c, Builtin::PyExecute, std::move(args), Abstract::any(), sp);
  // It runs where Python would run it, its value used or not: a check that raises (a
  // @constexpr helper called on a tensor, whose result the path taken ignores: ops.flip of
  // a 0-d tensor with tensor dims) raises in graph code as in PYNATIVE, never dropped.
  took_effect(c, r);
  return r;
}

Node* Specializer::mixed_cast(Ctx* c, Node* x, DType t, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  if (!needs_cast(a, t)) return x;
  if (a->kind == AbsKind::Tensor) {
    const OpDef& cast = op_def(OpId::Cast);
    Attrs at;
    at.set("dtype", t);
    return emit_prim(c, cast, at, {x}, sp);
  }
  std::vector<Node*> items = unpack(c, x, sp);
  for (Node*& e : items) e = mixed_cast(c, e, t, sp);
  return make_seq(c, a->kind == AbsKind::List, std::move(items), sp);
}

// len(x) of what the compiler knows the length of (nullptr: the host's, on constants).
Node* Specializer::len_rule(Ctx* c, Node* x, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List || a->kind == AbsKind::Dict)
    return constant(Value::integer(static_cast<int64_t>(a->elems.size())), sp);
  if (a->kind == AbsKind::Tensor) {
    MC_CHECK(!a->shape.empty(), Type, "len() of a 0-d tensor");
    return tensor_dim(c, x, 0, sp);
  }
  if (a->value && a->value->is(ValueKind::Str))
    return constant(Value::integer(static_cast<int64_t>(a->value->as_str().size())), sp);
  if (a->value && a->value->is(ValueKind::PyObj))  // a CellList, a host container
    return eval_value(host_.call_builtin(src_, "len", {*a->value}), sp, c);
  return nullptr;
}

Node* Specializer::zip_rule(Ctx* c, bool enumerate, const std::vector<Node*>& args,
                            const KwNodes& kw, const SourceSpan& sp) {
  const char* name = enumerate ? "enumerate" : "zip";
  std::vector<std::vector<Node*>> cols;
  int64_t start = 0;
  std::vector<Node*> seqs = args;
  Node* start_node = nullptr;
  for (auto& [k, v] : kw) {
    MC_CHECK(enumerate && k == "start", Type, name, "() got an unexpected keyword argument '", k,
             "'");
    start_node = v;
  }
  if (enumerate) {  // enumerate(seq, start=0): MindSpore's words for a bad seq or start
    MC_CHECK(seqs.size() == 1 || (seqs.size() == 2 && start_node == nullptr), Type,
             "enumerate() takes 1 or 2 arguments (", seqs.size() + kw.size(), " given)");
    if (seqs.size() == 2) {
      start_node = seqs[1];
      seqs.pop_back();
    }
    const AbsPtr& a = seqs[0]->abstract();
    if (a->kind == AbsKind::Scalar) {
      const char* py = a->stype == ValueKind::Bool    ? "bool"
                       : a->stype == ValueKind::Float ? "float"
                       : a->stype == ValueKind::Int   ? "int"
                                                      : "scalar";
      MC_THROW(Type,
               "For 'enumerate', the 'first input' should be tuple or list or tensor, but "
               "got <class '",
               py, "'>.");
    }
    if (start_node != nullptr) {
      const AbsPtr& st = start_node->abstract();
      MC_CHECK(st->value && (st->value->is(ValueKind::Int) || st->value->is(ValueKind::Bool)), Type,
               "For 'enumerate', the 'start' should be a const int number, but got ",
               st->value ? st->value->to_string() : st->to_string(), ".");
      start = st->value->is(ValueKind::Bool) ? (st->value->as_bool() ? 1 : 0) : st->value->as_int();
    }
  }
  for (Node* a : seqs) cols.push_back(unpack(c, a, sp));
  size_t n = cols.empty() ? 0 : cols[0].size();
  for (auto& col : cols) n = std::min(n, col.size());
  std::vector<Node*> rows;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Node*> row;
    if (enumerate) row.push_back(constant(Value::integer(start + static_cast<int64_t>(i)), sp));
    for (auto& col : cols) row.push_back(col[i]);
    rows.push_back(make_seq(c, false, row, sp));
  }
  return make_seq(c, false, rows, sp);
}

// map(f, seqs...) over sequences of known length: the calls, as a tuple.
Node* Specializer::map_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp) {
  std::vector<std::vector<Node*>> cols;
  for (size_t i = 1; i < args.size(); ++i) cols.push_back(unpack(c, args[i], sp));
  size_t n = cols[0].size();
  for (auto& col : cols) n = std::min(n, col.size());
  std::vector<Node*> out;
  for (size_t i = 0; i < n; ++i) {
    std::vector<Node*> a;
    for (auto& col : cols) a.push_back(col[i]);
    out.push_back(call(c, args[0], a, {}, sp));
  }
  return make_seq(c, false, out, sp);
}

// int(x), float(x), bool(x) of a value known only at run time.
Node* Specializer::scalar_conversion(Ctx* c, const std::string& name, Node* x,
                                     const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  if (a->kind == AbsKind::Tensor) {
    if (name == "bool") return truth(c, x, sp);
    check_static_dims(a->shape, 0, a->shape.size(), name, "element count of the tensor");
    int64_t n = 1;
    for (int64_t d : a->shape) n *= d;
    MC_CHECK(n == 1, Type, "only one-element tensors can be converted to Python scalars");
    ValueKind k = a->dtype == DType::Bool ? ValueKind::Bool
                  : is_floating(a->dtype) ? ValueKind::Float
                                          : ValueKind::Int;
    x = emit_builtin(c, Builtin::TensorToScalar, {x}, Abstract::scalar(k), sp);
  }
  if (name == "bool") return truth(c, x, sp);
  ValueKind k = name == "int" ? ValueKind::Int : ValueKind::Float;
  if (x->abstract()->kind == AbsKind::Scalar && x->abstract()->stype == k) return x;
  return emit_builtin(c, Builtin::Cast, {x, constant(Value::string(name), sp)}, Abstract::scalar(k),
                      sp);
}

// max/min of tensors (Maximum/Minimum, scalars joining as weak scalars).
Node* Specializer::min_max_rule(Ctx* c, const std::string& name, const std::vector<Node*>& args,
                                const SourceSpan& sp) {
  std::vector<Node*> items = args;
  if (items.size() == 1) items = unpack(c, items[0], sp);
  MC_CHECK(!items.empty(), Value, name, "() arg is an empty sequence");
  Node* acc = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    const AbsPtr &a = acc->abstract(), &b = items[i]->abstract();
    MC_CHECK(a->kind == AbsKind::Tensor || b->kind == AbsKind::Tensor, Type, name,
             "() of scalars known only at run time is not supported");
    const OpDef& op = op_def(name == "max" ? OpId::Maximum : OpId::Minimum);
    DType lk = a->kind == AbsKind::Tensor ? a->dtype : b->dtype;
    acc = emit_prim(c, op, {}, {to_tensor(c, acc, &lk, sp), to_tensor(c, items[i], &lk, sp)}, sp);
  }
  return acc;
}

Node* Specializer::host_builtin(Ctx* c, const std::string& name, std::vector<Node*> args,
                                KwNodes kw, const SourceSpan& sp) {
  auto A = [&](size_t i) -> const AbsPtr& { return args[i]->abstract(); };
  auto need = [&](size_t n) {
    MC_CHECK(args.size() == n, Type, name, "() takes ", n, " argument", n == 1 ? "" : "s", " (",
             args.size(), " given)");
  };
  if (name == "len") {
    need(1);
    if (Node* r = len_rule(c, args[0], sp)) return r;
  } else if (name == "Tensor") {
    // Tensor(t) / Tensor(t, dtype) of a tensor known only at run time (an asnumpy() result
    // included): its value, cast to dtype; anything else is the class's own call.
    Node* dt = args.size() == 2 ? args[1] : nullptr;
    bool plain = args.size() == 1 || args.size() == 2;
    for (auto& [k, v] : kw) {
      plain = plain && k == "dtype" && dt == nullptr;
      dt = v;
    }
    if (plain && A(0)->kind == AbsKind::Tensor && !A(0)->value) {
      const AbsPtr* d = dt != nullptr ? &dt->abstract() : nullptr;
      if (d == nullptr || ((*d)->value && (*d)->value->is(ValueKind::None))) return args[0];
      if ((*d)->value && (*d)->value->is(ValueKind::DType)) {
        Attrs at;
        at.set("dtype", (*d)->value->as_dtype());
        return emit_prim(c, op_def(OpId::Cast), at, {args[0]}, sp);
      }
    }
    return nullptr;  // the class's own call: now on constants, else the JIT fallback
  } else if (name == "isinstance") {
    need(2);
    MC_CHECK(A(1)->value.has_value(), Type, "isinstance() needs a class known at compile time");
    std::optional<bool> r = host_.isinstance(A(0), *A(1)->value);
    MC_CHECK(r.has_value(), Type, "isinstance() of ", A(0)->to_string(),
             " cannot be decided at compile time");
    return constant(Value::boolean(*r), sp);
  } else if (name == "grad" || name == "value_and_grad") {
    return make_grad(c, name == "value_and_grad", std::move(args), std::move(kw), sp);
  } else if (name == "vmap") {
    return make_vmap(c, std::move(args), std::move(kw), sp);
  } else if (name == "grad_operation") {
    return make_grad_operation(c, std::move(args), sp);
  } else if (name == "get_grad") {
    return get_grad_rule(c, std::move(args), sp);
  } else if (name == "_vjp_forward" || name == "_vjp_backward") {
    MC_CHECK(kw.empty(), Type, name, "() takes no keyword arguments");
    return vjp_half(c, name == "_vjp_forward", std::move(args), sp);
  } else if (name == "_vjp_out_zeros") {
    MC_CHECK(kw.empty(), Type, name, "() takes no keyword arguments");
    return vjp_out_zeros(c, std::move(args), sp);
  } else if (name == "mutable") {
    // mutable(x, dynamic_len=False) in graph code: x as a run-time value (its abstract
    // broadened: a constant tuple of tensors becomes a variable that gradients are taken
    // of, a number a run-time scalar), as MindSpore's; the argument is checked as in Python.
    MC_CHECK(!args.empty() && args.size() + kw.size() <= 2, Type,
             "mutable() takes 1 or 2 arguments (", args.size() + kw.size(), " given)");
    const AbsPtr& a = A(0);
    bool number =
        a->kind == AbsKind::Scalar &&
        (a->stype == ValueKind::Int || a->stype == ValueKind::Float || a->stype == ValueKind::Bool);
    MC_CHECK(number || a->kind == AbsKind::Tensor || a->kind == AbsKind::Tuple ||
                 a->kind == AbsKind::List || a->kind == AbsKind::Dict,
             Type,
             "For 'mutable', the input must be a bool, an int, a float, a Tensor, or a tuple, "
             "list or dict of them, but got ",
             a->to_string());
    return emit_builtin(c, Builtin::Depend, {args[0]}, broaden(a), sp);
  } else if (name == "functools.partial") {
    // partial(f, *args) in graph code: the partial application (keywords: the host's call).
    if (args.empty() || A(0)->kind != AbsKind::Func) return nullptr;
    if (!kw.empty()) {
      MC_CHECK(all_const(args, kw) && host_passable(host_, src_, args, kw), Type,
               "functools.partial() with keyword arguments is not supported in graph mode (but on "
               "constant values); bind the arguments by position, or use a lambda");
      return nullptr;  // on constants: the host's own call
    }
    return partial_rule(c, args, sp);
  } else if (name == "stop_gradient") {
    need(1);
    return builtin(c, Builtin::StopGradient, std::move(args), {}, sp);
  } else if (name == "depend") {
    need(2);
    AbsPtr value = A(0);
    return emit_builtin(c, Builtin::Depend, std::move(args), value, sp);
  } else if (name == "F.shape") {  // MindSpore's ops.shape: x.shape, a dynamic dimension
    need(1);                       // read at run time (never its -1 placeholder)
    return getattr(c, args[0], "shape", sp);
  } else if (name == "F.holds_dynamic_dim") {  // a constant: the library's guard against -1
    need(1);
    return constant(Value::boolean(holds_dynamic_dim(A(0))), sp);
  } else if (name == "print") {
    return builtin(c, Builtin::Print, std::move(args), std::move(kw), sp);
  } else if (name == "getattr") {
    MC_CHECK(args.size() == 2 || args.size() == 3, Type, "getattr() takes 2 or 3 arguments");
    MC_CHECK(A(1)->value && A(1)->value->is(ValueKind::Str), Type,
             "getattr() needs a constant attribute name in graph mode");
    if (args.size() == 2) return getattr(c, args[0], A(1)->value->as_str(), sp);
    try {
      return getattr(c, args[0], A(1)->value->as_str(), sp);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      return args[2];
    }
  } else if (name == "zip" || name == "enumerate") {
    return zip_rule(c, name == "enumerate", args, kw, sp);
  } else if (name == "map" && args.size() >= 2 &&
             !(all_const(args, kw) && host_passable(host_, src_, args, kw))) {
    return map_rule(c, args, sp);
  } else if (name == "tuple" || name == "list") {
    if (args.empty()) return make_seq(c, name == "list", {}, sp);
    need(1);
    return make_seq(c, name == "list", unpack(c, args[0], sp), sp);
  } else if (name == "int" || name == "float" || name == "bool") {
    if (args.size() == 1 && !A(0)->value) return scalar_conversion(c, name, args[0], sp);
  } else if (name == "abs" && args.size() == 1 && A(0)->kind == AbsKind::Tensor) {
    const OpDef& op = op_def(OpId::Abs);
    return emit_prim(c, op, {}, {args[0]}, sp);
  } else if ((name == "max" || name == "min") && !all_const(args, kw)) {
    return min_max_rule(c, name, args, sp);
  } else if (name == "sum" && !all_const(args, kw)) {
    need(1);
    std::vector<Node*> items = unpack(c, args[0], sp);
    Node* acc = constant(Value::integer(0), sp);
    for (Node* n : items) acc = builtin(c, Builtin::Add, {acc, n}, {}, sp);
    return acc;
  } else if (name == "range" && !all_const(args, kw)) {
    MC_THROW(Type,
             "range() with bounds known only at run time can only be iterated by a for "
             "loop in graph mode");
  } else if (name == "type" && args.size() == 1 && kw.empty() && !A(0)->value) {
    // type(x) of a run-time value whose kind the abstract says: Python's class of that kind
    // (the host's type() of an empty value of it). Tensors and others stay refused below.
    const AbsPtr& a = A(0);
    std::optional<Value> like;
    if (a->kind == AbsKind::Tuple) like = Value::tuple({});
    if (a->kind == AbsKind::List) like = Value::list({});
    if (a->kind == AbsKind::Dict) like = Value::dict({}, {});
    if (a->kind == AbsKind::Scalar && a->stype == ValueKind::Int) like = Value::integer(0);
    if (a->kind == AbsKind::Scalar && a->stype == ValueKind::Float) like = Value::real(0.0);
    if (a->kind == AbsKind::Scalar && a->stype == ValueKind::Bool) like = Value::boolean(false);
    if (like) return constant(host_.call_builtin(src_, "type", {*like}), sp);
  } else if (name == "super" && !all_const(args, kw)) {
    MC_THROW(Type,
             "super() is not supported inside graph code on values known only at run time; "
             "call the parent's method as Parent.method(self, ...)");
  }
  // Anything else the host evaluates now, on constants (the caller does it).
  MC_CHECK(all_const(args, kw), Type, name, "() on values known only at run time (",
           args.empty() ? std::string("keywords") : A(0)->to_string(),
           ") is not supported in graph mode");
  return nullptr;
}

}  // namespace mycel::ir::spec
