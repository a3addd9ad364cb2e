// The specialiser's rules for the gradient transforms (compiler/ad/ad.h has the design):
//
//   grad(fn, grad_position=0, weights=None, has_aux=False)        host builtin "grad"
//   value_and_grad(fn, ...)                                       host builtin "value_and_grad"
//       -> partial(grad, fn, options): a function value
//   grad(fn, options, x...)                                       its call
//       -> a graph W(x...) = fn(x...) specialised for these arguments, then
//          %t = vjp(@W, make_tuple(w...), x...); %d = getitem(%t, 1)(sens); selection of %d
//   ops.vjp(fn, x...)                                             composite.vjp, over
//   _vjp_forward(fn, weights, x...) -> %t                         host builtins: the forward
//   _vjp_backward(%t, sens, weights, x...) -> the selection       once, the pullback per call
//   _vjp_out_zeros(fn, x...) -> zeros shaped as fn's output       (ops.jvp's seed, no run)
//
// The options, their checks, the checks of a call and the shape of its result are the grad
// API's rules (compiler/grad_spec.h), shared with PYNATIVE mode; here they meet abstracts,
// so their errors name the user's line.
#include <cstdlib>
#include <functional>
#include <string>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/grad_spec.h"
#include "compiler/specialize_impl.h"
#include "tensor/dynamic_shape.h"

namespace mycel::ir::spec {

namespace {

// A reference to graph g, as a function value.
Node* graph_ref(Module& m, FuncGraph* g, const SourceSpan& sp) {
  Node* v = m.value(Value::graph(g), sp);
  v->set_abstract(Abstract::func({FuncCandidate{Value::graph(g), {}, nullptr}}));
  return v;
}

Node* item(Specializer& s, Ctx* c, Node* x, size_t i, const SourceSpan& sp) {
  return s.getitem(c, x, s.constant(Value::integer(static_cast<int64_t>(i)), sp), sp);
}

// Whether a value of abstract a holds a list or a dict.
bool holds_list_or_dict(const AbsPtr& a) {
  if (a->kind == AbsKind::List || a->kind == AbsKind::Dict) return true;
  if (a->kind == AbsKind::Tuple)
    for (const AbsPtr& e : a->elems)
      if (holds_list_or_dict(e)) return true;
  return false;
}

// MindSpore's syntax level STRICT (MS_DEV_JIT_SYNTAX_LEVEL=0): gradients of lists and dicts
// stay tuples (of the values, for a dict).
bool strict_syntax() {
  const char* v = std::getenv("MS_DEV_JIT_SYNTAX_LEVEL");
  return v != nullptr && std::string(v) == "0";
}

// The gradient g of an input of abstract `in` (a tuple for a list or a dict: ad.h) with the
// structure MindSpore returns (its default syntax level, LAX): a list for a list, a dict with
// the same keys for a dict.
Node* like_input(Specializer& s, Ctx* c, Node* g, const AbsPtr& in, const SourceSpan& sp) {
  if (!holds_list_or_dict(in) || strict_syntax()) return g;
  const AbsPtr& ga = g->abstract();
  if (!ga || ga->kind != AbsKind::Tuple || ga->elems.size() != in->elems.size()) return g;
  std::vector<Node*> items;
  for (size_t i = 0; i < in->elems.size(); ++i)
    items.push_back(like_input(s, c, item(s, c, g, i, sp), in->elems[i], sp));
  if (in->kind != AbsKind::Dict)
    return s.make_seq(c, in->kind == AbsKind::List, std::move(items), sp);
  std::vector<Node*> kv;  // make_dict's key, value, key, value, ...
  for (size_t i = 0; i < items.size(); ++i) {
    kv.push_back(s.constant(in->keys[i], sp));
    kv.push_back(items[i]);
  }
  return s.make_dict(c, kv, sp);
}

// GradOperation(get_all=True)'s gradient of a number input, as MindSpore gives it: a zero of
// the number's kind in place of its None cotangent, also inside a tuple or list input
// (composite.py's _zeros_for in PYNATIVE mode).
Node* zero_numbers(Specializer& s, Ctx* c, Node* g, const AbsPtr& in, const SourceSpan& sp) {
  if (in->kind == AbsKind::Scalar) {
    if (in->stype == ValueKind::Int) return s.constant(Value::integer(0), sp);
    if (in->stype == ValueKind::Float) return s.constant(Value::real(0.0), sp);
    if (in->stype == ValueKind::Bool) return s.constant(Value::boolean(false), sp);
    return g;
  }
  if (in->kind != AbsKind::Tuple && in->kind != AbsKind::List) return g;
  const AbsPtr& ga = g->abstract();
  if (!ga || (ga->kind != AbsKind::Tuple && ga->kind != AbsKind::List) ||
      ga->elems.size() != in->elems.size())
    return g;
  std::vector<Node*> items;
  for (size_t i = 0; i < in->elems.size(); ++i)
    items.push_back(zero_numbers(s, c, item(s, c, g, i, sp), in->elems[i], sp));
  return s.make_seq(c, ga->kind == AbsKind::List, std::move(items), sp);
}

// Zeros of abstract a (tensors of static shape, in tuples and lists), None for anything
// else: a value of that structure made without one of it.
Node* zeros_of(Specializer& s, Ctx* c, const AbsPtr& a, const SourceSpan& sp) {
  if (a->kind == AbsKind::Tensor) {
    MC_CHECK(!is_dynamic(a->shape), Value, "jvp in graph code: the function's output ",
             a->to_string(), " has a dynamic shape; its tangent needs a static one");
    Attrs at;
    at.set("dtype", a->dtype);
    at.set("shape", std::vector<int64_t>(a->shape.begin(), a->shape.end()));
    at.set("value", 0.0);
    return s.emit_prim(c, op_def(OpId::Fill), at, {}, sp);
  }
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List) {
    std::vector<Node*> items;
    for (const AbsPtr& e : a->elems) items.push_back(zeros_of(s, c, e, sp));
    return s.make_seq(c, a->kind == AbsKind::List, std::move(items), sp);
  }
  return s.constant(Value(), sp);
}

std::vector<AbsPtr> abstracts(const std::vector<Node*>& xs) {
  std::vector<AbsPtr> r;
  for (Node* x : xs) r.push_back(x->abstract());
  return r;
}

// `a` with each tensor in it (at any depth of tuples, lists, dicts) a run-time value: a
// constant tensor (a number made one for its gradient) is differentiated, not folded.
AbsPtr without_tensor_values(const AbsPtr& a) {
  if (a->kind == AbsKind::Tensor) return Abstract::tensor(a->dtype, a->shape);
  bool seq = a->kind == AbsKind::Tuple || a->kind == AbsKind::List;
  if (!(seq || a->kind == AbsKind::Dict) || !compiler::holds_tensor(a)) return a;
  std::vector<AbsPtr> elems;
  for (const AbsPtr& e : a->elems) elems.push_back(without_tensor_values(e));
  if (a->kind == AbsKind::Dict) return Abstract::dict(a->keys, elems);
  return a->kind == AbsKind::List ? Abstract::list(elems) : Abstract::tuple(elems);
}

// Element i of x (abstract a): by its key for a dict.
Node* elem(Specializer& s, Ctx* c, Node* x, const AbsPtr& a, size_t i, const SourceSpan& sp) {
  if (a->kind == AbsKind::Dict) return s.getitem(c, x, s.constant(a->keys[i], sp), sp);
  return item(s, c, x, i, sp);
}

bool is_number(const AbsPtr& a) {
  return a->kind == AbsKind::Scalar && (a->stype == ValueKind::Int || a->stype == ValueKind::Float);
}

// GRAD_FOR_SCALAR (compiler/grad_spec.h): x with each Python number in it (at any depth of
// tuples, lists and dicts) replaced by a 0-d tensor holding it (int64, float32), whose
// gradient is taken.
Node* numbers_to_tensors(Specializer& s, Ctx* c, Node* x, const SourceSpan& sp) {
  const AbsPtr& a = x->abstract();
  if (is_number(a)) {
    DType t = a->stype == ValueKind::Int ? DType::Int64 : DType::Float32;
    return s.to_tensor(c, x, &t, sp);
  }
  if (!(a->kind == AbsKind::Tuple || a->kind == AbsKind::List || a->kind == AbsKind::Dict))
    return x;
  std::vector<Node*> items;
  for (size_t i = 0; i < a->elems.size(); ++i)
    items.push_back(numbers_to_tensors(s, c, elem(s, c, x, a, i, sp), sp));
  if (a->kind != AbsKind::Dict) return s.make_seq(c, a->kind == AbsKind::List, items, sp);
  std::vector<Node*> kv;
  for (size_t i = 0; i < items.size(); ++i) {
    kv.push_back(s.constant(a->keys[i], sp));
    kv.push_back(items[i]);
  }
  return s.make_dict(c, kv, sp);
}

// The gradient g (structured as like_input makes it) of an input of abstract `in` whose
// numbers numbers_to_tensors made tensors: each of their gradients back as a number.
Node* tensors_to_numbers(Specializer& s, Ctx* c, Node* g, const AbsPtr& in, const SourceSpan& sp) {
  const AbsPtr& ga = g->abstract();
  if (is_number(in)) {
    if (!ga || ga->kind != AbsKind::Tensor) return g;
    return s.emit_builtin(c, Builtin::TensorToScalar, {g}, Abstract::scalar(in->stype), sp);
  }
  if (!(in->kind == AbsKind::Tuple || in->kind == AbsKind::List || in->kind == AbsKind::Dict))
    return g;
  if (!ga || ga->elems.size() != in->elems.size()) return g;
  std::vector<Node*> items;
  for (size_t i = 0; i < in->elems.size(); ++i)
    items.push_back(tensors_to_numbers(s, c, elem(s, c, g, ga, i, sp), in->elems[i], sp));
  if (ga->kind != AbsKind::Dict) return s.make_seq(c, ga->kind == AbsKind::List, items, sp);
  std::vector<Node*> kv;
  for (size_t i = 0; i < items.size(); ++i) {
    kv.push_back(s.constant(ga->keys[i], sp));
    kv.push_back(items[i]);
  }
  return s.make_dict(c, kv, sp);
}

}  // namespace

Node* Specializer::make_grad(Ctx* c, bool value, std::vector<Node*> args, KwNodes kw,
                             const SourceSpan& sp) {
  const char* api = value ? "value_and_grad" : "grad";
  static const char* names[] = {"fn", "grad_position", "weights", "has_aux", "return_ids"};
  std::vector<Node*> slot(5, nullptr);
  MC_CHECK(args.size() <= 5, Type, api, "() takes at most 5 arguments (", args.size(), " given)");
  for (size_t i = 0; i < args.size(); ++i) slot[i] = args[i];
  for (auto& [k, v] : kw) {
    size_t i = 0;
    while (i < 5 && k != names[i]) ++i;
    MC_CHECK(i < 5, Type, api, "() got an unexpected keyword argument '", k, "'");
    MC_CHECK(slot[i] == nullptr, Type, api, "() got multiple values for argument '", k, "'");
    slot[i] = v;
  }
  MC_CHECK(slot[0] != nullptr, Type, api, "() missing required argument 'fn'");
  auto const_of = [&](size_t i, Value dflt) -> Value {
    if (slot[i] == nullptr) return dflt;
    MC_CHECK(slot[i]->abstract()->value.has_value(), Type, api, "(): '", names[i],
             "' must be known at compile time in graph mode");
    return *slot[i]->abstract()->value;
  };
  if (slot[2] != nullptr && !slot[2]->abstract()->value) {
    // One Parameter read in graph code (self.w) is its entry parameter: the Parameter itself.
    for (const auto& [param, node] : weights_)
      if (node == slot[2]) slot[2] = constant(param, sp);
  }
  if (slot[2] != nullptr && !slot[2]->abstract()->value) {
    // Parameters are compile-time constants (host objects): anything else is not one.
    const AbsPtr& wa = slot[2]->abstract();
    if (wa->kind == AbsKind::Tuple || wa->kind == AbsKind::List)
      for (size_t j = 0; j < wa->elems.size(); ++j)
        compiler::check_grad_weight(wa->elems[j]->value && host_.weight(*wa->elems[j]->value), j,
                                    broaden(wa->elems[j])->to_string());
    compiler::check_grad_weight(false, 0, wa->to_string());
  }
  Value opts = compiler::grad_options(value, const_of(1, Value::integer(0)), const_of(2, Value()),
                                      const_of(3, Value::boolean(false)));
  Value ids = const_of(4, Value::boolean(false));
  MC_CHECK(ids.is(ValueKind::Bool), Type, api, "(): 'return_ids' must be a bool");
  if (ids.as_bool()) opts = compiler::with_return_ids(opts);
  return builtin(c, Builtin::Partial,
                 {constant(Value::builtin(Builtin::Grad), sp), slot[0], constant(opts, sp)}, {},
                 sp);
}

FuncGraph* Specializer::wrap_call(Ctx* c, Node* fn, const std::vector<AbsPtr>& abs,
                                  const std::string& name, const SourceSpan& sp,
                                  const std::vector<std::string>& kw_names) {
  auto owned = std::make_unique<Ctx>();
  Ctx* w = owned.get();
  w->parent = c;
  w->seq = next_seq_++;
  w->done = true;
  ctxs_.push_back(std::move(owned));
  w->out = out_.new_graph(name);
  w->state = c->state;  // what fn reads runs after c's effects (W is nested in c)
  std::vector<Node*> params;
  for (size_t i = 0; i < abs.size(); ++i) {
    AbsPtr a = abs[i];
    a = without_tensor_values(a);
    Parameter* p = out_.add_param(w->out, str("x", i), sp);
    p->set_abstract(a);
    params.push_back(a->value && !a->value->is(ValueKind::Tensor) ? constant(*a->value, sp) : p);
  }
  KwNodes kw;
  for (size_t i = 0; i < kw_names.size(); ++i)
    kw.emplace_back(kw_names[i], params[params.size() - kw_names.size() + i]);
  params.resize(params.size() - kw_names.size());
  Node* res = call(w, fn, params, std::move(kw), sp);
  if (is_bottom(res)) return nullptr;
  w->out->set_output(res);
  return w->out;
}

Node* Specializer::custom_vjp_call(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_ASSERT(args.size() >= 2, "custom_vjp: malformed call");
  std::vector<Node*> xs(args.begin() + 2, args.end());
  std::vector<AbsPtr> abs = abstracts(xs);
  FuncGraph* f = wrap_call(c, args[0], abs, str("construct_", c->out->name()), sp);
  if (f == nullptr) return bottom();
  AbsPtr out = f->output()->abstract();
  // bprop(x..., out, dout)
  abs.push_back(out);
  abs.push_back(cot_abs(out));
  FuncGraph* b = wrap_call(c, args[1], abs, str("bprop_", c->out->name()), sp);
  if (b == nullptr) return bottom();
  // Errors name the bprop's own line.
  SourceSpan bsp = sp;
  if (const AbsPtr& ba = args[1]->abstract();
      ba && ba->kind == AbsKind::Func && ba->funcs[0].fn.is(ValueKind::Graph))
    bsp = ba->funcs[0].fn.as_graph()->span();
  const AbsPtr& r = b->output()->abstract();
  // One gradient per input, first; values after them (MindSpore lets a bprop return more,
  // such as out and dout) are not used.
  if (!(r && (r->kind == AbsKind::Tuple || r->kind == AbsKind::List) &&
        r->elems.size() >= xs.size()))
    fail(ErrorKind::Type, bsp,
         str("the Cell's bprop must return a tuple of ", xs.size(), " gradient",
             xs.size() == 1 ? "" : "s", " (one per input, first), but it returns ",
             r ? r->to_string() : "nothing"));
  for (size_t i = 0; i < xs.size(); ++i) {
    AbsPtr want = cot_abs(xs[i]->abstract());
    if (want->kind != AbsKind::Tensor) continue;
    const AbsPtr& got = r->elems[i];
    if (!(got->kind == AbsKind::Tensor && got->dtype == want->dtype && got->shape == want->shape))
      fail(ErrorKind::Type, bsp,
           str("the Cell's bprop returns ", got->to_string(), " as the gradient of input ", i,
               ", which is ", want->to_string()));
  }
  std::vector<Node*> in{graph_ref(out_, f, sp), graph_ref(out_, b, sp)};
  in.insert(in.end(), xs.begin(), xs.end());
  return emit_builtin(c, Builtin::CustomVjp, in, out, sp);
}

Node* Specializer::make_grad_operation(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_CHECK(args.size() == 5, Type, "GradOperation: malformed call");
  bool flag[3];
  for (int i = 0; i < 3; ++i) {
    const AbsPtr& a = args[2 + static_cast<size_t>(i)]->abstract();
    MC_CHECK(a->value && a->value->is(ValueKind::Bool), Type,
             "GradOperation's flags must be known at compile time");
    flag[i] = a->value->as_bool();
  }
  bool get_all = flag[0], get_by_list = flag[1], sens = flag[2];
  for (const auto& [param, node] : weights_)  // one Parameter read in graph code (self.w)
    if (node == args[1]) args[1] = constant(param, sp);
  const AbsPtr& wa = args[1]->abstract();
  MC_CHECK(!get_by_list || wa->value.has_value(), Type,
           "GradOperation: weights must be Parameters known at compile time, but got ",
           wa->to_string());
  Value opts =
      compiler::grad_operation_options(get_all, get_by_list, sens, wa->value.value_or(Value()));
  return builtin(c, Builtin::Partial,
                 {constant(Value::builtin(Builtin::Grad), sp), args[0], constant(opts, sp)}, {},
                 sp);
}

// The call: the grad API's checks (compiler/grad_spec.h), W(x...) = fn(x...) specialised for
// these arguments, %t = vjp(@W, (w...), x...), its bprop called on the sensitivity, and the
// selection of what the API returns.
Node* Specializer::grad_call(Ctx* c, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp,
                             GradHalf half, Node* pair) {
  MC_ASSERT(args.size() >= 2 && args[1]->abstract()->value, "grad: malformed call");
  compiler::GradSpec s = compiler::GradSpec::parse(*args[1]->abstract()->value);
  std::vector<Node*> inputs(args.begin() + 2, args.end());
  Node* sens = nullptr;
  if (s.sens_param && !inputs.empty()) {
    sens = inputs.back();
    inputs.pop_back();
  }
  // Keyword arguments are inputs after the positional ones (their gradients follow theirs).
  std::vector<std::string> kw_names;
  for (auto& [k, v] : kw) {
    kw_names.push_back(k);
    inputs.push_back(v);
  }
  std::vector<Node*> checked = inputs;
  if (sens != nullptr) checked.push_back(sens);
  compiler::GradCall call = compiler::check_grad_call(s, abstracts(checked), host_);
  std::vector<AbsPtr> given = abstracts(inputs);  // before numbers become tensors
  for (size_t p : call.positions) {  // a Python float whose gradient is wanted: an f32 tensor
    const AbsPtr& a = inputs[p]->abstract();
    if (compiler::scalar_grads()) {
      inputs[p] = numbers_to_tensors(*this, c, inputs[p], sp);
    } else if (a->kind == AbsKind::Scalar && a->stype == ValueKind::Float) {
      DType f32 = DType::Float32;
      inputs[p] = to_tensor(c, inputs[p], &f32, sp);
    }
  }
  std::vector<Node*> wnodes;
  for (const Value& w : s.weights) wnodes.push_back(weight(w));

  Node* t = pair;  // (out, bprop)
  AbsPtr target;
  if (half == GradHalf::kBackward) {
    const AbsPtr& pa = t->abstract();
    MC_CHECK(pa && pa->kind == AbsKind::Tuple && pa->elems.size() == 2 &&
                 pa->elems[1]->kind == AbsKind::Func && pa->elems[1]->funcs.size() == 1 &&
                 pa->elems[1]->funcs[0].fn.is(ValueKind::Builtin) &&
                 pa->elems[1]->funcs[0].fn.as_builtin() == Builtin::Vjp,
             Type, "vjp: the pullback's forward is not what ops.vjp made");
    target = compiler::grad_target(s, pa->elems[0]);
  } else {
    FuncGraph* wg =
        wrap_call(c, args[0], abstracts(inputs), str("grad_", c->out->name()), sp, kw_names);
    if (wg == nullptr) return bottom();
    target = compiler::grad_target(s, wg->output()->abstract());
    t = grad_vjp(c, wg, inputs, wnodes, sp);
    if (half == GradHalf::kForward) return t;
  }
  Node* out = item(*this, c, t, 0, sp);
  if (sens != nullptr) compiler::check_grad_sens(target, sens->abstract());
  // An output holding no differentiable tensor (a shape, a bool tensor) ignores a given
  // sensitivity: the gradients are zeros.
  if (sens == nullptr || !compiler::holds_tensor(target) || !differentiable(target))
    sens = grad_seed(c, out, s.has_aux, sp);
  std::vector<AbsPtr> d_abs;
  for (Node* x : inputs) d_abs.push_back(cot_abs(x->abstract()));
  for (Node* x : wnodes) d_abs.push_back(cot_abs(x->abstract()));
  Node* d = emit(c, {item(*this, c, t, 1, sp), sens}, Abstract::tuple(d_abs), sp);

  // What the API returns, from the cotangents d = (d_inputs..., d_weights...).
  std::vector<Node*> gin, gw, out_items;
  for (size_t p : call.positions) {
    const AbsPtr& a = inputs[p]->abstract();
    bool zeros = call.all && a->kind == AbsKind::Tensor && !differentiable(a);
    Node* g = zeros ? emit_prim(c, op_def(OpId::ZerosLike), {}, {inputs[p]}, sp)
                    : like_input(*this, c, item(*this, c, d, p, sp), given[p], sp);
    if (is_struct(a)) {
      // A struct input (a sparse tensor: specialize_builtins.cc), as MindSpore gives its
      // gradient: the struct with each float (or complex) tensor field's cotangent, the other
      // fields (the int indices, the dense shape) the input's own (composite.py's _rebuild).
      std::vector<Node*> fields{item(*this, c, inputs[p], 0, sp)};
      for (size_t i = 1; i < a->elems.size(); ++i) {
        const AbsPtr& f = a->elems[i];
        const bool real =
            f->kind == AbsKind::Tensor && (is_floating(f->dtype) || is_complex(f->dtype));
        fields.push_back(real ? item(*this, c, g, i, sp) : item(*this, c, inputs[p], i, sp));
      }
      gin.push_back(make_seq(c, false, std::move(fields), sp));
      continue;
    }
    // Numbers: their gradients as numbers with GRAD_FOR_SCALAR, else (get_all) a zero of
    // their kind, as MindSpore gives them.
    if (compiler::scalar_grads())
      g = tensors_to_numbers(*this, c, g, given[p], sp);
    else if (call.all)
      g = zero_numbers(*this, c, g, a, sp);
    gin.push_back(g);
  }
  for (size_t j = 0; j < wnodes.size(); ++j) gw.push_back(item(*this, c, d, call.n + j, sp));
  if (s.return_ids) {  // (position, gradient) and (Parameter name, gradient) pairs
    for (size_t i = 0; i < gin.size(); ++i)
      gin[i] = make_seq(
          c, false, {constant(Value::integer(static_cast<int64_t>(call.positions[i])), sp), gin[i]},
          sp);
    for (size_t j = 0; j < gw.size(); ++j)
      gw[j] =
          make_seq(c, false, {constant(host_.getattr(out_, s.weights[j], "name"), sp), gw[j]}, sp);
  }
  if (s.has_aux)
    for (size_t i = 0; i < out->abstract()->elems.size(); ++i)
      out_items.push_back(item(*this, c, out, i, sp));
  return compiler::grad_result(s, call, gin, gw, out, out_items, [&](std::vector<Node*> xs) {
    return make_seq(c, false, std::move(xs), sp);
  });
}

Node* Specializer::vjp_half(Ctx* c, bool forward, std::vector<Node*> args, const SourceSpan& sp) {
  const size_t lead = forward ? 2 : 3;  // (fn, weights) or (pair, sens, weights)
  MC_CHECK(args.size() >= lead, Type, "vjp: malformed call of ",
           forward ? "_vjp_forward" : "_vjp_backward");
  Node* w = args[lead - 1];
  for (const auto& [param, node] : weights_)  // one Parameter read in graph code (self.w)
    if (node == w) w = constant(param, sp);
  const AbsPtr& wa = w->abstract();
  MC_CHECK(wa->value.has_value(), Type,
           "vjp: weights must be Parameters known at compile time, but got ", wa->to_string());
  const bool has_w = !wa->value->is(ValueKind::None);
  Value opts = compiler::grad_operation_options(true, has_w, !forward, *wa->value);
  std::vector<Node*> call{forward ? args[0] : constant(Value(), sp), constant(opts, sp)};
  call.insert(call.end(), args.begin() + static_cast<std::ptrdiff_t>(lead), args.end());
  if (forward) return grad_call(c, std::move(call), {}, sp, GradHalf::kForward);
  call.push_back(args[1]);  // the sensitivity comes last
  return grad_call(c, std::move(call), {}, sp, GradHalf::kBackward, args[0]);
}

Node* Specializer::vjp_out_zeros(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_CHECK(!args.empty(), Type, "jvp: malformed call of _vjp_out_zeros");
  std::vector<Node*> xs(args.begin() + 1, args.end());
  FuncGraph* wg = wrap_call(c, args[0], abstracts(xs), str("shape_", c->out->name()), sp);
  if (wg == nullptr) return bottom();
  return zeros_of(*this, c, wg->output()->abstract(), sp);
}

Node* Specializer::grad_vjp(Ctx* c, FuncGraph* w, const std::vector<Node*>& inputs,
                            const std::vector<Node*>& weights, const SourceSpan& sp) {
  AbsPtr bp_abs = Abstract::func({FuncCandidate{Value::builtin(Builtin::Vjp), {}, nullptr}});
  std::vector<Node*> vargs{graph_ref(out_, w, sp), make_seq(c, false, weights, sp)};
  // A bound method passed in is a constant w reads as such (run_ctx): its node may hold a
  // graph of the source module, which must not reach the output, so pass None for it.
  for (Node* a : inputs) {
    const AbsPtr& aa = a->abstract();
    vargs.push_back(
        aa && aa->value && source_graph(*aa->value) != nullptr ? constant(Value::none(), sp) : a);
  }
  Node* t =
      emit_builtin(c, Builtin::Vjp, vargs, Abstract::tuple({w->output()->abstract(), bp_abs}), sp);
  // The forward runs fn once: its effects (an assign inside a differentiated function) are
  // effects of this call.
  for (const auto& k : ctxs_)
    if (k->out == w && k->effects) took_effect(c, t);
  return t;
}

Node* Specializer::grad_seed(Ctx* c, Node* out, bool has_aux, const SourceSpan& sp) {
  // Ones (or zeros) for each tensor of x that has a cotangent (float or integer, in its
  // dtype: ad.h), None for anything else.
  std::function<Node*(Node*, bool)> seed = [&](Node* x, bool one) -> Node* {
    const AbsPtr& a = x->abstract();
    if (a->kind == AbsKind::Tensor && has_cotangent(a->dtype))
      return emit_prim(c, op_def(one ? OpId::OnesLike : OpId::ZerosLike), {}, {x}, sp);
    if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List) {
      std::vector<Node*> items;
      for (size_t i = 0; i < a->elems.size(); ++i)
        items.push_back(seed(item(*this, c, x, i, sp), one));
      return make_seq(c, false, items, sp);
    }
    return constant(Value(), sp);
  };
  if (!has_aux) return seed(out, true);
  std::vector<Node*> items;
  for (size_t i = 0; i < out->abstract()->elems.size(); ++i)
    items.push_back(seed(item(*this, c, out, i, sp), i == 0));
  return make_seq(c, false, items, sp);
}

// The search of mycel.ops.composite.get_grad, on the abstract of the gradients: a pair
// (id, gradient) whose id is a constant int or str and whose gradient is not a tuple is a
// leaf; other tuples are searched in order.
Node* Specializer::get_grad_rule(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_CHECK(args.size() == 2, Type, "get_grad() takes 2 arguments (", args.size(), " given)");
  const AbsPtr& ia = args[1]->abstract();
  Value key;
  const Value* param = ia->value && host_.weight(*ia->value) ? &*ia->value : nullptr;
  for (const auto& [w, node] : weights_)  // a Parameter read in graph code (self.w)
    if (node == args[1]) param = &w;
  if (ia->value && ia->value->is(ValueKind::Int))
    key = *ia->value;
  else if (param != nullptr)
    key = host_.getattr(out_, *param, "name");
  else
    fail(ErrorKind::Type, sp,
         str("For 'get_grad', the identifier must be an input position (int) or a Parameter, "
             "but got ",
             ia->to_string(), "."));
  std::vector<size_t> path;
  std::function<bool(const AbsPtr&)> find = [&](const AbsPtr& a) {
    if (a->kind != AbsKind::Tuple) return false;
    const auto& el = a->elems;
    if (el.size() == 2 && el[0]->value &&
        (el[0]->value->is(ValueKind::Int) || el[0]->value->is(ValueKind::Str)) &&
        el[1]->kind != AbsKind::Tuple) {
      if (!(*el[0]->value == key)) return false;
      path.push_back(1);
      return true;
    }
    for (size_t i = 0; i < el.size(); ++i) {
      path.push_back(i);
      if (find(el[i])) return true;
      path.pop_back();
    }
    return false;
  };
  if (!find(args[0]->abstract()))
    fail(ErrorKind::Runtime, sp,
         str("For 'get_grad', there is no gradient for ", key.to_string(),
             " in the gradients given (grad(..., return_ids=True) results)."));
  Node* x = args[0];
  for (size_t i : path) x = item(*this, c, x, i, sp);
  return x;
}

}  // namespace mycel::ir::spec
