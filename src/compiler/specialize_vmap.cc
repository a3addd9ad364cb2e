// The specialiser's rule for vmap (design in compiler/vmap/vmap.h): a call of a vmap function
// checks its axes against the arguments, specialises W(x...) = fn(x...) for one example and
// emits vmap(@W, (B, in_axes, out_axes), x...), every axis normalised (non-negative, one per
// tensor of the arguments and the result, None elsewhere).
#include "base/error.h"
#include "compiler/specialize_impl.h"

namespace mycel::ir::spec {

namespace {

bool is_seq(const AbsPtr& a) { return a->kind == AbsKind::Tuple || a->kind == AbsKind::List; }
bool is_seq(const Value& v) { return v.is(ValueKind::Tuple) || v.is(ValueKind::List); }

AbsPtr same_kind(const AbsPtr& like, std::vector<AbsPtr> el) {
  return like->kind == AbsKind::Tuple ? Abstract::tuple(std::move(el))
                                      : Abstract::list(std::move(el));
}

// One argument: its per-example abstract and its normalised axes (`where` names it in errors).
struct Axes {
  int64_t size = -1;  // the batch size (-1: none seen yet)

  AbsPtr in(const AbsPtr& a, const Value& axis, const std::string& where, Value* norm) {
    if (axis.is(ValueKind::None)) {
      *norm = Value();
      return a;
    }
    if (is_seq(axis)) {
      MC_CHECK(is_seq(a) && a->elems.size() == axis.items().size(), Value, "vmap: in_axes", where,
               " is a sequence of ", axis.items().size(), " axes, but the argument is ",
               a->to_string());
      std::vector<AbsPtr> el;
      std::vector<Value> nv;
      for (size_t i = 0; i < a->elems.size(); ++i) {
        Value n;
        el.push_back(in(a->elems[i], axis.items()[i], str(where, "[", i, "]"), &n));
        nv.push_back(n);
      }
      *norm = Value::tuple(std::move(nv));
      return same_kind(a, std::move(el));
    }
    if (is_seq(a)) {  // one axis for every tensor of a tuple or list
      std::vector<Value> each(a->elems.size(), axis);
      return in(a, Value::tuple(std::move(each)), where, norm);
    }
    MC_CHECK(a->kind == AbsKind::Tensor, Value, "vmap: in_axes", where, " is ", axis.as_int(),
             ", but the argument is ", a->to_string(),
             "; only Tensors can be batched (give None for it)");
    const int64_t r = static_cast<int64_t>(a->shape.size());
    int64_t ax = axis.as_int();
    MC_CHECK(ax >= -r && ax < r, Value, "vmap: in_axes", where, " is ", ax,
             ", out of range for an argument of shape ", shape_str(a->shape), " (rank ", r, ")");
    if (ax < 0) ax += r;
    const int64_t n = a->shape[static_cast<size_t>(ax)];
    MC_CHECK(size < 0 || size == n, Value, "vmap: the batch sizes of the arguments differ: ", size,
             " and ", n, " (in_axes", where, " = ", axis.as_int(), ", shape ", shape_str(a->shape),
             ")");
    size = n;
    *norm = Value::integer(ax);
    Shape s = a->shape;
    s.erase(s.begin() + ax);
    return Abstract::tensor(a->dtype, std::move(s));
  }

  // The result: its batched abstract and its normalised axes.
  AbsPtr out(const AbsPtr& a, const Value& axis, const std::string& where, Value* norm) const {
    if (axis.is(ValueKind::None) || (!is_seq(axis) && !is_seq(a) && a->kind != AbsKind::Tensor)) {
      *norm = Value();  // not a tensor: returned as it is
      return a;
    }
    if (is_seq(axis) || is_seq(a)) {
      MC_CHECK(is_seq(a) && (!is_seq(axis) || axis.items().size() == a->elems.size()), Value,
               "vmap: out_axes", where, " does not match the output ", a->to_string());
      std::vector<AbsPtr> el;
      std::vector<Value> nv;
      for (size_t i = 0; i < a->elems.size(); ++i) {
        Value n;
        el.push_back(
            out(a->elems[i], is_seq(axis) ? axis.items()[i] : axis, str(where, "[", i, "]"), &n));
        nv.push_back(n);
      }
      *norm = Value::tuple(std::move(nv));
      return same_kind(a, std::move(el));
    }
    const int64_t r = static_cast<int64_t>(a->shape.size()) + 1;
    int64_t ax = axis.as_int();
    MC_CHECK(ax >= -r && ax < r, Value, "vmap: out_axes", where, " is ", ax,
             ", out of range for an output of batched rank ", r, " (per example ",
             shape_str(a->shape), ")");
    if (ax < 0) ax += r;
    *norm = Value::integer(ax);
    Shape s = a->shape;
    s.insert(s.begin() + ax, size);
    return Abstract::tensor(a->dtype, std::move(s));
  }
};

// in_axes/out_axes as the Python API takes them (None, an int, nested tuples or lists), lists
// made tuples; anything else is a TypeError (python/mycel/ops/_vmap.py checks the same).
Value axes_tuple(const Value& v, const char* name) {
  if (v.is(ValueKind::None) || v.is(ValueKind::Int)) return v;
  MC_CHECK(is_seq(v), Type, "vmap: the axes in '", name,
           "' must be None, an int, or a tuple or "
           "list of those, but got ",
           v.to_string());
  std::vector<Value> el;
  for (const Value& e : v.items()) el.push_back(axes_tuple(e, name));
  return Value::tuple(std::move(el));
}

}  // namespace

Node* Specializer::make_vmap(Ctx* c, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp) {
  static const char* names[] = {"fn", "in_axes", "out_axes"};
  std::vector<Node*> slot(3, nullptr);
  MC_CHECK(args.size() <= 3, Type, "vmap() takes at most 3 arguments (", args.size(), " given)");
  for (size_t i = 0; i < args.size(); ++i) slot[i] = args[i];
  for (auto& [k, v] : kw) {
    size_t i = 0;
    while (i < 3 && k != names[i]) ++i;
    MC_CHECK(i < 3, Type, "vmap() got an unexpected keyword argument '", k, "'");
    MC_CHECK(slot[i] == nullptr, Type, "vmap() got multiple values for argument '", k, "'");
    slot[i] = v;
  }
  MC_CHECK(slot[0] != nullptr, Type, "vmap() missing required argument 'fn'");
  Value axes[2];
  for (size_t i = 1; i < 3; ++i) {
    if (slot[i] == nullptr) {
      axes[i - 1] = Value::integer(0);
      continue;
    }
    const AbsPtr& a = slot[i]->abstract();
    MC_CHECK(a->value.has_value(), Type, "vmap(): '", names[i],
             "' must be known at compile time in graph mode");
    axes[i - 1] = axes_tuple(*a->value, names[i]);
  }
  Value spec = Value::tuple({axes[0], axes[1]});
  return builtin(c, Builtin::Partial,
                 {constant(Value::builtin(Builtin::VmapFn), sp), slot[0], constant(spec, sp)}, {},
                 sp);
}

Node* Specializer::vmap_call(Ctx* c, std::vector<Node*> args, const SourceSpan& sp) {
  MC_ASSERT(args.size() >= 2 && args[1]->abstract()->value, "vmap: malformed call");
  const Value& given = *args[1]->abstract()->value;
  const Value in_axes = axes_tuple(given.items()[0], "in_axes");
  const Value out_axes = axes_tuple(given.items()[1], "out_axes");
  std::vector<Node*> xs(args.begin() + 2, args.end());
  if (is_seq(in_axes))
    MC_CHECK(in_axes.items().size() == xs.size(), Value, "vmap: in_axes has ",
             in_axes.items().size(), " entries but the function is called with ", xs.size(),
             " arguments");
  Axes ax;
  std::vector<AbsPtr> example;
  std::vector<Value> norm_in;
  for (size_t i = 0; i < xs.size(); ++i) {
    Value n;
    const Value& a = is_seq(in_axes) ? in_axes.items()[i] : in_axes;
    example.push_back(ax.in(xs[i]->abstract(), a, str("[", i, "]"), &n));
    norm_in.push_back(n);
  }
  MC_CHECK(ax.size >= 0, Value,
           "vmap: no argument is batched (in_axes gives no axis of a Tensor); "
           "at least one must be");
  FuncGraph* w = wrap_call(c, args[0], example, str("vmap_", c->out->name()), sp);
  if (w == nullptr) return bottom();
  Value norm_out;
  AbsPtr out = ax.out(w->output()->abstract(), out_axes, "", &norm_out);
  Value s = Value::tuple({Value::integer(ax.size), Value::tuple(std::move(norm_in)), norm_out});
  Node* ref = out_.value(Value::graph(w), sp);
  ref->set_abstract(Abstract::func({FuncCandidate{Value::graph(w), {}, nullptr}}));
  std::vector<Node*> in{ref, constant(s, sp)};
  in.insert(in.end(), xs.begin(), xs.end());
  Node* t = emit_builtin(c, Builtin::Vmap, in, out, sp);
  for (const auto& k : ctxs_)
    if (k->out == w && k->effects) took_effect(c, t);
  return t;
}

}  // namespace mycel::ir::spec
