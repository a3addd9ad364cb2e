#include "ops/attrs.h"

#include <sstream>

namespace mycel {

const AttrValue* Attrs::find(std::string_view name) const {
  for (const auto& [k, v] : items_) {
    if (k == name) return &v;
  }
  return nullptr;
}

void Attrs::set(std::string_view name, AttrValue v) {
  for (auto& [k, old] : items_) {
    if (k == name) {
      old = std::move(v);
      return;
    }
  }
  items_.emplace_back(std::string(name), std::move(v));
}

const AttrValue& Attrs::get(std::string_view name) const {
  const AttrValue* v = find(name);
  MC_ASSERT(v != nullptr, "missing attribute '", name, "'");
  return *v;
}

namespace {
template <class T>
const T& get_as(const Attrs& a, std::string_view name) {
  const T* p = std::get_if<T>(&a.get(name));
  MC_ASSERT(p != nullptr, "attribute '", name, "' has the wrong kind");
  return *p;
}
}  // namespace

bool Attrs::get_bool(std::string_view n) const { return get_as<bool>(*this, n); }
int64_t Attrs::get_int(std::string_view n) const { return get_as<int64_t>(*this, n); }
double Attrs::get_float(std::string_view n) const { return get_as<double>(*this, n); }
const std::string& Attrs::get_str(std::string_view n) const {
  return get_as<std::string>(*this, n);
}
const std::vector<int64_t>& Attrs::get_ints(std::string_view n) const {
  return get_as<std::vector<int64_t>>(*this, n);
}
DType Attrs::get_dtype(std::string_view n) const { return get_as<DType>(*this, n); }

std::string_view attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Bool:
      return "bool";
    case AttrKind::Int:
      return "int";
    case AttrKind::Float:
      return "float";
    case AttrKind::Str:
      return "str";
    case AttrKind::Ints:
      return "tuple of int";
    case AttrKind::DType:
      return "dtype";
  }
  return "?";
}

std::string attr_value_str(const AttrValue& v) {
  std::ostringstream os;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          os << "None";
        else if constexpr (std::is_same_v<T, bool>)
          os << (x ? "True" : "False");
        else if constexpr (std::is_same_v<T, std::string>)
          os << '\'' << x << '\'';
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          os << '(';
          for (size_t i = 0; i < x.size(); ++i) os << (i ? ", " : "") << x[i];
          os << (x.size() == 1 ? ",)" : ")");
        } else
          os << x;
      },
      v);
  return os.str();
}

}  // namespace mycel
