// The grad API's rules (grad_spec.h).
#include "compiler/grad_spec.h"

#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "tensor/dynamic_shape.h"

namespace mycel::compiler {

using ir::AbsKind;
using ir::AbsPtr;
using ir::Value;
using ir::ValueKind;

namespace {

// `weights` as given: None, one Parameter (its gradient is returned bare, as MindSpore) or a
// sequence of them; the options hold them as a tuple and say whether it was one.
Value options_value(Value positions, const Value& weights, bool has_aux, bool return_value,
                    bool sens_param);

// None, or the weights as a tuple (one Parameter becomes a tuple of one).
Value weights_tuple(const Value& w) {
  if (w.is_none()) return w;
  return w.is_sequence() ? Value::tuple(w.items()) : Value::tuple({w});
}

Value options_value(Value positions, const Value& weights, bool has_aux, bool return_value,
                    bool sens_param) {
  const bool single = !weights.is_none() && !weights.is_sequence();
  return Value::tuple({std::move(positions), weights_tuple(weights), Value::boolean(has_aux),
                       Value::boolean(return_value), Value::boolean(sens_param),
                       Value::boolean(single), Value::boolean(false)});
}

}  // namespace

bool scalar_grads() {
  const char* v = std::getenv("MS_DEV_GRAD_FOR_SCALAR");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

bool constant_number(const AbsPtr& a) {
  if (scalar_grads()) return false;
  if (a->kind == AbsKind::Scalar) return a->stype == ValueKind::Int && a->value.has_value();
  if (a->kind != AbsKind::Tuple && a->kind != AbsKind::List) return false;
  if (a->elems.empty()) return false;
  for (const AbsPtr& e : a->elems)
    if (!constant_number(e)) return false;
  return true;
}

namespace {
// Whether a value of abstract `a` holds a Python number (int or float, not bool), at any depth
// of tuples, lists and dicts: with scalar_grads() such an input has a gradient.
bool holds_number(const AbsPtr& a) {
  if (a->kind == AbsKind::Scalar) return a->stype == ValueKind::Int || a->stype == ValueKind::Float;
  if (a->kind == AbsKind::Tuple || a->kind == AbsKind::List || a->kind == AbsKind::Dict)
    for (const AbsPtr& e : a->elems)
      if (holds_number(e)) return true;
  return false;
}

bool is_str(const Value& v, const char* s) { return v.is(ValueKind::Str) && v.as_str() == s; }
}  // namespace

GradSpec GradSpec::parse(const Value& v) {
  MC_ASSERT(v.is(ValueKind::Tuple) && v.items().size() == 7, "grad: malformed options");
  const std::vector<Value>& it = v.items();
  GradSpec s;
  s.positions = it[0];
  if (!it[1].is_none()) {
    s.has_weights = true;
    s.weights = weights_tuple(it[1]).items();
  }
  s.has_aux = it[2].as_bool();
  s.return_value = it[3].as_bool();
  s.sens_param = it[4].as_bool();
  s.single_weight = it[5].as_bool();
  s.return_ids = it[6].as_bool();
  return s;
}

Value grad_options(bool value_and_grad, const Value& positions, const Value& weights,
                   const Value& has_aux) {
  const char* api = value_and_grad ? "value_and_grad" : "grad";
  bool ints = positions.is(ValueKind::Tuple);
  if (ints)
    for (const Value& p : positions.items()) ints = ints && p.is(ValueKind::Int);
  MC_CHECK(positions.is_none() || positions.is(ValueKind::Int) || ints, Type, api,
           "(): 'grad_position' must be None, an int or a tuple of ints, but got ",
           positions.to_string());
  MC_CHECK(!(positions.is_none() && weights.is_none()), Value, api,
           "(): 'grad_position' and 'weights' cannot both be None");
  // MindSpore raises a RuntimeError for an empty tuple (None asks for no input gradients)
  MC_CHECK(!(positions.is(ValueKind::Tuple) && positions.items().empty()), Runtime, api,
           "(): 'grad_position' must not be an empty tuple; pass None for no input gradients");
  MC_CHECK(has_aux.is(ValueKind::Bool), Type, api, "(): 'has_aux' must be a bool");
  // A tuple of one position gives that gradient bare, as an int does (MindSpore).
  const Value& pos = ints && positions.items().size() == 1 ? positions.items()[0] : positions;
  return options_value(pos, weights, has_aux.as_bool(), value_and_grad, false);
}

Value grad_operation_options(bool get_all, bool get_by_list, bool sens_param,
                             const Value& weights) {
  // get_by_list with weights None: no weights, an empty tuple of their gradients (MindSpore)
  Value w = !get_by_list ? Value() : weights.is_none() ? Value::tuple({}) : weights;
  Value pos = get_all ? Value::string("all") : get_by_list ? Value() : Value::string("first");
  return options_value(pos, w, false, false, sens_param);
}

Value with_return_ids(const Value& options) {
  std::vector<Value> it = options.items();
  it.at(6) = Value::boolean(true);
  return Value::tuple(std::move(it));
}

GradCall grad_positions(const GradSpec& s, size_t nargs) {
  GradCall call;
  call.n = s.sens_param && nargs > 0 ? nargs - 1 : nargs;
  auto add = [&](const Value& p) {
    if (p.is(ValueKind::Int) && p.as_int() >= 0 && static_cast<size_t>(p.as_int()) < call.n)
      call.positions.push_back(static_cast<size_t>(p.as_int()));
  };
  call.all = is_str(s.positions, "all");
  call.single = s.positions.is(ValueKind::Int) || is_str(s.positions, "first");
  if (is_str(s.positions, "first")) {
    if (call.n > 0) call.positions.push_back(0);
  } else if (call.all) {
    for (size_t i = 0; i < call.n; ++i) call.positions.push_back(i);
  } else if (call.single) {
    add(s.positions);
  } else if (s.positions.is(ValueKind::Tuple)) {
    for (const Value& p : s.positions.items()) add(p);
  }
  return call;
}

void check_grad_weight(bool is_parameter, size_t j, const std::string& what) {
  MC_CHECK(is_parameter, Type, "grad: weights must be Parameters, but element ", j, " is ", what);
}

GradCall check_grad_call(const GradSpec& s, const std::vector<AbsPtr>& args, ir::Host& host) {
  MC_CHECK(!(s.sens_param && args.empty()), Type,
           "GradOperation with sens_param=True expects the sensitivity as the last argument");
  GradCall call = grad_positions(s, args.size());
  // What grad_positions left out is out of range.
  std::vector<Value> given = s.positions.is(ValueKind::Tuple) ? s.positions.items()
                             : s.positions.is(ValueKind::Int) ? std::vector<Value>{s.positions}
                                                              : std::vector<Value>{};
  size_t n = call.n;
  for (const Value& p : given)
    MC_CHECK(p.as_int() >= 0 && static_cast<size_t>(p.as_int()) < n, Index, "grad_position ",
             p.as_int(), " is out of range: the function is called with ", n, " input",
             n == 1 ? "" : "s");
  std::vector<size_t> kept;  // constant numbers have no gradient (grad_spec.h)
  for (size_t p : call.positions) {
    const AbsPtr& a = args[p];
    if (constant_number(a)) continue;
    kept.push_back(p);
    bool py_float = a->kind == AbsKind::Scalar && a->stype == ValueKind::Float;
    MC_CHECK(call.all || py_float || ir::differentiable(a) || (scalar_grads() && holds_number(a)),
             Type, "grad with respect to input ", p, ", which is ", a->to_string(),
             ": only float and integer tensors (or tuples of them) have gradients");
  }
  call.positions = std::move(kept);
  for (size_t j = 0; j < s.weights.size(); ++j) {
    const Value& w = s.weights[j];
    if (!host.weight(w))
      check_grad_weight(false, j, w.is(ValueKind::PyObj) ? host.type_name(w) : w.to_string());
  }
  return call;
}

bool holds_tensor(const AbsPtr& a) {
  if (a->kind == AbsKind::Tensor) return true;
  for (const AbsPtr& e : a->elems)
    if (holds_tensor(e)) return true;
  return false;
}

AbsPtr grad_target(const GradSpec& s, const AbsPtr& out) {
  AbsPtr y = out;
  if (s.has_aux) {
    MC_CHECK(out->kind == AbsKind::Tuple && out->elems.size() >= 2, Type,
             "grad with has_aux=True needs the function to return a tuple of at least two "
             "outputs, but it returns ",
             out->to_string());
    y = out->elems[0];
  }
  // An output with no differentiable part (a Python int or bool: Size, Shape; a bool tensor,
  // Equal's) depends on no input differentiably: as in MindSpore, its gradients are zeros (the
  // seed is None, so every cotangent stays zero), and a sensitivity given for it is ignored
  // (check_grad_sens, specialize_grad.cc). An integer tensor's gradient is computed in its
  // dtype (ad.h).
  return y;
}

namespace {
// Whether a sensitivity of abstract `sens` fits an output's cotangent `want`: equal, but a
// dynamic dimension of the output (Unique's, a set_inputs None) takes any size, which the
// backward checks when it runs.
bool sens_fits(const AbsPtr& sens, const AbsPtr& want) {
  if (sens->kind == AbsKind::Tensor && want->kind == AbsKind::Tensor)
    return sens->dtype == want->dtype && shapes_agree(sens->shape, want->shape);
  if (sens->kind == AbsKind::Tuple && want->kind == AbsKind::Tuple) {
    if (sens->elems.size() != want->elems.size()) return false;
    for (size_t i = 0; i < sens->elems.size(); ++i)
      if (!sens_fits(sens->elems[i], want->elems[i])) return false;
    return true;
  }
  return ir::abs_equal(ir::broaden(sens), ir::broaden(want));
}
}  // namespace

void check_grad_sens(const AbsPtr& target, const AbsPtr& sens) {
  // ignored: the gradients are zeros (grad_target)
  if (!holds_tensor(target) || !ir::differentiable(target)) return;
  AbsPtr want = ir::cot_abs(target);
  MC_CHECK(sens_fits(sens, want), Type, "GradOperation: the sensitivity must match the output ",
           want->to_string(), ", but it is ", sens->to_string());
}

}  // namespace mycel::compiler
