// The specialiser's rules for the gradient transforms (compiler/ad/ad.h has the design):
//
//   grad(fn, grad_position=0, weights=None, has_aux=False)        host builtin "grad"
//   value_and_grad(fn, ...)                                       host builtin "value_and_grad"
//       -> partial(grad, fn, options): a function value
//   grad(fn, options, x...)                                       its call
//       -> a graph W(x...) = fn(x...) specialised for these arguments, then
//          %t = vjp(@W, make_tuple(w...), x...); %d = getitem(%t, 1)(sens); selection of %d
//
// options = (positions, weights, has_aux, return_value, sens_param): positions is None (no
// input gradients), an int (one gradient, returned bare), a tuple of ints, or "all"
// (GradOperation's get_all); weights is None or a tuple of Parameters (host objects).
#include <functional>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/specialize_impl.h"

namespace mycel::ir::spec {

namespace {

struct GradOptions {
  Value positions;
  std::vector<Value> weights;
  bool has_weights = false;
  bool has_aux = false;
  bool return_value = false;
  bool sens_param = false;
};

GradOptions parse_options(const Value& v) {
  MC_ASSERT(v.is(ValueKind::Tuple) && v.items().size() == 5, "grad: malformed options");
  const std::vector<Value>& it = v.items();
  GradOptions o;
  o.positions = it[0];
  if (!it[1].is_none()) {
    o.has_weights = true;
    o.weights = it[1].is_sequence() ? it[1].items() : std::vector<Value>{it[1]};
  }
  o.has_aux = it[2].as_bool();
  o.return_value = it[3].as_bool();
  o.sens_param = it[4].as_bool();
  return o;
}

}  // namespace

Node* Specializer::make_grad(Ctx* c, bool value, std::vector<Node*> args, KwNodes kw,
                             const SourceSpan& sp) {
  const char* api = value ? "value_and_grad" : "grad";
  static const char* names[] = {"fn", "grad_position", "weights", "has_aux"};
  std::vector<Node*> slot(4, nullptr);
  MC_CHECK(args.size() <= 4, Type, api, "() takes at most 4 arguments (", args.size(), " given)");
  for (size_t i = 0; i < args.size(); ++i) slot[i] = args[i];
  for (auto& [k, v] : kw) {
    size_t i = 0;
    while (i < 4 && k != names[i]) ++i;
    MC_CHECK(i < 4, Type, api, "() got an unexpected keyword argument '", k, "'");
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
    // Parameters are compile-time constants (host objects): anything else is not one.
    const AbsPtr& wa = slot[2]->abstract();
    if (wa->kind == AbsKind::Tuple || wa->kind == AbsKind::List)
      for (size_t j = 0; j < wa->elems.size(); ++j)
        MC_CHECK(wa->elems[j]->value && host_.weight(*wa->elems[j]->value), Type, api,
                 "(): weights must be Parameters, but element ", j, " is ",
                 broaden(wa->elems[j])->to_string());
    MC_CHECK(false, Type, api, "(): weights must be Parameters, but got ", wa->to_string());
  }
  Value pos = const_of(1, Value::integer(0));
  Value weights = const_of(2, Value());
  Value aux = const_of(3, Value::boolean(false));
  MC_CHECK(pos.is_none() || pos.is(ValueKind::Int) || pos.is(ValueKind::Tuple), Type, api,
           "(): 'grad_position' must be None, an int or a tuple of ints, but got ",
           pos.to_string());
  MC_CHECK(!(pos.is_none() && weights.is_none()), Value, api,
           "(): 'grad_position' and 'weights' cannot both be None");
  MC_CHECK(aux.is(ValueKind::Bool), Type, api, "(): 'has_aux' must be a bool");
  if (weights.is(ValueKind::List)) weights = Value::tuple(weights.items());
  Value opts = Value::tuple({pos, weights, aux, Value::boolean(value), Value::boolean(false)});
  return builtin(c, Builtin::Partial,
                 {constant(Value::builtin(Builtin::Grad), sp), slot[0], constant(opts, sp)}, {},
                 sp);
}

FuncGraph* Specializer::wrap_call(Ctx* c, Node* fn, const std::vector<AbsPtr>& abs,
                                  const std::string& name, const SourceSpan& sp) {
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
    if (a->kind == AbsKind::Tensor) a = Abstract::tensor(a->dtype, a->shape);
    Parameter* p = out_.add_param(w->out, str("x", i), sp);
    p->set_abstract(a);
    params.push_back(a->value && !a->value->is(ValueKind::Tensor) ? constant(*a->value, sp) : p);
  }
  Node* res = call(w, fn, params, {}, sp);
  if (is_bottom(res)) return nullptr;
  w->out->set_output(res);
  return w->out;
}

Node* Specializer::custom_vjp_call(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_ASSERT(args.size() >= 2, "custom_vjp: malformed call");
  std::vector<Node*> xs(args.begin() + 2, args.end());
  std::vector<AbsPtr> abs;
  for (Node* x : xs) abs.push_back(x->abstract());
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
  if (!(r && (r->kind == AbsKind::Tuple || r->kind == AbsKind::List) &&
        r->elems.size() == xs.size()))
    fail(ErrorKind::Type, bsp,
         str("the Cell's bprop must return a tuple of ", xs.size(), " gradient",
             xs.size() == 1 ? "" : "s", " (one per input), but it returns ",
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
  auto ref = [&](FuncGraph* g) {
    Node* v = out_.value(Value::graph(g), sp);
    v->set_abstract(Abstract::func({FuncCandidate{Value::graph(g), {}, nullptr}}));
    return v;
  };
  std::vector<Node*> in{ref(f), ref(b)};
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
  Value weights;
  if (get_by_list) {
    const AbsPtr& wa = args[1]->abstract();
    MC_CHECK(!(wa->value && wa->value->is_none()), Type,
             "GradOperation(get_by_list=True) needs the weights: grad_op(fn, weights)");
    MC_CHECK(wa->value.has_value(), Type,
             "GradOperation: weights must be Parameters known at compile time, but got ",
             wa->to_string());
    weights =
        wa->value->is_sequence() ? Value::tuple(wa->value->items()) : Value::tuple({*wa->value});
  }
  Value pos = get_all ? Value::string("all") : get_by_list ? Value() : Value::integer(0);
  Value opts = Value::tuple(
      {pos, weights, Value::boolean(false), Value::boolean(false), Value::boolean(sens)});
  return builtin(c, Builtin::Partial,
                 {constant(Value::builtin(Builtin::Grad), sp), args[0], constant(opts, sp)}, {},
                 sp);
}

Node* Specializer::grad_call(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_ASSERT(args.size() >= 2 && args[1]->abstract()->value, "grad: malformed call");
  Node* fn = args[0];
  GradOptions o = parse_options(*args[1]->abstract()->value);
  std::vector<Node*> inputs(args.begin() + 2, args.end());
  Node* sens = nullptr;
  if (o.sens_param) {
    MC_CHECK(!inputs.empty(), Type,
             "GradOperation with sens_param=True expects the sensitivity as the last argument");
    sens = inputs.back();
    inputs.pop_back();
  }
  size_t n = inputs.size();

  // Which inputs: positions, each checked.
  std::vector<size_t> pos;
  bool single = false;
  auto add_pos = [&](const Value& p) {
    MC_CHECK(p.is(ValueKind::Int), Type, "grad_position must hold ints, but got ", p.to_string());
    int64_t i = p.as_int();
    MC_CHECK(i >= 0 && static_cast<size_t>(i) < n, Index, "grad_position ", i,
             " is out of range: the function is called with ", n, " input", n == 1 ? "" : "s");
    pos.push_back(static_cast<size_t>(i));
  };
  bool all = o.positions.is(ValueKind::Str);
  if (all) {
    for (size_t i = 0; i < n; ++i) pos.push_back(i);
  } else if (o.positions.is(ValueKind::Int)) {
    single = true;
    add_pos(o.positions);
  } else if (o.positions.is(ValueKind::Tuple)) {
    for (const Value& p : o.positions.items()) add_pos(p);
  }
  for (size_t p : pos) {
    const AbsPtr& a = inputs[p]->abstract();
    if (a->kind == AbsKind::Scalar && a->stype == ValueKind::Float) {
      DType f32 = DType::Float32;
      inputs[p] = to_tensor(c, inputs[p], &f32, sp);
      continue;
    }
    if (all) continue;
    bool ok = differentiable(a);
    MC_CHECK(ok, Type, "grad with respect to input ", p, ", which is ", a->to_string(),
             ": only floating-point tensors (or tuples of them) have gradients");
  }

  // Which weights.
  std::vector<Node*> wnodes;
  for (size_t j = 0; j < o.weights.size(); ++j) {
    const Value& w = o.weights[j];
    MC_CHECK(host_.weight(w).has_value(), Type, "grad: weights must be Parameters, but element ", j,
             " is ", w.is(ValueKind::PyObj) ? host_.type_name(w) : w.to_string());
    wnodes.push_back(weight(w));
  }

  // W(x...) = fn(x...), specialised for these arguments, in a context nested in c.
  std::vector<AbsPtr> in_abs;
  for (Node* x : inputs) in_abs.push_back(x->abstract());
  FuncGraph* wg = wrap_call(c, fn, in_abs, str("grad_", c->out->name()), sp);
  if (wg == nullptr) return bottom();
  std::vector<Node*> call_args = inputs;
  Node* res = wg->output();
  AbsPtr out_abs = res->abstract();

  // The differentiated output: the first one with has_aux.
  AbsPtr y_abs = out_abs;
  if (o.has_aux) {
    MC_CHECK(out_abs->kind == AbsKind::Tuple && out_abs->elems.size() >= 2, Type,
             "grad with has_aux=True needs the function to return a tuple of at least two "
             "outputs, but it returns ",
             out_abs->to_string());
    y_abs = out_abs->elems[0];
  }
  MC_CHECK(differentiable(y_abs), Type,
           "grad: the function must return a floating-point tensor (or a tuple of them), but "
           "it returns ",
           y_abs->to_string());

  // %t = vjp(@W, (w...), x...)
  std::vector<AbsPtr> d_abs;
  for (Node* x : call_args) d_abs.push_back(cot_abs(x->abstract()));
  for (Node* x : wnodes) d_abs.push_back(cot_abs(x->abstract()));
  Node* wref = out_.value(Value::graph(wg), sp);
  wref->set_abstract(Abstract::func({FuncCandidate{Value::graph(wg), {}, nullptr}}));
  AbsPtr bp_abs = Abstract::func({FuncCandidate{Value::builtin(Builtin::Vjp), {}, nullptr}});
  std::vector<Node*> vargs{wref, make_seq(c, false, wnodes, sp)};
  vargs.insert(vargs.end(), call_args.begin(), call_args.end());
  Node* t = emit_builtin(c, Builtin::Vjp, vargs, Abstract::tuple({out_abs, bp_abs}), sp);
  // The forward runs fn once: its effects (an assign inside a differentiated function) are
  // effects of this call.
  for (const auto& k : ctxs_)
    if (k->out == wg && k->effects) took_effect(c, t);
  auto item = [&](Node* x, size_t i) {
    return getitem(c, x, constant(Value::integer(static_cast<int64_t>(i)), sp), sp);
  };
  Node* out = item(t, 0);
  Node* bp = item(t, 1);

  // The sensitivity: ones for the differentiated output, zeros for the auxiliary ones.
  std::function<Node*(Node*, bool)> seed = [&](Node* x, bool one) -> Node* {
    const AbsPtr& a = x->abstract();
    if (a->kind == AbsKind::Tensor && is_floating(a->dtype))
      return emit_prim(c, op_def(one ? OpId::OnesLike : OpId::ZerosLike), {}, {x}, sp);
    if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List) {
      std::vector<Node*> items;
      for (size_t i = 0; i < a->elems.size(); ++i) items.push_back(seed(item(x, i), one));
      return make_seq(c, false, items, sp);
    }
    return constant(Value(), sp);
  };
  if (sens == nullptr) {
    if (o.has_aux) {
      std::vector<Node*> items{seed(item(out, 0), true)};
      for (size_t i = 1; i < out_abs->elems.size(); ++i) items.push_back(seed(item(out, i), false));
      sens = make_seq(c, false, items, sp);
    } else {
      sens = seed(out, true);
    }
  } else {
    AbsPtr want = cot_abs(out_abs);
    AbsPtr got = sens->abstract()->kind == AbsKind::Tensor
                     ? Abstract::tensor(sens->abstract()->dtype, sens->abstract()->shape)
                     : sens->abstract();
    MC_CHECK(abs_equal(broaden(got), broaden(want)), Type,
             "GradOperation: the sensitivity must match the output ", want->to_string(),
             ", but it is ", sens->abstract()->to_string());
  }
  Node* d = emit(c, {bp, sens}, Abstract::tuple(d_abs), sp);

  // Select what the API returns.
  Node* grads = nullptr;
  if (!o.positions.is_none()) {
    if (single) {
      grads = item(d, pos[0]);
    } else {
      std::vector<Node*> g;
      for (size_t p : pos) {
        Node* gp = item(d, p);
        if (all && !differentiable(inputs[p]->abstract()) &&
            inputs[p]->abstract()->kind == AbsKind::Tensor)
          gp = emit_prim(c, op_def(OpId::ZerosLike), {}, {inputs[p]}, sp);
        g.push_back(gp);
      }
      grads = make_seq(c, false, g, sp);
    }
  }
  if (o.has_weights) {
    std::vector<Node*> g;
    for (size_t j = 0; j < wnodes.size(); ++j) g.push_back(item(d, n + j));
    Node* gw = make_seq(c, false, g, sp);
    grads = grads == nullptr ? gw : make_seq(c, false, {grads, gw}, sp);
  }
  if (o.return_value) return make_seq(c, false, {out, grads}, sp);
  if (o.has_aux) {
    Node* aux;
    if (out_abs->elems.size() == 2) {
      aux = item(out, 1);
    } else {
      std::vector<Node*> rest;
      for (size_t i = 1; i < out_abs->elems.size(); ++i) rest.push_back(item(out, i));
      aux = make_seq(c, false, rest, sp);
    }
    return make_seq(c, false, {grads, aux}, sp);
  }
  return grads;
}

}  // namespace mycel::ir::spec
