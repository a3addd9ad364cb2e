#include "ops/op_table.h"

#include <algorithm>

namespace mycel {

namespace {

using namespace attr_default;  // NOLINT: the .def defaults read best unqualified
constexpr auto Init = AttrWhen::Init;
constexpr auto Call = AttrWhen::Call;
constexpr uint32_t STRIDED = F_STRIDED, PROMOTE = F_PROMOTE, PROMOTE1 = F_PROMOTE1,
                   FLOAT_IN = F_FLOAT_IN, RANDOM = F_RANDOM, INPLACE = F_INPLACE, VIEW = F_VIEW,
                   UPDATE = F_UPDATE, COLLECTIVE = F_COLLECTIVE, DYN_OUT = F_DYN_OUT;
// The grad column names the op's bprop rule (which the compiler layer binds) or says NODIFF.
constexpr Grad grad_kind(std::string_view column) {
  return column == "NODIFF" ? Grad::NODIFF : Grad::DIFF;
}

// One attribute array per op: kAttrs_<Name>.
#define ATTR(name, kind, dflt, when) AttrSpec{#name, AttrKind::kind, dflt, when},
#define WRITES(...)
#define OP(name, nin, nout, infer, kernel, ref, grad, flags, ...) \
  const std::vector<AttrSpec> kAttrs_##name = {__VA_ARGS__};
#include "ops/defs/all.def"
#undef OP
#undef WRITES
#undef ATTR

// The inputs an op writes (OpDef::writes): an update's first outputs' inputs, and WRITES(...).
constexpr uint32_t input_bits(std::initializer_list<int> inputs) {
  uint32_t m = 0;
  for (int i : inputs) m |= 1u << i;
  return m;
}
constexpr uint32_t update_bits(uint32_t flags, int nout) {
  return (flags & F_UPDATE) && nout > 0 ? (1u << nout) - 1 : 0;
}
#define ATTR(name, kind, dflt, when)
#define WRITES(...) | input_bits({__VA_ARGS__})
#define OP(name, nin, nout, infer, kernel, ref, grad, flags, ...) \
  constexpr uint32_t kWrites_##name = update_bits(flags, nout) __VA_ARGS__;
#include "ops/defs/all.def"
#undef OP
#undef WRITES
#undef ATTR

const std::vector<OpDef>& table() {
  static const std::vector<OpDef>* t = new std::vector<OpDef>{
#define OP(name, nin, nout, infer, kernel, ref, grad, flags, ...)      \
  OpDef{OpId::name,       #name, nin,           nout,          &infer, \
        grad_kind(#grad), flags, kAttrs_##name, kWrites_##name},
#include "ops/defs/all.def"
#undef OP
  };
  return *t;
}

}  // namespace

std::span<const OpDef> op_table() { return table(); }

const OpDef& op_def(OpId id) { return table()[static_cast<size_t>(id)]; }

const OpDef* find_op(std::string_view name) {
  for (const OpDef& d : table()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

namespace {
bool kind_matches(AttrKind k, const AttrValue& v) {
  switch (k) {
    case AttrKind::Bool:
      return std::holds_alternative<bool>(v);
    case AttrKind::Int:
      return std::holds_alternative<int64_t>(v);
    case AttrKind::Float:
      return std::holds_alternative<double>(v);
    case AttrKind::Str:
      return std::holds_alternative<std::string>(v);
    case AttrKind::Ints:
      return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrKind::DType:
      return std::holds_alternative<DType>(v);
  }
  return false;
}
// Ints promote to floats where a float is declared; one int to a tuple where ints are.
AttrValue coerce(AttrKind k, AttrValue v) {
  if (k == AttrKind::Float && std::holds_alternative<int64_t>(v))
    return static_cast<double>(std::get<int64_t>(v));
  if (k == AttrKind::Ints && std::holds_alternative<int64_t>(v))
    return std::vector<int64_t>{std::get<int64_t>(v)};
  return v;
}
}  // namespace

RandomStream op_random_stream(const KernelContext& ctx, std::string_view seed,
                              std::string_view seed2, uint64_t count) {
  const int64_t instance =
      ctx.attrs.has(kRandomStreamAttr) ? ctx.attrs.get_int(kRandomStreamAttr) : 0;
  return next_random_stream(ctx.attrs.get_int(seed), ctx.attrs.get_int(seed2), count, instance);
}

Tensor& alloc_output(const KernelContext& ctx, size_t i, const Shape& shape, DType dtype) {
  MC_ASSERT(i < ctx.out.size(), ctx.op.name, ": no output ", i);
  ctx.out[i] = Tensor::empty(shape, dtype, ctx.device);
  return ctx.out[i];
}

void check_attrs(const OpDef& op, const Attrs& given) {
  for (const auto& item : given.items()) {
    const auto& name = item.first;  // not a structured binding: clang 14 (the fuzz build)
    const auto& v = item.second;    // cannot capture one in the lambda below
    if (name == kStrategyAttr) {
      MC_CHECK(std::holds_alternative<std::vector<int64_t>>(v), Type, "For '", op.name,
               "', the sharding strategy must be a tuple of ints.");
      continue;
    }
    if (name == kRandomStreamAttr) {
      MC_CHECK(std::holds_alternative<int64_t>(v), Type, "For '", op.name,
               "', the random stream must be an int.");
      continue;
    }
    if (name == kRecomputeAttr) {
      MC_CHECK(std::holds_alternative<int64_t>(v) || std::holds_alternative<bool>(v), Type, "For '",
               op.name, "', the recompute mark must be an int.");
      continue;
    }
    auto it = std::find_if(op.attrs.begin(), op.attrs.end(),
                           [&](const AttrSpec& s) { return name == s.name; });
    MC_CHECK(it != op.attrs.end(), Type, "For '", op.name, "', unknown attribute '", name, "'.");
    MC_CHECK(kind_matches(it->kind, coerce(it->kind, v)), Type, "For '", op.name,
             "', the attribute '", name, "' must be a ", attr_kind_name(it->kind), ", but got ",
             attr_value_str(v), ".");
  }
}

Attrs make_attrs(const OpDef& op, const Attrs& given) {
  check_attrs(op, given);
  Attrs out;
  for (const AttrSpec& s : op.attrs) {
    if (given.has(s.name)) {
      out.set(s.name, coerce(s.kind, given.get(s.name)));
    } else {
      MC_CHECK(!std::holds_alternative<std::monostate>(s.dflt), Type, "For '", op.name,
               "', the attribute '", s.name, "' is required.");
      out.set(s.name, s.dflt);
    }
  }
  for (const char* extra : {kStrategyAttr, kRecomputeAttr, kRandomStreamAttr})
    if (given.has(extra)) out.set(extra, given.get(extra));
  return out;
}

}  // namespace mycel
