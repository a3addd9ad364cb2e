#include "ir/abstract.h"

#include <sstream>

#include "base/error.h"

namespace mycel::ir {

namespace {
size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

AbsPtr make(Abstract a) { return std::make_shared<const Abstract>(std::move(a)); }

bool elems_equal(const std::vector<AbsPtr>& a, const std::vector<AbsPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!abs_equal(a[i], b[i])) return false;
  return true;
}
}  // namespace

bool FuncCandidate::operator==(const FuncCandidate& o) const {
  return fn == o.fn && context == o.context && elems_equal(bound, o.bound);
}

AbsPtr Abstract::tensor(DType dt, Shape shape) {
  Abstract a;
  a.kind = AbsKind::Tensor;
  a.dtype = dt;
  a.shape = std::move(shape);
  return make(std::move(a));
}

AbsPtr Abstract::scalar(ValueKind kind) {
  MC_ASSERT(kind == ValueKind::None || kind == ValueKind::Bool || kind == ValueKind::Int ||
            kind == ValueKind::Float || kind == ValueKind::Str);
  Abstract a;
  a.kind = AbsKind::Scalar;
  a.stype = kind;
  return make(std::move(a));
}

AbsPtr Abstract::dynamic_dim() {
  Abstract a;
  a.kind = AbsKind::Scalar;
  a.stype = ValueKind::Int;
  a.dim = true;
  return make(std::move(a));
}

AbsPtr Abstract::constant(const Value& v) {
  Abstract a;
  switch (v.kind()) {
    case ValueKind::None:
    case ValueKind::Bool:
    case ValueKind::Int:
    case ValueKind::Float:
    case ValueKind::Str:
      a.kind = AbsKind::Scalar;
      a.stype = v.kind();
      break;
    case ValueKind::Tensor:
      a.kind = AbsKind::Tensor;
      a.dtype = v.as_tensor().dtype();
      a.shape = v.as_tensor().shape();
      break;
    case ValueKind::Tuple:
    case ValueKind::List:
      a.kind = v.is(ValueKind::Tuple) ? AbsKind::Tuple : AbsKind::List;
      for (const Value& e : v.items()) a.elems.push_back(constant(e));
      break;
    case ValueKind::Dict:
      a.kind = AbsKind::Dict;
      a.keys = v.as_dict().keys;
      for (const Value& e : v.as_dict().values) a.elems.push_back(constant(e));
      break;
    case ValueKind::Prim:
    case ValueKind::Builtin:
    case ValueKind::Graph:
    case ValueKind::Closure:
      a.kind = AbsKind::Func;
      if (v.is(ValueKind::Closure)) {
        FuncCandidate c{v.as_closure().fn, {}};
        for (const Value& b : v.as_closure().args) c.bound.push_back(constant(b));
        a.funcs.push_back(std::move(c));
      } else {
        a.funcs.push_back({v, {}});
      }
      break;
    default:
      a.kind = AbsKind::Const;
      break;
  }
  a.value = v;
  return make(std::move(a));
}

AbsPtr Abstract::tuple(std::vector<AbsPtr> elems) {
  Abstract a;
  a.kind = AbsKind::Tuple;
  a.elems = std::move(elems);
  return make(std::move(a));
}

AbsPtr Abstract::list(std::vector<AbsPtr> elems) {
  Abstract a;
  a.kind = AbsKind::List;
  a.elems = std::move(elems);
  return make(std::move(a));
}

AbsPtr Abstract::dict(std::vector<Value> keys, std::vector<AbsPtr> elems) {
  MC_ASSERT(keys.size() == elems.size());
  Abstract a;
  a.kind = AbsKind::Dict;
  a.keys = std::move(keys);
  a.elems = std::move(elems);
  return make(std::move(a));
}

AbsPtr Abstract::func(std::vector<FuncCandidate> funcs) {
  Abstract a;
  a.kind = AbsKind::Func;
  a.funcs = std::move(funcs);
  return make(std::move(a));
}

AbsPtr Abstract::any() { return make(Abstract{}); }

bool Abstract::operator==(const Abstract& o) const {
  if (kind != o.kind || value.has_value() != o.value.has_value()) return false;
  if (value && !(*value == *o.value)) return false;
  switch (kind) {
    case AbsKind::Tensor:
      return dtype == o.dtype && shape == o.shape;
    case AbsKind::Scalar:
      return stype == o.stype && dim == o.dim;
    case AbsKind::Tuple:
    case AbsKind::List:
      return elems_equal(elems, o.elems);
    case AbsKind::Dict:
      return keys == o.keys && elems_equal(elems, o.elems);
    case AbsKind::Func:
      return funcs == o.funcs;
    case AbsKind::Const:
    case AbsKind::Any:
      return true;
  }
  return false;
}

size_t Abstract::hash() const {
  size_t h = static_cast<size_t>(kind) * 7919u;
  if (value) h = mix(h, value->hash());
  switch (kind) {
    case AbsKind::Tensor:
      h = mix(h, static_cast<size_t>(dtype));
      for (int64_t d : shape) h = mix(h, static_cast<size_t>(d));
      break;
    case AbsKind::Scalar:
      h = mix(h, static_cast<size_t>(stype) + (dim ? 16u : 0u));
      break;
    case AbsKind::Tuple:
    case AbsKind::List:
    case AbsKind::Dict:
      for (const AbsPtr& e : elems) h = mix(h, e->hash());
      break;
    case AbsKind::Func:
      for (const FuncCandidate& f : funcs) {
        h = mix(h, f.fn.hash());
        for (const AbsPtr& b : f.bound) h = mix(h, b->hash());
      }
      break;
    default:
      break;
  }
  return h;
}

std::string Abstract::to_string() const {
  std::ostringstream os;
  switch (kind) {
    case AbsKind::Tensor:
      os << dtype_short_name(dtype) << shape_str(shape);
      return os.str();
    case AbsKind::Scalar:
      switch (stype) {
        case ValueKind::Bool:
          os << "bool";
          break;
        case ValueKind::Int:
          os << (dim ? "i64(dim)" : "i64");
          break;
        case ValueKind::Float:
          os << "f64";
          break;
        case ValueKind::Str:
          os << "str";
          break;
        default:
          os << "none";
          break;
      }
      if (value && !value->is_none()) os << "=" << value->to_string();
      return os.str();
    case AbsKind::Tuple:
    case AbsKind::List:
    case AbsKind::Dict:
      os << (kind == AbsKind::Tuple ? "tuple(" : kind == AbsKind::List ? "list(" : "dict(");
      for (size_t i = 0; i < elems.size(); ++i) {
        if (i) os << ", ";
        if (kind == AbsKind::Dict) os << keys[i].to_string() << ": ";
        os << elems[i]->to_string();
      }
      os << ')';
      return os.str();
    case AbsKind::Func:
      return "func";
    case AbsKind::Const:
      return "const";
    case AbsKind::Any:
      return "any";
  }
  return "?";
}

bool abs_equal(const AbsPtr& a, const AbsPtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return *a == *b;
}

AbsPtr broaden(const AbsPtr& a) {
  if (!a) return a;
  switch (a->kind) {
    case AbsKind::Scalar:
      if (a->value && a->stype != ValueKind::None && a->stype != ValueKind::Str)
        return Abstract::scalar(a->stype);
      return a;
    case AbsKind::Tensor:
      if (a->value) return Abstract::tensor(a->dtype, a->shape);
      return a;
    case AbsKind::Tuple:
    case AbsKind::List:
    case AbsKind::Dict: {
      Abstract b = *a;
      b.value.reset();
      for (AbsPtr& e : b.elems) e = broaden(e);
      return make(std::move(b));
    }
    default:
      return a;
  }
}

AbsPtr join(const AbsPtr& a, const AbsPtr& b) {
  if (!a) return b;
  if (!b) return a;
  if (abs_equal(a, b)) return a;
  if (a->kind != b->kind) {
    // None joins with nothing else; int with float gives float only when unknown.
    return nullptr;
  }
  switch (a->kind) {
    case AbsKind::Tensor:
      if (a->dtype != b->dtype || a->shape != b->shape) return nullptr;
      return Abstract::tensor(a->dtype, a->shape);
    case AbsKind::Scalar:
      if (a->stype != b->stype) return nullptr;
      if (a->stype == ValueKind::None) return a;
      if (a->stype == ValueKind::Str) return nullptr;  // strings must be constant
      if (a->dim && b->dim) return Abstract::dynamic_dim();
      return Abstract::scalar(a->stype);
    case AbsKind::Tuple:
    case AbsKind::List:
    case AbsKind::Dict: {
      if (a->elems.size() != b->elems.size() || a->keys != b->keys) return nullptr;
      Abstract r;
      r.kind = a->kind;
      r.keys = a->keys;
      for (size_t i = 0; i < a->elems.size(); ++i) {
        AbsPtr e = join(a->elems[i], b->elems[i]);
        if (!e) return nullptr;
        r.elems.push_back(std::move(e));
      }
      return make(std::move(r));
    }
    case AbsKind::Func: {
      Abstract r;
      r.kind = AbsKind::Func;
      r.funcs = a->funcs;
      for (const FuncCandidate& f : b->funcs) {
        bool found = false;
        for (const FuncCandidate& g : r.funcs) found = found || g == f;
        if (!found) r.funcs.push_back(f);
      }
      return make(std::move(r));
    }
    case AbsKind::Const:
      return nullptr;
    case AbsKind::Any:
      return a;
  }
  return nullptr;
}

}  // namespace mycel::ir
